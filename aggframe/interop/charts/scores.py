"""Charts of scores: ROC and precision-recall curves (:func:`plot_curve`) and reliability
diagrams (:func:`plot_calibration`), from the tidy frames of ``curve`` and ``calibration``;
one square panel per group, one line per operator x class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe.exceptions import ColumnNotFoundError
from aggframe.interop.charts.frames import (
    _altair,
    _data,
    _finite,
    _frame,
    _keys,
    _label,
    _need,
    _order,
    _title,
)

if TYPE_CHECKING:
    import altair as alt

__all__ = ["plot_calibration", "plot_curve"]

_CURVE_AXES = {"roc": ("fpr", "tpr"), "pr": ("recall", "precision")}
_CURVE_TITLES = {
    "roc": ("false positive rate", "true positive rate", "ROC curve"),
    "pr": ("recall", "precision", "precision-recall curve"),
}
#: columns that end the group keys of a curve or reliability frame (the series columns come first)
_CURVE_STOP = ("operator", "class", "threshold", "fpr", "tpr", "precision", "recall", "n_classes")
_CALIBRATION_STOP = (
    "operator",
    "class",
    "bin",
    "lower",
    "upper",
    "mean_score",
    "frequency",
    "observed",
    "count",
)
_SERIES = ("operator", "class")


def _series(df: pl.DataFrame) -> tuple[pl.Expr, list[str]]:
    """One label per line: the operator and class columns present (``all`` when neither is)."""
    cols = [c for c in _SERIES if c in df.columns]
    return _label(df, cols), cols


def _unit_axis(alt: Any, title: str) -> tuple[Any, Any]:
    """A [0, 1] axis (rates, precision, scores)."""
    return alt.Scale(domain=[0, 1], nice=False), alt.Axis(title=title, tickCount=5)


def _panels(layers: list[Any], data_: Any, *, frame: pl.DataFrame, keys: Sequence[str], title: str) -> Any:
    """The layers on one square panel, or one panel per group (three to a row)."""
    alt = _altair()
    if keys:
        return (
            alt.layer(*layers)
            .properties(width=260, height=260)
            .facet(
                data=data_,
                facet=alt.Facet("group:N", title=_title(keys), sort=_order(frame, "group")),
                columns=3,
                title=title,
            )
        )
    return alt.layer(*layers, data=data_).properties(width=320, height=320, title=title)


def plot_curve(
    curve: pl.DataFrame | pl.LazyFrame,
    *,
    by: str | Sequence[str] | None = None,
    title: str | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """A ROC curve (``fpr``, ``tpr``) or a precision-recall curve (``recall``, ``precision``).

    Parameters
    ----------
    curve
        A tidy curve frame: ``by..., [operator], [class], threshold, fpr, tpr`` (ROC) or
        ``by..., [operator], [class], threshold, precision, recall`` (precision-recall), as
        ``Predictions.curve`` and :func:`aggframe.operators.curves.roc_curve` /
        ``pr_curve`` give it. ``threshold`` is optional (a macro-averaged curve has none);
        ``+inf`` thresholds are fine. Rows with a null coordinate (a group without negatives
        or positives) are left out.
    by
        Group columns: one panel each. Default: the columns before the first of
        ``operator``, ``class``, ``threshold`` and the coordinates.
    title
        The chart title (default: ``ROC curve`` or ``precision-recall curve``).

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        One line per operator x class (coloured; one line without them), points ordered by
        descending threshold, the precision-recall curve as scikit-learn's step plot, the
        ROC chance diagonal dashed; one panel per group.

    Raises
    ------
    ImportError
        The ``plot`` extra (altair) is not installed.
    ColumnNotFoundError
        The frame lacks a column the chart needs (``measure``, ``value``, a named ``by`` column).
    OptionError
        An option that names nothing in the frame, or rows the chart cannot tell apart.

    Examples
    --------
    >>> import polars as pl
    >>> import aggframe as af
    >>> roc = pl.DataFrame(
    ...     {"threshold": [float("inf"), 0.8, 0.4, 0.1], "fpr": [0.0, 0.0, 0.5, 1.0], "tpr": [0.0, 0.5, 1.0, 1.0]}
    ... )
    >>> type(af.plot_curve(roc)).__name__
    'LayerChart'
    """
    alt = _altair()
    df = _frame(curve, "plot_curve")
    kind = next((k for k, axes in _CURVE_AXES.items() if set(axes) <= set(df.columns)), None)
    if kind is None:
        msg = (
            "plot_curve needs fpr and tpr (a ROC curve) or recall and precision (a precision-recall "
            f"curve); the frame has {df.columns}"
        )
        raise ColumnNotFoundError(msg)
    xc, yc = _CURVE_AXES[kind]
    x_title, y_title, default_title = _CURVE_TITLES[kind]
    keys = _keys(df, by, _CURVE_STOP)
    series, series_cols = _series(df)
    threshold = "threshold" in df.columns
    frame = (
        df.select(
            _label(df, keys).alias("group"),
            series.alias("series"),
            _finite(xc).alias("x"),
            _finite(yc).alias("y"),
            (_finite("threshold") if threshold else pl.lit(None, pl.Float64)).alias("threshold"),
            (pl.col("threshold").cast(pl.Float64) if threshold else pl.col(xc).cast(pl.Float64)).alias("_o"),
        )
        .with_row_index("_row")
        .drop_nulls(["x", "y"])
    )
    # points of a line in descending threshold (ascending x without thresholds), stable
    frame = frame.sort(
        ["group", "series", "_o", "_row"], descending=[False, False, threshold, False]
    ).with_columns(pl.int_range(pl.len()).over("group", "series").alias("order"))
    frame = frame.drop("_o", "_row").with_columns(pl.lit("point").alias("kind"))
    lines: list[dict[str, Any]] = []
    if kind == "roc":
        groups = _order(frame, "group") or ["all"]
        lines = [{"group": g, "kind": "chance", "x": v, "y": v} for g in groups for v in (0.0, 1.0)]
    chart_frame = pl.concat(
        [
            frame,
            pl.DataFrame(
                lines, schema={"group": pl.String, "kind": pl.String, "x": pl.Float64, "y": pl.Float64}
            ),
        ],
        how="diagonal",
    )
    data_ = _data(chart_frame)
    x_scale, x_axis = _unit_axis(alt, x_title)
    y_scale, y_axis = _unit_axis(alt, y_title)
    several = frame.get_column("series").n_unique() > 1 or bool(series_cols)
    color = (
        alt.Color(
            "series:N", title=_title(series_cols) if series_cols else "series", sort=_order(frame, "series")
        )
        if several
        else alt.value("#4c78a8")
    )
    line = (
        alt.Chart()
        .mark_line(interpolate="step-before" if kind == "pr" else "linear", strokeWidth=2)
        .encode(
            x=alt.X("x:Q", scale=x_scale, axis=x_axis),
            y=alt.Y("y:Q", scale=y_scale, axis=y_axis),
            color=color,
            detail="series:N",
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("series:N", title=_title(series_cols) if series_cols else "series"),
                alt.Tooltip("threshold:Q", format=".4f"),
                alt.Tooltip("x:Q", title=x_title, format=".4f"),
                alt.Tooltip("y:Q", title=y_title, format=".4f"),
            ],
        )
        .transform_filter("datum.kind == 'point'")
    )
    layers = [line]
    if kind == "roc":
        layers.insert(
            0,
            alt.Chart()
            .mark_line(color="#9a9a9a", strokeDash=[4, 4], strokeWidth=1)
            .encode(x=alt.X("x:Q", scale=x_scale, axis=x_axis), y=alt.Y("y:Q", scale=y_scale, axis=y_axis))
            .transform_filter("datum.kind == 'chance'"),
        )
    return _panels(layers, data_, frame=chart_frame, keys=keys, title=title or default_title)


def plot_calibration(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    by: str | Sequence[str] | None = None,
    title: str | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """A reliability diagram: the fraction of positives against the mean score, per bin.

    Parameters
    ----------
    table
        A reliability table: ``by..., [operator], [class], bin, [lower, upper], mean_score,
        frequency, count`` (``Predictions.calibration`` and
        :func:`aggframe.operators.calibration.calibration` give it; ``observed`` is read in place
        of ``frequency``, and ``count`` is optional).
    by
        Group columns: one panel each. Default: the columns before the first of
        ``operator``, ``class``, ``bin`` and the table's own columns.
    title
        The chart title (default ``reliability diagram``).

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        One line with points per operator x class (the point area is the bin's count), the
        diagonal of perfect calibration dashed; one panel per group.

    Raises
    ------
    ImportError
        The ``plot`` extra (altair) is not installed.
    ColumnNotFoundError
        The frame lacks a column the chart needs (``measure``, ``value``, a named ``by`` column).
    OptionError
        An option that names nothing in the frame, or rows the chart cannot tell apart.

    Examples
    --------
    >>> import polars as pl
    >>> import aggframe as af
    >>> table = pl.DataFrame(
    ...     {"bin": [0, 1], "mean_score": [0.2, 0.8], "frequency": [0.25, 1.0], "count": [4, 2]}
    ... )
    >>> type(af.plot_calibration(table)).__name__
    'LayerChart'
    """
    alt = _altair()
    df = _frame(table, "plot_calibration")
    observed = "frequency" if "frequency" in df.columns else "observed"
    _need(df, ["mean_score", observed], "plot_calibration")
    keys = _keys(df, by, _CALIBRATION_STOP)
    series, series_cols = _series(df)
    has = set(df.columns)
    frame = (
        df.select(
            _label(df, keys).alias("group"),
            series.alias("series"),
            _finite("mean_score").alias("x"),
            _finite(observed).alias("y"),
            (pl.col("count").cast(pl.Float64) if "count" in has else pl.lit(None, pl.Float64)).alias("count"),
            (pl.col("bin").cast(pl.Int64) if "bin" in has else pl.lit(None, pl.Int64)).alias("bin"),
            (_finite("lower") if "lower" in has else pl.lit(None, pl.Float64)).alias("lower"),
            (_finite("upper") if "upper" in has else pl.lit(None, pl.Float64)).alias("upper"),
        )
        .drop_nulls(["x", "y"])
        .sort(["group", "series", "x"], maintain_order=True)
        .with_columns(pl.lit("point").alias("kind"))
    )
    groups = _order(frame, "group") or ["all"]
    diagonal = pl.DataFrame(
        [{"group": g, "kind": "perfect", "x": v, "y": v} for g in groups for v in (0.0, 1.0)],
        schema={"group": pl.String, "kind": pl.String, "x": pl.Float64, "y": pl.Float64},
    )
    chart_frame = pl.concat([frame, diagonal], how="diagonal")
    data_ = _data(chart_frame)
    x_scale, x_axis = _unit_axis(alt, "mean score")
    y_scale, y_axis = _unit_axis(alt, "fraction of positives")
    several = frame.get_column("series").n_unique() > 1 or bool(series_cols)
    color = (
        alt.Color(
            "series:N", title=_title(series_cols) if series_cols else "series", sort=_order(frame, "series")
        )
        if several
        else alt.value("#4c78a8")
    )
    x = alt.X("x:Q", scale=x_scale, axis=x_axis)
    y = alt.Y("y:Q", scale=y_scale, axis=y_axis)
    tooltip = [
        alt.Tooltip("series:N", title=_title(series_cols) if series_cols else "series"),
        alt.Tooltip("bin:Q"),
        alt.Tooltip("lower:Q", format=".3f"),
        alt.Tooltip("upper:Q", format=".3f"),
        alt.Tooltip("x:Q", title="mean score", format=".4f"),
        alt.Tooltip("y:Q", title="fraction of positives", format=".4f"),
        alt.Tooltip("count:Q"),
    ]
    perfect = (
        alt.Chart()
        .mark_line(color="#9a9a9a", strokeDash=[4, 4], strokeWidth=1)
        .encode(x=x, y=y)
        .transform_filter("datum.kind == 'perfect'")
    )
    line = (
        alt.Chart()
        .mark_line(strokeWidth=1.5)
        .encode(x=x, y=y, color=color, detail="series:N", order=alt.Order("x:Q"))
        .transform_filter("datum.kind == 'point'")
    )
    size = (
        alt.Size("count:Q", title="count", scale=alt.Scale(range=[20, 260]))
        if frame.get_column("count").null_count() < frame.height
        else alt.value(50)
    )
    points = (
        alt.Chart()
        .mark_circle(opacity=0.85)
        .encode(x=x, y=y, color=color, size=size, tooltip=tooltip)
        .transform_filter("datum.kind == 'point'")
    )
    layers = [perfect, line, points]
    return _panels(layers, data_, frame=chart_frame, keys=keys, title=title or "reliability diagram")
