"""Narrow steps of the measures on scores: per-score tables -> curves, areas, calibration, entries.

Everything here runs in Polars on the small tables of the wide step
(:mod:`aggframe.wide.ranking`): ``counts`` frames with columns ``group..., score, pos,
neg`` (and, when binned, the sums of :data:`~aggframe.wide.ranking.SUM_COLUMNS`),
where ``group`` is ``keys`` (the pooled, micro grain) or ``keys + [class]``, one
row per (group, score). Only :func:`ranking_entries` also takes the rows
themselves (repeated scores allowed: the fast exact path for Polars sources). A
null key is a group: windows and group-bys treat nulls as equal and every join on
keys passes ``nulls_equal=True``; asof joins, which cannot, run on an integer
group id made here.

Which function gives what
-------------------------
==========================  ===============================================================
:func:`ranking_entries`     AUROC and AP, per class and pooled (micro), in one sort
:func:`class_entries`       every measure per (keys, class): the macro/weighted entries
:func:`pooled_entries`      every measure per keys from the pooled table: the micro entry
:func:`example_entries`     the exemplar entries (from :func:`aggframe.wide.ranking.example_stats`)
:func:`multiclass_entries`  scikit-learn's multiclass log loss and Brier per keys
==========================  ===============================================================

(entries -> values under operators and conventions: :func:`aggframe.operators.scores.reduce_entries`,
through the package's one convention resolution), and the frames: :func:`roc_curve`,
:func:`pr_curve`, :func:`macro_roc_curve`, :func:`macro_pr_curve`,
:func:`calibration`, :func:`best_threshold`, :func:`threshold_cells`,
:func:`auroc_bin_bound`, :func:`pooled_counts`.

The cells at every threshold
----------------------------
Sorted by score descending within each group, cumulative sums give, at the
threshold ``t`` of each distinct score (an entry is predicted positive when
``score >= t``, scikit-learn's rule)::

    tp(t) = sum(pos, score >= t)   fp(t) = sum(neg, score >= t)   fn = P - tp   tn = N - fp

plus the point ``t = +inf`` (nothing predicted). Everything below reads this
table (:func:`threshold_cells`).

Semantics (scikit-learn 1.9, checked by tests/test_curves.py)
-------------------------------------------------------------
``auroc``
    The trapezoid over the distinct thresholds (``roc_auc_score``), computed
    exactly in integers as ``sum_t neg(t) (tp(t) + tp_before(t)) / (2 P N)``
    (ties count 1/2: the Mann-Whitney statistic). Undefined (null) when the
    group has no positive or no negative entry.
``average_precision``
    The step sum ``sum_t (R_t - R_{t-1}) P_t = sum_t pos(t) / P * tp(t) / (tp(t) +
    fp(t))``, not interpolated (``average_precision_score``). Undefined when the
    group has no positive entry (scikit-learn returns 0 there, with a warning:
    convention ``zero`` reproduces it); defined, 1, when it has no negative.
``log_loss``, ``brier`` (per group: a class, or the pooled entries)
    Every (example, class) entry is a binary probability: the mean over the
    group's entries of ``-(y log p + (1 - y) log(1 - p))`` with ``p`` and ``1 - p``
    clipped to ``[eps, 1 - eps]`` (``eps`` float64's machine epsilon, as
    ``log_loss``), and of ``(y - p)^2`` (``brier_score_loss`` of the column).
    micro = the mean over all entries, macro = the mean over classes of the
    per-class value, weighted by positives. Always defined.
``log_loss``, ``brier`` under the ``multiclass`` operator (:func:`multiclass_entries`)
    scikit-learn's whole-distribution numbers: the mean over examples of
    ``-sum_k y_k log clip(p_k)`` (``log_loss(y, P)``; the probabilities are not
    renormalised, as in 1.9) and of ``sum_k (y_k - p_k)^2``, halved when there are
    fewer than three classes (``brier_score_loss(y, P)``, ``scale_by_half="auto"``).
``ece``
    ``sum_b (n_b / n) |freq_b - mean_score_b|`` over the non-empty bins of the
    reliability table (:func:`calibration`), per class or pooled.
``weight``
    The entry weight of the ``weighted`` operator: the group's positives (the
    support, as scikit-learn's ``average="weighted"``).

Curves
------
:func:`roc_curve` equals ``roc_curve(drop_intermediate=False)``: the first point
has threshold ``+inf`` and ``(fpr, tpr) = (0, 0)``; a group without negatives
(positives) has null fpr (tpr) where scikit-learn has NaN. :func:`pr_curve`
equals ``precision_recall_curve`` in descending threshold order, with
scikit-learn's extra last point (precision 1, recall 0, no threshold there) as the
row of threshold ``+inf``; a group without positives has null recall (where
scikit-learn sets 1 and warns). :func:`macro_roc_curve` averages the classes'
ROC curves as scikit-learn's ROC example does: every class's tpr is linearly
interpolated along its curve (``np.interp``: at the fpr of a vertical segment, its
upper point) at the union
of all classes' fpr values (or at ``grid`` evenly spaced points), then the mean is
taken over the classes whose curve is defined. The union gives the exact vertices
of the averaged piecewise-linear curve. :func:`macro_pr_curve` averages the
classes' precision-recall curves as average precision reads them: a class's
precision at recall ``r`` is its precision at the highest threshold whose recall
reaches ``r`` (the step function AP sums), taken at the union of all classes'
recall values and averaged over the classes with positives, so that the step
area under the macro curve is the macro AP.

Calibration
-----------
:func:`calibration` equals ``sklearn.calibration.calibration_curve`` on the
non-empty bins: edges ``np.linspace(0, 1, bins + 1)`` (``uniform``) or
``np.percentile(scores, np.linspace(0, 1, bins + 1) * 100)`` (``quantile``,
reproduced to the last bit from the order statistics of the table, with NumPy's
linear interpolation), a score goes to bin ``#{inner edges < score}``
(``np.searchsorted(edges[1:-1], score)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import polars as pl

from aggframe.wide.ranking import EPS, EXAMPLE_MEASURES, NEG, POS, SCORE, SUM_COLUMNS

__all__ = [
    "CLASS_MEASURES",
    "MULTICLASS_MEASURES",
    "auroc_bin_bound",
    "best_threshold",
    "calibration",
    "class_entries",
    "example_entries",
    "group_values",
    "macro_pr_curve",
    "macro_roc_curve",
    "multiclass_entries",
    "pooled_counts",
    "pooled_entries",
    "pr_curve",
    "ranking_entries",
    "roc_curve",
    "threshold_cells",
]

ScoreMeasure = Literal["auroc", "average_precision", "log_loss", "brier", "ece"]
Strategy = Literal["uniform", "quantile"]

#: Measures with a value per class and pooled (micro, macro, weighted).
CLASS_MEASURES: tuple[ScoreMeasure, ...] = ("auroc", "average_precision", "log_loss", "brier", "ece")
#: Measures of the ``multiclass`` operator (whole-distribution, per example).
MULTICLASS_MEASURES = ("log_loss", "brier")

_ALL = "__aggframe_curves_all__"
_GID = "__aggframe_gid__"
_INF = float("inf")


def _grouped(lf: pl.LazyFrame, group: Sequence[str]) -> tuple[pl.LazyFrame, list[str]]:
    """A constant stand-in key when there are no group columns (group-bys need one)."""
    if group:
        return lf, list(group)
    return lf.with_columns(pl.lit(0, dtype=pl.Int8).alias(_ALL)), [_ALL]


def _visible(cols: Sequence[str]) -> list[str]:
    return [c for c in cols if c != _ALL]


def _with_sums(counts: pl.LazyFrame) -> pl.LazyFrame:
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


def _cumulated(counts: pl.LazyFrame, group: list[str]) -> pl.LazyFrame:
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


def threshold_cells(counts: pl.LazyFrame, group: Sequence[str], *, infinite: bool = True) -> pl.LazyFrame:
    """The confusion cells at every distinct threshold, per group.

    Parameters
    ----------
    counts
        ``group..., score, pos, neg`` (:func:`aggframe.wide.ranking.score_counts`).
    group
        The group columns: keys, or keys and class.
    infinite
        Add the threshold ``+inf`` row (nothing predicted) of every group.

    Returns
    -------
    Lazy frame ``group..., threshold, tp, fp, fn, tn`` (Int64), sorted by group and
    threshold descending; a positive prediction is ``score >= threshold``.

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.LazyFrame({"score": [0.2, 0.7, 0.4], "pos": [1, 1, 0], "neg": [1, 0, 1]})
    >>> threshold_cells(counts, []).collect()
    shape: (4, 5)
    ┌───────────┬─────┬─────┬─────┬─────┐
    │ threshold ┆ tp  ┆ fp  ┆ fn  ┆ tn  │
    │ ---       ┆ --- ┆ --- ┆ --- ┆ --- │
    │ f64       ┆ i64 ┆ i64 ┆ i64 ┆ i64 │
    ╞═══════════╪═════╪═════╪═════╪═════╡
    │ inf       ┆ 0   ┆ 0   ┆ 2   ┆ 2   │
    │ 0.7       ┆ 1   ┆ 0   ┆ 1   ┆ 2   │
    │ 0.4       ┆ 1   ┆ 1   ┆ 1   ┆ 1   │
    │ 0.2       ┆ 2   ┆ 2   ┆ 0   ┆ 0   │
    └───────────┴─────┴─────┴─────┴─────┘
    """
    lf, g = _grouped(counts.select(*group, SCORE, POS, NEG), group)
    cum = _cumulated(lf, g).select(
        *g,
        pl.col(SCORE).cast(pl.Float64).alias("threshold"),
        pl.col("tp").cast(pl.Int64),
        pl.col("fp").cast(pl.Int64),
        (pl.col("P") - pl.col("tp")).cast(pl.Int64).alias("fn"),
        (pl.col("N") - pl.col("fp")).cast(pl.Int64).alias("tn"),
    )
    if infinite:
        top = lf.group_by(g).agg(
            pl.lit(_INF, dtype=pl.Float64).alias("threshold"),
            pl.lit(0, dtype=pl.Int64).alias("tp"),
            pl.lit(0, dtype=pl.Int64).alias("fp"),
            pl.col(POS).sum().cast(pl.Int64).alias("fn"),
            pl.col(NEG).sum().cast(pl.Int64).alias("tn"),
        )
        cum = pl.concat([top, cum], how="vertical_relaxed")
    out = cum.sort([*g, "threshold"], descending=[*([False] * len(g)), True], nulls_last=True)
    return out.select(*_visible(g), "threshold", "tp", "fp", "fn", "tn")


def roc_curve(counts: pl.LazyFrame, group: Sequence[str]) -> pl.LazyFrame:
    """ROC points per group, as ``roc_curve(drop_intermediate=False)``.

    Returns ``group..., threshold, fpr, tpr`` in descending threshold order, the
    first row at threshold ``+inf`` (0, 0). fpr (tpr) is null in a group without
    negatives (positives).

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.LazyFrame({"score": [0.2, 0.7, 0.4], "pos": [1, 1, 0], "neg": [1, 0, 1]})
    >>> roc_curve(counts, []).collect()["fpr"].to_list()
    [0.0, 0.0, 0.5, 1.0]
    """
    cells = threshold_cells(counts, group)
    P, N = pl.col("tp") + pl.col("fn"), pl.col("fp") + pl.col("tn")
    return cells.select(
        *group,
        "threshold",
        pl.when(N > 0).then(pl.col("fp") / N).alias("fpr"),
        pl.when(P > 0).then(pl.col("tp") / P).alias("tpr"),
    )


def pr_curve(counts: pl.LazyFrame, group: Sequence[str]) -> pl.LazyFrame:
    """Precision-recall points per group, as ``precision_recall_curve`` (descending thresholds).

    Returns ``group..., threshold, precision, recall``; the row of threshold
    ``+inf`` is scikit-learn's last point (precision 1, recall 0). Recall is null
    in a group without positives.

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.LazyFrame({"score": [0.2, 0.7, 0.4], "pos": [1, 1, 0], "neg": [1, 0, 1]})
    >>> pr_curve(counts, []).collect()["precision"].to_list()
    [1.0, 1.0, 0.5, 0.5]
    """
    cells = threshold_cells(counts, group)
    P, predicted = pl.col("tp") + pl.col("fn"), pl.col("tp") + pl.col("fp")
    return cells.select(
        *group,
        "threshold",
        pl.when(predicted > 0).then(pl.col("tp") / predicted).otherwise(1.0).alias("precision"),
        pl.when(P > 0).then(pl.col("tp") / P).alias("recall"),
    )


def _with_gid(lf: pl.LazyFrame, group: list[str]) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """An integer id per group (asof joins cannot match null keys): (frame with id, id table).

    The ids follow the sorted keys, so every evaluation of the plan gives the same ones
    (the id table is read by several joins, and an engine may compute it more than once).
    """
    ids = lf.select(group).unique().sort(group, nulls_last=True).with_row_index(_GID)
    return lf.join(ids, on=group, how="left", nulls_equal=True), ids


def macro_roc_curve(
    counts: pl.LazyFrame, keys: Sequence[str], class_: str, *, grid: int | None = None
) -> pl.LazyFrame:
    """The macro-averaged ROC curve per keys (the per-class tpr interpolated, then averaged).

    Parameters
    ----------
    counts
        The per-class table ``keys..., class, score, pos, neg``.
    keys, class_
        Key columns and the class column.
    grid
        ``None``: the union of every class's fpr values (the exact vertices of the
        averaged curve); an integer: that many evenly spaced fpr values in [0, 1].

    Returns
    -------
    Lazy frame ``keys..., fpr, tpr, n_classes`` (the classes averaged: those with
    both positives and negatives), sorted by keys and fpr.

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.LazyFrame(
    ...     {"c": [0, 0, 1, 1], "score": [0.9, 0.1, 0.8, 0.3], "pos": [1, 0, 0, 1], "neg": [0, 1, 1, 0]}
    ... )
    >>> macro_roc_curve(counts, [], "c").collect()["tpr"].to_list()
    [0.5, 1.0]
    """
    k = list(keys)
    roc = roc_curve(counts, [*k, class_]).drop_nulls(["fpr", "tpr"])
    # a vertical segment at fpr x: np.interp reads x itself, and what lies left of it, at its
    # upper point, and what lies right of x at its lower point (the polyline itself)
    points = roc.group_by([*k, class_, "fpr"]).agg(
        pl.col("tpr").max().alias("_top"), pl.col("tpr").min().alias("_bottom")
    )
    lf, g = _grouped(points, k)
    lf, ids = _with_gid(lf, [*g, class_])
    if grid is None:
        xs = lf.select(*g, "fpr").unique()
    else:
        xs = lf.select(g).unique().join(pl.LazyFrame({"fpr": np.linspace(0.0, 1.0, grid)}), how="cross")
    targets = (
        xs.join(ids, on=g, how="inner", nulls_equal=True)
        .select(_GID, *g, pl.col("fpr").alias("_x"))
        .sort("_x")
    )
    right = lf.select(_GID, "fpr", "_top", "_bottom").sort("fpr")
    below = targets.join_asof(
        right.select(_GID, pl.col("fpr").alias("_x0"), pl.col("_top").alias("_y0")),
        left_on="_x",
        right_on="_x0",
        by=_GID,
        strategy="backward",
        check_sortedness=False,
    )
    both = below.sort("_x").join_asof(
        right.select(_GID, pl.col("fpr").alias("_x1"), pl.col("_bottom").alias("_y1")),
        left_on="_x",
        right_on="_x1",
        by=_GID,
        strategy="forward",
        allow_exact_matches=False,
        check_sortedness=False,
    )
    x, x0, x1, y0, y1 = (pl.col(c) for c in ("_x", "_x0", "_x1", "_y0", "_y1"))
    # every class curve starts at (0, 0) and ends at (1, 1), so `below` always exists
    tpr = pl.when(x1.is_null()).then(y0).otherwise(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    out = (
        both.group_by([*g, "_x"])
        .agg(tpr.mean().alias("tpr"), pl.len().cast(pl.Int64).alias("n_classes"))
        .rename({"_x": "fpr"})
        .sort([*g, "fpr"], nulls_last=True)
    )
    return out.select(*k, "fpr", "tpr", "n_classes")


def macro_pr_curve(counts: pl.LazyFrame, keys: Sequence[str], class_: str) -> pl.LazyFrame:
    """The macro-averaged precision-recall curve per keys (the per-class step functions, averaged).

    Every class's precision as a function of recall is the step function that
    average precision integrates: at recall ``r``, the precision of the highest
    threshold whose recall is at least ``r`` (the largest precision among the
    points of the smallest recall ``>= r``). It is read at the union of all
    classes' recall values and averaged over the classes with positives, so
    ``sum_i (r_i - r_{i-1}) precision(r_i)`` over the curve is the macro AP.

    Returns ``keys..., recall, precision, n_classes``, sorted by keys and recall.

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.LazyFrame(
    ...     {"c": [0, 0, 1, 1], "score": [0.9, 0.1, 0.8, 0.3], "pos": [1, 0, 0, 1], "neg": [0, 1, 1, 0]}
    ... )
    >>> macro_pr_curve(counts, [], "c").collect()["precision"].to_list()
    [1.0, 0.75]
    """
    k = list(keys)
    curve = pr_curve(counts, [*k, class_]).drop_nulls("recall")
    points = curve.group_by([*k, class_, "recall"]).agg(pl.col("precision").max())
    lf, g = _grouped(points, k)
    lf, ids = _with_gid(lf, [*g, class_])
    targets = (
        lf.select(*g, "recall")
        .unique()
        .join(ids, on=g, how="inner", nulls_equal=True)
        .select(_GID, *g, pl.col("recall").alias("_r"))
        .sort("_r")
    )
    right = lf.select(_GID, "recall", "precision").sort("recall")
    at = targets.join_asof(
        right, left_on="_r", right_on="recall", by=_GID, strategy="forward", check_sortedness=False
    )
    out = (
        at.group_by([*g, "_r"])
        .agg(pl.col("precision").mean(), pl.len().cast(pl.Int64).alias("n_classes"))
        .rename({"_r": "recall"})
        .sort([*g, "recall"], nulls_last=True)
    )
    return out.select(*k, "recall", "precision", "n_classes")


def _areas(agg: pl.LazyFrame, g: list[str]) -> pl.LazyFrame:
    """AUROC and AP from the sums ``P``, ``N``, ``_auc2`` (twice the area, times P N) and ``_ap``."""
    Pf, Nf = pl.col("P").cast(pl.Float64), pl.col("N").cast(pl.Float64)
    return agg.select(
        *g,
        "P",
        pl.when((pl.col("P") > 0) & (pl.col("N") > 0))
        .then(pl.col("_auc2").cast(pl.Float64) / (2.0 * Pf * Nf))
        .alias("auroc"),
        pl.when(pl.col("P") > 0).then(pl.col("_ap") / Pf).alias("average_precision"),
    )


def _area_sums(tp: pl.Expr, fp: pl.Expr) -> list[pl.Expr]:
    """Per-group sums of the trapezoid (integers) and of the AP steps, at cumulative cells tp, fp."""
    pos, neg = pl.col(POS).cast(pl.Int64), pl.col(NEG).cast(pl.Int64)
    return [
        pos.sum().alias("P"),
        neg.sum().alias("N"),
        # trapezoid: neg(t) * (tp(t) + tp(t) - pos(t)) / 2, summed in integers
        (neg * (2 * tp - pos)).sum().alias("_auc2"),
        (pos.cast(pl.Float64) * tp / (tp + fp)).sum().alias("_ap"),
    ]


def _ranking(counts: pl.LazyFrame, g: list[str]) -> pl.LazyFrame:
    """AUROC and AP per group (null where undefined), with P; the rows' scores are distinct per group."""
    cum = _cumulated(counts.select(*g, SCORE, POS, NEG), g)
    return _areas(cum.group_by(g).agg(*_area_sums(pl.col("tp"), pl.col("fp"))), g)


_PACK = 2**32


def _packing(*, unit_rows: bool) -> tuple[pl.DataType, int] | None:
    """How ``pos`` and ``neg`` share one cumulative sum, or None (two sums).

    Two cumulative sums over a partition cost more than one (the window's gather
    and scatter dominate), so for a table of rows both counts ride in one
    integer, ``pos * 2^32 + neg``: exact while a group's running counts stay
    below 2^32, which holds whenever the frame has fewer than 2^32 rows, the
    limit of Polars' default 32-bit index. A table of counts (any ``pos``,
    ``neg``) takes two sums (128-bit packing measured slower than two 64-bit sums).
    """
    if unit_rows and pl.get_index_type() == pl.UInt32:
        return pl.Int64(), _PACK
    return None


def _cumulative(
    part: list[str], packing: tuple[pl.DataType, int] | None, tag: str
) -> tuple[list[pl.Expr], list[pl.Expr]]:
    """Windows for the counts ``T{tag}``, ``F{tag}`` at or above each row's score over ``part``, and their unpacking.

    The rows are sorted by score ascending: the counts are reverse cumulative sums.
    """
    pos, neg = pl.col(POS).cast(pl.Int64), pl.col(NEG).cast(pl.Int64)
    if packing is None:
        return [
            pos.cum_sum(reverse=True).over(part).alias(f"T{tag}"),
            neg.cum_sum(reverse=True).over(part).alias(f"F{tag}"),
        ], []
    dtype, base = packing
    both = (pos.cast(dtype) * base + neg.cast(dtype)).cum_sum(reverse=True).over(part).alias(f"_c{tag}")
    c = pl.col(f"_c{tag}")
    return [both], [(c // base).cast(pl.Int64).alias(f"T{tag}"), (c % base).cast(pl.Int64).alias(f"F{tag}")]


def _run_sums(tag: str) -> list[pl.Expr]:
    """Per tie run (rows of one partition and score), the sums its correction needs (decomposable)."""
    pos, neg = pl.col(POS).cast(pl.Int64), pl.col(NEG).cast(pl.Int64)
    T, F = pl.col(f"T{tag}"), pl.col(f"F{tag}")
    return [
        (neg * (T - pos)).sum().alias(f"_sn{tag}"),
        (T - pos).min().alias(f"_t0{tag}"),
        T.max().alias(f"_Tl{tag}"),
        F.max().alias(f"_Fl{tag}"),
        (pos.cast(pl.Float64) * T / (T + F)).sum().alias(f"_apr{tag}"),
    ]


def _run_sums_merged(tag: str) -> list[pl.Expr]:
    """:func:`_run_sums` of a coarser run from the sums of its pieces."""
    return [
        pl.col(f"_sn{tag}").sum(),
        pl.col(f"_t0{tag}").min(),
        pl.col(f"_Tl{tag}").max(),
        pl.col(f"_Fl{tag}").max(),
        pl.col(f"_apr{tag}").sum(),
    ]


def _corrections(runs: pl.LazyFrame, part: list[str], tag: str) -> pl.LazyFrame:
    """Per partition: the exact contribution of its tie runs minus their row-by-row one.

    Row by row, with the inclusive cumulative counts ``T``, ``F`` of the partition,
    a row contributes ``neg (2 T - pos)`` to twice the area times P N and ``pos T
    / (T + F)`` to the AP sum. A run of rows sharing a score must instead count
    every positive-negative pair of the run 1/2 (``nr (2 t0 + pr)``, ``t0`` the
    count before the run) and read the precision at its end (``pr Tl / (Tl +
    Fl)``). A single-row run's correction is 0.
    """
    nr, pr, t0 = pl.col("_nr"), pl.col("_pr"), pl.col(f"_t0{tag}")
    Tl, Fl = pl.col(f"_Tl{tag}"), pl.col(f"_Fl{tag}")
    return runs.group_by(part).agg(
        (2 * nr * t0 + nr * pr - 2 * pl.col(f"_sn{tag}") - pl.col("_pn")).sum().alias("_c_auc2"),
        (pr.cast(pl.Float64) * Tl / (Tl + Fl) - pl.col(f"_apr{tag}")).sum().alias("_c_ap"),
    )


def _corrected(sums: pl.LazyFrame, corrections: pl.LazyFrame, part: list[str]) -> pl.LazyFrame:
    joined = sums.join(corrections, on=part, how="left", nulls_equal=True)
    return _areas(
        joined.with_columns(
            pl.col("_auc2") + pl.col("_c_auc2").fill_null(0), pl.col("_ap") + pl.col("_c_ap").fill_null(0.0)
        ),
        part,
    )


def ranking_entries(
    table: pl.LazyFrame, keys: Sequence[str], class_: str, *, unit_rows: bool = False
) -> dict[str, pl.LazyFrame]:
    """AUROC and AP per (keys, class) and pooled per keys (micro), in one sort.

    Parameters
    ----------
    table
        ``keys..., class, score, pos, neg``: the per-class counts
        (:func:`aggframe.wide.ranking.score_counts`) or the rows themselves with
        ``pos = y``, ``neg = 1 - y`` (:func:`aggframe.wide.ranking.score_rows`);
        a (keys, class, score) may occur in several rows.
    keys, class_
        Key columns and the class column.
    unit_rows
        ``table`` holds rows (``pos + neg = 1``): the two cumulative counts then
        share one 64-bit sum (see :func:`_packing`).

    Returns
    -------
    ``{"classes": keys..., class, measure, value, weight; "pooled": keys..., measure, value}``
    with the measures ``auroc`` and ``average_precision``, as :func:`class_entries`
    and :func:`pooled_entries` give them.

    Notes
    -----
    One sort by score serves both grains: cumulative counts over (keys, class)
    and over keys (a window keeps the sorted order within each partition). Ties
    are what cost care: a tie run (one score, several rows of a partition) must
    count as one threshold. Rows whose score equals a neighbour's in the sorted
    table are flagged, and only they are regrouped, by (partition, score), to
    correct their contribution (:func:`_corrections`); nothing else is regrouped
    by score. On continuous scores this is a handful of rows; on heavily tied
    scores the per-class counts table is small anyway. With ``unit_rows`` the
    tied rows are first aggregated by (keys, class, score) and merged back into
    the sorted untied rows (``merge_sorted``), so that the windows run on the
    small table when scores are heavily tied and on the rows when they are not.

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.LazyFrame(
    ...     {"c": [0, 0, 1, 1], "score": [0.5, 0.1, 0.5, 0.3], "pos": [1, 0, 0, 1], "neg": [0, 1, 1, 0]}
    ... )
    >>> ranking_entries(counts, [], "c")["pooled"].collect()["value"].to_list()
    [0.625, 0.5833333333333333]
    """
    lf, k = _grouped(table.select(*keys, class_, SCORE, POS, NEG), keys)
    kc = [*k, class_]
    score = pl.col(SCORE)
    tied = (score.eq_missing(score.shift(1)) | score.eq_missing(score.shift(-1))).alias("_tied")
    packing = _packing(unit_rows=unit_rows)
    windows_c, unpack_c = _cumulative(kc, packing, "c")
    windows_k, unpack_k = _cumulative(k, packing, "k")
    # the sorted rows and their windows are read by several branches: computed once (cache)
    ordered = lf.sort(SCORE).with_columns(tied).cache()
    if unit_rows:
        # rows: aggregate only the tied ones (all of them on heavily tied scores, a handful on
        # continuous ones) and merge them back into the sorted untied rows, so that every
        # (keys, class, score) is one row without a group-by over every row; the counts of
        # fewer than 2^32 rows fit in UInt32
        count = pl.col(POS, NEG).cast(pl.UInt32)
        untied = ordered.filter(~pl.col("_tied")).drop("_tied").with_columns(count)
        counted = (
            ordered.filter("_tied").group_by([*kc, SCORE]).agg(pl.col(POS, NEG).sum()).with_columns(count)
        )
        ordered = untied.merge_sorted(counted.select(untied.collect_schema().names()).sort(SCORE), key=SCORE)
        ordered = ordered.with_columns(tied)
    rows = ordered.with_columns(*windows_c, *windows_k)
    if unpack_c:
        rows = rows.with_columns(*unpack_c, *unpack_k)
    rows = rows.cache()
    per_class = rows.group_by(kc).agg(*_area_sums(pl.col("Tc"), pl.col("Fc")))
    pooled = rows.group_by(k).agg(*_area_sums(pl.col("Tk"), pl.col("Fk")))
    # tie runs: only rows whose score equals a neighbour's can be in one; one group-by by
    # (keys, class, score) serves both grains (a pooled run is a union of class runs)
    pos, neg = pl.col(POS).cast(pl.Int64), pl.col(NEG).cast(pl.Int64)
    shared = [pos.sum().alias("_pr"), neg.sum().alias("_nr"), (pos * neg).sum().alias("_pn")]
    class_runs = rows.filter("_tied").group_by([*kc, SCORE]).agg(*shared, *_run_sums("c"), *_run_sums("k"))
    pooled_runs = class_runs.group_by([*k, SCORE]).agg(
        *[pl.col(c).sum() for c in ("_pr", "_nr", "_pn")], *_run_sums_merged("k")
    )
    names = ["auroc", "average_precision"]

    def tidy(frame: pl.LazyFrame, g: list[str]) -> pl.LazyFrame:
        return (
            frame.with_columns(pl.col("P").cast(pl.Float64).alias("weight"))
            .unpivot(on=names, index=[*g, "weight"], variable_name="measure", value_name="value")
            .sort([*g, "measure"], nulls_last=True)
            .select(*_visible(g), "measure", pl.col("value").cast(pl.Float64), "weight")
        )

    return {
        "classes": tidy(_corrected(per_class, _corrections(class_runs, kc, "c"), kc), kc),
        "pooled": tidy(_corrected(pooled, _corrections(pooled_runs, k, "k"), k), k).drop("weight"),
    }


def pooled_counts(counts: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """The pooled (micro) table from the per-class one, in Polars: ``keys..., score, pos, neg[, sums]``.

    The alternative to a second wide read (:func:`aggframe.wide.ranking.score_counts`
    with ``class_=None``); the sums of a binned table are summed too.
    """
    names = counts.collect_schema().names()
    sums = [c for c in SUM_COLUMNS if c in names]
    lf, k = _grouped(counts, keys)
    out = lf.group_by([*k, SCORE]).agg(pl.col(POS, NEG, *sums).sum()).sort([*k, SCORE], nulls_last=True)
    return out.select(*_visible(k), SCORE, POS, NEG, *sums)


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
    lf, ids = _with_gid(t, g)
    ordered = lf.sort("_m").cache()  # read by the edges and by the assignment
    points = _quantile_edges(ordered, bins)
    inner = points.filter((pl.col("i") >= 1) & (pl.col("i") <= bins - 1)).sort("edge", "i")
    assigned = (
        ordered.join_asof(
            inner,
            left_on="_m",
            right_on="edge",
            by=_GID,
            strategy="backward",
            allow_exact_matches=False,
            check_sortedness=False,
        )
        .with_columns(pl.col("i").fill_null(0).cast(pl.Int64).alias("bin"))
        .drop("i", "edge", _GID)
    )
    lower = points.select(_GID, pl.col("i").alias("bin"), pl.col("edge").alias("lower"))
    upper = points.select(_GID, (pl.col("i") - 1).alias("bin"), pl.col("edge").alias("upper"))
    edges = (
        lower.join(upper, on=[_GID, "bin"], how="inner", nulls_equal=True)
        .join(ids, on=_GID, nulls_equal=True)
        .drop(_GID)
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
    ranked = ordered.select(_GID, "_m", (n.cum_sum().over(_GID) - n).alias("_r"), n.alias("_n"))
    sizes = ranked.group_by(_GID).agg(pl.col("_n").sum().alias("_size"))
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
    stats = ranked.select(_GID, "_r", "_m")  # sorted by _m, so by _r within each group

    def at(rank: str, name: str) -> pl.LazyFrame:
        return (
            targets.sort(rank)
            .join_asof(
                stats, left_on=rank, right_on="_r", by=_GID, strategy="backward", check_sortedness=False
            )
            .select(_GID, "i", "_gamma", pl.col("_m").alias(name))
        )

    lerp = at("_lo", "_a").join(at("_hi", "_b").drop("_gamma"), on=[_GID, "i"], nulls_equal=True)
    a, b, gamma = pl.col("_a"), pl.col("_b"), pl.col("_gamma")
    edge = pl.when(gamma >= 0.5).then(b - (b - a) * (1.0 - gamma)).otherwise(a + (b - a) * gamma)
    return lerp.select(_GID, "i", edge.alias("edge"))


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
    lf, g = _grouped(_with_sums(counts), group)
    table = _calibration_table(lf, g, int(bins), strategy)
    return table.select(*_visible(g), "bin", "lower", "upper", "mean_score", "frequency", "count")


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


def _ece(lf: pl.LazyFrame, g: list[str], bins: int, strategy: Strategy) -> pl.LazyFrame:
    table = _calibration_table(lf, g, bins, strategy)
    gap = (pl.col("frequency") - pl.col("mean_score")).abs() * pl.col("count")
    return table.group_by(g).agg((gap.sum() / pl.col("count").sum()).alias("ece"))


def group_values(
    counts: pl.LazyFrame,
    group: Sequence[str],
    measures: Sequence[str] = CLASS_MEASURES,
    *,
    ece_bins: int = 15,
    ece_strategy: Strategy = "uniform",
) -> pl.LazyFrame:
    """The value of every measure on scores per group, tidy.

    Returns ``group..., measure, value, weight``: value null where undefined,
    weight the group's positives. Pieces are stacked (no join on keys).

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.LazyFrame({"score": [0.2, 0.7, 0.4], "pos": [1, 1, 0], "neg": [1, 0, 1]})
    >>> group_values(counts, [], ["auroc", "average_precision"]).collect()
    shape: (2, 3)
    ┌───────────────────┬───────┬────────┐
    │ measure           ┆ value ┆ weight │
    │ ---               ┆ ---   ┆ ---    │
    │ str               ┆ f64   ┆ f64    │
    ╞═══════════════════╪═══════╪════════╡
    │ auroc             ┆ 0.625 ┆ 2.0    │
    │ average_precision ┆ 0.75  ┆ 2.0    │
    └───────────────────┴───────┴────────┘
    """
    unknown = [m for m in measures if m not in CLASS_MEASURES]
    if unknown:
        msg = f"unknown measures on scores {unknown!r}; valid: {', '.join(CLASS_MEASURES)}"
        raise ValueError(msg)
    lf, g = _grouped(_with_sums(counts), group)
    pieces: list[pl.LazyFrame] = []
    weight = pl.col("P").cast(pl.Float64).alias("weight")

    def tidy(frame: pl.LazyFrame, names: Sequence[str]) -> pl.LazyFrame:
        return frame.unpivot(
            on=list(names), index=[*g, "weight"], variable_name="measure", value_name="value"
        )

    ranking = [m for m in measures if m in ("auroc", "average_precision")]
    if ranking:
        pieces.append(tidy(_ranking(lf, g).select(*g, weight, *ranking), ranking))
    losses = [m for m in measures if m in ("log_loss", "brier")]
    if losses:
        n = (pl.col(POS) + pl.col(NEG)).sum().cast(pl.Float64)
        sums = lf.group_by(g).agg(
            pl.col(POS).sum().alias("P"),
            ((pl.col("lp_sum") + pl.col("ln_sum")).sum() / n).alias("log_loss"),
            ((pl.col("bp_sum") + pl.col("bn_sum")).sum() / n).alias("brier"),
        )
        pieces.append(tidy(sums.select(*g, weight, *losses), losses))
    if "ece" in measures:
        ece = _ece(lf, g, ece_bins, ece_strategy).join(
            lf.group_by(g).agg(pl.col(POS).sum().alias("P")), on=g, how="left", nulls_equal=True
        )
        pieces.append(tidy(ece.select(*g, weight, "ece"), ["ece"]))
    order = {m: i for i, m in enumerate(measures)}
    out = pl.concat(pieces, how="vertical_relaxed").sort(
        [*g, pl.col("measure").replace_strict(order, return_dtype=pl.Int64)], nulls_last=True
    )
    return out.select(*_visible(g), "measure", pl.col("value").cast(pl.Float64), "weight")


def class_entries(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    class_: str,
    measures: Sequence[str] = CLASS_MEASURES,
    *,
    ece_bins: int = 15,
    ece_strategy: Strategy = "uniform",
) -> pl.LazyFrame:
    """Per-class entries of the macro and weighted operators: ``keys..., class, measure, value, weight``."""
    return group_values(counts, [*keys, class_], measures, ece_bins=ece_bins, ece_strategy=ece_strategy)


def pooled_entries(
    pooled: pl.LazyFrame,
    keys: Sequence[str],
    measures: Sequence[str] = CLASS_MEASURES,
    *,
    ece_bins: int = 15,
    ece_strategy: Strategy = "uniform",
) -> pl.LazyFrame:
    """The micro entry per keys, from the pooled table: ``keys..., measure, value``."""
    out = group_values(pooled, keys, measures, ece_bins=ece_bins, ece_strategy=ece_strategy)
    return out.drop("weight")


def example_entries(
    stats: pl.LazyFrame, keys: Sequence[str], measures: Sequence[str] = EXAMPLE_MEASURES
) -> pl.LazyFrame:
    """Exemplar entries per keys from :func:`aggframe.wide.ranking.example_stats`, tidy.

    Two rows per (keys, measure) stand for all the examples: the mean of the
    defined values with multiplicity ``n`` = the defined examples, and a null
    value with ``n`` = the undefined ones (rows with ``n = 0`` are left out). A
    multiplicity-weighted reduction of these rows gives every convention exactly.

    Returns ``keys..., measure, value, n``.
    """
    unknown = [m for m in measures if m not in EXAMPLE_MEASURES]
    if unknown:
        msg = f"no exemplar value for {unknown!r}; exemplar measures: {', '.join(EXAMPLE_MEASURES)}"
        raise ValueError(msg)
    k = list(keys)
    rows = []
    for m in measures:
        n_def = pl.col(f"{m}_n")
        defined = stats.select(
            *k,
            pl.lit(m).alias("measure"),
            pl.when(n_def > 0).then(pl.col(f"{m}_sum") / n_def).cast(pl.Float64).alias("value"),
            n_def.cast(pl.Int64).alias("n"),
        )
        undefined = stats.select(
            *k,
            pl.lit(m).alias("measure"),
            pl.lit(None, dtype=pl.Float64).alias("value"),
            (pl.col("n_examples") - n_def).cast(pl.Int64).alias("n"),
        )
        rows += [defined, undefined]
    order = {m: i for i, m in enumerate(measures)}
    return (
        pl.concat(rows)
        .filter(pl.col("n") > 0)
        .sort([*k, pl.col("measure").replace_strict(order, return_dtype=pl.Int64), "value"], nulls_last=True)
    )


def multiclass_entries(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    class_: str,
    *,
    n_classes: int,
    n_examples: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """scikit-learn's multiclass ``log_loss(y, P)`` and ``brier_score_loss(y, P)`` per keys.

    Both are sums over every (example, class) entry divided by the number of
    examples, so they come from the per-class table: ``-sum y log clip(p)`` and
    ``sum (y - p)^2`` (halved when ``n_classes < 3``, scikit-learn's
    ``scale_by_half="auto"``). ``n_examples`` (``keys..., n_examples``) gives the
    examples per keys; by default it is the largest entry count of a class,
    which is the example count when every example has a row for every class.

    Returns ``keys..., measure, value``.
    """
    lf, g = _grouped(_with_sums(counts), keys)
    per_keys = lf.group_by(g).agg(
        pl.col("lp_sum").sum().alias("_ll"),
        (pl.col("bp_sum") + pl.col("bn_sum")).sum().alias("_br"),
    )
    if n_examples is None:
        sizes = lf.group_by([*g, class_]).agg((pl.col(POS) + pl.col(NEG)).sum().alias("_c"))
        n_ex = sizes.group_by(g).agg(pl.col("_c").max().cast(pl.Float64).alias("_n"))
    else:
        n_ex, _ = _grouped(n_examples.select(*keys, pl.col("n_examples").cast(pl.Float64).alias("_n")), keys)
    scale = 0.5 if n_classes < 3 else 1.0
    joined = per_keys.join(n_ex, on=g, how="left", nulls_equal=True)
    out = joined.select(
        *g,
        (pl.col("_ll") / pl.col("_n")).alias("log_loss"),
        (scale * pl.col("_br") / pl.col("_n")).alias("brier"),
    ).unpivot(on=list(MULTICLASS_MEASURES), index=g, variable_name="measure", value_name="value")
    return out.sort([*g, "measure"], nulls_last=True).select(*_visible(g), "measure", "value")


def best_threshold(counts: pl.LazyFrame, group: Sequence[str], measure: pl.Expr) -> pl.LazyFrame:
    """The threshold maximising a measure of the cells, per group.

    Parameters
    ----------
    counts
        ``group..., score, pos, neg``.
    group
        Keys (pooled table: one threshold for the flattened entries) or keys and
        class (one threshold per class).
    measure
        A Polars expression over the columns ``tp``, ``fp``, ``fn``, ``tn``
        (``Measure.expr()``); null where undefined.

    Returns
    -------
    Lazy frame ``group..., threshold, value, tp, fp, fn, tn``: the candidates are
    every distinct score and ``+inf`` (nothing predicted); a prediction is
    positive when ``score >= threshold``. Undefined values are never chosen; when
    several thresholds reach the maximum, the **largest** wins (the fewest
    positive predictions); a group where the measure is undefined everywhere gets
    null. (``from_scores(decision="threshold")`` predicts ``score > threshold``:
    any value between the next lower distinct score and this one gives the same
    decisions.)

    Examples
    --------
    >>> import polars as pl
    >>> from aggframe.measures.registry import get_measure
    >>> counts = pl.LazyFrame({"score": [0.2, 0.7, 0.4], "pos": [1, 1, 0], "neg": [1, 0, 1]})
    >>> best_threshold(counts, [], get_measure("f1").expr()).collect()
    shape: (1, 6)
    ┌───────────┬──────────┬─────┬─────┬─────┬─────┐
    │ threshold ┆ value    ┆ tp  ┆ fp  ┆ fn  ┆ tn  │
    │ ---       ┆ ---      ┆ --- ┆ --- ┆ --- ┆ --- │
    │ f64       ┆ f64      ┆ i64 ┆ i64 ┆ i64 ┆ i64 │
    ╞═══════════╪══════════╪═════╪═════╪═════╪═════╡
    │ 0.7       ┆ 0.666667 ┆ 1   ┆ 0   ┆ 1   ┆ 2   │
    └───────────┴──────────┴─────┴─────┴─────┴─────┘
    """
    cells, g = _grouped(threshold_cells(counts, group), group)
    cells = cells.with_columns(measure.cast(pl.Float64).alias("value"))
    top = pl.col("value").max()
    best = cells.group_by(g).agg(pl.col("threshold").filter(pl.col("value") == top).max(), top.alias("value"))
    out = best.join(cells.drop("value"), on=[*g, "threshold"], how="left", nulls_equal=True)
    out = out.with_columns(
        pl.when(pl.col("value").is_not_null()).then(pl.col(c)).alias(c) for c in ("tp", "fp", "fn", "tn")
    ).sort(g, nulls_last=True)
    return out.select(*_visible(g), "threshold", "value", "tp", "fp", "fn", "tn")


def auroc_bin_bound(counts: pl.LazyFrame, group: Sequence[str]) -> pl.LazyFrame:
    """The bound on ``|AUROC_binned - AUROC|`` of a binned table, per group.

    Pairs of a positive and a negative entry in the same cell are the only ones
    quantisation changes (to 1/2, from 0, 1/2 or 1), so the error is at most
    ``sum_q pos_q neg_q / (2 P N)``. Returns ``group..., bound`` (null where the
    AUROC is undefined).

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.LazyFrame({"score": [0.0, 0.5], "pos": [1, 3], "neg": [2, 2]})
    >>> auroc_bin_bound(counts, []).collect()["bound"].to_list()
    [0.25]
    """
    lf, g = _grouped(counts, group)
    pos, neg = pl.col(POS).cast(pl.Float64), pl.col(NEG).cast(pl.Float64)
    agg = lf.group_by(g).agg((pos * neg).sum().alias("_same"), pos.sum().alias("_P"), neg.sum().alias("_N"))
    den = 2.0 * pl.col("_P") * pl.col("_N")
    out = agg.select(*g, pl.when(den > 0).then(pl.col("_same") / den).alias("bound")).sort(g, nulls_last=True)
    return out.select(*_visible(g), "bound")
