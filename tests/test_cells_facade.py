"""af.Cells above the façade: ``Cells.evaluate`` is ``Predictions.evaluate`` on ``af.from_cells(cells)``.

One implementation of ``evaluate``: the cells give the frame the rows give (every measure,
operator and convention, per any subset of the stored by-columns, null keys included), the
window options work where the cells keep the time column, and what cells cannot give is
refused with the façade's own message. The value's class survives every way of making one
(``to_cells``, ``+``, ``sum``, ``Cells.read``, an accumulator, pickling).
"""

from __future__ import annotations

import datetime as dt
import inspect
import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.exceptions import ColumnNotFoundError, OptionError
from tests.strategies import CONVENTIONS, OPERATORS, PROPERTY_MEASURES
from tests.test_import_graph import _graph, _layer

#: a null model key (a real group), a hostile by-column name, three days of two rows per group
FRAME = pl.DataFrame(
    {
        "model": ["a", "b", None, "a", "b", None, "a", "b"] * 3,
        'the "value"': ["x", "x", "y", "y", "x", "y", "y", "x"] * 3,
        "day": [dt.date(2026, 1, 1 + i // 8) for i in range(24)],
        "y_true": [0, 1, 2, 2, 1, 0, 0, 1] * 3,
        "y_pred": [1, 0, 1, 1, 2, 2, 0, 1] * 3,
    }
)
KEYS = ["model", 'the "value"', "day"]
EVAL: dict[str, Any] = {
    "measures": list(PROPERTY_MEASURES),
    "operators": list(OPERATORS),
    "convention": list(CONVENTIONS),
}


@pytest.fixture(scope="module")
def cells() -> af.Cells:
    return af.from_labels(FRAME).to_cells(by=KEYS)


@pytest.mark.parametrize("by", [None, "model", ["model", 'the "value"'], KEYS])
def test_cells_evaluate_is_the_facades_evaluate(cells: af.Cells, by: Any) -> None:
    """Every measure x operator x convention per group: the cells' frame is the rows' frame
    (up to float summation order) and exactly the frame of af.from_cells(cells)."""
    got = cells.evaluate(**EVAL, by=by)
    assert_frame_equal(got, af.from_cells(cells).evaluate(**EVAL, by=by))
    assert_frame_equal(got, af.from_labels(FRAME).evaluate(**EVAL, by=by), check_exact=False, abs_tol=1e-12)
    if by is not None:
        assert got.get_column(by if isinstance(by, str) else by[0]).null_count() > 0  # the null group


def test_long_form_folds_and_lazy() -> None:
    frame = pl.DataFrame(
        {
            "example": [0, 0, 1, 1, 2, 2, 3, 3],
            "class": [0, 1] * 4,
            "y": [1, 0, 0, 1, 1, 1, 0, 0],
            "p": [1, 1, 0, 1, 0, 1, 1, 0],
            "fold": [0, 0, 0, 0, 1, 1, 1, 1],
            "g": [None, None, "u", "u", None, None, "u", "u"],
        }
    )
    pr = af.from_long(frame, fold="fold")
    cells = pr.to_cells(by="g")
    options = {**EVAL, "operators": ["micro", "macro", "exemplar"], "pooling": ["pooled", "averaged", "fold"]}
    lazy = cells.evaluate(**options, by="g", lazy=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), pr.evaluate(**options, by="g"), check_exact=False, abs_tol=1e-12)


def test_windows_work_where_the_cells_keep_the_time_column(cells: af.Cells) -> None:
    kw: dict[str, Any] = {"measures": ["f1", "recall"], "operators": ["micro", "macro"], "by": "model"}
    for window in ({"every": "1d"}, {"every": "2d"}, {"every": "1d", "period": "2d"}):
        got = cells.evaluate(**kw, time="day", **window)
        assert "window_start" in got.columns
        expected = af.from_labels(FRAME).evaluate(**kw, time="day", **window)
        assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12)


def _message(call: Any) -> tuple[type[BaseException], str]:
    with pytest.raises(af.AggframeError) as info:
        call()
    return info.type, str(info.value)


@pytest.mark.parametrize(
    "options",
    [
        {"measures": "f1", "time": "day", "every": "1d"},  # the time column is not kept
        {"measures": "f1", "operators": "macro", "n_boot": 10},  # a bootstrap weights examples
        {"measures": "f1", "classes": [0], "labels": [0]},  # the class subset given twice
        {"measures": "f1", "by": "nope"},
        {"measures": "nope"},
    ],
)
def test_refusals_are_the_facades(options: dict[str, Any]) -> None:
    cells = af.from_labels(FRAME).to_cells(by="model")
    got = _message(lambda: cells.evaluate(**options))
    assert got == _message(lambda: af.from_cells(cells).evaluate(**options))
    if "time" in options:
        assert got[0] is ColumnNotFoundError
        assert "time column 'day' is not a key of these stored cells" in got[1]
    if "n_boot" in options:
        assert got[0] is OptionError
        assert "cells hold sums over the examples" in got[1]


def test_the_multiclass_operator_refuses_cells_that_do_not_say_they_are_single_label() -> None:
    """Cells of an older store record no task (``unknown``): the multiclass operator refuses them
    (the façade read any recorded value as 'single-label')."""
    cells = af.from_labels(FRAME).to_cells()
    assert cells.evaluate("mcc", "multiclass").height == 1
    unknown = replace(cells, layout={**cells.layout, "single_label": "unknown"})
    with pytest.raises(OptionError, match="single-label data"):
        unknown.evaluate("mcc", "multiclass")
    soft = replace(cells, layout={**cells.layout, "tnorm": "product"})
    with pytest.raises(OptionError, match="soft predictions"):
        soft.evaluate("mcc", "multiclass")


def test_the_class_survives_every_way_of_making_cells(cells: af.Cells, tmp_path: Path) -> None:
    a = af.from_labels(FRAME[:8]).to_cells(by="model")
    b = af.from_labels(FRAME[8:]).to_cells(by="model")
    store = (a + b).write(tmp_path / "ab")
    acc = af.Accumulator(by="model")
    acc.update(FRAME)
    made = {
        "+": a + b,
        "sum": sum([a, b]),
        "read": af.Cells.read(store),
        "accumulator": acc.cells(),
        "pickle": pickle.loads(pickle.dumps(cells)),
    }
    for how, value in made.items():
        assert type(value) is af.Cells, how
    assert repr(a).startswith("Cells(by=['model']")
    expected = af.from_labels(FRAME).evaluate(**EVAL, by="model")
    assert_frame_equal(made["read"].evaluate(**EVAL, by="model"), expected, check_exact=False, abs_tol=1e-12)


def test_one_evaluate_and_its_place_in_the_layers() -> None:
    assert inspect.signature(af.Cells.evaluate) == inspect.signature(af.Predictions.evaluate)
    assert af.Cells.__module__ == "aggframe.cells"
    graph = _graph()
    assert "aggframe.predictions" in graph["aggframe.cells"]
    assert _layer("aggframe.facade.base") < _layer("aggframe.cells") < _layer("aggframe.constructors")
    below = [
        m
        for m, targets in graph.items()
        if "aggframe.cells" in targets and _layer(m) <= _layer("aggframe.predictions")
    ]
    assert not below, below
    # the data structure stays below the façade, and has no evaluate of its own
    from aggframe.intake.collected import CollectedCells

    assert issubclass(af.Cells, CollectedCells)
    assert not hasattr(CollectedCells, "evaluate")
