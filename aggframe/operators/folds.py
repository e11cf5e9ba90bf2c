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
    SLOT_ROW_COLUMNS,
    Wide,
    entries_col,
    one_layout,
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
    :data:`~aggframe._options.POOLINGS`) and the fold keys. When a reduction
    gives its slots as rows (``Wide.rows``, small kept tables), every block is
    rows (the others exploded) and the statistics over folds and repeats are one
    ``group_by(keys, slot)``; else one column of each statistic per slot.
    """
    k, fk = list(keys), list(fold_keys)
    gk = [c for c in k if c != tables.target]  # the blocks' group keys (the stand-in key too)
    visible = [c for c in gk if c != KEY_ALL]
    by_repeat = [p for p in poolings if p in REPEAT_POOLINGS]
    if by_repeat and REPEAT not in fk:
        msg = (
            f"pooling={list(by_repeat)!r} pools the folds of each repeat: it needs a repeat column "
            "(pass repeat='<column>' with fold='<column>' when building the predictions)"
        )
        raise OptionError(msg)
    needs_folds = [p for p in poolings if p not in ("pooled", *REPEAT_POOLINGS)]
    reduced: dict[str, Wide] = {}
    if "pooled" in poolings:
        reduced["pooled"] = reducer(sum_to(tables, k))
    if by_repeat:
        reduced["repeat"] = reducer(sum_to(tables, [*k, REPEAT]))
    if needs_folds:
        reduced["fold"] = reducer(tables)
    reduced = dict(zip(reduced, one_layout(list(reduced.values())), strict=True))
    first = next(iter(reduced.values()))
    rows = first.rows
    layout = _Layout(rows=rows, n=len(first.slots), extra=tuple(first.extra()))
    # a fold key not reported is null of its own dtype: one schema whatever the poolings
    dtypes = tables.classes.collect_schema()
    null_folds = [pl.lit(None, dtype=dtypes[c]).alias(c) for c in fk]

    def block(frame: pl.LazyFrame, pooling: str, folds: Sequence[pl.Expr | str]) -> pl.LazyFrame:
        return frame.select(*gk, *folds, pl.lit(pooling).alias("pooling"), *layout.extra, *layout.columns())

    parts: list[pl.LazyFrame] = []
    if "pooled" in reduced:
        parts.append(block(reduced["pooled"].frame, "pooled", null_folds))
    if "repeat" in reduced:
        parts.extend(
            _repeats(
                reduced["repeat"].frame.cache(),
                layout,
                gk=gk,
                fold_keys=fk,
                dtypes=dtypes,
                poolings=by_repeat,
            )
        )
    if "fold" in reduced:
        fold_frame = reduced["fold"].frame.cache()
        if "fold" in poolings:
            parts.append(block(fold_frame, "fold", fk))
        if "averaged" in poolings:
            examples = tables.block_profiles if tables.block_profiles is not None else tables.profiles
            size_keys = [c for c in (*k, *fk) if c != tables.target]
            sizes = examples.group_by(size_keys).agg(pl.col("n").sum().cast(pl.Float64).alias("_size"))
            sized = fold_frame.join(sizes, on=[*gk, *fk], how="left", nulls_equal=True)
            averaged = sized.group_by(layout.by(gk)).agg(*layout.sums(), *layout.each(_size_weighted))
            parts.append(block(averaged, "averaged", null_folds))
        spread = [p for p in ("min", "max", "std") if p in poolings]
        if spread:
            count = pl.len().cast(pl.Int64).alias("_folds")
            stats = (
                fold_frame.group_by(layout.by(gk)).agg(count, *layout.sums(), *layout.each(_spread)).cache()
            )
            for stat in spread:
                columns = layout.stat_columns(stat, "_folds")
                parts.append(
                    stats.select(*gk, *null_folds, pl.lit(stat).alias("pooling"), *layout.extra, *columns)
                )
    rank = {p: i for i, p in enumerate(POOLINGS)}
    order = [*visible, pl.col("pooling").replace_strict(rank, return_dtype=pl.Int64), *fk]
    out = pl.concat(parts, how="vertical_relaxed").sort(
        [*order, *(["_slot"] if rows else [])], nulls_last=True
    )
    slots = first.slots
    return Wide(frame=out, keys=(*gk, *fk, "pooling"), slots=slots, examples=bool(layout.extra), rows=rows)


@dataclass(frozen=True)
class _Layout:
    """Where the blocks' slots are: a column set per slot ``j`` (``_v{j}`` ...) or a row per slot
    (``_slot``, ``value`` ...), and the blocks' extra columns (summed over folds and repeats)."""

    rows: bool
    n: int
    extra: tuple[str, ...]

    def by(self, gk: Sequence[str]) -> list[str]:
        """The keys of a statistic over folds or repeats: the group's, and the slot as rows."""
        return [*gk, "_slot"] if self.rows else list(gk)

    def sums(self) -> list[pl.Expr]:
        return [pl.col(c).sum() for c in self.extra]

    def suffixes(self) -> list[str]:
        """A suffix per slot column set (``""``: the one value column of rows)."""
        return [""] if self.rows else [str(j) for j in range(self.n)]

    def names(self, suffix: str) -> tuple[str, str, str]:
        """The value, ``n_entries`` and ``n_undefined`` columns of a slot."""
        if self.rows:
            return ("value", "n_entries", "n_undefined")
        j = int(suffix)
        return (value_col(j), entries_col(j), undefined_col(j))

    def each(self, stat: Callable[[pl.Expr, str, tuple[str, str, str]], list[pl.Expr]]) -> list[pl.Expr]:
        """A statistic's aggregations for every slot (its value column, suffix and names)."""
        return [e for s in self.suffixes() for e in stat(pl.col(self.names(s)[0]), s, self.names(s))]

    def columns(self) -> list[str]:
        return list(SLOT_ROW_COLUMNS) if self.rows else slot_columns(self.n)

    def stat_columns(self, stat: str, count: str) -> list[pl.Expr]:
        """The slot columns of one statistic ``_{stat}{suffix}`` (``count``: its entries, folds or repeats)."""
        out: list[pl.Expr] = [pl.col("_slot")] if self.rows else []
        for s in self.suffixes():
            value, entries, undefined = self.names(s)
            out += [
                pl.col(f"_{stat}{s}").cast(pl.Float64).fill_null(float("nan")).alias(value),
                pl.col(count).alias(entries),
                pl.col(undefined),
            ]
        return out


def _size_weighted(value: pl.Expr, suffix: str, names: tuple[str, str, str]) -> list[pl.Expr]:
    """A slot's mean over the folds weighted by their size ``_size`` (NaN as soon as one fold's
    value is NaN), its number of folds and of NaN values."""
    size = pl.col("_size")
    return [
        pl.when(value.is_nan().any()).then(NAN).otherwise((value * size).sum() / size.sum()).alias(names[0]),
        pl.len().cast(pl.Int64).alias(names[1]),
        value.is_nan().sum().cast(pl.Int64).alias(names[2]),
    ]


def _spread(value: pl.Expr, suffix: str, names: tuple[str, str, str]) -> list[pl.Expr]:
    """min, max and std (ddof=1) of a slot over the defined values, as ``_min{suffix}`` ..., and
    its number of NaN values."""
    defined = value.filter(value.is_not_nan())
    return [
        defined.min().alias(f"_min{suffix}"),
        defined.max().alias(f"_max{suffix}"),
        defined.std(ddof=1).alias(f"_std{suffix}"),
        value.is_nan().sum().cast(pl.Int64).alias(names[2]),
    ]


def _repeat_stats(value: pl.Expr, suffix: str, names: tuple[str, str, str]) -> list[pl.Expr]:
    """Over the repeats: the mean (NaN as soon as one repeat's is), the spread and the NaN count."""
    mean = pl.when(value.is_nan().any()).then(NAN).otherwise(value.mean()).alias(f"_pooled{suffix}")
    return [mean, *_spread(value, suffix, names)]


def _repeats(
    per_repeat: pl.LazyFrame,
    layout: _Layout,
    *,
    gk: list[str],
    fold_keys: list[str],
    dtypes: pl.Schema,
    poolings: Sequence[str],
) -> list[pl.LazyFrame]:
    """The ``repeat_*`` poolings from the blocks of each repeat's folds pooled: the per-repeat
    values, then their mean and spread over the repeats."""
    only_repeat = [pl.col(c) if c == REPEAT else pl.lit(None, dtype=dtypes[c]).alias(c) for c in fold_keys]
    nulls = [pl.lit(None, dtype=dtypes[c]).alias(c) for c in fold_keys]
    frames = []
    if "repeat" in poolings:
        pooling = pl.lit("repeat").alias("pooling")
        frames.append(per_repeat.select(*gk, *only_repeat, pooling, *layout.extra, *layout.columns()))
    count = pl.len().cast(pl.Int64).alias("_repeats")
    stats = per_repeat.group_by(layout.by(gk)).agg(count, *layout.sums(), *layout.each(_repeat_stats)).cache()
    for stat in ("repeat_pooled", "repeat_min", "repeat_max", "repeat_std"):
        if stat in poolings:
            columns = layout.stat_columns(stat.removeprefix("repeat_"), "_repeats")
            frames.append(stats.select(*gk, *nulls, pl.lit(stat).alias("pooling"), *layout.extra, *columns))
    return frames
