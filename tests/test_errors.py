"""Bad input: the specific AggframeError subclass, with a message that says what and where.

Every data error must name the column, the number of offending rows and one
offending value (or row). Construction only checks column names, dtypes and
options; the data checks run at the first evaluation (inside the lazy plan), so
the tests call ``.evaluate()`` / ``.compute(...)`` to trigger them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aggframe as af
from aggframe import (
    AggframeError,
    ColumnNotFoundError,
    DuplicateEntryError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    ShapeError,
    SparseInputError,
    UnknownClassError,
    UnknownNameError,
)

NAN = float("nan")

# ---------------------------------------------------------------------------
# Builders


def long_frame(**columns: Any) -> pl.DataFrame:
    """A dense, valid long frame: 3 examples (10, 11, 12) x 2 classes (a, b); columns override."""
    data: dict[str, Any] = {
        "example": [10, 10, 11, 11, 12, 12],
        "class": ["a", "b", "a", "b", "a", "b"],
        "y": [1.0, 0.0, 0.0, 1.0, 1.0, 0.0],
        "p": [1.0, 0.0, 1.0, 0.0, 0.0, 1.0],
    }
    data.update(columns)
    return pl.DataFrame(data)


def label_frame(**columns: Any) -> pl.DataFrame:
    """A valid label frame: 4 examples (ids 1..4), classes 0/1; columns override."""
    data: dict[str, Any] = {"id": [1, 2, 3, 4], "y_true": [0, 1, 1, 0], "y_pred": [0, 1, 0, 0]}
    data.update(columns)
    return pl.DataFrame(data)


def indicator() -> tuple[np.ndarray, np.ndarray]:
    """Valid 3 x 2 indicator matrices (Y, P)."""
    Y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    P = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    return Y, P


def seq(*pieces: str) -> str:
    """A regex matching the given regex pieces in this order (anything in between)."""
    return ".*".join(pieces)


AVAILABLE_LONG = re.escape("available columns: ['example', 'class', 'y', 'p']")
AVAILABLE_LABELS = re.escape("available columns: ['id', 'y_true', 'y_pred']")


# ---------------------------------------------------------------------------
# The hierarchy


def test_aggframe_error_is_a_value_error() -> None:
    assert issubclass(AggframeError, ValueError)
    with pytest.raises(ValueError, match="unknown operator"):
        af.from_labels([0, 1], [0, 1]).compute("f1", "nope")


@pytest.mark.parametrize(
    "cls",
    [
        ColumnNotFoundError,
        DuplicateEntryError,
        EmptyInputError,
        InvalidValueError,
        NullValueError,
        OptionError,
        ShapeError,
        SparseInputError,
        UnknownClassError,
        UnknownNameError,
    ],
)
def test_every_error_is_an_aggframe_error(cls: type[Exception]) -> None:
    assert issubclass(cls, AggframeError)
    assert issubclass(cls, ValueError)


# ---------------------------------------------------------------------------
# Long form: columns


@pytest.mark.parametrize(
    ("role", "column"),
    [("example", "example"), ("class_", "class"), ("y", "y"), ("p", "p")],
)
def test_long_missing_role_column(role: str, column: str) -> None:
    frame = long_frame().drop(column)
    available = re.escape(f"available columns: {frame.columns}")
    with pytest.raises(ColumnNotFoundError, match=seq(f"column '{column}' \\(role '{role}'\\)", available)):
        af.from_long(frame)


@pytest.mark.parametrize("role", ["example", "class_", "y", "p"])
def test_long_misnamed_role_column(role: str) -> None:
    with pytest.raises(ColumnNotFoundError, match=seq(f"column 'nope' \\(role '{role}'\\)", AVAILABLE_LONG)):
        af.from_long(long_frame(), **{role: "nope"})


def test_long_missing_mask_column() -> None:
    with pytest.raises(ColumnNotFoundError, match=seq(r"column 'm' \(role 'mask'\)", AVAILABLE_LONG)):
        af.from_long(long_frame(), mask="m")


def test_long_missing_role_column_lazyframe() -> None:
    with pytest.raises(ColumnNotFoundError, match=seq(r"column 'truth' \(role 'y'\)", AVAILABLE_LONG)):
        af.from_long(long_frame().lazy(), y="truth")


def test_long_missing_by_column() -> None:
    pr = af.from_long(long_frame())
    with pytest.raises(ColumnNotFoundError, match=seq("by column 'model'", AVAILABLE_LONG)):
        pr.evaluate(by="model")


def test_long_missing_by_column_in_parts() -> None:
    pr = af.from_long(long_frame())
    with pytest.raises(ColumnNotFoundError, match=seq("by column 'model'", AVAILABLE_LONG)):
        pr.parts("f1", "macro", by="model")


def test_by_column_colliding_with_a_result_column() -> None:
    pr = af.from_long(long_frame(value=[1] * 6))
    with pytest.raises(OptionError, match="column 'value' collides with a column of the evaluate result"):
        pr.evaluate(by="value")


def test_by_columns_repeating_a_name() -> None:
    pr = af.from_long(long_frame(g=[1] * 6))
    with pytest.raises(OptionError, match=re.escape("by columns repeat a name: ['g', 'g']")):
        pr.evaluate(by=["g", "g"])


def test_long_frame_of_wrong_type() -> None:
    with pytest.raises(OptionError, match=r"Expected `frame` to be a DataFrame or LazyFrame.*got dict"):
        af.from_long({"example": [0], "class": [0], "y": [1], "p": [1]})


# ---------------------------------------------------------------------------
# Long form: nulls


@pytest.mark.parametrize(
    ("overrides", "mask", "column", "count", "example"),
    [
        ({"example": [10, 10, 11, None, 12, 12]}, None, "example", 1, r"example=None, class='b'"),
        ({"class": ["a", "b", None, "b", "a", None]}, None, "class", 2, r"example=11, class=None"),
        ({"y": [1.0, 0.0, 0.0, None, 1.0, 0.0]}, None, "y", 1, r"example=11, class='b', y=None"),
        ({"p": [1.0, None, 1.0, 0.0, None, None]}, None, "p", 3, r"example=10, class='b', y=0.0, p=None"),
        ({"m": [1.0, 1.0, 1.0, 1.0, None, 1.0]}, "m", "m", 1, r"example=12, class='a', .*m=None"),
    ],
    ids=["example", "class", "y", "p", "mask"],
)
def test_long_null_in_role_column(
    overrides: dict[str, Any], mask: str | None, column: str, count: int, example: str
) -> None:
    pr = af.from_long(long_frame(**overrides), mask=mask)
    with pytest.raises(NullValueError, match=seq(f"column '{column}'", rf"\b{count} null value", example)):
        pr.evaluate()


def test_long_null_in_boolean_y() -> None:
    frame = long_frame(y=pl.Series([True, False, None, True, True, False]))
    with pytest.raises(
        NullValueError, match=seq("column 'y'", r"\b1 null value", "example=11, class='a', y=None")
    ):
        af.from_long(frame).compute("f1", "macro")


def test_long_null_with_renamed_roles() -> None:
    frame = long_frame(y=[1.0, 0.0, 0.0, None, 1.0, 0.0]).rename({"y": "truth", "example": "doc"})
    with pytest.raises(
        NullValueError, match=seq("column 'truth'", r"\b1 null value", "doc=11, class='b', truth=None")
    ):
        af.from_long(frame, y="truth", example="doc").evaluate()


# ---------------------------------------------------------------------------
# Long form: values


@pytest.mark.parametrize(
    ("overrides", "mask", "column", "count", "example"),
    [
        ({"y": [1.0, 0.0, 2.0, 1.0, 1.0, 0.0]}, None, "y", 1, r"example=11, class='a', y=2\.0"),
        ({"p": [1.0, 0.0, 1.0, -0.5, 0.0, -1.0]}, None, "p", 2, r"example=11, class='b', .*p=-0\.5"),
        ({"m": [1.0, 1.0, 1.0, 1.0, 1.0, 3.0]}, "m", "m", 1, r"example=12, class='b', .*m=3\.0"),
        ({"y": [1, 0, 0, 5, 1, 0]}, None, "y", 1, r"example=11, class='b', y=5"),
    ],
    ids=["y>1", "p<0", "mask>1", "y-int"],
)
def test_long_value_outside_unit_interval(
    overrides: dict[str, Any], mask: str | None, column: str, count: int, example: str
) -> None:
    pr = af.from_long(long_frame(**overrides), mask=mask)
    pattern = seq(f"column '{column}'", rf"\b{count} value\(s\) outside \[0, 1\]", example)
    with pytest.raises(InvalidValueError, match=pattern):
        pr.evaluate()


@pytest.mark.parametrize(
    ("overrides", "mask", "column", "count", "example"),
    [
        ({"y": [1.0, NAN, 0.0, 1.0, 1.0, 0.0]}, None, "y", 1, r"example=10, class='b', y=nan"),
        ({"p": [1.0, 0.0, NAN, 0.0, NAN, 1.0]}, None, "p", 2, r"example=11, class='a', .*p=nan"),
        ({"m": [1.0, 1.0, 1.0, NAN, 1.0, 1.0]}, "m", "m", 1, r"example=11, class='b', .*m=nan"),
    ],
    ids=["y", "p", "mask"],
)
def test_long_nan_in_role_column(
    overrides: dict[str, Any], mask: str | None, column: str, count: int, example: str
) -> None:
    pr = af.from_long(long_frame(**overrides), mask=mask)
    with pytest.raises(
        InvalidValueError, match=seq(f"column '{column}'", rf"\b{count} value\(s\).*NaN", example)
    ):
        pr.evaluate()


def test_long_nan_is_rejected_even_with_a_tnorm() -> None:
    pr = af.from_long(long_frame(y=[1.0, NAN, 0.0, 1.0, 1.0, 0.0]), tnorm="product")
    with pytest.raises(InvalidValueError, match=seq("column 'y'", r"\b1 value\(s\)", "y=nan")):
        pr.evaluate()


@pytest.mark.parametrize(
    ("overrides", "mask", "role", "column"),
    [
        ({"y": ["1", "0", "0", "1", "1", "0"]}, None, "y", "y"),
        ({"p": ["1", "0", "1", "0", "0", "1"]}, None, "p", "p"),
        ({"m": ["1"] * 6}, "m", "mask", "m"),
    ],
    ids=["y", "p", "mask"],
)
def test_long_non_numeric_role_column(
    overrides: dict[str, Any], mask: str | None, role: str, column: str
) -> None:
    # a schema check at construction: it names the column and its dtype (no rows are read)
    with pytest.raises(
        InvalidValueError, match=seq(f"column '{column}' \\(role '{role}'\\)", "dtype String")
    ):
        af.from_long(long_frame(**overrides), mask=mask)


def test_long_non_numeric_role_column_lazyframe() -> None:
    frame = long_frame(p=pl.Series([None] * 6, dtype=pl.Date)).lazy()
    with pytest.raises(InvalidValueError, match=seq(r"column 'p' \(role 'p'\)", "dtype Date")):
        af.from_long(frame)


@pytest.mark.parametrize(
    ("overrides", "column", "count", "example"),
    [
        ({"y": [1.0, 0.0, 0.5, 1.0, 1.0, 0.0]}, "y", 1, r"example=11, class='a', y=0\.5"),
        ({"p": [1.0, 0.25, 1.0, 0.0, 0.9, 1.0]}, "p", 2, r"example=10, class='b', y=0\.0, p=0\.25"),
    ],
    ids=["y", "p"],
)
def test_long_soft_values_without_tnorm(
    overrides: dict[str, Any], column: str, count: int, example: str
) -> None:
    pr = af.from_long(long_frame(**overrides))
    pattern = seq(f"column '{column}'", rf"\b{count} soft value", example, "no t-norm", "tnorm='product'")
    with pytest.raises(InvalidValueError, match=pattern):
        pr.evaluate()


def test_long_soft_values_with_tnorm_are_accepted() -> None:
    pr = af.from_long(long_frame(p=[1.0, 0.25, 1.0, 0.0, 0.9, 1.0]), tnorm="product")
    assert 0.0 <= pr.compute("f1", "macro") <= 1.0


def test_long_soft_mask_without_tnorm() -> None:
    pr = af.from_long(long_frame(m=[1.0, 0.5, 1.0, 1.0, 1.0, 1.0]), mask="m")
    with pytest.raises(InvalidValueError, match=seq("column 'm'", r"\b1 ", r"m=0\.5")):
        pr.evaluate()


# ---------------------------------------------------------------------------
# Long form: structure


def test_long_duplicate_entries() -> None:
    frame = pl.concat([long_frame(), long_frame()[3:4]])  # (11, 'b') twice
    pattern = seq(r"columns \('example', 'class'\)", r"\b1 duplicate entr", "example=11, class='b', copies=2")
    with pytest.raises(DuplicateEntryError, match=pattern):
        af.from_long(frame).evaluate()


def test_long_duplicate_entries_counts_every_extra_copy() -> None:
    frame = pl.concat([long_frame(), long_frame()[0:1], long_frame()[0:1], long_frame()[5:6]])
    pattern = seq(r"\b3 duplicate entr", "example=(10, class='a', copies=3|12, class='b', copies=2)")
    with pytest.raises(DuplicateEntryError, match=pattern):
        af.from_long(frame).evaluate()


def test_long_duplicate_entries_within_a_by_group() -> None:
    m1 = long_frame(model=["m1"] * 6)
    m2 = long_frame(model=["m2"] * 6)
    frame = pl.concat([m1, m2, m2[4:5]])  # (12, 'a') twice within m2
    pattern = seq(r"\b1 duplicate entr", "model='m2', example=12, class='a', copies=2", "per by-group")
    with pytest.raises(DuplicateEntryError, match=pattern):
        af.from_long(frame).evaluate(by="model")


def test_long_same_entry_in_two_by_groups_is_fine_but_duplicate_without_by() -> None:
    frame = pl.concat([long_frame(model=["m1"] * 6), long_frame(model=["m2"] * 6)])
    pr = af.from_long(frame)
    assert pr.evaluate("f1", "micro", by="model").height == 2
    with pytest.raises(DuplicateEntryError, match=seq(r"\b6 duplicate entr", "copies=2")):
        pr.evaluate()


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from([0, 1, 63, 64, 127, 128, 191, 256, -1, -128])),
        min_size=1,
        max_size=25,
    ),
    st.sampled_from([pl.Int64, pl.Int16, pl.UInt8, pl.UInt64, pl.String]),
    st.sampled_from([0, 100, 600]),
)
def test_long_duplicate_check_is_exact_for_any_class_values(
    entries: list[tuple[int, int]], dtype: pl.DataType, universe: int
) -> None:
    # Integer classes take the bit-word check of the wide step, with as many 64-bit
    # words as the declared class count needs (1 here, 2 for 100 classes, an exact
    # distinct count for 600), where classes 64 * words apart share a bit (a
    # suspicion that the exact recount clears); strings count distinct values.
    # Either way: an error exactly when an entry repeats, with the exact number of
    # surplus rows.
    frame = pl.DataFrame(
        {"example": [e for e, _ in entries], "class": [c for _, c in entries]},
        schema_overrides={"class": pl.Int64},
    ).with_columns(pl.lit(1).alias("y"), pl.lit(1).alias("p"))
    if dtype == pl.UInt8:
        frame = frame.filter(pl.col("class").is_between(0, 255))
    if frame.height == 0:
        return
    if dtype == pl.UInt64:  # beyond the Int64 range
        frame = frame.with_columns(pl.col("class").cast(pl.Int128) + 2**63)
    frame = frame.with_columns(pl.col("class").cast(dtype))
    present = frame["class"].unique().to_list()
    filler = pl.Series([f"pad{i}" for i in range(universe)]).cast(dtype, strict=False).drop_nulls()
    if dtype != pl.String:
        filler = pl.Series(range(20_000, 20_000 + universe)).cast(dtype, strict=False).drop_nulls()
    classes = list(dict.fromkeys([*present, *filler.to_list()]))
    surplus = frame.height - frame.unique(["example", "class"]).height
    pr = af.from_long(frame, classes=classes)
    if surplus:
        with pytest.raises(DuplicateEntryError, match=rf"\b{surplus} duplicate entr"):
            pr.evaluate("f1", "micro")
    else:
        assert pr.evaluate("f1", "micro")["value"][0] == 1.0


def test_long_class_outside_declared_classes() -> None:
    pr = af.from_long(long_frame(), classes=["a"])
    pattern = seq("column 'class'", r"\b3 row\(s\) with a class outside", r"e\.g\. 'b'", re.escape("['a']"))
    with pytest.raises(UnknownClassError, match=pattern):
        pr.evaluate()


def test_long_class_outside_n_classes() -> None:
    frame = long_frame(**{"class": [0, 1, 0, 7, 0, 1]})
    pr = af.from_long(frame, n_classes=2)
    pattern = seq("column 'class'", r"\b1 row\(s\) with a class outside", r"e\.g\. 7", re.escape("[0, 1]"))
    with pytest.raises(UnknownClassError, match=pattern):
        pr.compute("f1", "macro")


@pytest.mark.parametrize("form", ["long", "labels"])
def test_unknown_class_check_uses_no_deprecated_polars_api(
    form: str, capfd: pytest.CaptureFixture[str]
) -> None:
    if form == "long":
        pr = af.from_long(long_frame(), classes=["a"])
    else:
        pr = af.from_labels([0, 1, 2], [0, 1, 1], classes=[0, 1])
    with pytest.raises(UnknownClassError):
        pr.evaluate()
    # Polars prints its deprecations (e.g. Expr.is_in(<Series of the same dtype>),
    # pola-rs/polars#22149) to stderr, out of reach of filterwarnings=error
    assert "DeprecationWarning" not in capfd.readouterr().err


def test_long_class_outside_enum_universe_and_classes() -> None:
    frame = long_frame(**{"class": pl.Series(["a", "b"] * 3, dtype=pl.Enum(["a", "b"]))})
    with pytest.raises(UnknownClassError, match=seq(r"\b3 row\(s\)", r"e\.g\. 'b'")):
        af.from_long(frame, classes=["a"]).evaluate()


def test_long_sparse_frame_without_universe() -> None:
    frame = long_frame()[:5]  # (12, 'b') absent
    pattern = seq(
        "column 'class'",
        "sparse",
        r"\b1 \(example, class\) entries",
        "of 2 classes",
        "classes=",
        "n_classes=",
    )
    with pytest.raises(SparseInputError, match=pattern):
        af.from_long(frame).evaluate()


def test_long_sparse_frame_message_names_an_incomplete_example() -> None:
    frame = long_frame()[:5]
    with pytest.raises(SparseInputError, match=seq(r"\b1 ", "12")):
        af.from_long(frame).evaluate()


def test_long_sparse_frame_within_a_by_group() -> None:
    frame = pl.concat([long_frame(g=["x"] * 6), long_frame(g=["y"] * 6)[1:]])
    with pytest.raises(SparseInputError, match=seq("column 'class'", r"\b1 \(example, class\) entries")):
        af.from_long(frame).evaluate(by="g")


def test_long_sparse_frame_with_universe_is_fine() -> None:
    assert af.from_long(long_frame()[:5], classes=["a", "b"]).evaluate("f1", "macro").height == 1


def test_long_empty_frame() -> None:
    with pytest.raises(EmptyInputError, match="no rows"):
        af.from_long(long_frame()[:0]).evaluate()


def test_long_empty_lazyframe_with_universe() -> None:
    with pytest.raises(EmptyInputError, match="no rows"):
        af.from_long(long_frame()[:0].lazy(), classes=["a", "b"]).compute("f1", "macro")


# ---------------------------------------------------------------------------
# Class universe options


@pytest.mark.parametrize("n_classes", [0, -1, 2.5, True, "2"], ids=["0", "-1", "2.5", "True", "str"])
def test_long_bad_n_classes(n_classes: Any) -> None:
    with pytest.raises(OptionError, match=seq("`n_classes`", "positive integer", re.escape(repr(n_classes)))):
        af.from_long(long_frame(), n_classes=n_classes)


@pytest.mark.parametrize("n_classes", [0, -1, 2.5, True], ids=["0", "-1", "2.5", "True"])
def test_labels_bad_n_classes(n_classes: Any) -> None:
    with pytest.raises(OptionError, match=seq("`n_classes`", "positive integer", re.escape(repr(n_classes)))):
        af.from_labels([0, 1, 1], [0, 1, 0], n_classes=n_classes)


@pytest.mark.parametrize("classes", [["a", "b"], [0, 1, 2], [1, 0]])
def test_long_classes_and_n_classes_disagree(classes: list[Any]) -> None:
    with pytest.raises(OptionError, match=r"`n_classes=2` and `classes` disagree"):
        af.from_long(long_frame(), n_classes=2, classes=classes)


def test_labels_classes_and_n_classes_disagree() -> None:
    with pytest.raises(OptionError, match=r"`n_classes=3` and `classes` disagree"):
        af.from_labels(label_frame(), n_classes=3, classes=[0, 1])


def test_classes_and_n_classes_agreeing_is_fine() -> None:
    pr = af.from_labels([0, 1, 1], [0, 1, 0], n_classes=2, classes=[0, 1])
    assert pr.compute("f1", "micro") == pytest.approx(2 / 3)


def test_empty_classes() -> None:
    with pytest.raises(OptionError, match="at least one class"):
        af.from_long(long_frame(), classes=[])


def test_repeated_classes() -> None:
    with pytest.raises(OptionError, match="repeat a value: 'a'"):
        af.from_long(long_frame(), classes=["a", "a", "b"]).evaluate()


def test_classes_not_castable_to_the_class_column() -> None:
    frame = long_frame(**{"class": [0, 1] * 3})
    with pytest.raises(OptionError, match=seq("column 'class'", re.escape("['x', 'y']"), "Int64")):
        af.from_long(frame, classes=["x", "y"]).evaluate()


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
# Indicator matrices


@pytest.mark.parametrize(
    ("Y", "P", "pattern"),
    [
        (np.ones((3, 2)), np.ones((3, 3)), r"Y has shape \(3, 2\) but P has shape \(3, 3\)"),
        (np.ones((2, 2)), np.ones((3, 2)), r"Y has shape \(2, 2\) but P has shape \(3, 2\)"),
        (np.ones(3), np.ones((2, 1)), r"Y has shape \(3,\) but P has shape \(2, 1\)"),
        (np.ones((2, 2, 2)), np.ones((2, 2, 2)), r"Y has shape \(2, 2, 2\)"),
    ],
    ids=["columns", "rows", "1d-vs-2d", "3d"],
)
def test_indicator_shapes_mismatch(Y: np.ndarray, P: np.ndarray, pattern: str) -> None:
    with pytest.raises(ShapeError, match=pattern):
        af.from_indicator(Y, P)


def test_indicator_mask_shape_mismatch() -> None:
    Y, P = indicator()
    with pytest.raises(ShapeError, match=r"mask has shape \(2, 2\) but Y and P have shape \(3, 2\)"):
        af.from_indicator(Y, P, mask=np.ones((2, 2)))


def test_indicator_ragged_lists() -> None:
    with pytest.raises(ShapeError):
        af.from_indicator([[1, 0], [0]], [[1, 0], [0, 1]])


@pytest.mark.parametrize("shape", [(0, 3), (0,), (3, 0)])
def test_indicator_empty(shape: tuple[int, ...]) -> None:
    with pytest.raises(EmptyInputError, match="empty"):
        af.from_indicator(np.zeros(shape), np.zeros(shape))


@pytest.mark.parametrize("which", ["Y", "P", "mask"])
def test_indicator_non_numeric(which: str) -> None:
    Y, P = indicator()
    arrays: dict[str, Any] = {"Y": Y, "P": P, "mask": np.ones_like(Y)}
    arrays[which] = arrays[which].astype(str)
    with pytest.raises(InvalidValueError, match=seq(f"{which} has dtype <U", "expected booleans or numbers")):
        af.from_indicator(arrays["Y"], arrays["P"], mask=arrays["mask"])


@pytest.mark.parametrize(
    ("which", "column", "value", "shown"),
    [
        ("Y", "y", 2.0, r"y=2\.0"),
        ("P", "p", -1.0, r"p=-1\.0"),
        ("mask", "mask", 3.0, r"mask=3\.0"),
        ("Y", "y", NAN, "y=nan"),
        ("P", "p", NAN, "p=nan"),
        ("mask", "mask", NAN, "mask=nan"),
    ],
    ids=["Y>1", "P<0", "mask>1", "Y-nan", "P-nan", "mask-nan"],
)
def test_indicator_value_outside_unit_interval(which: str, column: str, value: float, shown: str) -> None:
    Y, P = indicator()
    arrays = {"Y": Y, "P": P, "mask": np.ones_like(Y)}
    arrays[which][2, 1] = value
    pr = af.from_indicator(arrays["Y"], arrays["P"], mask=arrays["mask"])
    pattern = seq(
        f"column '{column}'", r"\b1 value\(s\) outside \[0, 1\] or NaN", "example=2, class=1", shown
    )
    with pytest.raises(InvalidValueError, match=pattern):
        pr.evaluate()


def test_indicator_soft_without_tnorm() -> None:
    Y, P = indicator()
    P[0, 0], P[2, 1] = 0.7, 0.2
    pattern = seq("column 'p'", r"\b2 soft value", r"example=0, class=0, y=1\.0, p=0\.7", "no t-norm")
    with pytest.raises(InvalidValueError, match=pattern):
        af.from_indicator(Y, P).evaluate()


def test_indicator_unknown_tnorm() -> None:
    Y, P = indicator()
    with pytest.raises(
        UnknownNameError, match=seq("unknown t-norm 'prodcut'", "godel", "lukasiewicz", "product")
    ):
        af.from_indicator(Y, P, tnorm="prodcut")


# ---------------------------------------------------------------------------
# Names and options


def test_unknown_measure_lists_valid_names() -> None:
    pr = af.from_long(long_frame())
    pattern = seq("unknown measure 'f1_scor'", "balanced_accuracy", "f1", "mcc", "specificity", "f<beta>")
    with pytest.raises(UnknownNameError, match=pattern):
        pr.evaluate(["f1", "f1_scor"])


def test_unknown_measure_in_compute_and_parts() -> None:
    pr = af.from_labels([0, 1, 1], [0, 1, 0])
    with pytest.raises(UnknownNameError, match=r"unknown measure 'nope'.*valid names: .*precision"):
        pr.compute("nope", "macro")
    with pytest.raises(UnknownNameError, match=r"unknown measure 'nope'.*valid names: .*precision"):
        pr.parts("nope")


def test_get_measure_of_a_wrong_type() -> None:
    with pytest.raises(UnknownNameError, match=r"Expected a measure name or an af\.Measure, got int"):
        af.get_measure(3)  # type: ignore[arg-type]


def test_evaluate_measure_of_a_wrong_type() -> None:
    with pytest.raises(UnknownNameError, match="got int"):
        af.from_labels([0, 1, 1], [0, 1, 0]).evaluate(3)  # type: ignore[arg-type]


def test_unknown_operator_lists_valid_names() -> None:
    pr = af.from_labels([0, 1, 1], [0, 1, 0])
    pattern = seq("unknown operator 'mikro'", "micro, macro, weighted, exemplar", "binary", "target")
    with pytest.raises(UnknownNameError, match=pattern):
        pr.evaluate("f1", ["macro", "mikro"])
    with pytest.raises(UnknownNameError, match=pattern):
        pr.compute("f1", "mikro")
    with pytest.raises(UnknownNameError, match=pattern):
        pr.parts("f1", "mikro")


def test_unknown_convention_lists_valid_names() -> None:
    pr = af.from_labels([0, 1, 1], [0, 1, 0])
    pattern = seq("unknown convention 'zeros'", "exclude, zero, one, nan")
    with pytest.raises(UnknownNameError, match=pattern):
        pr.evaluate("f1", convention=["zero", "zeros"])
    with pytest.raises(UnknownNameError, match=pattern):
        pr.compute("f1", "macro", convention="zeros")


def test_empty_convention_list() -> None:
    with pytest.raises(OptionError, match="at least one convention"):
        af.from_labels([0, 1, 1], [0, 1, 0]).evaluate("f1", convention=[])


@pytest.mark.parametrize("tnorm", ["prodct", "", 3])
def test_unknown_tnorm_lists_valid_names(tnorm: Any) -> None:
    pattern = seq(
        f"unknown t-norm {re.escape(repr(tnorm))}", "godel, hamacher, lukasiewicz, minimum, product"
    )
    with pytest.raises(UnknownNameError, match=pattern):
        af.from_long(long_frame(), tnorm=tnorm)


def test_hamacher_negative_gamma() -> None:
    with pytest.raises(OptionError, match=r"`gamma`.*>= 0.*-1"):
        af.hamacher(-1)


def test_unknown_grain() -> None:
    with pytest.raises(UnknownNameError, match=r"unknown grain 'bogus'.*class, pooled, profiles"):
        af.from_labels([0, 1], [0, 1]).cells("bogus")  # type: ignore[arg-type]


@pytest.mark.parametrize("beta", [0, -1, -0.5, NAN, float("inf")], ids=["0", "-1", "-0.5", "nan", "inf"])
def test_fbeta_bad_beta(beta: float) -> None:
    with pytest.raises(OptionError, match=seq("`beta`", "positive finite", re.escape(repr(beta)))):
        af.fbeta(beta)


def test_fbeta_zero_by_name() -> None:
    with pytest.raises(OptionError, match=seq("`beta`", "positive", "0.0")):
        af.from_labels([0, 1, 1], [0, 1, 0]).compute("f0", "macro")


def test_fbeta_non_numeric_beta() -> None:
    with pytest.raises(OptionError, match="`beta`"):
        af.fbeta("x")  # type: ignore[arg-type]


def test_register_measure_formula_failing_on_expressions() -> None:
    def formula(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
        return tp.astype(float) / (tp + fp)  # ndarray.astype: fine on NumPy, no such Expr method

    name = "test_errors_astype_measure"
    try:
        pattern = seq(
            f"measure '{name}'", "NumPy arrays and on Polars expressions", "AttributeError", "astype"
        )
        with pytest.raises(OptionError, match=pattern):
            af.register_measure(name, formula)
        assert name not in af.list_measures()
    finally:
        if name in af.list_measures():
            af.unregister_measure(name)


def test_register_measure_formula_failing_on_arrays() -> None:
    name = "test_errors_float_measure"
    try:
        with pytest.raises(OptionError, match=seq(f"measure '{name}'", "failed with TypeError")):
            af.register_measure(name, lambda tp, fp, fn, tn: float(tp))
        assert name not in af.list_measures()
    finally:
        if name in af.list_measures():
            af.unregister_measure(name)


def test_register_measure_not_callable() -> None:
    with pytest.raises(OptionError, match=r"`formula` to be a callable.*str"):
        af.register_measure("test_errors_not_callable", "tp / (tp + fp)")  # type: ignore[arg-type]


def test_register_measure_taking_a_builtin_name() -> None:
    with pytest.raises(OptionError, match="'precision' is taken"):
        af.register_measure("precision", lambda tp, fp, fn, tn: tp)


def test_parts_micro_has_no_parts() -> None:
    pr = af.from_labels([0, 1, 1], [0, 1, 0])
    with pytest.raises(OptionError, match=r"micro operator pools all entries.*no parts"):
        pr.parts("f1", "micro")
    with pytest.raises(OptionError, match="no parts"):
        af.from_long(long_frame()).parts("f1", "MICRO")


# ---------------------------------------------------------------------------
# Execution paths: the data checks run inside the plan, whatever collects it

Build = Callable[[bool], af.Predictions]


def _long(frame: pl.DataFrame, **kwargs: Any) -> Build:
    return lambda lazy: af.from_long(frame.lazy() if lazy else frame, **kwargs)


def _labels(frame: pl.DataFrame, **kwargs: Any) -> Build:
    return lambda lazy: af.from_labels(frame.lazy() if lazy else frame, **kwargs)


DATA_ERRORS: dict[str, tuple[Build, type[AggframeError], str]] = {
    "null-y": (
        _long(long_frame(y=[1.0, 0.0, 0.0, None, 1.0, 0.0])),
        NullValueError,
        seq("column 'y'", r"\b1 null value", "example=11, class='b', y=None"),
    ),
    "null-mask": (
        _long(long_frame(m=[1.0, None, 1.0, 1.0, None, 1.0]), mask="m"),
        NullValueError,
        seq("column 'm'", r"\b2 null value", "example=10, class='b'"),
    ),
    "p-outside": (
        _long(long_frame(p=[1.0, 0.0, 1.0, 0.0, 0.0, 4.0])),
        InvalidValueError,
        seq("column 'p'", r"\b1 value\(s\) outside", r"example=12, class='b', y=0\.0, p=4\.0"),
    ),
    "soft-y": (
        _long(long_frame(y=[0.5, 0.0, 0.0, 1.0, 1.0, 0.0])),
        InvalidValueError,
        seq("column 'y'", r"\b1 soft value", r"example=10, class='a', y=0\.5"),
    ),
    "duplicate": (
        _long(pl.concat([long_frame(), long_frame()[2:3]])),
        DuplicateEntryError,
        seq(r"\b1 duplicate entr", "example=11, class='a', copies=2"),
    ),
    "unknown-class": (
        _long(long_frame(), classes=["b"]),
        UnknownClassError,
        seq("column 'class'", r"\b3 row\(s\)", r"e\.g\. 'a'"),
    ),
    "sparse": (
        _long(long_frame()[1:]),
        SparseInputError,
        seq("column 'class'", r"\b1 \(example, class\) entries"),
    ),
    "empty-long": (_long(long_frame()[:0]), EmptyInputError, "no rows"),
    "null-y_true": (
        _labels(label_frame(y_true=[0, 1, None, 0]), example="id"),
        NullValueError,
        seq("column 'y_true'", r"\b1 null value", "id=3, y_true=None, y_pred=0"),
    ),
    "duplicate-id": (
        _labels(label_frame(id=[5, 6, 5, 8]), example="id"),
        DuplicateEntryError,
        seq("column 'id'", r"\b1 repeated example row", "id=5, copies=2"),
    ),
    "label-outside": (
        _labels(label_frame(y_pred=[0, 1, 9, 0]), n_classes=2),
        UnknownClassError,
        seq(r"\b1 row\(s\) with a label outside", r"e\.g\. 9"),
    ),
    "binary-3-classes": (
        _labels(label_frame(y_true=[0, 1, 2, 0]), task="binary"),
        OptionError,
        seq("task='binary'", r"\b3 classes"),
    ),
    "empty-labels": (_labels(label_frame()[:0], example="id"), EmptyInputError, "no rows"),
}


def _collect(pr: af.Predictions, path: str) -> object:
    if path == "evaluate":
        return pr.evaluate()
    if path == "compute":
        return pr.compute("f1", "macro")
    if path == "streaming":
        return pr.evaluate(engine="streaming")
    plan = pr.evaluate(lazy=True)  # building the plan reads no data: no error yet
    assert isinstance(plan, pl.LazyFrame)
    if path == "lazy-plan":
        return plan.collect()
    assert path == "lazy-plan-streaming"
    return plan.collect(engine="streaming")


@pytest.mark.parametrize("path", ["evaluate", "compute", "streaming", "lazy-plan", "lazy-plan-streaming"])
@pytest.mark.parametrize("lazy_source", [False, True], ids=["DataFrame", "LazyFrame"])
@pytest.mark.parametrize("case", list(DATA_ERRORS))
def test_data_errors_fire_on_every_execution_path(case: str, lazy_source: bool, path: str) -> None:
    build, error, pattern = DATA_ERRORS[case]
    pr = build(lazy_source)
    with pytest.raises(error, match=pattern):
        _collect(pr, path)


def test_error_is_not_cached_away() -> None:
    # a failed evaluation leaves nothing behind: the next one fails the same way
    pr = af.from_long(long_frame(y=[1.0, 0.0, 0.0, None, 1.0, 0.0]).lazy())
    for _ in range(2):
        with pytest.raises(NullValueError, match=r"\b1 null value"):
            pr.evaluate("f1", "micro")


def test_lazy_plan_reports_by_group_errors() -> None:
    m1 = long_frame(model=["m1"] * 6)
    m2 = long_frame(model=["m2"] * 6)
    plan = af.from_long(pl.concat([m1, m2, m2[0:1]]).lazy()).evaluate(by="model", lazy=True)
    assert isinstance(plan, pl.LazyFrame)
    with pytest.raises(DuplicateEntryError, match=seq("model='m2', example=10, class='a'", "per by-group")):
        plan.collect(engine="streaming")
