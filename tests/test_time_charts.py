"""The chart over time (``plot_monitor``) and its place in the HTML report."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import aggframe as af
from tests.test_monitor import DAY0, _log

pytest.importorskip("altair")


def _table(*, unlabelled: bool) -> pl.DataFrame:
    log = _log(0, days=50, per_day=120)
    if unlabelled:
        hide = pl.lit(np.random.default_rng(0).random(log.height)) < 0.2
        log = log.with_columns(pl.when(hide).then(None).otherwise(pl.col("y_true")).alias("y_true"))
    ref = (DAY0, DAY0 + dt.timedelta(days=30))
    kw = {"unlabelled": "count"} if unlabelled else {}
    return af.monitor(
        af.from_labels(log),
        "recall",
        "micro",
        by="model",
        time="day",
        every="1d",
        period="2d",
        reference=ref,
        **kw,
    )


def _values(node: object) -> list[dict[str, object]]:
    """The inline rows of a chart spec (wherever Altair put them)."""
    if isinstance(node, dict):
        if "values" in node and isinstance(node["values"], list):
            return node["values"]
        for child in node.values():
            found = _values(child)
            if found:
                return found
    if isinstance(node, list):
        for child in node:
            found = _values(child)
            if found:
                return found
    return []


def test_plot_monitor_draws_band_line_alerts_and_the_labelled_share() -> None:
    table = _table(unlabelled=True)
    spec = af.plot.monitor(table).to_dict()
    top, share = spec["vconcat"]
    marks = [
        layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in top["layer"]
    ]
    assert marks == ["area", "line", "point"]
    assert top["layer"][2]["transform"] == [{"filter": "datum.alert"}]
    assert share["encoding"]["y"]["field"] == "labelled_share"
    values = _values(spec)
    alerted = {(r["group"], r["window_start"]) for r in values if r["alert"]}
    want = table.filter("alert").select(pl.col("model"), pl.col("window_start").cast(pl.String))
    assert alerted == set(want.iter_rows())
    assert alerted  # the planted drop alerts


def test_plot_monitor_without_labels_and_on_a_plain_windowed_report() -> None:
    spec = af.plot.monitor(_table(unlabelled=False)).to_dict()
    assert "vconcat" not in spec
    assert len(spec["layer"]) == 3
    windows = af.from_labels(_log(1, days=5, per_day=20)).evaluate(
        "f1", ["micro", "macro"], by="model", time="day", every="1d"
    )
    with pytest.raises(af.errors.OptionError, match="operator"):
        af.plot.monitor(windows)
    plain = af.plot.monitor(windows, operator="macro").to_dict()
    assert [layer["mark"]["type"] for layer in plain["layer"]] == ["line"]


@pytest.mark.slow
def test_the_html_report_draws_a_windowed_report_over_time(tmp_path: Path) -> None:
    pytest.importorskip("vl_convert")
    log = _log(2, days=4, per_day=20)
    pr = af.from_labels(log)
    report = pr.evaluate("f1", "macro", by="model", time="day", every="1d", period="2d")
    out = af.write_html_report(tmp_path / "r.html", pr, report, by=["model"])
    assert "f1 macro over time" in Path(out).read_text()
