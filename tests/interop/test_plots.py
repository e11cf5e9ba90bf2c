"""Charts (the optional plot extra): they build, carry the report's numbers, and render in Vega
(vl-convert) for hostile column names and null group keys."""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

import numpy as np
import polars as pl
import pytest

import aggframe as af

alt = pytest.importorskip("altair", reason="the plot extra (altair) is not installed")
vlc = pytest.importorskip("vl_convert", reason="the plot extra (vl-convert-python) is not installed")

KEY = 'team.a [0] "x"'  # dots, brackets, spaces and quotes: Vega-Lite would read these as paths


def _frame(seed: int = 0, n: int = 400) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    team = [
        None if r < 0.25 else t
        for t, r in zip(rng.choice(["red", "blue"], n).tolist(), rng.random(n), strict=True)
    ]
    y = rng.integers(0, 4, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    p = np.where(p == 3, 0, p)  # class 3 is never predicted
    return pl.DataFrame(
        {KEY: team, "day": rng.choice(["mon", "tue", "wed"], n), "y_true": y, "y_pred": p},
        schema_overrides={KEY: pl.String},
    )


@pytest.fixture(scope="module")
def pr() -> Any:
    return af.from_labels(_frame(), y_true="y_true", y_pred="y_pred")


def _values(chart: Any) -> list[dict[str, Any]]:
    spec = chart.to_dict()
    return spec["data"]["values"]


def _render(chart: Any) -> str:
    """Vega itself (in vl-convert) compiles and draws the spec; JSON must hold no NaN."""
    spec = chart.to_dict()
    json.dumps(spec, allow_nan=False)
    return vlc.vegalite_to_svg(spec)


def _close(a: float | None, b: float) -> bool:
    return (a is None and math.isnan(b)) or (a is not None and abs(a - b) < 1e-12)


def test_groups_carry_every_value_and_render(pr: Any) -> None:
    report = pr.evaluate(["f1", "precision"], ["micro", "macro"], by=[KEY, "day"])
    chart = af.plot.groups(report)
    assert isinstance(chart, alt.FacetChart)
    values = _values(chart)
    assert len(values) == report.height
    labels = {v["group"] for v in values}
    assert "(null) · mon" in labels  # a null key is a label, not a crash
    for row, v in zip(report.iter_rows(named=True), values, strict=True):
        assert (v["measure"], v["operator"]) == (row["measure"], row["operator"])
        assert _close(v["value"], row["value"])
    svg = _render(chart)
    assert "(null) · mon" in svg
    assert "team.a [0] &quot;x&quot; · day" in svg or 'team.a [0] "x" · day' in svg


def test_user_names_never_become_field_names(pr: Any) -> None:
    report = pr.evaluate("f1", "macro", by=[KEY, "day"])
    for chart in (af.plot.groups(report), af.plot.heatmap(report, x="day", y=KEY)):
        text = json.dumps(chart.to_dict())
        fields = [f for f in _fields(chart.to_dict()) if f]
        assert fields, text
        assert all(KEY not in f for f in fields)


def _fields(spec: Any) -> list[str]:
    out = []
    if isinstance(spec, dict):
        for k, v in spec.items():
            if k == "field" and isinstance(v, str):
                out.append(v)
            else:
                out.extend(_fields(v))
    elif isinstance(spec, list):
        for v in spec:
            out.extend(_fields(v))
    return out


def test_heatmap_cells_match_the_report(pr: Any) -> None:
    report = pr.evaluate(["f1", "mcc"], ["micro", "macro"], by=[KEY, "day"])
    chart = af.plot.heatmap(report, x="day", y=KEY, measure="mcc", operator="macro")
    assert isinstance(chart, alt.LayerChart)
    want = report.filter((pl.col("measure") == "mcc") & (pl.col("operator") == "macro"))
    got = {(v["x"], v["y"]): v["value"] for v in _values(chart)}
    assert len(got) == want.height
    for row in want.iter_rows(named=True):
        assert _close(got[(row["day"], row[KEY] if row[KEY] is not None else "(null)")], row["value"])
    svg = _render(chart)
    assert ">(null)<" in svg


def test_heatmap_needs_one_row_per_cell(pr: Any) -> None:
    report = pr.evaluate("f1", ["micro", "macro"], by=[KEY, "day"])
    with pytest.raises(af.errors.OptionError, match="several operator values"):
        af.plot.heatmap(report, x="day", y=KEY)
    with pytest.raises(af.errors.OptionError, match=r"\['nope'\] are not in the frame"):
        af.plot.heatmap(report, x="day", y=KEY, operator="nope")
    three = af.from_labels(_frame().with_columns(extra=pl.lit(1) + (pl.col("y_true") % 2))).evaluate(
        "f1", "macro", by=[KEY, "day", "extra"]
    )
    with pytest.raises(af.errors.DuplicateEntryError, match="other group columns"):
        af.plot.heatmap(three, x="day", y=KEY)
    with pytest.raises(af.errors.ColumnNotFoundError, match="nope"):
        af.plot.heatmap(report, x="nope", y=KEY, operator="macro")


def test_classes_from_predictions_equal_classes_from_frames(pr: Any) -> None:
    from_pr = af.plot.classes(pr, "precision", by=KEY)
    per = pr.per_class("precision", by=KEY)
    ref = pr.evaluate("precision", ["micro", "macro", "weighted"], by=KEY)
    from_frames = af.plot.classes(per, "precision", reference=ref)
    # the same rows; values to the last bits (a weighted mean's summation order may differ)
    a, b = _values(from_pr), _values(from_frames)
    assert [{**r, "value": None} for r in a] == [{**r, "value": None} for r in b]
    for x, y in zip(a, b, strict=True):
        assert x["value"] == y["value"] or abs(x["value"] - y["value"]) < 1e-12
    bars = [v for v in _values(from_pr) if v["kind"] == "class"]
    assert len(bars) == per.height
    assert any(not v["defined"] for v in bars)  # class 3 is never predicted: undefined precision
    lines = [v for v in _values(from_pr) if v["kind"] == "reference"]
    assert {v["operator"] for v in lines} == {"micro", "macro", "weighted"}
    svg = _render(from_pr)
    assert "undefined" in svg
    assert "(null)" in svg


def test_classes_without_groups_is_a_layer() -> None:
    chart = af.plot.classes(af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1]), "f1")
    assert isinstance(chart, alt.LayerChart)
    _render(chart)


def test_conventions_band(pr: Any) -> None:
    report = pr.evaluate(
        ["precision", "f1"], ["macro", "weighted"], by=KEY, convention=["exclude", "zero", "one"]
    )
    chart = af.plot.conventions(report)
    values = _values(chart)
    assert len(values) == report.height
    for v in values:
        same = [w["value"] for w in values if (w["group"], w["spec"]) == (v["group"], v["spec"])]
        assert v["low"] == min(same)
        assert v["high"] == max(same)
    moved = [v for v in values if v["spec"] == "precision macro" and v["high"] > v["low"]]
    assert moved  # class 3's undefined precision moves macro precision between zero and one
    _render(chart)
    with pytest.raises(af.errors.OptionError, match="several conventions"):
        af.plot.conventions(pr.evaluate("f1", "macro"))


def test_folds_chart_finds_the_fold_columns() -> None:
    rng = np.random.default_rng(3)
    n = 600
    frame = pl.DataFrame(
        {
            "ex": np.arange(n) % 300,
            "rep.x": np.arange(n) // 300,
            "k [fold]": np.arange(n) % 3,
            KEY: rng.choice(["a", "b"], n),
            "y_true": rng.integers(0, 3, n),
            "y_pred": rng.integers(0, 3, n),
        }
    )
    pr = af.from_labels(frame, example="ex", fold="k [fold]", repeat="rep.x", n_classes=3)
    report = pr.evaluate(
        ["f1", "mcc"], ["micro", "macro"], by=KEY, pooling=["pooled", "averaged", "fold", "min", "max", "std"]
    )
    chart = af.plot.folds(report)
    assert isinstance(chart, alt.FacetChart)
    values = _values(chart)
    folds = [v for v in values if v["pooling"] == "fold"]
    assert len(folds) == 2 * 2 * 2 * 2 * 3  # groups x measures x operators x repeats x folds
    assert {v["group"] for v in values} == {"a", "b"}  # the fold columns are not groups
    spread = [v for v in values if v["pooling"] == "spread"]
    for s in spread:
        vals = [v["value"] for v in folds if (v["group"], v["spec"]) == (s["group"], s["spec"])]
        assert s["low"] == pytest.approx(min(vals))
        assert s["high"] == pytest.approx(max(vals))
    _render(chart)
    one = pr.evaluate("f1", "macro", pooling=["pooled", "averaged"])
    assert isinstance(af.plot.folds(one), alt.LayerChart)
    with pytest.raises(af.errors.ColumnNotFoundError, match="pooling"):
        af.plot.folds(pr.evaluate("f1", "macro").drop("pooling"))
    # the per-repeat rows carry the repeat column: still a fold column, not a group
    # (regression: the chart was split by repeat, with a made-up "null" panel)
    with_repeats = pr.evaluate(
        ["f1", "mcc"],
        ["micro", "macro"],
        by=KEY,
        pooling=["pooled", "averaged", "fold", "repeat", "repeat_pooled"],
    )
    values = _values(af.plot.folds(with_repeats))
    assert {v["group"] for v in values} == {"a", "b"}
    assert len([v for v in values if v["pooling"] == "fold"]) == 2 * 2 * 2 * 2 * 3


@pytest.mark.parametrize("alias", ["iou", "dice", "youden_j", "sensitivity", "tpr"])
def test_classes_take_measure_aliases(alias: str) -> None:
    """plot_classes of an alias draws its measure (regression: "measure value(s) ['iou'] are not in
    the frame; it has ['jaccard']", about the frame plot_classes had just computed itself)."""
    pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    name = af.get_measure(alias).name
    values = _values(af.plot.classes(pr, alias))
    bars = sorted(v["value"] for v in values if v["kind"] == "class")
    assert bars == pytest.approx(sorted(pr.per_class(name)["value"].to_list()))


def test_png_and_svg_export_offline(tmp_path: Any, pr: Any) -> None:
    chart = af.plot.groups(pr.evaluate("f1", ["micro", "macro"], by=KEY))
    chart.save(tmp_path / "groups.png")
    chart.save(tmp_path / "groups.svg")
    assert (tmp_path / "groups.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (tmp_path / "groups.svg").read_text()


def test_frames_only(pr: Any) -> None:
    with pytest.raises(af.errors.OptionError, match="tidy Polars frame"):
        af.plot.groups({"measure": ["f1"]})  # type: ignore[arg-type]
    with pytest.raises(af.errors.OptionError, match="Predictions or a per_class frame"):
        af.plot.classes([1, 2], "f1")


def test_without_altair_says_how_to_install(monkeypatch: pytest.MonkeyPatch, pr: Any) -> None:
    monkeypatch.setitem(sys.modules, "altair", None)  # import altair now raises ImportError
    report = pr.evaluate("f1", "macro")
    with pytest.raises(ImportError, match=r"pip install 'aggframe\[plot\]'"):
        af.plot.groups(report)
    with pytest.raises(ImportError, match=r"aggframe\[plot\]"):
        af.html_report(pr, "f1", "macro")


# ---------------------------------------------------------------------------
# Bootstrap intervals (evaluate / compare with n_boot=)

_BOOT_COLUMNS = ["ci_low", "ci_high", "se", "n_boot", "level"]


def _no_network(svg: str) -> None:
    """An SVG that loads nothing: the only URL is the SVG namespace."""
    assert "https://" not in svg
    assert set(re.findall(r"http://[^\"' ]+", svg)) <= {
        "http://www.w3.org/2000/svg",
        "http://www.w3.org/1999/xlink",
    }


def _boot_pr(key: str = KEY) -> Any:
    frame = _frame().rename({KEY: key}).with_row_index("ex")
    two = pl.concat(  # two models scored on the same examples: paired differences
        [
            frame.with_columns(pl.lit("m1").alias("model")),
            frame.with_columns(pl.lit("m2").alias("model"), pl.col("y_true").alias("y_pred")),
        ]
    )
    return af.from_labels(two, example="ex")


def test_groups_draw_the_intervals_of_the_report(pr: Any) -> None:
    report = pr.evaluate(["f1", "mcc"], ["micro", "macro"], by=[KEY, "day"], n_boot=30, seed=3)
    chart = af.plot.groups(report)
    values = _values(chart)
    assert len(values) == report.height
    for row, v in zip(report.iter_rows(named=True), values, strict=True):
        assert _close(v["value"], row["value"])
        assert _close(v["low"], row["ci_low"])
        assert _close(v["high"], row["ci_high"])
    assert any(v["group"].startswith("(null)") for v in values)  # a null key is a group
    spec = chart.to_dict()
    rules = [layer for layer in spec["spec"]["layer"] if layer["mark"]["type"] == "rule"]
    assert [r["encoding"]["x2"]["field"] for r in rules] == ["high"]  # the error bar
    svg = _render(chart)
    _no_network(svg)
    assert "95% intervals" in svg
    # without the interval columns: the chart of a report evaluated without n_boot, unchanged
    plain = pr.evaluate(["f1", "mcc"], ["micro", "macro"], by=[KEY, "day"])
    a, b = af.plot.groups(report.drop(_BOOT_COLUMNS)).to_dict(), af.plot.groups(plain).to_dict()
    # the same chart; values equal to the last bits (two evaluations may sum in another order)
    assert {**a, "data": None} == {**b, "data": None}
    rows_a, rows_b = a["data"]["values"], b["data"]["values"]
    assert [{**r, "value": None} for r in rows_a] == [{**r, "value": None} for r in rows_b]
    for x, y in zip(rows_a, rows_b, strict=True):
        assert x["value"] == y["value"] or abs(x["value"] - y["value"]) < 1e-12
    assert "low" not in json.dumps(af.plot.groups(plain).to_dict())


def test_groups_draw_paired_differences_against_zero() -> None:
    pr = _boot_pr()
    diff = pr.compare("f1", ["micro", "macro"], by=["model", KEY], reference={"model": "m1"}, n_boot=30)
    chart = af.plot.groups(diff, value="difference_to_reference")
    values = _values(chart)
    assert len(values) == diff.height
    for row, v in zip(diff.iter_rows(named=True), values, strict=True):
        assert _close(v["value"], row["difference_to_reference"])
        assert _close(v["low"], row["difference_to_reference_ci_low"])
        assert _close(v["high"], row["difference_to_reference_ci_high"])
        assert v["excludes"] is bool(row["difference_to_reference_excludes_zero"])
    # m1 against itself: zero-width intervals; m2 predicts the truth: better, excluding zero
    assert all(v["low"] == v["high"] == 0 for v in values if v["group"].startswith("m1"))
    assert all(v["excludes"] for v in values if v["group"].startswith("m2"))
    layers = chart.to_dict()["spec"]["layer"]
    assert layers[0]["mark"]["type"] == "rule"
    assert layers[0]["encoding"]["x"] == {"datum": 0.0}  # the zero line
    svg = _render(chart)
    _no_network(svg)
    assert "m2 · (null)" in svg
    # without intervals (compare without n_boot): the zero line, no error bars
    plain = af.plot.groups(
        pr.compare("f1", "macro", by=["model", KEY], control=KEY, reference={"model": "m1"}),
        value="difference_to_reference",
    )
    assert len(plain.to_dict()["spec"]["layer"]) == 2
    with pytest.raises(af.errors.ColumnNotFoundError, match="nope"):
        af.plot.groups(diff, value="nope")


def test_heatmap_writes_each_interval() -> None:
    pr = _boot_pr()
    report = pr.evaluate("f1", "macro", by=["model", KEY], n_boot=30)
    chart = af.plot.heatmap(report, x=KEY, y="model")
    got = {(v["x"], v["y"]): v for v in _values(chart)}
    assert len(got) == report.height
    for row in report.iter_rows(named=True):
        v = got[(row[KEY] if row[KEY] is not None else "(null)", row["model"])]
        assert _close(v["low"], row["ci_low"])
        assert _close(v["high"], row["ci_high"])
    svg = _render(chart)
    _no_network(svg)
    row = report.row(0, named=True)
    assert f"[{row['ci_low']:.2f}, {row['ci_high']:.2f}]" in svg
    diff = pr.compare("f1", "macro", by=["model", KEY], reference={"model": "m1"}, n_boot=30)
    chart = af.plot.heatmap(diff, x=KEY, y="model", value="difference_to_reference")
    spec = chart.to_dict()
    assert spec["layer"][0]["encoding"]["color"]["scale"] == {"scheme": "redblue", "domainMid": 0.0}
    weights = [layer["mark"].get("fontWeight") for layer in spec["layer"][1:]]
    assert weights == ["bold", "normal"]  # differences whose interval excludes zero in bold
    assert {v["excludes"] for v in _values(chart)} == {True, False}
    _no_network(_render(chart))


def test_classes_draw_bands_for_the_reference_lines() -> None:
    pr = _boot_pr()
    chart = af.plot.classes(pr, "recall", by=["model", KEY], n_boot=30, seed=5)
    ref = pr.evaluate("recall", ["micro", "macro", "weighted"], by=["model", KEY], n_boot=30, seed=5)
    lines = [v for v in _values(chart) if v["kind"] == "reference"]
    assert len(lines) == ref.height
    for row, v in zip(ref.iter_rows(named=True), lines, strict=True):
        assert _close(v["low"], row["ci_low"])
        assert _close(v["high"], row["ci_high"])
    assert all(v["low"] is None for v in _values(chart) if v["kind"] == "class")
    from_frames = af.plot.classes(pr.per_class("recall", by=["model", KEY]), "recall", reference=ref)
    assert [v["low"] for v in _values(from_frames)] == [v["low"] for v in _values(chart)]
    svg = _render(chart)
    _no_network(svg)
    assert "95% intervals" in svg
    plain = af.plot.classes(pr, "recall", by=["model", KEY])
    assert "low" not in json.dumps(plain.to_dict())


#: hostile names (tests/strategies.py) and the chart frames' own field names
_CHART_KEYS = ["", "*", "^x$", "^.*$", "a.b", "null", "__aggframe_x__", "__aggframe_key0__", "名前"]
_CHART_KEYS += ["group", "low", "high", "label", "x", "y", "kind", "excludes"]


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("name", _CHART_KEYS)
def test_intervals_with_hostile_key_names(name: str) -> None:
    pr = _boot_pr(name)
    report = pr.evaluate("f1", ["micro", "macro"], by=["model", name], n_boot=20)
    assert report.get_column(name).null_count() > 0
    charts = [
        af.plot.groups(report),
        af.plot.heatmap(report.filter(pl.col("operator") == "macro"), x=name, y="model"),
        af.plot.classes(pr, "f1", by=["model", name], n_boot=20),
    ]
    for chart in charts:
        assert all(
            f
            in {
                "group",
                "measure",
                "operator",
                "value",
                "low",
                "high",
                "x",
                "y",
                "label",
                "class",
                "kind",
                "defined",
                "support",
                "excludes",
            }
            for f in _fields(chart.to_dict())
        )
        _no_network(_render(chart))


def _hostile_frame(n: int = 360) -> pl.DataFrame:
    """A null key next to the string "null", a real "(all)" and a key holding the separator."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, n)
    return pl.DataFrame(
        {
            "g": [[None, "null", "(all)"][i] for i in rng.integers(0, 3, n)],
            "h": [["x", "x · y"][i] for i in rng.integers(0, 2, n)],
            "y_true": y,
            "y_pred": np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n)),
        },
        schema_overrides={"g": pl.String},
    )


#: the labels of _hostile_frame's keys (and of a rolled-up key, "(all)" unquoted)
_G = {None: "(null)", "null": "null", "(all)": '"(all)"'}
_H = {"x": "x", "x · y": '"x · y"'}


def test_charts_tell_null_null_and_rolled_up_keys_apart() -> None:
    """plot_groups drew a null key and the string "null" on one row, and ("x", "y · z") and
    ("x · y", "z") alike; on a grouping-set report the marks were keys ("null · g · 0") and a
    rolled-up key read as a real null. plot_classes and plot_heatmap merged the same groups."""
    pr = af.from_labels(_hostile_frame())
    report = pr.evaluate("f1", "macro", by=["g", "h"], grouping_sets="rollup")

    def label(row: dict[str, Any]) -> str:
        g = "(all)" if row["grouping_id"] & 2 else _G[row["g"]]
        return f"{g} · {'(all)' if row['grouping_id'] & 1 else _H[row['h']]}"

    want = {label(row): row["value"] for row in report.iter_rows(named=True)}
    assert len(want) == report.height == 3 * 2 + 3 + 1
    got = {v["group"]: v["value"] for v in _values(af.plot.groups(report))}
    assert got.keys() == want.keys()
    assert all(_close(got[k], want[k]) for k in want)
    assert {"(null) · x", "null · x", '"(all)" · "x · y"', "null · (all)", "(all) · (all)"} <= got.keys()

    heat = {f"{v['y']} · {v['x']}": v["value"] for v in _values(af.plot.heatmap(report, x="h", y="g"))}
    assert heat.keys() == want.keys()  # one cell per group (the rolled-up keys were duplicates)
    assert all(_close(heat[k], want[k]) for k in want)

    per = pr.per_class("f1", by="g")
    bars = {(v["group"], v["class"]): v["value"] for v in _values(af.plot.classes(per, "f1"))}
    assert {g for g, _ in bars} == set(_G.values())
    for row in per.iter_rows(named=True):
        assert _close(bars[(_G[row["g"]], str(row["class"]))], row["value"])
    # a grouping-set reference: its total was drawn as the real null group's line
    totals = pr.evaluate("f1", ["micro", "macro"], by="g", grouping_sets="rollup")
    lines = [v for v in _values(af.plot.classes(per, "f1", reference=totals)) if v["kind"] == "reference"]
    want = {
        (_G[r["g"]], r["operator"]): r["value"]
        for r in totals.filter(pl.col("grouping_id") == 0).iter_rows(named=True)
    }
    assert {(v["group"], v["operator"]): v["value"] for v in lines} == want
