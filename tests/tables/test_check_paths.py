"""The data checks run inside the plan: every execution path (eager, lazy, streaming, parts) raises them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import aggframe as af
from aggframe.errors import (
    AggframeError,
    DuplicateEntryError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    SparseInputError,
    UnknownClassError,
)
from tests.builders import label_frame, long_frame, seq

# ---------------------------------------------------------------------------
# Execution paths: the data checks run inside the plan, whatever collects it

Build = Callable[[bool], af.Predictions]


def _long(frame: pl.DataFrame, **kwargs: Any) -> Build:
    return lambda lazy: af.from_long(frame.lazy() if lazy else frame, **kwargs)


def _labels(frame: pl.DataFrame, **kwargs: Any) -> Build:
    return lambda lazy: af.from_labels(frame.lazy() if lazy else frame, **kwargs)


DATA_ERRORS: dict[str, tuple[Build, type[AggframeError], str]] = {
    "null-y": (
        _long(long_frame(y=[1.0, 0.0, 0.0, None, 1.0, 0.0])),
        NullValueError,
        seq("column 'y'", r"\b1 null value", "example=11, class='b', y=None"),
    ),
    "null-mask": (
        _long(long_frame(m=[1.0, None, 1.0, 1.0, None, 1.0]), mask="m"),
        NullValueError,
        seq("column 'm'", r"\b2 null value", "example=10, class='b'"),
    ),
    "p-outside": (
        _long(long_frame(p=[1.0, 0.0, 1.0, 0.0, 0.0, 4.0])),
        InvalidValueError,
        seq("column 'p'", r"\b1 value\(s\) outside", r"example=12, class='b', y=0\.0, p=4\.0"),
    ),
    "soft-y": (
        _long(long_frame(y=[0.5, 0.0, 0.0, 1.0, 1.0, 0.0])),
        InvalidValueError,
        seq("column 'y'", r"\b1 soft value", r"example=10, class='a', y=0\.5"),
    ),
    "duplicate": (
        _long(pl.concat([long_frame(), long_frame()[2:3]])),
        DuplicateEntryError,
        seq(r"\b1 duplicate entr", "example=11, class='a', copies=2"),
    ),
    "unknown-class": (
        _long(long_frame(), classes=["b"]),
        UnknownClassError,
        seq("column 'class'", r"\b3 row\(s\)", r"e\.g\. 'a'"),
    ),
    "sparse": (
        _long(long_frame()[1:]),
        SparseInputError,
        seq("column 'class'", r"\b1 \(example, class\) entries"),
    ),
    "empty-long": (_long(long_frame()[:0]), EmptyInputError, "no rows"),
    "null-y_true": (
        _labels(label_frame(y_true=[0, 1, None, 0]), example="id"),
        NullValueError,
        seq("column 'y_true'", r"\b1 null value", "id=3, y_true=None, y_pred=0"),
    ),
    "duplicate-id": (
        _labels(label_frame(id=[5, 6, 5, 8]), example="id"),
        DuplicateEntryError,
        seq("column 'id'", r"\b1 repeated example row", "id=5, copies=2"),
    ),
    "label-outside": (
        _labels(label_frame(y_pred=[0, 1, 9, 0]), n_classes=2),
        UnknownClassError,
        seq(r"\b1 row\(s\) with a label outside", r"e\.g\. 9"),
    ),
    "binary-3-classes": (
        _labels(label_frame(y_true=[0, 1, 2, 0]), task="binary"),
        OptionError,
        seq("task='binary'", r"\b3 classes"),
    ),
    "empty-labels": (_labels(label_frame()[:0], example="id"), EmptyInputError, "no rows"),
}


def _collect(pr: af.Predictions, path: str) -> object:
    if path == "evaluate":
        return pr.evaluate()
    if path == "compute":
        return pr.compute("f1", "macro")
    if path == "streaming":
        return pr.evaluate(engine="streaming")
    plan = pr.evaluate(lazy=True)  # building the plan reads no data: no error yet
    assert isinstance(plan, pl.LazyFrame)
    if path == "lazy-plan":
        return plan.collect()
    assert path == "lazy-plan-streaming"
    return plan.collect(engine="streaming")


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("path", ["evaluate", "compute", "streaming", "lazy-plan", "lazy-plan-streaming"])
@pytest.mark.parametrize("lazy_source", [False, True], ids=["DataFrame", "LazyFrame"])
@pytest.mark.parametrize("case", list(DATA_ERRORS))
def test_data_errors_fire_on_every_execution_path(case: str, lazy_source: bool, path: str) -> None:
    build, error, pattern = DATA_ERRORS[case]
    pr = build(lazy_source)
    with pytest.raises(error, match=pattern):
        _collect(pr, path)


def test_error_is_not_cached_away() -> None:
    # a failed evaluation leaves nothing behind: the next one fails the same way
    pr = af.from_long(long_frame(y=[1.0, 0.0, 0.0, None, 1.0, 0.0]).lazy())
    for _ in range(2):
        with pytest.raises(NullValueError, match=r"\b1 null value"):
            pr.evaluate("f1", "micro")


def test_lazy_plan_reports_by_group_errors() -> None:
    m1 = long_frame(model=["m1"] * 6)
    m2 = long_frame(model=["m2"] * 6)
    plan = af.from_long(pl.concat([m1, m2, m2[0:1]]).lazy()).evaluate(by="model", lazy=True)
    assert isinstance(plan, pl.LazyFrame)
    with pytest.raises(DuplicateEntryError, match=seq("model='m2', example=10, class='a'", "per by-group")):
        plan.collect(engine="streaming")
