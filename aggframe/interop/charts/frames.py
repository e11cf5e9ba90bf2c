"""What aggframe's charts share: tidy frames in, small chart frames out.

Column names of the user never become Vega-Lite field names: every chart is built on a small
frame with fixed internal names (``group``, ``value``, ``low``, ``high`` ...), and the user's
names appear only as titles and labels, each group's by :func:`~aggframe.interop.layout.label_of`
(a null key reads ``(null)``, a rolled-up one ``(all)``, two groups never alike). Here: the checks of the
frame a chart is given (:func:`_frame`, :func:`_need`, :func:`_pick`, :func:`_keys`), the
labels of groups, the inline data and axis order, the bootstrap intervals of a value
(``ci_low``/``ci_high``, compare's ``<value>_ci_low``/``_ci_high``/``_excludes_zero``), and
the facet of one row of panels per group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from aggframe._columns import KEY_SEP, NULL_KEY, casts_to_text, key_text
from aggframe.exceptions import ColumnNotFoundError, OptionError
from aggframe.interop.layout import key_columns, key_labels, label_of, named

#: How a null group key is labelled in a chart (a string that reads so is quoted).
NULL_LABEL = NULL_KEY
_GROUP_SEP = KEY_SEP
_INSTALL = "pip install 'aggframe[plot]'"
_WIDTH = 360


def _altair() -> Any:
    """Import Altair, or say how to install it."""
    try:
        import altair as alt
    except ImportError as exc:
        msg = f"aggframe's charts need Altair and vl-convert: {_INSTALL} (altair, vl-convert-python)"
        raise ImportError(msg) from exc
    return alt


# ---------------------------------------------------------------------------
# Frames in, small chart frames out


def _as_list(value: str | Sequence[str] | None) -> list[str] | None:
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


def _displayable(df: pl.DataFrame) -> pl.DataFrame:
    """Key columns of a type Polars does not cast to text (Duration, bytes, List, Array, Struct)
    as text (:func:`~aggframe._columns.key_text`): labels are text, and those were raw errors."""
    odd = {c: t for c, t in df.schema.items() if not casts_to_text(t)}
    return df.with_columns(key_text(named(c), t).alias(c) for c, t in odd.items()) if odd else df


def _frame(report: Any, what: str) -> pl.DataFrame:
    if isinstance(report, pl.LazyFrame):
        return _displayable(report.collect())
    if isinstance(report, pl.DataFrame):
        return _displayable(report)
    msg = f"{what} takes a tidy Polars frame from aggframe (evaluate, per_class, ...), got {type(report).__name__}"
    raise OptionError(msg)


def _need(df: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        msg = f"{what} needs the column(s) {missing}; the frame has {df.columns}"
        raise ColumnNotFoundError(msg)


def _numeric_value(df: pl.DataFrame, value: str, what: str) -> None:
    """The plotted value is a number (value='convention' was a raw Polars cast error)."""
    if not df.schema[value].is_numeric():
        msg = f"{what}: value={value!r} is a {df.schema[value]} column; the value plotted is a number (e.g. 'value')"
        raise OptionError(msg)


def _keys(df: pl.DataFrame, by: str | Sequence[str] | None, stop: Sequence[str]) -> list[str]:
    """The group keys: ``by`` if given, else the columns before the first of ``stop`` (not the
    grouping-set marks: they say which keys are rolled up)."""
    if by is not None:
        keys = _as_list(by) or []
        _need(df, keys, "by=")
        return keys
    return key_columns(df, stop)


def _text(column: str) -> pl.Expr:
    """A column that is not a key (a measure, an operator, a class) as display text."""
    return named(column).cast(pl.String).fill_null("null")


def _key(df: pl.DataFrame, column: str) -> pl.Expr:
    """A key column as its label (:func:`~aggframe.interop.layout.key_labels`)."""
    return key_labels(df, [column])[0]


def _label(df: pl.DataFrame, keys: Sequence[str]) -> pl.Expr:
    """One label per group: the key labels joined (``gbm · 2026-11-01``); ``all`` without keys."""
    if not keys:
        return pl.lit("all")
    return label_of(df, keys)


def _title(keys: Sequence[str]) -> str:
    return _GROUP_SEP.join(keys) if keys else "group"


def _pick(
    df: pl.DataFrame, column: str, wanted: str | Sequence[str] | None, *, single: bool, what: str
) -> pl.DataFrame:
    """Keep the rows of ``column`` in ``wanted``; with ``single``, one value must remain."""
    if column not in df.columns:
        if wanted is not None:
            msg = f"{what}: {column}={wanted!r} given but the frame has no {column!r} column ({df.columns})"
            raise ColumnNotFoundError(msg)
        return df
    present = df.get_column(column).unique(maintain_order=True).to_list()
    names = _as_list(wanted)
    if names is None:
        if single and len(present) > 1:
            msg = f"{what}: the frame has several {column} values {present}; choose one with {column}=..."
            raise OptionError(msg)
        return df
    if single and len(names) != 1:
        msg = f"{what}: {column}= takes one value, got {names}"
        raise OptionError(msg)
    unknown = [n for n in names if n not in present]
    if unknown:
        msg = f"{what}: {column} value(s) {unknown} are not in the frame; it has {present}"
        raise OptionError(msg)
    return df.filter(pl.col(column).is_in(names))


def _finite(column: str) -> pl.Expr:
    """NaN and infinities as null: JSON (and so Vega) has no NaN."""
    c = pl.col(column).cast(pl.Float64)
    return pl.when(c.is_finite()).then(c).otherwise(None).alias(column)


def _data(df: pl.DataFrame) -> Any:
    """Inline JSON rows (no global data transformer, no row limit, no file written)."""
    alt = _altair()
    # the rows are plain JSON values: Altair's check of each at construction (its debug mode) costs
    # seconds on a curve of thousands of points and finds nothing
    with alt.utils.schemapi.debug_mode(False):  # noqa: FBT003 - its one argument
        return alt.Data(values=df.to_dicts())


def _order(frame: pl.DataFrame, column: str) -> list[Any]:
    """The values of ``column`` in the order of the rows (the axis order: a sort array, since
    ``sort: null`` over several layers can merge domains out of order)."""
    return [v for v in frame.get_column(column).unique(maintain_order=True).to_list() if v is not None]


def _spec_label(df: pl.DataFrame) -> pl.Expr:
    parts = [c for c in ("measure", "operator") if c in df.columns]
    return pl.concat_str([_text(c) for c in parts], separator=" ")


# ---------------------------------------------------------------------------
# Intervals (``evaluate(..., n_boot=B)``, ``compare(..., n_boot=B)``)


def _interval_columns(df: pl.DataFrame, value: str) -> tuple[str, str] | None:
    """The interval of ``value``: ``ci_low``/``ci_high`` (or ``<value>_ci_low``/``_ci_high``), if present."""
    low, high = ("ci_low", "ci_high") if value == "value" else (f"{value}_ci_low", f"{value}_ci_high")
    return (low, high) if low in df.columns and high in df.columns else None


def _interval_exprs(df: pl.DataFrame, value: str) -> list[pl.Expr]:
    """``low``, ``high`` (the interval, NaN as null) and ``excludes`` (compare's ``<value>_excludes_zero``)."""
    cols = _interval_columns(df, value)
    if cols is None:
        return []
    out = [_finite(cols[0]).alias("low"), _finite(cols[1]).alias("high")]
    if f"{value}_excludes_zero" in df.columns:
        out.append(pl.col(f"{value}_excludes_zero").fill_null(value=False).alias("excludes"))
    return out


def _baseline(value: str) -> float | None:
    """Where a compare column means "no difference": 0 for a difference, 1 for a ratio."""
    if value.startswith("difference"):
        return 0.0
    if value.startswith("ratio"):
        return 1.0
    return None


def _level_text(df: pl.DataFrame) -> str:
    """``" (95% intervals)"`` when the frame says its level, else ``" (intervals)"``."""
    if "level" in df.columns:
        levels = df.get_column("level").drop_nulls().unique().to_list()
        if len(levels) == 1:
            return f" ({float(levels[0]):.0%} intervals)"
    return " (intervals)"


def _value_title(df: pl.DataFrame, value: str) -> str:
    title = value.replace("_", " ")
    return title + (_level_text(df) if _interval_columns(df, value) is not None else "")


# ---------------------------------------------------------------------------
# Facets


def _rows(layers: list[Any], data_: Any, *, frame: pl.DataFrame, keys: Sequence[str], title: str) -> Any:
    """The layers on one panel, or one row of panels per group (labelled on the left)."""
    alt = _altair()
    if keys:
        return (
            alt.layer(*layers)
            .properties(width=_WIDTH)
            .facet(
                data=data_,
                row=alt.Row(
                    "group:N",
                    title=_title(keys),
                    sort=_order(frame, "group"),
                    header=alt.Header(labelAngle=0, labelAlign="left"),
                ),
                title=title,
            )
        )
    return alt.layer(*layers, data=data_).properties(width=_WIDTH, title=title)
