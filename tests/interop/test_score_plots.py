"""ROC / precision-recall curves and reliability diagrams (the plot extra): the charts carry the
curve frames' points (as scikit-learn draws them), render in Vega, and take null group keys,
hostile names and +inf thresholds."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import polars as pl
import pytest

import aggframe as af
from aggframe.operators.calibration import calibration
from aggframe.operators.curves import pr_curve, roc_curve

alt = pytest.importorskip("altair", reason="the plot extra (altair) is not installed")
vlc = pytest.importorskip("vl_convert", reason="the plot extra (vl-convert-python) is not installed")
sk = pytest.importorskip("sklearn.metrics")
sk_calibration = pytest.importorskip("sklearn.calibration")

KEY = 'team.a [0] "x"'  # dots, brackets, quotes: Vega-Lite would read these as paths


def _scores(seed: int = 0, n: int = 300) -> pl.DataFrame:
    """Per (example, class) scores and truths, with a group key that is sometimes null."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = np.clip(0.35 * y + rng.random(n) * 0.65, 0, 1).round(2)  # ties on purpose
    team = [
        None if r < 0.3 else t for t, r in zip(rng.choice(["red", "blue"], n), rng.random(n), strict=True)
    ]
    cls = rng.choice(["cat", "dog"], n)
    return pl.DataFrame({"g": team, "class": cls, "score": score, "y": y}, schema_overrides={"g": pl.String})


def _counts(df: pl.DataFrame, group: list[str]) -> pl.LazyFrame:
    return (
        df.lazy()
        .group_by([*group, "score"])
        .agg(pl.col("y").sum().alias("pos"), (1 - pl.col("y")).sum().alias("neg"))
    )


def _points(chart: Any, kind: str = "point") -> list[dict[str, Any]]:
    spec = chart.to_dict()
    return [v for v in spec["data"]["values"] if v.get("kind") == kind]


def _render(chart: Any) -> str:
    spec = chart.to_dict()
    json.dumps(spec, allow_nan=False)  # no NaN, no inf in the data
    svg = vlc.vegalite_to_svg(spec)
    assert "<path" in svg
    return svg


def _line(points: list[dict[str, Any]], group: str, series: str) -> list[tuple[float, float]]:
    mine = [p for p in points if p["group"] == group and p["series"] == series]
    return [(p["x"], p["y"]) for p in sorted(mine, key=lambda p: p["order"])]


def test_roc_curve_points_are_scikit_learns() -> None:
    df = _scores()
    curve = roc_curve(_counts(df, ["g", "class"]), ["g", "class"]).collect().rename({"g": KEY})
    chart = af.plot.curve(curve)
    assert type(chart).__name__ == "FacetChart"
    points = _points(chart)
    for (team, cls), part in df.group_by(["g", "class"]):
        fpr, tpr, _ = sk.roc_curve(part["y"], part["score"], drop_intermediate=False)
        got = _line(points, "(null)" if team is None else str(team), str(cls))
        np.testing.assert_allclose(np.array(got), np.column_stack([fpr, tpr]))
    chance = _points(chart, "chance")
    assert {p["group"] for p in chance} == {"red", "blue", "(null)"}
    svg = _render(chart)
    assert "(null)" in svg
    assert KEY not in json.dumps(chart.to_dict()["spec"])  # the user's name is a title, not a field
    assert chart.to_dict()["facet"]["title"] == KEY


def test_pr_curve_is_a_step_plot_in_scikit_learns_points() -> None:
    df = _scores(1)
    curve = pr_curve(_counts(df, []), []).collect()
    chart = af.plot.curve(curve)
    assert type(chart).__name__ == "LayerChart"
    precision, recall, _ = sk.precision_recall_curve(df["y"], df["score"])
    got = _line(_points(chart), "all", "all")
    np.testing.assert_allclose(np.array(got), np.column_stack([recall[::-1], precision[::-1]]))
    spec = chart.to_dict()
    assert spec["layer"][0]["mark"]["interpolate"] == "step-before"
    assert not _points(chart, "chance")
    _render(chart)


def test_calibration_points_are_scikit_learns() -> None:
    df = _scores(2)
    table = calibration(_counts(df, ["class"]), ["class"], bins=5).collect()
    chart = af.plot.calibration(table, per_class=True)
    points = _points(chart)
    for (cls,), part in df.group_by(["class"]):
        freq, mean = sk_calibration.calibration_curve(part["y"], part["score"], n_bins=5)
        got = sorted((p["x"], p["y"]) for p in points if p["series"] == cls)
        np.testing.assert_allclose(np.array(got), np.array(sorted(zip(mean, freq, strict=True))))
    assert sum(p["count"] for p in points) == df.height
    assert len(_points(chart, "perfect")) == 2
    _render(chart)
    # observed in place of frequency; by= panels
    grouped = calibration(_counts(df, ["g"]), ["g"], bins=4).collect().rename({"frequency": "observed"})
    faceted = af.plot.calibration(grouped, by="g")
    assert type(faceted).__name__ == "FacetChart"
    assert {p["group"] for p in _points(faceted)} == {"red", "blue", "(null)"}
    _render(faceted)


def test_a_curve_without_thresholds_and_with_null_coordinates() -> None:
    macro = pl.DataFrame({"fpr": [0.0, 0.5, 1.0], "tpr": [0.2, 0.7, 1.0], "n_classes": [3, 3, 3]})
    chart = af.plot.curve(macro, title="macro ROC")
    assert _line(_points(chart), "all", "all") == [(0.0, 0.2), (0.5, 0.7), (1.0, 1.0)]
    # one line: its area (the trapezoids: 0.5 * 0.45 + 0.5 * 0.85) in the title
    assert chart.to_dict()["title"] == "macro ROC (AUC 0.650)"
    # a group without negatives: null fpr, left out; +inf threshold -> null in the JSON
    no_neg = pl.DataFrame(
        {"k": ["a", "a", None], "threshold": [float("inf"), 0.5, float("inf")], "fpr": [0.0, 0.0, None]}
    ).with_columns(tpr=pl.Series([0.0, 1.0, 0.0]))
    points = _points(af.plot.curve(no_neg))
    assert [p["group"] for p in points] == ["a", "a"]
    assert points[0]["threshold"] is None
    _render(af.plot.curve(no_neg))


def test_curve_errors() -> None:
    with pytest.raises(af.errors.ColumnNotFoundError, match="fpr and tpr"):
        af.plot.curve(pl.DataFrame({"x": [0.0], "y": [1.0]}))
    with pytest.raises(af.errors.ColumnNotFoundError, match="mean_score"):
        af.plot.calibration(pl.DataFrame({"bin": [0], "frequency": [0.5]}))
    with pytest.raises(af.errors.OptionError, match="tidy Polars frame"):
        af.plot.curve([1, 2, 3])  # type: ignore[arg-type]
    with pytest.raises(af.errors.ColumnNotFoundError, match="by="):
        af.plot.curve(pl.DataFrame({"fpr": [0.0], "tpr": [1.0]}), by="nope")


def test_curves_tell_null_and_the_string_null_apart() -> None:
    """plot_curve drew a null key and the string "null" as one panel (two groups' points on one
    line); a key holding the separator is quoted, so it reads as one key."""
    df = _scores().with_columns(
        pl.col("g").replace({"red": "null", "blue": "a · b"}),
    )
    curve = roc_curve(_counts(df, ["g", "class"]), ["g", "class"]).collect()
    chart = af.plot.curve(curve)
    assert {p["group"] for p in _points(chart, "chance")} == {"(null)", "null", '"a · b"'}
    points = _points(chart)
    for (team, cls), part in df.group_by(["g", "class"]):
        fpr, tpr, _ = sk.roc_curve(part["y"], part["score"], drop_intermediate=False)
        label = {None: "(null)", "null": "null", "a · b": '"a · b"'}[team]
        np.testing.assert_allclose(np.array(_line(points, label, str(cls))), np.column_stack([fpr, tpr]))
