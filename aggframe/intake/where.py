"""Row filters written as SQL boolean expressions: ``"model = 'a' AND day >= '2024-01-02'"``.

:func:`parse_where` turns the text into a Polars expression (``pl.sql_expr``)
and checks it against the columns of the frame it will filter, before anything
is read: the text parses, every column it names exists, and it gives a boolean.
A string literal compared with a date or datetime column is read as that type
(``day >= '2024-01-02'`` on a ``Date`` column, as hive partitions are typed),
which ``pl.sql_expr`` alone refuses. One function for every caller (the command
line's ``--where``, rules' ``where``), so the language and its errors are the same.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import polars as pl

from aggframe.exceptions import ColumnNotFoundError, OptionError

__all__ = ["parse_where"]

#: an ISO date or datetime in quotes, not already typed (``DATE '...'``)
_ISO = re.compile(r"(?<![A-Za-z_])'(\d{4}-\d{2}-\d{2})([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?'")


def _typed_literals(text: str) -> str:
    """``'2024-01-02'`` as ``DATE '2024-01-02'`` (and a datetime as ``TIMESTAMP '...'``)."""

    def typed(m: re.Match[str]) -> str:
        kind = "TIMESTAMP" if m[2] else "DATE"
        return f"{kind} '{m[1]}{(m[2] or '').replace('T', ' ')}'"

    return _ISO.sub(typed, text)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _resolve(expr: pl.Expr, schema: pl.Schema) -> pl.DataType:
    """The dtype ``expr`` gives on a frame of ``schema`` (raises the Polars error if it does not resolve)."""
    return pl.LazyFrame(schema=schema).select(expr.alias("where")).collect_schema()["where"]


def parse_where(text: str, schema: Mapping[str, Any], *, what: str = "where") -> pl.Expr:
    """A SQL boolean expression as a Polars filter, checked against the columns of ``schema``.

    Parameters
    ----------
    text
        A SQL boolean expression over the columns, e.g. ``"model = 'a' AND day >= '2024-01-02'"``;
        quote a column name with a space in double quotes (``"my col" > 1``).
    schema
        The columns (and dtypes) of the frame the filter is for.
    what
        How the expression is named in messages (``--where`` on the command line).

    Returns
    -------
    pl.Expr
        A boolean expression: ``frame.filter(parse_where(text, frame.collect_schema()))``.

    Raises
    ------
    ColumnNotFoundError
        The expression names a column the frame does not have.
    OptionError
        The text does not parse, or does not give true/false.

    Examples
    --------
    >>> import datetime as dt
    >>> df = pl.DataFrame({"model": ["a", "a", "b"], "day": [dt.date(2024, 1, d) for d in (1, 2, 3)]})
    >>> df.filter(parse_where("model = 'a' AND day >= '2024-01-02'", df.schema)).height
    1
    """
    if not isinstance(text, str) or not text.strip():
        msg = f"{what} {text!r}: expected a SQL boolean expression, e.g. \"model = 'a' AND day >= '2024-01-02'\""
        raise OptionError(msg)
    polars_schema = pl.Schema(dict(schema))
    try:
        expr = pl.sql_expr(text)
    except Exception as exc:
        msg = f"{what} {text!r} is not a SQL expression: {_first_line(exc)}"
        raise OptionError(msg) from exc
    unknown = [c for c in expr.meta.root_names() if c not in polars_schema]
    if unknown:
        msg = (
            f"{what} {text!r} names column {unknown[0]!r}, which the input does not have; "
            f"available columns: {list(polars_schema.names())}"
        )
        raise ColumnNotFoundError(msg)
    try:
        dtype = _resolve(expr, polars_schema)
    except Exception as exc:
        retyped = _typed_literals(text)
        try:
            if retyped == text:
                raise
            expr = pl.sql_expr(retyped)
            dtype = _resolve(expr, polars_schema)
        except Exception:
            reason = _first_line(exc)
            if "cannot compare 'date" in reason:
                reason = (
                    "a date or time column is compared with text that is not an ISO date (e.g. '2024-01-02')"
                )
            msg = f"{what} {text!r} does not apply to the input's columns: {reason}"
            raise OptionError(msg) from exc
    if dtype != pl.Boolean:
        msg = f"{what} {text!r} gives {dtype} values, not true/false; write a condition, e.g. \"model = 'a'\""
        raise OptionError(msg)
    return expr
