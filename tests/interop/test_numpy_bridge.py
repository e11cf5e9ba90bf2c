"""af.numpy against aggmetrics.aggregation (0.2.0): cells, sigma_1/m/n/k and aggregate.

Every measure x operator x convention on crisp (multiclass and multilabel), masked
and soft indicator matrices, values and parts. The documented differences (a
convention under micro, weighted with zero support, bad input) are tested as such.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from aggmetrics import IndicatorMatrix
from aggmetrics import aggregation as am
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.interop import numpy as bridge
from tests.strategies import CONVENTIONS, MEASURES, OPERATORS, indicator_matrices, label_arrays

FEW = settings(max_examples=8, deadline=None)


def _one_hot(y: np.ndarray, m: int) -> np.ndarray:
    return np.eye(m)[y]


def _reference(Y: np.ndarray, P: np.ndarray, mask: np.ndarray | None, *case: str) -> Any:
    measure, how, conv = case
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return am.aggregate(Y, P, measure, how, convention=conv, mask=mask, return_parts=True)
    except ZeroDivisionError:
        return "ZeroDivisionError"


def _check_all(
    Y: np.ndarray, P: np.ndarray, mask: np.ndarray | None = None, measures: Sequence[str] = MEASURES
) -> None:
    for measure in measures:
        for how in OPERATORS:
            for conv in CONVENTIONS:
                value, parts = bridge.aggregate(
                    Y, P, measure, how, convention=conv, mask=mask, return_parts=True
                )
                ref = _reference(Y, P, mask, measure, how, conv)
                if ref == "ZeroDivisionError":
                    # aggmetrics crashes (weighted, the counted entries have zero support in all);
                    # aggframe takes their uniform mean: test_weighted_without_support
                    assert how == "weighted"
                    continue
                ref_value, ref_parts = ref
                if how == "micro":
                    assert parts is None
                    assert ref_parts is None
                    if np.isnan(ref_value) and conv in ("zero", "one"):
                        # aggmetrics ignores the convention under micro; aggframe applies it
                        assert value == (0.0 if conv == "zero" else 1.0)
                        continue
                else:
                    assert parts is not None
                    np.testing.assert_allclose(parts, ref_parts, rtol=1e-9, atol=1e-12, equal_nan=True)
                assert value == pytest.approx(ref_value, rel=1e-9, abs=1e-12, nan_ok=True), (
                    measure,
                    how,
                    conv,
                )


#: every operator and convention on each example; a few measures each (all of them across examples,
#: and all on the fixed case below): each call is one small evaluation
SOME = st.lists(st.sampled_from(MEASURES), min_size=2, max_size=2, unique=True)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
def test_aggregate_every_measure_on_a_fixed_case() -> None:
    rng = np.random.default_rng(7)
    Y, P = rng.integers(0, 2, (12, 4)), rng.integers(0, 2, (12, 4))
    Y[:, 3] = 0  # a class without support: undefined per-class values
    P[:3] = 0  # examples without predictions: undefined per-example values
    _check_all(Y, P)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(label_arrays(max_n=25), SOME)
def test_aggregate_multiclass(data: tuple[np.ndarray, np.ndarray, int], measures: list[str]) -> None:
    yt, yp, m = data
    _check_all(_one_hot(yt, m), _one_hot(yp, m), measures=measures)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(indicator_matrices(), SOME)
def test_aggregate_multilabel(data: tuple[np.ndarray, np.ndarray, None], measures: list[str]) -> None:
    Y, P, _ = data
    _check_all(Y, P, measures=measures)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(indicator_matrices(masked=True), SOME)
def test_aggregate_masked(data: tuple[np.ndarray, np.ndarray, np.ndarray], measures: list[str]) -> None:
    Y, P, mask = data
    _check_all(Y, P, mask, measures=measures)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(indicator_matrices(soft=True), SOME)
def test_aggregate_soft_combines_by_the_product(
    data: tuple[np.ndarray, np.ndarray, None], measures: list[str]
) -> None:
    Y, P, _ = data
    _check_all(Y, P, measures=measures)


@FEW
@given(indicator_matrices(soft=True, masked=True), st.sampled_from([None, "product", "godel", "lukasiewicz"]))
def test_cells_match(data: tuple[np.ndarray, np.ndarray, np.ndarray], tnorm: str | None) -> None:
    Y, P, mask = data
    got = bridge.cells(Y, P, mask=mask, tnorm=tnorm)
    if tnorm is None:
        expected = am.cells(Y, P, mask=mask)
    else:
        expected = IndicatorMatrix(Y, P, task="multilabel", tnorm=tnorm, mask=mask).cells
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, atol=1e-12)
    for g, e in zip(got, expected, strict=True):
        assert bridge.sigma_1(g) == pytest.approx(am.sigma_1(e), abs=1e-9)
        np.testing.assert_allclose(bridge.sigma_m(g), am.sigma_m(e), atol=1e-9)
        np.testing.assert_allclose(bridge.sigma_n(g), am.sigma_n(e), atol=1e-9)


@FEW
@given(st.lists(indicator_matrices(max_n=6, max_m=3), min_size=1, max_size=4))
def test_sigma_k_sums_the_folds(folds: list[tuple[np.ndarray, np.ndarray, None]]) -> None:
    shape = folds[0][0].shape
    same_shape = [(Y, P) for Y, P, _ in folds if Y.shape == shape]
    cells = [bridge.cells(Y, P) for Y, P in same_shape]
    for g, e in zip(bridge.sigma_k(cells), am.sigma_k([am.cells(Y, P) for Y, P in same_shape]), strict=True):
        np.testing.assert_allclose(g, e)


def test_one_dimensional_input_is_one_column() -> None:
    y, p = np.array([1, 0, 1, 1]), np.array([1, 1, 0, 1])
    for g, e in zip(bridge.cells(y, p), am.cells(y, p), strict=True):
        assert g.shape == e.shape == (4, 1)
    assert bridge.aggregate(y, p, "f1") == pytest.approx(am.aggregate(y, p, "f1"))
    assert af.numpy is bridge


def test_weighted_without_support() -> None:
    # every defined class has zero support: aggmetrics raises, aggframe takes the uniform mean
    Y = np.array([[0, 1], [0, 1]])  # class 0: no support, predicted once (fdr 1); class 1: fdr undefined
    P = np.array([[1, 0], [0, 0]])
    with pytest.raises(ZeroDivisionError):
        am.aggregate(Y, P, "fdr", "weighted", convention="exclude")
    value = bridge.aggregate(Y, P, "fdr", "weighted", convention="exclude")
    assert value == pytest.approx(bridge.aggregate(Y, P, "fdr", "macro", convention="exclude"))


def test_bad_input_is_named() -> None:
    Y = np.array([[1, 0], [0, 1]])
    with pytest.raises(af.errors.ShapeError, match="shape"):
        bridge.aggregate(Y, Y[:1], "f1")
    with pytest.raises(
        af.errors.InvalidValueError, match=r"P: 1 value\(s\) outside \[0, 1\] or NaN \(e.g. P\[0, 1\]"
    ):
        bridge.cells(Y, np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(af.errors.InvalidValueError, match="a mask is 1"):
        bridge.cells(Y, Y, mask=np.full((2, 2), 0.5))
    with pytest.raises(af.errors.InvalidValueError, match="dtype"):
        bridge.cells(np.array([["a"]]), np.array([["b"]]))
    with pytest.raises(af.errors.UnknownNameError, match="t-norm"):
        bridge.cells(Y, Y, tnorm="nope")
    with pytest.raises(af.errors.OptionError, match="at least one fold"):
        bridge.sigma_k([])
    with pytest.raises(af.errors.ShapeError, match="fold 1"):
        bridge.sigma_k([bridge.cells(Y, Y), bridge.cells(Y[:1], Y[:1])])
    with pytest.raises(af.errors.ShapeError, match="ragged"):
        bridge.cells([[1, 0], [1]], [[1, 0], [1]])
    with pytest.raises(af.errors.UnknownNameError, match="operator"):
        bridge.aggregate(Y, Y, "f1", "sideways")


def test_complex_arrays_and_bad_masks_are_refused_by_what_they_are() -> None:
    """Complex indicator values lost their imaginary part (1j read as 0: f1 0.0); a mask of 2 or NaN
    in af.numpy was described as maybe soft."""
    Y = np.array([[1, 0], [0, 1]])
    for fn in (lambda: af.from_indicator(Y * 1j, Y), lambda: af.numpy.aggregate(Y * 1j, Y, "f1", "micro")):
        with pytest.raises(af.errors.InvalidValueError, match="complex128"):
            fn()
    with pytest.raises(af.errors.InvalidValueError, match="a mask says whether an entry is observed"):
        af.numpy.aggregate(Y, Y, "f1", "micro", mask=np.array([[2, 1], [1, 1]]))


def test_sparse_matrices_are_read_and_masked_arrays_are_not_guessed() -> None:
    """A SciPy sparse matrix was "shape ()" (np.asarray of it is a 0-d object array); a masked
    array's masked entries were counted as data (f1 macro 0.733 where mask= gives 0.833)."""
    sparse = pytest.importorskip("scipy.sparse")
    Y = np.array([[1, 0], [0, 1], [1, 1]])
    P = np.array([[1, 0], [1, 1], [0, 1]])
    dense = af.from_indicator(Y, P).evaluate("f1", "macro")
    assert_frame_equal(
        af.from_indicator(sparse.csr_matrix(Y), sparse.csr_matrix(P)).evaluate("f1", "macro"), dense
    )
    masked = np.ma.masked_array(Y, mask=[[0, 0], [0, 1], [0, 0]])
    with pytest.raises(af.errors.InvalidValueError, match="masked array with 1 masked entries"):
        af.from_indicator(masked, P)
    assert_frame_equal(af.from_indicator(np.ma.masked_array(Y), P).evaluate("f1", "macro"), dense)


def test_numpy_cells_take_expression_t_norms_and_sigmas_check_their_input() -> None:
    """af.numpy.cells(tnorm=af.tnorms.hamacher(0.5)) raised a raw AttributeError (its T is written on
    expressions, as from_long takes it); sigma_1(['a']), sigma_n(3), sigma_k([5]) raised raw
    NumPy errors and sigma_m of a 3-D array returned a 2 x 2 result."""
    Y = np.array([[0.3, 0.7], [1.0, 0.0]])
    P = np.array([[0.5, 0.5], [0.2, 1.0]])
    tp = af.numpy.cells(Y, P, tnorm=af.tnorms.hamacher(0.5))[0]
    g = 0.5
    want = Y * P / (g + (1 - g) * (Y + P - Y * P))
    np.testing.assert_allclose(tp, want, atol=1e-12)
    np.testing.assert_allclose(af.numpy.cells(Y, P, tnorm=np.minimum)[0], np.minimum(Y, P))
    for call, kind in (
        (lambda: af.numpy.sigma_1(["a"]), af.errors.InvalidValueError),
        (lambda: af.numpy.sigma_n(3), af.errors.ShapeError),
        (lambda: af.numpy.sigma_k([5]), af.errors.ShapeError),
        (lambda: af.numpy.sigma_m(np.ones((2, 2, 2))), af.errors.ShapeError),
    ):
        with pytest.raises(kind):
            call()
