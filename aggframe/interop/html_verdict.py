"""The verdict section of the HTML report: a check's outcome at the top of the page.

:func:`verdict_section` builds the section (the verdict, the count of each status and
the rows that did not pass); :func:`add_verdict` puts it under the report's title line.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from aggframe.decisions.checks import CheckResult

__all__ = ["add_verdict", "verdict_section"]

_COLOURS = {"fail": "#b3261e", "warn": "#8a5a00", "undefined": "#555", "skipped": "#555", "pass": "#1b6e20"}
#: rows shown in the section's table (the JSON and the failures file hold them all)
MAX_ROWS = 200


def verdict_section(result: CheckResult) -> str:
    """The HTML of the verdict: passed or failed, the status counts, the rows that did not pass.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 1, 0], [0, 1, 0, 0])
    >>> "FAILED" in verdict_section(af.check(pr, [{"measure": "recall", "operator": "macro", "min": 0.9}]))
    True
    """
    passed = result.passed
    colour = _COLOURS["pass" if passed else "fail"]
    counts = result.counts()
    shown = " · ".join(f"{n} {s}" for s, n in counts.items() if n)
    parts = [
        '<section id="verdict">',
        "<h2>Verdict</h2>",
        f'<p style="font-size:1.3em;font-weight:bold;color:{colour}">Check {"passed" if passed else "FAILED"}</p>',
        f"<p>{len(result.rules)} rule(s), {result.frame.height} (rule, group) row(s): {html.escape(shown)}</p>",
    ]
    order = {"fail": 0, "warn": 1, "undefined": 2, "skipped": 3}
    rows = (
        result.frame.filter(pl.col("status") != "pass")
        .with_columns(pl.col("status").replace_strict(order, default=9).alias("__af_order"))
        .sort("__af_order", "rule", maintain_order=True)
    )
    if rows.height:
        body = "".join(
            f'<tr><td style="color:{_COLOURS[r["status"]]};font-weight:bold">{html.escape(r["status"])}</td>'
            f"<td>{r['rule']}</td><td>{html.escape(r['name'])}</td><td>{html.escape(r['group_label'])}</td>"
            f"<td>{html.escape(r['message'])}</td></tr>"
            for r in rows.head(MAX_ROWS).iter_rows(named=True)
        )
        more = f"<p>… and {rows.height - MAX_ROWS} more.</p>" if rows.height > MAX_ROWS else ""
        parts.append(
            "<table><thead><tr><th>status</th><th>rule</th><th>name</th><th>group</th><th>message</th></tr>"
            f"</thead><tbody>{body}</tbody></table>{more}"
        )
    else:
        parts.append("<p>Every rule passed in every group.</p>")
    parts.append("</section>")
    return "".join(parts)


def add_verdict(page: str, result: CheckResult) -> str:
    """The report's HTML with the verdict section under its title line (or at the top of the body)."""
    section = verdict_section(result)
    meta = page.find('<p class="meta">')
    if meta >= 0:
        end = page.find("</p>", meta) + len("</p>")
        return page[:end] + section + page[end:]
    body = page.find("<body")
    at = page.find(">", body) + 1 if body >= 0 else 0
    return page[:at] + section + page[at:]


def write_verdict(path: str | Path, result: CheckResult) -> None:
    """Add the verdict section to the HTML report written at ``path``."""
    p = Path(path)
    p.write_text(add_verdict(p.read_text(encoding="utf-8"), result), encoding="utf-8")
