"""The command line reads scores (``--scores``, ``--decision``) and filters rows (``--where``).

The report parsed from the command line's CSV equals Python's ``evaluate`` on the
same predictions (wide and long scores, each decision), ``--where`` keeps the rows
of its SQL condition on ``report`` and ``cells``, and misuse is one line on
stderr with exit code 2.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.interop.cli import main

MEASURES = "auroc,average_precision,log_loss,f1"


def _proba(n: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, m))
    y = rng.integers(0, m, size=n)
    logits[np.arange(n), y] += 1.0
    p = np.exp(logits)
    return y, p / p.sum(axis=1, keepdims=True)


def _log(tmp_path: Path) -> tuple[Path, pl.DataFrame]:
    """A hive-partitioned log: model=a|b / day=..., with a nullable segment column."""
    frames = []
    for i, (model, day) in enumerate([("a", "2024-01-01"), ("a", "2024-01-02"), ("b", "2024-01-02")]):
        y, p = _proba(40, 3, i)
        df = pl.DataFrame(
            {
                "segment": pl.Series(
                    [None if j % 5 == 0 else f"s{j % 2}" for j in range(40)], dtype=pl.String
                ),
                "y_true": y,
                **{f"p_{c}": p[:, c] for c in range(3)},
            }
        )
        folder = tmp_path / "log" / f"model={model}" / f"day={day}"
        folder.mkdir(parents=True)
        df.write_parquet(folder / "part.parquet")
        frames.append(
            df.with_columns(pl.lit(model).alias("model"), pl.lit(dt.date.fromisoformat(day)).alias("day"))
        )
    return tmp_path / "log", pl.concat(frames)


def _cli(args: list[str], tmp_path: Path) -> pl.DataFrame:
    out = tmp_path / "out.csv"
    assert main([*args, "-o", str(out), "-q"]) == 0
    return pl.read_csv(out)


def _same(cli: pl.DataFrame, py: pl.DataFrame, keys: list[str]) -> None:
    cols = [*keys, "measure", "operator", "value"]
    py = py.select(cols).with_columns(pl.col(k).cast(pl.String) for k in keys)
    cli = cli.select(cols).with_columns(pl.col(k).cast(pl.String) for k in keys)
    order = [*keys, "measure", "operator"]
    assert_frame_equal(cli.sort(order, nulls_last=True), py.sort(order, nulls_last=True), abs_tol=1e-12)


@pytest.mark.parametrize(
    "decision",
    [[], ["--decision", "threshold", "--threshold", "0.4"], ["--decision", "top_k", "--k", "2"]],
    ids=["argmax", "threshold", "top_k"],
)
def test_wide_scores_report_equals_python(tmp_path: Path, decision: list[str]) -> None:
    log, frame = _log(tmp_path)
    cli = _cli(
        [
            "report",
            str(log),
            "--scores",
            "p_*",
            "--y-true",
            "y_true",
            "--by",
            "segment",
            "--measures",
            MEASURES,
            "--operators",
            "micro,macro",
            *decision,
        ],
        tmp_path,
    )
    options: dict[str, Any] = {}
    if decision:
        options = {"decision": decision[1], decision[2].lstrip("-"): float(decision[3])}
        if "k" in options:
            options["k"] = int(options["k"])
    pr = af.from_scores(frame, y_true="y_true", scores=["p_0", "p_1", "p_2"], **options)
    py = pr.evaluate(MEASURES.split(","), ["micro", "macro"], by="segment")
    assert cli["segment"].null_count() > 0
    _same(cli, py, ["segment"])


def test_long_scores_report_equals_python(tmp_path: Path) -> None:
    y, p = _proba(30, 3, 7)
    long = pl.DataFrame(
        {
            "example": np.repeat(np.arange(30), 3),
            "class": np.tile(np.arange(3), 30),
            "score": p.ravel(),
            "y": (np.tile(np.arange(3), 30) == np.repeat(y, 3)).astype(int),
        }
    )
    long.write_parquet(tmp_path / "long.parquet")
    args = [
        "report",
        str(tmp_path / "long.parquet"),
        "--form",
        "long",
        "--scores",
        "score",
        "--decision",
        "argmax",
    ]
    cli = _cli([*args, "--measures", MEASURES, "--operators", "micro,macro"], tmp_path)
    py = af.from_scores(long, decision="argmax").evaluate(MEASURES.split(","), ["micro", "macro"])
    _same(cli, py, [])


def test_where_filters_report_and_cells(tmp_path: Path) -> None:
    log, frame = _log(tmp_path)
    where = "model = 'a' AND day >= '2024-01-02'"
    cli = _cli(["report", str(log), "--scores", "p_*", "--where", where, "--measures", "auroc,f1"], tmp_path)
    kept = frame.filter((pl.col("model") == "a") & (pl.col("day") == dt.date(2024, 1, 2)))
    py = af.from_scores(kept, y_true="y_true", scores="p_*").evaluate(["auroc", "f1"])
    _same(cli, py, [])
    store = tmp_path / "store"
    assert (
        main(
            ["cells", str(log), "--scores", "p_*", "--where", where, "--by", "model", "-o", str(store), "-q"]
        )
        == 0
    )
    from_store = af.from_cells(str(store)).evaluate(["f1", "precision"], ["micro", "macro"], by="model")
    direct = af.from_scores(kept, y_true="y_true", scores="p_*").evaluate(
        ["f1", "precision"], ["micro", "macro"], by="model"
    )
    assert_frame_equal(from_store, direct, abs_tol=1e-12, check_dtypes=False)
    # the label form filters the same way
    labels = frame.with_columns(pl.concat_arr(pl.col("p_0", "p_1", "p_2")).arr.arg_max().alias("y_pred"))
    labels.write_parquet(tmp_path / "labels.parquet")
    cli = _cli(
        ["report", str(tmp_path / "labels.parquet"), "--where", "segment IS NULL", "--measures", "f1"],
        tmp_path,
    )
    py = af.from_labels(labels.filter(pl.col("segment").is_null())).evaluate(["f1"])
    _same(cli, py, [])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--where", "model = "], ["--where 'model = '", "not a SQL expression"]),
        (["--where", "nope > 1 AND model = 'a'"], ["names column 'nope'", "--where"]),
        (["--where", "model"], ["gives String values"]),
        (
            ["--scores", "p_*", "--where", "model = 'c'"],
            ["no rows", "--where \"model = 'c'\": it keeps no row"],
        ),
        (["--where", "y_true=2 AND nope=1"], ["--where 'y_true=2 AND nope=1' names column 'nope'"]),
        (["--scores", "q_*"], ["'q_*' matches no column"]),
        (["--k", "2"], ["--k applies with --scores"]),
        (["--scores", "p_*", "--decision", "top_k"], ["--decision top_k needs --k"]),
        (["--scores", "p_*", "--y-pred", "y_true"], ["--y-pred does not apply with --scores"]),
        (["--measures", "auroc"], ["--scores", "--y-true"]),
    ],
)
def test_misuse_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: list[str]
) -> None:
    log, _ = _log(tmp_path)
    assert main(["report", str(log), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert "Traceback" not in err
    assert "from_scores(" not in err
    assert "=True" not in err
    for word in words:
        assert word in err


def test_not_normalised_rows_and_normalize(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    y, p = _proba(20, 3, 3)
    df = pl.DataFrame({"y_true": y, **{f"p_{c}": 2 * p[:, c] for c in range(3)}})
    df.write_parquet(tmp_path / "w.parquet")
    assert main(["report", str(tmp_path / "w.parquet"), "--scores", "p_*"]) == 2
    err = capsys.readouterr().err
    assert "do not sum to 1 within tolerance=1e-06" in err
    assert "--normalize" in err
    cli = _cli(
        ["report", str(tmp_path / "w.parquet"), "--scores", "p_*", "--normalize", "--measures", "log_loss"],
        tmp_path,
    )
    py = af.from_scores(df, y_true="y_true", scores="p_*", normalize=True).evaluate(["log_loss"])
    _same(cli, py, [])


def test_store_refuses_measures_on_scores_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, _ = _log(tmp_path)
    store = tmp_path / "store"
    assert main(["cells", str(log), "--scores", "p_*", "--by", "model", "-o", str(store), "-q"]) == 0
    assert main(["report", str(store), "--measures", "auroc"]) == 2
    err = capsys.readouterr().err
    assert "cell store keeps the confusion cells of the decisions only" in err
