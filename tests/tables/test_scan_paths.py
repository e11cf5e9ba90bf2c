"""The scan's cheaper paths of issue 35 give what the paths they replace gave.

- The example check counts per group with one aggregation by the group keys
  (:func:`~aggframe.wide.labels.example_counts`); its oracle is the count over
  (keys, example) pairs it replaced, on Polars and DuckDB, with null keys and null ids.
  A repeated id still fails with its count and one repeated id, found on the source.
- Up to ``PAIRS_UP_TO`` declared classes the label form's margins come from the
  (y_true, y_pred) counts; its oracle is the two-group-by plan, at the bound and past it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import duckdb
import narwhals as nw
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe._columns import KEY_ALL
from aggframe.exceptions import DuplicateEntryError, NullValueError
from aggframe.intake import labels as label_intake
from aggframe.wide.labels import example_counts

MEASURES = ["f1", "precision", "recall", "mcc", "balanced_accuracy"]
OPERATORS = ["micro", "macro", "weighted", "exemplar"]


def _reference(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The check it replaced: one count per (keys, example), then per group."""
    per_id = frame.group_by([*keys, "e"]).agg(pl.len().alias("_n"))
    return per_id.group_by(keys).agg(
        pl.len().cast(pl.Int64).alias("n_ids"),
        (pl.col("_n") - 1).sum().cast(pl.Int64).alias("dup_examples"),
        pl.col("_n").filter(pl.col("e").is_null()).sum().cast(pl.Int64).alias("null_example"),
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from([None, "a", "b"]), st.sampled_from([None, 0, 1]), st.none() | st.integers(0, 4)
        ),
        min_size=1,
        max_size=30,
    ),
    grouped=st.booleans(),
    engine=st.sampled_from(["polars", "duckdb"]),
)
def test_example_counts_match_the_pair_count(
    rows: list[tuple[str | None, int | None, int | None]], grouped: bool, engine: str
) -> None:
    frame = pl.DataFrame(rows, schema={"g": pl.String, "h": pl.Int64, "e": pl.Int64}, orient="row")
    keys = ["g", "h"] if grouped else [KEY_ALL]
    native = frame.lazy() if engine == "polars" else duckdb.from_arrow(frame.to_arrow())
    got = example_counts(nw.from_native(native), "e", keys).collect(backend="polars").to_native()
    got = got.cast({c: pl.Int64 for c in ("n_ids", "dup_examples", "null_example")})
    if grouped:
        expected = _reference(frame, keys)
    else:
        expected = _reference(frame.with_columns(pl.lit(0).alias(KEY_ALL)), [KEY_ALL])
        got = got.with_columns(pl.col(KEY_ALL).cast(pl.Int32))
        expected = expected.with_columns(pl.col(KEY_ALL).cast(pl.Int32))
    order = pl.col(keys)
    assert_frame_equal(
        got.select(expected.columns).sort(order, nulls_last=True),
        expected.sort(order, nulls_last=True),
    )


#: (group key, example column): names of aggframe's own columns, spaces, quotes, unicode
HOSTILE = [("n", "value"), ("__af_x", "tp"), ("__af_example", 'q"uote'), ("a b", "it's ü")]


@pytest.mark.parametrize(("key", "example"), HOSTILE)
def test_a_repeated_id_fails_with_a_repeated_example(key: str, example: str) -> None:
    # the repeat is in the null group: the count (2 surplus rows) and that id, from the source
    frame = pl.DataFrame(
        {
            key: [None, None, None, "b", "b", "b"],
            example: [7, 7, 7, 7, 8, 9],
            "yt": [0, 1, 1, 0, 1, 1],
            "yp": [0, 1, 0, 0, 1, 1],
        }
    )
    pr = af.from_labels(frame, y_true="yt", y_pred="yp", example=example, n_classes=2)
    with pytest.raises(DuplicateEntryError) as err:
        pr.evaluate(by=key)
    text = str(err.value)
    assert re.search(rf"\b2 repeated example row\(s\) \(e\.g\. {re.escape(key)}=None, ", text), text
    assert f"{example}=7, copies=3" in text, text
    assert "per by-group" in text
    # the same ids in separate groups are no repeat
    ok = frame.with_columns(pl.Series(example, [7, 8, 9, 7, 8, 9]))
    report = af.from_labels(ok, y_true="yt", y_pred="yp", example=example, n_classes=2).evaluate(by=key)
    assert report[key].null_count() > 0


def test_null_ids_fail_before_repeats() -> None:
    frame = pl.DataFrame({"e": [None, None, 1, 1], "y_true": [0, 1, 1, 0], "y_pred": [0, 1, 1, 1]})
    with pytest.raises(NullValueError, match=r"column 'e': 2 null value"):
        af.from_labels(frame, example="e").evaluate()
    with pytest.raises(DuplicateEntryError, match=r"\b1 repeated example row\(s\) \(e\.g\. e=1, copies=2\)"):
        af.from_labels(frame.drop_nulls(), example="e").evaluate()


def test_an_example_column_gives_the_report_without_it_on_every_engine() -> None:
    frame = pl.DataFrame(
        {
            "m": [None, None, "x", "x", "x", None, "x"],
            "e": [1, 2, 1, 2, 3, 3, 4],
            "y_true": [0, 1, 2, 2, 1, 0, 1],
            "y_pred": [0, 2, 2, 1, 1, 0, 0],
        }
    )
    options = {"measures": MEASURES, "operators": OPERATORS, "by": "m"}
    expected = af.from_labels(frame.drop("e"), n_classes=3).evaluate(**options)
    with_ids = af.from_labels(frame.lazy(), example="e", n_classes=3)
    assert_frame_equal(with_ids.evaluate(**options), expected)
    for engine in ("streaming", "in-memory"):
        got = with_ids.evaluate(**options, lazy=True).collect(engine=engine)
        assert_frame_equal(got, expected)


@contextmanager
def bound(value: int) -> Iterator[None]:
    saved = label_intake.PAIRS_UP_TO
    label_intake.PAIRS_UP_TO = value
    try:
        yield
    finally:
        label_intake.PAIRS_UP_TO = saved


@pytest.mark.parametrize("extra", [0, 1])
def test_the_plans_agree_at_the_class_bound(extra: int) -> None:
    # a declared universe at the bound (the pairs) and just past it (two group-bys), with
    # null keys, most classes absent: each plan's report is the other one's
    m = label_intake.PAIRS_UP_TO + extra
    frame = pl.DataFrame(
        {
            "g": [None, "a", None, "a", "b", None, "b", "a"],
            "y_true": [0, m - 1, 5, 5, 7, 0, m - 1, 3],
            "y_pred": [0, 5, 5, m - 1, 7, 3, 3, 3],
        }
    )
    options = {"measures": MEASURES, "operators": OPERATORS, "by": "g"}
    picked = af.from_labels(frame, n_classes=m)
    assert picked.source._few_classes() is (extra == 0)
    got = picked.evaluate(**options)
    with bound(0 if extra == 0 else m):
        other = af.from_labels(frame, n_classes=m)
        assert other.source._few_classes() is (extra != 0)
        expected = other.evaluate(**options)
        assert_frame_equal(other.cells("class", by="g"), picked.cells("class", by="g"))
    assert_frame_equal(got, expected, abs_tol=1e-12)
    lazy = af.from_labels(frame.lazy(), n_classes=m).evaluate(**options, lazy=True)
    assert_frame_equal(lazy.collect(engine="streaming"), expected, abs_tol=1e-12)


INT_DTYPES = [pl.Int8, pl.UInt8, pl.Int64]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cells=st.lists(
        st.tuples(
            st.sampled_from([None, "a"]), st.integers(0, 5), st.integers(0, 2), st.booleans(), st.booleans()
        ),
        min_size=1,
        max_size=25,
        unique_by=lambda r: (r[0], r[1], r[2]),
    ),
    dtype=st.sampled_from(INT_DTYPES),
)
def test_integer_indicators_sum_as_the_floats_do(
    cells: list[tuple[str | None, int, int, bool, bool]], dtype: pl.DataType
) -> None:
    # integer y and p are summed as integers (no cast per row): the report, on every engine,
    # is the one of the same values as floats
    frame = pl.DataFrame(cells, schema=["g", "example", "class", "y", "p"], orient="row")
    ints = frame.with_columns(pl.col("y", "p").cast(dtype))
    floats = frame.with_columns(pl.col("y", "p").cast(pl.Float64))
    options = {"measures": MEASURES, "operators": OPERATORS, "by": "g"}
    expected = af.from_long(floats, n_classes=3).evaluate(**options)
    pr = af.from_long(ints.lazy(), n_classes=3)
    assert_frame_equal(pr.evaluate(**options), expected)
    assert_frame_equal(pr.evaluate(**options, lazy=True).collect(engine="streaming"), expected)
    assert_frame_equal(
        af.from_long(ints, n_classes=3).cells("class", by="g"),
        af.from_long(floats, n_classes=3).cells("class", by="g"),
    )


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("bad", [2, None])
def test_integer_indicators_refuse_what_the_floats_refuse(dtype: pl.DataType, bad: int | None) -> None:
    frame = pl.DataFrame(
        {"example": [0, 0, 1, 1], "class": [0, 1, 0, 1], "y": [1, 0, 0, 1], "p": [1, 1, bad, 0]}
    )
    errors = []
    for cast in (dtype, pl.Float64):
        with pytest.raises(af.AggframeError) as err:
            af.from_long(frame.with_columns(pl.col("y", "p").cast(cast)), n_classes=2).evaluate()
        errors.append((type(err.value), re.sub(r"\.0\b", "", str(err.value))))
    assert errors[0] == errors[1]
    assert "column 'p'" in errors[0][1]
    assert "1 " in errors[0][1]
