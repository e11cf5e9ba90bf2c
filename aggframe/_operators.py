"""Narrow step 2: cell tables -> tidy results. Operators are group-bys.

=========  =======================  ==========================================
operator   entries (one value each)  averaged with weights
=========  =======================  ==========================================
micro      pooled cells per group    (one entry)
macro      class cells               1
weighted   class cells               support ``tp + fn``
exemplar   cell profiles             multiplicity ``n`` (examples sharing it)
=========  =======================  ==========================================

Every requested measure x operator x convention becomes one aggregation column of
one ``group_by(keys)`` per table, then an unpivot: never a loop over groups.

Conventions for undefined entries (null values):

``exclude``  mean over defined entries; NaN when none is defined
``zero``     undefined entries count as 0
``one``      undefined entries count as 1
``nan``      NaN as soon as one entry is undefined

Under ``weighted``, when the support of the counted entries sums to zero, the
uniform mean of those entries is used (aggmetrics 0.2.0 raises
``ZeroDivisionError`` there).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from aggframe._cells import CELLS, KEY_ALL
from aggframe._grains import CLASS, CellTables
from aggframe._measures import Measure

__all__ = ["RESULT_COLUMNS", "class_values", "example_values", "reduce_tables"]

RESULT_COLUMNS = ("measure", "operator", "convention", "value", "n_entries", "n_undefined")
_NAN = pl.lit(float("nan"), dtype=pl.Float64)
_SEP = "\x1f"


def _combine(v: pl.Expr, n: pl.Expr, w: pl.Expr, convention: str) -> pl.Expr:
    """Aggregate entries with values ``v`` (null = undefined), multiplicities ``n``
    and weights ``w`` into ``struct(value, n_entries, n_undefined)``."""
    defined = v.is_not_null()
    weight = n * w
    n_entries = n.sum()
    n_undefined = pl.when(defined).then(0).otherwise(n).sum()
    if convention in ("zero", "one"):
        filled = v.fill_null(0.0 if convention == "zero" else 1.0)
        den_w, num_w = weight.sum(), (filled * weight).sum()
        den_n, num_n = n.sum(), (filled * n).sum()
    else:
        # products with a null value are null, and sums skip nulls: defined entries only
        den_w, num_w = pl.when(defined).then(weight).sum(), (v * weight).sum()
        den_n, num_n = pl.when(defined).then(n).sum(), (v * n).sum()
    value = (
        pl.when(den_w > 0)
        .then(num_w / den_w)
        .when(den_n > 0)
        .then(num_n / den_n)  # zero total weight: uniform mean of the counted entries
        .otherwise(_NAN)
    )
    if convention == "nan":
        value = pl.when(n_undefined > 0).then(_NAN).otherwise(value)
    return pl.struct(
        value.cast(pl.Float64).alias("value"),
        n_entries.cast(pl.Int64).alias("n_entries"),
        n_undefined.cast(pl.Int64).alias("n_undefined"),
    )


def _tidy(
    entries: pl.LazyFrame,
    keys: Sequence[str],
    measures: Sequence[Measure],
    operators: Sequence[str],
    conventions: Sequence[str],
    *,
    n: pl.Expr,
    weights: dict[str, pl.Expr],
) -> pl.LazyFrame:
    values = [m.expr().alias(f"_v{i}") for i, m in enumerate(measures)]
    # multiplicities and weights as real columns: a literal would sum to 1 in the group-by
    extra = [n.cast(pl.Int64).alias("_n"), *[w.cast(pl.Float64).alias(f"_w_{op}") for op, w in weights.items()]]
    aggs = [
        _combine(pl.col(f"_v{i}"), pl.col("_n"), pl.col(f"_w_{op}"), conv).alias(_SEP.join((str(i), op, conv)))
        for i in range(len(measures))
        for op in operators
        for conv in conventions
    ]
    out = (
        entries.with_columns(*values, *extra)
        .group_by(list(keys))
        .agg(aggs)
        .unpivot(index=list(keys), variable_name="_k", value_name="_s")
        .with_columns(pl.col("_k").str.split_exact(_SEP, 2).struct.rename_fields(["_i", "operator", "convention"]))
        .unnest("_k", "_s")
    )
    return out.with_columns(pl.col("_i").cast(pl.Int64))


def reduce_tables(
    tables: CellTables,
    measures: Sequence[Measure],
    operators: Sequence[str],
    conventions: Sequence[str],
) -> pl.LazyFrame:
    """Every measure x operator x convention of one set of cell tables, tidy."""
    keys = list(tables.keys)
    one = pl.lit(1, dtype=pl.Int64)
    parts: list[pl.LazyFrame] = []
    if "micro" in operators:
        pooled = tables.classes.group_by(keys).agg(pl.col(*CELLS).sum())
        parts.append(_tidy(pooled, keys, measures, ["micro"], conventions, n=one, weights={"micro": one}))
    by_class = [op for op in operators if op in ("macro", "weighted")]
    if by_class:
        weights = {"macro": one, "weighted": pl.col("tp") + pl.col("fn")}
        parts.append(_tidy(tables.classes, keys, measures, by_class, conventions, n=one, weights=weights))
    if "exemplar" in operators:
        parts.append(
            _tidy(tables.profiles, keys, measures, ["exemplar"], conventions, n=pl.col("n"), weights={"exemplar": one})
        )
    out = pl.concat(parts, how="vertical")
    op_rank = {op: i for i, op in enumerate(operators)}
    conv_rank = {c: i for i, c in enumerate(conventions)}
    names = {i: m.name for i, m in enumerate(measures)}
    out = out.sort(
        [
            *keys,
            pl.col("_i"),
            pl.col("operator").replace_strict(op_rank, return_dtype=pl.Int64),
            pl.col("convention").replace_strict(conv_rank, return_dtype=pl.Int64),
        ],
        nulls_last=True,
    ).with_columns(pl.col("_i").replace_strict(names, return_dtype=pl.String).alias("measure"))
    visible = [k for k in keys if k != KEY_ALL]
    return out.select(*visible, *RESULT_COLUMNS)


def class_values(tables: CellTables, measure: Measure) -> pl.LazyFrame:
    """Per-class values with their cells and support (the macro/weighted entries)."""
    visible = [k for k in tables.keys if k != KEY_ALL]
    return (
        tables.classes.with_columns(
            (pl.col("tp") + pl.col("fn")).alias("support"), measure.expr().alias("value")
        )
        .with_columns(pl.col("value").is_not_null().alias("defined"))
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
