"""Measures on scores estimated from calibrated probabilities: AUROC, log loss and Brier.

All three read the *bin table* of the scan (per group, class and score bin of
width 1/1000: the entries ``n``, the sum of their calibrated probabilities
``q_sum`` and the loss sums), never the rows again.

AUROC (NannyML CBPE's method)
    For each threshold ``t`` on the model's score, the expected true positives
    are ``TP(t) = sum q`` and the expected false positives ``FP(t) = sum (1 - q)``
    over the entries with score ``>= t``; the estimate is the area under the
    expected ROC curve ``(FP(t) / FP, TP(t) / TP)`` (trapezoids). NannyML's
    ``estimate_roc_auc`` takes every row as a threshold in the order of the raw
    scores; here the thresholds are the grid's bins, and the entries of one bin
    are one step (a straight segment). When ``q`` is constant within a bin (a
    fitted map without renormalisation) the two areas are the same; otherwise
    they differ by at most the area of the segments within bins. The realized
    AUROC of the labelled entries is computed on the same grid (ties within a
    bin count one half), so it may differ from ``evaluate``'s exact AUROC by the
    order of the entries within bins.
log loss, Brier
    Expected values: with the truth ``y ~ Bernoulli(q)``, an entry's expected
    log loss is ``-(q log p + (1 - q) log(1 - p))`` and its expected Brier score
    ``q (1 - p)^2 + (1 - q) p^2``, ``p`` the model's probability (clipped to
    ``[eps, 1 - eps]`` in the log). As in ``evaluate`` every (example, class)
    entry is a binary probability: the value of a class is the mean over its
    entries, micro the mean over all entries, macro the mean over classes,
    weighted by positives (expected: ``sum q``).

Operators: ``binary`` (the positive class), ``micro``, ``macro``, ``weighted``.
The interval (``n_draws``) covers AUROC: the positives of each bin are drawn
from a binomial with the bin's entries and mean calibrated probability (the
Poisson-binomial count exactly when ``q`` is constant within the bin, as with a
fitted map; slightly wider otherwise). Log loss and Brier: each class's loss sum is
drawn from a normal with its variance ``sum q (1 - q) (l1 - l0)^2`` (with the
example's covariance under single-label truth: :func:`_drawn_losses`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from aggframe._columns import CLASS_ROLE
from aggframe.decisions.estimate_cells import BIN, BinTable, T
from aggframe.decisions.estimate_draws import per_draw
from aggframe.decisions.estimate_loss_draws import joint_weighted
from aggframe.decisions.estimate_report import ESTIMATED, KIND, REALIZED
from aggframe.exceptions import OptionError

__all__ = ["SCORE_MEASURES", "score_report"]

#: The measures on scores that :func:`~aggframe.estimate` estimates.
SCORE_MEASURES = ("auroc", "log_loss", "brier")
_OPERATORS = ("binary", "micro", "macro", "weighted")
#: Prefix of the classes' loss values whose draws move together over an example (macro, weighted).
JOINT = "_joint_"
#: Prefixes of the classes' loss values and weights in the weighted operator's draws (single-label
#: truth: the loss sums drawn jointly with the class counts that weigh them, :mod:`.estimate_loss_draws`).
WEIGHTED, LOSS_WEIGHT = "_weighted_", "_lossweight_"
#: The variance sums of the bin table a class's draws read (:data:`~aggframe.decisions.estimate_cells.LOSSES`).
_SPREADS = ("ll_v", "br_v", "ll_m", "br_m", "ll_a", "br_a", "ll_b", "br_b")


def check_score_request(scores: Sequence[str], operators: Sequence[str]) -> None:
    """Refuse measures on scores other than AUROC, log loss and Brier, and operators without a value."""
    for m in scores:
        if m not in SCORE_MEASURES:
            msg = f"estimate does not estimate the measure on scores {m!r}; it estimates {', '.join(SCORE_MEASURES)}"
            raise OptionError(msg)
    for op in operators:
        if scores and op not in _OPERATORS:
            msg = (
                f"operator {op!r} does not apply to the estimated measures on scores ({', '.join(scores)}); "
                f"their operators: {', '.join(_OPERATORS)}"
            )
            raise OptionError(msg)


def _ranking_kinds(bt: BinTable) -> pl.DataFrame:
    """Per (group, kind, class, bin): pos, neg (estimated and realized)."""
    assert bt.bins is not None
    g = [*bt.keys, CLASS_ROLE, BIN]
    t, n = pl.col(T), pl.col("n")
    estimated = bt.bins.group_by(g).agg(
        pl.col("q_sum").sum().alias("pos"), (n - pl.col("q_sum")).sum().alias("neg")
    )
    realized = (
        bt.bins.filter(t.is_not_null())
        .group_by(g)
        .agg((n * t).sum().alias("pos"), (n * (1.0 - t)).sum().alias("neg"))
    )
    return pl.concat(
        [
            estimated.with_columns(pl.lit(ESTIMATED, pl.Int64).alias(KIND)),
            realized.with_columns(pl.lit(REALIZED, pl.Int64).alias(KIND)),
        ]
    )


def _segment_auc(pos: np.ndarray, neg: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """AUROC of each segment of columns (rows of a segment sorted by bin, descending), per draw: (draws, segments)."""
    above = np.cumsum(pos, axis=1) - pos  # one running sum; a segment's start is subtracted
    area = np.add.reduceat(neg * above, starts, axis=1) - above[:, starts] * np.add.reduceat(
        neg, starts, axis=1
    )
    area += np.add.reduceat(neg * pos, starts, axis=1) / 2.0
    p, n = np.add.reduceat(pos, starts, axis=1), np.add.reduceat(neg, starts, axis=1)
    out = np.full(area.shape, np.nan)
    ok = (p > 0) & (n > 0)
    out[ok] = area[ok] / (p * n)[ok]
    return out


def _starts(frame: pl.DataFrame, cols: list[str]) -> np.ndarray:
    """The first row of each run of equal ``cols`` (the frame is sorted by them)."""
    if frame.height == 0:
        return np.zeros(0, dtype=np.int64)
    change = pl.any_horizontal([pl.col(c).ne_missing(pl.col(c).shift(1)) for c in cols]).fill_null(value=True)
    return np.flatnonzero(frame.select(change.alias("c"))["c"].to_numpy())


def _drawn_auroc(bt: BinTable, n_draws: int, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """AUROC of each draw, per class and pooled (micro): the positives of each bin drawn from a binomial.

    A bin's positives: binomial with the bin's entries and mean calibrated probability (exact
    where q is constant in the bin, as with a fitted map; slightly wide otherwise). A normal draw
    clipped to [0, n] would be biased at the ends of the curve. Computed in NumPy on the bin table.
    """
    assert bt.bins is not None
    keys, g = list(bt.keys), [*bt.keys, CLASS_ROLE]
    est = bt.bins.group_by([*g, BIN]).agg(pl.col("n", "q_sum").sum())
    est = est.sort([*g, BIN], descending=[False] * len(g) + [True], nulls_last=True)
    size = est["n"].to_numpy()
    mean = np.clip(
        np.divide(est["q_sum"].to_numpy(), size, out=np.zeros_like(size), where=size > 0), 0.0, 1.0
    )
    pos = np.random.default_rng(seed + 1).binomial(
        np.rint(size).astype(np.int64), mean, size=(n_draws, est.height)
    )
    pos = pos.astype(np.float64)
    neg = size[None, :] - pos
    cls_starts = _starts(est, g)
    per_class = _draw_frame(est[cls_starts].select(*g), _segment_auc(pos, neg, cls_starts))
    # pooled over classes: the rows of each (group, bin) summed, then one segment per group
    order = est.with_row_index("_i").sort(
        [*keys, BIN], descending=[False] * len(keys) + [True], nulls_last=True
    )
    perm = order["_i"].to_numpy()
    runs = _starts(order, [*keys, BIN])
    pooled_pos = np.add.reduceat(pos[:, perm], runs, axis=1)
    pooled_neg = np.add.reduceat(neg[:, perm], runs, axis=1)
    pooled = order[runs]
    grp_starts = _starts(pooled, keys)
    micro = _draw_frame(pooled[grp_starts].select(*keys), _segment_auc(pooled_pos, pooled_neg, grp_starts))
    return per_class, micro


def _draw_frame(base: pl.DataFrame, values: np.ndarray) -> pl.DataFrame:
    """``base`` rows repeated per draw with the draw's value: base..., kind, auroc."""
    return per_draw(base, values.shape[0], KIND, {"auroc": values})


def _auroc(rows: pl.DataFrame, g: list[str]) -> pl.DataFrame:
    """The trapezoid area of the (expected) ROC curve per group ``g``, over bins (descending).

    ``sum_b neg_b (above_b + pos_b / 2) / (P N)``, ``above_b`` the positives of the
    group's higher bins: from one global running sum ``G`` (rows sorted by group, then
    bin descending), ``above_b = G_b - G_first`` of its group, so the whole is plain sums.
    """
    rows = rows.sort([*g, BIN], descending=[False] * len(g) + [True], nulls_last=True)
    rows = rows.with_columns((pl.col("pos").cum_sum() - pl.col("pos")).alias("_G"))
    neg, pos = pl.col("neg"), pl.col("pos")
    sums = rows.group_by(g, maintain_order=True).agg(
        (neg * pl.col("_G")).sum().alias("_a"),
        pl.col("_G").min().alias("_g0"),
        neg.sum().alias("_n"),
        (neg * pos).sum().alias("_np"),
        pos.sum().alias("_p"),
    )
    area = pl.col("_a") - pl.col("_g0") * pl.col("_n") + pl.col("_np") / 2.0
    ok = (pl.col("_p") > 0) & (pl.col("_n") > 0)
    value = pl.when(ok).then(area / (pl.col("_p") * pl.col("_n"))).otherwise(pl.lit(float("nan")))
    return sums.select(*g, value.alias("auroc"))


def _class_sums(bt: BinTable) -> pl.DataFrame:
    """Per (group, kind, class): entries, positives (the weight) and loss sums, estimated and realized."""
    g = [*bt.keys, CLASS_ROLE]
    f, t, n = bt.frame, pl.col(T), pl.col("n")
    losses = "ll_e" in f.columns
    est = f.group_by(g).agg(
        n.sum().alias("size"),
        pl.col("q_sum").sum().alias("weight"),
        *([pl.col("ll_e").sum().alias("ll"), pl.col("br_e").sum().alias("br")] if losses else []),
        *([pl.col(c).sum().alias(c.replace("_", "")) for c in _SPREADS] if losses else []),
        pl.col("v_sum").sum().alias("v"),
    )
    real = (
        f.filter(t.is_not_null())
        .group_by(g)
        .agg(
            n.sum().alias("size"),
            (n * t).sum().alias("weight"),
            *([pl.col("ll_r").sum().alias("ll"), pl.col("br_r").sum().alias("br")] if losses else []),
            *([pl.lit(0.0).alias(c.replace("_", "")) for c in _SPREADS] if losses else []),
            pl.lit(0.0).alias("v"),
        )
    )
    return pl.concat(
        [
            est.with_columns(pl.lit(ESTIMATED, pl.Int64).alias(KIND)),
            real.with_columns(pl.lit(REALIZED, pl.Int64).alias(KIND)).select([*est.columns, KIND]),
        ],
        how="vertical_relaxed",
    )


def _loss_values(sums: pl.DataFrame, keys: list[str], names: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per class and pooled (micro): the mean log loss and Brier score of the entries."""
    means = [
        (pl.col(c) / pl.col("size")).alias(m) for c, m in (("ll", "log_loss"), ("br", "brier")) if m in names
    ]
    per_class = sums.with_columns(*means)
    pooled = (
        sums.group_by(keys)
        .agg(pl.col("size", *(c for c in ("ll", "br") if c in sums.columns)).sum())
        .with_columns(*means)
    )
    return per_class, pooled


def _drawn_losses(
    sums: pl.DataFrame, keys: list[str], n_draws: int, seed: int, *, single_label: bool
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per draw, class and pooled (micro): the log loss and Brier sums drawn from normals.

    Per (group, class) the realized loss sum is a sum of independent two-point variables
    (``l1`` with probability ``q``, ``l0`` otherwise) with mean ``ll`` and variance ``llv``
    (Brier: ``br``, ``brv``), drawn as a normal clipped to its range. The classes of a
    single-label example move together: over a group the sum's variance is ``llm`` summed
    (``brm``), so the pooled draw and the classes' draws for macro (``ll_j``, ``br_j``) scale
    the class deviations by ``sqrt(sum llm / sum llv)`` per group (1 with independent
    entries). The weighted operator's draws (``ll_w``, ``br_w`` and the class weights ``ll_lw``,
    ``br_lw``): under single-label truth the loss sums drawn jointly with the class counts
    (:func:`~aggframe.decisions.estimate_loss_draws.joint_weighted`), else ``ll_j`` with the
    expected weights. Returns (keys..., kind,
    class, weight, size, ll, br, ll_j, br_j, ll_w, br_w, ll_lw, br_lw) per class and (keys...,
    kind, size, ll, br) pooled.
    """
    est = sums.filter(pl.col(KIND) == ESTIMATED).sort([*keys, CLASS_ROLE], nulls_last=True)
    v = pl.col("llv", "brv", "llm", "brm").clip(lower_bound=0.0)
    ratio = est.select(v.sum().over(keys).name.suffix("_g"))  # keys: never empty (a stand-in)
    size = est["size"].to_numpy()
    z = np.random.default_rng(seed + 2).standard_normal((2, n_draws, est.height))
    joint_rng = np.random.default_rng(seed + 3)
    base = est.select(*keys, CLASS_ROLE, "weight", "size")
    weight = np.broadcast_to(est["weight"].to_numpy(), (n_draws, est.height))
    cols: dict[str, np.ndarray] = {}
    for i, (c, high) in enumerate((("ll", np.full(size.shape, np.inf)), ("br", size))):
        total_v, total_m = ratio[f"{c}v_g"].to_numpy(), ratio[f"{c}m_g"].to_numpy()
        scale = np.sqrt(np.divide(total_m, total_v, out=np.ones_like(total_v), where=total_v > 0))
        dev = np.sqrt(np.maximum(est[f"{c}v"].to_numpy(), 0.0)) * z[i]
        mean = est[c].to_numpy()
        cols[c] = np.clip(mean + dev, 0.0, high).reshape(-1)
        cols[f"{c}_j"] = np.clip(mean + scale * dev, 0.0, high).reshape(-1)
        if single_label:
            drawn_w, drawn_l = joint_weighted(est, keys, c, n_draws, joint_rng)
            cols[f"{c}_w"] = np.clip(drawn_l, 0.0, high).reshape(-1)
            cols[f"{c}_lw"] = np.clip(drawn_w, 0.0, size).reshape(-1)
        else:
            cols[f"{c}_w"], cols[f"{c}_lw"] = cols[f"{c}_j"], weight.reshape(-1)
    per_class = per_draw(base, n_draws, KIND, cols)
    pooled = per_class.group_by([*keys, KIND]).agg(
        pl.col("size").sum(), pl.col("ll_j").sum().alias("ll"), pl.col("br_j").sum().alias("br")
    )
    return per_class, pooled


def score_report(
    bt: BinTable,
    request: Any,
    *,
    n_draws: int,
    seed: int,
    pos_label: Any,
    class_dtype: pl.DataType,
    single_label: bool = False,
) -> pl.DataFrame:
    """keys..., kind, measure, operator, value of the measures on scores asked for (every kind).

    ``single_label``: the truth is single-label (renormalised probabilities): the weighted
    operator's draws of the losses draw the class weights too (:mod:`.estimate_loss_draws`).
    """
    check_score_request(request.scores, request.operators)
    keys = [*bt.keys, KIND]
    names = list(request.scores)
    sums = _class_sums(bt)
    per_class, micro = _loss_values(sums, keys, names)
    losses = [m for m in names if m != "auroc"]
    per_class = per_class.select(*keys, CLASS_ROLE, "weight", *losses)
    micro = micro.select(*keys, *losses)
    # the classes' values for macro and weighted: the same but for draws of single-label examples
    per_class = per_class.with_columns(
        *[pl.col(m).alias(JOINT + m) for m in losses],
        *[pl.col(m).alias(WEIGHTED + m) for m in losses],
        *[pl.col("weight").alias(LOSS_WEIGHT + m) for m in losses],
    )
    if n_draws and losses:
        drawn_class, drawn_micro = _drawn_losses(sums, bt.keys, n_draws, seed, single_label=single_label)
        pairs = (("ll", "log_loss"), ("br", "brier"))
        means = [(pl.col(c) / pl.col("size")).alias(m) for c, m in pairs]
        means += [(pl.col(f"{c}_j") / pl.col("size")).alias(JOINT + m) for c, m in pairs]
        means += [(pl.col(f"{c}_w") / pl.col("size")).alias(WEIGHTED + m) for c, m in pairs]
        means += [pl.col(f"{c}_lw").alias(LOSS_WEIGHT + m) for c, m in pairs]
        drawn_class = drawn_class.with_columns(*means).select(per_class.columns)
        drawn_micro = drawn_micro.with_columns(*means[:2]).select(micro.columns)
        per_class = pl.concat([per_class, drawn_class], how="vertical_relaxed")
        micro = pl.concat([micro, drawn_micro], how="vertical_relaxed")
    if "auroc" in names:
        kinds = _ranking_kinds(bt)
        auc = _auroc(kinds, [*keys, CLASS_ROLE])
        pooled = _auroc(kinds.group_by([*keys, BIN]).agg(pl.col("pos", "neg").sum()), keys)
        if n_draws:
            drawn_class, drawn_micro = _drawn_auroc(bt, n_draws, seed)
            auc = pl.concat([auc, drawn_class.select(auc.columns)], how="vertical_relaxed")
            pooled = pl.concat([pooled, drawn_micro.select(pooled.columns)], how="vertical_relaxed")
        per_class = auc.join(per_class, on=[*keys, CLASS_ROLE], how="left", nulls_equal=True)
        # a draw's classes weigh what the estimate's do
        expected = sums.filter(pl.col(KIND) == ESTIMATED).select(
            *bt.keys, CLASS_ROLE, pl.col("weight").alias("_w")
        )
        per_class = per_class.join(expected, on=[*bt.keys, CLASS_ROLE], how="left", nulls_equal=True)
        per_class = per_class.with_columns(pl.col("weight").fill_null(pl.col("_w")).fill_null(0.0)).drop("_w")
        micro = pooled.join(micro, on=keys, how="left", nulls_equal=True)
    joint = per_class.with_columns(pl.col(JOINT + m).alias(m) for m in losses)
    weighted = per_class.with_columns(pl.col(WEIGHTED + m).alias(m) for m in losses)
    frames = {"binary": per_class, "weighted": weighted}
    out = [
        _operator(
            op,
            frames.get(op, joint),
            micro,
            keys,
            names=names,
            pos_label=pos_label,
            dtype=class_dtype,
        )
        for op in request.operators
    ]
    res = pl.concat(out, how="vertical_relaxed").select(
        *keys, "measure", "operator", pl.col("value").cast(pl.Float64)
    )
    return res.drop_nulls("value")


def _operator(
    op: str,
    per_class: pl.DataFrame,
    micro: pl.DataFrame,
    keys: list[str],
    *,
    names: list[str],
    pos_label: Any,
    dtype: pl.DataType,
) -> pl.DataFrame:
    """The values of one operator: micro (pooled), binary (the positive class), macro or weighted (means over classes)."""
    if op == "micro":
        vals = micro.select(*keys, *names)
    elif op == "binary":
        vals = per_class.filter(pl.col(CLASS_ROLE) == pl.lit(pos_label).cast(dtype)).select(*keys, *names)
    else:

        def mean(m: str) -> pl.Expr:
            # the losses' own weights (drawn with them under single-label truth); AUROC's: expected
            lw = LOSS_WEIGHT + m
            w = pl.col(lw if lw in per_class.columns else "weight") if op == "weighted" else pl.lit(1.0)
            ok = pl.col(m).is_finite()
            return ((pl.col(m) * w).filter(ok).sum() / w.filter(ok).sum()).alias(m)

        vals = per_class.group_by(keys, maintain_order=True).agg(*[mean(m) for m in names])
    return vals.unpivot(on=names, index=keys, variable_name="measure", value_name="value").with_columns(
        pl.lit(op).alias("operator")
    )
