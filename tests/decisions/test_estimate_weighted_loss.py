"""The weighted log loss and Brier interval under single-label truth: class counts drawn with the losses.

Seeded coverage simulations in the shape of ``test_estimate_loss_interval.py`` (the
truth drawn from the scores, ``RUNS`` data sets as the groups of one ``by="run"``
call, the share of realized values inside the 95% interval within three binomial
standard errors of 0.95), with class weights far apart: scaling the classes'
deviations like micro's with the weights held at their expectation covers 99% of the
groups in the first simulation (too wide), so that test fails without the joint draw.
The covariance the draws use is also checked against the exact one, computed per example.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe._columns import CLASS_ROLE
from aggframe.decisions import estimate_loss_draws

RUNS = 300
LEVEL = 0.95


def _multiclass(rng: np.random.Generator, n: int, alpha: list[float]) -> pl.DataFrame:
    k = len(alpha)
    p = rng.dirichlet(alpha, size=n * RUNS)
    u = rng.uniform(size=p.shape[0])[:, None]
    y = np.minimum((u > p.cumsum(axis=1)).sum(axis=1), k - 1)
    scores = {f"p_{c}": p[:, c] for c in range(k)}
    return pl.DataFrame({"run": np.repeat(np.arange(RUNS), n), **scores, "y_true": y})


def _coverage(out: pl.DataFrame, measure: str, operator: str) -> float:
    rows = out.filter(pl.col("measure") == measure, pl.col("operator") == operator)
    est = rows.filter(pl.col("kind") == "estimated").sort("run")
    real = rows.filter(pl.col("kind") == "realized").sort("run")
    assert est.height == real.height == RUNS
    assert est["ci_low"].null_count() == est["ci_high"].null_count() == 0
    value = real["value"].to_numpy()
    return float(((est["ci_low"].to_numpy() <= value) & (value <= est["ci_high"].to_numpy())).mean())


def _check_weighted(alpha: list[float], seed: int, n: int) -> None:
    read = {"y_true": "y_true", "scores": [f"p_{c}" for c in range(len(alpha))], "decision": "argmax"}
    data = af.from_scores(_multiclass(np.random.default_rng(seed), n, alpha), **read)  # type: ignore[arg-type]
    out = af.estimate(
        data,
        data,
        ["log_loss", "brier"],
        ["weighted"],
        by="run",
        calibration="none",
        n_draws=200,
        level=LEVEL,
    )
    sd = math.sqrt(LEVEL * (1 - LEVEL) / RUNS)
    for m in ("log_loss", "brier"):
        share = _coverage(out, m, "weighted")
        assert abs(share - LEVEL) < 3 * sd, (m, share)


@pytest.mark.filterwarnings("ignore::aggframe.errors.ShiftWarning")
def test_weighted_loss_interval_covers_with_unequal_class_weights() -> None:
    # one class holds ~90% of the truth: the old interval (fixed weights, micro's scale) covers 99%
    _check_weighted([10.0, 0.5, 0.2], seed=2, n=150)


@pytest.mark.filterwarnings("ignore::aggframe.errors.ShiftWarning")
def test_weighted_loss_interval_covers_with_five_classes() -> None:
    # more than three classes: the pairs of classes are filled in (not exact), the sums kept
    _check_weighted([3.0, 1.0, 1.0, 0.5, 0.2], seed=2, n=150)


def _exact(q: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """The covariance of (L_1..L_K, P_1..P_K) of a group, summed per example: diag - sum u u^T."""
    k = q.shape[1]
    u = np.concatenate([q * delta, q], axis=1)
    cov = -u.T @ u
    for c in range(k):
        cov[c, c] += (q[:, c] * delta[:, c] ** 2).sum()
        cov[c, k + c] += (q[:, c] * delta[:, c]).sum()
        cov[k + c, c] += (q[:, c] * delta[:, c]).sum()
        cov[k + c, k + c] += q[:, c].sum()
    return cov


def _sums(q: np.ndarray, delta: np.ndarray, group: str | None) -> pl.DataFrame:
    """The scan's per-class sums of one group (the columns ``joint_weighted`` reads)."""
    m = (q * delta).sum(axis=1, keepdims=True)
    k = q.shape[1]
    return pl.DataFrame(
        {
            "g": pl.Series([group] * k, dtype=pl.String),
            CLASS_ROLE: np.arange(k),
            "weight": q.sum(axis=0),
            "ll": np.zeros(k),
            "llv": (q * (1 - q) * delta**2).sum(axis=0),
            "llm": (q * delta * (delta - m)).sum(axis=0),
            "lla": (q * (1 - q) * delta).sum(axis=0),
            "llb": (q * (delta - m)).sum(axis=0),
            "v": (q * (1 - q)).sum(axis=0),
        }
    )


@pytest.mark.parametrize("k", [2, 3, 6])
def test_the_drawn_covariance_keeps_every_sum_the_scan_knows(k: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(k)
    groups = []
    for group in ("a", None):  # a null key is a group
        q = rng.dirichlet([2.0] + [0.5] * (k - 1), size=40)
        p = np.clip(rng.dirichlet([1.0] * k, size=40), 1e-3, 1 - 1e-3)
        groups.append((group, q, np.log((1 - p) / p)))
    est = pl.concat([_sums(q, d, g) for g, q, d in groups])
    seen: list[np.ndarray] = []
    eigh = np.linalg.eigh

    def spy(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        seen.append(a.copy())
        return eigh(a)

    monkeypatch.setattr(estimate_loss_draws.np.linalg, "eigh", spy)
    drawn_p, drawn_l = estimate_loss_draws.joint_weighted(est, ["g"], "ll", 4000, np.random.default_rng(0))
    for i, (_, q, d) in enumerate(groups):
        exact, got = _exact(q, d), seen[0][i]
        # the diagonal (variances and each class's loss-count covariance) and every row sum are exact
        np.testing.assert_allclose(np.diag(got), np.diag(exact), rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(np.diag(got[:k, k:]), np.diag(exact[:k, k:]), rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(got.sum(axis=1), exact.sum(axis=1), rtol=1e-9, atol=1e-8)
        if k <= 3:  # three unknown pairs, three row sums: the symmetric blocks are exact
            np.testing.assert_allclose(got[:k, :k], exact[:k, :k], rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(got[k:, k:], exact[k:, k:], rtol=1e-9, atol=1e-9)
        # the draws have that covariance (Monte Carlo error at 4000 draws) and the counts add up
        rows = slice(i * k, (i + 1) * k)
        x = np.concatenate([drawn_l[:, rows], drawn_p[:, rows]], axis=1)
        scale = np.sqrt(np.outer(np.diag(got), np.diag(got))) + 1e-12
        assert np.abs((np.cov(x.T) - got) / scale).max() < 0.1
        np.testing.assert_allclose(drawn_p[:, rows].sum(axis=1), q.sum(), atol=1e-6)


@pytest.mark.engines
@pytest.mark.parametrize("decision", ["argmax", "top_k"])
def test_weighted_loss_interval_on_duckdb_equals_polars(decision: str) -> None:
    """The new sums (``ll_a``, ``ll_b``, ...) come out of the engine's scan too: the same interval."""
    duckdb = pytest.importorskip("duckdb")
    frame = _multiclass(np.random.default_rng(7), 2, [3.0, 1.0, 0.3]).head(240)
    frame = frame.with_columns(pl.when(pl.col("run") % 3 == 0).then(None).otherwise(pl.col("run")).alias("n"))
    read: dict[str, Any] = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": decision}
    if decision == "top_k":
        read["k"] = 2
    cmap = af.fit_calibration(af.from_scores(frame, **read))
    rel = duckdb.connect().from_arrow(frame.to_arrow())
    args: dict[str, Any] = {"by": "n", "n_draws": 30, "seed": 4}
    want, got = (
        af.estimate(cmap, af.from_scores(src, **read), ["log_loss", "brier"], ["weighted", "micro"], **args)
        for src in (frame, rel)
    )
    est = want.filter(pl.col("kind") == "estimated")
    assert est["ci_low"].null_count() == 0
    assert est["n"].null_count() > 0  # a null key is a group
    assert_frame_equal(got, want, abs_tol=1e-9, check_dtypes=False)
