"""A self-contained HTML report: tables (great_tables), charts (Altair), diagnostics, the
conventions used, the data's shape and the aggframe version, in one file that opens offline.

Nothing in the file points at the network: the charts are either inline SVG rendered here by
vl-convert (``charts="svg"``, the default: small, static, printable, readable where scripts are
blocked) or Vega-Lite specs drawn in the browser by the Vega, Vega-Lite and vega-embed
JavaScript that vl-convert ships, inlined once in the file (``charts="vega"``: about 0.9 MB
more, with tooltips). The tables are great_tables' HTML, whose styles are inline.

:func:`html_report` evaluates and writes a report from a ``Predictions``;
:func:`write_html_report` writes one for a result already evaluated (what the CLI calls). This
module builds the page, section by section; the page itself and its charts are in
:mod:`aggframe.interop.html_page`, the great_tables tables in :mod:`aggframe.interop.html_tables`,
and the glossary, the data's shape, the interval note and the score charts in
:mod:`aggframe.interop.html_sections`.
"""

from __future__ import annotations

import datetime as _dt
import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import polars.selectors as cs

from aggframe._columns import PREFIX, free_name
from aggframe._progress import tracked
from aggframe._version import package_version
from aggframe.exceptions import AggframeError, OptionError
from aggframe.interop.charts.frames import _altair, _displayable, _keys, _label
from aggframe.interop.charts.time import time_charts
from aggframe.interop.html_page import ChartMode, _Page
from aggframe.interop.html_sections import (
    _CONVENTIONS,
    _MAX_GROUP_PANELS,
    _OPERATORS,
    _POOLINGS,
    _definitions,
    _has_scores,
    _interval_note,
    _one,
    _score_charts,
    _shape,
    _values,
)
from aggframe.interop.html_slices import slices_section
from aggframe.interop.layout import GROUPING_MARKS, SPEC_COLUMNS, key_labels, wide
from aggframe.interop.plots import plot_classes, plot_conventions, plot_folds, plot_groups, plot_heatmap
from aggframe.measures.registry import is_score_measure

__all__ = ["ChartMode", "html_report", "write_html_report"]

_INSTALL = "pip install 'aggframe[plot]'"
_MAX_HEATMAPS = 4
_MAX_CLASS_CHARTS = 3


def _deps() -> tuple[Any, Any]:
    """Import vl-convert and great_tables, or say how to install them."""
    _altair()
    try:
        import great_tables
        import vl_convert
    except ImportError as exc:
        msg = f"aggframe's HTML report needs great_tables and vl-convert: {_INSTALL}"
        raise ImportError(msg) from exc
    return vl_convert, great_tables


def _version() -> str:
    return package_version()


# ---------------------------------------------------------------------------
# The report


def _grouped(
    frame: pl.DataFrame, keys: Sequence[str], rest: Sequence[str], values: Sequence[str] = ("value",)
) -> tuple[pl.DataFrame, str]:
    """:func:`wide` of a tidy frame, its group keys shown as one label column; the frame and that column.

    The label (:func:`~aggframe.interop.layout.label_of`: a null key ``(null)``, a rolled-up one
    ``(all)``, two groups never alike) is made before ``wide`` and stands for the keys there, so
    a key named like a wide column (``micro``, ``f1``) is a key as any other.
    """
    label = free_name(f"{PREFIX}group", frame.columns)
    # the keys by name, literally ("*" is a key like any other)
    gone = [k for k in frame.columns if k in keys or k in GROUPING_MARKS]
    labelled = frame.with_columns(_label(frame, keys).alias(label)).drop(cs.by_name(*gone))
    return wide(labelled, by=[label, *rest], values=list(values)), label


@dataclass(frozen=True)
class _Summary:
    """What the sections of a report page read of the report: its keys and the names in it."""

    report: pl.DataFrame
    #: the by-columns asked for
    groups: list[str]
    #: the group keys and any fold/repeat/target keys (a rolled-up key reads (all): label_of)
    keys: list[str]
    measures: list[str]
    operators: list[str]
    conventions: list[str]
    poolings: list[str]
    convention: str | None
    pooling: str | None

    @property
    def cell_measures(self) -> list[str]:
        """The cell measures: per-class values and diagnostics are theirs (a measure on scores such as
        auroc has its own section; with it here, both failed for every measure)."""
        return [m for m in self.measures if m and not is_score_measure(m)]

    @property
    def plain(self) -> pl.DataFrame:
        """The report at its one convention and pooling (what most charts draw)."""
        one = self.report
        one = one.filter(pl.col("convention") == self.convention) if self.convention is not None else one
        return one.filter(pl.col("pooling") == self.pooling) if self.pooling is not None else one


def _check_build(charts: Any, title: Any) -> None:
    if charts not in ("svg", "vega"):
        msg = f"charts= must be 'svg' or 'vega', got {charts!r}"
        raise OptionError(msg)
    if not isinstance(title, str):
        msg = f"title= takes a string, got {type(title).__name__} {title!r}"
        raise OptionError(msg)


def _summary(report: pl.DataFrame, by: str | Sequence[str] | None) -> _Summary:
    report = _displayable(report)
    return _Summary(
        report=report,
        groups=[by] if isinstance(by, str) else list(by or []),
        keys=_keys(report, None, SPEC_COLUMNS),
        measures=[str(m) for m in _values(report, "measure")],
        operators=[str(o) for o in _values(report, "operator")],
        conventions=[str(c) for c in _values(report, "convention")],
        poolings=[str(p) for p in _values(report, "pooling")],
        convention=_one(report, "convention", "exclude"),
        pooling=_one(report, "pooling", "pooled"),
    )


def _header(page: _Page, title: str, command: str | None) -> None:
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    page.add(f"<h1>{html.escape(title)}</h1>")
    meta = f"aggframe {html.escape(_version())} · generated {now}"
    if command:
        meta += f" · <code>{html.escape(command)}</code>"
    page.add(f'<p class="meta">{meta}</p>')


def _data_section(page: _Page, pr: Any, summary: _Summary, per_class: pl.DataFrame | None) -> None:
    """The form, task and keys of the data, and its examples and classes per group."""
    groups = summary.groups
    page.heading("Data")
    facts = {
        "form": pr.form,
        "task": f"{pr.extend.kind_by(groups)} (inferred from the data)"
        if pr.extend.kind_inferred
        else pr.extend.kind_by(groups),
        "soft labels": "yes (a t-norm)" if pr.source.soft else None,
        "fold column": pr.source.fold,
        "repeat column": pr.source.repeat,
        "target column": pr.source.target,
        "grouped by": ", ".join(groups) if groups else "(no groups)",
        "result rows": str(summary.report.height),
    }
    items = "".join(
        f"<dt>{html.escape(k)}</dt><dd>{html.escape(str(v))}</dd>" for k, v in facts.items() if v is not None
    )
    page.add(f'<dl class="defs">{items}</dl>')
    shape = _shape(pr, groups, per_class)
    if shape is not None:
        shape = shape.with_columns(key_labels(shape, groups))
        page.table(shape, title="Examples and classes per group" if groups else "Examples and classes")


def _conventions_section(page: _Page, summary: _Summary, seed: int | None) -> bool:
    """The operators, conventions and poolings of the report defined; whether it has intervals."""
    page.heading("Conventions")
    page.add("<p>Operators (how per-class or per-example values are averaged):</p>")
    _definitions(page, _OPERATORS, summary.operators, "an operator")
    if summary.conventions:
        page.add("<p>Conventions for undefined entries (a zero denominator):</p>")
        _definitions(page, _CONVENTIONS, summary.conventions, "a convention")
    if summary.poolings:
        page.add("<p>Cross-validation folds:</p>")
        _definitions(page, _POOLINGS, summary.poolings, "a pooling")
    report = summary.report
    intervals = "ci_low" in report.columns and "ci_high" in report.columns
    if intervals:
        page.add(f"<p>{html.escape(_interval_note(report, seed))}</p>")
    return intervals


def _results_section(page: _Page, summary: _Summary, *, intervals: bool) -> None:
    page.heading("Results")
    report, keys = summary.report, summary.keys
    values = ["value", "ci_low", "ci_high"] if intervals else ["value"]
    shown = " (value [interval])" if intervals else ""
    if keys:
        results, label = _grouped(report, keys, ["measure"], values)
        page.table(results, group=label, title=" · ".join(keys) + shown, intervals=intervals)
    else:
        page.table(
            wide(report, by=["measure"], values=values), title=shown.strip() or None, intervals=intervals
        )


def _report_charts(page: _Page, summary: _Summary) -> int:
    """The charts of the report itself (groups, time, heatmaps, conventions, folds); how many."""
    keys, plain, operators = summary.keys, summary.plain, summary.operators
    n_groups = plain.select(_label(plain, keys).n_unique()).item() if keys else 1
    drawn = 0
    if keys and n_groups > 1:
        page.chart(plot_groups(plain))
        drawn += 1
    drawn += time_charts(page, plain)  # windows over time: a measure per window (charts/time.py)
    heat_keys = [k for k in keys if plain.get_column(k).n_unique() > 1]
    if len(heat_keys) == 2 and summary.measures and operators:
        op = next((o for o in ("macro", "micro", "weighted", "exemplar") if o in operators), operators[0])
        for m in summary.measures[:_MAX_HEATMAPS]:
            page.chart(plot_heatmap(plain, x=heat_keys[1], y=heat_keys[0], measure=m, operator=op))
            drawn += 1
    report, pooling = summary.report, summary.pooling
    if len([c for c in summary.conventions if c != "nan"]) > 1:
        conv = report.filter(pl.col("pooling") == pooling) if pooling is not None else report
        moved = "n_undefined" not in conv.columns or conv.get_column("n_undefined").fill_null(0).max() != 0
        if moved:
            page.chart(plot_conventions(conv))
            drawn += 1
        else:
            page.note("No entry is undefined: every convention gives the same values.")
    if len(summary.poolings) > 1:
        convention = summary.convention
        page.chart(
            plot_folds(
                report.filter(pl.col("convention") == convention) if convention is not None else report
            )
        )
        drawn += 1
    return drawn


def _class_charts(page: _Page, summary: _Summary, per_class: pl.DataFrame | None, max_classes: int) -> int:
    """The per-class charts (or a note on why they are left out); how many."""
    if per_class is None:
        return 0
    # fold, repeat and target columns come before "class" too: one panel each, no reference lines
    pc_keys = _keys(per_class, None, ["class"])
    n_classes = per_class.get_column("class").n_unique()
    n_panels = per_class.select(_label(per_class, pc_keys).n_unique()).item() if pc_keys else 1
    if n_classes > max_classes or n_panels > _MAX_GROUP_PANELS:
        # above max_classes the per-class table is left out too: then only pr.per_class() has them
        where = "pr.per_class()" if n_classes > max_classes else "the table below or pr.per_class()"
        page.note(
            f"Per-class charts left out: {n_classes} classes in {n_panels} panel(s) (drawn up to "
            f"{max_classes} classes and {_MAX_GROUP_PANELS} panels); the values are in {where}."
        )
        return 0
    reference = summary.plain if pc_keys == summary.groups else None
    names = summary.cell_measures[:_MAX_CLASS_CHARTS]
    for m in names:
        page.chart(plot_classes(per_class, m, by=pc_keys, reference=reference))
    return len(names)


def _per_class_section(
    page: _Page, per_class: pl.DataFrame | None, error: str | None, max_classes: int
) -> None:
    page.heading("Per class")
    if per_class is None:
        page.note(f"Per-class values are not available: {error}")
    elif per_class.get_column("class").n_unique() > max_classes:
        page.note(
            f"{per_class.get_column('class').n_unique()} classes: the per-class table is left out "
            f"(shown up to max_classes={max_classes})."
        )
    else:
        pc_keys = _keys(per_class, None, ["class"])
        support = ["support"] if "support" in per_class.columns else []
        if pc_keys:
            table, label = _grouped(per_class, pc_keys, ["class", *support])
            page.table(table, group=label, title=" · ".join(pc_keys))
        else:
            page.table(wide(per_class, by=["class", *support]))


def _diagnostics_section(page: _Page, pr: Any, summary: _Summary) -> None:
    page.heading("Diagnostics")
    groups = summary.groups
    try:
        from aggframe.analysis.diagnostics import diagnose

        found = diagnose(pr, summary.cell_measures, by=groups or None)
    except AggframeError as exc:
        page.note(f"Diagnostics are not available: {str(exc).splitlines()[0]}")
        return
    if found.height == 0:
        page.add("<p>No findings.</p>")
    else:
        # a finding stated for every group (scope "all") has null keys: they read (all)
        everywhere = pl.col("scope") == "all" if "scope" in found.columns else None
        page.table(found.with_columns(key_labels(found, groups, rolled_up=everywhere)))


def _build(  # noqa: PLR0913 -- the report's options
    pr: Any,
    report: pl.DataFrame,
    *,
    by: str | Sequence[str] | None,
    title: str,
    charts: ChartMode,
    max_classes: int,
    command: str | None,
    seed: int | None = None,
    slices: pl.DataFrame | None = None,
) -> str:
    _check_build(charts, title)
    vlc, gt = _deps()
    page = _Page(charts, vlc, gt)
    summary = _summary(report, by)
    _header(page, title, command)
    # per-class values: for the shape, the per-class table and charts
    per_class: pl.DataFrame | None = None
    per_class_error = None
    try:
        per_class = pr.per_class(summary.cell_measures, by=summary.groups or None)
    except AggframeError as exc:
        per_class_error = str(exc).splitlines()[0]
    _data_section(page, pr, summary, per_class)
    per_class = _displayable(per_class) if per_class is not None else None  # its keys as labels from here
    intervals = _conventions_section(page, summary, seed)
    _results_section(page, summary, intervals=intervals)
    page.heading("Charts")
    drawn = _report_charts(page, summary) + _class_charts(page, summary, per_class, max_classes)
    if not drawn:
        page.note("No chart for this report.")
    # score charts: ROC and precision-recall curves, reliability diagrams (predictions from scores)
    if _has_scores(pr):
        page.heading("Scores")
        _score_charts(page, pr, summary.groups)
    _per_class_section(page, per_class, per_class_error, max_classes)
    _diagnostics_section(page, pr, summary)
    if slices is not None:  # a result of af.slices: its section is built in html_slices.py
        slices_section(page, slices)
    page.add(
        f"<footer>Written by aggframe {html.escape(_version())}. This file is self-contained: it loads "
        "nothing from the network.</footer>"
    )
    return page.html(title)


def write_html_report(  # noqa: PLR0913 -- the user's options, keyword-only
    path: str | Path,
    pr: Any,
    report: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    title: str | None = None,
    charts: ChartMode = "svg",
    max_classes: int = 40,
    command: str | None = None,
    seed: int | None = None,
    slices: pl.DataFrame | None = None,
) -> Path:
    """Write the HTML report of a result already evaluated (what ``aggframe report --html`` calls).

    A result evaluated with ``n_boot=`` (columns ``ci_low``, ``ci_high``) is shown with its
    intervals: ``value [low, high]`` in the tables, error bars and bands in the charts.

    Parameters
    ----------
    path
        The file to write.
    pr
        The ``Predictions`` the report was evaluated from (for the per-class values, the
        diagnostics and the data's shape).
    report
        The tidy result of ``pr.evaluate(...)``.
    by
        The group columns the report was evaluated with.
    title
        The page title (default ``"aggframe report"``).
    charts
        ``"svg"``: charts as inline SVG; ``"vega"``: drawn in the browser by the Vega JavaScript
        inlined in the file.
    max_classes
        Per-class tables and charts are left out above this many classes. The per-class
        charts are also left out above 12 group panels (the table stays), as are the
        score charts above 12 panels or 12 lines; a note says which and where the values are.
    command
        The command line, shown under the title.
    seed
        The bootstrap seed the report was evaluated with, shown with the intervals.
    slices
        A result of :func:`aggframe.slices`, shown in a section of its own (chart and table).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ImportError
        The ``plot`` extra is not installed.
    ColumnNotFoundError
        ``report`` is not a tidy aggframe result.
    """
    text = _build(
        pr,
        report,
        by=by,
        title=title or "aggframe report",
        charts=charts,
        max_classes=max_classes,
        command=command,
        seed=seed,
        slices=slices,
    )
    out = Path(path)
    out.write_text(text, encoding="utf-8")
    return out


@tracked("html_report")
def html_report(  # noqa: PLR0913 -- the user's options, keyword-only
    pr: Any,
    measures: str | Sequence[str] | None = None,
    operators: str | Sequence[str] | None = None,
    *,
    by: str | Sequence[str] | None = None,
    convention: str | Sequence[str] = "exclude",
    pooling: str | Sequence[str] | None = None,
    path: str | Path | None = None,
    title: str | None = None,
    charts: ChartMode = "svg",
    max_classes: int = 40,
    n_boot: int | None = None,
    level: float = 0.95,
    seed: int = 0,
    cluster: str | None = None,
) -> str:
    """Evaluate ``pr`` and return (and, with ``path``, write) a self-contained HTML report.

    The page holds the results as a table (one row per group and measure, one column per
    operator), charts (per group, a heat map over two group columns, the convention band, the
    folds, per class), the per-class values, the diagnostics, the conventions used, the data's
    shape and the aggframe version. It loads nothing from the network.

    With ``n_boot=B`` the values get bootstrap intervals (as ``evaluate(..., n_boot=B)``): the
    tables show ``value [low, high]``, the per-group chart error bars, the heat map each
    interval under its value, and the per-class charts a band around each average.

    Parameters
    ----------
    pr
        A ``Predictions``.
    measures, operators, by, convention, pooling
        As in ``Predictions.evaluate``.
    path
        Also write the page to this file.
    title
        The page title (default ``"aggframe report"``).
    charts
        ``"svg"`` (inline SVG, no script) or ``"vega"`` (Vega JavaScript inlined, tooltips).
    max_classes
        Per-class tables and charts are left out above this many classes. The per-class
        charts are also left out above 12 group panels (the table stays), as are the
        score charts above 12 panels or 12 lines; a note says which and where the values are.
    n_boot, level, seed, cluster
        Bootstrap intervals, as in ``Predictions.evaluate`` (default: none).

    Returns
    -------
    str
        The HTML document.

    Raises
    ------
    ImportError
        The ``plot`` extra (altair, vl-convert, great-tables) is not installed.
    StoreError
        ``path`` is one of the inputs.
    OSError
        The file cannot be written (its directory does not exist, no permission).
    OptionError
        An option :meth:`~aggframe.Predictions.evaluate` refuses.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    >>> page = af.html_report(pr, ["f1", "precision"], ["micro", "macro"])
    >>> page.startswith("<!DOCTYPE html>"), "https://" in page
    (True, False)

    With bootstrap intervals:

    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0] * 20, [0, 2, 2, 1, 1, 1] * 20)
    >>> page = af.html_report(pr, "f1", ["micro", "macro"], n_boot=50, seed=1)
    >>> "95% percentile intervals over 50 bootstrap replicates" in page
    True
    """
    kwargs: dict[str, Any] = {"by": by, "convention": convention}
    if pooling is not None:
        kwargs["pooling"] = pooling
    if n_boot is not None:
        kwargs.update(n_boot=n_boot, level=level, seed=seed, cluster=cluster)
    report = pr.evaluate(measures, operators, **kwargs)
    text = _build(
        pr,
        report,
        by=by,
        title=title or "aggframe report",
        charts=charts,
        max_classes=max_classes,
        command=None,
        seed=seed if n_boot is not None else None,
    )
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text
