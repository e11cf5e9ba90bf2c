"""The same rules give the same verdicts on Polars (eager, lazy, streaming), DuckDB, Spark and cell stores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from tests.decisions.test_checks import groups_frame

pytestmark = pytest.mark.engines

RULES: list[dict[str, Any]] = [
    {"measure": "f1", "operator": "macro", "by": "g", "min": 0.7},
    {"measure": "recall", "operator": "micro", "by": ["g", "day"], "where": "day <> 1 AND g < 6", "min": 0.8},
    {"measure": "mcc", "operator": "multiclass", "max": 0.5, "severity": "warn"},
    {"measure": "precision", "operator": "macro", "by": "g", "baseline": {"g": 0}, "max_drop": 0.05},
    {"measure": "recall", "operator": "macro", "by": "g", "on": "ci_low", "n_boot": 30, "min": 0.75},
]


def data() -> pl.DataFrame:
    return groups_frame(8, 50, bad=3, seed=11).with_columns(day=pl.col("example") % 3)


def verdicts(native: Any, *, engine: str = "auto", rules: list[dict[str, Any]] = RULES) -> pl.DataFrame:
    result = af.check(af.from_labels(native, example="example"), rules, engine=engine)  # type: ignore[arg-type]
    return result.frame.sort("rule", *[c for c in ("g", "day") if c in result.frame.columns], nulls_last=True)


@pytest.fixture(scope="module")
def expected() -> pl.DataFrame:
    got = verdicts(data())
    assert set(got["status"]) >= {"pass", "fail", "warn"}  # the parity covers every verdict
    return got


@pytest.mark.parametrize("kind", ["lazy", "streaming"])
def test_polars_lazy_and_streaming(kind: str, expected: pl.DataFrame) -> None:
    got = verdicts(data().lazy(), engine="streaming" if kind == "streaming" else "in-memory")
    assert_frame_equal(got, expected, abs_tol=1e-12)


def test_duckdb(expected: pl.DataFrame) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    try:
        got = verdicts(con.from_arrow(data().to_arrow()))
    finally:
        con.close()
    assert_frame_equal(got, expected, abs_tol=1e-12)


def test_cell_store(tmp_path: Path, expected: pl.DataFrame) -> None:
    """A store keeps sums: the rules without a where or an interval give the same verdicts."""
    store = af.from_labels(data(), example="example").write_cells(tmp_path / "s", by=["g", "day"])
    rules = [r for r in RULES if "where" not in r and "n_boot" not in r]
    got = af.check(af.from_cells(store), rules).frame.sort("rule", "g", nulls_last=True)
    want = verdicts(data(), rules=rules)
    assert_frame_equal(got, want, abs_tol=1e-12)
    with pytest.raises(af.errors.RuleError, match="key 'where': a cell store keeps sums, not rows"):
        af.check(af.from_cells(store), [RULES[1]])


@pytest.mark.slow
def test_spark(spark: Any) -> None:
    """A where, a by and a baseline group (the bootstrap's Spark parity is evaluate's own test)."""
    rules = [RULES[1], RULES[3]]
    got = verdicts(spark.createDataFrame(data().to_arrow()), rules=rules)
    assert_frame_equal(got, verdicts(data(), rules=rules), abs_tol=1e-12)
