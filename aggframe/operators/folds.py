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

import polars as pl

from aggframe._columns import KEY_ALL, REPEAT, RESULT_COLUMNS
from aggframe._options import POOLINGS, REPEAT_POOLINGS
from aggframe.exceptions import OptionError
from aggframe.operators.reduce import NAN
from aggframe.tables.cells import CellTables, sum_to

__all__ = ["fold_report"]


def fold_report(
    tables: CellTables,
    keys: Sequence[str],
    fold_keys: Sequence[str],
    *,
    reducer: Callable[[CellTables], pl.LazyFrame],
    poolings: Sequence[str],
) -> pl.LazyFrame:
    """Tidy rows for every requested pooling; ``fold_keys`` are null except on fold rows.

    ``reducer`` turns cell tables into tidy rows keyed by their keys (minus a
    target column): every operator of the report, applied per fold or pooled.
    """
    k, fk = list(keys), list(fold_keys)
    visible = [c for c in k if c not in (KEY_ALL, tables.target)]
    parts: list[pl.LazyFrame] = []
    null_folds = [pl.lit(None).alias(c) for c in fk]
    if "pooled" in poolings:
        pooled = reducer(sum_to(tables, k)).with_row_index("_r")
        parts.append(pooled.with_columns(*null_folds, pl.lit("pooled").alias("pooling")))
    by_repeat = [p for p in poolings if p in REPEAT_POOLINGS]
    if by_repeat:
        parts.extend(
            _repeats(tables, keys=k, fold_keys=fk, visible=visible, reducer=reducer, poolings=by_repeat)
        )
    needs_folds = [p for p in poolings if p not in ("pooled", *REPEAT_POOLINGS)]
    if needs_folds:
        # _r keeps the reducer's row order (measure, operator, convention) through the
        # joins and group-bys below, so the result's order is deterministic
        per_fold = reducer(tables).with_row_index("_r").cache()
        stat_keys = [*visible, "measure", "operator", "convention"]
        if "fold" in poolings:
            parts.append(per_fold.with_columns(pl.lit("fold").alias("pooling")))
        if "averaged" in poolings:
            examples = tables.block_profiles if tables.block_profiles is not None else tables.profiles
            size_keys = [c for c in (*k, *fk) if c != tables.target]
            sizes = examples.group_by(size_keys).agg(pl.col("n").sum().cast(pl.Float64).alias("_size"))
            sized = per_fold.join(
                sizes.drop(KEY_ALL, strict=False),
                on=[*visible, *fk],
                how="left",
                maintain_order="left",
                nulls_equal=True,
            )
            value = pl.col("value")
            averaged = sized.group_by(stat_keys, maintain_order=True).agg(
                pl.when(value.is_nan().any())
                .then(NAN)
                .otherwise((value * pl.col("_size")).sum() / pl.col("_size").sum())
                .alias("value"),
                pl.len().cast(pl.Int64).alias("n_entries"),
                value.is_nan().sum().cast(pl.Int64).alias("n_undefined"),
                pl.col("_r").min(),
            )
            parts.append(averaged.with_columns(*null_folds, pl.lit("averaged").alias("pooling")))
        spread = [p for p in ("min", "max", "std") if p in poolings]
        if spread:
            value = pl.col("value").filter(pl.col("value").is_not_nan())
            stats = per_fold.group_by(stat_keys, maintain_order=True).agg(
                value.min().alias("min"),
                value.max().alias("max"),
                value.std(ddof=1).alias("std"),
                pl.len().cast(pl.Int64).alias("n_entries"),
                pl.col("value").is_nan().sum().cast(pl.Int64).alias("n_undefined"),
                pl.col("_r").min(),
            )
            for stat in spread:
                parts.append(
                    stats.select(
                        *stat_keys,
                        pl.col(stat).cast(pl.Float64).fill_null(float("nan")).alias("value"),
                        "n_entries",
                        "n_undefined",
                        *null_folds,
                        pl.lit(stat).alias("pooling"),
                        "_r",
                    )
                )
    columns = [*visible, *fk, "pooling", *RESULT_COLUMNS]
    out = pl.concat([p.select(*columns, "_r") for p in parts], how="vertical_relaxed")
    rank = {p: i for i, p in enumerate(POOLINGS)}
    return out.sort(
        [*visible, pl.col("pooling").replace_strict(rank, return_dtype=pl.Int64), *fk, "_r"],
        nulls_last=True,
    ).drop("_r")


def _spread(value: pl.Expr) -> dict[str, pl.Expr]:
    """min, max and std (ddof=1) over the defined values."""
    defined = value.filter(value.is_not_nan())
    return {"min": defined.min(), "max": defined.max(), "std": defined.std(ddof=1)}


def _repeats(
    tables: CellTables,
    *,
    keys: list[str],
    fold_keys: list[str],
    visible: list[str],
    reducer: Callable[[CellTables], pl.LazyFrame],
    poolings: Sequence[str],
) -> list[pl.LazyFrame]:
    """The ``repeat_*`` poolings: the folds of each repeat pooled, then over the repeats."""
    if REPEAT not in fold_keys:
        msg = (
            f"pooling={list(poolings)!r} pools the folds of each repeat: it needs a repeat column "
            "(pass repeat='<column>' with fold='<column>' when building the predictions)"
        )
        raise OptionError(msg)
    per_repeat = reducer(sum_to(tables, [*keys, REPEAT])).with_row_index("_r").cache()
    others = [pl.lit(None).alias(c) for c in fold_keys if c != REPEAT]
    parts = []
    if "repeat" in poolings:
        parts.append(per_repeat.with_columns(*others, pl.lit("repeat").alias("pooling")))
    stat_keys = [*visible, "measure", "operator", "convention"]
    value = pl.col("value")
    spread = _spread(value)
    stats = per_repeat.group_by(stat_keys, maintain_order=True).agg(
        pl.when(value.is_nan().any()).then(NAN).otherwise(value.mean()).alias("repeat_pooled"),
        *[e.alias(f"repeat_{name}") for name, e in spread.items()],
        pl.len().cast(pl.Int64).alias("n_entries"),
        value.is_nan().sum().cast(pl.Int64).alias("n_undefined"),
        pl.col("_r").min(),
    )
    nulls = [pl.lit(None).alias(c) for c in fold_keys]
    for stat in ("repeat_pooled", "repeat_min", "repeat_max", "repeat_std"):
        if stat in poolings:
            parts.append(
                stats.select(
                    *stat_keys,
                    pl.col(stat).cast(pl.Float64).fill_null(float("nan")).alias("value"),
                    "n_entries",
                    "n_undefined",
                    *nulls,
                    pl.lit(stat).alias("pooling"),
                    "_r",
                )
            )
    return parts
