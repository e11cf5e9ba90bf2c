"""The wide step runs where the data is: DuckDB relations give the same tidy results.

Only the aggregated cell tables cross to Polars; the rows stay in DuckDB. Spark
follows in its own issue.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from tests.strategies import CONVENTIONS, MEASURES, OPERATORS, dense_long

duckdb = pytest.importorskip("duckdb")

pytestmark = pytest.mark.engines

EXAMPLES = Path(__file__).parent.parent.parent / "examples"


@pytest.fixture
def con():  # type: ignore[no-untyped-def]
    connection = duckdb.connect()
    yield connection
    connection.close()


def _sort(df: pl.DataFrame) -> pl.DataFrame:
    return df.sort(pl.all(), nulls_last=True)


def test_label_form_parity(con) -> None:  # type: ignore[no-untyped-def]
    frame = pl.read_parquet(EXAMPLES / "predictions.parquet")
    rel = con.sql(f"select * from read_parquet('{EXAMPLES / 'predictions.parquet'}')")
    kwargs = {"by": ["model", "day"], "convention": list(CONVENTIONS)}
    expected = af.from_labels(frame, example="example").evaluate(MEASURES, OPERATORS, **kwargs)
    got = af.from_labels(rel, example="example").evaluate(MEASURES, OPERATORS, **kwargs)
    assert_frame_equal(_sort(got), _sort(expected), abs_tol=1e-12)


def test_long_form_masks_folds_and_targets_parity(con) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(8)
    Y, P, M = rng.integers(0, 2, (30, 4)), rng.integers(0, 2, (30, 4)), rng.integers(0, 2, (30, 4))
    frame = dense_long(Y, P, M).with_columns((pl.col("example") % 3).alias("fold"))
    rel = con.from_arrow(frame.to_arrow())
    kwargs = {"pooling": ["pooled", "averaged", "fold"], "convention": ["exclude", "zero"]}
    expected = af.from_long(frame, mask="mask", fold="fold").evaluate(MEASURES, OPERATORS, **kwargs)
    got = af.from_long(rel, mask="mask", fold="fold").evaluate(MEASURES, OPERATORS, **kwargs)
    assert_frame_equal(_sort(got), _sort(expected), abs_tol=1e-12)
    targets = pl.concat(
        [
            pl.DataFrame(
                {
                    "example": range(20),
                    "target": t,
                    "y_true": rng.integers(0, m, 20),
                    "y_pred": rng.integers(0, m, 20),
                }
            )
            for t, m in (("a", 2), ("b", 3))
        ]
    )
    kw = {"operators": ["micro", "macro", "exemplar", "target"], "within": ["micro", "macro"]}
    expected = af.from_labels(targets, example="example", target="target").evaluate(**kw)
    got = af.from_labels(con.from_arrow(targets.to_arrow()), example="example", target="target").evaluate(
        **kw
    )
    assert_frame_equal(_sort(got), _sort(expected), abs_tol=1e-12)


def test_validation_errors_on_duckdb(con) -> None:  # type: ignore[no-untyped-def]
    bad = pl.DataFrame({"example": [0, 0, 1, 1], "class": [0, 1, 0, 1], "y": [1, 0, 2, 1], "p": [1, 0, 0, 1]})
    with pytest.raises(af.errors.InvalidValueError, match=r"column 'y': 1 value\(s\) outside \[0, 1\]"):
        af.from_long(con.from_arrow(bad.to_arrow())).evaluate("f1", "macro")
    dup = pl.DataFrame({"example": [0, 0], "y_true": [1, 0], "y_pred": [1, 1]})
    with pytest.raises(af.errors.DuplicateEntryError, match="example=0"):
        af.from_labels(con.from_arrow(dup.to_arrow()), example="example").evaluate("f1", "macro")


def test_registered_measure_and_diagnostics_on_duckdb(con) -> None:  # type: ignore[no-untyped-def]
    # A measure registered from its formula alone runs on every engine: the measures
    # act on the cell tables, which are the same whatever engine built them.
    from aggframe.ops import ratio

    m = af.register_measure(
        "dd_weighted_acc", lambda tp, fp, fn, tn: ratio(2 * tp + tn, 2 * tp + fp + 2 * fn + tn)
    )
    try:
        rng = np.random.default_rng(11)
        frame = dense_long(rng.integers(0, 2, (40, 5)), rng.integers(0, 2, (40, 5)))
        rel = con.from_arrow(frame.to_arrow())
        kw = {"convention": ["exclude", "one"]}
        expected = af.from_long(frame).evaluate([m.name, "f1"], OPERATORS, **kw)
        got = af.from_long(rel).evaluate([m.name, "f1"], OPERATORS, **kw)
        assert_frame_equal(_sort(got), _sort(expected), abs_tol=1e-12)
        # Theorem 1 for the inferred coefficients: micro is the denominator-weighted macro
        cells = af.from_long(rel).cells("class")
        a, b = m.linear  # type: ignore[misc]
        num = sum(a[i] * cells[c] for i, c in enumerate(("tp", "fp", "fn", "tn")))
        den = sum(b[i] * cells[c] for i, c in enumerate(("tp", "fp", "fn", "tn")))
        micro = got.filter(pl.col("measure") == m.name, pl.col("operator") == "micro")["value"][0]
        assert micro == pytest.approx(float(((den / den.sum()) * (num / den)).sum()), abs=1e-12)
        diag_expected = af.diagnose(af.from_long(frame), [m.name, "mcc"])
        diag_got = af.diagnose(af.from_long(rel), [m.name, "mcc"])
        assert_frame_equal(_sort(diag_got), _sort(diag_expected), abs_tol=1e-12)
    finally:
        af.unregister_measure(m.name)


def test_a_threshold_per_class_on_duckdb(con) -> None:  # type: ignore[no-untyped-def]
    """threshold={class: t} was a raw Narwhals ValueError on DuckDB (replace_strict wants a default)."""
    frame = pl.DataFrame(
        {
            "example": [0, 0, 1, 1, 2, 2],
            "class": ["a", "b"] * 3,
            "score": [0.9, 0.3, 0.4, 0.6, 0.2, 0.8],
            "y": [1, 0, 0, 1, 1, 1],
        }
    )
    con.register("scores", frame.to_arrow())
    cuts = {"a": 0.5, "b": 0.7}
    expected = af.from_scores(frame, threshold=cuts).evaluate(["f1", "recall"], ["micro", "macro"])
    got = af.from_scores(con.sql("select * from scores"), threshold=cuts).evaluate(
        ["f1", "recall"], ["micro", "macro"]
    )
    assert_frame_equal(got, expected, abs_tol=1e-12)


def test_a_duckdb_enum_declares_the_universe_and_its_order(con) -> None:  # type: ignore[no-untyped-def]
    """A DuckDB ENUM reached Polars as a Categorical: argmax ties went to the alphabetically first
    class, a declared category without rows left the universe (recall macro 0.75 where Polars and
    scikit-learn give 0.5), and from_ordinal refused it. As a Polars Enum now."""
    scores = pl.DataFrame(
        {"example": [0, 0, 1, 1, 2, 2], "class": ["z", "a"] * 3, "score": [0.5] * 6, "y": [1, 0, 0, 1, 1, 0]}
    )
    con.register("scores", scores.to_arrow())
    rel = con.sql("select example, class::ENUM('z', 'a') as class, score, y from scores")
    polars = scores.with_columns(pl.col("class").cast(pl.Enum(["z", "a"])))
    want = af.from_scores(polars, decision="argmax").evaluate("f1", "micro")
    assert_frame_equal(af.from_scores(rel, decision="argmax").evaluate("f1", "micro"), want)
    labels = pl.DataFrame({"y_true": ["z", "a", "z"], "y_pred": ["a", "a", "z"]})
    con.register("labels", labels.to_arrow())
    enum = "ENUM('z', 'a', 'm')"
    lrel = con.sql(f"select y_true::{enum} as y_true, y_pred::{enum} as y_pred from labels")
    plab = labels.with_columns(pl.all().cast(pl.Enum(["z", "a", "m"])))
    for measure, op in (("recall", "macro"), ("f1", "weighted")):
        want = af.from_labels(plab).evaluate(measure, op, convention="zero")
        assert_frame_equal(af.from_labels(lrel).evaluate(measure, op, convention="zero"), want)
    assert_frame_equal(
        af.from_ordinal(lrel).evaluate("f1", "macro"), af.from_ordinal(plab).evaluate("f1", "macro")
    )


def test_duckdb_enum_keys_and_classes_keep_their_type_and_order(con) -> None:  # type: ignore[no-untyped-def]
    """DuckDB ENUM by-keys and classes came back as Categorical, in text order (x, y, null; per class
    a, b, c), where the same Polars Enum frame gives Enums in declared order (y, x, null; c, b, a)."""
    df = pl.DataFrame(
        {
            "k": ["y", "x", None, "z", "y", "x", None, "z"] * 2,
            "yt": ["b", "a", "c", "a", "b", "c", "a", "b"] * 2,
            "yp": ["b", "a", "a", "c", "b", "c", "b", "b"] * 2,
        }
    )
    con.register("enums", df.to_arrow())
    rel = con.sql(
        "select k::ENUM('y','x','z') as k, yt::ENUM('c','b','a') as yt, yp::ENUM('c','b','a') as yp from enums"
    )
    polars = df.with_columns(
        pl.col("k").cast(pl.Enum(["y", "x", "z"])), pl.col("yt", "yp").cast(pl.Enum(["c", "b", "a"]))
    )
    duck, want = (af.from_labels(f, y_true="yt", y_pred="yp") for f in (rel, polars))
    got = duck.evaluate("f1", ["micro", "macro"], by="k")
    assert got.schema["k"] == pl.Enum(["y", "x", "z"])
    assert_frame_equal(got, want.evaluate("f1", ["micro", "macro"], by="k"))
    assert_frame_equal(duck.per_class("f1", by="k"), want.per_class("f1", by="k"))
    long = pl.DataFrame(
        {
            "k": ["y", "x", None] * 4,
            "example": list(range(12)),
            "class": ["c", "a", "b"] * 4,
            "y": [1, 0, 1] * 4,
            "p": [1, 1, 0] * 4,
        }
    )
    con.register("enum_long", long.to_arrow())
    lrel = con.sql(
        "select k::ENUM('y','x') as k, example, class::ENUM('c','b','a') as class, y, p from enum_long"
    )
    plong = long.with_columns(
        pl.col("k").cast(pl.Enum(["y", "x"])), pl.col("class").cast(pl.Enum(["c", "b", "a"]))
    )
    assert_frame_equal(
        af.from_long(lrel).per_class("recall", by="k"), af.from_long(plong).per_class("recall", by="k")
    )


def test_128_bit_labels_beyond_int64_are_refused_by_name(con) -> None:  # type: ignore[no-untyped-def]
    """An Int128 (DuckDB HUGEINT) label beyond Int64 next to Int64 labels was "could not read the
    frame: conversion from i128 to i64 failed in column '__af_y_true'" (DuckDB: the same, as a
    Conversion Error). An InvalidValueError naming the user's column and a row; in range, read."""
    big = 2**64 + 5
    frame = pl.DataFrame(
        {"example": range(4), "y_true": pl.Series([big, 1, 2, 3], dtype=pl.Int128), "y_pred": [0, 1, 2, 3]}
    )
    rel = con.sql(
        f"select range as example, (case when range = 0 then {big} else range end)::HUGEINT as y_true, "
        "range::BIGINT as y_pred from range(4)"
    )
    for source in (frame, rel):
        with pytest.raises(
            af.errors.InvalidValueError, match=r"column 'y_true': 1 label\(s\) beyond the Int64 range"
        ):
            af.from_labels(source, example="example").evaluate("f1", "macro")
    fits = frame.with_columns(pl.Series("y_true", [0, 1, 2, 3], dtype=pl.Int128))
    want = af.from_labels(fits.with_columns(pl.col("y_true").cast(pl.Int64)), example="example").evaluate(
        "f1", "macro"
    )
    assert_frame_equal(af.from_labels(fits, example="example").evaluate("f1", "macro"), want)


def test_two_columns_of_one_name_are_refused(con) -> None:  # type: ignore[no-untyped-def]
    """A DuckDB relation with two y_pred columns gave a number read from one of them (or a raw
    Narwhals TypeError): an InvalidValueError naming the column."""
    for sql in (
        "select 1 as example, 0 as y_true, 1 as y_pred, 0 as y_pred",
        "select range as example, range % 2 as y_true, 1 as y_pred, range % 2 as y_pred from range(6)",
    ):
        with pytest.raises(af.errors.InvalidValueError, match="the frame has two columns named 'y_pred'"):
            af.from_labels(con.sql(sql), example="example").evaluate("f1", "macro")


def test_a_pandas_frame_with_two_columns_of_one_name_is_refused() -> None:
    """Narwhals refused it first with its own DuplicateError (from_labels and Accumulator.update)."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame([[0, 1, 1]], columns=["y_true", "y_pred", "y_pred"])
    with pytest.raises(af.errors.InvalidValueError, match="two columns named 'y_pred'"):
        af.from_labels(frame)
    with pytest.raises(af.errors.InvalidValueError, match="two columns named 'y_pred'"):
        af.Accumulator().update(frame)
