"""Ordinal data, cost matrices, canonical coordinates and dominance (aggframe/_ordinal.py).

Oracles: aggmetrics 0.2.0 (``task="ordinal"``, ``cost``, ``canonical_coordinates``,
``degrees_of_freedom``, ``pareto_dominance``), scikit-learn, and hand-built
cumulative indicator matrices. Where aggmetrics is wrong the test says so.
"""

from __future__ import annotations

from pathlib import Path

import aggmetrics as am
import narwhals as nw
import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from tests.strategies import MEASURES, label_arrays

CORE_OPERATORS = ["micro", "macro", "exemplar"]


def cumulative(idx: np.ndarray, m: int) -> np.ndarray:
    """The m - 1 threshold indicators y > k, by hand."""
    return (np.asarray(idx)[:, None] > np.arange(m - 1)[None, :]).astype(float)


# ---------------------------------------------------------------------------
# from_ordinal


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(label_arrays(max_m=6))
def test_ordinal_equals_the_cumulative_indicator_matrices(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    ours = af.from_ordinal(yt, yp, n_classes=m).evaluate(MEASURES, convention=["exclude", "zero"])
    ref = af.from_indicator(cumulative(yt, m), cumulative(yp, m)).evaluate(
        MEASURES, convention=["exclude", "zero"]
    )
    assert ours.drop("value").equals(ref.drop("value"))
    np.testing.assert_allclose(ours["value"], ref["value"], rtol=1e-12, equal_nan=True)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(label_arrays(max_m=6))
def test_ordinal_matches_aggmetrics(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    pr = af.from_ordinal(yt, yp, n_classes=m)
    im = am.IndicatorMatrix(yt, yp, task="ordinal", n_classes=m)
    out = pr.evaluate(MEASURES, CORE_OPERATORS)
    for name, op, value in out.select("measure", "operator", "value").iter_rows():
        assert value == pytest.approx(im.compute(name, op), nan_ok=True, rel=1e-9, abs=1e-12), (name, op)
    assert pr.subset_accuracy() == pytest.approx(im.subset_accuracy())


def test_ordinal_frames_with_groups_named_classes_and_engines() -> None:
    order = ["low", "mid", "high", "top"]
    rng = np.random.default_rng(3)
    n = 300
    t = rng.integers(0, 4, n)
    p = np.clip(t + rng.integers(-1, 2, n), 0, 3)
    frame = pl.DataFrame(
        {
            "model": rng.choice(["a", "b"], n),
            "truth": [order[i] for i in t],
            "guess": [order[i] for i in p],
        }
    )
    pr = af.from_ordinal(frame.lazy(), y_true="truth", y_pred="guess", order=order)
    assert pr.order == order
    out = pr.evaluate(["f1", "mcc"], ["micro", "macro", "exemplar"], by="model")
    for model in ("a", "b"):
        mask = frame["model"].to_numpy() == model
        ref = af.from_indicator(cumulative(t[mask], 4), cumulative(p[mask], 4)).evaluate(
            ["f1", "mcc"], ["micro", "macro", "exemplar"]
        )
        np.testing.assert_allclose(out.filter(pl.col("model") == model)["value"], ref["value"], rtol=1e-12)
    # thresholds are listed in the ordinal order, not alphabetically
    assert pr.cells("class")["class"].cast(pl.String).to_list() == ["low", "mid", "high"]
    lazy = pr.evaluate(["f1", "mcc"], by="model", lazy=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), pr.evaluate(["f1", "mcc"], by="model"), abs_tol=1e-12)
    fresh = af.from_ordinal(frame, y_true="truth", y_pred="guess", order=order)
    assert_frame_equal(
        fresh.evaluate(["f1", "mcc"], by="model", engine="streaming"),
        pr.evaluate(["f1", "mcc"], by="model"),
        abs_tol=1e-12,
    )


def test_ordinal_encoding_is_sparse_and_enum_columns_give_the_order() -> None:
    enum = pl.Enum(["s", "m", "l", "xl"])
    frame = pl.DataFrame(
        {"y_true": ["s", "s", "xl", "m"], "y_pred": ["s", "m", "xl", "s"], "id": [10, 11, 12, 13]},
        schema={"y_true": enum, "y_pred": enum, "id": pl.Int64},
    )
    pr = af.from_ordinal(frame, example="id")
    assert pr.order == ["s", "m", "l", "xl"]
    rows = nw.to_native(pr.source.frame).collect()
    # entries at or below both ranks are true negatives and left out (threshold 0 keeps every
    # example): 1 + 1 + 3 + 1 rows, not 4 x 3
    assert rows.height == 6
    ref = af.from_indicator(cumulative(np.array([0, 0, 3, 1]), 4), cumulative(np.array([0, 1, 3, 0]), 4))
    assert pr.evaluate(MEASURES)["value"].to_list() == pytest.approx(
        ref.evaluate(MEASURES)["value"].to_list(), nan_ok=True
    )
    assert pr.parts("f1", "exemplar")["id"].to_list() == [10, 11, 12, 13]


def test_integer_labels_without_an_order_use_zero_to_max() -> None:
    # aggmetrics' rule: a class that never occurs (2) still sits between 1 and 3
    pr = af.from_ordinal([0, 3, 1], [1, 3, 3])
    assert pr.order == [0, 1, 2, 3]
    assert pr.compute("error_rate", "micro") * 3 == pytest.approx((1 + 0 + 2) / 3)
    assert af.from_ordinal([0.0, 2.0], [1.0, 2.0], n_classes=3).order == [0, 1, 2]


def test_ordinal_folds_pool_like_the_union() -> None:
    frame = pl.DataFrame({"fold": [0, 0, 1, 1, 1], "y_true": [0, 1, 2, 2, 1], "y_pred": [0, 2, 2, 0, 1]})
    folded = af.from_ordinal(frame, fold="fold", n_classes=3)
    whole = af.from_ordinal(frame.drop("fold"), n_classes=3)
    assert folded.compute("f1", "macro") == pytest.approx(whole.compute("f1", "macro"))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"data": [0, 1, 5], "y_pred_values": [0, 1, 1], "n_classes": 3},
            af.errors.UnknownClassError,
            "outside the order",
        ),
        ({"data": [0, None, 1], "y_pred_values": [0, 1, 1]}, af.errors.NullValueError, "null label"),
        (
            {"data": ["a", "b"], "y_pred_values": ["a", "a"]},
            af.errors.OptionError,
            "order of the classes is unknown",
        ),
        ({"data": [0, -1], "y_pred_values": [0, 0]}, af.errors.InvalidValueError, "pass order="),
        ({"data": [0, 0], "y_pred_values": [0, 0]}, af.errors.OptionError, "at least two classes"),
        (
            {"data": [0, 1], "y_pred_values": [0, 1], "order": [0, 1, 0]},
            af.errors.OptionError,
            "repeats a class",
        ),
        (
            {"data": [0, 1], "y_pred_values": [0, 1], "order": [1, 0], "n_classes": 2},
            af.errors.OptionError,
            "disagree",
        ),
        ({"data": [0, 1], "y_pred_values": [0, 1, 1]}, af.errors.ShapeError, "has 2 labels"),
        ({"data": [[0, 1]], "y_pred_values": [[0, 1]]}, af.errors.ShapeError, "1-D"),
        ({"data": [0, 1], "y_pred_values": [0, 1], "example": "id"}, af.errors.OptionError, "pass a frame"),
        ({"data": [0, 1], "y_pred_values": None}, af.errors.OptionError, "needs both"),
        (
            {"data": [0, 1], "y_pred_values": ["a", "b"], "order": [0, 1]},
            af.errors.InvalidValueError,
            "different types",
        ),
    ],
)
def test_from_ordinal_errors(kwargs: dict, error: type[Exception], match: str) -> None:  # type: ignore[type-arg]
    data, y_pred = kwargs.pop("data"), kwargs.pop("y_pred_values")
    with pytest.raises(error, match=match):
        af.from_ordinal(data, y_pred, **kwargs)


def test_from_ordinal_frame_errors() -> None:
    frame = pl.DataFrame({"y_true": [0, 1], "y_pred": [1, 1]})
    with pytest.raises(af.errors.ColumnNotFoundError, match=r"'guess' \(role 'y_pred'\).*available columns"):
        af.from_ordinal(frame, y_pred="guess")
    with pytest.raises(af.errors.OptionError, match="name the columns"):
        af.from_ordinal(frame, [0, 1])
    with pytest.raises(af.errors.EmptyInputError):
        af.from_ordinal(frame.head(0), n_classes=2)
    with pytest.raises(af.AggframeError):  # every error is an AggframeError (a ValueError)
        af.from_ordinal(frame, order=["a", "b"])


# ---------------------------------------------------------------------------
# cost


def test_cost_operators_by_hand_and_against_aggmetrics() -> None:
    yt = np.array([0, 0, 1, 2, 2, 2, 3, 3])
    yp = np.array([0, 2, 1, 1, 2, 2, 0, 3])
    C = af.cost_matrix("squared", 4)
    out = af.cost(af.from_labels(yt, yp), C, ["micro", "macro", "weighted", "exemplar", "total"])
    per = (yt - yp) ** 2.0
    by_class = [per[yt == j].mean() for j in range(4)]
    expect = [per.mean(), np.mean(by_class), per.mean(), per.mean(), per.sum()]
    assert out["value"].to_list() == pytest.approx(expect)
    assert out["n_entries"].to_list() == [1, 4, 4, 8, 1]
    assert out.columns == ["measure", "operator", "value", "n_entries", "n_undefined"]
    im = am.IndicatorMatrix(yt, yp, task="multiclass", n_classes=4)
    # aggmetrics' micro is the total cost and its exemplar the mean cost per example
    assert im.cost(C, "micro") == pytest.approx(per.sum())
    assert im.cost(C, "exemplar") == pytest.approx(per.mean())


@given(label_arrays(max_m=5))
def test_aggmetrics_macro_cost_is_the_total_over_m(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    # aggmetrics is wrong here: its macro cost averages the column totals of (Y C) o P,
    # which always equals total / m, whatever the errors are. aggframe's macro is the mean
    # over true classes of each class's mean cost (macro-averaged MAE).
    yt, yp, m = data
    C = af.cost_matrix("absolute", m)
    im = am.IndicatorMatrix(yt, yp, task="multiclass", n_classes=m)
    assert im.cost(C, "macro") == pytest.approx(im.cost(C, "micro") / m)
    ours = af.cost(af.from_labels(yt, yp, n_classes=m), C, ["macro", "total"])
    per = np.abs(yt - yp).astype(float)
    present = [j for j in range(m) if (yt == j).any()]
    assert ours["value"][0] == pytest.approx(np.mean([per[yt == j].mean() for j in present]))
    assert ours["n_undefined"][0] == m - len(present)
    assert ours["value"][1] == pytest.approx(im.cost(C, "micro"))


def test_aggmetrics_cannot_cost_ordinal_data() -> None:
    # aggmetrics' ordinal matrices have m - 1 threshold columns, so its cost() rejects the
    # m x m matrix that defines MAE; aggframe costs the m-class confusion matrix behind them
    yt, yp = np.array([0, 1, 2, 2]), np.array([0, 2, 2, 0])
    with pytest.raises(ValueError, match="cost matrix must be"):
        am.IndicatorMatrix(yt, yp, task="ordinal", n_classes=3).cost(af.cost_matrix("absolute", 3))
    pr = af.from_ordinal(yt, yp)
    assert af.cost(pr, "absolute")["value"].item() == pytest.approx(0.75)


def test_cost_by_groups_named_classes_and_orders() -> None:
    frame = pl.DataFrame(
        {
            "model": ["a", "a", "a", "b", "b", "b"],
            "y_true": ["lo", "mid", "hi", "lo", "mid", "hi"],
            "y_pred": ["mid", "mid", "lo", "lo", "hi", "hi"],
        }
    )
    order = ["lo", "mid", "hi"]
    ordinal = af.from_ordinal(frame, order=order)
    out = af.cost(ordinal, "absolute", ["micro", "macro"], by="model")
    assert out.columns[:3] == ["model", "measure", "operator"]
    assert out["value"].to_list() == pytest.approx([1.0, 1.0, 1 / 3, 1 / 3])
    # the same with label-form predictions: classes= gives the order of the matrix
    labels = af.from_labels(frame)
    again = af.cost(labels, af.cost_matrix("absolute", 3), ["micro", "macro"], by="model", classes=order)
    assert again["value"].to_list() == pytest.approx(out["value"].to_list())
    # without classes= the matrix follows the sorted classes (hi, lo, mid): a different number
    sorted_order = af.cost(labels, af.cost_matrix("absolute", 3), by="model")
    assert sorted_order["value"].to_list() != pytest.approx([1.0, 1 / 3])
    # one-hot long data costs like the label form
    onehot = af.from_indicator(np.eye(3)[[0, 1, 2, 2]], np.eye(3)[[1, 1, 0, 2]])
    assert af.cost(onehot, "squared")["value"].item() == pytest.approx((1 + 0 + 4 + 0) / 4)
    # zero-one costs are the error rate
    pr = af.from_labels([0, 1, 2, 2], [0, 2, 2, 1])
    assert af.cost(pr, "zero_one")["value"].item() == pytest.approx(1 - pr.accuracy())


def test_cost_matrix_validation() -> None:
    pr = af.from_labels([0, 1, 2], [0, 2, 1])
    good = af.cost_matrix("absolute", 3)
    with pytest.raises(af.errors.ShapeError, match=r"shape \(2, 2\); expected \(3, 3\)"):
        af.cost(pr, np.ones((2, 2)) - np.eye(2))
    nan = good.copy()
    nan[0, 2] = np.nan
    with pytest.raises(af.errors.InvalidValueError, match=r"non-finite.*C\[0, 2\]"):
        af.cost(pr, nan)
    neg = good.copy()
    neg[1, 0] = -1
    with pytest.raises(af.errors.InvalidValueError, match=r"negative.*C\[1, 0\] = -1"):
        af.cost(pr, neg)
    diag = good + np.eye(3)
    with pytest.raises(af.errors.InvalidValueError, match="zero_diagonal=False"):
        af.cost(pr, diag)
    assert af.cost(pr, diag, zero_diagonal=False)["value"].item() == pytest.approx((1 + 1 + 1) / 3)
    with pytest.raises(af.errors.InvalidValueError, match="expected numbers"):
        af.cost(pr, np.array([["a"] * 3] * 3))
    with pytest.raises(af.errors.UnknownNameError, match="valid kinds"):
        af.cost(pr, "cubic")
    with pytest.raises(af.errors.UnknownNameError, match="valid operators"):
        af.cost(pr, good, "median")
    with pytest.raises(af.errors.UnknownClassError, match="missing"):
        af.cost(pr, good, classes=[0, 1, 7])
    with pytest.raises(af.errors.OptionError, match="single-label"):
        af.cost(af.from_indicator([[1, 1], [0, 1]], [[1, 0], [0, 1]]), np.ones((2, 2)) - np.eye(2))
    with pytest.raises(af.errors.OptionError, match="fold or target"):
        af.cost(
            af.from_labels(pl.DataFrame({"f": [0, 1], "y_true": [0, 1], "y_pred": [1, 1]}), fold="f"),
            "absolute",
        )
    with pytest.raises(af.errors.OptionError, match="positive integer"):
        af.cost_matrix("absolute", 0)


# ---------------------------------------------------------------------------
# canonical coordinates, degrees of freedom


@given(label_arrays(max_m=5))
def test_coordinates_match_aggmetrics(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    pr = af.from_labels(yt, yp, n_classes=m)
    im = am.IndicatorMatrix(yt, yp, task="multiclass", n_classes=m)
    coords = af.canonical_coordinates(pr)
    assert coords.height == af.suites.degrees_of_freedom(pr) == im.degrees_of_freedom == m * (m - 1)
    # aggmetrics reports 0 for the rates of a class without examples; they are undefined
    np.testing.assert_allclose(coords["value"].fill_null(0.0).to_numpy(), im.canonical_coordinates())
    support = np.bincount(yt, minlength=m)
    assert coords["value"].is_null().to_list() == [
        bool(support[j] == 0) for j in range(m) for _ in range(m - 1)
    ]


def test_binary_coordinates_are_recall_and_specificity() -> None:
    yt, yp = np.array([1, 1, 0, 0, 0, 1]), np.array([1, 0, 0, 1, 0, 1])
    pr = af.from_labels(yt, yp, task="binary")
    im = am.IndicatorMatrix(yt, yp, task="binary")
    coords = af.canonical_coordinates(pr)
    assert coords["coordinate"].to_list() == ["recall", "specificity"]
    np.testing.assert_allclose(coords["value"].to_numpy(), im.canonical_coordinates())
    assert af.suites.degrees_of_freedom(pr) == im.degrees_of_freedom == 2


def test_multilabel_coordinates_follow_the_degrees_of_freedom() -> None:
    # aggmetrics is inconsistent here: it says 2m degrees of freedom for m labels, but its
    # canonical_coordinates() returns m(m - 1) rates of the label co-occurrence matrix Y^T P,
    # which are not conditional rates of anything. aggframe lists recall and specificity per label.
    rng = np.random.default_rng(5)
    Y, P = rng.integers(0, 2, (30, 4)), rng.integers(0, 2, (30, 4))
    im = am.IndicatorMatrix(Y, P, task="multilabel")
    assert im.degrees_of_freedom == 8
    assert len(im.canonical_coordinates()) == 12
    pr = af.from_indicator(Y, P)
    coords = af.canonical_coordinates(pr)
    assert coords.height == af.suites.degrees_of_freedom(pr) == 8
    rec = coords.filter(pl.col("coordinate") == "recall")["value"].to_numpy()
    spec = coords.filter(pl.col("coordinate") == "specificity")["value"].to_numpy()
    np.testing.assert_allclose(rec, (Y * P).sum(0) / Y.sum(0))
    np.testing.assert_allclose(spec, ((1 - Y) * (1 - P)).sum(0) / (1 - Y).sum(0))


def test_ordinal_degrees_of_freedom() -> None:
    # aggmetrics applies its multiclass formula to the m - 1 threshold columns: (m-1)(m-2)
    # for an ordinal problem, 2 for three classes. The 3 x 3 confusion matrix with fixed class
    # sizes still has 6 free cells, and cost() depends on all of them.
    yt, yp = np.array([0, 1, 2, 2, 1, 0]), np.array([0, 2, 2, 1, 1, 1])
    assert am.IndicatorMatrix(yt, yp, task="ordinal", n_classes=3).degrees_of_freedom == 2
    pr = af.from_ordinal(yt, yp)
    assert af.suites.degrees_of_freedom(pr) == 6
    assert af.canonical_coordinates(pr).height == 6


def test_coordinates_by_group(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {"g": ["x"] * 4 + ["y"] * 4, "y_true": [0, 1, 2, 2] * 2, "y_pred": [0, 2, 2, 1, 1, 1, 2, 0]}
    )
    out = af.canonical_coordinates(af.from_labels(frame), by="g")
    assert out.columns == [
        "g",
        "class",
        "pred",
        "coordinate",
        "value",
        "count",
        "support",
        "greater_is_better",
    ]
    for g in ("x", "y"):
        part = frame.filter(pl.col("g") == g)
        ref = af.canonical_coordinates(af.from_labels(part.drop("g")))
        assert out.filter(pl.col("g") == g).drop("g").equals(ref)
    stored = af.from_cells(af.from_labels([0, 1, 2], [0, 1, 1]).write_cells(tmp_path / "cells"))
    with pytest.raises(af.errors.OptionError, match="stored cells"):
        af.canonical_coordinates(stored)


# ---------------------------------------------------------------------------
# dominance


@st.composite
def model_pairs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    m = draw(st.integers(2, 4))
    n = draw(st.integers(1, 20))
    labels = st.lists(st.integers(0, m - 1), min_size=n, max_size=n)
    return np.array(draw(labels)), np.array(draw(labels)), np.array(draw(labels)), m


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(model_pairs())
def test_pareto_dominance_matches_aggmetrics(data: tuple[np.ndarray, np.ndarray, np.ndarray, int]) -> None:
    yt, pa, pb, m = data
    # B also as a worsened copy of A, so that dominance actually occurs
    pb = np.where(pb % 2 == 0, pa, pb)
    ours = af.pareto_dominance(af.from_labels(yt, pa, n_classes=m), af.from_labels(yt, pb, n_classes=m))
    ia = am.IndicatorMatrix(yt, pa, task="multiclass", n_classes=m)
    ib = am.IndicatorMatrix(yt, pb, task="multiclass", n_classes=m)
    assert ours["relation"].item() == am.pareto_dominance(ia, ib)
    a, b = af.from_labels(yt, pa, n_classes=m), af.from_labels(yt, pb, n_classes=m)
    assert af.dominates(a, b) == ia.dominates(ib)
    assert af.dominates(a, b, strict=True) == ia.dominates(ib, strict=True)


def test_multilabel_dominance_where_aggmetrics_is_wrong() -> None:
    # B has the same cells as A on label 1 and one false positive fewer on label 0, so it
    # dominates A; aggmetrics compares rates of the co-occurrence matrix Y^T P and says A dominates B.
    Y = np.array([[0, 0], [1, 0], [1, 1]])
    A = np.array([[1, 1], [1, 0], [0, 1]])
    B = np.array([[0, 0], [1, 1], [0, 1]])
    ia, ib = am.IndicatorMatrix(Y, A, task="multilabel"), am.IndicatorMatrix(Y, B, task="multilabel")
    assert am.pareto_dominance(ia, ib) == "A_dominates_B"
    a, b = af.from_indicator(Y, A), af.from_indicator(Y, B)
    out = af.pareto_dominance(a, b)
    assert out.row(0) == ("B_dominates_A", 0, 1, 3, 4)
    assert af.dominates(b, a, strict=True)
    assert not af.dominates(a, b)
    # and the measures agree with us, aggmetrics' own included
    for name in ("precision", "label_accuracy", "f1", "mcc"):
        assert ib.compute(name, "micro") >= ia.compute(name, "micro")
        assert b.compute(name, "micro") > a.compute(name, "micro")


def test_dominance_by_group_and_mixed_kinds() -> None:
    frame = pl.DataFrame(
        {
            "g": ["x"] * 4 + ["y"] * 4,
            "y_true": [0, 1, 2, 2, 0, 1, 2, 2],
            "a": [0, 1, 2, 2, 0, 2, 2, 1],
            "b": [0, 2, 2, 2, 1, 1, 2, 2],
        }
    )
    a = af.from_labels(frame, y_pred="a")
    b = af.from_labels(frame, y_pred="b")
    out = af.pareto_dominance(a, b, by="g")
    assert out["g"].to_list() == ["x", "y"]
    assert out["relation"].to_list() == ["A_dominates_B", "incomparable"]
    # one single-label and one multilabel model: compared label by label
    Y = np.eye(3)[[0, 1, 2]]
    single = af.from_indicator(Y, np.eye(3)[[0, 1, 1]])
    multi = af.from_indicator(Y, np.array([[1, 1, 0], [0, 1, 0], [0, 1, 0]]))
    assert af.pareto_dominance(single, multi)["n_coordinates"].item() == 6
    assert af.pareto_dominance(single, multi)["relation"].item() == "A_dominates_B"
    # ordinal predictions are compared on their m-class confusion matrix
    oa = af.from_ordinal([0, 1, 2, 2], [0, 1, 2, 1])
    ob = af.from_ordinal([0, 1, 2, 2], [0, 2, 2, 1])
    assert af.pareto_dominance(oa, ob)["relation"].item() == "A_dominates_B"


def test_dominance_needs_the_same_examples() -> None:
    a = af.from_labels([0, 1, 1, 2], [0, 1, 1, 2])
    with pytest.raises(af.errors.ShapeError, match="class 1 has 2 examples under A but 1 under B"):
        af.pareto_dominance(a, af.from_labels([0, 1, 2, 2], [0, 1, 1, 2]))
    with pytest.raises(af.errors.ShapeError, match="different classes: only in A"):
        af.pareto_dominance(a, af.from_labels([0, 1, 1, 3], [0, 1, 1, 3]))
    frame = pl.DataFrame({"g": ["x", "x", "y"], "y_true": [0, 1, 0], "y_pred": [0, 1, 1]})
    with pytest.raises(af.errors.ShapeError, match="group g='y'"):
        af.pareto_dominance(af.from_labels(frame), af.from_labels(frame.filter(pl.col("g") == "x")), by="g")
    with pytest.raises(af.errors.OptionError, match=r"expected an af\.Predictions"):
        af.dominates(a, [0, 1, 1, 2])  # type: ignore[arg-type]
    with pytest.raises(af.errors.OptionError, match="True or False"):
        af.dominates(a, a, strict="yes")  # type: ignore[arg-type]
