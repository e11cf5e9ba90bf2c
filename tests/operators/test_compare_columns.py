"""``compare``'s lean default columns and ``columns="all"`` (issue 29)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.exceptions import OptionError


def _frame() -> pl.DataFrame:
    rng = np.random.default_rng(3)
    n = 120
    yt = rng.integers(0, 3, n)
    rows = []
    for model, right in (("logreg", 0.6), ("gbm", 0.8), (None, 0.7)):
        yp = np.where(rng.random(n) < right, yt, rng.integers(0, 3, n))
        rows.append(pl.DataFrame({"model": model, "example": np.arange(n), "y_true": yt, "y_pred": yp}))
    return pl.concat(rows, how="vertical_relaxed")


LEAN_REFERENCE = [
    "model",
    "measure",
    "operator",
    "convention",
    "value",
    "ci_low",
    "ci_high",
    "reference",
    "difference_to_reference",
    "difference_to_reference_ci_low",
    "difference_to_reference_ci_high",
    "difference_to_reference_excludes_zero",
    "level",
]


def test_lean_columns_against_a_reference_are_a_subset_of_all() -> None:
    pr = af.from_labels(_frame(), example="example")
    kw = {"by": "model", "reference": {"model": "logreg"}, "n_boot": 20}
    lean = pr.compare(["f1", "mcc"], ["micro", "macro"], **kw)
    every = pr.compare(["f1", "mcc"], ["micro", "macro"], **kw, columns="all")
    assert lean.columns == LEAN_REFERENCE
    assert len(every.columns) == 32
    assert "overall" not in lean.columns  # the pooled overall means nothing against a reference
    # the same numbers: leaving the overall grouping set out changes no value or interval
    assert_frame_equal(lean, every.select(lean.columns))
    assert lean["model"].to_list() == every["model"].to_list()
    assert None in lean["model"].to_list()  # a null model is a group


def test_lean_columns_without_a_reference_keep_the_overall() -> None:
    pr = af.from_labels(_frame(), example="example")
    plain = pr.compare("f1", "macro", by="model")
    assert plain.columns == [
        "model",
        "measure",
        "operator",
        "convention",
        "value",
        "overall",
        "difference_to_overall",
    ]
    every = pr.compare("f1", "macro", by="model", columns="ALL")
    assert_frame_equal(plain, every.select(plain.columns))
    assert {"n_entries", "n_undefined", "ratio_to_overall"} <= set(every.columns)
    ref = pr.compare("f1", "macro", by="model", reference={"model": "gbm"})
    assert ref.columns == [*plain.columns[:5], "reference", "difference_to_reference"]


def test_unknown_columns_option() -> None:
    pr = af.from_labels(_frame(), example="example")
    with pytest.raises(OptionError, match="'lean'"):
        pr.compare("f1", "macro", by="model", columns="some")


@pytest.mark.parametrize("name", ["*", "^model$"])
def test_a_key_polars_reads_as_a_pattern_is_one_column(name: str) -> None:
    """A by-column called ``*`` or ``^x$`` is that column in the lean result (was a DuplicateError)."""
    pr = af.from_labels(_frame().rename({"model": name}), y_true="y_true", y_pred="y_pred", example="example")
    got = pr.compare("f1", "macro", by=name)
    want = af.from_labels(_frame(), y_true="y_true", y_pred="y_pred", example="example").compare(
        "f1", "macro", by="model"
    )
    assert got.columns[0] == name
    assert_frame_equal(got.rename({name: "model"}), want)
