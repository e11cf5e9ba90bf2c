"""Several targets: block-matrix operators, the target-wise operator, and their theorems."""

from __future__ import annotations

import aggmetrics as am
import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from tests.strategies import CONVENTIONS, MEASURES

Y1 = [0, 1, 1, 0, 1, 0]
P1 = [0, 1, 0, 0, 1, 1]
Y2 = [0, 1, 2, 2, 1, 0]
P2 = [0, 2, 2, 1, 1, 1]


def _frame(targets: list[tuple[list[int], list[int]]]) -> pl.DataFrame:
    return pl.concat(
        [
            pl.DataFrame({"example": range(len(y)), "target": f"t{i}", "y_true": y, "y_pred": p})
            for i, (y, p) in enumerate(targets)
        ]
    )


def test_reference_example() -> None:
    ims = [af.from_labels(Y1, P1), af.from_labels(Y2, P2)]
    assert round(af.multioutput_aggregate(ims, "recall", "target"), 3) == 0.583
    assert round(af.multioutput_aggregate(ims, "recall", "target", within="macro"), 3) == 0.583
    assert round(af.multioutput_aggregate(ims, "recall", "micro"), 3) == 0.583
    assert round(af.multioutput_aggregate(ims, "recall", "macro"), 3) == 0.567
    pr = af.from_labels(_frame([(Y1, P1), (Y2, P2)]), example="example", target="target")
    out = pr.evaluate("recall", ["target", "micro", "macro"], within=["micro", "macro"])
    assert [round(v, 3) for v in out["value"]] == [0.583, 0.583, 0.583, 0.567]
    assert out["operator"].to_list() == ["target:micro", "target:macro", "micro", "macro"]


@st.composite
def multi_output(draw: st.DrawFn) -> tuple[list[tuple[list[int], list[int]]], list[int]]:
    n = draw(st.integers(1, 25))
    ms = draw(st.lists(st.integers(2, 4), min_size=2, max_size=3))
    targets = []
    for m in ms:
        y = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
        p = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
        targets.append((y, p))
    return targets, ms


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(multi_output())
def test_block_operators_match_aggmetrics_on_the_stacked_matrix(data: tuple[list, list[int]]) -> None:
    targets, ms = data
    classes = {f"t{i}": list(range(m)) for i, m in enumerate(ms)}
    pr = af.from_labels(_frame(targets), example="example", target="target", classes=classes)
    Yh = np.hstack([np.eye(m)[y] for (y, _), m in zip(targets, ms, strict=True)])
    Ph = np.hstack([np.eye(m)[p] for (_, p), m in zip(targets, ms, strict=True)])
    im = am.IndicatorMatrix(Yh, Ph, task="multilabel")
    out = pr.evaluate(MEASURES, ["micro", "macro", "weighted", "exemplar"], convention=list(CONVENTIONS))
    for row in out.iter_rows(named=True):
        try:
            ref = im.compute(row["measure"], row["operator"], convention=row["convention"])
        except ZeroDivisionError:
            continue
        if row["operator"] == "micro" and row["convention"] in ("zero", "one"):
            continue
        assert row["value"] == pytest.approx(ref, rel=1e-9, abs=1e-12, nan_ok=True), row


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(multi_output())
def test_target_operator_is_the_mean_of_per_target_values(data: tuple[list, list[int]]) -> None:
    targets, ms = data
    classes = {f"t{i}": list(range(m)) for i, m in enumerate(ms)}
    pr = af.from_labels(_frame(targets), example="example", target="target", classes=classes)
    within = ["micro", "macro", "weighted", "exemplar"]
    out = pr.evaluate(
        ["f1", "mcc", "precision"], "target", within=within, convention=["exclude", "zero", "nan"]
    )
    for row in out.iter_rows(named=True):
        w = row["operator"].split(":")[1]
        values = np.array(
            [
                am.IndicatorMatrix(np.array(y), np.array(p), task="multiclass", n_classes=m).compute(
                    row["measure"], w, convention=row["convention"]
                )
                if w != "weighted"
                else af.from_labels(y, p, n_classes=m).compute(
                    row["measure"], w, convention=row["convention"]
                )
                for (y, p), m in zip(targets, ms, strict=True)
            ]
        )
        if row["convention"] == "exclude":
            expected = np.nanmean(values) if np.isfinite(values).any() else np.nan
        elif row["convention"] == "zero":
            expected = np.nan_to_num(values, nan=0.0).mean()
        else:
            expected = values.mean()
        assert row["value"] == pytest.approx(expected, nan_ok=True), row


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(multi_output())
def test_theorem_1_on_blocks(data: tuple[list, list[int]]) -> None:
    # block micro = target-wise micro weighted by each target's denominator, and for
    # recall on single-label targets the denominators are all n (Corollary 1)
    targets, _ = data
    pr = af.from_labels(_frame(targets), example="example", target="target")
    assert pr.compute("recall", "micro") == pytest.approx(
        pr.evaluate("recall", "target", within="micro")["value"].item()
    )
    pooled = pr.compute("precision", "micro")
    per_target = pr.cells("class").group_by("target").agg(pl.col("tp", "fp").sum()).sort("target")
    den = (per_target["tp"] + per_target["fp"]).to_numpy()
    val = per_target["tp"].to_numpy() / np.where(den > 0, den, 1)
    ok = den > 0
    if ok.any():
        assert pooled == pytest.approx(np.sum(den[ok] * val[ok]) / den[ok].sum())


def test_long_form_targets_equal_label_form() -> None:
    rng = np.random.default_rng(2)
    n, ms = 30, [2, 3, 4]
    targets = [(rng.integers(0, m, n).tolist(), rng.integers(0, m, n).tolist()) for m in ms]
    labels = af.from_labels(_frame(targets), example="example", target="target")
    rows = []
    for i, ((y, p), m) in enumerate(zip(targets, ms, strict=True)):
        for c in range(m):
            rows.append(
                pl.DataFrame(
                    {
                        "example": range(n),
                        "target": f"t{i}",
                        "class": c,
                        "y": (np.array(y) == c).astype(int),
                        "p": (np.array(p) == c).astype(int),
                    }
                )
            )
    long = af.from_long(pl.concat(rows), target="target")
    kwargs = {"operators": ["micro", "macro", "weighted", "exemplar", "target"], "within": ["micro", "macro"]}
    assert_frame_equal(labels.evaluate(**kwargs), long.evaluate(**kwargs), abs_tol=1e-12)
    # sparse long form with per-target universes gives the same numbers
    sparse = pl.concat(rows).filter((pl.col("y") == 1) | (pl.col("p") == 1) | (pl.col("class") == 0))
    pr = af.from_long(sparse, target="target", n_classes={f"t{i}": m for i, m in enumerate(ms)})
    assert_frame_equal(labels.evaluate(**kwargs), pr.evaluate(**kwargs), abs_tol=1e-12)


def test_targets_with_folds_and_by() -> None:
    rng = np.random.default_rng(9)
    frames = []
    for model in ("a", "b"):
        n = 40
        for t, m in (("x", 2), ("y", 3)):
            y = rng.integers(0, m, n)
            p = np.where(rng.random(n) < 0.6, y, rng.integers(0, m, n))
            frames.append(
                pl.DataFrame(
                    {
                        "model": model,
                        "example": range(n),
                        "fold": np.arange(n) % 4,
                        "target": t,
                        "y_true": y,
                        "y_pred": p,
                    }
                )
            )
    frame = pl.concat(frames)
    pr = af.from_labels(frame, example="example", target="target", fold="fold")
    out = pr.evaluate(["f1"], ["micro", "target"], within="macro", by="model", pooling=["pooled", "averaged"])
    assert out.height == 2 * 2 * 2
    for model in ("a", "b"):
        alone = af.from_labels(
            frame.filter(pl.col("model") == model).drop("fold"), example="example", target="target"
        )
        pooled = out.filter(pl.col("model") == model, pl.col("pooling") == "pooled")
        assert pooled["value"].to_list() == pytest.approx(
            alone.evaluate(["f1"], ["micro", "target"], within="macro")["value"].to_list()
        )


def test_target_errors() -> None:
    frame = _frame([(Y1, P1), (Y2, P2)])
    with pytest.raises(
        af.errors.InvalidValueError, match=r"column 'target': the targets are not on the same examples \(1 "
    ):
        af.from_labels(
            frame.filter(~((pl.col("target") == "t1") & (pl.col("example") == 5))),
            example="example",
            target="target",
        ).evaluate("f1", "exemplar")
    with pytest.raises(af.errors.UnknownNameError, match="unknown operator 'mean'"):
        af.from_labels(frame, example="example", target="target").evaluate("f1", "target", within="mean")
    with pytest.raises(af.errors.OptionError, match="needs a target column"):
        af.from_labels(Y1, P1).evaluate("f1", "target")
    with pytest.raises(af.errors.OptionError, match="need an example column"):
        af.from_labels(frame, target="target")
    with pytest.raises(af.errors.OptionError, match="empty list"):
        af.multioutput_aggregate([], "f1")
    with pytest.raises(af.errors.OptionError, match="same examples"):
        af.multioutput_aggregate([af.from_labels(Y1, P1), af.from_labels([0, 1], [0, 1])], "f1")
    with pytest.raises(af.errors.UnknownClassError, match=r"of target 't0'.*declared 1 classes: \[0\]"):
        af.from_labels(
            frame, example="example", target="target", classes={"t0": [0], "t1": [0, 1, 2]}
        ).evaluate("f1")
