"""Broken sources: each is a SourceError (an AggframeError) naming the path and what is wrong.

The catalogue of issue #12 item 3, one test per broken source, plus the data set
that must just work: Parquet files whose integer (or float) widths differ.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import f1_score, precision_score, recall_score

import aggframe as af
from aggframe.intake.origin import Origin
from aggframe.intake.paths import DIRECTORY_EMPTY, FILE_NOT_FOUND, GLOB_NO_MATCH
from aggframe.intake.read_errors import READ_HINTS, reading

EXAMPLES = Path(__file__).parent.parent.parent / "examples"
FRAME = pl.read_parquet(EXAMPLES / "predictions.parquet")
LABELS = pl.DataFrame({"y_true": [0, 1, 2, 1, 0, 2], "y_pred": [0, 1, 1, 1, 2, 2]})


def names(path: Path | str) -> str:
    """A regex matching the path as the message names it."""
    return re.escape(str(path))


def source_error(exc: pytest.ExceptionInfo[BaseException], *paths: Path | str) -> str:
    """The message of a SourceError, checked to be one and to name every path."""
    assert isinstance(exc.value, af.errors.SourceError)
    assert isinstance(exc.value, af.AggframeError)
    message = str(exc.value)
    for path in paths:
        assert str(path) in message, (path, message)
    return message


# ---------------------------------------------------------------------------
# Caught before anything is read


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.parquet"
    with pytest.raises(af.errors.SourceError, match=re.escape(FILE_NOT_FOUND.format(path=str(path)))):
        af.from_labels(path)


def test_empty_glob(tmp_path: Path) -> None:
    LABELS.write_parquet(tmp_path / "a.parquet")
    pattern = str(tmp_path / "*.csv")
    with pytest.raises(af.errors.SourceError, match=re.escape(GLOB_NO_MATCH.format(path=pattern))):
        af.scan(pattern)
    with pytest.raises(af.errors.SourceError) as exc:
        af.from_labels(str(tmp_path / "2026-*" / "*.parquet"))
    assert "matches no files" in source_error(exc, tmp_path / "2026-*")


def test_empty_directory(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    with pytest.raises(af.errors.SourceError, match=re.escape(DIRECTORY_EMPTY.format(path=str(folder)))):
        af.from_labels(folder)
    (folder / "_SUCCESS").touch()  # zero-byte markers do not count
    with pytest.raises(af.errors.SourceError, match="is empty"):
        af.scan(folder)


def test_directory_without_parquet_files_and_mixed_directory(tmp_path: Path) -> None:
    folder = tmp_path / "csvs"
    folder.mkdir()
    LABELS.write_csv(folder / "a.csv")
    with pytest.raises(af.errors.SourceError) as exc:
        af.from_labels(folder)
    assert "holds no Parquet files" in source_error(exc, folder, folder / "a.csv")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    LABELS.write_parquet(mixed / "part-0.parquet")
    (mixed / "_SUCCESS").write_text("done")
    with pytest.raises(af.errors.SourceError) as exc:
        af.from_labels(mixed)
    assert "**/*.parquet" in source_error(exc, mixed / "_SUCCESS")
    # as the message says: a glob of the Parquet files reads them
    assert af.from_labels(str(mixed / "**" / "*.parquet")).compute("f1", "macro") == pytest.approx(
        f1_score(LABELS["y_true"], LABELS["y_pred"], average="macro")
    )


def test_zero_byte_marker_in_a_directory_is_skipped(tmp_path: Path) -> None:
    LABELS.write_parquet(tmp_path / "part-0.parquet")
    (tmp_path / "_SUCCESS").touch()
    assert af.from_labels(tmp_path).compute("recall", "macro") == pytest.approx(
        recall_score(LABELS["y_true"], LABELS["y_pred"], average="macro")
    )


def test_corrupt_parquet(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.parquet"
    path.write_bytes(np.random.default_rng(0).bytes(500))
    with pytest.raises(af.errors.SourceError) as exc:
        af.from_labels(path)
    assert "not a readable Parquet file" in source_error(exc, path)
    # among other files, the corrupt one is named
    LABELS.write_parquet(tmp_path / "a.parquet")
    with pytest.raises(af.errors.SourceError) as exc:
        af.from_labels(str(tmp_path / "*.parquet"))
    source_error(exc, path)
    # a scan made outside aggframe fails when its schema is resolved, at construction
    with pytest.raises(af.errors.SourceError, match="could not read the frame"):
        af.from_labels(pl.scan_parquet(path))


def test_zero_byte_files(tmp_path: Path) -> None:
    for name in ("empty.csv", "empty.parquet"):
        path = tmp_path / name
        path.touch()
        with pytest.raises(af.errors.SourceError) as exc:
            af.from_labels(path)
        assert "is empty (0 bytes)" in source_error(exc, path)
    LABELS.write_csv(tmp_path / "a.csv")
    with pytest.raises(af.errors.SourceError) as exc:
        af.from_labels(str(tmp_path / "*.csv"))
    source_error(exc, tmp_path / "empty.csv")


# ---------------------------------------------------------------------------
# Files of one data set that disagree (checked from the footers, before reading)


def test_parquet_files_string_vs_int64(tmp_path: Path) -> None:
    LABELS.write_parquet(tmp_path / "1.parquet")
    LABELS.with_columns(pl.col("y_true").cast(pl.String)).write_parquet(tmp_path / "2.parquet")
    with pytest.raises(af.errors.SourceError) as exc:
        af.from_labels(tmp_path)
    message = source_error(exc, tmp_path / "1.parquet", tmp_path / "2.parquet")
    assert "'y_true'" in message
    assert "Int64" in message
    assert "String" in message


def test_extra_column_in_a_later_file(tmp_path: Path) -> None:
    LABELS.write_parquet(tmp_path / "1.parquet")
    LABELS.with_columns(pl.lit("x").alias("note")).write_parquet(tmp_path / "2.parquet")
    with pytest.raises(af.errors.SourceError) as exc:
        af.from_labels(tmp_path)
    message = source_error(exc, tmp_path / "1.parquet", tmp_path / "2.parquet")
    assert "has column(s) 'note'" in message
    # and the other way round: a later file lacks a column
    with pytest.raises(af.errors.SourceError) as exc:
        af.from_labels([tmp_path / "2.parquet", tmp_path / "1.parquet"])
    assert "lacks column(s) 'note'" in source_error(exc, tmp_path / "1.parquet")


INTEGERS = [pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32]


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=30, deadline=None)
@given(
    data=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=40),
    cut=st.integers(1, 39),
    widths=st.tuples(st.sampled_from(INTEGERS), st.sampled_from(INTEGERS)),
)
def test_integer_widths_differing_across_files_are_one_data_set(
    tmp_path_factory: pytest.TempPathFactory,
    data: list[tuple[int, int]],
    cut: int,
    widths: tuple[pl.DataType, pl.DataType],
) -> None:
    folder = tmp_path_factory.mktemp("widths")
    yt, yp = np.array([d[0] for d in data]), np.array([d[1] for d in data])
    cut = min(cut, len(data) - 1)
    for i, (part, dtype) in enumerate(((slice(0, cut), widths[0]), (slice(cut, None), widths[1]))):
        pl.DataFrame({"y_true": yt[part], "y_pred": yp[part]}).cast(dtype).write_parquet(
            folder / f"{i}.parquet"
        )
    pr = af.from_labels(folder)
    for average in ("micro", "macro", "weighted"):
        expected = precision_score(yt, yp, average=average, zero_division=np.nan)
        assert pr.compute("precision", average) == pytest.approx(expected, nan_ok=True)


def test_int32_and_int64_files_in_hive_partitions_and_float_widths(tmp_path: Path) -> None:
    for i, (model, dtype) in enumerate((("a", pl.Int32), ("b", pl.Int64), ("c", pl.Int16))):
        part = tmp_path / "hive" / f"model={model}"
        part.mkdir(parents=True)
        FRAME.filter(pl.col("model") == FRAME["model"].unique().sort()[i]).drop("model").cast(
            {"y_true": dtype, "y_pred": dtype}
        ).write_parquet(part / "0.parquet")
    got = af.from_labels(tmp_path / "hive").evaluate(["f1", "mcc"], by="model")
    renamed = FRAME.with_columns(
        pl.col("model").replace_strict(dict(zip(FRAME["model"].unique().sort(), "abc", strict=True)))
    )
    assert_frame_equal(got, af.from_labels(renamed).evaluate(["f1", "mcc"], by="model"), abs_tol=1e-12)
    # long form: 0/1 indicators written as Int8 in one file, Float32 or Float64 in others
    long = pl.DataFrame(
        {"example": [0, 0, 1, 1, 2, 2], "class": [0, 1] * 3, "y": [1, 0, 0, 1, 1, 0], "p": [1, 0, 1, 1, 0, 1]}
    )
    (tmp_path / "long").mkdir()
    long[:2].cast({"y": pl.Int8, "p": pl.Int8}).write_parquet(tmp_path / "long" / "0.parquet")
    long[2:4].cast({"y": pl.Float32, "p": pl.Float32}).write_parquet(tmp_path / "long" / "1.parquet")
    long[4:].cast({"y": pl.Float64, "p": pl.Float64}).write_parquet(tmp_path / "long" / "2.parquet")
    Y = np.array([[1, 0], [0, 1], [1, 0]])
    P = np.array([[1, 0], [1, 1], [0, 1]])
    assert af.from_long(tmp_path / "long").compute("f1", "exemplar") == pytest.approx(
        f1_score(Y, P, average="samples")
    )


# ---------------------------------------------------------------------------
# Errors that show only when the rows are read: reading() names the source


def test_file_deleted_after_scan(tmp_path: Path) -> None:
    path = tmp_path / "day.parquet"
    LABELS.write_parquet(path)
    pr = af.from_labels(path)
    lf = af.scan(path)
    path.unlink()
    with pytest.raises(af.errors.SourceError) as exc:
        pr.evaluate()
    message = source_error(exc, path)
    assert READ_HINTS["No such file or directory"] in message
    assert isinstance(exc.value.__cause__, OSError)
    with pytest.raises(af.errors.SourceError) as exc:
        af.from_labels(lf).compute("f1")
    source_error(exc, path)


def test_csv_row_with_extra_fields(tmp_path: Path) -> None:
    path = tmp_path / "extra.csv"
    path.write_text("y_true,y_pred\n0,0\n1,1,7\n2,1\n")
    pr = af.from_labels(path)  # the header is fine: the bad row shows when it is read
    for engine in ("streaming", "in-memory"):
        with pytest.raises(af.errors.SourceError) as exc:
            pr.evaluate(engine=engine)
        assert "more fields than the header" in source_error(exc, path)


def test_corrupt_data_page_behind_a_valid_footer(tmp_path: Path) -> None:
    path = tmp_path / "page.parquet"
    rng = np.random.default_rng(1)
    pl.DataFrame({"y_true": rng.integers(0, 5, 2000), "y_pred": rng.integers(0, 5, 2000)}).write_parquet(path)
    raw = bytearray(path.read_bytes())
    raw[4:40] = bytes(b ^ 0xFF for b in raw[4:40])  # the first page header, not the footer
    path.write_bytes(bytes(raw))
    pr = af.from_labels(path)
    with pytest.raises(af.errors.SourceError) as exc:
        pr.evaluate()
    source_error(exc, path)
    with pytest.raises(af.errors.SourceError):
        pr.confusion_counts()
    with pytest.raises(af.errors.SourceError):
        pr.parts("f1", "exemplar")


def test_data_errors_inside_the_plan_pass_through_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "nulls.parquet"
    pl.DataFrame({"y_true": [0, None, 1], "y_pred": [0, 1, 1]}).write_parquet(path)
    with pytest.raises(af.errors.NullValueError) as exc:
        af.from_labels(path).evaluate()
    assert not isinstance(exc.value, af.errors.SourceError)


def test_reading_wraps_engine_errors_only() -> None:
    origin = Origin("files", inputs=("a.parquet",), files=("/x/a.parquet",))
    with pytest.raises(af.errors.SourceError, match=r"could not read 'a\.parquet': boom"), reading(origin):
        raise pl.exceptions.ComputeError("boom\nsecond line")
    with pytest.raises(af.errors.DuplicateEntryError), reading(origin):
        raise af.errors.DuplicateEntryError("kept")
    with pytest.raises(KeyError), reading(origin):
        raise KeyError("not a reading error")


def test_mixed_formats_and_no_paths(tmp_path: Path) -> None:
    LABELS.write_csv(tmp_path / "a.csv")
    LABELS.write_parquet(tmp_path / "b.parquet")
    with pytest.raises(af.errors.SourceError) as exc:
        af.scan([tmp_path / "a.csv", tmp_path / "b.parquet"])
    assert "unsupported or mixed input formats" in source_error(exc, tmp_path / "a.csv")
    with pytest.raises(af.errors.OptionError, match="at least one input path"):
        af.scan([])


# ---------------------------------------------------------------------------
# Label arrays


@pytest.mark.parametrize("which", ["y_true", "y_pred"])
def test_object_array_mixing_int_and_str_labels(which: str) -> None:
    mixed = np.array([0, "a", 1, 2], dtype=object)
    plain = np.array([0, 1, 1, 2])
    args = (mixed, plain) if which == "y_true" else (plain, mixed)
    with pytest.raises(af.errors.InvalidValueError) as exc:
        af.from_labels(*args)
    message = str(exc.value)
    assert message.startswith(f"{which} mixes label types")
    assert "3 int (e.g. 0)" in message
    assert "1 str (e.g. 'a')" in message
    # an object array of one type (with a None) is still fine up to the null check
    with pytest.raises(af.errors.NullValueError):
        af.from_labels(np.array([0, None, 1], dtype=object), np.array([0, 1, 1])).evaluate()


def test_errors_are_value_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not found"):
        af.scan(tmp_path / "missing.csv")


def test_a_file_read_twice_is_refused(tmp_path: Path) -> None:
    """The same file twice, a glob and one of its files, a folder and one of its partitions: each
    file's rows counted twice, with no error (exemplar n_entries 8 for 4 examples)."""
    frame = pl.DataFrame({"y_true": [0, 1, 1, 0], "y_pred": [0, 1, 0, 0]})
    frame.write_parquet(tmp_path / "a.parquet")
    (tmp_path / "log" / "day=1").mkdir(parents=True)
    frame.write_parquet(tmp_path / "log" / "day=1" / "p.parquet")
    a, log = str(tmp_path / "a.parquet"), str(tmp_path / "log")
    for paths in ([a, a], [a, str(tmp_path / "*.parquet")], [log, str(tmp_path / "log" / "day=1")]):
        with pytest.raises(
            af.errors.SourceError, match=r"is read twice, through .*: its rows would count twice"
        ):
            af.scan(paths)
    assert af.scan([a, str(tmp_path / "log" / "**" / "*.parquet")]).collect().height == 8  # two files


def test_a_folder_that_cannot_be_listed_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A partition folder without read permission was skipped by rglob/glob: the report silently
    left its rows out. (Simulated: the tests may run as root, for whom permissions do not apply.)"""
    import os

    frame = pl.DataFrame({"y_true": [0, 1], "y_pred": [0, 1]})
    for day in (1, 2):
        (tmp_path / f"day={day}").mkdir()
        frame.write_parquet(tmp_path / f"day={day}" / "p.parquet")
    locked = str(tmp_path / "day=2")
    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        if str(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    for path in (tmp_path, tmp_path / "**" / "*.parquet"):
        with pytest.raises(
            af.errors.SourceError, match=r"cannot read the folder '.*day=2': Permission denied"
        ):
            af.scan(path)


def test_linked_partition_folders_and_broken_links(tmp_path: Path) -> None:
    """A partition folder that is a symbolic link was skipped by the directory scan (os.walk does
    not follow links): its rows were left out, exit 0. A broken link to a file was skipped by the
    scan and by globs alike. A link back up the tree (a loop) was walked by a ``**`` glob until the
    path was too long. Now the link is followed; the others are SourceErrors naming the path."""
    import os

    log, elsewhere = tmp_path / "log", tmp_path / "elsewhere"
    (log / "part=1").mkdir(parents=True)
    elsewhere.mkdir()
    first, second = FRAME[:2400], FRAME[2400:]
    first.write_parquet(log / "part=1" / "p.parquet")
    second.write_parquet(elsewhere / "p.parquet")
    os.symlink(elsewhere, log / "part=2")
    expected = af.from_labels(pl.concat([first, second])).evaluate("f1", "macro")
    for path in (log, str(log / "**" / "*.parquet"), str(log / "*" / "*.parquet")):
        assert af.scan(path, hive=True).select(pl.len()).collect().item() == FRAME.height
        assert_frame_equal(af.from_labels(path).evaluate("f1", "macro"), expected)
    # two links to one folder (or a folder and a link to it): its files would be read twice
    os.symlink(elsewhere, log / "part=3")
    for path in (log, str(log / "**" / "*.parquet")):
        with pytest.raises(af.errors.SourceError) as exc:
            af.scan(path)
        assert "again (through a symbolic link, or a link loop)" in source_error(exc, "part=")
    (log / "part=3").unlink()
    os.symlink(log, elsewhere / "back")  # part=2/back -> log: a loop
    for path in (log, str(log / "**" / "*.parquet")):
        with pytest.raises(af.errors.SourceError) as exc:
            af.scan(path)
        assert "again" in source_error(exc, log / "part=2" / "back", repr(str(log)))
    (elsewhere / "back").unlink()
    (log / "part=4").mkdir()
    os.symlink(tmp_path / "gone.parquet", log / "part=4" / "p.parquet")
    for path in (log, str(log / "**" / "*.parquet"), str(log / "*" / "*.parquet")):
        with pytest.raises(af.errors.SourceError) as exc:
            af.scan(path)
        assert "is a broken symbolic link" in source_error(exc, log / "part=4" / "p.parquet", "gone.parquet")


def test_a_csv_header_naming_a_column_twice(tmp_path: Path) -> None:
    """Polars renames the second of two header names (``y_pred_duplicated_0``): the report read
    the first column without a word (f1 1.0 where the second column gives another value), as a
    DuckDB relation with two columns of one name did before it was refused."""
    path = tmp_path / "dup.csv"
    path.write_text("y_true,y_pred,y_pred\n0,0,1\n1,1,1\n1,1,0\n")
    for source in (path, str(tmp_path / "*.csv")):
        with pytest.raises(af.errors.SourceError) as exc:
            af.from_labels(source)
        assert "names column 'y_pred' twice" in source_error(exc, path)
    # unnamed columns (a trailing comma on every line) are not names given twice
    (tmp_path / "dup.csv").write_text("y_true,y_pred,,\n0,0,,\n1,1,,\n1,0,,\n")
    assert af.from_labels(path).compute("f1", "macro") == pytest.approx(
        f1_score([0, 1, 1], [0, 1, 0], average="macro")
    )


def test_a_directory_types_and_checks_its_partition_keys_as_hive_true_does(tmp_path: Path) -> None:
    """``af.from_labels("results/")`` left the keys below the directory to Polars: ``hour=09`` and
    ``hour=9`` became one group 9 (and ``seg=-0`` one with ``seg=0``), and a key named like a column
    of the files replaced that column (three models reported as one). The command line
    (``hive=True``) kept them apart and refused the clash; a directory reads its keys the same way."""
    frame = FRAME.drop("day")
    parts = dict(zip(("09", "9", "007"), (frame[:1600], frame[1600:3200], frame[3200:]), strict=True))
    for value, part in parts.items():
        (tmp_path / "log" / f"hour={value}").mkdir(parents=True)
        part.write_parquet(tmp_path / "log" / f"hour={value}" / "p.parquet")
    rows = pl.concat([part.with_columns(hour=pl.lit(value)) for value, part in parts.items()])
    expected = af.from_labels(rows).evaluate("f1", "macro", by="hour")
    assert_frame_equal(af.from_labels(tmp_path / "log").evaluate("f1", "macro", by="hour"), expected)
    assert_frame_equal(
        af.from_labels(af.scan(tmp_path / "log", hive=True)).evaluate("f1", "macro", by="hour"), expected
    )
    for value, part in (("0", frame[:2400]), ("-0", frame[2400:])):
        (tmp_path / "signed" / f"seg={value}").mkdir(parents=True)
        part.write_parquet(tmp_path / "signed" / f"seg={value}" / "p.parquet")
    got = af.from_labels(tmp_path / "signed").evaluate("f1", "micro", by="seg")
    assert got["seg"].to_list() == ["-0", "0"]
    assert got["value"].to_list() == pytest.approx(
        [f1_score(p["y_true"], p["y_pred"], average="micro") for p in (frame[2400:], frame[:2400])]
    )
    (tmp_path / "clash" / "model=x").mkdir(parents=True)
    frame.write_parquet(tmp_path / "clash" / "model=x" / "p.parquet")
    with pytest.raises(af.errors.SourceError) as exc:
        af.from_labels(tmp_path / "clash")
    assert "is both a column of" in source_error(exc, "'model'", tmp_path / "clash" / "model=x")


def test_a_parquet_file_named_csv(tmp_path: Path) -> None:
    """A Parquet file named .csv was read as CSV: the message listed the file's bytes as its
    column names ("'PAR1\\x15\\x04...' ... is not in the frame"), or said "invalid utf-8
    sequence". It says what the file is."""
    LABELS.write_parquet(tmp_path / "p.csv")
    for source in (tmp_path / "p.csv", str(tmp_path / "*.csv")):
        with pytest.raises(af.errors.SourceError) as exc:
            af.from_labels(source)
        assert "is a Parquet file (it starts with PAR1), not CSV" in source_error(exc, tmp_path / "p.csv")


def test_a_file_name_with_brackets_is_that_file(tmp_path: Path) -> None:
    """``run[1].parquet`` was read as a glob: it matched ``run1.parquet`` (another file's numbers,
    exit 0), or nothing ("matches no files") though the file was there; a store or a CSV file so
    named could not be read at all. A path that exists is that path; a pattern that does not
    exist as written is still a glob."""
    right = pl.DataFrame({"y_true": [0, 1, 1, 2], "y_pred": [0, 1, 1, 2]})
    wrong = pl.DataFrame({"y_true": [0, 1, 1, 2], "y_pred": [1, 0, 2, 1]})
    right.write_parquet(tmp_path / "run[1].parquet")
    wrong.write_parquet(tmp_path / "run1.parquet")
    right.write_csv(tmp_path / "run[1].csv")
    (tmp_path / "log[1]" / "k=1").mkdir(parents=True)
    right.write_parquet(tmp_path / "log[1]" / "k=1" / "p.parquet")
    expected = f1_score(right["y_true"], right["y_pred"], average="macro")
    for source in ("run[1].parquet", "run[1].csv", "log[1]"):
        path = str(tmp_path / source)
        assert af.from_labels(path).compute("f1", "macro") == pytest.approx(expected)
        assert af.from_labels(af.scan(path, hive=True)).compute("f1", "macro") == pytest.approx(expected)
    store = af.from_labels(str(tmp_path / "run[1].parquet")).write_cells(tmp_path / "cells[1]")
    assert af.from_cells(str(store)).compute("f1", "macro") == pytest.approx(expected)
    # a pattern is still a glob: both files
    assert af.scan(str(tmp_path / "run[0-9].parquet")).collect().height == wrong.height
    assert af.scan(str(tmp_path / "run*.parquet")).collect().height == 2 * right.height
