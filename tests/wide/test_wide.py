"""af.wide: one row per group, one column per measure x operator (x convention, x pooling)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import polars.selectors as cs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aggframe as af


def _frame(seed: int, n: int = 120, *, null_keys: bool = False, key: str = "model") -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    models = [
        m if not (null_keys and r < 0.3) else None
        for m, r in zip(rng.choice(["a", "b", "c"], size=n).tolist(), rng.random(n), strict=True)
    ]
    return pl.DataFrame(
        {
            key: models,
            "day": rng.choice([1, 2], size=n),
            "y_true": rng.integers(0, 4, n),
            "y_pred": rng.integers(0, 4, n),
        },
        schema_overrides={key: pl.String},
    )


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return (math.isnan(a) and math.isnan(b)) or a == b


def _check_spread(report: pl.DataFrame, out: pl.DataFrame, keys: list[str], name_of) -> None:
    """Every tidy value sits in the wide frame at its keys and column; nothing else is there."""
    groups = report.select(cs.by_name(keys)).unique(maintain_order=True) if keys else None
    assert out.height == (groups.height if groups is not None else 1)
    assert out.columns[: len(keys)] == keys
    # an evaluate report's n_examples follows the keys (the group's count)
    extra = ["n_examples"] if "n_examples" in report.columns else []
    assert out.columns[len(keys) : len(keys) + len(extra)] == extra
    names = {name_of(row) for row in report.iter_rows(named=True)}
    assert set(out.columns[len(keys) + len(extra) :]) == names
    assert len(out.columns) == len(keys) + len(extra) + len(names)
    for row in report.iter_rows(named=True):
        match = out
        for k in keys:
            col = cs.by_name(k).as_expr()  # literally: a key may be "*" or "^x$"
            match = match.filter(col.is_null() if row[k] is None else col == row[k])
        assert match.height == 1
        assert _same(match.get_column(name_of(row)).item(), row["value"])
        if extra:
            assert match.get_column("n_examples").item() == row["n_examples"]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    conventions=st.sampled_from([["exclude"], ["exclude", "zero"], ["zero", "one", "exclude"]]),
    by=st.sampled_from([None, ["model"], ["model", "day"], ["day", "model"]]),
)
def test_every_value_lands_in_its_cell(seed: int, conventions: list[str], by: list[str] | None) -> None:
    pr = af.from_labels(_frame(seed, null_keys=True), y_true="y_true", y_pred="y_pred", n_classes=5)
    report = pr.evaluate(["precision", "f1"], ["micro", "macro"], by=by, convention=conventions)
    out = af.wide_table(report)
    several = len(conventions) > 1

    def name_of(row: dict) -> str:
        parts = [row["measure"], row["operator"]] + ([row["convention"]] if several else [])
        return " ".join(parts)

    _check_spread(report, out, by or [], name_of)


def test_null_group_key_is_a_row() -> None:
    pr = af.from_labels(_frame(1, null_keys=True), y_true="y_true", y_pred="y_pred")
    out = af.wide_table(pr.evaluate("f1", "macro", by="model"))
    assert out.get_column("model").null_count() == 1
    assert out.height == 4


def test_keys_named_anything_stay_first() -> None:
    key = 'grp.a [0] "x"'
    pr = af.from_labels(_frame(2, key=key, null_keys=True), y_true="y_true", y_pred="y_pred")
    report = pr.evaluate(["f1", "mcc"], ["micro", "macro"], by=[key, "day"])
    out = af.wide_table(report)
    assert out.columns == [key, "day", "n_examples", "f1 micro", "f1 macro", "mcc micro", "mcc macro"]


@pytest.mark.parametrize("key", ["*", "^x$", "^.*$", "", "__name__", "__v__", "__aggframe_key1__"])
def test_keys_that_polars_reads_as_patterns(key: str) -> None:
    """``pl.col("*")`` is every column and ``pl.col("^x$")`` a pattern: keys are picked literally."""
    pr = af.from_labels(_frame(6, key=key, null_keys=True), y_true="y_true", y_pred="y_pred")
    report = pr.evaluate("f1", ["micro", "macro"], by=[key, "day"])
    out = af.wide_table(report)
    assert out.columns == [key, "day", "n_examples", "f1 micro", "f1 macro"]
    assert out.get_column(key).null_count() == 2  # the null key is a group, on each day
    _check_spread(report, out, [key, "day"], lambda row: f"f1 {row['operator']}")
    both = af.wide_table(pr.evaluate("f1", "macro", by=[key, "day"], n_boot=10), values=["value", "ci_low"])
    assert both.columns == [key, "day", "n_examples", "f1 macro value", "f1 macro ci_low"]


def test_spec_column_in_by_is_a_row_key() -> None:
    pr = af.from_labels(_frame(3), y_true="y_true", y_pred="y_pred")
    report = pr.evaluate(["f1", "recall", "mcc"], ["micro", "macro", "weighted"], by="model")
    out = af.wide_table(report, by=["model", "measure"])
    assert out.columns == ["model", "measure", "n_examples", "micro", "macro", "weighted"]
    _check_spread(report, out, ["model", "measure"], lambda row: row["operator"])


def test_per_class_frame_spreads_measures() -> None:
    pr = af.from_labels(_frame(4), y_true="y_true", y_pred="y_pred")
    per = pr.per_class(["precision", "recall"], by="model")
    out = af.wide_table(per)
    assert out.columns == ["model", "class", "precision", "recall"]
    _check_spread(per, out, ["model", "class"], lambda row: row["measure"])


def test_several_values_name_their_value() -> None:
    pr = af.from_labels(_frame(5), y_true="y_true", y_pred="y_pred")
    cmp = pr.compare("f1", ["micro", "macro"], by="model")
    out = af.wide_table(cmp, values=["value", "difference_to_overall"])
    assert out.columns == [
        "model",
        "f1 micro value",
        "f1 macro value",
        "f1 micro difference_to_overall",
        "f1 macro difference_to_overall",
    ]
    for row in cmp.iter_rows(named=True):
        got = out.filter(pl.col("model") == row["model"])
        assert (
            got.get_column(f"f1 {row['operator']} difference_to_overall").item()
            == row["difference_to_overall"]
        )


def test_folds_spread_pooling_when_several() -> None:
    frame = _frame(6).with_row_index("example").with_columns(fold=pl.col("example") % 3)
    pr = af.from_labels(frame, example="example", fold="fold", n_classes=4)
    report = pr.evaluate("f1", ["micro", "macro"], pooling=["pooled", "averaged", "fold"])
    out = af.wide_table(report)
    assert out.columns[0] == "fold"
    assert {"f1 micro pooled", "f1 macro averaged", "f1 macro fold"} <= set(out.columns)
    assert out.height == 4  # the pooled/averaged row (fold null) and one per fold


def test_lazy_report_and_separator() -> None:
    pr = af.from_labels(_frame(7), y_true="y_true", y_pred="y_pred")
    report = pr.evaluate("f1", ["micro", "macro"], by="model", lazy=True)
    assert isinstance(report, pl.LazyFrame)
    assert af.wide_table(report, separator="_").columns == ["model", "n_examples", "f1_micro", "f1_macro"]


def test_errors() -> None:
    pr = af.from_labels(_frame(8), y_true="y_true", y_pred="y_pred")
    report = pr.evaluate("f1", ["micro", "macro"], by=["model", "day"])
    with pytest.raises(af.errors.DuplicateEntryError, match="more than once"):
        af.wide_table(report, by="model")  # day is missing from the keys
    with pytest.raises(af.errors.ColumnNotFoundError, match="'measure' column"):
        af.wide_table(pl.DataFrame({"a": [1]}))
    with pytest.raises(af.errors.ColumnNotFoundError, match="nope"):
        af.wide_table(report, values="nope")
    clash = report.rename({"model": "f1 micro"})
    with pytest.raises(af.errors.OptionError, match="also key columns"):
        af.wide_table(clash)
    with pytest.raises(af.errors.OptionError, match="names no column"):
        af.wide_table(report, values=[])
