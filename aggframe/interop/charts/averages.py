"""Charts of an average against what it is made of: the per-class values under the averaged
ones (:func:`plot_classes`), the band undefined entries span over the conventions
(:func:`plot_conventions`), and pooled vs averaged folds over the per-fold values
(:func:`plot_folds`). Each draws one row of panels per group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe.exceptions import AggframeError, ColumnNotFoundError, OptionError
from aggframe.interop.charts.frames import (
    _altair,
    _as_list,
    _data,
    _finite,
    _frame,
    _interval_exprs,
    _keys,
    _label,
    _level_text,
    _need,
    _order,
    _pick,
    _rows,
    _spec_label,
    _text,
    _title,
)
from aggframe.interop.layout import SPEC_COLUMNS, label_of
from aggframe.measures.registry import get_measure

if TYPE_CHECKING:
    import altair as alt

__all__ = ["plot_classes", "plot_conventions", "plot_folds"]

_POOLED = ["pooled", "averaged"]


def plot_classes(  # noqa: PLR0913 -- the user's options, keyword-only
    data: Any,
    measure: str,
    *,
    by: str | Sequence[str] | None = None,
    reference: pl.DataFrame | None = None,
    operators: Sequence[str] = ("micro", "macro", "weighted"),
    convention: str = "exclude",
    n_boot: int | None = None,
    level: float = 0.95,
    seed: int = 0,
) -> alt.LayerChart | alt.FacetChart:
    """Per-class values of one measure, with the averaged values as reference lines.

    When the reference values have intervals (``n_boot=`` here, or a ``reference`` frame
    evaluated with ``n_boot=``: columns ``ci_low``, ``ci_high``) each line is drawn over a
    band of its interval.

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
    n_boot, level, seed
        With a ``Predictions``: bootstrap intervals of the averages, as in ``evaluate``.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Bars per class (an undefined entry is written ``undefined`` at 0), a vertical rule per
        operator (over a band of its interval, if any); one row of panels per group.

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
    >>> chart = af.plot.classes(pr, "f1")
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
        boot = {"n_boot": n_boot, "level": level, "seed": seed} if n_boot is not None else {}
        ref = data.evaluate(measure, ops, by=by, convention=convention, **boot) if ops else None
    else:
        msg = f"plot_classes takes a Predictions or a per_class frame, got {type(data).__name__}"
        raise OptionError(msg)
    _need(per, ["class", "value"], "plot_classes")
    measure = _measure_name(measure, per)
    per = _pick(per, "measure", measure, single=True, what="plot_classes")
    keys = _keys(per, by, ["class"])
    defined = pl.col("defined") if "defined" in per.columns else pl.col("value").is_not_nan()
    support = pl.col("support").cast(pl.Float64) if "support" in per.columns else pl.lit(None, pl.Float64)
    bars = per.select(
        _label(per, keys).alias("group"),
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
                _label(ref, keys).alias("group"),
                pl.lit(None, pl.String).alias("class"),
                _finite("value"),
                pl.lit(value=True).alias("defined"),
                pl.lit(None, pl.Float64).alias("support"),
                pl.lit("reference").alias("kind"),
                pl.col("operator").cast(pl.String),
                *_interval_exprs(ref.drop([c for c in ref.columns if c.endswith("_excludes_zero")]), "value"),
            )
            # the groups drawn: a rolled-up total of a grouping-set reference has no bars, only lines
            .filter(pl.col("group").is_in(bars.get_column("group").unique()))
        )
    frame = pl.concat(frames, how="diagonal")
    interval = "low" in frame.columns
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
    if interval:
        band = (
            alt.Chart()
            .mark_rect(opacity=0.15)
            .encode(
                x=alt.X("low:Q", title=measure),
                x2="high:Q",
                color=alt.Color("operator:N", title="operator", scale=alt.Scale(domain=ops)),
                tooltip=[
                    alt.Tooltip("operator:N"),
                    alt.Tooltip("value:Q", title=measure, format=".4f"),
                    alt.Tooltip("low:Q", title="ci_low", format=".4f"),
                    alt.Tooltip("high:Q", title="ci_high", format=".4f"),
                ],
            )
            .transform_filter("datum.kind == 'reference' && isValid(datum.low) && isValid(datum.high)")
        )
        layers.insert(len(layers) - 1, band)  # over the bars, under the lines
    title = f"{measure} per class" + (_level_text(ref) if interval and ref is not None else "")
    return _rows(layers, data_, frame=frame, keys=keys, title=title)


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
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 0, 2, 2, 0, 0])
    >>> report = pr.evaluate(["precision", "f1"], ["macro"], convention=["exclude", "zero", "one"])
    >>> type(af.plot.conventions(report)).__name__
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
            _label(df, keys).alias("group"),
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
    return _rows([band, points], data_, frame=frame, keys=keys, title=title)


#: The poolings whose rows are one part of the data (a fold, a repeat), keyed by its column.
_PER_PART = ("fold", "repeat")


def _measure_name(measure: str, frame: pl.DataFrame) -> str:
    """The name a measure has in the frames aggframe writes: an alias (``iou``) by its measure's name."""
    if "measure" not in frame.columns or measure in frame.get_column("measure").to_list():
        return measure
    try:
        return get_measure(measure).name
    except AggframeError:
        return measure  # not a measure's name: the frame's own check names what it has


def _fold_columns(df: pl.DataFrame, keys: Sequence[str]) -> list[str]:
    """Key columns set only on the per-fold (and per-repeat) rows: the fold and repeat columns."""
    fold_rows = df.filter(pl.col("pooling").is_in(_PER_PART))
    other = df.filter(~pl.col("pooling").is_in(_PER_PART))
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
        the per-fold (and per-repeat) ones. The other keys are groups (one panel each). The
        rows of the ``repeat*`` poolings are not drawn.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Per measure x operator: a grey tick per fold, a grey line over the fold range (min to
        max), a bar of one standard deviation around the average, and the pooled and averaged
        values as marks.

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
    >>> import polars as pl
    >>> frame = pl.DataFrame(
    ...     {"y_true": [0, 1, 2, 2, 1, 0, 1, 2], "y_pred": [0, 2, 2, 1, 1, 1, 1, 2], "fold": [0, 0, 0, 0, 1, 1, 1, 1]}
    ... )
    >>> pr = af.from_labels(frame, fold="fold")
    >>> report = pr.evaluate("f1", ["micro", "macro"], pooling=["pooled", "averaged", "fold"])
    >>> type(af.plot.folds(report)).__name__
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
        _label(df, groups).alias("group"),
        _spec_label(df).alias("spec"),
        pl.col("pooling").cast(pl.String),
        _finite("value"),
        (label_of(df, fold_cols) if fold_cols else pl.lit(None, pl.String)).alias("fold"),
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
    return _rows(layers, data_, frame=frame, keys=groups, title=title)
