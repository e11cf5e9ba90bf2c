"""Slices: the error rates of the corrections (seeded simulations) and a planted slice found first.

The family-wise error (Holm) and the false discovery proportion (Benjamini-Hochberg) are
rates over many runs. A run of ``slices`` costs a bootstrap scan, so 300 runs would not fit
the suite's budget; instead one call holds 300 independent families: the column ``run``
splits the data into 300 runs of 400 rows, and the slices of run ``r`` (``run = r`` with
``a`` and ``b``: 12 slices of about 67 to 400 rows) are one family, their p-values adjusted
together as one run's would be. With no planted effect every slice is a null slice (its
complement holds the other runs too: a null comparison all the same). The full version,
one ``slices`` call per run, is ``benchmarks/bench_slices.py --errors``.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import aggframe as af
from aggframe.decisions.slices import adjusted_p

RUNS, ROWS = 300, 400


def _null_frame(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = RUNS * ROWS
    y = rng.integers(0, 3, n)
    p = np.where(rng.random(n) < 0.75, y, rng.integers(0, 3, n))
    return pl.DataFrame(
        {
            "example": np.arange(n),
            "run": np.repeat(np.arange(RUNS), ROWS),
            "a": rng.integers(0, 3, n),
            "b": rng.integers(0, 2, n),
            "y_true": y,
            "y_pred": p,
        }
    )


@pytest.fixture(scope="module")
def null_slices() -> pl.DataFrame:
    pr = af.from_labels(_null_frame(11), example="example")
    out = pr.slices(
        "recall", "macro", columns=["run", "a", "b"], max_depth=3, min_examples=40, n_boot=50, max_levels=RUNS
    )
    return out.filter(pl.col("run").is_not_null())


def _discoveries(slices: pl.DataFrame, correction: str, alpha: float = 0.05) -> pl.DataFrame:
    """Per run: whether any of its slices is significant after the correction within the run."""
    adjusted = slices.with_columns(adjusted_p(pl.col("p_value"), correction).over("run").alias("_adj"))  # type: ignore[arg-type]
    return adjusted.group_by("run").agg((pl.col("_adj") <= alpha).any().alias("any"), pl.len().alias("m"))


@pytest.mark.slow  # one bootstrap over 120k rows and 3,600 slices: seconds
def test_holm_family_wise_error_at_most_alpha(null_slices: pl.DataFrame) -> None:
    runs = _discoveries(null_slices, "holm")
    assert runs.height == RUNS
    assert runs["m"].max() == 12
    # at FWER 5% the count is Binomial(300, 0.05): 15 +- 3.8; 23 (7.7%) is exceeded with
    # probability 1.7% at 5%, and stayed under with probability 10% at 10%
    false_runs = int(runs["any"].sum())
    assert false_runs <= 23, f"{false_runs} of {RUNS} runs had a false discovery"
    # not vacuous: the p-values are not all 1 (a test that never rejects passes the bound)
    assert false_runs >= 3


@pytest.mark.slow
def test_bh_false_discovery_proportion_at_most_alpha(null_slices: pl.DataFrame) -> None:
    # with no planted effect every discovery is false: the proportion is 1 in a run with any, else 0
    runs = _discoveries(null_slices, "bh")
    assert int(runs["any"].sum()) <= 23


@pytest.mark.slow
def test_p_values_of_null_slices_are_near_uniform(null_slices: pl.DataFrame) -> None:
    """The normal approximation neither inflates nor starves: the share under 0.05 and under 0.2."""
    p = null_slices["p_value"].drop_nulls().to_numpy()
    assert p.size >= RUNS * 11
    assert 0.03 <= (p <= 0.05).mean() <= 0.07
    assert 0.16 <= (p <= 0.2).mean() <= 0.24
