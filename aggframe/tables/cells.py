"""Cell tables: the common currency between the wide step and the operators.

``classes``   keys..., class, tp, fp, fn, tn   (every group x every class of its universe)
``profiles``  keys..., tp, fp, fn, tn, n       (n examples share these per-example cells)
``pairs``     keys..., _yt, _yp, n             (single-label data: n examples of true class _yt
                                               predicted _yp; the whole-matrix measures' input)

Keys are private (:mod:`aggframe._columns`); ``names`` maps them back to the
user's names. Every table is a sum, so tables add up (:func:`sum_to`): the
union of folds, grouping sets and cell stores are all sums of cell tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import polars as pl

from aggframe._columns import CELLS, CLASS, KEY_ALL

__all__ = ["CellTables", "renamed", "rollup_tables", "sorted_table", "sum_to"]


@dataclass(frozen=True)
class CellTables:
    """Validated cell tables of one evaluation (lazy)."""

    classes: pl.LazyFrame  # keys..., class, tp, fp, fn, tn
    profiles: pl.LazyFrame  # keys..., tp, fp, fn, tn, n
    keys: tuple[str, ...]
    #: with a target role: the per-example profiles across all targets (the block
    #: matrix), keyed by the keys without the target column
    block_profiles: pl.LazyFrame | None = None
    target: str | None = None
    #: the user's names of the private key columns (see :mod:`aggframe._columns`)
    names: Mapping[str, str] = field(default_factory=dict)
    #: single-label data: the confusion counts ``keys..., _yt, _yp, n`` (pairs with n = 0
    #: absent); None where the form has none at hand (multilabel, soft, binary task, long form)
    pairs: pl.LazyFrame | None = None
    #: a declared class universe's order: ``[target,] class, _pos`` (None: classes sort by value)
    order: pl.LazyFrame | None = None


def sum_to(tables: CellTables, keys: Sequence[str]) -> CellTables:
    """The cell tables summed down to ``keys`` (any subset of their keys; exact, as cells add up).

    Used for the union of folds and for grouping sets. The stand-in key is added
    when ``keys`` names it and a table lacks it.
    """
    k = list(keys)

    def keyed(lf: pl.LazyFrame) -> pl.LazyFrame:
        if KEY_ALL in k and KEY_ALL not in lf.collect_schema():
            return lf.with_columns(pl.lit(0).alias(KEY_ALL))
        return lf

    classes = keyed(tables.classes).group_by([*k, CLASS]).agg(pl.col(*CELLS).sum())
    profiles = keyed(tables.profiles).group_by([*k, *CELLS]).agg(pl.col("n").sum())
    block = None
    if tables.block_profiles is not None:
        block_keys = [c for c in k if c != tables.target]
        block = keyed(tables.block_profiles).group_by([*block_keys, *CELLS]).agg(pl.col("n").sum())
    pairs = None
    if tables.pairs is not None:
        pairs = keyed(tables.pairs).group_by([*k, "_yt", "_yp"]).agg(pl.col("n").sum())
    return CellTables(
        classes=classes,
        profiles=profiles,
        keys=tuple(k),
        block_profiles=block,
        target=tables.target,
        names=tables.names,
        pairs=pairs,
        order=tables.order,
    )


def renamed(tables: CellTables, renames: dict[str, str], names: dict[str, str]) -> CellTables:
    """The same cell tables with key columns renamed (all at once, so names may swap)."""

    def rename(lf: pl.LazyFrame) -> pl.LazyFrame:
        present = {k: v for k, v in renames.items() if k in lf.collect_schema() and k != v}
        return lf.rename(present) if present else lf

    return CellTables(
        classes=rename(tables.classes),
        profiles=rename(tables.profiles),
        keys=tuple(renames.get(k, k) for k in tables.keys),
        block_profiles=None if tables.block_profiles is None else rename(tables.block_profiles),
        target=tables.target,
        names=names,
        pairs=None if tables.pairs is None else rename(tables.pairs),
        order=tables.order,
    )


def rollup_tables(tables: CellTables, by: Sequence[str], keep: Sequence[str]) -> CellTables:
    """Sum the cell tables over the by-columns not in ``keep`` (other keys stay)."""
    rest = [k for k in tables.keys if k not in (*by, KEY_ALL)]
    return sum_to(tables, [*(keep or [KEY_ALL]), *rest])


def sorted_table(tables: CellTables, grain: str) -> pl.DataFrame:
    """One cell table, collected and sorted by its keys (nulls last): ``class``, ``pooled`` or ``profiles``."""
    keys = list(tables.keys)
    if grain == "class":
        return tables.classes.sort([*keys, CLASS], nulls_last=True).collect()
    if grain == "pooled":
        out = tables.classes.group_by(keys).agg(pl.col(*CELLS).sum())
        return out.sort(keys, nulls_last=True).collect()
    return tables.profiles.sort([*keys, *CELLS], nulls_last=True).collect()
