"""The command line on failure: one line on stderr, exit code 2, worded by what was wrong.

``usage error`` (options), ``input error`` (files, stores, data) and ``output
error`` (where the result goes), in the CLI's language (``--classes``, never
``classes=``). Options and the output path are checked before anything is read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.interop.cli import FLAGS, cli_words, main

EXAMPLES = Path(__file__).parent.parent.parent / "examples"
PREDICTIONS = str(EXAMPLES / "predictions.parquet")
MULTILABEL = str(EXAMPLES / "multilabel.parquet")
FRAME = pl.read_parquet(PREDICTIONS)
KEYWORD = re.compile(rf"(?<![\w-])({'|'.join(FLAGS)})=")
#: advice only a Python user can follow
PYTHON = re.compile(r"\bpr\.|\baf\.|frame\.rename|write_cells|overwrite=True")


def fails(capsys: pytest.CaptureFixture[str], argv: list[str], kind: str) -> str:
    """Run the CLI; it must fail with exit code 2 and one stderr line of that kind. Returns the line."""
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert err.endswith("\n")
    assert lines[0].startswith(f"aggframe: {kind} error: "), lines[0]
    assert not KEYWORD.search(lines[0]), lines[0]  # the CLI's language, not the library's
    assert not PYTHON.search(lines[0]), lines[0]
    return lines[0]


# ---------------------------------------------------------------------------
# Input errors (the broken sources of tests/intake/test_sources.py, through the CLI)


def _empty_dir(tmp: Path) -> str:
    (tmp / "empty").mkdir()
    return str(tmp / "empty")


def _corrupt(tmp: Path) -> str:
    (tmp / "bad.parquet").write_bytes(np.random.default_rng(0).bytes(400))
    return str(tmp / "bad.parquet")


def _zero_csv(tmp: Path) -> str:
    (tmp / "zero.csv").touch()
    return str(tmp / "zero.csv")


def _extra_fields(tmp: Path) -> str:
    (tmp / "extra.csv").write_text("y_true,y_pred\n0,0\n1,1,9\n")
    return str(tmp / "extra.csv")


def _bad_meta(tmp: Path) -> str:
    store = af.from_labels(FRAME).write_cells(tmp / "store", by="model")
    (Path(store) / "meta.json").write_text("{truncated")
    return str(store)


def _meta_missing(tmp: Path) -> str:
    store = af.from_labels(FRAME).write_cells(tmp / "store", by="model")
    (Path(store) / "meta.json").unlink()
    return str(store)


def _string_vs_int(tmp: Path) -> str:
    FRAME.write_parquet(tmp / "1.parquet")
    FRAME.with_columns(pl.col("y_pred").cast(pl.String)).write_parquet(tmp / "2.parquet")
    return str(tmp / "*.parquet")


INPUTS: dict[str, tuple[Callable[[Path], str], str]] = {
    "missing file": (lambda tmp: str(tmp / "missing.parquet"), "not found"),
    "empty directory": (_empty_dir, "is empty"),
    "empty glob": (lambda tmp: str(tmp / "*.parquet"), "matches no files"),
    "corrupt parquet": (_corrupt, "not a readable Parquet file"),
    "zero-byte csv": (_zero_csv, "is empty (0 bytes)"),
    "csv row with extra fields": (_extra_fields, "more fields than the header"),
    "string vs int64 files": (_string_vs_int, "need one type per column"),
    "bad meta.json": (_bad_meta, "bad meta.json"),
    "store without meta.json": (_meta_missing, "no meta.json"),
}


@pytest.mark.parametrize("case", list(INPUTS))
@pytest.mark.parametrize("command", ["report", "cells"])
def test_input_errors(case: str, command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    make, wording = INPUTS[case]
    source = make(tmp_path)
    argv = [command, source] + (["-o", str(tmp_path / "out")] if command == "cells" else [])
    line = fails(capsys, argv, "input")
    assert wording in line
    named = source if "*" not in source else str(tmp_path)
    assert named in line


def test_data_error_in_the_cli_language(capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(capsys, ["report", PREDICTIONS, "--fold", "nope"], "input")
    assert "'nope' (--fold)" in line
    assert "--fold <column name>" in line
    line = fails(capsys, ["report", PREDICTIONS, "--task", "binary"], "usage")
    assert "--task binary" in line
    assert "--task multiclass" in line
    line = fails(capsys, ["report", MULTILABEL, "--form", "long"], "input")
    assert "sparse" in line


# ---------------------------------------------------------------------------
# Usage errors: options that are wrong or do not apply


USAGE = {
    "--pooling without --fold": (["--pooling", "averaged"], "--pooling needs --fold"),
    "--within without --target": (["--within", "macro"], "--within needs --target"),
    "--grouping-sets without --by": (["--grouping-sets", "rollup"], "--grouping-sets needs --by"),
    "--format parquet without -o": (["--format", "parquet"], "--format parquet needs -o"),
    "--repeat without --fold": (["--repeat", "r"], "--repeat needs --fold"),
    "--tnorm with labels": (["--tnorm", "product"], "--tnorm applies to --form long"),
    "--mask with labels": (["--mask", "m"], "--mask applies to --form long"),
    "--y-true with long": (["--form", "long", "--y-true", "t"], "--y-true applies to the label form"),
    "--task with long": (["--form", "long", "--task", "binary"], "--task applies to the label form"),
    "--pos-label with long": (
        ["--form", "long", "--pos-label", "1"],
        "--pos-label applies to the label form",
    ),
    "--pos-label without binary": (["--pos-label", "2"], "--pos-label applies with --task binary"),
    "--n-classes and --classes": (["--n-classes", "3", "--classes", "0,1,2"], "not both"),
    "--n-classes 0": (["--n-classes", "0"], "positive integer"),
    "--classes not numbers": (["--classes", "0,1,cat"], "--classes 'cat' is not a number"),
    "unknown format": (["--format", "xml"], "invalid choice: 'xml'"),
    "unknown measure": (["--measures", "f7x"], "unknown measure 'f7x'"),
    "unknown option": (["--bogus"], "unrecognized arguments: --bogus"),
}


@pytest.mark.parametrize("case", list(USAGE))
def test_usage_errors(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    extra, wording = USAGE[case]
    assert wording in fails(capsys, ["report", PREDICTIONS, *extra], "usage")


def test_cells_pos_label_error_names_its_own_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # the message named --operators binary, an option `aggframe cells` does not have
    line = fails(capsys, ["cells", PREDICTIONS, "--pos-label", "2", "-o", str(tmp_path / "c")], "usage")
    assert "--pos-label applies with --task binary only" in line
    with pytest.raises(SystemExit):
        main(["cells", "--help"])
    text = capsys.readouterr().out
    assert "--operators" not in text.split("\n  --pos-label LABEL")[1].split("--fold")[0]


def test_usage_errors_come_before_reading(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = _extra_fields(tmp_path)  # would fail only when read
    fails(capsys, ["report", broken, "--format", "parquet"], "usage")
    fails(capsys, ["report", broken, "--pooling", "fold"], "usage")
    fails(capsys, ["report"], "usage")


def test_options_that_do_not_apply_to_cell_stores(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = str(af.from_labels(FRAME).write_cells(tmp_path / "s", by="model"))
    for extra in (["--classes", "0,1"], ["--y-true", "t"], ["--form", "labels"], ["--fold", "f"]):
        line = fails(capsys, ["report", store, *extra], "usage")
        assert f"{extra[0]} does not apply to cell stores" in line
    line = fails(capsys, ["report", store, PREDICTIONS], "usage")
    assert "not both" in line


# ---------------------------------------------------------------------------
# Output errors, checked before anything is computed


def test_output_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "no" / "report.csv"
    line = fails(capsys, ["report", PREDICTIONS, "-o", str(missing)], "output")
    assert f"the directory {str(missing.parent)!r} does not exist" in line
    line = fails(capsys, ["report", PREDICTIONS, "-o", str(tmp_path)], "output")
    assert "is a directory" in line
    (tmp_path / "file").write_text("keep me")
    line = fails(capsys, ["cells", PREDICTIONS, "-o", str(tmp_path / "file")], "output")
    assert "is an existing file" in line
    assert (tmp_path / "file").read_text() == "keep me"
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    for extra in ([], ["--overwrite"]):
        line = fails(capsys, ["cells", PREDICTIONS, "-o", str(tmp_path / "other"), *extra], "output")
        assert "not empty and not a cell store" in line


def test_output_errors_come_before_reading(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = _extra_fields(tmp_path)
    fails(capsys, ["report", broken, "-o", str(tmp_path / "no" / "x.csv")], "output")
    fails(capsys, ["cells", broken, "-o", str(tmp_path)], "output")  # not empty, not a store


def test_cells_refuses_an_existing_store_unless_overwrite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    assert main(["cells", PREDICTIONS, "--by", "model", "-o", str(store)]) == 0
    capsys.readouterr()
    first = json.loads((store / "meta.json").read_text())["id"]
    line = fails(capsys, ["cells", PREDICTIONS, "--by", "model", "-o", str(store)], "output")
    assert "--overwrite" in line
    assert main(["cells", PREDICTIONS, "--by", "day", "-o", str(store), "--overwrite"]) == 0
    meta = json.loads((store / "meta.json").read_text())
    assert meta["id"] != first
    assert meta["by"] == ["day"]
    (tmp_path / "file").write_text("x")
    assert main(["cells", PREDICTIONS, "-o", str(tmp_path / "file"), "--overwrite"]) == 0
    assert (tmp_path / "file" / "meta.json").exists()


# ---------------------------------------------------------------------------
# Success stays one line too, and a quoted glob of stores works


def test_success_is_one_progress_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", PREDICTIONS, "--measures", "f1", "--operators", "macro"]) == 0
    out, err = capsys.readouterr()
    assert "f1" in out
    assert len(err.splitlines()) == 1
    assert err.startswith("aggframe: scanning 1 input(s)")


def test_quoted_glob_of_stores(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "cells").mkdir()
    for day in FRAME["day"].unique().to_list():
        FRAME.filter(pl.col("day") == day).write_parquet(tmp_path / f"{day}.parquet")
        assert (
            main(
                [
                    "cells",
                    str(tmp_path / f"{day}.parquet"),
                    "--by",
                    "model",
                    "-o",
                    str(tmp_path / "cells" / day),
                ]
            )
            == 0
        )
    capsys.readouterr()
    args = ["--by", "model", "--format", "csv", "--measures", "f1,mcc"]
    assert main(["report", str(tmp_path / "cells" / "*"), *args, "-o", str(tmp_path / "stores.csv")]) == 0
    assert main(["report", str(tmp_path / "*.parquet"), *args, "-o", str(tmp_path / "rows.csv")]) == 0
    assert_frame_equal(
        pl.read_csv(tmp_path / "stores.csv"), pl.read_csv(tmp_path / "rows.csv"), abs_tol=1e-12
    )
    capsys.readouterr()
    # the same stores twice: refused, not doubled
    line = fails(capsys, ["report", str(tmp_path / "cells" / "*"), str(tmp_path / "cells" / "*")], "input")
    assert "given twice" in line


# ---------------------------------------------------------------------------
# The keyword -> flag mapping


@pytest.mark.parametrize("keyword", list(FLAGS))
def test_every_keyword_becomes_its_flag(keyword: str) -> None:
    flag = FLAGS[keyword]
    assert cli_words(f"pass {keyword}='<column>' first") == f"pass {flag} <column> first"
    assert cli_words(f"`{keyword}` is wrong") == f"`{flag}` is wrong"
    assert cli_words(f"`{keyword}=3` and more") == f"`{flag} 3` and more"
    assert cli_words(f"column 'c' (role '{keyword}') is absent") == f"column 'c' ({flag}) is absent"


def test_words_inside_other_words_are_left_alone() -> None:
    text = "labels= restricts; the y_true column; by column 'y' is absent"
    assert cli_words(text) == text
    assert cli_words("n_classes=4") == "--n-classes 4"  # not "n_--classes"


def test_class_values_are_read_in_the_column_type(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(4)
    animals = np.array(["cat", "dog"])
    frame = pl.DataFrame(
        {"y_true": animals[rng.integers(0, 2, 50)], "y_pred": animals[rng.integers(0, 2, 50)]}
    )
    frame.write_csv(tmp_path / "animals.csv")
    argv = ["report", str(tmp_path / "animals.csv"), "--measures", "f1", "--format", "csv"]
    assert main([*argv, "--pos-label", "dog", "--operators", "binary"]) == 0
    value = pl.read_csv(capsys.readouterr().out.encode())["value"].item()
    assert value == pytest.approx(f1_score(frame["y_true"], frame["y_pred"], pos_label="dog"))
    line = fails(capsys, ["report", PREDICTIONS, "--task", "binary", "--pos-label", "one"], "usage")
    assert "--pos-label 'one' is not a number" in line
    assert (
        main(["report", PREDICTIONS, "--classes", "0,1,2,3,4,5", "--measures", "f1", "--operators", "macro"])
        == 0
    )


@pytest.mark.parametrize(
    ("text", "positive"), [("1", True), ("true", True), ("True", True), ("0", False), ("false", False)]
)
def test_boolean_labels_take_a_boolean_pos_label(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, positive: bool
) -> None:
    """--pos-label and --classes on Boolean label columns (README: booleans are 0/1).

    Regression: every value, the default 1 included, was refused as "the declared classes
    ['1'] cannot be cast to the column's dtype Boolean": False could not be the positive class.
    """
    from sklearn.metrics import recall_score

    frame = pl.DataFrame(
        {"y_true": [True, False, True, False, True], "y_pred": [True, True, False, False, True]}
    )
    frame.write_parquet(tmp_path / "bool.parquet")
    argv = ["report", str(tmp_path / "bool.parquet"), "--format", "csv", "--measures", "recall"]
    assert main([*argv, "--task", "binary", "--pos-label", text, "--operators", "micro"]) == 0
    value = pl.read_csv(capsys.readouterr().out.encode())["value"].item()
    assert value == pytest.approx(recall_score(frame["y_true"], frame["y_pred"], pos_label=positive))
    assert (
        main([*argv, "--classes", f"{text},{'false' if positive else 'true'}", "--operators", "macro"]) == 0
    )
    capsys.readouterr()
    line = fails(capsys, [*argv, "--task", "binary", "--pos-label", "yes"], "usage")
    assert "--pos-label 'yes' is not a boolean" in line


def test_a_failed_write_is_an_output_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = tmp_path / "store"
    (store / "classes.parquet").mkdir(parents=True)  # where a table goes, a directory is in the way
    (store / "meta.json").write_text("{}")
    line = fails(capsys, ["cells", PREDICTIONS, "-o", str(store), "--overwrite"], "output")
    assert f"could not write the cell store {str(store)!r}" in line


def test_an_output_never_replaces_an_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """-o and --html onto an input file (or a folder holding it) are output errors, and the input
    is left as it was. Regression: ``aggframe report d.parquet --html d.parquet`` exited 0 and
    replaced the predictions with the HTML report."""
    data = tmp_path / "d.parquet"
    FRAME.head(200).write_parquet(data)
    before = data.read_bytes()
    for argv in (
        ["report", str(data), "--html", str(data)],
        ["report", str(data), "-o", str(data)],
        ["report", str(tmp_path / "*.parquet"), "-o", str(data)],
        ["cells", str(data), "-o", str(data), "--overwrite"],
        ["cells", str(data), "-o", str(tmp_path), "--overwrite"],
    ):
        line = fails(capsys, argv, "output")
        assert "would replace or write into the input" in line
    assert data.read_bytes() == before


def test_an_output_never_goes_inside_an_input_folder_or_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """-o into a folder of partitions being read (onto one of its files, or beside them) or onto a
    store's table: output errors, nothing written. Regression: the predictions file of day=1 was
    replaced by the report, and a store's classes.parquet by a report (the store then unreadable)."""
    log = tmp_path / "log"
    for day in (1, 2):
        (log / f"day={day}").mkdir(parents=True)
        FRAME.head(100).drop("day").write_parquet(log / f"day={day}" / "p.parquet")
    store = str(af.from_labels(FRAME.head(100)).write_cells(tmp_path / "store"))
    before = (log / "day=1" / "p.parquet").read_bytes()
    for argv in (
        ["report", str(log), "-o", str(log / "day=1" / "p.parquet"), "--format", "parquet"],
        ["report", str(log), "-o", str(log / "report.csv"), "--format", "csv"],
        ["report", store, "-o", str(Path(store) / "classes.parquet"), "--format", "parquet"],
        ["cells", str(log), "-o", str(log / "cells")],
    ):
        line = fails(capsys, argv, "output")
        assert "would replace or write into the input" in line
    assert (log / "day=1" / "p.parquet").read_bytes() == before
    assert not (log / "report.csv").exists()
    assert not (log / "cells").exists()
    with pytest.raises(af.errors.StoreError, match="would replace or write into"):
        af.from_labels(af.scan(log)).write_cells(log / "cells")


def test_a_missing_input_next_to_a_store(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A missing path is "input file not found", also next to cell stores (it was a usage error:
    "'nope.parquet' is not a cell store but other inputs are")."""
    store = str(af.from_labels(FRAME.head(200)).write_cells(tmp_path / "store"))
    line = fails(capsys, ["report", store, str(tmp_path / "nope.parquet")], "input")
    assert "input file not found" in line


def test_the_output_format_follows_the_file_extension(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """-o report.parquet without --format wrote the text table into the .parquet file (exit 0)."""
    data = tmp_path / "d.parquet"
    FRAME.head(200).write_parquet(data)
    for suffix in (".parquet", ".csv", ".json"):
        out = tmp_path / f"r{suffix}"
        assert (
            main(["report", str(data), "-q", "--measures", "f1", "--operators", "macro", "-o", str(out)]) == 0
        )
        read = {".parquet": pl.read_parquet, ".csv": pl.read_csv, ".json": pl.read_json}[suffix]
        assert read(out)["measure"].to_list() == ["f1"]
    text = tmp_path / "r.txt"
    assert main(["report", str(data), "-q", "--measures", "f1", "--operators", "macro", "-o", str(text)]) == 0
    assert "f1" in text.read_text()  # any other extension: the table
    line = fails(capsys, ["report", str(data), "-o", str(tmp_path / "x.parquet"), "--format", "csv"], "usage")
    assert "names a parquet file and --format is csv" in line


def test_cells_makes_its_folders_and_empty_lists_are_usage_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """README's daily pipeline (`cells ... -o cells/2026-11-30`) failed on the first day: "the
    directory 'cells' does not exist" (write_cells makes it). `--measures ""` ran all 21 measures."""
    data = tmp_path / "d.parquet"
    FRAME.head(200).write_parquet(data)
    out = tmp_path / "cells" / "2026-11-30"
    assert main(["cells", str(data), "-o", str(out), "--by", "model", "-q"]) == 0
    assert af.from_cells(out).evaluate("f1", "macro", by="model").height > 0
    (tmp_path / "file").write_text("x")
    line = fails(capsys, ["cells", str(data), "-o", str(tmp_path / "file" / "s"), "--by", "model"], "output")
    assert "is a file, not a directory" in line
    for flag in ("--measures", "--operators", "--by"):
        line = fails(capsys, ["report", str(data), flag, " , "], "usage")
        assert f"{flag} is empty" in line


def test_an_empty_path_is_not_the_current_directory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pathlib reads '' as '.': `aggframe report "$LOG"` with LOG unset reported on whatever the
    current directory held (exit 0), and `af.from_labels("")` read it too. An input error."""
    FRAME.write_parquet(tmp_path / "p.parquet")
    store = str(af.from_labels(FRAME).write_cells(tmp_path / "store"))
    monkeypatch.chdir(tmp_path / "store")  # a store, for the store paths
    for argv in (["report", ""], ["report", store, " "], ["cells", "", "-o", str(tmp_path / "out")]):
        assert "an input path is empty ('')" in fails(capsys, argv, "input")
    for read in (af.scan, af.from_labels, af.from_cells, af.Cells.read):
        with pytest.raises(af.errors.SourceError, match=re.escape("an input path is empty ('')")):
            read("")
    monkeypatch.chdir(tmp_path)  # a folder of predictions, for the file paths
    assert "an input path is empty" in fails(capsys, ["report", ""], "input")


def test_a_key_named_like_a_result_column_gets_command_line_advice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A hive key `value=1/` (or `--with value=...`) evaluated by that key advised
    `frame.rename({'value': 'value_'})`, which the command line cannot do."""
    for day in (1, 2):
        (tmp_path / "log" / f"value={day}").mkdir(parents=True)
        FRAME.head(50).write_parquet(tmp_path / "log" / f"value={day}" / "p.parquet")
    data = tmp_path / "d.parquet"
    FRAME.head(50).write_parquet(data)
    assert main(["cells", str(data), "--with", "value=3", "-o", str(tmp_path / "store"), "-q"]) == 0
    for argv in (
        ["report", str(tmp_path / "log"), "--by", "value"],
        ["report", str(tmp_path / "store"), "--by", "value"],
    ):
        line = fails(capsys, argv, "usage")
        assert "column 'value' collides with a column of the evaluate result" in line
        assert "rename the key=value folders value=... (e.g. to value_=...)" in line
        assert "--with another key" in line
    # the advice to write a store again names the command that writes one
    (tmp_path / "store" / "meta.json").unlink()
    line = fails(capsys, ["report", str(tmp_path / "store")], "input")
    assert "no meta.json); write one with `aggframe cells INPUT... -o DIR`" in line


def test_output_paths_empty_or_with_a_newline(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`-o ''` said it "would replace or write into the input"; an output path holding a newline
    split the success line in two. An empty -o or --html is an output error; paths are quoted."""
    data = tmp_path / "d.parquet"
    FRAME.head(50).write_parquet(data)
    for argv in (["cells", str(data), "-o", ""], ["report", str(data), "-o", " "]):
        assert f"-o is empty ({argv[-1]!r})" in fails(capsys, argv, "output")
    assert "--html is empty ('')" in fails(capsys, ["report", str(data), "--html", ""], "output")
    out = tmp_path / "a\nb"
    assert main(["cells", str(data), "-o", str(out)]) == 0
    _, err = capsys.readouterr()
    assert err.splitlines() == [err.rstrip("\n")]
    assert f"wrote cell store {str(out)!r}" in err


def test_other_python_advice_becomes_the_command_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`--tnorm foo` offered `af.tnorms.hamacher(gamma)` or a callable; stores whose `--with` key has two
    types said to cast it in the predictions. Neither can be done on the command line."""
    long = tmp_path / "long.parquet"
    pl.DataFrame(
        {"example": [0, 0, 1, 1], "class": [0, 1, 0, 1], "y": [1.0, 0, 0, 1], "p": [0.7, 0.2, 0.4, 0.9]}
    ).write_parquet(long)
    line = fails(capsys, ["report", str(long), "--form", "long", "--tnorm", "foo"], "usage")
    assert line.endswith("unknown t-norm 'foo'; valid names: godel, hamacher, lukasiewicz, minimum, product")
    for i, key in enumerate(("1", "x")):
        FRAME.head(50 + i).write_parquet(tmp_path / f"{i}.parquet")
        argv = [
            "cells",
            str(tmp_path / f"{i}.parquet"),
            "--with",
            f"k={key}",
            "-o",
            str(tmp_path / f"s{i}"),
            "-q",
        ]
        assert main(argv) == 0
    line = fails(capsys, ["report", str(tmp_path / "s0"), str(tmp_path / "s1"), "--by", "k"], "input")
    assert "column 'k' is Int64 in one and String in the other" in line
    assert "the --with values) and write the stores again" in line
