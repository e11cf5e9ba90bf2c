"""A check's verdicts as JUnit XML: each (rule, group) a test case, so that CI systems list failures.

One ``<testsuite>`` per rule, one ``<testcase>`` per group (its name the group,
its class name the rule); a ``fail`` row is a ``<failure>``, a ``skipped`` or
``undefined`` row a ``<skipped>`` (with the reason), a ``warn`` row passes with its
message in ``<system-out>``. The counts of ``<testsuites>`` add up the suites'.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aggframe.decisions.checks import CheckResult

__all__ = ["junit_xml", "write_junit"]


def junit_xml(result: CheckResult, *, suite: str = "aggframe check") -> str:
    """The JUnit XML text of a check result.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 1, 0], [0, 1, 0, 0])
    >>> text = junit_xml(af.check(pr, [{"measure": "recall", "operator": "macro", "min": 0.9}]))
    >>> print(text.splitlines()[1])
    <testsuites name="aggframe check" tests="1" failures="1" errors="0" skipped="0">
    """
    root = ET.Element("testsuites", name=suite)
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    rows = result.frame.select("rule", "name", "group_label", "status", "message", "severity")
    for i, rule in enumerate(result.rules, 1):
        mine = rows.filter(rows["rule"] == i)
        counts = {
            "tests": mine.height,
            "failures": int((mine["status"] == "fail").sum()),
            "errors": 0,
            "skipped": int(mine["status"].is_in(["skipped", "undefined"]).sum()),
        }
        for k, v in counts.items():
            totals[k] += v
        ts = ET.SubElement(
            root, "testsuite", {"name": f"rule {i}: {rule.label}"} | {k: str(v) for k, v in counts.items()}
        )
        for row in mine.iter_rows(named=True):
            case = ET.SubElement(ts, "testcase", classname=f"rule {i}: {rule.label}", name=row["group_label"])
            status, message = row["status"], row["message"]
            if status == "fail":
                ET.SubElement(case, "failure", message=message, type="CheckFailed").text = message
            elif status in ("skipped", "undefined"):
                ET.SubElement(case, "skipped", message=f"{status}: {message}")
            elif status == "warn":
                ET.SubElement(case, "system-out").text = f"warning: {message}"
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(result: CheckResult, path: str | Path) -> Path:
    """Write :func:`junit_xml` to ``path`` (UTF-8) and return the path."""
    out = Path(path)
    out.write_text(junit_xml(result), encoding="utf-8")
    return out
