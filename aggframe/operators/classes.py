"""Per-class views of the cell tables: per-class values, class subsets, the binary operator."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import polars as pl

from aggframe._columns import CELLS, CLASS, KEY_ALL
from aggframe.exceptions import OptionError
from aggframe.measures.measure import Measure
from aggframe.tables.cells import GROUP_COLUMNS, CellTables, filled_classes, group_table
from aggframe.tables.universe import exact_classes

__all__ = [
    "absent_values",
    "check_binary_subset",
    "class_list",
    "class_table",
    "class_values",
    "exact_classes",
    "example_values",
    "subset_tables",
]


def class_values(tables: CellTables, measure: Measure) -> pl.LazyFrame:
    """Per-class values with their cells and support (the macro/weighted entries).

    One row per (group, class) of the universe: the absent pairs are filled in
    (:func:`~aggframe.tables.cells.filled_classes`), so this costs groups x classes.
    """
    visible = [k for k in tables.keys if k != KEY_ALL]
    return (
        class_table(tables, [measure])
        .sort([*visible, CLASS], nulls_last=True)
        .select(*visible, CLASS, *CELLS, "support", "value", "defined")
    )


def example_values(cells: pl.LazyFrame, keys: Sequence[str], example: str, measure: Measure) -> pl.LazyFrame:
    """Per-example values from a per-example cell table (the exemplar entries)."""
    visible = [k for k in keys if k != KEY_ALL]
    return (
        cells.with_columns(measure.expr().alias("value"))
        .with_columns(pl.col("value").is_not_null().alias("defined"))
        .sort([*visible, example], nulls_last=True)
        .select(*visible, example, *CELLS, "value", "defined")
    )


def class_list(classes: object) -> list[object] | None:
    """``classes=`` (``labels=``) as a list of classes: a list, tuple, array or Series, not one value."""
    if classes is None:
        return None
    if not isinstance(classes, (str, bytes, Mapping)) and isinstance(classes, Iterable):
        try:
            listed = list(classes)
        except TypeError:  # a 0-d array
            pass
        else:
            if not listed:
                # no class: every value NaN with n_entries 0 (per_class: an empty frame)
                msg = "classes= (labels=) names no class; leave it out (None) for every class"
                raise OptionError(msg)
            return listed
    msg = (
        f"classes= (labels=) takes a list of classes, got {type(classes).__name__}: {classes!r}; "
        f"wrap one class in a list, e.g. labels=[{classes!r}]"
    )
    raise OptionError(msg)


def check_binary_subset(*, binary: bool, classes: Sequence[object] | None) -> None:
    """Refuse a class subset on ``task="binary"`` predictions: they keep the positive class only.

    With ``task="binary"`` the negative class is not a class of the tables, so
    ``labels=[negative]`` would silently be read as an absent class.
    """
    if binary and classes is not None:
        msg = (
            f"classes= (labels=) {list(classes)[:5]!r} does not apply to task='binary' predictions: they "
            "keep the positive class (pos_label) only, so a subset would report another class as absent; "
            "evaluate the positive class without labels=, or pass pos_label=<class> for another one"
        )
        raise OptionError(msg)


def subset_tables(tables: CellTables, labels: Sequence[object], dtype: pl.DataType) -> CellTables:
    """Keep only the named classes (scikit-learn's ``labels=``): they become the universe.

    A named class outside the universe is a class nobody is or predicts: no
    positives, every example a true negative (its values are undefined or zero
    by the convention). Micro over a subset is no longer accuracy. The named
    classes absent from a group stay absent (counted, not filled in). A value the
    class dtype cannot hold exactly (``1.5`` on integer classes) is refused
    (:func:`exact_classes`), never cast to another class.
    """
    keys = list(tables.keys)
    if any(label is None for label in labels):
        msg = f"labels {list(labels)[:5]!r} name a null class; a class is a value, not null"
        raise OptionError(msg)
    named = exact_classes(labels, dtype)
    wanted = pl.LazyFrame(named.unique(maintain_order=True))
    m = pl.lit(wanted.select(pl.len()).collect().item(), dtype=pl.Int64)
    classes = tables.classes.join(wanted, on=CLASS, how="semi", nulls_equal=True).cache()
    present = classes.group_by(keys).agg(pl.col(*CELLS).sum(), pl.len().cast(pl.Int64).alias("_present"))
    absent = m - pl.col("_present").fill_null(0)
    groups = (
        group_table(tables)
        .select(*keys, "n_examples")
        .join(present, on=keys, how="left", nulls_equal=True)
        .with_columns(
            m.alias("n_classes"),
            absent.alias("n_absent"),
            pl.col("tp", "fp", "fn").fill_null(0.0),
            (
                pl.col("tn").fill_null(0.0) + absent.cast(pl.Float64) * pl.col("n_examples").cast(pl.Float64)
            ).alias("tn"),
        )
        .select(*keys, *GROUP_COLUMNS)
    )
    return replace(tables, classes=classes, groups=groups, universe=wanted, universe_keys=(), pairs=None)


def class_table(tables: CellTables, measures: Sequence[Measure], *, filled: bool = True) -> pl.LazyFrame:
    """Per-class values of several measures, tidy: keys..., class, measure, value, defined, support, cells.

    Every (group, class) of the universe, the absent pairs filled in: costs
    groups x classes x measures rows (the operators never need it).
    ``filled=False``: the pairs that occur only (the absent classes' one value per
    group is :func:`absent_values`).
    """
    visible = [k for k in tables.keys if k != KEY_ALL]
    cols = [f"_v{i}" for i in range(len(measures))]
    names = {c: m.name for c, m in zip(cols, measures, strict=True)}
    return (
        (filled_classes(tables) if filled else tables.classes)
        .with_columns(
            (pl.col("tp") + pl.col("fn")).alias("support"),
            *[m.expr().alias(c) for m, c in zip(measures, cols, strict=True)],
        )
        .unpivot(
            on=cols, index=[*visible, CLASS, *CELLS, "support"], variable_name="measure", value_name="value"
        )
        .with_columns(
            pl.col("measure").replace_strict(names, return_dtype=pl.String),
            pl.col("value").is_not_null().alias("defined"),
        )
        .select(*visible, CLASS, "measure", "value", "defined", "support", *CELLS)
    )


def absent_values(tables: CellTables, measures: Sequence[Measure]) -> pl.LazyFrame:
    """The one value of a group's absent classes per measure: keys..., measure, value, defined, n_absent.

    An absent class has the cells ``(0, 0, 0, N)``, so all of a group's absent
    classes share one value ``M(0, 0, 0, N)``: one row per group with absent
    classes and measure, whatever their number (``n_absent``).
    """
    visible = [k for k in tables.keys if k != KEY_ALL]
    cols = [f"_v{i}" for i in range(len(measures))]
    names = {c: m.name for c, m in zip(cols, measures, strict=True)}
    zero = pl.lit(0.0, dtype=pl.Float64)
    groups = group_table(tables).filter(pl.col("n_absent") > 0)
    cells = groups.select(
        *visible,
        "n_absent",
        zero.alias("tp"),
        zero.alias("fp"),
        zero.alias("fn"),
        pl.col("n_examples").cast(pl.Float64).alias("tn"),
    )
    return (
        cells.select(*visible, "n_absent", *[m.expr().alias(c) for m, c in zip(measures, cols, strict=True)])
        .unpivot(on=cols, index=[*visible, "n_absent"], variable_name="measure", value_name="value")
        .with_columns(
            pl.col("measure").replace_strict(names, return_dtype=pl.String),
            pl.col("value").is_not_null().alias("defined"),
        )
        .select(*visible, "measure", "value", "defined", "n_absent")
    )
