"""The ``multiclass`` operator and the tidy confusion matrix, end to end (issue #15).

Differential against scikit-learn through the public API: every whole-matrix
measure per group (each group filtered out of the data and given to
scikit-learn alone, null keys among the groups), with declared universes in a
shuffled order and bigger than the observed classes (absent and never-predicted
classes), pooled and averaged folds, grouping sets, targets, the long form,
cell stores, DuckDB and the CLI; the refusals; the two-class property.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import cohen_kappa_score as skm_kappa
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

import aggframe as af
from aggframe.interop.cli import main
from aggframe.measures.matrix import MATRIX_MEASURES
from tests.builders import without_pairs
from tests.engines.test_engines import _counting_source
from tests.measures.test_matrix import check_against_sklearn, sklearn_values
from tests.strategies import (
    RESULT_NAMES,
    LabelCase,
    distinct_names,
    group_filter,
    label_frames,
    rename_columns,
)

FEW = settings(max_examples=15, deadline=None)


def _declared(case: LabelCase, data: st.DataObject) -> list[Any] | None:
    """No universe, or the classes in a shuffled order plus one or two that never occur."""
    if not data.draw(st.booleans(), label="declare"):
        return None
    extra = data.draw(st.lists(st.integers(50, 60), max_size=2, unique=True), label="extra")
    return data.draw(st.permutations([*case.classes, *extra]), label="order")


def _group_values(result: pl.DataFrame, keys: list[str]) -> list[tuple[Any, ...]]:
    return result.select(keys).unique(maintain_order=True).rows() if keys else [()]


def _check_group(result: pl.DataFrame, rows: pl.DataFrame, universe: list[Any]) -> None:
    """Every measure of one group's result rows against scikit-learn on the group's rows."""
    yt, yp = rows["y_true"].to_list(), rows["y_pred"].to_list()
    refs = sklearn_values(yt, yp, universe)
    for name in MATRIX_MEASURES:
        part = result.filter(pl.col("measure") == name)
        excl = part.filter(pl.col("convention") == "exclude").row(0, named=True)
        zero = part.filter(pl.col("convention") == "zero").row(0, named=True)
        undefined = math.isnan(excl["value"])
        assert excl["n_entries"] == 1
        assert excl["n_undefined"] == int(undefined), name
        check_against_sklearn(None if undefined else excl["value"], name, yt, refs[name])
        assert zero["value"] == (0.0 if undefined else excl["value"]), name


# ---------------------------------------------------------------------------
# Against scikit-learn, per group


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(max_n=40, max_m=5), data=st.data())
def test_matrix_measures_per_group_match_sklearn(case: LabelCase, data: st.DataObject) -> None:
    declared = _declared(case, data)
    pr = af.from_labels(case.frame, **case.roles(), classes=declared)
    got = pr.evaluate(None, "multiclass", by=case.by, convention=["exclude", "zero"])
    assert got["operator"].unique().to_list() == ["multiclass"]
    universe = declared if declared is not None else case.classes
    groups = _group_values(got, case.by)
    assert got.height == len(groups) * len(MATRIX_MEASURES) * 2
    for values in groups:
        mine = got.filter(group_filter(case.by, values))
        _check_group(mine, case.frame.filter(group_filter(case.by, values)), universe)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(max_n=40, max_m=4, folds=True, min_keys=0, max_keys=1))
def test_folds_pooled_and_averaged_match_sklearn(case: LabelCase) -> None:
    pr = af.from_labels(case.frame, **case.roles())
    got = pr.evaluate(
        None, "multiclass", by=case.by, pooling=["pooled", "averaged"], convention=["exclude", "zero"]
    )
    for values in _group_values(got, case.by):
        rows = case.frame.filter(group_filter(case.by, values))
        mine = got.filter(group_filter(case.by, values))
        _check_group(mine.filter(pl.col("pooling") == "pooled"), rows, case.classes)
        folds = rows.partition_by("fold", as_dict=True)
        sizes = [part.height for part in folds.values()]
        for name in MATRIX_MEASURES:
            per_fold = []
            for part in folds.values():
                fold_result = af.from_labels(part, y_true="y_true", y_pred="y_pred", classes=case.classes)
                per_fold.append(fold_result.compute(name, "multiclass", convention="zero"))
            averaged = mine.filter(
                pl.col("pooling") == "averaged", pl.col("measure") == name, pl.col("convention") == "zero"
            )
            assert averaged["value"].item() == pytest.approx(np.average(per_fold, weights=sizes), abs=1e-12)
            assert averaged["n_entries"].item() == len(folds)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(max_n=30, max_m=4, min_keys=2, max_keys=2))
def test_grouping_sets_equal_direct_evaluation(case: LabelCase) -> None:
    pr = af.from_labels(case.frame, **case.roles())
    measures = ["mcc", "kappa_quadratic", "balanced_accuracy"]
    rolled = pr.evaluate(measures, "multiclass", by=case.by, grouping_sets="rollup")
    for keep in (case.by, case.by[:1], []):
        part = rolled.filter(pl.col("grouping_set") == ",".join(keep)).drop(
            "grouping_set", "grouping_id", *[c for c in case.by if c not in keep]
        )
        direct = pr.evaluate(measures, "multiclass", by=keep or None)
        assert_frame_equal(part, direct, check_dtypes=False, abs_tol=1e-12)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(max_n=25, max_m=4, target=True, min_keys=0, max_keys=1))
def test_target_within_multiclass_is_the_mean_of_each_target(case: LabelCase) -> None:
    pr = af.from_labels(case.frame, **case.roles())
    got = pr.evaluate(["mcc", "kappa_linear"], "target", within="multiclass", by=case.by, convention="zero")
    assert set(got["operator"]) == {"target:multiclass"}
    for values in _group_values(got, case.by):
        rows = case.frame.filter(group_filter(case.by, values))
        for name in ("mcc", "kappa_linear"):
            per_target = [
                af.from_labels(
                    rows.filter(pl.col("target") == t),
                    y_true="y_true",
                    y_pred="y_pred",
                    classes=case.target_classes[t],
                ).compute(name, "multiclass", convention="zero")
                for t in rows["target"].unique(maintain_order=True)
            ]
            mine = got.filter(group_filter(case.by, values), pl.col("measure") == name)
            assert mine["value"].item() == pytest.approx(float(np.mean(per_target)), abs=1e-12)
            assert mine["n_entries"].item() == len(per_target)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=40, deadline=None)
@given(
    yt=st.lists(st.sampled_from(["n", "p"]), min_size=1, max_size=30),
    data=st.data(),
    convention=st.sampled_from(["exclude", "zero"]),
)
def test_two_class_mcc_and_kappa_equal_the_binary_ones(
    yt: list[str], data: st.DataObject, convention: str
) -> None:
    yp = data.draw(st.lists(st.sampled_from(["n", "p"]), min_size=len(yt), max_size=len(yt)))
    one_hot = af.from_labels(np.array(yt), np.array(yp), classes=["n", "p"])
    for pos in ("n", "p"):
        binary = af.from_labels(np.array(yt), np.array(yp), classes=["n", "p"], task="binary", pos_label=pos)
        for name in ("mcc", "kappa"):
            whole = one_hot.compute(name, "multiclass", convention=convention)
            cells = binary.compute(name, "micro", convention=convention)
            assert whole == pytest.approx(cells, abs=1e-12, nan_ok=True), (name, pos)


# ---------------------------------------------------------------------------
# Forms, engines, stores


def _one_hot_long(frame: pl.DataFrame, classes: list[Any], by: list[str]) -> pl.DataFrame:
    """The label frame as dense one-hot long rows (example, class, y, p)."""
    rows = frame.with_row_index("example").join(pl.DataFrame({"class": classes}), how="cross")
    return rows.select(
        *by,
        "example",
        "class",
        (pl.col("y_true") == pl.col("class")).cast(pl.Int8).alias("y"),
        (pl.col("y_pred") == pl.col("class")).cast(pl.Int8).alias("p"),
    )


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(max_n=25, max_m=4, min_keys=0, max_keys=2, example=False))
def test_long_one_hot_equals_label_form(case: LabelCase) -> None:
    labels = af.from_labels(case.frame, **case.roles())
    long = af.from_long(_one_hot_long(case.frame, case.classes, case.by))
    assert long.kind == "multiclass"
    kw: dict[str, Any] = {"by": case.by or None, "convention": ["exclude", "zero"]}
    assert_frame_equal(long.evaluate(None, "multiclass", **kw), labels.evaluate(None, "multiclass", **kw))
    assert_frame_equal(
        long.confusion_matrix(by=case.by or None, normalize="pred"),
        labels.confusion_matrix(by=case.by or None, normalize="pred"),
    )


def test_masked_one_hot_long_reads_observed_classes() -> None:
    # example 0's second y = 1 is masked: the observed entries are one-hot
    frame = pl.DataFrame(
        {
            "example": [0, 0, 0, 1, 1, 1],
            "class": [0, 1, 2] * 2,
            "y": [1, 1, 0, 0, 0, 1],
            "p": [0, 1, 0, 0, 0, 1],
            "mask": [0, 1, 1, 1, 1, 1],
        }
    )
    pr = af.from_long(frame, mask="mask")
    assert pr.kind == "multiclass"
    cm = pr.confusion_matrix(by=None).filter(pl.col("count") > 0)
    assert cm.select("y_true", "y_pred", "count").rows() == [(1, 1, 1), (2, 2, 1)]


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(max_n=30, max_m=4, min_keys=1, max_keys=2, folds=True))
def test_cell_store_keeps_the_counts(case: LabelCase, tmp_path_factory: pytest.TempPathFactory) -> None:
    pr = af.from_labels(case.frame, **case.roles())
    path = pr.write_cells(tmp_path_factory.mktemp("store") / "s", by=case.by)
    stored = af.from_cells(path)
    kw: dict[str, Any] = {"by": case.by[:1], "pooling": ["pooled", "averaged"], "grouping_sets": "rollup"}
    assert_frame_equal(
        stored.evaluate(None, "multiclass", **kw), pr.evaluate(None, "multiclass", **kw), abs_tol=1e-12
    )
    assert_frame_equal(stored.confusion_matrix(by=case.by), pr.confusion_matrix(by=case.by))


def test_stores_add_up_and_a_store_without_counts_is_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    frame = pl.DataFrame(
        {"day": [1] * 30 + [2] * 30, "y_true": rng.integers(0, 4, 60), "y_pred": rng.integers(0, 4, 60)}
    )
    a = af.from_labels(frame.filter(pl.col("day") == 1)).write_cells(tmp_path / "a", by="day")
    b = af.from_labels(frame.filter(pl.col("day") == 2)).write_cells(tmp_path / "b", by="day")
    both = af.from_cells([a, b]).evaluate(None, "multiclass")
    assert_frame_equal(both, af.from_labels(frame).evaluate(None, "multiclass"), abs_tol=1e-12)
    without_pairs(tmp_path / "b")
    # without the counts the weighted kappas are refused; the rest need only the cells
    with pytest.raises(af.errors.OptionError, match="stored cells hold none"):
        af.from_cells([a, b]).evaluate("kappa_linear", "multiclass")
    with pytest.raises(af.errors.OptionError, match="stored cells hold none"):
        af.from_cells([a, b]).confusion_matrix(by=None)
    unweighted = ["mcc", "kappa", "balanced_accuracy", "balanced_accuracy_adjusted", "accuracy"]
    assert_frame_equal(
        af.from_cells([a, b]).evaluate(unweighted, "multiclass"),
        af.from_labels(frame).evaluate(unweighted, "multiclass"),
        abs_tol=1e-12,
    )
    multilabel = af.from_indicator(np.array([[1, 1], [0, 1]]), np.array([[1, 0], [0, 1]]))
    with pytest.raises(af.errors.OptionError, match="not of such data"):
        af.from_cells(multilabel.write_cells(tmp_path / "m")).evaluate("mcc", "multiclass")
    # a declared order travels with the store
    declared = af.from_labels(frame, classes=[3, 1, 0, 2])
    store = declared.write_cells(tmp_path / "c")
    assert af.from_cells(store).confusion_matrix(by=None)["y_true"].unique(maintain_order=True).to_list() == [
        3,
        1,
        0,
        2,
    ]
    assert af.from_cells(store).compute("kappa_linear", "multiclass") == pytest.approx(
        declared.compute("kappa_linear", "multiclass"), abs=1e-12
    )


def test_duckdb_equals_polars() -> None:
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(5)
    frame = pl.DataFrame(
        {
            "g": rng.choice(["a", "b"], 80).tolist(),
            "fold": rng.integers(0, 3, 80),
            "y_true": rng.integers(0, 5, 80),
            "y_pred": rng.integers(0, 5, 80),
        }
    ).with_columns(pl.when(pl.col("fold") == 2).then(None).otherwise(pl.col("g")).alias("g"))
    con = duckdb.connect()
    try:
        rel = con.from_arrow(frame.to_arrow())
        kw: dict[str, Any] = {
            "by": "g",
            "pooling": ["pooled", "averaged", "fold"],
            "convention": ["exclude", "zero"],
        }
        expected = af.from_labels(frame, fold="fold").evaluate(["mcc", "kappa_quadratic"], "multiclass", **kw)
        got = af.from_labels(rel, fold="fold").evaluate(["mcc", "kappa_quadratic"], "multiclass", **kw)
        assert_frame_equal(got, expected, abs_tol=1e-12)
        long = _one_hot_long(frame, list(range(5)), ["g"])
        expected_long = af.from_long(long).confusion_matrix(by="g", normalize="all")
        got_long = af.from_long(con.from_arrow(long.to_arrow())).confusion_matrix(by="g", normalize="all")
        assert_frame_equal(got_long, expected_long)
        assert_frame_equal(
            af.from_long(con.from_arrow(long.to_arrow())).evaluate(None, "multiclass", by="g"),
            af.from_labels(frame).evaluate(None, "multiclass", by="g"),
            abs_tol=1e-12,
        )
    finally:
        con.close()


def test_lazy_and_streaming_plans() -> None:
    rng = np.random.default_rng(7)
    frame = pl.DataFrame(
        {"g": rng.integers(0, 3, 50), "y_true": rng.integers(0, 4, 50), "y_pred": rng.integers(0, 4, 50)}
    )
    eager = af.from_labels(frame.lazy()).evaluate(["mcc"], ["micro", "multiclass"], by="g")
    lazy = af.from_labels(frame.lazy()).evaluate(["mcc"], ["micro", "multiclass"], by="g", lazy=True)
    assert_frame_equal(lazy.collect(engine="streaming"), eager)
    long = af.from_long(_one_hot_long(frame, [0, 1, 2, 3], ["g"]).lazy())
    assert_frame_equal(long.evaluate(["mcc"], ["micro", "multiclass"], by="g", lazy=True).collect(), eager)


def test_long_form_reads_more_only_for_the_weighted_kappas() -> None:
    rng = np.random.default_rng(4)
    labels = pl.DataFrame({"y_true": rng.integers(0, 3, 30), "y_pred": rng.integers(0, 3, 30)})
    lf, calls = _counting_source(_one_hot_long(labels, [0, 1, 2], []))
    pr = af.from_long(lf)
    pr.evaluate(["f1"], "macro")
    reads = calls[0]
    unweighted = pr.evaluate(["mcc", "kappa", "balanced_accuracy", "accuracy"], "multiclass")
    assert calls[0] == reads
    pr.evaluate(["kappa_quadratic"], "multiclass")
    assert calls[0] == reads + 1  # the confusion counts: one grouped query, kept
    pr.confusion_matrix(by=None)
    assert calls[0] == reads + 1
    assert_frame_equal(
        unweighted,
        af.from_labels(labels).evaluate(["mcc", "kappa", "balanced_accuracy", "accuracy"], "multiclass"),
    )


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("n_classes", [None, 3])
def test_label_form_reads_the_input_once_per_aggregation(lazy: bool, n_classes: int | None) -> None:
    rng = np.random.default_rng(1)
    frame = pl.DataFrame(
        {"g": rng.integers(0, 2, 40), "y_true": rng.integers(0, 3, 40), "y_pred": rng.integers(0, 3, 40)}
    )
    # the margins: two group-bys of the rows (by true, by predicted label), each reading the
    # source; with a small universe declared, one group-by of the (y_true, y_pred) pairs
    reads = 2 if n_classes is None else 1
    lf, calls = _counting_source(frame)
    pr = af.from_labels(lf, n_classes=n_classes)
    out = pr.evaluate(["mcc", "kappa"], ["micro", "macro", "multiclass"], by="g", lazy=lazy)
    if lazy:
        assert isinstance(out, pl.LazyFrame)
        out.collect()
    assert calls[0] == reads
    if not lazy:
        # the margins plan never forms the (y_true, y_pred) counts (issue #19): the confusion
        # matrix asks for them once (one grouped query), then they are kept with the tables
        pr.confusion_matrix(by="g", normalize="true")
        pr.evaluate(["kappa_quadratic"], "multiclass", by="g")
        assert calls[0] == reads + 1
    # a report that needs the counts (weighted kappas) gets them, and the margins, in one scan
    lf, calls = _counting_source(frame)
    out = af.from_labels(lf, n_classes=n_classes).evaluate(
        ["kappa_linear", "mcc"], ["multiclass"], by="g", lazy=lazy
    )
    if lazy:
        assert isinstance(out, pl.LazyFrame)
        out.collect()
    assert calls[0] == 1


# ---------------------------------------------------------------------------
# Refusals


def test_refusals_name_why() -> None:
    labels = af.from_labels([0, 1, 2, 2], [0, 2, 2, 1])
    with pytest.raises(af.errors.OptionError, match="no whole-matrix definition"):
        labels.evaluate(["precision"], "multiclass")
    with pytest.raises(af.errors.OptionError, match=r"whole confusion matrix only.*'multiclass'"):
        labels.evaluate(["kappa_linear"], "macro")
    with pytest.raises(af.errors.OptionError, match="label_accuracy"):
        labels.evaluate(["accuracy"], ["micro", "multiclass"])
    with pytest.raises(af.errors.UnknownNameError):
        labels.evaluate(["not_a_measure"], "multiclass")
    with pytest.raises(af.errors.OptionError, match=r"classes= \(labels=\)"):
        labels.evaluate(["mcc"], "multiclass", labels=[0, 1])
    with pytest.raises(af.errors.OptionError, match="no parts"):
        labels.parts("mcc", "multiclass")
    binary = af.from_labels([0, 1, 1], [0, 1, 0], task="binary")
    with pytest.raises(af.errors.OptionError, match="positive class only"):
        binary.evaluate(["mcc"], "multiclass")
    with pytest.raises(af.errors.OptionError, match="positive class only"):
        binary.confusion_matrix(by=None)
    multilabel = af.from_indicator(np.array([[1, 1], [0, 1]]), np.array([[1, 0], [0, 1]]))
    with pytest.raises(af.errors.OptionError, match="multilabel"):
        multilabel.evaluate(["mcc"], "multiclass")
    soft = af.from_indicator(np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]]), tnorm="product")
    with pytest.raises(af.errors.OptionError, match="soft"):
        soft.evaluate(["mcc"], "multiclass")
    ordinal = af.from_ordinal([0, 1, 2, 2], [0, 2, 2, 1])
    with pytest.raises(af.errors.OptionError, match=r"pr\.labels"):
        ordinal.evaluate(["kappa_quadratic"], "multiclass")
    assert ordinal.labels is not None
    assert ordinal.labels.compute("kappa_quadratic", "multiclass") == pytest.approx(
        skm_kappa([0, 1, 2, 2], [0, 2, 2, 1], weights="quadratic")
    )
    targets = pl.DataFrame({"example": [0, 0], "target": ["a", "b"], "y_true": [0, 1], "y_pred": [0, 1]})
    with pytest.raises(af.errors.OptionError, match="within='multiclass'"):
        af.from_labels(targets, example="example", target="target").evaluate(["mcc"], "multiclass")
    with pytest.raises(af.errors.OptionError, match="normalize"):
        labels.confusion_matrix(normalize="rows")  # type: ignore[call-overload]


def test_measures_resolve_by_alias_and_mix_with_cell_operators() -> None:
    pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    got = pr.evaluate(["matthews", "qwk", "ba"], ["multiclass"])
    assert got["measure"].to_list() == ["mcc", "kappa_quadratic", "balanced_accuracy"]
    both = pr.evaluate(["mcc", "kappa"], ["micro", "multiclass", "macro"])
    assert both.select("measure", "operator").rows() == [
        ("mcc", "micro"),
        ("mcc", "multiclass"),
        ("mcc", "macro"),
        ("kappa", "micro"),
        ("kappa", "multiclass"),
        ("kappa", "macro"),
    ]
    default = pr.evaluate(None, ["micro", "multiclass"])
    assert len(default.filter(pl.col("operator") == "multiclass")) == len(MATRIX_MEASURES)
    assert len(default.filter(pl.col("operator") == "micro")) == len(af.list_measures())
    for name in ("kappa_linear", "kappa_quadratic", "balanced_accuracy_adjusted", "accuracy"):
        assert not math.isnan(pr.compute(name, "multiclass"))
    assert pr.compute("accuracy", "multiclass") == pr.accuracy()


def test_undefined_values_follow_the_convention() -> None:
    # every prediction is one class: mcc undefined; kappa defined (0)
    pr = af.from_labels([0, 1, 2], [1, 1, 1])
    got = pr.evaluate(["mcc"], "multiclass", convention=["exclude", "zero", "one", "nan"])
    values = got["value"].to_list()
    assert math.isnan(values[0])
    assert values[1:3] == [0.0, 1.0]
    assert math.isnan(values[3])
    assert got["n_undefined"].to_list() == [1, 1, 1, 1]


# ---------------------------------------------------------------------------
# The tidy confusion matrix


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@FEW
@given(case=label_frames(max_n=30, max_m=4, min_keys=0, max_keys=2), data=st.data())
def test_confusion_matrix_matches_sklearn_per_group(case: LabelCase, data: st.DataObject) -> None:
    declared = _declared(case, data)
    universe = declared if declared is not None else case.classes
    pr = af.from_labels(case.frame, **case.roles(), classes=declared)
    for normalize in (None, "true", "pred", "all"):
        got = pr.confusion_matrix(by=case.by or None, normalize=normalize)
        assert got.columns == [*case.by, "y_true", "y_pred", "count", *(["rate"] if normalize else [])]
        for values in _group_values(got, case.by):
            mine = got.filter(group_filter(case.by, values))
            assert mine["y_true"].unique(maintain_order=True).to_list() == universe
            rows = case.frame.filter(group_filter(case.by, values))
            yt, yp = rows["y_true"].to_list(), rows["y_pred"].to_list()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "a single label was found": labels= is given
                counts = sk_confusion_matrix(yt, yp, labels=universe)
                ref = sk_confusion_matrix(yt, yp, labels=universe, normalize=normalize)
            assert mine["count"].to_list() == counts.ravel().tolist()
            if normalize is not None:
                # scikit-learn gives 0 where aggframe's rate is null (an empty row, column or group)
                assert mine["rate"].fill_null(0.0).to_list() == pytest.approx(ref.ravel().tolist(), abs=1e-12)


@FEW
@given(case=label_frames(max_n=20, max_m=3, min_keys=1, max_keys=2), data=st.data())
def test_confusion_matrix_hostile_key_names(case: LabelCase, data: st.DataObject) -> None:
    taken = ("y_true", "y_pred", "count", "rate", "example", *RESULT_NAMES["evaluate"])
    names = data.draw(distinct_names(len(case.by), avoid=taken))
    frame = rename_columns(case.frame, dict(zip(case.by, names, strict=True)))
    pr = af.from_labels(frame, y_true="y_true", y_pred="y_pred")
    got = pr.confusion_matrix(by=names, normalize="true")
    expected = af.from_labels(case.frame, y_true="y_true", y_pred="y_pred").confusion_matrix(
        by=case.by, normalize="true"
    )
    assert got.columns == [*names, "y_true", "y_pred", "count", "rate"]
    assert_frame_equal(got, rename_columns(expected, dict(zip(case.by, names, strict=True))))
    multiclass = pr.evaluate(["mcc"], "multiclass", by=names)
    assert multiclass.columns[: len(names)] == names


def test_confusion_matrix_key_named_like_a_result_column_is_refused() -> None:
    frame = pl.DataFrame({"count": [1, 2], "y_true": [0, 1], "y_pred": [0, 0]})
    with pytest.raises(af.errors.OptionError, match="'count' collides"):
        af.from_labels(frame).confusion_matrix(by="count")


def test_confusion_matrix_with_targets_and_folds() -> None:
    frame = pl.DataFrame(
        {
            "example": [0, 1, 2, 0, 1, 2],
            "target": ["a", "a", "a", "b", "b", "b"],
            "y_true": [0, 1, 1, 5, 6, 6],
            "y_pred": [0, 1, 0, 6, 6, 5],
        }
    )
    got = af.from_labels(frame, example="example", target="target").confusion_matrix(by=None)
    assert got.columns == ["target", "y_true", "y_pred", "count"]
    assert got.filter(pl.col("target") == "b")["y_true"].unique(maintain_order=True).to_list() == [5, 6]
    folds = frame.filter(pl.col("target") == "a").with_columns(pl.Series("fold", [0, 1, 1]))
    cm = af.from_labels(folds, fold="fold").confusion_matrix(by=None)
    assert cm.columns == ["fold", "y_true", "y_pred", "count"]
    assert cm.group_by("y_true", "y_pred").agg(pl.col("count").sum()).sort("y_true", "y_pred")[
        "count"
    ].to_list() == [
        1,
        0,
        1,
        1,
    ]


def test_bare_confusion_matrix_call_keeps_its_old_result_for_one_release() -> None:
    pr = af.from_labels([0, 1, 1, 2], [0, 1, 0, 0])
    with pytest.warns(FutureWarning, match="confusion_array"):
        C, classes = pr.confusion_matrix()
    assert C.dtype == np.float64
    assert C.tolist() == [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    assert classes == [0, 1, 2]
    array, same = pr.confusion_array()
    assert array.tolist() == C.tolist()
    assert same == classes
    declared = af.from_labels([0, 1, 1, 2], [0, 1, 0, 0], classes=[2, 0, 1])
    assert declared.confusion_array()[1] == [2, 0, 1]
    assert (
        declared.confusion_array()[0] == sk_confusion_matrix([0, 1, 1, 2], [0, 1, 0, 0], labels=[2, 0, 1])
    ).all()
    with pytest.raises(af.errors.OptionError, match="fold or target"):
        af.from_labels(pl.DataFrame({"y_true": [0], "y_pred": [0], "f": [1]}), fold="f").confusion_array()


# ---------------------------------------------------------------------------
# Broken sources, the command line


def test_broken_source_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "p.parquet"
    pl.DataFrame({"y_true": [0, 1, 2], "y_pred": [0, 2, 2]}).write_parquet(path)
    pr = af.from_labels(path)
    path.unlink()
    with pytest.raises(af.errors.SourceError, match=r"p\.parquet"):
        pr.evaluate(["mcc"], "multiclass")
    with pytest.raises(af.errors.SourceError, match=r"p\.parquet"):
        pr.confusion_matrix(by=None)
    # the long form counts its pairs in a query of its own: it names the source too
    long_path = tmp_path / "l.parquet"
    _one_hot_long(pl.DataFrame({"y_true": [0, 1, 2], "y_pred": [0, 2, 2]}), [0, 1, 2], []).write_parquet(
        long_path
    )
    long = af.from_long(long_path)
    long.evaluate(["f1"], "micro")
    long_path.unlink()
    assert not math.isnan(long.compute("mcc", "multiclass"))  # the margins: the cells already read
    with pytest.raises(af.errors.SourceError, match=r"l\.parquet"):
        long.evaluate(["kappa_quadratic"], "multiclass")


def test_cli_multiclass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = pl.DataFrame(
        {
            "model": ["a", "a", "a", None, None, None],
            "example": [0, 1, 2, 0, 1, 2],
            "target": ["t"] * 6,
            "y_true": [0, 1, 2, 0, 1, 2],
            "y_pred": [0, 2, 2, 1, 1, 2],
        }
    )
    path = tmp_path / "p.parquet"
    frame.write_parquet(path)
    out = tmp_path / "r.parquet"
    argv = [str(path), "--by", "model", "--measures", "mcc,kappa_quadratic", "--operators", "multiclass"]
    assert main(["report", *argv, "--format", "parquet", "-o", str(out)]) == 0
    got = pl.read_parquet(out)
    expected = af.from_labels(frame.drop("target")).evaluate(
        ["mcc", "kappa_quadratic"], "multiclass", by="model"
    )
    assert_frame_equal(got, expected)
    within = ["--target", "target", "--example", "example", "--operators", "target", "--within", "multiclass"]
    assert main(["report", str(path), "--by", "model", "--measures", "mcc", *within, "--format", "csv"]) == 0
    assert "target:multiclass" in capsys.readouterr().out
    assert main(["report", str(path), "--measures", "f1", "--operators", "multiclass"]) == 2
    assert "usage error" in capsys.readouterr().err
