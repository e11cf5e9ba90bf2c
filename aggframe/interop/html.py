"""A self-contained HTML report: tables (great_tables), charts (Altair), diagnostics, the
conventions used, the data's shape and the aggframe version, in one file that opens offline.

Nothing in the file points at the network: the charts are either inline SVG rendered here by
vl-convert (``charts="svg"``, the default: small, static, printable, readable where scripts are
blocked) or Vega-Lite specs drawn in the browser by the Vega, Vega-Lite and vega-embed
JavaScript that vl-convert ships, inlined once in the file (``charts="vega"``: about 0.9 MB
more, with tooltips). The tables are great_tables' HTML, whose styles are inline.

:func:`html_report` evaluates and writes a report from a ``Predictions``;
:func:`write_html_report` writes one for a result already evaluated (what the CLI calls).
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, cast

import polars as pl

from aggframe.exceptions import AggframeError, OptionError
from aggframe.intake.source import package_version
from aggframe.interop.layout import SPEC_COLUMNS, wide
from aggframe.interop.plots import (
    _altair,
    _keys,
    _label,
    _text,
    plot_calibration,
    plot_classes,
    plot_conventions,
    plot_curve,
    plot_folds,
    plot_groups,
    plot_heatmap,
)

__all__ = ["ChartMode", "html_report", "write_html_report"]

ChartMode = Literal["svg", "vega"]
_INSTALL = "pip install 'aggframe[plot]'"
_MAX_GROUP_PANELS = 12
_MAX_HEATMAPS = 4
_MAX_CLASS_CHARTS = 3
_MAX_SCORE_LINES = 12
#: where the group keys of a curve or reliability frame end
_SCORE_STOP = ("operator", "class", "threshold", "fpr", "tpr", "precision", "recall", "bin", "mean_score")
_COUNTS = frozenset({"support", "examples", "tp", "fp", "fn", "tn"})  # float counts, shown whole

_CONVENTIONS = {
    "exclude": "undefined entries (a zero denominator) are left out of the average; NaN if none is defined",
    "zero": "undefined entries count as 0",
    "one": "undefined entries count as 1",
    "nan": "the result is NaN as soon as one entry is undefined",
}
_OPERATORS = {
    "micro": "pool the confusion cells of every class, then compute the measure once",
    "macro": "compute the measure per class, then take the plain mean",
    "weighted": "compute the measure per class, then take the mean weighted by class support",
    "exemplar": "compute the measure per example, then take the mean",
    "binary": "the positive class only",
    "total": "the total cost",
}
_POOLINGS = {
    "pooled": "the union of the folds, evaluated once (exact cell sums)",
    "averaged": "each fold evaluated, then the mean weighted by fold size",
    "fold": "the value of each fold",
    "min": "the lowest fold value",
    "max": "the highest fold value",
    "std": "the spread of the fold values (a lower bound on the uncertainty, folds share training data)",
    "repeat_pooled": "the folds of each repeat pooled, then the mean over the repeats",
    "repeat": "the value of each repeat (its folds pooled)",
    "repeat_min": "the lowest repeat value",
    "repeat_max": "the highest repeat value",
    "repeat_std": "the spread of the repeat values (the partitioning's variation, not the data's)",
}

_CSS = """
body { font-family: -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif;
       margin: 2rem auto; max-width: 1200px; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
.meta { color: #666; font-size: 0.9rem; }
.chart { margin: 1rem 0; padding-right: 4rem; overflow-x: auto; }
.chart svg { overflow: visible; }
.note { color: #555; font-style: italic; }
dl.defs dt { font-weight: 600; float: left; clear: left; width: 7rem; }
dl.defs dd { margin-left: 7.5rem; margin-bottom: 0.3rem; }
footer { margin-top: 3rem; color: #777; font-size: 0.85rem; }
"""

_EMBED = """
for (const node of document.querySelectorAll("div.chart[data-spec]")) {
  const spec = JSON.parse(document.getElementById(node.dataset.spec).textContent);
  vegaEmbed(node, spec, {actions: false, renderer: "svg"}).catch((err) => {
    node.textContent = "chart failed: " + err;
    console.error(err);
  });
}
"""


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
# Pieces


class _Page:
    """The sections of one page, the charts rendered as asked."""

    def __init__(self, mode: ChartMode, vlc: Any, gt: Any) -> None:
        self.mode = mode
        self.vlc = vlc
        self.gt = gt
        self.parts: list[str] = []
        self.n_charts = 0
        self.n_tables = 0

    def add(self, text: str) -> None:
        self.parts.append(text)

    def heading(self, text: str) -> None:
        self.add(f"<h2>{html.escape(text)}</h2>")

    def note(self, text: str) -> None:
        self.add(f'<p class="note">{html.escape(text)}</p>')

    def chart(self, chart: Any) -> None:
        self.n_charts += 1
        spec = chart.to_dict()
        spec.pop("$schema", None)  # a URL the renderer never fetches, left out all the same
        name = f"chart-{self.n_charts}"
        if self.mode == "svg":
            svg = _unique_ids(self.vlc.vegalite_to_svg(spec), name)
            self.add(f'<div class="chart" id="{name}">{svg}</div>')
        else:
            payload = json.dumps(spec, allow_nan=False).replace("</", "<\\/")
            self.add(
                f'<div class="chart" id="{name}" data-spec="{name}-spec"></div>'
                f'<script type="application/json" id="{name}-spec">{payload}</script>'
            )

    def table(self, df: pl.DataFrame, *, title: str | None = None, group: str | None = None) -> None:
        self.n_tables += 1
        counts = [c for c, t in df.schema.items() if t.is_float() and c in _COUNTS]
        values = [c for c, t in df.schema.items() if t.is_float() and c != group and c not in _COUNTS]
        shown = df.with_columns(
            pl.when(pl.col(c).is_nan()).then(None).otherwise(pl.col(c)).alias(c) for c in values
        )
        shown = shown.with_columns(
            _text(c).alias(c)
            for c, t in shown.schema.items()
            if c not in values and c not in counts and t != pl.String
        ).with_columns(pl.col(c).fill_null("null") for c, t in shown.schema.items() if t == pl.String)
        table = self.gt.GT(shown, groupname_col=group, id=f"table-{self.n_tables}")
        if values:
            table = table.fmt_number(columns=values, decimals=4).sub_missing(
                columns=values, missing_text="undefined"
            )
        if counts:
            table = table.fmt_number(columns=counts, decimals=0)
        if title:
            table = table.tab_header(title=title)
        self.add(table.as_raw_html())

    def html(self, title: str) -> str:
        script = ""
        if self.mode == "vega" and self.n_charts:
            bundle = self.vlc.javascript_bundle().replace("</script", "<\\/script")
            script = f"<script>{bundle}</script>\n<script>{_EMBED}</script>"
        body = "\n".join(self.parts)
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            f"{body}\n{script}\n</body>\n</html>\n"
        )


def _unique_ids(svg: str, prefix: str) -> str:
    """Prefix the ids of an inline SVG (clip paths, gradients) so charts on one page never share one."""
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    for old in sorted(ids, key=len, reverse=True):
        new = f"{prefix}-{old}"
        svg = svg.replace(f'id="{old}"', f'id="{new}"').replace(f"url(#{old})", f"url(#{new})")
        svg = svg.replace(f'href="#{old}"', f'href="#{new}"')
    return svg


def _definitions(page: _Page, terms: dict[str, str], used: Sequence[str], what: str) -> None:
    rows = [f"<dt>{html.escape(str(u))}</dt><dd>{html.escape(terms.get(str(u), what))}</dd>" for u in used]
    page.add(f'<dl class="defs">{"".join(rows)}</dl>')


def _values(df: pl.DataFrame, column: str) -> list[Any]:
    if column not in df.columns:
        return []
    return [v for v in df.get_column(column).unique(maintain_order=True).to_list() if v is not None]


def _shape(pr: Any, keys: list[str], per_class: pl.DataFrame | None) -> pl.DataFrame | None:
    """Examples (and classes) per group, from the public cell tables."""
    try:
        profiles = pr.cells("profiles", by=keys or None)
    except (AggframeError, AttributeError, TypeError):
        return None
    if "n" not in profiles.columns:
        return None
    shape = (
        profiles.group_by(keys, maintain_order=True).agg(pl.col("n").sum().alias("examples"))
        if keys
        else profiles.select(pl.col("n").sum().alias("examples"))
    )
    if per_class is not None and "class" in per_class.columns and all(k in per_class.columns for k in keys):
        classes = (
            per_class.group_by(keys, maintain_order=True).agg(pl.col("class").n_unique().alias("classes"))
            if keys
            else per_class.select(pl.col("class").n_unique().alias("classes"))
        )
        shape = (
            shape.join(classes, on=keys, how="left", nulls_equal=True)
            if keys
            else pl.concat([shape, classes], how="horizontal")
        )
    return cast(
        "pl.DataFrame | None", shape.sort(keys, nulls_last=True, maintain_order=True) if keys else shape
    )


def _one(df: pl.DataFrame, column: str, prefer: str) -> str | None:
    values = _values(df, column)
    if not values:
        return None
    return prefer if prefer in values else str(values[0])


def _has_scores(pr: Any) -> bool:
    """Predictions made from scores (``from_scores``): their curves and calibration mean something."""
    derived = getattr(getattr(pr, "source", None), "derived_from", None) or {}
    return "score" in derived.values()


def _score_charts(page: _Page, pr: Any, groups: list[str]) -> None:
    """ROC and precision-recall curves and the reliability diagram, where ``pr`` can give them.

    Calls ``pr.curve(kind, by=...)`` (``kind`` ``"roc"`` or ``"pr"``) and
    ``pr.calibration(by=...)``; a build without them, or an error, leaves a note.
    """
    by = groups or None
    calls = [
        ("ROC curves", "curve", ("roc",), plot_curve),
        ("Precision-recall curves", "curve", ("pr",), plot_curve),
        ("Reliability diagram", "calibration", (), plot_calibration),
    ]
    for what, method, args, draw in calls:
        call = getattr(pr, method, None)
        if not callable(call):
            page.note(f"{what}: not available in this version of aggframe.")
            continue
        try:
            frame = call(*args, by=by)
            if isinstance(frame, pl.LazyFrame):
                frame = frame.collect()
            if not isinstance(frame, pl.DataFrame):
                continue
        except (AggframeError, TypeError, NotImplementedError) as exc:
            page.note(
                f"{what} are not available: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            )
            continue
        lines = frame.select(
            _label([c for c in ("class", "operator") if c in frame.columns]).n_unique()
        ).item()
        panels = frame.select(_label(_keys(frame, by, _SCORE_STOP)).n_unique()).item() if frame.height else 0
        if lines > _MAX_SCORE_LINES or panels > _MAX_GROUP_PANELS:
            page.note(
                f"{what} left out: {lines} lines in {panels} panel(s) (drawn up to {_MAX_SCORE_LINES} lines "
                f"and {_MAX_GROUP_PANELS} panels)."
            )
            continue
        if frame.height:
            page.chart(draw(frame, by=by))


# ---------------------------------------------------------------------------
# The report


def _build(
    pr: Any,
    report: pl.DataFrame,
    *,
    by: str | Sequence[str] | None,
    title: str,
    charts: ChartMode,
    max_classes: int,
    command: str | None,
) -> str:
    if charts not in ("svg", "vega"):
        msg = f"charts= must be 'svg' or 'vega', got {charts!r}"
        raise OptionError(msg)
    vlc, gt = _deps()
    page = _Page(charts, vlc, gt)
    groups = [by] if isinstance(by, str) else list(by or [])
    keys = _keys(report, None, SPEC_COLUMNS)  # the group keys and any fold/repeat/target keys
    measures = [str(m) for m in _values(report, "measure")]
    operators = [str(o) for o in _values(report, "operator")]
    conventions = [str(c) for c in _values(report, "convention")]
    poolings = [str(p) for p in _values(report, "pooling")]
    convention = _one(report, "convention", "exclude")
    pooling = _one(report, "pooling", "pooled")
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")

    page.add(f"<h1>{html.escape(title)}</h1>")
    meta = f"aggframe {html.escape(_version())} · generated {now}"
    if command:
        meta += f" · <code>{html.escape(command)}</code>"
    page.add(f'<p class="meta">{meta}</p>')

    # per-class values: for the shape, the per-class table and charts
    per_class: pl.DataFrame | None = None
    per_class_error = None
    names = [m for m in measures if m]
    try:
        per_class = pr.per_class(names, by=groups or None)
    except AggframeError as exc:
        per_class_error = str(exc).splitlines()[0]

    # the data
    page.heading("Data")
    facts = {
        "form": pr.form,
        "task": f"{pr.kind} (inferred from the data)" if pr.kind_inferred else pr.kind,
        "soft labels": "yes (a t-norm)" if pr.source.soft else None,
        "fold column": pr.source.fold,
        "repeat column": pr.source.repeat,
        "target column": pr.source.target,
        "grouped by": ", ".join(groups) if groups else "(no groups)",
        "result rows": str(report.height),
    }
    items = "".join(
        f"<dt>{html.escape(k)}</dt><dd>{html.escape(str(v))}</dd>" for k, v in facts.items() if v is not None
    )
    page.add(f'<dl class="defs">{items}</dl>')
    shape = _shape(pr, groups, per_class)
    if shape is not None:
        page.table(shape, title="Examples and classes per group" if groups else "Examples and classes")

    # conventions
    page.heading("Conventions")
    page.add("<p>Operators (how per-class or per-example values are averaged):</p>")
    _definitions(page, _OPERATORS, operators, "an operator")
    if conventions:
        page.add("<p>Conventions for undefined entries (a zero denominator):</p>")
        _definitions(page, _CONVENTIONS, conventions, "a convention")
    if poolings:
        page.add("<p>Cross-validation folds:</p>")
        _definitions(page, _POOLINGS, poolings, "a pooling")

    # results
    page.heading("Results")
    group_label = "group"
    if keys:
        results = wide(report, by=[*keys, "measure"]).with_columns(_label(keys).alias(group_label)).drop(keys)
        page.table(results, group=group_label, title=" · ".join(keys))
    else:
        page.table(wide(report, by=["measure"]))

    # charts
    page.heading("Charts")
    one = report
    one = one.filter(pl.col("convention") == convention) if convention is not None else one
    plain = one.filter(pl.col("pooling") == pooling) if pooling is not None else one
    n_groups = plain.select(_label(keys).n_unique()).item() if keys else 1
    drawn = 0
    if keys and n_groups > 1:
        page.chart(plot_groups(plain))
        drawn += 1
    heat_keys = [k for k in keys if plain.get_column(k).n_unique() > 1]
    if len(heat_keys) == 2 and measures and operators:
        op = next((o for o in ("macro", "micro", "weighted", "exemplar") if o in operators), operators[0])
        for m in measures[:_MAX_HEATMAPS]:
            page.chart(plot_heatmap(plain, x=heat_keys[1], y=heat_keys[0], measure=m, operator=op))
            drawn += 1
    if len([c for c in conventions if c != "nan"]) > 1:
        conv = report.filter(pl.col("pooling") == pooling) if pooling is not None else report
        moved = "n_undefined" not in conv.columns or conv.get_column("n_undefined").fill_null(0).max() != 0
        if moved:
            page.chart(plot_conventions(conv))
            drawn += 1
        else:
            page.note("No entry is undefined: every convention gives the same values.")
    if len(poolings) > 1:
        page.chart(plot_folds(one))
        drawn += 1
    if per_class is not None:
        # fold, repeat and target columns come before "class" too: one panel each, no reference lines
        pc_keys = _keys(per_class, None, ["class"])
        n_classes = per_class.get_column("class").n_unique()
        n_panels = per_class.select(_label(pc_keys).n_unique()).item() if pc_keys else 1
        if n_classes > max_classes or n_panels > _MAX_GROUP_PANELS:
            page.note(
                f"Per-class charts left out: {n_classes} classes in {n_panels} panel(s) (drawn up to "
                f"{max_classes} classes and {_MAX_GROUP_PANELS} panels); the values are in the table below "
                "or pr.per_class()."
            )
        else:
            reference = plain if pc_keys == groups else None
            for m in measures[:_MAX_CLASS_CHARTS]:
                page.chart(plot_classes(per_class, m, by=pc_keys, reference=reference))
                drawn += 1
    if not drawn:
        page.note("No chart for this report.")

    # score charts: ROC and precision-recall curves, reliability diagrams (predictions from scores)
    if _has_scores(pr):
        page.heading("Scores")
        _score_charts(page, pr, groups)

    # per class
    page.heading("Per class")
    if per_class is None:
        page.note(f"Per-class values are not available: {per_class_error}")
    elif per_class.get_column("class").n_unique() > max_classes:
        page.note(
            f"{per_class.get_column('class').n_unique()} classes: the per-class table is left out "
            f"(shown up to max_classes={max_classes})."
        )
    else:
        pc_keys = _keys(per_class, None, ["class"])
        support = ["support"] if "support" in per_class.columns else []
        table = wide(per_class, by=[*pc_keys, "class", *support])
        if pc_keys:
            table = table.with_columns(_label(pc_keys).alias(group_label)).drop(pc_keys)
            page.table(table, group=group_label, title=" · ".join(pc_keys))
        else:
            page.table(table)

    # diagnostics
    page.heading("Diagnostics")
    try:
        from aggframe.analysis.diagnostics import diagnose

        found = diagnose(pr, names, by=groups or None)
    except AggframeError as exc:
        page.note(f"Diagnostics are not available: {str(exc).splitlines()[0]}")
    else:
        if found.height == 0:
            page.add("<p>No findings.</p>")
        else:
            page.table(found)

    page.add(
        f"<footer>Written by aggframe {html.escape(_version())}. This file is self-contained: it loads "
        "nothing from the network.</footer>"
    )
    return page.html(title)


def write_html_report(
    path: str | Path,
    pr: Any,
    report: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    title: str | None = None,
    charts: ChartMode = "svg",
    max_classes: int = 40,
    command: str | None = None,
) -> Path:
    """Write the HTML report of a result already evaluated (what ``aggframe report --html`` calls).

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
        Per-class tables and charts are left out above this many classes.
    command
        The command line, shown under the title.

    Returns
    -------
    Path
        The file written.
    """
    text = _build(
        pr,
        report,
        by=by,
        title=title or "aggframe report",
        charts=charts,
        max_classes=max_classes,
        command=command,
    )
    out = Path(path)
    out.write_text(text, encoding="utf-8")
    return out


def html_report(
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
) -> str:
    """Evaluate ``pr`` and return (and, with ``path``, write) a self-contained HTML report.

    The page holds the results as a table (one row per group and measure, one column per
    operator), charts (per group, a heat map over two group columns, the convention band, the
    folds, per class), the per-class values, the diagnostics, the conventions used, the data's
    shape and the aggframe version. It loads nothing from the network.

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
        Per-class tables and charts are left out above this many classes.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    >>> page = af.html_report(pr, ["f1", "precision"], ["micro", "macro"])
    >>> page.startswith("<!DOCTYPE html>"), "https://" in page
    (True, False)
    """
    kwargs: dict[str, Any] = {"by": by, "convention": convention}
    if pooling is not None:
        kwargs["pooling"] = pooling
    report = pr.evaluate(measures, operators, **kwargs)
    text = _build(
        pr,
        report,
        by=by,
        title=title or "aggframe report",
        charts=charts,
        max_classes=max_classes,
        command=None,
    )
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text
