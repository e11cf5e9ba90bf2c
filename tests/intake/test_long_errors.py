"""Bad input in the long form: the AggframeError subclass, naming the column, the count and an example."""

from __future__ import annotations

import re
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aggframe as af
from aggframe.errors import (
    ColumnNotFoundError,
    DuplicateEntryError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    SparseInputError,
    UnknownClassError,
)
from tests.builders import AVAILABLE_LONG, NAN, label_frame, long_frame, seq

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


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
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
    # Integer classes take the bit-word check of the wide step, with as many bits as
    # the declared class count needs (one 64-bit word here, one 128-bit word for 100
    # classes, an exact distinct count for 600), where classes that many bits apart
    # share a bit (a suspicion that the exact recount clears); strings count distinct values.
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


def test_long_exact_duplicate_check_narrows_the_classes_it_counts() -> None:
    # A declared universe of more than 512 integer classes takes the exact distinct
    # count, over the classes cast to the narrowest integer type holding the universe
    # (UInt16 here). Classes outside that type become null: two of them in one example
    # are one null, a shortfall the exact recount clears, so the error is the class
    # outside the universe, not a duplicate; a real repeat is still counted exactly.
    universe = list(range(1000))
    outside = pl.DataFrame(
        {"example": [0, 0, 0, 1], "class": [3, 70_000, 80_000, 3], "y": [1, 0, 1, 1], "p": [1, 1, 0, 1]}
    )
    with pytest.raises(UnknownClassError, match=seq(r"\b2 row\(s\) with a class outside", r"e\.g\. 70000")):
        af.from_long(outside, classes=universe).evaluate("f1", "micro")
    repeated = pl.DataFrame(
        {"example": [0, 0, 0, 1, 1], "class": [3, 999, 3, 5, 5], "y": [1, 0, 1, 1, 1], "p": [1, 1, 0, 1, 1]}
    )
    with pytest.raises(DuplicateEntryError, match=r"\b2 duplicate entr"):
        af.from_long(repeated, classes=universe).evaluate("f1", "micro")
    clean = repeated.unique(["example", "class"], keep="first", maintain_order=True)
    got = af.from_long(clean, classes=universe).evaluate("precision", "micro")
    assert got["value"][0] == pytest.approx(2 / 3)


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


def test_long_class_outside_a_targets_universe() -> None:
    # each target's declared classes: 'c' is one of t1's classes but not of t0's; the rows
    # are checked where they are (the wide step's flag), the count and the example from the source
    frame = pl.DataFrame(
        {
            "target": ["t0"] * 4 + ["t1"] * 4,
            "example": [1, 1, 2, 2, 1, 1, 2, 2],
            "class": ["a", "c", "a", "b", "a", "c", "a", "c"],
            "y": [1, 0, 0, 1, 1, 0, 0, 1],
            "p": [1, 0, 1, 0, 0, 1, 1, 1],
        }
    )
    universe = {"t0": ["a", "b"], "t1": ["a", "c"]}
    pr = af.from_long(frame, target="target", classes=universe)
    # the message lists the target's own classes, not every target's
    pattern = seq(
        "column 'class'",
        r"\b1 row\(s\) with a class outside",
        "of target 't0'",
        r"e\.g\. 'c'",
        re.escape("declared 2 classes: ['a', 'b']"),
    )
    with pytest.raises(UnknownClassError, match=pattern):
        pr.evaluate("f1", "macro")
    with pytest.raises(UnknownClassError, match=pattern):
        pr.evaluate("f1", "macro", lazy=True).collect()
    # a target the universe does not list refuses its classes
    other = frame.with_columns(
        pl.when(pl.col("target") == "t0").then(pl.col("class").replace("c", "b")).otherwise(pl.col("class")),
        pl.col("target").replace("t1", "t2"),
    )
    pr = af.from_long(other, target="target", classes=universe)
    with pytest.raises(UnknownClassError, match=seq(r"\b4 row\(s\) with a class outside", "of target 't2'")):
        pr.evaluate("f1", "macro")


def test_long_checks_report_in_their_order_whatever_else_is_wrong() -> None:
    # a null value, a class outside the universe and a duplicate entry at once: the null is
    # reported first, then the duplicate, then the class (the order of the checks)
    frame = long_frame(**{"y": [1.0, None, 0.0, 1.0, 1.0, 0.0], "class": ["a", "b", "a", "b", "a", "z"]})
    with pytest.raises(NullValueError, match="column 'y'"):
        af.from_long(frame, classes=["a", "b"]).evaluate()
    repeated = long_frame(**{"class": ["a", "a", "a", "b", "a", "z"]})
    with pytest.raises(DuplicateEntryError, match=r"\b1 duplicate entr"):
        af.from_long(repeated, classes=["a", "b"]).evaluate()
    with pytest.raises(UnknownClassError, match=seq(r"\b1 row\(s\)", r"e\.g\. 'z'")):
        af.from_long(long_frame(**{"class": ["a", "b", "a", "b", "a", "z"]}), classes=["a", "b"]).evaluate()


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


@pytest.mark.parametrize("role", ["class", "example"])
def test_long_object_column(role: str) -> None:
    """A role column of Python objects is refused by name at construction (it was a raw Polars error)."""
    frame = long_frame().with_columns(pl.Series(role, [object()] * long_frame().height, dtype=pl.Object))
    with pytest.raises(InvalidValueError, match=seq(f"column '{role}'", "Object")):
        af.from_long(frame)


@pytest.mark.parametrize("role", ["y", "p", "mask"])
def test_long_column_of_nulls_only(role: str) -> None:
    """A value column of dtype Null is a NullValueError with its count (it was "has dtype Unknown")."""
    frame = long_frame().with_columns(mask=pl.lit(1))
    frame = frame.with_columns(pl.lit(None).alias(role))
    assert frame.schema[role] == pl.Null
    pr = af.from_long(frame, mask="mask")
    with pytest.raises(NullValueError, match=seq(f"column '{role}'", rf"\b{frame.height} null value")):
        pr.evaluate()
