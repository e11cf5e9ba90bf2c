"""The interval of the estimated log loss and Brier score: seeded coverage simulations.

As in ``test_estimate_coverage.py``, the truth is drawn from the scores themselves
(``calibration="none"``), ``RUNS`` independent data sets are the groups of one ``by="run"``
call, and the share of groups whose realized value lies in the 95% interval must be within
three binomial standard deviations of 0.95: an interval that ignores the loss's spread
(too narrow) or doubles it (too wide) fails.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import aggframe as af
from tests.decisions.estimate_data import binary_runs, multiclass_runs, multilabel_runs

RUNS = 300
LEVEL = 0.95


def _coverage(out: pl.DataFrame, measure: str, operator: str) -> float:
    rows = out.filter(pl.col("measure") == measure, pl.col("operator") == operator)
    est = rows.filter(pl.col("kind") == "estimated").sort("run")
    real = rows.filter(pl.col("kind") == "realized").sort("run")
    assert est.height == real.height == RUNS
    assert est["ci_low"].null_count() == 0
    assert est["ci_high"].null_count() == 0
    value = real["value"].to_numpy()
    inside = (est["ci_low"].to_numpy() <= value) & (value <= est["ci_high"].to_numpy())
    return float(inside.mean())


def _check(out: pl.DataFrame, measure: str, operator: str) -> None:
    share = _coverage(out, measure, operator)
    sd = math.sqrt(LEVEL * (1 - LEVEL) / RUNS)
    assert abs(share - LEVEL) < 3 * sd, (measure, operator, share)


def _estimate(data: af.Predictions, operators: list[str], draws: int = 200) -> pl.DataFrame:
    return af.estimate(
        data,
        data,
        ["log_loss", "brier"],
        operators,
        by="run",
        calibration="none",
        n_draws=draws,
        level=LEVEL,
    )


def test_binary_loss_interval_covers() -> None:
    data = af.from_scores(binary_runs(np.random.default_rng(11), 80, RUNS), class_=None)
    out = _estimate(data, ["binary"])
    _check(out, "log_loss", "binary")
    _check(out, "brier", "binary")


def test_multilabel_loss_interval_covers() -> None:
    data = af.from_scores(multilabel_runs(np.random.default_rng(12), 40, RUNS))
    out = _estimate(data, ["micro", "macro", "weighted"])
    for m in ("log_loss", "brier"):
        _check(out, m, "micro")
        _check(out, m, "macro")
        _check(out, m, "weighted")


def test_single_label_loss_interval_covers() -> None:
    # the classes of one example move together (one true class): summing the classes'
    # variances as if independent covers only ~87% here, so this fails without the covariance
    read = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
    data = af.from_scores(multiclass_runs(np.random.default_rng(2), 60, RUNS), **read)
    out = _estimate(data, ["micro", "macro"])
    for m in ("log_loss", "brier"):
        _check(out, m, "micro")
        _check(out, m, "macro")


@pytest.mark.parametrize("name", ["llv", "size", 'a "q" é'])
def test_loss_interval_with_null_keys_and_hostile_names(name: str) -> None:
    rng = np.random.default_rng(14)
    s = rng.uniform(size=120)
    y = (rng.uniform(size=120) < s).astype(np.int64)
    key = [None if i % 3 == 0 else i % 2 for i in range(120)]
    data = af.from_scores(pl.DataFrame({name: key, "score": s, "y": y}), class_=None)
    out = af.estimate(data, data, ["log_loss", "brier"], ["binary"], by=name, calibration="none", n_draws=30)
    est = out.filter(pl.col("kind") == "estimated")
    assert est.height == 6  # three groups, the null group among them
    assert est[name].null_count() == 2
    assert ((est["ci_low"] <= est["value"]) & (est["value"] <= est["ci_high"])).all()


def test_loss_interval_without_draws_is_null_and_with_draws_brackets_the_estimate() -> None:
    data = af.from_scores(binary_runs(np.random.default_rng(13), 50, 4), class_=None)
    args = {"calibration": "none", "by": "run"}
    none = af.estimate(data, data, ["log_loss", "brier"], ["binary"], **args)
    assert none["ci_low"].null_count() == none.height
    out = af.estimate(data, data, ["log_loss", "brier", "auroc"], ["binary"], n_draws=50, **args)
    est = out.filter(pl.col("kind") == "estimated")
    assert est.height == 12
    assert est["ci_low"].null_count() == 0
    assert ((est["ci_low"] < est["value"]) & (est["value"] < est["ci_high"])).all()


@pytest.mark.parametrize("layout", ["binary", "single_label"])
def test_loss_interval_duckdb_matches_polars(layout: str) -> None:
    duckdb = pytest.importorskip("duckdb")
    if layout == "binary":
        df, read = binary_runs(np.random.default_rng(15), 40, 4), {"class_": None}
    else:
        read = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
        df = multiclass_runs(np.random.default_rng(15), 40, 4)
    ref = af.from_scores(df, **read)
    rel = af.from_scores(duckdb.connect().from_arrow(df.to_arrow()), **read)
    args = {"by": "run", "calibration": "isotonic", "n_draws": 40}
    order = ["run", "kind", "measure", "operator"]
    want = af.estimate(ref, ref, ["log_loss", "brier"], ["micro", "macro"], **args).sort(order)
    got = af.estimate(ref, rel, ["log_loss", "brier"], ["micro", "macro"], **args).sort(order)
    assert want.filter(pl.col("kind") == "estimated")["ci_low"].null_count() == 0
    for c in ("value", "ci_low", "ci_high"):
        np.testing.assert_allclose(got[c].to_numpy(), want[c].to_numpy(), rtol=1e-9, atol=1e-12)
