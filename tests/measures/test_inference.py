"""Measure properties inferred from formulas, custom measures everywhere, the micro-macro gap.

Oracles: the built-ins' analytic annotations, aggmetrics 0.2.0's ``inference`` module
(``infer_properties``, ``verify_inference``), its ``aggregate`` (with an unregistered
``BinaryMeasure``) and ``micro_macro_gap``. Where aggmetrics is wrong a test says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import aggmetrics as am
import numpy as np
import polars as pl
import pytest
from aggmetrics.inference import infer_properties as am_infer
from aggmetrics.inference import verify_inference as am_verify
from hypothesis import given
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.measures.inference import PROPERTIES, same_linear
from aggframe.ops import ratio, sqrt
from tests.strategies import CONVENTIONS, OPERATORS, indicator_matrices, label_arrays

BUILTINS = tuple(af.list_measures())
DECOMPOSABLE = tuple(af.list_measures(decomposable=True))

Formula = Callable[[Any, Any, Any, Any], Any]


def _cost_accuracy(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    """Accuracy with positives counted twice: decomposable, Bayes threshold 1/3."""
    return ratio(2 * tp + tn, 2 * tp + fp + 2 * fn + tn)


def _mixed(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    """A decomposable measure with an unusual denominator (fp coefficient 2 before normalising)."""
    return ratio(3 * tp + tn, 3 * tp + 2 * fp + fn + tn)


def _gmean_spelled(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return sqrt(ratio(tp, tp + fn) * ratio(tn, tn + fp))


def _dice_spelled(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return 1.0 - ratio(fp + fn, 2 * tp + fp + fn)


def _squared_precision(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    """Precision in the interior, undefined at tp = 0 < fp where precision is 0."""
    return ratio(tp * tp, tp * (tp + fp))


def _prevalence_gap(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(fp - fn, tp + fp + fn + tn)


COST = "ti_cost_accuracy"
MIXED = "ti_mixed"
GMEAN = "ti_gmean_spelled"


@pytest.fixture(scope="module", autouse=True)
def custom_measures() -> Iterator[None]:
    """Register the custom measures from their formulas alone, for the whole module."""
    af.register_measure(COST, _cost_accuracy)
    af.register_measure(MIXED, _mixed)
    af.register_measure(GMEAN, _gmean_spelled)
    try:
        yield
    finally:
        for name in (COST, MIXED, GMEAN):
            af.unregister_measure(name)


def _one_hot(y: np.ndarray, m: int) -> np.ndarray:
    out = np.zeros((y.size, m))
    out[np.arange(y.size), y] = 1.0
    return out


# ---------------------------------------------------------------------------
# Built-ins: inference reproduces every analytic annotation


def test_verify_inference_agrees_on_all_21_builtins() -> None:
    report = af.verify_inference()
    assert report.columns == ["measure", "property", "declared", "inferred", "agree"]
    assert report["measure"].n_unique() == 21
    assert report.height == 21 * len(PROPERTIES)
    assert set(report["property"]) == set(PROPERTIES)
    disagreeing = report.filter(~pl.col("agree"))
    assert disagreeing.height == 0, disagreeing


def test_verify_inference_reports_a_wrong_annotation() -> None:
    # recall's formula annotated as precision (not skew-invariant) with the wrong direction
    liar = af.Measure(
        "liar", af.get_measure("recall").formula, greater_is_better=False, linear=((1, 0, 0, 0), (1, 1, 0, 0))
    )
    report = af.verify_inference([liar])
    wrong = set(report.filter(~pl.col("agree"))["property"])
    assert wrong == {"linear", "skew_invariant", "greater_is_better", "bayes_threshold", "erm_consistent"}


@pytest.mark.parametrize("name", BUILTINS)
def test_inferred_properties_equal_the_declared_ones(name: str) -> None:
    m = af.get_measure(name)
    p = af.infer_properties(m.formula)
    assert p.decomposable == m.decomposable
    assert p.skew_invariant == m.skew_invariant
    assert p.tn_dependent_at_zero == m.tn_dependent_at_zero
    assert p.greater_is_better == m.greater_is_better
    if m.linear is None:
        assert p.linear is None
        assert p.reason
        assert p.bayes_threshold is None
    else:
        # normalised like the built-ins, so the coefficients are the same numbers
        assert p.linear is not None
        np.testing.assert_array_equal(np.array(p.linear, dtype=float), np.array(m.linear, dtype=float))
        assert p.residual < 1e-12
        assert p.bayes_threshold == m.bayes_threshold()
        assert p.erm_consistent == m.erm_consistent()


@pytest.mark.parametrize("beta", [0.25, 0.5, 1.5, 3.0, 4.0])
def test_fbeta_coefficients_are_recovered_exactly(beta: float) -> None:
    m = af.fbeta(beta)
    p = af.infer_properties(m.formula)
    assert p.linear is not None
    assert m.linear is not None
    np.testing.assert_allclose(np.array(p.linear), np.array(m.linear), rtol=1e-12)


def test_inference_is_deterministic_per_seed() -> None:
    assert af.infer_properties(_mixed, seed=3) == af.infer_properties(_mixed, seed=3)
    assert af.infer_properties(_mixed, seed=3).linear == af.infer_properties(_mixed, seed=4).linear


def test_measure_exposes_numerator_and_denominator_coefficients() -> None:
    f2 = af.get_measure("f2")
    assert f2.numerator_coefficients == (5, 0, 0, 0)
    assert f2.denominator_coefficients == (5, 1, 4, 0)
    assert f2.denominator((1, 2, 3, 4)) == 5 + 2 + 12
    mcc = af.get_measure("mcc")
    assert mcc.numerator_coefficients is None
    assert mcc.denominator_coefficients is None


# ---------------------------------------------------------------------------
# Against aggmetrics' inference


def test_aggmetrics_verify_inference_agrees_with_ours() -> None:
    ref = am_verify()
    ours = af.verify_inference()
    inferred = {(r["measure"], r["property"]): r["inferred"] for r in ours.iter_rows(named=True)}
    assert set(ref) == set(BUILTINS)
    for name, rec in ref.items():
        assert rec["agrees"], name
        assert str(rec["decomposable_inferred"]) == inferred[name, "decomposable"]
        assert str(rec["skew_inferred"]) == inferred[name, "skew_invariant"]
        assert str(rec["tn_inferred"]) == inferred[name, "tn_dependent_at_zero"]
        assert str(rec["direction_inferred"]) == inferred[name, "greater_is_better"]


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_coefficients_are_proportional_to_aggmetrics(name: str) -> None:
    ref = am_infer(am.get_measure(name).fn)
    ours = af.infer_properties(name)
    assert same_linear(ours.linear, ref.linear)  # type: ignore[arg-type]


CUSTOM: dict[str, Formula] = {
    "cost_accuracy": _cost_accuracy,
    "mixed": _mixed,
    "gmean_spelled": _gmean_spelled,
    "dice_spelled": _dice_spelled,
    "tp_share": lambda tp, fp, fn, tn: ratio(tp, tp + fp + fn + tn),
    "fm_spelled": lambda tp, fp, fn, tn: sqrt(ratio(tp, tp + fp) * ratio(tp, tp + fn)),
    "harmonic_ba": lambda tp, fp, fn, tn: ratio(
        2 * ratio(tp, tp + fn) * ratio(tn, tn + fp), ratio(tp, tp + fn) + ratio(tn, tn + fp)
    ),
}


@pytest.mark.parametrize("name", list(CUSTOM))
def test_custom_formulas_agree_with_aggmetrics(name: str) -> None:
    formula = CUSTOM[name]
    ref = am_infer(formula)
    ours = af.infer_properties(formula)
    assert ours.decomposable == ref.decomposable
    assert same_linear(ours.linear, ref.linear)  # type: ignore[arg-type]
    assert ours.skew_invariant == ref.skew_invariant
    assert ours.tn_dependent_at_zero == ref.tn_dependent_at_zero
    assert ours.greater_is_better == ref.greater_is_better


def test_aggmetrics_is_wrong_on_a_formula_undefined_at_the_boundary() -> None:
    """aggmetrics validates its fit in the interior only.

    ``tp**2 / (tp (tp + fp))`` is precision wherever ``tp > 0`` but undefined at
    ``tp = 0 < fp``. aggmetrics calls it decomposable with precision's
    coefficients, yet on a cell table with such a class micro is not the
    denominator-weighted mean of the per-class values (Theorem 1 fails): the
    class's false positives count in the pooled denominator and nowhere in the
    weighted mean. aggframe infers it non-decomposable and says where.
    """
    ref = am_infer(_squared_precision)
    assert ref.decomposable  # aggmetrics' claim
    ours = af.infer_properties(_squared_precision)
    assert not ours.decomposable
    assert "undefined" in ours.reason

    # class 1 has tp = 0 < fp
    cells = np.array([[4.0, 1.0, 2.0, 3.0], [0.0, 3.0, 1.0, 6.0], [2.0, 2.0, 3.0, 3.0]])
    micro = float(_squared_precision(*cells.sum(axis=0)))
    values = np.asarray(_squared_precision(*cells.T), dtype=float)
    b = np.asarray(ref.linear[1])  # type: ignore[index]
    d = cells @ b
    ok = np.isfinite(values)
    weighted = float((d[ok] * values[ok]).sum() / d[ok].sum())
    assert micro == pytest.approx(6 / 12)
    assert weighted == pytest.approx(6 / 9)
    assert abs(micro - weighted) > 0.1  # the identity aggmetrics' coefficients promise does not hold


@pytest.mark.parametrize(
    "formula",
    [_prevalence_gap, lambda tp, fp, fn, tn: ratio(tp, tp + fp - fn)],
    ids=["prevalence_gap", "tp_over_signed"],
)
def test_aggmetrics_guesses_a_direction_where_there_is_none(formula: Formula) -> None:
    """aggmetrics tries one move (correct an FN and an FP at once) and answers by majority.

    For ``(fp - fn) / n`` that move changes nothing and aggmetrics defaults to
    ``greater_is_better=True``; for ``tp / (tp + fp - fn)`` 40% of its moves go up
    and it answers ``False``. Correcting a false negative and correcting a false
    positive move these formulas in opposite directions: aggframe reports ``None``.
    """
    ref = am_infer(formula)
    ours = af.infer_properties(formula)
    assert ref.greater_is_better in (True, False)
    assert ours.greater_is_better is None
    assert 0.1 < ours.fraction_increasing < 0.9


def test_non_performance_formulas() -> None:
    constant = af.infer_properties(lambda tp, fp, fn, tn: 0.5 + 0 * tp)
    assert constant.linear == ((0.5, 0.5, 0.5, 0.5), (1.0, 1.0, 1.0, 1.0))
    assert constant.skew_invariant
    assert not constant.tn_dependent_at_zero
    assert constant.greater_is_better is None
    count = af.infer_properties(lambda tp, fp, fn, tn: tp)  # not scale-free: no ratio of linear forms
    assert not count.decomposable
    assert "held-out" in count.reason
    odds = af.infer_properties(lambda tp, fp, fn, tn: ratio(tp, fp))  # numerator alive where fp = 0
    assert not odds.decomposable
    assert "numerator" in odds.reason


# ---------------------------------------------------------------------------
# register_measure: inferred properties, contradictions


def test_a_formula_alone_gets_the_right_coefficients() -> None:
    mixed = af.get_measure(MIXED)
    assert mixed.linear == ((1.5, 0.0, 0.0, 0.5), (1.5, 1.0, 0.5, 0.5))
    assert not mixed.skew_invariant
    assert mixed.tn_dependent_at_zero
    assert mixed.greater_is_better
    assert mixed.bayes_threshold() is None  # the denominator depends on the predictions
    cost = af.get_measure(COST)
    assert cost.linear == ((2.0, 0.0, 0.0, 1.0), (2.0, 1.0, 2.0, 1.0))
    assert cost.bayes_threshold() == pytest.approx(1 / 3)
    assert cost.erm_consistent() is False
    gmean = af.get_measure(GMEAN)
    assert not gmean.decomposable
    assert gmean.skew_invariant
    assert not gmean.tn_dependent_at_zero
    assert af.list_measures(decomposable=False, skew_invariant=True) == [
        "balanced_accuracy",
        "gmean",
        "informedness",
        GMEAN,
    ]


def test_registered_properties_are_reported_by_verify_inference() -> None:
    report = af.verify_inference([COST, MIXED, GMEAN])
    assert report.height == 3 * len(PROPERTIES)
    assert report["agree"].all()


def test_explicit_properties_matching_the_inference_are_kept() -> None:
    name = "ti_explicit"
    try:
        m = af.register_measure(
            name,
            _cost_accuracy,
            linear=((4, 0, 0, 2), (4, 2, 4, 2)),  # another scale: kept as given
            skew_invariant=False,
            tn_dependent_at_zero=True,
            greater_is_better=True,
        )
        assert m.linear == ((4.0, 0.0, 0.0, 2.0), (4.0, 2.0, 4.0, 2.0))
    finally:
        af.unregister_measure(name)


def test_direction_defaults_to_greater_is_better_without_evidence() -> None:
    name = "ti_prevalence_gap"
    try:
        assert af.register_measure(name, _prevalence_gap).greater_is_better
        # either direction may be declared: the formula has none
        assert not af.register_measure(
            name, _prevalence_gap, greater_is_better=False, overwrite=True
        ).greater_is_better
    finally:
        af.unregister_measure(name)


def _precision_off_the_grid(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    # equals precision on the five points register_measure probes (tp in 0, 1, 3, 5, 7), not elsewhere
    bump = tp * (tp - 1) * (tp - 3) * (tp - 5) * (tp - 7) * 1e-3
    return ratio(tp, tp + fp) + bump


@pytest.mark.parametrize(
    ("formula", "given", "pattern"),
    [
        (
            _cost_accuracy,
            {"skew_invariant": True},
            r"`skew_invariant=True` contradicts the formula: rescaling",
        ),
        (_gmean_spelled, {"skew_invariant": False}, r"`skew_invariant=False` contradicts.*unchanged"),
        (
            _cost_accuracy,
            {"tn_dependent_at_zero": False},
            r"`tn_dependent_at_zero=False` contradicts.*depends on tn",
        ),
        (_squared_precision, {"tn_dependent_at_zero": True}, r"`tn_dependent_at_zero=True`.*does not depend"),
        (_cost_accuracy, {"greater_is_better": False}, r"`greater_is_better=False` contradicts.*raises it"),
        (
            lambda tp, fp, fn, tn: ratio(fp + fn, tp + fp + fn + tn),
            {"greater_is_better": True},
            r"`greater_is_better=True` contradicts.*lowers it",
        ),
        (
            _precision_off_the_grid,
            {"linear": ((1, 0, 0, 0), (1, 1, 0, 0))},
            r"`linear=.*contradicts.*held-out",
        ),
        (
            _squared_precision,
            {"linear": ((1, 0, 0, 0), (1, 1, 0, 0))},
            r"`linear` coefficients do not reproduce",
        ),
    ],
    ids=[
        "skew-true",
        "skew-false",
        "tn-false",
        "tn-true",
        "direction-false",
        "direction-true",
        "linear",
        "grid",
    ],
)
def test_contradicting_a_formula_raises_naming_the_property(
    formula: Formula, given: dict[str, Any], pattern: str
) -> None:
    name = "ti_contradiction"
    with pytest.raises(af.errors.OptionError, match=pattern) as info:
        af.register_measure(name, formula, **given)
    assert isinstance(info.value, af.AggframeError)
    assert f"measure '{name}'" in str(info.value)
    assert name not in af.list_measures()


def test_off_the_grid_formula_is_not_decomposable() -> None:
    assert not af.infer_properties(_precision_off_the_grid).decomposable
    assert af.infer_properties(lambda tp, fp, fn, tn: ratio(tp, tp + fp)).decomposable


# ---------------------------------------------------------------------------
# A registered measure everywhere: operators, conventions, engines, diagnose


@given(label_arrays(max_m=5))
def test_theorem_1_for_an_inferred_measure(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    """Micro = the per-class values weighted by the *inferred* denominators."""
    yt, yp, m = data
    pr = af.from_labels(yt, yp, n_classes=m)
    for name in (COST, MIXED):
        meas = af.get_measure(name)
        parts = pr.per_class(name).filter("defined")
        d = np.array([meas.denominator(c) for c in parts.select("tp", "fp", "fn", "tn").rows()])
        weighted = float((d * parts["value"].to_numpy()).sum() / d.sum())
        assert pr.compute(name, "micro") == pytest.approx(weighted, rel=1e-12, abs=1e-12)


@given(label_arrays(max_m=5))
def test_registered_measures_match_aggmetrics_under_every_operator(
    data: tuple[np.ndarray, np.ndarray, int],
) -> None:
    yt, yp, m = data
    Y, P = _one_hot(yt, m), _one_hot(yp, m)
    pr = af.from_labels(yt, yp, n_classes=m)
    out = pr.evaluate([COST, MIXED, GMEAN], OPERATORS, convention=list(CONVENTIONS))
    assert out.height == 3 * len(OPERATORS) * len(CONVENTIONS)
    references = {n: am.BinaryMeasure(n, af.get_measure(n).formula) for n in (COST, MIXED, GMEAN)}
    for row in out.iter_rows(named=True):
        if row["operator"] == "micro" and row["convention"] in ("zero", "one"):
            continue  # aggframe resolves an undefined pooled entry by the convention (test_oracle)
        try:
            ref = am.aggregate(
                Y, P, references[row["measure"]], row["operator"], convention=row["convention"]
            )
        except ZeroDivisionError:
            continue  # aggmetrics 0.2.0 on zero-support weighted (test_oracle)
        assert row["value"] == pytest.approx(ref, rel=1e-9, abs=1e-12, nan_ok=True), row


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices(soft=True, max_m=4))
def test_registered_measures_on_every_engine(data: tuple[np.ndarray, np.ndarray, None]) -> None:
    Y, P, _ = data
    pr = af.from_indicator(Y, P, tnorm="product")
    eager = pr.evaluate([COST, GMEAN], OPERATORS, engine="in-memory")
    streaming = af.from_indicator(Y, P, tnorm="product").evaluate(
        [COST, GMEAN], OPERATORS, engine="streaming"
    )
    lazy = af.from_indicator(Y, P, tnorm="product").evaluate([COST, GMEAN], OPERATORS, lazy=True)
    assert isinstance(lazy, pl.LazyFrame)
    for other in (streaming, lazy.collect()):
        assert eager["value"].to_list() == pytest.approx(other["value"].to_list(), nan_ok=True)


def test_registered_measures_by_group_and_in_diagnose() -> None:
    frame = pl.DataFrame(
        {
            "model": ["a"] * 6 + ["b"] * 6,
            "y_true": [0, 0, 1, 1, 2, 2] * 2,
            "y_pred": [0, 1, 1, 2, 2, 0, 1, 1, 1, 2, 2, 2],
        }
    )
    pr = af.from_labels(frame)
    out = pr.evaluate([COST, GMEAN], ["micro", "macro"], by="model")
    assert out.height == 2 * 2 * 2
    for model, part in frame.group_by("model"):
        single = af.from_labels(part["y_true"].to_numpy(), part["y_pred"].to_numpy(), n_classes=3)
        mine = out.filter(pl.col("model") == model[0])
        assert mine["value"].to_list() == pytest.approx(
            single.evaluate([COST, GMEAN], ["micro", "macro"])["value"].to_list()
        )
    found = af.diagnose(pr, [COST, GMEAN], by="model")
    cost = found.filter(pl.col("measure") == COST)
    # Bayes threshold 1/3 from the inferred coefficients; tn at tp = 0 inflates the floor on 3 classes
    assert cost.filter(pl.col("code") == "not_erm_consistent")["value"].to_list() == pytest.approx([1 / 3])
    floors = cost.filter(pl.col("code") == "inflated_floor")
    # both models have the same three classes: the floor is stated once, for every group
    assert floors.select("model", "scope").rows() == [(None, "all")]
    assert floors["value"].to_list() == pytest.approx([af.get_measure(COST).attainable_floor(3)])
    assert af.get_measure(COST).attainable_floor(3) == pytest.approx(1 / 4)  # tn / (fp + 2 fn + tn) = 1 / 4


@given(label_arrays(max_m=6))
def test_an_inferred_decomposable_measure_never_leaves_the_hull(
    data: tuple[np.ndarray, np.ndarray, int],
) -> None:
    yt, yp, m = data
    found = af.diagnose(af.from_labels(yt, yp, n_classes=m), [COST, MIXED, GMEAN])
    hull = found.filter(pl.col("code") == "outside_hull")
    assert set(hull["measure"]) <= {GMEAN}


def test_the_non_decomposable_custom_measure_leaves_the_hull() -> None:
    # gmean-like: pooled recall and specificity mix classes, so micro is no weighted mean
    yt = np.array([0] * 8 + [1] * 2 + [2] * 2)
    yp = np.array([0] * 8 + [0, 1] + [0, 2])
    pr = af.from_labels(yt, yp)
    hull = af.diagnose(pr, [GMEAN]).filter(pl.col("code") == "outside_hull")
    ref = am.check_hull(
        am.IndicatorMatrix(yt, yp, task="multiclass"), am.BinaryMeasure(GMEAN, _gmean_spelled)
    )
    assert hull.height == 1
    assert ref is not None
    assert hull["value"].item() == pytest.approx(ref.detail["micro"])
    assert af.micro_macro_gap(pr, GMEAN)["covariance_gap"].is_null().all()


# ---------------------------------------------------------------------------
# The micro-macro gap and its covariance identity


def _gap_by_weights(pr: af.Predictions, name: str) -> float:
    """sum_k (w_k - 1/m) M_k over the defined classes, w the normalised denominators."""
    meas = af.get_measure(name)
    parts = pr.per_class(name).filter("defined")
    d = np.array([meas.denominator(c) for c in parts.select("tp", "fp", "fn", "tn").rows()])
    values = parts["value"].to_numpy()
    w = d / d.sum()
    return float(((w - 1 / len(values)) * values).sum())


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(label_arrays(max_m=5))
def test_gap_identity_on_labels(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    pr = af.from_labels(yt, yp, n_classes=m)
    names = [*DECOMPOSABLE, COST, MIXED]
    gap = af.micro_macro_gap(pr, names)
    report = pr.evaluate(names, ["micro", "macro"])
    assert gap["measure"].to_list() == names
    for row in gap.iter_rows(named=True):
        values = report.filter(pl.col("measure") == row["measure"])
        micro, macro = values["value"].to_list()
        assert row["decomposable"]
        assert row["note"] is None
        assert row["micro"] == pytest.approx(micro, nan_ok=True)
        assert row["macro"] == pytest.approx(macro, nan_ok=True)
        if math.isnan(micro) or math.isnan(macro):
            continue
        assert row["gap"] == pytest.approx(micro - macro, abs=1e-12)
        assert row["covariance_gap"] == pytest.approx(micro - macro, rel=1e-9, abs=1e-12)
        assert row["covariance_gap"] == pytest.approx(_gap_by_weights(pr, row["measure"]), abs=1e-12)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices(masked=True, max_m=4))
def test_gap_matches_aggmetrics_micro_macro_gap(
    data: tuple[np.ndarray, np.ndarray, np.ndarray | None],
) -> None:
    Y, P, mask = data
    pr = af.from_indicator(Y, P, mask=mask)
    im = am.IndicatorMatrix(Y, P, task="multilabel", mask=mask)
    ours = af.micro_macro_gap(pr, list(BUILTINS))
    for row in ours.iter_rows(named=True):
        ref = am.micro_macro_gap(im, row["measure"])
        assert row["decomposable"] == ref["decomposable"]
        assert row["micro"] == pytest.approx(ref["micro"], nan_ok=True)
        assert row["macro"] == pytest.approx(ref["macro"], nan_ok=True)
        if not row["decomposable"]:
            assert row["covariance_gap"] is None
            assert row["covariance"] is None
            assert "not aggregation-decomposable" in row["note"]
        elif "predicted_gap" in ref:
            assert row["covariance"] == pytest.approx(ref["covariance"], abs=1e-12)
            assert row["mean_denominator"] == pytest.approx(ref["mean_denominator"])
            assert row["covariance_gap"] == pytest.approx(ref["predicted_gap"], abs=1e-12, nan_ok=True)
            assert row["n_defined"] == len(ref["values"])


def test_gap_by_group_and_with_folds() -> None:
    frame = pl.DataFrame(
        {
            "example": list(range(12)),
            "model": ["a"] * 6 + ["b"] * 6,
            "fold": [0, 1] * 6,
            "y_true": [0, 0, 0, 0, 1, 2] * 2,
            "y_pred": [0, 0, 0, 1, 1, 0, 0, 1, 2, 2, 1, 2],
        }
    )
    by_model = af.micro_macro_gap(af.from_labels(frame), ["recall", "mcc"], by="model")
    assert by_model.columns[:2] == ["model", "measure"]
    assert by_model.height == 4
    report = af.from_labels(frame).evaluate(["recall", "mcc"], ["micro", "macro"], by="model")
    expected = report.pivot(on="operator", index=["model", "measure"], values="value")
    joined = by_model.join(expected, on=["model", "measure"])
    assert joined["micro"].to_list() == pytest.approx(joined["micro_right"].to_list())
    assert joined["macro"].to_list() == pytest.approx(joined["macro_right"].to_list())
    recall = by_model.filter(pl.col("measure") == "recall")
    # micro recall is accuracy: 4/6 and 3/6; the per-class recalls average 7/12 and 9/12
    assert recall["gap"].to_list() == pytest.approx([4 / 6 - 7 / 12, 3 / 6 - 9 / 12])
    assert recall["covariance_gap"].to_list() == pytest.approx(recall["gap"].to_list(), abs=1e-12)
    assert by_model.filter(pl.col("measure") == "mcc")["covariance_gap"].is_null().all()
    # folds are pooled, as evaluate's default: the same numbers as without the fold role
    folded = af.micro_macro_gap(
        af.from_labels(frame, example="example", fold="fold", n_classes=3), ["recall", "mcc"], by="model"
    )
    assert_frame_equal(folded.sort("model", "measure"), by_model.sort("model", "measure"), abs_tol=1e-12)


def test_gap_of_an_undefined_measure_is_nan() -> None:
    # precision when nothing is predicted positive in the only class column: all undefined
    pr = af.from_indicator(np.array([[1.0], [0.0]]), np.array([[0.0], [0.0]]))
    row = af.micro_macro_gap(pr, "precision").row(0, named=True)
    assert math.isnan(row["micro"])
    assert math.isnan(row["macro"])
    assert math.isnan(row["gap"])
    assert row["n_defined"] == 0
    assert math.isnan(row["covariance_gap"])


def test_inference_of_a_scalar_only_formula_raises_an_option_error() -> None:
    def scalar_only(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
        return tp / (tp + fp) if tp + fp else float("nan")  # `if` on an array is ambiguous

    with pytest.raises(af.errors.OptionError, match=r"NumPy arrays of counts.*ValueError"):
        af.infer_properties(scalar_only)
