"""A measure over time per group (:func:`plot_monitor`): the windows' values, the reference band,
the alerts and, with late labels counted, the labelled share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

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

__all__ = ["plot_monitor", "time_charts"]

#: At most this many (measure, operator) charts over time in the HTML report.
_MAX_TIME_CHARTS = 4


def plot_monitor(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    measure: str | None = None,
    operator: str | None = None,
    convention: str | None = None,
    by: str | Sequence[str] | None = None,
) -> alt.VConcatChart | alt.LayerChart:
    """A measure over time, one line per group, with its band, alerts and labelled share.

    Parameters
    ----------
    table
        An :func:`~aggframe.monitor` result (a windowed ``evaluate`` result draws
        the lines alone: no band, no alerts).
    measure, operator, convention
        Which rows to draw when the table has several (one of each).
    by
        Group columns. Default: the columns before ``window_start``.

    Returns
    -------
    altair.LayerChart or altair.VConcatChart
        The value per window start (a line per group), the band as a shaded area per
        group, alerts as red points; with ``labelled_share`` a second panel below.

    Raises
    ------
    ColumnNotFoundError
        The table has no ``window_start`` or ``value``.
    OptionError
        Several measures, operators or conventions and none chosen.

    Examples
    --------
    >>> import datetime as dt
    >>> import polars as pl
    >>> import aggframe as af
    >>> days = [dt.date(2024, 1, 1) + dt.timedelta(days=d) for d in range(6) for _ in range(4)]
    >>> pr = af.from_labels(pl.DataFrame({"day": days, "y": [0, 1, 1, 0] * 6, "p": [0, 1, 0, 0] * 6}), y_true="y", y_pred="p")
    >>> out = af.monitor(pr, "recall", "micro", time="day", every="1d", reference=(dt.date(2024, 1, 1), dt.date(2024, 1, 4)))
    >>> type(af.plot.monitor(out)).__name__
    'LayerChart'
    """
    alt = _altair()
    what = "plot_monitor"
    df = _frame(table, what)
    _need(df, ["window_start", "value"], what)
    for column, wanted in (("measure", measure), ("operator", operator), ("convention", convention)):
        df = _pick(df, column, wanted, single=True, what=what)
    keys = _keys(df, by, ["window_start"])
    title = _title(keys)
    cols = [
        _label(df, keys).alias("group"),
        pl.col("window_start"),
        _finite("value"),
        *([_finite("band_low"), _finite("band_high")] if "band_low" in df.columns else []),
        *([pl.col("alert").fill_null(value=False)] if "alert" in df.columns else []),
        *([pl.col("status")] if "status" in df.columns else []),
        *([_finite("labelled_share")] if "labelled_share" in df.columns else []),
    ]
    small = df.select(cols).sort("group", "window_start")
    data = _data(small.with_columns(pl.col("window_start").cast(pl.String)))
    name = (
        " ".join(str(df[c][0]) for c in ("measure", "operator") if c in df.columns and df.height) or "value"
    )
    x = alt.X("window_start:T", title="window start")
    color = alt.Color("group:N", title=title)
    tips = [
        alt.Tooltip("group:N", title=title),
        alt.Tooltip("window_start:T"),
        alt.Tooltip("value:Q", format=".4f"),
    ]
    if "status" in small.columns:
        tips.append(alt.Tooltip("status:N"))
    base = alt.Chart(data).encode(x=x)
    layers: list[Any] = []
    if "band_low" in small.columns:
        layers.append(
            base.mark_area(opacity=0.15).encode(
                y=alt.Y("band_low:Q", title=name, scale=alt.Scale(zero=False)), y2="band_high:Q", color=color
            )
        )
    layers.append(
        base.mark_line(point=True).encode(
            y=alt.Y("value:Q", title=name, scale=alt.Scale(zero=False)), color=color, tooltip=tips
        )
    )
    if "alert" in small.columns:
        layers.append(
            base.transform_filter("datum.alert")
            .mark_point(color="red", size=90, filled=True)
            .encode(y="value:Q", tooltip=tips)
        )
    chart = alt.layer(*layers).properties(width=_WIDTH * 2, height=220, title=f"{name} over time")
    if "labelled_share" not in small.columns:
        return chart
    share = base.mark_line(strokeDash=[4, 2]).encode(
        y=alt.Y("labelled_share:Q", title="labelled share", scale=alt.Scale(domain=[0, 1])), color=color
    )
    return alt.vconcat(chart, share.properties(width=_WIDTH * 2, height=90))


def time_charts(page: Any, report: pl.DataFrame) -> int:
    """The HTML report's charts of a windowed report (``window_start``): a measure over time per
    group for the first (measure, operator) pairs, the first convention. Returns how many were drawn."""
    if "window_start" not in report.columns or report.is_empty():
        return 0
    convention = report.get_column("convention")[0] if "convention" in report.columns else None
    rows = report if convention is None else report.filter(pl.col("convention") == convention)
    pairs = rows.select("measure", "operator").unique(maintain_order=True).head(_MAX_TIME_CHARTS)
    for m, op in pairs.iter_rows():
        page.chart(plot_monitor(rows, measure=m, operator=op))
    return pairs.height
