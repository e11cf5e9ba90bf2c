"""Charts of scores: ROC and precision-recall curves (:func:`plot_curve`) and reliability
diagrams (:func:`plot_calibration`), from the tidy frames of ``curve`` and ``calibration``;
one square panel per group, one line per operator x class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe.exceptions import ColumnNotFoundError, OptionError
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
#: the most points drawn per curve line by default (plot_curve's max_points)
MAX_CURVE_POINTS = 200


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
    max_points: int | None = MAX_CURVE_POINTS,
    areas: bool = True,
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
    max_points
        The most points drawn per line (default 200; ``None``: every point). A longer line
        is thinned: first the points in the middle of a horizontal or vertical run are left
        out (the line drawn is the same), then, if it is still longer, the points kept are
        the first at or past each of ``max_points`` marks evenly spaced along the line's
        length (``|dx| + |dy|``), and its last point. Every point of the exact line lies
        within ``length / (max_points - 1)`` of the line drawn; the areas are of the exact
        line. Anything
        but ``None`` or an integer of at least 2 is an ``OptionError``.
    areas
        Name each line's area: the AUC (trapezoids, as ``sklearn.metrics.auc``) of a ROC
        line, the AP (steps: the sum of the recall increments times the precision, as
        ``average_precision_score``) of a precision-recall line; computed from every point.
        In the legend (``"3 (AUC 0.987)"``; in the title for one line) with one panel, and
        as a list in the corner of each panel with several.

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
    >>> type(af.plot.curve(roc)).__name__
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
    area = _areas(frame, kind) if areas else None
    frame = _thin(frame, _max_points(max_points))
    lines: list[dict[str, Any]] = []
    if kind == "roc":
        groups = _order(frame, "group") or ["all"]
        lines = [{"group": g, "kind": "chance", "x": v, "y": v} for g in groups for v in (0.0, 1.0)]
    several = frame.get_column("series").n_unique() > 1 or bool(series_cols)
    name = "AUC" if kind == "roc" else "AP"
    title = title or default_title
    texts = pl.DataFrame()
    # the legend's label of a line: its series, with its area when there is one panel
    frame = frame.with_columns(pl.col("series").alias("legend"))
    if area is not None and area.height:
        if keys:
            texts = _area_texts(area, name, corner="right" if kind == "roc" else "left")
        elif several:
            frame = frame.join(area, on=["group", "series"], how="left", nulls_equal=True).with_columns(
                legend=pl.format("{} ({} {})", "series", pl.lit(name), _fixed("area")).fill_null(
                    pl.col("series")
                )
            )
            frame = frame.drop("area")
        elif area.get_column("area").is_not_null().any():
            title = f"{title} ({name} {area.get_column('area').drop_nulls()[0]:.3f})"
    chart_frame = pl.concat(
        [
            frame,
            pl.DataFrame(
                lines, schema={"group": pl.String, "kind": pl.String, "x": pl.Float64, "y": pl.Float64}
            ),
            texts,
        ],
        how="diagonal",
    )
    data_ = _data(chart_frame)
    x_scale, x_axis = _unit_axis(alt, x_title)
    y_scale, y_axis = _unit_axis(alt, y_title)
    color = (
        alt.Color(
            "legend:N", title=_title(series_cols) if series_cols else "series", sort=_order(frame, "legend")
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
    if texts.height:
        layers.append(_area_layer(alt, texts, color, x_scale, y_scale))
    return _panels(layers, data_, frame=chart_frame, keys=keys, title=title)


def _max_points(max_points: int | None) -> int | None:
    if max_points is None:
        return None
    if isinstance(max_points, bool) or not isinstance(max_points, int) or max_points < 2:
        msg = f"Expected `max_points` to be an integer of at least 2 or None, got {max_points!r}"
        raise OptionError(msg)
    return max_points


def _fixed(column: str) -> pl.Expr:
    """A number with three decimals, as text."""
    return pl.col(column).round(3).cast(pl.String).str.pad_end(5, "0")


def _areas(frame: pl.DataFrame, kind: str) -> pl.DataFrame:
    """The area under each line (group, series, area), from every point in drawing order: the
    trapezoids of a ROC line, the steps of a precision-recall line (average precision)."""
    dx = pl.col("x").diff().over("group", "series")
    if kind == "roc":
        piece = dx * (pl.col("y") + pl.col("y").shift().over("group", "series")) / 2
    else:
        piece = dx * pl.col("y")
    return (
        frame.sort("group", "series", "order", nulls_last=True, maintain_order=True)
        .with_columns(piece.alias("area"))
        .group_by("group", "series", maintain_order=True)
        .agg(pl.when(pl.len() > 1).then(pl.col("area").sum()).alias("area"))
    )


def _thin(frame: pl.DataFrame, max_points: int | None) -> pl.DataFrame:
    """At most ``max_points`` points per line (see :func:`plot_curve`): one pass of window expressions."""
    line = ("group", "series")
    n = pl.len().over(line)
    if max_points is None or frame.height <= max_points:
        return frame
    # in drawing order: a point between two of the same x, or of the same y, draws nothing
    frame = frame.sort("group", "series", "order", nulls_last=True, maintain_order=True)

    def same(c: str) -> pl.Expr:
        prev, nxt = pl.col(c).shift(1).over(line), pl.col(c).shift(-1).over(line)
        return (pl.col(c) == prev) & (pl.col(c) == nxt)

    inner = (same("x") | same("y")).fill_null(value=False)
    frame = frame.filter(~inner | (n <= max_points))
    # then marks evenly spaced along the length (|dx| + |dy|): the first point at or past each
    step = (pl.col("x").diff().abs() + pl.col("y").diff().abs()).fill_null(0.0)
    run = step.cum_sum().over(line)
    length = run.max().over(line)
    mark = pl.when(length > 0).then((run / length * (max_points - 1)).ceil()).otherwise(0)
    frame = frame.with_columns(mark.alias("_mark"))
    last = pl.int_range(pl.len()).over(line) == n - 1
    keep = pl.struct("group", "series", "_mark").is_first_distinct() | last | (n <= max_points)
    return frame.filter(keep).drop("_mark").with_columns(pl.int_range(pl.len()).over(line).alias("order"))


def _area_texts(area: pl.DataFrame, name: str, *, corner: str) -> pl.DataFrame:
    """One text row per line of a panel, listed up from the bottom corner: ``<series>: AUC 0.987``."""
    right = corner == "right"
    return area.filter(pl.col("area").is_not_null()).select(
        "group",
        pl.col("series"),
        pl.col("series").alias("legend"),
        pl.lit("area").alias("kind"),
        pl.lit(0.98 if right else 0.02).alias("x"),
        (0.04 + 0.07 * pl.int_range(pl.len()).reverse().over("group")).alias("y"),
        pl.format("{}: {} {}", "series", pl.lit(name), _fixed("area")).alias("text"),
        pl.lit("right" if right else "left").alias("align"),
    )


def _area_layer(alt: Any, texts: pl.DataFrame, color: Any, x_scale: Any, y_scale: Any) -> Any:
    """The areas in the corner of each panel, in the lines' colours."""
    align = str(texts.get_column("align")[0])
    return (
        alt.Chart()
        .mark_text(align=align, baseline="middle", fontSize=10)
        .encode(x=alt.X("x:Q", scale=x_scale), y=alt.Y("y:Q", scale=y_scale), text="text:N", color=color)
        .transform_filter("datum.kind == 'area'")
    )


def plot_calibration(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    by: str | Sequence[str] | None = None,
    title: str | None = None,
    per_class: bool = False,
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
    per_class
        ``False`` (the default): a table with a ``class`` column is drawn micro-averaged, one
        line per panel: each bin's entries of every class pooled (``count`` summed,
        ``mean_score`` and ``frequency`` count-weighted means), which is the reliability table
        of ``calibration(operator="micro")`` when the classes share their bin edges (uniform
        bins). ``True``: one line per class (ten overlapping lines for ten classes). A
        per-class table that cannot be pooled (no ``count`` column, or bins whose edges differ
        between classes, as quantile bins do) is an ``OptionError``: draw it with
        ``per_class=True``, or pass the table of ``calibration(operator="micro")``.

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
    >>> type(af.plot.calibration(table)).__name__
    'LayerChart'
    """
    alt = _altair()
    df = _frame(table, "plot_calibration")
    observed = "frequency" if "frequency" in df.columns else "observed"
    _need(df, ["mean_score", observed], "plot_calibration")
    keys = _keys(df, by, _CALIBRATION_STOP)
    if not isinstance(per_class, bool):
        msg = f"Expected `per_class` to be True or False, got {per_class!r}"
        raise OptionError(msg)
    if "class" in df.columns and not per_class:
        df = _pooled(df, keys, observed)
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


def _pooled(df: pl.DataFrame, keys: list[str], observed: str) -> pl.DataFrame:
    """The micro reliability table of a per-class one: each bin's classes pooled (one group-by)."""
    edges = [c for c in ("lower", "upper") if c in df.columns]
    bin_ = ["bin"] if "bin" in df.columns else edges
    if "count" not in df.columns or not bin_:
        msg = (
            "plot_calibration draws a per-class table micro-averaged (per_class=False), which needs its "
            "'count' and 'bin' columns; pass per_class=True, or the table of calibration(operator='micro')"
        )
        raise OptionError(msg)
    series = [c for c in ("operator",) if c in df.columns]
    group = [*keys, *series, *dict.fromkeys(bin_)]
    w = pl.col("count").cast(pl.Float64)
    out = df.group_by(group, maintain_order=True).agg(
        *(pl.col(c).first() for c in edges if c not in group),
        *(pl.col(c).n_unique().alias(f"_{c}_n") for c in edges if c not in group),
        ((pl.col("mean_score") * w).sum() / w.sum()).alias("mean_score"),
        ((pl.col(observed) * w).sum() / w.sum()).alias(observed),
        pl.col("count").sum(),
    )
    spread = [f"_{c}_n" for c in edges if c not in group]
    if spread and out.select(pl.max_horizontal(spread).max()).item() > 1:
        msg = (
            "plot_calibration: the classes' bins have different edges (quantile bins), so the per-class "
            "table cannot be pooled; pass per_class=True, or the table of calibration(operator='micro')"
        )
        raise OptionError(msg)
    return out.drop(spread)
