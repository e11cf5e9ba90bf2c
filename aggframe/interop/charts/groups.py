"""Charts of one value per group: small multiples of the measures (:func:`plot_groups`) and a
heat map over two group columns (:func:`plot_heatmap`); both draw bootstrap intervals and a
``compare`` column's differences against where nothing differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe.exceptions import DuplicateEntryError, OptionError
from aggframe.interop.charts.frames import (
    _WIDTH,
    _altair,
    _baseline,
    _data,
    _finite,
    _frame,
    _interval_exprs,
    _key,
    _keys,
    _label,
    _level_text,
    _need,
    _numeric_value,
    _order,
    _pick,
    _title,
    _value_title,
)
from aggframe.interop.layout import SPEC_COLUMNS, named

if TYPE_CHECKING:
    import altair as alt

__all__ = ["plot_groups", "plot_heatmap"]


def plot_groups(  # noqa: PLR0913 -- the user's options, keyword-only
    report: pl.DataFrame | pl.LazyFrame,
    *,
    measures: str | Sequence[str] | None = None,
    operators: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    convention: str | None = None,
    pooling: str | None = None,
    value: str = "value",
    columns: int = 3,
) -> alt.FacetChart:
    """Small multiples: one panel per measure, one row per group, one mark per operator.

    With intervals (a report evaluated with ``n_boot=``: columns ``ci_low``, ``ci_high``)
    each mark gets its interval as an error bar, the operators of a group side by side.

    Parameters
    ----------
    report
        An ``evaluate`` (or ``compare``) result.
    measures, operators
        Rows to keep (default: all).
    by
        Group columns. Default: the columns before ``measure``.
    convention, pooling
        Which convention / pooling to draw when the report has several.
    value
        The column drawn: ``"value"``, or a ``compare`` column such as
        ``"difference_to_reference"``, ``"difference_to_overall"`` or ``"ratio_to_overall"``.
        A difference is drawn against a dashed line at 0 (a ratio at 1), with its interval
        (``<value>_ci_low``, ``<value>_ci_high``) when the comparison had ``n_boot=``; a mark is
        filled where the interval excludes zero (``<value>_excludes_zero``), faint otherwise.
    columns
        Panels per row.

    Returns
    -------
    altair.FacetChart
        A dot plot per measure (each with its own value axis).

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
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    >>> report = pr.evaluate(["f1", "mcc"], ["micro", "macro"])
    >>> type(af.plot.groups(report)).__name__
    'FacetChart'

    With bootstrap intervals, and the paired differences of two models:

    >>> import polars as pl
    >>> frame = pl.DataFrame(
    ...     {
    ...         "model": ["A"] * 6 + ["B"] * 6,
    ...         "example": list(range(6)) * 2,
    ...         "y_true": [0, 1, 2, 2, 1, 0] * 2,
    ...         "y_pred": [0, 2, 2, 1, 1, 1, 0, 1, 2, 2, 1, 1],
    ...     }
    ... )
    >>> pr = af.from_labels(frame, example="example")
    >>> chart = af.plot.groups(pr.evaluate("f1", ["micro", "macro"], by="model", n_boot=50))
    >>> diff = pr.compare("f1", "macro", by="model", reference={"model": "A"}, n_boot=50)
    >>> chart = af.plot.groups(diff, value="difference_to_reference")
    """
    alt = _altair()
    df = _frame(report, "plot_groups")
    _need(df, ["measure", "operator", value], "plot_groups")
    _numeric_value(df, value, "plot_groups")
    df = _pick(df, "measure", measures, single=False, what="plot_groups")
    df = _pick(df, "operator", operators, single=False, what="plot_groups")
    df = _pick(df, "convention", convention, single=True, what="plot_groups")
    df = _pick(df, "pooling", pooling, single=True, what="plot_groups")
    keys = _keys(df, by, SPEC_COLUMNS)
    ops = df.get_column("operator").unique(maintain_order=True).to_list()
    extra = _interval_exprs(df, value)
    frame = df.select(
        _label(df, keys).alias("group"),
        pl.col("measure").cast(pl.String),
        pl.col("operator").cast(pl.String),
        _finite(value).alias("value"),
        *extra,
    )
    data_ = _data(frame)
    interval = bool(extra)
    baseline = _baseline(value)
    x_title = _value_title(df, value)
    x = alt.X("value:Q", title=x_title, scale=alt.Scale(zero=False))
    y = alt.Y("group:N", title=_title(keys), sort=_order(frame, "group"))
    color = alt.Color("operator:N", title="operator", scale=alt.Scale(domain=ops))
    tooltip = [
        alt.Tooltip("group:N", title=_title(keys)),
        alt.Tooltip("measure:N"),
        alt.Tooltip("operator:N"),
        alt.Tooltip("value:Q", title=value, format=".4f"),
    ]
    side = {"yOffset": alt.YOffset("operator:N", scale=alt.Scale(domain=ops))} if interval else {}
    if interval:
        tooltip += [
            alt.Tooltip("low:Q", title="ci_low", format=".4f"),
            alt.Tooltip("high:Q", title="ci_high", format=".4f"),
        ]
    paired = "excludes" in frame.columns  # filled where the interval excludes zero, hollow otherwise
    fill = (
        {
            "fill": alt.condition(
                "datum.excludes",
                alt.Fill("operator:N", scale=alt.Scale(domain=ops), legend=None),
                alt.value("white"),
            )
        }
        if paired
        else {}
    )
    points = (
        alt.Chart()
        .mark_point(
            size=60,
            **({"filled": False, "strokeWidth": 1.5, "fillOpacity": 1} if paired else {"filled": True}),
        )
        .encode(
            x=x,
            y=y,
            color=color,
            shape=alt.Shape("operator:N", title="operator", scale=alt.Scale(domain=ops)),
            tooltip=tooltip,
            **side,
            **fill,
        )
        .properties(width=_WIDTH // 2 + 60)
    )
    facet = alt.Facet("measure:N", title=None, sort=_order(frame, "measure"))
    if not interval and baseline is None:  # the plain chart
        return points.facet(facet=facet, columns=columns, data=data_, title="per group").resolve_scale(
            x="independent"
        )
    layers = []
    if baseline is not None:
        layers.append(alt.Chart().mark_rule(color="#9a9a9a", strokeDash=[4, 4]).encode(x=alt.datum(baseline)))
    if interval:
        layers.append(
            alt.Chart()
            .mark_rule(strokeWidth=2)
            .encode(x=alt.X("low:Q", title=x_title), x2="high:Q", y=y, color=color, tooltip=tooltip, **side)
            .transform_filter("isValid(datum.low) && isValid(datum.high)")
        )
    layers.append(points)
    return (
        alt.layer(*layers)
        .properties(width=_WIDTH // 2 + 60)
        .facet(facet=facet, columns=columns, data=data_, title="per group")
        .resolve_scale(x="independent")
    )


def plot_heatmap(  # noqa: PLR0913 -- the user's options, keyword-only
    report: pl.DataFrame | pl.LazyFrame,
    *,
    x: str,
    y: str,
    measure: str | None = None,
    operator: str | None = None,
    convention: str | None = None,
    pooling: str | None = None,
    value: str = "value",
) -> alt.LayerChart:
    """One measure x operator as a heat map over two group columns (e.g. day x model).

    With intervals (a report evaluated with ``n_boot=``) each cell also shows its interval
    (``[low, high]`` under the value, and in the tooltip).

    Parameters
    ----------
    report
        An ``evaluate`` (or ``compare``) result grouped by (at least) ``x`` and ``y``.
    x, y
        The group columns on the axes.
    measure, operator, convention, pooling
        Which rows to draw; each may be left out when the report has only one value of it.
    value
        The column drawn: ``"value"`` or a ``compare`` column (``"difference_to_reference"``,
        ...). A difference is coloured on a diverging scale centred on 0 (a ratio on 1), and
        with ``n_boot=`` the values whose interval excludes zero are written in bold.

    Returns
    -------
    altair.LayerChart
        Coloured cells with the value written in each (a null key is the label ``(null)``).

    Raises
    ------
    DuplicateEntryError
        Several rows fall into one cell (the report has more group columns: filter it first).

    Examples
    --------
    >>> import polars as pl
    >>> import aggframe as af
    >>> frame = pl.DataFrame(
    ...     {"model": ["a", "a", "b", "b"], "day": [1, 2, 1, 2], "y": [0, 1, 1, 1], "p": [0, 1, 0, 1]}
    ... )
    >>> report = af.from_labels(frame, y_true="y", y_pred="p").evaluate("f1", "macro", by=["model", "day"])
    >>> type(af.plot.heatmap(report, x="day", y="model")).__name__
    'LayerChart'
    """
    alt = _altair()
    df = _frame(report, "plot_heatmap")
    _need(df, [x, y, value], "plot_heatmap")
    _numeric_value(df, value, "plot_heatmap")
    if x == y:
        msg = f"plot_heatmap: x and y are both {x!r}; give two columns"
        raise OptionError(msg)
    df = _pick(df, "measure", measure, single=True, what="plot_heatmap")
    df = _pick(df, "operator", operator, single=True, what="plot_heatmap")
    df = _pick(df, "convention", convention, single=True, what="plot_heatmap")
    df = _pick(df, "pooling", pooling, single=True, what="plot_heatmap")
    # by label: a rolled-up key (grouping sets) is a cell of its own, not the real null's
    dup = df.group_by(_key(df, x), _key(df, y)).len().filter(pl.col("len") > 1)
    if dup.height:
        others = [c for c in _keys(df, None, SPEC_COLUMNS) if c not in (x, y)]
        msg = (
            f"plot_heatmap: {dup.height} cell(s) of {x!r} x {y!r} hold several rows, e.g. {dup.row(0)}; "
            f"the report has other group columns {others}: filter it to one value of each first"
        )
        raise DuplicateEntryError(msg)
    m = df.get_column("measure")[0] if "measure" in df.columns and df.height else (measure or "value")
    op = df.get_column("operator")[0] if "operator" in df.columns and df.height else (operator or "")
    title = f"{op} {m}".strip() + ("" if value == "value" else f" {value.replace('_', ' ')}")
    extra = _interval_exprs(df, value)
    frame = df.sort(named(y), named(x), nulls_last=True, maintain_order=True).select(
        _key(df, x).alias("x"), _key(df, y).alias("y"), _finite(value).alias("value"), *extra
    )
    data_ = _data(frame)
    low, high = frame.get_column("value").min(), frame.get_column("value").max()
    middle = (float(low) + float(high)) / 2 if isinstance(low, float) and isinstance(high, float) else 0.0
    base = alt.Chart().encode(
        x=alt.X("x:O", title=x, sort=_order(frame, "x"), axis=alt.Axis(labelAngle=0)),
        y=alt.Y("y:O", title=y, sort=_order(frame, "y")),
    )
    tooltip = [
        alt.Tooltip("x:O", title=x),
        alt.Tooltip("y:O", title=y),
        alt.Tooltip("value:Q", title=title, format=".4f"),
    ]
    centre = _baseline(value)
    if centre is None:
        scale = alt.Scale(scheme="viridis")
        dark = f"datum.value < {middle!r}"
    else:  # a diverging scale centred where nothing differs; white text on its dark ends
        spread = max((abs(float(v) - centre) for v in (low, high) if isinstance(v, float)), default=0.0)
        scale = alt.Scale(scheme="redblue", domainMid=centre)
        dark = f"abs(datum.value - {centre!r}) > {0.6 * spread!r}"
    cells = base.mark_rect().encode(color=alt.Color("value:Q", title=title, scale=scale), tooltip=tooltip)
    colour = alt.condition(dark, alt.value("white"), alt.value("black"))
    step = max(56, 9 * max(len(v) for v in _order(frame, "x")) if frame.height else 56)
    if not extra:  # the plain chart
        plain = base.mark_text(fontSize=11).encode(text=alt.Text("value:Q", format=".3f"), color=colour)
        return alt.layer(cells, plain, data=data_).properties(
            title=title, width=alt.Step(step), height=alt.Step(26)
        )
    cells = cells.encode(
        tooltip=[
            *tooltip,
            alt.Tooltip("low:Q", title="ci_low", format=".4f"),
            alt.Tooltip("high:Q", title="ci_high", format=".4f"),
        ]
    )
    label = (
        "isValid(datum.value) ? format(datum.value, '.3f') + (isValid(datum.low) && isValid(datum.high)"
        " ? '\\n[' + format(datum.low, '.2f') + ', ' + format(datum.high, '.2f') + ']' : '') : ''"
    )

    def text(weight: str, keep: str | None) -> Any:
        layer = base.mark_text(fontSize=11, lineBreak="\n", fontWeight=weight).transform_calculate(
            label=label
        )
        layer = layer.transform_filter(keep) if keep is not None else layer
        return layer.encode(text=alt.Text("label:N"), color=colour)

    # a compare frame says whether each difference's interval excludes zero: those in bold
    texts = (
        [text("bold", "datum.excludes"), text("normal", "!datum.excludes")]
        if "excludes" in frame.columns
        else [text("normal", None)]
    )
    return alt.layer(cells, *texts, data=data_).properties(
        title=title + _level_text(df), width=alt.Step(max(step, 100)), height=alt.Step(40)
    )
