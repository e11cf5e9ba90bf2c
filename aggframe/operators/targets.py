"""Several targets (multi-output): the block-matrix operators and the target-wise operator.

With T targets on the same examples the data are the block matrix
``[Y(1) | ... | Y(T)]``: its classes are the (target, class) pairs and its
examples span every target. The cell tables keyed by target give both views:

* block ``micro``/``macro``/``weighted``: the per-class table with the target
  dropped from the group keys, so the entries are all (target, class) pairs;
* block ``exemplar``: per-example cells summed over the targets (``block_profiles``);
* ``target:<within>``: the operator ``within`` inside each target, then the
  mean over the targets, with the convention deciding what an undefined target
  value counts as (exactly as for per-class entries).

For a decomposable measure pooling every target (block micro) equals the
target-wise micro average weighted by each target's denominator (Theorem 1 on
the blocks); the two coincide when the denominators are equal (Corollary 1).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from aggframe._columns import KEY_ALL, RESULT_COLUMNS
from aggframe.measures.measure import Measure
from aggframe.operators.reduce import reduce_tables, resolve_mean
from aggframe.tables.cells import CellTables

__all__ = ["block_view", "target_mean", "target_reduce"]


def block_view(tables: CellTables) -> CellTables:
    """The block matrix of all targets: the target leaves the keys."""
    assert tables.target is not None
    assert tables.block_profiles is not None
    keys = tuple(k for k in tables.keys if k != tables.target)
    return CellTables(classes=tables.classes, profiles=tables.block_profiles, keys=keys)


def target_mean(per_target: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """Mean over targets of per-target values, the convention deciding undefined (NaN) ones.

    The targets are the entries of a uniform mean: their sufficient sums go
    through the one resolution (:func:`~aggframe.operators.reduce.resolve_mean`).
    """
    v = pl.col("value")
    defined = v.is_not_nan()
    sums = per_target.group_by([*keys, "measure", "operator", "convention"], maintain_order=True).agg(
        pl.len().cast(pl.Float64).alias("n_tot"),
        defined.sum().cast(pl.Float64).alias("n_def"),
        v.filter(defined).sum().alias("sv_n"),
    )
    uniform = sums.with_columns(
        pl.col("n_tot").alias("w_tot"), pl.col("n_def").alias("w_def"), pl.col("sv_n").alias("sv_w")
    )
    return uniform.select(
        *keys,
        "measure",
        "operator",
        "convention",
        resolve_mean(pl.col("convention")).cast(pl.Float64).alias("value"),
        pl.col("n_tot").cast(pl.Int64).alias("n_entries"),
        (pl.col("n_tot") - pl.col("n_def")).cast(pl.Int64).alias("n_undefined"),
    )


def target_reduce(
    tables: CellTables,
    measures: Sequence[Measure],
    operators: Sequence[str],
    conventions: Sequence[str],
    withins: Sequence[str],
) -> pl.LazyFrame:
    """Tidy rows for every operator, keyed by the tables' keys without the target."""
    if tables.target is None:
        return reduce_tables(tables, measures, operators, conventions)
    block_ops = [op for op in operators if op != "target"]
    keys = [k for k in tables.keys if k != tables.target]
    visible = [k for k in keys if k != KEY_ALL]
    parts: list[pl.LazyFrame] = []
    if block_ops:
        parts.append(reduce_tables(block_view(tables), measures, block_ops, conventions))
    if "target" in operators:
        per_target = reduce_tables(tables, measures, withins, conventions)
        mean = target_mean(per_target, visible)
        parts.append(
            mean.with_columns(pl.concat_str(pl.lit("target:"), pl.col("operator")).alias("operator"))
        )
    labels = [
        op if op != "target" else f"target:{w}"
        for op in operators
        for w in (withins if op == "target" else [op])
    ]
    order = {label: i for i, label in enumerate(labels)}
    names = {m.name: i for i, m in enumerate(measures)}
    out = pl.concat([p.select(*visible, *RESULT_COLUMNS) for p in parts], how="vertical")
    return out.sort(
        [
            *visible,
            pl.col("measure").replace_strict(names, return_dtype=pl.Int64),
            pl.col("operator").replace_strict(order, return_dtype=pl.Int64),
        ],
        nulls_last=True,
        maintain_order=True,
    )
