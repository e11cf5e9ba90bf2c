"""Shared fixtures and hypothesis strategies: small prediction sets in every form."""

from __future__ import annotations

import os

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import aggframe as af

_COMMON = {
    "max_examples": 25,
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
settings.register_profile("aggframe", **_COMMON)
# CI: the same examples every run, so a red build is reproducible from its log
settings.register_profile("aggframe-ci", derandomize=True, print_blob=True, **_COMMON)
settings.load_profile("aggframe-ci" if os.environ.get("CI") else "aggframe")

OPERATORS = ("micro", "macro", "weighted", "exemplar")
CONVENTIONS = ("exclude", "zero", "one", "nan")
MEASURES = tuple(af.list_measures())


@st.composite
def label_arrays(draw: st.DrawFn, max_n: int = 40, max_m: int = 6) -> tuple[np.ndarray, np.ndarray, int]:
    """Single-label (y_true, y_pred, n_classes); some classes may never occur."""
    m = draw(st.integers(2, max_m))
    n = draw(st.integers(1, max_n))
    yt = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    yp = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    return np.array(yt), np.array(yp), m


@st.composite
def indicator_matrices(
    draw: st.DrawFn, *, soft: bool = False, masked: bool = False, max_n: int = 25, max_m: int = 5
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(Y, P, mask) n x m; crisp 0/1 or soft values on a grid of [0, 1]."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(1, max_m))
    values = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]) if soft else st.sampled_from([0.0, 1.0])
    cells = st.lists(values, min_size=n * m, max_size=n * m)
    Y = np.array(draw(cells)).reshape(n, m)
    P = np.array(draw(cells)).reshape(n, m)
    mask = None
    if masked:
        mask = np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n * m, max_size=n * m))).reshape(
            n, m
        )
    return Y, P, mask


def dense_long(Y: np.ndarray, P: np.ndarray, mask: np.ndarray | None = None) -> pl.DataFrame:
    """Every (example, class) entry as a row."""
    n, m = Y.shape
    ex, cl = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    data = {"example": ex.ravel(), "class": cl.ravel(), "y": Y.ravel(), "p": P.ravel()}
    if mask is not None:
        data["mask"] = mask.ravel()
    return pl.DataFrame(data)


@pytest.fixture
def digits_like() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, 500)
    p = np.where(rng.random(500) < 0.8, y, rng.integers(0, 10, 500))
    return y, p
