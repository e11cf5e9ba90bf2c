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
from dataclasses import replace
from typing import Any

import polars as pl

from aggframe.measures.measure import Measure
from aggframe.operators.reduce import (
    Slot,
    Wide,
    entries_col,
    reduce_wide,
    resolve,
    resolve_mean,
    undefined_col,
    value_col,
)
from aggframe.tables.cells import CellTables

__all__ = ["block_view", "merge_slots", "operator_labels", "target_mean", "target_mean_wide", "target_reduce"]


def block_view(tables: CellTables) -> CellTables:
    """The block matrix of all targets: the target leaves the keys (its groups keep it)."""
    assert tables.target is not None
    assert tables.block_profiles is not None
    keys = tuple(k for k in tables.keys if k != tables.target)
    return replace(tables, profiles=tables.block_profiles, keys=keys, block_profiles=None, target=None)


def target_mean(per_target: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """Mean over targets of per-target values (tidy rows), the convention deciding undefined (NaN) ones.

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


def target_mean_wide(per_target: Wide, keys: Sequence[str]) -> Wide:
    """:func:`target_mean` on blocks: one group-by over the targets, every slot a column."""
    k = list(keys)
    n = len(per_target.slots)
    f64 = pl.Float64
    aggs = [pl.len().cast(f64).alias("_nt")]
    for j in range(n):
        v = pl.col(value_col(j))
        defined = v.is_not_nan()
        aggs += [defined.sum().cast(f64).alias(f"_nd{j}"), v.filter(defined).sum().alias(f"_sv{j}")]
    sums = per_target.frame.group_by(k).agg(*aggs).sort(k, nulls_last=True)
    columns = []
    for j, slot in enumerate(per_target.slots):
        n_tot, n_def = pl.col("_nt"), pl.col(f"_nd{j}")
        columns += [
            resolve(slot.convention, n_tot, n_def, pl.col(f"_sv{j}")).alias(value_col(j)),
            n_tot.cast(pl.Int64).alias(entries_col(j)),
            (n_tot - n_def).cast(pl.Int64).alias(undefined_col(j)),
        ]
    slots = tuple(Slot(s.measure, f"target:{s.operator}", s.convention) for s in per_target.slots)
    return Wide(frame=sums.select(*k, *columns), keys=tuple(k), slots=slots)


def target_reduce(
    tables: CellTables,
    measures: Sequence[Measure],
    operators: Sequence[str],
    conventions: Sequence[str],
    withins: Sequence[str],
    *,
    pos_label: Any = None,
    class_dtype: pl.DataType | None = None,
) -> Wide:
    """Blocks for every operator, keyed by the tables' keys without the target."""
    if tables.target is None:
        return reduce_wide(
            tables, measures, operators, conventions, pos_label=pos_label, class_dtype=class_dtype
        )
    block_ops = [op for op in operators if op != "target"]
    keys = [k for k in tables.keys if k != tables.target]
    parts: list[Wide] = []
    if block_ops:
        parts.append(reduce_wide(block_view(tables), measures, block_ops, conventions))
    if "target" in operators:
        parts.append(target_mean_wide(reduce_wide(tables, measures, withins, conventions), keys))
    return merge_slots(
        parts, keys, [m.name for m in measures], operator_labels(operators, withins), conventions
    )


def operator_labels(operators: Sequence[str], withins: Sequence[str]) -> list[str]:
    """The report's operator labels in order: ``target`` once per within, as ``target:<within>``."""
    return [
        op if op != "target" else f"target:{w}"
        for op in operators
        for w in (withins if op == "target" else [op])
    ]


def merge_slots(
    parts: Sequence[Wide],
    keys: Sequence[str],
    measures: Sequence[str],
    operators: Sequence[str],
    conventions: Sequence[str],
) -> Wide:
    """Blocks of the same groups joined into one, the slots in the order measure x operator x convention.

    A (measure, operator) pair no part has is skipped (a whole-matrix-only measure
    under the cell operators, a cell measure under ``multiclass``).
    """
    k = list(keys)
    if len(parts) == 1:
        return parts[0]
    where: dict[Slot, tuple[int, int]] = {}
    frame: pl.LazyFrame | None = None
    for p, part in enumerate(parts):
        for j, slot in enumerate(part.slots):
            where[slot] = (p, j)
        renamed = part.frame.rename(
            {
                c(j): f"{c(j)}_{p}"
                for j in range(len(part.slots))
                for c in (value_col, entries_col, undefined_col)
            }
        )
        frame = (
            renamed
            if frame is None
            else frame.join(renamed, on=k, how="left", nulls_equal=True, maintain_order="left")
        )
    assert frame is not None
    asked = (Slot(m, op, conv) for m in measures for op in operators for conv in conventions)
    slots = [slot for slot in asked if slot in where]
    columns = []
    for j, slot in enumerate(slots):
        p, i = where[slot]
        columns += [pl.col(f"{c(i)}_{p}").alias(c(j)) for c in (value_col, entries_col, undefined_col)]
    return Wide(frame=frame.select(*k, *columns), keys=tuple(k), slots=tuple(slots))
