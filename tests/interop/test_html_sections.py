"""Sections of the HTML report that left themselves out on valid input (found by an audit)."""

from __future__ import annotations

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
