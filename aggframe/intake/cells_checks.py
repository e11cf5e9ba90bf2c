"""The checks and alignment of :class:`~aggframe.Cells` parts before they are summed.

:func:`~aggframe.intake.collected.add_all` sums cells only when their layouts
agree (:func:`check_layouts`), their key and class dtypes are aligned
(:func:`aligned`), a group's targets are the same in every part
(:func:`check_targets`) and their class universes agree or may grow
(:func:`check_universes`); the errors name the part, the key and the class.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe._columns import CELLS, CLASS, KEY_ALL, TARGET
from aggframe.exceptions import (
    InvalidValueError,
    OptionError,
    SparseInputError,
)
from aggframe.intake.input_checks import EXACT_IN_FLOAT
from aggframe.intake.partitions import hive_pairs
from aggframe.intake.store_format import OPTIONS

__all__ = [
    "AGREE",
    "UNKNOWN",
    "aligned",
    "block_keys",
    "check_layouts",
    "check_targets",
    "check_universes",
    "one_order",
    "sorted_profiles",
    "universe_of",
]

#: What must agree for two cells to add up, besides the keys' dtypes and the class universe.
AGREE = ("by", "target", "folds", *(o for o in OPTIONS if o != "single_label"))

if TYPE_CHECKING:
    from aggframe.intake.collected import CollectedCells as Cells


def sorted_profiles(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    # counts of examples; expected counts (``af.expected_cells``) are fractional and stay floats
    n = pl.col("n") if frame.schema["n"].is_float() else pl.col("n").cast(pl.Int64)
    return frame.with_columns(n).sort([*keys, *CELLS], nulls_last=True)


def universe_of(c: Cells) -> pl.DataFrame:
    """The class universe of cells (made from the class table for cells without one)."""
    if c.universe_table is not None:
        return c.universe_table
    return c.class_table.select(*c.keys, CLASS).unique()


def one_order(parts: list[Cells]) -> pl.DataFrame | None:
    """The declared classes' order, which every part must share (it sets the weighted kappas' distances)."""
    orders = [c.order_table for c in parts]
    first = orders[0]
    if first is None or any(o is None for o in orders):
        return None
    for other in orders[1:]:
        assert other is not None
        if not other.sort(other.columns).equals(first.sort(first.columns)):
            msg = f"cannot add these cells: their declared classes are in another order; {_HINT}"
            raise OptionError(msg)
    return first


#: an option a store written before it was recorded does not know (it agrees with any value)
UNKNOWN = "unknown"
_RECORDED_LATER = ("soft", "tnorm", "masked", "class_universe", "universe", "stated_task")


def check_layouts(parts: list[Cells]) -> dict[str, Any]:
    """The one layout of all the parts, or an :class:`OptionError` naming what differs."""
    first = parts[0]
    layout = dict(first.layout)
    for other in parts[1:]:
        for key in AGREE:
            x, y = layout.get(key), other.layout.get(key)
            if key in ("by", "folds"):
                x, y = list(x or []), list(y or [])
            if key in _RECORDED_LATER and UNKNOWN in (x, y):
                layout[key] = y if x == UNKNOWN else x
                continue
            if x != y:
                msg = f"cannot add these cells: their {_WHAT.get(key, key)} differ ({x!r} and {y!r}); {_HINT}"
                raise OptionError(msg)
        if first.keys != other.keys or (first.block_table is None) != (other.block_table is None):
            msg = (
                f"cannot add these cells: their key columns differ ({list(first.keys)} and "
                f"{list(other.keys)}); {_HINT}"
            )
            raise OptionError(msg)
    return layout


_WHAT = {
    "by": "by-columns",
    "target": "target columns",
    "folds": "fold columns",
    "task": "forms (task)",
    "pos_label": "positive classes (pos_label)",
    "soft": "kinds of labels (soft or crisp)",
    "tnorm": "t-norms",
    "masked": "masks (one has a mask column, the other not)",
    "class_universe": "class_universe options",
    "universe": "class universes (one declared with classes=/n_classes=, the other the classes seen)",
    "stated_task": "stated tasks (task=)",
}
_HINT = "cells add up only when they come from predictions built with the same options and by= columns"


def _family(dtype: pl.DataType) -> str:
    if dtype.is_numeric():
        return "number"
    return str(dtype)


def aligned(parts: list[Cells]) -> list[Cells]:
    """The parts with one dtype per key and class column (numbers widen; other dtypes must be equal)."""
    first = parts[0]
    columns = [*(k for k in first.keys if k != KEY_ALL), CLASS]
    casts: dict[str, pl.DataType] = {}
    for col in columns:
        dtypes = [c.class_table.schema[col] for c in parts]
        typed = [d for d in dtypes if d != pl.Null]
        # a key that is null in every row of a part (the null hive partition alone, typed
        # String) takes the others' type: its values say nothing about the column's type
        known = [
            d for d, c in zip(dtypes, parts, strict=True) if d in typed and not _all_null(c, col)
        ] or typed
        if not known or all(d == dtypes[0] for d in dtypes):
            continue
        families = {_family(d) for d in known}
        integer_or_text = families == {"number", "String"} and all(
            d.is_integer() or d == pl.String for d in known
        )
        if integer_or_text and first.names.get(col, col) in set.intersection(*(_hive_keys(c) for c in parts)):
            # a partition key typed per path: hour=09 is text (a leading zero), hour=10 an
            # integer; read together the folders give text, so the stores' keys are text
            casts[col] = pl.String()
            continue
        if len(families) > 1:
            shown = "class" if col == CLASS else repr(first.names.get(col, col))
            a, b = known[0], next(d for d in known if _family(d) != _family(known[0]))
            msg = (
                f"cannot add these cells: column {shown} is {a} in one and {b} in the other; "
                "cast it to one type in the predictions first"
            )
            raise OptionError(msg)
        empty = [pl.DataFrame(schema={col: d}) for d in known]
        casts[col] = pl.concat(empty, how="vertical_relaxed").schema[col]
        exact_widening([c.class_table.get_column(col) for c in parts], first.names.get(col, col))
    if not casts:
        return parts
    return [_cast(c, casts) for c in parts]


def _hive_keys(c: Cells) -> set[str]:
    """The ``key=value`` folder names of every file the cells were made from (none: not from files)."""
    found: set[str] | None = None
    for part in c.parts:
        covers = part.get("covers") if isinstance(part, Mapping) else None
        files = covers.get("files") if isinstance(covers, Mapping) and covers.get("kind") == "files" else None
        if not files:
            return set()
        for record in files:
            path = record.get("path") if isinstance(record, Mapping) else None
            keys = {k for k, _ in hive_pairs(Path(path))} if isinstance(path, str) else set()
            found = keys if found is None else found & keys
    return found or set()


def exact_widening(columns: list[pl.Series], name: str) -> None:
    """Refuse integers that the float type they would be widened to cannot tell apart.

    Integer labels or keys next to float ones are read as Float64, which holds integers
    exactly up to 2^53 only: ``2**53`` and ``2**53 + 1`` would become one class (one group).
    One frame holding such a mix is refused when the predictions are built; batches and
    cells that meet only when they are added are checked here, on the integer parts.
    """
    if not any(c.dtype.is_float() for c in columns):
        return
    for c in columns:
        if not c.dtype.is_integer():
            continue
        beyond = c > EXACT_IN_FLOAT
        if c.dtype.is_signed_integer():
            beyond = beyond | (c < -EXACT_IN_FLOAT)
        if beyond.any():
            big = c.filter(beyond)[0]
            msg = (
                f"column {name!r}: integer value(s) beyond 2^53 in magnitude (e.g. {big}) meet float values "
                "in another batch or part: read as Float64 they could not be told apart; cast them to one "
                "type first"
            )
            raise InvalidValueError(msg)


def _all_null(c: Cells, col: str) -> bool:
    """Whether a key column is null in every row of every table of ``c`` (never for the class)."""
    if col == CLASS:
        return False
    tables = [c.class_table, c.profile_table, *(t for t in (c.group_table,) if t is not None)]
    return all(t[col].null_count() == t.height for t in tables if col in t.columns)


def _cast(c: Cells, casts: dict[str, pl.DataType]) -> Cells:
    def cast_frame(df: pl.DataFrame) -> pl.DataFrame:
        present = {k: v for k, v in casts.items() if k in df.columns and df.schema[k] != v}
        return df.with_columns(pl.col(k).cast(v) for k, v in present.items()) if present else df

    pair_casts = {"_yt": casts[CLASS], "_yp": casts[CLASS]} if CLASS in casts else {}
    pairs = c.pair_table
    if pairs is not None:
        pairs = cast_frame(pairs).with_columns(pl.col(k).cast(v) for k, v in pair_casts.items())
    return replace(
        c,
        class_table=cast_frame(c.class_table),
        profile_table=cast_frame(c.profile_table),
        block_table=None if c.block_table is None else cast_frame(c.block_table),
        pair_table=pairs,
        group_table=None if c.group_table is None else cast_frame(c.group_table),
        universe_table=None if c.universe_table is None else cast_frame(c.universe_table),
    )


def _show_key(c: Cells, row: Mapping[str, Any]) -> str:
    shown = ", ".join(f"{c.names.get(k, k)}={v!r}" for k, v in row.items() if k not in (KEY_ALL, "_part"))
    return f" ({shown})" if shown else ""


def _tagged(frames: list[pl.DataFrame]) -> pl.DataFrame:
    return pl.concat([f.with_columns(pl.lit(i, dtype=pl.Int64).alias("_part")) for i, f in enumerate(frames)])


def check_universes(first: Cells, universes: list[pl.DataFrame], ukeys: list[str], *, observed: bool) -> None:
    """Universes that cannot grow must agree wherever two parts have them (per universe key)."""
    tagged = _tagged(universes)
    union = tagged.select(*ukeys, CLASS).unique()
    per_part = tagged.group_by(["_part", *ukeys]).agg(pl.len().alias("_m"))
    per_key = union.group_by(ukeys).agg(pl.len().alias("_u")) if ukeys else union.select(pl.len().alias("_u"))
    joined = (
        per_part.join(per_key, on=ukeys, nulls_equal=True) if ukeys else per_part.join(per_key, how="cross")
    )
    short = joined.filter(pl.col("_m") < pl.col("_u"))
    if not short.height:
        return
    where_row = short.row(0, named=True)
    part = where_row["_part"]
    key_row = {k: where_row[k] for k in ukeys}
    lacking = union.join(
        universes[part].select(*ukeys, CLASS), on=[*ukeys, CLASS], how="anti", nulls_equal=True
    )
    if ukeys:
        lacking = lacking.join(
            pl.DataFrame([key_row], schema={k: union.schema[k] for k in ukeys}), on=ukeys, nulls_equal=True
        )
    value = lacking[CLASS][0] if lacking.height else "?"
    where = _show_key(first, key_row)
    if observed:
        msg = (
            f"the class universes differ{where}: class {value!r} is in one part and not in another; "
            "without a declared universe the long form must be dense, so the rows together would be "
            "sparse: pass classes=... or n_classes=... when building the predictions (absent entries then "
            "count as true negatives)"
        )
        raise SparseInputError(msg)
    msg = (
        f"cannot add these cells: their class universes differ{where} (class {value!r} is in one "
        f"and not in another); {_HINT}"
    )
    raise OptionError(msg)


def check_targets(parts: list[Cells]) -> None:
    """With targets, a block group has the same targets in every part that has it (every example a row in each)."""
    first = parts[0]
    if first.layout.get("target") is None:
        return
    bk = block_keys(first)
    tagged = _tagged([_groups_of(c).select(*bk, TARGET).unique() for c in parts])
    union = tagged.select(*bk, TARGET).unique()
    per_part = tagged.group_by(["_part", *bk]).agg(pl.len().alias("_t"))
    per_group = union.group_by(bk).agg(pl.len().alias("_T"))
    short = per_part.join(per_group, on=bk, nulls_equal=True).filter(pl.col("_t") < pl.col("_T"))
    if short.height:
        row = short.row(0, named=True)
        group = {k: row[k] for k in bk}
        msg = (
            f"column {first.names.get(TARGET, TARGET)!r}: the targets are not on the same examples: a part "
            f"has {row['_t']} of the {row['_T']} targets of the group{_show_key(first, group)}; every "
            "example needs a row in every target"
        )
        raise InvalidValueError(msg)


def _groups_of(c: Cells) -> pl.DataFrame:
    """One row per group (every group of the parts, whatever classes occur in it)."""
    return c.group_table if c.group_table is not None else c.class_table.select(*c.keys).unique()


def block_keys(c: Cells) -> list[str]:
    return [k for k in c.keys if k != TARGET]
