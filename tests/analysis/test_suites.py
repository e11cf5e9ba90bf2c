"""Suites of measures: the rank test of Remark 2, information volume, selection.

The reference is aggmetrics 0.2.0 (``aggmetrics.suites``, finite differences);
aggframe differentiates exactly (complex step), so the numbers agree to the
accuracy of finite differences.
"""

from __future__ import annotations

import itertools
import time
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import aggframe.analysis.jacobian as suites_mod
from aggframe.analysis.suites import SuiteInput, select_suite, suite_jacobian, suite_rank
from aggframe.exceptions import (
    AggframeError,
    EmptyInputError,
    InvalidValueError,
    OptionError,
    ShapeError,
    UnknownNameError,
)
from aggframe.measures.registry import Measure, get_measure, list_measures
from aggframe.ops import ratio

aggmetrics = pytest.importorskip("aggmetrics")
from aggmetrics import suites as am  # noqa: E402

ITEMS = [(name, how) for name in list_measures() for how in ("micro", "macro", "weighted")]
FEW = settings(max_examples=8, deadline=None)


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    # aggmetrics warns (nanmean of empty slices) on its finite-difference steps
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


# ---------------------------------------------------------------------------
# Data: the same random predictions as an aggmetrics IndicatorMatrix and a SuiteInput


def _cells(Y: np.ndarray, P: np.ndarray) -> np.ndarray:
    return np.column_stack(
        [(Y * P).sum(0), ((1 - Y) * P).sum(0), (Y * (1 - P)).sum(0), ((1 - Y) * (1 - P)).sum(0)]
    ).astype(float)


def _confusion(y: np.ndarray, p: np.ndarray, m: int) -> np.ndarray:
    C = np.zeros((m, m))
    np.add.at(C, (y, p), 1)
    return C


def _labels(seed: int, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m, n)
    p = np.where(rng.random(n) < rng.uniform(0.2, 0.9), y, rng.integers(0, m, n))
    return y, p


def _indicators(seed: int, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, m)) < rng.uniform(0.2, 0.7, m)).astype(int)
    noise = (rng.random((n, m)) < 0.5).astype(int)
    P = np.where(rng.random((n, m)) < rng.uniform(0.2, 0.9), Y, noise)
    return Y, P


# The page's binary example: 200 examples, 80 positives of which 60 are found,
# 30 false alarms among the 120 negatives.
PAGE_Y = np.array([1] * 80 + [0] * 120)
PAGE_P = np.array([1] * 60 + [0] * 20 + [1] * 30 + [0] * 90)
PAGE = SuiteInput("binary", np.array([60, 30, 20, 90]))


def test_page_counts_match_the_example() -> None:
    np.testing.assert_array_equal(_cells(PAGE_Y[:, None], PAGE_P[:, None])[0], PAGE.counts)


# ---------------------------------------------------------------------------
# Every figure of the reference page


def test_page_rank_of_a_basis() -> None:
    r = suite_rank(PAGE, ["recall", "specificity"], "micro")
    assert r.rank == 2
    assert r.degrees_of_freedom == 2
    assert not r.redundant
    assert r.volume == pytest.approx(1.0, abs=1e-14)
    assert r.parameters == ("recall", "specificity")


def test_page_fnr_is_one_minus_recall() -> None:
    r = suite_rank(PAGE, ["recall", "fnr"], "micro")
    assert r.rank == 1
    assert r.redundant
    assert r.volume == 0.0


def test_page_three_measures_two_dimensions() -> None:
    r = suite_rank(PAGE, ["label_accuracy", "f1", "balanced_accuracy"], "micro")
    assert (r.rank, r.redundant) == (2, True)
    assert r.volume == 0.0
    assert r.flat == ()


def test_page_select_full_registry_micro() -> None:
    s = select_suite(PAGE, aggregation="micro")
    assert s.items == (("recall", "micro"), ("specificity", "micro"))
    assert s.volume == pytest.approx(1.0, abs=1e-12)
    assert s.rank == 2
    assert s.method == "exhaustive"


def test_page_select_among_venue_measures() -> None:
    s = select_suite(PAGE, ["f1", "precision", "recall", "jaccard", "mcc"], aggregation="micro")
    assert s.items == (("precision", "micro"), ("recall", "micro"))
    assert s.volume == pytest.approx(0.949, abs=5e-4)
    ref = am.select_suite(
        aggmetrics.IndicatorMatrix(PAGE_Y, PAGE_P, task="binary"),
        ["f1", "precision", "recall", "jaccard", "mcc"],
        aggregation="micro",
    )
    assert ref.items == s.items
    assert s.volume == pytest.approx(ref.volume, abs=1e-6)


@given(seed=st.integers(0, 2**32 - 1), m=st.integers(2, 6))
@FEW
def test_page_micro_prf_on_one_hot_is_rank_one(seed: int, m: int) -> None:
    y, p = _labels(seed, 150, m)
    C = _confusion(y, p, m)
    assume(0 < np.trace(C) < C.sum())
    r = suite_rank(SuiteInput("multiclass", C), ["precision", "recall", "f1"], "micro")
    assert r.rank == 1
    assert r.redundant


# ---------------------------------------------------------------------------
# Agreement with aggmetrics (finite differences) on random data


def _compare(data: SuiteInput, im: object, items: list[tuple[str, str]]) -> None:
    J, rows = suite_jacobian(data, items)
    J_ref, names = am.suite_jacobian(im, items)
    assert rows == items
    np.testing.assert_allclose(J, J_ref, atol=1e-4)
    r, ref = suite_rank(data, items), am.suite_rank(im, items)
    assert list(r.parameters) == names
    assert r.rank == ref.rank
    assert r.degrees_of_freedom == ref.degrees_of_freedom
    assert r.flat == ref.flat
    np.testing.assert_allclose(r.singular_values, ref.singular_values, atol=1e-4)
    assert r.volume == pytest.approx(ref.volume, abs=1e-4)
    # a suite small enough to have a non-zero volume
    sub = items[:: max(1, len(items) // r.degrees_of_freedom + 1)][: r.degrees_of_freedom]
    r, ref = suite_rank(data, sub), am.suite_rank(im, sub)
    assert r.rank == ref.rank
    assert r.volume == pytest.approx(ref.volume, abs=1e-4)


def _compare_selection(data: SuiteInput, im: object, candidates: list[str], size: int) -> None:
    span = suite_rank(data, candidates).rank
    if size > span:
        # a degenerate matrix (e.g. symmetric two-class counts) spans fewer directions:
        # both refuse the size, with the same reason
        with pytest.raises(OptionError, match=f"between 1 and {span}"):
            select_suite(data, candidates, size=size)
        with pytest.raises(ValueError, match=f"between 1 and {span}"):
            am.select_suite(im, candidates, size=size)
        return
    s, ref = select_suite(data, candidates, size=size), am.select_suite(im, candidates, size=size)
    assert (s.rank, s.method) == (ref.rank, ref.method)
    assert s.volume == pytest.approx(ref.volume, abs=1e-4)
    # aggmetrics breaks exact ties by finite-difference noise, aggframe by candidate
    # order: the suites may differ only if their volumes tie
    mine = suite_rank(data, list(ref.items)).volume
    assert mine == pytest.approx(s.volume, abs=1e-4)


VENUE = ["f1", "precision", "recall", "mcc", "kappa", "specificity", "npv", "gmean", "jaccard"]


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(40, 300))
@FEW
def test_agrees_with_aggmetrics_binary(seed: int, n: int) -> None:
    Y, P = _indicators(seed, n, 1)
    counts = _cells(Y, P)[0]
    assume((counts > 0).all())
    data = SuiteInput("binary", counts)
    im = aggmetrics.IndicatorMatrix(Y[:, 0], P[:, 0], task="binary")
    _compare(data, im, ITEMS)
    _compare_selection(data, im, VENUE, 2)


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(60, 250), m=st.integers(2, 4))
@FEW
def test_agrees_with_aggmetrics_multilabel(seed: int, n: int, m: int) -> None:
    Y, P = _indicators(seed, n, m)
    counts = _cells(Y, P)
    assume((counts > 0).all())
    data = SuiteInput("multilabel", counts)
    im = aggmetrics.IndicatorMatrix(Y, P, task="multilabel")
    _compare(data, im, ITEMS)
    _compare_selection(data, im, VENUE, 3)


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(60, 250), m=st.integers(2, 4))
@FEW
def test_agrees_with_aggmetrics_multiclass(seed: int, n: int, m: int) -> None:
    y, p = _labels(seed, n, m)
    C = _confusion(y, p, m)
    # every class present, predicted and sometimes right: the measures are smooth
    # there (see test_undefined_class_is_excluded_not_a_jump for the other case)
    assume((np.diag(C) > 0).all())
    data = SuiteInput("multiclass", C)
    im = aggmetrics.IndicatorMatrix(y, p, task="multiclass", n_classes=m)
    _compare(data, im, ITEMS)
    _compare_selection(data, im, VENUE, 2)


def test_agrees_with_aggmetrics_greedy() -> None:
    y, p = _labels(7, 400, 3)
    data = SuiteInput("multiclass", _confusion(y, p, 3))
    im = aggmetrics.IndicatorMatrix(y, p, task="multiclass", n_classes=3)
    s, ref = select_suite(data, ITEMS, size=4), am.select_suite(im, ITEMS, size=4)
    assert s.method == ref.method == "greedy"
    assert s.rank == ref.rank == 4
    assert s.volume == pytest.approx(ref.volume, abs=1e-4)


def test_zero_support_class_as_in_aggmetrics() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 150)  # class 2 never occurs, but is predicted
    p = rng.integers(0, 3, 150)
    C = _confusion(y, p, 3)
    data = SuiteInput("multiclass", C)
    im = aggmetrics.IndicatorMatrix(y, p, task="multiclass", n_classes=3)
    items = [("recall", "macro"), ("specificity", "macro"), ("f1", "weighted"), ("precision", "micro")]
    _compare(data, im, items)
    J, _ = suite_jacobian(data, items)
    # the rates of class 2 (R[2,0], R[2,1]) move no example: their columns vanish
    np.testing.assert_array_equal(J[:, 4:], 0.0)
    assert suite_rank(data, items).degrees_of_freedom == 6


def test_zero_support_label_as_in_aggmetrics() -> None:
    Y, P = _indicators(11, 120, 3)
    Y[:, 1] = 0
    data = SuiteInput("multilabel", _cells(Y, P))
    im = aggmetrics.IndicatorMatrix(Y, P, task="multilabel")
    items = [("specificity", "macro"), ("fpr", "weighted"), ("label_accuracy", "micro")]
    _compare(data, im, items)
    J, _ = suite_jacobian(data, items)
    np.testing.assert_array_equal(J[:, 2], 0.0)  # recall[1]: no positives


# ---------------------------------------------------------------------------
# Exact gradients


def test_complex_step_goes_through_ratio() -> None:
    h = 1e-30
    out = ratio(np.array([1 + 1j * h, 2.0 + 0j]), np.array([2.0 + 0j, 1j * h]))
    assert out.dtype == np.complex128
    assert out[0].real == 0.5
    assert out[0].imag / h == pytest.approx(0.5, rel=1e-15)
    assert np.isnan(out[1])  # |den| = h <= EPS: undefined, as at the real point
    for name in list_measures():
        assert suites_mod._complex_step_ok(get_measure(name)), name


def test_binary_gradients_are_exact() -> None:
    tp, fp, fn, tn = PAGE.counts
    pos, neg = tp + fn, fp + tn
    r, s = tp / pos, tn / neg
    J, _ = suite_jacobian(PAGE, ["precision", "f1", "recall", "specificity"], "micro")
    den = pos * r + neg * (1 - s)
    f1_den = pos * r + pos + neg * (1 - s)
    expect = np.array(
        [
            [pos * neg * (1 - s) / den**2, pos * r * neg / den**2],
            [2 * pos * (pos + neg * (1 - s)) / f1_den**2, 2 * pos * r * neg / f1_den**2],
            [1.0, 0.0],
            [0.0, 1.0],
        ]
    )
    np.testing.assert_allclose(J, expect, rtol=1e-14, atol=1e-15)


def _force_central(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(suites_mod, "_complex_step_ok", lambda measure: False)


@pytest.mark.parametrize("kind", ["binary", "multiclass", "multilabel"])
def test_exact_gradients_match_finite_differences(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if kind == "multiclass":
        y, p = _labels(5, 300, 4)
        data = SuiteInput(kind, _confusion(y, p, 4))
    else:
        Y, P = _indicators(5, 300, 1 if kind == "binary" else 3)
        counts = _cells(Y, P)
        data = SuiteInput(kind, counts[0] if kind == "binary" else counts)
    exact, _ = suite_jacobian(data, ITEMS)
    _force_central(monkeypatch)
    central, _ = suite_jacobian(data, ITEMS)
    assert np.isfinite(exact).all()
    np.testing.assert_allclose(exact, central, atol=1e-6)
    assert np.abs(exact - central).max() > 0  # it really did take the other path


def test_non_analytic_formula_falls_back_to_central_differences() -> None:
    # np.abs drops the imaginary part: complex step would give a zero gradient
    gap = Measure("gap", lambda tp, fp, fn, tn: ratio(np.abs(tp - fp), tp + fp + fn + tn))
    assert not suites_mod._complex_step_ok(gap)
    J, rows = suite_jacobian(PAGE, [(gap, "micro")])
    assert rows == [("gap", "micro")]
    tp, fp, fn, tn = PAGE.counts
    pos, neg, n = tp + fn, fp + tn, PAGE.counts.sum()
    # gap = (pos r - neg (1 - s)) / n with tp > fp
    np.testing.assert_allclose(J, [[pos / n, neg / n]], rtol=1e-6)


def test_undefined_class_is_excluded_not_a_jump() -> None:
    # class 2 is never predicted: its precision is undefined and macro precision
    # averages the other two. aggmetrics' finite differences step into the region
    # where class 2 becomes defined and report a jump of ~1e5; the exact gradient
    # is that of the mean over the classes defined at the data.
    C = np.array([[32.0, 6, 0], [11, 27, 0], [40, 4, 0]])
    data = SuiteInput("multiclass", C)
    J, _ = suite_jacobian(data, ["precision"], "macro")
    assert np.isfinite(J).all()
    assert np.abs(J).max() < 1
    tp, col = np.diag(C), C.sum(axis=0)
    nj = C.sum(axis=1)
    # d/dR[0,1] of (tp0/col0 + tp1/col1) / 2: one example of class 0 moves to 1
    expect = 0.5 * nj[0] * (-(col[0] - tp[0]) / col[0] ** 2 - tp[1] / col[1] ** 2)
    assert J[0, 0] == pytest.approx(expect, rel=1e-12)


# ---------------------------------------------------------------------------
# Volume, flat measures, selection


@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 8))
@FEW
def test_volume_in_unit_interval_and_zero_iff_redundant(seed: int, k: int) -> None:
    Y, P = _indicators(seed, 200, 3)
    counts = _cells(Y, P)
    assume((counts > 0).all())
    rng = np.random.default_rng(seed)
    items = [ITEMS[i] for i in rng.choice(len(ITEMS), size=k, replace=False)]
    r = suite_rank(SuiteInput("multilabel", counts), items)
    assert 0.0 <= r.volume <= 1.0
    assert r.rank <= min(k, r.degrees_of_freedom)
    assert (r.volume == 0.0) == r.redundant
    if not r.redundant:
        assert r.volume == pytest.approx(float(np.prod(r.singular_values)), rel=1e-9)


def test_flat_and_undefined_measures_are_never_chosen() -> None:
    one = Measure("one", lambda tp, fp, fn, tn: ratio(tp + fp + fn + tn, tp + fp + fn + tn))
    data = SuiteInput("binary", np.array([0.0, 30, 0, 90]))  # no positives: recall undefined
    r = suite_rank(data, [one, "recall", "specificity"], "micro")
    assert r.flat == (("one", "micro"), ("recall", "micro"))
    assert r.rank == 1
    assert np.isnan(suite_jacobian(data, ["recall"], "micro")[0]).all()
    s = select_suite(data, [one, "recall", "specificity"], size=1, aggregation="micro")
    assert s.items == (("specificity", "micro"),)
    with pytest.raises(OptionError, match="between 1 and 1"):
        select_suite(data, [one, "recall", "specificity"], size=2, aggregation="micro")


def test_ties_go_to_candidate_order() -> None:
    s = select_suite(PAGE, ["fnr", "fpr", "recall", "specificity"], aggregation="micro")
    assert s.items == (("fnr", "micro"), ("fpr", "micro"))
    s = select_suite(PAGE, ["recall", "specificity", "fnr", "fpr"], aggregation="micro")
    assert s.items == (("recall", "micro"), ("specificity", "micro"))


def test_default_size_and_pairs_with_operators() -> None:
    Y, P = _indicators(2, 300, 2)
    data = SuiteInput("multilabel", _cells(Y, P))
    s = select_suite(data, [("recall", "macro"), ("recall", "micro"), "specificity", "f1", "npv"])
    r = suite_rank(data, [("recall", "macro"), ("recall", "micro"), "specificity", "f1", "npv"])
    assert s.rank == len(s.items) == r.rank == 4
    assert s.volume == pytest.approx(suite_rank(data, list(s.items)).volume, rel=1e-12)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
def test_ten_classes_full_registry_is_fast_and_greedy_reaches_the_rank() -> None:
    y, p = _labels(0, 3000, 10)
    data = SuiteInput("multiclass", _confusion(y, p, 10))
    suite_rank(data, ITEMS)  # warm-up (probes the formulas once)
    start = time.perf_counter()
    r = suite_rank(data, ITEMS)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5, elapsed
    assert r.degrees_of_freedom == 90
    assert r.rank < 90
    s = select_suite(data, ITEMS)
    assert s.method == "greedy"
    # a suite as large as the candidates allow, and not redundant
    assert len(s.items) == s.rank >= r.rank - 1
    assert 0.0 < s.volume < 1e-12
    # aggmetrics rounds volumes to 12 decimals: once they fall below 1e-12 its greedy
    # steps add arbitrary (redundant) measures. The residual criterion does not.
    im = aggmetrics.IndicatorMatrix(y, p, task="multiclass", n_classes=10)
    ref = am.select_suite(im, ITEMS, size=len(s.items))
    assert ref.rank < len(ref.items) == len(s.items)
    assert ref.volume < 1e-9


def test_greedy_prefixes_lose_volume() -> None:
    y, p = _labels(4, 500, 10)
    data = SuiteInput("multiclass", _confusion(y, p, 10))
    s = select_suite(data, ITEMS, size=5)
    assert s.method == "greedy"
    vols = [suite_rank(data, list(s.items[:k])).volume for k in range(2, 6)]
    assert all(a >= b > 0 for a, b in itertools.pairwise(vols))


# ---------------------------------------------------------------------------
# Inputs and errors


class _Duck:
    def __init__(self, data: SuiteInput) -> None:
        self.data = data

    def suite_input(self) -> SuiteInput:
        return self.data


def test_accepts_objects_with_suite_input() -> None:
    import aggframe as af

    r = af.suites.suite_rank(_Duck(PAGE), ["recall", "specificity"], "micro")  # type: ignore[arg-type]
    assert r.rank == 2
    with pytest.raises(OptionError, match="SuiteInput"):
        af.suites.suite_rank(42, ["recall"])  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="SuiteInput"):
        suite_rank(42, ["recall"])  # type: ignore[arg-type]


def test_aliases_single_label_multilabel_and_binary() -> None:
    r = suite_rank(PAGE, ["sensitivity", ("tnr", "macro"), "dice"], "micro")
    assert r.items == (("recall", "micro"), ("specificity", "macro"), ("f1", "micro"))
    one = SuiteInput("multilabel", PAGE.counts[None, :])
    J1, _ = suite_jacobian(one, ITEMS)
    J2, _ = suite_jacobian(PAGE, ITEMS)
    np.testing.assert_array_equal(J1, J2)
    assert suite_rank(one, ["f1"]).parameters == ("recall", "specificity")


@pytest.mark.parametrize("bad", ["exemplar", "samples", "EXEMPLAR"])
def test_exemplar_is_refused(bad: str) -> None:
    with pytest.raises(OptionError, match="depends on the examples, not on the confusion matrix"):
        suite_rank(PAGE, ["f1"], bad)
    with pytest.raises(OptionError, match="depends on the examples"):
        suite_rank(PAGE, [("f1", bad)], "micro")
    with pytest.raises(OptionError, match="depends on the examples"):
        select_suite(PAGE, aggregation=bad)


def test_errors() -> None:
    with pytest.raises(
        OptionError, match=r"Expected `aggregation` to be one of 'micro', 'macro', 'weighted', got 'median'"
    ):
        suite_rank(PAGE, ["f1"], "median")
    with pytest.raises(OptionError, match="'median'"):
        suite_jacobian(PAGE, [("f1", "median")])
    with pytest.raises(UnknownNameError, match="unknown measure 'f_one'"):
        suite_rank(PAGE, ["f_one"])
    with pytest.raises(OptionError, match=r"between 1 and 2.*got 3"):
        select_suite(PAGE, ["recall", "specificity", "f1"], size=3)
    with pytest.raises(OptionError, match="between 1 and 2"):
        select_suite(PAGE, ["recall", "specificity"], size=0)
    with pytest.raises(OptionError, match="between 1 and 1"):
        select_suite(PAGE, ["recall", "fnr"], size=2, aggregation="micro")
    with pytest.raises(OptionError, match="repeats"):
        suite_rank(PAGE, ["recall", "sensitivity"])
    with pytest.raises(OptionError, match="at least one"):
        suite_rank(PAGE, [])
    with pytest.raises(OptionError, match="pair"):
        suite_rank(PAGE, [("f1", "micro", "x")])  # type: ignore[list-item]
    with pytest.raises(ShapeError):
        SuiteInput("binary", np.ones(3))
    with pytest.raises(ShapeError):
        SuiteInput("multiclass", np.ones((3, 2)))
    with pytest.raises(ShapeError):
        SuiteInput("multilabel", np.ones((3, 3)))
    with pytest.raises(InvalidValueError):
        SuiteInput("binary", np.array([1.0, -1, 2, 3]))
    with pytest.raises(EmptyInputError):
        SuiteInput("binary", np.zeros(4))
    with pytest.raises(OptionError, match="kind"):
        SuiteInput("ordinal", np.ones(4))  # type: ignore[arg-type]
    assert issubclass(OptionError, AggframeError)


def test_suite_input_is_read_only_float() -> None:
    data = SuiteInput("multiclass", np.array([[3, 1], [2, 4]]))
    assert data.counts.dtype == np.float64
    with pytest.raises(ValueError, match="read-only"):
        data.counts[0, 0] = 1.0


def test_gmean_where_sqrt_is_not_differentiable_is_aggmetrics_slope() -> None:
    """gmean with a recall of 0 sits on sqrt's branch point: the complex step gave 6.1e14 (that is
    1/sqrt(h)) as a finite derivative, with no sign. A second step size tells such points apart,
    and they take the central differences aggmetrics reports (866 here)."""
    import aggmetrics as amx

    yt = np.array([1, 1, 1, 0, 0, 0, 0, 1])
    yp = np.array([0, 0, 0, 0, 1, 0, 0, 0])  # recall 0
    counts = SuiteInput("binary", np.array([0, 1, 4, 3]))
    names = ["gmean", "recall", "specificity"]
    ours, _ = suite_jacobian(counts, names, "micro")
    theirs, _ = am.suite_jacobian(amx.IndicatorMatrix(yt, yp), names, aggregation="micro")
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-9)
    assert np.abs(ours).max() < 1e4
