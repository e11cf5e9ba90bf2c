"""The exception hierarchy: every error is an AggframeError (a ValueError)."""

from __future__ import annotations

import pytest

import aggframe as af
from aggframe.errors import (
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
