"""The chart of :func:`aggframe.slices`: each slice's difference to its complement, with its interval.

One row per slice (in the result's order: worst first), the difference ``value - complement``
as a point and its bootstrap interval as a bar, against a dashed line at 0 (the complement).
A significant slice is filled (red where worse, blue where better), the others hollow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe.exceptions import OptionError
from aggframe.interop.charts.frames import _WIDTH, _altair, _data, _finite, _frame, _need, _order

if TYPE_CHECKING:
    import altair as alt

__all__ = ["plot_slices"]

_NEEDED = ("slice", "difference", "ci_low", "ci_high", "significant", "worse", "n_examples")
_WORSE, _BETTER, _NEITHER = "significantly worse", "significantly better", "not significant"


def plot_slices(
    result: pl.DataFrame | pl.LazyFrame, *, top: int = 20, significant: bool = True
) -> alt.LayerChart:
    """The slices' differences to their complements, with their intervals, worst first.

    Parameters
    ----------
    result
        A result of :func:`aggframe.slices` (or ``pr.slices``).
    top
        The most slices drawn (default 20), in the result's order.
    significant
        Draw the significant slices only (default); when none is, the ``top`` first slices
        are drawn, hollow, under a title that says so.

    Returns
    -------
    altair.LayerChart
        One row per slice: a point at the difference, a bar over its interval, a dashed line at 0.

    Raises
    ------
    OptionError
        ``top`` is not a positive integer, or ``result`` is not a slices result.

    Examples
    --------
    >>> import polars as pl, aggframe as af
    >>> df = pl.DataFrame({"g": [0, 1] * 200, "y_true": [1, 1, 0, 1] * 100, "y_pred": [0, 1, 0, 1] * 100})
    >>> out = af.from_labels(df).slices("recall", "binary", columns="g", n_boot=50)
    >>> type(af.plot.slices(out)).__name__
    'LayerChart'
    """
    alt = _altair()
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        msg = f"Expected `top` to be a positive integer, got {top!r}"
        raise OptionError(msg)
    df = _frame(result, "plot_slices")
    _need(df, _NEEDED, "plot_slices")
    shown = df.filter(pl.col("significant")) if significant else df
    title = "slices against their complement"
    if significant and shown.height == 0:
        shown, title = df, "no significant slice: the first slices against their complement"
    if shown.height > top:
        title += f" (the first {top} of {shown.height})"
    shown = shown.head(top)
    kind = (
        pl.when(pl.col("significant") & pl.col("worse"))
        .then(pl.lit(_WORSE))
        .when(pl.col("significant"))
        .then(pl.lit(_BETTER))
        .otherwise(pl.lit(_NEITHER))
    )
    frame = shown.select(
        pl.col("slice"),
        _finite("difference"),
        _finite("ci_low").alias("low"),
        _finite("ci_high").alias("high"),
        pl.col("n_examples"),
        kind.alias("kind"),
        pl.col("significant"),
        *[_finite(c) for c in ("value", "complement", "p_adjusted") if c in shown.columns],
    )
    measure = _spec(df)
    kinds = [_WORSE, _BETTER, _NEITHER]
    color = alt.Color(
        "kind:N", title=None, scale=alt.Scale(domain=kinds, range=["#c0392b", "#2e6da4", "#7f7f7f"])
    )
    y = alt.Y("slice:N", title="slice", sort=_order(frame, "slice"))
    x_title = f"difference to the complement{measure}"
    tooltip: list[Any] = [
        alt.Tooltip("slice:N"),
        alt.Tooltip("n_examples:Q"),
        alt.Tooltip("difference:Q", format=".4f"),
        alt.Tooltip("low:Q", title="ci_low", format=".4f"),
        alt.Tooltip("high:Q", title="ci_high", format=".4f"),
    ]
    tooltip += [
        alt.Tooltip(f"{c}:Q", format=".4g")
        for c in ("value", "complement", "p_adjusted")
        if c in frame.columns
    ]
    zero = alt.Chart().mark_rule(color="#9a9a9a", strokeDash=[4, 4]).encode(x=alt.datum(0.0))
    bars = (
        alt.Chart()
        .mark_rule(strokeWidth=2)
        .encode(x=alt.X("low:Q", title=x_title), x2="high:Q", y=y, color=color, tooltip=tooltip)
        .transform_filter("isValid(datum.low) && isValid(datum.high)")
    )
    points = (
        alt.Chart()
        .mark_point(size=60, strokeWidth=1.5, fillOpacity=1)
        .encode(
            x=alt.X("difference:Q", title=x_title),
            y=y,
            color=color,
            fill=alt.condition("datum.significant", alt.Fill("kind:N", legend=None), alt.value("white")),
            tooltip=tooltip,
        )
    )
    return alt.layer(zero, bars, points, data=_data(frame)).properties(width=_WIDTH, title=title)


def _spec(df: pl.DataFrame) -> str:
    """`` (f1 macro)``: the measure and operator of the result, when it has one of each."""
    parts = []
    for c in ("measure", "operator"):
        if c in df.columns and df.get_column(c).n_unique() == 1:
            parts.append(str(df.get_column(c)[0]))
    return f" ({' '.join(parts)})" if parts else ""
