"""Hive partition keys: the ``key=value`` folders of a path, and the type of their values.

:func:`partition_dtype` types a key from its values as text (``Int64``, ``Date`` or
``String``) the same way for a scan (:func:`~aggframe.intake.paths.scan`) and the
CLI's listing of partitions, so a key reads as one type wherever it is read.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

__all__ = ["hive_pairs", "partition_dtype", "partition_value"]


#: Polars' value of a null hive partition
_HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
#: a plain integer: no leading zero and no "-0" (text that is not the integer's own text, such as
#: "09" or "-0", would be one key with "9" or "0")
_INTEGER = re.compile(r"0|-?[1-9][0-9]*")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def partition_dtype(values: Sequence[str]) -> pl.DataType:
    """The type of a partition key from its values as text: ``Int64``, ``Date`` or ``String``.

    ``Int64`` when every value is a plain integer that fits (``-`` is the only sign;
    no leading zero, so ``01234`` keeps its zero as text, nor ``-0``), ``Date`` when every value
    is an ISO date ``YYYY-MM-DD``, ``String`` otherwise. Polars' null partition
    (``__HIVE_DEFAULT_PARTITION__``) is left out.

    Examples
    --------
    >>> from aggframe.intake.partitions import partition_dtype
    >>> partition_dtype(["2026-11-30", "2026-12-01"]), partition_dtype(["7", "-2"]), partition_dtype(["01234"])
    (Date, Int64, String)
    """
    seen = [v for v in values if v != _HIVE_NULL]
    if seen and all(_INTEGER.fullmatch(v) and -(2**63) <= int(v) < 2**63 for v in seen):
        return pl.Int64()
    if seen and all(_DATE.fullmatch(v) and _is_date(v) for v in seen):
        return pl.Date()
    return pl.String()


def partition_value(text: str) -> Any:
    """One partition key value typed as :func:`partition_dtype` types it (an int, a date or the text)."""
    dtype = partition_dtype([text])
    if dtype == pl.Int64:
        return int(text)
    if dtype == pl.Date:
        return dt.date.fromisoformat(text)
    return text


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def hive_pairs(path: Path) -> list[tuple[str, str]]:
    """The ``key=value`` folders of a file's path, as given (the file name is not a folder)."""
    return [tuple(part.split("=", 1)) for part in path.parts[:-1] if "=" in part]  # type: ignore[misc]
