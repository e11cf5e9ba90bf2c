"""Bad indicator matrices: shapes, values, soft values without a t-norm."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import aggframe as af
from aggframe.errors import (
    EmptyInputError,
    InvalidValueError,
    ShapeError,
    UnknownNameError,
)
from tests.builders import NAN, indicator, seq

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
