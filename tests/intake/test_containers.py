"""Eager frames of other libraries (pandas, pyarrow) give the numbers of the same Polars frame.

An eager frame is in memory already, so it is read as Polars. Regression: under Narwhals,
pandas and pyarrow frames computed the class of a one-hot row (``when(y == 1).then(class).max()``)
as the last class, so the confusion matrix, the whole-matrix kappas, costs and coordinates of
``from_long``/``from_scores`` were silently wrong; ``from_labels`` and some score measures failed
at evaluation with raw Narwhals errors naming private columns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af

CONTAINERS: dict[str, Callable[[pl.DataFrame], Any]] = {
    "pandas": lambda f: f.to_pandas(),
    "pyarrow": lambda f: f.to_arrow(),
}


def _one_hot(n: int = 30, m: int = 3, seed: int = 0) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y, p = rng.integers(0, m, n), rng.integers(0, m, n)

    def hot(v: np.ndarray) -> np.ndarray:
        return (np.repeat(v, m) == np.tile(np.arange(m), n)).astype(np.int64)

    frame = pl.DataFrame(
        {"example": np.repeat(np.arange(n), m), "class": np.tile(np.arange(m), n), "y": hot(y), "p": hot(p)}
    )
    return frame, y, p


@pytest.mark.parametrize("container", CONTAINERS)
def test_long_form_matrix_and_costs(container: str) -> None:
    from sklearn.metrics import cohen_kappa_score, confusion_matrix, mean_absolute_error

    frame, y, p = _one_hot()
    pr = af.from_long(CONTAINERS[container](frame))
    assert pr.confusion_array()[0].tolist() == confusion_matrix(y, p).tolist()
    assert pr.compute("kappa_quadratic", "multiclass") == pytest.approx(
        cohen_kappa_score(y, p, weights="quadratic")
    )
    assert af.cost(pr, "absolute", "micro")["value"][0] == pytest.approx(mean_absolute_error(y, p))
    assert_frame_equal(pr.evaluate(["f1", "mcc"]), af.from_long(frame).evaluate(["f1", "mcc"]), abs_tol=1e-12)


@pytest.mark.parametrize("container", CONTAINERS)
def test_label_form(container: str) -> None:
    frame = pl.DataFrame(
        {"g": ["a", None, "a", "b", None, "b"], "y_true": [0, 1, 2, 2, 1, 0], "y_pred": [0, 2, 2, 1, 1, 1]}
    )
    got = af.from_labels(CONTAINERS[container](frame)).evaluate(["f1", "mcc"], by="g")
    assert_frame_equal(got, af.from_labels(frame).evaluate(["f1", "mcc"], by="g"), abs_tol=1e-12)


@pytest.mark.parametrize("container", CONTAINERS)
def test_scores(container: str) -> None:
    rng = np.random.default_rng(2)
    n, m = 20, 3
    frame = pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), m),
            "class": np.tile(np.arange(m), n),
            "score": rng.random(n * m).round(3),
            "y": (np.repeat(rng.integers(0, m, n), m) == np.tile(np.arange(m), n)).astype(np.int64),
        }
    )
    measures = ["f1", "auroc", "average_precision", "log_loss"]
    got = af.from_scores(CONTAINERS[container](frame), decision="argmax")
    expected = af.from_scores(frame, decision="argmax")
    assert_frame_equal(
        got.evaluate(measures, ["micro", "macro"]),
        expected.evaluate(measures, ["micro", "macro"]),
        abs_tol=1e-12,
    )
    assert got.confusion_array()[0].tolist() == expected.confusion_array()[0].tolist()
