"""The binary operator, label subsets and per-class tables (scikit-learn's average=None)."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics as skm

import aggframe as af
from tests.strategies import label_arrays


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(label_arrays(max_m=2))
def test_binary_operator_is_sklearns_binary_average(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, _ = data
    pr = af.from_labels(yt, yp, n_classes=2)
    out = pr.evaluate(["precision", "recall", "f1", "jaccard"], "binary", convention="zero")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, r, f, _ = skm.precision_recall_fscore_support(
            yt, yp, average="binary", labels=[0, 1], zero_division=0
        )
        j = skm.jaccard_score(yt, yp, average="binary", labels=[0, 1], zero_division=0)
    assert out["value"].to_list() == pytest.approx([p, r, f, j])
    assert out["operator"].unique().to_list() == ["binary"]
    # pos_label chooses the class
    alt = pr.evaluate("recall", "binary", pos_label=0, convention="zero")["value"].item()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert alt == pytest.approx(skm.recall_score(yt, yp, pos_label=0, labels=[0, 1], zero_division=0))


def test_binary_refuses_three_classes_like_lodestar() -> None:
    pr = af.from_labels([0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0])
    with pytest.raises(
        af.OptionError, match=r"needs exactly two classes, but found 3.*'macro', 'weighted' or 'micro'"
    ):
        pr.evaluate("precision", "binary")
    with pytest.raises(af.OptionError, match="pos_label 7"):
        af.from_labels([0, 1], [1, 0]).evaluate("f1", "binary", pos_label=7)


@st.composite
def subset(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int, list[int]]:
    yt, yp, m = draw(label_arrays(max_m=5))
    labels = draw(st.lists(st.integers(0, m + 1), min_size=1, max_size=m + 2, unique=True))
    return yt, yp, m, labels


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("average", ["micro", "macro", "weighted"])
@given(data=subset())
def test_label_subsets_against_sklearn(
    average: str, data: tuple[np.ndarray, np.ndarray, int, list[int]]
) -> None:
    yt, yp, m, labels = data
    pr = af.from_labels(yt, yp, n_classes=m)
    out = pr.evaluate(["precision", "recall", "f1"], average, labels=labels, convention="zero")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, r, f, _ = skm.precision_recall_fscore_support(
            yt, yp, labels=labels, average=average, zero_division=0
        )
    if average == "weighted" and not np.isin(yt, labels).any():
        return  # no support in the subset: scikit-learn returns 0, aggframe the uniform mean
    assert out["value"].to_list() == pytest.approx([p, r, f], abs=1e-12)


def test_micro_over_a_subset_is_not_accuracy() -> None:
    yt, yp = [0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0]
    pr = af.from_labels(yt, yp)
    assert pr.compute("f1", "micro") == pytest.approx(pr.accuracy())
    sub = pr.evaluate("f1", "micro", labels=[1, 2])["value"].item()
    assert sub == pytest.approx(skm.f1_score(yt, yp, labels=[1, 2], average="micro"))
    assert sub != pytest.approx(pr.accuracy())
    with pytest.raises(af.OptionError, match="labels="):
        pr.evaluate("f1", "exemplar", labels=[1])


@given(label_arrays())
def test_per_class_is_sklearns_average_none(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    pr = af.from_labels(yt, yp, n_classes=m)
    table = pr.per_class(["precision", "recall", "f1"])
    assert table.height == 3 * m
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, r, f, support = skm.precision_recall_fscore_support(
            yt, yp, labels=list(range(m)), average=None, zero_division=0
        )
    wide = table.pivot(on="measure", index=["class", "support"], values="value").sort("class").fill_null(0.0)
    assert wide["precision"].to_list() == pytest.approx(p.tolist())
    assert wide["recall"].to_list() == pytest.approx(r.tolist())
    assert wide["f1"].to_list() == pytest.approx(f.tolist())
    assert wide["support"].to_list() == pytest.approx(support.tolist())


def test_per_class_by_group_and_every_measure() -> None:
    frame = pl.read_parquet("examples/predictions.parquet")
    table = af.from_labels(frame).per_class(by="model")
    assert table.height == 3 * 6 * 21
    assert table.columns[:3] == ["model", "class", "measure"]
