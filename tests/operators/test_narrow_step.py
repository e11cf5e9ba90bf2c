"""The narrow step's two ways of running (issue 35): small tables on the in-memory engine without
the optimizer's passes, larger ones as asked. Both give the same report, on every kind of entry
(pooled, absent classes, classes, profiles, the positive class, a block view of targets)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.exceptions import OptionError
from aggframe.facade import report as facade_report
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


@pytest.mark.parametrize("case", list(_CASES))
def test_small_tables_report_as_the_optimized_plan(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    small = _CASES[case]()
    monkeypatch.setattr(cells, "SMALL_TABLES", -1)  # every table "large": per kind, the plan as asked
    large = _CASES[case]()
    # the same rows in the same order; values to the last bits (the engines sum in other orders)
    assert_frame_equal(small, large, abs_tol=1e-12, rel_tol=1e-12)


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
