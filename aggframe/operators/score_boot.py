"""Bootstrap replicates of the measures on scores: weighted curves per replicate, in one plan.

The replicates are the cell measures' (:mod:`aggframe.wide.bootstrap`): a row
weighs ``w_b``, the Poisson(1) weight that a seeded hash of its unit id (the
example) gives it in replicate ``b``, so an interval of ``f1`` and one of
``auroc`` come from the same resamples and a difference between two models
scored on the same examples is paired. Replicate ``b``'s AUROC and average
precision are scikit-learn's ``roc_auc_score`` / ``average_precision_score``
with ``sample_weight=w_b`` (tested), computed for every replicate at once:

1. The rows (row keys, class, score, truth, unit hash) cross to Polars once and
   are sorted by (group, score descending); ``_gid`` numbers the groups in that
   order (a sorted key: the group-by below reads each group as one slice).
2. One group-by over the groups whose aggregations are, per replicate, weighted
   cumulative sums down the sorted scores: with ``p_i = w_b y_i`` and ``n_i = w_b
   (1 - y_i)``, ``TP_i``/``FP_i`` the cumulative sums at the end of row ``i``'s tie
   run (the last row of a run read back to its other rows),

   ``AUROC_b = (sum_i n_i TP_i + P N - sum_i p_i FP_i) / (2 P N)``

   (pairs with the positive scored at or above the negative, plus the pairs
   strictly above: ties count one half, the trapezoid of ``roc_auc_score``) and

   ``AP_b = sum_i p_i TP_i / (TP_i + FP_i) / P``

   (the step sum of ``average_precision_score``). All sums are of integers
   (exact); undefined where ``P = 0`` or ``N = 0`` (AP: ``P = 0``), as unweighted.
   The micro (pooled) entries are the same aggregation grouped by the row keys
   alone (a second sort). The replicate is a column index, never a Python loop:
   the expressions for the ``B`` replicates are built once and run in one plan.
3. Log loss and Brier are weighted means of per-row terms, ``ece`` a weighted
   reliability table of the same 15 uniform bins: plain weighted sums per
   (group, class[, bin]).

The entries (per replicate, group and class; pooled per replicate and group)
go through the package's one reduction
(:func:`~aggframe.operators.scores.reduce_entries`) with the replicate as one
more key; the ``weighted`` operator's weight is the replicate's weighted
positives. Not covered (refused by the caller): the ``exemplar`` and
``multiclass`` operators, quantised scores (``bins=``) and ``cluster=``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import narwhals as nw
import polars as pl

from aggframe._columns import PREFIX, REP, RESULT_COLUMNS, by_key
from aggframe._options import Bootstrap, Convention
from aggframe.exceptions import OptionError
from aggframe.operators.grouping import GROUPING_COLUMN, GROUPING_ID
from aggframe.operators.scores import ECE_BINS, _complete, reduce_entries
from aggframe.wide.bootstrap import unit_hash, weight_columns
from aggframe.wide.engines import to_polars
from aggframe.wide.ranking import EPS, ScoreFrame, uniform_bin

__all__ = [
    "BOOT_SCORE_OPERATORS",
    "boot_score_report",
    "check_boot_request",
    "replicate_rows",
    "replicate_values",
]

#: The operators of measures on scores that have bootstrap intervals.
BOOT_SCORE_OPERATORS = ("micro", "macro", "weighted")

_H = f"{PREFIX}sb_hash"
_W = f"{PREFIX}sb_w"
_GID = f"{PREFIX}sb_gid"
_S, _Y = f"{PREFIX}sb_score", f"{PREFIX}sb_y"
_LL, _BR, _PR, _BIN = f"{PREFIX}sb_ll", f"{PREFIX}sb_br", f"{PREFIX}sb_p", f"{PREFIX}sb_bin"
_RANKING = ("auroc", "average_precision")
_LOSSES = ("log_loss", "brier")


def _nlog(x: nw.Expr) -> nw.Expr:
    return -(x.clip(EPS, 1.0 - EPS).log())


def replicate_rows(sf: ScoreFrame, unit: str, boot: Bootstrap, *, what: str) -> pl.LazyFrame:
    """The score rows in Polars with each replicate's weight ``<_W><b>`` (UInt8), lazily.

    ``unit``: the frame's column of unit ids (hashed on the engine, as the cell
    bootstrap hashes them, so a row weighs the same here and there); ``what``
    its user name, for errors. Columns: row keys, class, score, truth (Int64),
    the per-row log-loss and Brier terms, the probability and its ece bin.
    """
    s = nw.col(sf.score).cast(nw.Float64)
    prob = 1.0 / (1.0 + (-s).exp()) if sf.logits else s
    y = nw.col(sf.y).cast(nw.Int64)
    yf = y.cast(nw.Float64)
    rows = sf.frame.select(
        *sf.row_keys,
        sf.class_,
        unit,
        s.alias(_S),
        y.alias(_Y),
        (yf * _nlog(prob) + (1.0 - yf) * _nlog(1.0 - prob)).alias(_LL),
        (yf * (1.0 - prob) * (1.0 - prob) + (1.0 - yf) * prob * prob).alias(_BR),
        prob.alias(_PR),
        uniform_bin(prob, ECE_BINS).alias(_BIN),
    )
    hashed = unit_hash(rows, unit, boot.seed, _H, what=what).drop(unit)
    weighted, _ = weight_columns(nw.from_native(to_polars(hashed)), _H, boot, prefix=_W)
    out = nw.to_native(weighted)
    assert isinstance(out, pl.LazyFrame)
    return out.drop(_H)


def _weights(n_boot: int) -> list[pl.Expr]:
    return [pl.col(f"{_W}{b}").cast(pl.Int64) for b in range(n_boot)]


def _ranking_sums(rows: pl.LazyFrame, group: list[str], n_boot: int) -> pl.LazyFrame:
    """Per group (sorted by score within it): ``_P<b>``, ``_N<b>``, ``_hi<b>``, ``_lo<b>``, ``_ap<b>``."""
    keyed = bool(group)
    group = group or [f"{PREFIX}sb_all"]
    if not keyed:
        rows = rows.with_columns(pl.lit(0, dtype=pl.Int8).alias(group[0]))
    ordered = rows.sort([*group, _S], descending=[*[False] * len(group), True], nulls_last=True)
    first = pl.lit(value=False)
    for k in group:
        first = first | pl.col(k).ne_missing(pl.col(k).shift(1))
    first = first | (pl.int_range(pl.len()) == 0)
    # the group id follows the sort: a sorted key, so the group-by reads each group as a slice
    ordered = ordered.with_columns(first.cum_sum().cast(pl.UInt32).set_sorted().alias(_GID))
    s = pl.col(_S)
    last = s.ne_missing(s.shift(-1))  # per group: the last row of a tie run (and of the group)
    y = pl.col(_Y)
    aggs: list[pl.Expr] = [pl.col(k).first() for k in group]
    for b, w in enumerate(_weights(n_boot)):
        p = w * y
        n = w - p
        tp = pl.when(last).then(p.cum_sum()).otherwise(None).fill_null(strategy="backward")
        fp = pl.when(last).then(n.cum_sum()).otherwise(None).fill_null(strategy="backward")
        aggs += [
            p.sum().alias(f"_P{b}"),
            n.sum().alias(f"_N{b}"),
            (n * tp).sum().alias(f"_hi{b}"),
            (p * fp).sum().alias(f"_lo{b}"),
            pl.when(p > 0).then(p * tp / (tp + fp)).otherwise(0.0).sum().alias(f"_ap{b}"),
        ]
    out = ordered.group_by(_GID).agg(aggs).drop(_GID)
    return out if keyed else out.drop(group)


def _long(frame: pl.LazyFrame, index: Sequence[str], columns: dict[str, list[pl.Expr]]) -> pl.LazyFrame:
    """One row per replicate: ``columns`` maps a name to its ``B`` expressions (replicate ``b`` at ``b``)."""
    n_boot = len(next(iter(columns.values())))
    wide = frame.select(
        *index,
        *[pl.concat_list(exprs).alias(name) for name, exprs in columns.items()],
        pl.int_ranges(0, n_boot, dtype=pl.Int64).alias(REP),
    )
    return wide.explode([*columns, REP])


def _ranking_values(sums: pl.LazyFrame, index: list[str], n_boot: int) -> pl.LazyFrame:
    """Tidy AUROC and AP entries (index..., REP, measure, value, weight) from :func:`_ranking_sums`."""

    def f(name: str, b: int) -> pl.Expr:
        return pl.col(f"{name}{b}").cast(pl.Float64)

    auroc, ap, weight = [], [], []
    for b in range(n_boot):
        pos, neg = f("_P", b), f("_N", b)
        pairs = pos * neg
        auroc.append(
            pl.when(pairs > 0).then((f("_hi", b) + pairs - f("_lo", b)) / (2.0 * pairs)).otherwise(None)
        )
        ap.append(pl.when(pos > 0).then(f("_ap", b) / pos).otherwise(None))
        weight.append(pos)
    out = _long(sums, index, {"auroc": auroc, "average_precision": ap, "weight": weight})
    return out.unpivot(
        on=list(_RANKING), index=[REP, *index, "weight"], variable_name="measure", value_name="value"
    )


def _loss_sums(rows: pl.LazyFrame, group: list[str], n_boot: int) -> pl.LazyFrame:
    ws = _weights(n_boot)
    return rows.group_by(group or pl.lit(0).alias(f"{PREFIX}sb_all")).agg(
        *[w.sum().alias(f"_n{b}") for b, w in enumerate(ws)],
        *[(w * pl.col(_Y)).sum().alias(f"_pos{b}") for b, w in enumerate(ws)],
        *[(w * pl.col(_LL)).sum().alias(f"_ll{b}") for b, w in enumerate(ws)],
        *[(w * pl.col(_BR)).sum().alias(f"_br{b}") for b, w in enumerate(ws)],
    )


def _loss_values(sums: pl.LazyFrame, index: list[str], n_boot: int, measures: list[str]) -> pl.LazyFrame:
    def f(name: str, b: int) -> pl.Expr:
        return pl.col(f"{name}{b}").cast(pl.Float64)

    def mean(name: str, b: int) -> pl.Expr:
        return pl.when(f("_n", b) > 0).then(f(name, b) / f("_n", b)).otherwise(None)

    cols = {
        "log_loss": [mean("_ll", b) for b in range(n_boot)],
        "brier": [mean("_br", b) for b in range(n_boot)],
        "weight": [f("_pos", b) for b in range(n_boot)],
    }
    out = _long(sums, index, {k: v for k, v in cols.items() if k in (*measures, "weight")})
    return out.unpivot(
        on=measures, index=[REP, *index, "weight"], variable_name="measure", value_name="value"
    )


def _ece_values(rows: pl.LazyFrame, group: list[str], n_boot: int) -> pl.LazyFrame:
    """``sum_bins |pos_b - s_b| / n_b`` per group and replicate: the weighted reliability table."""
    ws = _weights(n_boot)
    bins = rows.group_by([*group, _BIN]).agg(
        *[w.sum().alias(f"_n{b}") for b, w in enumerate(ws)],
        *[(w * pl.col(_Y)).sum().alias(f"_pos{b}") for b, w in enumerate(ws)],
        *[(w * pl.col(_PR)).sum().alias(f"_s{b}") for b, w in enumerate(ws)],
    )
    per = bins.group_by(group or pl.lit(0).alias(f"{PREFIX}sb_all")).agg(
        *[
            (pl.col(f"_pos{b}").cast(pl.Float64) - pl.col(f"_s{b}")).abs().sum().alias(f"_gap{b}")
            for b in range(n_boot)
        ],
        *[pl.col(f"_n{b}").sum().cast(pl.Float64).alias(f"_n{b}") for b in range(n_boot)],
        *[pl.col(f"_pos{b}").sum().cast(pl.Float64).alias(f"_pos{b}") for b in range(n_boot)],
    )
    values = [
        pl.when(pl.col(f"_n{b}") > 0).then(pl.col(f"_gap{b}") / pl.col(f"_n{b}")).otherwise(None)
        for b in range(n_boot)
    ]
    out = _long(per, group, {"ece": values, "weight": [pl.col(f"_pos{b}") for b in range(n_boot)]})
    return out.unpivot(on=["ece"], index=[REP, *group, "weight"], variable_name="measure", value_name="value")


def replicate_values(
    sf: ScoreFrame,
    rows: pl.LazyFrame,
    *,
    n_boot: int,
    measures: Sequence[str],
    operators: Sequence[str],
    conventions: Sequence[Convention],
) -> pl.LazyFrame:
    """The replicates' tidy rows (``REP``, row keys, measure, operator, convention, value, n_entries,
    n_undefined) of the measures on scores, from :func:`replicate_rows`; replicates ``0 .. n_boot - 1``."""
    rk, c = list(sf.row_keys), sf.class_
    kc = [*rk, c]
    per_class = bool({"macro", "weighted"} & set(operators))
    micro = "micro" in operators
    ranking = [m for m in measures if m in _RANKING]
    losses = [m for m in measures if m in _LOSSES]
    class_parts: list[pl.LazyFrame] = []
    pooled_parts: list[pl.LazyFrame] = []
    rows = rows.cache()
    if ranking:
        if per_class:
            class_parts.append(_ranking_values(_ranking_sums(rows, kc, n_boot), kc, n_boot))
        if micro:
            pooled_parts.append(_ranking_values(_ranking_sums(rows, rk, n_boot), rk, n_boot))
    if losses:
        sums = _loss_sums(rows, kc, n_boot)
        if per_class:
            class_parts.append(_loss_values(sums, kc, n_boot, losses))
        if micro:
            summed = sums.group_by(rk or pl.lit(0).alias(f"{PREFIX}sb_all")).agg(pl.all().exclude(kc).sum())
            pooled_parts.append(_loss_values(summed, rk, n_boot, losses))
    if "ece" in measures:
        if per_class:
            class_parts.append(_ece_values(rows, kc, n_boot))
        if micro:
            pooled_parts.append(_ece_values(rows, rk, n_boot))

    def stacked(parts: list[pl.LazyFrame], columns: list[str]) -> pl.LazyFrame | None:
        if not parts:
            return None
        out = pl.concat([p.select(columns) for p in parts], how="vertical_relaxed")
        # the ranking sums give both AUROC and AP: the ones asked for
        return out.filter(pl.col("measure").is_in(list(measures))).with_columns(
            pl.col("value", "weight").cast(pl.Float64)
        )

    keyed = replace(sf, row_keys=(REP, *rk))
    classes = stacked(class_parts, [REP, *kc, "measure", "value", "weight"])
    if classes is not None:
        # a class of the universe without rows in a group is an undefined entry in every replicate
        classes = _complete(classes, keyed, list(measures))
    pooled = stacked(pooled_parts, [REP, *rk, "measure", "value", "weight"])
    ops = [op for op in operators if op in BOOT_SCORE_OPERATORS]
    return reduce_entries([REP, *rk], operators=ops, conventions=conventions, classes=classes, pooled=pooled)


def check_boot_request(
    measures: Sequence[str], operators: Sequence[str], sf: ScoreFrame, *, cluster: str | None
) -> None:
    """Refuse what has no replicates yet: ``exemplar`` / ``multiclass``, quantised scores, ``cluster=``."""
    other = [op for op in operators if op not in BOOT_SCORE_OPERATORS]
    if other:
        msg = (
            f"n_boot= intervals of the measures on scores ({', '.join(measures)}) are computed for the "
            f"micro, macro and weighted operators; {other[0]!r} has none yet: evaluate it without n_boot"
        )
        raise OptionError(msg)
    if sf.bins is not None:
        msg = (
            "n_boot= intervals of the measures on scores need the exact scores; these predictions quantise "
            "them (from_scores(bins=...)): build them without bins"
        )
        raise OptionError(msg)
    if cluster is not None:
        msg = (
            "n_boot= intervals of the measures on scores resample the examples; cluster= is not supported "
            "for them yet: evaluate them without cluster="
        )
        raise OptionError(msg)


def boot_score_report(
    point: pl.LazyFrame,
    parts: Sequence[tuple[tuple[str, ...] | None, ScoreFrame, pl.LazyFrame]],
    *,
    by: Sequence[str],
    boot: Bootstrap,
    measures: Sequence[str],
    operators: Sequence[str],
    conventions: Sequence[Convention],
) -> pl.LazyFrame:
    """The report of the measures on scores with the replicate key: ``point`` (the data, from
    :func:`~aggframe.operators.scores.score_report`) as replicate ``-1``, then the replicates of each
    grouping set (``keep``; ``None``: the one grouping), ``parts`` giving its frame and
    :func:`replicate_rows`. Columns: by-keys, [grouping marks], ``REP``, the result columns."""
    by_keys = [by_key(i) for i in range(len(by))]
    marks = [GROUPING_COLUMN, GROUPING_ID] if parts and parts[0][0] is not None else []
    columns = [*by_keys, *marks, REP, *RESULT_COLUMNS]
    # the groups' example counts ride on the data's rows (replicate -1), where the summary reads them
    counted = "n_examples" in point.collect_schema().names()
    out = [
        point.with_columns(pl.lit(-1, dtype=pl.Int64).alias(REP)).select(columns + ["n_examples"] * counted)
    ]
    for keep, sf, rows in parts:
        reps = replicate_values(
            sf, rows, n_boot=boot.n_boot, measures=measures, operators=operators, conventions=conventions
        )
        if keep is not None:
            rolled = sum(1 << (len(by) - 1 - i) for i, c in enumerate(by) if c not in keep)
            reps = reps.with_columns(
                *[pl.lit(None).alias(k) for k in by_keys if k not in sf.row_keys],
                pl.lit(",".join(keep)).alias(GROUPING_COLUMN),
                pl.lit(rolled, dtype=pl.Int64).alias(GROUPING_ID),
            )
        if counted:
            reps = reps.with_columns(pl.lit(None, dtype=pl.Int64).alias("n_examples"))
        out.append(reps.select(columns + ["n_examples"] * counted))
    return pl.concat(out, how="vertical_relaxed")
