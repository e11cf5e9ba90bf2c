"""Slices on every engine: Polars eager, lazy and streaming, DuckDB and Spark give the same frame."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af


def _frame() -> pl.DataFrame:
    rng = np.random.default_rng(4)
    n = 300
    y = rng.integers(0, 3, n)
    return pl.DataFrame(
        {
            "example": [f"id-{i}" for i in range(n)],
            "region": pl.Series(
                [None if i % 9 == 0 else ["n", "s"][i % 2] for i in range(n)], dtype=pl.String
            ),
            "tp": rng.integers(0, 3, n),  # a cell's name as a slice column
            "y_true": y,
            "y_pred": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)),
        }
    )


def _slices(native: Any, **options: Any) -> pl.DataFrame:
    pr = af.from_labels(native, example="example")
    return pr.slices("f1", "macro", columns=["region", "tp"], min_examples=20, n_boot=8, seed=2, **options)


def _same(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    key = ["grouping_id", "slice"]
    assert_frame_equal(got.sort(key), expected.sort(key), abs_tol=1e-9, rel_tol=0, check_dtypes=False)


@pytest.fixture(scope="module")
def expected() -> pl.DataFrame:
    return _slices(_frame())


@pytest.mark.parametrize("engine", ["lazy", "streaming"])
def test_polars_engines_agree(engine: str, expected: pl.DataFrame) -> None:
    options = {"engine": "streaming"} if engine == "streaming" else {}
    _same(_slices(_frame().lazy(), **options), expected)


@pytest.mark.engines
def test_duckdb_agrees(expected: pl.DataFrame) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    try:
        _same(_slices(con.from_arrow(_frame().to_arrow())), expected)
    finally:
        con.close()


@pytest.mark.slow  # a JVM (CI runs it)
@pytest.mark.engines
def test_spark_agrees(expected: pl.DataFrame, spark: Any) -> None:
    _same(_slices(spark.createDataFrame(_frame().to_arrow())), expected)
