"""Curves on scores: the confusion cells at every threshold, ROC and PR curves, the best threshold.

The kernels here read the per-score ``counts`` tables of the wide step
(``group..., score, pos, neg``; :mod:`aggframe.operators.score_tables` says what
they hold and the steps every kernel shares) and give frames, one row per point
of a curve: :func:`threshold_cells`, :func:`roc_curve`, :func:`pr_curve`,
:func:`macro_roc_curve`, :func:`macro_pr_curve`, :func:`best_threshold` (one class),
:func:`best_common_threshold` (one threshold for all classes, macro or weighted) and
:func:`auroc_bin_bound` (the error bound of a binned table). The neighbours:
:mod:`aggframe.operators.calibration` (the reliability table),
:mod:`aggframe.operators.score_values` (the value of every measure on scores per
group: the entries of the operators), and :mod:`aggframe.operators.scores`, which
wires all three into ``Predictions.curve``, ``calibration`` and ``best_threshold``.

The cells at every threshold
----------------------------
Sorted by score descending within each group, cumulative sums give, at the
threshold ``t`` of each distinct score (an entry is predicted positive when
``score >= t``, scikit-learn's rule)::

    tp(t) = sum(pos, score >= t)   fp(t) = sum(neg, score >= t)   fn = P - tp   tn = N - fp

plus the point ``t = +inf`` (nothing predicted). Everything below reads this
table (:func:`threshold_cells`).

Curves (scikit-learn 1.9, checked by tests/operators/test_curves.py)
--------------------------------------------------------------------
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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from aggframe._columns import CELLS
from aggframe._options import Convention
from aggframe.operators.reduce import resolve_mean
from aggframe.operators.score_tables import GID, cumulated, grouped, visible, with_gid
from aggframe.wide.ranking import NEG, POS, SCORE

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = [
    "auroc_bin_bound",
    "best_common_threshold",
    "best_threshold",
    "macro_pr_curve",
    "macro_roc_curve",
    "pr_curve",
    "roc_curve",
    "threshold_cells",
]

_INF = float("inf")


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
    lf, g = grouped(counts.select(*group, SCORE, POS, NEG), group)
    cum = cumulated(lf, g).select(
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
    return out.select(*visible(g), "threshold", "tp", "fp", "fn", "tn")


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
    lf, g = grouped(points, k)
    lf, ids = with_gid(lf, [*g, class_])
    if grid is None:
        xs = lf.select(*g, "fpr").unique()
    else:
        xs = lf.select(g).unique().join(pl.LazyFrame({"fpr": np.linspace(0.0, 1.0, grid)}), how="cross")
    targets = (
        xs.join(ids, on=g, how="inner", nulls_equal=True)
        .select(GID, *g, pl.col("fpr").alias("_x"))
        .sort("_x")
    )
    right = lf.select(GID, "fpr", "_top", "_bottom").sort("fpr")
    below = targets.join_asof(
        right.select(GID, pl.col("fpr").alias("_x0"), pl.col("_top").alias("_y0")),
        left_on="_x",
        right_on="_x0",
        by=GID,
        strategy="backward",
        check_sortedness=False,
    )
    both = below.sort("_x").join_asof(
        right.select(GID, pl.col("fpr").alias("_x1"), pl.col("_bottom").alias("_y1")),
        left_on="_x",
        right_on="_x1",
        by=GID,
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
    lf, g = grouped(points, k)
    lf, ids = with_gid(lf, [*g, class_])
    targets = (
        lf.select(*g, "recall")
        .unique()
        .join(ids, on=g, how="inner", nulls_equal=True)
        .select(GID, *g, pl.col("recall").alias("_r"))
        .sort("_r")
    )
    right = lf.select(GID, "recall", "precision").sort("recall")
    at = targets.join_asof(
        right, left_on="_r", right_on="recall", by=GID, strategy="forward", check_sortedness=False
    )
    out = (
        at.group_by([*g, "_r"])
        .agg(pl.col("precision").mean(), pl.len().cast(pl.Int64).alias("n_classes"))
        .rename({"_r": "recall"})
        .sort([*g, "recall"], nulls_last=True)
    )
    return out.select(*k, "recall", "precision", "n_classes")


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
    cells, g = grouped(threshold_cells(counts, group), group)
    cells = cells.with_columns(measure.cast(pl.Float64).alias("value"))
    top = pl.col("value").max()
    best = cells.group_by(g).agg(pl.col("threshold").filter(pl.col("value") == top).max(), top.alias("value"))
    out = best.join(cells.drop("value"), on=[*g, "threshold"], how="left", nulls_equal=True)
    out = out.with_columns(
        pl.when(pl.col("value").is_not_null()).then(pl.col(c)).alias(c) for c in ("tp", "fp", "fn", "tn")
    ).sort(g, nulls_last=True)
    return out.select(*visible(g), "threshold", "value", "tp", "fp", "fn", "tn")


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
    lf, g = grouped(counts, group)
    pos, neg = pl.col(POS).cast(pl.Float64), pl.col(NEG).cast(pl.Float64)
    agg = lf.group_by(g).agg((pos * neg).sum().alias("_same"), pos.sum().alias("_P"), neg.sum().alias("_N"))
    den = 2.0 * pl.col("_P") * pl.col("_N")
    out = agg.select(*g, pl.when(den > 0).then(pl.col("_same") / den).alias("bound")).sort(g, nulls_last=True)
    return out.select(*visible(g), "bound")


def best_common_threshold(
    counts: pl.LazyFrame, rk: list[str], c: str, expr: pl.Expr, *, operator: str, convention: Convention
) -> pl.LazyFrame:
    """One threshold for all classes maximising the (support-weighted) mean of the class values.

    The candidates are every distinct score of the group and ``+inf``; each
    class's cells at a candidate are those at its largest own threshold at or
    above it (an as-of join on an integer group id: null keys are groups).
    """
    cells = threshold_cells(counts, [*rk, c])
    group = rk or ["_all"]
    if not rk:
        cells = cells.with_columns(pl.lit(0).alias("_all"))
    ids = cells.select(*group, c).unique().sort([*group, c], nulls_last=True).with_row_index("_cid")
    cells = cells.join(ids, on=[*group, c], how="left", nulls_equal=True)
    candidates = cells.select(*group, "threshold").unique()
    per_class = candidates.join(ids, on=group, how="inner", nulls_equal=True).sort("threshold")
    at = per_class.join_asof(
        cells.select("_cid", "threshold", *CELLS).sort("threshold"),
        on="threshold",
        by="_cid",
        strategy="forward",
        check_sortedness=False,
    )
    value = expr.cast(pl.Float64)
    support = (pl.col("tp") + pl.col("fn")).cast(pl.Float64)
    scored = at.with_columns(value.alias("value"), support.alias("_s"))
    v = pl.col("value")
    w = pl.lit(1.0) if operator == "macro" else pl.col("_s")
    defined = v.is_not_null()
    sums = scored.group_by([*group, "threshold"]).agg(
        pl.len().cast(pl.Float64).alias("n_tot"),
        defined.sum().cast(pl.Float64).alias("n_def"),
        v.filter(defined).sum().alias("sv_n"),
        w.sum().alias("w_tot"),
        w.filter(defined).sum().alias("w_def"),
        (v * w).filter(defined).sum().alias("sv_w"),
    )
    if operator == "macro":
        sums = sums.with_columns(
            pl.col("n_tot").alias("w_tot"), pl.col("n_def").alias("w_def"), pl.col("sv_n").alias("sv_w")
        )
    resolved = sums.with_columns(
        resolve_mean(pl.lit(convention)).alias("value"),
    ).with_columns(pl.when(pl.col("value").is_nan()).then(None).otherwise(pl.col("value")).alias("value"))
    top = pl.col("value").max()
    best = resolved.group_by(group).agg(
        pl.col("threshold").filter(pl.col("value") == top).max(), top.alias("value")
    )
    return best.sort(group, nulls_last=True).select(*rk, "threshold", "value")
