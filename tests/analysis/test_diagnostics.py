"""Diagnostics: the same findings as aggmetrics 0.2.0, per group, as a tidy frame."""

from __future__ import annotations

import warnings

import aggmetrics as am
import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import aggframe as af
from tests.strategies import indicator_matrices, label_arrays

SUITE = ["precision", "recall", "f1", "mcc", "specificity", "balanced_accuracy", "fowlkes_mallows"]


def _codes(df: pl.DataFrame) -> set[tuple[str, str | None]]:
    per_measure = {
        "outside_hull",
        "inflated_floor",
        "undefined_entries",
        "degenerate_optimum",
        "not_erm_consistent",
    }
    return {(c, m if c in per_measure else None) for c, m in zip(df["code"], df["measure"], strict=True)}


def _reference(findings: list) -> set[tuple[str, str | None]]:  # type: ignore[type-arg]
    return {(f.code, f.detail.get("measure")) for f in findings}


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(label_arrays(max_m=5), st.booleans())
def test_multiclass_findings_match_aggmetrics(
    data: tuple[np.ndarray, np.ndarray, int], explicit: bool
) -> None:
    yt, yp, m = data
    measures = SUITE if explicit else None
    ours = af.diagnose(af.from_labels(yt, yp, n_classes=m), measures)
    ref = am.diagnose(am.IndicatorMatrix(yt, yp, task="multiclass", n_classes=m), measures)
    assert _codes(ours) == _reference(ref)
    drift = [f for f in ref if f.code == "ovr_skew_drift"]
    if drift:
        assert ours.filter(pl.col("code") == "ovr_skew_drift")["value"].item() == pytest.approx(
            drift[0].detail["uniform_error_dev"]
        )


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices(masked=False, max_m=4))
def test_multilabel_findings_match_aggmetrics(data: tuple[np.ndarray, np.ndarray, None]) -> None:
    Y, P, _ = data
    # stated, as aggmetrics' task=: one-hot rows too are read as multilabel
    ours = af.diagnose(af.from_indicator(Y, P, task="multilabel"), SUITE)
    ref = am.diagnose(am.IndicatorMatrix(Y, P, task="multilabel"), SUITE)
    assert _codes(ours) == _reference(ref)
    undefined = {
        f.detail["measure"] + f.detail["aggregation"]: f for f in ref if f.code == "undefined_entries"
    }
    for row in ours.filter(pl.col("code") == "undefined_entries").iter_rows(named=True):
        f = undefined[row["measure"] + row["operator"]]
        assert row["value"] == pytest.approx(f.detail["exclude"], nan_ok=True)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices(masked=False, max_m=4))
def test_per_example_hull_matches_aggmetrics(data: tuple[np.ndarray, np.ndarray, None]) -> None:
    # hull="exemplar" (aggmetrics' aggregation="exemplar"): micro against the per-example values
    # (read off the profiles here, off the rows in aggmetrics)
    Y, P, _ = data
    if (Y.sum(axis=1) == 1).all() and (P.sum(axis=1) == 1).all():
        return
    ours = af.diagnose(af.from_indicator(Y, P), SUITE, hull="exemplar")
    ref = am.diagnose(am.IndicatorMatrix(Y, P, task="multilabel"), SUITE, aggregation="exemplar")
    hull = {f.detail["measure"]: f.detail for f in ref if f.code == "outside_hull"}
    got = ours.filter(pl.col("code") == "outside_hull")
    assert set(got["measure"]) == set(hull)
    for row in got.iter_rows(named=True):
        assert (row["lower"], row["upper"]) == pytest.approx(
            (hull[row["measure"]]["lo"], hull[row["measure"]]["hi"])
        )
        assert "per-example values" in row["message"]


def test_per_example_hull_example() -> None:
    # one defined per-example MCC (0.5); micro-MCC is 0, outside that range
    Y = np.array([[1, 0, 0], [0, 0, 0], [0, 1, 1], [1, 1, 1], [1, 1, 1]])
    P = np.array([[1, 1, 1], [0, 1, 1], [0, 0, 1], [1, 0, 1], [1, 1, 0]])
    got = af.diagnose(af.from_indicator(Y, P), ["mcc"], hull="exemplar").filter(
        pl.col("code") == "outside_hull"
    )
    assert got.select("value", "lower", "upper").row(0) == pytest.approx((0.0, 0.5, 0.5))
    ref = am.check_hull(am.IndicatorMatrix(Y, P, task="multilabel"), "mcc", "exemplar")
    assert ref is not None
    assert (ref.detail["lo"], ref.detail["hi"]) == pytest.approx((0.5, 0.5))


def test_operators_keep_their_findings() -> None:
    rng = np.random.default_rng(4)
    pr = af.from_indicator(rng.integers(0, 2, (30, 4)), rng.integers(0, 2, (30, 4)))
    everything = af.diagnose(pr, SUITE)
    macro = af.diagnose(pr, SUITE, operators="macro")
    assert set(everything["operator"].drop_nulls()) - {"macro"}, "the data should give non-macro findings"
    assert set(macro["operator"].drop_nulls()) <= {"macro"}
    expected = everything.filter(pl.col("operator").is_null() | (pl.col("operator") == "macro"))
    assert macro.sort(pl.all(), nulls_last=True).equals(expected.sort(pl.all(), nulls_last=True))
    with pytest.raises(af.errors.UnknownNameError, match="mikro"):
        af.diagnose(pr, SUITE, operators=["mikro"])


def test_floor_trap_example() -> None:
    # 500 examples, 10 classes, every prediction wrong
    y = np.arange(500) % 10
    p = (y + 1) % 10
    out = af.diagnose(af.from_labels(y, p), ["specificity", "label_accuracy", "recall"])
    floors = dict(
        zip(
            *out.filter(pl.col("code") == "inflated_floor").select("measure", "value").to_dict().values(),
            strict=True,
        )
    )
    assert floors["specificity"] == pytest.approx(8 / 9)
    assert floors["label_accuracy"] == pytest.approx(0.8)
    assert "recall" not in floors


def test_per_group_findings_and_warnings() -> None:
    frame = pl.read_parquet("examples/predictions.parquet")
    out = af.diagnose(af.from_labels(frame), ["precision", "mcc"], by="model")
    assert set(out["model"].drop_nulls()) == {"baseline", "gbm", "transformer"}
    assert list(out.columns[:4]) == ["model", "scope", "code", "severity"]
    with pytest.warns(af.errors.MeasureWarning):
        af.diagnose(af.from_labels([0, 1, 2], [1, 2, 0]), ["specificity"], emit_warnings=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        af.diagnose(af.from_labels([0, 1, 2], [1, 2, 0]), ["f1"])
    with pytest.raises(af.errors.OptionError, match="hull"):
        af.diagnose(af.from_labels([0, 1], [0, 1]), hull="micro")


def test_measure_properties_match_aggmetrics() -> None:
    for name in af.list_measures():
        ours, ref = af.get_measure(name), am.get_measure(name)
        assert ours.bayes_threshold() == ref.bayes_threshold()
        assert ours.erm_consistent() == ref.erm_consistent()
        for m in (2, 3, 10):
            assert ours.attainable_floor(m) == pytest.approx(ref.attainable_floor(m), nan_ok=True)


def test_an_inferred_task_is_a_note() -> None:
    Y, P = np.eye(3)[[0, 1, 2, 1]], np.eye(3)[[0, 2, 2, 1]]
    inferred = af.diagnose(af.from_indicator(Y, P)).filter(pl.col("code") == "inferred_task")
    assert inferred["message"].str.contains("single-label").to_list() == [True]
    stated = af.diagnose(af.from_indicator(Y, P, task="multiclass"))
    assert "inferred_task" not in stated["code"].to_list()


def test_the_former_aggregation_option_still_works_with_a_warning() -> None:
    pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    with pytest.warns(FutureWarning, match="hull="):
        old = af.diagnose(pr, aggregation="exemplar")
    assert old.equals(af.diagnose(pr, hull="exemplar"))


# ---------------------------------------------------------------------------
# Scope and order: what holds for every group comes once; warnings first


def _by_model_day() -> af.Predictions:
    return af.from_labels(pl.read_parquet("examples/predictions.parquet"))


def test_findings_about_every_group_come_once() -> None:
    pr = _by_model_day()
    grouped = af.diagnose(pr, by=["model", "day"])
    alone = af.diagnose(pr)
    every = grouped.filter(pl.col("scope") == "all")
    # data-independent codes, and those that depend only on the (shared) class count
    assert set(every["code"]) == {"degenerate_optimum", "inflated_floor"}
    assert every.select("model", "day").null_count().row(0) == (every.height, every.height)
    assert every.drop("model", "day").equals(alone.filter(pl.col("scope") == "all"))
    groups = grouped.filter(pl.col("scope") == "group")
    assert groups.select("model", "day").null_count().row(0) == (0, 0)
    # no finding of a group repeats one stated for every group
    assert not set(groups["code"]) & set(every["code"])
    # 12 groups: the data-independent rows did not multiply by 12
    assert every.height == alone.filter(pl.col("scope") == "all").height


def test_a_null_group_is_told_from_every_group() -> None:
    frame = pl.DataFrame(
        {
            "*": [None, None, None, "a", "a", "a"],
            "y_true": [0, 1, 2, 0, 1, 2],
            "y_pred": [1, 2, 0, 0, 1, 1],
        }
    )
    out = af.diagnose(af.from_labels(frame), ["recall", "specificity", "f1"], by="*")
    key = out.to_series(0)  # the column "*", read by position (pl.col("*") is every column)
    null_group = out.filter(key.is_null() & (out["scope"] == "group"))
    collapse = null_group.filter(pl.col("code") == "micro_collapse")
    assert collapse["value"].to_list() == pytest.approx([0.0])  # every prediction of the null group is wrong
    every = out.filter(pl.col("scope") == "all")
    assert every.to_series(0).null_count() == every.height
    assert {"degenerate_optimum", "inflated_floor"} <= set(every["code"])
    with pytest.raises(af.errors.OptionError, match="'scope' collides"):
        af.diagnose(af.from_labels(frame.rename({"*": "scope"})), by="scope")


def test_per_group_class_counts_keep_per_group_findings() -> None:
    frame = pl.DataFrame(
        {"g": ["a"] * 3 + ["b"] * 4, "y_true": [0, 1, 2, 0, 1, 2, 3], "y_pred": [1, 2, 0, 1, 2, 3, 0]}
    )
    out = af.diagnose(af.from_labels(frame, class_universe="group"), ["specificity"], by="g")
    floors = out.filter(pl.col("code") == "inflated_floor").sort("g")
    assert floors.select("g", "scope").rows() == [("a", "group"), ("b", "group")]
    assert floors["value"].to_list() == pytest.approx(
        [af.get_measure("specificity").attainable_floor(m) for m in (3, 4)]
    )


def test_findings_are_ranked() -> None:
    out = af.diagnose(_by_model_day(), by=["model", "day"])
    rank = {"warning": 0, "note": 1}
    order = [
        (rank[s], c, scope != "all") for s, c, scope in out.select("severity", "code", "scope").iter_rows()
    ]
    assert order == sorted(order)
    assert out["severity"][0] == "warning"
    assert out["severity"][-1] == "note"


def test_degenerate_optimum_reads_as_one() -> None:
    out = af.diagnose(af.from_labels([0, 1, 1, 0], [0, 1, 0, 0]), ["recall", "specificity", "f1"])
    messages = dict(out.filter(pl.col("code") == "degenerate_optimum").select("measure", "message").rows())
    assert messages["recall"] == (
        "recall is maximised by predicting every instance positive (threshold 0): a degenerate optimum"
    )
    assert "every instance negative (threshold 1)" in messages["specificity"]
    assert "0.000" not in " ".join(out["message"])


def test_message_numbers_have_no_negative_zero() -> None:
    """A value off zero in its last bits reads 0.0 in a message, as its twin computed in another order does."""
    from aggframe.analysis.diagnostics import _fmt

    got = pl.DataFrame({"x": [-1e-17, 0.0, 1e-17, -0.5, 1 / 3, None]}).select(_fmt(pl.col("x")))
    assert got.to_series().to_list() == ["0.0", "0.0", "0.0", "-0.5", "0.3333", None]
