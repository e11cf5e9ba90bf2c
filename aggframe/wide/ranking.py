"""The wide step of the measures on scores: rows -> small per-score and per-example tables (Narwhals).

This module reads the user's rows (the long scores form: one row per (example,
class) with a score and a truth ``y`` in {0, 1}); everything it returns is an
aggregate, and every function is written with the Narwhals lazy API, so the same
code runs on Polars (eager, lazy, streaming), DuckDB and Spark. The narrow steps
(curves, areas, calibration, thresholds, entry tables) run in Polars on what it
returns (:mod:`aggframe.operators.curves`, :mod:`aggframe.operators.calibration`,
:mod:`aggframe.operators.score_values`).

Column names are the caller's: ``keys`` (by-columns, possibly empty; a null key
is its own group, as in any group-by), ``class_``, ``example``, ``score``, ``y``
are names of columns in the frame, already private (the intake renames the
user's columns), so the fixed names of the output columns below cannot collide.
No function joins on keys (Narwhals joins cannot match null keys).

Grains
------
:func:`score_counts`
    ``keys..., [class], score, pos, neg``: how many positive and negative entries
    share each distinct score, per (keys, class), or pooled over the classes per
    keys (``class_=None``: the micro grain, read from the rows, so an engine does
    the pooling). This one table is the sufficient statistic of every
    threshold-free measure on scores: cumulative sums in score order give the
    confusion cells at every threshold (ROC, PR, AUROC, AP, the best threshold),
    and the same rows give calibration and the entry losses. Exact by default
    (one row per distinct score: as many rows as the input when scores are
    continuous); with ``bins=N`` scores are quantised first (see below), so it
    has at most ``N`` rows per group and class and also carries the sums that the
    quantisation would otherwise lose.
:func:`score_rows`
    The rows in the same shape without the group-by, for Polars sources in exact
    mode: on continuous scores the group-by reduces nothing and costs about as
    much as the sort after it (``score_values.ranking_entries(..., unit_rows=True)``
    aggregates only the tied rows).
:func:`example_stats`
    Per keys: sums and counts of the per-example (exemplar) values, computed per
    (keys, example) on the engine from per-example ranks (window functions over
    the example, no Python loop), and reduced per keys before anything crosses
    to Polars.

Quantisation (``bins=N``)
-------------------------
A score ``s`` falls in cell ``q = min(floor(clip(s, 0, 1) * N), N - 1)`` (the
cells ``[q/N, (q+1)/N)``, the last one closed), and the cell's row carries the
threshold ``q / N``. So scores are read as probabilities in [0, 1] (scores
outside are clipped into the end cells). Because a cell holds exactly the scores
``>= q/N`` and below the next cell's threshold, the counts at threshold ``q/N``
are the exact counts of ``score >= q/N`` (up to the rounding of ``s * N``): the
binned ROC and PR curves are the exact curves sampled at the thresholds
``q/N``, and only pairs of entries in the same cell lose their order. A
positive-negative pair counts 1, 0 or 1/2 towards the AUROC and a pair inside one
cell counts 1/2 after quantisation, so

    |AUROC_binned - AUROC| <= 1/2 * (pairs (pos, neg) in the same cell, not tied) / (P * N)
                           <= 1/2 * sum_q pos_q * neg_q / (P * N),

a bound computable from the binned table itself (:func:`aggframe.operators.curves.auroc_bin_bound`).
The losses and the calibration sums are summed per cell from the rows, so
log loss and Brier are exact in binned mode; calibration bins are assigned by the
cell's mean score (exact when every calibration edge is a cell edge, as with
uniform calibration bins whose count divides ``N``, up to rounding at the edges).

Exemplar (per-example) values
-----------------------------
For an example with ``M`` entries, ``P`` of them positive, and ranks taken within
the example (ties as scikit-learn: ``R_j = |{k: s_k >= s_j}|``):

``average_precision`` (label ranking average precision, scikit-learn's
``label_ranking_average_precision_score``, which equals ``average_precision_score
(average="samples")`` on examples with 0 < P):
    mean over positive ``j`` of ``|{positive k: s_k >= s_j}| / R_j``.
``auroc`` (``roc_auc_score(average="samples")``):
    ``(sum of the positives' mid-ranks - P (P + 1) / 2) / (P (M - P))``.
``log_loss``, ``brier``:
    the mean over the example's entries of the binary entry loss.

An example without a positive entry, or (for AUROC) with only positive entries, is
**undefined**: null, counted in ``n_undefined``, resolved by the caller's
convention. An example with only positive entries has LRAP 1 (every positive is
ranked above no negative), as a class without negatives has average precision 1.
scikit-learn's LRAP scores an example without positives 1, so convention ``one``
reproduces it; its samples-AP scores it 0, so ``zero`` reproduces that, and
``exclude`` equals samples-AP on the examples with a positive; its samples-AUROC
raises on an example without positives or negatives, so ``exclude`` matches it on
the examples it accepts.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import narwhals as nw
import polars as pl

from aggframe.wide.engines import Frame

__all__ = [
    "EPS",
    "EXAMPLE_MEASURES",
    "NEG",
    "POS",
    "SCORE",
    "SUM_COLUMNS",
    "ScoreFrame",
    "calibration_sums",
    "example_stats",
    "loss_sums",
    "row_example_stats",
    "score_counts",
    "score_rows",
    "uniform_bin",
]

#: Probabilities are clipped to [EPS, 1 - EPS] before a logarithm, as scikit-learn's
#: ``log_loss`` does (the machine epsilon of float64).
EPS = sys.float_info.epsilon  # np.finfo(np.float64).eps, without importing NumPy

#: Output columns of :func:`score_counts`: the score (or cell threshold), and the
#: numbers of positive and negative entries at it.
SCORE, POS, NEG = "score", "pos", "neg"
#: Per-row sums that quantisation would lose, carried by the binned table:
#: the score, -log(p) over positives, -log(1 - p) over negatives, (1 - p)^2 over
#: positives and p^2 over negatives (p clipped for the logarithms only).
SUM_COLUMNS = ("s_sum", "lp_sum", "ln_sum", "bp_sum", "bn_sum")

#: Measures with a per-example (exemplar) value, in the order of :func:`example_stats`.
EXAMPLE_MEASURES = ("auroc", "average_precision", "log_loss", "brier")


@dataclass(frozen=True)
class ScoreFrame:
    """The rows of predictions with scores, projected onto private names, for one grouping.

    What an intake source hands to the score measures (:mod:`aggframe.operators.scores`):
    ``frame`` holds the by-keys (``row_keys``), ``class_``, ``score`` (as
    given: with ``logits`` the measures that read probabilities take its
    sigmoid, the rankings and curves the score itself, which the sigmoid would
    tie above about 37 in float64), ``y`` (0/1) and, in the long layout,
    ``example``. ``keys`` are the cell tables' keys (the
    by-keys, or the stand-in key when there are none).
    """

    frame: nw.LazyFrame[Any]
    keys: tuple[str, ...]
    row_keys: tuple[str, ...]
    class_: str
    score: str
    y: str
    #: the private example column, or None when each row is one example (binary layout)
    example: str | None
    #: quantisation cells of [0, 1] (``bins=N``), or None: exact
    bins: int | None = None
    #: the scores are logits: probabilities are their sigmoid (the quantisation cells too)
    logits: bool = False
    #: the declared class universe (column ``class``), or None: the classes seen
    universe: pl.LazyFrame | None = field(default=None, repr=False)
    #: the number of classes, when known (declared universe, or the binary layout's one)
    n_classes: int | None = None
    #: private name -> the user's column
    names: dict[str, str] = field(default_factory=dict)

    def probabilities(self) -> ScoreFrame:
        """This frame with the scores as probabilities (for what is read in probability units)."""
        if not self.logits:
            return self
        return replace(
            self, frame=self.frame.with_columns(sigmoid(nw.col(self.score)).alias(self.score)), logits=False
        )

    @property
    def polars(self) -> bool:
        """The rows are a Polars frame (the exact ranking then reads them without a group-by)."""
        return isinstance(nw.to_native(self.frame), pl.LazyFrame)


def sigmoid(score: nw.Expr) -> nw.Expr:
    """The probability of a logit, ``1 / (1 + exp(-score))`` (Float64)."""
    return 1.0 / (1.0 + (-score.cast(nw.Float64)).exp())


def _probability(score: nw.Expr, *, logits: bool) -> nw.Expr:
    s = score.cast(nw.Float64)
    return sigmoid(s) if logits else s


def _nlog(x: nw.Expr) -> nw.Expr:
    """``-log(clip(x, EPS, 1 - EPS))``, scikit-learn's clipped log loss term."""
    return -(x.clip(EPS, 1.0 - EPS).log())


def entry_sums(score: nw.Expr, y: nw.Expr, *, logits: bool = False) -> list[nw.Expr]:
    """The per-row terms of :data:`SUM_COLUMNS` (``y`` an Int64 0/1 expression; ``logits``: their sigmoid)."""
    s = _probability(score, logits=logits)
    yf = y.cast(nw.Float64)
    return [
        s.alias("s_sum"),
        (yf * _nlog(s)).alias("lp_sum"),
        ((1.0 - yf) * _nlog(1.0 - s)).alias("ln_sum"),
        (yf * (1.0 - s) * (1.0 - s)).alias("bp_sum"),
        ((1.0 - yf) * s * s).alias("bn_sum"),
    ]


def score_counts(
    lf: Frame,
    keys: Sequence[str],
    *,
    score: str,
    y: str,
    class_: str | None = None,
    bins: int | None = None,
    logits: bool = False,
) -> Frame:
    """Positive and negative entries per distinct score, per (keys, class) or pooled per keys.

    Parameters
    ----------
    lf
        The rows (a Narwhals lazy frame on any engine).
    keys
        Group key columns (possibly none).
    score, y
        The score column and the truth column (0/1 or boolean).
    class_
        The class column; ``None`` pools every class (the micro grain).
    bins
        ``None`` (exact: one row per distinct score) or the number ``N`` of
        quantisation cells of [0, 1]; the row of cell ``q`` has score ``q / N``
        and carries the :data:`SUM_COLUMNS` as well.
    logits
        The scores are logits: the cells and the sums read their sigmoid (the
        exact table keeps the scores as given: a ranking needs no probabilities).

    Returns
    -------
    Narwhals lazy frame with columns ``keys..., [class_], score, pos, neg``
    (``pos``, ``neg`` Int64) and, with ``bins``, the sums of :data:`SUM_COLUMNS`.
    Row order is unspecified.

    Examples
    --------
    >>> import narwhals as nw
    >>> import polars as pl
    >>> rows = pl.DataFrame({"c": [0, 0, 0, 1], "s": [0.2, 0.2, 0.7, 0.4], "y": [1, 0, 1, 0]})
    >>> counts = score_counts(nw.from_native(rows.lazy()), [], class_="c", score="s", y="y")
    >>> counts.collect(backend="polars").to_native().sort("c", "score")
    shape: (3, 4)
    ┌─────┬───────┬─────┬─────┐
    │ c   ┆ score ┆ pos ┆ neg │
    │ --- ┆ ---   ┆ --- ┆ --- │
    │ i64 ┆ f64   ┆ i64 ┆ i64 │
    ╞═════╪═══════╪═════╪═════╡
    │ 0   ┆ 0.2   ┆ 1   ┆ 1   │
    │ 0   ┆ 0.7   ┆ 1   ┆ 0   │
    │ 1   ┆ 0.4   ┆ 0   ┆ 1   │
    └─────┴───────┴─────┴─────┘
    """
    group = [*keys, *([class_] if class_ is not None else [])]
    yv = nw.col(y).cast(nw.Int64)
    s = nw.col(score).cast(nw.Float64)
    if bins is None:
        rows = lf.select(*group, s.alias(SCORE), yv.alias(POS))
        sums: list[nw.Expr] = []
    else:
        if int(bins) != bins or bins < 1:
            msg = f"Expected `bins` to be a positive integer, got {bins!r}"
            raise ValueError(msg)
        prob = _probability(s, logits=logits)
        cell = (prob.clip(0.0, 1.0) * float(bins)).floor().clip(0.0, float(bins - 1))
        rows = lf.select(*group, (cell / float(bins)).alias(SCORE), yv.alias(POS), *entry_sums(prob, yv))
        sums = [nw.col(c).sum() for c in SUM_COLUMNS]
    return (
        rows.group_by([*group, SCORE])
        .agg(nw.col(POS).sum(), nw.len().cast(nw.Int64).alias("_n"), *sums)
        .with_columns((nw.col("_n") - nw.col(POS)).alias(NEG))
        .select(*group, SCORE, POS, NEG, *[c for c in SUM_COLUMNS if sums])
    )


def score_rows(lf: Frame, keys: Sequence[str], *, score: str, y: str, class_: str | None = None) -> Frame:
    """The rows themselves in the shape of :func:`score_counts` (``pos = y``, ``neg = 1 - y``), no group-by.

    For a Polars source in exact mode: on continuous scores the group-by on
    (keys, class, score) reduces nothing and costs about as much as the sort
    that follows it, and :func:`aggframe.operators.score_values.ranking_entries` handles
    repeated scores itself. Engines that ship the table to Polars should
    aggregate (:func:`score_counts`).

    Examples
    --------
    >>> import narwhals as nw
    >>> import polars as pl
    >>> rows = pl.DataFrame({"c": [0, 1], "s": [0.2, 0.4], "y": [True, False]})
    >>> score_rows(nw.from_native(rows.lazy()), [], class_="c", score="s", y="y").collect().to_native()
    shape: (2, 4)
    ┌─────┬───────┬─────┬─────┐
    │ c   ┆ score ┆ pos ┆ neg │
    │ --- ┆ ---   ┆ --- ┆ --- │
    │ i64 ┆ f64   ┆ i8  ┆ i8  │
    ╞═════╪═══════╪═════╪═════╡
    │ 0   ┆ 0.2   ┆ 1   ┆ 0   │
    │ 1   ┆ 0.4   ┆ 0   ┆ 1   │
    └─────┴───────┴─────┴─────┘
    """
    group = [*keys, *([class_] if class_ is not None else [])]
    yv = nw.col(y).cast(nw.Int8)
    return lf.select(*group, nw.col(score).cast(nw.Float64).alias(SCORE), yv.alias(POS), (1 - yv).alias(NEG))


def _per_keys(lf: Frame, keys: Sequence[str], aggs: Sequence[nw.Expr]) -> Frame:
    """``group_by(keys).agg(aggs)``, or one row of aggregates when there are no keys."""
    if keys:
        return lf.group_by(list(keys)).agg(*aggs)
    return lf.select(*aggs)


def example_stats(
    lf: Frame, keys: Sequence[str], *, example: str, score: str, y: str, logits: bool = False
) -> Frame:
    """Sums of the per-example (exemplar) values per keys, from per-example ranks.

    Every example must have one row per class of its universe (ranks are taken
    over the rows present). Per (keys, example) the values of
    :data:`EXAMPLE_MEASURES` are computed on the engine (see the module
    docstring), then reduced per keys.

    Returns
    -------
    Narwhals lazy frame, one row per keys: ``keys..., n_examples`` and for every
    measure ``<measure>_n`` (examples where it is defined) and ``<measure>_sum``
    (the sum of its defined values).

    Examples
    --------
    >>> import narwhals as nw
    >>> import polars as pl
    >>> rows = pl.DataFrame(
    ...     {"e": [0, 0, 0, 1, 1, 1], "s": [0.9, 0.5, 0.1, 0.2, 0.8, 0.4], "y": [1, 0, 1, 0, 0, 0]}
    ... )
    >>> stats = example_stats(nw.from_native(rows.lazy()), [], example="e", score="s", y="y")
    >>> stats.collect(backend="polars").to_native().select("n_examples", "average_precision_n", "average_precision_sum")
    shape: (1, 3)
    ┌────────────┬─────────────────────┬───────────────────────┐
    │ n_examples ┆ average_precision_n ┆ average_precision_sum │
    │ ---        ┆ ---                 ┆ ---                   │
    │ i64        ┆ i64                 ┆ f64                   │
    ╞════════════╪═════════════════════╪═══════════════════════╡
    │ 2          ┆ 1                   ┆ 0.833333              │
    └────────────┴─────────────────────┴───────────────────────┘
    """
    part = [*keys, example]
    s = nw.col(score).cast(nw.Float64)
    yv = nw.col(y).cast(nw.Int64)
    rows = lf.select(*part, s.alias("_s"), yv.alias("_y")).with_columns(
        # |{k: s_k >= s_j}| over the example, and over the example's entries with the same y
        nw.col("_s").rank(method="max", descending=True).over(*part).cast(nw.Float64).alias("_R"),
        nw.col("_s").rank(method="max", descending=True).over(*part, "_y").cast(nw.Float64).alias("_L"),
        nw.col("_s").rank(method="average").over(*part).cast(nw.Float64).alias("_A"),
    )
    pos = nw.col("_y") == 1
    ys = nw.col("_y").cast(nw.Float64)
    terms = entry_sums(nw.col("_s"), nw.col("_y"), logits=logits)  # ranks read the scores as given
    per_example = rows.group_by(part).agg(
        ys.sum().alias("_P"),
        nw.len().cast(nw.Float64).alias("_M"),
        nw.when(pos).then(nw.col("_L") / nw.col("_R")).otherwise(0.0).sum().alias("_lrap"),
        (ys * nw.col("_A")).sum().alias("_ranks"),
        (terms[1] + terms[2]).sum().alias("_ll"),
        (terms[3] + terms[4]).sum().alias("_br"),
    )
    P, M = nw.col("_P"), nw.col("_M")
    ranked = (P > 0) & (P < M)
    values = {
        "auroc": nw.when(ranked).then((nw.col("_ranks") - P * (P + 1.0) / 2.0) / (P * (M - P))),
        "average_precision": nw.when(P > 0).then(nw.col("_lrap") / P),
        "log_loss": nw.col("_ll") / M,
        "brier": nw.col("_br") / M,
    }
    valued = per_example.select(*keys, *[v.alias(name) for name, v in values.items()])
    aggs = [nw.len().cast(nw.Int64).alias("n_examples")]
    for name in EXAMPLE_MEASURES:
        aggs += [
            nw.col(name).count().cast(nw.Int64).alias(f"{name}_n"),
            nw.col(name).sum().alias(f"{name}_sum"),
        ]
    return _per_keys(valued, keys, aggs)


def loss_sums(
    lf: Frame, keys: Sequence[str], *, score: str, y: str, class_: str | None = None, logits: bool = False
) -> Frame:
    """Entries, positives and the loss sums per (keys, class), or pooled per keys (``class_=None``).

    Returns ``keys..., [class_], n, pos`` and the :data:`SUM_COLUMNS` (one
    group-by on the engine; a small table). Log loss and Brier of a group are
    ``(lp_sum + ln_sum) / n`` and ``(bp_sum + bn_sum) / n``.

    Examples
    --------
    >>> import narwhals as nw
    >>> import polars as pl
    >>> rows = pl.DataFrame({"c": [0, 0, 1], "s": [0.8, 0.2, 0.5], "y": [1, 0, 1]})
    >>> out = loss_sums(nw.from_native(rows.lazy()), [], class_="c", score="s", y="y")
    >>> out.collect(backend="polars").to_native().sort("c").select("c", "n", "pos", "bp_sum", "bn_sum")
    shape: (2, 5)
    ┌─────┬─────┬─────┬────────┬────────┐
    │ c   ┆ n   ┆ pos ┆ bp_sum ┆ bn_sum │
    │ --- ┆ --- ┆ --- ┆ ---    ┆ ---    │
    │ i64 ┆ i64 ┆ i64 ┆ f64    ┆ f64    │
    ╞═════╪═════╪═════╪════════╪════════╡
    │ 0   ┆ 2   ┆ 1   ┆ 0.04   ┆ 0.04   │
    │ 1   ┆ 1   ┆ 1   ┆ 0.25   ┆ 0.0    │
    └─────┴─────┴─────┴────────┴────────┘
    """
    group = [*keys, *([class_] if class_ is not None else [])]
    yv = nw.col(y).cast(nw.Int64)
    rows = lf.select(*group, yv.alias(POS), *entry_sums(nw.col(score), yv, logits=logits))
    aggs = [
        nw.len().cast(nw.Int64).alias("n"),
        nw.col(POS).sum().cast(nw.Int64),
        *[nw.col(c).sum() for c in SUM_COLUMNS],
    ]
    return _per_keys(rows, group, aggs)


def uniform_bin(score: nw.Expr, bins: int) -> nw.Expr:
    """The calibration bin of a score, exactly as ``calibration_curve(strategy="uniform")`` places it.

    scikit-learn's bin is ``np.searchsorted(edges[1:-1], score)`` with ``edges =
    np.linspace(0, 1, bins + 1)``, whose values are ``i * (1 / bins)`` in
    float64: the number of inner edges strictly below the score. Here
    ``ceil(score * bins) - 1`` is a candidate that rounding can leave one off,
    corrected by comparing the score with the two edges around it, computed as
    NumPy computes them; then clipped to ``[0, bins - 1]``.

    Examples
    --------
    >>> import narwhals as nw
    >>> import numpy as np
    >>> import polars as pl
    >>> s = np.array([0.0, 0.1, 0.3, 0.30000000000000004, 0.7, 1.0])
    >>> frame = nw.from_native(pl.DataFrame({"s": s}))
    >>> frame.select(uniform_bin(nw.col("s"), 10)).to_native()["s"].to_list()
    [0, 0, 2, 2, 6, 9]
    >>> np.searchsorted(np.linspace(0, 1, 11)[1:-1], s).tolist()
    [0, 0, 2, 2, 6, 9]
    """
    step = 1.0 / bins
    q0 = (score * float(bins)).ceil() - 1.0
    q = (
        nw.when(q0 * step >= score)
        .then(q0 - 1.0)
        .when((q0 + 1.0) * step < score)
        .then(q0 + 1.0)
        .otherwise(q0)
    )
    return q.clip(0.0, float(bins - 1)).cast(nw.Int64)


def calibration_sums(
    lf: Frame,
    keys: Sequence[str],
    *,
    score: str,
    y: str,
    bins: int,
    class_: str | None = None,
    logits: bool = False,
) -> Frame:
    """Per (keys, [class], bin) of a uniform calibration: entries, positives and the score sum.

    The bins are assigned on the engine, exactly (:func:`uniform_bin`), so the
    expected calibration error of uniform bins is exact in every mode. Returns
    ``keys..., [class_], bin, n, pos, s_sum``.
    """
    group = [*keys, *([class_] if class_ is not None else [])]
    s = _probability(nw.col(score), logits=logits).alias(score)
    rows = lf.select(*group, uniform_bin(s, bins).alias("bin"), nw.col(y).cast(nw.Int64).alias(POS), s)
    return rows.group_by([*group, "bin"]).agg(
        nw.len().cast(nw.Int64).alias("n"),
        nw.col(POS).sum().cast(nw.Int64),
        nw.col(score).sum().alias("s_sum"),
    )


def row_example_stats(lf: Frame, keys: Sequence[str], *, score: str, y: str, logits: bool = False) -> Frame:
    """:func:`example_stats` when every row is one example with one entry (the binary layout).

    An example with one entry has no ranking: AUROC is undefined (it has no positive
    or only positives), LRAP is 1 on a positive entry and undefined on a negative one;
    its losses are the entry's.
    """
    yv = nw.col(y).cast(nw.Int64)
    terms = entry_sums(nw.col(score), yv, logits=logits)
    rows = lf.select(
        *keys, (terms[1] + terms[2]).alias("_ll"), (terms[3] + terms[4]).alias("_br"), yv.alias("_y")
    )
    aggs = [
        nw.len().cast(nw.Int64).alias("n_examples"),
        nw.col("_y").sum().cast(nw.Int64).alias("_pos"),
        nw.col("_ll").sum().alias("log_loss_sum"),
        nw.col("_br").sum().alias("brier_sum"),
    ]
    n = nw.col("n_examples")
    return (
        _per_keys(rows, keys, aggs)
        .with_columns(
            (n * 0).alias("auroc_n"),
            (nw.col("log_loss_sum") * 0.0).alias("auroc_sum"),
            nw.col("_pos").alias("average_precision_n"),
            nw.col("_pos").cast(nw.Float64).alias("average_precision_sum"),
            n.alias("log_loss_n"),
            n.alias("brier_n"),
        )
        .drop("_pos")
    )
