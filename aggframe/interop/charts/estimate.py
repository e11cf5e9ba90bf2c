"""An estimate over time (``af.plot.estimate``): the realized value as a solid line, the estimated
value as a dashed line with its interval as a band, per window and group."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe.exceptions import OptionError
from aggframe.interop.charts.frames import (
    _WIDTH,
    _altair,
    _data,
    _finite,
    _frame,
    _keys,
    _label,
    _need,
    _pick,
    _title,
)

if TYPE_CHECKING:
    import altair as alt

__all__ = ["plot_estimate"]

#: The dash of the estimated line (the realized line is solid).
_DASH = [6, 4]


def _chart_frame(df: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The small frame drawn: group, window_start (text), kind, value, low, high, labelled_share."""
    interval = (
        [_finite("ci_low").alias("low"), _finite("ci_high").alias("high")] if "ci_low" in df.columns else []
    )
    share = [_finite("labelled_share")] if "labelled_share" in df.columns else []
    small = df.select(
        _label(df, keys).alias("group"),
        pl.col("window_start").cast(pl.String),
        pl.col("kind").cast(pl.String),
        _finite("value"),
        *interval,
        *share,
    )
    return small.sort("group", "window_start", "kind")


def plot_estimate(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    measure: str | None = None,
    operator: str | None = None,
    by: str | Sequence[str] | None = None,
) -> alt.LayerChart:
    """An estimate over time windows: realized values solid, estimated values dashed with their interval.

    Parameters
    ----------
    frame
        An :func:`~aggframe.estimate` result with windows (``time=``, ``every=``): the
        columns ``window_start``, ``kind``, ``value`` (and ``ci_low``/``ci_high`` with draws).
    measure, operator
        Which rows to draw when the frame has several (one of each).
    by
        Group columns. Default: the columns before ``window_start``.

    Returns
    -------
    altair.LayerChart
        Per group (a color), the realized value per window start as a solid line with points,
        the estimated value as a dashed line, and its interval (``n_draws``) as a shaded band.

    Raises
    ------
    ColumnNotFoundError
        The frame has no ``window_start``, ``kind`` or ``value`` (an estimate without windows).
    OptionError
        Several measures or operators and none chosen, or a frame that is not a Polars frame.

    Examples
    --------
    >>> import datetime as dt
    >>> import polars as pl
    >>> import aggframe as af
    >>> ref = af.from_scores(pl.DataFrame({"y": [0, 0, 1, 1], "score": [0.1, 0.6, 0.4, 0.9]}), class_=None)
    >>> days = [dt.date(2024, 1, d) for d in (1, 2, 3, 4)]
    >>> rows = pl.DataFrame({"y": [0, 1, 0, 1], "score": [0.2, 0.7, 0.5, 0.85], "day": days, "lab": [1, 1, 0, 0]})
    >>> out = af.estimate(ref, af.from_scores(rows, class_=None), "recall", "binary", labelled="lab", time="day", every="1d")
    >>> type(af.plot.estimate(out)).__name__
    'LayerChart'
    """
    alt = _altair()
    what = "plot_estimate"
    df = _frame(frame, what)
    _need(df, ["window_start", "kind", "value"], what)
    for column, wanted in (("measure", measure), ("operator", operator)):
        df = _pick(df, column, wanted, single=True, what=what)
    if df.is_empty():
        msg = f"{what}: no rows to draw"
        raise OptionError(msg)
    keys = _keys(df, by, ["window_start"])
    title = _title(keys)
    small = _chart_frame(df, keys)
    name = " ".join(str(df[c][0]) for c in ("measure", "operator") if c in df.columns) or "value"
    x = alt.X("window_start:T", title="window start")
    y = alt.Y("value:Q", title=name, scale=alt.Scale(zero=False))
    color = alt.Color("group:N", title=title)
    tips = [
        alt.Tooltip("group:N", title=title),
        alt.Tooltip("window_start:T"),
        alt.Tooltip("kind:N"),
        alt.Tooltip("value:Q", format=".4f"),
        *([alt.Tooltip("labelled_share:Q", format=".2f")] if "labelled_share" in small.columns else []),
    ]
    base = alt.Chart(_data(small)).encode(x=x)
    estimated = base.transform_filter("datum.kind === 'estimated'")
    layers: list[Any] = []
    if "low" in small.columns and small.get_column("low").is_not_null().any():
        layers.append(
            estimated.mark_area(opacity=0.15).encode(
                y=alt.Y("low:Q", title=name, scale=alt.Scale(zero=False)), y2="high:Q", color=color
            )
        )
    layers.append(estimated.mark_line(strokeDash=_DASH).encode(y=y, color=color, tooltip=tips))
    realized = base.transform_filter("datum.kind === 'realized'")
    layers.append(realized.mark_line(point=True).encode(y=y, color=color, tooltip=tips))
    subtitle = "solid: realized (labelled rows); dashed: estimated" + (
        " with its interval" if len(layers) == 3 else ""
    )
    return alt.layer(*layers).properties(
        width=_WIDTH * 2, height=220, title=alt.TitleParams(f"{name} over time", subtitle=subtitle)
    )
