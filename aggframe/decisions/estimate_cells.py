"""The wide step of :func:`~aggframe.estimate`: expected and realized cells from one group-by.

Expected cells are linear in the calibrated probability ``q`` of each entry,
and with a map that does not renormalise, ``q`` depends only on the entry's
class and score bin. So the scan is **one group-by** of the entries over
``(by-keys, class, score bin, decision d, truth)`` counting entries and summing
their score and squared score (Narwhals: Polars, DuckDB and Spark alike); the
map is joined to that small *bin table* after the scan (the lookup costs the
table's rows, not the data's), and

    E[tp] = sum q d,  E[fp] = sum (1 - q) d,  E[fn] = sum q (1 - d),  E[tn] = sum (1 - q)(1 - d)

are sums over it. The truth column is a key of the same group-by (null: an
unlabelled entry), so the realized cells of the labelled entries come out of the
same aggregation. ``v = sum q (1 - q)`` per cell is the Poisson-binomial
variance the interval draws from (:mod:`aggframe.decisions.estimate_draws`).

When the map renormalises (single-label truth: argmax or top-k decisions) ``q``
depends on every class of an example, so the lookup is per row (Polars: a
gather; DuckDB and Spark: a join on the engine,
:mod:`aggframe.decisions.estimate_engines`) and the row's ``q`` (and its
example's predicted class, for the interval) are computed before the same group-by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import narwhals as nw
import numpy as np
import polars as pl

from aggframe._columns import CLASS_ROLE, EXAMPLE, KEY_ALL, PREFIX, Y_PRED, Y_TRUE, P, Y
from aggframe.exceptions import InvalidValueError, OptionError
from aggframe.intake.read_errors import reading
from aggframe.intake.scores_long import SCORE
from aggframe.wide.engines import collect_polars

if TYPE_CHECKING:
    from aggframe.decisions.estimate import CalibrationMap

__all__ = ["GRID", "BinTable", "bin_table", "binned", "entries", "polars_entries"]

#: Scores are read on this grid (a bin of width 1/GRID) for the isotonic fit and its lookup.
GRID = 1000

S = f"{PREFIX}est_s"  # the score as a probability
BIN = f"{PREFIX}est_bin"
D = f"{PREFIX}est_d"  # the decision, 0/1
T = f"{PREFIX}est_t"  # the truth, 0/1, null where unlabelled
LAB = f"{PREFIX}est_lab"
Q = f"{PREFIX}est_q"
PRED = f"{PREFIX}est_pred"  # the example's predicted class (single-label interval)


def binned(score: Any) -> Any:
    """The score's bin on the grid: ``min(floor(clip(s, 0, 1) * GRID), GRID - 1)`` (Polars or Narwhals)."""
    return (
        (score.clip(0.0, 1.0) * float(GRID))
        .floor()
        .clip(0.0, float(GRID - 1))
        .cast(pl.Int64 if isinstance(score, pl.Expr) else nw.Int64)
    )


@dataclass(frozen=True)
class Entries:
    """The entries of a source under private names (Narwhals): keys..., [example], class, S, D, T."""

    frame: nw.LazyFrame[Any]
    keys: list[str]
    binary: bool


def entries(source: Any, by: Sequence[str], labelled: str | None) -> Entries:
    """By-keys, example (long layout), class, score as probability, decision and truth (null: unlabelled)."""
    from aggframe.intake.binary_scores import BinaryScoreSource

    binary = isinstance(source, BinaryScoreSource)
    extra = {LAB: labelled} if labelled is not None else None
    proj = source.project(list(by), extra)
    prob = source.probability(nw.col(SCORE))
    truth, decision = (Y_TRUE, Y_PRED) if binary else (Y, P)
    t = nw.col(truth).cast(nw.Float64)
    if labelled is not None:
        lab = nw.col(LAB).cast(nw.Float64)
        t = nw.when(lab == 1.0).then(t)
    cls = nw.lit(1).cast(nw.Int64).alias(CLASS_ROLE) if binary else nw.col(CLASS_ROLE)
    example = [] if binary else [nw.col(EXAMPLE)]
    # no by-columns: a stand-in key (dropped from the result) so that every table has one
    keys = list(proj.by_keys) or [KEY_ALL]
    stand_in = [] if proj.by_keys else [nw.lit(0).cast(nw.Int64).alias(KEY_ALL)]
    frame = proj.frame.select(
        *proj.by_keys,
        *stand_in,
        *example,
        cls,
        prob.alias(S),
        nw.col(decision).cast(nw.Float64).alias(D),
        t.alias(T),
        *([nw.col(LAB)] if labelled is not None else []),
    )
    return Entries(frame, keys, binary)


def check_labelled(ent: Entries, labelled: str | None, origin: Any) -> None:
    """The ``labelled`` column holds 0/1 or booleans (nulls read as unlabelled)."""
    if labelled is None:
        return
    lab = nw.col(LAB).cast(nw.Float64)
    bad = ~((lab == 0.0) | (lab == 1.0)) & ~lab.is_null()
    with reading(origin):
        got = collect_polars(
            ent.frame.select(
                bad.sum().cast(nw.Int64).alias("n"),
                nw.when(bad).then(nw.col(LAB).cast(nw.String)).max().alias("e"),  # one example
            )
        ).row(0)
    if got[0]:
        msg = (
            f"column {labelled!r}: {got[0]} value(s) other than 0 and 1 (e.g. {got[1]!r}); "
            "`labelled` is 0/1 or booleans (1: the row's truth is real)"
        )
        raise InvalidValueError(msg)


@dataclass(frozen=True)
class BinTable:
    """The small table of the scan: keys..., [pred], class, d, t, n, q_sum, v_sum, [losses], out, s1 (collected)."""

    frame: pl.DataFrame
    #: keys..., class, bin, t, n, q_sum, v_sum: the score bins (AUROC), None when not asked for
    bins: pl.DataFrame | None
    keys: list[str]
    single_label: bool


def _lookup(cmap: CalibrationMap, dtype: pl.DataType) -> pl.DataFrame:
    return cmap.table.select(
        pl.col("class").cast(dtype).alias(CLASS_ROLE),
        pl.col("bin").cast(pl.Int64).alias(BIN),
        pl.col("q").alias(Q),
    )


#: float64's machine epsilon: probabilities are clipped to [EPS, 1 - EPS] in the log loss (as scikit-learn)
EPS = float(np.finfo(np.float64).eps)
#: The per-row sums of the losses: expected (over every entry), realized (labelled entries) and
#: the variance of the realized loss under the calibrated probabilities (the losses' interval):
#: an entry's loss is l1 (truth 1) with probability q, l0 otherwise, so its variance is
#: ``q (1 - q) (l1 - l0)^2``; log loss: ``l1 - l0 = log((1 - p) / p)``; Brier: ``1 - 2 s``.
#: ``ll_m``, ``br_m``: the same over whole examples, whose entries move together under
#: single-label truth (one true class c of the example with probability q_c): per example
#: ``sum_c q_c delta_c^2 - (sum_c q_c delta_c)^2``, spread over its rows as
#: ``q delta^2 - q delta M`` with ``M`` the example's ``sum q delta`` (:data:`MOMENTS`);
#: with independent entries ``M = q delta`` and they equal ``ll_v``, ``br_v``.
#: ``ll_a``, ``br_a``: ``sum q (1 - q) delta``, the covariance of a class's loss sum with its count of
#: positives; ``ll_b``, ``br_b``: ``sum q (delta - M)``, the covariance of the example's loss over its
#: classes with the class's positives (single-label; :mod:`aggframe.decisions.estimate_loss_draws`).
LOSSES = ("ll_e", "br_e", "ll_r", "br_r", "ll_v", "br_v", "ll_m", "br_m", "ll_a", "br_a", "ll_b", "br_b")
#: The loss sums a scan takes: none (False), the point values (True) or also the example's
#: moments of the interval under single-label truth ("interval": a window per example).
Losses = bool | Literal["interval"]
#: Per row: ``sum q delta`` over the row's example (single-label) or the row alone (log loss, Brier).
MOMENTS = (f"{PREFIX}est_mll", f"{PREFIX}est_mbr")


def with_moments(lf: Any, keys: Sequence[str], *, single_label: bool) -> Any:
    """``lf`` (Polars or Narwhals) with :data:`MOMENTS`: ``sum q delta`` per example (single-label) or row."""
    f: Any = pl if isinstance(lf, pl.LazyFrame) else nw
    q, s = f.col(Q), f.col(S)
    p = s.clip(EPS, 1.0 - EPS)
    moments = [q * ((1.0 - p).log() - p.log()), q * (1.0 - 2.0 * s)]
    if single_label:
        moments = [m.sum().over(*keys, EXAMPLE) for m in moments]
    return lf.with_columns(*[m.alias(name) for m, name in zip(moments, MOMENTS, strict=True)])


def spread_exprs(f: Any) -> list[Any]:
    """The variance terms of :data:`LOSSES` (``ll_v``, ``br_v``, ``ll_m``, ``br_m``, ``ll_a``, ...) per row (Polars or Narwhals)."""
    q, s = f.col(Q), f.col(S)
    p = s.clip(EPS, 1.0 - EPS)
    d_ll, d_br = (1.0 - p).log() - p.log(), 1.0 - 2.0 * s
    return [
        q * (1.0 - q) * d_ll**2,
        q * (1.0 - q) * d_br**2,
        q * d_ll * (d_ll - f.col(MOMENTS[0])),
        q * d_br * (d_br - f.col(MOMENTS[1])),
        q * (1.0 - q) * d_ll,
        q * (1.0 - q) * d_br,
        q * (d_ll - f.col(MOMENTS[0])),
        q * (d_br - f.col(MOMENTS[1])),
    ]


def bin_table(
    ent: Entries,
    cmap: CalibrationMap,
    origin: Any,
    *,
    engine: Any,
    losses: Losses = False,
    ranking: bool = False,
    pred: bool = False,
) -> BinTable:
    """One group-by of the entries over (keys, class, d, t): entries, expected positives and variance.

    ``losses``: also the sums of the expected and realized log loss and Brier score
    and their variances (:data:`LOSSES`; ``"interval"``: exact under single-label truth); ``ranking``: also the score bins (AUROC); ``pred``: also the
    example's predicted class as a key (the single-label interval). Polars sources
    look the map up per row (a gather, no join); other engines group by the score
    bin too and the map is joined to that small table.
    """
    native = nw.to_native(ent.frame)
    if isinstance(native, pl.LazyFrame):
        return _polars_table(ent, cmap, origin, engine=engine, losses=losses, ranking=ranking, pred=pred)
    if cmap.renormalize and not ent.binary:
        msg = (
            "a renormalised map (argmax or top-k decisions) on DuckDB or Spark is applied per row: "
            "aggframe.decisions.estimate_engines.engine_table"
        )
        raise OptionError(msg)
    return _engine_table(ent, cmap, origin, losses=bool(losses))


def _row_sums(*, losses: bool) -> list[pl.Expr]:
    """The per-group sums of the rows with their calibrated probability ``Q``."""
    q, s, t = pl.col(Q), pl.col(S), pl.col(T)
    p = s.clip(EPS, 1.0 - EPS)
    sums = [
        pl.len().cast(pl.Float64).alias("n"),
        q.sum().alias("q_sum"),
        (q * (1.0 - q)).sum().alias("v_sum"),
        s.sum().alias("s1"),
    ]
    if losses:
        sums += [
            (-(q * p.log() + (1.0 - q) * (1.0 - p).log())).sum().alias("ll_e"),
            (q - 2.0 * q * s + s * s).sum().alias("br_e"),
            (-(t * p.log() + (1.0 - t) * (1.0 - p).log())).fill_null(0.0).sum().alias("ll_r"),
            ((t - s) ** 2).fill_null(0.0).sum().alias("br_r"),
        ]
        sums += [e.sum().alias(name) for e, name in zip(spread_exprs(pl), LOSSES[4:], strict=True)]
    return sums


def _keyed_sums(*, losses: bool) -> list[pl.Expr]:
    """Per (keys, class): the sums of :func:`_row_sums`, in total and over the predicted entries (d),
    with the labelled entries (``lab``) and their positives (``pos``)."""
    q, d, t = pl.col(Q), pl.col(D), pl.col(T)
    v = q * (1.0 - q)
    sums = [
        pl.len().cast(pl.Float64).alias("n"),
        d.sum().alias("n_d"),
        t.count().cast(pl.Float64).alias("lab"),
        (t * 0.0 + d).sum().alias("lab_d"),  # null where unlabelled: summed over the labelled
        t.sum().fill_null(0.0).alias("pos"),
        (t * d).sum().fill_null(0.0).alias("pos_d"),
        q.sum().alias("q"),
        (q * d).sum().alias("q_d"),
        v.sum().alias("v"),
        (v * d).sum().alias("v_d"),
        pl.col(S).sum().alias("s1"),
    ]
    if losses:
        sums += [e.sum().alias(name) for e, name in zip(_loss_exprs(), LOSSES, strict=True)]
    return sums


def _loss_exprs() -> list[pl.Expr]:
    q, s, t = pl.col(Q), pl.col(S), pl.col(T).cast(pl.Float64)
    p = s.clip(EPS, 1.0 - EPS)
    return [
        -(q * p.log() + (1.0 - q) * (1.0 - p).log()),
        q - 2.0 * q * s + s * s,
        (-(t * p.log() + (1.0 - t) * (1.0 - p).log())).fill_null(0.0),
        ((t - s) ** 2).fill_null(0.0),
        *spread_exprs(pl),
    ]


def _unkeyed(sums: pl.DataFrame, keys: list[str], *, losses: bool) -> pl.DataFrame:
    """The rows (keys, class, d, t) of the bin table from the weighted sums of :func:`_keyed_sums`.

    Per d: one unlabelled row (t null) holding the expected sums, and rows t = 1 and t = 0
    with the labelled entries (the realized losses on the t = 1 row, the shift count on d = 0).
    """
    c = pl.col
    parts = []
    for d in (0.0, 1.0):

        def on_d(total: str, pred: str) -> pl.Expr:
            return c(pred) if d else c(total) - c(pred)  # noqa: B023 - used at once

        n, lab, pos = on_d("n", "n_d"), on_d("lab", "lab_d"), on_d("pos", "pos_d")
        zero = pl.lit(0.0)
        rows = {
            None: [n - lab, on_d("q", "q_d"), on_d("v", "v_d")],
            1.0: [pos, zero, zero],
            0.0: [lab - pos, zero, zero],
        }
        for t, (nn, qq, vv) in rows.items():
            extra = []
            if losses:
                expected = [c("ll_e"), c("br_e")] if (t is None and d) else [zero, zero]
                realized = [c("ll_r"), c("br_r")] if (t == 1.0 and d) else [zero, zero]
                spread = [c(v) for v in LOSSES[4:]] if (t is None and d) else [zero] * len(LOSSES[4:])
                extra = [
                    e.alias(name) for e, name in zip([*expected, *realized, *spread], LOSSES, strict=True)
                ]
            out = c("out") if (t is None and not d) else zero
            s1 = c("s1") if (t is None and not d) else zero  # the scores' sum, on one row
            parts.append(
                sums.select(
                    *keys,
                    pl.lit(d).alias(D),
                    pl.lit(t, pl.Float64).alias(T),
                    nn.alias("n"),
                    qq.alias("q_sum"),
                    vv.alias("v_sum"),
                    *extra,
                    out.alias("out"),
                    s1.alias("s1"),
                )
            )
    return pl.concat(parts, how="vertical_relaxed")


def _polars_table(
    ent: Entries, cmap: CalibrationMap, origin: Any, *, engine: Any, losses: Losses, ranking: bool, pred: bool
) -> BinTable:
    lf = with_q(ent, cmap)
    if pred:
        # small integer keys hash faster than floats
        lf = lf.with_columns(pl.col(D).cast(pl.Int8), pl.col(T).cast(pl.Int8))
    if losses:
        single = losses == "interval" and cmap.renormalize and not ent.binary
        lf = with_moments(lf, ent.keys, single_label=single)
        losses = True
    group = [*ent.keys, D, T] if ent.binary else [*ent.keys, CLASS_ROLE, D, T]
    if pred:
        # argmax: the example's one predicted class (top-k: its first; the interval is then approximate)
        lf = lf.with_columns(
            pl.col(CLASS_ROLE).filter(pl.col(D) == 1.0).first().over([*ent.keys, EXAMPLE]).alias(PRED)
        )
        group.insert(len(ent.keys), PRED)
    out = pl.col("_out").sum().cast(pl.Float64).alias("out")
    if pred:
        plans = [lf.group_by(group).agg(*_row_sums(losses=losses), out)]
    else:
        # one group-by over (keys, class): sums weighted by d and t in place of keys d and t
        plans = [lf.group_by(group[:-2]).agg(*_keyed_sums(losses=losses), out)]
    if ranking:
        plans.append(lf.group_by([*ent.keys, CLASS_ROLE, BIN, T]).agg(*_row_sums(losses=False)))
    with reading(origin):
        got = pl.collect_all(plans, engine=engine)
    floats = [pl.col(D).cast(pl.Float64), pl.col(T).cast(pl.Float64)]
    frame = got[0].with_columns(*floats) if pred else _unkeyed(got[0], group[:-2], losses=losses)
    if ent.binary:
        frame = frame.with_columns(pl.lit(1, pl.Int64).alias(CLASS_ROLE))
    bins = got[1].with_columns(pl.col(T).cast(pl.Float64)) if ranking else None
    return BinTable(frame, bins, ent.keys, single_label=pred)


def _engine_table(ent: Entries, cmap: CalibrationMap, origin: Any, *, losses: bool) -> BinTable:
    """DuckDB, Spark: one group-by over (keys, class, bin, d, t); the map joined to its small result."""
    group = [*ent.keys, CLASS_ROLE, BIN, D, T]
    s = nw.col(S)
    sums = [nw.len().cast(nw.Float64).alias("n"), s.sum().alias("s1"), (s * s).sum().alias("s2")]
    if losses:
        c = s.clip(EPS, 1.0 - EPS)
        sums += [
            c.log().sum().alias("l1"),
            (1.0 - c).log().sum().alias("l0"),
            (-(c * c.log() + (1.0 - c) * (1.0 - c).log())).sum().alias("h"),
            (((1.0 - c).log() - c.log()) ** 2).sum().alias("l2"),
            # the scores read as probabilities (calibration "none"): the variances per row
            (s * (1.0 - s) * ((1.0 - c).log() - c.log()) ** 2).sum().alias("hv"),
            (s * (1.0 - s) * (1.0 - 2.0 * s) ** 2).sum().alias("bv"),
            (s * (1.0 - s) * ((1.0 - c).log() - c.log())).sum().alias("ha"),
            (s * s * s).sum().alias("s3"),
        ]
    agg = ent.frame.with_columns(binned(s).alias(BIN)).group_by(group, drop_null_keys=False).agg(*sums)
    with reading(origin):
        small = collect_polars(agg)
    n, s1, s2 = pl.col("n"), pl.col("s1"), pl.col("s2")
    table = _lookup(cmap, small.schema[CLASS_ROLE])
    joined = small.join(table, on=[CLASS_ROLE, BIN], how="left", nulls_equal=True)
    if cmap.method == "none":
        # the scores are the probabilities: their own sums, exactly
        frame = joined.with_columns(s1.alias("q_sum"), (s1 - s2).alias("v_sum"))
        expected = [pl.col("h").alias("ll_e"), (s1 - s2).alias("br_e")]
        spread = [pl.col("hv").alias("ll_v"), pl.col("bv").alias("br_v")]
        spread += [pl.col("hv").alias("ll_m"), pl.col("bv").alias("br_m")]  # independent entries
        # sum s (1 - s) (1 - 2 s) = s1 - 3 s2 + 2 s3; independent entries: ll_b = ll_a (M = q delta)
        br_a = s1 - 3.0 * s2 + 2.0 * pl.col("s3")
        spread += [
            pl.col("ha").alias("ll_a"),
            br_a.alias("br_a"),
            pl.col("ha").alias("ll_b"),
            br_a.alias("br_b"),
        ]
    else:
        q = pl.col(Q).fill_null(s1 / n)  # a class the map never saw: its scores
        frame = joined.with_columns((q * n).alias("q_sum"), (q * (1.0 - q) * n).alias("v_sum"))
        expected = [
            (-(q * pl.col("l1") + (1.0 - q) * pl.col("l0"))).alias("ll_e"),
            (q * n - 2.0 * q * s1 + s2).alias("br_e"),
        ]
        # q is constant within the (class, bin) row: sum (1 - 2 s)^2 = n - 4 s1 + 4 s2
        spread = [
            (q * (1.0 - q) * pl.col("l2")).alias("ll_v"),
            (q * (1.0 - q) * (n - 4.0 * s1 + 4.0 * s2)).alias("br_v"),
        ]
        spread += [spread[0].alias("ll_m"), spread[1].alias("br_m")]  # independent entries
        ll_a, br_a = q * (1.0 - q) * (pl.col("l0") - pl.col("l1")), q * (1.0 - q) * (n - 2.0 * s1)
        spread += [ll_a.alias("ll_a"), br_a.alias("br_a"), ll_a.alias("ll_b"), br_a.alias("br_b")]
    t = pl.col(T).fill_null(0.0)
    realized = [
        (-(t * pl.col("l1") + (1.0 - t) * pl.col("l0"))).alias("ll_r"),
        (t * (n - 2.0 * s1) + s2).alias("br_r"),
    ]
    # outside the reference's range, at the grid's resolution
    ranges = _ranges(cmap, small.schema[CLASS_ROLE]).with_columns(
        binned(pl.col("_lo")), binned(pl.col("_hi"))
    )
    frame = frame.join(ranges, on=CLASS_ROLE, how="left", nulls_equal=True)
    outside = ((pl.col(BIN) < pl.col("_lo")) | (pl.col(BIN) > pl.col("_hi"))).fill_null(value=False)
    frame = frame.with_columns(
        *([*expected, *realized, *spread] if losses else []), (n * outside).alias("out")
    )
    frame = frame.select(*group, "n", "q_sum", "v_sum", *(LOSSES if losses else ()), "out", "s1")
    bins = frame.group_by([*ent.keys, CLASS_ROLE, BIN, T]).agg(pl.col("n", "q_sum", "v_sum").sum())
    return BinTable(frame, bins, ent.keys, single_label=False)


def _ranges(cmap: CalibrationMap, dtype: pl.DataType) -> pl.DataFrame:
    return cmap.ece.select(
        pl.col("class").cast(dtype).alias(CLASS_ROLE), pl.col("low").alias("_lo"), pl.col("high").alias("_hi")
    )


def polars_entries(ent: Entries, what: str) -> pl.LazyFrame:
    native = nw.to_native(ent.frame)
    if not isinstance(native, pl.LazyFrame):
        msg = f"{what} runs on Polars sources (eager or lazy frames, files); read the data with Polars"
        raise OptionError(msg)
    return native


def _gathered(values: pl.Series, index: pl.Expr) -> pl.Expr:
    """``values[index]`` per row (a null index: null), without a join."""
    return pl.lit(values).gather(index)


def with_q(ent: Entries, cmap: CalibrationMap) -> pl.LazyFrame:
    """The entries (Polars) with ``BIN``, ``Q`` (renormalised over an example if the map says so) and ``_out``.

    The map is looked up per row by position (class index x GRID + bin): a gather, no join.
    """
    lf = polars_entries(
        ent, "estimation with renormalised probabilities (argmax, top-k) or the exemplar operator"
    )
    classes = cmap.ece["class"]
    dtype = lf.collect_schema()[CLASS_ROLE]
    known = classes.cast(dtype, strict=False)
    if ent.binary:
        # the one class (1): its position in the map, or null if the map has no such class
        where = known.to_list().index(1) if 1 in known.to_list() else None
        index = pl.lit(where, pl.Int64)
    else:
        index = pl.col(CLASS_ROLE).replace_strict(
            known, pl.Series(range(len(known)), dtype=pl.Int64), default=None
        )
    b = binned(pl.col(S))
    if cmap.method == "none":
        q = pl.col(S)
    else:
        # the table is class-major, GRID bins per class, in the order of cmap.ece
        q = _gathered(_grid_values(cmap), index * GRID + b).fill_null(pl.col(S))
    low = _gathered(cmap.ece["low"].cast(pl.Float64), index)
    high = _gathered(cmap.ece["high"].cast(pl.Float64), index)
    outside = ((pl.col(S) < low) | (pl.col(S) > high)).fill_null(value=False)
    lf = lf.with_columns(b.alias(BIN), q.clip(0.0, 1.0).alias(Q), outside.alias("_out"))
    if cmap.renormalize and not ent.binary:
        # a separate step: a literal gathered inside a window would be evaluated per window group
        total = pl.col(Q).sum().over([*ent.keys, EXAMPLE])
        lf = lf.with_columns(
            pl.when(total > 0).then(pl.col(Q) / total).otherwise(pl.col(Q)).clip(0.0, 1.0).alias(Q)
        )
    return lf


def _grid_values(cmap: CalibrationMap) -> pl.Series:
    """The map's q, class-major in the order of ``cmap.ece`` and bin order (checked)."""
    order = cmap.ece.select(pl.col("class").alias("_c")).with_row_index("_i")
    table = cmap.table.join(order, left_on="class", right_on="_c", how="inner", nulls_equal=True)
    table = table.sort("_i", "bin")
    if table.height != GRID * cmap.ece.height:
        msg = f"a calibration map needs {GRID} bins per class; this one has {table.height} rows for {cmap.ece.height} classes"
        raise InvalidValueError(msg)
    return table["q"].cast(pl.Float64)
