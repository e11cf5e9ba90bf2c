"""Bad input in the label form (frames and arrays): the subclass, the column, the count, an example."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import polars as pl
import pytest

import aggframe as af
from aggframe.errors import (
    ColumnNotFoundError,
    DuplicateEntryError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    ShapeError,
    UnknownClassError,
)
from tests.builders import AVAILABLE_LABELS, NAN, label_frame, seq

# ---------------------------------------------------------------------------
# Label form from frames


@pytest.mark.parametrize(
    ("kwargs", "column", "role"),
    [
        ({"y_true": "truth"}, "truth", "y_true"),
        ({"y_pred": "pred"}, "pred", "y_pred"),
        ({"example": "row_id"}, "row_id", "example"),
    ],
    ids=["y_true", "y_pred", "example"],
)
def test_labels_missing_role_column(kwargs: dict[str, str], column: str, role: str) -> None:
    with pytest.raises(
        ColumnNotFoundError, match=seq(f"column '{column}' \\(role '{role}'\\)", AVAILABLE_LABELS)
    ):
        af.from_labels(label_frame(), **kwargs)


def test_labels_default_role_column_absent() -> None:
    frame = label_frame().rename({"y_true": "truth"})
    with pytest.raises(
        ColumnNotFoundError, match=seq(r"column 'y_true' \(role 'y_true'\)", re.escape("'truth'"))
    ):
        af.from_labels(frame.lazy())


def test_labels_missing_by_column() -> None:
    with pytest.raises(ColumnNotFoundError, match=seq("by column 'g'", AVAILABLE_LABELS)):
        af.from_labels(label_frame()).evaluate(by="g")


@pytest.mark.parametrize(
    ("overrides", "column", "count", "example"),
    [
        ({"y_true": [0, None, 1, 0]}, "y_true", 1, "id=2, y_true=None, y_pred=1"),
        ({"y_pred": [0, None, None, 0]}, "y_pred", 2, "id=[23], y_true=1, y_pred=None"),
        ({"id": [1, None, 3, None]}, "id", 2, "id=None, y_true=1, y_pred=1"),
    ],
    ids=["y_true", "y_pred", "example"],
)
def test_labels_frame_null_in_role_column(
    overrides: dict[str, Any], column: str, count: int, example: str
) -> None:
    pr = af.from_labels(label_frame(**overrides), example="id")
    with pytest.raises(NullValueError, match=seq(f"column '{column}'", rf"\b{count} null value", example)):
        pr.evaluate()


def test_labels_frame_null_without_example_column() -> None:
    pr = af.from_labels(label_frame(y_pred=["a", None, "b", "a"], y_true=["a", "b", "b", "a"]))
    with pytest.raises(
        NullValueError, match=seq("column 'y_pred'", r"\b1 null value", "y_true='b', y_pred=None")
    ):
        pr.compute("f1", "macro")


def test_labels_duplicate_example_ids() -> None:
    pr = af.from_labels(label_frame(id=[1, 1, 3, 3]), example="id")
    pattern = seq("column 'id'", r"\b2 repeated example row", r"id=(1|3), copies=2", "one row per example")
    with pytest.raises(DuplicateEntryError, match=pattern):
        pr.evaluate()


def test_labels_duplicate_example_ids_within_a_by_group() -> None:
    frame = label_frame(id=[1, 2, 1, 1], g=["a", "a", "b", "b"])
    pr = af.from_labels(frame, example="id")
    pattern = seq("column 'id'", r"\b1 repeated example row", "g='b', id=1, copies=2", "per by-group")
    with pytest.raises(DuplicateEntryError, match=pattern):
        pr.evaluate(by="g")


def test_labels_same_id_in_two_by_groups_is_fine() -> None:
    frame = label_frame(id=[1, 2, 1, 2], g=["a", "a", "b", "b"])
    assert af.from_labels(frame, example="id").evaluate("f1", "micro", by="g").height == 2


def test_labels_frame_class_outside_declared_classes() -> None:
    pr = af.from_labels(label_frame(y_pred=[0, 1, 2, 2]), classes=[0, 1])
    pattern = seq(
        r"columns \('y_true', 'y_pred'\)",
        r"\b2 row\(s\) with a label outside",
        r"e\.g\. 2",
        re.escape("[0, 1]"),
    )
    with pytest.raises(UnknownClassError, match=pattern):
        pr.evaluate()


def test_labels_frame_class_outside_n_classes() -> None:
    pr = af.from_labels(label_frame(y_true=[0, 1, 7, 0]), n_classes=2)
    with pytest.raises(UnknownClassError, match=seq(r"\b1 row\(s\) with a label outside", r"e\.g\. 7")):
        pr.compute("f1", "macro")


def test_labels_frame_binary_task_with_three_classes() -> None:
    pr = af.from_labels(label_frame(y_pred=[0, 1, 2, 0]), task="binary")
    pattern = seq("task='binary'", r"\b3 classes", re.escape("[0, 1, 2]"), "macro")
    with pytest.raises(OptionError, match=pattern):
        pr.evaluate()


def test_labels_empty_frame() -> None:
    with pytest.raises(EmptyInputError, match="no rows"):
        af.from_labels(label_frame()[:0]).evaluate()


def test_labels_empty_frame_with_example_column() -> None:
    with pytest.raises(EmptyInputError, match="no rows"):
        af.from_labels(label_frame()[:0].lazy(), example="id").compute("f1", "macro")


def test_labels_frame_with_a_second_positional_argument() -> None:
    with pytest.raises(OptionError, match="with a frame, name the columns"):
        af.from_labels(label_frame(), [0, 1, 0, 0])


def test_labels_bad_task() -> None:
    with pytest.raises(OptionError, match=r"`task`.*'multilabel'"):
        af.from_labels([0, 1], [0, 1], task="multilabel")  # type: ignore[arg-type]


def test_labels_frame_label_columns_of_different_types() -> None:
    with pytest.raises(InvalidValueError, match=seq("y_true", "Int64", "y_pred", "String")):
        af.from_labels(label_frame(y_pred=["0", "1", "0", "0"]))


def test_labels_frame_integer_label_columns_of_different_widths() -> None:
    frame = label_frame(y_pred=pl.Series([0, 1, 0, 0], dtype=pl.Int32))
    assert af.from_labels(frame).compute("f1", "micro") == pytest.approx(0.75)


def test_labels_frame_nan_label() -> None:
    frame = label_frame(y_true=[0.0, NAN, 1.0, 0.0], y_pred=[0.0, 1.0, 0.0, 0.0])
    with pytest.raises((NullValueError, InvalidValueError), match=seq("column 'y_true'", r"\b1 ", "nan")):
        af.from_labels(frame).evaluate()
    # a NaN is named as one: the message called it a null value ("1 null value(s) (e.g. row y_true=nan")
    with pytest.raises(NullValueError, match=r"1 null or NaN value\(s\) .*must not be null or NaN"):
        af.from_labels(frame).evaluate()


def test_labels_binary_pos_label_absent_from_labels() -> None:
    pr = af.from_labels([0, 2, 2], [0, 2, 0], task="binary")  # pos_label defaults to 1
    with pytest.raises(OptionError, match="pos_label 1"):
        pr.evaluate()


def test_labels_binary_pos_label_outside_declared_classes() -> None:
    with pytest.raises(
        OptionError, match=re.escape("pos_label 5 is not among the declared classes [0, 1, 2]")
    ):
        af.from_labels([0, 1, 2], [0, 1, 1], task="binary", classes=[0, 1, 2], pos_label=5)


# ---------------------------------------------------------------------------
# Label form from arrays


def test_labels_arrays_of_different_lengths() -> None:
    with pytest.raises(ShapeError, match=r"y_true has 3 labels but y_pred has 2"):
        af.from_labels([0, 1, 1], [0, 1])


def test_labels_series_of_different_lengths() -> None:
    with pytest.raises(ShapeError, match=r"y_true has 3 labels but y_pred has 2"):
        af.from_labels(pl.Series([0, 1, 1]), pl.Series([0, 1]))


def test_labels_arrays_not_1d() -> None:
    with pytest.raises(ShapeError, match=re.escape("shapes (2, 2) and (2, 2)") + ".*from_indicator"):
        af.from_labels(np.eye(2), np.eye(2))


def test_labels_ragged_arrays() -> None:
    with pytest.raises(ShapeError):
        af.from_labels([[0, 1], [0]], [0, 1])


def test_labels_empty_arrays() -> None:
    with pytest.raises(EmptyInputError, match="empty"):
        af.from_labels([], [])


def test_labels_only_one_array() -> None:
    with pytest.raises(OptionError, match="needs both arrays"):
        af.from_labels([0, 1, 1])


@pytest.mark.parametrize(
    ("y_true", "y_pred", "column", "example"),
    [
        ([0, None, 1], [0, 1, None], "y_true", "y_true=None, y_pred=1"),
        (["a", "b", "b"], ["a", None, "b"], "y_pred", "y_true='b', y_pred=None"),
    ],
    ids=["y_true", "y_pred"],
)
def test_labels_arrays_null(y_true: list[Any], y_pred: list[Any], column: str, example: str) -> None:
    pr = af.from_labels(y_true, y_pred)
    with pytest.raises(NullValueError, match=seq(f"column '{column}'", r"\b1 null value", example)):
        pr.evaluate()


def test_labels_arrays_null_in_one_array_only() -> None:
    with pytest.raises(NullValueError, match=seq("column 'y_true'", r"\b1 null value", "y_true=None")):
        af.from_labels([0, None, 1], [0, 1, 1]).evaluate()


def test_labels_arrays_nan() -> None:
    pr = af.from_labels(np.array([0.0, NAN, 1.0]), np.array([0.0, 1.0, 1.0]))
    with pytest.raises((NullValueError, InvalidValueError), match=seq("y_true", r"\b1 ", "nan")):
        pr.evaluate()


def test_labels_arrays_of_different_label_types() -> None:
    with pytest.raises(
        InvalidValueError, match=seq(r"'y_true' \(Int64\)", r"'y_pred' \(String\)", "different types")
    ):
        af.from_labels([0, 1, 2], ["a", "b", "c"])


def test_labels_arrays_class_outside_declared_classes() -> None:
    pr = af.from_labels([0, 1, 2, 2], [0, 1, 1, 2], classes=[0, 1])
    with pytest.raises(
        UnknownClassError, match=seq(r"\b2 row\(s\) with a label outside", r"e\.g\. 2", re.escape("[0, 1]"))
    ):
        pr.evaluate()


def test_labels_arrays_class_outside_n_classes() -> None:
    pr = af.from_labels([0, 1, 3, 0], [0, 1, 1, 3], n_classes=3)
    with pytest.raises(
        UnknownClassError,
        match=seq(r"\b2 row\(s\) with a label outside", r"e\.g\. 3", re.escape("[0, 1, 2]")),
    ):
        pr.evaluate()


def test_labels_string_arrays_with_n_classes() -> None:
    # n_classes means the classes 0 .. n-1: string labels fall outside that universe
    pr = af.from_labels(["a", "b"], ["a", "a"], n_classes=2)
    with pytest.raises(UnknownClassError, match=seq(r"\b2 row\(s\) with a label outside", r"e\.g\. '[ab]'")):
        pr.evaluate()


def test_labels_arrays_binary_task_with_three_classes() -> None:
    pr = af.from_labels([0, 1, 2], [0, 1, 1], task="binary")
    with pytest.raises(OptionError, match=seq("task='binary'", r"\b3 classes", re.escape("[0, 1, 2]"))):
        pr.compute("f1", "macro")


# ---------------------------------------------------------------------------
# Column types no engine groups by, and columns of nothing but nulls


OBJECTS = pl.Series([1, None, "x", 2], dtype=pl.Object)


@pytest.mark.parametrize(
    ("build", "column", "what"),
    [
        (lambda f: af.from_labels(f).evaluate("f1", "macro", by="g"), "g", "by column"),
        (lambda f: af.from_labels(f.lazy()).evaluate("f1", "macro", by="g", lazy=True), "g", "by column"),
        (lambda f: af.from_labels(f).to_cells(by="g"), "g", "by column"),
        (lambda f: af.from_labels(f, fold="g"), "g", "role 'fold'"),
        (lambda f: af.from_labels(f, example="g"), "g", "role 'example'"),
        (lambda f: af.from_labels(f, example="e", target="g"), "g", "role 'target'"),
        (lambda f: af.from_labels(f.with_columns(y_true=OBJECTS)), "y_true", "role 'y_true'"),
    ],
)
def test_labels_object_column(build: Any, column: str, what: str) -> None:
    """A column of Python objects is refused by name before any query (it was a Rust panic
    reported as "could not read the frame: Unsupported in row encoding")."""
    frame = pl.DataFrame({"y_true": [0, 1, 1, 0], "y_pred": [0, 1, 0, 0], "e": [0, 1, 2, 3]}).with_columns(
        g=OBJECTS
    )
    with pytest.raises(InvalidValueError, match=seq(f"column '{column}'", re.escape(f"({what})"), "Object")):
        build(frame)


@pytest.mark.parametrize(
    ("frame", "column", "example"),
    [
        (pl.DataFrame({"y_true": [1, 0], "y_pred": [None, None]}), "y_pred", "y_true=1, y_pred=None"),
        (pl.DataFrame({"y_true": [None, None], "y_pred": ["a", "b"]}), "y_true", "y_true=None, y_pred='a'"),
        (
            pl.DataFrame({"y_true": [None, None], "y_pred": [None, None]}),
            "y_true",
            "y_true=None, y_pred=None",
        ),
    ],
)
@pytest.mark.parametrize("lazy", [False, True])
def test_labels_column_of_nulls_only(frame: pl.DataFrame, column: str, example: str, lazy: bool) -> None:
    """A label column of dtype Null (nothing but nulls) is a NullValueError with the count, not a type mix."""
    assert pl.Null in frame.dtypes
    pr = af.from_labels(frame.lazy() if lazy else frame)
    with pytest.raises(
        NullValueError, match=seq(f"column '{column}'", r"\b2 null value", re.escape(example))
    ):
        pr.evaluate("f1", "macro", lazy=lazy).lazy().collect()


# ---------------------------------------------------------------------------
# Two label columns of different numeric types: one type that holds every label exactly


@pytest.mark.parametrize(
    ("y_true", "y_pred", "refused"),
    [
        # integers next to floats are read as Float64: beyond 2^53 two labels could become one
        (
            pl.Series([2**53 + 1, 2**53, 0]),
            pl.Series([2**53 + 1.0, 2**53 + 0.0, 0.0]),
            ("y_true", "1 integer label(s) beyond 2^53", "y_true=9007199254740993"),
        ),
        (
            pl.Series([1.0, 0.0]),
            pl.Series([-(2**60), 0], dtype=pl.Int64),
            ("y_pred", "1 integer label(s) beyond 2^53", "y_pred=-1152921504606846976"),
        ),
        # UInt64 next to signed integers is read as Int64: above 2^63 - 1 a label does not fit
        (
            pl.Series([-1, 0], dtype=pl.Int8),
            pl.Series([2**63, 0], dtype=pl.UInt64),
            ("y_pred", "1 label(s) above 2^63 - 1", "y_pred=9223372036854775808"),
        ),
    ],
)
@pytest.mark.parametrize("lazy", [False, True])
def test_labels_that_the_common_type_cannot_hold(
    y_true: pl.Series, y_pred: pl.Series, refused: tuple[str, str, str], lazy: bool
) -> None:
    """Refused by name, with the count and the row, never merged into another label nor a raw cast error.

    Regression: int next to float labels beyond 2^53 were merged (f1 1.0 over 2 classes where
    scikit-learn has 3), UInt64 next to Int8 was "could not read the frame: conversion from
    u64 to i64 failed in column '__af_y_pred'".
    """
    column, what, example = refused
    frame = pl.DataFrame({"y_true": y_true, "y_pred": y_pred})
    pr = af.from_labels(frame.lazy() if lazy else frame)
    with pytest.raises(
        InvalidValueError,
        match=seq(f"column '{column}'", re.escape(what), re.escape(example), "one type"),
    ):
        pr.evaluate("f1", "macro", lazy=lazy).lazy().collect()


@pytest.mark.parametrize(
    ("true_dtype", "pred_dtype"),
    [(pl.UInt64, pl.UInt8), (pl.UInt64, pl.Int8), (pl.Int16, pl.Float32), (pl.UInt32, pl.Int64)],
)
def test_labels_of_two_numeric_types_match_sklearn(true_dtype: pl.DataType, pred_dtype: pl.DataType) -> None:
    """Labels of two numeric types that fit one type are the same classes as scikit-learn's."""
    from sklearn.metrics import f1_score

    y_true, y_pred = [0, 1, 2, 2, 7, 1], [0, 2, 2, 1, 7, 1]
    frame = pl.DataFrame(
        {"y_true": pl.Series(y_true, dtype=true_dtype), "y_pred": pl.Series(y_pred, dtype=pred_dtype)}
    )
    got = af.from_labels(frame).compute("f1", "macro")
    assert got == pytest.approx(f1_score(y_true, y_pred, average="macro"))


def test_labels_unsigned_beyond_int64_keep_their_classes() -> None:
    """Two unsigned columns are read as UInt64: a label above 2^63 - 1 is one class of its own."""
    big = 2**63 + 5
    frame = pl.DataFrame(
        {
            "y_true": pl.Series([big, 0, big, 7], dtype=pl.UInt64),
            "y_pred": pl.Series([1, 0, 0, 7], dtype=pl.UInt8),
        }
    )
    per_class = af.from_labels(frame).per_class("recall")
    assert per_class["class"].to_list() == [0, 1, 7, big]
    assert af.from_labels(frame).compute("f1", "macro") == pytest.approx((0 + 2 / 3 + 0 + 1) / 4)


def test_labels_decimals_next_to_other_numbers() -> None:
    """A Decimal label column next to integers is read as Float64 when it has at most 15 digits
    (two such decimals are two floats: 1.5 stays a class of its own), refused with more.

    Regression: the labels were cast to Int64, so the class 1.5 silently became 1 (f1 1.0, not 1/3).
    """
    from decimal import Decimal

    from sklearn.metrics import f1_score

    def frame(precision: int) -> pl.DataFrame:
        return pl.DataFrame(
            {
                "y_true": pl.Series([Decimal("1.5"), Decimal("1")], dtype=pl.Decimal(precision, 1)),
                "y_pred": [1, 1],
            }
        )

    expected = f1_score(["1.5", "1"], ["1", "1"], average="macro")  # two classes, as strings
    assert expected == pytest.approx(1 / 3)
    assert af.from_labels(frame(10)).compute("f1", "macro") == pytest.approx(expected)
    with pytest.raises(
        InvalidValueError, match=seq(r"'y_true' \(Decimal", "more digits than a Float64", "one type")
    ):
        af.from_labels(frame(20))


def test_labels_lists_mixing_numbers_and_strings() -> None:
    """A Python list of numbers and strings is refused as an object array is (scikit-learn: "Mix of
    label input types"). Regression: NumPy turned ``[0, "a", 1]`` into strings, so 0 matched "0"
    and f1 was 1.0."""
    with pytest.raises(
        InvalidValueError, match=seq("y_true mixes label types", r"2 int \(e.g. 0\)", r"1 str \(e.g. 'a'\)")
    ):
        af.from_labels([0, "a", 1], ["0", "a", "1"])
    assert af.from_labels(["a", "b", None][:2], ["a", "a"]).compute("f1", "macro") == pytest.approx(1 / 3)


def test_unfit_labels_with_a_null_key_and_internal_names() -> None:
    """The labels the common type cannot hold are refused under any column names and with null keys."""
    frame = pl.DataFrame({"_t": [None, "g"], "n": [2**53 + 1, 0], "value": [1.0, 0.0]})
    with pytest.raises(InvalidValueError, match=seq("column 'n'", "1 integer label", "n=9007199254740993")):
        af.from_labels(frame, y_true="n", y_pred="value").evaluate("f1", "macro", by="_t")
    fits = frame.with_columns(pl.col("n").clip(upper_bound=1))
    got = af.from_labels(fits, y_true="n", y_pred="value").evaluate("recall", "micro", by="_t")
    assert got.sort("_t", nulls_last=True)["value"].to_list() == [1.0, 1.0]
