"""Seeded simulations of ``af.estimate``: unbiased estimates, intervals that cover the realized value.

The truth is drawn from known calibrated probabilities (the scores themselves), so the
estimate's target is known. Each simulation runs ``RUNS`` independent data sets at once as
the groups of one ``by="run"`` call. The coverage share of the 95% interval must lie within
three binomial standard deviations of 0.95 (``RUNS`` groups: +-0.033 at 400), so an interval
too narrow (e.g. one that ignores that the counts of a single-label example move against
each other) or far too wide fails; the mean error must be within three standard errors of 0.

The runs share one map, so with a fitted map (isotonic, Platt) its fitting error is common
to all runs and is not averaged out: the simulations read the scores as they are
(``calibration="none"``), which isolates the estimate and its interval (conditional on the
map, as documented). The fitted maps are tested in ``test_estimate.py`` against the truth.
One seed each: the bands come from the number of groups, not from picking a seed.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

import aggframe as af
from tests.decisions.estimate_data import binary_runs, multiclass_runs, multilabel_runs

RUNS = 400
LEVEL = 0.95


def _check(out: pl.DataFrame, measure: str, operator: str) -> None:
    rows = out.filter(pl.col("measure") == measure, pl.col("operator") == operator)
    est = rows.filter(pl.col("kind") == "estimated").sort("run")
    real = rows.filter(pl.col("kind") == "realized").sort("run")
    assert est.height == real.height == RUNS
    err = est["value"].to_numpy() - real["value"].to_numpy()
    # unbiased: the mean error is within three standard errors of zero
    assert abs(err.mean()) < 3 * err.std(ddof=1) / math.sqrt(RUNS), (measure, operator, err.mean())
    inside = (est["ci_low"].to_numpy() <= real["value"].to_numpy()) & (
        real["value"].to_numpy() <= est["ci_high"].to_numpy()
    )
    sd = math.sqrt(LEVEL * (1 - LEVEL) / RUNS)
    assert abs(inside.mean() - LEVEL) < 3 * sd, (measure, operator, inside.mean())


def _estimate(
    data: af.Predictions, measures: list[str], operators: list[str], draws: int = 200
) -> pl.DataFrame:
    # the map is not used (calibration="none"): the reference only has to be valid
    return af.estimate(
        data, data, measures, operators, by="run", calibration="none", n_draws=draws, level=LEVEL
    )


def test_binary_estimate_is_unbiased_and_covers() -> None:
    data = af.from_scores(binary_runs(np.random.default_rng(1), 150, RUNS), class_=None)
    out = _estimate(data, ["f1", "precision", "recall"], ["binary"])
    for m in ("f1", "precision", "recall"):
        _check(out, m, "binary")


def test_binary_auroc_is_unbiased_and_covers() -> None:
    data = af.from_scores(binary_runs(np.random.default_rng(4), 100, RUNS), class_=None)
    _check(_estimate(data, ["auroc"], ["micro"], draws=100), "auroc", "micro")


def test_multiclass_estimate_is_unbiased_and_covers() -> None:
    read = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
    data = af.from_scores(multiclass_runs(np.random.default_rng(2), 100, RUNS), **read)
    out = _estimate(data, ["f1", "recall"], ["macro", "micro"])
    _check(out, "f1", "macro")
    _check(out, "recall", "micro")  # single-label: tp and fn of one example move together


def test_multilabel_estimate_is_unbiased_and_covers() -> None:
    data = af.from_scores(multilabel_runs(np.random.default_rng(3), 60, RUNS))
    out = _estimate(data, ["f1"], ["micro", "macro"])
    _check(out, "f1", "micro")
    _check(out, "f1", "macro")
