"""The values of the measures on scores per group: the entries the operators on scores average.

The kernels here read the per-score ``counts`` tables of the wide step
(``group..., score, pos, neg``; :mod:`aggframe.operators.score_tables`) and give,
per group, the value of AUROC, average precision, log loss, Brier and ece, tidy.
:mod:`aggframe.operators.scores` turns these entries into values under operators
and conventions (:func:`aggframe.operators.scores.reduce_entries`, through the
package's one convention resolution). Not to be confused with
:mod:`aggframe.wide.ranking`, the wide step on the engine that makes the tables
read here. The curves on the same tables are in :mod:`aggframe.operators.curves`,
the reliability table (and the ece's bins) in :mod:`aggframe.operators.calibration`.

Which function gives what
-------------------------
==========================  ===============================================================
:func:`ranking_entries`     AUROC and AP, per class and pooled (micro), in one sort; it alone
                            also takes the rows themselves (repeated scores allowed: the fast
                            exact path for Polars sources)
:func:`group_values`        every measure per group (keys, or keys and class)
:func:`class_entries`       every measure per (keys, class): the macro/weighted entries
:func:`pooled_entries`      every measure per keys from the pooled table: the micro entry
:func:`pooled_counts`       the pooled table from the per-class one
:func:`example_entries`     the exemplar entries (from :func:`aggframe.wide.ranking.example_stats`)
:func:`multiclass_entries`  scikit-learn's multiclass log loss and Brier per keys
==========================  ===============================================================

Semantics (scikit-learn 1.9, checked by tests/operators/test_curves.py)
-----------------------------------------------------------------------
Sorted by score descending within each group, cumulative sums give the cells
``tp(t)``, ``fp(t)`` at the threshold ``t`` of each distinct score (as
:func:`aggframe.operators.curves.threshold_cells`); ``P``, ``N`` are the group's
positive and negative entries.

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
    reliability table (:func:`aggframe.operators.calibration.calibration`), per
    class or pooled.
``weight``
    The entry weight of the ``weighted`` operator: the group's positives (the
    support, as scikit-learn's ``average="weighted"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import polars as pl

from aggframe._options import Strategy
from aggframe.operators.calibration import ece_per_group
from aggframe.operators.score_tables import cumulated, grouped, visible, with_sums
from aggframe.wide.ranking import EXAMPLE_MEASURES, NEG, POS, SCORE, SUM_COLUMNS

__all__ = [
    "CLASS_MEASURES",
    "MULTICLASS_MEASURES",
    "class_entries",
    "example_entries",
    "group_values",
    "multiclass_entries",
    "pooled_counts",
    "pooled_entries",
    "ranking_entries",
]

ScoreMeasure = Literal["auroc", "average_precision", "log_loss", "brier", "ece"]

#: Measures with a value per class and pooled (micro, macro, weighted).
CLASS_MEASURES: tuple[ScoreMeasure, ...] = ("auroc", "average_precision", "log_loss", "brier", "ece")
#: Measures of the ``multiclass`` operator (whole-distribution, per example).
MULTICLASS_MEASURES = ("log_loss", "brier")


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
    cum = cumulated(counts.select(*g, SCORE, POS, NEG), g)
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
    lf, k = grouped(table.select(*keys, class_, SCORE, POS, NEG), keys)
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
            .select(*visible(g), "measure", pl.col("value").cast(pl.Float64), "weight")
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
    lf, k = grouped(counts, keys)
    out = lf.group_by([*k, SCORE]).agg(pl.col(POS, NEG, *sums).sum()).sort([*k, SCORE], nulls_last=True)
    return out.select(*visible(k), SCORE, POS, NEG, *sums)


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
    lf, g = grouped(with_sums(counts), group)
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
        ece = ece_per_group(lf, g, ece_bins, ece_strategy).join(
            lf.group_by(g).agg(pl.col(POS).sum().alias("P")), on=g, how="left", nulls_equal=True
        )
        pieces.append(tidy(ece.select(*g, weight, "ece"), ["ece"]))
    order = {m: i for i, m in enumerate(measures)}
    out = pl.concat(pieces, how="vertical_relaxed").sort(
        [*g, pl.col("measure").replace_strict(order, return_dtype=pl.Int64)], nulls_last=True
    )
    return out.select(*visible(g), "measure", pl.col("value").cast(pl.Float64), "weight")


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
    lf, g = grouped(with_sums(counts), keys)
    per_keys = lf.group_by(g).agg(
        pl.col("lp_sum").sum().alias("_ll"),
        (pl.col("bp_sum") + pl.col("bn_sum")).sum().alias("_br"),
    )
    if n_examples is None:
        sizes = lf.group_by([*g, class_]).agg((pl.col(POS) + pl.col(NEG)).sum().alias("_c"))
        n_ex = sizes.group_by(g).agg(pl.col("_c").max().cast(pl.Float64).alias("_n"))
    else:
        n_ex, _ = grouped(n_examples.select(*keys, pl.col("n_examples").cast(pl.Float64).alias("_n")), keys)
    scale = 0.5 if n_classes < 3 else 1.0
    joined = per_keys.join(n_ex, on=g, how="left", nulls_equal=True)
    out = joined.select(
        *g,
        (pl.col("_ll") / pl.col("_n")).alias("log_loss"),
        (scale * pl.col("_br") / pl.col("_n")).alias("brier"),
    ).unpivot(on=list(MULTICLASS_MEASURES), index=g, variable_name="measure", value_name="value")
    return out.sort([*g, "measure"], nulls_last=True).select(*visible(g), "measure", "value")
