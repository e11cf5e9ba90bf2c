"""The HTML report of scored models that share example ids (issue 29): diagnostics as findings,
curves with their areas named and thinned to a bounded number of points, a micro reliability
diagram, and the page in Chromium at 1400 px."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import aggframe as af
from aggframe.operators.calibration import calibration
from aggframe.operators.curves import pr_curve, roc_curve
from tests.interop._browser import open_page
from tests.interop.test_html import _loads_cleanly, in_chromium

alt = pytest.importorskip("altair", reason="the plot extra (altair) is not installed")
pytest.importorskip("vl_convert", reason="the plot extra (vl-convert-python) is not installed")
pytest.importorskip("great_tables", reason="the report extra (great_tables) is not installed")
sk = pytest.importorskip("sklearn.metrics")
sk_calibration = pytest.importorskip("sklearn.calibration")

KEY = "tp's model"  # a cell name, a quote, a space


def _shared_ids(n: int = 150, k: int = 4, seed: int = 35) -> pl.DataFrame:
    """Three models (one of them a null key) scored on the same example ids: the layout of a log."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    parts = []
    for skill, model in [(2.5, "a"), (1.0, None), (0.3, "c")]:
        raw = rng.random((n, k)) + skill * np.eye(k)[truth]
        prob = raw / raw.sum(axis=1, keepdims=True)
        parts.append(
            pl.DataFrame(
                {
                    KEY: [model] * (n * k),
                    "example": np.repeat(np.arange(n), k),
                    "class": np.tile(np.arange(k), n),
                    "y": (np.repeat(truth, k) == np.tile(np.arange(k), n)).astype(np.int8),
                    "score": prob.ravel(),
                },
                schema_overrides={KEY: pl.String},
            )
        )
    return pl.concat(parts)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pr = af.from_scores(_shared_ids(), decision="argmax")
    path = tmp_path_factory.mktemp("shared") / "shared ids.html"
    af.html_report(pr, ["f1", "recall", "auroc"], ["micro", "macro"], by=KEY, path=path)
    return path


def test_diagnostics_of_models_that_share_example_ids(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    diagnostics = text.split("<h2>Diagnostics</h2>")[1]
    assert "not available" not in diagnostics
    assert "repeat" not in diagnostics
    assert "<table" in diagnostics  # the findings, as a table
    # the same findings as diagnose itself gives
    pr = af.from_scores(_shared_ids(), decision="argmax")
    found = af.diagnose(pr, ["f1", "recall"], by=KEY)
    assert found.height > 0
    assert all(code in diagnostics for code in found["code"].unique().to_list())


def test_curves_name_their_areas_in_the_page(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    pr = af.from_scores(_shared_ids(), decision="argmax")
    roc = pr.curve("roc", by=KEY).filter(pl.col(KEY) == "a", pl.col("class") == 0)
    part = _shared_ids().filter(pl.col(KEY) == "a", pl.col("class") == 0)
    auc = sk.roc_auc_score(part["y"], part["score"])
    assert roc.height > 0
    assert f"0: AUC {auc:.3f}" in text
    ap = sk.average_precision_score(part["y"], part["score"])
    assert f"0: AP {ap:.3f}" in text
    assert "reliability diagram" in text


def _long_curve(n: int = 3000, seed: int = 1) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = np.clip(0.3 * y + rng.random(n) * 0.7, 0, 1)
    df = pl.DataFrame({"score": score, "y": y})
    counts = (
        df.lazy().group_by("score").agg(pl.col("y").sum().alias("pos"), (1 - pl.col("y")).sum().alias("neg"))
    )
    return df, counts.collect().lazy(), y  # type: ignore[return-value]


def _points(chart: Any) -> list[dict[str, Any]]:
    spec = chart.to_dict()
    return [v for v in spec["data"]["values"] if v.get("kind") == "point"]


def test_a_long_curve_is_thinned_and_keeps_its_shape() -> None:
    df, counts, _ = _long_curve()
    curve = roc_curve(counts, []).collect()
    assert curve.height > 2000
    chart = af.plot.curve(curve)
    points = sorted(_points(chart), key=lambda p: p["order"])
    assert 2 < len(points) <= 200
    xs, ys = np.array([p["x"] for p in points]), np.array([p["y"] for p in points])
    # the first and last points kept; the thinned line within 1/max_points of the length of the exact one
    assert (xs[0], ys[0]) == (0.0, 0.0)
    assert (xs[-1], ys[-1]) == (1.0, 1.0)
    exact = np.column_stack([curve["fpr"].to_numpy(), curve["tpr"].to_numpy()])
    kept = np.column_stack([xs, ys])
    assert {tuple(p) for p in kept} <= {tuple(p) for p in exact}  # points of the line, none made up
    # every exact point within 1/199 of the line's length (|dx| + |dy|, at most 2) of the thinned line
    a, b = kept[:-1], kept[1:]
    d = b - a
    t = np.clip(((exact[:, None, :] - a) * d).sum(-1) / np.maximum((d * d).sum(-1), 1e-300), 0, 1)
    nearest = np.linalg.norm(exact[:, None, :] - (a + t[..., None] * d), axis=-1).min(axis=1)
    length = np.abs(np.diff(exact, axis=0)).sum()
    assert nearest.max() <= length / 199 + 1e-12
    # the area is the exact line's: scikit-learn's AUC, in the title of the one line
    auc = sk.roc_auc_score(df["y"], df["score"])
    assert chart.to_dict()["title"] == f"ROC curve (AUC {auc:.3f})"
    # every point on request
    assert len(_points(af.plot.curve(curve, max_points=None))) == curve.height
    assert len(_points(af.plot.curve(curve, max_points=50))) <= 50
    with pytest.raises(af.errors.OptionError, match="max_points"):
        af.plot.curve(curve, max_points=1)


def test_a_short_curve_is_drawn_point_for_point() -> None:
    curve = roc_curve(_long_curve(n=60)[1], []).collect()
    assert len(_points(af.plot.curve(curve))) == curve.height


def test_areas_in_the_legend_are_scikit_learns() -> None:
    rng = np.random.default_rng(3)
    n = 400
    df = pl.DataFrame(
        {"class": rng.choice(["cat", "dog"], n), "y": rng.integers(0, 2, n), "noise": rng.random(n)}
    ).with_columns(score=(0.4 * pl.col("y") + 0.6 * pl.col("noise")).round(3))
    counts = (
        df.lazy()
        .group_by("class", "score")
        .agg(pl.col("y").sum().alias("pos"), (1 - pl.col("y")).sum().alias("neg"))
    )
    for kind, make, truth in [
        ("AUC", roc_curve, sk.roc_auc_score),
        ("AP", pr_curve, sk.average_precision_score),
    ]:
        chart = af.plot.curve(make(counts, ["class"]).collect())
        legend = {p["legend"] for p in _points(chart)}
        for cls in ("cat", "dog"):
            part = df.filter(pl.col("class") == cls)
            assert f"{cls} ({kind} {truth(part['y'], part['score']):.3f})" in legend
        plain = _points(af.plot.curve(make(counts, ["class"]).collect(), areas=False))
        assert {p["legend"] for p in plain} == {"cat", "dog"}


def test_the_reliability_diagram_is_micro_by_default() -> None:
    rng = np.random.default_rng(5)
    n = 500
    df = pl.DataFrame(
        {"class": rng.choice(["a", "b", "c"], n), "y": rng.integers(0, 2, n), "score": rng.random(n).round(3)}
    )
    counts = (
        df.lazy()
        .group_by("class", "score")
        .agg(pl.col("y").sum().alias("pos"), (1 - pl.col("y")).sum().alias("neg"))
    )
    table = calibration(counts, ["class"], bins=5).collect()
    points = _points(af.plot.calibration(table))
    assert {p["series"] for p in points} == {"all"}  # one line
    freq, mean = sk_calibration.calibration_curve(df["y"], df["score"], n_bins=5)
    got = sorted((p["x"], p["y"]) for p in points)
    np.testing.assert_allclose(np.array(got), np.array(sorted(zip(mean, freq, strict=True))), atol=1e-12)
    assert sum(p["count"] for p in points) == n
    per_class = _points(af.plot.calibration(table, per_class=True))
    assert {p["series"] for p in per_class} == {"a", "b", "c"}
    quantile = calibration(counts, ["class"], bins=5, strategy="quantile").collect()
    with pytest.raises(af.errors.OptionError, match="per_class=True"):
        af.plot.calibration(quantile)
    assert {p["series"] for p in _points(af.plot.calibration(quantile, per_class=True))} == {"a", "b", "c"}
    with pytest.raises(af.errors.OptionError, match="per_class"):
        af.plot.calibration(table, per_class="yes")  # type: ignore[arg-type]


@in_chromium
def test_the_page_at_1400_px(page: Path) -> None:
    probe = "[document.body.scrollWidth, document.documentElement.scrollWidth, document.body.innerText]"
    result = open_page(page, width=1400, ask=probe)
    _loads_cleanly(result)
    assert result.charts >= 6
    body, root, text = result.probed
    assert body <= 1400
    assert root <= 1400  # no horizontal scrolling
    assert "AUC 0." in text
    assert "AP 0." in text
    assert all(url.startswith("file://") for url in result.requests), result.requests
