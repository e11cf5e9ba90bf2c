"""The tables of the HTML report: a tidy or wide Polars frame as great_tables HTML.

Values are shown to four decimals (NaN as ``undefined``), counts whole, other columns as
text (the report gives the group keys their labels first: a null key reads ``(null)``); with
intervals, ``value [low, high]`` in one column. great_tables reads column names with
``pl.col``, so names it would read as patterns (``*``, ``^...$``) go in under stand-in names
and come back as labels.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from aggframe._columns import PREFIX, reads_as_pattern
from aggframe.interop.charts.frames import _displayable, _text
from aggframe.interop.layout import named

_COUNTS = frozenset({"support", "examples", "tp", "fp", "fn", "tn"})  # float counts, shown whole


def gt_table(
    gt: Any,
    df: pl.DataFrame,
    *,
    table_id: str,
    title: str | None = None,
    group: str | None = None,
    intervals: bool = False,
) -> str:
    """The HTML of a great_tables table of ``df`` (``gt``: the great_tables module).

    With ``group``, the rows are grouped under that column's values; with ``intervals``, each
    ``<name> value`` column shows ``value [<name> ci_low, <name> ci_high]`` under the title
    ``<name>``.
    """
    df = _displayable(df)
    counts = [c for c, t in df.schema.items() if t.is_float() and c in _COUNTS]
    values = [c for c, t in df.schema.items() if t.is_float() and c != group and c not in _COUNTS]
    shown = df.with_columns(
        pl.when(named(c).is_nan()).then(None).otherwise(named(c)).alias(c) for c in values
    )
    shown = shown.with_columns(
        _text(c).alias(c)
        for c, t in shown.schema.items()
        if c not in values and c not in counts and t != pl.String
    ).with_columns(named(c).fill_null("null") for c, t in shown.schema.items() if t == pl.String)
    # great_tables reads column names with pl.col: "*" and "^x$" go in under stand-in names
    stand_in = {c: f"{PREFIX}col{i}" for i, c in enumerate(shown.columns) if reads_as_pattern(c)}
    shown = shown.rename(stand_in)
    values = [stand_in.get(c, c) for c in values]
    counts = [stand_in.get(c, c) for c in counts]
    table = gt.GT(shown, groupname_col=group, id=table_id)
    if stand_in:
        table = table.cols_label(**{v: k for k, v in stand_in.items()})
    if values:
        table = table.fmt_number(columns=values, decimals=4).sub_missing(
            columns=values, missing_text="undefined"
        )
    if counts:
        table = table.fmt_number(columns=counts, decimals=0)
    if intervals:
        for column in [c for c in df.columns if c.endswith(" value")]:
            name = column.removesuffix(" value")
            low, high = f"{name} ci_low", f"{name} ci_high"
            if low in df.columns and high in df.columns:
                table = table.cols_merge(columns=[column, low, high], pattern="{0}<< [{1}, {2}]>>")
                table = table.cols_label(**{column: name})
    if title:
        table = table.tab_header(title=title)
    return str(table.as_raw_html())
