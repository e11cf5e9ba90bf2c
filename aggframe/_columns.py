"""Where the user's column names end and ours begin.

A user's column names never meet aggframe's: at intake the role columns and the
``by`` columns are *projected* onto private names in a reserved namespace (a
``select`` of exactly those columns, each aliased), every stage after that
works on the private names alone, and the results restore the user's names
(:func:`restore`). So no input can collide with ``tp``, ``n``, ``value`` or any
helper column, on any engine, whatever its names are (empty, unicode, quoted, or
equal to an internal name).

Two things remain the user's to avoid, and are refused with an
:class:`~aggframe.exceptions.OptionError` naming the column: grouping by a role
column (``by="y_true"`` has no meaning), and a ``by`` (or fold) column whose name
equals a column of the result itself (``value``, ``measure``, ...), since one
frame cannot hold two columns of one name (:func:`check_result_names`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import polars as pl
import polars.selectors as cs

from aggframe.exceptions import OptionError

__all__ = [
    "BOOT_COLUMNS",
    "CELLS",
    "CLASS",
    "CLUSTER",
    "EXAMPLE",
    "FOLD",
    "KEY_ALL",
    "KEY_SEP",
    "MASK",
    "NULL_KEY",
    "PREFIX",
    "REP",
    "REPEAT",
    "RESULT_COLUMNS",
    "ROLLED_UP",
    "TARGET",
    "Y_PRED",
    "Y_TRUE",
    "P",
    "Y",
    "by_key",
    "casts_to_text",
    "check_result_names",
    "first_repeat",
    "fmt_row",
    "free_name",
    "group_label",
    "key_label",
    "key_text",
    "restore",
]

#: The reserved namespace: every private role and key column starts with it.
PREFIX = "__af_"

# role columns after projection
EXAMPLE = f"{PREFIX}example"
CLASS_ROLE = f"{PREFIX}class"
Y = f"{PREFIX}y"
P = f"{PREFIX}p"
MASK = f"{PREFIX}mask"
Y_TRUE = f"{PREFIX}y_true"
Y_PRED = f"{PREFIX}y_pred"
FOLD = f"{PREFIX}fold"
REPEAT = f"{PREFIX}repeat"
TARGET = f"{PREFIX}target"
#: The resampling unit of a clustered bootstrap (``cluster=``), projected like a role.
CLUSTER = f"{PREFIX}cluster"
#: The bootstrap replicate: one more key of the cell tables (``-1`` is the data itself, weight 1).
REP = f"{PREFIX}rep"
#: Key column standing in for "no by columns", dropped from every result.
KEY_ALL = f"{PREFIX}all"

#: The four confusion cells, defined in :mod:`aggframe.wide.long`.
CELLS = ("tp", "fp", "fn", "tn")
#: The class column of the cell tables (and of per-class results).
CLASS = "class"
#: How a null key reads in a label: no string reads so (one that would is quoted).
NULL_KEY = "(null)"
#: How a rolled-up key of a grouping set reads in a label (a real "(all)" is quoted).
ROLLED_UP = "(all)"
#: Joins the keys of one group in a label (a key holding a "·" is quoted).
KEY_SEP = " · "
#: The columns of :meth:`~aggframe.Predictions.evaluate` after the keys.
RESULT_COLUMNS = ("measure", "operator", "convention", "value", "n_entries", "n_undefined")
#: The columns a bootstrap (``n_boot=``) adds to :meth:`~aggframe.Predictions.evaluate`.
BOOT_COLUMNS = ("ci_low", "ci_high", "se", "n_boot", "level")


def by_key(i: int) -> str:
    """The private name of the ``i``-th ``by`` column."""
    return f"{PREFIX}by{i}"


def restore(frame: pl.LazyFrame | pl.DataFrame, names: Mapping[str, str]) -> Any:
    """Give the private key columns of a result their user names back (and drop the stand-in key)."""
    columns = frame.collect_schema().names() if isinstance(frame, pl.LazyFrame) else frame.columns
    present = {k: v for k, v in names.items() if k in columns}
    out = frame.rename(present) if present else frame
    return out.drop(KEY_ALL) if KEY_ALL in columns else out


def check_result_names(user_keys: Iterable[str], result_columns: Sequence[str], what: str) -> None:
    """Refuse a key whose user name equals a column of the result (one frame, one name each)."""
    keys = list(user_keys)
    taken = set(result_columns)
    for name in keys:
        if name in taken:
            msg = (
                f"column {name!r} collides with a column of the {what} result "
                f"({', '.join(repr(c) for c in result_columns)}); rename it first, e.g. "
                f"frame.rename({{{name!r}: {name + '_'!r}}})"
            )
            raise OptionError(msg)
    repeated = first_repeat(keys)
    if repeated is not None:
        msg = f"the key columns repeat a name: {repeated!r}"
        raise OptionError(msg)


def first_repeat(names: Iterable[str]) -> str | None:
    """The first name ``names`` holds twice (at its second place), or None."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def free_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or a private variant of it that is not in ``taken`` (for a derived column)."""
    used = set(taken)
    candidate, i = name, 0
    while candidate in used:
        candidate = f"{PREFIX}{name}{i or ''}"
        i += 1
    return candidate


def key_text(column: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """A key column as text (a null stays null), whatever its dtype: for labels and fingerprints.

    ``cast(pl.String)`` where Polars has it; ISO 8601 for a Duration (``P1D``), hex for bytes
    (``0x6162``: they need not be UTF-8), the value's JSON for a List, Array or Struct. Keys of
    these types group like any other; their labels and fingerprints were raw Polars errors.
    """
    if isinstance(dtype, pl.Duration):
        return column.dt.to_string()
    if dtype == pl.Binary:
        return pl.lit("0x") + column.bin.encode("hex")
    if dtype.is_nested():
        return pl.when(column.is_not_null()).then(_json(column))
    return column.cast(pl.String)


def casts_to_text(dtype: pl.DataType) -> bool:
    """Whether Polars casts a column of ``dtype`` to text (:func:`key_text` spells out the others)."""
    return not (isinstance(dtype, pl.Duration) or dtype == pl.Binary or dtype.is_nested())


def _json(column: pl.Expr) -> pl.Expr:
    """Each value of ``column`` as JSON text (a string quoted and escaped)."""
    return pl.struct(column.alias("v")).struct.json_encode().str.strip_prefix('{"v":').str.strip_suffix("}")


def key_label(column: pl.Expr, dtype: pl.DataType, *, rolled_up: pl.Expr | None = None) -> pl.Expr:
    """A key as the text that labels its group (never null): distinct keys, distinct labels.

    The one rule for every place a group is named (``compare(summary=True)``'s ``argmin`` and
    ``argmax``, the HTML report, the charts, the command line's table). A key reads as its text
    (:func:`key_text`): a plain string as itself, ``gbm``, ``null``, ``2026-11-01``. A null key
    reads ``(null)`` and a rolled-up one (``rolled_up`` true) ``(all)``. A text that could be
    mistaken for another key or for a marker is quoted as a JSON string: the empty string, one
    that starts or ends with a blank or starts with ``"``, one holding a control character or
    the ``·`` of :data:`KEY_SEP`, and the markers themselves (a real ``"(all)"`` reads
    ``"(all)"``, quotes included). So no two keys of a column read alike, and the labels of
    several keys joined with :data:`KEY_SEP` (:func:`group_label`) split back one way only.
    """
    text = key_text(column, dtype)
    quoted = _json(text)
    ambiguous = (
        (text == "") | text.str.contains(r'^\s|\s$|^"|·|[\x00-\x1f\x7f]') | text.is_in([NULL_KEY, ROLLED_UP])
    )
    label = pl.when(ambiguous).then(quoted).otherwise(text).fill_null(NULL_KEY)
    return label if rolled_up is None else pl.when(rolled_up).then(pl.lit(ROLLED_UP)).otherwise(label)


def group_label(labels: Sequence[pl.Expr]) -> pl.Expr:
    """The label of a group: the :func:`key_label` of each of its keys, joined with :data:`KEY_SEP`."""
    return pl.concat_str(labels, separator=KEY_SEP)


def fmt_row(row: Mapping[str, Any], names: Mapping[str, str] | None = None) -> str:
    """One row for an error message, in the user's column names."""
    names = names or {}
    return ", ".join(f"{names.get(k, k)}={v!r}" for k, v in row.items() if k != KEY_ALL)


def reads_as_pattern(name: str) -> bool:
    """Whether ``pl.col(name)`` would read the column name as a pattern (``*``, ``^...$``)."""
    return name == "*" or (name.startswith("^") and name.endswith("$"))


def named(name: str) -> pl.Expr:
    """The column called ``name``, literally: ``pl.col("*")`` is every column and ``pl.col("^x$")``
    a pattern, so a user's column name (a group key) is never handed to ``pl.col``."""
    return cs.by_name(name).as_expr()
