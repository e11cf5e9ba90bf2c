"""Class universes as frames: declared, per target, per group; every group x every class."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from aggframe._columns import CLASS
from aggframe.exceptions import OptionError

__all__ = [
    "declared_classes",
    "declared_lists",
    "join_universe",
    "targets_per_group",
    "universe_frame",
    "universe_keys",
]


def universe_frame(
    values: Sequence[Any] | dict[Any, list[Any]],
    dtype: pl.DataType,
    column: str,
    *,
    target: str | None = None,
    target_dtype: pl.DataType | None = None,
) -> pl.LazyFrame:
    """The declared class universe as a frame of the class column's dtype.

    With a target role, ``values`` maps each target to its classes and the frame
    has the columns (target, class).
    """
    if isinstance(values, dict):
        if target is None:
            msg = "classes given per target (a dict) need a target column: pass target='<column>'"
            raise OptionError(msg)
        frames = [
            universe_frame(list(v), dtype, column).with_columns(
                pl.lit(t).cast(target_dtype or pl.Null).alias(target)
            )
            for t, v in values.items()
        ]
        return pl.concat(frames).select(target, CLASS)
    try:
        series = pl.Series(CLASS, list(values)).cast(dtype, strict=True)
    except Exception as exc:
        msg = (
            f"column {column!r}: the declared classes {list(values)[:5]!r} cannot be cast to "
            f"the column's dtype {dtype}"
        )
        raise OptionError(msg) from exc
    if series.is_duplicated().any():
        msg = f"the declared classes repeat a value: {series.filter(series.is_duplicated())[0]!r}"
        raise OptionError(msg)
    return pl.LazyFrame(series)


def universe_keys(target: str | None, universe: pl.LazyFrame | None) -> list[str]:
    """Universes are per target unless one universe was declared for all targets."""
    if target is None or (universe is not None and target not in universe.collect_schema()):
        return []
    return [target]


def join_universe(groups: pl.LazyFrame, classes: pl.LazyFrame, ukeys: list[str]) -> pl.LazyFrame:
    """Every group x every class of its universe (per target when there are targets)."""
    if ukeys:
        return groups.join(classes, on=ukeys, how="inner", nulls_equal=True)
    return groups.join(classes, how="cross")


def targets_per_group(rows: pl.LazyFrame, keys: list[str], target: str) -> pl.LazyFrame:
    """How many targets each block group has rows in (every example needs a row in each)."""
    return rows.group_by(keys).agg(pl.col(target).n_unique().alias("_T"))


def declared_lists(declared: pl.DataFrame, ukeys: Sequence[str]) -> list[Any] | dict[Any, list[Any]]:
    """A declared universe frame as :func:`~aggframe.wide.long.class_refused` takes it: the classes,
    or per target (``ukeys``: the target) its classes."""
    if not ukeys:
        return list(declared[CLASS].to_list())
    return {t: part[CLASS].to_list() for (t,), part in declared.group_by(ukeys[0], maintain_order=True)}


def declared_classes(declared: pl.DataFrame, ukeys: Sequence[str], target_value: Any = None) -> list[Any]:
    """The declared classes a message lists: all of them, or (per-target universes) the
    classes of the offending row's target (none for a target the universe does not list)."""
    lists = declared_lists(declared, ukeys)
    return lists if isinstance(lists, list) else lists.get(target_value, [])
