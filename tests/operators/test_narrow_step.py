"""The narrow step's two ways of running (issue 35): small tables on the in-memory engine without
the optimizer's passes, larger ones as asked. Both give the same report, on every kind of entry
(pooled, absent classes, classes, profiles, the positive class, a block view of targets). Over
small tables the plain shapes are reduced in rows (aggframe/operators/reduce_rows.py): the same
report as the slot columns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe._options import POOLINGS
from aggframe.exceptions import OptionError
from aggframe.facade import report as facade_report
from aggframe.operators import reduce as reduce_module
from aggframe.operators import reduce_rows as rows_module
from aggframe.operators import report as report_module
from aggframe.tables import cells

_RNG = np.random.default_rng(35)
_N = 600
_Y = _RNG.integers(0, 5, _N)
_LABELS = pl.DataFrame(
    {
        "y_true": _Y,
        "y_pred": np.where(_RNG.random(_N) < 0.6, _Y, _RNG.integers(0, 5, _N)),
        # hostile names for the by-keys, one of them with nulls (a null key is a group)
        "tp": pl.Series(_RNG.choice(["a", "b", "c"], _N)).replace("c", None),
        "__af_x": _RNG.integers(0, 2, _N),
        "ex": np.arange(_N),
        "fold": _RNG.integers(0, 3, _N),
    }
)
_EXAMPLES = np.repeat(np.arange(120), 4)
_LONG = pl.DataFrame(
    {
        "example": _EXAMPLES,
        "class": np.tile(np.arange(4), 120),
        "y": (_RNG.random(480) < 0.4).astype(np.int8),
        "p": (_RNG.random(480) < 0.4).astype(np.int8),
        "g k": pl.Series(_RNG.choice(["x", "z"], 120)[_EXAMPLES]).replace("z", None),
        "t": np.tile(np.arange(4), 120) % 2,
    }
)

_CASES: dict[str, Callable[[], pl.DataFrame]] = {
    "labels, declared classes, null keys": lambda: af.from_labels(_LABELS, n_classes=7).evaluate(
        by=["tp", "__af_x"], convention=["exclude", "zero", "nan"]
    ),
    "grouping sets": lambda: af.from_labels(_LABELS).evaluate(by=["tp", "__af_x"], grouping_sets="cube"),
    "folds": lambda: af.from_labels(_LABELS, fold="fold").evaluate(by="tp", pooling=["pooled", "averaged"]),
    "binary and multiclass": lambda: af.from_labels(
        _LABELS.with_columns(pl.col("y_true", "y_pred") % 2)
    ).evaluate(operators=["binary", "micro", "multiclass"], by="tp"),
    "profiles only": lambda: af.from_labels(_LABELS).evaluate(operators="exemplar", by="__af_x"),
    "long form, targets (block view)": lambda: af.from_long(
        _LONG, example="example", class_="class", y="y", p="p", target="t"
    ).evaluate(by="g k", operators=["micro", "macro", "weighted", "exemplar", "target"]),
}
#: The plain shapes, whose small tables are reduced in rows (aggframe/operators/reduce_rows.py):
#: every measure, operator (in any order) and convention, absent classes, a subset of classes,
#: the long form (multilabel, soft), a user's measure, a group whose classes all vanish.
_ROWS_CASES: dict[str, Callable[[], pl.DataFrame]] = {
    "every measure, operator and convention, absent classes": lambda: af.from_labels(
        _LABELS, n_classes=7
    ).evaluate(
        af.list_measures(),
        ["weighted", "micro", "exemplar", "macro"],
        by=["tp", "__af_x"],
        convention=["nan", "one", "zero", "exclude"],
    ),
    "a subset of classes": lambda: af.from_labels(_LABELS).evaluate(
        ["f1", "mcc", "npv"], ["macro", "weighted"], by="tp", classes=[0, 4], convention=["zero", "one"]
    ),
    "long form, multilabel": lambda: af.from_long(
        _LONG, example="example", class_="class", y="y", p="p"
    ).evaluate(by="g k", convention=["exclude", "one"]),
    "long form, soft labels": lambda: af.from_long(
        _LONG.with_columns(pl.col("p") * 0.7 + 0.1),
        example="example",
        class_="class",
        y="y",
        p="p",
        tnorm="product",
    ).evaluate(operators=["exemplar", "weighted", "micro"]),
    "a user's measure": lambda: af.from_labels(_LABELS).evaluate(
        [af.Measure("tp_share", lambda tp, fp, fn, tn: tp / (tp + fp + fn + tn)), "precision"], by="__af_x"
    ),
    "folds pooled, null keys": lambda: af.from_labels(_LABELS, fold="fold", n_classes=6).evaluate(
        by="tp", convention=["exclude", "zero"]
    ),
    "folds: every pooling": lambda: af.from_labels(
        _LABELS.with_columns((pl.col("ex") % 2).alias("rep")), fold="fold", repeat="rep", n_classes=6
    ).evaluate(
        ["f1", "npv", "mcc"],
        ["macro", "exemplar"],
        by="tp",
        convention=["exclude", "nan"],
        pooling=list(POOLINGS),
    ),
    "grouping sets, folds pooled": lambda: af.from_labels(_LABELS, fold="fold").evaluate(
        ["f1", "kappa"], by=["tp", "__af_x"], grouping_sets="cube", convention=["exclude", "nan"]
    ),
    "no group by, one class": lambda: af.from_labels(
        _LABELS.filter(pl.col("y_true") == 2, pl.col("y_pred") == 2)
    ).evaluate(convention=["exclude", "nan", "zero", "one"]),
}


@pytest.mark.parametrize("case", list(_CASES))
def test_small_tables_report_as_the_optimized_plan(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    small = _CASES[case]()
    monkeypatch.setattr(cells, "SMALL_TABLES", -1)  # every table "large": per kind, the plan as asked
    large = _CASES[case]()
    # the same rows in the same order; values to the last bits (the engines sum in other orders)
    assert_frame_equal(small, large, abs_tol=1e-12, rel_tol=1e-12)


@pytest.mark.parametrize("numpy", [True, False], ids=["numpy", "expressions"])
@pytest.mark.parametrize("case", list(_ROWS_CASES))
def test_rows_reduction_reports_as_the_slot_columns(
    case: str, numpy: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the built-in measures on NumPy arrays when NumPy is loaded, else as expressions: both
    # report as the slot columns
    monkeypatch.setattr(rows_module, "loaded", lambda name: numpy)
    calls: list[int] = []
    original = report_module.reduce_rows

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(report_module, "reduce_rows", spy)
    in_rows = _ROWS_CASES[case]()
    assert calls, "the small tables of a plain report are reduced in rows"
    n_calls = len(calls)  # one per grouping set
    monkeypatch.setattr(cells, "SMALL_TABLES", -1)  # slot columns, each kind on its own
    in_columns = _ROWS_CASES[case]()
    assert len(calls) == n_calls
    assert in_rows.height > 0
    assert_frame_equal(in_rows, in_columns, abs_tol=1e-12, rel_tol=1e-12)


@pytest.mark.parametrize("case", ["binary and multiclass", "long form, targets (block view)"])
def test_other_shapes_keep_the_slot_columns(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("reduced in rows")

    monkeypatch.setattr(report_module, "reduce_rows", refuse)
    assert _CASES[case]().height > 0


def test_many_groups_keep_the_slot_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    # the rows reduction's cost grows with groups x slots: past its bound, the slot columns
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("reduced in rows")

    pr = af.from_labels(_LABELS, n_classes=7)
    in_rows = pr.evaluate(by=["tp", "__af_x"])
    monkeypatch.setattr(report_module, "reduce_rows", refuse)
    monkeypatch.setattr(rows_module, "ROWS_GRID", 6 * 21 * 4 - 1)  # 6 groups x 84 slots: one too many
    assert_frame_equal(pr.evaluate(by=["tp", "__af_x"]), in_rows, abs_tol=1e-12, rel_tol=1e-12)
    monkeypatch.setattr(rows_module, "ROWS_GRID", 10**6)
    monkeypatch.setattr(rows_module, "ROWS_ENTRIES", 10)
    assert_frame_equal(pr.evaluate(by=["tp", "__af_x"]), in_rows, abs_tol=1e-12, rel_tol=1e-12)


#: Reports whose reductions come in both layouts past a lowered bound: the bound, and the
#: layouts that :func:`aggframe.operators.reduce.one_layout` sees.
_MIXED: dict[str, tuple[int, Callable[[], pl.DataFrame], list[bool]]] = {
    # the finest set (6 groups x 84 slots) keeps the slot columns, the coarser ones are rows
    "grouping sets": (
        300,
        lambda: af.from_labels(_LABELS).evaluate(by=["tp", "__af_x"], grouping_sets="cube"),
        [False, True, True, True],
    ),
    # pooled (3 groups x 12 slots) as rows, per repeat (6 groups) and per fold (9) as columns
    "folds": (50, _ROWS_CASES["folds: every pooling"], [False, False, True]),
}


@pytest.mark.parametrize("case", list(_MIXED))
def test_both_layouts_make_one_report(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the columns are exploded to rows beside the rows: the report the slot columns give
    bound, report, expected = _MIXED[case]
    monkeypatch.setattr(rows_module, "ROWS_GRID", bound)
    layouts: list[bool] = []
    original = reduce_module.as_rows

    def spy(wide: Any) -> Any:
        layouts.append(wide.rows)
        return original(wide)

    monkeypatch.setattr(reduce_module, "as_rows", spy)
    mixed = report()
    assert sorted(layouts) == expected
    monkeypatch.setattr(cells, "SMALL_TABLES", -1)
    assert_frame_equal(mixed, report(), abs_tol=1e-12, rel_tol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 60),
    m=st.integers(1, 4),
    declared=st.booleans(),
    ops=st.permutations(["micro", "macro", "weighted", "exemplar"]).flatmap(
        lambda p: st.integers(1, 4).map(lambda i: p[:i])
    ),
    convs=st.lists(st.sampled_from(["exclude", "zero", "one", "nan"]), min_size=1, max_size=4, unique=True),
)
def test_rows_reduction_property(
    data: st.DataObject, n: int, m: int, declared: bool, ops: list[str], convs: list[str]
) -> None:
    # any label frame (null keys, classes missing from groups or from the data), any request
    # of the plain shape: the rows reduction and the slot columns report the same rows
    codes = st.integers(0, m - 1)
    frame = pl.DataFrame(
        {
            "y_true": data.draw(st.lists(codes, min_size=n, max_size=n)),
            "y_pred": data.draw(st.lists(codes, min_size=n, max_size=n)),
            "g": data.draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n)),
        },
        schema={"y_true": pl.Int64, "y_pred": pl.Int64, "g": pl.String},
    )
    measures = data.draw(st.lists(st.sampled_from(af.list_measures()), min_size=1, max_size=5, unique=True))
    pr = af.from_labels(frame, n_classes=m + 2 if declared else None)
    in_rows = pr.evaluate(measures, ops, by="g", convention=convs)
    original = cells.SMALL_TABLES
    cells.SMALL_TABLES = -1
    try:
        in_columns = af.from_labels(frame, n_classes=m + 2 if declared else None).evaluate(
            measures, ops, by="g", convention=convs
        )
    finally:
        cells.SMALL_TABLES = original
    assert_frame_equal(in_rows, in_columns, abs_tol=1e-12, rel_tol=1e-12)


def test_small_tables_are_the_ones_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    # which way the narrow step runs is decided on the kept tables: none kept (lazy) is never small
    pr = af.from_labels(_LABELS)
    seen: list[bool] = []
    original = facade_report.finished_report

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs["small"])
        return original(*args, **kwargs)

    monkeypatch.setattr("aggframe.predictions.finished_report", spy)
    pr.evaluate("f1", "macro", by="tp")
    pr.evaluate("f1", "macro", by="tp", lazy=True).collect()
    monkeypatch.setattr(cells, "SMALL_TABLES", 10)
    pr.evaluate("f1", "macro", by="tp")
    assert seen == [True, False, False]


def test_a_key_named_like_a_result_column_is_refused_after_the_collect() -> None:
    # eager, the report's columns are read from the collected frame: the same error as before
    frame = _LABELS.rename({"tp": "n_entries"})
    with pytest.raises(OptionError, match="collides with a column of the evaluate result"):
        af.from_labels(frame).evaluate("f1", "macro", by="n_entries")
