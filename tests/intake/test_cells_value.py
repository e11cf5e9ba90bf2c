"""af.Cells: the cell tables as a value that adds up, evaluates, pickles, and is written and read.

The oracle of every sum is the evaluation of the rows together. Cells that do not
add up (other keys, forms, options or declared universes, the same rows twice)
are refused with a named error.
"""

from __future__ import annotations

import inspect
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from tests.builders import without_pairs
from tests.strategies import (
    CONVENTIONS,
    OPERATORS,
    PROPERTY_MEASURES,
    RESULT_NAMES,
    LabelCase,
    LongCase,
    distinct_names,
    label_frames,
    long_frames,
    rename_columns,
)

FEW = settings(max_examples=20, deadline=None)
EVAL: dict[str, Any] = {
    "measures": list(PROPERTY_MEASURES),
    "operators": list(OPERATORS),
    "convention": list(CONVENTIONS),
}


def parts(frame: pl.DataFrame, example: str | None, data: st.DataObject, k: int) -> list[pl.DataFrame]:
    """The rows split into ``k`` non-empty parts (whole examples per part)."""
    key = pl.int_range(pl.len()) if example is None else pl.col(example).rank("dense") - 1
    n = frame.select(key.max()).item() + 1
    assign = data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    tagged = frame.with_columns(key.cast(pl.Int64).replace_strict(list(range(n)), assign).alias("__part"))
    out = [tagged.filter(pl.col("__part") == i).drop("__part") for i in range(k)]
    return [p for p in out if p.height]


def roles(case: LabelCase) -> dict[str, Any]:
    return {k: v for k, v in case.roles().items() if v is not None}


def same(got: pl.DataFrame, expected: pl.DataFrame, tol: float = 1e-12) -> None:
    assert_frame_equal(got, expected, check_exact=False, abs_tol=tol)


FRAME = pl.DataFrame(
    {
        "model": ["a", "b", "a", "b", None, "a", "b", "a"],
        "y_true": [0, 1, 2, 2, 1, 0, 0, 1],
        "y_pred": [0, 2, 2, 1, 1, 1, 0, 1],
    }
)


# ---------------------------------------------------------------------------
# Sums equal the rows together


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(folds=True, example=True), data=st.data(), k=st.integers(1, 4))
def test_label_cells_add_up(case: LabelCase, data: st.DataObject, k: int) -> None:
    whole = af.from_labels(case.frame, **roles(case))
    total = sum(
        af.from_labels(p, **roles(case)).to_cells(by=case.by) for p in parts(case.frame, "example", data, k)
    )
    assert isinstance(total, af.Cells)
    kw = {**EVAL, "pooling": ["pooled", "averaged", "fold"]}
    same(total.evaluate(**kw, by=case.by), whole.evaluate(**kw, by=case.by))
    for grain in ("class", "pooled", "profiles"):
        same(total.table(grain), whole.cells(grain, by=case.by))
    # any subset of the by-columns rolls up
    same(total.evaluate(**EVAL, by=case.by[:1]), whole.evaluate(**EVAL, by=case.by[:1]))


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(target=True), data=st.data(), k=st.integers(1, 3))
def test_target_cells_add_up(case: LabelCase, data: st.DataObject, k: int) -> None:
    whole = af.from_labels(case.frame, **roles(case))
    total = sum(
        af.from_labels(p, **roles(case)).to_cells(by=case.by) for p in parts(case.frame, "example", data, k)
    )
    kw = {**EVAL, "operators": [*OPERATORS, "target"], "within": ["micro", "macro"]}
    same(total.evaluate(**kw, by=case.by), whole.evaluate(**kw, by=case.by))


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=long_frames(folds=True), data=st.data(), k=st.integers(1, 3))
def test_long_cells_add_up(case: LongCase, data: st.DataObject, k: int) -> None:
    whole = af.from_long(case.frame, **case.roles())
    total = sum(
        af.from_long(p, **case.roles()).to_cells(by=case.by) for p in parts(case.frame, "example", data, k)
    )
    kw = {**EVAL, "pooling": ["pooled", "averaged", "fold"]}
    same(total.evaluate(**kw, by=case.by), whole.evaluate(**kw, by=case.by), 1e-9)


def test_evaluate_has_the_signature_of_predictions_evaluate() -> None:
    assert inspect.signature(af.Cells.evaluate) == inspect.signature(af.Predictions.evaluate)


def test_cells_refuse_what_needs_examples_or_scores() -> None:
    """Bootstrap weights examples and measures on scores read scores: cells have neither, and say so."""
    cells = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1]).to_cells()
    with pytest.raises(af.errors.OptionError, match="cells hold sums over the examples"):
        cells.evaluate("f1", "macro", n_boot=10)
    frame = pl.DataFrame(
        {"example": [0, 0, 1, 1], "class": [0, 1, 0, 1], "score": [0.8, 0.2, 0.3, 0.7], "y": [1, 0, 0, 1]}
    )
    scored = af.from_scores(frame, decision="argmax").to_cells()
    with pytest.raises(af.errors.OptionError, match="measures on scores"):
        scored.evaluate(["auroc", "f1"], "macro")
    assert scored.evaluate("f1", "macro")["value"].item() == 1.0


@pytest.mark.parametrize(
    "options",
    [
        {
            "measures": ["f1", "recall"],
            "operators": ["micro", "macro"],
            "by": "model",
            "grouping_sets": "rollup",
        },
        {"measures": "precision", "operators": ["macro", "weighted"], "labels": [0, 2, 7]},
        {"measures": ["f1"], "operators": ["macro"], "by": "model", "convention": ["zero", "nan"]},
    ],
)
def test_evaluate_options_match_predictions(options: dict[str, Any]) -> None:
    pr = af.from_labels(FRAME)
    cells = pr.to_cells(by="model")
    same(cells.evaluate(**options), pr.evaluate(**options))
    lazy = cells.evaluate(**options, lazy=True)
    assert isinstance(lazy, pl.LazyFrame)
    same(lazy.collect(), pr.evaluate(**options))


def test_binary_operator_and_the_full_api_through_from_cells() -> None:
    pr = af.from_labels([0, 1, 1, 0, 1], [0, 1, 0, 1, 1])
    cells = pr.to_cells()
    same(cells.evaluate("f1", "binary"), pr.evaluate("f1", "binary"))
    stored = af.from_cells(cells)
    assert stored.per_class("recall").equals(pr.per_class("recall"))
    assert stored.accuracy() == pr.accuracy()
    same(af.from_cells([cells]).evaluate(**EVAL), pr.evaluate(**EVAL))


# ---------------------------------------------------------------------------
# A value: pickles, stays small


def test_pickling_round_trip() -> None:
    cells = af.from_labels(FRAME).to_cells(by="model")
    back = pickle.loads(pickle.dumps(cells))
    for grain in ("class", "profiles"):
        assert back.table(grain).equals(cells.table(grain))
    assert back.layout == cells.layout
    assert back.parts == cells.parts
    same(back.evaluate(**EVAL, by="model"), cells.evaluate(**EVAL, by="model"))
    with pytest.raises(af.errors.StoreError):
        cells + back


def test_size_is_bounded_by_groups_times_classes() -> None:
    rng = np.random.default_rng(3)

    def cells_of(n: int) -> af.Cells:
        frame = pl.DataFrame({"g": rng.integers(0, 5, n), "y_true": rng.integers(0, 7, n)})
        return af.from_labels(frame.with_columns(y_pred=pl.col("y_true").shuffle(seed=n))).to_cells(by="g")

    small, large = cells_of(1_000), cells_of(200_000)
    assert small.class_table.height == large.class_table.height == 5 * 7
    assert large.profile_table.height <= 5 * 2  # crisp single-label: right or wrong per group
    assert large.estimated_size() < 4 * small.estimated_size() + 10_000


# ---------------------------------------------------------------------------
# Refused sums


def test_cells_that_do_not_add_up_are_refused() -> None:
    labels = af.from_labels(FRAME).to_cells(by="model")
    with pytest.raises(af.errors.OptionError, match="by-columns differ"):
        labels + af.from_labels(FRAME).to_cells()
    long = af.from_indicator(np.eye(3), np.eye(3)).to_cells()
    with pytest.raises(af.errors.OptionError, match="forms"):
        af.from_labels(FRAME).to_cells() + long
    soft = af.from_indicator(np.eye(3) * 0.5, np.eye(3), tnorm="product").to_cells()
    with pytest.raises(af.errors.OptionError, match="t-norms"):
        long + soft
    with pytest.raises(af.errors.OptionError, match="class universes differ"):
        af.from_labels(FRAME, n_classes=3).to_cells() + af.from_labels(FRAME, n_classes=4).to_cells()
    with pytest.raises(af.errors.OptionError, match="declared"):
        af.from_labels(FRAME, n_classes=3).to_cells() + af.from_labels(FRAME).to_cells()
    as_text = FRAME.with_columns(pl.col("y_true", "y_pred").cast(pl.String))
    with pytest.raises(af.errors.OptionError, match="class is Int64 in one and String"):
        af.from_labels(FRAME).to_cells() + af.from_labels(as_text).to_cells()
    with pytest.raises(TypeError):
        labels + 1  # type: ignore[operator]
    with pytest.raises(af.errors.OptionError, match="not both"):
        af.from_cells([labels, "store"])


def test_long_cells_with_other_classes_are_refused_as_the_rows_would_be() -> None:
    a = af.from_long(pl.DataFrame({"example": [0, 0], "class": [0, 1], "y": [1, 0], "p": [1, 1]})).to_cells()
    b = af.from_long(pl.DataFrame({"example": [1, 1, 1], "class": [0, 1, 2], "y": [0, 0, 1], "p": [0, 1, 1]}))
    with pytest.raises(af.errors.SparseInputError, match="classes="):
        a + b.to_cells()
    # declared universes that differ are another configuration
    with pytest.raises(af.errors.OptionError, match="class universes differ"):
        (
            af.from_indicator(np.eye(2), np.eye(2)).to_cells()
            + af.from_indicator(np.eye(3), np.eye(3)).to_cells()
        )


def test_targets_on_other_examples_are_refused() -> None:
    both = pl.DataFrame({"example": [0, 0], "target": ["s", "t"], "y_true": [1, 0], "y_pred": [1, 1]})
    one = pl.DataFrame({"example": [1], "target": ["s"], "y_true": [0], "y_pred": [0]})
    with pytest.raises(af.errors.InvalidValueError, match="targets are not on the same examples"):
        af.from_labels(pl.concat([both, one]), example="example", target="target").evaluate()
    a = af.from_labels(both, example="example", target="target").to_cells()
    b = af.from_labels(one, example="example", target="target").to_cells()
    with pytest.raises(af.errors.InvalidValueError, match="targets are not on the same examples"):
        a + b


def test_numeric_keys_of_other_widths_add_up() -> None:
    narrow = FRAME.with_columns(pl.col("y_true", "y_pred").cast(pl.Int32))
    total = af.from_labels(FRAME[:4]).to_cells() + af.from_labels(narrow[4:]).to_cells()
    same(total.evaluate(**EVAL), af.from_labels(FRAME).evaluate(**EVAL))


# ---------------------------------------------------------------------------
# Stores


def test_write_and_read(tmp_path: Path) -> None:
    a = af.from_labels(FRAME[:5]).to_cells(by="model")
    b = af.from_labels(FRAME[5:]).to_cells(by="model")
    (a + b).write(tmp_path / "ab")
    expected = af.from_labels(FRAME).evaluate(**EVAL, by="model")
    same(af.from_cells(tmp_path / "ab").evaluate(**EVAL, by="model"), expected)
    same(af.Cells.read(tmp_path / "ab").evaluate(**EVAL, by="model"), expected)
    with pytest.raises(af.errors.StoreError, match="overwrite=True"):
        a.write(tmp_path / "ab")
    a.write(tmp_path / "ab", overwrite=True)
    same(af.Cells.read(tmp_path / "ab").table("class"), a.table("class"))
    # the store records what it covers: the same cells written twice, or read back and
    # added to themselves, are refused
    b.write(tmp_path / "b1")
    b.write(tmp_path / "b2")
    with pytest.raises(af.errors.StoreError):
        af.from_cells([tmp_path / "b1", tmp_path / "b2"])
    with pytest.raises(af.errors.StoreError):
        af.Cells.read(tmp_path / "b1") + b
    # stores of parts with other classes complete each other when read as Cells
    day1 = af.from_labels(FRAME.filter(pl.col("y_true") < 2, pl.col("y_pred") < 2)).write_cells(
        tmp_path / "d1"
    )
    day2 = af.from_labels(FRAME.filter((pl.col("y_true") >= 2) | (pl.col("y_pred") >= 2))).write_cells(
        tmp_path / "d2"
    )
    same(af.Cells.read([day1, day2]).evaluate(**EVAL), af.from_labels(FRAME).evaluate(**EVAL))


def test_write_cells_refuses_an_existing_store_unless_overwrite(tmp_path: Path) -> None:
    pr = af.from_labels(FRAME)
    pr.write_cells(tmp_path / "s")
    with pytest.raises(af.errors.StoreError, match="existing cell store; pass overwrite=True"):
        pr.write_cells(tmp_path / "s")
    pr.write_cells(tmp_path / "s", by="model", overwrite=True)
    assert af.from_cells(tmp_path / "s").evaluate("f1", "micro", by="model").height == 3
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(af.errors.StoreError, match="not empty and not a cell store"):
        pr.write_cells(tmp_path / "other", overwrite=True)
    assert (tmp_path / "other" / "notes.txt").read_text() == "mine"
    (tmp_path / "file").write_text("x")
    with pytest.raises(af.errors.StoreError, match="overwrite=True replaces the file"):
        pr.write_cells(tmp_path / "file")
    pr.write_cells(tmp_path / "file", overwrite=True)
    assert (tmp_path / "file" / "meta.json").exists()


# ---------------------------------------------------------------------------
# Null keys and hostile names

AVOID = ["y_true", "y_pred", "example", *RESULT_NAMES["evaluate"], *RESULT_NAMES["cells_class"], "n"]


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(example=False, max_keys=2), data=st.data(), k=st.integers(1, 3))
def test_hostile_names_and_null_keys(case: LabelCase, data: st.DataObject, k: int) -> None:
    names = data.draw(distinct_names(len(case.by), avoid=AVOID))
    mapping = dict(zip(case.by, names, strict=True))
    frame = rename_columns(case.frame, mapping)
    by = [mapping[c] for c in case.by]
    total = sum(af.from_labels(p).to_cells(by=by) for p in parts(frame, None, data, k))
    expected = af.from_labels(case.frame).evaluate(**EVAL, by=case.by)
    same(total.evaluate(**EVAL, by=by), rename_columns(expected, mapping))
    same(total.table("class"), rename_columns(af.from_labels(case.frame).cells("class", by=case.by), mapping))
    back = pickle.loads(pickle.dumps(total))
    same(
        back.evaluate(**EVAL, by=by[:1]),
        rename_columns(af.from_labels(case.frame).evaluate(**EVAL, by=case.by[:1]), mapping),
    )


def _shard_cells(shard: pl.DataFrame) -> af.Cells:
    return af.from_labels(shard).to_cells(by="model")


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
def test_cells_computed_in_other_processes_add_up() -> None:
    # as Spark tasks or worker processes would: each returns its shard's cells, pickled
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    shards = [FRAME[:3], FRAME[3:6], FRAME[6:]]
    with ProcessPoolExecutor(max_workers=2, mp_context=mp.get_context("spawn")) as pool:
        total = sum(pool.map(_shard_cells, shards))
    assert isinstance(total, af.Cells)
    same(total.evaluate(**EVAL, by="model"), af.from_labels(FRAME).evaluate(**EVAL, by="model"))


def test_broken_stores_are_named(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(af.errors.StoreError, match=r"no meta\.json"):
        af.Cells.read(tmp_path / "empty")
    with pytest.raises(af.errors.StoreError, match="matches no cell stores"):
        af.Cells.read(str(tmp_path / "nothing-*"))
    store = af.from_labels(FRAME).write_cells(tmp_path / "s")
    (store / "classes.parquet").write_bytes(b"not parquet")
    with pytest.raises(af.errors.StoreError, match=r"classes\.parquet is missing or unreadable"):
        af.Cells.read(store)


MATRIX: dict[str, Any] = {
    "measures": ["mcc", "kappa", "kappa_linear", "kappa_quadratic", "balanced_accuracy"],
    "operators": ["multiclass"],
}


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(example=False), data=st.data(), k=st.integers(1, 3))
def test_the_multiclass_operator_adds_up(case: LabelCase, data: st.DataObject, k: int) -> None:
    # the whole-matrix measures: the class cells' margins, and the confusion counts (weighted kappas)
    whole = af.from_labels(case.frame)
    total = sum(af.from_labels(p).to_cells(by=case.by) for p in parts(case.frame, None, data, k))
    assert isinstance(total, af.Cells)
    assert total.pair_table is not None
    same(total.evaluate(**MATRIX, by=case.by), whole.evaluate(**MATRIX, by=case.by))
    with_order = {"classes": list(reversed(case.classes))}  # a declared order: the kappas' distances
    total = sum(af.from_labels(p, **with_order).to_cells() for p in parts(case.frame, None, data, k))
    same(total.evaluate(**MATRIX), af.from_labels(case.frame, **with_order).evaluate(**MATRIX))


def test_the_multiclass_operator_needs_single_label_cells(tmp_path: Path) -> None:
    multilabel = af.from_indicator(np.array([[1, 1], [0, 1]]), np.array([[1, 0], [0, 1]])).to_cells()
    with pytest.raises(af.errors.OptionError, match="single-label"):
        multilabel.evaluate("mcc", "multiclass")
    binary = af.from_labels([0, 1, 1], [0, 1, 0], task="binary").to_cells()
    with pytest.raises(af.errors.OptionError, match="task='binary'"):
        binary.evaluate("mcc", "multiclass")
    # long-form one-hot data keep their confusion counts too
    one_hot = af.from_indicator(np.eye(3)[[0, 1, 2, 1]], np.eye(3)[[0, 2, 2, 1]], task="multiclass")
    same(one_hot.to_cells().evaluate(**MATRIX), one_hot.evaluate(**MATRIX))
    # a store written without confusion counts gives no weighted kappa, the rest still
    store = af.from_labels(FRAME).write_cells(tmp_path / "s")
    without_pairs(store)
    read = af.Cells.read(store)
    assert read.pair_table is None
    same(read.evaluate("mcc", "multiclass"), af.from_labels(FRAME).evaluate("mcc", "multiclass"))
    with pytest.raises(af.errors.OptionError, match="confusion counts"):
        read.evaluate("kappa_quadratic", "multiclass")


def test_cells_of_two_t_norms_never_add_up() -> None:
    """Two lambdas (product, Goedel) were both recorded as '<lambda>', so their cells added up to a
    number of neither t-norm (micro f1 0.668); 'product' and af.tnorms.hamacher(1) (the same t-norm) were
    refused as different. NumPy's minimum, the built-in min and hamacher('x') raised raw errors."""
    import narwhals as nw

    def frame(offset: int) -> pl.DataFrame:
        return pl.DataFrame(
            {
                "example": [offset, offset, offset + 1, offset + 1],
                "class": [0, 1, 0, 1],
                "y": [1.0, 0.3, 0.3, 1.0],
                "p": [0.6, 0.6, 0.0, 1.0],
            }
        )

    product = af.from_long(frame(0), tnorm=lambda a, b: a * b, n_classes=2).to_cells()
    godel = af.from_long(frame(10), tnorm=nw.min_horizontal, n_classes=2).to_cells()
    with pytest.raises(af.errors.OptionError, match="their t-norms differ"):
        product + godel
    minimum = lambda a, b: nw.min_horizontal(a, b)  # noqa: E731, PLW0108 - a lambda, as the report had it
    with pytest.raises(af.errors.OptionError, match="their t-norms differ"):
        product + af.from_long(frame(10), tnorm=minimum, n_classes=2).to_cells()
    same = af.from_long(frame(10), tnorm=lambda a, b: a * b, n_classes=2).to_cells()
    assert (product + same).evaluate("f1", "micro").height == 1  # the same lambda body: one t-norm
    named = af.from_long(frame(0), tnorm="product", n_classes=2).to_cells()
    hamacher = af.from_long(frame(10), tnorm=af.tnorms.hamacher(1), n_classes=2).to_cells()
    both = af.from_long(pl.concat([frame(0), frame(10)]), tnorm="product", n_classes=2)
    assert_frame_equal((named + hamacher).evaluate("f1", "micro"), both.evaluate("f1", "micro"))
    for bad in (np.minimum, min):
        with pytest.raises(af.errors.OptionError, match="a custom t-norm is a function T"):
            af.from_long(frame(0), tnorm=bad, n_classes=2)
    for gamma in ("x", float("inf"), -1.0):
        with pytest.raises(af.errors.OptionError, match="gamma"):
            af.tnorms.hamacher(gamma)  # type: ignore[arg-type]
