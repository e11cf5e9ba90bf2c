"""The one reduction: cell tables -> tidy results, with the one convention resolution.

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

Every average of the package resolves its undefined entries here: over classes
and examples (:func:`reduce_tables`), over targets
(:mod:`~aggframe.operators.targets`) and one entry at a time
(:func:`resolve_entry`, for per-class reports).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import polars as pl

from aggframe._columns import CELLS, KEY_ALL, RESULT_COLUMNS
from aggframe._options import Convention
from aggframe.measures.measure import Measure
from aggframe.tables.cells import CellTables

__all__ = ["NAN", "reduce_tables", "resolve_entry", "resolve_mean"]


NAN = pl.lit(float("nan"), dtype=pl.Float64)


#: What an undefined entry counts as under each filling convention (``exclude`` leaves it out).
_FILL: dict[str, float] = {"zero": 0.0, "one": 1.0, "nan": float("nan")}


def resolve_entry(value: pl.Expr, convention: Convention) -> pl.Expr:
    """One entry's value under the convention (undefined = null): filled, or left null by ``exclude``."""
    fill = _FILL.get(convention)
    return value if fill is None else value.fill_null(fill)


def resolve_mean(convention: pl.Expr) -> pl.Expr:
    """The value of one (measure, operator, group) from its sufficient sums.

    ``n_*`` sum multiplicities, ``w_*`` sum multiplicity x weight, ``sv_*`` sum
    value x those, ``*_def`` over defined entries only. A filled convention adds
    its constant for the undefined remainder; a zero total weight falls back to
    the uniform mean of the counted entries.
    """
    fill = pl.when(convention == "one").then(1.0).otherwise(0.0)  # _FILL, as an expression
    filled = convention.is_in(["zero", "one"])
    num_w = pl.col("sv_w") + pl.when(filled).then(fill * (pl.col("w_tot") - pl.col("w_def"))).otherwise(0.0)
    den_w = pl.when(filled).then(pl.col("w_tot")).otherwise(pl.col("w_def"))
    num_n = pl.col("sv_n") + pl.when(filled).then(fill * (pl.col("n_tot") - pl.col("n_def"))).otherwise(0.0)
    den_n = pl.when(filled).then(pl.col("n_tot")).otherwise(pl.col("n_def"))
    value = (
        pl.when((convention == "nan") & (pl.col("n_tot") > pl.col("n_def")))
        .then(NAN)
        .when(den_w > 0)
        .then(num_w / den_w)
        .when(den_n > 0)
        .then(num_n / den_n)
        .otherwise(NAN)
    )
    return value


# Which entries each operator averages: pooled cells, class cells or cell profiles.
_SOURCE = {"micro": "pooled", "macro": "class", "weighted": "class", "exemplar": "profile"}


def reduce_tables(
    tables: CellTables,
    measures: Sequence[Measure],
    operators: Sequence[str],
    conventions: Sequence[str],
) -> pl.LazyFrame:
    """Every measure x operator x convention of one set of cell tables, tidy.

    The entries of every operator (pooled cells, class cells, cell profiles) are
    stacked into one table, every measure is evaluated once on it, unpivoted to
    (keys, entry, measure, value), and one group-by computes the sufficient sums
    of every operator; conventions are then arithmetic on those sums. The plan's
    size does not grow with the number of measures, operators or conventions.
    """
    k = list(tables.keys)
    ops = list(operators)
    sources = {_SOURCE[op] for op in ops}
    one = pl.lit(1.0, dtype=pl.Float64)
    support = (pl.col("tp") + pl.col("fn")).cast(pl.Float64)
    stacked: list[pl.LazyFrame] = []
    if "pooled" in sources:
        pooled = tables.classes.group_by(k).agg(pl.col(*CELLS).sum())
        stacked.append(
            pooled.select(*k, *CELLS, pl.lit("pooled").alias("_src"), one.alias("_n"), one.alias("_s"))
        )
    if "class" in sources:
        stacked.append(
            tables.classes.select(
                *k, *CELLS, pl.lit("class").alias("_src"), one.alias("_n"), support.alias("_s")
            )
        )
    if "profile" in sources:
        stacked.append(
            tables.profiles.select(
                *k,
                *CELLS,
                pl.lit("profile").alias("_src"),
                pl.col("n").cast(pl.Float64).alias("_n"),
                one.alias("_s"),
            )
        )
    value_cols = [f"_v{i}" for i in range(len(measures))]
    entries = pl.concat(
        [e.with_columns(pl.col(*CELLS).cast(pl.Float64)) for e in stacked], how="vertical_relaxed"
    ).select(*k, "_src", "_n", "_s", *[_expr(m).alias(c) for m, c in zip(measures, value_cols, strict=True)])
    v, nn = pl.col("_v"), pl.col("_n")
    ww = nn * pl.col("_s")
    defined = v.is_not_null()
    agg = (
        entries.unpivot(on=value_cols, index=[*k, "_src", "_n", "_s"], variable_name="_i", value_name="_v")
        .group_by([*k, "_src", "_i"])
        .agg(
            nn.sum().alias("n_tot"),
            pl.when(defined).then(nn).sum().alias("n_def"),
            (v * nn).sum().alias("sv_n"),
            ww.sum().alias("w_tot"),
            pl.when(defined).then(ww).sum().alias("w_def"),
            (v * ww).sum().alias("sv_w"),
        )
        .with_columns(pl.col("_i").str.slice(2).cast(pl.Int64))
        .cache()
    )
    per_op = []
    for op in ops:
        rows = agg.filter(pl.col("_src") == _SOURCE[op])
        if op == "weighted":
            weights = [pl.col("w_tot"), pl.col("w_def"), pl.col("sv_w")]
        else:  # uniform weights: the weight sums are the multiplicity sums
            weights = [
                pl.col("n_tot").alias("w_tot"),
                pl.col("n_def").alias("w_def"),
                pl.col("sv_n").alias("sv_w"),
            ]
        per_op.append(rows.select(*k, "_i", pl.lit(op).alias("operator"), "n_tot", "n_def", "sv_n", *weights))
    convs = pl.LazyFrame({"convention": list(conventions)})
    out = (
        pl.concat(per_op)
        .join(convs, how="cross")
        .select(
            *k,
            "_i",
            "operator",
            "convention",
            resolve_mean(pl.col("convention")).cast(pl.Float64).alias("value"),
            pl.col("n_tot").round().cast(pl.Int64).alias("n_entries"),
            (pl.col("n_tot") - pl.col("n_def")).round().cast(pl.Int64).alias("n_undefined"),
        )
    )
    op_rank = {op: i for i, op in enumerate(ops)}
    conv_rank = {c: i for i, c in enumerate(conventions)}
    names = {i: m.name for i, m in enumerate(measures)}
    out = out.sort(
        [
            *k,
            pl.col("_i"),
            pl.col("operator").replace_strict(op_rank, return_dtype=pl.Int64),
            pl.col("convention").replace_strict(conv_rank, return_dtype=pl.Int64),
        ],
        nulls_last=True,
    ).with_columns(pl.col("_i").replace_strict(names, return_dtype=pl.String).alias("measure"))
    visible = [c for c in k if c != KEY_ALL]
    return out.select(*visible, *RESULT_COLUMNS)


@lru_cache(maxsize=512)
def _expr(measure: Measure) -> pl.Expr:
    """A measure's expression over the cell columns, built once per measure."""
    return measure.expr()
