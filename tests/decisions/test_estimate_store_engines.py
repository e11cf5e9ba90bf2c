"""``af.expected_cells`` on DuckDB and Spark: the map applied on the source's engine, the cells equal Polars'.

Threshold (binary and one-vs-rest), argmax and top-k decisions, every operator
(``exemplar`` reads the per-example profiles), with and without ``store=``; null
keys and hostile by-names. The DuckDB map is built from values on the source's
connection: a table named like the old replacement-scan variable, or a connection
that disables replacement scans, changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from tests.decisions.estimate_data import wide_frame

#: hostile by-names: a cell's name, an estimate role's private name, quotes, a space and unicode
BY = ["tp", "a b'\"é"]
MEASURES = ["f1", "recall", "precision"]

DECISIONS: dict[str, dict[str, Any]] = {
    "threshold": {"decision": "threshold"},  # one-vs-rest, no renormalisation
    "argmax": {"decision": "argmax"},
    "top_k": {"decision": "top_k", "k": 2},
}


def _binary(seed: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return pl.DataFrame(
        {
            "score": s,
            "y": (rng.uniform(size=n) < s**2).astype(np.int64),
            "__af_est_y": pl.Series(["u", None, "v"] * (n // 3)),  # an estimate role's own name
        }
    )


def _multilabel(seed: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.beta(1.5, 2.0, size=(n, 3))
    return pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), 3),
            "class": np.tile(["x", "y", "z"], n),
            "score": s.ravel(),
            "y": (rng.uniform(size=s.shape) < s).astype(np.int64).ravel(),
            "__af_est_y": pl.Series(["u", None, "v"] * n).gather(np.repeat(np.arange(n), 3)),
        }
    )


def _read(decision: str) -> dict[str, Any]:
    return {"y_true": "y_true", "scores": ["p_a", "p_b", "p_c"], **DECISIONS[decision]}


def _report(cells: af.Cells, operators: list[str], by: list[str]) -> pl.DataFrame:
    return cells.evaluate(MEASURES, operators, by=by).sort([*by, "measure", "operator"], nulls_last=True)


@pytest.mark.engines
@pytest.mark.parametrize("decision", list(DECISIONS))
def test_duckdb_expected_cells_equal_polars(decision: str, tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    read = _read(decision)
    cmap = af.fit_calibration(af.from_scores(wide_frame(1, 1200, BY), **read))
    data = wide_frame(2, 600, BY)
    rel = duckdb.connect().from_arrow(data.to_arrow())
    ops = ["micro", "macro", "weighted", "exemplar"]
    want = _report(af.expected_cells(cmap, af.from_scores(data, **read), by=BY), ops, BY)
    got = af.expected_cells(cmap, af.from_scores(rel, **read), by=BY, store=tmp_path / "duck")
    assert want[BY[0]].null_count() > 0
    assert want[BY[1]].null_count() > 0  # a null key is a group
    assert_frame_equal(_report(got, ops, BY), want, abs_tol=1e-9)
    # the store of the DuckDB cells, with its map, reads back to the same report
    back = af.Cells.read(tmp_path / "duck")
    assert_frame_equal(_report(back, ops, BY), want, abs_tol=1e-9)
    assert af.CalibrationMap.read(tmp_path / "duck" / "calibration.parquet").renormalize == cmap.renormalize
    # and it is the estimate of the rows (estimate's `estimated` values); not exemplar, which
    # estimate computes from the expected profile counts, the stored cells from each example's
    # expected cells (the docs' Stores section)
    cell_ops = [op for op in ops if op != "exemplar"]
    direct = af.estimate(cmap, af.from_scores(data, **read), MEASURES, cell_ops, by=BY)
    direct = direct.filter(pl.col("kind") == "estimated").select(*BY, "measure", "operator", "value")
    assert_frame_equal(
        want.filter(pl.col("operator") != "exemplar").select(*BY, "measure", "operator", "value"),
        direct.sort([*BY, "measure", "operator"], nulls_last=True),
        abs_tol=1e-9,
    )


@pytest.mark.engines
def test_duckdb_binary_cells_add_up_with_polars_cells(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    by = ["__af_est_y"]
    ref = af.from_scores(_binary(3, 1500), class_=None)
    nov, dec = _binary(4, 600), _binary(5, 450)
    rel = duckdb.connect().from_arrow(nov.to_arrow())
    # November on DuckDB (its map stored beside its cells), December on Polars with that stored map
    af.expected_cells(ref, af.from_scores(rel, class_=None), by=by, store=tmp_path / "nov")
    dec_cells = af.expected_cells(tmp_path / "nov", af.from_scores(dec, class_=None), by=by)
    both = af.Cells.read(tmp_path / "nov") + dec_cells
    ops = ["binary", "exemplar"]
    whole = af.expected_cells(ref, af.from_scores(pl.concat([nov, dec]), class_=None), by=by)
    assert_frame_equal(_report(both, ops, by), _report(whole, ops, by), abs_tol=1e-9)
    assert _report(both, ops, by)[by[0]].null_count() == len(MEASURES) * len(ops)


@pytest.mark.engines
@pytest.mark.parametrize("method", ["isotonic", "platt"])
def test_duckdb_map_is_built_from_values_not_found_by_name(method: str) -> None:
    """A table named like the map's old Python variable, replacement scans off: the same cells."""
    duckdb = pytest.importorskip("duckdb")
    read = _read("argmax")
    cmap = af.fit_calibration(af.from_scores(wide_frame(6, 900, BY), **read), calibration=method)  # type: ignore[arg-type]
    data = wide_frame(7, 300, BY)
    con = duckdb.connect()
    con.execute("SET python_enable_replacements = false")
    # a wrong map the old query would have read from the catalog
    con.execute('CREATE TABLE "__af_est_map" AS SELECT \'a\' AS "__af_class", 0::BIGINT AS b, 0.5 AS q')
    __af_est_map = pl.DataFrame({"x": [1]}).to_arrow()  # a wrong variable in reach (unused)
    rel = con.from_arrow(data.to_arrow())
    ops = ["micro", "macro", "exemplar"]
    want = _report(af.expected_cells(cmap, af.from_scores(data, **read), by=BY), ops, BY)
    got = _report(af.expected_cells(cmap, af.from_scores(rel, **read), by=BY), ops, BY)
    assert_frame_equal(got, want, abs_tol=1e-9)
    est = [
        af.estimate(cmap, af.from_scores(src, **read), "f1", ["macro", "micro"], by=BY) for src in (data, rel)
    ]
    assert_frame_equal(est[1], est[0], abs_tol=1e-9, check_dtypes=False)


@pytest.mark.slow
@pytest.mark.engines
def test_spark_expected_cells_equal_polars(spark: Any) -> None:
    """The binary layout on Spark: each row its own example (an id made on the engine), exemplar too;
    and multilabel truth (long form), whose exact exemplar profiles are a query on Spark.

    (The map joined and renormalised on Spark is ``af.estimate``'s path, tested with it in
    ``test_estimate_engines.py``; the long form's wide step on Spark in ``tests/engines``.)
    """
    by = ["__af_est_y"]
    binary = _binary(8, 300)
    bmap = af.fit_calibration(af.from_scores(_binary(9, 900), class_=None))
    ops = ["binary", "exemplar"]
    want = _report(af.expected_cells(bmap, af.from_scores(binary, class_=None), by=by), ops, by)
    sdf = spark.createDataFrame(binary.to_pandas())
    got = _report(af.expected_cells(bmap, af.from_scores(sdf, class_=None), by=by), ops, by)
    assert want[by[0]].null_count() > 0
    assert_frame_equal(got, want, abs_tol=1e-9, check_dtypes=False)
    # multilabel truth (the long form): the exact expected profiles are one more query on Spark
    ml, ops = _multilabel(10, 40), ["micro", "exemplar"]
    mmap = af.fit_calibration(af.from_scores(_multilabel(11, 200)))
    got = _report(
        af.expected_cells(mmap, af.from_scores(spark.createDataFrame(ml.to_pandas())), by=by), ops, by
    )
    est = af.estimate(mmap, af.from_scores(ml), MEASURES, ops, by=by).filter(pl.col("kind") == "estimated")
    want = est.select(*by, "measure", "operator", "value").sort([*by, "measure", "operator"], nulls_last=True)
    assert_frame_equal(got.select(want.columns), want, abs_tol=1e-9, check_dtypes=False)
