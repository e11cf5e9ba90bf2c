"""Suites through Predictions: the reference figures, aggmetrics, and per-group frames."""

from __future__ import annotations

import aggmetrics as am
import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given

import aggframe as af
from tests.strategies import indicator_matrices, label_arrays

Y = np.array([1] * 80 + [0] * 120)
P = np.array([1] * 60 + [0] * 20 + [1] * 30 + [0] * 90)


def test_reference_figures_through_predictions() -> None:
    pr = af.from_labels(Y, P, task="binary")
    assert af.suites.suite_rank(pr, ["recall", "specificity"], "micro").rank == 2
    assert af.suites.suite_rank(pr, ["recall", "fnr"], "micro").rank == 1
    r = af.suites.suite_rank(pr, ["label_accuracy", "f1", "balanced_accuracy"], "micro")
    assert (r.rank, r.redundant) == (2, True)
    s = af.suites.select_suite(pr, operator="micro")
    assert s.items == (("recall", "micro"), ("specificity", "micro"))
    assert s.volume == pytest.approx(1.0)
    s = af.suites.select_suite(pr, ["f1", "precision", "recall", "jaccard", "mcc"], operator="micro")
    assert s.items == (("precision", "micro"), ("recall", "micro"))
    assert round(s.volume, 3) == 0.949


@given(label_arrays(max_n=60, max_m=4))
def test_multiclass_rank_matches_aggmetrics(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    # where a class is never predicted (or never true), aggmetrics' finite differences
    # step into the region where its value becomes defined and report a spurious
    # gradient (see aggframe.analysis.suites); compare where both are differentiable
    assume(set(yt.tolist()) == set(yp.tolist()) == set(range(m)))
    items = ["precision", "recall", "f1", ("mcc", "micro"), ("recall", "weighted")]
    ours = af.suites.suite_rank(af.from_labels(yt, yp, n_classes=m), items, "macro")
    try:
        ref = am.suite_rank(am.IndicatorMatrix(yt, yp, task="multiclass", n_classes=m), items, "macro")
    except ValueError:
        return  # aggmetrics' finite differences leave the domain (math domain error)
    assert ours.degrees_of_freedom == ref.degrees_of_freedom
    assert ours.rank == ref.rank


@given(indicator_matrices(max_m=4))
def test_long_form_multilabel_suite_uses_per_label_parameters(
    data: tuple[np.ndarray, np.ndarray, None],
) -> None:
    Yi, Pi, _ = data
    if Yi.shape[1] < 2 or ((Yi.sum(axis=1) == 1).all() and (Pi.sum(axis=1) == 1).all()):
        return  # one column is binary; one-hot rows are single-label (multiclass)
    r = af.suites.suite_rank(af.from_indicator(Yi, Pi), ["recall", "specificity"], "macro")
    assert r.degrees_of_freedom == 2 * Yi.shape[1]


def test_one_hot_long_form_is_read_as_multiclass() -> None:
    rng = np.random.default_rng(4)
    yt, yp = rng.integers(0, 3, 90), rng.integers(0, 3, 90)
    eye = np.eye(3)
    a = af.suites.suite_rank(af.from_indicator(eye[yt], eye[yp]), ["precision", "recall", "f1"], "micro")
    b = af.suites.suite_rank(af.from_labels(yt, yp), ["precision", "recall", "f1"], "micro")
    assert a.degrees_of_freedom == b.degrees_of_freedom == 6
    # Theorem 2: micro P = R = F1 on one-hot data, so the suite has rank 1
    assert a.rank == b.rank == 1


def test_per_group_frame_equals_separate_calls() -> None:
    frame = pl.read_parquet("examples/predictions.parquet")
    pr = af.from_labels(frame)
    items = ["f1", "precision", "recall", "mcc"]
    out = af.suites.suite_ranks(pr, items, "macro", by="model")
    assert out.columns == ["model", "items", "rank", "degrees_of_freedom", "redundant", "volume", "flat"]
    for row in out.iter_rows(named=True):
        alone = af.suites.suite_rank(
            af.from_labels(frame.filter(pl.col("model") == row["model"])), items, "macro"
        )
        assert row["rank"] == alone.rank
        assert row["volume"] == pytest.approx(alone.volume)
    sel = af.suites.select_suites(pr, ["f1", "precision", "recall", "jaccard"], size=2, by="model")
    assert sel.height == 3
    assert sel["items"].dtype == pl.List(pl.String)
    # one result type per function: without by, the plural functions give one row
    assert af.suites.suite_ranks(pr, items, "macro").height == 1
    # the singular functions with by= still work, with a FutureWarning
    with pytest.warns(FutureWarning, match="suite_ranks"):
        legacy = af.suites.suite_rank(pr, items, "macro", by="model")
    assert isinstance(legacy, pl.DataFrame)
    assert legacy.equals(out)
    with pytest.warns(FutureWarning, match="operator="):
        assert (
            af.suites.select_suite(pr, aggregation="macro").items
            == af.suites.select_suite(pr, operator="macro").items
        )


def test_suites_refuse_masks_soft_labels_and_exemplar() -> None:
    Yi = np.array([[1, 0], [0, 1], [1, 1]])
    with pytest.raises(af.errors.OptionError, match="masks"):
        af.suites.suite_rank(af.from_indicator(Yi, Yi, mask=np.ones_like(Yi)), ["f1"], "macro")
    with pytest.raises(af.errors.OptionError, match="soft"):
        af.suites.suite_rank(af.from_indicator(Yi * 0.5, Yi, tnorm="product"), ["f1"], "macro")
    with pytest.raises(af.errors.OptionError, match="exemplar"):
        af.suites.suite_rank(af.from_indicator(Yi, Yi), ["f1"], "exemplar")
