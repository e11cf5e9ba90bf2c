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
* **multilabel** (independent entries): an example's profile depends on the
  Poisson-binomial counts of its true predicted and true unpredicted classes, up to
  ``(k + 1)(C - k + 1)`` profiles each; the estimated kind keeps the example's
  expected cells, and the draws draw every entry's truth, ``u < q`` with a uniform
  ``u`` made by hashing (by-keys, example, class, draw) with the seed (a splitmix64
  finaliser over Polars' hash: lazy, reproducible for one Polars version, the same
  on every Polars engine). Per example the drawn cells of every draw are sums of one
  group-by (``2 n_draws`` columns), then counted per (group, draw, profile). This
  costs about ``n_draws`` times the rows (Polars only; DuckDB and Spark refuse it).

In the binary and single-label cases the estimated kind is the measure of the
*expected profile counts*, the exemplar analogue of the measure of the expected
cells: its target is the realized value, whose mean it matches to ``O(1/n)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from aggframe._columns import CLASS_ROLE, EXAMPLE, PREFIX
from aggframe.decisions.estimate_cells import D, Entries, Q, T, with_q
from aggframe.decisions.estimate_engines import engine_profiles, engine_with_q
from aggframe.decisions.estimate_report import ESTIMATED, KIND, REALIZED, exemplar_plan
from aggframe.exceptions import OptionError
from aggframe.intake.read_errors import reading
from aggframe.wide.engines import collect_polars

__all__ = ["Profiles", "exemplar_tables"]

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

#: The profiles of every kind, or (binary) a function of the cell tables of every kind.
Profiles = pl.DataFrame | Callable[[pl.DataFrame], pl.DataFrame]


def exemplar_tables(
    ent: Entries, cmap: Any, origin: Any, *, n_draws: int, seed: int, engine: Any
) -> Profiles:
    """The exemplar operator's profiles (keys..., kind, tp, fp, fn, tn, n) of every kind (see the module)."""
    keys = list(ent.keys)
    if ent.binary:
        return partial(binary_profiles, keys=keys)
    polars = isinstance(nw.to_native(ent.frame), pl.LazyFrame)
    if cmap.renormalize:
        lf = nw.from_native(with_q(ent, cmap)) if polars else engine_with_q(ent, cmap)
        return single_label_profiles(lf, keys, origin, n_draws=n_draws, seed=seed)
    if polars:
        plan = exemplar_plan(with_q(ent, cmap), ent)
        if n_draws:
            plan = pl.concat([plan, multilabel_draws(with_q(ent, cmap), keys, n_draws=n_draws, seed=seed)])
        with reading(origin):
            return plan.collect(engine=engine)
    if n_draws:
        msg = (
            "the exemplar operator's interval under multilabel truth draws every entry's truth, "
            "on Polars sources only; read the data with Polars, or ask for exemplar without n_draws"
        )
        raise OptionError(msg)
    return engine_profiles(ent, cmap, origin, kinds=(ESTIMATED, REALIZED)).rename({"_kind": KIND})


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


# -- single-label -----------------------------------------------------------------------------------


def single_label_profiles(
    lf: nw.LazyFrame[Any], keys: Sequence[str], origin: Any, *, n_draws: int, seed: int
) -> pl.DataFrame:
    """Single-label truth: hit and miss profiles per (group, k, C), realized profiles, drawn hits."""
    q, d, t = nw.col(Q), nw.col(D), nw.col(T)
    real = [t * d, (1.0 - t) * d, t * (1.0 - d), (1.0 - t) * (1.0 - d)]
    r_names = [f"_r{c}" for c in _CELLS]
    per = lf.group_by([*keys, EXAMPLE], drop_null_keys=False).agg(
        (q * d).sum().alias("_a"),
        d.sum().alias("_k"),
        nw.len().cast(nw.Float64).alias("_c"),
        *[e.sum().fill_null(0.0).alias(c) for e, c in zip(real, r_names, strict=True)],
        t.is_null().cast(nw.Int64).max().alias("_u"),
    )
    a = nw.col("_a")
    joint = per.group_by([*keys, "_k", "_c", *r_names, "_u"], drop_null_keys=False).agg(
        nw.len().cast(nw.Float64).alias("n"), a.sum().alias("_a"), (a * (1.0 - a)).sum().alias("_v")
    )
    with reading(origin):
        got = collect_polars(joint)
    sums = (
        got.group_by([*keys, "_k", "_c"])
        .agg(pl.col("n", "_a", "_v").sum())
        .sort([*keys, "_k", "_c"], nulls_last=True)
    )
    realized = (
        got.filter(pl.col("_u") == 0)
        .group_by([*keys, *r_names])
        .agg(pl.col("n").sum())
        .select(
            *keys,
            pl.lit(REALIZED, pl.Int64).alias(KIND),
            *[pl.col(r).alias(c) for r, c in zip(r_names, _CELLS, strict=True)],
            "n",
        )
    )
    parts = [_hit_miss(sums.with_columns(pl.lit(ESTIMATED, pl.Int64).alias(KIND)), keys), realized]
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
    reps = pl.concat([sums] * n_draws) if n_draws > 1 else sums
    draw = np.repeat(np.arange(n_draws, dtype=np.int64), sums.height)
    return reps.with_columns(pl.Series(KIND, draw), pl.Series("_a", hits.reshape(-1)))


# -- multilabel -------------------------------------------------------------------------------------


def _u64(value: int) -> pl.Expr:
    return pl.lit(value & _MASK, pl.UInt64)


def uniform(h: pl.Expr, draw: int) -> pl.Expr:
    """A uniform in [0, 1) from the entry's hash and the draw: splitmix64's finaliser (wrapping u64 arithmetic)."""
    x = h + _u64(draw * _GOLDEN)
    x = x.xor(x // _u64(1 << 30)) * _u64(0xBF58476D1CE4E5B9)
    x = x.xor(x // _u64(1 << 27)) * _u64(0x94D049BB133111EB)
    x = x.xor(x // _u64(1 << 31))
    return (x // _u64(1 << 11)).cast(pl.Float64) * (1.0 / (1 << 53))


def multilabel_draws(lf: pl.LazyFrame, keys: Sequence[str], *, n_draws: int, seed: int) -> pl.LazyFrame:
    """Draws of every entry's truth (``u < q``) and the drawn profiles: keys..., kind (the draw), tp, fp, fn, tn, n."""
    predicted = pl.col(D) == 1.0
    h = pl.struct(*keys, EXAMPLE, CLASS_ROLE).hash(seed)
    base = lf.select(*keys, EXAMPLE, predicted.alias(D), pl.col(Q), h.alias(_H))
    truth = [uniform(pl.col(_H), j) < pl.col(Q) for j in range(n_draws)]
    # the drawn truths as columns before the group-by: its aggregations are then plain sums
    flags = base.select(
        *keys,
        EXAMPLE,
        pl.col(D),
        *[(tj & pl.col(D)).alias(f"_tp{j}") for j, tj in enumerate(truth)],
        *[(tj & ~pl.col(D)).alias(f"_fn{j}") for j, tj in enumerate(truth)],
    )
    counted = [pl.col(f"_tp{j}").sum() for j in range(n_draws)] + [
        pl.col(f"_fn{j}").sum() for j in range(n_draws)
    ]
    per = flags.group_by([*keys, EXAMPLE]).agg(
        pl.col(D).sum().cast(pl.Float64).alias("_k"), pl.len().cast(pl.Float64).alias("_c"), *counted
    )
    long = per.select(
        *keys,
        "_k",
        "_c",
        pl.concat_list([f"_tp{j}" for j in range(n_draws)]).alias("_tp"),
        pl.concat_list([f"_fn{j}" for j in range(n_draws)]).alias("_fn"),
        pl.int_ranges(0, n_draws).alias(KIND),
    ).explode(["_tp", "_fn", KIND])
    k, c, tp, fn = pl.col("_k"), pl.col("_c"), pl.col("_tp").cast(pl.Float64), pl.col("_fn").cast(pl.Float64)
    profiles = long.select(
        *keys,
        pl.col(KIND).cast(pl.Int64),
        tp.alias("tp"),
        (k - tp).alias("fp"),
        fn.alias("fn"),
        (c - k - fn).alias("tn"),
    )
    return profiles.group_by([*keys, KIND, *_CELLS]).agg(pl.len().cast(pl.Float64).alias("n"))
