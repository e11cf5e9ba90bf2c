"""Differential tests: aggframe against aggmetrics 0.2.0 (the reference) and scikit-learn."""

from __future__ import annotations

import warnings

import aggmetrics as am
import numpy as np
import polars as pl
import pytest
from aggmetrics.tnorms import hamacher as am_hamacher
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import aggframe as af
from tests.strategies import CONVENTIONS, MEASURES, OPERATORS, indicator_matrices, label_arrays


def _reference(im: am.IndicatorMatrix, measure: str, op: str, conv: str) -> float | str:
    if op == "micro" and conv in ("zero", "one"):
        # aggmetrics ignores the convention under micro; aggframe applies it to the
        # single pooled entry (as scikit-learn's zero_division does): compare where defined
        pass
    try:
        return float(im.compute(measure, op, convention=conv))
    except ZeroDivisionError:
        return "ZeroDivisionError"


def _compare_all(pr: af.Predictions, im: am.IndicatorMatrix) -> None:
    out = pr.evaluate(MEASURES, OPERATORS, convention=list(CONVENTIONS))
    got = {(r["measure"], r["operator"], r["convention"]): r["value"] for r in out.iter_rows(named=True)}
    assert len(got) == len(MEASURES) * len(OPERATORS) * len(CONVENTIONS)
    for (measure, op, conv), value in got.items():
        ref = _reference(im, measure, op, conv)
        if ref == "ZeroDivisionError":
            # aggmetrics 0.2.0 crashes (weighted, every counted entry has zero support);
            # aggframe answers with the uniform mean of the counted entries: checked in
            # test_weighted_zero_support_is_answered
            assert op == "weighted"
            continue
        assert isinstance(ref, float)
        if op == "micro" and np.isnan(ref) and conv in ("zero", "one"):
            assert value == (0.0 if conv == "zero" else 1.0), (measure, op, conv)
            continue
        assert value == pytest.approx(ref, rel=1e-9, abs=1e-12, nan_ok=True), (measure, op, conv, value, ref)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(label_arrays())
def test_multiclass_labels_match_aggmetrics(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    im = am.IndicatorMatrix(yt, yp, task="multiclass", n_classes=m)
    _compare_all(af.from_labels(yt, yp, n_classes=m), im)


@pytest.mark.slow
@given(label_arrays(max_m=2))
def test_binary_task_matches_aggmetrics(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, _ = data
    im = am.IndicatorMatrix(yt, yp, task="binary")
    _compare_all(af.from_labels(yt, yp, task="binary", pos_label=1), im)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices())
def test_multilabel_matches_aggmetrics(data: tuple[np.ndarray, np.ndarray, None]) -> None:
    Y, P, _ = data
    _compare_all(af.from_indicator(Y, P), am.IndicatorMatrix(Y, P, task="multilabel"))


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices(masked=True))
def test_masked_matches_aggmetrics(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    Y, P, mask = data
    _compare_all(af.from_indicator(Y, P, mask=mask), am.IndicatorMatrix(Y, P, task="multilabel", mask=mask))


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("tnorm", ["product", "godel", "lukasiewicz"])
@given(data=indicator_matrices(soft=True))
def test_soft_labels_match_aggmetrics(tnorm: str, data: tuple[np.ndarray, np.ndarray, None]) -> None:
    Y, P, _ = data
    im = am.IndicatorMatrix(Y, P, task="multilabel", tnorm=tnorm)
    _compare_all(af.from_indicator(Y, P, tnorm=tnorm), im)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("tnorm", ["product", "godel", "lukasiewicz", 0.0, 0.5, 3.0])
@settings(max_examples=10)  # x 6 t-norms
@given(data=indicator_matrices(soft=True, masked=True, max_n=10, max_m=4))
def test_masked_soft_labels_match_aggmetrics(
    tnorm: str | float, data: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> None:
    # soft cells under a mask, Hamacher t-norms (a number: gamma) against aggmetrics' own
    Y, P, mask = data
    ours, theirs = (
        (af.tnorms.hamacher(tnorm), am_hamacher(tnorm)) if isinstance(tnorm, float) else (tnorm, tnorm)
    )
    im = am.IndicatorMatrix(Y, P, task="multilabel", tnorm=theirs, mask=mask)
    _compare_all(af.from_indicator(Y, P, mask=mask, tnorm=ours), im)


@st.composite
def declared_labels(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """String labels over a declared universe in any order, some of its classes never occurring."""
    m = draw(st.integers(1, 5))
    names = draw(st.permutations([f"c{i}" for i in range(m)]))
    used = draw(st.integers(1, m))
    n = draw(st.integers(1, 12))
    yt = draw(st.lists(st.integers(0, used - 1), min_size=n, max_size=n))
    yp = draw(st.lists(st.integers(0, used - 1), min_size=n, max_size=n))
    return np.array(yt), np.array(yp), names


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=25)
@given(declared_labels())
def test_declared_classes_and_enum_labels_match_aggmetrics(
    data: tuple[np.ndarray, np.ndarray, list[str]],
) -> None:
    # the universe declared by classes= (any order) or an Enum, classes absent from the data
    # included: aggmetrics one-hot over n_classes, class i named f"c{i}"
    yt, yp, names = data
    im = am.IndicatorMatrix(yt, yp, task="multiclass", n_classes=len(names))
    text = pl.DataFrame({"y_true": [f"c{i}" for i in yt], "y_pred": [f"c{i}" for i in yp]})
    _compare_all(af.from_labels(text, classes=names), im)
    enum = text.with_columns(pl.all().cast(pl.Enum(names)))
    _compare_all(af.from_labels(enum.lazy()), im)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices(soft=True, masked=True), st.floats(0.0, 4.0))
def test_hamacher_gamma_one_is_product_and_any_gamma_is_a_tnorm(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], gamma: float
) -> None:
    Y, P, mask = data
    prod = af.from_indicator(Y, P, mask=mask, tnorm="product").evaluate(["f1", "mcc"])
    ham1 = af.from_indicator(Y, P, mask=mask, tnorm=af.tnorms.hamacher(1.0)).evaluate(["f1", "mcc"])
    assert np.allclose(prod["value"].to_numpy(), ham1["value"].to_numpy(), equal_nan=True)
    # cell by cell: Lukasiewicz <= product <= Goedel, every t-norm <= Goedel (the largest),
    # and the Hamacher family lies above the product for gamma <= 1, below it beyond
    cells = {
        name: af.from_indicator(Y, P, mask=mask, tnorm=t)
        .cells("class")
        .select("tp", "fp", "fn", "tn")
        .to_numpy()
        for name, t in (
            ("luk", "lukasiewicz"),
            ("prod", "product"),
            ("ham", af.tnorms.hamacher(gamma)),
            ("min", "godel"),
        )
    }
    assert np.all(cells["luk"] <= cells["prod"] + 1e-9)
    assert np.all(cells["prod"] <= cells["min"] + 1e-9)
    assert np.all(cells["ham"] <= cells["min"] + 1e-9)
    if gamma <= 1:
        assert np.all(cells["prod"] <= cells["ham"] + 1e-9)
    else:
        assert np.all(cells["ham"] <= cells["prod"] + 1e-9)


def test_weighted_zero_support_is_answered() -> None:
    # Class 0 has all the support but is never predicted (precision undefined);
    # class 1 is predicted but has no support (precision 0, weight 0). Under
    # 'weighted' + 'exclude' the counted entries' support sums to zero: aggmetrics
    # 0.2.0 raises ZeroDivisionError, aggframe takes their uniform mean.
    Y = np.array([[1, 0], [1, 0], [1, 0]], dtype=float)
    P = np.array([[0, 1], [0, 1], [0, 0]], dtype=float)
    im = am.IndicatorMatrix(Y, P, task="multilabel")
    with pytest.raises(ZeroDivisionError):
        im.compute("precision", "weighted", convention="exclude")
    pr = af.from_indicator(Y, P)
    out = pr.evaluate("precision", "weighted", convention=["exclude", "nan", "zero"])
    assert out["value"][0] == 0.0
    assert out["n_entries"][0] == 2
    assert out["n_undefined"][0] == 1
    assert np.isnan(out["value"][1])
    assert out["value"][2] == im.compute("precision", "weighted", convention="zero") == 0.0


def test_micro_convention_applies_to_the_pooled_entry() -> None:
    # Nothing predicted: micro precision is undefined. aggmetrics returns NaN whatever
    # the convention; aggframe resolves the single pooled entry like scikit-learn.
    yt = np.array([1, 1, 0, 1])
    yp = np.zeros(4, dtype=int)
    pr = af.from_labels(yt, yp, task="binary")
    assert np.isnan(
        am.IndicatorMatrix(yt, yp, task="binary").compute("precision", "micro", convention="zero")
    )
    for conv, zd in (("zero", 0.0), ("one", 1.0)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = skm.precision_score(yt, yp, zero_division=zd)
        assert pr.compute("precision", "micro", convention=conv) == expected
    assert np.isnan(pr.compute("precision", "micro", convention="exclude"))
    assert np.isnan(pr.compute("precision", "micro", convention="nan"))


# -- scikit-learn -------------------------------------------------------------------------


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("average", ["micro", "macro", "weighted"])
@given(data=label_arrays())
def test_precision_recall_f_against_sklearn(average: str, data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    pr = af.from_labels(yt, yp, n_classes=m)
    out = pr.evaluate(["precision", "recall", "f1", "f2", "f0.5"], [average], convention="zero")
    labels = list(range(m))
    p, r, f, _ = skm.precision_recall_fscore_support(yt, yp, labels=labels, average=average, zero_division=0)
    f2 = skm.fbeta_score(yt, yp, beta=2, labels=labels, average=average, zero_division=0)
    f05 = skm.fbeta_score(yt, yp, beta=0.5, labels=labels, average=average, zero_division=0)
    assert out["value"].to_list() == pytest.approx([p, r, f, f2, f05], abs=1e-12)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("average", ["micro", "macro", "weighted", "samples"])
@given(data=indicator_matrices())
def test_multilabel_against_sklearn(average: str, data: tuple[np.ndarray, np.ndarray, None]) -> None:
    Y, P, _ = data
    if Y.shape[1] == 1:
        return  # scikit-learn does not read one column as multilabel
    pr = af.from_indicator(Y, P)
    op = "exemplar" if average == "samples" else average
    out = pr.evaluate(["precision", "recall", "f1", "jaccard"], [op], convention="zero")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, r, f, _ = skm.precision_recall_fscore_support(Y, P, average=average, zero_division=0)
        j = skm.jaccard_score(Y, P, average=average, zero_division=0)
    # no label with support: scikit-learn (1.9) averages the labels uniformly, as aggframe does
    assert out["value"].to_list() == pytest.approx([p, r, f, j], abs=1e-12)


@given(label_arrays())
def test_single_label_functions_against_sklearn(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    pr = af.from_labels(yt, yp, n_classes=m)
    assert pr.accuracy() == pytest.approx(skm.accuracy_score(yt, yp))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ba = skm.balanced_accuracy_score(yt, yp)
    # scikit-learn's balanced accuracy is macro recall over the classes that occur
    assert pr.compute("recall", "macro", convention="exclude") == pytest.approx(ba)
    jac = skm.jaccard_score(yt, yp, labels=list(range(m)), average="macro", zero_division=0)
    assert pr.compute("jaccard", "macro", convention="zero") == pytest.approx(jac)


@given(label_arrays(max_m=2))
def test_binary_mcc_kappa_against_sklearn(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, _ = data
    pr = af.from_labels(yt, yp, task="binary")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mcc = skm.matthews_corrcoef(yt, yp)
        kappa = skm.cohen_kappa_score(yt, yp)
    ours = pr.compute("mcc", "micro", convention="zero")
    assert ours == pytest.approx(mcc, abs=1e-12)
    k = pr.compute("kappa", "micro")
    if not np.isnan(kappa):
        assert k == pytest.approx(kappa, abs=1e-12)


@given(indicator_matrices())
def test_hamming_and_subset_accuracy_against_sklearn(data: tuple[np.ndarray, np.ndarray, None]) -> None:
    Y, P, _ = data
    pr = af.from_indicator(Y, P)
    assert pr.compute("hamming_loss", "micro") == pytest.approx(skm.hamming_loss(Y, P))
    assert pr.subset_accuracy() == pytest.approx(skm.accuracy_score(Y, P))


@given(indicator_matrices(masked=True))
def test_subset_accuracy_compares_the_observed_entries(
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    # "A mask restricts every operator to observed entries": an example is exactly right when
    # its observed entries are, and one without an observed entry has no value (it was
    # counted as exactly right: 0.75 where the one observed example is wrong)
    Y, P, mask = data
    observed = (mask == 1).any(axis=1)
    exact = ((Y == P) | (mask == 0)).all(axis=1)
    expected = exact[observed].mean() if observed.any() else np.nan
    assert af.from_indicator(Y, P, mask=mask).subset_accuracy() == pytest.approx(expected, nan_ok=True)


def test_aggmetrics_subset_accuracy_reads_masked_entries() -> None:
    # aggmetrics 0.2.0 is wrong here: its subset accuracy compares the unobserved entries too
    Y, P, mask = np.array([[1.0, 0.0]]), np.array([[1.0, 1.0]]), np.array([[1.0, 0.0]])
    assert af.from_indicator(Y, P, mask=mask).subset_accuracy() == 1.0
    assert am.IndicatorMatrix(Y, P, task="multilabel", mask=mask).subset_accuracy() == 0.0
    # without the unobserved column both read the one observed entry
    assert am.IndicatorMatrix(Y[:, :1], P[:, :1], task="multilabel").subset_accuracy() == 1.0


# -- worked numbers of the reference documents --------------------------------------------


def test_lodestar_averaging_example() -> None:
    pr = af.from_labels([0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0])
    out = dict(
        zip(
            ["macro", "weighted", "micro"],
            pr.evaluate("precision", ["macro", "weighted", "micro"])["value"].to_list(),
            strict=True,
        )
    )
    assert out["macro"] == pytest.approx(0.7222, abs=5e-5)
    assert out["weighted"] == pytest.approx(0.7619, abs=5e-5)
    assert out["micro"] == pytest.approx(0.7142, abs=1e-4)
    assert out["micro"] == pytest.approx(pr.accuracy())


def test_aggmetrics_quick_start_numbers() -> None:
    pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    assert round(pr.compute("f1", "macro"), 4) == 0.5222
    assert round(pr.compute("f1", "micro"), 4) == 0.5
    assert pr.accuracy() == 0.5


def test_two_classes_stay_one_hot_unless_binary_is_named() -> None:
    yt, yp = np.array([0, 1, 1, 0, 1]), np.array([0, 1, 0, 0, 0])
    pr = af.from_labels(yt, yp)
    assert pr.cells("class").height == 2
    assert pr.compute("f1", "macro") == pytest.approx(skm.f1_score(yt, yp, average="macro"))
    binary = af.from_labels(yt, yp, task="binary")
    assert binary.cells("class").height == 1
    assert binary.compute("f1", "micro") == pytest.approx(skm.f1_score(yt, yp))
