"""Windows over time on DuckDB and Spark: the bucket is computed where the rows are, the same windows come back."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af

pytestmark = pytest.mark.engines

MEASURES = ["f1", "precision", "jaccard"]
OPERATORS = ["micro", "macro", "exemplar"]


def _frame() -> pl.DataFrame:
    rng = np.random.default_rng(12)
    n = 400
    minutes = rng.integers(0, 9 * 1440, n)
    return pl.DataFrame(
        {
            "ts": [dt.datetime(2024, 3, 1) + dt.timedelta(minutes=int(m)) for m in minutes],
            "g": pl.Series(rng.choice(["a", "b", "c"], n)).replace("c", None),
            "y_true": rng.integers(0, 3, n),
            "y_pred": rng.integers(0, 3, n),
        }
    ).with_columns(pl.col("ts").dt.cast_time_unit("us"), pl.col("ts").dt.date().alias("day"))


def _sort(df: pl.DataFrame) -> pl.DataFrame:
    return df.sort(pl.all(), nulls_last=True)


KWS: list[dict[str, Any]] = [
    {"time": "ts", "every": "12h", "period": "2d", "offset": "6h"},
    {"time": "day", "every": "1d", "period": "3d"},
]


def _check(native: Any, frame: pl.DataFrame, kws: list[dict[str, Any]]) -> None:
    for kw in kws:
        want = af.from_labels(frame).evaluate(MEASURES, OPERATORS, by="g", **kw)
        got = af.from_labels(native).evaluate(MEASURES, OPERATORS, by="g", **kw)
        # Spark's TIMESTAMP is an instant read in the session's time zone (UTC in the tests)
        bounds = pl.col("window_start", "window_end")
        if isinstance(got.schema["window_start"], pl.Datetime) and got.schema["window_start"].time_zone:
            got = got.with_columns(bounds.dt.replace_time_zone(None))
        assert_frame_equal(_sort(got), _sort(want), abs_tol=1e-12)


def test_duckdb_windows_parity() -> None:
    duckdb = pytest.importorskip("duckdb")
    frame = _frame()
    con = duckdb.connect()
    try:
        _check(con.from_arrow(frame.to_arrow()), frame, KWS)
        # late labels: counted on the engine
        late = frame.with_columns(
            pl.when(pl.col("y_pred") == 0).then(None).otherwise(pl.col("y_true")).alias("y_true")
        )
        kw: dict[str, Any] = {"by": "g", "time": "day", "every": "1d", "unlabelled": "count"}
        want = af.from_labels(late).evaluate("f1", "macro", **kw)
        got = af.from_labels(con.from_arrow(late.to_arrow())).evaluate("f1", "macro", **kw)
        assert_frame_equal(_sort(got), _sort(want), abs_tol=1e-12)
    finally:
        con.close()


@pytest.mark.slow
def test_spark_windows_parity(spark: Any) -> None:
    frame = _frame()
    _check(spark.createDataFrame(frame.head(120).to_arrow()), frame.head(120), KWS[:1])
