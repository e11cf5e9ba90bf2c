"""Per-class views of the cell tables: per-class values, class subsets, the binary operator."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from aggframe._columns import CELLS, CLASS, KEY_ALL
from aggframe.exceptions import OptionError
from aggframe.measures.measure import Measure
from aggframe.operators.reduce import reduce_tables
from aggframe.tables.cells import CellTables

__all__ = ["binary_rows", "class_table", "class_values", "example_values", "subset_tables"]


def class_values(tables: CellTables, measure: Measure) -> pl.LazyFrame:
    """Per-class values with their cells and support (the macro/weighted entries)."""
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


def subset_tables(tables: CellTables, labels: Sequence[object], dtype: pl.DataType) -> CellTables:
    """Keep only the named classes (scikit-learn's ``labels=``).

    A named class outside the universe is a class nobody is or predicts: no
    positives, every example a true negative (its values are undefined or zero
    by the convention). Micro over a subset is no longer accuracy.
    """
    keys = list(tables.keys)
    if any(label is None for label in labels):
        msg = f"labels {list(labels)[:5]!r} name a null class; a class is a value, not null"
        raise OptionError(msg)
    try:
        wanted = pl.LazyFrame({CLASS: pl.Series(list(labels)).cast(dtype, strict=True)})
    except Exception as exc:
        msg = f"labels {list(labels)[:5]!r} cannot be cast to the class dtype {dtype}"
        raise OptionError(msg) from exc
    sizes = tables.profiles.group_by(keys).agg(pl.col("n").sum().cast(pl.Float64).alias("_N"))
    classes = (
        sizes.join(wanted, how="cross")
        .join(tables.classes, on=[*keys, CLASS], how="left", nulls_equal=True)
        .with_columns(
            pl.col("tp", "fp", "fn").fill_null(0.0),
            pl.col("tn").fill_null(pl.col("_N")),
        )
        .select(*keys, CLASS, *CELLS)
    )
    return CellTables(classes=classes, profiles=tables.profiles, keys=tables.keys)


def binary_rows(
    tables: CellTables,
    measures: Sequence[Measure],
    conventions: Sequence[str],
    pos_label: object,
    dtype: pl.DataType,
) -> pl.LazyFrame:
    """The ``binary`` operator: the positive class only, valid only with two classes.

    As in scikit-learn and Lodestar.Metrics, a call written for two classes and
    later fed three raises instead of silently averaging.
    """
    keys = list(tables.keys)

    def check(classes: pl.DataFrame) -> pl.DataFrame:
        counts = classes.group_by(keys).agg(pl.col(CLASS).n_unique().alias("_m"))
        many = counts.filter(pl.col("_m") != 2)
        if many.height:
            m = int(many["_m"][0])
            found = classes[CLASS].unique().sort().to_list()[:5]
            msg = (
                f"the binary operator reports the positive class only and needs exactly two classes, "
                f"but found {m} (e.g. {found!r}); name the averaging you meant: 'macro', 'weighted' or 'micro'"
            )
            raise OptionError(msg)
        if classes.filter(pl.col(CLASS) == pl.lit(pos_label).cast(dtype)).height == 0:
            msg = (
                f"pos_label {pos_label!r} is not one of the two classes {classes[CLASS].unique().to_list()!r}"
            )
            raise OptionError(msg)
        return classes

    checked = tables.classes.map_batches(check)
    positive = checked.filter(pl.col(CLASS) == pl.lit(pos_label).cast(dtype))
    single = CellTables(classes=positive, profiles=tables.profiles, keys=tables.keys)
    return reduce_tables(single, measures, ["micro"], conventions).with_columns(
        pl.lit("binary").alias("operator")
    )


def class_table(tables: CellTables, measures: Sequence[Measure]) -> pl.LazyFrame:
    """Per-class values of several measures, tidy: keys..., class, support, measure, value, defined."""
    visible = [k for k in tables.keys if k != KEY_ALL]
    cols = [f"_v{i}" for i in range(len(measures))]
    names = {c: m.name for c, m in zip(cols, measures, strict=True)}
    return (
        tables.classes.with_columns(
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
