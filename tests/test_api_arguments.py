"""Arguments of the public API read as meant, or refused by name (found by an audit, 2 December)."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af

LABELS = pl.DataFrame(
    {"y_true": [0, 1, 2, 2, 1, 0], "y_pred": [0, 2, 2, 1, 1, 1], "f": ["a", "a", "a", "b", "b", "b"]}
)


def test_one_column_for_two_roles_is_refused() -> None:
    """y_true='y_pred' scored the predictions against themselves (f1 1.0 where it is 0.5)."""
    with pytest.raises(
        af.errors.OptionError, match="column 'y_pred' is given for two roles, 'y_true' and 'y_pred'"
    ):
        af.from_labels(LABELS, y_true="y_pred")
    with pytest.raises(af.errors.OptionError, match="given for two roles"):
        af.from_labels(LABELS, fold="y_true")
    long = pl.DataFrame({"example": [0, 0, 1, 1], "class": [0, 1] * 2, "y": [1, 0, 0, 1], "p": [0, 1, 1, 0]})
    with pytest.raises(af.errors.OptionError, match="column 'p' is given for two roles, 'y' and 'p'"):
        af.from_long(long, y="p")


def test_compute_takes_one_value_of_each_option() -> None:
    """compute(pooling=["fold"]) or pooling="FOLD" returned the first fold's value; convention=[...]
    the first convention's."""
    pr = af.from_labels(LABELS, fold="f")
    assert pr.compute("f1", "micro", pooling="POOLED") == pr.compute("f1", "micro")
    for kwargs in (
        {"pooling": "FOLD"},
        {"pooling": ["fold"]},
        {"convention": ["nan", "zero"]},
        {"operator": ["micro"]},
    ):
        with pytest.raises(af.errors.OptionError, match=r"one value per fold|takes one name"):
            pr.compute("f1", **{"operator": "micro", **kwargs})  # type: ignore[arg-type]


def test_a_string_is_not_a_list_of_names() -> None:
    """classes="012" declared '0', '1', '2'; order="cba" the order c, b, a; aliases="xy" the aliases
    x and y; grouping_sets=["model"] the set of the letters m, o, d, e, l."""
    with pytest.raises(af.errors.OptionError, match="`classes` takes a list of classes"):
        af.from_labels(LABELS, classes="012")  # type: ignore[arg-type]
    with pytest.raises(af.errors.OptionError, match="`classes` takes a list of classes"):
        af.from_labels(LABELS, classes=3)  # type: ignore[arg-type]
    with pytest.raises(af.errors.OptionError, match="`order` takes a list"):
        af.from_ordinal(LABELS, order="012")  # type: ignore[arg-type]
    with pytest.raises(af.errors.OptionError, match="`aliases` takes a list of names"):
        af.register_measure("two_tp", lambda tp, fp, fn, tn: 2 * tp / (tp + fp + 1), aliases="xy")  # type: ignore[arg-type]
    assert "x" not in af.list_measures()
    pr = af.from_labels(LABELS)
    for sets in (["f"], 5, [["f"], ["f"]], [["f", "f"]]):
        with pytest.raises(af.errors.OptionError, match="grouping"):
            pr.evaluate("f1", "macro", by="f", grouping_sets=sets)  # type: ignore[arg-type]


def test_engine_names_are_checked_everywhere() -> None:
    """engine='bogus' was a raw Polars ValueError naming its internals (or, with kept tables, not
    looked at); 'Streaming' was refused though option names take any case."""
    pr = af.from_labels(LABELS)
    assert_frame_equal(pr.evaluate("f1", "macro", engine="Streaming"), pr.evaluate("f1", "macro"))
    for call in (
        lambda: pr.evaluate("f1", "macro", engine="bogus"),
        lambda: pr.extend.cell_tables(engine="bogus"),
        lambda: pr.to_cells().evaluate("f1", "macro", engine="bogus"),
    ):
        with pytest.raises(
            af.errors.UnknownNameError,
            match="unknown engine 'bogus'; valid engines: auto, in-memory, streaming",
        ):
            call()


@pytest.mark.parametrize("tol", [float("nan"), -1.0, float("inf")])
def test_a_suite_tolerance_is_a_finite_number(tol: float) -> None:
    """tol=nan gave rank 0, volume 0 and 'redundant' with no error."""
    pr = af.from_labels(LABELS)
    with pytest.raises(af.errors.OptionError, match="`tol` to be a finite number >= 0"):
        af.suites.suite_rank(pr, ["recall", "precision"], "macro", tol=tol)


def test_compare_summary_with_a_reference_is_refused() -> None:
    """reference= with summary=True was checked, then left out of the summary without a word."""
    frame = pl.DataFrame(
        {"g": ["a", "a", "a", "b", "b", "b"], "y_true": [0, 1, 2, 2, 1, 0], "y_pred": [0, 2, 2, 1, 1, 1]}
    )
    with pytest.raises(af.errors.OptionError, match="ask for one or the other"):
        af.from_labels(frame).compare("f1", "micro", by="g", reference={"g": "a"}, summary=True)


def test_empty_lists_and_bootstrap_options_without_n_boot_are_refused() -> None:
    """measures=[] (operators=[], per_class([])) read as every measure; classes=[] gave NaN with
    no entries; level=/seed= without n_boot were neither checked nor used (cluster= was refused)."""
    pr = af.from_labels(LABELS)
    for call in (
        lambda: pr.evaluate([], "macro"),
        lambda: pr.evaluate("f1", []),
        lambda: pr.per_class([]),
        lambda: pr.evaluate("f1", "macro", classes=[]),
        lambda: pr.evaluate("f1", "macro", level=0.9),
        lambda: pr.evaluate("f1", "macro", seed=3),
    ):
        with pytest.raises(af.errors.OptionError, match=r"names n|leave it out|option of the bootstrap"):
            call()


def test_calibration_takes_numpy_integers() -> None:
    import numpy as np

    scores = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "y": [0, 0, 1, 1]})
    pr = af.from_scores(scores, class_=None)
    assert_frame_equal(pr.calibration(np.int64(2)), pr.calibration(2))


def test_an_operator_of_evaluate_where_it_does_not_apply_is_named_so() -> None:
    """parts(..., "binary") said "unknown operator 'binary'; valid operators: ... binary ..."."""
    pr = af.from_labels(LABELS)
    with pytest.raises(af.errors.OptionError, match="operator 'binary' does not apply here"):
        pr.parts("f1", "binary")


def test_task_and_class_universe_take_any_case() -> None:
    """task="Binary" and class_universe="Group" were refused, though option names take any case."""
    assert (
        af.from_labels(LABELS.filter(pl.col("y_true") < 2).filter(pl.col("y_pred") < 2), task=" Binary ").kind
        == "binary"
    )
    grouped = af.from_labels(LABELS, class_universe="Group").evaluate("f1", "macro", by="f")
    assert_frame_equal(
        grouped, af.from_labels(LABELS, class_universe="group").evaluate("f1", "macro", by="f")
    )
