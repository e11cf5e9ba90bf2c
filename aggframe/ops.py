"""Arithmetic helpers for writing measures that run on Polars expressions and NumPy alike.

A measure is a function of the four cells ``(tp, fp, fn, tn)``. aggframe calls it
with :class:`polars.Expr` objects when it evaluates a frame and with NumPy arrays
(or floats) when it needs numbers (suites, scalar checks). Plain arithmetic works
on both; division and square roots need these helpers so that a vanishing
denominator gives an *undefined* value (null for expressions, NaN for arrays)
instead of whatever each engine does with ``x / 0``.

Examples
--------
>>> import numpy as np
>>> from aggframe.ops import ratio
>>> ratio(np.array([1.0, 2.0]), np.array([2.0, 0.0]))
array([0.5, nan])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = ["EPS", "ratio", "sqrt"]

#: Denominators with an absolute value at or below this are treated as zero
#: (the same threshold as aggmetrics, so soft cells agree with the reference).
EPS = 1e-12


def _is_expr(*xs: Any) -> bool:
    return any(isinstance(x, pl.Expr) for x in xs)


def _as_expr(x: Any) -> pl.Expr:
    return x if isinstance(x, pl.Expr) else pl.lit(x, dtype=pl.Float64)


def ratio(num: Any, den: Any) -> Any:
    """``num / den``, undefined where ``|den| <= EPS``.

    On expressions the undefined value is null (``when/then`` without
    ``otherwise``), so no engine ever sees a division by zero; on arrays it is NaN.
    """
    if _is_expr(num, den):
        n, d = _as_expr(num), _as_expr(den)
        return pl.when(d.abs() > EPS).then(n / d)
    num_a = np.asarray(num)
    den_a = np.asarray(den)
    ok = np.abs(den_a) > EPS
    with np.errstate(all="ignore"):
        out = np.where(ok, num_a / np.where(ok, den_a, 1.0), np.nan)
    return out if out.ndim else out[()]


def sqrt(x: Any) -> Any:
    """Square root on an expression or an array."""
    if isinstance(x, pl.Expr):
        return x.sqrt()
    return np.sqrt(x)
