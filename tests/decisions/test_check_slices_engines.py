"""A slice rule of :func:`~aggframe.check` ("no slice significantly worse") on DuckDB, Spark and a
cell store gives the verdicts it gives on Polars (a null slice value is a slice of its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af

pytestmark = pytest.mark.engines

RULE: dict[str, Any] = {
    "name": "no worse slice",
    "measure": "recall",
    "operator": "micro",
    "slices": ["region", "tp"],  # a cell's name as a slice column
    "min_examples": 20,
    "n_boot": 30,
    "alpha": 0.2,
}


def _frame() -> pl.DataFrame:
    rng = np.random.default_rng(5)
    n = 240
    y = rng.integers(0, 3, n)
    region = [None if i % 7 == 0 else ["n", "s", "e"][i % 3] for i in range(n)]
    # region "e" is much worse: the rule fails on it
    right = np.where(np.array([r == "e" for r in region]), 0.35, 0.9)
    return pl.DataFrame(
        {
            "example": [f"id-{i}" for i in range(n)],
            "region": pl.Series(region, dtype=pl.String),
            "tp": rng.integers(0, 2, n),
            "y_true": y,
            "y_pred": np.where(rng.random(n) < right, y, (y + 1) % 3),
        }
    )


def _verdicts(native: Any, rules: list[dict[str, Any]] | None = None) -> pl.DataFrame:
    result = af.check(af.from_labels(native, example="example"), rules or [RULE])
    return result.frame.sort("group_label", nulls_last=True)


@pytest.fixture(scope="module")
def expected() -> pl.DataFrame:
    got = _verdicts(_frame())
    assert "fail" in got["status"].to_list()  # the parity covers a failing slice
    assert got["group_label"].str.contains("region=e").any()
    return got


def test_duckdb(expected: pl.DataFrame) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    try:
        got = _verdicts(con.from_arrow(_frame().to_arrow()))
    finally:
        con.close()
    assert_frame_equal(got, expected, abs_tol=1e-12)


def test_cell_store_is_refused_before_any_scan(tmp_path: Path) -> None:
    """A store keeps sums: the bootstrap of a slice's p-value cannot reweight its examples."""
    store = af.from_labels(_frame(), example="example").write_cells(tmp_path / "s", by=["region", "tp"])
    plain = {"measure": "recall", "operator": "micro", "by": "region", "min": 0.5}
    with pytest.raises(
        af.errors.RuleError, match=r"^rule 2 \('no worse slice'\): key 'slices': a cell store keeps sums"
    ):
        af.check(af.from_cells(store), [plain, RULE])
    assert af.check(af.from_cells(store), [plain]).frame.height == 4  # n, s, e and the null region


def test_a_missing_slice_column_is_named() -> None:
    with pytest.raises(
        af.errors.ColumnNotFoundError, match=r"rule 1 \('no worse slice'\): key 'slices': .*'nope'"
    ):
        af.check(af.from_labels(_frame(), example="example"), [{**RULE, "slices": ["region", "nope"]}])


@pytest.mark.slow  # a JVM (CI runs it)
def test_spark(spark: Any) -> None:
    """One slice column and few replicates: each replicate is a Spark aggregation."""
    rule = {**RULE, "slices": ["region"], "n_boot": 3}
    want = _verdicts(_frame(), [rule])
    assert "fail" in want["status"].to_list()
    assert_frame_equal(_verdicts(spark.createDataFrame(_frame().to_arrow()), [rule]), want, abs_tol=1e-12)
