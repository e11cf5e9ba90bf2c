"""Absent classes in closed form give exactly the numbers of the universe filled out (issue #19).

A class of a group's universe that does not occur in the group has the cells
``(0, 0, 0, N)``; aggframe never writes those (group, class) pairs out, it counts
them per group and enters ``M(0, 0, 0, N)`` with that multiplicity. Every test
here compares with a reference written from scratch in NumPy that *does* fill the
universe: per group, per class of the universe, the four cells counted from the
rows, per example its cells, then the operator and the convention applied in
plain Python. Random data with absent classes (a declared universe larger than
what each group sees), null keys, hostile key names, every convention, every
operator, custom registered measures, grouping sets, folds, targets, class
subsets, the binary operator and cell stores read together.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe._columns import KEY_ALL
from aggframe.intake.stored import read_store
from aggframe.operators.reduce import reduce_wide, tidy
from aggframe.tables.cells import filled_classes
from tests.strategies import MEASURES, RESULT_NAMES, distinct_names, group_filter, key_columns, long_frames

OPERATORS = ["micro", "macro", "weighted", "exemplar"]
CONVENTIONS = ["exclude", "zero", "one", "nan"]
#: custom measures: one defined where a class is absent (it reads tn), one undefined there
CUSTOM = {
    "cf_label_agreement": lambda tp, fp, fn, tn: (tp + tn) / (tp + fp + fn + tn),
    "cf_tn_lift": lambda tp, fp, fn, tn: (tn - fp) / (tn + fn) - tp / (tp + fp),
}
ALL_MEASURES = [*MEASURES, *CUSTOM]
FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module", autouse=True)
def _custom_measures() -> Any:
    for name, formula in CUSTOM.items():
        af.register_measure(name, formula, overwrite=True)
    yield
    for name in CUSTOM:
        af.unregister_measure(name)


# ---------------------------------------------------------------------------
# The reference: the universe filled out, in NumPy


def average(values: Sequence[float], weights: Sequence[float], convention: str) -> float:
    """A mean of entries under a convention; zero total weight falls back to the uniform mean."""
    v = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float)
    defined = ~np.isnan(v)
    if convention == "nan" and not defined.all():
        return math.nan
    if convention in ("zero", "one"):
        v = np.where(defined, v, 0.0 if convention == "zero" else 1.0)
        counted = np.ones(len(v), dtype=bool)
    else:
        counted = defined
    if w[counted].sum() > 0:
        return float((v[counted] * w[counted]).sum() / w[counted].sum())
    if counted.sum() > 0:
        return float(v[counted].mean())
    return math.nan


Profiles = list[tuple[tuple[float, float, float, float], float]]


def reference(
    cells: np.ndarray, profiles: Profiles, measure: str, operator: str, convention: str
) -> tuple[float, int, int]:
    """(value, n_entries, n_undefined) of one group from its filled per-class cells and its profiles."""
    m = af.get_measure(measure)
    if operator in ("micro", "binary"):
        v = float(m(*cells.sum(axis=0)))
        return average([v], [1.0], convention), 1, int(math.isnan(v))
    if operator in ("macro", "weighted"):
        values = np.atleast_1d(m(*cells.T)).astype(float)
        weights = np.ones(len(values)) if operator == "macro" else cells[:, 0] + cells[:, 2]
        return average(values, weights, convention), len(values), int(np.isnan(values).sum())
    values = np.array([float(m(*c)) for c, _ in profiles])
    counts = np.array([n for _, n in profiles], dtype=float)
    undefined = int(counts[np.isnan(values)].sum()) if len(values) else 0
    return average(values, counts, convention), int(counts.sum()), undefined


def label_cells(yt: np.ndarray, yp: np.ndarray, universe: Sequence[Any]) -> np.ndarray:
    """Every class of the universe: (tp, fp, fn, tn) counted from the rows."""
    n = len(yt)
    out = []
    for c in universe:
        tp = float(np.sum((yt == c) & (yp == c)))
        t, p = float(np.sum(yt == c)), float(np.sum(yp == c))
        out.append((tp, p - tp, t - tp, n - t - p + tp))
    return np.array(out, dtype=float).reshape(-1, 4)


def label_example_cells(yt: np.ndarray, yp: np.ndarray, universe: Sequence[Any]) -> np.ndarray:
    """Each example's cells summed over the classes of the universe (one-hot over m classes)."""
    m = len(universe)
    right = (yt == yp).astype(float)
    return np.column_stack([right, 1 - right, 1 - right, m - 2 + right])


def profiles_of(example_cells: np.ndarray) -> Profiles:
    found: dict[tuple[float, ...], float] = {}
    for row in example_cells:
        key = tuple(float(x) for x in row)
        found[key] = found.get(key, 0.0) + 1.0
    return [(k, n) for k, n in found.items()]  # type: ignore[misc]


def same(got: float, expected: float) -> bool:
    if math.isnan(expected) or math.isnan(got):
        return math.isnan(expected) and math.isnan(got)
    return math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)


def check_group(
    got: pl.DataFrame,
    expected: Callable[[str, str, str], tuple[float, int, int]],
    measures: Sequence[str],
    operators: Sequence[str],
    conventions: Sequence[str],
    *,
    where: str,
) -> None:
    """The rows of one group (in report order) against the reference, slot by slot."""
    rows = got.select("measure", "operator", "convention", "value", "n_entries", "n_undefined").rows()
    slots = [(m, o, c) for m in measures for o in operators for c in conventions]
    assert [r[:3] for r in rows] == slots, where
    for m, o, c, value, entries, undefined in rows:
        v, e, u = expected(m, o, c)
        assert same(value, v), f"{where}: {m} {o} {c}: {value} != {v}"
        assert (entries, undefined) == (e, u), (
            f"{where}: {m} {o} {c}: entries/undefined {entries, undefined} != {e, u}"
        )


def groups(frame: pl.DataFrame, by: Sequence[str]) -> list[tuple[tuple[Any, ...], pl.DataFrame]]:
    if not by:
        return [((), frame)]
    out = []
    for part in frame.partition_by(list(by), maintain_order=True):
        key = tuple(part[c][0] for c in by)
        out.append((key, part))
    return out


# ---------------------------------------------------------------------------
# Data: label form with a declared universe larger than what each group sees


@st.composite
def grouped_labels(
    draw: st.DrawFn, *, max_n: int = 36, fold: bool = False, max_keys: int = 2
) -> tuple[pl.DataFrame, list[str], list[int]]:
    seen = draw(st.integers(2, 5))
    extra = draw(st.integers(0, 2))  # declared, never seen
    n = draw(st.integers(1, max_n))
    keys = draw(key_columns(n, min_keys=1, max_keys=max_keys))
    labels = st.lists(st.integers(0, seen - 1), min_size=n, max_size=n)
    cols: dict[str, Any] = {**keys, "y_true": draw(labels), "y_pred": draw(labels)}
    if fold:
        cols["fold"] = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return pl.DataFrame(cols), list(keys), list(range(seen + extra))


def label_expected(
    part: pl.DataFrame, universe: Sequence[Any]
) -> Callable[[str, str, str], tuple[float, int, int]]:
    yt, yp = part["y_true"].to_numpy(), part["y_pred"].to_numpy()
    cells = label_cells(yt, yp, universe)
    profiles = profiles_of(label_example_cells(yt, yp, universe))
    return lambda m, o, c: reference(cells, profiles, m, o, c)


# ---------------------------------------------------------------------------
# The tests


@pytest.mark.slow
@FEW
@given(data=grouped_labels())
def test_label_form_closed_form_equals_filled_universe(
    data: tuple[pl.DataFrame, list[str], list[int]],
) -> None:
    frame, by, universe = data
    got = af.from_labels(frame, classes=universe).evaluate(
        ALL_MEASURES, OPERATORS, by=by, convention=CONVENTIONS
    )
    parts = groups(frame, by)
    assert got.height == len(parts) * len(ALL_MEASURES) * len(OPERATORS) * len(CONVENTIONS)
    # the groups in key order (nulls last), each group's rows together
    assert got.select(by).unique(maintain_order=True).height == len(parts)
    for key, part in parts:
        rows = got.filter(group_filter(by, key))
        check_group(
            rows, label_expected(part, universe), ALL_MEASURES, OPERATORS, CONVENTIONS, where=f"group {key}"
        )


@FEW
@given(
    data=grouped_labels(max_keys=1),
    names=distinct_names(1, avoid=["y_true", "y_pred", *RESULT_NAMES["evaluate"]]),
)
def test_hostile_key_names_and_null_keys(
    data: tuple[pl.DataFrame, list[str], list[int]], names: list[str]
) -> None:
    frame, by, universe = data
    renamed = frame.rename({by[0]: names[0]})
    measures = ["f1", "cf_label_agreement"]
    got = af.from_labels(renamed, classes=universe).evaluate(
        measures, OPERATORS, by=names, convention=CONVENTIONS
    )
    assert got.columns[0] == names[0]
    # the key is picked by position (a name may be "*" or "^x$" to pl.col)
    got = got.rename({names[0]: by[0]})
    for key, part in groups(frame, by):
        rows = got.filter(group_filter(by, key))
        check_group(
            rows, label_expected(part, universe), measures, OPERATORS, CONVENTIONS, where=f"group {key}"
        )


@FEW
@given(data=grouped_labels(), mode=st.sampled_from(["global", "group"]))
def test_grouping_sets_recount_the_absent_classes(
    data: tuple[pl.DataFrame, list[str], list[int]], mode: str
) -> None:
    """Every grouping set's row equals its coarse group evaluated alone, universe filled.

    A class absent from a fine group may occur in the coarser one; with
    ``class_universe="group"`` the coarse group's classes are the ones seen in it.
    """
    frame, by, universe = data
    measures = ["recall", "specificity", "mcc", "cf_tn_lift"]
    if mode == "global":
        pr = af.from_labels(frame, classes=universe)
    else:
        pr = af.from_labels(frame, class_universe="group")
    got = pr.evaluate(measures, OPERATORS, by=by, convention=CONVENTIONS, grouping_sets="cube")
    for gid in got["grouping_id"].unique().to_list():
        kept = [c for i, c in enumerate(by) if not (gid >> (len(by) - 1 - i)) & 1]
        rows = got.filter(pl.col("grouping_id") == gid)
        for key, part in groups(frame, kept):
            seen = sorted(set(part["y_true"].to_list()) | set(part["y_pred"].to_list()))
            cls = universe if mode == "global" else seen
            mine = rows.filter(group_filter(kept, key))
            check_group(
                mine, label_expected(part, cls), measures, OPERATORS, CONVENTIONS, where=f"set {kept} {key}"
            )


@pytest.mark.slow
@FEW
@given(case=long_frames(kinds=["sparse"], max_keys=2))
def test_long_form_sparse_closed_form_equals_filled_universe(case: Any) -> None:
    got = af.from_long(case.frame, **case.roles()).evaluate(
        ALL_MEASURES, OPERATORS, by=case.by, convention=CONVENTIONS
    )
    for key, part in groups(case.frame, case.by):
        examples = sorted(set(part["example"].to_list()))
        entries = {(r["example"], r["class"]): (r["y"], r["p"]) for r in part.iter_rows(named=True)}
        per_entry = np.array(
            [[entries.get((e, c), (0, 0)) for c in case.classes] for e in examples], dtype=float
        )  # examples x classes x (y, p): absent entries are (0, 0)
        y, p = per_entry[..., 0], per_entry[..., 1]
        cells4 = np.stack([y * p, (1 - y) * p, y * (1 - p), (1 - y) * (1 - p)], axis=-1)
        cells = cells4.sum(axis=0)
        profiles = profiles_of(cells4.sum(axis=1))
        rows = got.filter(group_filter(case.by, key))
        check_group(
            rows,
            lambda m, o, c, cells=cells, profiles=profiles: reference(cells, profiles, m, o, c),
            ALL_MEASURES,
            OPERATORS,
            CONVENTIONS,
            where=f"group {key}",
        )


POOLINGS = ["pooled", "averaged", "fold", "min", "max", "std"]


@pytest.mark.slow
@FEW
@given(data=grouped_labels(fold=True, max_keys=1))
def test_folds_closed_form(data: tuple[pl.DataFrame, list[str], list[int]]) -> None:
    frame, by, universe = data
    measures = ["f1", "specificity", "cf_label_agreement"]
    got = af.from_labels(frame, fold="fold", classes=universe).evaluate(
        measures, OPERATORS, by=by, convention=CONVENTIONS, pooling=POOLINGS
    )
    for key, part in groups(frame, by):
        rows = got.filter(group_filter(by, key))
        pooled = label_expected(part, universe)
        check_group(
            rows.filter(pl.col("pooling") == "pooled"),
            pooled,
            measures,
            OPERATORS,
            CONVENTIONS,
            where="pooled",
        )
        folds = sorted(part["fold"].unique().to_list())
        per_fold = {f: label_expected(part.filter(pl.col("fold") == f), universe) for f in folds}
        sizes = {f: part.filter(pl.col("fold") == f).height for f in folds}
        for f in folds:
            mine = rows.filter(pl.col("pooling") == "fold", pl.col("fold") == f)
            check_group(mine, per_fold[f], measures, OPERATORS, CONVENTIONS, where=f"fold {f}")

        def averaged(
            m: str, o: str, c: str, *, per_fold: Any = per_fold, folds: Any = folds, sizes: Any = sizes
        ) -> tuple[float, int, int]:
            values = [per_fold[f](m, o, c)[0] for f in folds]
            nans = sum(math.isnan(v) for v in values)
            if nans:
                return math.nan, len(folds), nans
            return float(np.average(values, weights=[sizes[f] for f in folds])), len(folds), 0

        def spread(
            stat: str, per_fold: Any = per_fold, folds: Any = folds
        ) -> Callable[[str, str, str], tuple[float, int, int]]:
            def value(m: str, o: str, c: str) -> tuple[float, int, int]:
                values = [per_fold[f](m, o, c)[0] for f in folds]
                defined = [v for v in values if not math.isnan(v)]
                nans = len(values) - len(defined)
                if stat == "std":
                    out = float(np.std(defined, ddof=1)) if len(defined) > 1 else math.nan
                elif not defined:
                    out = math.nan
                else:
                    out = min(defined) if stat == "min" else max(defined)
                return out, len(folds), nans

            return value

        check_group(
            rows.filter(pl.col("pooling") == "averaged"),
            averaged,
            measures,
            OPERATORS,
            CONVENTIONS,
            where="avg",
        )
        for stat in ("min", "max", "std"):
            mine = rows.filter(pl.col("pooling") == stat)
            check_group(mine, spread(stat), measures, OPERATORS, CONVENTIONS, where=stat)
        # the rows of a group: pooled, averaged, the folds in order, min, max, std
        order = rows.select("pooling", "fold").unique(maintain_order=True).rows()
        assert order == [
            ("pooled", None),
            ("averaged", None),
            *[("fold", f) for f in folds],
            ("min", None),
            ("max", None),
            ("std", None),
        ]


@st.composite
def targeted_labels(draw: st.DrawFn) -> tuple[pl.DataFrame, list[str], dict[str, list[int]]]:
    n = draw(st.integers(1, 20))
    keys = draw(key_columns(n, min_keys=1, max_keys=1))
    universes = {}
    parts = []
    for t in ("t0", "t1"):
        seen = draw(st.integers(2, 4))
        universes[t] = list(range(seen + draw(st.integers(0, 2))))
        labels = st.lists(st.integers(0, seen - 1), min_size=n, max_size=n)
        cols = {
            **keys,
            "y_true": draw(labels),
            "y_pred": draw(labels),
            "example": list(range(n)),
            "target": [t] * n,
        }
        parts.append(pl.DataFrame(cols))
    return pl.concat(parts), list(keys), universes


@pytest.mark.slow
@FEW
@given(data=targeted_labels())
def test_targets_closed_form(data: tuple[pl.DataFrame, list[str], dict[str, list[int]]]) -> None:
    frame, by, universes = data
    measures = ["precision", "specificity", "cf_tn_lift"]
    ops = ["micro", "macro", "weighted", "exemplar", "target"]
    withins = ["micro", "macro", "weighted"]
    got = af.from_labels(frame, example="example", target="target", classes=universes).evaluate(
        measures, ops, by=by, convention=CONVENTIONS, within=withins
    )
    labels = [*OPERATORS, *[f"target:{w}" for w in withins]]
    for key, part in groups(frame, by):
        per_target = {}
        block_cells, block_examples = [], None
        for t, u in universes.items():
            sub = part.filter(pl.col("target") == t).sort("example")
            yt, yp = sub["y_true"].to_numpy(), sub["y_pred"].to_numpy()
            per_target[t] = label_expected(sub, u)
            block_cells.append(label_cells(yt, yp, u))
            ex = label_example_cells(yt, yp, u)
            block_examples = ex if block_examples is None else block_examples + ex
        cells = np.vstack(block_cells)
        assert block_examples is not None
        profiles = profiles_of(block_examples)

        def expected(
            m: str,
            o: str,
            c: str,
            *,
            per_target: Any = per_target,
            cells: Any = cells,
            profiles: Any = profiles,
        ) -> tuple[float, int, int]:
            if o.startswith("target:"):
                values = [per_target[t](m, o.split(":")[1], c)[0] for t in universes]
                return average(values, [1.0] * len(values), c), len(values), sum(map(math.isnan, values))
            return reference(cells, profiles, m, o, c)

        check_group(
            got.filter(group_filter(by, key)), expected, measures, labels, CONVENTIONS, where=f"group {key}"
        )


@FEW
@given(
    data=grouped_labels(max_keys=1), named=st.lists(st.integers(0, 7), min_size=1, max_size=4, unique=True)
)
def test_class_subsets_closed_form(data: tuple[pl.DataFrame, list[str], list[int]], named: list[int]) -> None:
    frame, by, universe = data
    ops = ["micro", "macro", "weighted"]
    measures = ["recall", "specificity", "cf_label_agreement"]
    pr = af.from_labels(frame, classes=sorted(set(universe) | set(named)))
    got = pr.evaluate(measures, ops, by=by, convention=CONVENTIONS, labels=named)
    for key, part in groups(frame, by):
        yt, yp = part["y_true"].to_numpy(), part["y_pred"].to_numpy()
        cells = label_cells(yt, yp, named)
        check_group(
            got.filter(group_filter(by, key)),
            lambda m, o, c, cells=cells: reference(cells, [], m, o, c),
            measures,
            ops,
            CONVENTIONS,
            where=f"group {key}",
        )


@FEW
@given(data=grouped_labels(max_keys=1))
def test_binary_operator_with_the_positive_class_absent(
    data: tuple[pl.DataFrame, list[str], list[int]],
) -> None:
    frame, by, _ = data
    # two classes; in a group without a 1 the positive class is absent
    two = frame.with_columns(pl.col("y_true").clip(0, 1), pl.col("y_pred").clip(0, 1))
    measures = ["f1", "specificity", "cf_label_agreement"]
    got = af.from_labels(two, classes=[0, 1]).evaluate(
        measures, ["binary", "macro"], by=by, convention=CONVENTIONS, pos_label=1
    )
    for key, part in groups(two, by):
        yt, yp = part["y_true"].to_numpy(), part["y_pred"].to_numpy()
        cells = label_cells(yt, yp, [0, 1])

        def expected(m: str, o: str, c: str, cells: np.ndarray = cells) -> tuple[float, int, int]:
            return reference(cells[1:] if o == "binary" else cells, [], m, o, c)

        check_group(
            got.filter(group_filter(by, key)),
            expected,
            measures,
            ["binary", "macro"],
            CONVENTIONS,
            where="bin",
        )


@FEW
@given(data=grouped_labels(max_keys=1), cut=st.floats(0, 1))
def test_stores_read_together_equal_the_rows_together(
    data: tuple[pl.DataFrame, list[str], list[int]], cut: float, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Two stores of halves of the rows add up to the rows together, a class seen in one half only included."""
    frame, by, _ = data
    k = int(cut * frame.height)
    halves = [frame[:k], frame[k:]]
    # two frames with identical cell tables are refused as the same frame written twice
    assume(not halves[0].sort(pl.all()).equals(halves[1].sort(pl.all())))
    base = tmp_path_factory.mktemp("stores")
    paths = []
    for i, half in enumerate(halves):
        if half.height:
            paths.append(af.from_labels(half).write_cells(base / f"s{i}", by=by))
    measures = ["f1", "specificity", "cf_tn_lift"]
    kw = {"by": by, "convention": CONVENTIONS}
    got = af.from_cells(paths).evaluate(measures, OPERATORS, **kw)
    expected = af.from_labels(frame).evaluate(measures, OPERATORS, **kw)
    assert got.select(by).rows() == expected.select(by).rows()
    # the rows' last columns: value, n_entries, n_undefined, n_examples
    for a, b in zip(got.iter_rows(), expected.iter_rows(), strict=True):
        assert a[:-4] == b[:-4]
        assert same(a[-4], b[-4]), (a, b)
        assert a[-3:] == b[-3:], (a, b)


@pytest.mark.slow
@FEW
@given(data=grouped_labels())
def test_per_class_views_fill_the_universe(data: tuple[pl.DataFrame, list[str], list[int]]) -> None:
    frame, by, universe = data
    pr = af.from_labels(frame, classes=universe)
    cells = pr.cells("class", by=by)
    per_class = pr.per_class(["recall"], by=by)
    parts = groups(frame, by)
    assert cells.height == per_class.height == len(parts) * len(universe)
    for key, part in parts:
        mine = cells.filter(group_filter(by, key)).sort("class")
        assert mine["class"].to_list() == universe
        expected = label_cells(part["y_true"].to_numpy(), part["y_pred"].to_numpy(), universe)
        np.testing.assert_allclose(mine.select("tp", "fp", "fn", "tn").to_numpy(), expected)
    # the closed form against the same tables filled out, through the one reduction
    tables = pr.extend.cell_tables(by)
    filled = replace(tables, classes=filled_classes(tables), groups=None, universe=None)
    ms = [af.get_measure(m) for m in ALL_MEASURES]
    a = tidy(reduce_wide(tables, ms, OPERATORS, CONVENTIONS)).collect()
    b = tidy(reduce_wide(filled, ms, OPERATORS, CONVENTIONS)).collect()
    assert a.drop("value").equals(b.drop("value"))
    for x, y in zip(a["value"].to_list(), b["value"].to_list(), strict=True):
        assert same(x, y)


def test_absent_classes_are_not_materialised() -> None:
    """10^3 groups x 10^3 declared classes: the cell tables hold the pairs that occur, not 10^6."""
    rng = np.random.default_rng(0)
    n = 20_000
    frame = pl.DataFrame(
        {"g": rng.integers(0, 1000, n), "y_true": rng.integers(0, 5, n), "y_pred": rng.integers(0, 5, n)}
    )
    pr = af.from_labels(frame, n_classes=1000)
    tables = pr.extend.cell_tables(["g"])
    assert tables.classes.select(pl.len()).collect().item() <= 5 * 1000
    assert tables.groups is not None
    assert tables.groups.select(pl.col("n_absent").min()).collect().item() >= 995
    out = pr.evaluate(["recall"], ["macro"], by="g")
    assert out["n_entries"].unique().to_list() == [1000]
    # the per-class view pays for the universe, and says so
    assert pr.cells("class", by="g").height == 1000 * 1000


def test_label_pairs_on_request() -> None:
    frame = pl.DataFrame({"g": [1, 1, 2, None], "y_true": [0, 1, 1, 2], "y_pred": [0, 2, 1, 2]})
    source = af.from_labels(frame).source
    assert source.tables(["g"]).pairs is None
    with_pairs = source.tables(["g"], pairs=True)
    assert with_pairs.pairs is not None
    pairs = with_pairs.pairs.collect().sort("_yt", "_yp")
    assert pairs.select("_yt", "_yp", "n").rows() == [(0, 0, 1), (1, 1, 1), (1, 2, 1), (2, 2, 1)]
    # the same cells either way
    a = with_pairs.classes.collect().sort(pl.all())
    b = source.tables(["g"]).classes.collect().sort(pl.all())
    assert a.equals(b)


def test_rows_outside_the_declared_universe_counted_per_target() -> None:
    frame = pl.DataFrame(
        {
            "k": [None, "a", "a", None],
            "example": [0, 1, 0, 1],
            "target": ["x", "x", "y", "y"],
            "y_true": [0, 1, 5, 2],
            "y_pred": [0, 9, 5, 2],
        }
    )
    pr = af.from_labels(frame, example="example", target="target", classes={"x": [0, 1], "y": [0, 1, 2]})
    with pytest.raises(af.errors.UnknownClassError, match=r"\b2 row\(s\) with a label outside"):
        pr.evaluate("f1", "macro", by="k")


# ---------------------------------------------------------------------------
# The features merged with the closed form: the multiclass operator, bootstrap
# replicates, cells that add up, stores of the formats before


def _shuffled(universe: list[int], seed: int) -> list[int]:
    """A declared order other than the sort order (the weighted kappas depend on it)."""
    order = list(universe)
    np.random.default_rng(seed).shuffle(order)
    return order


@pytest.mark.slow
@FEW
@given(data=grouped_labels(), seed=st.integers(0, 3))
def test_multiclass_operator_with_absent_classes_matches_sklearn(
    data: tuple[pl.DataFrame, list[str], list[int]], seed: int
) -> None:
    """Absent classes leave the margins alone but keep their rank in the declared order."""
    from sklearn.metrics import balanced_accuracy_score, cohen_kappa_score, matthews_corrcoef

    frame, by, universe = data
    order = _shuffled(universe, seed)
    measures = ["mcc", "kappa", "kappa_linear", "kappa_quadratic", "accuracy", "balanced_accuracy"]
    got = af.from_labels(frame, classes=order).evaluate(
        measures, "multiclass", by=by, convention=["nan", "zero"]
    )
    for key, part in groups(frame, by):
        yt, yp = part["y_true"].to_numpy(), part["y_pred"].to_numpy()
        rows = {
            (m, c): v
            for m, c, v in got.filter(group_filter(by, key)).select("measure", "convention", "value").rows()
        }
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # scikit-learn warns where a value is undefined
            expected = {
                # scikit-learn's R_K is 0.0 where undefined: convention "zero"
                ("mcc", "zero"): matthews_corrcoef(yt, yp),
                ("kappa", "nan"): cohen_kappa_score(yt, yp, labels=order),
                ("kappa_linear", "nan"): cohen_kappa_score(yt, yp, labels=order, weights="linear"),
                ("kappa_quadratic", "nan"): cohen_kappa_score(yt, yp, labels=order, weights="quadratic"),
                ("accuracy", "nan"): float(np.mean(yt == yp)),
                ("balanced_accuracy", "nan"): balanced_accuracy_score(yt, yp),
            }
        for slot, want in expected.items():
            assert same(rows[slot], float(want)), (key, slot, rows[slot], want)


@pytest.mark.slow
@FEW
@given(data=grouped_labels(max_keys=1), n_boot=st.integers(1, 3))
def test_bootstrap_replicates_closed_form_equals_filled_universe(
    data: tuple[pl.DataFrame, list[str], list[int]], n_boot: int
) -> None:
    """Every replicate's absent classes are counted with its own weighted number of examples."""
    from aggframe._options import Bootstrap

    frame, by, universe = data
    pr = af.from_labels(frame.with_row_index("example"), example="example", classes=universe)
    tables = pr.extend.boot_tables(by, Bootstrap(n_boot=n_boot, seed=7))
    assert tables.groups is not None
    filled = replace(tables, classes=filled_classes(tables), groups=None, universe=None)
    ms = [af.get_measure(m) for m in ALL_MEASURES]
    a = tidy(reduce_wide(tables, ms, OPERATORS, CONVENTIONS)).collect()
    b = tidy(reduce_wide(filled, ms, OPERATORS, CONVENTIONS)).collect()
    keys = [c for c in a.columns if c not in ("value",)]
    a, b = a.sort(keys, nulls_last=True), b.sort(keys, nulls_last=True)
    assert a.drop("value").equals(b.drop("value"))
    for x, y in zip(a["value"].to_list(), b["value"].to_list(), strict=True):
        assert same(x, y)


@pytest.mark.slow
@FEW
@given(data=grouped_labels(max_keys=1), cut=st.floats(0, 1))
def test_cells_of_parts_with_other_classes_add_up(
    data: tuple[pl.DataFrame, list[str], list[int]], cut: float
) -> None:
    """af.Cells: a class seen in one part only is absent from the other's groups, exactly."""
    frame, by, _ = data
    k = max(1, min(frame.height - 1, int(cut * frame.height)))
    assume(frame.height > 1)
    a, b = frame[:k], frame[k:]
    total = af.from_labels(a).to_cells(by=by) + af.from_labels(b).to_cells(by=by)
    # the cells hold the pairs that occur, never groups x classes
    occurring = frame.select(*by, pl.col("y_true").alias("c")).vstack(
        frame.select(*by, pl.col("y_pred").alias("c"))
    )
    assert total.class_table.height == occurring.unique().height
    measures = ["recall", "specificity", "mcc", "cf_tn_lift"]
    kw = {"by": by, "convention": CONVENTIONS}
    got = total.evaluate(measures, OPERATORS, **kw)
    expected = af.from_labels(frame).evaluate(measures, OPERATORS, **kw)
    assert got.drop("value").equals(expected.drop("value"))
    for x, y in zip(got["value"].to_list(), expected["value"].to_list(), strict=True):
        assert same(x, y)


def _as_format_2(store: Path) -> None:
    """Rewrite a store as aggframe-cells/2 wrote it: every (group, class) filled, no groups, no universe."""
    import json

    tables, _ = read_store(store)
    filled = filled_classes(tables).drop(KEY_ALL, strict=False).collect()
    filled.write_parquet(store / "classes.parquet")
    (store / "groups.parquet").unlink()
    (store / "universe.parquet").unlink()
    meta = json.loads((store / "meta.json").read_text())
    meta["format"] = "aggframe-cells/2"
    meta.pop("universe_keys")
    meta.pop("tables")
    (store / "meta.json").write_text(json.dumps(meta))


def test_stores_of_the_format_before_read_alone_and_with_new_ones(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {
            "g": ["a", "a", "b", None, "b", "a"],
            "y_true": [0, 1, 1, 2, 4, 0],
            "y_pred": [0, 2, 1, 2, 4, 3],
        }
    )
    universe = [0, 1, 2, 3, 4, 5]
    first, second = frame[:3], frame[3:]
    old = af.from_labels(first, classes=universe).write_cells(tmp_path / "old", by="g")
    new = af.from_labels(second, classes=universe).write_cells(tmp_path / "new", by="g")
    _as_format_2(old)
    measures = ["f1", "specificity", "cf_tn_lift"]
    kw = {"by": "g", "convention": CONVENTIONS}
    alone = af.from_cells(old).evaluate(measures, OPERATORS, **kw)
    rows = af.from_labels(first, classes=universe).evaluate(measures, OPERATORS, **kw)
    assert alone.drop("value").equals(rows.drop("value"))
    for x, y in zip(alone["value"].to_list(), rows["value"].to_list(), strict=True):
        assert same(x, y)
    both = af.from_cells([old, new]).evaluate(measures, OPERATORS, **kw)
    expected = af.from_labels(frame, classes=universe).evaluate(measures, OPERATORS, **kw)
    assert both.drop("value").equals(expected.drop("value"))
    for x, y in zip(both["value"].to_list(), expected["value"].to_list(), strict=True):
        assert same(x, y)


def test_a_store_of_the_new_format_missing_its_groups_is_named(tmp_path: Path) -> None:
    store = af.from_labels([0, 1, 1], [0, 1, 0]).write_cells(tmp_path / "s")
    (store / "groups.parquet").unlink()
    with pytest.raises(af.errors.StoreError, match=r"groups\.parquet is missing or unreadable"):
        af.from_cells(store)


@pytest.mark.slow
@FEW
@given(data=grouped_labels(max_keys=1), hull=st.sampled_from(["macro", "exemplar"]))
def test_diagnose_takes_the_absent_classes_once(
    data: tuple[pl.DataFrame, list[str], list[int]], hull: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """diagnose's hull of per-class values: the absent classes' one value, not m - present copies.

    The reference reads the same cells through a store of the format before, whose
    classes are every (group, class) of the universe filled out.
    """
    frame, by, universe = data
    pr = af.from_labels(frame, classes=universe)
    store = pr.write_cells(tmp_path_factory.mktemp("diag") / "s", by=by)
    _as_format_2(store)
    measures = ["precision", "recall", "specificity", "cf_tn_lift"]
    got = af.diagnose(pr, measures, by=by, hull=hull, emit_warnings=False)
    expected = af.diagnose(af.from_cells(store), measures, by=by, hull=hull, emit_warnings=False)
    # the same findings; the numbers to the last bits (sums in another order)
    numbers = ["value", "lower", "upper"]
    assert_frame_equal(got.drop(numbers), expected.drop(numbers))
    for col in numbers:
        for x, y in zip(got[col].to_list(), expected[col].to_list(), strict=True):
            assert (x is None and y is None) or same(x, y), (col, x, y)
