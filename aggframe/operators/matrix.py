"""The ``multiclass`` operator: whole-matrix measures of single-label data, from the confusion counts.

The other operators apply a binary measure to one-vs-rest cells and average.
``multiclass`` evaluates the measures scikit-learn defines on the whole ``m x m``
confusion matrix (:mod:`aggframe.measures.matrix`: Gorodkin's ``R_K`` for
``mcc``, Cohen's ``kappa`` and its linear and quadratic weightings, balanced
accuracy and its adjusted form, accuracy). All but the weighted kappas are
functions of the matrix's margins, which the class cells hold (``t = tp + fn``,
``p = tp + fp``, the diagonal ``tp``): they need nothing beyond the cell tables.
The weighted kappas also read the cell tables' ``pairs``, the confusion counts,
asked for only then (:attr:`~aggframe.operators.report.ReportRequest.needs_pairs`:
the label form counts them in its one scan; the long form in one more grouped
query; a cell store keeps them), and the ranks of the universe's classes. An
absent class has no true and no predicted example, so the margins need only the
classes that occur; its rank still counts (a declared universe's order).

Each group has one whole-matrix entry, so a convention resolves an undefined
value exactly as it does a pooled micro value (:func:`~aggframe.operators.reduce.resolve_entry`):
``exclude`` and ``nan`` give NaN, ``zero`` 0, ``one`` 1; ``n_entries`` is 1 and
``n_undefined`` 0 or 1. Grouping sets and pooled folds sum the counts (as they sum
the cells), averaged folds weight the per-fold values by fold size, and the
``target`` operator with ``within="multiclass"`` averages the values of each
target (whose universe is its own). Classes rank in universe order: the declared
order (``classes=``, an ``Enum``) or, undeclared, sorted; the weighted kappas
depend on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import polars as pl

from aggframe._columns import CLASS
from aggframe._options import Convention
from aggframe.measures.matrix import WEIGHTED, Normalize, confusion_matrix_frame, matrix_columns
from aggframe.operators.reduce import NAN, Slot, Wide, entries_col, resolve_entry, undefined_col, value_col
from aggframe.operators.targets import target_mean_wide
from aggframe.tables.cells import CellTables

__all__ = ["class_ranks", "confusion_frame", "matrix_wide", "target_matrix_wide"]


def _pairs(tables: CellTables) -> pl.LazyFrame:
    if tables.pairs is None:  # the caller checks the data first; this is a programming error
        msg = "these cell tables carry no confusion counts (single-label data only)"
        raise AssertionError(msg)
    return tables.pairs


def class_ranks(tables: CellTables) -> tuple[pl.LazyFrame, list[str]]:
    """The classes of each universe with their 0-based rank in universe order, and the universe's keys.

    ``(universe keys..., class, _rank)``: one row per class of a universe (one for
    all groups, per target, or per group), never one per (group, class); the order
    is the declared one (``tables.order``) or the sort order of the class values.
    Tables without a universe (built elsewhere: every class of a group is in
    ``classes``) give each group's classes, keyed by the tables' keys.
    """
    if tables.universe is None:
        keys = list(tables.keys)
        classes = tables.classes.select(*keys, CLASS)
    else:
        keys = list(tables.universe_keys)
        classes = tables.universe.select(*keys, CLASS)
    if tables.order is None:
        position = pl.col(CLASS)
    else:
        on = [c for c in tables.order.collect_schema().names() if c != "_pos"]
        classes = classes.join(tables.order, on=on, how="left", nulls_equal=True)
        position = pl.col("_pos")
    rank = position.rank("dense") - 1
    rank = rank.over(keys) if keys else rank
    return classes.select(*keys, CLASS, rank.cast(pl.Int64).alias("_rank")), keys


def matrix_wide(
    tables: CellTables, measures: Sequence[str], conventions: Sequence[Convention], *, resolved: bool = True
) -> Wide:
    """The ``multiclass`` operator as blocks: one row per group (sorted by the keys), a slot per measure x convention.

    The margins come from the class cells (the classes that occur: an absent class
    has no true and no predicted example); only the weighted kappas read the
    confusion counts and the universe's ranks. ``resolved=False`` leaves an
    undefined value NaN under every convention (for a mean over targets).
    """
    keys = list(tables.keys)
    conf = _pairs(tables) if any(m in WEIGHTED for m in measures) else None
    ranks, ukeys = class_ranks(tables)
    values = matrix_columns(conf, ranks, keys, ukeys, list(measures), cells=tables.classes)
    values = values.sort(keys, nulls_last=True)
    slots: list[Slot] = []
    columns: list[pl.Expr] = []
    for m in measures:
        v = pl.col(m)
        for conv in conventions:
            j = len(slots)
            slots.append(Slot(m, "multiclass", conv))
            value = resolve_entry(v, conv) if resolved else v
            columns += [
                value.fill_null(NAN).cast(pl.Float64).alias(value_col(j)),
                pl.lit(1, dtype=pl.Int64).alias(entries_col(j)),
                v.is_null().cast(pl.Int64).alias(undefined_col(j)),
            ]
    return Wide(frame=values.select(*keys, *columns), keys=tuple(keys), slots=tuple(slots))


def target_matrix_wide(
    tables: CellTables, measures: Sequence[str], conventions: Sequence[Convention]
) -> Wide:
    """The ``target`` operator with ``within="multiclass"``: each target's whole-matrix value, averaged.

    An undefined target value counts as the convention says (the one resolution,
    :func:`~aggframe.operators.targets.target_mean_wide`); operator ``target:multiclass``.
    """
    assert tables.target is not None
    keys = [k for k in tables.keys if k != tables.target]
    per_target = replace(tables, block_profiles=None)
    return target_mean_wide(matrix_wide(per_target, measures, conventions, resolved=False), keys)


def confusion_frame(tables: CellTables, normalize: Normalize | None) -> pl.LazyFrame:
    """The tidy confusion matrix per group (private keys): keys..., y_true, y_pred, count [, rate].

    Every (y_true, y_pred) pair of the group's universe, zeros included, in
    universe order. ``rate`` (with ``normalize``) is null where its denominator is 0.
    """
    keys = list(tables.keys)
    ranks, ukeys = class_ranks(tables)
    return confusion_matrix_frame(_pairs(tables), ranks, keys, ukeys, normalize)
