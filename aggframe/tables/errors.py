"""Error-path queries: one offending row or group of the (projected) source, in the user's names.

Run only when a check has already failed, to name an example in the message;
never on the normal path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import narwhals as nw
import polars as pl

from aggframe._columns import CLASS, KEY_ALL, fmt_row
from aggframe.exceptions import UnknownClassError
from aggframe.tables.universe import declared_classes

__all__ = [
    "MASK_VALUES",
    "count_rows",
    "declared_text",
    "exact_duplicates",
    "first_group",
    "first_row",
    "raise_outside",
]


_COUNT = "__af_count"

#: What a mask holds, in every message about one (a mask is never soft)
MASK_VALUES = "a mask says whether an entry is observed: 0/1 or booleans"


def first_row(
    source: nw.LazyFrame[Any], predicate: nw.Expr, columns: Sequence[str], names: Mapping[str, str]
) -> str:
    """One offending row of the (projected) source, in the user's names (error path only)."""
    try:
        df = source.filter(predicate).select(*columns).head(1).collect(backend="polars").to_native()
    except Exception:
        return "?"
    return fmt_row(df.row(0, named=True), names) if df.height else "?"


def first_group(
    source: nw.LazyFrame[Any],
    columns: Sequence[str],
    count: str,
    keep: Callable[[nw.Expr], nw.Expr],
    names: Mapping[str, str],
) -> str | None:
    """One group of source rows whose row count ``keep`` flags, for an error message (error path only).

    ``count`` names the row count in the message; the column itself is private.
    """
    df = (
        source.group_by([c for c in columns if c != KEY_ALL])
        .agg(nw.len().alias(_COUNT))
        .filter(keep(nw.col(_COUNT)))
        .head(1)
        .collect(backend="polars")
        .to_native()
    )
    return fmt_row(df.row(0, named=True), {**names, _COUNT: count}) if df.height else None


def count_rows(source: nw.LazyFrame[Any], predicate: nw.Expr) -> int:
    """How many source rows ``predicate`` flags (error path only)."""
    return int(source.filter(predicate).select(nw.len()).collect(backend="polars").item())


def exact_duplicates(source: nw.LazyFrame[Any], keys: Sequence[str], column: str) -> int:
    """Surplus rows of repeated (keys..., class) entries, counted exactly on the source."""
    per_key = source.group_by([c for c in keys if c != KEY_ALL]).agg(
        (nw.len() - nw.col(column).n_unique()).alias("_surplus")
    )
    total = per_key.select(nw.col("_surplus").sum()).collect(backend="polars").item()
    return int(total or 0)


def declared_text(declared: pl.DataFrame, ukeys: Sequence[str], target_value: Any = None) -> str:
    """What the declared universe holds, for a message about a class outside it: its classes (of
    the offending row's target), or that a universe per target has no entry for that target."""
    values = declared_classes(declared, ukeys, target_value)
    if values or not ukeys:
        return f"declared {len(values)} classes: {values[:10]!r}{' ...' if len(values) > 10 else ''}"
    return f"classes/n_classes have no entry for target {target_value!r} (a universe per target names every target)"


def raise_outside(
    outside: pl.DataFrame, declared: pl.DataFrame, column: str, ukeys: list[str], *, count: int
) -> None:
    value = outside[CLASS][0]
    target_value = outside[ukeys[0]][0] if ukeys else None
    where = f" of target {target_value!r}" if ukeys else ""
    msg = (
        f"column {column!r}: {count} row(s) with a class outside the declared universe{where} "
        f"(e.g. {value!r}); {declared_text(declared, ukeys, target_value)}"
    )
    raise UnknownClassError(msg)
