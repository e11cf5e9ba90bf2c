"""Every analysis grouped by a column that repeats the example ids (issue 29).

The usual layout of a log: several models scored on the same example ids. Grouped by the model
column, each group's examples are unique, so every analysis must work and give, per group, what
it gives on that group's rows alone (the oracle: the same call on each group's subset, whose ids
do not repeat). The model column holds a null (a null key is a group) and a hostile name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af

BY = "tp's model"  # a hostile name: a cell name, a quote and a space
MODELS = ["a", None, "c"]


def _long() -> pl.DataFrame:
    rng = np.random.default_rng(29)
    n, k = 24, 3
    rows = []
    for m in MODELS:
        for e in range(n):
            y = int(rng.integers(k))
            s = rng.random(k)
            for c in range(k):
                rows.append((m, e, c, int(y == c), float(s[c] / s.sum())))
    frame = pl.DataFrame(rows, schema=[BY, "ex", "cls", "y", "s"], orient="row")
    best = pl.col("s") == pl.col("s").max().over(BY, "ex")
    return frame.with_columns(p=best.cast(pl.Int8))


LONG = _long()
LABELS = (
    LONG.filter(pl.col("y") == 1)
    .select(BY, "ex", pl.col("cls").alias("yt"))
    .join(
        LONG.filter(pl.col("p") == 1).select(BY, "ex", pl.col("cls").alias("yp")),
        on=[BY, "ex"],
        nulls_equal=True,
    )
)

FORMS: dict[str, Callable[[pl.DataFrame], af.Predictions]] = {
    "scores": lambda f: af.from_scores(f, example="ex", class_="cls", y="y", score="s", decision="argmax"),
    "scores_over": lambda f: af.from_scores(
        f, example="ex", class_="cls", y="y", score="s", decision="argmax", over=BY
    ),
    "long": lambda f: af.from_long(f, example="ex", class_="cls", y="y", p="p"),
    "long_lazy": lambda f: af.from_long(f.lazy(), example="ex", class_="cls", y="y", p="p"),
    "labels": lambda f: af.from_labels(f, y_true="yt", y_pred="yp", example="ex"),
}

ANALYSES: dict[str, Callable[[af.Predictions, list[str]], pl.DataFrame]] = {
    "diagnose": lambda pr, by: af.diagnose(pr, ["f1", "recall"], by=by or None),
    "micro_macro_gap": lambda pr, by: af.micro_macro_gap(pr, ["f1", "precision"], by=by or None),
    "cost": lambda pr, by: af.cost(pr, "absolute", ["micro", "macro"], by=by or None),
    "canonical_coordinates": lambda pr, by: af.canonical_coordinates(pr, by=by or None),
    "select_suites": lambda pr, by: af.suites.select_suites(
        pr, ["precision", "recall", "f1", "specificity"], by=by or None
    ),
    "suite_ranks": lambda pr, by: af.suites.suite_ranks(pr, ["precision", "recall", "f1"], by=by or None),
    "evaluate_multiclass": lambda pr, by: pr.evaluate(["mcc", "accuracy"], "multiclass", by=by or None),
}


def _source(form: str) -> pl.DataFrame:
    return LABELS if form == "labels" else LONG


def _subset(frame: pl.DataFrame, model: Any) -> pl.DataFrame:
    return frame.filter(pl.col(BY).eq_missing(pl.lit(model, dtype=pl.String))).drop(BY)


def _group_rows(out: pl.DataFrame, model: Any) -> pl.DataFrame:
    rows = out.filter(pl.col(BY).eq_missing(pl.lit(model, dtype=pl.String)))
    if "scope" in rows.columns:  # diagnose: the group's own findings, and those stated for all
        rows = rows.filter(pl.col("scope") == "group")
    return rows.drop(BY, "scope", strict=False)


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("analysis", list(ANALYSES))
def test_grouped_by_a_column_that_repeats_ids(form: str, analysis: str) -> None:
    if form == "scores_over" and analysis != "diagnose":
        pytest.skip("over= only states the grouping; diagnose covers it (the reported failure)")
    frame = _source(form)
    out = ANALYSES[analysis](FORMS[form](frame), [BY])
    assert out.columns[0] == BY
    assert out[BY].null_count() > 0  # the null key is a group of its own
    for model in MODELS:
        sub_form = "scores" if form == "scores_over" else form
        alone = ANALYSES[analysis](FORMS[sub_form](_subset(frame, model)), [])
        if "scope" in alone.columns:
            alone = alone.filter(pl.col("scope") == "group").drop("scope")
        got = _group_rows(out, model)
        assert got.height > 0 or alone.height == 0
        assert_frame_equal(got.sort(pl.all()), alone.sort(pl.all()), check_dtypes=False, abs_tol=1e-12)


@pytest.mark.parametrize("form", ["long", "scores", "labels"])
def test_ungrouped_still_refuses_repeated_ids(form: str) -> None:
    # without the grouping the ids do repeat: the uniqueness check still holds where it should
    if form == "labels":
        with pytest.raises(af.errors.DuplicateEntryError):
            af.diagnose(FORMS["labels"](LABELS), ["f1"], operators="exemplar")
        return
    with pytest.raises(af.errors.DuplicateEntryError, match=r"repeat|duplicate"):
        af.diagnose(FORMS[form](LONG), ["f1"])


def test_task_is_read_at_the_callers_grouping() -> None:
    pr = FORMS["long"](LONG)
    assert pr.extend.kind_by([BY]) == "multiclass"
    # the ungrouped task after a grouped read: read off that grouping, not refused
    assert pr.kind == "multiclass"


def test_parity_over_folds_and_targets_that_share_ids() -> None:
    # every fold (or target) a Predictions of its own, all on the same example ids
    folds = [FORMS["long"](_subset(LONG, m)) for m in MODELS]
    pooled = af.fold_aggregate(folds, "f1", "macro", "pooled")
    union = LONG.with_columns(pl.col(BY).fill_null("<null>"))
    whole = af.from_long(union, example="ex", class_="cls", y="y", p="p")
    # pooled folds are the union of the folds' rows: the per-class sums over every model
    cells = whole.cells("class", by=BY).group_by("class").agg(pl.col("tp", "fp", "fn").sum())
    f1 = (2 * cells["tp"] / (2 * cells["tp"] + cells["fp"] + cells["fn"])).mean()
    assert pooled == pytest.approx(f1, abs=1e-12)
    targets = af.multioutput_aggregate(folds, "f1", "target", within="micro")
    per = [FORMS["long"](_subset(LONG, m)).compute("f1", "micro") for m in MODELS]
    assert targets == pytest.approx(float(np.mean(per)), abs=1e-12)


@pytest.mark.engines
@pytest.mark.parametrize("form", ["long", "scores", "labels"])
def test_duckdb_relations_that_repeat_ids(form: str) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    try:
        frame = _source(form)
        rel = con.from_arrow(frame.to_arrow())
        for analysis in ("diagnose", "cost", "micro_macro_gap"):
            want = ANALYSES[analysis](FORMS[form](frame), [BY])
            got = ANALYSES[analysis](FORMS[form](rel), [BY])
            assert_frame_equal(got.sort(pl.all()), want.sort(pl.all()), check_dtypes=False, abs_tol=1e-12)
    finally:
        con.close()
