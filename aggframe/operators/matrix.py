"""The ``multiclass`` operator: whole-matrix measures of single-label data, from the confusion counts.

The other operators apply a binary measure to one-vs-rest cells and average.
``multiclass`` evaluates the measures scikit-learn defines on the whole ``m x m``
confusion matrix (:mod:`aggframe.measures.matrix`: Gorodkin's ``R_K`` for
``mcc``, Cohen's ``kappa`` and its linear and quadratic weightings, balanced
accuracy and its adjusted form, accuracy). All but the weighted kappas are
functions of the matrix's margins, which the class cells hold (``t = tp + fn``,
``p = tp + fp``, the diagonal ``tp``): they need nothing beyond the cell tables.
The weighted kappas also read the cell tables' ``pairs``: the confusion counts
the label form's wide step already made (no extra scan; the long form counts
them in one more grouped query, a cell store keeps them).

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

import polars as pl

from aggframe._columns import CLASS, KEY_ALL, RESULT_COLUMNS
from aggframe.measures.matrix import WEIGHTED, Normalize, confusion_matrix_frame, matrix_values
from aggframe.operators.reduce import NAN, resolve_entry
from aggframe.operators.targets import target_mean
from aggframe.tables.cells import CellTables

__all__ = ["class_ranks", "confusion_frame", "matrix_rows", "target_matrix_rows"]


def _pairs(tables: CellTables) -> pl.LazyFrame:
    if tables.pairs is None:  # the caller checks the data first; this is a programming error
        msg = "these cell tables carry no confusion counts (single-label data only)"
        raise AssertionError(msg)
    return tables.pairs


def class_ranks(tables: CellTables) -> pl.LazyFrame:
    """Each group's classes with their 0-based rank in universe order: ``keys..., class, _rank``.

    The universe of a group is its rows of the per-class table (global, per target
    or per group); the order is the declared one (``tables.order``) or the sort
    order of the class values.
    """
    keys = list(tables.keys)
    classes = tables.classes.select(*keys, CLASS)
    if tables.order is None:
        position = pl.col(CLASS)
    else:
        on = [c for c in tables.order.collect_schema().names() if c != "_pos"]
        classes = classes.join(tables.order, on=on, how="left", nulls_equal=True)
        position = pl.col("_pos")
    rank = (position.rank("dense").over(keys) - 1).cast(pl.Int64)
    return classes.select(*keys, CLASS, rank.alias("_rank"))


def matrix_rows(tables: CellTables, measures: Sequence[str], conventions: Sequence[str]) -> pl.LazyFrame:
    """Tidy rows of the ``multiclass`` operator: keys (without the stand-in)..., the result columns.

    One row per group x measure x convention, in the order of the keys (nulls
    last), the measures and the conventions.
    """
    keys = list(tables.keys)
    # the margins come from the class cells; only the weighted kappas read the confusion counts
    conf = _pairs(tables) if any(m in WEIGHTED for m in measures) else None
    values = matrix_values(conf, class_ranks(tables), keys, keys, list(measures), cells=tables.classes)
    v = pl.col("value")
    out = _with_conventions(values, conventions).select(
        *keys,
        "measure",
        pl.lit("multiclass").alias("operator"),
        "convention",
        pl.when(pl.col("convention") == "exclude")
        .then(v)
        .when(pl.col("convention") == "zero")
        .then(resolve_entry(v, "zero"))
        .when(pl.col("convention") == "one")
        .then(resolve_entry(v, "one"))
        .otherwise(resolve_entry(v, "nan"))
        .fill_null(NAN)
        .cast(pl.Float64)
        .alias("value"),
        pl.lit(1, dtype=pl.Int64).alias("n_entries"),
        v.is_null().cast(pl.Int64).alias("n_undefined"),
    )
    visible = [k for k in keys if k not in (KEY_ALL, tables.target)]
    return out.select(*visible, *RESULT_COLUMNS)


def target_matrix_rows(
    tables: CellTables, measures: Sequence[str], conventions: Sequence[str]
) -> pl.LazyFrame:
    """The ``target`` operator with ``within="multiclass"``: each target's whole-matrix value, averaged.

    An undefined target value counts as the convention says (the one resolution,
    :func:`~aggframe.operators.targets.target_mean`); operator ``target:multiclass``.
    """
    assert tables.target is not None
    keys = list(tables.keys)
    visible = [k for k in keys if k not in (KEY_ALL, tables.target)]
    per_target = matrix_rows(
        CellTables(
            classes=tables.classes,
            profiles=tables.profiles,
            keys=tables.keys,
            names=tables.names,
            pairs=tables.pairs,
            order=tables.order,
        ),
        measures,
        ["nan"],
    )
    # undefined target values are NaN here; the convention applies over the targets
    per_target = _with_conventions(per_target.drop("convention"), conventions)
    mean = target_mean(per_target.select(*visible, "measure", "operator", "convention", "value"), visible)
    return mean.with_columns(pl.lit("target:multiclass").alias("operator")).select(*visible, *RESULT_COLUMNS)


def _with_conventions(frame: pl.LazyFrame, conventions: Sequence[str]) -> pl.LazyFrame:
    """Each row once per convention, in row order then convention order."""
    convs = pl.LazyFrame({"convention": list(conventions), "_c": list(range(len(conventions)))})
    return frame.with_row_index("_r").join(convs, how="cross").sort("_r", "_c").drop("_r", "_c")


def confusion_frame(tables: CellTables, normalize: Normalize | None) -> pl.LazyFrame:
    """The tidy confusion matrix per group (private keys): keys..., y_true, y_pred, count [, rate].

    Every (y_true, y_pred) pair of the group's universe, zeros included, in
    universe order. ``rate`` (with ``normalize``) is null where its denominator is 0.
    """
    keys = list(tables.keys)
    return confusion_matrix_frame(_pairs(tables), class_ranks(tables), keys, keys, normalize)
