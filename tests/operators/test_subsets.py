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
        af.errors.OptionError, match=r"needs at most two classes, but found 3.*'macro', 'weighted' or 'micro'"
    ):
        pr.evaluate("precision", "binary")
    with pytest.raises(af.errors.OptionError, match="pos_label 7"):
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
    with pytest.raises(af.errors.OptionError, match="labels="):
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


@pytest.mark.parametrize("ops", [["exemplar", "binary"], ["binary"], ["exemplar"], ["binary", "exemplar"]])
def test_binary_and_exemplar_without_pooled_operators_keep_each_group_its_values(ops: list[str]) -> None:
    """Without micro/macro/weighted the blocks were put side by side unsorted: values on other groups.

    Each group (a null key among them) must get scikit-learn's binary value, and the rows are
    sorted by the keys with nulls last, as with every other operator.
    """
    rng = np.random.default_rng(0)
    n = 400
    g = [None if i % 9 == 0 else f"k{i % 9}" for i in range(n)]
    df = pl.DataFrame(
        {"example": range(n), "y_true": rng.integers(0, 2, n), "y_pred": rng.integers(0, 2, n), "g": g}
    )
    out = af.from_labels(df, example="example").evaluate("f1", ops, by="g")
    keys = out["g"].unique(maintain_order=True).to_list()
    assert keys == [*sorted(k for k in keys if k is not None), None]
    for op in ops:
        rows = out.filter(pl.col("operator") == op)
        for key, value in zip(rows["g"], rows["value"], strict=True):
            part = df.filter(pl.col("g").is_null() if key is None else pl.col("g") == key)
            yt, yp = part["y_true"].to_numpy(), part["y_pred"].to_numpy()
            want = skm.f1_score(yt, yp) if op == "binary" else float(np.mean(yt == yp))
            assert value == pytest.approx(want, abs=1e-12), (op, key)


def test_pos_label_and_classes_are_classes_never_casts() -> None:
    """evaluate(..., "binary", pos_label=1.5) scored class 1 (a cast); classes=[0] on task="binary"
    predictions reported the negative class as absent (f1 0.0 where it has 2 examples)."""
    frame = pl.DataFrame({"t": [0, 1, 1, 0], "q": [0, 1, 0, 0]})
    pr = af.from_labels(frame, y_true="t", y_pred="q")
    assert pr.evaluate("f1", "binary", pos_label=1)["value"].item() == pytest.approx(
        skm.f1_score([0, 1, 1, 0], [0, 1, 0, 0])
    )
    for pos in (1.5, "1"):
        with pytest.raises(
            af.errors.OptionError, match=r"pos_label value .* cannot be a class of the class column"
        ):
            pr.evaluate("f1", "binary", pos_label=pos)
    binary = af.from_labels(frame, y_true="t", y_pred="q", task="binary")
    with pytest.raises(af.errors.OptionError, match=r"does not apply to task='binary' predictions"):
        binary.evaluate("f1", "macro", classes=[0])


def test_declared_classes_and_target_keys_are_matched_exactly() -> None:
    """n_classes={1: 2, 1.5: 5, 2: 3} on an Int64 target read 1.5 as target 1 and added the two
    universes (recall macro 0.35 over 10 entries instead of 0.70 over 5); classes=[0, 2.5] on
    Int64 labels declared class 2. Both refused by value when the predictions are built."""
    frame = pl.DataFrame(
        {
            "example": [0, 0, 1, 1, 2, 2],
            "target": [1, 2, 1, 2, 1, 2],
            "y_true": [0, 1, 1, 2, 0, 0],
            "y_pred": [0, 1, 0, 2, 0, 1],
        }
    )
    good = af.from_labels(frame, example="example", target="target", n_classes={1: 2, 2: 3})
    assert good.evaluate("recall", "macro", convention="zero")["n_entries"].item() == 5
    for keys in ({1: 2, 1.5: 5, 2: 3}, {1: 2, "1": 5, 2: 3}, {1: 2, "oops": 3}):
        with pytest.raises(
            af.errors.OptionError,
            match=r"the per-target key value .* cannot be a value of the target column 'target'",
        ):
            af.from_labels(frame, example="example", target="target", n_classes=keys)
    with pytest.raises(af.errors.OptionError, match=r"column 'y_true': the declared classes \[0, 2\.5\]"):
        af.from_labels(frame, classes=[0, 2.5])
    with pytest.raises(af.errors.OptionError, match=r"pos_label value 1\.5"):
        af.from_labels(frame.filter(pl.col("y_true") < 2), task="binary", pos_label=1.5)
