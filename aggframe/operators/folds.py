"""Cross-validation folds as operators on per-fold cell tables.

The wide step keys the cell tables by ``by`` plus the fold columns (``repeat``,
``fold``), so every appearance of an example in a fold is its own per-example
row. From those per-fold tables, in the same plan:

``pooled``
    the union of the folds' predictions: class cells and cell profiles summed
    over the folds (exact: sums of cells are the cells of the union);
``averaged``
    every operator inside each fold, then the mean weighted by the fold's number
    of examples (NaN as soon as one fold's value is NaN, as ``numpy.average``);
``fold``, ``min``, ``max``, ``std``
    the per-fold values themselves and their spread over the folds whose value is
    defined (``std`` with ``ddof=1``);
``repeat_pooled``, ``repeat``, ``repeat_min``, ``repeat_max``, ``repeat_std``
    repeated cross-validation (a ``repeat`` role): the folds of each repeat
    pooled (each repeat covers the data once), then the mean over the repeats
    (NaN as soon as one repeat's value is NaN), the per-repeat values, and their
    spread over the repeats whose value is defined. The standard "pool within
    each repeat, then average" estimator; the spread over repeats measures the
    variation of the partitioning only, not the sampling of the data.

The spread of fold values is an indication, not a confidence interval: the folds
share training data, so their standard deviation understates the uncertainty.

For a decomposable measure the pooled value is the average of the fold values
weighted by the fold *denominators*; ``averaged`` weights by fold *size*. They
coincide when the denominator is proportional to the fold size (micro recall on
single-label data is accuracy) and differ otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from aggframe._columns import KEY_ALL, REPEAT
from aggframe._options import POOLINGS, REPEAT_POOLINGS
from aggframe.exceptions import OptionError
from aggframe.operators.reduce import (
    NAN,
    Slot,
    Wide,
    entries_col,
    slot_columns,
    undefined_col,
    value_col,
)
from aggframe.tables.cells import CellTables, sum_to

__all__ = ["fold_report"]


def fold_report(
    tables: CellTables,
    keys: Sequence[str],
    fold_keys: Sequence[str],
    *,
    reducer: Callable[[CellTables], Wide],
    poolings: Sequence[str],
) -> Wide:
    """Blocks for every requested pooling; ``fold_keys`` are null except on fold rows.

    ``reducer`` turns cell tables into blocks keyed by their keys (minus a
    target column): every operator of the report, applied per fold or pooled.
    The blocks come out sorted by the keys, the pooling (in the order of
    :data:`~aggframe._options.POOLINGS`) and the fold keys.
    """
    k, fk = list(keys), list(fold_keys)
    gk = [c for c in k if c != tables.target]  # the blocks' group keys (the stand-in key too)
    visible = [c for c in gk if c != KEY_ALL]
    parts: list[pl.LazyFrame] = []
    slots = None
    extra: list[str] = []  # the blocks' number of examples (summed over folds where folds are)
    # a fold key not reported is null of its own dtype: one schema whatever the poolings
    dtypes = tables.classes.collect_schema()
    null_folds = [pl.lit(None, dtype=dtypes[c]).alias(c) for c in fk]

    def block(frame: pl.LazyFrame, pooling: str, folds: Sequence[pl.Expr | str], n: int) -> pl.LazyFrame:
        return frame.select(*gk, *folds, pl.lit(pooling).alias("pooling"), *extra, *slot_columns(n))

    rows = False  # the pooled blocks as rows (Wide.rows): the reducer's choice, pooled alone
    if "pooled" in poolings:
        pooled = reducer(sum_to(tables, k))
        slots, extra, rows = pooled.slots, pooled.extra(), pooled.rows
        pooling = pl.lit("pooled").alias("pooling")
        parts.append(pooled.frame.select(*gk, *null_folds, pooling, *extra, *pooled.slot_columns()))
    by_repeat = [p for p in poolings if p in REPEAT_POOLINGS]
    if by_repeat:
        per_repeat = _repeats(tables, keys=k, fold_keys=fk, gk=gk, reducer=reducer, poolings=by_repeat)
        slots, extra = per_repeat.slots, per_repeat.extra
        parts.extend(per_repeat.frames)
    needs_folds = [p for p in poolings if p not in ("pooled", *REPEAT_POOLINGS)]
    if needs_folds:
        per_fold = reducer(tables)
        slots, extra = per_fold.slots, per_fold.extra()
        n = len(slots)
        fold_frame = per_fold.frame.cache()
        if "fold" in poolings:
            parts.append(block(fold_frame, "fold", fk, n))
        if "averaged" in poolings:
            examples = tables.block_profiles if tables.block_profiles is not None else tables.profiles
            size_keys = [c for c in (*k, *fk) if c != tables.target]
            sizes = examples.group_by(size_keys).agg(pl.col("n").sum().cast(pl.Float64).alias("_size"))
            sized = fold_frame.join(sizes, on=[*gk, *fk], how="left", nulls_equal=True)
            averaged = sized.group_by(gk).agg(*[pl.col(c).sum() for c in extra], *_size_weighted(n))
            parts.append(block(averaged, "averaged", null_folds, n))
        spread = [p for p in ("min", "max", "std") if p in poolings]
        if spread:
            aggs = [pl.len().cast(pl.Int64).alias("_folds"), *[pl.col(c).sum() for c in extra]]
            for j in range(n):
                value = pl.col(value_col(j))
                aggs += [*_spread(value, j), value.is_nan().sum().cast(pl.Int64).alias(undefined_col(j))]
            stats = fold_frame.group_by(gk).agg(*aggs).cache()
            for stat in spread:
                columns = _spread_columns(stat, n, "_folds")
                parts.append(stats.select(*gk, *null_folds, pl.lit(stat).alias("pooling"), *extra, *columns))
    assert slots is not None
    if rows and len(parts) > 1:
        msg = "blocks as rows are the pooled ones alone (the reducer was asked for rows with other poolings)"
        raise AssertionError(msg)
    rank = {p: i for i, p in enumerate(POOLINGS)}
    # stable as rows: a block's slots keep their order
    out = pl.concat(parts, how="vertical_relaxed").sort(
        [*visible, pl.col("pooling").replace_strict(rank, return_dtype=pl.Int64), *fk],
        nulls_last=True,
        maintain_order=rows,
    )
    return Wide(frame=out, keys=(*gk, *fk, "pooling"), slots=slots, examples=bool(extra), rows=rows)


def _size_weighted(n: int) -> list[pl.Expr]:
    """Each slot's mean over the folds weighted by their size ``_size`` (NaN as soon as one
    fold's value is NaN), its number of folds and of NaN values."""
    size = pl.col("_size")
    aggs: list[pl.Expr] = []
    for j in range(n):
        value = pl.col(value_col(j))
        aggs += [
            pl.when(value.is_nan().any())
            .then(NAN)
            .otherwise((value * size).sum() / size.sum())
            .alias(value_col(j)),
            pl.len().cast(pl.Int64).alias(entries_col(j)),
            value.is_nan().sum().cast(pl.Int64).alias(undefined_col(j)),
        ]
    return aggs


def _spread(value: pl.Expr, j: int) -> list[pl.Expr]:
    """min, max and std (ddof=1) of slot ``j`` over the defined values, as ``_min{j}`` ..."""
    defined = value.filter(value.is_not_nan())
    return [
        defined.min().alias(f"_min{j}"),
        defined.max().alias(f"_max{j}"),
        defined.std(ddof=1).alias(f"_std{j}"),
    ]


def _spread_columns(stat: str, n: int, count: str) -> list[pl.Expr]:
    """The slot columns of one spread statistic (``count`` the entries: folds or repeats)."""
    return [
        c
        for j in range(n)
        for c in (
            pl.col(f"_{stat}{j}").cast(pl.Float64).fill_null(float("nan")).alias(value_col(j)),
            pl.col(count).alias(entries_col(j)),
            pl.col(undefined_col(j)),
        )
    ]


@dataclass(frozen=True)
class _Repeats:
    frames: list[pl.LazyFrame]
    slots: tuple[Slot, ...]
    extra: list[str]


def _repeats(
    tables: CellTables,
    *,
    keys: list[str],
    fold_keys: list[str],
    gk: list[str],
    reducer: Callable[[CellTables], Wide],
    poolings: Sequence[str],
) -> _Repeats:
    """The ``repeat_*`` poolings: the folds of each repeat pooled, then over the repeats (blocks)."""
    if REPEAT not in fold_keys:
        msg = (
            f"pooling={list(poolings)!r} pools the folds of each repeat: it needs a repeat column "
            "(pass repeat='<column>' with fold='<column>' when building the predictions)"
        )
        raise OptionError(msg)
    wide = reducer(sum_to(tables, [*keys, REPEAT]))
    n, extra = len(wide.slots), wide.extra()
    per_repeat = wide.frame.cache()
    dtypes = tables.classes.collect_schema()
    only_repeat = [pl.col(c) if c == REPEAT else pl.lit(None, dtype=dtypes[c]).alias(c) for c in fold_keys]
    nulls = [pl.lit(None, dtype=dtypes[c]).alias(c) for c in fold_keys]
    frames = []
    if "repeat" in poolings:
        frames.append(
            per_repeat.select(*gk, *only_repeat, pl.lit("repeat").alias("pooling"), *extra, *slot_columns(n))
        )
    aggs = [pl.len().cast(pl.Int64).alias("_repeats"), *[pl.col(c).sum() for c in extra]]
    for j in range(n):
        value = pl.col(value_col(j))
        aggs += [
            pl.when(value.is_nan().any()).then(NAN).otherwise(value.mean()).alias(f"_pooled{j}"),
            *_spread(value, j),
            value.is_nan().sum().cast(pl.Int64).alias(undefined_col(j)),
        ]
    stats = per_repeat.group_by(gk).agg(*aggs).cache()
    for stat in ("repeat_pooled", "repeat_min", "repeat_max", "repeat_std"):
        if stat in poolings:
            columns = _spread_columns(stat.removeprefix("repeat_"), n, "_repeats")
            frames.append(stats.select(*gk, *nulls, pl.lit(stat).alias("pooling"), *extra, *columns))
    return _Repeats(frames=frames, slots=wide.slots, extra=extra)
