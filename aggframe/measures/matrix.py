"""Whole-matrix measures of single-label data (issue #15): the kernel of a ``multiclass`` operator.

aggframe's operators apply a binary measure to one-vs-rest cells and average.
scikit-learn's ``matthews_corrcoef`` (Gorodkin's R_K), ``cohen_kappa_score``
(``weights`` None, ``"linear"``, ``"quadratic"``), ``balanced_accuracy_score``
(``adjusted`` False/True) and ``accuracy_score`` are instead functions of the
whole ``m x m`` confusion matrix ``O`` (rows: true class, columns: predicted).
This module computes them, and a tidy confusion matrix, from the label form's
confusion counts, lazily, for every group at once (one Polars plan, no Python
loop over groups, classes or measures).

Inputs (internal tables, built by the caller)
    ``conf``: columns ``*keys, "_yt", "_yp", "n"``: the count ``n`` (Int64) of
    examples of each group with true class ``_yt`` and predicted class ``_yp``;
    pairs with ``n = 0`` may be absent. A null key is a group of its own.

    ``classes``: columns ``*ukeys, "class", "_rank"``: the class universe (one
    for all groups when ``ukeys`` is empty, else one per ``ukeys`` value, e.g. per
    target; ``ukeys`` is a subset of ``keys``), ``_rank`` the 0-based position of
    the class in universe order. Every class of ``conf`` must belong to its
    group's universe (the caller validates the labels before).

Only sums over small tables are needed. Per group, with ``t_k`` the true and
``p_k`` the predicted count of class ``k``, ``c`` the trace and ``s`` the total:

========================= ================================================== ============================
measure                   value                                              null (undefined) when
========================= ================================================== ============================
``accuracy``              ``c / s``                                          ``s = 0``
``mcc``                   ``(c s - sum t p) /                                every true label, or every
                          sqrt((s^2 - sum p^2)(s^2 - sum t^2))``             prediction, is one class
``kappa``                 ``1 - sum w O / sum w E``, ``E = t p^T / s``,      the true labels and the
                          ``w`` 1 off the diagonal                           predictions are all one and
``kappa_linear``          ... ``w = |j - k|`` (ranks in universe order)      the same class (``O`` is a
``kappa_quadratic``       ... ``w = (j - k)^2``                              single diagonal cell)
``balanced_accuracy``     mean of ``O_kk / t_k`` over the ``K`` classes      ``K = 0``
                          with ``t_k > 0``
``balanced_accuracy_      ``(ba - 1/K) / (1 - 1/K)``                         ``K <= 1``
adjusted``
========================= ================================================== ============================

Weighted kappa never builds the ``m x m`` weights: ``sum_jk w_jk t_j p_k`` is
``s^2 (var_t + var_p + (mean_t - mean_p)^2)`` for quadratic weights (rank means
and variances under ``t / s`` and ``p / s``, computed centred, so nothing cancels)
and ``sum_r [T(r) (s - P(r)) + (s - T(r)) P(r)]`` over thresholds ``r`` for linear
weights (``T``, ``P`` the cumulative true and predicted counts in rank order;
``|j - k|`` counts the thresholds between ``j`` and ``k``); the sum runs over the
observed classes only, a gap of ranks multiplying its constant term. The
observed side ``sum w O`` runs over the rows of ``conf``. Cost: linear in the
number of ``conf`` rows (plus, for the weighted kappas, a join with the universe's
ranks); never ``m^2``. A group whose counts are all 0 is undefined throughout.

What scikit-learn (1.9) returns where the value is undefined, and which aggframe
convention on the single whole-matrix entry reproduces it:

- ``matthews_corrcoef`` returns ``0.0`` without a warning: convention ``zero``.
- ``cohen_kappa_score`` returns ``replace_undefined_by`` (default NaN) with an
  ``UndefinedMetricWarning``: ``exclude``/``nan`` give NaN; ``zero``/``one``
  reproduce ``replace_undefined_by=0.0``/``1.0``. (``labels=`` the universe: the
  universe only matters through the ranks of weighted kappa.)
- ``balanced_accuracy_score`` skips the classes with ``t_k = 0`` (warning "y_pred
  contains classes not in y_true"); so does aggframe, without a warning. With
  ``adjusted=True`` and ``K = 1`` it divides by zero (``RuntimeWarning``) and
  returns NaN when ``ba = 1`` and ``-inf`` otherwise; aggframe's null + ``nan``
  reproduces the first case only: ``-inf`` is an artefact, not a value.
- ``confusion_matrix(normalize=...)`` turns ``0 / 0`` into ``0`` (``nan_to_num``):
  aggframe's ``rate`` is null there, and convention ``zero`` reproduces it.

``K`` is scikit-learn's: the number of classes with at least one true example
(``per_class`` after dropping the NaN recalls), not the size of the universe.

For the caller: each group has one whole-matrix entry, so a convention resolves
a null as it does a pooled micro value (``exclude``/``nan``: NaN, ``zero``: 0,
``one``: 1; ``n_entries`` 1). Grouping sets, folds and targets are keys: a
rolled-up grouping set is its own group when its marker column is among the
``keys`` (so a rolled-up null never merges with a real null key); fold pooling
sums ``conf`` over the fold before the call, fold averaging keeps the fold in
the keys and averages the values after; targets pass the target as a key and as
the universe key (``ukeys``). ``n`` is an integer count: every formula is a ratio
of sums, so summed sample weights would do for the values, but the tests for a
zero denominator at the undefined points rely on exact integer arithmetic.

Examples
--------
>>> import polars as pl
>>> from aggframe.measures.matrix import matrix_values
>>> conf = pl.LazyFrame({"_yt": ["a", "a", "b", "c"], "_yp": ["a", "b", "b", "a"], "n": [3, 1, 2, 2]})
>>> classes = pl.LazyFrame({"class": ["a", "b", "c"], "_rank": [0, 1, 2]})
>>> matrix_values(conf, classes, [], [], ["accuracy", "balanced_accuracy"]).collect()
shape: (2, 2)
┌───────────────────┬──────────┐
│ measure           ┆ value    │
│ ---               ┆ ---      │
│ str               ┆ f64      │
╞═══════════════════╪══════════╡
│ accuracy          ┆ 0.625    │
│ balanced_accuracy ┆ 0.583333 │
└───────────────────┴──────────┘
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

import polars as pl

from aggframe.exceptions import OptionError, UnknownNameError
from aggframe.measures.measure import Measure
from aggframe.measures.registry import get_measure, reserve_matrix_names, unknown_measure
from aggframe.measures.registry import key as _key
from aggframe.ops import ratio

__all__ = [
    "MATRIX_MEASURES",
    "WEIGHTED",
    "MatrixMeasure",
    "Normalize",
    "confusion_matrix_frame",
    "is_matrix_measure",
    "matrix_columns",
    "matrix_values",
    "resolve_matrix_measures",
]

MatrixMeasure = Literal[
    "accuracy",
    "balanced_accuracy",
    "balanced_accuracy_adjusted",
    "kappa",
    "kappa_linear",
    "kappa_quadratic",
    "mcc",
]
Normalize = Literal["true", "pred", "all"]

#: The measures with a whole-matrix (multiclass) definition, in report order.
MATRIX_MEASURES: tuple[MatrixMeasure, ...] = get_args(MatrixMeasure)

#: Other spellings of the whole-matrix measures (keys as ``_measures._key`` normalises them).
_ALIASES: dict[str, MatrixMeasure] = {
    "matthews_corrcoef": "mcc",
    "cohen_kappa_score": "kappa",
    "linear_kappa": "kappa_linear",
    "quadratic_kappa": "kappa_quadratic",
    "qwk": "kappa_quadratic",
    "adjusted_balanced_accuracy": "balanced_accuracy_adjusted",
    "accuracy_score": "accuracy",
    "balanced_accuracy_score": "balanced_accuracy",
}

reserve_matrix_names([*MATRIX_MEASURES, *_ALIASES], canonical=MATRIX_MEASURES)

_NORMALIZE: tuple[Normalize, ...] = get_args(Normalize)
#: Stand-in key when the caller has no keys (a constant, dropped from every result).
_ALL = "__mx_all"
#: The measures that need the confusion counts themselves (the others need only the margins).
WEIGHTED: tuple[MatrixMeasure, ...] = ("kappa_linear", "kappa_quadratic")
_WEIGHTED = WEIGHTED


def _canonical(name: str | Measure) -> MatrixMeasure | None:
    """The whole-matrix measure a name (or a built-in Measure) stands for, or None."""
    key = _key(name.name if isinstance(name, Measure) else name)
    if key in MATRIX_MEASURES:
        return key
    if key in _ALIASES:
        return _ALIASES[key]
    if isinstance(name, Measure):
        return None
    try:
        found = get_measure(key)  # registry aliases: "matthews", "phi", "cohen_kappa", "ba", ...
    except UnknownNameError:
        return None
    canon = _key(found.name)
    return canon if canon in MATRIX_MEASURES else None


def is_matrix_measure(name: str | Measure) -> bool:
    """True iff ``name`` has a whole-matrix definition (aliases and case do not matter).

    Examples
    --------
    >>> from aggframe.measures.matrix import is_matrix_measure
    >>> is_matrix_measure("MCC"), is_matrix_measure("qwk"), is_matrix_measure("precision")
    (True, True, False)
    """
    return _canonical(name) is not None


def resolve_matrix_measures(
    measures: str | Measure | Sequence[str | Measure], *, operator: str = "multiclass"
) -> tuple[MatrixMeasure, ...]:
    """Canonical whole-matrix names of ``measures``, or a clear refusal.

    Duplicates are dropped (first occurrence kept).

    Raises
    ------
    OptionError
        For a measure that exists but has no whole-matrix definition (precision,
        F1, ...): names it, lists the valid ones and suggests ``macro``/``micro``.
    UnknownNameError
        For a name that is no measure at all.

    Examples
    --------
    >>> from aggframe.measures.matrix import resolve_matrix_measures
    >>> resolve_matrix_measures(["matthews", "kappa_quadratic", "ba"])
    ('mcc', 'kappa_quadratic', 'balanced_accuracy')
    >>> resolve_matrix_measures("precision")
    Traceback (most recent call last):
    ...
    aggframe.exceptions.OptionError: measure 'precision' has no whole-matrix definition, so operator 'multiclass' cannot compute it; ...
    """
    items = [measures] if isinstance(measures, str | Measure) else list(measures)
    valid = ", ".join(MATRIX_MEASURES)
    out: list[MatrixMeasure] = []
    for item in items:
        canon = _canonical(item)
        if canon is None:
            label = item.name if isinstance(item, Measure) else item
            if not isinstance(item, Measure):
                try:
                    get_measure(item)
                except UnknownNameError:
                    raise UnknownNameError(unknown_measure(label)) from None
            msg = (
                f"measure {label!r} has no whole-matrix definition, so operator {operator!r} cannot "
                f"compute it; {operator!r} takes: {valid}. For {label!r} averaged over the classes "
                "use operator 'macro' (mean of the per-class values) or 'micro' (the pooled cells)"
            )
            raise OptionError(msg)
        if canon not in out:
            out.append(canon)
    return tuple(out)


# ---------------------------------------------------------------------------
# Plumbing: a constant key stands in for "no keys", so every step is a group-by


def _keyed(conf: pl.LazyFrame, keys: Sequence[str]) -> tuple[pl.LazyFrame, list[str]]:
    if keys:
        return conf, list(keys)
    return conf.with_columns(pl.lit(0, dtype=pl.Int8).alias(_ALL)), [_ALL]


def _with_universe(left: pl.LazyFrame, classes: pl.LazyFrame, ukeys: Sequence[str]) -> pl.LazyFrame:
    if ukeys:
        return left.join(classes, on=list(ukeys), how="inner", nulls_equal=True)
    return left.join(classes, how="cross")


#: Column names of the input and output contracts: no key may take one.
_RESERVED = ("_yt", "_yp", "n", "class", "_rank", "measure", "value", "y_true", "y_pred", "count", "rate")


def _check_keys(keys: Sequence[str], ukeys: Sequence[str]) -> None:
    """The caller's key lists: ``ukeys`` within ``keys``, no reserved or internal name (a caller bug)."""
    extra = [u for u in ukeys if u not in keys]
    if extra:
        msg = f"universe keys {extra} are not among the group keys {list(keys)}"
        raise OptionError(msg)
    taken = [k for k in keys if k in _RESERVED or k.startswith("__mx")]
    if taken:
        msg = f"key column {taken[0]!r} collides with a column of the matrix tables ({', '.join(_RESERVED)})"
        raise OptionError(msg)


# ---------------------------------------------------------------------------
# Measures


def matrix_values(
    conf: pl.LazyFrame | None,
    classes: pl.LazyFrame,
    keys: Sequence[str],
    ukeys: Sequence[str],
    measures: str | Sequence[str],
    *,
    cells: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """Whole-matrix measures per group: ``*keys, "measure", "value"``.

    Parameters
    ----------
    conf
        Confusion counts ``*keys, "_yt", "_yp", "n"`` (pairs with ``n = 0`` may be absent).
        With ``cells``, only the weighted kappas need them (else None will do).
    classes
        The class universe ``*ukeys, "class", "_rank"``; used only by the weighted kappas.
    cells
        The per-class cells of the same single-label data, ``*keys, "class", "tp",
        "fp", "fn", "tn"``: the margins (``t = tp + fn``, ``p = tp + fp``, the
        diagonal ``tp``) are read off them instead of summed from ``conf``. Every
        measure but the weighted kappas is a function of the margins alone.
    keys
        Group key columns of ``conf`` (may be empty; a null key is a group).
    ukeys
        The keys that select a universe (a subset of ``keys``; empty: one universe).
    measures
        Names from :data:`MATRIX_MEASURES` (or aliases; see :func:`resolve_matrix_measures`).

    Returns
    -------
    pl.LazyFrame
        One row per group and measure (measures in the order asked), sorted by the
        keys (nulls last); ``value`` Float64, null where the measure is undefined
        (see the module docstring for when, and what scikit-learn returns there).

    Examples
    --------
    >>> import polars as pl
    >>> from aggframe.measures.matrix import matrix_values
    >>> conf = pl.LazyFrame(
    ...     {"_k": ["x", "x", "x", None], "_yt": [0, 1, 2, 0], "_yp": [0, 2, 2, 1], "n": [2, 1, 1, 3]}
    ... )
    >>> classes = pl.LazyFrame({"class": [0, 1, 2], "_rank": [0, 1, 2]})
    >>> matrix_values(conf, classes, ["_k"], [], ["mcc", "kappa_linear"]).collect()
    shape: (4, 3)
    ┌──────┬──────────────┬─────────┐
    │ _k   ┆ measure      ┆ value   │
    │ ---  ┆ ---          ┆ ---     │
    │ str  ┆ str          ┆ f64     │
    ╞══════╪══════════════╪═════════╡
    │ x    ┆ mcc          ┆ 0.67082 │
    │ x    ┆ kappa_linear ┆ 0.75    │
    │ null ┆ mcc          ┆ null    │
    │ null ┆ kappa_linear ┆ 0.0     │
    └──────┴──────────────┴─────────┘
    """
    names = resolve_matrix_measures(measures)
    wide = matrix_columns(conf, classes, keys, ukeys, names, cells=cells)
    k = list(keys) or [_ALL]
    if not keys:
        wide = wide.with_columns(pl.lit(0, dtype=pl.Int8).alias(_ALL))
    order = pl.Enum(list(names))
    out = (
        wide.unpivot(index=k, on=list(names), variable_name="measure", value_name="value")
        .with_columns(pl.col("measure").cast(order))
        .sort([*k, "measure"], nulls_last=True)
        .with_columns(pl.col("measure").cast(pl.String))
    )
    return out.select(*keys, "measure", "value")


def matrix_columns(
    conf: pl.LazyFrame | None,
    classes: pl.LazyFrame,
    keys: Sequence[str],
    ukeys: Sequence[str],
    measures: str | Sequence[str],
    *,
    cells: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """:func:`matrix_values` wide: one row per group (unsorted), ``*keys``, then one column per measure.

    The same arguments; the columns are named by the canonical measure names.

    Examples
    --------
    >>> import polars as pl
    >>> from aggframe.measures.matrix import matrix_columns
    >>> conf = pl.LazyFrame({"_yt": ["a", "a", "b"], "_yp": ["a", "b", "b"], "n": [2, 1, 1]})
    >>> classes = pl.LazyFrame({"class": ["a", "b"], "_rank": [0, 1]})
    >>> matrix_columns(conf, classes, [], [], ["accuracy"]).collect()["accuracy"].to_list()
    [0.75]
    """
    names = resolve_matrix_measures(measures)
    _check_keys(keys, ukeys)
    weighted = [m for m in names if m in _WEIGHTED]
    if conf is None and (weighted or cells is None):
        msg = "the weighted kappas need the confusion counts (conf), and without cells so does every measure"
        raise OptionError(msg)
    u = list(ukeys)
    conf, margins, k = _prepare_margins(conf, cells, keys)
    t, p, tp = pl.col("__mx_t"), pl.col("__mx_p"), pl.col("__mx_tp")
    aggs = [
        t.sum().alias("__mx_s"),
        tp.sum().alias("__mx_c"),
        (t * p).sum().alias("__mx_stp"),
        (t * t).sum().alias("__mx_stt"),
        (p * p).sum().alias("__mx_spp"),
        ratio(tp, t).mean().alias("__mx_ba"),  # the mean skips the null recalls of classes with t = 0
        (t > 0).sum().cast(pl.Float64).alias("__mx_K"),
    ]
    if not weighted:
        groups = margins.group_by(k).agg(aggs)
    else:
        assert conf is not None  # checked above
        ranks = classes.select(*u, "class", pl.col("_rank").cast(pl.Float64))
        per_class = margins.join(ranks, on=[*u, "class"], how="left", nulls_equal=True)
        per_class, more = _rank_moments(per_class, k, names)
        groups = per_class.group_by(k).agg(aggs + more)
        groups = groups.join(_observed_weights(conf, classes, u, k), on=k, how="left", nulls_equal=True)
    exprs = _matrix_exprs(names)
    return groups.select(*keys, *(exprs[m].cast(pl.Float64).alias(m) for m in names))


def _prepare_margins(
    conf: pl.LazyFrame | None, cells: pl.LazyFrame | None, keys: Sequence[str]
) -> tuple[pl.LazyFrame | None, pl.LazyFrame, list[str]]:
    """The confusion counts keyed, and per (group, class) the true count ``__mx_t`` (tp + fn), the
    predicted count ``__mx_p`` (tp + fp) and the diagonal ``__mx_tp``: from the cells when given."""
    k: list[str] = []
    if conf is not None:
        conf, k = _keyed(conf, keys)
    if cells is None:
        assert conf is not None
        return conf, _margins(conf, k), k
    f64 = pl.Float64
    cells, k = _keyed(cells, keys)
    cell_tp = pl.col("tp").cast(f64)
    margins = cells.select(
        *k,
        "class",
        (cell_tp + pl.col("fn").cast(f64)).alias("__mx_t"),
        (cell_tp + pl.col("fp").cast(f64)).alias("__mx_p"),
        cell_tp.alias("__mx_tp"),
    )
    return conf, margins, k


def _rank_moments(
    per_class: pl.LazyFrame, k: Sequence[str], names: Sequence[str]
) -> tuple[pl.LazyFrame, list[pl.Expr]]:
    """The expected side of the weighted kappas: per-class columns over the ranks and their sums."""
    t, p, r = pl.col("__mx_t"), pl.col("__mx_p"), pl.col("_rank")
    s_w = t.sum().over(k)
    aggs: list[pl.Expr] = []
    if "kappa_quadratic" in names:
        # centred rank moments: sum_j t_j (j - mean_t)^2 etc. (no cancellation)
        mean_t = ratio((t * r).sum().over(k), s_w)
        mean_p = ratio((p * r).sum().over(k), s_w)
        per_class = per_class.with_columns(mean_t.alias("__mx_mt"), mean_p.alias("__mx_mp"))
        aggs += [
            (t * (r - pl.col("__mx_mt")) ** 2).sum().alias("__mx_vt"),
            (p * (r - pl.col("__mx_mp")) ** 2).sum().alias("__mx_vp"),
            pl.col("__mx_mt").first().alias("__mx_mt"),
            pl.col("__mx_mp").first().alias("__mx_mp"),
        ]
    if "kappa_linear" in names:
        # sum_jk |j - k| t_j p_k = sum over thresholds r of T(r) (s - P(r)) + (s - T(r)) P(r);
        # between two observed ranks T and P are constant: the gap multiplies the term
        cum_t = t.cum_sum().over(k, order_by="_rank")
        cum_p = p.cum_sum().over(k, order_by="_rank")
        gap = (r.shift(-1).over(k, order_by="_rank") - r).fill_null(0.0)
        per_class = per_class.with_columns(
            (gap * (cum_t * (s_w - cum_p) + (s_w - cum_t) * cum_p)).alias("__mx_lin")
        )
        aggs.append(pl.col("__mx_lin").sum().alias("__mx_elin"))
    return per_class, aggs


def _observed_weights(
    conf: pl.LazyFrame, classes: pl.LazyFrame, u: Sequence[str], k: Sequence[str]
) -> pl.LazyFrame:
    """The observed side of the weighted kappas: sum over the confusion counts of n w(rank true, rank predicted)."""
    f64 = pl.Float64
    n = pl.col("n").cast(f64)
    rt = classes.select(*u, pl.col("class").alias("_yt"), pl.col("_rank").cast(f64).alias("__mx_rt"))
    rp = classes.select(*u, pl.col("class").alias("_yp"), pl.col("_rank").cast(f64).alias("__mx_rp"))
    d = pl.col("__mx_rt") - pl.col("__mx_rp")
    return (
        conf.join(rt, on=[*u, "_yt"], how="left", nulls_equal=True)
        .join(rp, on=[*u, "_yp"], how="left", nulls_equal=True)
        .group_by(k)
        .agg((n * d.abs()).sum().alias("__mx_olin"), (n * d * d).sum().alias("__mx_oquad"))
    )


def _matrix_exprs(names: Sequence[str]) -> dict[str, pl.Expr]:
    """Each measure over the group sums (``__mx_s``, ``__mx_c``, ...)."""
    s, c, stp = pl.col("__mx_s"), pl.col("__mx_c"), pl.col("__mx_stp")
    ba, K = pl.col("__mx_ba"), pl.col("__mx_K")
    exprs: dict[str, pl.Expr] = {
        "accuracy": ratio(c, s),
        "mcc": ratio(c * s - stp, ((s * s - pl.col("__mx_spp")) * (s * s - pl.col("__mx_stt"))).sqrt()),
        "kappa": ratio(c * s - stp, s * s - stp),
        "balanced_accuracy": pl.when(K > 0).then(ba),
        "balanced_accuracy_adjusted": ratio(K * ba - 1.0, K - 1.0),
    }
    if "kappa_linear" in names:
        exprs["kappa_linear"] = 1.0 - ratio(pl.col("__mx_olin") * s, pl.col("__mx_elin"))
    if "kappa_quadratic" in names:
        # sum_jk (j - k)^2 t_j p_k = s (sum t (j - mean_t)^2 + sum p (k - mean_p)^2) + s^2 (mean_t - mean_p)^2
        e_quad = (
            s * (pl.col("__mx_vt") + pl.col("__mx_vp")) + s * s * (pl.col("__mx_mt") - pl.col("__mx_mp")) ** 2
        )
        exprs["kappa_quadratic"] = 1.0 - ratio(pl.col("__mx_oquad") * s, e_quad)
    return exprs


def _margins(conf: pl.LazyFrame, k: Sequence[str]) -> pl.LazyFrame:
    """Per (group, observed class) of the confusion counts: true count, predicted count, diagonal count."""
    f64 = pl.Float64
    n = pl.col("n").cast(f64)
    zero = pl.lit(0.0, dtype=f64)
    return (
        pl.concat(
            [
                conf.select(
                    *k,
                    pl.col("_yt").alias("class"),
                    n.alias("__mx_t"),
                    zero.alias("__mx_p"),
                    pl.when(pl.col("_yt") == pl.col("_yp")).then(n).otherwise(zero).alias("__mx_tp"),
                ),
                conf.select(
                    *k,
                    pl.col("_yp").alias("class"),
                    zero.alias("__mx_t"),
                    n.alias("__mx_p"),
                    zero.alias("__mx_tp"),
                ),
            ]
        )
        .group_by(*k, "class")
        .agg(pl.col("__mx_t", "__mx_p", "__mx_tp").sum())
    )


# ---------------------------------------------------------------------------
# Confusion matrix


def confusion_matrix_frame(
    conf: pl.LazyFrame,
    classes: pl.LazyFrame,
    keys: Sequence[str],
    ukeys: Sequence[str],
    normalize: Normalize | None = None,
) -> pl.LazyFrame:
    """The tidy confusion matrix per group: ``*keys, "y_true", "y_pred", "count"`` [+ ``"rate"``].

    Every ``(y_true, y_pred)`` pair of the group's universe is present (zeros
    included), sorted by the keys (nulls last), then the true and the predicted
    class in universe order.

    Parameters
    ----------
    conf, classes, keys, ukeys
        As for :func:`matrix_values`.
    normalize
        ``"true"`` (rows sum to 1), ``"pred"`` (columns), ``"all"`` (the group) or
        None. When given, a Float64 ``rate`` column is added, null where the
        normaliser is 0 (scikit-learn gives 0 there: convention ``zero``).

    Examples
    --------
    >>> import polars as pl
    >>> from aggframe.measures.matrix import confusion_matrix_frame
    >>> conf = pl.LazyFrame({"_yt": ["a", "a", "b"], "_yp": ["a", "b", "b"], "n": [2, 1, 1]})
    >>> classes = pl.LazyFrame({"class": ["b", "a", "c"], "_rank": [0, 1, 2]})
    >>> confusion_matrix_frame(conf, classes, [], [], "true").head(4).collect()
    shape: (4, 4)
    ┌────────┬────────┬───────┬──────────┐
    │ y_true ┆ y_pred ┆ count ┆ rate     │
    │ ---    ┆ ---    ┆ ---   ┆ ---      │
    │ str    ┆ str    ┆ i64   ┆ f64      │
    ╞════════╪════════╪═══════╪══════════╡
    │ b      ┆ b      ┆ 1     ┆ 1.0      │
    │ b      ┆ a      ┆ 0     ┆ 0.0      │
    │ b      ┆ c      ┆ 0     ┆ 0.0      │
    │ a      ┆ b      ┆ 1     ┆ 0.333333 │
    └────────┴────────┴───────┴──────────┘
    """
    if normalize is not None and normalize not in _NORMALIZE:
        msg = f"Expected `normalize` to be one of {', '.join(_NORMALIZE)} or None, got {normalize!r}"
        raise OptionError(msg)
    _check_keys(keys, ukeys)
    conf, k = _keyed(conf, keys)
    u = list(ukeys)
    counts = conf.group_by(*k, "_yt", "_yp").agg(pl.col("n").sum().cast(pl.Int64))
    groups = conf.select(k).unique()
    true_side = classes.select(*u, pl.col("class").alias("y_true"), pl.col("_rank").alias("__mx_rt"))
    pred_side = classes.select(*u, pl.col("class").alias("y_pred"), pl.col("_rank").alias("__mx_rp"))
    pairs = (
        true_side.join(pred_side, on=u, how="inner", nulls_equal=True)
        if u
        else true_side.join(pred_side, how="cross")
    )
    grid = _with_universe(groups, pairs, u).join(
        counts,
        left_on=[*k, "y_true", "y_pred"],
        right_on=[*k, "_yt", "_yp"],
        how="left",
        nulls_equal=True,
    )
    out = grid.with_columns(pl.col("n").fill_null(0).alias("count"))
    cols = [*keys, "y_true", "y_pred", "count"]
    if normalize is not None:
        over = {"true": [*k, "y_true"], "pred": [*k, "y_pred"], "all": k}[normalize]
        den = pl.col("count").sum().over(over).cast(pl.Float64)
        out = out.with_columns(ratio(pl.col("count").cast(pl.Float64), den).alias("rate"))
        cols.append("rate")
    return out.sort([*k, "__mx_rt", "__mx_rp"], nulls_last=True).select(cols)
