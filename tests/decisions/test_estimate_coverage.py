"""Seeded simulations of ``af.estimate``: unbiased estimates, intervals that cover the realized value.

The truth is drawn from known calibrated probabilities (the scores themselves), so the
estimate's target is known. Each simulation runs ``RUNS`` independent data sets at once as
the groups of one ``by="run"`` call. Bounds come from the binomial sd of the coverage share
(three sd), so a wrong interval fails the test: at level 0.95 one too narrow, at level 0.5
one too narrow or too wide (a 95% interval read as a 50% one leaves the band).

The runs share one reference, so with a fitted map (isotonic, Platt) its fitting error is
common to all runs and is not averaged out: the simulations read the scores as they are
(``calibration="none"``), which isolates the estimate and its interval (conditional on the
map, as documented). The fitted maps are tested in ``test_estimate.py`` against the truth.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import aggframe as af

RUNS = 80


def _binary(rng: np.random.Generator, n: int, runs: int) -> pl.DataFrame:
    s = rng.beta(2.0, 2.0, size=n * runs)
    y = (rng.uniform(size=s.size) < s).astype(np.int64)
    return pl.DataFrame(
        {"run": np.repeat(np.arange(runs), n), "score": s, "y": y, "lab": np.ones(s.size, bool)}
    )


def _multiclass(rng: np.random.Generator, n: int, runs: int) -> pl.DataFrame:
    p = rng.dirichlet([1.5, 1.0, 0.7], size=n * runs)
    u = rng.uniform(size=p.shape[0])[:, None]
    y = (u > p.cumsum(axis=1)).sum(axis=1)
    return pl.DataFrame(
        {
            "run": np.repeat(np.arange(runs), n),
            "p_0": p[:, 0],
            "p_1": p[:, 1],
            "p_2": p[:, 2],
            "y_true": y,
            "lab": np.ones(p.shape[0], bool),
        }
    )


def _check(out: pl.DataFrame, measure: str, operator: str, level: float) -> None:
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
    sd = math.sqrt(level * (1 - level) / RUNS)
    assert abs(inside.mean() - level) < 3 * sd, (measure, operator, inside.mean())


@pytest.mark.parametrize("seed", [3])
def test_binary_estimate_is_unbiased_and_covers(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ref = af.from_scores(_binary(rng, 2000, 1).drop("run"), class_=None)
    data = af.from_scores(_binary(rng, 150, RUNS), class_=None)
    out = af.estimate(
        ref,
        data,
        ["f1", "precision"],
        "binary",
        by="run",
        calibration="none",
        labelled="lab",
        n_draws=100,
        level=0.5,
    )
    _check(out, "f1", "binary", 0.5)
    _check(out, "precision", "binary", 0.5)


@pytest.mark.parametrize("seed", [2])
def test_multiclass_estimate_is_unbiased_and_covers(seed: int) -> None:
    rng = np.random.default_rng(seed)
    read = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
    ref = af.from_scores(_multiclass(rng, 3000, 1).drop("run"), **read)
    data = af.from_scores(_multiclass(rng, 100, RUNS), **read)
    out = af.estimate(
        ref,
        data,
        ["f1", "recall"],
        ["macro", "micro"],
        by="run",
        calibration="none",
        labelled="lab",
        n_draws=100,
        level=0.95,
    )
    _check(out, "f1", "macro", 0.95)
    _check(out, "recall", "micro", 0.95)
