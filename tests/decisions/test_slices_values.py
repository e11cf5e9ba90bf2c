"""Slices: each slice's value and its complement's equal ``evaluate`` on those rows, for every operator."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aggframe as af

COLUMNS = ["a", "b c", "tp"]  # a blank and a cell's name among the slice columns


def _frame(n: int = 400, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    p = np.where(rng.random(n) < 0.7, y, rng.integers(0, 4, n))
    a = rng.choice(np.array(["x", "y", "z"], dtype=object), n)
    a[rng.random(n) < 0.2] = None  # a null key is a slice like any other
    b = rng.integers(0, 3, n)
    # class 3 only where b == 2: absent from most slices and from some complements' rows
    y = np.where((y == 3) & (b != 2), 0, y)
    p = np.where((p == 3) & (b != 2), 1, p)
    return pl.DataFrame(
        {
            "example": np.arange(n),
            "a": pl.Series(a.tolist(), dtype=pl.String),
            "b c": b,
            "tp": rng.integers(0, 2, n).astype(bool),
            "y_true": y,
            "y_pred": p,
        }
    )


def _mask(df: pl.DataFrame, row: dict[str, Any], grouping_set: list[str]) -> pl.Series:
    expr = pl.lit(True)
    for c in grouping_set:
        expr = expr & pl.col(c).eq_missing(pl.lit(row[c], dtype=df.schema[c]))
    return df.select(expr).to_series()


def _evaluate(df: pl.DataFrame, measure: str, operator: str) -> float:
    pr = af.from_labels(df, example="example", classes=[0, 1, 2, 3])
    return float(pr.evaluate(measure, operator)["value"].item())


@pytest.mark.parametrize(
    ("measure", "operator"),
    [
        ("recall", "micro"),
        ("f1", "macro"),
        ("precision", "weighted"),
        ("f1", "exemplar"),
        ("mcc", "multiclass"),
    ],
)
def test_values_equal_evaluate_on_the_rows(measure: str, operator: str) -> None:
    df = _frame()
    pr = af.from_labels(df, example="example", classes=[0, 1, 2, 3])
    out = pr.slices(measure, operator, columns=COLUMNS, max_depth=2, min_examples=20, n_boot=20)
    assert out.height > 10
    assert out.columns[:3] == COLUMNS
    for row in out.iter_rows(named=True):
        cols = row["grouping_set"].split(",")
        mask = _mask(df, row, cols)
        assert int(mask.sum()) == row["n_examples"]
        assert row["value"] == pytest.approx(_evaluate(df.filter(mask), measure, operator), nan_ok=True)
        rest = _evaluate(df.filter(~mask), measure, operator)
        assert row["complement"] == pytest.approx(rest, nan_ok=True)
        assert row["difference"] == pytest.approx(row["value"] - row["complement"], nan_ok=True)


def test_long_form_exemplar_complement() -> None:
    """Multilabel long form: per-example profiles of the complement are the overall ones minus the slice's."""
    rng = np.random.default_rng(3)
    n, m = 150, 4
    ex = np.repeat(np.arange(n), m)
    g = np.repeat(rng.integers(0, 3, n), m)
    y = (rng.random(n * m) < 0.4).astype(int)
    p = np.where(rng.random(n * m) < 0.8, y, 1 - y)
    df = pl.DataFrame({"example": ex, "class": np.tile(np.arange(m), n), "g": g, "y": y, "p": p})
    pr = af.from_long(df, task="multilabel")
    out = pr.slices("jaccard", "exemplar", columns="g", min_examples=10, n_boot=10)
    for row in out.iter_rows(named=True):
        part = af.from_long(df.filter(pl.col("g") == row["g"]), task="multilabel")
        rest = af.from_long(df.filter(pl.col("g") != row["g"]), task="multilabel")
        assert row["value"] == pytest.approx(part.compute("jaccard", "exemplar"))
        assert row["complement"] == pytest.approx(rest.compute("jaccard", "exemplar"))


def test_grouping_id_tells_any_value_from_null() -> None:
    df = _frame()
    out = af.from_labels(df).slices("recall", columns=["a", "b c"], min_examples=1, n_boot=5)
    any_a = out.filter((pl.col("grouping_id") & 2) != 0)
    null_a = out.filter(((pl.col("grouping_id") & 2) == 0) & pl.col("a").is_null())
    assert any_a.height == 3  # b c = 0, 1, 2
    assert null_a.height == 4  # a = null alone and with each b c
    assert set(null_a["slice"].to_list()) >= {"a=(null)", "a=(null) · b c=0"}
    assert set(any_a["slice"].to_list()) == {"b c=0", "b c=1", "b c=2"}


@settings(max_examples=6, deadline=None)
@given(
    keys=st.lists(st.sampled_from(["p", "q", None]), min_size=12, max_size=40),
    seed=st.integers(0, 1000),
)
def test_slices_partition_the_rows(keys: list[str | None], seed: int) -> None:
    """Property: the slices of one column partition the rows (a null key is a slice), and a slice's
    size plus its complement's is the total, whatever the keys."""
    rng = np.random.default_rng(seed)
    n = len(keys)
    df = pl.DataFrame(
        {
            "k": pl.Series(keys, dtype=pl.String),
            "j": rng.integers(0, 2, n),
            "y_true": rng.integers(0, 3, n),
            "y_pred": rng.integers(0, 3, n),
        }
    )
    out = af.from_labels(df).slices("precision", "micro", columns=["k", "j"], min_examples=1, n_boot=3)
    singles = out.filter(pl.col("grouping_set") == "k")
    assert singles["n_examples"].sum() == n
    assert sorted(singles["k"].to_list(), key=str) == sorted(set(keys), key=str)
    pairs = out.filter(pl.col("grouping_set") == "k,j")
    assert pairs["n_examples"].sum() == n
