"""The page of the HTML report: its sections in order, the charts rendered as asked, and the
document around them.

A chart is either inline SVG rendered by vl-convert (``"svg"``; the ids in each SVG prefixed
so that charts never share one) or a Vega-Lite spec drawn in the browser by the Vega
JavaScript vl-convert ships, inlined once (``"vega"``). Tables come from
:mod:`aggframe.interop.html_tables`.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any, Literal

import polars as pl

from aggframe.interop.html_tables import gt_table

__all__ = ["ChartMode"]

ChartMode = Literal["svg", "vega"]

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
        spec = _spec(chart)
        spec.pop("$schema", None)  # a URL the renderer never fetches, left out all the same
        name = f"chart-{self.n_charts}"
        if self.mode == "svg":
            svg = _unique_ids(self.vlc.vegalite_to_svg(spec), name)
            self.add(f'<div class="chart" id="{name}">{svg}</div>')
        else:
            # every <, > and & as a JSON escape: no text of the spec (a group named
            # "<!--<script>") can end or re-open the script element around it
            payload = (
                json.dumps(spec, allow_nan=False)
                .replace("<", "\\u003c")
                .replace(">", "\\u003e")
                .replace("&", "\\u0026")
            )
            self.add(
                f'<div class="chart" id="{name}" data-spec="{name}-spec"></div>'
                f'<script type="application/json" id="{name}-spec">{payload}</script>'
            )

    def table(
        self, df: pl.DataFrame, *, title: str | None = None, group: str | None = None, intervals: bool = False
    ) -> None:
        """A great_tables table; with ``intervals``, each ``<name> value`` column shows
        ``value [<name> ci_low, <name> ci_high]`` under the title ``<name>``."""
        self.n_tables += 1
        self.add(
            gt_table(
                self.gt, df, table_id=f"table-{self.n_tables}", title=title, group=group, intervals=intervals
            )
        )

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


def _spec(chart: Any) -> dict[str, Any]:
    """The Vega-Lite spec of a chart, its inline rows set in as they are.

    The charts' functions are checked against the schema in their tests; here neither the
    validator nor Altair's conversion walks the rows (thousands of points: most of a report's time
    before). The chart's own data is put back.
    """
    data: Any = getattr(chart, "data", None)
    values = getattr(data, "values", None)
    if not isinstance(values, list):
        return dict(chart.to_dict(validate=False))
    chart.data = type(data)(name="rows")
    try:
        spec = dict(chart.to_dict(validate=False))
    finally:
        chart.data = data
    spec["data"] = {"values": values}
    return spec


#: An SVG tag, its quoted attribute values included (a value may hold ``>``).
_TAG = re.compile(r"""<(?:[^>"']|"[^"]*"|'[^']*')*>""")


def _unique_ids(svg: str, prefix: str) -> str:
    """Prefix the ids of an inline SVG (clip paths, gradients) so charts on one page never share one.

    Only inside tags: the text of the chart (titles, labels: the user's names and
    values, which may read ``id="x"``) is left as it is.
    """
    ids = {i for tag in _TAG.findall(svg) for i in re.findall(r'\bid="([^"]+)"', tag)}
    if not ids:
        return svg
    # one pass over the references of each tag, longest ids first (one id may start another)
    names = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    reference = re.compile(rf'(\bid="|url\(#|href="#)({names})(?=[")])')

    def renamed(tag: re.Match[str]) -> str:
        return reference.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", tag.group(0))

    return _TAG.sub(renamed, svg)
