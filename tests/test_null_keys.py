"""A null group key is its own group (issue #12, item 1), on every path that groups by keys.

SQL ``GROUP BY`` and Polars' ``group_by`` keep rows whose key is null as one group
per null pattern. The oracle of every test here: for each distinct key tuple of the
frame (nulls included), filter its rows null-aware (``is_null()`` for a null key
value), evaluate that subset alone with the global class universe declared
(``classes=`` the sorted distinct labels, which is the default universe of every
group), and stack the results. An ungrouped evaluation reads the role columns only:
the oracle evaluates the group's rows without the by-columns, once per distinct rows
and options in the module (:func:`alone_once`). ``evaluate(by=keys)``, grouping sets,
``compare``, cell stores, the CLI, DuckDB, folds, targets and the per-class/diagnostic
helpers must give the same numbers, group by group.

The keys are one to three columns of Int64, String, Boolean or Categorical dtype,
each with no, some or only null values (``tests/strategies.py``).
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.interop.cli import main as cli_main
from tests.strategies import (
    CONVENTIONS,
    OPERATORS,
    PROPERTY_MEASURES,
    LabelCase,
    LongCase,
    group_filter,
    label_frames,
    long_frames,
)

duckdb = pytest.importorskip("duckdb")


#: property tests over every path with random null keys: minutes (CI runs them; the quick loop, -m "not slow", leaves them out)
pytestmark = pytest.mark.slow

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
FEW = settings(SETTINGS, max_examples=20)
STAT = ["measure", "operator", "convention"]


# ---------------------------------------------------------------------------
# The oracle


def groups_of(frame: pl.DataFrame, keys: Sequence[str]) -> list[tuple[Any, ...]]:
    """The distinct key tuples of the frame, nulls included."""
    return frame.select(keys).unique().rows()


def per_group(
    frame: pl.DataFrame, keys: Sequence[str], one: Callable[[pl.DataFrame], pl.DataFrame]
) -> pl.DataFrame:
    """``one(rows of the group)`` for every group, with the group's key values in front."""
    keys = list(keys)
    if not keys:
        return one(frame)
    parts = []
    for values in groups_of(frame, keys):
        result = one(frame.filter(group_filter(keys, values)))
        lits = [pl.lit(v, dtype=frame.schema[k]).alias(k) for k, v in zip(keys, values, strict=True)]
        parts.append(result.select(*lits, pl.all()))
    return pl.concat(parts, how="vertical_relaxed")


#: the oracle's evaluations for the whole module: (options, schema, rows) -> result
_ALONE: dict[Any, pl.DataFrame] = {}


def alone_once(
    options: Any, keys: Sequence[str], evaluate: Callable[[pl.DataFrame], pl.DataFrame]
) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """The oracle of one group: ``evaluate`` of its rows alone, without the by-columns ``keys``.

    ``options`` names everything ``evaluate`` depends on besides the rows (constructor,
    roles, universe, evaluate's arguments). Each distinct (options, rows) is evaluated
    once and the result kept: within an example the groupings often select the same rows
    (a grouping set whose kept key is constant or all null, the overall rows when there
    is one group, a coarser grouping), and across examples and tests hypothesis draws
    many of the same small groups (each evaluation is ~0.1 s of Polars planning).
    """

    def one(sub: pl.DataFrame) -> pl.DataFrame:
        rows = sub.drop(keys)
        key = (options, tuple((c, str(d)) for c, d in rows.schema.items()), tuple(rows.rows()))
        if key not in _ALONE:
            _ALONE[key] = evaluate(rows)
        return _ALONE[key]

    return one


def _key_order(keys: Sequence[str]) -> list[pl.Expr]:
    # one order for both sides whatever the key dtype (Categorical included); nulls last
    return [pl.col(k).cast(pl.String) for k in keys]


def assert_groups_equal(
    got: pl.DataFrame,
    expected: pl.DataFrame,
    keys: Sequence[str],
    order: Sequence[str] = STAT,
    *,
    check_dtypes: bool = True,
    keys_as_string: bool = False,
) -> None:
    """Same groups (nulls are groups), then the same rows, NaN equal to NaN."""
    keys = list(keys)
    if keys_as_string:
        got = got.with_columns(pl.col(k).cast(pl.String) for k in keys)
        expected = expected.with_columns(pl.col(k).cast(pl.String) for k in keys)
    got_groups = set(got.select(keys).unique().rows()) if keys else set()
    want_groups = set(expected.select(keys).unique().rows()) if keys else set()
    missing, extra = want_groups - got_groups, got_groups - want_groups
    assert missing | extra == set(), (
        f"groups differ on by={keys}: missing {sorted(missing, key=repr)}, extra {sorted(extra, key=repr)}"
    )
    sort = [*_key_order(keys), *order]
    assert_frame_equal(
        got.sort(sort, nulls_last=True, maintain_order=True),
        expected.select(got.columns if set(got.columns) == set(expected.columns) else expected.columns).sort(
            sort, nulls_last=True, maintain_order=True
        ),
        check_dtypes=check_dtypes,
        rel_tol=1e-9,
        abs_tol=1e-12,
    )


def label_eval(case: LabelCase, **kwargs: Any) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """Evaluate one subset of a label case alone, with the global universe."""

    def one(sub: pl.DataFrame) -> pl.DataFrame:
        pr = af.from_labels(sub, **case.roles(), **case.universe())
        out = pr.evaluate(**kwargs)
        assert isinstance(out, pl.DataFrame)
        return out

    return alone_once(("labels", repr(case.roles()), repr(case.universe()), repr(kwargs)), case.by, one)


def long_eval(case: LongCase, **kwargs: Any) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """Evaluate one subset of a long case alone, with the universe declared."""

    def one(sub: pl.DataFrame) -> pl.DataFrame:
        out = af.from_long(sub, **case.universe_roles()).evaluate(**kwargs)
        assert isinstance(out, pl.DataFrame)
        return out

    return alone_once(("long", repr(case.universe_roles()), repr(kwargs)), case.by, one)


EVAL = {"measures": list(PROPERTY_MEASURES), "operators": list(OPERATORS), "convention": list(CONVENTIONS)}


# ---------------------------------------------------------------------------
# evaluate(by=keys), label and long form, every operator and convention


@SETTINGS
@given(case=label_frames(labels="int") | label_frames(labels="str"))
def test_label_form_groups_equal_each_group_alone(case: LabelCase) -> None:
    pr = af.from_labels(case.frame, **case.roles())
    expected = per_group(case.frame, case.by, label_eval(case, **EVAL))
    got = pr.evaluate(**EVAL, by=case.by)
    assert isinstance(got, pl.DataFrame)
    assert got.columns[: len(case.by)] == case.by
    assert_groups_equal(got, expected, case.by)
    lazy = af.from_labels(case.frame.lazy(), **case.roles()).evaluate(**EVAL, by=case.by, lazy=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert_groups_equal(lazy.collect(), expected, case.by)


@SETTINGS
@given(case=long_frames())
def test_long_form_groups_equal_each_group_alone(case: LongCase) -> None:
    """Dense, sparse (n_classes= / classes=), masked and soft frames."""
    pr = af.from_long(case.frame, **case.roles())
    expected = per_group(case.frame, case.by, long_eval(case, **EVAL))
    got = pr.evaluate(**EVAL, by=case.by)
    assert isinstance(got, pl.DataFrame)
    assert_groups_equal(got, expected, case.by)
    lazy = af.from_long(case.frame.lazy(), **case.roles()).evaluate(**EVAL, by=case.by, lazy=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert_groups_equal(lazy.collect(), expected, case.by)


def test_issue_example() -> None:
    """The example of issue #12: the null group's recall is 1.0 (both of its examples are right)."""
    df = pl.DataFrame({"g": [None, None, 1], "y_true": [0, 1, 1], "y_pred": [0, 1, 0]})
    out = af.from_labels(df).evaluate("recall", ["micro", "macro", "weighted", "exemplar"], by="g")
    assert isinstance(out, pl.DataFrame)
    null_rows = out.filter(pl.col("g").is_null())
    assert null_rows["value"].to_list() == [1.0, 1.0, 1.0, 1.0]
    assert null_rows["n_undefined"].to_list() == [0, 0, 0, 0]
    total = af.from_labels(df).evaluate("recall", "micro", by="g", grouping_sets="rollup")
    assert isinstance(total, pl.DataFrame)
    overall = total.filter(pl.col("grouping_set") == "")["value"].to_list()
    assert overall == pytest.approx([2 / 3])  # two of three examples right, the null-keyed ones included


# ---------------------------------------------------------------------------
# subsets of classes, binary task, per-group universes


@FEW
@given(case=label_frames(max_m=3), data=st.data())
def test_labels_subset_groups_equal_each_group_alone(case: LabelCase, data: st.DataObject) -> None:
    labels = data.draw(st.lists(st.sampled_from(case.classes), min_size=1, unique=True))
    kwargs = {
        "measures": list(PROPERTY_MEASURES),
        "operators": ["micro", "macro", "weighted"],
        "labels": labels,
    }
    kwargs["convention"] = list(CONVENTIONS)
    got = af.from_labels(case.frame, **case.roles()).evaluate(**kwargs, by=case.by)
    assert isinstance(got, pl.DataFrame)
    assert_groups_equal(got, per_group(case.frame, case.by, label_eval(case, **kwargs)), case.by)


@FEW
@given(case=label_frames(max_m=2))
def test_binary_task_and_operator_groups_equal_each_group_alone(case: LabelCase) -> None:
    """task='binary' (the positive class alone) and the binary operator on two classes."""
    binary = {"task": "binary", "pos_label": 1, "classes": [0, 1]}
    for build, operators in ((binary, list(OPERATORS)), ({"classes": [0, 1]}, ["binary", "macro"])):
        kwargs = {
            "measures": list(PROPERTY_MEASURES),
            "operators": operators,
            "convention": list(CONVENTIONS),
        }

        def one(
            sub: pl.DataFrame, build: dict[str, Any] = build, kwargs: dict[str, Any] = kwargs
        ) -> pl.DataFrame:
            out = af.from_labels(sub, **build).evaluate(**kwargs)
            assert isinstance(out, pl.DataFrame)
            return out

        got = af.from_labels(case.frame, **build).evaluate(**kwargs, by=case.by)
        assert isinstance(got, pl.DataFrame)
        oracle = alone_once(("binary", repr(build), repr(kwargs)), case.by, one)
        assert_groups_equal(got, per_group(case.frame, case.by, oracle), case.by)


@FEW
@given(case=label_frames() | long_frames(kinds=["dense", "masked"]))
def test_group_universe_groups_equal_each_group_alone(case: LabelCase | LongCase) -> None:
    """class_universe='group': each group's classes are its own, evaluated alone by default."""

    def build(frame: pl.DataFrame, **extra: Any) -> af.Predictions:
        if isinstance(case, LabelCase):
            return af.from_labels(frame, **case.roles(), **extra)
        roles = {k: v for k, v in case.roles().items() if k not in ("n_classes", "classes")}
        return af.from_long(frame, **roles, **extra)

    def one(sub: pl.DataFrame) -> pl.DataFrame:
        out = build(sub).evaluate(**EVAL)
        assert isinstance(out, pl.DataFrame)
        return out

    got = build(case.frame, class_universe="group").evaluate(**EVAL, by=case.by)
    assert isinstance(got, pl.DataFrame)
    oracle = alone_once(("group universe", type(case).__name__, repr(case.roles())), case.by, one)
    assert_groups_equal(got, per_group(case.frame, case.by, oracle), case.by)


# ---------------------------------------------------------------------------
# grouping sets: every row is its coarser grouping evaluated directly


def grouping_set_keys(value: Any) -> tuple[str, ...]:
    """The by-columns a row is grouped by, from the ``grouping_set`` column (a string or a list)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split(",")) if value else ()
    return tuple(value)


def grouping_specs(by: list[str]) -> st.SearchStrategy[Any]:
    subsets = st.lists(st.sampled_from(by), unique=True).map(lambda s: [c for c in by if c in s])
    explicit = st.lists(subsets, min_size=1, max_size=4, unique_by=tuple)
    return st.one_of(st.just("rollup"), st.just("cube"), explicit)


def expected_sets(spec: Any, by: list[str]) -> set[tuple[str, ...]]:
    from itertools import combinations

    if spec == "rollup":
        return {tuple(by[:i]) for i in range(len(by) + 1)}
    if spec == "cube":
        return {c for r in range(len(by) + 1) for c in combinations(by, r)}
    return {tuple(s) for s in spec}


def grouping_id(keep: tuple[str, ...], by: list[str]) -> int:
    """SQL's GROUPING_ID of a grouping set: bit n - 1 - i set when by[i] is rolled up."""
    return sum(1 << (len(by) - 1 - i) for i, c in enumerate(by) if c not in keep)


def check_grouping_sets(
    got: pl.DataFrame,
    frame: pl.DataFrame,
    by: list[str],
    spec: Any,
    one: Callable[[pl.DataFrame], pl.DataFrame],
) -> None:
    assert got.columns[: len(by) + 2] == [*by, "grouping_set", "grouping_id"]
    wanted = expected_sets(spec, by)
    assert set(got["grouping_id"].unique().to_list()) == {grouping_id(k, by) for k in wanted}
    for keep in wanted:
        rows = got.filter(pl.col("grouping_id") == grouping_id(keep, by))
        # the label names the kept columns (ambiguous only for names with commas; the id is not)
        assert rows["grouping_set"].unique().to_list() == [",".join(keep)]
        rows = rows.drop("grouping_set", "grouping_id")
        # the rolled-up by-columns are null; a null in a kept column is a real null group
        rolled = [c for c in by if c not in keep]
        for c in rolled:
            assert rows[c].null_count() == rows.height, f"rolled-up column {c!r} holds values"
        expected = per_group(frame, list(keep), one).with_columns(
            pl.lit(None, dtype=frame.schema[c]).alias(c) for c in rolled
        )
        assert_groups_equal(rows, expected.select(rows.columns), list(keep))


@SETTINGS
@given(case=label_frames(min_keys=1, max_keys=3), data=st.data())
def test_label_grouping_sets_equal_direct_evaluation(case: LabelCase, data: st.DataObject) -> None:
    spec = data.draw(grouping_specs(case.by))
    got = af.from_labels(case.frame, **case.roles()).evaluate(**EVAL, by=case.by, grouping_sets=spec)
    assert isinstance(got, pl.DataFrame)
    check_grouping_sets(got, case.frame, case.by, spec, label_eval(case, **EVAL))


@SETTINGS
@given(case=long_frames(min_keys=1, max_keys=3), data=st.data())
def test_long_grouping_sets_equal_direct_evaluation(case: LongCase, data: st.DataObject) -> None:
    spec = data.draw(grouping_specs(case.by))
    got = af.from_long(case.frame, **case.roles()).evaluate(**EVAL, by=case.by, grouping_sets=spec)
    assert isinstance(got, pl.DataFrame)
    check_grouping_sets(got, case.frame, case.by, spec, long_eval(case, **EVAL))


def test_rollup_total_counts_null_keyed_rows() -> None:
    """The issue's rollup example: a grand total over every row, the null-keyed ones included."""
    df = pl.DataFrame(
        {"a": [None, None, 1, 1], "b": ["x", None, None, "y"], "y_true": [0, 1, 1, 0], "y_pred": [0, 1, 0, 0]}
    )
    got = af.from_labels(df).evaluate("recall", "micro", by=["a", "b"], grouping_sets="rollup")
    assert isinstance(got, pl.DataFrame)
    overall = got.filter(pl.col("grouping_set") == "")["value"].item()
    assert overall == pytest.approx(af.from_labels(df).compute("recall", "micro"))
    by_a = got.filter(pl.col("grouping_set") == "a").sort("a", nulls_last=True)
    assert by_a["a"].to_list() == [1, None]
    assert by_a["value"].to_list() == pytest.approx([0.5, 1.0])


# ---------------------------------------------------------------------------
# compare


@SETTINGS
@given(case=label_frames())
def test_compare_equals_each_group_and_overall(case: LabelCase) -> None:
    kwargs = {
        "measures": list(PROPERTY_MEASURES),
        "operators": list(OPERATORS),
        "convention": list(CONVENTIONS),
    }
    got = af.from_labels(case.frame, **case.roles()).compare(**kwargs, by=case.by, columns="all")
    one = label_eval(case, **EVAL)
    expected = per_group(case.frame, case.by, one)
    overall = one(case.frame).select(*STAT, pl.col("value").alias("overall"))
    expected = expected.join(overall, on=STAT, how="left").with_columns(
        (pl.col("value") - pl.col("overall")).alias("difference_to_overall")
    )
    cols = [*case.by, *STAT, "value", "n_entries", "n_undefined", "overall", "difference_to_overall"]
    assert_groups_equal(got.select(cols), expected.select(cols), case.by)


def test_compare_reference_may_be_the_null_group() -> None:
    df = pl.DataFrame({"g": [None, None, "a", "a"], "y_true": [0, 1, 1, 0], "y_pred": [0, 1, 0, 0]})
    got = af.from_labels(df).compare("recall", "micro", by="g", reference={"g": None})
    assert got.sort("g", nulls_last=True)["reference"].to_list() == [1.0, 1.0]
    assert got.sort("g", nulls_last=True)["value"].to_list() == [0.5, 1.0]


# ---------------------------------------------------------------------------
# cell stores and the CLI


@FEW
@given(case=label_frames() | long_frames())
def test_cell_store_round_trip_keeps_null_groups(case: LabelCase | LongCase) -> None:
    if isinstance(case, LabelCase):
        pr = af.from_labels(case.frame, **case.roles())
        one = label_eval(case, **EVAL)
    else:
        pr = af.from_long(case.frame, **case.roles())
        one = long_eval(case, **EVAL)
    with tempfile.TemporaryDirectory() as tmp:
        pr.write_cells(Path(tmp) / "store", by=case.by)
        stored = af.from_cells(Path(tmp) / "store")
        got = stored.evaluate(**EVAL, by=case.by)
        assert isinstance(got, pl.DataFrame)
        assert_groups_equal(got, per_group(case.frame, case.by, one), case.by)
        # a coarser grouping rolled up from the store
        coarse = case.by[:1]
        got = stored.evaluate(**EVAL, by=coarse)
        assert isinstance(got, pl.DataFrame)
        assert_groups_equal(got, per_group(case.frame, coarse, one), coarse)


@FEW
@given(case=label_frames())
def test_cli_report_keeps_null_groups(case: LabelCase) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "in.parquet", Path(tmp) / "out.csv"
        case.frame.write_parquet(path)
        args = [
            "report",
            str(path),
            "--by",
            ",".join(case.by),
            "--measures",
            ",".join(PROPERTY_MEASURES),
            "--operators",
            ",".join(OPERATORS),
            "--convention",
            ",".join(CONVENTIONS),
            "--format",
            "csv",
            "-o",
            str(out),
        ]
        if case.example:
            args += ["--example", case.example]
        assert cli_main(args) == 0
        # CSV: a null key is an empty field, an empty string is "" (quoted)
        got = pl.read_csv(out, schema_overrides={k: pl.String for k in case.by})
    expected = per_group(case.frame, case.by, label_eval(case, **EVAL))
    assert_groups_equal(got, expected, case.by, keys_as_string=True, check_dtypes=False)


@FEW
@given(case=label_frames(max_keys=2))
def test_cli_cells_then_report_keeps_null_groups(case: LabelCase) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path, store, out = Path(tmp) / "in.parquet", Path(tmp) / "store", Path(tmp) / "out.csv"
        case.frame.write_parquet(path)
        assert cli_main(["cells", str(path), "--by", ",".join(case.by), "-o", str(store)]) == 0
        args = ["report", str(store), "--by", ",".join(case.by), "--measures", ",".join(PROPERTY_MEASURES)]
        args += ["--operators", ",".join(OPERATORS), "--convention", ",".join(CONVENTIONS)]
        assert cli_main([*args, "--format", "csv", "-o", str(out)]) == 0
        got = pl.read_csv(out, schema_overrides={k: pl.String for k in case.by})
    expected = per_group(case.frame, case.by, label_eval(case, **EVAL))
    assert_groups_equal(got, expected, case.by, keys_as_string=True, check_dtypes=False)


# ---------------------------------------------------------------------------
# DuckDB


@FEW
@given(case=label_frames())
def test_duckdb_label_form_keeps_null_groups(case: LabelCase) -> None:
    con = duckdb.connect()
    try:
        rel = con.from_arrow(case.frame.to_arrow())
        got = af.from_labels(rel, **case.roles()).evaluate(**EVAL, by=case.by)
    finally:
        con.close()
    assert isinstance(got, pl.DataFrame)
    expected = per_group(case.frame, case.by, label_eval(case, **EVAL))
    assert_groups_equal(got, expected, case.by, keys_as_string=True, check_dtypes=False)


@FEW
@given(case=long_frames(kinds=["dense", "sparse", "masked"]))
def test_duckdb_long_form_keeps_null_groups(case: LongCase) -> None:
    con = duckdb.connect()
    try:
        rel = con.from_arrow(case.frame.to_arrow())
        got = af.from_long(rel, **case.roles()).evaluate(**EVAL, by=case.by)
    finally:
        con.close()
    assert isinstance(got, pl.DataFrame)
    expected = per_group(case.frame, case.by, long_eval(case, **EVAL))
    assert_groups_equal(got, expected, case.by, keys_as_string=True, check_dtypes=False)


# ---------------------------------------------------------------------------
# folds and targets


POOLINGS = ["pooled", "averaged", "fold"]


@FEW
@given(case=label_frames(folds=True, max_keys=2) | label_frames(folds=True, repeat=True, max_keys=2))
def test_label_folds_keep_null_groups(case: LabelCase) -> None:
    kwargs = {**EVAL, "pooling": POOLINGS}
    got = af.from_labels(case.frame, **case.roles()).evaluate(**kwargs, by=case.by)
    assert isinstance(got, pl.DataFrame)
    folds = [c for c in ("repeat", "fold") if c in case.frame.columns]
    expected = per_group(case.frame, case.by, label_eval(case, **kwargs))
    assert_groups_equal(got, expected, case.by, order=["pooling", *folds, *STAT])


@FEW
@given(case=long_frames(kinds=["dense", "sparse"], folds=True, max_keys=2))
def test_long_folds_keep_null_groups(case: LongCase) -> None:
    kwargs = {**EVAL, "pooling": POOLINGS}
    got = af.from_long(case.frame, **case.roles()).evaluate(**kwargs, by=case.by)
    assert isinstance(got, pl.DataFrame)
    expected = per_group(case.frame, case.by, long_eval(case, **kwargs))
    assert_groups_equal(got, expected, case.by, order=["pooling", "fold", *STAT])


@FEW
@given(case=label_frames(target=True, max_keys=2))
def test_targets_keep_null_groups(case: LabelCase) -> None:
    kwargs = {**EVAL, "operators": [*OPERATORS, "target"], "within": ["micro", "macro"]}
    got = af.from_labels(case.frame, **case.roles()).evaluate(**kwargs, by=case.by)
    assert isinstance(got, pl.DataFrame)
    assert_groups_equal(got, per_group(case.frame, case.by, label_eval(case, **kwargs)), case.by)


# ---------------------------------------------------------------------------
# per-class values, cells, parts and the diagnostics on grouped data


@FEW
@given(case=label_frames(max_keys=2) | long_frames(max_keys=2))
def test_per_class_cells_and_parts_keep_null_groups(case: LabelCase | LongCase) -> None:
    if isinstance(case, LabelCase):

        def build(frame: pl.DataFrame, alone: bool = False) -> af.Predictions:
            return af.from_labels(frame, **case.roles(), **(case.universe() if alone else {}))

    else:

        def build(frame: pl.DataFrame, alone: bool = False) -> af.Predictions:
            return af.from_long(frame, **(case.universe_roles() if alone else case.roles()))

    pr = build(case.frame)
    by = case.by
    calls: list[tuple[Callable[[af.Predictions, Any], pl.DataFrame], list[str]]] = [
        (lambda p, b: p.per_class(list(PROPERTY_MEASURES), by=b), ["class", "measure"]),
        (lambda p, b: p.cells("class", by=b), ["class"]),
        (lambda p, b: p.cells("pooled", by=b), []),
        (lambda p, b: p.cells("profiles", by=b), ["tp", "fp", "fn", "tn"]),
        (lambda p, b: p.parts("f1", "macro", by=b), ["class"]),
        # per example: the ids differ between the grouped and the alone evaluation (row
        # numbers), so the values are compared as a multiset per group
        (
            lambda p, b: p.parts("f1", "exemplar", by=b).drop("example", "row", strict=False),
            ["tp", "fp", "fn", "tn", "value"],
        ),
    ]
    for call, order in calls:
        got = call(pr, by)
        expected = per_group(case.frame, by, lambda sub, call=call: call(build(sub, alone=True), None))
        assert_groups_equal(got, expected, by, order=order)


@FEW
@given(case=label_frames(max_keys=2))
def test_confusion_counts_keep_null_groups(case: LabelCase) -> None:
    pr = af.from_labels(case.frame, **case.roles())
    got = pr.confusion_counts(by=case.by)
    expected = per_group(
        case.frame, case.by, lambda sub: af.from_labels(sub, **case.roles()).confusion_counts()
    )
    assert_groups_equal(got, expected, case.by, order=["true", "pred"])


@FEW
@given(case=label_frames(max_keys=2, max_m=3))
def test_diagnose_and_gap_keep_null_groups(case: LabelCase) -> None:
    pr = af.from_labels(case.frame, **case.roles())
    measures = ["precision", "recall", "mcc", "specificity"]

    def alone(sub: pl.DataFrame) -> af.Predictions:
        return af.from_labels(sub, **case.roles(), **case.universe())

    got = af.micro_macro_gap(pr, measures, by=case.by)
    expected = per_group(case.frame, case.by, lambda sub: af.micro_macro_gap(alone(sub), measures))
    assert_groups_equal(got, expected, case.by, order=["measure"])

    # findings about a measure alone (its Bayes threshold), or about the class count every group
    # shares, come once, with null keys and scope "all"; a null group's findings have scope "group"
    got = af.diagnose(pr, measures, by=case.by)
    data_free = pl.col("scope") == "all"
    assert got.filter(data_free).select(case.by).null_count().row(0) == (got.filter(data_free).height,) * len(
        case.by
    )
    assert set(got["scope"]) <= {"all", "group"}
    once = af.diagnose(alone(case.frame), measures).filter(data_free)
    assert_groups_equal(got.filter(data_free).drop(case.by), once, [], order=["code", "measure"])
    expected = per_group(
        case.frame, case.by, lambda sub: af.diagnose(alone(sub), measures).filter(~data_free)
    )
    assert_groups_equal(
        got.filter(~data_free), expected, case.by, order=["code", "measure", "operator", "message"]
    )


@FEW
@given(case=label_frames(max_keys=2, max_m=3))
def test_suite_rank_by_keeps_null_groups(case: LabelCase) -> None:
    assume(len(case.classes) >= 2)  # a rank test needs a confusion matrix of two classes or more
    pr = af.from_labels(case.frame, **case.roles())
    measures = ["precision", "recall", "f1"]
    got = af.suites.suite_ranks(pr, measures, "micro", by=case.by)
    assert isinstance(got, pl.DataFrame)
    rows = []
    for values in groups_of(case.frame, case.by):
        sub = case.frame.filter(group_filter(case.by, values))
        r = af.suites.suite_rank(af.from_labels(sub, **case.roles(), **case.universe()), measures, "micro")
        rows.append({**dict(zip(case.by, values, strict=True)), "rank": r.rank, "volume": r.volume})
    expected = pl.DataFrame(
        rows, schema={**{k: case.frame.schema[k] for k in case.by}, "rank": pl.Int64, "volume": pl.Float64}
    )
    assert_groups_equal(
        got.select(*case.by, "rank", "volume").with_columns(pl.col("rank").cast(pl.Int64)),
        expected,
        case.by,
        order=[],
        keys_as_string=True,  # the frame is built from Python rows: Categorical keys come back as String
        check_dtypes=False,
    )


# ---------------------------------------------------------------------------
# other constructors: scores and ordinal labels carry the by-columns through


@FEW
@given(case=long_frames(kinds=["dense"], max_keys=2), seed=st.integers(0, 2**16))
def test_from_scores_keeps_null_groups(case: LongCase, seed: int) -> None:
    rng = np.random.default_rng(seed)
    frame = case.frame.with_columns(pl.Series("score", rng.integers(0, 5, case.frame.height) / 4))
    kwargs = {"example": "example", "class_": "class", "score": "score", "y": "y", "classes": case.classes}
    got = af.from_scores(frame, **kwargs, decision="threshold").evaluate(**EVAL, by=case.by)
    assert isinstance(got, pl.DataFrame)

    def one(sub: pl.DataFrame) -> pl.DataFrame:
        out = af.from_scores(sub, **kwargs, decision="threshold").evaluate(**EVAL)
        assert isinstance(out, pl.DataFrame)
        return out

    assert_groups_equal(
        got, per_group(frame, case.by, alone_once(("scores", repr(kwargs)), case.by, one)), case.by
    )


@FEW
@given(case=label_frames(max_keys=2, max_m=4))
def test_from_ordinal_keeps_null_groups(case: LabelCase) -> None:
    order = list(range(max(int(max(case.classes)) + 1, 2)))  # 0 .. max, at least two classes
    got = af.from_ordinal(case.frame, order=order).evaluate(**EVAL, by=case.by)
    assert isinstance(got, pl.DataFrame)

    def one(sub: pl.DataFrame) -> pl.DataFrame:
        out = af.from_ordinal(sub, order=order).evaluate(**EVAL)
        assert isinstance(out, pl.DataFrame)
        return out

    oracle = alone_once(("ordinal", repr(order)), case.by, one)
    assert_groups_equal(got, per_group(case.frame, case.by, oracle), case.by)


def test_nan_is_nan() -> None:
    """The comparisons above count NaN as equal to NaN (undefined values must match)."""
    a = pl.DataFrame({"k": [None], "value": [math.nan]})
    assert_groups_equal(a, a.clone(), ["k"], order=[])
