"""Sections of the HTML report that left themselves out on valid input (found by an audit)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import polars as pl
import pytest

import aggframe as af

pytest.importorskip("altair")

PAIRED = pl.DataFrame(
    {
        "model": ["A"] * 6 + ["B"] * 6,
        "example": list(range(6)) * 2,
        "y_true": [0, 1, 2, 2, 1, 0] * 2,
        "y_pred": [0, 2, 2, 1, 1, 1, 0, 1, 2, 2, 1, 1],
    }
)


def test_diagnostics_of_models_scored_on_the_same_examples() -> None:
    """Example ids shared by two models (the README's paired setup): diagnose(by="model") raised
    "6 repeated example rows" (it read the ungrouped cells), and the report said "Diagnostics are
    not available"."""
    pr = af.from_labels(PAIRED, example="example")
    found = af.diagnose(pr, "f1", by="model")
    assert set(found["model"].drop_nulls()) <= {"A", "B"}
    page = af.html_report(pr, "f1", "macro", by="model")
    assert "Diagnostics are not available" not in page


def test_a_measure_on_scores_keeps_the_per_class_section() -> None:
    """Adding auroc to f1 left out the per-class table, its charts and the diagnostics of every measure."""
    scores = pl.DataFrame(
        {
            "example": [0, 0, 1, 1, 2, 2, 3, 3],
            "class": [0, 1] * 4,
            "score": [0.8, 0.2, 0.3, 0.7, 0.6, 0.4, 0.1, 0.9],
            "y": [1, 0, 0, 1, 0, 1, 0, 1],
        }
    )
    pr = af.from_scores(scores, decision="argmax")
    with_auroc = af.html_report(pr, ["f1", "auroc"], "macro")
    assert "per-class" not in with_auroc.lower() or "Per-class values are not available" not in with_auroc
    assert "Diagnostics are not available" not in with_auroc
    assert with_auroc.count("Per class") == af.html_report(pr, ["f1"], "macro").count("Per class")


def _rollup_page(tmp_path: Path, frame: pl.DataFrame, by: str) -> str:
    """The page of ``aggframe report --grouping-sets rollup --html`` over ``frame``."""
    from aggframe.interop.cli import main

    data, page = tmp_path / "d.parquet", tmp_path / "r.html"
    frame.write_parquet(data)
    code = main(
        ["report", str(data), "--by", by, "--grouping-sets", "rollup", "--measures", "f1",
         "--operators", "macro", "--html", str(page), "-q", "-o", str(tmp_path / "r.csv")]
    )  # fmt: skip
    assert code == 0
    return page.read_text()


def test_rolled_up_keys_read_all_not_null(tmp_path: Path) -> None:
    """--grouping-sets rollup --html: a rolled-up key read "null", as a real null key does (the total
    was "null · null"), and the roll-ups were drawn as groups of their own."""
    frame = pl.DataFrame(
        {
            "model": ["A", "A", "A", "A"],
            "day": ["d1", "d1", None, None],
            "y_true": [0, 1, 0, 1],
            "y_pred": [0, 1, 1, 0],
        }
    )
    text = _rollup_page(tmp_path, frame, "model,day")
    assert "(all) · (all)" in text
    assert "A · (all)" in text
    assert "A · (null)" in text  # the real null day, told apart


def test_the_report_of_scored_models_on_the_same_examples() -> None:
    """from_scores(decision="argmax") of two models reusing example ids: evaluate(by="model") worked,
    html_report(by="model") raised (the task was read off the ungrouped tables)."""
    frame = pl.DataFrame(
        {
            "model": ["A"] * 6 + ["B"] * 6,
            "example": [0, 0, 1, 1, 2, 2] * 2,
            "class": [0, 1] * 6,
            "score": [0.8, 0.2, 0.3, 0.7, 0.6, 0.4, 0.4, 0.6, 0.3, 0.7, 0.9, 0.1],
            "y": [1, 0, 0, 1, 0, 1] * 2,
        }
    )
    pr = af.from_scores(frame, decision="argmax")
    page = af.html_report(pr, "f1", "macro", by="model")
    assert "multiclass" in page
    assert pr.extend.kind_by(["model"]) == "multiclass"


def test_chart_and_report_arguments_are_checked() -> None:
    """value='convention', x == y and title=1 raised raw Polars errors or an AttributeError."""
    report = af.from_labels(PAIRED, example="example").evaluate("f1", "macro", by="model")
    for call in (
        lambda: af.plot.groups(report, value="convention"),
        lambda: af.plot.heatmap(report, x="model", y="model"),
        lambda: af.html_report(af.from_labels(PAIRED, example="example"), "f1", "macro", by="model", title=1),  # type: ignore[arg-type]
    ):
        with pytest.raises(af.errors.OptionError):
            call()


@pytest.mark.parametrize("name", ["group", "examples", "classes", "f1", "micro", "__af_group"])
def test_a_key_named_like_a_column_of_the_report_tables(name: str) -> None:
    """by="group" (the tables' label column), "examples"/"classes" (the shape table's counts) or a
    wide column's name ("f1" per class, "micro" in the results) raised a raw Polars error (on the
    command line "input error: could not read the input") or wide()'s "use separator=", which
    html_report does not take."""
    frame = PAIRED.with_columns(pl.Series(name, ["null", None, "a"] * 4)).drop("example")
    pr = af.from_labels(frame)
    page = af.html_report(pr, "f1", ["micro", "macro"], by=name)
    assert "not available" not in page
    report = pr.evaluate("f1", ["micro", "macro"], by=name)
    for value in report["value"]:
        assert f"{value:.4f}" in page
    per_class = pr.per_class("f1", by=name)
    for value in per_class["value"].drop_nulls().drop_nans():
        assert f"{value:.4f}" in page
    assert page.count("<td") >= 2 * (report.height + per_class.height)
    assert "Examples and classes per group" in page


def test_a_score_chart_left_out_says_so_in_a_sentence() -> None:
    """A by-column named like a calibration column ("bin") leaves the reliability diagram out; the
    note read "Reliability diagram are not available: ..." (the section's name, plural verb)."""
    scores = pl.DataFrame(
        {
            "bin": ["a"] * 8 + ["b"] * 8,
            "example": [0, 0, 1, 1, 2, 2, 3, 3] * 2,
            "class": [0, 1] * 8,
            "score": [0.8, 0.2, 0.3, 0.7, 0.6, 0.4, 0.1, 0.9] * 2,
            "y": [1, 0, 0, 1, 0, 1, 0, 1] * 2,
        }
    )
    page = af.html_report(af.from_scores(scores, decision="argmax"), "f1", "macro", by="bin")
    assert "Reliability diagram: not available (" in page
    assert "are not available" not in page.replace("Per-class values are not available", "").replace(
        "Diagnostics are not available", ""
    )


def _headings(page: str) -> list[str]:
    """The group headings of the report's great_tables tables, as text."""
    return [html.unescape(h) for h in re.findall(r'class="gt_group_heading"[^>]*>(.*?)</t[dh]>', page)]


@pytest.mark.slow
def test_groups_that_read_alike_get_headings_of_their_own(tmp_path: Path) -> None:
    """great_tables put a null key and the string "null" under one heading ("null"), and ("x",
    "y · z") with ("x · y", "z"); under --grouping-sets rollup a real "(all)" key read as a
    rolled-up one. Each group has its own heading, row of the shape table and values now."""
    frame = pl.DataFrame(
        {
            "g": [None, "null", "(all)"] * 4,
            "h": ["x"] * 6 + ["x · y"] * 6,
            "y_true": [0, 1, 2, 0, 1, 2, 1, 1, 2, 0, 0, 2],
            "y_pred": [0, 1, 1, 0, 2, 2, 1, 0, 2, 0, 1, 2],
        }
    )
    g = {None: "(null)", "null": "null", "(all)": '"(all)"'}
    h = {"x": "x", "x · y": '"x · y"'}
    pr = af.from_labels(frame)
    report = pr.evaluate("f1", ["micro", "macro"], by=["g", "h"])
    page = af.html_report(pr, "f1", ["micro", "macro"], by=["g", "h"])
    groups = {f"{g[a]} · {h[b]}" for a, b in report.select("g", "h").unique().rows()}
    assert len(groups) == 6
    headings = _headings(page)
    assert set(headings) == groups
    assert len(headings) == 2 * len(groups)  # the results and the per-class table, a heading per group
    per_g = af.html_report(pr, "f1", "macro", by="g")
    shape = re.findall(r"<td[^>]*>([^<]*)</td>", per_g.split("Examples and classes per group", 1)[1])
    examples = {html.unescape(shape[i]): int(shape[i + 1]) for i in range(0, 9, 3)}
    assert examples == {g[k]: n for k, n in frame.group_by("g").len().rows()}

    rolled = set(_headings(_rollup_page(tmp_path, frame, "g,h")))
    assert {'"(all)" · (all)', "null · (all)", "(null) · (all)", "(all) · (all)"} <= rolled
    assert groups <= rolled


def test_diagnostics_table_tells_all_groups_from_the_null_group() -> None:
    """A finding stated for every group (scope "all", null keys), one about the null group and one
    about the group "null" all read "null" in the report's diagnostics table."""
    from aggframe.analysis.diagnostics import diagnose

    frame = pl.DataFrame(
        {"g": [None] * 6 + ["null"] * 6, "y_true": [0, 1, 2, 0, 1, 3] * 2, "y_pred": [0, 1, 1, 0, 2, 2] * 2}
    )
    pr = af.from_labels(frame)
    found = diagnose(pr, ["f1", "recall"], by=["g"])
    label = {("all", None): "(all)", ("group", None): "(null)", ("group", "null"): "null"}
    want = sorted((label[(s, g)], s, c) for g, s, c in found.select("g", "scope", "code").rows())
    assert len(set(want)) == found.height
    page = af.html_report(pr, ["f1", "recall"], "macro", by="g").split("<h2>Diagnostics</h2>", 1)[1]
    cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", page)]
    width = len(found.columns)
    assert sorted(tuple(cells[i : i + 3]) for i in range(0, found.height * width, width)) == want
