"""Windows and the long form: an example whose rows carry different times lies in the window of
its first time (once), so the exemplar operator and ``n_examples`` count it once."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af

DAY0 = dt.date(2024, 1, 1)


def _long(seed: int = 3, n: int = 60) -> pl.DataFrame:
    """3 classes per example; a third of the examples have rows on two or three days."""
    rng = np.random.default_rng(seed)
    rows = []
    for e in range(n):
        start = int(rng.integers(0, 5))
        group = None if e % 11 == 0 else ["u", "v"][e % 2]  # a null group is a group
        for c in range(3):
            spread = int(rng.integers(0, 3)) if e % 3 == 0 else 0
            rows.append(
                {
                    "example": e,
                    "class": f"c{c}",
                    "day": DAY0 + dt.timedelta(days=start + spread),
                    "g": group,
                    "y": float(rng.random() < 0.4),
                    "p": float(rng.random() < 0.5),
                }
            )
    return pl.DataFrame(rows)


def _windows(native: Any, **kw: Any) -> pl.DataFrame:
    pr = af.from_long(native, classes=["c0", "c1", "c2"])
    out = pr.evaluate(["f1", "recall"], ["exemplar", "micro", "macro"], by="g", time="day", every="1d", **kw)
    assert isinstance(out, pl.DataFrame)
    return out.sort("g", "window_start", "measure", "operator", nulls_last=True)


def _by_first_day(frame: pl.DataFrame) -> pl.DataFrame:
    """The same values from evaluate(by=[g, first day]) on a column computed by hand."""
    first = frame.with_columns(pl.col("day").min().over("example").alias("window_start"))
    pr = af.from_long(first.drop("day"), classes=["c0", "c1", "c2"])
    out = pr.evaluate(["f1", "recall"], ["exemplar", "micro", "macro"], by=["g", "window_start"])
    assert isinstance(out, pl.DataFrame)
    return out.sort("g", "window_start", "measure", "operator", nulls_last=True)


def test_an_example_lies_in_the_window_of_its_first_time() -> None:
    data = _long()
    assert data.group_by("example").agg(pl.col("day").n_unique() > 1)["day"].sum() > 5  # the case is there
    got = _windows(data)
    want = _by_first_day(data)
    assert_frame_equal(
        got.drop("window_end"), want.select(got.drop("window_end").columns), check_dtypes=False
    )
    # each example once: the examples of the windows add up to the examples
    once = got.filter(pl.col("operator") == "exemplar", pl.col("measure") == "f1")["n_examples"].sum()
    assert once == data["example"].n_unique()


def test_the_first_time_on_duckdb() -> None:
    duckdb = pytest.importorskip("duckdb")
    data = _long(seed=5)
    con = duckdb.connect()
    try:
        got = _windows(con.from_arrow(data.to_arrow()))
    finally:
        con.close()
    assert_frame_equal(got, _windows(data), check_dtypes=False)


def test_a_row_without_a_time_is_still_an_error() -> None:
    data = _long().with_columns(
        pl.when(pl.col("example") == 4, pl.col("class") == "c1")
        .then(None)
        .otherwise(pl.col("day"))
        .alias("day")
    )
    with pytest.raises(af.errors.InvalidValueError, match="time column 'day' has 1 example"):
        _windows(data)
