"""Cross-validation folds: pooled vs averaged, repeated CV, spread, seed parity with aggmetrics."""

from __future__ import annotations

import aggmetrics as am
import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from tests.strategies import CONVENTIONS, MEASURES, OPERATORS, dense_long, indicator_matrices

FEW = ["precision", "recall", "f1", "mcc", "balanced_accuracy", "specificity"]


@st.composite
def folded_labels(draw: st.DrawFn) -> tuple[pl.DataFrame, int, int]:
    m = draw(st.integers(2, 4))
    k = draw(st.integers(2, 4))
    n = draw(st.integers(k, 40))
    yt = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    yp = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    # every fold gets at least one example; sizes are unequal
    fold = list(range(k)) + draw(st.lists(st.integers(0, k - 1), min_size=n - k, max_size=n - k))
    frame = pl.DataFrame({"example": range(n), "fold": fold, "y_true": yt, "y_pred": yp})
    return frame, m, k


def _aggmetrics_folds(frame: pl.DataFrame, m: int, k: int) -> list[am.IndicatorMatrix]:
    return [
        am.IndicatorMatrix(
            part["y_true"].to_numpy(), part["y_pred"].to_numpy(), task="multiclass", n_classes=m
        )
        for part in (frame.filter(pl.col("fold") == f) for f in range(k))
    ]


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(folded_labels())
def test_label_folds_match_aggmetrics_fold_aggregate(data: tuple[pl.DataFrame, int, int]) -> None:
    frame, m, k = data
    pr = af.from_labels(frame, example="example", fold="fold", n_classes=m)
    out = pr.evaluate(MEASURES, OPERATORS, convention=list(CONVENTIONS), pooling=["pooled", "averaged"])
    ims = _aggmetrics_folds(frame, m, k)
    for row in out.iter_rows(named=True):
        try:
            ref = am.fold_aggregate(
                ims, row["measure"], row["operator"], row["pooling"], convention=row["convention"]
            )
        except ZeroDivisionError:
            continue  # aggmetrics 0.2.0 crashes on zero-support weighted; tested in test_oracle
        if row["operator"] == "micro" and row["convention"] in ("zero", "one"):
            continue  # the convention applies to the pooled micro entry (tested in test_oracle)
        assert row["value"] == pytest.approx(ref, rel=1e-9, abs=1e-12, nan_ok=True), row


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices(masked=True, max_n=20), st.integers(2, 3))
def test_long_form_folds_match_aggmetrics(data: tuple[np.ndarray, np.ndarray, np.ndarray], k: int) -> None:
    Y, P, mask = data
    n = Y.shape[0]
    fold = np.arange(n) % k
    frame = dense_long(Y, P, mask).with_columns(
        pl.col("example").map_elements(lambda e: int(fold[e]), return_dtype=pl.Int64).alias("fold")
    )
    pr = af.from_long(frame, mask="mask", fold="fold")
    ims = [
        am.IndicatorMatrix(Y[fold == f], P[fold == f], task="multilabel", mask=mask[fold == f])
        for f in range(k)
        if (fold == f).any()
    ]
    out = pr.evaluate(FEW, OPERATORS, pooling=["pooled", "averaged"])
    for row in out.iter_rows(named=True):
        try:
            ref = am.fold_aggregate(ims, row["measure"], row["operator"], row["pooling"])
        except ZeroDivisionError:
            continue
        assert row["value"] == pytest.approx(ref, rel=1e-9, abs=1e-12, nan_ok=True), row


@given(folded_labels())
def test_fold_aggregate_seed_parity(data: tuple[pl.DataFrame, int, int]) -> None:
    frame, m, k = data
    preds = [
        af.from_labels(part, n_classes=m) for part in (frame.filter(pl.col("fold") == f) for f in range(k))
    ]
    ims = _aggmetrics_folds(frame, m, k)
    for measure, how, pooling in [
        ("f1", "macro", "pooled"),
        ("mcc", "micro", "averaged"),
        ("jaccard", "exemplar", "pooled"),
    ]:
        ours = af.fold_aggregate(preds, measure, how, pooling)
        assert ours == pytest.approx(am.fold_aggregate(ims, measure, how, pooling), nan_ok=True)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(folded_labels())
def test_pooled_is_the_union_and_the_denominator_weighted_fold_average(
    data: tuple[pl.DataFrame, int, int],
) -> None:
    frame, m, _ = data
    pr = af.from_labels(frame, example="example", fold="fold", n_classes=m)
    union = af.from_labels(frame, n_classes=m)
    pooled = pr.evaluate(MEASURES, OPERATORS, pooling="pooled").drop("fold", "pooling")
    assert_frame_equal(pooled, union.evaluate(MEASURES, OPERATORS), abs_tol=1e-12)
    # Theorem 1 over folds, every decomposable measure: pooled micro is the mean of the fold
    # values weighted by the fold denominators
    per_fold = pr.cells("pooled").select("tp", "fp", "fn", "tn").to_numpy()
    for name in af.list_measures(decomposable=True):
        measure = af.get_measure(name)
        den = np.array([measure.denominator(c) for c in per_fold])
        values = np.asarray(measure(*per_fold.T), dtype=float)
        ok = den > 0
        pooled_value = pr.compute(name, "micro")
        if ok.any():
            expected = np.sum(den[ok] * values[ok]) / np.sum(den[ok])
            assert pooled_value == pytest.approx(expected, rel=1e-12), name
        else:
            assert np.isnan(pooled_value), name
    # Corollary 1: micro recall on single-label data is accuracy, whose denominator
    # is the fold size: pooled and averaged coincide
    assert pr.compute("recall", "micro", pooling="averaged") == pytest.approx(pr.compute("recall", "micro"))


def _aggmetrics_value(im: am.IndicatorMatrix, measure: str, op: str, conv: str) -> float:
    value = float(im.compute(measure, op, convention=conv))
    if op == "micro" and np.isnan(value) and conv in ("zero", "one"):
        return 0.0 if conv == "zero" else 1.0  # the convention applies to the pooled entry (test_oracle)
    return value


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(folded_labels())
def test_fold_values_and_their_spread_match_aggmetrics_per_fold(data: tuple[pl.DataFrame, int, int]) -> None:
    # pooling "fold" is each fold's value; min, max and std (ddof=1) their spread over the
    # folds whose value is defined, under every operator and convention
    frame, m, k = data
    pr = af.from_labels(frame, example="example", fold="fold", n_classes=m)
    out = pr.evaluate(FEW, OPERATORS, convention=list(CONVENTIONS), pooling=["fold", "min", "max", "std"])
    ims = _aggmetrics_folds(frame, m, k)
    for measure in FEW:
        for op in OPERATORS:
            for conv in CONVENTIONS:
                try:
                    per_fold = np.array([_aggmetrics_value(im, measure, op, conv) for im in ims])
                except ZeroDivisionError:
                    continue  # aggmetrics 0.2.0 crashes on zero-support weighted (test_oracle)
                rows = out.filter(
                    pl.col("measure") == measure, pl.col("operator") == op, pl.col("convention") == conv
                )
                got = {p: rows.filter(pl.col("pooling") == p) for p in ("fold", "min", "max", "std")}
                fold_values = got["fold"].sort("fold")["value"].to_numpy()
                assert fold_values == pytest.approx(per_fold, abs=1e-12, nan_ok=True), (measure, op, conv)
                defined = per_fold[~np.isnan(per_fold)]
                expected = {
                    "min": defined.min() if defined.size else np.nan,
                    "max": defined.max() if defined.size else np.nan,
                    "std": np.std(defined, ddof=1) if defined.size > 1 else np.nan,
                }
                for stat, value in expected.items():
                    assert got[stat]["value"].item() == pytest.approx(value, abs=1e-12, nan_ok=True), (
                        stat,
                        measure,
                    )
                    assert got[stat]["n_undefined"].item() == int(np.isnan(per_fold).sum())


def test_repeated_cv_pools_every_appearance() -> None:
    rng = np.random.default_rng(5)
    n, repeats, k = 30, 3, 5
    rows = []
    for r in range(repeats):
        folds = rng.permutation(np.arange(n) % k)
        y = rng.integers(0, 3, n)
        p = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
        rows.append(
            pl.DataFrame({"repeat": r, "fold": folds, "example": np.arange(n), "y_true": y, "y_pred": p})
        )
    frame = pl.concat(rows)
    pr = af.from_labels(frame, example="example", fold="fold", repeat="repeat", n_classes=3)
    concatenated = af.from_labels(frame["y_true"].to_numpy(), frame["y_pred"].to_numpy(), n_classes=3)
    for measure in ("f1", "mcc", "kappa"):
        assert pr.compute(measure, "micro") == pytest.approx(concatenated.compute(measure, "micro"))
    out = pr.evaluate("f1", "exemplar", pooling=["pooled", "averaged", "fold"])
    assert out.filter(pl.col("pooling") == "pooled")["n_entries"].item() == n * repeats
    assert out.filter(pl.col("pooling") == "averaged")["n_entries"].item() == repeats * k
    assert out.filter(pl.col("pooling") == "fold").height == repeats * k
    assert set(out.columns) >= {"repeat", "fold", "pooling"}


def test_spread_rows_and_a_class_missing_from_a_fold() -> None:
    frame = pl.DataFrame(
        {
            "example": range(8),
            "fold": [0, 0, 0, 0, 1, 1, 1, 1],
            "y_true": [0, 1, 2, 2, 0, 1, 1, 0],  # class 2 is absent from fold 1
            "y_pred": [0, 1, 2, 1, 0, 1, 0, 0],
        }
    )
    pr = af.from_labels(frame, example="example", fold="fold", n_classes=3)
    out = pr.evaluate("recall", "macro", pooling=["pooled", "fold", "min", "max", "std"])
    fold_rows = out.filter(pl.col("pooling") == "fold")
    assert fold_rows["n_undefined"].to_list() == [0, 1]  # recall of class 2 in fold 1 is undefined
    values = fold_rows["value"].to_numpy()
    stats = dict(zip(out["pooling"], out["value"], strict=True))
    assert stats["min"] == pytest.approx(values.min())
    assert stats["max"] == pytest.approx(values.max())
    assert stats["std"] == pytest.approx(np.std(values, ddof=1))
    pooled = out.filter(pl.col("pooling") == "pooled")
    assert pooled["n_entries"].item() == 3
    assert pooled["n_undefined"].item() == 0  # pooling avoids the fold-level undefined value


def test_folds_eager_lazy_streaming_identical() -> None:
    frame = pl.read_parquet("examples/predictions.parquet").filter(pl.col("day") == "2026-11-01")
    frame = frame.with_columns((pl.col("example") % 4).alias("fold"))
    kwargs = {"by": "model", "pooling": ["pooled", "averaged", "fold", "std"]}
    a = af.from_labels(frame, example="example", fold="fold").evaluate(["f1", "mcc"], **kwargs)
    b = af.from_labels(frame.lazy(), example="example", fold="fold").evaluate(
        ["f1", "mcc"], **kwargs, engine="streaming"
    )
    c = (
        af.from_labels(frame.lazy(), example="example", fold="fold")
        .evaluate(["f1", "mcc"], **kwargs, lazy=True)
        .collect()
    )
    assert_frame_equal(a, b)
    assert_frame_equal(a, c)


def test_fold_errors() -> None:
    frame = pl.DataFrame({"example": [0, 0, 1], "fold": [0, 0, 1], "y_true": [0, 1, 1], "y_pred": [0, 1, 0]})
    with pytest.raises(af.errors.DuplicateEntryError, match=r"column 'example': 1 repeated .*example=0"):
        af.from_labels(frame, example="example", fold="fold").evaluate()
    # the same example in two folds is fine (repeated CV without a repeat column)
    ok = frame.with_columns(pl.Series("fold", [0, 1, 1]))
    assert af.from_labels(ok, example="example", fold="fold").evaluate("f1", "micro").height == 1
    with pytest.raises(af.errors.OptionError, match="empty list"):
        af.fold_aggregate([], "f1")
    with pytest.raises(af.errors.UnknownClassError, match="fold 1 has classes"):
        af.fold_aggregate([af.from_labels([0, 1], [0, 1]), af.from_labels([0, 2], [0, 2])], "f1")
    with pytest.raises(af.errors.OptionError, match="needs a fold column"):
        af.from_labels([0, 1], [0, 1]).evaluate("f1", pooling="averaged")
    with pytest.raises(af.errors.UnknownNameError, match="valid poolings"):
        af.from_labels(ok, fold="fold").evaluate("f1", pooling="median")
    with pytest.raises(af.errors.ColumnNotFoundError, match="'folds'"):
        af.from_labels(ok, fold="folds")
    with pytest.raises(af.errors.UnknownNameError, match="unknown operator"):
        af.fold_aggregate([af.from_labels([0, 1], [0, 1])], "f1", "mean")


def test_the_fold_columns_keep_their_dtype_whatever_the_poolings() -> None:
    """The fold and repeat columns were dtype Null unless a per-fold pooling was asked: two reports
    of the same predictions did not concat (SchemaError)."""
    frame = pl.DataFrame(
        {
            "example": [0, 1, 2, 3],
            "y_true": [0, 1, 1, 0],
            "y_pred": [0, 1, 0, 0],
            "f": ["a", "a", "b", "b"],
            "r": [0, 0, 0, 0],
        }
    )
    pr = af.from_labels(frame, example="example", fold="f", repeat="r")
    reports = [
        pr.evaluate("recall", "macro", pooling=p)
        for p in ("pooled", "fold", "averaged", "repeat", "repeat_pooled")
    ]
    for report in reports:
        assert (report.schema["f"], report.schema["r"]) == (pl.String, pl.Int64)
    assert pl.concat(reports).height == sum(r.height for r in reports)
