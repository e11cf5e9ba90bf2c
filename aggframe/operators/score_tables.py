"""The per-score tables the score kernels read, and the steps every kernel shares.

The narrow steps of the measures on scores run in Polars on the small tables of
the wide step (:mod:`aggframe.wide.ranking`): ``counts`` frames with columns
``group..., score, pos, neg`` (and, when binned, the sums of
:data:`~aggframe.wide.ranking.SUM_COLUMNS`), where ``group`` is ``keys`` (the
pooled, micro grain) or ``keys + [class]``, one row per (group, score). Three
modules read them, each on its own concern, and all three build on this one:

- :mod:`aggframe.operators.curves`: the cells at every threshold and the curves
  (ROC, PR, their macro averages), the best threshold, the binning bound;
- :mod:`aggframe.operators.calibration`: calibration bins and the reliability table;
- :mod:`aggframe.operators.score_values`: the value of every measure on scores
  per group (AUROC and AP area sums, losses, ece): the entries that
  :mod:`aggframe.operators.scores` reduces under the operators.

A null key is a group: windows and group-bys treat nulls as equal and every join
on keys passes ``nulls_equal=True``; asof joins, which cannot, run on the integer
group id :func:`with_gid` makes. With no group columns, :func:`grouped` adds a
constant stand-in key (:data:`ALL`) and :func:`visible` leaves it out again. Both
private columns are in the package's reserved namespace
(:data:`aggframe._columns.PREFIX`).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from aggframe._columns import PREFIX
from aggframe.wide.ranking import EPS, NEG, POS, SCORE, SUM_COLUMNS

__all__ = ["ALL", "GID", "cumulated", "grouped", "visible", "with_gid", "with_sums"]

#: The constant stand-in key of a table without group columns (group-bys need one).
ALL = f"{PREFIX}curves_all"
#: The integer id of a group, for asof joins (which cannot match null keys).
GID = f"{PREFIX}gid"


def grouped(lf: pl.LazyFrame, group: Sequence[str]) -> tuple[pl.LazyFrame, list[str]]:
    """A constant stand-in key when there are no group columns (group-bys need one)."""
    if group:
        return lf, list(group)
    return lf.with_columns(pl.lit(0, dtype=pl.Int8).alias(ALL)), [ALL]


def visible(cols: Sequence[str]) -> list[str]:
    """The group columns without the stand-in key of :func:`grouped` (what a result shows)."""
    return [c for c in cols if c != ALL]


def with_sums(counts: pl.LazyFrame) -> pl.LazyFrame:
    """Add the loss and calibration sums of an exact table (a binned one carries them).

    Also adds ``_m``, the score by which a row is binned for calibration: the
    score itself (exact) or the cell's mean score (binned).
    """
    names = counts.collect_schema().names()
    if all(c in names for c in SUM_COLUMNS):
        n = (pl.col(POS) + pl.col(NEG)).cast(pl.Float64)
        return counts.with_columns((pl.col("s_sum") / n).alias("_m"))
    s = pl.col(SCORE).cast(pl.Float64)
    pos, neg = pl.col(POS).cast(pl.Float64), pl.col(NEG).cast(pl.Float64)

    def nlog(x: pl.Expr) -> pl.Expr:
        return -(x.clip(EPS, 1.0 - EPS).log())

    return counts.with_columns(
        (s * (pos + neg)).alias("s_sum"),
        (pos * nlog(s)).alias("lp_sum"),
        (neg * nlog(1.0 - s)).alias("ln_sum"),
        (pos * (1.0 - s) * (1.0 - s)).alias("bp_sum"),
        (neg * s * s).alias("bn_sum"),
        s.alias("_m"),
    )


def cumulated(counts: pl.LazyFrame, group: list[str]) -> pl.LazyFrame:
    """Rows sorted by score descending with ``tp``, ``fp`` (inclusive cumulative sums per group).

    One global sort by score, then cumulative sums over the group (a window keeps
    the frame's order within each group); ``P``, ``N`` are the group totals.
    """
    return counts.sort(SCORE, descending=True).with_columns(
        pl.col(POS).cum_sum().over(group).alias("tp"),
        pl.col(NEG).cum_sum().over(group).alias("fp"),
        pl.col(POS).sum().over(group).alias("P"),
        pl.col(NEG).sum().over(group).alias("N"),
    )


def with_gid(lf: pl.LazyFrame, group: list[str]) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """An integer id per group (asof joins cannot match null keys): (frame with id, id table).

    The ids follow the sorted keys, so every evaluation of the plan gives the same ones
    (the id table is read by several joins, and an engine may compute it more than once).
    """
    ids = lf.select(group).unique().sort(group, nulls_last=True).with_row_index(GID)
    return lf.join(ids, on=group, how="left", nulls_equal=True), ids
