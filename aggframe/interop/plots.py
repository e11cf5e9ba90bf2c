"""Charts of aggframe's tidy results, with Altair (the optional ``plot`` extra).

One function per chart, each taking the tidy frames aggframe returns (``evaluate``,
``per_class``, ``compare``) and returning an Altair chart object: nothing is drawn or
kept anywhere until you display or save it (``chart.save("f1.svg")`` or ``.png``
renders offline through vl-convert).

========================  ==================================================================
:func:`plot_classes`      per-class values of one measure, with micro/macro/weighted lines
:func:`plot_conventions`  the band undefined entries span: exclude vs zero vs one
:func:`plot_groups`       small multiples: one panel per measure, one row per group
:func:`plot_heatmap`      one measure x operator over two group columns (model x day)
:func:`plot_folds`        pooled vs averaged folds, with the per-fold values and their spread
:func:`plot_curve`        ROC or precision-recall curves (the tidy frames of ``curve``)
:func:`plot_calibration`  reliability diagrams (the tidy tables of ``calibration``)
========================  ==================================================================

Column names of your data never become Vega-Lite field names: the charts are built on a
small frame with fixed internal names, and your names appear only as titles and
labels. A group column may therefore be called anything (``"a.b [0]"``), and a null group
key is drawn as the label ``null``, as Polars prints it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe.exceptions import ColumnNotFoundError, DuplicateEntryError, OptionError
from aggframe.interop.layout import SPEC_COLUMNS

if TYPE_CHECKING:
    import altair as alt

__all__ = [
    "NULL_LABEL",
    "plot_calibration",
    "plot_classes",
    "plot_conventions",
    "plot_curve",
    "plot_folds",
    "plot_groups",
    "plot_heatmap",
]

#: How a null group key (or class) is labelled in a chart.
NULL_LABEL = "null"
_GROUP_SEP = " · "
_INSTALL = "pip install 'aggframe[plot]'"
_WIDTH = 360
_POOLED = ["pooled", "averaged"]


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


def _frame(report: Any, what: str) -> pl.DataFrame:
    if isinstance(report, pl.LazyFrame):
        return report.collect()
    if isinstance(report, pl.DataFrame):
        return report
    msg = f"{what} takes a tidy Polars frame from aggframe (evaluate, per_class, ...), got {type(report).__name__}"
    raise OptionError(msg)


def _need(df: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        msg = f"{what} needs the column(s) {missing}; the frame has {df.columns}"
        raise ColumnNotFoundError(msg)


def _keys(df: pl.DataFrame, by: str | Sequence[str] | None, stop: Sequence[str]) -> list[str]:
    """The group keys: ``by`` if given, else the columns before the first of ``stop``."""
    if by is not None:
        keys = _as_list(by) or []
        _need(df, keys, "by=")
        return keys
    first = min((df.columns.index(c) for c in stop if c in df.columns), default=0)
    return df.columns[:first]


def _text(column: str) -> pl.Expr:
    """A column as display text: nulls read ``null``."""
    return pl.col(column).cast(pl.String).fill_null(NULL_LABEL)


def _label(keys: Sequence[str]) -> pl.Expr:
    """One label per group: the key values joined (``gbm · 2026-11-01``); ``all`` without keys."""
    if not keys:
        return pl.lit("all")
    return pl.concat_str([_text(k) for k in keys], separator=_GROUP_SEP)


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
    return alt.Data(values=df.to_dicts())


def _order(frame: pl.DataFrame, column: str) -> list[Any]:
    """The values of ``column`` in the order of the rows (the axis order: a sort array, since
    ``sort: null`` over several layers can merge domains out of order)."""
    return [v for v in frame.get_column(column).unique(maintain_order=True).to_list() if v is not None]


def _spec_label(df: pl.DataFrame) -> pl.Expr:
    parts = [c for c in ("measure", "operator") if c in df.columns]
    return pl.concat_str([_text(c) for c in parts], separator=" ")


# ---------------------------------------------------------------------------
# The charts


def plot_classes(
    data: Any,
    measure: str,
    *,
    by: str | Sequence[str] | None = None,
    reference: pl.DataFrame | None = None,
    operators: Sequence[str] = ("micro", "macro", "weighted"),
    convention: str = "exclude",
) -> alt.LayerChart | alt.FacetChart:
    """Per-class values of one measure, with the averaged values as reference lines.

    Parameters
    ----------
    data
        A ``Predictions`` (``per_class`` and ``evaluate`` are called on it), or a frame from
        ``Predictions.per_class`` (columns ``class``, ``value``, ``defined``, ...).
    measure
        The measure to draw.
    by
        Group columns: one panel per group. Default with a frame: the columns before ``class``.
    reference
        With a frame: an ``evaluate`` result whose rows of ``measure`` give the lines.
    operators
        The operators drawn as lines (with a ``Predictions``; filters ``reference`` otherwise).
    convention
        Which convention's averages to draw.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Bars per class (an undefined entry is written ``undefined`` at 0), a vertical rule per
        operator; one row of panels per group.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    >>> chart = af.plot_classes(pr, "f1")
    >>> type(chart).__name__
    'LayerChart'
    """
    alt = _altair()
    ops = list(operators)
    if isinstance(data, (pl.DataFrame, pl.LazyFrame)):
        per = _frame(data, "plot_classes")
        ref = _frame(reference, "plot_classes(reference=...)") if reference is not None else None
    elif hasattr(data, "per_class") and hasattr(data, "evaluate"):
        per = data.per_class(measure, by=by)
        ref = data.evaluate(measure, ops, by=by, convention=convention) if ops else None
    else:
        msg = f"plot_classes takes a Predictions or a per_class frame, got {type(data).__name__}"
        raise OptionError(msg)
    _need(per, ["class", "value"], "plot_classes")
    per = _pick(per, "measure", measure, single=True, what="plot_classes")
    keys = _keys(per, by, ["class"])
    defined = pl.col("defined") if "defined" in per.columns else pl.col("value").is_not_nan()
    support = pl.col("support").cast(pl.Float64) if "support" in per.columns else pl.lit(None, pl.Float64)
    bars = per.select(
        _label(keys).alias("group"),
        _text("class").alias("class"),
        _finite("value"),
        defined.fill_null(value=False).alias("defined"),
        support.alias("support"),
        pl.lit("class").alias("kind"),
        pl.lit(None, pl.String).alias("operator"),
    )
    frames = [bars]
    if ref is not None:
        ref = _pick(ref, "measure", measure, single=True, what="plot_classes(reference)")
        ref = ref.filter(pl.col("operator").is_in(ops)) if ops else ref
        several = "convention" in ref.columns and ref.get_column("convention").n_unique() > 1
        ref = _pick(
            ref, "convention", convention if several else None, single=True, what="plot_classes(reference)"
        )
        if "pooling" in ref.columns:
            ref = ref.filter(pl.col("pooling") == "pooled")
        ref_keys = [k for k in keys if k in ref.columns]
        if ref_keys != keys:
            msg = f"plot_classes: the reference frame lacks the group column(s) {sorted(set(keys) - set(ref_keys))}"
            raise ColumnNotFoundError(msg)
        frames.append(
            ref.select(
                _label(keys).alias("group"),
                pl.lit(None, pl.String).alias("class"),
                _finite("value"),
                pl.lit(value=True).alias("defined"),
                pl.lit(None, pl.Float64).alias("support"),
                pl.lit("reference").alias("kind"),
                pl.col("operator").cast(pl.String),
            )
        )
    frame = pl.concat(frames, how="vertical")
    data_ = _data(frame)
    y = alt.Y("class:N", title="class", sort=_order(bars, "class"))
    x = alt.X("value:Q", title=measure)
    bar = (
        alt.Chart()
        .mark_bar(color="#4c78a8")
        .encode(
            x=x,
            y=y,
            tooltip=[
                alt.Tooltip("class:N", title="class"),
                alt.Tooltip("value:Q", title=measure, format=".4f"),
                alt.Tooltip("support:Q", title="support"),
            ],
        )
        .transform_filter("datum.kind == 'class' && datum.defined")
    )
    undefined = (
        alt.Chart()
        .mark_text(align="left", dx=3, color="#b0413e", fontStyle="italic")
        .encode(x=alt.datum(0), y=y, text=alt.value("undefined"))
        .transform_filter("datum.kind == 'class' && !datum.defined")
    )
    layers = [bar, undefined]
    if ref is not None:
        rule = (
            alt.Chart()
            .mark_rule(strokeWidth=2)
            .encode(
                x=x,
                color=alt.Color("operator:N", title="operator", scale=alt.Scale(domain=ops)),
                strokeDash=alt.StrokeDash("operator:N", title="operator", scale=alt.Scale(domain=ops)),
                tooltip=[alt.Tooltip("operator:N"), alt.Tooltip("value:Q", title=measure, format=".4f")],
            )
            .transform_filter("datum.kind == 'reference'")
        )
        layers.append(rule)
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
                title=f"{measure} per class",
            )
        )
    return alt.layer(*layers, data=data_).properties(width=_WIDTH, title=f"{measure} per class")


def plot_conventions(
    report: pl.DataFrame | pl.LazyFrame,
    *,
    measures: str | Sequence[str] | None = None,
    operators: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    pooling: str | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """How far undefined entries can move each value: the exclude / zero / one band.

    Parameters
    ----------
    report
        An ``evaluate`` result with several conventions, e.g.
        ``convention=["exclude", "zero", "one"]``.
    measures, operators
        Rows to keep (default: all).
    by
        Group columns (one panel per group). Default: the columns before ``measure``.
    pooling
        With folds: which pooling to draw (needed when the report has several).

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        One line per measure x operator: a bar from the lowest to the highest value over the
        conventions (no bar where nothing is undefined) and one mark per convention.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 0, 2, 2, 0, 0])
    >>> report = pr.evaluate(["precision", "f1"], ["macro"], convention=["exclude", "zero", "one"])
    >>> type(af.plot_conventions(report)).__name__
    'LayerChart'
    """
    alt = _altair()
    df = _frame(report, "plot_conventions")
    _need(df, ["measure", "operator", "value", "convention"], "plot_conventions")
    df = _pick(df, "measure", measures, single=False, what="plot_conventions")
    df = _pick(df, "operator", operators, single=False, what="plot_conventions")
    df = _pick(df, "pooling", pooling, single=True, what="plot_conventions")
    conventions = [c for c in df.get_column("convention").unique(maintain_order=True).to_list() if c != "nan"]
    if len(conventions) < 2:
        msg = (
            f"plot_conventions needs a report with several conventions, got {conventions}: "
            "evaluate with convention=['exclude', 'zero', 'one']"
        )
        raise OptionError(msg)
    keys = _keys(df, by, SPEC_COLUMNS)
    n_undefined = pl.col("n_undefined") if "n_undefined" in df.columns else pl.lit(None, pl.Int64)
    frame = (
        df.filter(pl.col("convention") != "nan")
        .select(
            _label(keys).alias("group"),
            _spec_label(df).alias("spec"),
            pl.col("convention").cast(pl.String),
            _finite("value"),
            n_undefined.alias("n_undefined"),
        )
        .with_columns(
            pl.col("value").min().over("group", "spec").alias("low"),
            pl.col("value").max().over("group", "spec").alias("high"),
            (pl.int_range(pl.len()).over("group", "spec") == 0).alias("first"),
        )
    )
    data_ = _data(frame)
    y = alt.Y("spec:N", title="measure operator", sort=_order(frame, "spec"))
    band = (
        alt.Chart()
        .mark_bar(color="#f2b447", opacity=0.5, height=10)
        .encode(x=alt.X("low:Q", title="value", scale=alt.Scale(zero=False)), x2="high:Q", y=y)
        .transform_filter("datum.first && datum.high > datum.low")
    )
    points = (
        alt.Chart()
        .mark_point(filled=True, size=70)
        .encode(
            x=alt.X("value:Q", title="value"),
            y=y,
            color=alt.Color("convention:N", title="convention", scale=alt.Scale(domain=conventions)),
            shape=alt.Shape("convention:N", title="convention", scale=alt.Scale(domain=conventions)),
            tooltip=[
                alt.Tooltip("spec:N", title="measure operator"),
                alt.Tooltip("convention:N"),
                alt.Tooltip("value:Q", format=".4f"),
                alt.Tooltip("n_undefined:Q", title="undefined entries"),
            ],
        )
    )
    title = "undefined entries: value under each convention"
    if keys:
        return (
            alt.layer(band, points)
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
    return alt.layer(band, points, data=data_).properties(width=_WIDTH, title=title)


def plot_groups(
    report: pl.DataFrame | pl.LazyFrame,
    *,
    measures: str | Sequence[str] | None = None,
    operators: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    convention: str | None = None,
    pooling: str | None = None,
    columns: int = 3,
) -> alt.FacetChart:
    """Small multiples: one panel per measure, one row per group, one mark per operator.

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
    columns
        Panels per row.

    Returns
    -------
    altair.FacetChart
        A dot plot per measure (each with its own value axis).

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    >>> report = pr.evaluate(["f1", "mcc"], ["micro", "macro"])
    >>> type(af.plot_groups(report)).__name__
    'FacetChart'
    """
    alt = _altair()
    df = _frame(report, "plot_groups")
    _need(df, ["measure", "operator", "value"], "plot_groups")
    df = _pick(df, "measure", measures, single=False, what="plot_groups")
    df = _pick(df, "operator", operators, single=False, what="plot_groups")
    df = _pick(df, "convention", convention, single=True, what="plot_groups")
    df = _pick(df, "pooling", pooling, single=True, what="plot_groups")
    keys = _keys(df, by, SPEC_COLUMNS)
    ops = df.get_column("operator").unique(maintain_order=True).to_list()
    frame = df.select(
        _label(keys).alias("group"),
        pl.col("measure").cast(pl.String),
        pl.col("operator").cast(pl.String),
        _finite("value"),
    )
    data_ = _data(frame)
    base = (
        alt.Chart()
        .mark_point(filled=True, size=60)
        .encode(
            x=alt.X("value:Q", title="value", scale=alt.Scale(zero=False)),
            y=alt.Y("group:N", title=_title(keys), sort=_order(frame, "group")),
            color=alt.Color("operator:N", title="operator", scale=alt.Scale(domain=ops)),
            shape=alt.Shape("operator:N", title="operator", scale=alt.Scale(domain=ops)),
            tooltip=[
                alt.Tooltip("group:N", title=_title(keys)),
                alt.Tooltip("measure:N"),
                alt.Tooltip("operator:N"),
                alt.Tooltip("value:Q", format=".4f"),
            ],
        )
        .properties(width=_WIDTH // 2 + 60)
    )
    return base.facet(
        facet=alt.Facet("measure:N", title=None, sort=_order(frame, "measure")),
        columns=columns,
        data=data_,
        title="per group",
    ).resolve_scale(x="independent")


def plot_heatmap(
    report: pl.DataFrame | pl.LazyFrame,
    *,
    x: str,
    y: str,
    measure: str | None = None,
    operator: str | None = None,
    convention: str | None = None,
    pooling: str | None = None,
) -> alt.LayerChart:
    """One measure x operator as a heat map over two group columns (e.g. day x model).

    Parameters
    ----------
    report
        An ``evaluate`` result grouped by (at least) ``x`` and ``y``.
    x, y
        The group columns on the axes.
    measure, operator, convention, pooling
        Which rows to draw; each may be left out when the report has only one value of it.

    Returns
    -------
    altair.LayerChart
        Coloured cells with the value written in each (a null key is the label ``null``).

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
    >>> type(af.plot_heatmap(report, x="day", y="model")).__name__
    'LayerChart'
    """
    alt = _altair()
    df = _frame(report, "plot_heatmap")
    _need(df, [x, y, "value"], "plot_heatmap")
    df = _pick(df, "measure", measure, single=True, what="plot_heatmap")
    df = _pick(df, "operator", operator, single=True, what="plot_heatmap")
    df = _pick(df, "convention", convention, single=True, what="plot_heatmap")
    df = _pick(df, "pooling", pooling, single=True, what="plot_heatmap")
    dup = df.group_by(x, y).len().filter(pl.col("len") > 1)
    if dup.height:
        others = [c for c in _keys(df, None, SPEC_COLUMNS) if c not in (x, y)]
        msg = (
            f"plot_heatmap: {dup.height} cell(s) of {x!r} x {y!r} hold several rows, e.g. {dup.row(0)}; "
            f"the report has other group columns {others}: filter it to one value of each first"
        )
        raise DuplicateEntryError(msg)
    m = df.get_column("measure")[0] if "measure" in df.columns and df.height else (measure or "value")
    op = df.get_column("operator")[0] if "operator" in df.columns and df.height else (operator or "")
    title = f"{op} {m}".strip()
    frame = df.sort(y, x, nulls_last=True, maintain_order=True).select(
        _text(x).alias("x"), _text(y).alias("y"), _finite("value")
    )
    data_ = _data(frame)
    low, high = frame.get_column("value").min(), frame.get_column("value").max()
    middle = (float(low) + float(high)) / 2 if isinstance(low, float) and isinstance(high, float) else 0.0
    base = alt.Chart().encode(
        x=alt.X("x:O", title=x, sort=_order(frame, "x"), axis=alt.Axis(labelAngle=0)),
        y=alt.Y("y:O", title=y, sort=_order(frame, "y")),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("value:Q", title=title, scale=alt.Scale(scheme="viridis")),
        tooltip=[
            alt.Tooltip("x:O", title=x),
            alt.Tooltip("y:O", title=y),
            alt.Tooltip("value:Q", title=title, format=".4f"),
        ],
    )
    text = base.mark_text(fontSize=11).encode(
        text=alt.Text("value:Q", format=".3f"),
        color=alt.condition(f"datum.value < {middle!r}", alt.value("white"), alt.value("black")),
    )
    return alt.layer(cells, text, data=data_).properties(
        title=title,
        width=alt.Step(max(56, 9 * max(len(v) for v in _order(frame, "x")) if frame.height else 56)),
        height=alt.Step(26),
    )


def _fold_columns(df: pl.DataFrame, keys: Sequence[str]) -> list[str]:
    """Key columns set only on the per-fold rows: the fold (and repeat) columns."""
    fold_rows = df.filter(pl.col("pooling") == "fold")
    other = df.filter(pl.col("pooling") != "fold")
    out = []
    for k in keys:
        if other.get_column(k).null_count() == other.height and (
            fold_rows.height == 0 or fold_rows.get_column(k).null_count() < fold_rows.height
        ):
            out.append(k)
    return out


def plot_folds(
    report: pl.DataFrame | pl.LazyFrame,
    *,
    measures: str | Sequence[str] | None = None,
    operators: str | Sequence[str] | None = None,
    convention: str | None = None,
    folds: str | Sequence[str] | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """Pooled vs averaged folds, over the per-fold values and their range.

    Parameters
    ----------
    report
        An ``evaluate`` result of fold predictions with a ``pooling`` column, e.g.
        ``pooling=["pooled", "averaged", "fold"]`` (``min``/``max``/``std`` are drawn too).
    measures, operators
        Rows to keep (default: all).
    convention
        Which convention to draw when the report has several.
    folds
        The fold (and repeat) columns. Default: the key columns that are null on every row but
        the per-fold ones. The other keys are groups (one panel each).

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Per measure x operator: a grey tick per fold, a grey line over the fold range (min to
        max), a bar of one standard deviation around the average, and the pooled and averaged
        values as marks.

    Examples
    --------
    >>> import aggframe as af
    >>> import polars as pl
    >>> frame = pl.DataFrame(
    ...     {"y_true": [0, 1, 2, 2, 1, 0, 1, 2], "y_pred": [0, 2, 2, 1, 1, 1, 1, 2], "fold": [0, 0, 0, 0, 1, 1, 1, 1]}
    ... )
    >>> pr = af.from_labels(frame, fold="fold")
    >>> report = pr.evaluate("f1", ["micro", "macro"], pooling=["pooled", "averaged", "fold"])
    >>> type(af.plot_folds(report)).__name__
    'LayerChart'
    """
    alt = _altair()
    df = _frame(report, "plot_folds")
    _need(df, ["pooling", "measure", "operator", "value"], "plot_folds")
    df = _pick(df, "measure", measures, single=False, what="plot_folds")
    df = _pick(df, "operator", operators, single=False, what="plot_folds")
    df = _pick(df, "convention", convention, single=True, what="plot_folds")
    keys = _keys(df, None, SPEC_COLUMNS)
    fold_cols = (_as_list(folds) or []) if folds is not None else _fold_columns(df, keys)
    _need(df, fold_cols, "plot_folds(folds=...)")
    groups = [k for k in keys if k not in fold_cols]
    frame = df.select(
        _label(groups).alias("group"),
        _spec_label(df).alias("spec"),
        pl.col("pooling").cast(pl.String),
        _finite("value"),
        (
            pl.concat_str([_text(c) for c in fold_cols], separator=_GROUP_SEP)
            if fold_cols
            else pl.lit(None, pl.String)
        ).alias("fold"),
    )
    per = ["group", "spec"]
    folds_ = frame.filter(pl.col("pooling") == "fold")
    stat = frame.filter(pl.col("pooling") != "fold").pivot(
        on="pooling", index=per, values="value", aggregate_function="first"
    )
    fold_range = folds_.group_by(per).agg(
        pl.col("value").min().alias("fold_min"), pl.col("value").max().alias("fold_max")
    )
    spread = stat.join(fold_range, on=per, how="full", coalesce=True, nulls_equal=True)
    cols = spread.columns
    lo = pl.col("min") if "min" in cols else pl.col("fold_min") if "fold_min" in cols else pl.lit(None)
    hi = pl.col("max") if "max" in cols else pl.col("fold_max") if "fold_max" in cols else pl.lit(None)
    if "std" in cols and "averaged" in cols:
        sd_lo, sd_hi = pl.col("averaged") - pl.col("std"), pl.col("averaged") + pl.col("std")
    else:
        sd_lo = sd_hi = pl.lit(None, pl.Float64)
    spread = spread.select(
        *per,
        lo.cast(pl.Float64).alias("low"),
        hi.cast(pl.Float64).alias("high"),
        sd_lo.alias("sd_low"),
        sd_hi.alias("sd_high"),
    )
    frame = pl.concat(
        [
            frame.with_columns(
                pl.lit(None, pl.Float64).alias(c) for c in ("low", "high", "sd_low", "sd_high")
            ),
            spread.with_columns(
                pl.lit("spread").alias("pooling"),
                pl.lit(None, pl.Float64).alias("value"),
                pl.lit(None, pl.String).alias("fold"),
            ).select([*frame.columns, "low", "high", "sd_low", "sd_high"]),
        ],
        how="vertical",
    )
    data_ = _data(frame)
    y = alt.Y("spec:N", title="measure operator", sort=_order(frame, "spec"))
    xt = "value"
    ticks = (
        alt.Chart()
        .mark_tick(color="#9a9a9a", thickness=1.5)
        .encode(
            x=alt.X("value:Q", title=xt, scale=alt.Scale(zero=False)),
            y=y,
            tooltip=[alt.Tooltip("fold:N", title=_title(fold_cols)), alt.Tooltip("value:Q", format=".4f")],
        )
        .transform_filter("datum.pooling == 'fold'")
    )
    fold_range_rule = (
        alt.Chart()
        .mark_rule(color="#9a9a9a")
        .encode(x=alt.X("low:Q", title=xt), x2="high:Q", y=y)
        .transform_filter("datum.pooling == 'spread' && isValid(datum.low) && isValid(datum.high)")
    )
    sd_bar = (
        alt.Chart()
        .mark_bar(color="#f58518", opacity=0.35, height=8)
        .encode(x=alt.X("sd_low:Q", title=xt), x2="sd_high:Q", y=y)
        .transform_filter("datum.pooling == 'spread' && isValid(datum.sd_low)")
    )
    marks = (
        alt.Chart()
        .mark_point(filled=False, strokeWidth=2.5, size=110)
        .encode(
            x=alt.X("value:Q", title=xt),
            y=y,
            color=alt.Color("pooling:N", title="pooling", scale=alt.Scale(domain=_POOLED)),
            shape=alt.Shape(
                "pooling:N", title="pooling", scale=alt.Scale(domain=_POOLED, range=["circle", "diamond"])
            ),
            tooltip=[
                alt.Tooltip("spec:N", title="measure operator"),
                alt.Tooltip("pooling:N"),
                alt.Tooltip("value:Q", format=".4f"),
            ],
        )
        .transform_filter("datum.pooling == 'pooled' || datum.pooling == 'averaged'")
    )
    layers = [fold_range_rule, sd_bar, ticks, marks]
    title = "pooled vs averaged folds"
    if groups:
        return (
            alt.layer(*layers)
            .properties(width=_WIDTH)
            .facet(
                data=data_,
                row=alt.Row(
                    "group:N",
                    title=_title(groups),
                    sort=_order(frame, "group"),
                    header=alt.Header(labelAngle=0, labelAlign="left"),
                ),
                title=title,
            )
        )
    return alt.layer(*layers, data=data_).properties(width=_WIDTH, title=title)


# ---------------------------------------------------------------------------
# Score charts: ROC and precision-recall curves, reliability diagrams

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
    return _label(cols), cols


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
            _label(keys).alias("group"),
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
        :func:`aggframe.operators.curves.calibration` give it; ``observed`` is read in place
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
            _label(keys).alias("group"),
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
