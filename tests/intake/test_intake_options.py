"""What the user states at intake, instead of aggframe guessing it (issue #12, items 4 and 7-10).

- declared examples (``examples=``): a sparse log that records only positives loses no example;
- the task (``task=``): one extra label on one example no longer changes the reading;
- label arrays never mix numbers and strings; a null class is refused;
- example ids are unique within the finest group, everywhere (one rule);
- suites refuse ordinal predictions, as the reference does.
"""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.errors import (
    ColumnNotFoundError,
    DuplicateEntryError,
    InvalidValueError,
    NullValueError,
    OptionError,
)

MEASURES = ["f1", "recall", "precision", "specificity", "mcc"]
OPS = ["micro", "macro", "weighted", "exemplar"]
CONVENTIONS = ["exclude", "zero", "one", "nan"]


@st.composite
def sparse_logs(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, int]:
    """A dense 0/1 frame (every example x class, by group) and its sparse log (rows with a 1 only)."""
    m = draw(st.integers(2, 5))
    n = draw(st.integers(1, 12))
    groups = draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n))
    y = draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n))
    p = draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n))
    dense = pl.DataFrame(
        {
            "g": [groups[i] for i in range(n) for _ in range(m)],
            "example": [i for i in range(n) for _ in range(m)],
            "class": [c for _ in range(n) for c in range(m)],
            "y": [int(y[i][c]) for i in range(n) for c in range(m)],
            "p": [int(p[i][c]) for i in range(n) for c in range(m)],
        }
    )
    sparse = dense.filter((pl.col("y") == 1) | (pl.col("p") == 1))
    return dense, sparse, m


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=40, deadline=None)
@given(sparse_logs())
def test_declared_examples_equal_the_dense_frame(data: tuple[pl.DataFrame, pl.DataFrame, int]) -> None:
    dense, sparse, m = data
    # nothing logged at all (sparse.height == 0) is every declared example all-negative too
    expected = af.from_long(dense, n_classes=m).evaluate(MEASURES, OPS, convention=CONVENTIONS)
    by_count = af.from_long(sparse, n_classes=m, examples=dense["example"].n_unique())
    assert_frame_equal(by_count.evaluate(MEASURES, OPS, convention=CONVENTIONS), expected, abs_tol=1e-12)
    ids = dense.select("g", "example").unique()
    by_frame = af.from_long(sparse, n_classes=m, examples=ids)
    assert_frame_equal(by_frame.evaluate(MEASURES, OPS, convention=CONVENTIONS), expected, abs_tol=1e-12)
    # per group, null group included, and groups whose examples logged nothing
    grouped = by_frame.evaluate(MEASURES, OPS, by="g", convention=CONVENTIONS)
    dense_grouped = af.from_long(dense, n_classes=m).evaluate(MEASURES, OPS, by="g", convention=CONVENTIONS)
    assert_frame_equal(
        grouped.sort("g", nulls_last=True, maintain_order=True),
        dense_grouped.sort("g", nulls_last=True, maintain_order=True),
        abs_tol=1e-12,
    )


def test_declared_examples_errors() -> None:
    sparse = pl.DataFrame(
        {"g": [1, 1, 2], "example": [0, 1, 2], "class": [0, 1, 0], "y": [1, 1, 0], "p": [1, 0, 1]}
    )
    with pytest.raises(InvalidValueError, match=r"1 example\(s\) with rows are not among the declared"):
        af.from_long(sparse, n_classes=2, examples=pl.DataFrame({"example": [0, 1, 5]})).evaluate("f1")
    with pytest.raises(InvalidValueError, match="declares fewer examples than the predictions hold"):
        af.from_long(sparse, n_classes=2, examples=2).evaluate("f1")
    with pytest.raises(OptionError, match="cannot say which group"):
        af.from_long(sparse, n_classes=2, examples=10).evaluate("f1", by="g")
    with pytest.raises(ColumnNotFoundError, match="no column 'g'"):
        af.from_long(sparse, n_classes=2, examples=pl.DataFrame({"example": [0, 1, 2]})).evaluate(
            "f1", by="g"
        )
    with pytest.raises(DuplicateEntryError, match="repeated example id"):
        af.from_long(sparse, n_classes=2, examples=pl.DataFrame({"example": [0, 1, 2, 2]})).evaluate("f1")
    with pytest.raises(NullValueError, match="null example id"):
        af.from_long(sparse, n_classes=2, examples=pl.DataFrame({"example": [0, 1, 2, None]})).evaluate("f1")
    with pytest.raises(OptionError, match="positive count"):
        af.from_long(sparse, n_classes=2, examples=0)
    with pytest.raises(af.errors.EmptyInputError, match="no rows and examples= declares none"):
        af.from_long(sparse[:0], n_classes=2, examples=sparse[:0].select("example")).evaluate("f1")
    with pytest.raises(OptionError, match="needs a Polars source"):
        af.from_long(duckdb.from_arrow(sparse.to_arrow()), n_classes=2, examples=sparse.select("example"))


def test_declared_examples_without_any_row_are_all_negative() -> None:
    # a log of positives on a day with none: no rows at all, every declared example a true
    # negative in every class (the rows-less groups of a by-group were evaluated; the whole
    # frame was refused as "no rows")
    empty = pl.DataFrame(
        schema={"g": pl.String, "example": pl.Int64, "class": pl.Int64, "y": pl.Int64, "p": pl.Int64}
    )
    dense = pl.DataFrame({"g": ["a", "a", "a", "b"], "example": [0, 1, 2, 3], "y": [0] * 4, "p": [0] * 4})
    dense = dense.join(pl.DataFrame({"class": [0, 1]}), how="cross")
    expected = af.from_long(dense, n_classes=2).evaluate(MEASURES, OPS, convention=CONVENTIONS)
    for examples in (4, dense.select("g", "example").unique()):
        got = af.from_long(empty, n_classes=2, examples=examples).evaluate(
            MEASURES, OPS, convention=CONVENTIONS
        )
        assert_frame_equal(got, expected)
    ids = dense.select("g", "example").unique()
    by_g = af.from_long(empty, n_classes=2, examples=ids).evaluate(
        MEASURES, OPS, by="g", convention=CONVENTIONS
    )
    dense_by_g = af.from_long(dense, n_classes=2).evaluate(MEASURES, OPS, by="g", convention=CONVENTIONS)
    assert_frame_equal(by_g, dense_by_g)
    with pytest.raises(af.errors.EmptyInputError, match="no rows"):
        af.from_long(empty, n_classes=2).evaluate("f1")


def test_a_declared_example_count_works_on_duckdb() -> None:
    sparse = pl.DataFrame({"example": [0, 1, 2], "class": [0, 1, 0], "y": [1, 1, 0], "p": [1, 0, 1]})
    on_duckdb = af.from_long(duckdb.from_arrow(sparse.to_arrow()), n_classes=2, examples=5)
    on_polars = af.from_long(sparse, n_classes=2, examples=5)
    assert_frame_equal(on_duckdb.evaluate(MEASURES, OPS), on_polars.evaluate(MEASURES, OPS), abs_tol=1e-12)
    assert on_polars.evaluate("f1", "exemplar")["n_entries"].item() == 5


# -- the task, stated ---------------------------------------------------------------------


def test_the_stated_task_decides_the_reading() -> None:
    Y, P = np.eye(3)[[0, 1, 2, 1]], np.eye(3)[[0, 2, 2, 1]]
    inferred = af.from_indicator(Y, P)
    assert (inferred.kind, inferred.extend.kind_inferred) == ("multiclass", True)
    assert inferred.accuracy() == pytest.approx(0.75)  # standard accuracy
    multilabel = af.from_indicator(Y, P, task="multilabel")
    assert (multilabel.kind, multilabel.extend.kind_inferred) == ("multilabel", False)
    assert multilabel.accuracy() == pytest.approx(10 / 12)  # label accuracy, as aggmetrics reads 2-D data
    # one extra label on one example changes nothing once the task is stated
    P2 = P.copy()
    P2[0, 1] = 1
    assert af.from_indicator(Y, P2, task="multilabel").kind == "multilabel"
    assert af.from_indicator(Y, P2).kind == "multilabel"  # inferred: the extra label flips it
    with pytest.raises(InvalidValueError, match=r"task='multiclass' was stated, but 1 example"):
        af.from_indicator(Y, P2, task="multiclass").evaluate("f1")


def test_the_stated_multilabel_task_matches_aggmetrics_degrees_of_freedom() -> None:
    am = pytest.importorskip("aggmetrics")
    Y, P = np.eye(4)[[0, 1, 2, 3, 1]], np.eye(4)[[0, 2, 2, 1, 1]]
    stated = af.from_indicator(Y, P, task="multilabel")
    ref = am.IndicatorMatrix(Y, P, task="multilabel")
    assert af.suites.degrees_of_freedom(stated) == 2 * Y.shape[1]
    ours = af.suites.suite_rank(stated, ["recall", "specificity", "precision"], "macro")
    theirs = am.suite_rank(ref, ["recall", "specificity", "precision"], "macro")
    assert ours.rank == theirs.rank


def test_task_options_are_checked() -> None:
    frame = pl.DataFrame({"example": [0, 0], "class": [0, 1], "y": [1, 0], "p": [1, 0]})
    with pytest.raises(OptionError, match="Expected `task`"):
        af.from_long(frame, task="binary")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="crisp labels"):
        af.from_long(frame, task="multiclass", tnorm="product")


# -- label arrays ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("y_true", "y_pred"),
    [
        (np.array(["0", "1", "1"]), np.array([0, 1, 0])),
        (np.array([0, 1, 1]), np.array(["0", "1", "0"])),
        (["a", "b", "a"], [0.0, 1.0, 0.0]),
    ],
)
def test_label_arrays_never_mix_numbers_and_strings(y_true: object, y_pred: object) -> None:
    with pytest.raises(InvalidValueError, match="mix of label input types"):
        af.from_labels(y_true, y_pred)
    # as the frame path
    frame = pl.DataFrame({"y_true": list(np.asarray(y_true)), "y_pred": list(np.asarray(y_pred))})
    with pytest.raises(InvalidValueError, match="mix of label input types"):
        af.from_labels(frame)


def test_numeric_label_widths_mix() -> None:
    a = af.from_labels([0, 1, 1], [0.0, 1.0, 0.0]).compute("recall", "macro")
    b = af.from_labels([True, False, True], [1, 0, 0]).compute("recall", "macro")
    assert a == pytest.approx(0.75)
    assert b == pytest.approx(0.75)


def test_a_null_class_is_refused() -> None:
    with pytest.raises(OptionError, match="null class"):
        af.from_labels([0, 1], [0, 1]).evaluate("recall", "macro", labels=[None, 1])
    with pytest.raises(OptionError, match="null class"):
        af.from_labels([0, 1], [0, 1], classes=[0, None])


# -- example ids: one rule ---------------------------------------------------------------


def test_example_ids_are_unique_within_the_finest_group() -> None:
    # the same ids in two models: each (model, example) is its own example, in every
    # path that groups by model, and the rollup's overall row pools them as such
    frame = pl.DataFrame(
        {
            "model": ["a", "a", "a", "b", "b", "b"],
            "example": [1, 2, 3, 1, 2, 3],
            "y_true": [0, 1, 2, 0, 1, 2],
            "y_pred": [0, 1, 1, 2, 1, 2],
        }
    )
    pr = af.from_labels(frame, example="example")
    rolled = pr.evaluate(MEASURES, OPS, by="model", grouping_sets="rollup")
    overall = rolled.filter(pl.col("grouping_set") == "").drop("model", "grouping_set", "grouping_id")
    renamed = frame.with_columns(pl.concat_str("model", pl.col("example").cast(pl.String)).alias("example"))
    expected = af.from_labels(renamed, example="example").evaluate(MEASURES, OPS)
    assert_frame_equal(overall, expected, abs_tol=1e-12)
    compared = pr.compare(MEASURES, OPS, by="model")
    assert compared.height == 2 * len(MEASURES) * len(OPS)
    # without by, the ids repeat within the (one) group: refused
    with pytest.raises(DuplicateEntryError, match="repeated example row"):
        pr.evaluate("f1")


# -- suites ----------------------------------------------------------------------------


def test_suites_refuse_ordinal_predictions() -> None:
    pr = af.from_ordinal([0, 1, 2, 2, 1], [0, 2, 2, 1, 1])
    with pytest.raises(OptionError, match="not defined on ordinal predictions"):
        af.suites.suite_rank(pr, ["recall", "precision"], "micro")
    with pytest.raises(OptionError, match="not defined on ordinal predictions"):
        af.suites.select_suite(pr, operator="macro")
    assert af.suites.suite_rank(pr.labels, ["recall", "precision"], "micro").rank >= 1


def test_declared_examples_with_folds_and_their_parts() -> None:
    """Declared examples with folds (no by=) evaluate as the dense frame; ``parts(..., "exemplar")``
    lists the declared examples without rows too (all-negative), so its mean is the exemplar value.

    Regressions: with fold= and no by=, every evaluation failed ("unable to find column
    '__af_all'"); parts left the unlogged examples out (3 rows, mean 0.833, where exemplar is 0.875).
    """
    sparse = pl.DataFrame(
        {"example": [0, 1, 2], "class": [0, 1, 1], "y": [1, 1, 0], "p": [1, 0, 1], "fold": [0, 0, 1]}
    )
    ids = pl.DataFrame({"example": [0, 1, 2, 3], "fold": [0, 0, 1, 1]})
    dense = pl.DataFrame(
        {
            "example": [0, 0, 1, 1, 2, 2, 3, 3],
            "class": [0, 1] * 4,
            "y": [1, 0, 0, 1, 0, 0, 0, 0],
            "p": [1, 0, 0, 0, 0, 1, 0, 0],
            "fold": [0, 0, 0, 0, 1, 1, 1, 1],
        }
    )
    pr = af.from_long(sparse, n_classes=2, fold="fold", examples=ids)
    full = af.from_long(dense, n_classes=2, fold="fold")
    kw = {"pooling": ["pooled", "averaged", "fold"], "convention": CONVENTIONS}
    assert_frame_equal(pr.evaluate(MEASURES, OPS, **kw), full.evaluate(MEASURES, OPS, **kw), abs_tol=1e-12)
    assert pr.accuracy() == pytest.approx(full.accuracy())
    for declared, frame in ((ids, sparse), (ids.drop("fold"), sparse.drop("fold"))):
        kept = af.from_long(frame, n_classes=2, examples=declared)
        parts = kept.parts("specificity", "exemplar").sort("example")
        assert parts["example"].to_list() == [0, 1, 2, 3]
        assert parts.row(3, named=True)["tn"] == 2.0  # the unlogged example: every class a true negative
        assert parts["value"].mean() == pytest.approx(
            kept.evaluate("specificity", "exemplar")["value"].item()
        )
    # a count names no example: the unlogged ones are rows without an id
    counted = af.from_long(sparse.drop("fold"), n_classes=2, examples=6).parts("specificity", "exemplar")
    assert counted.height == 6
    assert counted["example"].null_count() == 3
    assert counted["value"].mean() == pytest.approx(
        af.from_long(sparse.drop("fold"), n_classes=2, examples=6)
        .evaluate("specificity", "exemplar")["value"]
        .item()
    )


def test_parts_of_declared_examples_with_a_null_key_and_an_internal_name() -> None:
    """The unlogged examples of a null group, under a by-column named like a private key."""
    key = "__af_all"
    sparse = pl.DataFrame(
        {key: ["a", "a", None], "example": [0, 1, 2], "class": [0, 1, 1], "y": [1, 1, 0], "p": [1, 0, 1]}
    )
    ids = pl.DataFrame({key: ["a", "a", None, None, "b"], "example": [0, 1, 2, 3, 4]})
    pr = af.from_long(sparse, n_classes=2, examples=ids)
    parts = pr.parts("specificity", "exemplar", by=key)
    assert parts.height == 5
    means = parts.group_by(key).agg(pl.col("value").mean()).sort(key, nulls_last=True)
    report = pr.evaluate("specificity", "exemplar", by=key).sort(key, nulls_last=True)
    assert means[key].to_list() == report[key].to_list() == ["a", "b", None]
    assert means["value"].to_list() == pytest.approx(report["value"].to_list())
