"""The ``exemplar`` operator of :func:`~aggframe.estimate`: per-example cell profiles of every kind.

The exemplar operator averages a measure over examples, each example's own cells
(its *profile*) counted once; the report builder reads a table of profiles and
how many examples share each (``profiles``: keys..., kind, tp, fp, fn, tn, n).
This module builds that table for the estimated kind, the realized kind and, with
``n_draws > 0``, the interval's draws (kind ``0 .. n_draws - 1``), so that the
same report plan computes exemplar for every draw and the interval is the
percentile range of the draws, as for the other operators.

The truth of an example is drawn from its calibrated probabilities ``q``:

* **binary** (one entry per example): an example's profile is one of four crisp
  cells (TP, FP, FN, TN), so a group's profile counts *are* its class cells. The
  estimated kind counts them by the expected cells, the realized kind by the
  realized cells and each draw by that draw's cells
  (:mod:`~aggframe.decisions.estimate_draws`): no pass over the rows at all.
* **single-label** (probabilities renormalised over an example: argmax, top-k):
  the example's one true class is in its ``k`` predicted classes with probability
  ``a = sum q d``, so its profile is ``(1, k - 1, 0, C - k)`` (a hit) or
  ``(0, k, 1, C - k - 1)`` (a miss), ``C`` its entries. One group-by per example
  (the scan the exemplar operator already made) and one per (group, k, C) give the
  examples, ``sum a`` and ``sum a (1 - a)``: the estimated kind weighs the two
  profiles by their expected counts, and each draw draws the hits of a
  (group, k, C) as a normal with that mean and variance (a Poisson-binomial count,
  exact in its first two moments), in NumPy on that small table. The same query
  runs on DuckDB and Spark.
* **multilabel** (independent entries): an example's true predicted classes (``tp``)
  and true unpredicted ones (``fn``) are independent Poisson-binomial counts, so its
  profile is one of up to ``(k + 1)(C - k + 1)``. Their distributions come from the
  power sums of ``q`` over its predicted and unpredicted entries (one group-by per
  example; Newton's identities, up to :data:`EXACT_CLASSES` classes), and the estimated
  kind sums ``P(tp = j) P(fn = l)`` per (group, profile): one query, on any engine (with
  more classes, each example's expected cells). The draws draw every entry's truth,
  ``u < q`` with a uniform ``u`` made by hashing (by-keys, example, class) with the seed
  and mixing in the draw (splitmix64's finaliser over Polars' hash: lazy, reproducible for
  one Polars version, the same on every Polars engine); per example one sum per draw
  codes the drawn tp and fn, then the examples are counted per (group, draw, profile).
  This costs about ``n_draws`` times the rows. On DuckDB and Spark the same method runs on the
  engine with its own hash (:func:`~aggframe.decisions.estimate_engines.engine_drawn_codes`):
  other draws, the same distribution.

So the estimated kind is the measure of the *expected profile counts*, the exemplar
analogue of the measure of the expected cells: its target is the realized value, whose
mean it matches to ``O(1/n)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from math import comb
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from aggframe._columns import CLASS_ROLE, EXAMPLE, PREFIX
from aggframe.decisions.estimate_cells import D, Entries, Q, T
from aggframe.decisions.estimate_draws import per_draw
from aggframe.decisions.estimate_engines import engine_drawn_codes, engine_profiles, rows_with_q
from aggframe.decisions.estimate_report import ESTIMATED, KIND, REALIZED, exemplar_plan
from aggframe.intake.read_errors import reading
from aggframe.wide.engines import collect_polars

__all__ = ["Profiles", "exemplar_tables", "expected_from_cells", "expected_multilabel"]

_CELLS = ("tp", "fp", "fn", "tn")
_UNIT = {
    "tp": (1.0, 0.0, 0.0, 0.0),
    "fp": (0.0, 1.0, 0.0, 0.0),
    "fn": (0.0, 0.0, 1.0, 0.0),
    "tn": (0.0, 0.0, 0.0, 1.0),
}
_H = f"{PREFIX}est_h"  # the hash of an entry (by-keys, example, class)
_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15

#: Up to this many classes the multilabel estimate is exact (the Poisson-binomial distributions of an
#: example's true predicted and true unpredicted classes, by Newton's identities: rounding errors
#: below 1e-9); with more, each example's expected cells (the measure of the mean profile).
EXACT_CLASSES = 16

#: Multilabel draws are made this many at a time (one pass over the rows each): the drawn codes of
#: a block are held per example, 4 bytes per example and draw.
DRAW_BLOCK = 50

#: The profiles of every kind, or (binary) a function of the cell tables of every kind.
Profiles = pl.DataFrame | Callable[[pl.DataFrame], pl.DataFrame]


def exemplar_tables(
    ent: Entries, cmap: Any, origin: Any, *, n_classes: int, n_draws: int, seed: int, engine: Any
) -> Profiles:
    """The exemplar operator's profiles (keys..., kind, tp, fp, fn, tn, n) of every kind (see the module).

    ``n_classes``: the classes of the data (an example has at most that many entries).
    """
    keys = list(ent.keys)
    if ent.binary:
        return partial(binary_profiles, keys=keys)
    polars = isinstance(nw.to_native(ent.frame), pl.LazyFrame)
    lf = rows_with_q(ent, cmap)
    if cmap.renormalize:
        return single_label_profiles(lf, keys, origin, n_draws=n_draws, seed=seed)
    if n_classes <= EXACT_CLASSES:
        got = multilabel_profiles(lf, keys, origin, n_classes=n_classes)
    elif polars:
        with reading(origin):
            got = exemplar_plan(nw.to_native(lf), ent).collect(engine=engine)
    else:
        got = engine_profiles(ent, cmap, origin, kinds=(ESTIMATED, REALIZED)).rename({"_kind": KIND})
    if not n_draws:
        return got
    # in blocks of draws: the codes of a block are held per example (examples x DRAW_BLOCK x 4 bytes)
    blocks = [range(lo, min(lo + DRAW_BLOCK, n_draws)) for lo in range(0, n_draws, DRAW_BLOCK)]
    if not polars:  # the same method with the engine's own hash (other draws, the same distribution)
        base = n_classes + 1
        drawn = [
            drawn_profiles(
                engine_drawn_codes(lf, keys, base=base, draws=b, seed=seed, origin=origin).lazy(), keys, base
            ).collect()
            for b in blocks
        ]
        return pl.concat([got, *drawn], how="vertical_relaxed")
    with reading(origin):
        drawn = [
            multilabel_draws(nw.to_native(lf), keys, n_classes=n_classes, draws=b, seed=seed, engine=engine)
            for b in blocks
        ]
    return pl.concat([got, *drawn], how="vertical_relaxed")


def binary_profiles(classes: pl.DataFrame, *, keys: Sequence[str]) -> pl.DataFrame:
    """Binary: per (group, kind) the four crisp profiles, counted by the class cells of that kind."""
    parts = [
        classes.select(
            *keys,
            KIND,
            *[pl.lit(u).alias(c) for u, c in zip(_UNIT[cell], _CELLS, strict=True)],
            pl.col(cell).cast(pl.Float64).alias("n"),
        )
        for cell in _CELLS
    ]
    return pl.concat(parts).filter(pl.col("n") > 0.0)


# -- per example: one query on any engine --------------------------------------------------------

_R = [f"_r{c}" for c in _CELLS]


def _joint(
    lf: nw.LazyFrame[Any],
    keys: Sequence[str],
    origin: Any,
    *,
    per: Sequence[Any],
    then: Callable[[nw.LazyFrame[Any]], nw.LazyFrame[Any]],
    joint: Sequence[Any],
    realized: bool = True,
) -> pl.DataFrame:
    """Per example its realized cells and ``per``, ``then`` its columns, and per (group, k, C,
    realized profile, labelled) the examples ``n`` and ``joint``: one query, a small result.

    ``realized=False``: the truth is not read (per (group, k, C) only)."""
    d, t = nw.col(D), nw.col(T)
    real = [t * d, (1.0 - t) * d, t * (1.0 - d), (1.0 - t) * (1.0 - d)]
    truth = [
        *[e.sum().fill_null(0.0).alias(c) for e, c in zip(real, _R, strict=True)],
        t.is_null().cast(nw.Int64).max().alias("_u"),
    ]
    examples = lf.group_by([*keys, EXAMPLE], drop_null_keys=False).agg(
        d.sum().alias("_k"),
        nw.len().cast(nw.Float64).alias("_c"),
        *per,
        *(truth if realized else []),
    )
    by = [*keys, "_k", "_c", *([*_R, "_u"] if realized else [])]
    counted = then(examples).group_by(by, drop_null_keys=False)
    with reading(origin):
        return collect_polars(counted.agg(nw.len().cast(nw.Float64).alias("n"), *joint))


def _realized(got: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """The realized kind: the labelled examples (every entry's truth known) per realized profile."""
    return (
        got.filter(pl.col("_u") == 0)
        .group_by([*keys, *_R])
        .agg(pl.col("n").sum())
        .select(
            *keys,
            pl.lit(REALIZED, pl.Int64).alias(KIND),
            *[pl.col(r).alias(c) for r, c in zip(_R, _CELLS, strict=True)],
            "n",
        )
    )


# -- single-label -----------------------------------------------------------------------------------


def single_label_profiles(
    lf: nw.LazyFrame[Any], keys: Sequence[str], origin: Any, *, n_draws: int, seed: int
) -> pl.DataFrame:
    """Single-label truth: hit and miss profiles per (group, k, C), realized profiles, drawn hits."""
    a = nw.col("_a")
    got = _joint(
        lf,
        keys,
        origin,
        per=[(nw.col(Q) * nw.col(D)).sum().alias("_a")],
        then=lambda frame: frame,
        joint=[a.sum().alias("_a"), (a * (1.0 - a)).sum().alias("_v")],
    )
    sums = (
        got.group_by([*keys, "_k", "_c"])
        .agg(pl.col("n", "_a", "_v").sum())
        .sort([*keys, "_k", "_c"], nulls_last=True)
    )
    parts = [
        _hit_miss(sums.with_columns(pl.lit(ESTIMATED, pl.Int64).alias(KIND)), keys),
        _realized(got, keys),
    ]
    if n_draws:
        parts.append(_hit_miss(_drawn_hits(sums, n_draws=n_draws, seed=seed), keys))
    return pl.concat(parts, how="vertical_relaxed").filter(pl.col("n") > 0.0)


def _hit_miss(sums: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """Per (group, kind, k, C) with ``_a`` hits of ``n`` examples: the hit and the miss profile."""
    k, c, n, a = pl.col("_k"), pl.col("_c"), pl.col("n"), pl.col("_a")
    hit = sums.filter(k > 0).select(
        *keys,
        KIND,
        pl.lit(1.0).alias("tp"),
        (k - 1.0).alias("fp"),
        pl.lit(0.0).alias("fn"),
        (c - k).alias("tn"),
        a.alias("n"),
    )
    miss = sums.filter(c > k).select(
        *keys,
        KIND,
        pl.lit(0.0).alias("tp"),
        k.alias("fp"),
        pl.lit(1.0).alias("fn"),
        (c - k - 1.0).alias("tn"),
        (n - a).alias("n"),
    )
    return pl.concat([hit, miss])


def _drawn_hits(sums: pl.DataFrame, *, n_draws: int, seed: int) -> pl.DataFrame:
    """``n_draws`` draws of the hits per (group, k, C): normal with mean ``sum a`` and variance ``sum a (1 - a)``, clipped."""
    rng = np.random.default_rng([seed, 1])  # a stream of its own (the cells' draws use ``seed``)
    mean, var, size = (sums[c].to_numpy().astype(float) for c in ("_a", "_v", "n"))
    z = rng.standard_normal((n_draws, sums.height))
    hits = np.clip(mean + np.sqrt(np.maximum(var, 0.0)) * z, 0.0, size)
    return per_draw(sums, n_draws, KIND, {"_a": hits})


# -- multilabel -------------------------------------------------------------------------------------


def _pmf_columns(frame: nw.LazyFrame[Any], side: str, n: int) -> nw.LazyFrame[Any]:
    """The distribution of a sum of independent Bernoulli(q) from its power sums ``side1 .. side{n}``.

    Newton's identities give the elementary symmetric polynomials ``e_j`` of the q's
    (``j e_j = sum_i (-1)^(i-1) e_(j-i) p_i``); the count's generating function
    ``prod (1 - q + q x) = sum_i e_i (x - 1)^i`` then gives ``P(j) = sum_(i>=j) (-1)^(i-j) C(i, j) e_i``.
    """
    e = [nw.lit(1.0)]
    for j in range(1, n + 1):
        terms = [e[j - i] * nw.col(f"{side}{i}") * float((-1) ** (i - 1)) for i in range(1, j + 1)]
        frame = frame.with_columns((nw.sum_horizontal(*terms) / float(j)).alias(f"{side}e{j}"))
        e.append(nw.col(f"{side}e{j}"))
    pmf = [
        nw.sum_horizontal(*[e[i] * float((-1) ** (i - j) * comb(i, j)) for i in range(j, n + 1)])
        .clip(0.0, 1.0)
        .alias(f"{side}P{j}")
        for j in range(n + 1)
    ]
    return frame.with_columns(*pmf)


def multilabel_profiles(
    lf: nw.LazyFrame[Any], keys: Sequence[str], origin: Any, *, n_classes: int
) -> pl.DataFrame:
    """Multilabel: the expected count of every profile (exact) and the realized profiles.

    Per example the true predicted classes (``tp``) and the true unpredicted ones (``fn``) are
    independent Poisson-binomial counts; their distributions come from the power sums of
    ``q`` over the predicted and the unpredicted entries (sums of one group-by per example),
    and the expected count of the profile ``(j, k - j, l, C - k - l)`` in a group is the sum
    over its examples of ``P(tp = j) P(fn = l)``.
    """
    got = _multilabel_joint(lf, keys, origin, n_classes=n_classes, realized=True)
    estimated = _multilabel_estimated(got, keys, n_classes)
    return pl.concat([estimated, _realized(got, keys)], how="vertical_relaxed").filter(pl.col("n") > 0.0)


def _pairs(n_classes: int) -> list[tuple[int, int]]:
    """The (tp, fn) counts an example of at most ``n_classes`` entries can have."""
    return [(j, m) for j in range(n_classes + 1) for m in range(n_classes + 1 - j)]


def _multilabel_joint(
    lf: nw.LazyFrame[Any], keys: Sequence[str], origin: Any, *, n_classes: int, realized: bool
) -> pl.DataFrame:
    """Per (group, k, C[, realized profile, labelled]) the examples and ``sum P(tp = j) P(fn = l)``: one query."""
    q, d = nw.col(Q), nw.col(D)
    per, power = [], q
    for s in range(1, n_classes + 1):
        per += [(power * d).sum().alias(f"_a{s}"), (power * (1.0 - d)).sum().alias(f"_b{s}")]
        power = power * q
    return _joint(
        lf,
        keys,
        origin,
        per=per,
        then=lambda frame: _pmf_columns(_pmf_columns(frame, "_a", n_classes), "_b", n_classes),
        joint=[
            (nw.col(f"_aP{j}") * nw.col(f"_bP{m}")).sum().alias(f"_p{j}_{m}") for j, m in _pairs(n_classes)
        ],
        realized=realized,
    )


def _multilabel_estimated(got: pl.DataFrame, keys: Sequence[str], n_classes: int) -> pl.DataFrame:
    """The estimated kind's profiles from the joint table: ``(j, k - j, l, C - k - l)`` counted ``sum P P``."""
    pairs = _pairs(n_classes)
    sums = got.group_by([*keys, "_k", "_c"]).agg(pl.col(f"_p{j}_{m}" for j, m in pairs).sum())
    k, c = pl.col("_k"), pl.col("_c")
    return pl.concat(
        [
            sums.filter((k >= j) & (c - k >= m)).select(
                *keys,
                pl.lit(ESTIMATED, pl.Int64).alias(KIND),
                pl.lit(float(j)).alias("tp"),
                (k - j).alias("fp"),
                pl.lit(float(m)).alias("fn"),
                (c - k - m).alias("tn"),
                pl.col(f"_p{j}_{m}").alias("n"),
            )
            for j, m in pairs
        ]
    )


# -- the expected profiles of stored expected cells (:func:`~aggframe.expected_cells`) ------------


def expected_multilabel(
    lf: nw.LazyFrame[Any], keys: Sequence[str], origin: Any, *, n_classes: int
) -> pl.DataFrame:
    """The estimated kind's multilabel profiles alone (keys..., tp, fp, fn, tn, n): one query, truth not read."""
    got = _multilabel_joint(lf, keys, origin, n_classes=n_classes, realized=False)
    return _canonical(_multilabel_estimated(got, keys, n_classes).drop(KIND), keys)


def expected_from_cells(profiles: pl.DataFrame, keys: Sequence[str], *, binary: bool) -> pl.DataFrame:
    """The estimated kind's profiles (keys..., tp, fp, fn, tn, n) from each example's expected cells.

    ``profiles``: per-example expected cells (keys..., tp, fp, fn, tn, n: ``n`` examples share
    them), the product t-norm of ``q`` and the decision. Binary (one entry per example): the four
    crisp profiles counted by the group's expected cells. Single-label truth (``q`` renormalised):
    an example's ``tp`` is ``a = sum q d``, ``tp + fp`` its predicted classes ``k`` and the four
    cells its entries ``C``, so the hit and miss profiles per (group, k, C) are counted by
    ``sum a`` and ``sum (1 - a)``, as :func:`single_label_profiles` counts them. No pass over rows.
    """
    n = pl.col("n").cast(pl.Float64)
    if binary:
        classes = profiles.group_by(keys).agg(*[(pl.col(c) * n).sum() for c in _CELLS])
        got = binary_profiles(classes.with_columns(pl.lit(ESTIMATED, pl.Int64).alias(KIND)), keys=keys)
    else:
        tp, fp, fn, tn = (pl.col(c) for c in _CELLS)
        sums = (
            profiles.group_by(*keys, (tp + fp).round().alias("_k"), (tp + fp + fn + tn).round().alias("_c"))
            .agg(n.sum().alias("n"), (tp * n).sum().alias("_a"))
            .with_columns(pl.lit(ESTIMATED, pl.Int64).alias(KIND))
        )
        got = _hit_miss(sums, keys)
    return _canonical(got.drop(KIND), keys)


def _canonical(profiles: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """One row per (group, profile) with examples (``n``, a float: an expected count), sorted."""
    return (
        profiles.filter(pl.col("n") > 0.0)
        .group_by([*keys, *_CELLS])
        .agg(pl.col("n").cast(pl.Float64).sum())
        .sort([*keys, *_CELLS], nulls_last=True)
    )


def _u64(value: int) -> pl.Expr:
    return pl.lit(value & _MASK, pl.UInt64)


def uniform(h: pl.Expr, draw: int) -> pl.Expr:
    """A uniform in [0, 1) from the entry's hash and the draw: splitmix64's finaliser (wrapping u64 arithmetic)."""
    x = h + _u64(draw * _GOLDEN)
    x = x.xor(x // _u64(1 << 30)) * _u64(0xBF58476D1CE4E5B9)
    x = x.xor(x // _u64(1 << 27)) * _u64(0x94D049BB133111EB)
    x = x.xor(x // _u64(1 << 31))
    return (x // _u64(1 << 11)).cast(pl.Float64) * (1.0 / (1 << 53))


def multilabel_draws(
    lf: pl.LazyFrame, keys: Sequence[str], *, n_classes: int, draws: range, seed: int, engine: Any
) -> pl.DataFrame:
    """Draws of every entry's truth (``u < q``) and the drawn profiles: keys..., kind (the draw), tp, fp, fn, tn, n.

    Per entry and draw the drawn truth adds ``base`` (a predicted entry: a true positive) or 1
    (an unpredicted one: a false negative) to its example's code, ``base`` above the entries of
    an example, so one sum per draw holds both counts: ``tp = code // base``, ``fn = code % base``.
    The codes per example are collected (examples x draws, 4 bytes each), then counted per
    (group, k, C, draw, code) by one group-by of their long form.
    """
    base = n_classes + 1
    predicted = pl.col(D) == 1.0
    h = pl.struct(*keys, EXAMPLE, CLASS_ROLE).hash(seed).alias(_H)
    step = pl.when(predicted).then(pl.lit(base, pl.UInt32)).otherwise(pl.lit(1, pl.UInt32))
    rows = lf.select(*keys, EXAMPLE, predicted.alias(D), pl.col(Q), h, step.alias("_w"))
    zero = pl.lit(0, pl.UInt32)
    codes = [
        pl.when(uniform(pl.col(_H), j) < pl.col(Q)).then(pl.col("_w")).otherwise(zero).alias(str(j))
        for j in draws
    ]
    # the drawn codes as columns before the group-by: its aggregations are then plain sums
    per = (
        rows.select(*keys, EXAMPLE, D, *codes)
        .group_by([*keys, EXAMPLE])
        .agg(
            pl.col(D).sum().cast(pl.Float64).alias("_k"),
            pl.len().cast(pl.Float64).alias("_c"),
            *[pl.col(str(j)).sum() for j in draws],
        )
        .drop(EXAMPLE)
        .collect(engine=engine)
    )
    long = per.lazy().unpivot(index=[*keys, "_k", "_c"], variable_name="_draw", value_name="_x")
    counted = long.group_by([*keys, "_k", "_c", "_draw", "_x"]).agg(pl.len().cast(pl.Float64).alias("n"))
    return drawn_profiles(counted, keys, base).collect(engine=engine)


def drawn_profiles(counted: pl.LazyFrame, keys: Sequence[str], base: int) -> pl.LazyFrame:
    """The drawn profiles from the examples per (group, k, C, draw, code): keys..., kind, tp, fp, fn, tn, n.

    ``_draw``: the draw's number, or its column's name (``_d12``: a draw of the engines);
    ``_x``: the code, ``tp * base + fn``.
    """
    k, c = pl.col("_k"), pl.col("_c")
    x = pl.col("_x").cast(pl.Int64)
    tp, fn = (x // base).cast(pl.Float64), (x % base).cast(pl.Float64)
    draw = pl.col("_draw").cast(pl.String).str.strip_prefix("_d").cast(pl.Int64)
    return counted.select(
        *keys,
        draw.alias(KIND),
        tp.alias("tp"),
        (k - tp).alias("fp"),
        fn.alias("fn"),
        (c - k - fn).alias("tn"),
        "n",
    )
