"""The theorems of the reference documents, and properties driven by measure metadata."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given

import aggframe as af
from tests.strategies import CONVENTIONS, MEASURES, OPERATORS, indicator_matrices, label_arrays

DECOMPOSABLE = af.list_measures(decomposable=True)
UNIT_INTERVAL = [m for m in MEASURES if m not in ("informedness", "markedness", "mcc", "kappa")]


@given(indicator_matrices(masked=True))
def test_theorem_1_micro_is_denominator_weighted_macro(
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    # For M = <a, v> / <b, v>: M(sum of cells) = sum_c b.v_c M_c / sum_c b.v_c.
    Y, P, mask = data
    pr = af.from_indicator(Y, P, mask=mask)
    cells = pr.cells("class").select("tp", "fp", "fn", "tn").to_numpy()
    micro = pr.evaluate(DECOMPOSABLE, "micro")
    for name, value in zip(micro["measure"], micro["value"], strict=True):
        m = af.get_measure(name)
        den = np.array([m.denominator(c) for c in cells])
        per_class = np.asarray(m(*cells.T), dtype=float)
        ok = den > 0
        if not ok.any():
            assert np.isnan(value)
            continue
        assert value == pytest.approx(np.sum(den[ok] * per_class[ok]) / np.sum(den[ok]), rel=1e-12)


def test_theorem_1_fails_without_coefficients() -> None:
    # The counterexample confusion matrix: rows = true class, columns = predicted.
    C = np.array([[110, 10, 10], [20, 40, 5], [25, 5, 50]])
    yt = np.repeat(np.repeat(np.arange(3), 3), C.ravel())
    yp = np.repeat(np.tile(np.arange(3), 3), C.ravel())
    pr = af.from_labels(yt, yp)
    cells = pr.cells("class").select("tp", "fp", "fn", "tn").to_numpy()
    for name in af.list_measures(decomposable=False):
        m = af.get_measure(name)
        micro = pr.compute(name, "micro")
        per_class = np.asarray(m(*cells.T), dtype=float)
        # no denominator makes the identity hold: the n-weighted mean is one candidate
        # and it differs; for mcc even the hull test can fail
        weighted = np.average(per_class, weights=cells.sum(axis=1))
        assert micro != pytest.approx(weighted, rel=1e-6), name


@given(label_arrays())
def test_theorem_2_micro_collapse_on_single_label_data(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    pr = af.from_labels(yt, yp, n_classes=m)
    values = pr.evaluate(["precision", "recall", "f1", "jaccard"], "micro")["value"].to_list()
    acc = pr.accuracy()
    assert values[0] == pytest.approx(acc)
    assert values[1] == pytest.approx(acc)
    assert values[2] == pytest.approx(acc)
    # and weighted recall is accuracy too: support weights cancel the per-class denominators
    assert pr.compute("recall", "weighted") == pytest.approx(acc)


#: each measure with its complement: M = 1 - C wherever either is defined
COMPLEMENTS = (
    ("recall", "fnr"),
    ("specificity", "fpr"),
    ("precision", "fdr"),
    ("npv", "for"),
    ("label_accuracy", "error_rate"),
)
#: what each convention becomes for the complement: filling with 0 is filling it with 1
MIRROR = {"exclude": "exclude", "nan": "nan", "zero": "one", "one": "zero"}


@given(indicator_matrices(masked=True))
def test_complements_mirror_the_conventions(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    # M and 1 - M are undefined on the same entries, so every operator's average of M is one
    # minus its average of the complement under the mirrored convention; and Youden's J is
    # 2 BA - 1 entry by entry (both undefined where recall or specificity is)
    Y, P, mask = data
    names = [name for pair in COMPLEMENTS for name in pair]
    out = af.from_indicator(Y, P, mask=mask).evaluate(
        [*names, "informedness", "balanced_accuracy"], OPERATORS, convention=list(CONVENTIONS)
    )
    v = {(r["measure"], r["operator"], r["convention"]): r["value"] for r in out.iter_rows(named=True)}
    for op in OPERATORS:
        for conv, mirror in MIRROR.items():
            for m, c in COMPLEMENTS:
                assert v[m, op, conv] == pytest.approx(1 - v[c, op, mirror], abs=1e-12, nan_ok=True), (
                    m,
                    op,
                    conv,
                )
        for conv in ("exclude", "nan"):
            j, ba = v["informedness", op, conv], v["balanced_accuracy", op, conv]
            assert j == pytest.approx(2 * ba - 1, abs=1e-12, nan_ok=True), (op, conv)


@given(indicator_matrices(masked=True))
def test_micro_f_beta_and_jaccard_from_micro_precision_and_recall(
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    # the pooled entry is one entry: F-beta is the weighted harmonic mean of its precision
    # and recall, Fowlkes-Mallows their geometric mean, Jaccard = F1 / (2 - F1)
    Y, P, mask = data
    out = af.from_indicator(Y, P, mask=mask).evaluate(
        ["precision", "recall", "f1", "f2", "f0.5", "fowlkes_mallows", "jaccard"], "micro"
    )
    p, r, f1, f2, f05, fm, jac = out["value"].to_list()
    if np.isnan(f1):
        assert np.isnan(jac)
    else:
        assert jac == pytest.approx(f1 / (2 - f1), abs=1e-12)
    if np.isnan(p) or np.isnan(r) or p + r == 0:
        return
    for beta, f in ((1.0, f1), (2.0, f2), (0.5, f05)):
        assert f == pytest.approx((1 + beta**2) * p * r / (beta**2 * p + r), abs=1e-12), beta
    assert fm == pytest.approx(np.sqrt(p * r), abs=1e-12)


@given(label_arrays())
def test_exemplar_on_single_label_data_is_accuracy(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    # "on single-label data each example is either right or wrong": right is (1, 0, 0, m - 1),
    # wrong is (0, 1, 1, m - 2), so every measure that is 1 on the first and 0 on the second
    # averages to accuracy, with no undefined example whatever the convention
    yt, yp, m = data
    pr = af.from_labels(yt, yp, n_classes=m)
    names = ["precision", "recall", "f1", "f2", "f0.5", "jaccard", "fowlkes_mallows"]
    out = pr.evaluate(names, "exemplar", convention=list(CONVENTIONS))
    assert out["value"].to_list() == pytest.approx([pr.accuracy()] * out.height, abs=1e-12)
    assert (out["n_undefined"] == 0).all()


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices(masked=True))
def test_conventions_are_ordered_zero_exclude_one(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    # For a measure in [0, 1]: filling undefined entries with 0 can only lower the
    # mean of the defined ones, filling with 1 can only raise it.
    Y, P, mask = data
    out = af.from_indicator(Y, P, mask=mask).evaluate(UNIT_INTERVAL, OPERATORS, convention=list(CONVENTIONS))
    wide = out.pivot(on="convention", index=["measure", "operator"], values="value")
    defined = wide.filter(pl.col("exclude").is_not_nan())
    assert (defined["zero"] <= defined["exclude"] + 1e-12).all()
    assert (defined["exclude"] <= defined["one"] + 1e-12).all()
    # 'nan' equals 'exclude' exactly when nothing is undefined
    counts = out.filter(pl.col("convention") == "nan")
    for row in counts.iter_rows(named=True):
        if row["n_undefined"] == 0:
            ref = wide.filter(pl.col("measure") == row["measure"], pl.col("operator") == row["operator"])
            assert row["value"] == pytest.approx(ref["exclude"][0], nan_ok=True)
        else:
            assert np.isnan(row["value"])


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices(masked=True))
def test_n_undefined_counts_the_parts(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    Y, P, mask = data
    pr = af.from_indicator(Y, P, mask=mask)
    out = pr.evaluate(["precision", "mcc"], ["macro", "exemplar"])
    for row in out.iter_rows(named=True):
        parts = pr.parts(row["measure"], row["operator"])
        assert row["n_entries"] == parts.height
        assert row["n_undefined"] == int((~parts["defined"]).sum())
        defined = parts.filter("defined")["value"]
        if defined.len():
            assert row["value"] == pytest.approx(defined.mean())


@pytest.mark.parametrize("name", MEASURES)
def test_direction_and_range(name: str) -> None:
    m = af.get_measure(name)
    perfect = float(m(10, 0, 0, 10))
    worst = float(m(0, 10, 10, 0))
    if m.greater_is_better:
        assert perfect > worst
    else:
        assert perfect < worst


@pytest.mark.parametrize("name", MEASURES)
def test_tn_dependence_at_zero_matches_the_formula(name: str) -> None:
    m = af.get_measure(name)
    a, b = m(0.0, 5.0, 5.0, 1.0), m(0.0, 5.0, 5.0, 50.0)
    depends = bool(np.isfinite([a, b]).all() and not np.isclose(a, b))
    assert depends == m.tn_dependent_at_zero


@pytest.mark.parametrize("name", MEASURES)
def test_skew_invariance_matches_the_formula(name: str) -> None:
    # rescaling the negatives (fp, tn) by k leaves a skew-invariant measure unchanged
    m = af.get_measure(name)
    base = float(m(30, 12, 10, 48))
    scaled = float(m(30, 12 * 7, 10, 48 * 7))
    assert np.isclose(base, scaled) == m.skew_invariant


def test_custom_measure_runs_under_every_operator() -> None:
    from aggframe.ops import ratio

    af.register_measure("prevalence_gap", lambda tp, fp, fn, tn: ratio(fp - fn, tp + fp + fn + tn))
    try:
        pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
        out = pr.evaluate(["prevalence_gap", "f1"], OPERATORS)
        assert out.height == 8
        assert out.filter(pl.col("measure") == "prevalence_gap")["value"].to_list() == pytest.approx(
            [0.0] * 4
        )
        # a raw division by zero is also undefined, not inf
        af.register_measure("raw_precision", lambda tp, fp, fn, tn: tp / (tp + fp))
        never = af.from_labels([0, 1], [0, 0]).parts("raw_precision", "macro")
        assert never["defined"].to_list() == [True, False]
    finally:
        af.unregister_measure("prevalence_gap")
        af.unregister_measure("raw_precision")
