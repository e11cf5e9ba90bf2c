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
    "exact_classes",
    "join_universe",
    "targets_per_group",
    "universe_frame",
    "universe_keys",
]


def _kind(dtype: pl.DataType) -> str:
    """What sort of value a class of ``dtype`` is: numbers, booleans, text or (else) the dtype itself."""
    if dtype.is_numeric():
        return "number"
    if dtype == pl.Boolean:
        return "boolean"
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return "text"
    return str(dtype.base_type())


def exact_classes(
    values: Sequence[object],
    dtype: pl.DataType,
    *,
    option: str = "labels",
    what: str = "a class of the class column",
) -> pl.Series:
    """``values`` as a Series of the class dtype, each one exactly: refused, never truncated or converted.

    A value the class column cannot hold exactly is no class of it: ``1.5`` or
    ``'1'`` on integer classes, ``2`` on boolean ones, ``1`` on string ones
    (booleans and the numbers 0 and 1 are the same values, as ``True == 1`` in
    Python). A cast would silently read it as another class (``1.5`` as ``1``,
    ``2`` as ``True``, ``1`` as ``'1'``), so it raises :class:`~aggframe.errors.OptionError` naming the
    option (``labels``, ``pos_label``) and the value. A value of the right type
    that the data does not hold (``7`` on classes ``0 .. 2``) passes: the caller
    treats it as an absent class. Floats on float classes are rounded to the
    column's precision (``0.1`` on Float32 classes is their ``0.1``).
    """
    items = list(values)
    want = _kind(dtype)
    kinds = set(map(type, items))
    by_type: dict[type, Sequence[int]] = {}
    if len(kinds) == 1:  # the common case (n_classes=10**5: one pass, no index lists)
        by_type[kinds.pop()] = range(len(items))
    else:
        lists: dict[type, list[int]] = {}
        for i, v in enumerate(items):
            lists.setdefault(type(v), []).append(i)
        by_type.update(lists)
    out: list[object] = [None] * len(items)
    for at in by_type.values():
        given = items if len(at) == len(items) else [items[i] for i in at]
        try:
            series = pl.Series(given, strict=True)
            # booleans are the numbers 0 and 1 (as in Python, NumPy and scikit-learn: True == 1)
            ok = _kind(series.dtype) == want or {_kind(series.dtype), want} == {"number", "boolean"}
            cast = series.cast(dtype, strict=True) if ok else series
            # the round trip: 1.5 -> 1 -> 1.0, 2 -> true -> 1, 2**60 + 1 -> 2.0**60 -> 2**60 differ
            same = (cast.cast(series.dtype, strict=False) == series).fill_null(value=False)
            if series.dtype.is_float() and dtype.is_float():
                same = pl.Series([True] * len(given))
        except Exception:  # a value polars cannot read or cast: refused below, by value
            ok, same = False, pl.Series([False] * len(given))
        if not ok or not same.all():
            bad = given[0] if not ok else given[same.to_list().index(False)]
            example = _example(dtype)
            msg = (
                f"{option} value {bad!r} ({type(bad).__name__}) cannot be {what}, whose "
                f"dtype is {dtype}: values are matched exactly, never converted (1.5 is not 1, '1' is "
                f"not 1, 2 is not True); give values of that type, e.g. "
                + (
                    f"{option}={example if option == 'labels' else example[1]!r}"
                    if option.isidentifier()
                    else f"{example[1]!r}"
                )
            )
            raise OptionError(msg)
        if len(at) == len(items):
            return cast.cast(dtype).rename(CLASS)
        for i, v in zip(at, cast.to_list(), strict=True):
            out[i] = v
    return pl.Series(CLASS, out, dtype=dtype)


def _example(dtype: pl.DataType) -> list[object]:
    """Two values of the sort a class of ``dtype`` is (for messages)."""
    kind = _kind(dtype)
    if kind == "number":
        return [0, 1] if dtype.is_integer() else [0.0, 1.0]
    if kind == "boolean":
        return [False, True]
    if kind == "text":
        return ["cat", "dog"]
    return [f"<{dtype}>", f"<{dtype}>"]


def universe_frame(
    values: Sequence[Any] | dict[Any, list[Any]],
    dtype: pl.DataType,
    column: str,
    *,
    target: str | None = None,
    target_dtype: pl.DataType | None = None,
    target_name: str | None = None,
) -> pl.LazyFrame:
    """The declared class universe as a frame of the class column's dtype.

    With a target role, ``values`` maps each target to its classes and the frame
    has the columns (target, class).
    """
    if isinstance(values, dict):
        if target is None:
            msg = "classes given per target (a dict) need a target column: pass target='<column>'"
            raise OptionError(msg)
        # each key a target exactly: 1.5 or '1' on an Int64 target column is no target 1 (a
        # cast made them one, and two keys on one target added their universes)
        keys = list(values)
        targets = (
            exact_classes(
                keys,
                target_dtype,
                option="the per-target key",
                what=f"a value of the target column {(target_name or target)!r}",
            )
            if target_dtype is not None
            else pl.Series(keys)
        )
        if targets.is_duplicated().any():
            msg = f"classes/n_classes name the target {targets.filter(targets.is_duplicated())[0]!r} twice"
            raise OptionError(msg)
        frames = [
            universe_frame(list(v), dtype, column).with_columns(
                pl.lit(t, dtype=target_dtype or pl.Null).alias(target)
            )
            for t, v in zip(targets.to_list(), values.values(), strict=True)
        ]
        return pl.concat(frames).select(target, CLASS)
    declared = list(values)
    if dtype == pl.String and all(isinstance(v, int) and not isinstance(v, bool) for v in declared):
        # n_classes=3 (the classes 0, 1, 2) on text labels: the classes '0', '1', '2'
        declared = [str(v) for v in declared]
    try:
        series = exact_classes(declared, dtype, option="classes", what=f"a class of column {column!r}")
    except OptionError as exc:
        msg = f"column {column!r}: the declared classes {declared[:5]!r} are not all values of its dtype {dtype}: {exc}"
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
