"""The self-contained HTML report: what it holds, that it points at no network, and that a real
headless Chromium loads it without console errors and draws its charts."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import aggframe as af
from tests.interop._browser import find_chromium, open_page

pytest.importorskip("altair", reason="the plot extra (altair) is not installed")
pytest.importorskip("vl_convert", reason="the plot extra (vl-convert-python) is not installed")
pytest.importorskip("great_tables", reason="the plot extra (great_tables) is not installed")

KEY = "model [v1.2]"


def _loads_cleanly(page: Any) -> None:
    """No console error, no exception, and every chart container holds a drawn SVG."""
    assert page.console_errors == []
    assert page.exceptions == []
    assert page.drawn == page.charts


def in_chromium(test: Any) -> Any:
    """A browser test: slow, and skipped without Chromium on PATH (``.ci/run`` installs it)."""
    needs = pytest.mark.skipif(
        find_chromium() is None,
        reason="no Chromium on PATH (apt-get install chromium; .ci/run installs it): the browser test cannot run",
    )
    return pytest.mark.slow(needs(test))


# an attribute that makes the browser fetch: src=, href=, srcset=, action=, poster=, data= ...
_FETCH = re.compile(
    r"""\b(?:src|href|srcset|action|poster|data|xlink:href)\s*=\s*["']?\s*([a-zA-Z][\w+.-]*):"""
)
_CSS_FETCH = re.compile(r"""(?:url\(\s*["']?\s*|@import\s+["']?)([a-zA-Z][\w+.-]*):""")


def _frame(seed: int = 0, n: int = 900) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    models = [
        None if r < 0.2 else m
        for m, r in zip(rng.choice(["base", "new"], n).tolist(), rng.random(n), strict=True)
    ]
    y = rng.integers(0, 5, n)
    p = np.where(rng.random(n) < 0.7, y, rng.integers(0, 4, n))  # class 4 only by luck: often undefined
    p = np.where(p == 4, 0, p)
    return pl.DataFrame(
        {
            KEY: models,
            "day": rng.choice(["2026-11-01", "2026-11-02", "2026-11-03"], n),
            "y_true": y,
            "y_pred": p,
        },
        schema_overrides={KEY: pl.String},
    )


@pytest.fixture(scope="module")
def pr() -> Any:
    return af.from_labels(_frame(), y_true="y_true", y_pred="y_pred")


@pytest.fixture(scope="module")
def pages(pr: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("html")
    paths = {}
    for mode in ("svg", "vega"):
        path = out / f"report_{mode}.html"
        af.html_report(
            pr,
            ["f1", "precision"],
            ["micro", "macro", "weighted"],
            by=[KEY, "day"],
            convention=["exclude", "zero", "one"],
            path=path,
            charts=mode,
        )
        paths[mode] = path
    return paths


def _network_refs(text: str) -> list[str]:
    schemes = _FETCH.findall(text) + _CSS_FETCH.findall(text)
    return [s for s in schemes if s.lower() != "data"]


def test_scanner_sees_network_references() -> None:
    assert _network_refs('<script src="https://cdn.example/vega.js"></script>') == ["https"]
    assert _network_refs("<link href='http://x/a.css'>") == ["http"]
    assert _network_refs("<style>@import 'https://fonts/x.css';</style>") == ["https"]
    assert _network_refs('<img src="data:image/png;base64,AAAA">') == []
    assert _network_refs('<a href="#chart-1">') == []


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("mode", ["svg", "vega"])
def test_no_network_reference(pages: dict[str, Path], mode: str) -> None:
    text = pages[mode].read_text(encoding="utf-8")
    assert _network_refs(text) == []
    assert not re.search(r"<script[^>]*\bsrc\s*=", text)
    assert not re.search(r"<link\b", text)
    specs = re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', text, re.S)
    assert len(specs) == (0 if mode == "svg" else text.count('data-spec="chart-'))
    assert not any("$schema" in spec for spec in specs)


@pytest.mark.parametrize("mode", ["svg", "vega"])
def test_report_holds_tables_conventions_shape_version(pr: Any, pages: dict[str, Path], mode: str) -> None:
    text = pages[mode].read_text(encoding="utf-8")
    assert f"aggframe {af.__version__}" in text
    for section in ("Data", "Conventions", "Results", "Charts", "Per class", "Diagnostics"):
        assert f"<h2>{section}</h2>" in text
    for term in ("exclude", "zero", "one", "micro", "macro", "weighted"):
        assert f"<dt>{term}</dt>" in text
    assert "gt_table" in text  # great_tables, not hand-written tables
    # a value of the report, as the table prints it, for the null group
    report = pr.evaluate("f1", "macro", by=[KEY, "day"])
    row = report.filter(pl.col(KEY).is_null() & (pl.col("day") == "2026-11-02")).row(0, named=True)
    assert f"{row['value']:.4f}" in text
    assert "(null) · 2026-11-02" in text
    # the shape: examples per group add up to the data
    examples = _frame().group_by(KEY, "day").len()
    assert examples.height == 9  # 3 models (one null) x 3 days
    for n in examples.get_column("len").to_list():
        assert f">{n}<" in text
    if mode == "svg":
        assert text.count("<svg") >= 4
        assert "vegaEmbed" not in text
    else:
        assert text.count('data-spec="chart-') >= 4
        assert "window.vegaEmbed" in text


def test_inline_svg_ids_are_unique(pages: dict[str, Path]) -> None:
    ids = re.findall(r'\bid="([^"]+)"', pages["svg"].read_text(encoding="utf-8"))
    assert len(ids) == len(set(ids))


def test_write_html_report_takes_a_result(pr: Any, tmp_path: Path) -> None:
    report = pr.evaluate(["f1", "mcc"], ["micro", "macro"], by="day")
    out = af.write_html_report(
        tmp_path / "r.html", pr, report, by="day", command="aggframe report x --html r.html"
    )
    text = out.read_text(encoding="utf-8")
    assert "<code>aggframe report x --html r.html</code>" in text
    assert "<h2>Diagnostics</h2>" in text
    with pytest.raises(af.errors.OptionError, match="charts= must be"):
        af.write_html_report(tmp_path / "s.html", pr, report, charts="png")  # type: ignore[arg-type]


def test_folds_and_many_classes(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    n = 900
    frame = pl.DataFrame(
        {
            "example": np.arange(n),
            "fold": np.arange(n) % 3,
            "y_true": rng.integers(0, 60, n),
            "y_pred": rng.integers(0, 60, n),
        }
    )
    pr = af.from_labels(frame, example="example", fold="fold", n_classes=60)
    text = af.html_report(pr, "f1", ["micro", "macro"], pooling=["pooled", "averaged", "fold"])
    assert "<dt>pooled</dt>" in text
    assert "pooled vs averaged folds" in text
    assert "60 classes" in text  # the per-class table is left out above max_classes, and says so
    # ... so the note on the left-out per-class charts does not send the reader to it
    assert "the values are in pr.per_class()" in text
    assert "in the table below" not in text
    assert _network_refs(text) == []


@in_chromium
@pytest.mark.parametrize("mode", ["svg", "vega"])
def test_report_in_headless_chromium(pages: dict[str, Path], mode: str) -> None:
    from PIL import Image

    page = open_page(pages[mode])
    _loads_cleanly(page)
    assert page.log_errors == []  # a blocked or failed load would be logged here
    assert all(url.startswith("file://") for url in page.requests), page.requests
    assert page.charts >= 4
    assert page.marks > 100
    image = Image.open(io.BytesIO(page.screenshot)).convert("L")
    width, height = image.size
    assert width == 1280
    dark = sum(image.histogram()[:200])  # pixels clearly not white: text, table rules, chart marks
    assert dark / (width * height) > 0.01
    # the charts' part of the page is not blank either: the lower half holds charts and tables
    lower = image.crop((0, height // 2, width, height))
    assert sum(lower.histogram()[:200]) > 5_000


@in_chromium
def test_browser_probe_sees_what_goes_wrong(tmp_path: Path) -> None:
    """The probe is not blind: a console error, an exception, a fetch and an empty chart all show."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        "<!DOCTYPE html><html><body>"
        '<div class="chart"></div>'  # a chart container that never gets drawn
        '<img src="http://127.0.0.1:9/x.png">'  # loopback only, a closed port
        '<script>console.error("boom"); undefinedFunction();</script>'
        "</body></html>"
    )
    page = open_page(bad, timeout=3)
    assert any("boom" in e for e in page.console_errors)
    assert any("undefinedFunction" in e for e in page.exceptions)
    assert any(url.startswith("http://127.0.0.1:9") for url in page.requests)
    assert (page.charts, page.drawn) == (1, 0)


# ---------------------------------------------------------------------------
# Group values that read as markup: shown as given, and they break nothing

HOSTILE_VALUES = ["<!--<script>", 'model id="v1" url(#x) href="#y"', "a & b </script>"]


@pytest.fixture(scope="module")
def hostile_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    rows = [(g, t, p) for g in [*HOSTILE_VALUES, "b"] for t, p in ((0, 0), (1, 1), (0, 1), (1, 1))]
    frame = pl.DataFrame(rows, schema=["model", "y_true", "y_pred"], orient="row")
    out = tmp_path_factory.mktemp("hostile")
    paths = {}
    for mode in ("svg", "vega"):
        paths[mode] = out / f"{mode}.html"
        af.html_report(
            af.from_labels(frame), "f1", ["micro", "macro"], by="model", charts=mode, path=paths[mode]
        )
    return paths


def _strings(spec: Any) -> set[str]:
    """Every string in a parsed chart spec (the data values among them)."""
    if isinstance(spec, dict):
        return {s for v in spec.values() for s in _strings(v)} | {k for k in spec if isinstance(k, str)}
    if isinstance(spec, list):
        return {s for v in spec for s in _strings(v)}
    return {spec} if isinstance(spec, str) else set()


def _tags(text: str) -> list[str]:
    return re.findall(r"""<(?:[^>"']|"[^"]*"|'[^']*')*>""", text)


def test_hostile_values_leave_the_markup_alone(hostile_pages: dict[str, Path]) -> None:
    """Regressions: in vega mode a group named ``<!--<script>`` swallowed every later chart into one
    script element (the spec escaped only ``</``); in svg mode a label reading ``id="v1"`` was
    rewritten as an SVG id (``model id="chart-1-v1"``)."""
    svg = hostile_pages["svg"].read_text(encoding="utf-8")
    ids = [i for tag in _tags(svg) for i in re.findall(r'\bid="([^"]+)"', tag)]
    assert len(ids) == len(set(ids))
    assert "chart-1-v1" not in svg
    assert "chart-2-v1" not in svg
    vega = hostile_pages["vega"].read_text(encoding="utf-8")
    specs = re.findall(r'<script type="application/json" id="([^"]+)">(.*?)</script>', vega, re.S)
    assert len(specs) == vega.count('data-spec="chart-')
    values = set()
    for _, payload in specs:
        assert "<" not in payload
        assert ">" not in payload
        values |= {v for v in HOSTILE_VALUES if v in _strings(json.loads(payload))}
    assert values == set(HOSTILE_VALUES)  # the values reach the charts as given


@in_chromium
@pytest.mark.parametrize("mode", ["svg", "vega"])
def test_hostile_values_in_headless_chromium(hostile_pages: dict[str, Path], mode: str) -> None:
    page = open_page(hostile_pages[mode])
    _loads_cleanly(page)
    assert page.charts >= 2


# ---------------------------------------------------------------------------
# Predictions from scores: ROC, precision-recall and reliability charts


def _score_frame(seed: int = 3, n: int = 240) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    classes = ["cat", "dog", "emu"]
    truth = rng.integers(0, 3, n)
    rows = []
    for i in range(n):
        raw = rng.random(3) + 0.4 * (np.arange(3) == truth[i])
        for c, s in zip(classes, raw / raw.sum(), strict=True):
            rows.append(
                (i, None if i % 5 == 0 else f"m{i % 2}", c, float(round(s, 3)), int(c == classes[truth[i]]))
            )
    return pl.DataFrame(
        rows,
        schema=[
            ("example", pl.Int64),
            (KEY, pl.String),
            ("class", pl.String),
            ("score", pl.Float64),
            ("y", pl.Int64),
        ],
        orient="row",
    )


@pytest.fixture(scope="module")
def score_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    frame = _score_frame()
    pr = af.from_scores(frame, decision="argmax")
    path = tmp_path_factory.mktemp("scores") / "scores.html"
    af.html_report(pr, ["f1", "recall"], ["micro", "macro"], by=KEY, path=path)
    return path


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
def test_score_predictions_get_curves_and_reliability(score_page: Path) -> None:
    text = score_page.read_text(encoding="utf-8")
    assert "<h2>Scores</h2>" in text
    for title in ("ROC curve", "precision-recall curve", "reliability diagram"):
        assert f">{title}</text>" in text, title
    assert _network_refs(text) == []


def test_score_charts_are_the_predictions_curves(score_page: Path) -> None:
    """The Scores section draws pr.curve / pr.calibration (null keys a group); label predictions have none."""
    text = score_page.read_text(encoding="utf-8")
    assert "not available" not in text
    pr = af.from_scores(_score_frame(), decision="argmax")
    roc = pr.curve("roc", by=KEY)
    assert roc[KEY].null_count() > 0  # the null-keyed examples are a group of their own
    assert roc.height > 0
    plain = af.html_report(af.from_labels(_frame()), "f1", "macro")
    assert "<h2>Scores</h2>" not in plain  # label predictions have no scores


@in_chromium
def test_score_report_in_headless_chromium(score_page: Path) -> None:
    page = open_page(score_page)
    _loads_cleanly(page)
    assert page.log_errors == []
    assert all(url.startswith("file://") for url in page.requests), page.requests
    assert page.charts >= 3


# ---------------------------------------------------------------------------
# Bootstrap intervals (html_report(n_boot=...), aggframe report --n-boot)


def _paired_frame(key: str = KEY) -> pl.DataFrame:
    """Two models scored on the same examples (a null key among the days)."""
    base = _frame(seed=4, n=600).drop(KEY).with_row_index("example")
    base = base.with_columns(
        pl.when(pl.col("day") == "2026-11-03").then(None).otherwise(pl.col("day")).alias("day")
    )
    return pl.concat(
        [
            base.with_columns(pl.lit("base").alias(key)),
            base.with_columns(pl.lit("new").alias(key), pl.col("y_true").alias("y_pred")),
        ]
    )


@pytest.fixture(scope="module")
def interval_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("intervals")
    pr = af.from_labels(_paired_frame(), example="example")
    paths = {}
    for mode in ("svg", "vega"):
        paths[mode] = out / f"intervals_{mode}.html"
        af.html_report(
            pr,
            ["f1", "recall"],
            ["micro", "macro"],
            by=[KEY, "day"],
            n_boot=30,
            seed=2,
            path=paths[mode],
            charts=mode,
        )
    return paths


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
def test_report_shows_the_intervals(interval_pages: dict[str, Path]) -> None:
    text = interval_pages["svg"].read_text(encoding="utf-8")
    assert "Intervals: 95% percentile intervals over 30 bootstrap replicates, seed 2." in text
    pr = af.from_labels(_paired_frame(), example="example")
    report = pr.evaluate(["f1", "recall"], ["micro", "macro"], by=[KEY, "day"], n_boot=30, seed=2)
    # the results table: value [low, high], the null day a group
    for row in report.filter(pl.col("day").is_null()).iter_rows(named=True):
        assert f"{row['value']:.4f} [{row['ci_low']:.4f}, {row['ci_high']:.4f}]" in text
    assert "base · (null)" in text
    assert "(value [interval])" in text
    # the charts: per group with error bars, the heat map with each interval, per class with bands
    assert text.count("95% intervals") >= 4
    macro = report.filter((pl.col("measure") == "f1") & (pl.col("operator") == "macro")).row(0, named=True)
    assert f"[{macro['ci_low']:.2f}, {macro['ci_high']:.2f}]" in text
    assert _network_refs(text) == []
    # without n_boot: no intervals anywhere
    plain = af.html_report(pr, "f1", "macro", by=[KEY, "day"])
    assert "Intervals:" not in plain
    assert "intervals)" not in plain


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("name", ["*", "^x$", "", "__aggframe_key0__", "名前"])
def test_intervals_with_hostile_key_names(name: str) -> None:
    pr = af.from_labels(_paired_frame(name), example="example")
    text = af.html_report(pr, "f1", ["micro", "macro"], by=[name, "day"], n_boot=10)
    report = pr.evaluate("f1", ["micro", "macro"], by=[name, "day"], n_boot=10)
    row = report.filter(pl.col("day").is_null() & (pl.col("operator") == "macro")).row(0, named=True)
    assert f"{row['value']:.4f} [{row['ci_low']:.4f}, {row['ci_high']:.4f}]" in text
    assert "new · (null)" in text
    assert _network_refs(text) == []


#: per chart that says it draws intervals: its horizontal data rules (error bars) and data rects (bands)
_INTERVAL_PROBE = """Array.from(document.querySelectorAll("div.chart"))
  .filter((d) => d.textContent.includes("95% intervals"))
  .map((d) => ({
    bars: Array.from(d.querySelectorAll("g.mark-rule.role-mark line"))
      .filter((l) => l.getBoundingClientRect().width > 2 && l.getBoundingClientRect().height < 1).length,
    texts: Array.from(d.querySelectorAll("g.mark-text.role-mark tspan"))
      .filter((t) => /^\\[-?\\d\\.\\d\\d, -?\\d\\.\\d\\d\\]$/.test(t.textContent)).length,
    bands: Array.from(d.querySelectorAll("g.mark-rect.role-mark path"))
      .filter((r) => r.getBoundingClientRect().width > 0).length,
  }))"""


@in_chromium
@pytest.mark.parametrize("mode", ["svg", "vega"])
def test_interval_charts_in_headless_chromium(interval_pages: dict[str, Path], mode: str) -> None:
    page = open_page(interval_pages[mode], ask=_INTERVAL_PROBE)
    _loads_cleanly(page)
    assert page.log_errors == []
    assert all(url.startswith("file://") for url in page.requests), page.requests
    groups, *heatmaps_and_classes = page.probed
    report = af.from_labels(_paired_frame(), example="example").evaluate(
        ["f1", "recall"], ["micro", "macro"], by=[KEY, "day"], n_boot=30, seed=2
    )
    wide = report.filter(pl.col("ci_high") - pl.col("ci_low") > 0.02)  # the "new" model is always right
    assert wide.height == 12
    assert groups["bars"] == wide.height  # an error bar per value (a zero-width interval is a point)
    texts = [c["texts"] for c in heatmaps_and_classes]
    assert texts[:2] == [6, 6]  # the two heat maps: an interval under each model x day value
    assert all(c["bands"] > 0 for c in heatmaps_and_classes[2:])  # per class: a band per average
