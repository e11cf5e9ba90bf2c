"""Daily pipelines on the command line: hive keys of the input path, ``--with`` key columns, ``--overwrite``.

``aggframe cells`` keeps every ``key=value`` folder of a Parquet input's path as a
column (``af.scan(paths, hive=True)``), ``--with KEY=VALUE`` adds constant key
columns (and adds them to ``--by``), and an existing store is replaced only with
``--overwrite`` (as ``write_cells(path, overwrite=False)`` in Python).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.interop.cli import main

DAY1 = pl.DataFrame({"model": ["a", "b", "a", "b"], "y_true": [0, 1, 2, 2], "y_pred": [0, 1, 1, 2]})
DAY2 = pl.DataFrame({"model": ["a", "b", "a"], "y_true": [1, 1, 0], "y_pred": [1, 0, 0]})


def _log(tmp_path: Path) -> Path:
    for day, frame in (("2026-11-30", DAY1), ("2026-12-01", DAY2)):
        folder = tmp_path / "log" / f"day={day}"
        folder.mkdir(parents=True)
        frame.write_parquet(folder / "part-0.parquet")
    return tmp_path / "log"


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().err


@pytest.mark.parametrize("declared", [True, False])
def test_daily_stores_keep_the_day_of_their_path(tmp_path: Path, declared: bool) -> None:
    log = _log(tmp_path)
    (tmp_path / "cells").mkdir()
    universe = ["--n-classes", "3"] if declared else []
    for day in ("2026-11-30", "2026-12-01"):
        # the day's folder itself, a file in it, or a glob under it: `day` is a column
        source = {"2026-11-30": str(log / f"day={day}"), "2026-12-01": str(log / f"day={day}" / "*.parquet")}[
            day
        ]
        assert (
            main(["cells", source, "-o", str(tmp_path / "cells" / day), "--by", "model,day", *universe]) == 0
        )
    both = pl.concat(
        [
            DAY1.with_columns(day=pl.lit(dt.date(2026, 11, 30))),
            DAY2.with_columns(day=pl.lit(dt.date(2026, 12, 1))),
        ]
    )
    kw = {"measures": ["f1", "specificity"], "operators": ["micro", "macro"]}
    for by in (["day", "model"], ["model"]):
        expected = af.from_labels(both, n_classes=3 if declared else None).evaluate(**kw, by=by)
        # several stores are added as Cells: the classes a day did not see (day 2 has no
        # class 2) count that day's examples as true negatives, as the rows together do
        got = af.Cells.read(str(tmp_path / "cells" / "*")).evaluate(**kw, by=by)
        assert_frame_equal(got, expected, abs_tol=1e-12)
        stored = af.from_cells(str(tmp_path / "cells" / "*")).evaluate(**kw, by=by)
        assert_frame_equal(stored, expected, abs_tol=1e-12)
    assert got.schema["model"] == pl.String
    assert af.Cells.read(str(tmp_path / "cells" / "*")).table().schema["day"] == pl.Date
    # the whole log: both days' folders below the directory given
    out = tmp_path / "report.csv"
    assert (
        main(
            [
                "report",
                str(log),
                "--by",
                "day",
                "--measures",
                "f1",
                "--operators",
                "micro",
                "-o",
                str(out),
                "--format",
                "csv",
            ]
        )
        == 0
    )
    assert pl.read_csv(out)["day"].to_list() == ["2026-11-30", "2026-12-01"]
    assert (
        main(["report", str(log / "day=2026-12-01"), "--by", "day", "-o", str(out), "--format", "csv"]) == 0
    )
    assert set(pl.read_csv(out)["day"].to_list()) == {"2026-12-01"}


def test_hive_keys_are_typed_and_a_null_partition_is_a_group(tmp_path: Path) -> None:
    for shard, frame in (("007", DAY1), ("__HIVE_DEFAULT_PARTITION__", DAY2)):
        folder = tmp_path / "run=3" / f"shard={shard}"
        folder.mkdir(parents=True)
        frame.write_parquet(folder / "p.parquet")
    lf = af.scan(str(tmp_path / "run=3" / "*" / "*.parquet"), hive=True)
    assert lf.collect_schema()["run"] == pl.Int64
    assert lf.collect_schema()["shard"] == pl.String  # 007 keeps its zeros
    assert main(["cells", str(tmp_path / "run=3"), "-o", str(tmp_path / "s"), "--by", "shard"]) == 0
    got = af.from_cells(tmp_path / "s").evaluate("recall", "micro", by="shard")
    assert got["shard"].to_list() == ["007", None]
    assert got["value"].to_list() == pytest.approx([0.75, 2 / 3])


def test_a_hive_key_that_is_also_a_column_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "model=x"
    folder.mkdir()
    DAY1.write_parquet(folder / "p.parquet")
    assert main(["cells", str(folder / "p.parquet"), "-o", str(tmp_path / "s")]) == 2
    err = _error(capsys)
    assert "input error" in err
    assert "column 'model' is both a column" in err
    with pytest.raises(af.errors.SourceError, match="hive partition key"):
        af.scan(folder, hive=True)
    # without hive=True the files are read as they are (Polars' own rule for directories)
    assert af.scan(folder / "p.parquet").collect()["model"].to_list() == DAY1["model"].to_list()


def test_a_hive_value_holding_an_equals_sign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``seg=a=b`` is refused by name (Polars reads no partition from it: it was a height mismatch
    from deep inside the scan); written as hive writes it, ``seg=a%3Db``, it reads as ``a=b``."""
    for folder in ("seg=07", "seg=a=b", "quoted/seg=a%3Db"):
        (tmp_path / folder).mkdir(parents=True)
        DAY1.write_parquet(tmp_path / folder / "p.parquet")
    paths = [str(tmp_path / "seg=07" / "p.parquet"), str(tmp_path / "seg=a=b" / "p.parquet")]
    assert main(["report", *paths, "--by", "seg"]) == 2
    err = _error(capsys)
    assert "input error" in err
    assert "the folder 'seg=a=b'" in err
    assert "%3D" in err
    with pytest.raises(af.errors.SourceError, match="holds '=' in its value"):
        af.scan(paths[1], hive=True)
    assert af.scan(tmp_path / "quoted", hive=True).collect()["seg"].unique().to_list() == ["a=b"]


def test_files_with_other_hive_keys_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "day=1").mkdir()
    (tmp_path / "other").mkdir()
    DAY1.write_parquet(tmp_path / "day=1" / "p.parquet")
    DAY2.write_parquet(tmp_path / "other" / "p.parquet")
    paths = [str(tmp_path / "day=1" / "p.parquet"), str(tmp_path / "other" / "p.parquet")]
    assert main(["cells", *paths, "-o", str(tmp_path / "s")]) == 2
    assert "hive partition keys" in _error(capsys)


def test_with_adds_typed_key_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    DAY1.write_csv(tmp_path / "day.csv")
    args = ["cells", str(tmp_path / "day.csv"), "-o", str(tmp_path / "s"), "--by", "model"]
    assert main([*args, "--with", "day=2026-11-30", "--with", "shard=07", "--with", "run=3"]) == 0
    stored = af.from_cells(tmp_path / "s")
    table = stored.cells("pooled", by=["model", "day", "shard", "run"])
    assert table.schema["day"] == pl.Date
    assert table.schema["shard"] == pl.String
    assert table.schema["run"] == pl.Int64
    assert table.select("day", "shard", "run").unique().rows() == [(dt.date(2026, 11, 30), "07", 3)]
    for bad, text in (
        (["--with", "model=1"], "already has a column 'model'"),
        (["--with", "day"], "expected KEY=VALUE"),
        (["--with", "a=1", "--with", "a=2"], "twice"),
    ):
        assert main([*args[:3], str(tmp_path / "t"), *bad]) == 2
        assert text in _error(capsys)
    assert main(["cells", str(tmp_path / "s"), "-o", str(tmp_path / "u"), "--with", "a=1"]) == 2
    assert "cell stores keep the keys" in _error(capsys)


def test_overwrite_is_needed_to_replace_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    DAY1.write_parquet(tmp_path / "d.parquet")
    args = ["cells", str(tmp_path / "d.parquet"), "-o", str(tmp_path / "s")]
    assert main(args) == 0
    assert main([*args, "--by", "model"]) == 2
    assert "existing cell store; pass --overwrite" in _error(capsys)
    assert af.from_cells(tmp_path / "s").source.stored_by == ()
    assert main([*args, "--by", "model", "--overwrite"]) == 0
    assert af.from_cells(tmp_path / "s").source.stored_by == ("model",)
    # Python refuses the same way
    with pytest.raises(af.errors.StoreError, match="overwrite=True"):
        af.from_labels(DAY1).write_cells(tmp_path / "s")


def test_identical_csv_days_keyed_with_with_add_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two days whose CSV files have the same bytes (a fixed evaluation set), keyed with --with day=...,
    were refused as covering the same file; the same bytes under two hive folders were accepted.
    The --with constants are part of the files' fingerprints now, as hive folders are."""
    text = "model,y_true,y_pred\na,0,0\na,1,1\na,1,0\n"
    days = ["2026-11-29", "2026-11-30"]
    for day in days:
        (tmp_path / f"preds-{day}.csv").write_text(text)
        out = str(tmp_path / "cells" / day)
        assert (
            main(
                [
                    "cells",
                    str(tmp_path / f"preds-{day}.csv"),
                    "-o",
                    out,
                    "--by",
                    "model",
                    "--with",
                    f"day={day}",
                    "-q",
                ]
            )
            == 0
        )
    got = af.from_cells(str(tmp_path / "cells" / "*")).evaluate("f1", "exemplar", by="day")
    assert got["day"].cast(pl.String).to_list() == days
    assert got["n_entries"].to_list() == [3, 3]
    # the same file under two days is still one file read twice
    again = str(tmp_path / "again")
    assert (
        main(
            [
                "cells",
                str(tmp_path / "preds-2026-11-29.csv"),
                "-o",
                again,
                "--by",
                "model",
                "--with",
                "day=2026-12-01",
                "-q",
            ]
        )
        == 0
    )
    with pytest.raises(af.errors.StoreError, match="both cover"):
        af.from_cells([str(tmp_path / "cells" / days[0]), again])


def test_zero_padded_partition_stores_add_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """hour=09 is typed text (a leading zero) and hour=10 an integer, each store typed by its own
    folder: adding the stores was "column 'hour' is String in one and Int64 in the other; cast it"
    (advice the command line cannot follow), while the whole log read as text. The stores' key is
    text now, as the whole log's; other key columns of two types are still refused."""
    log = tmp_path / "log"
    for hour in ("09", "10"):
        (log / f"hour={hour}").mkdir(parents=True)
        pl.DataFrame({"model": ["a", "b", "a"], "y_true": [0, 1, 1], "y_pred": [0, 1, 0]}).write_parquet(
            log / f"hour={hour}" / "p.parquet"
        )
        out = str(tmp_path / "cells" / hour)
        assert main(["cells", str(log / f"hour={hour}"), "-o", out, "--by", "model,hour", "-q"]) == 0
    stores = af.from_cells(str(tmp_path / "cells" / "*")).evaluate("f1", ["micro", "macro"], by="hour")
    whole = af.from_labels(af.scan(log, hive=True)).evaluate("f1", ["micro", "macro"], by="hour")
    assert_frame_equal(stores, whole)
    a = af.from_labels(pl.DataFrame({"k": ["07"], "y_true": [0], "y_pred": [0]})).to_cells(by="k")
    b = af.from_labels(pl.DataFrame({"k": [8], "y_true": [1], "y_pred": [1]})).to_cells(by="k")
    with pytest.raises(af.errors.OptionError, match="column 'k' is String in one and Int64 in the other"):
        a + b
