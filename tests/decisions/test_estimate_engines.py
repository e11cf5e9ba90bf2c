"""``af.estimate`` with renormalised probabilities (argmax, top-k) and ``exemplar`` on DuckDB and Spark.

The map is applied on the engine (a join on class and score bin, a window per
example); the result must equal the Polars one (a gather per row) to 1e-9.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from tests.decisions.estimate_data import wide_frame

#: hostile by-names: a cell's name, and quotes, a space and unicode
BY = ["tp", "a b'\"é"]

CASES: dict[str, dict[str, Any]] = {
    # the single-label interval (draws by the example's predicted class) too
    "argmax": {
        "read": {"decision": "argmax"},
        "measures": ["f1", "precision", "log_loss", "brier", "auroc"],
        "operators": ["macro", "micro", "weighted"],
        "n_draws": 20,
    },
    "top_k": {
        "read": {"decision": "top_k", "k": 2},
        "measures": ["f1", "recall", "log_loss"],
        "operators": ["macro", "micro"],
        "n_draws": 0,
    },
    "exemplar": {
        "read": {"decision": "argmax"},
        "measures": ["f1", "precision"],
        "operators": ["exemplar", "macro"],
        "n_draws": 0,
    },
}


def _data(n: int) -> pl.DataFrame:
    """Unlabelled rows (a null truth) beside labelled ones, every group holding both."""
    frame = wide_frame(2, n, BY)
    return frame.with_columns(pl.when(pl.arange(n) % 5 < 2).then(pl.col("y_true")).alias("y_true"))


def _read(case: str) -> dict[str, Any]:
    return {"y_true": "y_true", "scores": ["p_a", "p_b", "p_c"], **CASES[case]["read"]}


def _estimate(ref: af.Predictions, data: Any, case: str, *, by: list[str]) -> pl.DataFrame:
    c = CASES[case]
    return af.estimate(
        ref,
        af.from_scores(data, **_read(case)),
        c["measures"],
        c["operators"],
        by=by,
        n_draws=c["n_draws"],
        seed=3,
    )


@pytest.mark.engines
@pytest.mark.parametrize("case", list(CASES))
def test_duckdb_renormalised_and_exemplar_equal_polars(case: str) -> None:
    duckdb = pytest.importorskip("duckdb")
    ref = af.from_scores(wide_frame(1, 1200, BY), **_read(case))
    data = _data(1200)
    rel = duckdb.connect().from_arrow(data.to_arrow())
    polars_out = _estimate(ref, data, case, by=BY)
    duck_out = _estimate(ref, rel, case, by=BY)
    assert polars_out.height > 0
    assert polars_out[BY[0]].null_count() > 0
    assert polars_out[BY[1]].null_count() > 0  # a null key is a group
    assert set(polars_out["kind"]) == {"estimated", "realized"}
    if case == "exemplar":
        assert "exemplar" in polars_out["operator"].to_list()
    if CASES[case]["n_draws"]:
        assert polars_out["ci_low"].null_count() < polars_out.height
    assert_frame_equal(polars_out, duck_out, abs_tol=1e-9, check_dtypes=False)


@pytest.mark.engines
def test_duckdb_binary_exemplar_and_a_fixed_map_equal_polars() -> None:
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(4)
    s = rng.uniform(size=600)
    frame = pl.DataFrame(
        {"score": s, "y": (rng.uniform(size=600) < s).astype(np.int64), "n": [None, "u"] * 300}
    )
    frame = frame.with_columns(pl.when(pl.arange(600) % 3 == 0).then(pl.col("y")).alias("y"))
    ref = af.fit_calibration(af.from_scores(frame.drop_nulls("y"), class_=None), calibration="platt")
    rel = duckdb.connect().from_arrow(frame.to_arrow())
    outs = [
        af.estimate(ref, af.from_scores(src, class_=None), ["f1", "recall"], ["exemplar", "binary"], by="n")
        for src in (frame, rel)
    ]
    assert "exemplar" in outs[0]["operator"].to_list()
    assert_frame_equal(outs[0], outs[1], abs_tol=1e-9, check_dtypes=False)


@pytest.mark.slow
@pytest.mark.engines
def test_spark_renormalised_and_exemplar_equal_polars(spark: Any) -> None:
    read = _read("argmax")
    ref = af.from_scores(wide_frame(1, 900, BY), **read)
    data = _data(240)
    sdf = spark.createDataFrame(data.to_pandas())
    # the join of the map, the window per example (with the predicted class of the interval) and exemplar
    kw: dict[str, Any] = {"by": BY, "n_draws": 10, "seed": 3}
    polars_out = af.estimate(ref, af.from_scores(data, **read), "f1", ["exemplar", "macro"], **kw)
    spark_out = af.estimate(ref, af.from_scores(sdf, **read), "f1", ["exemplar", "macro"], **kw)
    assert polars_out["ci_low"].null_count() < polars_out.height
    assert_frame_equal(polars_out, spark_out, abs_tol=1e-9, check_dtypes=False)
