"""Any column name works (issue #12, item 2), on every entry point and engine.

The method: take a canonical frame (``y_true``, ``y_pred``, ``example``, ``class``,
``y``, ``p``, ``mask``, ``fold``, ``repeat``, ``target``, by-columns ``k0``, ``k1``, and
an unused column ``junk``), rename every column to a generated hostile name (internal
names of the package, result columns, other roles' default names, blanks, quotes,
unicode, arbitrary text), evaluate with the roles and ``by`` pointing at the new names,
and compare with the canonical evaluation after renaming the by-columns back. The
result must carry the user's by-column names, in order.

Combinations without meaning are refused with :class:`aggframe.errors.OptionError` naming the
column: a by-column that is a role column, and a by-column (or a fold column, which
the result carries too) whose name is a column of that entry point's result
(``value``, ``measure``, ... ``grouping_set`` with grouping sets, ``pooling`` with
folds, ``class`` in per-class output). Elsewhere the same names must simply work.
"""

from __future__ import annotations

import ast
import re
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
    HOSTILE_NAMES,
    INTERNAL_NAMES,
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

duckdb = pytest.importorskip("duckdb")


#: property tests over every entry point with generated names, and a Spark run: minutes (CI runs them; the quick loop, -m "not slow", leaves them out)
pytestmark = pytest.mark.slow

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
FEW = settings(SETTINGS, max_examples=20)
EVAL: dict[str, Any] = {
    "measures": list(PROPERTY_MEASURES),
    "operators": list(OPERATORS),
    "convention": list(CONVENTIONS),
}
STAT = ["measure", "operator", "convention"]
EVALUATE = RESULT_NAMES["evaluate"]
JUNK = "junk"


# ---------------------------------------------------------------------------
# helpers


def draw_mapping(
    data: st.DataObject,
    columns: Sequence[str],
    *,
    allowed: Callable[[str], bool] | None = None,
    pool: Sequence[str] | None = None,
) -> dict[str, str]:
    """A hostile name for each canonical column, all distinct."""
    names = data.draw(distinct_names(len(columns), allowed=allowed, pool=pool), label="names")
    return dict(zip(columns, names, strict=True))


def names_it(name: str, message: str) -> bool:
    """The message names the column (quoted, so an empty or one-letter name still counts)."""
    return any(q in message for q in (repr(name), f"`{name}`", f'"{name}"'))


def refused(call: Callable[[], Any], names: Sequence[str]) -> None:
    """``call`` raises OptionError and its message names one of ``names``."""
    with pytest.raises(af.errors.OptionError) as info:
        call()
    assert any(names_it(n, str(info.value)) for n in names), (
        f"the OptionError does not name any of {list(names)!r}: {info.value}"
    )


def restore(got: pl.DataFrame, mapping: dict[str, str], canonical: Sequence[str]) -> pl.DataFrame:
    """The result with the user's names of ``canonical`` columns turned back into canonical names."""
    back = {mapping[c]: c for c in canonical}
    return rename_columns(got, back)


def same(
    got: pl.DataFrame,
    expected: pl.DataFrame,
    mapping: dict[str, str],
    canonical: Sequence[str],
    order: Sequence[str] = STAT,
    *,
    keys_as_string: bool = False,
) -> None:
    """The result carries the user's names in place of ``canonical``, and otherwise equals ``expected``."""
    assert got.columns == [mapping[c] if c in canonical else c for c in expected.columns]
    got = restore(got, mapping, canonical)
    keys = [c for c in canonical if c in expected.columns]
    if keys_as_string:
        got = got.with_columns(pl.col(k).cast(pl.String) for k in keys)
        expected = expected.with_columns(pl.col(k).cast(pl.String) for k in keys)
    sort = [*[pl.col(k).cast(pl.String) for k in keys], *order]
    assert_frame_equal(
        got.sort(sort, nulls_last=True, maintain_order=True),
        expected.sort(sort, nulls_last=True, maintain_order=True),
        check_dtypes=not keys_as_string,
        rel_tol=1e-9,
        abs_tol=1e-12,
    )


def clashes(names: Sequence[str], *result_sets: str) -> list[str]:
    reserved = {c for r in result_sets for c in RESULT_NAMES[r]}
    return [n for n in names if n in reserved]


def with_junk(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.lit(1).alias(JUNK))


def label_kwargs(case: LabelCase, mapping: dict[str, str]) -> dict[str, Any]:
    roles = {k: v for k, v in case.roles().items() if v is not None}
    return {k: mapping[v] for k, v in roles.items()}


_LONG_ROLES = ("example", "class_", "y", "p", "mask", "fold", "target")


def long_kwargs(case: LongCase, mapping: dict[str, str] | None = None) -> dict[str, Any]:
    kw = case.roles()
    if mapping is None:
        return kw
    return {k: (mapping[v] if k in _LONG_ROLES else v) for k, v in kw.items()}


def long_role_columns(case: LongCase) -> list[str]:
    return [v for k, v in case.roles().items() if k in _LONG_ROLES]


# ---------------------------------------------------------------------------
# from_labels: roles, by, folds, targets


@SETTINGS
@given(
    case=label_frames(nulls=False, min_keys=0, max_keys=2)
    | label_frames(nulls=False, labels="str", max_keys=2),
    data=st.data(),
)
def test_from_labels_any_names(case: LabelCase, data: st.DataObject) -> None:
    frame = with_junk(case.frame)
    mapping = draw_mapping(data, frame.columns)
    pr = af.from_labels(rename_columns(frame, mapping), **label_kwargs(case, mapping))
    by = [mapping[k] for k in case.by]
    if clash := clashes(by, "evaluate"):
        refused(lambda: pr.evaluate(**EVAL, by=by), clash)
        return
    got = pr.evaluate(**EVAL, by=by or None)
    expected = af.from_labels(frame, **case.roles()).evaluate(**EVAL, by=case.by or None)
    same(got, expected, mapping, case.by)


@FEW
@given(
    case=label_frames(nulls=False, folds=True, max_keys=2, min_keys=0)
    | label_frames(nulls=False, folds=True, repeat=True, max_keys=1, min_keys=0),
    data=st.data(),
)
def test_from_labels_folds_any_names(case: LabelCase, data: st.DataObject) -> None:
    frame = with_junk(case.frame)
    mapping = draw_mapping(data, frame.columns)
    pr = af.from_labels(rename_columns(frame, mapping), **label_kwargs(case, mapping))
    folds = [c for c in ("repeat", "fold") if c in frame.columns]
    carried = [*case.by, *folds]  # the result carries the fold columns too
    kwargs = {**EVAL, "pooling": ["pooled", "averaged", "fold"]}
    if clash := clashes([mapping[c] for c in carried], "evaluate", "folds"):
        refused(lambda: pr.evaluate(**kwargs, by=[mapping[k] for k in case.by]), clash)
        return
    got = pr.evaluate(**kwargs, by=[mapping[k] for k in case.by] or None)
    expected = af.from_labels(frame, **case.roles()).evaluate(**kwargs, by=case.by or None)
    same(got, expected, mapping, carried, order=["pooling", *STAT])


@FEW
@given(case=label_frames(nulls=False, target=True, max_keys=2, min_keys=0), data=st.data())
def test_from_labels_targets_any_names(case: LabelCase, data: st.DataObject) -> None:
    frame = with_junk(case.frame)
    mapping = draw_mapping(data, frame.columns)
    pr = af.from_labels(rename_columns(frame, mapping), **label_kwargs(case, mapping))
    by = [mapping[k] for k in case.by]
    kwargs = {**EVAL, "operators": [*OPERATORS, "target"], "within": ["micro", "macro"]}
    if clash := clashes(by, "evaluate"):
        refused(lambda: pr.evaluate(**kwargs, by=by), clash)
        return
    got = pr.evaluate(**kwargs, by=by or None)
    expected = af.from_labels(frame, **case.roles()).evaluate(**kwargs, by=case.by or None)
    same(got, expected, mapping, case.by)


# ---------------------------------------------------------------------------
# from_long: roles (a class column named tp, ...), masks, sparse universes, folds, targets


@SETTINGS
@given(case=long_frames(nulls=False, min_keys=0, max_keys=2), data=st.data())
def test_from_long_any_names(case: LongCase, data: st.DataObject) -> None:
    frame = with_junk(case.frame)
    mapping = draw_mapping(data, frame.columns)
    pr = af.from_long(rename_columns(frame, mapping), **long_kwargs(case, mapping))
    by = [mapping[k] for k in case.by]
    if clash := clashes(by, "evaluate"):
        refused(lambda: pr.evaluate(**EVAL, by=by), clash)
        return
    got = pr.evaluate(**EVAL, by=by or None)
    expected = af.from_long(frame, **long_kwargs(case)).evaluate(**EVAL, by=case.by or None)
    same(got, expected, mapping, case.by)


def _with_targets(frame: pl.DataFrame) -> pl.DataFrame:
    """The same examples in two targets (the second with its truth flipped)."""
    return pl.concat(
        [
            frame.with_columns(pl.lit("t0").alias("target")),
            frame.with_columns(pl.lit("t1").alias("target"), (1 - pl.col("y")).alias("y")),
        ]
    )


@FEW
@given(
    case=long_frames(kinds=["dense", "masked"], nulls=False, folds=True, max_keys=1, min_keys=0),
    data=st.data(),
)
def test_from_long_folds_and_targets_any_names(case: LongCase, data: st.DataObject) -> None:
    frame = with_junk(_with_targets(case.frame))
    mapping = draw_mapping(data, frame.columns)
    kwargs = {**EVAL, "operators": [*OPERATORS, "target"], "pooling": ["pooled", "fold"]}
    roles = {**long_kwargs(case, mapping), "target": mapping["target"]}
    pr = af.from_long(rename_columns(frame, mapping), **roles)
    carried = [*case.by, "fold"]
    if clash := clashes([mapping[c] for c in carried], "evaluate", "folds"):
        refused(lambda: pr.evaluate(**kwargs, by=[mapping[k] for k in case.by]), clash)
        return
    got = pr.evaluate(**kwargs, by=[mapping[k] for k in case.by] or None)
    expected = af.from_long(frame, **long_kwargs(case), target="target").evaluate(
        **kwargs, by=case.by or None
    )
    same(got, expected, mapping, carried, order=["pooling", "fold", *STAT])


# ---------------------------------------------------------------------------
# from_scores and from_ordinal


@FEW
@given(
    case=long_frames(kinds=["dense"], nulls=False, max_keys=2, min_keys=0),
    decision=st.sampled_from(["threshold", "argmax"]),
    seed=st.integers(0, 2**16),
    data=st.data(),
)
def test_from_scores_any_names(case: LongCase, decision: str, seed: int, data: st.DataObject) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 5, case.frame.height) / 4
    frame = with_junk(case.frame.drop("p").with_columns(pl.Series("score", scores)))
    mapping = draw_mapping(data, frame.columns)
    roles = {"example": "example", "class_": "class", "score": "score", "y": "y"}
    pr = af.from_scores(
        rename_columns(frame, mapping), **{k: mapping[v] for k, v in roles.items()}, decision=decision
    )
    by = [mapping[k] for k in case.by]
    if clash := clashes(by, "evaluate"):
        refused(lambda: pr.evaluate(**EVAL, by=by), clash)
        return
    got = pr.evaluate(**EVAL, by=by or None)
    expected = af.from_scores(frame, **roles, decision=decision).evaluate(**EVAL, by=case.by or None)
    same(got, expected, mapping, case.by)


@FEW
@given(case=label_frames(nulls=False, max_keys=2, min_keys=0, example=None), data=st.data())
def test_from_ordinal_any_names(case: LabelCase, data: st.DataObject) -> None:
    frame = with_junk(case.frame)
    order = list(range(max(2, max(case.classes) + 1)))
    mapping = draw_mapping(data, frame.columns)
    pr = af.from_ordinal(rename_columns(frame, mapping), **label_kwargs(case, mapping), order=order)
    by = [mapping[k] for k in case.by]
    if clash := clashes(by, "evaluate"):
        refused(lambda: pr.evaluate(**EVAL, by=by), clash)
        return
    got = pr.evaluate(**EVAL, by=by or None)
    canonical = label_kwargs(case, {c: c for c in frame.columns})
    expected = af.from_ordinal(frame, **canonical, order=order).evaluate(**EVAL, by=case.by or None)
    same(got, expected, mapping, case.by)


# ---------------------------------------------------------------------------
# cell stores, compare, grouping sets


@FEW
@given(
    case=label_frames(nulls=False, max_keys=2, min_keys=0) | long_frames(nulls=False, max_keys=2, min_keys=0),
    data=st.data(),
)
def test_cell_store_any_names(case: LabelCase | LongCase, data: st.DataObject) -> None:
    frame = with_junk(case.frame)
    mapping = draw_mapping(data, frame.columns)
    renamed = rename_columns(frame, mapping)
    if isinstance(case, LabelCase):
        pr, canonical = (
            af.from_labels(renamed, **label_kwargs(case, mapping)),
            af.from_labels(frame, **case.roles()),
        )
    else:
        pr, canonical = (
            af.from_long(renamed, **long_kwargs(case, mapping)),
            af.from_long(frame, **long_kwargs(case)),
        )
    by = [mapping[k] for k in case.by]
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"

        def run() -> pl.DataFrame:
            pr.write_cells(store, by=by)
            out = af.from_cells(store).evaluate(**EVAL, by=by or None)
            assert isinstance(out, pl.DataFrame)
            return out

        if clash := clashes(by, "evaluate"):
            refused(run, clash)
            return
        got = run()
    expected = canonical.evaluate(**EVAL, by=case.by or None)
    same(got, expected, mapping, case.by)


@FEW
@given(case=label_frames(nulls=False, max_keys=2), data=st.data())
def test_compare_any_names(case: LabelCase, data: st.DataObject) -> None:
    frame = with_junk(case.frame)
    mapping = draw_mapping(data, frame.columns)
    pr = af.from_labels(rename_columns(frame, mapping), **label_kwargs(case, mapping))
    by = [mapping[k] for k in case.by]
    if clash := clashes(by, "compare"):
        refused(lambda: pr.compare(**EVAL, by=by), clash)
        return
    got = pr.compare(**EVAL, by=by)
    expected = af.from_labels(frame, **case.roles()).compare(**EVAL, by=case.by)
    same(got, expected, mapping, case.by)


@FEW
@given(
    case=label_frames(nulls=False, min_keys=1, max_keys=2),
    spec=st.sampled_from(["rollup", "cube"]),
    data=st.data(),
)
def test_grouping_sets_any_names(case: LabelCase, spec: str, data: st.DataObject) -> None:
    frame = with_junk(case.frame)
    mapping = draw_mapping(data, frame.columns)
    pr = af.from_labels(rename_columns(frame, mapping), **label_kwargs(case, mapping))
    by = [mapping[k] for k in case.by]
    if clash := clashes(by, "evaluate", "grouping_sets"):
        refused(lambda: pr.evaluate(**EVAL, by=by, grouping_sets=spec), clash)
        return
    got = pr.evaluate(**EVAL, by=by, grouping_sets=spec)
    expected = af.from_labels(frame, **case.roles()).evaluate(**EVAL, by=case.by, grouping_sets=spec)
    assert isinstance(got, pl.DataFrame)
    assert isinstance(expected, pl.DataFrame)
    # grouping_set tells the grouping sets apart, whatever the names: without null keys in
    # the data a row's kept columns are its non-null keys, and each grouping set must have
    # one grouping_set value of its own (a comma-joined string cannot hold a name "a,b")
    # (Python values, not pl.col: a name may be "*" or "^x$"; Polars' Series methods select
    # their column by name too, so `Series.is_not_null` on a column named "^x$" finds none)
    flags = zip(*[[v is not None for v in got.get_column(b).to_list()] for b in by], strict=True)
    # grouping_id (SQL's GROUPING_ID) tells them apart whatever the names; the grouping_set
    # label is a readable join of the names (ambiguous only for names holding commas)
    values = got.get_column("grouping_id").to_list()
    value_of: dict[tuple[bool, ...], set[Any]] = {}
    for flag, value in zip(flags, values, strict=True):
        value_of.setdefault(tuple(flag), set()).add(value)
    assert all(len(v) == 1 for v in value_of.values()), f"one grouping set, several values: {value_of!r}"
    assert len({next(iter(v)) for v in value_of.values()}) == len(value_of), (
        f"grouping_set values do not tell the grouping sets of by={by!r} apart: {value_of!r}"
    )
    for flag, value in value_of.items():
        names = [b for b, kept in zip(by, flag, strict=True) if kept]
        rolled = sum(1 << (len(by) - 1 - i) for i, kept in enumerate(flag) if not kept)
        assert next(iter(value)) == rolled, (names, value)
    same(
        got.drop("grouping_set", "grouping_id"),
        expected.drop("grouping_set", "grouping_id"),
        mapping,
        case.by,
    )


def _subsets(by: list[str]) -> list[list[str]]:
    from itertools import combinations

    return [list(c) for r in range(len(by) + 1) for c in combinations(by, r)]


# ---------------------------------------------------------------------------
# per-class values, parts, cells, confusion counts


@pytest.mark.parametrize("name", ["tp", "fp", "fn", "tn", "value", "defined"])
@pytest.mark.parametrize("form", ["long", "labels"])
def test_parts_refuse_an_example_column_named_like_a_value_column(name: str, form: str) -> None:
    """The per-example parts carry the example column under its user's name: one named like a
    value column is refused by name (found by the property test below: a raw DuplicateError)."""
    if form == "long":
        frame = pl.DataFrame(
            {name: [0, 0, 1, 1], "class": [0, 1, 0, 1], "y": [1, 0, 1, 0], "p": [1, 1, 0, 0]}
        )
        pr = af.from_long(frame, example=name, class_="class", y="y", p="p")
    else:
        frame = pl.DataFrame({name: [0, 1, 2], "y_true": [0, 1, 1], "y_pred": [0, 1, 0]})
        pr = af.from_labels(frame, y_true="y_true", y_pred="y_pred", example=name)
    refused(lambda: pr.parts("f1", "exemplar"), [name])
    ok = frame.rename({name: "id"})
    good = (
        af.from_long(ok, example="id", class_="class", y="y", p="p")
        if form == "long"
        else af.from_labels(ok, y_true="y_true", y_pred="y_pred", example="id")
    )
    assert good.parts("f1", "exemplar")["id"].sort().to_list() == sorted(ok["id"].unique().to_list())


@FEW
@given(
    case=long_frames(kinds=["dense", "sparse", "masked"], nulls=False, max_keys=2, min_keys=0), data=st.data()
)
def test_per_class_and_parts_any_names(case: LongCase, data: st.DataObject) -> None:
    """A class column named tp, fp, class, ...: the per-class output has its own ``class`` column."""
    frame = with_junk(case.frame)
    mapping = draw_mapping(data, frame.columns)
    pr = af.from_long(rename_columns(frame, mapping), **long_kwargs(case, mapping))
    canonical = af.from_long(frame, **long_kwargs(case))
    by = [mapping[k] for k in case.by]
    calls: list[tuple[Callable[[af.Predictions, Any], pl.DataFrame], list[str], list[str], list[str]]] = [
        (
            lambda p, b: p.per_class(list(PROPERTY_MEASURES), by=b),
            ["per_class"],
            ["class", "measure"],
            case.by,
        ),
        (lambda p, b: p.parts("f1", "macro", by=b), ["parts_class"], ["class"], case.by),
        # per-example values carry the example column, under the user's name
        (lambda p, b: p.parts("f1", "exemplar", by=b), ["parts_example"], ["example"], [*case.by, "example"]),
    ]
    for call, results, order, carried in calls:
        if clash := clashes([mapping[c] for c in carried], *results):
            refused(lambda call=call: call(pr, by or None), clash)
            continue
        same(call(pr, by or None), call(canonical, case.by or None), mapping, carried, order=order)


@FEW
@given(case=label_frames(nulls=False, max_keys=2, min_keys=0), data=st.data())
def test_cells_and_confusion_counts_any_names(case: LabelCase, data: st.DataObject) -> None:
    frame = with_junk(case.frame)
    mapping = draw_mapping(data, frame.columns)
    pr = af.from_labels(rename_columns(frame, mapping), **label_kwargs(case, mapping))
    canonical = af.from_labels(frame, **case.roles())
    by = [mapping[k] for k in case.by]
    calls: list[tuple[Callable[[af.Predictions, Any], pl.DataFrame], str, list[str]]] = [
        (lambda p, b: p.cells("class", by=b), "cells_class", ["class"]),
        (lambda p, b: p.cells("pooled", by=b), "cells_pooled", []),
        (lambda p, b: p.cells("profiles", by=b), "cells_profiles", ["tp", "fp", "fn", "tn"]),
        (lambda p, b: p.confusion_counts(by=b), "confusion_counts", ["true", "pred"]),
    ]
    for call, result, order in calls:
        if clash := clashes(by, result):
            refused(lambda call=call: call(pr, by or None), clash)
            continue
        same(call(pr, by or None), call(canonical, case.by or None), mapping, case.by, order=order)


# ---------------------------------------------------------------------------
# diagnostics, gap, suites


@FEW
@given(case=label_frames(nulls=False, max_keys=2, min_keys=1, max_m=3), data=st.data())
def test_diagnose_gap_and_suite_rank_any_names(case: LabelCase, data: st.DataObject) -> None:
    assume(len(case.classes) >= 2)
    frame = with_junk(case.frame)
    mapping = draw_mapping(data, frame.columns)
    pr = af.from_labels(rename_columns(frame, mapping), **label_kwargs(case, mapping))
    canonical = af.from_labels(frame, **case.roles())
    by = [mapping[k] for k in case.by]
    measures = ["precision", "recall", "mcc", "specificity"]
    calls: list[tuple[Callable[[Any, Any], pl.DataFrame], str, list[str]]] = [
        (lambda p, b: af.diagnose(p, measures, by=b), "diagnose", ["code", "measure", "operator", "message"]),
        (lambda p, b: af.micro_macro_gap(p, measures, by=b), "micro_macro_gap", ["measure"]),
        (
            lambda p, b: af.suites.suite_ranks(p, ["precision", "recall", "f1"], "micro", by=b),
            "suite_rank",
            [],
        ),
    ]
    for call, result, order in calls:
        if clash := clashes(by, result):
            refused(lambda call=call: call(pr, by), clash)
            continue
        got, expected = call(pr, by), call(canonical, case.by)
        if result == "suite_rank":  # list columns: compare what sorts
            got, expected = got.drop("items", "flat"), expected.drop("items", "flat")
        same(got, expected, mapping, case.by, order=order, keys_as_string=result == "suite_rank")


# ---------------------------------------------------------------------------
# the CLI


def _cli_by_name(name: str) -> bool:
    # --by is a comma-separated list whose items are stripped: a name with a comma or
    # surrounding blanks cannot be written there (a limit of the flag, not of the library)
    return bool(name) and "," not in name and name == name.strip()


@FEW
@given(case=label_frames(nulls=False, max_keys=2, min_keys=0, example=None), data=st.data())
def test_cli_any_names(case: LabelCase, data: st.DataObject) -> None:
    frame = with_junk(case.frame)
    # the test reads the CSV back with Polars, whose reader turns a quoted header '""""' into ''
    # (the CLI writes it right): names with a double quote are left to the Parquet paths
    mapping = draw_mapping(
        data, frame.columns, allowed=lambda s: "\r" not in s and "\n" not in s and '"' not in s
    )
    by = [mapping[k] for k in case.by]
    assume(all(_cli_by_name(b) for b in by))
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "in.parquet", Path(tmp) / "out.csv"
        rename_columns(frame, mapping).write_parquet(path)
        args = [
            "report",
            str(path),
            f"--y-true={mapping['y_true']}",
            f"--y-pred={mapping['y_pred']}",
            f"--measures={','.join(PROPERTY_MEASURES)}",
            f"--operators={','.join(OPERATORS)}",
            f"--convention={','.join(CONVENTIONS)}",
            "--format=csv",
            f"-o{out}",
        ]
        if case.example:
            args.append(f"--example={mapping['example']}")
        if by:
            args.append(f"--by={','.join(by)}")
        code = cli_main(args)
        if clashes(by, "evaluate"):
            assert code == 2
            return
        assert code == 0
        got = pl.read_csv(out, schema_overrides={b: pl.String for b in by})
    expected = af.from_labels(frame, **case.roles()).evaluate(**EVAL, by=case.by or None)
    assert isinstance(expected, pl.DataFrame)
    same(got, expected, mapping, case.by, keys_as_string=True)


def test_cli_refuses_by_a_role_column(capsys: pytest.CaptureFixture[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.parquet"
        pl.DataFrame({"m": ["a", "b"], "y_true": [0, 1], "y_pred": [0, 0]}).write_parquet(path)
        assert cli_main(["report", str(path), "--by=y_true", "--measures=f1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) >= 1
    assert "'y_true'" in err[-1]
    assert "Traceback" not in "\n".join(err)


# ---------------------------------------------------------------------------
# DuckDB and Spark


def _duckdb_name(name: str) -> bool:
    # DuckDB has no empty column name (Arrow's "" arrives as "v0")
    return name != ""


def _case_distinct(names: Sequence[str]) -> bool:
    # DuckDB and Spark resolve names case-insensitively: "NULL" and "null" are one column there
    return len({n.lower() for n in names}) == len(names)


@FEW
@given(
    case=label_frames(nulls=False, max_keys=2, min_keys=0) | long_frames(nulls=False, max_keys=2, min_keys=0),
    data=st.data(),
)
def test_duckdb_any_names(case: LabelCase | LongCase, data: st.DataObject) -> None:
    frame = with_junk(case.frame)
    mapping = draw_mapping(data, frame.columns, allowed=_duckdb_name)
    assume(_case_distinct(list(mapping.values())))
    renamed = rename_columns(frame, mapping)
    con = duckdb.connect()
    try:
        rel = con.from_arrow(renamed.to_arrow())
        if isinstance(case, LabelCase):
            pr, canonical = (
                af.from_labels(rel, **label_kwargs(case, mapping)),
                af.from_labels(frame, **case.roles()),
            )
        else:
            pr = af.from_long(rel, **long_kwargs(case, mapping))
            canonical = af.from_long(frame, **long_kwargs(case))
        by = [mapping[k] for k in case.by]
        if clash := clashes(by, "evaluate"):
            refused(lambda: pr.evaluate(**EVAL, by=by), clash)
            return
        got = pr.evaluate(**EVAL, by=by or None)
    finally:
        con.close()
    expected = canonical.evaluate(**EVAL, by=case.by or None)
    same(got, expected, mapping, case.by, keys_as_string=True)


SPARK_NAMES = {
    "y_true": "y_pred",
    "y_pred": "n",
    "example": "tp",
    "k0": "_s",
    "k1": "a b",
    JUNK: "__aggframe_all__",
}


def test_spark_hostile_names(request: pytest.FixtureRequest) -> None:
    """One Spark case (the fixtures are tests/engines/test_spark.py's: loopback only, skipped without Java)."""
    session = request.getfixturevalue("spark")
    frame = pl.DataFrame(
        {
            "k0": ["a", "a", "b", "b", "b"],
            "k1": [1, 2, 1, 1, 2],
            "y_true": [0, 1, 2, 1, 0],
            "y_pred": [0, 2, 2, 1, 1],
            "example": [0, 1, 2, 3, 4],
            JUNK: [1] * 5,
        }
    )
    renamed = rename_columns(frame, SPARK_NAMES)
    roles = {"y_true": "y_true", "y_pred": "y_pred", "example": "example"}
    pr = af.from_labels(
        session.createDataFrame(renamed.to_arrow()), **{k: SPARK_NAMES[v] for k, v in roles.items()}
    )
    got = pr.evaluate(**EVAL, by=["_s", "a b"])
    expected = af.from_labels(frame, **roles).evaluate(**EVAL, by=["k0", "k1"])
    same(got, expected, SPARK_NAMES, ["k0", "k1"], keys_as_string=True)


def test_duckdb_columns_that_differ_only_in_case() -> None:
    """DuckDB matches even a quoted name case-insensitively: with columns "Y_true" and "y_true"
    (or "K" and "k") the role y_true read "Y_true" and by="k" grouped by "K", silently (other
    numbers, other group keys). Each column is read by position now, as on Polars."""
    duckdb = pytest.importorskip("duckdb")
    frame = pl.DataFrame(
        {
            "Y_true": [0, 1, 0, 2, 2],
            "y_true": [1, 1, 2, 2, 0],
            "y_pred": [1, 1, 2, 0, 0],
            "K": ["a", None, "a", "b", "b"],
            "k": [None, 1, 1, 1, None],
        }
    )
    con = duckdb.connect()
    # the twins made by a select list (DuckDB keeps both names there); the source's own names differ
    con.register("source", frame.rename({"y_true": "a", "k": "b"}).to_arrow())
    relation = con.sql('select "Y_true", a as "y_true", y_pred, "K", b as "k" from source')
    assert relation.columns == frame.columns
    for roles, by in (({}, "k"), ({"y_true": "Y_true"}, "K"), ({}, ["K", "k"])):
        got = af.from_labels(relation, **roles).evaluate(**EVAL, by=by)
        want = af.from_labels(frame, **roles).evaluate(**EVAL, by=by)
        keys = [by] if isinstance(by, str) else by
        assert_frame_equal(
            got.sort(*keys, "measure", "operator", "convention", nulls_last=True),
            want.sort(*keys, "measure", "operator", "convention", nulls_last=True),
            check_dtypes=False,
        )


def test_spark_columns_that_differ_only_in_case(request: pytest.FixtureRequest) -> None:
    """Spark reads names case-insensitively by default: a role or by-column next to a column that
    differs only in case was "SourceError: could not read the frame: [AMBIGUOUS_REFERENCE]". An
    InvalidValueError naming both; a twin that is not read is no matter, and with
    spark.sql.caseSensitive=true both are read as Polars reads them."""
    session = request.getfixturevalue("spark")
    frame = pl.DataFrame(
        {
            "K": ["a", None, "b", "b", None],
            "k": [1, 2, None, 1, 2],
            "Y_TRUE": [1, 1, 1, 0, 0],
            "y_true": [0, 1, 2, 1, 0],
            "y_pred": [0, 2, 2, 1, 1],
        }
    )
    spark_frame = session.createDataFrame(frame.to_arrow())
    for call in (
        lambda: af.from_labels(spark_frame, y_true="y_true").evaluate("f1", "macro"),
        lambda: af.from_labels(spark_frame, y_true="Y_TRUE").evaluate("f1", "macro"),
        lambda: af.from_labels(session.createDataFrame(frame.drop("Y_TRUE").to_arrow())).evaluate(
            "f1", "macro", by="k"
        ),
    ):
        with pytest.raises(af.errors.InvalidValueError, match="reads as one name") as info:
            call()
        assert "spark.sql.caseSensitive" in str(info.value)
    unread = frame.drop("Y_TRUE", "k").with_columns(Z=pl.lit(1), z=pl.lit(2))  # twins no role reads
    got = af.from_labels(session.createDataFrame(unread.to_arrow())).evaluate("f1", "macro", by="K")
    want = af.from_labels(unread).evaluate("f1", "macro", by="K")
    assert_frame_equal(got.sort("K", nulls_last=True), want.sort("K", nulls_last=True))
    session.conf.set("spark.sql.caseSensitive", "true")
    try:
        got = af.from_labels(spark_frame, y_true="Y_TRUE").evaluate("f1", "macro", by=["K", "k"])
    finally:
        session.conf.set("spark.sql.caseSensitive", "false")
    want = af.from_labels(frame, y_true="Y_TRUE").evaluate("f1", "macro", by=["K", "k"])
    assert_frame_equal(
        got.sort("K", "k", nulls_last=True), want.sort("K", "k", nulls_last=True), check_dtypes=False
    )


# ---------------------------------------------------------------------------
# the names of issue #12, one by one (a readable worklist next to the properties)

ISSUE_NAMES = ["n", "_n", "_s", "sv_w", "_sw", "null_y", "rows", "_syp", "", "y_pred", "y_true"]
LABELS = pl.DataFrame(
    {
        "k0": ["a", "a", "b", "b", "b", "a"],
        "y_true": [0, 1, 2, 1, 0, 2],
        "y_pred": [0, 2, 2, 1, 1, 2],
        "fold": [0, 1, 0, 1, 0, 1],
        "example": [0, 1, 2, 3, 4, 5],
    }
)


def _moved(columns: Sequence[str], renamed: str, name: str) -> dict[str, str]:
    """``renamed`` -> ``name``; a column that already had that name moves out of the way."""
    mapping = {c: c for c in columns}
    mapping[renamed] = name
    for other in columns:
        if other != renamed and mapping[other] == name:
            mapping[other] = f"{other}_moved"
    return mapping


def _label_case(frame: pl.DataFrame, role: str, name: str) -> tuple[pl.DataFrame, dict[str, Any], list[str]]:
    mapping = _moved(frame.columns, "k0" if role == "by" else role, name)
    roles = {r: mapping[r] for r in ("y_true", "y_pred", "fold")}
    return rename_columns(frame, mapping), roles, [mapping["k0"]]


@pytest.mark.parametrize("name", ISSUE_NAMES)
@pytest.mark.parametrize("role", ["y_true", "y_pred", "fold", "by"])
def test_issue_names_label_form(role: str, name: str) -> None:
    renamed, roles, by = _label_case(LABELS, role, name)
    kwargs = {**EVAL, "pooling": ["pooled", "fold"]}
    got = af.from_labels(renamed, **roles).evaluate(**kwargs, by=by)
    expected = af.from_labels(LABELS, fold="fold").evaluate(**kwargs, by="k0")
    assert isinstance(got, pl.DataFrame)
    assert isinstance(expected, pl.DataFrame)
    fold_name = roles["fold"]
    got = rename_columns(got, {by[0]: "k0", fold_name: "fold"})
    assert_frame_equal(got, expected, rel_tol=1e-9, abs_tol=1e-12)


def test_issue_names_target_role() -> None:
    frame = pl.concat([LABELS.drop("fold").with_columns(pl.lit(t).alias("target")) for t in ("t0", "t1")])
    for name in ISSUE_NAMES:
        if name in ("y_true", "y_pred"):
            continue
        renamed = frame.rename({"target": name})
        kwargs = {**EVAL, "operators": ["micro", "macro", "target"]}
        got = af.from_labels(renamed, example="example", target=name).evaluate(**kwargs, by="k0")
        expected = af.from_labels(frame, example="example", target="target").evaluate(**kwargs, by="k0")
        assert_frame_equal(got, expected, rel_tol=1e-9, abs_tol=1e-12)


LONG = pl.DataFrame(
    {
        "k0": [1, 1, 1, 1, 2, 2, 2, 2],
        "example": [0, 0, 1, 1, 2, 2, 3, 3],
        "class": ["a", "b"] * 4,
        "y": [1, 0, 0, 1, 1, 0, 1, 0],
        "p": [1, 1, 0, 1, 0, 0, 1, 0],
        "mask": [1, 1, 1, 0, 1, 1, 1, 1],
    }
)


@pytest.mark.parametrize("name", ["tp", "fp", "fn", "tn", "class", "n", "rows", "_syp", "_sw", "null_y", ""])
@pytest.mark.parametrize("role", ["class", "example", "y", "p", "mask"])
def test_issue_names_long_form(role: str, name: str) -> None:
    mapping = _moved(LONG.columns, role, name)
    renamed = rename_columns(LONG, mapping)
    kw = {"example": mapping["example"], "class_": mapping["class"], "y": mapping["y"], "p": mapping["p"]}
    got = af.from_long(renamed, **kw, mask=mapping["mask"]).evaluate(**EVAL, by=mapping["k0"])
    expected = af.from_long(LONG, mask="mask").evaluate(**EVAL, by="k0")
    assert isinstance(got, pl.DataFrame)
    assert_frame_equal(got.rename({mapping["k0"]: "k0"}), expected, rel_tol=1e-9, abs_tol=1e-12)
    got = af.from_long(renamed, **kw, mask=mapping["mask"]).per_class(
        list(PROPERTY_MEASURES), by=mapping["k0"]
    )
    expected = af.from_long(LONG, mask="mask").per_class(list(PROPERTY_MEASURES), by="k0")
    assert_frame_equal(got.rename({mapping["k0"]: "k0"}), expected, rel_tol=1e-9, abs_tol=1e-12)


# ---------------------------------------------------------------------------
# refusals: by = a role column; a by-column named like a result column


LABEL_ROLES = ["y_true", "y_pred", "example", "fold", "repeat", "target"]


@pytest.mark.parametrize("role", LABEL_ROLES)
def test_by_a_label_role_column_is_refused(role: str) -> None:
    frame = LABELS.with_columns(pl.lit(0).alias("repeat"), pl.lit("t0").alias("target"))
    roles: dict[str, Any] = {"example": "example"}
    if role in ("fold", "repeat"):
        roles.update(fold="fold", repeat="repeat")
    if role == "target":
        roles["target"] = "target"
    pr = af.from_labels(frame, **roles)
    refused(lambda: pr.evaluate("f1", "macro", by=role), [role])
    refused(lambda: pr.evaluate("f1", "macro", by=["k0", role]), [role])


LONG_ROLES = {"example": "example", "class": "class_", "y": "y", "p": "p", "mask": "mask"}


@pytest.mark.parametrize("column", [*LONG_ROLES, "fold", "target"])
def test_by_a_long_role_column_is_refused(column: str) -> None:
    frame = LONG.with_columns(pl.lit(0).alias("fold"), pl.lit("t0").alias("target"))
    extra = {"fold": "fold"} if column == "fold" else {"target": "target"} if column == "target" else {}
    pr = af.from_long(frame, mask="mask", **extra)
    refused(lambda: pr.evaluate("f1", "macro", by=column), [column])


@pytest.mark.parametrize("column", ["example", "class", "score", "y"])
def test_by_a_scores_role_column_is_refused(column: str) -> None:
    frame = LONG.drop("p", "mask").with_columns((pl.col("y") * 0.5 + 0.25).alias("score"))
    pr = af.from_scores(frame, decision="argmax")
    refused(lambda: pr.evaluate("f1", "macro", by=column), [column])


@pytest.mark.parametrize("column", ["y_true", "y_pred", "example"])
def test_by_an_ordinal_role_column_is_refused(column: str) -> None:
    pr = af.from_ordinal(LABELS, example="example", order=[0, 1, 2])
    refused(lambda: pr.evaluate("f1", "macro", by=column), [column])


@pytest.mark.parametrize("name", RESULT_NAMES["evaluate"])
def test_by_named_like_a_result_column_is_refused(name: str) -> None:
    """For now an OptionError; a fix that makes these work correctly would change this test."""
    pr = af.from_labels(LABELS.rename({"k0": name}))
    refused(lambda: pr.evaluate("f1", "macro", by=name), [name])


def test_by_grouping_set_is_refused_with_grouping_sets_and_works_without() -> None:
    frame = LABELS.rename({"k0": "grouping_set"})
    pr = af.from_labels(frame)
    refused(lambda: pr.evaluate("f1", "macro", by="grouping_set", grouping_sets="rollup"), ["grouping_set"])
    got = pr.evaluate("f1", "macro", by="grouping_set")
    expected = af.from_labels(LABELS).evaluate("f1", "macro", by="k0")
    assert_frame_equal(got.rename({"grouping_set": "k0"}), expected)


def test_by_pooling_is_refused_with_folds_and_works_without() -> None:
    frame = LABELS.rename({"k0": "pooling"})
    refused(lambda: af.from_labels(frame, fold="fold").evaluate("f1", "macro", by="pooling"), ["pooling"])
    got = af.from_labels(frame).evaluate("f1", "macro", by="pooling")
    expected = af.from_labels(LABELS).evaluate("f1", "macro", by="k0")
    assert_frame_equal(got.rename({"pooling": "k0"}), expected)


@pytest.mark.parametrize("name", ["class", "tp", "fp", "fn", "tn", "support", "defined"])
def test_by_class_and_cells_work_in_evaluate_and_are_refused_in_per_class(name: str) -> None:
    """``class`` and the cells are columns of per_class's output, not of evaluate's."""
    frame = LABELS.rename({"k0": name})
    pr = af.from_labels(frame)
    got = pr.evaluate(list(PROPERTY_MEASURES), list(OPERATORS), by=name)
    expected = af.from_labels(LABELS).evaluate(list(PROPERTY_MEASURES), list(OPERATORS), by="k0")
    assert_frame_equal(got.rename({name: "k0"}), expected)
    refused(lambda: pr.per_class("f1", by=name), [name])


def test_fold_named_like_a_result_column_is_refused() -> None:
    """The result carries the fold column, so a fold named ``value`` has no meaning there."""
    frame = LABELS.rename({"fold": "value"})
    pr = af.from_labels(frame, fold="value")
    refused(lambda: pr.evaluate("f1", "macro", pooling=["pooled", "fold"]), ["value"])


def test_by_repeated_is_refused() -> None:
    pr = af.from_labels(LABELS)
    with pytest.raises(af.errors.OptionError):
        pr.evaluate("f1", "macro", by=["k0", "k0"])


# ---------------------------------------------------------------------------
# the list of internal names stays complete


_COLUMN_CALLS = {"alias", "col", "with_row_index", "rename", "exclude", "free_name"}


def _constants(node: ast.AST) -> list[str]:
    """String constants under ``node``, f-strings left out (their parts are fragments)."""
    if isinstance(node, ast.JoinedStr):
        return []
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else []
    return [c for child in ast.iter_child_nodes(node) for c in _constants(child)]


def _private_column_names() -> set[str]:
    """Private names (``_x``, ``__aggframe_x__``) the package passes to column-naming calls or
    assigns to UPPERCASE module constants."""
    found: set[str] = set()
    for path in sorted(Path(af.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            values: list[ast.AST] = []
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if name in _COLUMN_CALLS:
                    values = list(node.args)
            elif isinstance(node, ast.Assign) and all(
                isinstance(t, ast.Name) and t.id.lstrip("_").isupper() for t in node.targets
            ):
                values = [node.value]
            found.update(c for v in values for c in _constants(v) if re.fullmatch(r"_\w+", c))
    return found


def test_internal_names_list_covers_the_package() -> None:
    """tests/strategies.py INTERNAL_NAMES must hold every private column name of the package.

    When this fails, add the names it lists to INTERNAL_NAMES (they are what hostile
    names are drawn from)."""
    missing = sorted(_private_column_names() - set(INTERNAL_NAMES))
    assert missing == [], f"add to tests/strategies.py INTERNAL_NAMES: {missing}"


def test_hostile_names_hold_the_issue_names() -> None:
    for name in [*ISSUE_NAMES, "tp", "fp", "fn", "tn", "value", "class", "grouping_set", " ", "名前"]:
        assert name in HOSTILE_NAMES
