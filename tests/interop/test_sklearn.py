"""scikit-learn interop: every row of the equivalence table, scorers in model selection, the report."""

from __future__ import annotations

import pickle
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import aggframe as af
from aggframe.interop.sklearn import classification_report, make_scorer, score
from tests.strategies import indicator_matrices, label_arrays

PRF = ("precision", "recall", "f1", "f2", "f0.5", "jaccard")
# each example costs a few evaluations and a dozen scikit-learn calls: fewer examples
# than the suite's default keep this file well under 30 s
FEW = settings(max_examples=12)


def sklearn_prf(yt: np.ndarray, yp: np.ndarray, average: str | None, zero_division: float, **kw: Any) -> list:
    """scikit-learn's values of PRF, in order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns on ill-defined entries
        p, r, f, _ = skm.precision_recall_fscore_support(
            yt, yp, average=average, zero_division=zero_division, **kw
        )
        f2 = skm.fbeta_score(yt, yp, beta=2, average=average, zero_division=zero_division, **kw)
        f05 = skm.fbeta_score(yt, yp, beta=0.5, average=average, zero_division=zero_division, **kw)
        # jaccard_score has no zero_division=nan: its value stands in as None then
        j = (
            None
            if isinstance(zero_division, float) and np.isnan(zero_division)
            else skm.jaccard_score(yt, yp, average=average, zero_division=zero_division, **kw)
        )
    return [p, r, f, f2, f05, j]


def ours(pr: af.Predictions, operator: str, convention: str, **kw: Any) -> list[float]:
    return ours_by_operator(pr, [operator], convention, **kw)[operator]


def ours_by_operator(
    pr: af.Predictions, operators: list[str], convention: str, **kw: Any
) -> dict[str, list[float]]:
    """PRF under several operators from one evaluation: {operator: values in PRF order}."""
    out = pr.evaluate(list(PRF), operators, convention=convention, **kw)
    assert isinstance(out, pl.DataFrame)
    return {
        op: out.filter(pl.col("operator") == op)["value"].to_list()
        for op in out["operator"].unique(maintain_order=True)
    }


# -- the equivalence table, row by row ------------------------------------------------------


@pytest.mark.slow
@FEW
@given(data=label_arrays())
def test_rows_average_micro_macro_weighted(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    got = ours_by_operator(af.from_labels(yt, yp, n_classes=m), ["micro", "macro", "weighted"], "zero")
    for average in ("micro", "macro", "weighted"):
        expected = sklearn_prf(yt, yp, average, 0.0, labels=list(range(m)))
        assert got[average] == pytest.approx(expected, abs=1e-12), average
    expected_f1 = sklearn_prf(yt, yp, "macro", 0.0, labels=list(range(m)))[2]
    assert score(yt, yp, "f1", "macro", n_classes=m) == pytest.approx(expected_f1, abs=1e-12)


@FEW
@given(data=indicator_matrices())
def test_row_average_samples(data: tuple[np.ndarray, np.ndarray, None]) -> None:
    Y, P, _ = data
    if Y.shape[1] == 1:
        return  # scikit-learn does not read one column as multilabel
    expected = sklearn_prf(Y, P, "samples", 0.0)
    assert ours(af.from_indicator(Y, P), "exemplar", "zero") == pytest.approx(expected, abs=1e-12)
    assert score(Y, P, "jaccard", "samples") == pytest.approx(expected[5], abs=1e-12)


@pytest.mark.slow
@FEW
@given(data=label_arrays(max_m=2), pos=st.sampled_from([0, 1]))
def test_row_average_binary(data: tuple[np.ndarray, np.ndarray, int], pos: int) -> None:
    yt, yp, _ = data
    expected = sklearn_prf(yt, yp, "binary", 0.0, pos_label=pos)
    pr = af.from_labels(yt, yp, task="binary", pos_label=pos, n_classes=2)
    got = ours_by_operator(pr, ["micro", "macro", "weighted"], "zero")
    for op in ("micro", "macro", "weighted"):  # one class: every class operator agrees
        assert got[op] == pytest.approx(expected, abs=1e-12), op
    assert score(yt, yp, "precision", task="binary", pos_label=pos, n_classes=2) == pytest.approx(expected[0])


@FEW
@given(data=label_arrays(max_m=2), pos=st.sampled_from([0, 1]))
def test_row_average_binary_operator(data: tuple[np.ndarray, np.ndarray, int], pos: int) -> None:
    yt, yp, _ = data
    expected = sklearn_prf(yt, yp, "binary", 0.0, pos_label=pos)
    pr = af.from_labels(yt, yp, n_classes=2, pos_label=pos)
    assert ours(pr, "binary", "zero") == pytest.approx(expected, abs=1e-12)
    assert score(yt, yp, "f1", "binary", n_classes=2, pos_label=pos) == pytest.approx(expected[2], abs=1e-12)


@pytest.mark.parametrize(
    ("yt", "yp"),
    [
        ([1, 1, 1], [1, 1, 0]),
        ([1, 1], [1, 1]),
        ([0, 0, 0], [0, 0, 0]),
        ([0, 0, 0], [0, 1, 0]),
        ([1, 1], [0, 0]),
    ],
)
@pytest.mark.parametrize("pos", [0, 1])
def test_binary_operator_on_one_class_equals_sklearn(yt: list[int], yp: list[int], pos: int) -> None:
    """One class (a fold or a day where the other never occurs) was refused ("needs exactly two
    classes, but found 1") where scikit-learn's average='binary' scores the positive class, present
    or absent: f1_score([1, 1], [1, 1]) is 1.0."""
    a, b = np.array(yt), np.array(yp)
    for conv, zero_division in (("zero", 0.0), ("one", 1.0)):
        expected = sklearn_prf(a, b, "binary", zero_division, pos_label=pos)
        assert ours(af.from_labels(a, b, pos_label=pos), "binary", conv) == pytest.approx(expected, abs=1e-12)
    for name in ("f1", "precision", "recall"):
        want = getattr(skm, f"{name}_score")(a, b, pos_label=pos, zero_division=0.0)
        assert score(a, b, name, "binary", pos_label=pos) == pytest.approx(want, abs=1e-12), name


def test_make_scorer_binary_on_folds_with_one_class() -> None:
    """cross_val_score with make_scorer(..., "binary") failed on a fold whose labels and predictions
    hold one class; it gives scikit-learn's own scorer's numbers now."""
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.model_selection import KFold, cross_val_score

    class Below(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
        def fit(self, X: np.ndarray, y: np.ndarray) -> Below:
            self.classes_ = np.array([0, 1])
            return self

        def predict(self, X: np.ndarray) -> np.ndarray:
            return (X[:, 0] < 5).astype(int)

    y = np.array([1] * 6 + [0] * 6)
    est = Below()
    X = np.arange(12).reshape(-1, 1)
    cv = KFold(n_splits=2)  # each test fold holds one true class; the second predicts one class too
    got = cross_val_score(est, X, y, scoring=make_scorer("f1", "binary"), cv=cv)
    want = cross_val_score(est, X, y, scoring=skm.make_scorer(skm.f1_score, zero_division=0.0), cv=cv)
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_binary_operator_refuses_three_classes() -> None:
    # Lodestar's trap: a call written for two classes and later fed three raises
    with pytest.raises(af.errors.OptionError, match="at most two classes"):
        score([0, 1, 2], [0, 1, 1], "precision", "binary")


@FEW
@given(data=label_arrays())
def test_row_average_none_is_parts(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    pr = af.from_labels(yt, yp, n_classes=m)
    labels = list(range(m))
    expected = sklearn_prf(yt, yp, None, 0.0, labels=labels)
    for name, values in zip(PRF, expected, strict=True):
        got = pr.parts(name, "macro")["value"].fill_null(0.0).to_list()
        assert got == pytest.approx(list(values), abs=1e-12), name
    report = classification_report(yt, yp, measures=PRF, n_classes=m).filter(pl.col("operator").is_null())
    assert report["class"].to_list() == labels
    for name, values in zip(PRF, expected, strict=True):
        assert report[name].to_list() == pytest.approx(list(values), abs=1e-12), name
    assert report["support"].to_list() == np.bincount(yt, minlength=m).tolist()


@FEW
@given(data=label_arrays(), subset=st.lists(st.integers(0, 7), min_size=1, max_size=4, unique=True))
def test_row_labels(data: tuple[np.ndarray, np.ndarray, int], subset: list[int]) -> None:
    # a subset may name classes the data never shows (up to 7 > max_m)
    yt, yp, _ = data
    got = ours_by_operator(af.from_labels(yt, yp), ["micro", "macro", "weighted"], "zero", labels=subset)
    for average in ("micro", "macro", "weighted"):
        if average == "weighted" and np.isin(yt, subset).sum() == 0:
            continue  # no support in the subset: scikit-learn returns 0, aggframe averages uniformly
        expected = sklearn_prf(yt, yp, average, 0.0, labels=subset)
        assert got[average] == pytest.approx(expected, abs=1e-12), average
    expected_p = sklearn_prf(yt, yp, "macro", 0.0, labels=subset)[0]
    assert score(yt, yp, "precision", "macro", labels=subset) == pytest.approx(expected_p, abs=1e-12)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize(("zero_division", "convention"), [(0.0, "zero"), (1.0, "one"), (np.nan, "exclude")])
@FEW
@given(data=label_arrays(max_n=12))
def test_rows_zero_division(
    zero_division: float, convention: str, data: tuple[np.ndarray, np.ndarray, int]
) -> None:
    # small n, several classes: undefined entries are frequent
    yt, yp, m = data
    got = ours_by_operator(af.from_labels(yt, yp, n_classes=m), ["micro", "macro", "weighted"], convention)
    for average in ("micro", "macro", "weighted"):
        expected = sklearn_prf(yt, yp, average, zero_division, labels=list(range(m)))
        pairs = [(g, e) for g, e in zip(got[average], expected, strict=True) if e is not None]
        assert [g for g, _ in pairs] == pytest.approx([e for _, e in pairs], abs=1e-12, nan_ok=True), average


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize(("zero_division", "convention"), [(0.0, "zero"), (1.0, "one"), (np.nan, "exclude")])
@FEW
@given(data=indicator_matrices(max_n=8, max_m=4))
def test_rows_zero_division_of_indicator_matrices(
    zero_division: float, convention: str, data: tuple[np.ndarray, np.ndarray, None]
) -> None:
    # multilabel: every average, samples included, and the weighted average of labels
    # without support (scikit-learn then averages uniformly too)
    Y, P, _ = data
    if Y.shape[1] == 1:
        return  # scikit-learn does not read one column as multilabel
    averages = {"micro": "micro", "macro": "macro", "weighted": "weighted", "samples": "exemplar"}
    got = ours_by_operator(af.from_indicator(Y, P), list(averages.values()), convention)
    for average, operator in averages.items():
        expected = sklearn_prf(Y, P, average, zero_division)
        pairs = [(g, e) for g, e in zip(got[operator], expected, strict=True) if e is not None]
        assert [g for g, _ in pairs] == pytest.approx([e for _, e in pairs], abs=1e-12, nan_ok=True), average


@FEW
@given(data=label_arrays(max_n=12))
def test_row_zero_division_warn_is_zero(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    expected = sklearn_prf(yt, yp, "macro", "warn", labels=list(range(m)))  # type: ignore[arg-type]
    assert ours(af.from_labels(yt, yp, n_classes=m), "macro", "zero") == pytest.approx(expected, abs=1e-12)


@FEW
@given(data=label_arrays(max_n=12))
def test_row_nan_convention_has_no_sklearn_equivalent(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    # "nan": NaN exactly when scikit-learn's per-class values (zero_division=nan) hold a NaN
    yt, yp, m = data
    per_class = sklearn_prf(yt, yp, None, np.nan, labels=list(range(m)))
    got = ours(af.from_labels(yt, yp, n_classes=m), "macro", "nan")
    macro = sklearn_prf(yt, yp, "macro", np.nan, labels=list(range(m)))
    for g, values, mac in zip(got, per_class, macro, strict=True):
        if values is None:
            continue  # jaccard: no zero_division=nan in scikit-learn
        if np.isnan(values).any():
            assert np.isnan(g)
        else:
            assert g == pytest.approx(mac, abs=1e-12)


@FEW
@given(data=label_arrays(max_m=2))
def test_rows_binary_mcc_kappa(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mcc = skm.matthews_corrcoef(yt, yp)
        kappa = skm.cohen_kappa_score(yt, yp)
    assert score(yt, yp, "mcc", "micro", task="binary", n_classes=2) == pytest.approx(mcc, abs=1e-12)
    k = score(yt, yp, "kappa", "micro", task="binary", n_classes=2, convention="exclude")
    if not np.isnan(kappa):
        assert k == pytest.approx(kappa, abs=1e-12)


@FEW
@given(data=indicator_matrices())
def test_row_hamming_loss(data: tuple[np.ndarray, np.ndarray, None]) -> None:
    Y, P, _ = data
    if Y.shape[1] == 1:
        return
    assert score(Y, P, "hamming_loss", "micro") == pytest.approx(skm.hamming_loss(Y, P), abs=1e-12)


@FEW
@given(data=label_arrays())
def test_row_balanced_accuracy(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ba = skm.balanced_accuracy_score(yt, yp)
        adjusted = skm.balanced_accuracy_score(yt, yp, adjusted=True)
    assert score(yt, yp, "balanced_accuracy", "multiclass") == pytest.approx(ba, abs=1e-12)
    assert score(yt, yp, "recall", "macro", convention="exclude") == pytest.approx(ba, abs=1e-12)
    ours = score(yt, yp, "balanced_accuracy_adjusted", "multiclass", convention="exclude")
    if len(set(yt.tolist())) > 1:
        assert ours == pytest.approx(adjusted, abs=1e-12)
    else:  # one true class: scikit-learn divides by zero (NaN or -inf), aggframe says undefined
        assert np.isnan(ours)


# -- the whole-matrix rows (operator "multiclass"): the naming trap --------------------------


@FEW
@given(data=label_arrays(max_n=30))
def test_row_matthews_corrcoef(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mcc = skm.matthews_corrcoef(yt, yp)
    # scikit-learn returns 0 where the value is undefined: convention "zero"
    assert score(yt, yp, "mcc", "multiclass", convention="zero", n_classes=m) == pytest.approx(mcc, abs=1e-12)
    assert af.make_scorer("mcc", "multiclass")(_Fixed(yp), None, yt) == pytest.approx(mcc, abs=1e-12)


@pytest.mark.parametrize(
    ("measure", "weights"), [("kappa", None), ("kappa_linear", "linear"), ("kappa_quadratic", "quadratic")]
)
@FEW
@given(data=label_arrays(max_n=30))
def test_row_cohen_kappa_score(
    measure: str, weights: str | None, data: tuple[np.ndarray, np.ndarray, int]
) -> None:
    yt, yp, m = data
    labels = list(range(m))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kappa = skm.cohen_kappa_score(yt, yp, labels=labels, weights=weights)
        kappa0 = skm.cohen_kappa_score(yt, yp, labels=labels, weights=weights, replace_undefined_by=0.0)
    ours = score(yt, yp, measure, "multiclass", convention="exclude", n_classes=m)
    assert ours == pytest.approx(kappa, abs=1e-12, nan_ok=True)
    assert score(yt, yp, measure, "multiclass", convention="zero", n_classes=m) == pytest.approx(
        kappa0, abs=1e-12
    )


@FEW
@given(data=label_arrays(max_n=30))
def test_row_accuracy_and_hamming_loss_of_labels(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    accuracy = score(yt, yp, "accuracy", "multiclass", n_classes=m)
    assert accuracy == pytest.approx(skm.accuracy_score(yt, yp), abs=1e-12)
    assert af.from_labels(yt, yp).accuracy() == pytest.approx(accuracy, abs=1e-12)
    assert 1 - accuracy == pytest.approx(skm.hamming_loss(yt, yp), abs=1e-12)
    if m > 2 and (yt != yp).any():
        # the trap: "hamming_loss" is the label-wise error over one-hot cells, another number
        assert score(yt, yp, "hamming_loss", "micro", n_classes=m) != pytest.approx(skm.hamming_loss(yt, yp))


def test_row_fowlkes_mallows_score_has_no_equivalent() -> None:
    # scikit-learn's is a clustering index over pairs of examples: renaming the predicted
    # classes leaves it unchanged; aggframe's "fowlkes_mallows" is sqrt(precision * recall)
    yt = np.array([0, 0, 1, 1, 2, 2, 2, 1])
    yp = np.array([0, 1, 1, 1, 2, 0, 2, 2])
    renamed = (yp + 1) % 3
    assert skm.fowlkes_mallows_score(yt, renamed) == pytest.approx(skm.fowlkes_mallows_score(yt, yp))
    for operator in ("micro", "macro"):
        ours_value = score(yt, yp, "fowlkes_mallows", operator)
        assert ours_value != pytest.approx(skm.fowlkes_mallows_score(yt, yp))
        assert score(yt, renamed, "fowlkes_mallows", operator) != pytest.approx(ours_value)
    p, r = (score(yt, yp, m, "micro") for m in ("precision", "recall"))
    assert score(yt, yp, "fowlkes_mallows", "micro") == pytest.approx(np.sqrt(p * r), abs=1e-12)


def test_score_defaults_are_not_sklearns_binary() -> None:
    # README: score() defaults to macro (and zero); f1_score's average defaults to "binary"
    yt = np.array([0, 1, 1, 0, 1, 1, 1])
    yp = np.array([0, 1, 0, 0, 1, 0, 1])
    assert score(yt, yp, "f1") == pytest.approx(skm.f1_score(yt, yp, average="macro"), abs=1e-12)
    assert score(yt, yp, "f1") != pytest.approx(skm.f1_score(yt, yp))
    assert score(yt, yp, "f1", "binary") == pytest.approx(skm.f1_score(yt, yp), abs=1e-12)
    assert score(yt, yp, "f1", task="binary") == pytest.approx(skm.f1_score(yt, yp), abs=1e-12)


def _sklearn_namesakes() -> dict[str, list[str]]:
    """Every aggframe measure name or alias -> the ``sklearn.metrics`` functions named after it."""
    from aggframe.measures.matrix import MATRIX_MEASURES
    from aggframe.measures.registry import SCORE_MEASURES, get_measure

    names = {*MATRIX_MEASURES, *SCORE_MEASURES}
    for name in af.list_measures():
        names |= {name, *get_measure(name).aliases}
    suffixes = ("", "_score", "_loss", "_score_loss", "_corrcoef")
    found = {n: [n + s for s in suffixes if callable(getattr(skm, n + s, None))] for n in sorted(names)}
    return {n: fs for n, fs in found.items() if fs}


def test_every_sklearn_namesake_is_in_the_table() -> None:
    """A measure named like a scikit-learn function either gives its number (the table says how)
    or gives another one (the table says so): none is left for the user to find out."""
    import aggframe.interop.sklearn as module

    # the table moved from README.md to the site's page on scikit-learn
    readme = (Path(__file__).resolve().parents[2] / "docs" / "concepts" / "differences.md").read_text(
        encoding="utf-8"
    )
    namesakes = _sklearn_namesakes()
    assert {"fowlkes_mallows", "matthews", "jaccard", "hamming_loss"} <= set(namesakes)
    for name, functions in namesakes.items():
        for function in functions:
            assert f"``{function}" in (module.__doc__ or ""), (
                f"{name}: {function} is not in sklearn.py's table"
            )
            assert f"`{function}" in readme, (
                f"{name}: {function} is not in docs/concepts/differences.md's table"
            )


@FEW
@given(data=indicator_matrices())
def test_row_accuracy_score_of_indicator_matrices(data: tuple[np.ndarray, np.ndarray, None]) -> None:
    Y, P, _ = data
    if Y.shape[1] == 1:
        return
    assert af.from_indicator(Y, P).subset_accuracy() == pytest.approx(skm.accuracy_score(Y, P), abs=1e-12)


@pytest.mark.parametrize("normalize", [None, "true", "pred", "all"])
@FEW
@given(data=label_arrays(max_n=30))
def test_row_confusion_matrix(normalize: str | None, data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    labels = list(range(m))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = skm.confusion_matrix(yt, yp, labels=labels, normalize=normalize)
    got = af.from_labels(yt, yp, n_classes=m).confusion_matrix(by=None, normalize=normalize)
    column = "count" if normalize is None else "rate"
    assert got[column].fill_null(0.0).to_numpy().reshape(m, m) == pytest.approx(ref, abs=1e-12)


def test_row_classification_report_of_predictions() -> None:
    yt, yp = np.array([0, 0, 1, 1, 2, 2, 2]), np.array([0, 1, 1, 1, 2, 2, 0])
    pr = af.from_labels(yt, yp)
    assert_frame_equal(classification_report(pr), classification_report(yt, yp))
    with pytest.raises(af.errors.OptionError, match="n_classes"):
        classification_report(pr, n_classes=3)
    with pytest.raises(af.errors.OptionError, match="y_pred"):
        classification_report(pr, yp)
    report = classification_report(
        pr, measures=["precision", "mcc", "kappa_quadratic", "accuracy"], operators=["macro", "multiclass"]
    )
    assert report["operator"].to_list() == [None, None, None, "macro", "multiclass"]
    whole = report.filter(pl.col("operator") == "multiclass").row(0, named=True)
    assert whole["precision"] is None
    assert whole["mcc"] == pytest.approx(skm.matthews_corrcoef(yt, yp))
    assert whole["kappa_quadratic"] == pytest.approx(skm.cohen_kappa_score(yt, yp, weights="quadratic"))
    assert whole["accuracy"] == pytest.approx(skm.accuracy_score(yt, yp))
    assert report.filter(pl.col("operator").is_null())["kappa_quadratic"].null_count() == 3
    with pytest.raises(af.errors.OptionError, match="whole-matrix definition"):
        classification_report(pr, operators=["macro", "multiclass"])
    with pytest.raises(af.errors.OptionError, match="'multiclass'"):
        classification_report(pr, measures=["kappa_linear"])


class _Fixed:
    """An estimator with predict only: no fit, no get_params, no scikit-learn tags."""

    def __init__(self, predictions: Any) -> None:
        self.predictions = np.asarray(predictions)

    def predict(self, X: Any) -> np.ndarray:
        return self.predictions


def test_lodestar_example_through_score() -> None:
    yt, yp = [0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0]
    assert score(yt, yp, "precision", "macro") == pytest.approx(0.7222, abs=5e-5)
    assert score(yt, yp, "precision", "weighted") == pytest.approx(0.7619, abs=5e-5)
    assert score(yt, yp, "precision", "micro") == pytest.approx(skm.accuracy_score(yt, yp))


def test_score_input_errors() -> None:
    with pytest.raises(af.errors.ShapeError, match="1-D"):
        score([0, 1], [[0, 1], [1, 0]], "f1")
    with pytest.raises(af.errors.OptionError, match="indicator matrices"):
        score([[0, 1]], [[0, 1]], "f1", task="binary")
    with pytest.raises(af.errors.UnknownNameError):
        score([0, 1], [0, 1], "f7x")
    with pytest.raises(af.errors.UnknownNameError):
        score([0, 1], [0, 1], "f1", "average")


# -- scorers in model selection ---------------------------------------------------------


@pytest.fixture(scope="module")
def iris() -> tuple[np.ndarray, np.ndarray, object]:
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    return X, y, make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize(
    ("measure", "operator", "sklearn_scoring"),
    [
        ("f1", "macro", "f1_macro"),
        ("precision", "weighted", "precision_weighted"),
        ("recall", "micro", "accuracy"),
    ],
)
def test_make_scorer_in_cross_val_score(
    iris: tuple, measure: str, operator: str, sklearn_scoring: str
) -> None:
    from sklearn.model_selection import cross_val_score

    X, y, clf = iris
    got = cross_val_score(clf, X, y, scoring=make_scorer(measure, operator), cv=3)
    expected = cross_val_score(clf, X, y, scoring=sklearn_scoring, cv=3)
    assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("measure", "operator"), [("error_rate", "micro"), ("fpr", "macro"), ("fnr", "weighted")]
)
def test_lower_is_better_measures_are_negated(iris: tuple, measure: str, operator: str) -> None:
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_predict, cross_val_score

    X, y, clf = iris
    # a deliberately weak model, so the values are not all zero
    X1 = X[:, :1]
    got = cross_val_score(clf, X1, y, scoring=make_scorer(measure, operator), cv=3)
    assert (got <= 0).all()
    assert (got < 0).any()
    fitted = clone(clf).fit(X1, y)
    assert make_scorer(measure, operator)(fitted, X1, y) == pytest.approx(
        -score(y, fitted.predict(X1), measure, operator)
    )
    # the sign follows the measure's direction
    assert make_scorer("f1", operator)(fitted, X1, y) == pytest.approx(
        score(y, fitted.predict(X1), "f1", operator)
    )
    assert cross_val_predict(clf, X1, y, cv=3).shape == y.shape


def test_make_scorer_binary_operator(iris: tuple) -> None:
    from sklearn.model_selection import cross_val_score

    X, y, clf = iris
    X2, y2 = X[y > 0], (y[y > 0] == 2).astype(int)  # versicolor vs virginica: not separable
    for pos in (0, 1):
        got = cross_val_score(clf, X2, y2, scoring=make_scorer("f1", "binary", pos_label=pos), cv=3)
        expected = cross_val_score(clf, X2, y2, scoring=skm.make_scorer(skm.f1_score, pos_label=pos), cv=3)
        assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.slow
def test_make_scorer_in_grid_search(iris: tuple) -> None:
    from sklearn.model_selection import GridSearchCV, cross_val_score

    X, y, clf = iris
    grid = {"logisticregression__C": [0.01, 1.0]}
    search = GridSearchCV(clf, grid, scoring=make_scorer("mcc", "macro"), cv=3).fit(X, y)
    assert search.best_params_["logisticregression__C"] in grid["logisticregression__C"]
    means = search.cv_results_["mean_test_score"]
    assert search.best_score_ == pytest.approx(max(means))
    best = clf.set_params(**search.best_params_)
    again = cross_val_score(best, X, y, scoring=make_scorer("mcc", "macro"), cv=3).mean()
    assert again == pytest.approx(search.best_score_)
    # lower-is-better: the search minimises the error by maximising its negation
    low = GridSearchCV(clf, grid, scoring=make_scorer("error_rate", "micro"), cv=3).fit(X, y)
    assert (low.cv_results_["mean_test_score"] <= 0).all()


def test_make_scorer_options_and_pickling(iris: tuple) -> None:
    from sklearn.base import clone

    X, y, clf = iris
    scorer = make_scorer("f2", "weighted", convention="one", n_classes=3)
    restored = pickle.loads(pickle.dumps(scorer))
    fitted = clone(clf).fit(X, y)
    assert restored(fitted, X, y) == scorer(fitted, X, y)
    with pytest.raises(af.errors.OptionError, match="unknown keyword"):
        make_scorer("f1", "macro", zero_division=0)
    with pytest.raises(af.errors.UnknownNameError):
        make_scorer("not_a_measure")
    with pytest.raises(af.errors.UnknownNameError):
        make_scorer("f1", "median")
    with pytest.raises(af.errors.UnknownNameError):
        make_scorer("f1", convention="warn")


def test_make_scorer_works_on_an_estimator_with_predict_only() -> None:
    # scikit-learn 1.9's own scorers read the estimator's __sklearn_tags__ and fail here
    yt, yp = [0, 1, 2, 2, 1], [0, 2, 2, 1, 1]
    est = _Fixed(yp)
    with pytest.raises(AttributeError, match="__sklearn_tags__"):
        skm.make_scorer(skm.f1_score, average="macro")(est, None, yt)
    assert make_scorer("f1", "macro")(est, None, yt) == pytest.approx(skm.f1_score(yt, yp, average="macro"))
    assert make_scorer("error_rate", "micro")(est, None, yt) == pytest.approx(
        -score(yt, yp, "error_rate", "micro")
    )
    assert make_scorer("kappa_quadratic", "multiclass")(est, None, yt) == pytest.approx(
        skm.cohen_kappa_score(yt, yp, weights="quadratic")
    )
    with pytest.raises(af.errors.OptionError, match="sample_weight"):
        make_scorer("f1")(est, None, yt, sample_weight=[1.0] * 5)
    assert (
        repr(make_scorer("f1", "macro", n_classes=3))
        == "make_scorer('f1', 'macro', convention='zero', n_classes=3)"
    )


def test_make_scorer_refuses_early() -> None:
    with pytest.raises(af.errors.OptionError, match="no whole-matrix definition"):
        make_scorer("precision", "multiclass")
    with pytest.raises(af.errors.OptionError, match="'multiclass'"):
        make_scorer("kappa_linear", "macro")
    with pytest.raises(af.errors.OptionError, match="target column"):
        make_scorer("f1", "target")


def test_make_scorer_needs_no_sklearn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn.metrics", None)
    assert make_scorer("f1")(_Fixed([0, 1]), None, [0, 1]) == 1.0


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
def test_make_scorer_multiclass_in_cross_val_score(iris: tuple) -> None:
    from sklearn.model_selection import cross_val_score

    X, y, clf = iris
    got = cross_val_score(clf, X, y, scoring=make_scorer("mcc", "multiclass"), cv=3)
    expected = cross_val_score(clf, X, y, scoring="matthews_corrcoef", cv=3)
    assert got == pytest.approx(expected, abs=1e-12)
    balanced = cross_val_score(clf, X, y, scoring=make_scorer("balanced_accuracy", "multiclass"), cv=3)
    assert balanced == pytest.approx(cross_val_score(clf, X, y, scoring="balanced_accuracy", cv=3), abs=1e-12)


# -- classification_report ------------------------------------------------------------------


@FEW
@given(data=label_arrays())
def test_classification_report_matches_sklearn(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, _ = data
    report = classification_report(yt, yp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = skm.classification_report(yt, yp, output_dict=True, zero_division=0)
    classes = sorted(set(yt.tolist()) | set(yp.tolist()))
    assert report.columns == ["class", "operator", "precision", "recall", "f1", "support"]
    assert report["class"].to_list()[: len(classes)] == classes
    assert report["operator"].to_list()[len(classes) :] == ["micro", "macro", "weighted"]
    for row in report.iter_rows(named=True):
        key = str(row["class"]) if row["operator"] is None else f"{row['operator']} avg"
        if key == "micro avg" and "accuracy" in ref:
            assert row["precision"] == row["recall"] == row["f1"] == pytest.approx(ref["accuracy"])
            continue
        want = ref[key]
        got = [row["precision"], row["recall"], row["f1"], row["support"]]
        assert got == pytest.approx([want["precision"], want["recall"], want["f1-score"], want["support"]])


def test_classification_report_conventions_and_measures() -> None:
    yt, yp = [0, 0, 1, 1, 2], [0, 0, 0, 1, 1]  # class 2 is never predicted
    excl = classification_report(yt, yp, convention="exclude", measures=["precision", "dice", "mcc"])
    assert excl.columns == ["class", "operator", "precision", "f1", "mcc", "support"]
    assert excl.filter(pl.col("class") == 2)["precision"].item() is None
    nan = classification_report(yt, yp, convention="nan", operators=["macro", "samples"])
    assert np.isnan(nan.filter(pl.col("class") == 2)["precision"].item())
    assert nan["operator"].to_list()[-2:] == ["macro", "exemplar"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = skm.precision_score(yt, yp, average="macro", zero_division=np.nan)
    assert excl.filter(pl.col("operator") == "macro")["precision"].item() == pytest.approx(sk)


def test_classification_report_multilabel_and_strings() -> None:
    Y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    P = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0]])
    report = classification_report(Y, P, operators=["micro", "macro", "weighted", "samples"])
    ref = skm.classification_report(Y, P, output_dict=True, zero_division=0)
    assert report["support"].to_list() == [2, 2, 1, 5, 5, 5, 5]
    assert report.filter(pl.col("operator") == "exemplar")["f1"].item() == pytest.approx(
        ref["samples avg"]["f1-score"]
    )
    assert report.filter(pl.col("operator") == "micro")["f1"].item() == pytest.approx(
        ref["micro avg"]["f1-score"]
    )
    words = classification_report(["cat", "dog", "cat"], ["cat", "cat", "cat"])
    assert words["class"].to_list() == ["cat", "dog", None, None, None]


def test_classification_report_labels() -> None:
    yt, yp = [0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0]
    report = classification_report(yt, yp, labels=[2, 0, 5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = skm.classification_report(yt, yp, labels=[2, 0, 5], output_dict=True, zero_division=0)
    assert report["class"].to_list()[:3] == [2, 0, 5]
    assert report["support"].to_list()[:3] == [3, 2, 0]
    for row in report.iter_rows(named=True):
        key = str(row["class"]) if row["operator"] is None else f"{row['operator']} avg"
        want = ref[key]
        assert [row["precision"], row["recall"], row["f1"]] == pytest.approx(
            [want["precision"], want["recall"], want["f1-score"]]
        )


def test_classification_report_rejects_impossible_labels() -> None:
    with pytest.raises(af.errors.OptionError, match="labels"):
        classification_report([0, 1], [0, 1], labels=["zero"])


# ---------------------------------------------------------------------------
# The rows of the table for the functions on scores (from_scores)


def _scores(seed: int, n: int = 80, m: int = 4) -> tuple[np.ndarray, np.ndarray, pl.DataFrame]:
    """Single-label truth, probability rows on a 1/20 grid (ties), every class present; the long frame."""
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(m), rng.integers(0, m, n - m)])
    counts = np.array([rng.multinomial(20, rng.dirichlet(np.ones(m) + 2.0 * (np.arange(m) == t))) for t in y])
    P = counts / 20.0
    frame = pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), m),
            "class": np.tile(np.arange(m), n),
            "score": P.ravel(),
            "y": np.eye(m, dtype=np.int64)[y].ravel(),
        }
    )
    return y, P, frame


def _value(out: pl.DataFrame, measure: str, operator: str) -> float:
    row = out.filter((pl.col("measure") == measure) & (pl.col("operator") == operator))
    return float(row["value"].item())


@pytest.mark.parametrize("seed", [0, 1])
def test_rows_of_the_score_functions(seed: int) -> None:
    """roc_auc_score, average_precision_score, log_loss, brier_score_loss, label ranking AP: the table's calls."""
    y, P, frame = _scores(seed)
    Y = np.eye(P.shape[1], dtype=np.int64)[y]
    pr = af.from_scores(frame, decision="argmax")
    out = pr.evaluate(["auroc", "average_precision"], ["micro", "macro", "weighted", "exemplar"])
    for average in ("macro", "weighted"):
        ovr = skm.roc_auc_score(y, P, multi_class="ovr", average=average)
        assert _value(out, "auroc", average) == pytest.approx(ovr, abs=1e-12)
    assert _value(out, "auroc", "micro") == pytest.approx(skm.roc_auc_score(Y, P, average="micro"), abs=1e-12)
    assert _value(out, "auroc", "exemplar") == pytest.approx(
        skm.roc_auc_score(Y, P, average="samples"), abs=1e-12
    )
    for average in ("micro", "macro", "weighted"):
        ap = skm.average_precision_score(Y, P, average=average)
        assert _value(out, "average_precision", average) == pytest.approx(ap, abs=1e-12)
    lrap = skm.label_ranking_average_precision_score(Y, P)
    assert _value(out, "average_precision", "exemplar") == pytest.approx(lrap, abs=1e-12)
    whole = pr.evaluate(["log_loss", "brier"], "multiclass")
    labels = list(range(P.shape[1]))
    assert _value(whole, "log_loss", "multiclass") == pytest.approx(
        skm.log_loss(y, P, labels=labels), rel=1e-12
    )
    brier = skm.brier_score_loss(y, P, labels=labels)
    assert _value(whole, "brier", "multiclass") == pytest.approx(brier, rel=1e-12)


def test_rows_of_the_binary_score_functions() -> None:
    """One score column (class_=None): roc_auc_score(y, s), average_precision_score, log_loss, brier_score_loss."""
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300)
    s = np.round(np.clip(0.3 * y + 0.7 * rng.random(300), 0.01, 0.99), 2)
    pr = af.from_scores(pl.DataFrame({"y": y, "score": s}), class_=None)
    out = pr.evaluate(["auroc", "average_precision", "log_loss", "brier"], "micro")
    assert _value(out, "auroc", "micro") == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    assert _value(out, "average_precision", "micro") == pytest.approx(
        skm.average_precision_score(y, s), abs=1e-12
    )
    assert _value(out, "log_loss", "micro") == pytest.approx(skm.log_loss(y, s), rel=1e-12)
    assert _value(out, "brier", "micro") == pytest.approx(skm.brier_score_loss(y, s), rel=1e-12)


def test_rows_of_the_curves_and_calibration() -> None:
    """roc_curve(drop_intermediate=False), precision_recall_curve, calibration_curve: per class, as frames."""
    y, P, frame = _scores(3)
    pr = af.from_scores(frame, decision="argmax")
    roc, prc = pr.curve("roc"), pr.curve("pr")
    for c in range(P.shape[1]):
        fpr, tpr, thr = skm.roc_curve(y == c, P[:, c], drop_intermediate=False)
        mine = roc.filter(pl.col("class") == c)
        np.testing.assert_allclose(mine["fpr"].to_numpy(), fpr, atol=1e-12)
        np.testing.assert_allclose(mine["tpr"].to_numpy(), tpr, atol=1e-12)
        np.testing.assert_allclose(mine["threshold"].to_numpy(), thr, atol=1e-12)
        precision, recall, _ = skm.precision_recall_curve(y == c, P[:, c])
        mine = prc.filter(pl.col("class") == c).sort("threshold")
        np.testing.assert_allclose(mine["precision"].to_numpy(), precision, atol=1e-12)
        np.testing.assert_allclose(mine["recall"].to_numpy(), recall, atol=1e-12)
    from sklearn.calibration import calibration_curve

    table = pr.calibration(bins=5, strategy="quantile")
    for c in range(P.shape[1]):
        truth, mean = calibration_curve(y == c, P[:, c], n_bins=5, strategy="quantile")
        mine = table.filter(pl.col("class") == c).sort("bin")
        np.testing.assert_allclose(mine["frequency"].to_numpy(), truth, atol=1e-12)
        np.testing.assert_allclose(mine["mean_score"].to_numpy(), mean, atol=1e-12)


# -- options read exactly: labels and pos_label, column vectors, one-number options ----------


def test_labels_are_matched_exactly_never_cast() -> None:
    yt, yp = np.array([0, 1, 1, 2]), np.array([0, 1, 1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # a label of the column's type that the data does not hold is an absent class, as in scikit-learn
        for labels in ([7], [1, 7], [1.0, 2], [True]):  # True == 1, in Python and scikit-learn
            assert score(yt, yp, "f1", "macro", labels=labels) == pytest.approx(
                skm.f1_score(yt, yp, average="macro", labels=labels, zero_division=0)
            )
    # a value the class dtype cannot hold is no class of it: refused, not read as another class
    # (1.5 was class 1, '1' was 1, 2 was True: scikit-learn gives 0.0 for [1.5], aggframe gave 1.0)
    for labels in ([1.5], [1.5, 1], ["1"], [2.9]):
        with pytest.raises(
            af.errors.OptionError, match=r"labels value .* cannot be a class of the class column"
        ):
            score(yt, yp, "f1", "macro", labels=labels)
    with pytest.raises(af.errors.OptionError, match=r"labels value 1\.5"):
        af.from_labels(yt, yp).per_class("f1", labels=[1.5])
    with pytest.raises(af.errors.OptionError, match=r"labels value 1\.5"):
        classification_report(yt, yp, labels=[1.5])
    bools = np.array([True, True, False]), np.array([True, True, True])
    with pytest.raises(af.errors.OptionError, match=r"labels value 2 \(int\).*Boolean"):
        score(*bools, "f1", "macro", labels=[2])  # it was True: 0.8, scikit-learn 0.0
    assert score(*bools, "f1", "macro", labels=[1]) == pytest.approx(
        skm.f1_score(*bools, labels=[1], average="macro")
    )
    with pytest.raises(
        af.errors.OptionError, match=r"labels value 1 \(int\).*String.*labels=\['cat', 'dog'\]"
    ):
        score(np.array(["0", "1", "1"]), np.array(["0", "1", "0"]), "f1", "macro", labels=[1])
    # the binary operator's pos_label too (1.5 was class 1: f1 1.0)
    bt, bp = np.array([0, 1, 1]), np.array([0, 1, 1])
    for pos in (1.5, "1"):
        with pytest.raises(af.errors.OptionError, match=r"pos_label value .* cannot be a class"):
            score(bt, bp, "f1", "binary", pos_label=pos)
        with pytest.raises(af.errors.OptionError, match="pos_label"):
            score(bt, bp, "f1", task="binary", pos_label=pos)
    assert score(bt, bp, "f1", "binary", pos_label=1.0) == skm.f1_score(bt, bp, pos_label=1)


def test_task_binary_refuses_labels() -> None:
    # task="binary" keeps the positive class only: labels=[0] reported the real class 0 as absent (0.0)
    yt, yp = np.array([0, 1, 1, 0, 1]), np.array([0, 1, 0, 1, 1])
    with pytest.raises(af.errors.OptionError, match=r"does not apply to task='binary'"):
        score(yt, yp, "f1", task="binary", labels=[0])
    with pytest.raises(af.errors.OptionError, match=r"does not apply to task='binary'"):
        make_scorer("f1", "micro", task="binary", labels=[0])
    with pytest.raises(af.errors.OptionError, match=r"does not apply to task='binary'"):
        classification_report(yt, yp, task="binary", labels=[0])
    pr = af.from_labels(yt, yp, task="binary", pos_label=1)
    with pytest.raises(af.errors.OptionError, match=r"does not apply to task='binary'"):
        pr.per_class("f1", labels=[0])
    with pytest.raises(af.errors.OptionError, match=r"does not apply to task='binary'"):
        classification_report(pr, labels=[0])
    assert score(yt, yp, "f1", task="binary") == pytest.approx(skm.f1_score(yt, yp))


@pytest.mark.parametrize(
    ("yt", "yp"),
    [([0, 1, 2, 2], [0, 2, 2, 1]), ([0, 1, 1, 0], [0, 1, 0, 0]), (["a", "b", "b"], ["a", "a", "b"])],
)
def test_a_column_vector_is_labels(yt: list[Any], yp: list[Any]) -> None:
    # scikit-learn's column_or_1d: an n x 1 array is labels, not a one-class indicator matrix
    Yt, Yp = np.array(yt).reshape(-1, 1), np.array(yp).reshape(-1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = skm.f1_score(Yt, Yp, average="macro")
        report = skm.classification_report(Yt, Yp, output_dict=True, zero_division=0)
    assert score(Yt, Yp, "f1", "macro") == pytest.approx(want)
    assert score(Yt, np.array(yp), "f1", "macro") == pytest.approx(want)
    assert score(pl.DataFrame({"y": yt}), pl.DataFrame({"p": yp}), "f1", "macro") == pytest.approx(want)
    ours = classification_report(Yt, Yp).filter(pl.col("operator") == "macro")["f1"].item()
    assert ours == pytest.approx(report["macro avg"]["f1-score"])


def test_one_number_options_take_one_name() -> None:
    yt, yp = [0, 1, 2, 2], [0, 0, 0, 0]
    with pytest.raises(af.errors.OptionError, match=r"convention= takes one name.*\['zero', 'one'\]"):
        score(yt, yp, "precision", "macro", convention=["zero", "one"])
    with pytest.raises(af.errors.OptionError, match="convention= takes one name"):
        make_scorer("precision", "macro", convention=["one", "zero"])
    with pytest.raises(af.errors.OptionError, match="operator= takes one name"):
        score(yt, yp, "precision", ["macro", "micro"])
    with pytest.raises(af.errors.OptionError, match="measure= takes one measure"):
        score(yt, yp, ["precision", "recall"], "macro")
    assert score(yt, yp, "precision", "macro", convention="one") == pytest.approx(
        skm.precision_score(yt, yp, average="macro", zero_division=1)
    )


def test_bad_options_raise_aggframe_errors() -> None:
    with pytest.raises(
        af.errors.OptionError, match=r"labels=\) takes a list of classes, got int.*labels=\[5\]"
    ):
        score([0, 1], [0, 1], "f1", labels=5)
    with pytest.raises(af.errors.OptionError, match="takes a list of classes, got str"):
        score(["a", "b"], ["a", "b"], "f1", labels="a")
    with pytest.raises(af.errors.OptionError, match="pos_label"):
        score([0, 1], [0, 1], "f1", "binary", pos_label=[1])
    with pytest.raises(af.errors.OptionError, match="pos_label takes one class"):
        af.from_labels([0, 1], [0, 1]).evaluate("f1", "binary", pos_label=[1])
    with pytest.raises(af.errors.OptionError, match=r"measures=None"):
        classification_report([0, 1], [0, 1], measures=None)  # type: ignore[arg-type]
    with pytest.raises(af.errors.OptionError, match=r"operators=None"):
        classification_report([0, 1], [0, 1], operators=None)  # type: ignore[arg-type]
    # checked when the scorer is made, not at every fold
    with pytest.raises(af.errors.OptionError, match="takes a list of classes"):
        make_scorer("f1", labels=5)
    # one name is one measure / operator (it was read letter by letter)
    one = classification_report([0, 1, 1], [0, 1, 0], measures="f1", operators="macro")
    assert one.columns == ["class", "operator", "f1", "support"]
    assert one["operator"].to_list() == [None, None, "macro"]


def test_labels_refusal_names_the_operators_it_works_with() -> None:
    Y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    P = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0]])
    with pytest.raises(af.errors.OptionError, match=r"micro, macro and weighted only") as info:
        score(Y, P, "f1", "samples", labels=[0, 2])
    assert "and binary" not in str(info.value)
