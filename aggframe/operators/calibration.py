"""Calibration on scores: bins (uniform or quantile edges), the reliability table, the ece.

The kernels here read the per-score ``counts`` tables of the wide step
(``group..., score, pos, neg``, and the sums of a binned table;
:mod:`aggframe.operators.score_tables`): :func:`calibration` gives the
reliability table per group, :func:`ece_per_group` the expected calibration
error that :mod:`aggframe.operators.score_values` reports as the measure ``ece``.
The curves on the same tables are in :mod:`aggframe.operators.curves`.

:func:`calibration` equals ``sklearn.calibration.calibration_curve`` on the
non-empty bins (scikit-learn 1.9, checked by tests/operators/test_curves.py):
edges ``np.linspace(0, 1, bins + 1)`` (``uniform``) or
``np.percentile(scores, np.linspace(0, 1, bins + 1) * 100)`` (``quantile``,
reproduced to the last bit from the order statistics of the table, with NumPy's
linear interpolation), a score goes to bin ``#{inner edges < score}``
(``np.searchsorted(edges[1:-1], score)``). A row of a binned table goes to the
bin of its cell's mean score. The ece is ``sum_b (n_b / n) |freq_b - mean_score_b|``
over the non-empty bins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from aggframe._options import Strategy
from aggframe.operators.score_tables import GID, grouped, visible, with_gid, with_sums
from aggframe.wide.ranking import NEG, POS

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = ["calibration", "ece_per_group"]


def _edges_uniform(bins: int) -> np.ndarray:
    return np.linspace(0.0, 1.0, bins + 1)


def _binned(
    t: pl.LazyFrame, g: list[str], bins: int, strategy: Strategy
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Each row of a summed table with its calibration ``bin``; and the edges ``g..., bin, lower, upper``."""
    if strategy == "uniform":
        uniform = _edges_uniform(bins)
        b = pl.lit(pl.Series(uniform[1:-1])).search_sorted(pl.col("_m"), side="left").cast(pl.Int64)
        edges = pl.LazyFrame(
            {"bin": np.arange(bins, dtype=np.int64), "lower": uniform[:-1], "upper": uniform[1:]}
        )
        return t.with_columns(b.alias("bin")), t.select(g).unique().join(edges, how="cross")
    if strategy != "quantile":
        msg = f"Expected `strategy` to be 'uniform' or 'quantile', got {strategy!r}"
        raise ValueError(msg)
    lf, ids = with_gid(t, g)
    ordered = lf.sort("_m").cache()  # read by the edges and by the assignment
    points = _quantile_edges(ordered, bins)
    inner = points.filter((pl.col("i") >= 1) & (pl.col("i") <= bins - 1)).sort("edge", "i")
    assigned = (
        ordered.join_asof(
            inner,
            left_on="_m",
            right_on="edge",
            by=GID,
            strategy="backward",
            allow_exact_matches=False,
            check_sortedness=False,
        )
        .with_columns(pl.col("i").fill_null(0).cast(pl.Int64).alias("bin"))
        .drop("i", "edge", GID)
    )
    lower = points.select(GID, pl.col("i").alias("bin"), pl.col("edge").alias("lower"))
    upper = points.select(GID, (pl.col("i") - 1).alias("bin"), pl.col("edge").alias("upper"))
    edges = (
        lower.join(upper, on=[GID, "bin"], how="inner", nulls_equal=True)
        .join(ids, on=GID, nulls_equal=True)
        .drop(GID)
    )
    return assigned, edges


def _quantile_edges(ordered: pl.LazyFrame, bins: int) -> pl.LazyFrame:
    """``np.percentile(scores, np.linspace(0, 1, bins + 1) * 100)`` per group id, bit for bit.

    ``ordered``: rows sorted by ``_m`` (the scores, with multiplicity ``pos + neg``)
    carrying the group id. NumPy's linear method: ``h = (n - 1) q``, ``a =
    x[floor(h)]``, ``b = x[floor(h) + 1]`` (both ``x[n - 1]`` when ``h >= n - 1``),
    ``gamma = h - floor(h)`` and ``a + (b - a) gamma``, or ``b - (b - a)(1 -
    gamma)`` when ``gamma >= 0.5``. The order statistic of rank ``r`` is the row
    whose cumulative count range holds ``r``. Returns ``gid, i, edge``.
    """
    q = np.true_divide(np.linspace(0, 1, bins + 1) * 100, 100)  # as np.percentile sees it
    n = (pl.col(POS) + pl.col(NEG)).cast(pl.Int64)
    ranked = ordered.select(GID, "_m", (n.cum_sum().over(GID) - n).alias("_r"), n.alias("_n"))
    sizes = ranked.group_by(GID).agg(pl.col("_n").sum().alias("_size"))
    qs = pl.LazyFrame({"i": np.arange(bins + 1, dtype=np.int64), "_q": q})
    n1 = (pl.col("_size") - 1).cast(pl.Float64)
    h = n1 * pl.col("_q")
    above = h >= n1
    targets = (
        sizes.join(qs, how="cross")
        .with_columns(
            pl.when(above).then(n1).otherwise(h.floor()).cast(pl.Int64).alias("_lo"),
            pl.when(above).then(-1.0).otherwise(h.floor()).alias("_base"),
            h.alias("_h"),
        )
        .with_columns(
            pl.when(above).then(pl.col("_lo")).otherwise(pl.col("_lo") + 1).alias("_hi"),
            (pl.col("_h") - pl.col("_base")).alias("_gamma"),
        )
    )
    stats = ranked.select(GID, "_r", "_m")  # sorted by _m, so by _r within each group

    def at(rank: str, name: str) -> pl.LazyFrame:
        return (
            targets.sort(rank)
            .join_asof(
                stats, left_on=rank, right_on="_r", by=GID, strategy="backward", check_sortedness=False
            )
            .select(GID, "i", "_gamma", pl.col("_m").alias(name))
        )

    lerp = at("_lo", "_a").join(at("_hi", "_b").drop("_gamma"), on=[GID, "i"], nulls_equal=True)
    a, b, gamma = pl.col("_a"), pl.col("_b"), pl.col("_gamma")
    edge = pl.when(gamma >= 0.5).then(b - (b - a) * (1.0 - gamma)).otherwise(a + (b - a) * gamma)
    return lerp.select(GID, "i", edge.alias("edge"))


def calibration(
    counts: pl.LazyFrame, group: Sequence[str], *, bins: int = 15, strategy: Strategy = "uniform"
) -> pl.LazyFrame:
    """The reliability table per group, as ``calibration_curve`` on the non-empty bins.

    Parameters
    ----------
    counts
        ``group..., score, pos, neg`` (binned tables: their sums too).
    group
        Keys, or keys and class (calibration of the one-vs-rest column).
    bins, strategy
        As scikit-learn's ``n_bins`` and ``strategy``.

    Returns
    -------
    Lazy frame ``group..., bin, lower, upper, mean_score, frequency, count``: the
    bin index (0-based), its edges, the mean score (``prob_pred``), the fraction
    of positives (``prob_true``) and the number of entries; empty bins are left
    out. Sorted by group and bin.

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.LazyFrame({"score": [0.1, 0.3, 0.8], "pos": [0, 1, 2], "neg": [2, 1, 0]})
    >>> calibration(counts, [], bins=2).collect()
    shape: (2, 6)
    ┌─────┬───────┬───────┬────────────┬───────────┬───────┐
    │ bin ┆ lower ┆ upper ┆ mean_score ┆ frequency ┆ count │
    │ --- ┆ ---   ┆ ---   ┆ ---        ┆ ---       ┆ ---   │
    │ i64 ┆ f64   ┆ f64   ┆ f64        ┆ f64       ┆ i64   │
    ╞═════╪═══════╪═══════╪════════════╪═══════════╪═══════╡
    │ 0   ┆ 0.0   ┆ 0.5   ┆ 0.2        ┆ 0.25      ┆ 4     │
    │ 1   ┆ 0.5   ┆ 1.0   ┆ 0.8        ┆ 1.0       ┆ 2     │
    └─────┴───────┴───────┴────────────┴───────────┴───────┘
    """
    if int(bins) != bins or bins < 1:
        msg = f"Expected `bins` to be a positive integer, got {bins!r}"
        raise ValueError(msg)
    lf, g = grouped(with_sums(counts), group)
    table = _calibration_table(lf, g, int(bins), strategy)
    return table.select(*visible(g), "bin", "lower", "upper", "mean_score", "frequency", "count")


def _calibration_table(lf: pl.LazyFrame, g: list[str], bins: int, strategy: Strategy) -> pl.LazyFrame:
    n = (pl.col(POS) + pl.col(NEG)).cast(pl.Int64)
    assigned, edges = _binned(lf, g, bins, strategy)
    return (
        assigned.group_by([*g, "bin"])
        .agg(
            pl.col("s_sum").sum(),
            pl.col(POS).sum().cast(pl.Int64).alias("_pos"),
            n.sum().alias("count"),
        )
        .join(edges, on=[*g, "bin"], how="left", nulls_equal=True)
        .select(
            *g,
            "bin",
            "lower",
            "upper",
            (pl.col("s_sum") / pl.col("count")).alias("mean_score"),
            (pl.col("_pos") / pl.col("count")).alias("frequency"),
            "count",
        )
        .sort([*g, "bin"], nulls_last=True)
    )


def ece_per_group(lf: pl.LazyFrame, g: list[str], bins: int, strategy: Strategy) -> pl.LazyFrame:
    """The expected calibration error per group: ``g..., ece``.

    ``lf`` is a counts table with the sums of :func:`~aggframe.operators.score_tables.with_sums`
    and ``g`` its group columns, not empty (:func:`~aggframe.operators.score_tables.grouped`).
    """
    table = _calibration_table(lf, g, bins, strategy)
    gap = (pl.col("frequency") - pl.col("mean_score")).abs() * pl.col("count")
    return table.group_by(g).agg((gap.sum() / pl.col("count").sum()).alias("ece"))
