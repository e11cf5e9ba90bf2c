"""``af.estimate`` on expected cells: null truth, measures on scores, exemplar, engines, stored maps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import auc

import aggframe as af
from aggframe.exceptions import InvalidValueError, NullValueError, StoreError


def _binary(seed: int, n: int, power: float = 1.0, **extra: object) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < s**power).astype(np.int64)
    return pl.DataFrame({"score": s, "y": y, **extra})


def _pick(out: pl.DataFrame, kind: str, measure: str, operator: str = "binary") -> float:
    row = out.filter(pl.col("kind") == kind, pl.col("measure") == measure, pl.col("operator") == operator)
    return float(row["value"].item())


# -- null truth ----------------------------------------------------------------------------------


def test_a_null_truth_is_an_unlabelled_row() -> None:
    frame = _binary(1, 900, g=["a", None, "b"] * 300)
    hidden = frame.with_columns(
        pl.when(pl.arange(900) % 4 == 0).then(pl.col("y")).alias("y")
    )  # 1 in 4 labelled
    ref = af.from_scores(_binary(2, 3000), class_=None)
    out = af.estimate(ref, af.from_scores(hidden, class_=None), ["f1", "auroc"], "binary", by="g")
    # the same as the stand-in truth marked by `labelled=` (still supported)
    marked = frame.with_columns(lab=pl.arange(900) % 4 == 0)
    same = af.estimate(
        ref, af.from_scores(marked, class_=None), ["f1", "auroc"], "binary", by="g", labelled="lab"
    )
    assert_frame_equal(out, same)
    realized = out.filter(pl.col("kind") == "realized", pl.col("measure") == "f1").select("g", "value")
    labelled = af.from_scores(frame.filter(pl.arange(900) % 4 == 0), class_=None)
    expected = labelled.evaluate("f1", "binary", by="g").select("g", "value")
    assert_frame_equal(realized, expected, check_row_order=False)
    assert out["labelled_share"].unique().to_list() == pytest.approx([0.25])
    # every other measure still refuses a null truth, naming it
    with pytest.raises(NullValueError, match=r"column 'y': 675 null.*af.estimate reads such rows"):
        af.from_scores(hidden, class_=None).evaluate("auroc", "micro")
    with pytest.raises(NullValueError, match="'y'"):
        af.from_scores(hidden, class_=None).evaluate("f1", "binary")
    with pytest.raises(NullValueError, match="'y'"):
        af.estimate(
            af.from_scores(hidden, class_=None), ref, "f1", "binary"
        )  # the reference must be labelled


def test_null_truth_in_the_wide_layout() -> None:
    rng = np.random.default_rng(3)
    p = rng.dirichlet([2.0, 1.0, 1.0], size=600)
    y = (rng.uniform(size=600)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    frame = pl.DataFrame({"y_true": y, "p_0": p[:, 0], "p_1": p[:, 1], "p_2": p[:, 2]})
    hidden = frame.with_columns(pl.when(pl.arange(600) < 200).then(pl.col("y_true")).alias("y_true"))
    read = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
    out = af.estimate(af.from_scores(frame, **read), af.from_scores(hidden, **read), "recall", "macro")
    assert out["labelled_share"].to_list() == pytest.approx([1 / 3, 1 / 3])
    expected = af.from_scores(frame.head(200), **read).compute("recall", "macro")
    assert _pick(out, "realized", "recall", "macro") == pytest.approx(expected)
    with pytest.raises(NullValueError, match=r"column 'y_true': 400 null"):
        af.from_scores(hidden, **read).evaluate("auroc", "macro")


def test_a_labelled_column_that_is_not_0_1_is_refused() -> None:
    data = af.from_scores(_binary(4, 20, lab=[0, 1, 2, 1] * 5), class_=None)
    with pytest.raises(InvalidValueError, match=r"column 'lab': 5 value\(s\) other than 0 and 1 \(e.g. '2"):
        af.estimate(data, data, "f1", "binary", labelled="lab")


# -- measures on scores ---------------------------------------------------------------------------


def _nannyml_auroc(q: np.ndarray, s: np.ndarray) -> float:
    """NannyML CBPE's estimate_roc_auc (performance_estimation/confidence_based/metrics.py)."""
    order = np.argsort(s)[::-1]
    q = q[order]
    tps = np.r_[0, np.cumsum(q)]
    fps = np.r_[0, 1 + np.arange(len(q)) - np.cumsum(q)]
    return float(auc(fps / fps[-1], tps / tps[-1]))


def test_auroc_is_the_area_under_the_expected_roc_curve() -> None:
    ref = af.from_scores(_binary(5, 4000, power=2.0), class_=None)
    frame = _binary(6, 3000, power=2.0)
    cmap = af.fit_calibration(ref)
    out = af.estimate(cmap, af.from_scores(frame, class_=None), "auroc", ["binary", "micro", "macro"])
    # the calibrated probability of each row: the map's value at its score bin
    bins = np.minimum((frame["score"].to_numpy() * 1000).astype(int), 999)
    q = cmap.table.sort("bin")["q"].to_numpy()[bins]
    expected = _nannyml_auroc(q, frame["score"].to_numpy())
    for op in ("binary", "micro", "macro"):
        assert _pick(out, "estimated", "auroc", op) == pytest.approx(expected, abs=1e-9)
    # and close to the realized AUROC (the truth follows the calibrated probabilities)
    real = af.from_scores(frame, class_=None).compute("auroc", "micro")
    assert _pick(out, "realized", "auroc") == pytest.approx(real, abs=2e-3)  # on the 1/1000 grid
    assert abs(_pick(out, "estimated", "auroc") - real) < 0.03


def test_log_loss_and_brier_are_expected_values() -> None:
    frame = _binary(7, 5000)
    data = af.from_scores(frame, class_=None)
    out = af.estimate(data, data, ["log_loss", "brier"], ["binary", "micro"], calibration="none")
    s = np.clip(frame["score"].to_numpy(), np.finfo(float).eps, 1 - np.finfo(float).eps)
    # with the truth drawn from the scores: E[log loss] is the mean entropy, E[Brier] = mean s (1 - s)
    assert _pick(out, "estimated", "log_loss") == pytest.approx(
        np.mean(-(s * np.log(s) + (1 - s) * np.log(1 - s)))
    )
    assert _pick(out, "estimated", "brier") == pytest.approx(np.mean(s * (1 - s)))
    for m in ("log_loss", "brier"):
        assert _pick(out, "realized", m, "micro") == pytest.approx(data.compute(m, "micro"), rel=1e-9)
        assert abs(_pick(out, "estimated", m) - _pick(out, "realized", m)) < 0.02


def test_multiclass_scores_per_class_and_pooled() -> None:
    rng = np.random.default_rng(8)
    p = rng.dirichlet([2.0, 1.0, 1.0], size=4000)
    y = (rng.uniform(size=4000)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    frame = pl.DataFrame({"y_true": y, "p_0": p[:, 0], "p_1": p[:, 1], "p_2": p[:, 2]})
    read = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
    data = af.from_scores(frame, **read)
    ops = ["micro", "macro", "weighted"]
    out = af.estimate(data, data, ["auroc", "log_loss", "brier"], ops, calibration="none")
    for m in ("log_loss", "brier"):
        for op in ops:
            assert _pick(out, "realized", m, op) == pytest.approx(data.compute(m, op), rel=1e-9), (m, op)
    for op in ops:
        assert _pick(out, "realized", "auroc", op) == pytest.approx(data.compute("auroc", op), abs=3e-3)
        assert abs(_pick(out, "estimated", "auroc", op) - _pick(out, "realized", "auroc", op)) < 0.03


# -- exemplar, engines -------------------------------------------------------------------------------


def test_exemplar_reads_per_example_cells() -> None:
    rng = np.random.default_rng(9)
    s = rng.uniform(size=(1500, 3))
    y = (rng.uniform(size=s.shape) < s).astype(np.int64)
    frame = pl.DataFrame(
        {
            "example": np.repeat(np.arange(1500), 3),
            "class": np.tile([0, 1, 2], 1500),
            "score": s.ravel(),
            "y": y.ravel(),
        }
    )
    data = af.from_scores(frame)
    out = af.estimate(data, data, ["f1", "precision"], "exemplar", calibration="none", n_draws=20)
    for m in ("f1", "precision"):
        assert _pick(out, "realized", m, "exemplar") == pytest.approx(data.compute(m, "exemplar"))
        assert abs(_pick(out, "estimated", m, "exemplar") - _pick(out, "realized", m, "exemplar")) < 0.03
    # the interval of exemplar (draws of the entries' truth): estimated rows only
    est = out.filter(pl.col("kind") == "estimated")
    assert est["ci_low"].null_count() == 0
    assert (est["ci_low"] < est["ci_high"]).all()
    assert out.filter(pl.col("kind") == "realized")["ci_low"].null_count() == 2


def test_duckdb_source_equals_polars() -> None:
    duckdb = pytest.importorskip("duckdb")
    frame = _binary(10, 2000, g=["a", None, "b", "a"] * 500)
    frame = frame.with_columns(pl.when(pl.arange(2000) % 3 == 0).then(pl.col("y")).alias("y"))
    ref = af.from_scores(_binary(11, 3000), class_=None)
    con = duckdb.connect()
    rel = con.from_arrow(frame.to_arrow())
    kw = {"by": "g", "calibration": "platt"}
    ms, ops = ["f1", "recall", "auroc", "log_loss"], ["binary", "micro"]
    polars_out = af.estimate(ref, af.from_scores(frame, class_=None), ms, ops, **kw)  # type: ignore[arg-type]
    duck_out = af.estimate(ref, af.from_scores(rel, class_=None), ms, ops, **kw)  # type: ignore[arg-type]
    # DuckDB groups by the score bin and joins the map there; Polars looks it up per row: the same
    # for cells and losses; AUROC the same on the grid; the shift check at the grid's resolution
    assert_frame_equal(polars_out, duck_out, abs_tol=1e-9, check_dtypes=False)


@pytest.mark.slow
@pytest.mark.engines
def test_spark_source_equals_polars(spark: Any) -> None:
    frame = _binary(12, 500, g=["a", None] * 250).with_columns(
        pl.when(pl.arange(500) % 2 == 0).then(pl.col("y")).alias("y")
    )
    sdf = spark.createDataFrame(frame.to_pandas())
    ref = af.from_scores(_binary(13, 2000), class_=None)
    ms = ["f1", "precision", "auroc"]
    polars_out = af.estimate(ref, af.from_scores(frame, class_=None), ms, "binary", by="g")
    spark_out = af.estimate(ref, af.from_scores(sdf, class_=None), ms, "binary", by="g")
    assert_frame_equal(polars_out, spark_out, abs_tol=1e-9, check_dtypes=False)


# -- stored maps ------------------------------------------------------------------------------------


@pytest.mark.parametrize("calibration", ["isotonic", "platt", "none"])
def test_a_stored_map_gives_the_same_estimate(tmp_path: Path, calibration: str) -> None:
    rng = np.random.default_rng(14)
    p = rng.dirichlet([2.0, 1.0, 1.0], size=1500)
    y = (rng.uniform(size=1500)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    frame = pl.DataFrame(
        {"y_true": np.array(["a", "b", "c"])[y], "p_a": p[:, 0], "p_b": p[:, 1], "p_c": p[:, 2]}
    )
    read = {"y_true": "y_true", "scores": ["p_a", "p_b", "p_c"], "decision": "argmax"}
    cmap = af.fit_calibration(af.from_scores(frame.head(1000), **read), calibration=calibration)  # type: ignore[arg-type]
    path = cmap.write(tmp_path / "map.parquet")
    back = af.CalibrationMap.read(path)
    assert (back.method, back.renormalize) == (cmap.method, cmap.renormalize)
    assert_frame_equal(back.table, cmap.table)
    assert_frame_equal(back.ece, cmap.ece)
    data = af.from_scores(frame.tail(500), **read)
    assert_frame_equal(af.estimate(back, data, "f1", "macro"), af.estimate(cmap, data, "f1", "macro"))
    with pytest.raises(StoreError, match="the file exists"):
        cmap.write(path)
    cmap.write(path, overwrite=True)


def test_broken_and_foreign_map_files_are_store_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such file"):
        af.CalibrationMap.read(tmp_path / "missing.parquet")
    (tmp_path / "junk.parquet").write_bytes(b"not parquet")
    with pytest.raises(StoreError, match="not a Parquet file"):
        af.CalibrationMap.read(tmp_path / "junk.parquet")
    pl.DataFrame({"a": [1]}).write_parquet(tmp_path / "other.parquet")
    with pytest.raises(StoreError, match="not a calibration map"):
        af.CalibrationMap.read(tmp_path / "other.parquet")
    cmap = af.fit_calibration(af.from_scores(_binary(15, 200), class_=None))
    cut = cmap.table.head(10).join(cmap.ece, on="class")
    cut.write_parquet(
        tmp_path / "cut.parquet",
        metadata={
            "aggframe": '{"format": "aggframe-calibration-map/1", "method": "isotonic", "renormalize": false, "grid": 1000}'
        },
    )
    with pytest.raises(StoreError, match="incomplete"):
        af.CalibrationMap.read(tmp_path / "cut.parquet")
    with pytest.raises(StoreError, match="it is a folder"):
        cmap.write(tmp_path)
