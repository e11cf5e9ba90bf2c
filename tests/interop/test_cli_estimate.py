"""``aggframe estimate``: the numbers of ``af.estimate`` (binary and wide scores, windows, saved maps), and
misuse as one line on stderr with exit code 2 (a broken reference, a missing column, bad options)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.interop.cli import main

DAY0 = dt.date(2024, 3, 4)


def _binary(seed: int, n: int, key: str = "region") -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    day = rng.integers(0, 14, size=n)
    return pl.DataFrame(
        {
            "score": s,
            "y_true": (rng.uniform(size=n) < s**2).astype(np.int64),
            key: [("n", "s", None)[i] for i in rng.integers(0, 3, size=n)],
            "day": [DAY0 + dt.timedelta(days=int(d)) for d in day],
            "lab": day < 7,
        }
    )


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, pl.DataFrame, pl.DataFrame]:
    ref, now = _binary(0, 1500, "名 x"), _binary(1, 700, "名 x")
    ref.write_parquet(tmp_path / "ref.parquet")
    now.write_parquet(tmp_path / "now.parquet")
    return tmp_path / "ref.parquet", tmp_path / "now.parquet", ref, now


def _read(path: Path, like: pl.DataFrame) -> pl.DataFrame:
    out = pl.read_parquet(path)
    return out.with_columns(pl.col(c).cast(like.schema[c]) for c in out.columns if c in like.columns)


def test_the_command_line_gives_the_numbers_of_python(
    files: tuple[Path, Path, pl.DataFrame, pl.DataFrame], tmp_path: Path
) -> None:
    ref_path, now_path, ref, now = files
    out = tmp_path / "est.parquet"
    args = ["estimate", "--reference", str(ref_path), str(now_path), "--scores", "score", "--by", "名 x"]
    args += [
        "--measures",
        "f1,precision",
        "--operators",
        "binary",
        "--labelled",
        "lab",
        "--calibration",
        "platt",
    ]
    args += ["--time", "day", "--every", "1w", "--n-draws", "10", "--seed", "3", "-o", str(out), "-q"]
    assert main(args) == 0
    want = af.estimate(
        af.from_scores(ref, class_=None, y="y_true"),
        af.from_scores(now, class_=None, y="y_true"),
        ["f1", "precision"],
        "binary",
        by="名 x",
        labelled="lab",
        calibration="platt",
        n_draws=10,
        seed=3,
        time="day",
        every="1w",
    )
    got = _read(out, want)
    assert_frame_equal(got, want)
    assert got["名 x"].null_count() > 0


def test_wide_scores_and_a_saved_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(2)
    p = rng.dirichlet([2.0, 1.0, 1.0], size=900)
    truth = (rng.uniform(size=900)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    wide = pl.DataFrame({"y_true": truth, "p_0": p[:, 0], "p_1": p[:, 1], "p_2": p[:, 2]})
    wide.head(600).write_parquet(tmp_path / "ref.parquet")
    wide.tail(300).write_parquet(tmp_path / "now.parquet")
    common = ["--scores", "p_*", "--measures", "f1,recall", "--operators", "macro,micro", "-q"]
    fit = ["estimate", "--reference", str(tmp_path / "ref.parquet"), str(tmp_path / "now.parquet"), *common]
    assert main([*fit, "--map-out", str(tmp_path / "m1.parquet"), "-o", str(tmp_path / "a.csv")]) == 0
    reuse = ["estimate", "--map-in", str(tmp_path / "m1.parquet"), str(tmp_path / "now.parquet"), *common]
    assert main([*reuse, "-o", str(tmp_path / "b.csv")]) == 0
    a, b = pl.read_csv(tmp_path / "a.csv"), pl.read_csv(tmp_path / "b.csv")
    assert_frame_equal(a, b)
    read = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
    want = af.estimate(
        af.from_scores(wide.head(600), **read),  # type: ignore[arg-type]
        af.from_scores(wide.tail(300), **read),  # type: ignore[arg-type]
        ["f1", "recall"],
        ["macro", "micro"],
    )
    assert a["value"].to_list() == pytest.approx(want["value"].to_list(), abs=1e-12)
    # the saved map is refused as an output without --overwrite, and replaced with it
    assert main([*fit, "--map-out", str(tmp_path / "m1.parquet")]) == 2
    assert "pass --overwrite to replace it" in capsys.readouterr().err
    assert (
        main([*fit, "--map-out", str(tmp_path / "m1.parquet"), "--overwrite", "-o", str(tmp_path / "c.csv")])
        == 0
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--labelled", "nope"], ["input error", "--labelled column 'nope' is not in the input"]),
        (["--by", "nope"], ["input error", "'nope'", "available columns"]),
        (["--time", "nope", "--every", "1d"], ["input error", "time column 'nope'"]),
        (["--time", "day"], ["usage error", "--every"]),
        (["--time", "day", "--every", "1mo"], ["calendar units"]),
        (["--unlabelled", "--time", "day", "--every", "1d"], ["--labelled COLUMN"]),
        (["--measures", "average_precision"], ["does not estimate", "auroc, log_loss, brier"]),
        (["--operators", "nope"], ["nope"]),
        (["--map-in", "somewhere"], ["--reference REF", "--map-in PATH", "one of them"]),
        (["--format", "parquet"], ["--format parquet needs -o"]),
        (["--n-draws", "-1"], ["n_draws", "non-negative"]),
    ],
)
def test_misuse_is_one_line_exit_2(
    files: tuple[Path, Path, pl.DataFrame, pl.DataFrame],
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    words: list[str],
) -> None:
    ref_path, now_path, _, _ = files
    assert main(["estimate", "--reference", str(ref_path), str(now_path), "--scores", "score", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert "Traceback" not in err
    for word in words:
        assert word in err


def test_broken_reference_missing_map_and_no_scores(
    files: tuple[Path, Path, pl.DataFrame, pl.DataFrame], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, now_path, _, _ = files
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not really parquet")
    cases = [
        (["--reference", str(broken)], "broken.parquet' is not a readable Parquet file"),
        (["--reference", str(tmp_path / "gone.parquet")], "input error"),
        (["--map-in", str(tmp_path)], "no calibration map at"),
        (["--map-in", str(tmp_path / "gone")], "gone'"),
    ]
    for flags, words in cases:
        assert main(["estimate", *flags, str(now_path), "--scores", "score"]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err
        assert "Traceback" not in err
        assert err.startswith("aggframe: input error: ")
        assert words in err
    assert main(["estimate", "--reference", str(now_path), str(now_path)]) == 2
    assert "estimate reads scores: pass --scores" in capsys.readouterr().err


def test_help_names_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["estimate", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for flag in (
        "--reference",
        "--map-out",
        "--map-in",
        "--calibration",
        "--labelled",
        "--every",
        "--n-draws",
    ):
        assert flag in text
    assert "aggframe estimate --reference" in text  # the examples
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "estimate" in capsys.readouterr().out


def test_one_numeric_score_column_is_the_binary_layout_in_report_too(
    files: tuple[Path, Path, pl.DataFrame, pl.DataFrame], tmp_path: Path
) -> None:
    _, now_path, _, now = files
    out = tmp_path / "report.csv"
    args = ["report", str(now_path), "--scores", "score", "--measures", "f1,auroc", "--operators", "micro"]
    assert main([*args, "-o", str(out), "-q"]) == 0
    want = af.from_scores(now, class_=None, y="y_true").evaluate(["f1", "auroc"], "micro")
    assert pl.read_csv(out)["value"].to_list() == pytest.approx(want["value"].to_list(), abs=1e-12)


def test_a_shift_warning_is_one_line_and_exit_0(
    files: tuple[Path, Path, pl.DataFrame, pl.DataFrame], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, now_path, _, now = files
    narrow = now.filter(pl.col("score").is_between(0.4, 0.6))
    narrow.write_parquet(tmp_path / "narrow.parquet")
    args = ["estimate", "--reference", str(tmp_path / "narrow.parquet"), str(now_path), "--scores", "score"]
    assert main([*args, "-o", str(tmp_path / "e.csv")]) == 0
    lines = capsys.readouterr().err.strip().splitlines()
    warned = [line for line in lines if line.startswith("aggframe: warning: ")]
    assert len(warned) == 1
    assert "outside the reference's range" in warned[0]
    assert main([*args, "-o", str(tmp_path / "f.csv"), "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_where_filters_the_inputs_not_the_reference(
    files: tuple[Path, Path, pl.DataFrame, pl.DataFrame], tmp_path: Path
) -> None:
    ref_path, now_path, ref, now = files
    out = tmp_path / "w.csv"
    args = [
        "estimate",
        "--reference",
        str(ref_path),
        str(now_path),
        "--scores",
        "score",
        "--operators",
        "binary",
    ]
    assert main([*args, "--where", "\"名 x\" = 'n'", "-o", str(out), "-q"]) == 0
    kept = af.from_scores(now.filter(pl.col("名 x") == "n"), class_=None, y="y_true")
    want = af.estimate(af.from_scores(ref, class_=None, y="y_true"), kept, "f1", "binary")
    estimated = pl.col("kind") == "estimated"  # (the rows with a truth also give realized values)
    want = want.filter(estimated)
    assert pl.read_csv(out).filter(estimated)["value"].item() == pytest.approx(
        want["value"].item(), abs=1e-12
    )
    narrowed = af.from_scores(ref.filter(pl.col("名 x") == "n"), class_=None, y="y_true")
    other = af.estimate(narrowed, kept, "f1", "binary").filter(estimated)["value"].item()
    assert other != pytest.approx(want["value"].item(), abs=1e-9)  # the reference was not filtered
