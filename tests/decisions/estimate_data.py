"""Simulated predictions for estimation's coverage tests: the truth drawn from known calibrated
probabilities, ``runs`` groups (column ``run``) of ``n`` examples each."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl


def binary_runs(rng: np.random.Generator, n: int, runs: int) -> pl.DataFrame:
    """Binary: ``score`` ~ Beta(2, 2) and ``y`` ~ Bernoulli(score)."""
    s = rng.beta(2.0, 2.0, size=n * runs)
    y = (rng.uniform(size=s.size) < s).astype(np.int64)
    return pl.DataFrame({"run": np.repeat(np.arange(runs), n), "score": s, "y": y})


def multiclass_runs(rng: np.random.Generator, n: int, runs: int) -> pl.DataFrame:
    """Single-label, 3 classes: ``p_0..p_2`` ~ Dirichlet(1.5, 1, 0.7) and ``y_true`` drawn from them."""
    p = rng.dirichlet([1.5, 1.0, 0.7], size=n * runs)
    u = rng.uniform(size=p.shape[0])[:, None]
    y = (u > p.cumsum(axis=1)).sum(axis=1)
    return pl.DataFrame(
        {"run": np.repeat(np.arange(runs), n), "p_0": p[:, 0], "p_1": p[:, 1], "p_2": p[:, 2], "y_true": y}
    )


def multilabel_runs(rng: np.random.Generator, n: int, runs: int) -> pl.DataFrame:
    """Multilabel, 3 classes (long form): ``score`` ~ Beta(1.5, 2.5) and ``y`` ~ Bernoulli(score)."""
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


def wide_columns(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """Single-label, 3 classes ``a b c`` (wide): ``p_a..p_c`` ~ Dirichlet(2, 1, 1), ``y_true`` drawn
    from them."""
    p = rng.dirichlet([2.0, 1.0, 1.0], size=n)
    y = (rng.uniform(size=n)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    return {"y_true": np.array(["a", "b", "c"])[y], "p_a": p[:, 0], "p_b": p[:, 1], "p_c": p[:, 2]}


def wide_frame(seed: int, n: int, by: Sequence[str]) -> pl.DataFrame:
    """:func:`wide_columns` and two by-columns with null keys: ``by[0]`` Int64 ``1, null, 2``,
    ``by[1]`` ``x, y, null, y``."""
    return pl.DataFrame(
        {
            **wide_columns(np.random.default_rng(seed), n),
            by[0]: pl.Series([1, None, 2] * (n // 3), dtype=pl.Int64),
            by[1]: pl.Series(["x", "y", None, "y"] * (n // 4)),
        }
    )
