"""The gaps issue #15 lists, each against its oracle (aggmetrics 0.2.0 or scikit-learn).

``compute(labels=)``, integer per-class counts, masked single-label costs, an
unregistered measure in ``diagnose``, ``InferredProperties.summary()``, the
t-norm marginal defect and the uniform error deviation as a value of its own.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any

import aggmetrics as am
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import aggframe as af
from aggframe.ops import ratio, sqrt
from tests.strategies import LabelCase, group_filter, label_arrays, label_frames

FEW = settings(max_examples=15, deadline=None)


# -- compute(labels=) and per-class counts ----------------------------------------------------


@FEW
@given(data=label_arrays(), subset=st.lists(st.integers(0, 7), min_size=1, max_size=3, unique=True))
def test_compute_takes_labels(data: tuple[np.ndarray, np.ndarray, int], subset: list[int]) -> None:
    yt, yp, _ = data
    pr = af.from_labels(yt, yp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = skm.precision_score(yt, yp, labels=subset, average="macro", zero_division=0)
    assert pr.compute("precision", "macro", convention="zero", labels=subset) == pytest.approx(expected)
    assert pr.compute("precision", "macro", convention="zero", classes=subset) == pytest.approx(expected)
    with pytest.raises(af.errors.OptionError, match="not both"):
        pr.compute("precision", "macro", labels=subset, classes=subset)


def test_per_class_counts_are_integers_on_crisp_data_and_floats_on_soft_data(tmp_path: Any) -> None:
    counts = ("support", "tp", "fp", "fn", "tn")
    crisp = af.from_labels([0, 1, 2, 2], [0, 2, 2, 1]).per_class(["f1"])
    assert all(crisp.schema[c] == pl.Int64 for c in counts)
    assert crisp["support"].to_list() == [1, 1, 2]
    masked = af.from_indicator(np.eye(3), np.eye(3)[[0, 2, 1]], mask=np.ones((3, 3))).per_class("recall")
    assert all(masked.schema[c] == pl.Int64 for c in counts)
    soft = af.from_indicator(np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]]), tnorm="product").per_class(
        "recall"
    )
    assert all(soft.schema[c] == pl.Float64 for c in counts)
    assert soft["support"].to_list() == [0.5, 0.5]
    # a store says whether its cells are counts
    store = af.from_labels([0, 1, 2, 2], [0, 2, 2, 1]).write_cells(tmp_path / "s")
    assert af.from_cells(store).per_class("f1").schema["tp"] == pl.Int64
    soft_store = af.from_indicator(
        np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]]), tnorm="product"
    ).write_cells(tmp_path / "t")
    assert af.from_cells(soft_store).per_class("f1").schema["tp"] == pl.Float64


# -- cost on masked single-label data ----------------------------------------------------------


@FEW
@given(
    n=st.integers(1, 25),
    m=st.integers(2, 5),
    seed=st.integers(0, 2**16),
    kind=st.sampled_from(["absolute", "squared", "zero_one"]),
)
def test_cost_of_masked_single_label_data_matches_aggmetrics(n: int, m: int, seed: int, kind: str) -> None:
    rng = np.random.default_rng(seed)
    yt, yp = rng.integers(0, m, n), rng.integers(0, m, n)
    mask = (rng.random((n, m)) > 0.3).astype(float)
    im = am.IndicatorMatrix(yt, yp, task="multiclass", mask=mask, n_classes=m)
    C = af.cost_matrix(kind, m)
    got = af.cost(
        af.from_indicator(np.eye(m)[yt], np.eye(m)[yp], mask=mask), C, ["total", "micro", "exemplar"]
    )
    values = dict(got.select("operator", "value").iter_rows())
    observed = int(mask[np.arange(n), yp].sum())
    # total: aggmetrics' micro, sigma_1((Y C) * P * mask)
    assert values["total"] == pytest.approx(im.cost(C, "micro"), abs=1e-12)
    if observed:
        # aggframe leaves the unobserved costs out; aggmetrics counts them as 0 over all n examples
        assert values["exemplar"] * observed / n == pytest.approx(im.cost(C, "exemplar"), abs=1e-12)
        assert values["micro"] == values["exemplar"]
        assert got.filter(pl.col("operator") == "exemplar")["n_entries"].item() == observed
    else:
        assert math.isnan(values["micro"])


def test_cost_refuses_masked_data_that_is_not_single_label() -> None:
    Y, P = np.array([[1, 0], [1, 1]]), np.array([[1, 0], [0, 1]])
    with pytest.raises(af.errors.InvalidValueError, match=r"1 example\(s\).*example=1"):
        af.cost(af.from_indicator(Y, P, mask=np.array([[1, 0], [1, 1]])), "absolute")
    soft = af.from_indicator(
        np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]]), mask=np.ones((1, 2)), tnorm="product"
    )
    with pytest.raises(af.errors.OptionError, match="single-label"):
        af.cost(soft, "absolute")


def test_masked_cost_by_groups_with_null_keys() -> None:
    rng = np.random.default_rng(2)
    n, m = 30, 3
    yt, yp = rng.integers(0, m, n), rng.integers(0, m, n)
    mask = (rng.random((n, m)) > 0.3).astype(int)
    groups = [None if i % 3 == 0 else ("a" if i % 3 == 1 else "b") for i in range(n)]
    frame = pl.DataFrame(
        {
            "g": [groups[i] for i in range(n) for _ in range(m)],
            "example": [i for i in range(n) for _ in range(m)],
            "class": [c for _ in range(n) for c in range(m)],
            "y": np.eye(m)[yt].ravel().astype(int),
            "p": np.eye(m)[yp].ravel().astype(int),
            "mask": mask.ravel(),
        }
    )
    got = af.cost(af.from_long(frame, mask="mask"), "absolute", "total", by="g")
    for g in (None, "a", "b"):
        rows = [i for i in range(n) if groups[i] == g]
        im = am.IndicatorMatrix(
            yt[rows], yp[rows], task="multiclass", mask=mask[rows].astype(float), n_classes=m
        )
        value = got.filter(group_filter(["g"], [g]))["value"].item()
        assert value == pytest.approx(im.cost(af.cost_matrix("absolute", m), "micro"))


# -- diagnose with an unregistered measure -------------------------------------------------------


def test_diagnose_takes_an_unregistered_measure() -> None:
    # an af.Measure built by hand (never registered): the twin of specificity under another name
    spec = af.get_measure("specificity")
    mine = dataclasses.replace(spec, name="my_specificity", aliases=())
    assert "my_specificity" not in af.list_measures()
    pr = af.from_labels([0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 2], [0, 0, 0, 1, 1, 0, 2, 2, 2, 2, 1, 0])
    got = af.diagnose(pr, [mine, "recall"])
    # the same findings as the registered twin (but the drift check, which goes by the measures' names)
    twin = (
        af.diagnose(pr, ["specificity", "recall"])
        .filter(pl.col("code") != "ovr_skew_drift")
        .with_columns(pl.col("measure", "message").str.replace_all("specificity", "my_specificity"))
    )
    assert {"inflated_floor", "degenerate_optimum"} <= set(
        got.filter(pl.col("measure") == "my_specificity")["code"]
    )
    # the ranking orders findings by severity, code, scope and keys, then measure names (which differ)
    order = ["severity", "code", "measure", "message"]
    assert_frame_equal(got.sort(order), twin.sort(order))


# -- InferredProperties.summary() --------------------------------------------------------------


@pytest.mark.parametrize("name", ["recall", "precision", "f1", "mcc", "balanced_accuracy", "specificity"])
def test_summary_has_the_reference_lines(name: str) -> None:
    measure = af.get_measure(name)
    ours = af.infer_properties(measure.formula).summary().splitlines()
    ref = am.inference.infer_properties(lambda tp, fp, fn, tn: float(measure(tp, fp, fn, tn))).summary()
    labels = [line.partition(":")[0] for line in ours]
    coefficients: dict[str, list[np.ndarray]] = {}
    for line in ref.splitlines():
        label, _, verdict = line.partition(":")
        assert label in labels, (label, ours)
        mine = ours[labels.index(label)].partition(":")[2]
        if label.startswith(("numerator", "denominator")):
            for text in (verdict, mine):
                coefficients.setdefault(label, []).append(
                    np.array(text.strip(" ()").split(", "), dtype=float)
                )
        elif not label.startswith("held-out"):
            assert mine == verdict, (label, mine, verdict)
    if coefficients:  # the same linear-fractional form up to scale (the normalisations differ)
        ref_a, our_a = coefficients[labels[4]]
        ref_b, our_b = coefficients[labels[5]]
        scale = our_b.max() / ref_b.max()
        assert our_a == pytest.approx(ref_a * scale)
        assert our_b == pytest.approx(ref_b * scale)
    assert any(line.startswith("bayes threshold") for line in ours)


def test_summary_says_why_a_fit_failed() -> None:
    text = af.infer_properties(lambda tp, fp, fn, tn: sqrt(ratio(tp, tp + fn) * ratio(tn, tn + fp))).summary()
    assert "decomposable          : False" in text
    assert "why not decomposable" in text
    assert "numerator coeffs" not in text


# -- the t-norm marginal defect ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["product", "godel", "minimum", "lukasiewicz"])
@pytest.mark.parametrize("grid", [2, 5, 21, 40])
def test_marginal_defect_matches_aggmetrics(name: str, grid: int) -> None:
    assert af.tnorms.marginal_defect(name, grid) == pytest.approx(am.marginal_defect(name, grid), abs=1e-12)


@settings(max_examples=20, deadline=None)
@given(gamma=st.floats(0.0, 5.0), grid=st.integers(2, 30))
def test_marginal_defect_of_hamacher_matches_aggmetrics(gamma: float, grid: int) -> None:
    ours = af.tnorms.marginal_defect(af.tnorms.hamacher(gamma), grid)
    assert ours == pytest.approx(am.marginal_defect(am.tnorms.hamacher(gamma), grid), abs=1e-12)
    assert (ours < 1e-12) == (abs(gamma - 1.0) < 1e-12 or grid == 2)


def test_marginal_defect_of_a_callable_and_bad_options() -> None:
    assert af.tnorms.marginal_defect(lambda a, b: a * b) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(af.errors.OptionError, match="grid"):
        af.tnorms.marginal_defect("product", 1)
    with pytest.raises(af.errors.UnknownNameError):
        af.tnorms.marginal_defect("median")
    with pytest.raises(af.errors.OptionError, match="needs a t-norm"):
        af.tnorms.marginal_defect(None)  # type: ignore[arg-type]


# -- the uniform error deviation --------------------------------------------------------------------


@FEW
@given(case=label_frames(max_n=40, max_m=5, min_keys=0, max_keys=2))
def test_uniform_error_deviation_matches_aggmetrics_per_group(case: LabelCase) -> None:
    m = max(case.classes) + 1  # aggmetrics' class count: 0 .. the largest label
    pr = af.from_labels(case.frame, y_true="y_true", y_pred="y_pred", n_classes=m)
    got = af.uniform_error_deviation(pr, by=case.by)
    assert got.columns == [*case.by, "value", "n_classes"]
    groups = got.select(case.by).unique(maintain_order=True).rows() if case.by else [()]
    for values in groups:
        rows = case.frame.filter(group_filter(case.by, values))
        im = am.IndicatorMatrix(
            rows["y_true"].to_numpy(), rows["y_pred"].to_numpy(), task="multiclass", n_classes=m
        )
        mine = got.filter(group_filter(case.by, values))
        assert mine["value"].item() == pytest.approx(am.uniform_error_deviation(im), abs=1e-12)
        assert mine["n_classes"].item() == m


def test_uniform_error_deviation_is_what_diagnose_reports() -> None:
    pr = af.from_labels([0, 0, 0, 1, 1, 2, 2, 2, 3], [1, 1, 0, 0, 1, 2, 0, 2, 3])
    value = af.uniform_error_deviation(pr)["value"].item()
    finding = af.diagnose(pr, ["specificity"]).filter(pl.col("code") == "ovr_skew_drift")
    assert finding["value"].item() == pytest.approx(value)
    with pytest.raises(af.errors.OptionError, match="multilabel"):
        af.uniform_error_deviation(af.from_indicator(np.array([[1, 1]]), np.array([[1, 0]])))
