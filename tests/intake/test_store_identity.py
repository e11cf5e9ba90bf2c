"""Cell stores know who they are and what they cover, and refuse to be counted twice.

Stores add up, so the same rows read twice would silently double the counts: the
same store given twice, a copy of a store, two stores of the same files, a store
written from stores next to one of them, or the same frame written twice. Each
is a StoreError naming both stores and what they share.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import f1_score

import aggframe as af
from aggframe.intake.store_format import FORMAT, STORE_TWICE

EXAMPLES = Path(__file__).parent.parent.parent / "examples"
FRAME = pl.read_parquet(EXAMPLES / "predictions.parquet")
DAYS = FRAME["day"].unique().sort().to_list()


def day_files(folder: Path) -> list[Path]:
    folder.mkdir(exist_ok=True)
    paths = []
    for day in DAYS:
        path = folder / f"{day}.parquet"
        FRAME.filter(pl.col("day") == day).write_parquet(path)
        paths.append(path)
    return paths


def store_error(exc: pytest.ExceptionInfo[BaseException], *names: Path | str) -> str:
    assert isinstance(exc.value, af.errors.StoreError)
    assert isinstance(exc.value, af.errors.SourceError)
    message = str(exc.value)
    for name in names:
        assert str(name) in message, (name, message)
    return message


def test_meta_records_identity_and_coverage(tmp_path: Path) -> None:
    files = day_files(tmp_path / "data")
    store = af.from_labels(files[0]).write_cells(tmp_path / "s", by="model")
    meta = json.loads((Path(store) / "meta.json").read_text())
    assert meta["format"] == FORMAT
    assert uuid.UUID(meta["id"]).version == 4
    assert datetime.fromisoformat(meta["written"]).tzinfo is not None
    assert meta["aggframe_version"] == af.__version__
    assert meta["by"] == ["model"]
    covers = meta["covers"]
    assert covers["kind"] == "files"
    [record] = covers["files"]
    assert record["path"] == str(files[0].resolve())
    assert record["size"] == files[0].stat().st_size
    assert record["mtime_ns"] == files[0].stat().st_mtime_ns
    assert len(record["fingerprint"]) == 64
    frame_store = af.from_labels(FRAME).write_cells(tmp_path / "f", by="model")
    assert json.loads((Path(frame_store) / "meta.json").read_text())["covers"]["kind"] == "frame"


def test_same_store_twice(tmp_path: Path) -> None:
    store = af.from_labels(FRAME).write_cells(tmp_path / "s", by="model")
    for again in (store, tmp_path / "s" / ".." / "s"):
        with pytest.raises(af.errors.StoreError, match=re.escape(STORE_TWICE.format(path=str(again)))) as exc:
            af.from_cells([store, again])
        store_error(exc, again)


def test_copy_of_a_store(tmp_path: Path) -> None:
    store = af.from_labels(FRAME).write_cells(tmp_path / "s", by="model")
    shutil.copytree(store, tmp_path / "copy")
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells([store, tmp_path / "copy"])
    assert "copies of one store" in store_error(exc, store, tmp_path / "copy")


def test_overlapping_file_stores(tmp_path: Path) -> None:
    files = day_files(tmp_path / "data")
    one = af.from_labels(files[1]).write_cells(tmp_path / "one", by="model")
    two = af.from_labels(files[:2]).write_cells(tmp_path / "two", by="model")
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells([one, two])
    store_error(exc, one, two, files[1].resolve())
    # a copy of the file elsewhere is the same content: its fingerprint gives it away
    shutil.copy(files[1], tmp_path / "moved.parquet")
    moved = af.from_labels(tmp_path / "moved.parquet").write_cells(tmp_path / "moved", by="model")
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells([one, moved])
    store_error(exc, one, moved)
    # disjoint files add up, exactly
    rest = af.from_labels(files[2:]).write_cells(tmp_path / "rest", by="model")
    assert_frame_equal(
        af.from_cells([two, rest]).evaluate(["f1", "mcc"], by="model"),
        af.from_labels(FRAME).evaluate(["f1", "mcc"], by="model"),
        abs_tol=1e-12,
    )


def test_the_same_frame_written_twice(tmp_path: Path) -> None:
    a = af.from_labels(FRAME).write_cells(tmp_path / "a", by="model")
    b = af.from_labels(FRAME.sample(fraction=1.0, shuffle=True, seed=3)).write_cells(
        tmp_path / "b", by="model"
    )
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells([a, b])
    assert "identical cell tables" in store_error(exc, a, b)


def test_the_same_frame_written_twice_through_cells(tmp_path: Path) -> None:
    """``to_cells().write()`` records the cell tables' fingerprint as ``write_cells`` does.

    Regression: a store written from in-memory cells recorded only the cells' part id,
    so two stores of the same frame (each its own ``to_cells()``) read together doubled
    every count.
    """
    shuffled = FRAME.sample(fraction=1.0, shuffle=True, seed=5)
    a = af.from_labels(FRAME).to_cells(by="model").write(tmp_path / "a")
    b = af.from_labels(shuffled).to_cells(by="model").write(tmp_path / "b")
    c = af.from_labels(FRAME).write_cells(tmp_path / "c", by="model")
    for pair in ((a, b), (a, c), (c, b)):
        with pytest.raises(af.errors.StoreError) as exc:
            af.from_cells(list(pair))
        assert "identical cell tables" in store_error(exc, *pair)
    # cells summed in memory: the fingerprint of the sum (two stores of one sum are refused)
    days = [af.from_labels(FRAME.filter(pl.col("day") == d)).to_cells(by="model") for d in DAYS]
    s1 = sum(days[1:], days[0]).write(tmp_path / "s1")
    s2 = sum(days[1:], days[0]).write(tmp_path / "s2")
    with pytest.raises(af.errors.StoreError):
        af.from_cells([s1, s2])
    # different rows still add up, exactly
    first, rest = FRAME.filter(pl.col("day") == DAYS[0]), FRAME.filter(pl.col("day") != DAYS[0])
    d1 = af.from_labels(first).to_cells(by="model").write(tmp_path / "d1")
    d2 = af.from_labels(rest).to_cells(by="model").write(tmp_path / "d2")
    assert_frame_equal(
        af.from_cells([d1, d2]).evaluate(["f1", "mcc"], by="model"),
        af.from_labels(FRAME).evaluate(["f1", "mcc"], by="model"),
        abs_tol=1e-12,
    )


def test_stores_written_from_stores(tmp_path: Path) -> None:
    files = day_files(tmp_path / "data")
    stores = [af.from_labels(f).write_cells(tmp_path / f.stem, by="model") for f in files]
    merged = af.from_cells(stores[:2]).write_cells(tmp_path / "merged", by="model")
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells([merged, stores[1]])
    store_error(exc, merged, stores[1])
    assert_frame_equal(
        af.from_cells([merged, *stores[2:]]).evaluate(by="model"),
        af.from_cells(stores).evaluate(by="model"),
        abs_tol=1e-12,
    )


def test_glob_of_stores(tmp_path: Path) -> None:
    for day in DAYS:
        af.from_labels(FRAME.filter(pl.col("day") == day)).write_cells(tmp_path / "cells" / day, by="model")
    pr = af.from_cells(str(tmp_path / "cells" / "*"))
    assert pr.compute("f1", "macro") == pytest.approx(
        f1_score(FRAME["y_true"], FRAME["y_pred"], average="macro")
    )
    with pytest.raises(af.errors.StoreError, match="matches no cell stores"):
        af.from_cells(str(tmp_path / "nothing" / "*"))
    with pytest.raises(af.errors.StoreError, match="given twice"):
        af.from_cells([str(tmp_path / "cells" / "*"), tmp_path / "cells" / DAYS[0]])


@pytest.mark.parametrize(
    ("content", "wording"),
    [
        ("{not json", "bad meta.json"),
        ("[1, 2]", "a JSON list, not an object"),
        ('{"format": "aggframe-cells/99", "by": []}', "unknown format 'aggframe-cells/99'"),
        (json.dumps({"format": FORMAT}), "no list of 'by' columns"),
        (None, "no meta.json"),
    ],
)
def test_bad_meta_json(content: str | None, wording: str, tmp_path: Path) -> None:
    store = Path(af.from_labels(FRAME).write_cells(tmp_path / "s", by="model"))
    if content is None:
        (store / "meta.json").unlink()
    else:
        (store / "meta.json").write_text(content)
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells(store)
    assert wording in store_error(exc, store)
    assert isinstance(exc.value, af.errors.OptionError)  # as before StoreError existed


@pytest.mark.parametrize(
    ("key", "value", "wording"),
    [
        ("folds", 5, "'folds' is 5, not a list of column names"),
        ("folds", ["x", "y"], "it names the key columns ['x', 'y'], which its tables do not have"),
        ("by", ["model", "day"], "it names the key columns ['day']"),
        ("target", 3, "'target' is 3, not a column name"),
        ("universe_keys", ["nope"], "'universe_keys' names ['nope']"),
        ("covers", {"kind": "files", "files": [1]}, "'covers' is not a coverage record"),
        ("covers", "x", "'covers' is not a coverage record"),
        ("tables", ["classes.parquet"], "'tables' is not a record of the store's tables"),
        ("tables", {"x.parquet": "0"}, "'tables' is not a record of the store's tables"),
    ],
)
def test_an_edited_meta_json_that_does_not_fit_its_tables(
    key: str, value: Any, wording: str, tmp_path: Path
) -> None:
    """Fields of meta.json read as they were: raw TypeError/AttributeError, a Polars ColumnNotFoundError,
    or another number (an unknown universe key changed micro mcc). Each a StoreError now."""
    store = Path(af.from_labels(FRAME).write_cells(tmp_path / "s", by="model"))
    meta = json.loads((store / "meta.json").read_text())
    meta[key] = value
    (store / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells(store).evaluate("mcc", ["micro", "macro"], by="model")
    assert wording in store_error(exc, store)


def test_unreadable_table_in_a_store(tmp_path: Path) -> None:
    store = Path(af.from_labels(FRAME).write_cells(tmp_path / "s", by="model"))
    (store / "profiles.parquet").write_bytes(b"garbage")
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells(store)
    assert "profiles.parquet is missing or unreadable" in store_error(exc, store)


#: class 2 is absent from group b: a store of the format before would have written its row
ABSENT = pl.DataFrame({"g": ["a", "a", "a", "b", "b", "b"], "y": [0, 1, 2, 0, 1, 0], "p": [0, 1, 2, 0, 0, 1]})


@pytest.mark.parametrize("declared", ["aggframe-cells/2", "aggframe-cells/1"])
def test_tables_of_this_format_under_an_older_meta_json_are_refused(declared: str, tmp_path: Path) -> None:
    """A format-3 store whose meta.json said format 2 was read as every (group, class): group b's
    absent class was lost (recall macro over 2 entries, not 3; other values under "zero")."""
    pr = af.from_labels(ABSENT, y_true="y", y_pred="p")
    store = Path(pr.write_cells(tmp_path / "s", by="g"))
    kw: dict[str, Any] = {"by": "g", "convention": ["exclude", "zero"]}
    assert_frame_equal(
        af.from_cells(store).evaluate("recall", "macro", **kw), pr.evaluate("recall", "macro", **kw)
    )
    meta = json.loads((store / "meta.json").read_text())
    meta["format"] = declared
    (store / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells(store).evaluate("recall", "macro", **kw)
    message = store_error(exc, store)
    assert f"says format {declared!r}" in message
    assert "groups.parquet and universe.parquet" in message
    # without the record, the newer tables alone tell
    meta.pop("tables")
    (store / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(af.errors.StoreError, match=r"groups\.parquet and universe\.parquet"):
        af.from_cells(store)


@pytest.mark.parametrize("table", ["profiles.parquet", "classes.parquet", "groups.parquet", "pairs.parquet"])
def test_a_table_copied_in_from_another_store_is_refused(table: str, tmp_path: Path) -> None:
    """Another store's profiles.parquet copied into a store gave that store's exemplar values, exit 0."""
    other = ABSENT.with_columns(p=pl.Series([1, 1, 2, 2, 0, 1]))
    a = Path(af.from_labels(ABSENT, y_true="y", y_pred="p").write_cells(tmp_path / "a", by="g"))
    b = Path(af.from_labels(other, y_true="y", y_pred="p").write_cells(tmp_path / "b", by="g"))
    values = [af.from_cells(s).evaluate("f1", ["exemplar", "macro"], by="g")["value"] for s in (a, b)]
    assert not values[0].equals(values[1])
    shutil.copy(b / table, a / table)
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells(a).evaluate("f1", ["exemplar", "macro"], by="g")
    message = store_error(exc, a)
    assert f"{table} is not the table written with the store" in message


def test_a_removed_or_added_table_is_named(tmp_path: Path) -> None:
    """Without pairs.parquet, the confusion matrix and qwk said the store was written by an older
    version; a store's table removed or added is named when the store is read."""
    store = Path(af.from_labels(ABSENT, y_true="y", y_pred="p").write_cells(tmp_path / "s", by="g"))
    (store / "pairs.parquet").unlink()
    for read in (
        lambda: af.from_cells(store).confusion_matrix(by="g"),
        lambda: af.from_cells(store).evaluate("qwk", "multiclass"),
        lambda: af.Cells.read(store),
    ):
        with pytest.raises(af.errors.StoreError) as exc:
            read()
        assert "pairs.parquet is missing" in store_error(exc, store)
    multilabel = af.from_indicator(np.array([[1, 1], [0, 1]]), np.array([[1, 0], [0, 1]]))
    lacking = Path(multilabel.write_cells(tmp_path / "m"))
    assert not (lacking / "pairs.parquet").exists()
    shutil.copy(af.from_labels([0, 1], [0, 0]).write_cells(tmp_path / "o") / "pairs.parquet", lacking)
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells(lacking)
    assert "pairs.parquet was not written with the store" in store_error(exc, lacking)


def old_store(frame: pl.DataFrame, path: Path) -> Path:
    """A store as aggframe-cells/1 wrote it: keys under the user's names, no identity, no coverage."""
    pr = af.from_labels(frame, n_classes=6)
    path.mkdir()
    pr.cells("class", by="model").write_parquet(path / "classes.parquet")
    pr.cells("profiles", by="model").write_parquet(path / "profiles.parquet")
    meta = {"by": ["model"], "target": None, "folds": [], "task": "multiclass", "pos_label": 1}
    meta = {"format": "aggframe-cells/1", **meta, "single_label": True}
    (path / "meta.json").write_text(json.dumps(meta, indent=1))
    return path


def test_old_format_stores_still_read(tmp_path: Path) -> None:
    day = [FRAME.filter(pl.col("day") == d) for d in DAYS]
    old = [old_store(day[0], tmp_path / "old0"), old_store(day[1], tmp_path / "old1")]
    new = [
        af.from_labels(f, n_classes=6).write_cells(tmp_path / f"new{i}", by="model")
        for i, f in enumerate(day[2:])
    ]
    assert_frame_equal(
        af.from_cells([*old, *new]).evaluate(["f1", "recall"], by="model"),
        af.from_labels(FRAME, n_classes=6).evaluate(["f1", "recall"], by="model"),
        abs_tol=1e-12,
    )
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells([old[0], old[1], old[0]])
    store_error(exc, old[0])
    # a store written from an old one records its path: the two together are refused
    merged = af.from_cells(old[:1]).write_cells(tmp_path / "merged", by="model")
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells([merged, old[0]])
    store_error(exc, merged, old[0])


def test_rewriting_a_store_without_targets_drops_the_old_block_table(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    targets = pl.DataFrame(
        {
            "example": np.tile(np.arange(20), 2),
            "target": np.repeat(["a", "b"], 20),
            "y_true": rng.integers(0, 3, 40),
            "y_pred": rng.integers(0, 3, 40),
        }
    )
    af.from_labels(targets, example="example", target="target").write_cells(tmp_path / "s")
    assert (tmp_path / "s" / "block_profiles.parquet").exists()
    plain = af.from_labels(FRAME)
    af.from_labels(FRAME).write_cells(tmp_path / "s", overwrite=True)
    assert not (tmp_path / "s" / "block_profiles.parquet").exists()
    assert af.from_cells(tmp_path / "s").compute("f1", "exemplar") == pytest.approx(
        plain.compute("f1", "exemplar")
    )


def test_writing_a_store_onto_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_labels(FRAME).write_cells(tmp_path / "file")
    store_error(exc, tmp_path / "file")


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=15, deadline=None)
@given(
    cuts=st.lists(st.integers(1, len(FRAME) - 1), min_size=1, max_size=3, unique=True),
    repeat=st.integers(0, 3),
)
def test_disjoint_shards_add_up_and_any_repeat_is_refused(
    tmp_path_factory: pytest.TempPathFactory, cuts: list[int], repeat: int
) -> None:
    folder = tmp_path_factory.mktemp("shards")
    bounds = [0, *sorted(cuts), len(FRAME)]
    stores = [
        # one class universe for every shard, so absent classes count as true negatives
        af.from_labels(FRAME[a:b], n_classes=6).write_cells(folder / str(i), by="model")
        for i, (a, b) in enumerate(itertools.pairwise(bounds))
    ]
    assert_frame_equal(
        af.from_cells(stores).evaluate(["f1", "mcc"], ["micro", "macro", "exemplar"], by="model"),
        af.from_labels(FRAME, n_classes=6).evaluate(
            ["f1", "mcc"], ["micro", "macro", "exemplar"], by="model"
        ),
        abs_tol=1e-12,
    )
    with pytest.raises(af.errors.StoreError):
        af.from_cells([*stores, stores[repeat % len(stores)]])


def test_different_files_of_one_size_and_footer_add_up(tmp_path: Path) -> None:
    """Two days whose small files share size, schema and statistics (so their Parquet footers)
    are two days; the same bytes under two partition folders are two days too; a copy of a
    file within one partition is still the same file.

    Regression: the fingerprint was the footer alone, so the second day's store was refused
    as covering the first day's file.
    """
    data = tmp_path / "data"
    rows = {
        "2026-11-01": {"y_true": [0, 1, 0, 1], "y_pred": [0, 1, 1, 0]},
        "2026-11-02": {"y_true": [0, 1, 0, 1], "y_pred": [1, 0, 0, 1]},
        "2026-11-03": {"y_true": [0, 1, 0, 1], "y_pred": [0, 1, 1, 0]},  # the bytes of 11-01
    }
    for day, frame in rows.items():
        (data / f"day={day}").mkdir(parents=True)
        pl.DataFrame(frame).write_parquet(data / f"day={day}" / "p.parquet")
    first, second = (data / f"day={d}" / "p.parquet" for d in list(rows)[:2])
    assert first.stat().st_size == second.stat().st_size
    assert pl.read_parquet_schema(first) == pl.read_parquet_schema(second)
    stores = [
        af.from_labels(af.scan(data / f"day={day}", hive=True)).write_cells(tmp_path / day, by="day")
        for day in rows
    ]
    assert_frame_equal(
        af.from_cells(stores).evaluate(["f1", "mcc"], ["micro", "macro"], by="day"),
        af.from_labels(af.scan(data, hive=True)).evaluate(["f1", "mcc"], ["micro", "macro"], by="day"),
        abs_tol=1e-12,
    )
    copied = tmp_path / "copy" / "day=2026-11-01"
    copied.mkdir(parents=True)
    shutil.copy2(first, copied / "p.parquet")
    copy = af.from_labels(af.scan(copied, hive=True)).write_cells(tmp_path / "copy_store", by="day")
    with pytest.raises(af.errors.StoreError) as exc:
        af.from_cells([stores[0], copy])
    store_error(exc, stores[0], copy)


@pytest.mark.parametrize("null_first", [False, True])
def test_a_store_of_the_null_partition_adds_to_the_others(tmp_path: Path, null_first: bool) -> None:
    """The null hive partition read alone types its key String (nothing says Date); its store adds
    to the other days' stores (a key null in every row takes the others' type), as the rows do.

    Regression: "cannot add these cells: column 'day' is Date in one and String in the other".
    """
    data = tmp_path / "data"
    days = ["2026-11-01", "__HIVE_DEFAULT_PARTITION__", "2026-11-02"]
    for i, day in enumerate(days):
        (data / f"day={day}").mkdir(parents=True)
        pl.DataFrame(
            {
                "model": ["a", "b", "a", "b"][: 3 + i % 2],
                "y_true": [0, 1, 2, 0][: 3 + i % 2],
                "y_pred": [0, 1, 1, 0][: 3 + i % 2],
            }
        ).write_parquet(data / f"day={day}" / "p.parquet")
    stores = [
        af.from_labels(af.scan(data / f"day={day}", hive=True)).write_cells(
            tmp_path / f"s{i}", by=["model", "day"]
        )
        for i, day in enumerate(days)
    ]
    dated = stores[0]
    if null_first:
        stores = [stores[1], stores[0], stores[2]]
    expected = af.from_labels(af.scan(data, hive=True)).evaluate(["f1", "mcc"], ["micro", "macro"], by="day")
    assert expected.schema["day"] == pl.Date
    got = af.from_cells(stores).evaluate(["f1", "mcc"], ["micro", "macro"], by="day")
    assert_frame_equal(got, expected, abs_tol=1e-12)
    # in memory too, and a key that differs where it has values is still refused
    cells = [af.Cells.read(s) for s in stores]
    assert_frame_equal(
        sum(cells[1:], cells[0]).evaluate(["f1", "mcc"], ["micro", "macro"], by="day"),
        expected,
        abs_tol=1e-12,
    )
    texts = tmp_path / "texts" / "day=x"
    texts.mkdir(parents=True)
    pl.DataFrame({"model": ["a"], "y_true": [0], "y_pred": [0]}).write_parquet(texts / "p.parquet")
    text_store = af.from_labels(af.scan(texts, hive=True)).write_cells(tmp_path / "t", by=["model", "day"])
    with pytest.raises(af.errors.OptionError, match="column 'day' is Date in one and String in the other"):
        af.from_cells([dated, text_store])


def test_a_store_never_replaces_its_own_input(tmp_path: Path) -> None:
    """Writing a store onto the file (or the store) it is read from is refused, and the input is
    left as it was. Regression: write_cells("a.parquet", overwrite=True) on the predictions of
    a.parquet deleted the input, then failed with a raw IsADirectoryError."""
    source = tmp_path / "a.parquet"
    FRAME.write_parquet(source)
    before = source.read_bytes()
    pr = af.from_labels(source)
    for out in (source, tmp_path):
        with pytest.raises(af.errors.StoreError, match="which these cells are read from"):
            pr.write_cells(out, overwrite=True)
        with pytest.raises(af.errors.StoreError, match="which these cells are read from"):
            pr.to_cells().write(out, overwrite=True)  # cells in memory, made from that file
    assert source.read_bytes() == before
    store = af.from_labels(source).write_cells(tmp_path / "store")
    with pytest.raises(af.errors.StoreError, match="which these cells are read from"):
        af.from_cells(store).write_cells(store, overwrite=True)
    assert af.from_cells(store).compute("f1", "macro") == pytest.approx(
        af.from_labels(FRAME).compute("f1", "macro")
    )


def test_stores_of_another_layout_say_what_differs(tmp_path: Path) -> None:
    """Stores written with other by-columns (here: the same ones in another order) were an OptionError
    printing both layouts as raw dicts (a usage error on the command line). A StoreError naming the
    fields that differ."""
    day = pl.DataFrame({"day": [1] * 3, "model": ["a", "b", "a"], "y_true": [0, 1, 1], "y_pred": [0, 1, 0]})
    one = af.from_labels(day).write_cells(tmp_path / "one", by=["model", "day"])
    two = af.from_labels(day.with_columns(day=pl.lit(2))).write_cells(tmp_path / "two", by=["day", "model"])
    with pytest.raises(
        af.errors.StoreError,
        match=r"has another layout .*\(by \['day', 'model'\] against \['model', 'day'\]\)",
    ):
        af.from_cells([one, two])


def test_a_broken_link_among_globbed_stores_is_an_error(tmp_path: Path) -> None:
    """A glob of stores skipped a broken link (not a directory): that day's cells were left out of
    the Python API's result (the command line said the input was not found)."""
    import os

    af.from_labels(FRAME).write_cells(tmp_path / "cells" / "a", by="model")
    os.symlink(tmp_path / "moved", tmp_path / "cells" / "b")
    for read in (af.from_cells, af.Cells.read):
        with pytest.raises(af.errors.StoreError) as exc:
            read(str(tmp_path / "cells" / "*"))
        assert "is a broken symbolic link" in store_error(exc, tmp_path / "cells" / "b", tmp_path / "moved")


@pytest.mark.parametrize(
    ("second", "wording"),
    [
        (lambda day: af.from_labels(day, classes=[0, 1, 2]), "class universes"),
        (lambda day: af.from_labels(day.with_columns(pl.col("model").cast(pl.Categorical))), "Categorical"),
        (lambda day: af.from_labels(day, pos_label=0), "positive classes"),
    ],
)
def test_stores_that_do_not_add_up_are_store_errors(
    second: Any, wording: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Stores written with other options (a declared universe next to an observed one, another
    positive class) or key types were an OptionError naming no store: a usage error on the command
    line, as if an option of the report were wrong. A StoreError (an input error) naming them."""
    from aggframe.interop.cli import main

    day = pl.DataFrame({"model": ["a", "b", "a"], "y_true": [0, 1, 1], "y_pred": [0, 1, 0]})
    one = af.from_labels(day).write_cells(tmp_path / "one", by="model")
    two = second(day.with_columns(model=pl.Series(["c", "d", "c"]))).write_cells(tmp_path / "two", by="model")
    for read in (af.from_cells, af.Cells.read):
        with pytest.raises(af.errors.StoreError) as exc:
            read([one, two])
        assert wording in store_error(exc, one, two)
    assert main(["report", str(one), str(two)]) == 2
    assert capsys.readouterr().err.startswith(f"aggframe: input error: cell stores {str(one)!r}")


def test_a_store_of_files_and_a_store_of_the_same_rows_as_a_frame(tmp_path: Path) -> None:
    """A store of files recorded the files only, a store of a frame its cell tables only: the same
    rows written once each way were read together without a word (exemplar n_entries 2x the
    examples). A store of files records its cell tables' fingerprint too."""
    path = day_files(tmp_path / "data")[0]
    files = af.from_labels(path).write_cells(tmp_path / "files", by="model")
    frame = af.from_labels(pl.read_parquet(path)).write_cells(tmp_path / "frame", by="model")
    for stores in ([files, frame], [frame, files]):
        with pytest.raises(af.errors.StoreError) as exc:
            af.from_cells(stores)
        assert "both cover identical cell tables" in store_error(exc, files, frame)
    # and through a store written from the store of files
    rolled = af.from_cells(files).write_cells(tmp_path / "rolled", by="model")
    with pytest.raises(af.errors.StoreError, match="identical cell tables"):
        af.from_cells([rolled, frame])
    # stores of other files still add up, and so do identical cell tables of two stores of files:
    # the same bytes under two partitions are two days, whatever the stores' by-columns
    other = af.from_labels(day_files(tmp_path / "data")[1]).write_cells(tmp_path / "other", by="model")
    n = af.from_cells([files, other]).evaluate("f1", "exemplar")["n_entries"].item()
    assert n == FRAME.filter(pl.col("day").is_in(DAYS[:2])).height
    days = []
    for day in (1, 2):
        (tmp_path / "log" / f"day={day}").mkdir(parents=True)
        shutil.copy(path, tmp_path / "log" / f"day={day}" / "p.parquet")
        days.append(
            af.from_labels(tmp_path / "log" / f"day={day}").write_cells(tmp_path / f"d{day}", by="model")
        )
    n = af.from_cells(days).evaluate("f1", "exemplar")["n_entries"].item()
    assert n == 2 * pl.read_parquet(path).height
    with pytest.raises(af.errors.StoreError, match="identical cell tables"):
        af.from_cells([*days, frame])
    with pytest.raises(af.errors.StoreError, match="identical cell tables"):
        af.Cells.read(days[0]) + af.Cells.read(frame)
