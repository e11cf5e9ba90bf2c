"""One plan, one scan: eager = lazy = streaming, sparse = dense, grouped = per group."""

from __future__ import annotations

import re
from pathlib import Path

import aggmetrics as am
import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from tests.strategies import CONVENTIONS, MEASURES, OPERATORS, dense_long, indicator_matrices, label_arrays

EXAMPLES = Path(__file__).parent.parent.parent / "examples"


def _variants(frame: pl.DataFrame, build) -> list[pl.DataFrame]:  # type: ignore[no-untyped-def]
    """The same report through every path: eager, lazy input, lazy output, both engines."""
    kwargs = {"convention": list(CONVENTIONS)}
    return [
        build(frame).evaluate(**kwargs),
        build(frame.lazy()).evaluate(**kwargs),
        build(frame.lazy()).evaluate(**kwargs, engine="streaming"),
        build(frame.lazy()).evaluate(**kwargs, engine="in-memory"),
        build(frame.lazy()).evaluate(**kwargs, lazy=True).collect(),
        build(frame.lazy()).evaluate(**kwargs, lazy=True).collect(engine="streaming"),
    ]


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices(masked=True))
def test_long_form_eager_lazy_streaming_identical(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    Y, P, mask = data
    frame = dense_long(Y, P, mask)
    results = _variants(frame, lambda f: af.from_long(f, mask="mask"))
    for other in results[1:]:
        assert_frame_equal(results[0], other)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(label_arrays())
def test_label_form_eager_lazy_streaming_identical(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    frame = pl.DataFrame({"example": np.arange(yt.size), "y_true": yt, "y_pred": yp})
    results = _variants(frame, lambda f: af.from_labels(f, example="example", n_classes=m))
    for other in results[1:]:
        assert_frame_equal(results[0], other)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(indicator_matrices(masked=True), st.randoms(use_true_random=False))
def test_sparse_equals_dense(data: tuple[np.ndarray, np.ndarray, np.ndarray], rnd) -> None:  # type: ignore[no-untyped-def]
    Y, P, mask = data
    dense = dense_long(Y, P, mask)
    # drop a random subset of the observed y = p = 0 entries (not the first of each example)
    droppable = (pl.col("y") == 0) & (pl.col("p") == 0) & (pl.col("mask") == 1) & (pl.col("class") > 0)
    keep = [not d or rnd.random() < 0.3 for d in dense.select(droppable).to_series().to_list()]
    sparse = dense.filter(pl.Series(keep))
    m = Y.shape[1]
    a = af.from_long(dense, mask="mask").evaluate(convention=list(CONVENTIONS))
    b = af.from_long(sparse, mask="mask", n_classes=m).evaluate(convention=list(CONVENTIONS))
    c = af.from_long(sparse, mask="mask", classes=list(range(m))).evaluate(convention=list(CONVENTIONS))
    assert_frame_equal(a, b)
    assert_frame_equal(a, c)


def test_enum_class_column_declares_the_universe() -> None:
    frame = pl.DataFrame(
        {"example": [0, 0, 1], "class": ["a", "b", "a"], "y": [1, 0, 0], "p": [1, 1, 1]},
        schema_overrides={"class": pl.Enum(["a", "b", "c"])},
    )
    pr = af.from_long(frame)
    cells = pr.cells("class")
    assert cells["class"].cast(pl.String).to_list() == ["a", "b", "c"]
    assert cells.row(2, named=True) == {"class": "c", "tp": 0.0, "fp": 0.0, "fn": 0.0, "tn": 2.0}


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(label_arrays())
def test_label_form_equals_one_hot_long_form(data: tuple[np.ndarray, np.ndarray, int]) -> None:
    yt, yp, m = data
    eye = np.eye(m)
    a = af.from_labels(yt, yp, n_classes=m).evaluate(convention=list(CONVENTIONS))
    b = af.from_indicator(eye[yt], eye[yp]).evaluate(convention=list(CONVENTIONS))
    assert_frame_equal(a, b, abs_tol=1e-12)
    long = af.from_indicator(eye[yt], eye[yp])
    assert long.accuracy() == pytest.approx(af.from_labels(yt, yp, n_classes=m).accuracy())


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=60)
)
def test_grouped_equals_per_group(rows: list[tuple[str, int, int]]) -> None:
    frame = pl.DataFrame(rows, schema=["model", "y_true", "y_pred"], orient="row")
    grouped = af.from_labels(frame, n_classes=4).evaluate(by="model", convention=["exclude", "zero"])
    for model in frame["model"].unique().to_list():
        part = frame.filter(pl.col("model") == model)
        alone = af.from_labels(part, n_classes=4).evaluate(convention=["exclude", "zero"])
        mine = grouped.filter(pl.col("model") == model).drop("model")
        assert_frame_equal(mine, alone)
        im = am.IndicatorMatrix(
            part["y_true"].to_numpy(), part["y_pred"].to_numpy(), task="multiclass", n_classes=4
        )
        for row in mine.filter(pl.col("convention") == "exclude", pl.col("measure") == "f1").iter_rows(
            named=True
        ):
            assert row["value"] == pytest.approx(im.compute("f1", row["operator"]), nan_ok=True)


def test_grouped_long_form_against_aggmetrics() -> None:
    rng = np.random.default_rng(3)
    frames, ref = [], {}
    for day in ("mon", "tue"):
        Y = rng.integers(0, 2, (20, 4))
        P = rng.integers(0, 2, (20, 4))
        frames.append(dense_long(Y, P).with_columns(pl.lit(day).alias("day")))
        ref[day] = am.IndicatorMatrix(Y, P, task="multilabel")
    out = af.from_long(pl.concat(frames).lazy()).evaluate(MEASURES, OPERATORS, by="day")
    for row in out.iter_rows(named=True):
        expected = ref[row["day"]].compute(row["measure"], row["operator"])
        assert row["value"] == pytest.approx(expected, nan_ok=True)


def _scans(plan: str) -> int:
    return len(re.findall(r"SCAN \[", plan))


def test_one_scan_for_every_grain(tmp_path: Path) -> None:
    path = tmp_path / "long.parquet"
    rng = np.random.default_rng(0)
    dense_long(rng.integers(0, 2, (50, 5)), rng.integers(0, 2, (50, 5))).write_parquet(path)
    plan = af.from_long(pl.scan_parquet(path)).evaluate(lazy=True).explain()
    # one scan per grain (per class and per example), never per measure or operator: the
    # two aggregations read the source each rather than share a buffered scan, so that
    # streaming memory does not grow with the input (see _cells.long_grains)
    assert _scans(plan) == 2, plan
    # aggregations per grain, never per measure: the plan for 21 measures has as many
    # group-bys as the plan for one
    one = af.from_long(pl.scan_parquet(path)).evaluate("f1", lazy=True).explain()
    assert len(re.findall(r"AGGREGATE", plan)) == len(re.findall(r"AGGREGATE", one))
    labels = pl.scan_parquet(EXAMPLES / "predictions.parquet")
    # the label form: by true and by predicted label, and the examples' check (an example
    # column); with a small universe declared, the (y_true, y_pred) pairs in one group-by
    plan = af.from_labels(labels, example="example").evaluate(lazy=True, by=["model", "day"]).explain()
    assert _scans(plan) == 3, plan
    plan = af.from_labels(labels, n_classes=6).evaluate(lazy=True, by=["model", "day"]).explain()
    assert _scans(plan) == 1, plan


def _counting_source(frame: pl.DataFrame) -> tuple[pl.LazyFrame, list[int]]:
    from polars.io.plugins import register_io_source

    calls = [0]

    def source(with_columns, predicate, n_rows, batch_size):  # type: ignore[no-untyped-def]
        calls[0] += 1
        yield frame if with_columns is None else frame.select(with_columns)

    return register_io_source(source, schema=frame.schema), calls


@pytest.mark.parametrize("engine", ["auto", "in-memory", "streaming"])
def test_the_input_is_read_once_per_grain(engine: str) -> None:
    rng = np.random.default_rng(1)
    long = dense_long(rng.integers(0, 2, (30, 4)), rng.integers(0, 2, (30, 4))).with_columns(
        (pl.col("example") % 3).alias("model")
    )
    labels = pl.read_parquet(EXAMPLES / "predictions.parquet").filter(pl.col("day") == "2026-11-01")
    # the long form reads once per grain (class, example); the label form once per
    # aggregation of its rows (true labels, predicted labels, examples), or once for the
    # (y_true, y_pred) pairs of a small declared universe (and once for the examples)
    cases = [
        (long, af.from_long, "model", 2),
        (labels, lambda lf: af.from_labels(lf, example="example"), "model", 3),
        (labels, lambda lf: af.from_labels(lf, example="example", n_classes=6), "model", 2),
        (labels, lambda lf: af.from_labels(lf, n_classes=6), "model", 1),
    ]
    for frame, build, by, reads in cases:
        lf, calls = _counting_source(frame)
        build(lf).evaluate(MEASURES, OPERATORS, by=by, convention=list(CONVENTIONS), engine=engine)
        assert calls[0] == reads
        lf, calls = _counting_source(frame)
        build(lf).evaluate(by=by, lazy=True).collect(engine=engine)
        assert calls[0] == reads


def test_label_form_reads_only_the_class_margins(tmp_path: Path) -> None:
    # The label form never builds n x m rows, nor, without a small declared universe, the
    # (y_true, y_pred) pairs: two aggregations, by the true label and by the predicted label
    # (under private names), summed per (by..., class).
    plan = af.from_labels(pl.scan_parquet(EXAMPLES / "predictions.parquet")).evaluate(lazy=True).explain()
    assert _scans(plan) == 2
    assert re.search(r'BY \[col\("__af_y_true"\)\]', plan), plan
    assert re.search(r'BY \[col\("__af_y_pred"\)\]', plan), plan
    assert re.search(r'BY \[col\("class"\)\]', plan), plan
    assert not re.search(r'BY \[.*col\("__af_y_true"\), col\("__af_y_pred"\)\]', plan), plan
    # up to PAIRS_UP_TO declared classes: the pairs, whose table is bounded by groups x m^2
    plan = (
        af.from_labels(pl.scan_parquet(EXAMPLES / "predictions.parquet"), n_classes=6)
        .evaluate(lazy=True)
        .explain()
    )
    assert _scans(plan) == 1
    assert re.search(r'BY \[.*col\("__af_y_true"\), col\("__af_y_pred"\)\]', plan), plan
    assert not re.search(r'BY \[col\("__af_y_true"\)\]', plan), plan


def test_cells_roll_up_exactly() -> None:
    frame = pl.read_parquet(EXAMPLES / "predictions.parquet")
    pr = af.from_labels(frame, n_classes=6)
    by_day = pr.cells("class", by=["model", "day"])
    rolled = (
        by_day.group_by("model", "class").agg(pl.col("tp", "fp", "fn", "tn").sum()).sort("model", "class")
    )
    assert_frame_equal(rolled, pr.cells("class", by="model"), check_column_order=False)
    profiles = pr.cells("profiles", by=["model", "day"])
    rolled_p = profiles.group_by("model", "tp", "fp", "fn", "tn").agg(pl.col("n").sum()).sort(pl.all())
    assert_frame_equal(rolled_p, pr.cells("profiles", by="model").sort(pl.all()), check_column_order=False)


def test_cached_tables_do_not_rescan() -> None:
    frame = pl.read_parquet(EXAMPLES / "predictions.parquet")
    pr = af.from_labels(frame)
    first = pr.evaluate(["f1"], ["macro"], by="model")
    assert len(pr._cache) == 1
    again = pr.evaluate(["f1", "mcc"], ["macro", "micro"], by="model")
    assert len(pr._cache) == 1
    assert again.filter(pl.col("measure") == "f1", pl.col("operator") == "macro")[
        "value"
    ].to_list() == pytest.approx(first["value"].to_list(), rel=1e-15)
