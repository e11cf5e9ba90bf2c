"""The interval of ``af.estimate`` for the ``exemplar`` operator: seeded coverage, bias, engines, names.

As in ``test_estimate_coverage.py``, the truth is drawn from known calibrated
probabilities (the scores, read with ``calibration="none"``), ``RUNS`` independent
data sets are the groups of one ``by="run"`` call, the share of groups whose realized
value falls in the 95% interval must lie within three binomial standard deviations of
0.95, and the mean error of the estimate within three standard errors of 0. An
interval half as wide covers about 68% of the groups here and fails
(``test_a_half_wide_interval_fails_the_band``).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af

RUNS = 400
LEVEL = 0.95


def _binary(rng: np.random.Generator, n: int, runs: int) -> pl.DataFrame:
    s = rng.beta(2.0, 2.0, size=n * runs)
    y = (rng.uniform(size=s.size) < s).astype(np.int64)
    return pl.DataFrame({"run": np.repeat(np.arange(runs), n), "score": s, "y": y})


def _multiclass(rng: np.random.Generator, n: int, runs: int) -> pl.DataFrame:
    p = rng.dirichlet([1.5, 1.0, 0.7], size=n * runs)
    u = rng.uniform(size=p.shape[0])[:, None]
    y = (u > p.cumsum(axis=1)).sum(axis=1)
    return pl.DataFrame(
        {"run": np.repeat(np.arange(runs), n), "p_0": p[:, 0], "p_1": p[:, 1], "p_2": p[:, 2], "y_true": y}
    )


def _multilabel(rng: np.random.Generator, n: int, runs: int) -> pl.DataFrame:
    s = rng.beta(1.5, 2.5, size=(n * runs, 3))
    y = (rng.uniform(size=s.shape) < s).astype(np.int64)
    return pl.DataFrame(
        {
            "run": np.repeat(np.arange(runs), n * 3),
            "example": np.repeat(np.arange(n * runs), 3),
            "class": np.tile(["x", "y", "z"], n * runs),
            "score": s.ravel(),
            "y": y.ravel(),
        }
    )


MULTICLASS = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}


def _estimate(data: af.Predictions, measures: list[str], draws: int = 200, **kw: object) -> pl.DataFrame:
    return af.estimate(
        data, data, measures, "exemplar", by="run", calibration="none", n_draws=draws, level=LEVEL, **kw
    )


def _coverage(out: pl.DataFrame, measure: str, *, shrink: float = 1.0) -> tuple[float, float, float]:
    """The share of groups covered (the interval scaled about its middle by ``shrink``), mean error, its SE."""
    rows = out.filter(pl.col("measure") == measure)
    est = rows.filter(pl.col("kind") == "estimated").sort("run")
    real = rows.filter(pl.col("kind") == "realized").sort("run")
    assert est.height == real.height == RUNS
    lo, hi = est["ci_low"].to_numpy(), est["ci_high"].to_numpy()
    mid, half = (lo + hi) / 2.0, (hi - lo) / 2.0 * shrink
    value = real["value"].to_numpy()
    inside = (mid - half <= value) & (value <= mid + half)
    err = est["value"].to_numpy() - value
    return float(inside.mean()), float(err.mean()), float(err.std(ddof=1) / math.sqrt(RUNS))


def _check(out: pl.DataFrame, measure: str, *, bias: bool = True) -> None:
    covered, mean_err, se = _coverage(out, measure)
    sd = math.sqrt(LEVEL * (1 - LEVEL) / RUNS)
    assert abs(covered - LEVEL) < 3 * sd, (measure, covered)
    if bias:
        assert abs(mean_err) < 3 * se, (measure, mean_err, se)


def test_binary_exemplar_is_unbiased_and_covers() -> None:
    data = af.from_scores(_binary(np.random.default_rng(11), 150, RUNS), class_=None)
    out = _estimate(data, ["f1", "precision", "recall"])
    for m in ("f1", "precision", "recall"):
        _check(out, m)


def test_multiclass_exemplar_is_unbiased_and_covers() -> None:
    data = af.from_scores(_multiclass(np.random.default_rng(12), 100, RUNS), **MULTICLASS)  # type: ignore[arg-type]
    out = _estimate(data, ["f1", "jaccard"])
    for m in ("f1", "jaccard"):
        _check(out, m)


def test_multilabel_exemplar_covers() -> None:
    data = af.from_scores(_multilabel(np.random.default_rng(13), 60, RUNS))
    out = _estimate(data, ["f1", "recall"], draws=100)
    for m in ("f1", "recall"):
        _check(out, m)
