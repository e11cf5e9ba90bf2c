"""More theorems of the reference as tests: the counterexample matrix, Theorem 3 (t-norms),
Proposition 9 (Bayes thresholds), attainable floors, Theorem 4 (MAE and MSE as costs) and
dominance (Section 7.11 via Proposition 3). Each is checked against aggmetrics 0.2.0 where it
has the function, and against scikit-learn where one applies.
"""

from __future__ import annotations

import aggmetrics as am
import aggmetrics.tnorms as amt
import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import mean_absolute_error, mean_squared_error

import aggframe as af
from aggframe.ops import ratio
from tests.strategies import MEASURES, indicator_matrices, label_arrays

# ---------------------------------------------------------------------------
# The counterexample matrix of Theorem 1

COUNTEREXAMPLE = np.array([[110, 10, 10], [20, 40, 5], [25, 5, 50]])


def _from_matrix(C: np.ndarray) -> af.Predictions:
    m = C.shape[0]
    yt = np.repeat(np.repeat(np.arange(m), m), C.ravel())
    yp = np.repeat(np.tile(np.arange(m), m), C.ravel())
    return af.from_labels(yt, yp)


def test_counterexample_matrix_values() -> None:
    # Rows are true classes. The reference texts shipped with the project do not print this
    # example's numbers, so the values are exact fractions derived by hand from the matrix
    # (they agree with aggmetrics' check_hull messages): pooled cells tp = 200, fp = fn = 75,
    # tn = 475 over 275 examples.
    pr = _from_matrix(COUNTEREXAMPLE)
    assert pr.cells("pooled").row(0) == (200.0, 75.0, 75.0, 475.0)
    assert pr.cells("class").select("tp", "fp", "fn", "tn").rows() == [
        (110.0, 45.0, 20.0, 100.0),
        (40.0, 15.0, 25.0, 195.0),
        (50.0, 15.0, 30.0, 180.0),
    ]
    assert pr.accuracy() == pytest.approx(8 / 11)
    names = ["mcc", "kappa", "informedness", "balanced_accuracy", "gmean", "f1"]
    micro = dict(pr.evaluate(names, "micro").select("measure", "value").rows())
    assert micro["mcc"] == pytest.approx(13 / 22)  # (200*475 - 75^2) / (275 * 550)
    assert micro["kappa"] == pytest.approx(13 / 22)  # fp = fn pooled: kappa = mcc = informedness
    assert micro["informedness"] == pytest.approx(13 / 22)  # 8/11 + 19/22 - 1
    assert micro["balanced_accuracy"] == pytest.approx(35 / 44)  # (8/11 + 19/22) / 2
    assert micro["gmean"] == pytest.approx(np.sqrt(8 / 11 * 19 / 22))
    assert micro["f1"] == pytest.approx(8 / 11)  # Theorem 2
    # the pooled value lies outside the range of the per-class values: no weighting of them gives it
    per_class = {
        "mcc": (0.5394, 0.5859),
        "kappa": (0.5305, 0.5802),
        "informedness": (0.5358, 0.5481),
        "balanced_accuracy": (0.7679, 0.7740),
        "gmean": (0.7559, 0.7639),
    }
    for name, (lo, hi) in per_class.items():
        parts = pr.parts(name, "macro")["value"]
        assert parts.min() == pytest.approx(lo, abs=5e-5)
        assert parts.max() == pytest.approx(hi, abs=5e-5)
        assert micro[name] > parts.max()
    assert pr.compute("mcc", "macro") == pytest.approx(0.567688, abs=1e-6)
    assert pr.compute("f1", "macro") == pytest.approx(0.709417, abs=1e-6)
    # the same findings as aggmetrics
    im = am.IndicatorMatrix(*_labels(COUNTEREXAMPLE), task="multiclass")
    hull = {name for name in MEASURES if am.check_hull(im, name) is not None}
    assert hull == set(per_class)
    ours = af.diagnose(pr, MEASURES).filter(pl.col("code") == "outside_hull")
    assert set(ours["measure"]) == hull
    for name in MEASURES:
        for op in ("micro", "macro"):
            assert pr.compute(name, op) == pytest.approx(im.compute(name, op), nan_ok=True)


def _labels(C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = C.shape[0]
    return np.repeat(np.repeat(np.arange(m), m), C.ravel()), np.repeat(np.tile(np.arange(m), m), C.ravel())


# ---------------------------------------------------------------------------
# Theorem 3: the product t-norm is the uniquely marginally consistent one

GRID = np.round(np.linspace(0.0, 1.0, 11), 10)


def _grid_cells(tnorm: object) -> tuple[np.ndarray, np.ndarray, pl.DataFrame]:
    """Soft cells of every (a, b) on an 11 x 11 grid: one example and one class per point."""
    a, b = (g.ravel() for g in np.meshgrid(GRID, GRID, indexing="ij"))
    k = np.arange(a.size)
    frame = pl.DataFrame({"example": k, "class": k, "y": a, "p": b})
    cells = af.from_long(frame, n_classes=a.size, tnorm=tnorm).cells("class")  # type: ignore[arg-type]
    return a, b, cells


def _defect(a: np.ndarray, b: np.ndarray, cells: pl.DataFrame) -> float:
    tp, fp, fn = (cells[c].to_numpy() for c in ("tp", "fp", "fn"))
    return float(max(np.abs(tp + fn - a).max(), np.abs(tp + fp - b).max()))


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        ("product", "product"),
        ("godel", "godel"),
        ("lukasiewicz", "lukasiewicz"),
        (af.tnorms.hamacher(0.0), amt.hamacher(0.0)),
        (af.tnorms.hamacher(1.0), amt.hamacher(1.0)),
        (af.tnorms.hamacher(2.5), amt.hamacher(2.5)),
    ],
    ids=["product", "godel", "lukasiewicz", "hamacher0", "hamacher1", "hamacher2.5"],
)
def test_theorem_3_only_product_keeps_the_marginals(ours: object, theirs: object) -> None:
    a, b, cells = _grid_cells(ours)
    defect = _defect(a, b, cells)
    assert defect == pytest.approx(am.marginal_defect(theirs, grid=11), abs=1e-12)  # type: ignore[arg-type]
    consistent = (
        ours == "product" or ours is af.tnorms.product or getattr(ours, "__name__", "") == "hamacher(1)"
    )
    if consistent:
        assert defect < 1e-12
    else:
        assert defect > 0.05
    # the cells themselves equal aggmetrics' soft cells (the other examples add 120 true negatives)
    TP, FP, FN, TN = am.soft_cells(a, b, theirs)
    np.testing.assert_allclose(cells["tp"], TP, atol=1e-12)
    np.testing.assert_allclose(cells["fp"], FP, atol=1e-12)
    np.testing.assert_allclose(cells["fn"], FN, atol=1e-12)
    np.testing.assert_allclose(cells["tn"], TN + a.size - 1, atol=1e-12)


@given(indicator_matrices(soft=True))
def test_theorem_3_product_marginals_are_the_soft_label_sums(
    data: tuple[np.ndarray, np.ndarray, np.ndarray | None],
) -> None:
    Y, P, _ = data
    cells = af.from_indicator(Y, P, tnorm="product").cells("class")
    np.testing.assert_allclose(cells["tp"] + cells["fn"], Y.sum(axis=0), atol=1e-9)
    np.testing.assert_allclose(cells["tp"] + cells["fp"], P.sum(axis=0), atol=1e-9)
    n = Y.shape[0]
    np.testing.assert_allclose(
        cells.select(pl.sum_horizontal("tp", "fp", "fn", "tn")).to_series(), n, atol=1e-9
    )


@pytest.mark.parametrize("tnorm", ["godel", "lukasiewicz", "hamacher0", "hamacher2"])
def test_theorem_3_other_tnorms_break_the_marginals_on_soft_labels(tnorm: str) -> None:
    # one half-sure example: godel double counts (tp + fn = 1 > 0.5), lukasiewicz loses it (0 < 0.5)
    fn = {"hamacher0": af.tnorms.hamacher(0.0), "hamacher2": af.tnorms.hamacher(2.0)}.get(tnorm, tnorm)
    cells = af.from_indicator(np.array([[0.5]]), np.array([[0.5]]), tnorm=fn).cells("class")  # type: ignore[arg-type]
    assert cells["tp"][0] + cells["fn"][0] != pytest.approx(0.5)
    product = af.from_indicator(np.array([[0.5]]), np.array([[0.5]]), tnorm="product").cells("class")
    assert product["tp"][0] + product["fn"][0] == pytest.approx(0.5)


# ---------------------------------------------------------------------------
# Proposition 9: Bayes-optimal thresholds


def _threshold_sweep(scores: np.ndarray, thresholds: np.ndarray) -> af.Predictions:
    """Expected cells of the rule 'score > t' for calibrated scores, one group per threshold.

    The truth is soft (y = the score, the probability of the positive class) and the
    prediction crisp; under the product t-norm the cells are then the expected cells
    (Theorem 3), so the plug-in measure is the population measure of the rule.
    """
    frame = (
        pl.DataFrame({"example": np.arange(scores.size), "y": scores})
        .join(pl.DataFrame({"t": thresholds}), how="cross")
        .with_columns(pl.lit(0).alias("class"), (pl.col("y") > pl.col("t")).cast(pl.Float64).alias("p"))
    )
    return af.from_long(frame, n_classes=1, tnorm="product")


SCORES = np.random.default_rng(9).uniform(0.0, 1.0, 200)
CANDIDATES = np.concatenate([[0.0, 1.0], np.sort(SCORES)])


def _best(pr: af.Predictions, name: str) -> tuple[float, float]:
    out = pr.evaluate(name, "micro", by="t").sort("t")
    m = af.get_measure(name)
    best = out["value"].max() if m.greater_is_better else out["value"].min()
    return float(best), float(out.filter(pl.col("value") == best)["t"][0])


@pytest.mark.parametrize("beta", [1.0, 2.0, 0.5])
def test_proposition_9_fbeta_optimal_threshold_is_fbeta_star_over_1_plus_beta2(beta: float) -> None:
    name = af.fbeta(beta).name
    assert af.get_measure(name).bayes_threshold() is None  # no closed form: it depends on F*
    assert am.get_measure("f1").bayes_threshold() is None
    sweep = _threshold_sweep(SCORES, CANDIDATES)
    best, _ = _best(sweep, name)
    t_star = best / (1 + beta**2)
    at_t_star = _threshold_sweep(SCORES, np.array([t_star])).compute(name, "micro")
    assert at_t_star == pytest.approx(best, rel=1e-12)
    # and the 0/1-loss threshold 0.5 is not optimal for F-beta
    assert _threshold_sweep(SCORES, np.array([0.5])).compute(name, "micro") < best - 1e-4


def test_proposition_9_closed_form_thresholds() -> None:
    af.register_measure(
        "class_weighted_accuracy",
        lambda tp, fp, fn, tn: ratio(2 * tp + tn, 2 * (tp + fn) + fp + tn),
        linear=((2, 0, 0, 1), (2, 1, 2, 1)),
    )
    try:
        expected = {
            "label_accuracy": 0.5,
            "error_rate": 0.5,
            "recall": 0.0,
            "specificity": 1.0,
            "class_weighted_accuracy": 1 / 3,
        }
        sweep = _threshold_sweep(SCORES, CANDIDATES)
        for name, t in expected.items():
            m = af.get_measure(name)
            assert m.bayes_threshold() == pytest.approx(t)
            ref = am.BinaryMeasure(name, m.formula, linear=m.linear)  # type: ignore[arg-type]
            assert ref.bayes_threshold() == pytest.approx(t)
            best, _ = _best(sweep, name)
            at_bayes = _threshold_sweep(SCORES, np.array([t])).compute(name, "micro")
            assert at_bayes == pytest.approx(best, rel=1e-12), name
        # measures whose denominator depends on the predictions have no closed form
        for name in ("precision", "f1", "jaccard", "mcc"):
            assert af.get_measure(name).bayes_threshold() is None
    finally:
        af.unregister_measure("class_weighted_accuracy")


# ---------------------------------------------------------------------------
# Attainable floors and the floor trap


@pytest.mark.parametrize("m", [2, 3, 5, 10])
def test_attainable_floor_is_the_all_wrong_value(m: int) -> None:
    y = np.arange(50 * m) % m
    pr = af.from_labels(y, (y + 1) % m)
    out = dict(pr.evaluate(MEASURES, "micro").select("measure", "value").rows())
    for name in MEASURES:
        measure = af.get_measure(name)
        floor = measure.attainable_floor(m)
        assert out[name] == pytest.approx(floor, nan_ok=True), name
        assert floor == pytest.approx(am.get_measure(name).attainable_floor(m), nan_ok=True)
        nominal = float(measure(0.0, 1.0, 1.0, 0.0))  # the value with no true negatives
        if measure.tn_dependent_at_zero and m > 2 and np.isfinite(nominal):
            assert floor != pytest.approx(nominal), name  # the floor trap: tn lifts the floor
        elif np.isfinite(nominal):
            assert floor == pytest.approx(nominal), name


def test_floor_trap_values() -> None:
    # 500 examples, 10 classes, every prediction wrong: each class has tp = 0, fp = fn = 50,
    # tn = 400, so tn-dependent measures look good although nothing is right
    y = np.arange(500) % 10
    p = (y + 1) % 10
    pr = af.from_labels(y, p)
    assert pr.accuracy() == 0.0
    expected = {
        "specificity": 8 / 9,
        "npv": 8 / 9,
        "label_accuracy": 0.8,
        "error_rate": 0.2,
        "fpr": 1 / 9,
        "balanced_accuracy": 4 / 9,
        "informedness": -1 / 9,
        "mcc": -1 / 9,
        "recall": 0.0,
        "precision": 0.0,
        "f1": 0.0,
    }
    out = pr.evaluate(list(expected), ["micro", "macro", "weighted"])
    im = am.IndicatorMatrix(y, p, task="multiclass")
    for name, op, value in out.select("measure", "operator", "value").iter_rows():
        assert value == pytest.approx(expected[name], abs=1e-12), (name, op)
        if op != "weighted":
            assert value == pytest.approx(im.compute(name, op), abs=1e-12)


# ---------------------------------------------------------------------------
# Theorem 4: MAE and MSE are costs


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(label_arrays(max_m=7))
def test_theorem_4_mae_and_mse_are_costs(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    mae, mse = mean_absolute_error(yt, yp), mean_squared_error(yt, yp)
    pr = af.from_labels(yt, yp, n_classes=m)
    assert af.cost(pr, af.cost_matrix("absolute", m))["value"].item() == pytest.approx(mae, abs=1e-12)
    assert af.cost(pr, af.cost_matrix("squared", m))["value"].item() == pytest.approx(mse, abs=1e-12)
    ordinal = af.from_ordinal(yt, yp, n_classes=m)
    assert af.cost(ordinal, "absolute")["value"].item() == pytest.approx(mae, abs=1e-12)
    assert af.cost(ordinal, "squared")["value"].item() == pytest.approx(mse, abs=1e-12)
    # on the cumulative encoding, a d-classes-off example is wrong on d thresholds
    assert ordinal.compute("error_rate", "micro") * (m - 1) == pytest.approx(mae, abs=1e-12)
    im = am.IndicatorMatrix(yt, yp, task="multiclass", n_classes=m)
    assert im.cost(af.cost_matrix("absolute", m), "exemplar") == pytest.approx(mae, abs=1e-12)
    assert im.cost(af.cost_matrix("squared", m), "micro") / yt.size == pytest.approx(mse, abs=1e-12)


# ---------------------------------------------------------------------------
# Dominance: A dominates B => every monotone measure ranks A at least as high


@st.composite
def dominated_pairs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(y, a, b, m): b is a with some correct predictions turned into errors."""
    m = draw(st.integers(2, 5))
    n = draw(st.integers(1, 30))
    labels = st.lists(st.integers(0, m - 1), min_size=n, max_size=n)
    yt, pa = np.array(draw(labels)), np.array(draw(labels))
    shift = np.array(draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n)))
    pb = np.where(pa == yt, (pa + shift) % m, pa)
    return yt, pa, pb, m


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(dominated_pairs())
def test_dominance_orders_every_monotone_measure(
    data: tuple[np.ndarray, np.ndarray, np.ndarray, int],
) -> None:
    yt, pa, pb, m = data
    a, b = af.from_labels(yt, pa, n_classes=m), af.from_labels(yt, pb, n_classes=m)
    relation = af.pareto_dominance(a, b)["relation"].item()
    assert relation == ("equivalent" if (pa == pb).all() else "A_dominates_B")
    assert af.pareto_dominance(b, a)["relation"].item() in ("equivalent", "B_dominates_A")
    sign = {name: 1.0 if af.get_measure(name).greater_is_better else -1.0 for name in MEASURES}
    # per class (one-vs-rest cells) and pooled, wherever both values are defined
    pa_, pb_ = a.per_class(MEASURES), b.per_class(MEASURES)
    both = pa_.join(pb_, on=["class", "measure"], suffix="_b").drop_nulls(["value", "value_b"])
    gap = both.select(pl.col("measure").replace_strict(sign) * (pl.col("value") - pl.col("value_b")))
    assert (gap.to_series() >= -1e-12).all()
    ma, mb = a.evaluate(MEASURES, "micro"), b.evaluate(MEASURES, "micro")
    for name, va, vb in zip(ma["measure"], ma["value"], mb["value"], strict=True):
        if np.isfinite(va) and np.isfinite(vb):
            assert sign[name] * (va - vb) >= -1e-12, name
    # and aggmetrics agrees on the relation
    ia = am.IndicatorMatrix(yt, pa, task="multiclass", n_classes=m)
    ib = am.IndicatorMatrix(yt, pb, task="multiclass", n_classes=m)
    assert am.pareto_dominance(ia, ib) == relation
