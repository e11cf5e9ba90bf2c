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
    defined (``std`` with ``ddof=1``).

The spread of fold values is an indication, not a confidence interval: the folds
share training data, so their standard deviation understates the uncertainty.

For a decomposable measure the pooled value is the average of the fold values
weighted by the fold *denominators*; ``averaged`` weights by fold *size*. They
coincide when the denominator is proportional to the fold size (micro recall on
single-label data is accuracy) and differ otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl

from aggframe._columns import KEY_ALL
from aggframe._options import POOLINGS
from aggframe.operators.reduce import NAN, Wide, entries_col, slot_columns, undefined_col, value_col
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
    null_folds = [pl.lit(None).alias(c) for c in fk]

    def block(frame: pl.LazyFrame, pooling: str, folds: Sequence[pl.Expr | str], n: int) -> pl.LazyFrame:
        return frame.select(*gk, *folds, pl.lit(pooling).alias("pooling"), *slot_columns(n))

    if "pooled" in poolings:
        pooled = reducer(sum_to(tables, k))
        slots = pooled.slots
        parts.append(block(pooled.frame, "pooled", null_folds, len(slots)))
    needs_folds = [p for p in poolings if p != "pooled"]
    if needs_folds:
        per_fold = reducer(tables)
        slots = per_fold.slots
        n = len(slots)
        fold_frame = per_fold.frame.cache()
        if "fold" in poolings:
            parts.append(block(fold_frame, "fold", fk, n))
        if "averaged" in poolings:
            examples = tables.block_profiles if tables.block_profiles is not None else tables.profiles
            size_keys = [c for c in (*k, *fk) if c != tables.target]
            sizes = examples.group_by(size_keys).agg(pl.col("n").sum().cast(pl.Float64).alias("_size"))
            sized = fold_frame.join(sizes, on=[*gk, *fk], how="left", nulls_equal=True)
            size = pl.col("_size")
            aggs = []
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
            averaged = sized.group_by(gk).agg(*aggs)
            parts.append(block(averaged, "averaged", null_folds, n))
        spread = [p for p in ("min", "max", "std") if p in poolings]
        if spread:
            aggs = [pl.len().cast(pl.Int64).alias("_folds")]
            for j in range(n):
                value = pl.col(value_col(j))
                defined = value.filter(value.is_not_nan())
                aggs += [
                    defined.min().alias(f"_min{j}"),
                    defined.max().alias(f"_max{j}"),
                    defined.std(ddof=1).alias(f"_std{j}"),
                    value.is_nan().sum().cast(pl.Int64).alias(undefined_col(j)),
                ]
            stats = fold_frame.group_by(gk).agg(*aggs).cache()
            for stat in spread:
                columns = [
                    c
                    for j in range(n)
                    for c in (
                        pl.col(f"_{stat}{j}").cast(pl.Float64).fill_null(float("nan")).alias(value_col(j)),
                        pl.col("_folds").alias(entries_col(j)),
                        pl.col(undefined_col(j)),
                    )
                ]
                parts.append(stats.select(*gk, *null_folds, pl.lit(stat).alias("pooling"), *columns))
    assert slots is not None
    rank = {p: i for i, p in enumerate(POOLINGS)}
    out = pl.concat(parts, how="vertical_relaxed").sort(
        [*visible, pl.col("pooling").replace_strict(rank, return_dtype=pl.Int64), *fk], nulls_last=True
    )
    return Wide(frame=out, keys=(*gk, *fk, "pooling"), slots=slots)
