"""af.Accumulator: any split of the rows into batches accumulates to exactly the whole.

The oracle is the same data evaluated at once (``from_labels``/``from_long``/
``from_scores``/``from_indicator`` on the concatenated rows): every operator and
convention, ``by=`` groups with null keys, folds and repeats, targets, the binary
task, class universes that grow from batch to batch, soft labels (to 1e-9: sums in
another order), and every buffer size (``0``: each update reduced at once).
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from tests.strategies import (
    CONVENTIONS,
    OPERATORS,
    PROPERTY_MEASURES,
    RESULT_NAMES,
    LabelCase,
    LongCase,
    distinct_names,
    label_frames,
    long_frames,
    rename_columns,
)

FEW = settings(max_examples=20, deadline=None)
BUFFERS = st.sampled_from([0, 3, 1_000_000])
EVAL: dict[str, Any] = {
    "measures": list(PROPERTY_MEASURES),
    "operators": list(OPERATORS),
    "convention": list(CONVENTIONS),
}


def batches(frame: pl.DataFrame, example: str | None, data: st.DataObject, k: int) -> list[pl.DataFrame]:
    """The rows split into ``k`` batches (some maybe empty), whole examples per batch."""
    if example is None:
        assign = data.draw(st.lists(st.integers(0, k - 1), min_size=frame.height, max_size=frame.height))
        tagged = frame.with_columns(pl.Series("__batch", assign, dtype=pl.Int64))
    else:
        ids = frame[example].unique().sort().to_list()
        assign = data.draw(st.lists(st.integers(0, k - 1), min_size=len(ids), max_size=len(ids)))
        tagged = frame.with_columns(
            pl.col(example).replace_strict(ids, assign, return_dtype=pl.Int64).alias("__batch")
        )
    return [tagged.filter(pl.col("__batch") == i).drop("__batch") for i in range(k)]


def roles(case: LabelCase) -> dict[str, Any]:
    return {k: v for k, v in case.roles().items() if v is not None}


def same(got: pl.DataFrame, expected: pl.DataFrame, tol: float = 1e-12) -> None:
    assert_frame_equal(got, expected, check_exact=False, abs_tol=tol)


# ---------------------------------------------------------------------------
# Any split accumulates to the whole


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(), data=st.data(), k=st.integers(1, 4), buffer=BUFFERS)
def test_label_batches_add_up_to_the_whole(case: LabelCase, data: st.DataObject, k: int, buffer: int) -> None:
    whole = af.from_labels(case.frame, **roles(case))
    acc = af.Accumulator(by=case.by, buffer_rows=buffer, **roles(case))
    for b in batches(case.frame, case.example, data, k):
        acc.update(b)
    same(acc.evaluate(**EVAL), whole.evaluate(**EVAL, by=case.by))
    # the cells themselves, not only the measures (classes absent from a batch completed)
    for grain in ("class", "profiles"):
        same(acc.cells().table(grain), whole.cells(grain, by=case.by))
    assert acc.n_rows == case.frame.height


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(
    case=label_frames(folds=True, repeat=True, example=True),
    data=st.data(),
    k=st.integers(1, 4),
    buffer=BUFFERS,
    universe=st.sampled_from(["global", "group"]),
)
def test_folds_grouping_sets_and_group_universes_add_up(
    case: LabelCase, data: st.DataObject, k: int, buffer: int, universe: str
) -> None:
    whole = af.from_labels(case.frame, class_universe=universe, **roles(case))
    acc = af.Accumulator(by=case.by, buffer_rows=buffer, class_universe=universe, **roles(case))
    for b in batches(case.frame, case.example, data, k):
        acc.update(b)
    pooling = ["pooled", "averaged", "fold", "min", "max", "std"]
    same(acc.evaluate(**EVAL, pooling=pooling), whole.evaluate(**EVAL, by=case.by, pooling=pooling))
    rolled = {"measures": ["f1", "mcc"], "operators": ["macro", "exemplar"], "grouping_sets": "rollup"}
    same(acc.evaluate(**rolled), whole.evaluate(**rolled, by=case.by))


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(target=True), data=st.data(), k=st.integers(1, 4), buffer=BUFFERS)
def test_targets_add_up(case: LabelCase, data: st.DataObject, k: int, buffer: int) -> None:
    whole = af.from_labels(case.frame, **roles(case))
    acc = af.Accumulator(by=case.by, buffer_rows=buffer, **roles(case))
    for b in batches(case.frame, "example", data, k):
        acc.update(b)
    kw = {**EVAL, "operators": [*OPERATORS, "target"], "within": ["micro", "macro"]}
    same(acc.evaluate(**kw), whole.evaluate(**kw, by=case.by))


@pytest.mark.slow
@FEW
@given(case=label_frames(max_m=2), data=st.data(), k=st.integers(1, 4))
def test_binary_task_adds_up(case: LabelCase, data: st.DataObject, k: int) -> None:
    kw = {**EVAL, "operators": [*OPERATORS, "binary"]}
    try:
        expected = af.from_labels(case.frame, task="binary", **roles(case)).evaluate(**kw, by=case.by)
    except af.errors.OptionError:  # pos_label 1 absent from two labels: a binary task is then refused
        return
    acc = af.Accumulator(by=case.by, buffer_rows=0, task="binary", **roles(case))
    for b in batches(case.frame, case.example, data, k):
        acc.update(b)
    same(acc.evaluate(**kw), expected)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=long_frames(folds=True), data=st.data(), k=st.integers(1, 4), buffer=BUFFERS)
def test_long_batches_add_up(case: LongCase, data: st.DataObject, k: int, buffer: int) -> None:
    # dense, sparse with a declared universe, masked, and soft under a t-norm (to 1e-9)
    whole = af.from_long(case.frame, **case.roles())
    acc = af.Accumulator("long", by=case.by, buffer_rows=buffer, **case.roles())
    for b in batches(case.frame, "example", data, k):
        acc.update(b)
    pooling = ["pooled", "averaged", "fold"]
    same(acc.evaluate(**EVAL, pooling=pooling), whole.evaluate(**EVAL, by=case.by, pooling=pooling), 1e-9)


def test_long_targets_add_up() -> None:
    rng = np.random.default_rng(5)
    rows = []
    for e in range(30):
        for t, m in (("a", 2), ("b", 3)):
            for c in range(m):
                rows.append((e, e % 3, t, c, int(rng.integers(0, 2)), int(rng.integers(0, 2))))
    frame = pl.DataFrame(rows, schema=["example", "g", "target", "class", "y", "p"], orient="row")
    whole = af.from_long(frame, target="target")
    kw = {**EVAL, "operators": [*OPERATORS, "target"], "within": ["micro", "macro", "exemplar"]}
    for buffer in (0, 50):
        acc = af.Accumulator("long", by="g", target="target", buffer_rows=buffer)
        for lo in range(0, 30, 7):
            acc.update(frame.filter(pl.col("example").is_between(lo, lo + 6)))
        same(acc.evaluate(**kw), whole.evaluate(**kw, by="g"))


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(data=st.data(), k=st.integers(1, 4))
def test_scores_batches_add_up(data: st.DataObject, k: int) -> None:
    n, m = data.draw(st.integers(1, 12)), data.draw(st.integers(2, 4))
    rng = np.random.default_rng(data.draw(st.integers(0, 99)))
    frame = pl.DataFrame(
        {
            "g": np.repeat(rng.integers(0, 2, n), m),
            "example": np.repeat(np.arange(n), m),
            "class": np.tile(np.arange(m), n),
            "score": rng.random(n * m).round(1),
            "y": rng.integers(0, 2, n * m),
        }
    )
    decision = data.draw(st.sampled_from(["argmax", "threshold", "top_k"]))
    options: dict[str, Any] = {"decision": decision, "n_classes": m}
    if decision == "top_k":
        options["k"] = 2
    whole = af.from_scores(frame, **options)
    acc = af.Accumulator("scores", by="g", buffer_rows=data.draw(BUFFERS), **options)
    for b in batches(frame, "example", data, k):
        acc.update(b)
    same(acc.evaluate(**EVAL), whole.evaluate(**EVAL, by="g"))


def test_indicator_batches_add_up() -> None:
    rng = np.random.default_rng(1)
    Y, P, M = (rng.integers(0, 2, (40, 5)) for _ in range(3))
    acc = af.Accumulator("indicator", buffer_rows=0)
    for lo in range(0, 40, 13):
        acc.update(Y[lo : lo + 13], P[lo : lo + 13], mask=M[lo : lo + 13])
    same(acc.evaluate(**EVAL), af.from_indicator(Y, P, mask=M).evaluate(**EVAL))
    soft = af.Accumulator("indicator", tnorm="product")
    S, Q = rng.random((20, 3)).round(2), rng.random((20, 3)).round(2)
    soft.update(S[:9], Q[:9])
    soft.update(S[9:], Q[9:])
    same(soft.evaluate(**EVAL), af.from_indicator(S, Q, tnorm="product").evaluate(**EVAL), 1e-9)


# ---------------------------------------------------------------------------
# Class universes that grow


def test_a_class_first_seen_in_a_later_batch_completes_the_earlier_ones() -> None:
    day1 = pl.DataFrame({"m": ["a", "a", "b"], "y_true": [0, 1, 1], "y_pred": [0, 1, 0]})
    day2 = pl.DataFrame({"m": ["b", "b"], "y_true": [2, 1], "y_pred": [2, 2]})
    acc = af.Accumulator(by="m", buffer_rows=0)
    acc.update(day1)
    acc.update(day2)
    whole = af.from_labels(pl.concat([day1, day2]))
    same(acc.cells().table("class"), whole.cells("class", by="m"))
    # model a never saw class 2: its two examples are true negatives of it
    row = acc.cells().table("class").filter((pl.col("m") == "a") & (pl.col("class") == 2))
    assert row.select("tp", "fp", "fn", "tn").row(0) == (0.0, 0.0, 0.0, 2.0)
    same(acc.evaluate(**EVAL), whole.evaluate(**EVAL, by="m"))


def test_the_long_form_refuses_a_class_the_earlier_batches_lacked() -> None:
    first = pl.DataFrame({"example": [0, 0], "class": [0, 1], "y": [1, 0], "p": [1, 0]})
    later = pl.DataFrame({"example": [1, 1, 1], "class": [0, 1, 2], "y": [0, 0, 1], "p": [0, 1, 1]})
    with pytest.raises(af.errors.SparseInputError):  # the rows together are sparse too
        af.from_long(pl.concat([first, later])).evaluate()
    acc = af.Accumulator("long", buffer_rows=0)
    acc.update(first)
    with pytest.raises(af.errors.SparseInputError, match=r"update 2: .*class 2.*classes=") as exc:
        acc.update(later)
    assert "not added" in str(exc.value)
    # the first batch is kept; with a declared universe the same batches add up
    assert acc.cells().class_table.height == 2
    declared = af.Accumulator("long", n_classes=3, buffer_rows=0)
    declared.update(first)
    declared.update(later)
    same(declared.evaluate(**EVAL), af.from_long(pl.concat([first, later]), n_classes=3).evaluate(**EVAL))


# ---------------------------------------------------------------------------
# Batches of every kind


FRAME = pl.DataFrame(
    {
        "model": ["a", "b", "a", "b", None, "a"],
        "y_true": ["x", "y", "x", "z", "y", "y"],
        "y_pred": ["x", "y", "y", "z", "x", "y"],
    }
)


@pytest.mark.parametrize("kind", ["polars", "lazy", "pandas", "arrow", "dict"])
def test_batches_of_every_frame_library(kind: str) -> None:
    convert = {
        "polars": lambda f: f,
        "lazy": lambda f: f.lazy(),
        "pandas": lambda f: f.to_pandas(),
        "arrow": lambda f: f.to_arrow(),
        "dict": lambda f: f.to_dict(as_series=False),
    }[kind]
    acc = af.Accumulator(by="model")
    for lo in (0, 2, 4):
        acc.update(convert(FRAME[lo : lo + 2]))
    same(acc.evaluate(**EVAL), af.from_labels(FRAME).evaluate(**EVAL, by="model"))


def test_label_arrays_and_type_checks() -> None:
    acc = af.Accumulator(buffer_rows=0)
    acc.update(np.array([0, 1, 2]), np.array([0, 1, 1]))
    acc.update([2, 2], [2, 0])
    same(acc.evaluate(**EVAL), af.from_labels([0, 1, 2, 2, 2], [0, 1, 1, 2, 0]).evaluate(**EVAL))
    with pytest.raises(af.errors.InvalidValueError, match=r"'y_true' is String in update 3 but Int64"):
        acc.update(["a"], ["b"])
    with pytest.raises(af.errors.OptionError, match="two label arrays"):
        acc.update(np.array([[0, 1]]))


def test_an_empty_batch_is_skipped_and_an_empty_accumulator_says_so() -> None:
    acc = af.Accumulator()
    with pytest.raises(af.errors.EmptyInputError, match="no rows yet"):
        acc.evaluate()
    acc.update(FRAME.clear())
    assert acc.n_updates == 1
    assert acc.n_rows == 0
    acc.update(FRAME)
    same(acc.evaluate(**EVAL), af.from_labels(FRAME).evaluate(**EVAL))


# ---------------------------------------------------------------------------
# Errors: named, early when cheap, and the state stays consistent


def test_options_and_columns_are_checked_at_construction_and_update() -> None:
    with pytest.raises(af.errors.OptionError, match="unknown option 'y'"):
        af.Accumulator(y="y")
    with pytest.raises(af.errors.OptionError, match="examples="):
        af.Accumulator("long", examples=10)
    with pytest.raises(af.errors.OptionError, match="unknown form"):
        af.Accumulator("wide")  # type: ignore[arg-type]
    with pytest.raises(af.errors.OptionError, match="buffer_rows"):
        af.Accumulator(buffer_rows=-1)
    acc = af.Accumulator(by="day")
    with pytest.raises(af.errors.ColumnNotFoundError, match="'day'"):
        acc.update(FRAME)  # checked on the batch's schema, before any row is read
    scores = af.Accumulator("scores", decision="argmax")
    with pytest.raises(af.errors.ColumnNotFoundError, match="'score'"):
        scores.update(pl.DataFrame({"example": [0], "class": [0], "y": [1]}))


@pytest.mark.parametrize("buffer", [0, 1_000_000])
def test_a_bad_batch_is_named_and_dropped_and_the_others_are_kept(buffer: int) -> None:
    good = [FRAME[:3], FRAME[3:]]
    bad = pl.DataFrame({"model": ["a"], "y_true": [None], "y_pred": ["x"]}, schema=FRAME.schema)
    acc = af.Accumulator(by="model", buffer_rows=buffer)
    acc.update(good[0])

    def feed() -> None:
        acc.update(bad)
        acc.update(good[1])
        acc.evaluate()  # with a buffer the rows are checked when they are reduced

    with pytest.raises(af.errors.NullValueError, match=r"update 2: column 'y_true': 1 null") as exc:
        feed()
    assert "not added" in str(exc.value)
    if buffer == 0:
        acc.update(good[1])
    same(acc.evaluate(**EVAL), af.from_labels(FRAME).evaluate(**EVAL, by="model"))
    assert acc.n_rows == FRAME.height


# ---------------------------------------------------------------------------
# merge, reset, pickling


def test_merge_adds_other_accumulators_once() -> None:
    a, b = af.Accumulator(by="model"), af.Accumulator(by="model")
    a.update(FRAME[:4])
    b.update(FRAME[4:])
    b_copy = pickle.loads(pickle.dumps(b))
    a.merge(b)
    same(a.evaluate(**EVAL), af.from_labels(FRAME).evaluate(**EVAL, by="model"))
    assert a.n_rows == FRAME.height
    with pytest.raises(af.errors.StoreError, match="twice"):
        a.merge(b_copy)  # the same rows, sent back
    with pytest.raises(af.errors.StoreError, match="twice"):
        a.merge(a)
    with pytest.raises(af.errors.OptionError, match="another form or by-columns"):
        a.merge(af.Accumulator(by="day"))
    labels = sorted(set(FRAME["y_true"].to_list()) | set(FRAME["y_pred"].to_list()))
    declared = af.Accumulator(by="model", classes=labels)
    declared.update(FRAME[:2])
    with pytest.raises(af.errors.OptionError, match="class universes"):
        a.merge(declared)  # other options: the cells' layout check
    # cells made elsewhere (another process, a Spark task)
    c = af.Accumulator(by="model")
    c.merge(af.from_labels(FRAME).to_cells(by="model"))
    same(c.evaluate(**EVAL), af.from_labels(FRAME).evaluate(**EVAL, by="model"))


def test_reset_and_pickle_mid_stream() -> None:
    acc = af.Accumulator(by="model", buffer_rows=2)
    acc.update(FRAME[:3])
    acc.update(FRAME[3:4])  # stays buffered
    revived = pickle.loads(pickle.dumps(acc))
    revived.update(FRAME[4:])
    same(revived.evaluate(**EVAL), af.from_labels(FRAME).evaluate(**EVAL, by="model"))
    acc.reset()
    assert (acc.n_updates, acc.n_rows, acc.buffered_rows) == (0, 0, 0)
    acc.update(FRAME[4:])
    same(acc.evaluate(**EVAL), af.from_labels(FRAME[4:]).evaluate(**EVAL, by="model"))


def test_compute_rolls_up_and_the_state_stays_small() -> None:
    rng = np.random.default_rng(0)
    acc = af.Accumulator(by=["model", "day"], buffer_rows=5_000)
    sizes = []
    for day in range(20):
        n = 2_000
        acc.update(
            pl.DataFrame(
                {"model": rng.integers(0, 3, n), "day": day % 4, "y_true": rng.integers(0, 5, n)}
            ).with_columns(y_pred=pl.col("y_true").shuffle(seed=day))
        )
        sizes.append(acc.cells().class_table.height)
    # groups x classes, whatever the number of rows
    assert sizes[-1] == 3 * 4 * 5
    assert sizes[5] == sizes[-1]
    overall = acc.evaluate("f1", "macro", by=None)
    assert overall.columns[0] == "measure"
    assert acc.evaluate("f1", "macro", by="day").height == 4


# ---------------------------------------------------------------------------
# Null keys and hostile names


AVOID = ["y_true", "y_pred", "example", *RESULT_NAMES["evaluate"]]


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(example=False, max_keys=2), data=st.data(), k=st.integers(1, 3))
def test_hostile_names_and_null_keys(case: LabelCase, data: st.DataObject, k: int) -> None:
    names = data.draw(distinct_names(len(case.by) + 2, avoid=AVOID))
    mapping = dict(zip([*case.by, "y_true", "y_pred"], names, strict=True))
    frame = rename_columns(case.frame, mapping)
    by = [mapping[c] for c in case.by]
    acc = af.Accumulator(
        by=by, y_true=mapping["y_true"], y_pred=mapping["y_pred"], buffer_rows=data.draw(BUFFERS)
    )
    for b in batches(frame, None, data, k):
        acc.update(b)
    expected = af.from_labels(case.frame).evaluate(**EVAL, by=case.by)
    same(acc.evaluate(**EVAL), rename_columns(expected, mapping))


def test_broken_batches_are_named() -> None:
    acc = af.Accumulator()
    with pytest.raises(af.errors.OptionError, match="Expected a batch to be a DataFrame"):
        acc.update("predictions.parquet")  # a path is not a batch: af.from_labels reads paths
    duckdb = pytest.importorskip("duckdb")
    # a lazy engine frame (a Spark DataFrame was "got DataFrame", the type the message asked for)
    with pytest.raises(
        af.errors.OptionError, match=r"got duckdb\.\S*DuckDBPyRelation, a lazy frame .* merge\(\)"
    ):
        acc.update(duckdb.sql("select 0 as y_true, 1 as y_pred"))
    with pytest.raises(af.errors.ShapeError, match="labels"):
        acc.update([0, 1, 2], [0, 1])
    indicator = af.Accumulator("indicator")
    indicator.update(np.eye(3), np.eye(3))
    with pytest.raises(af.errors.ShapeError, match="4 columns, the earlier ones 3"):
        indicator.update(np.eye(4), np.eye(4))
    with pytest.raises(af.errors.OptionError, match="mask"):
        indicator.update(np.eye(3), np.eye(3), mask=np.ones((3, 3)))
    indicator.update(np.full((2, 3), 2.0), np.eye(3)[:2])  # checked when the buffer is reduced
    with pytest.raises(af.errors.InvalidValueError, match=r"update 4: .*outside \[0, 1\]"):
        indicator.flush()


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(example=False), data=st.data(), k=st.integers(1, 4), buffer=BUFFERS)
def test_the_multiclass_operator_accumulates(
    case: LabelCase, data: st.DataObject, k: int, buffer: int
) -> None:
    kw = {"measures": ["mcc", "kappa", "kappa_quadratic"], "operators": ["multiclass"]}
    acc = af.Accumulator(by=case.by, buffer_rows=buffer)
    for b in batches(case.frame, None, data, k):
        acc.update(b)
    same(acc.evaluate(**kw), af.from_labels(case.frame).evaluate(**kw, by=case.by))


@pytest.mark.parametrize("buffer_rows", [0, 1_000_000])
def test_integers_beyond_2_53_never_meet_floats_silently(buffer_rows: int) -> None:
    """Day 1 with the labels 2**53 and 2**53 + 1, day 2 with float labels: added cells (and the
    Accumulator, buffered or not) read both integers as one Float64 class (f1 macro 0.833 where
    three classes give 0.778). One frame with the mix is refused; so is this."""
    big = pl.DataFrame({"y_true": [2**53, 2**53 + 1], "y_pred": [2**53, 2**53]})
    small = pl.DataFrame({"y_true": [0.5, 0.5], "y_pred": [0.5, 2.5]})
    with pytest.raises(af.errors.InvalidValueError, match="beyond 2\\^53"):
        af.from_labels(big).to_cells() + af.from_labels(small).to_cells()
    acc = af.Accumulator(buffer_rows=buffer_rows)
    acc.update(big)
    with pytest.raises(af.errors.InvalidValueError, match="beyond 2\\^53"):  # noqa: PT012 - reduced at once or buffered
        acc.update(small)
        acc.evaluate("f1", "macro")


def test_a_null_first_batch_does_not_let_two_key_types_meet() -> None:
    """A first batch whose by-column is all null let String '1' and Int64 1 become one group."""
    acc = af.Accumulator(by="model")
    acc.update(pl.DataFrame({"model": [None], "y_true": [0], "y_pred": [0]}))
    acc.update(pl.DataFrame({"model": ["1"], "y_true": [1], "y_pred": [1]}))
    with pytest.raises(af.errors.InvalidValueError, match="column 'model' is Int64 in update 3 but String"):
        acc.update(pl.DataFrame({"model": [1], "y_true": [1], "y_pred": [0]}))


def test_merge_checks_what_it_takes_and_reads_options_as_cells_do() -> None:
    """An empty accumulator took any Cells (then every update failed and compute named a missing
    key); equivalent options (n_classes=3 and classes=[0, 1, 2], a list and a tuple, a NumPy
    array: a raw ValueError) were refused as "configured differently"."""
    day = pl.DataFrame({"model": ["a", "b", "a"], "day": [1, 1, 1], "y_true": [0, 1, 2], "y_pred": [0, 1, 1]})
    acc = af.Accumulator(by="model")
    with pytest.raises(af.errors.OptionError, match=r"cannot merge these cells: form 'labels', by \['day'\]"):
        acc.merge(af.from_labels(day).to_cells(by="day"))
    a = af.Accumulator(by="model", n_classes=3)
    b = af.Accumulator(by="model", classes=np.array([0, 1, 2]))
    a.update(day)
    b.update(day.with_columns(pl.lit(2).alias("day")))
    a.merge(b)
    want = af.from_labels(pl.concat([day, day]), n_classes=3).evaluate("f1", "macro", by="model")
    assert_frame_equal(a.evaluate("f1", "macro"), want)


def test_indicator_batches_are_buffered_as_distinct_examples() -> None:
    """Each batch numbered its examples from 0: buffered batches collided and were reduced one by
    one on the error path. The result was right; this checks the buffer takes them at once."""
    rng = np.random.default_rng(5)
    acc = af.Accumulator("indicator")
    Ys, Ps = [], []
    for _ in range(5):
        Y, P = rng.integers(0, 2, (20, 3)), rng.integers(0, 2, (20, 3))
        Ys.append(Y)
        Ps.append(P)
        acc.update(Y, P)
    reduced = []
    original = acc._add_each
    acc._add_each = lambda *a: reduced.append(a) or original(*a)  # type: ignore[method-assign]
    got = acc.evaluate("f1", ["micro", "macro", "exemplar"])
    assert not reduced  # no error-path flush
    want = af.from_indicator(np.vstack(Ys), np.vstack(Ps)).evaluate("f1", ["micro", "macro", "exemplar"])
    assert_frame_equal(got, want)
