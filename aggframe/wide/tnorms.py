"""Triangular norms for soft labels, as dataframe expressions.

With soft truth or soft predictions in ``[0, 1]`` the Boolean conjunction that
defines the cells is replaced by a t-norm ``T`` with the complement ``1 - x``::

    TP = T(y, p)   FP = T(1 - y, p)   FN = T(y, 1 - p)   TN = T(1 - y, 1 - p)

``product`` is the only t-norm that keeps the marginals (``TP + FN = y``,
``TP + FP = p``), so only under it does the soft confusion matrix behave like a
contingency table. Every t-norm has ``T(1, 1) = 1``, so an absent (sparse) entry
with ``y = p = 0`` is one true negative whatever the t-norm.

The functions take and return Narwhals expressions (plain arithmetic also works
on Polars expressions and NumPy arrays), so the wide step runs unchanged on every
engine Narwhals supports.
"""

from __future__ import annotations

import hashlib
import math
import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import narwhals as nw

from aggframe.exceptions import OptionError, UnknownNameError

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = [
    "TNorm",
    "godel",
    "hamacher",
    "lukasiewicz",
    "marginal_defect",
    "product",
    "resolve_tnorm",
    "tnorm_name",
]

TNorm = Callable[[Any, Any], Any]


def product(a: Any, b: Any) -> Any:
    """Product t-norm ``a * b``: the unique marginally consistent choice.

    Parameters
    ----------
    a, b
        Values in [0, 1]: Polars expressions or NumPy arrays (or numbers).

    Returns
    -------
    pl.Expr or np.ndarray
        ``T(a, b)``, of the inputs' kind.

    Raises
    ------
    TypeError
        Inputs that support no arithmetic.
    """
    return a * b


def godel(a: Any, b: Any) -> Any:
    """Minimum (Gödel) t-norm ``min(a, b)``: the largest t-norm.

    Parameters
    ----------
    a, b
        Values in [0, 1]: Polars expressions or NumPy arrays (or numbers).

    Returns
    -------
    pl.Expr or np.ndarray
        ``T(a, b)``, of the inputs' kind.

    Raises
    ------
    TypeError
        Inputs that support no arithmetic.
    """
    return nw.min_horizontal(a, b)


def lukasiewicz(a: Any, b: Any) -> Any:
    """Łukasiewicz t-norm ``max(0, a + b - 1)``: credits only overlap above 1.

    Parameters
    ----------
    a, b
        Values in [0, 1]: Polars expressions or NumPy arrays (or numbers).

    Returns
    -------
    pl.Expr or np.ndarray
        ``T(a, b)``, of the inputs' kind.

    Raises
    ------
    TypeError
        Inputs that support no arithmetic.
    """
    return nw.max_horizontal(a + b - 1.0, nw.lit(0.0))


def hamacher(gamma: float = 1.0) -> TNorm:
    """Hamacher family ``ab / (gamma + (1 - gamma)(a + b - ab))``; ``gamma = 1`` is product.

    ``T(0, 0)`` is 0 by continuity when the denominator vanishes (``gamma = 0``).

    Parameters
    ----------
    gamma
        The family's parameter, ``gamma >= 0`` (``1``: the product; ``0``: Hamacher's product).

    Returns
    -------
    Callable
        The t-norm ``T(a, b)``, usable as ``tnorm=`` of :func:`~aggframe.from_long`.

    Raises
    ------
    OptionError
        ``gamma`` negative or not finite.
    """
    try:
        g = float(gamma)
    except (TypeError, ValueError) as exc:
        msg = f"Expected `gamma` of the Hamacher t-norm to be a number >= 0, got {gamma!r}"
        raise OptionError(msg) from exc
    if not (g >= 0 and math.isfinite(g)):
        msg = f"Expected `gamma` of the Hamacher t-norm to be a finite number >= 0, got {gamma!r}"
        raise OptionError(msg)
    if g == 1.0:
        return product  # the same t-norm: its cells add to product cells

    def t(a: Any, b: Any) -> Any:
        den = g + (1.0 - g) * (a + b - a * b)
        return nw.when(den.abs() > 1e-12).then(a * b / den).otherwise(nw.lit(0.0))

    t.__name__ = f"hamacher({g:g})"
    return t


_NAMED: dict[str, TNorm] = {
    "product": product,
    "prod": product,
    "godel": godel,
    "minimum": godel,
    "min": godel,
    "lukasiewicz": lukasiewicz,
    "luk": lukasiewicz,
    "hamacher": hamacher(1.0),
}


def resolve_tnorm(tnorm: str | TNorm | None) -> tuple[TNorm | None, str | None]:
    """Return ``(function, name)``; ``None`` means crisp data (no t-norm)."""
    if tnorm is None:
        return None, None
    if callable(tnorm):
        return tnorm, _callable_name(tnorm)
    if isinstance(tnorm, str):
        key = tnorm.strip().lower()
        if key in _NAMED:
            fn = _NAMED[key]
            return fn, "product" if fn is product else key
    msg = (
        f"unknown t-norm {tnorm!r}; valid names: godel, hamacher, lukasiewicz, minimum, "
        "product (or af.tnorms.hamacher(gamma), or a callable T(a, b) on expressions)"
    )
    raise UnknownNameError(msg)


def _callable_name(fn: Any) -> str:
    """What a user's t-norm is recorded as (cells of two t-norms never add up): a named function by
    its module and qualified name; one without a name of its own (a lambda, a partial, an object)
    by a digest of its code, so that cells of two of them are refused rather than mixed.
    The callable must build an expression of two Narwhals expressions (NumPy's ``np.minimum`` or
    the built-in ``min`` do not): checked here, with an OptionError."""
    try:
        probe = fn(nw.col("a"), nw.col("b"))
    except Exception as exc:
        msg = (
            f"the t-norm {fn!r} raised {type(exc).__name__} on two expressions: a custom t-norm is a "
            "function T(a, b) of two Narwhals expressions, e.g. lambda a, b: a * b (NumPy functions and "
            "the built-in min do not take expressions)"
        )
        raise OptionError(msg) from exc
    if not isinstance(probe, nw.Expr):
        msg = (
            f"the t-norm {fn!r} returned {type(probe).__name__}, not an expression: a custom t-norm is a "
            "function T(a, b) of two Narwhals expressions, e.g. lambda a, b: a * b"
        )
        raise OptionError(msg)
    return tnorm_name(fn)


def tnorm_name(fn: Any) -> str:
    """The name a t-norm is recorded under (cells and stores of two names never add up).

    The built-ins by their names (``af.tnorms.hamacher(1)`` is ``product``); a user's named
    function by its module and qualified name; one without a name of its own (a
    lambda, a partial, a callable object) by a digest of its code and captured values:
    cells of two such t-norms are refused rather than mixed.
    """
    if any(v is fn for v in _NAMED.values()):
        return next(k for k, v in _NAMED.items() if v is fn)
    if getattr(fn, "__module__", None) == __name__:
        return str(fn.__name__)  # af.tnorms.hamacher(gamma): "hamacher(0.5)", as stores have recorded it
    name = getattr(fn, "__qualname__", None)
    if isinstance(name, str) and "<lambda>" not in name and "<locals>" not in name:
        return f"{getattr(fn, '__module__', '?')}.{name}"
    return f"custom t-norm {getattr(fn, '__qualname__', type(fn).__name__)} #{_code_digest(fn)}"


def _code_digest(fn: Any) -> str:
    """A digest of what a nameless t-norm computes: its code, constants, names and captured values
    (two lambdas of other bodies differ; the same lambda twice is the same t-norm). A callable
    without code (an object) is told apart by its type and repr."""
    code = getattr(fn, "__code__", None)
    if code is None:
        text = f"{type(fn).__module__}.{type(fn).__qualname__}:{fn!r}"
    else:
        cells = tuple(repr(c.cell_contents) for c in (getattr(fn, "__closure__", None) or ()))
        text = repr((code.co_code, code.co_consts, code.co_names, code.co_varnames, cells))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def marginal_defect(tnorm: str | TNorm, grid: int = 21) -> float:
    """How far a t-norm is from keeping the marginals: the largest violation over a grid of ``[0, 1]^2``.

    ``max |T(a, b) + T(a, 1 - b) - a|`` and ``max |T(a, b) + T(1 - a, b) - b|``
    over ``a, b`` on ``grid`` points of ``[0, 1]`` each, the larger of the two
    (Theorem 3's quantity, aggmetrics' ``marginal_defect``). Zero (up to
    rounding, ~1e-16) exactly for the product t-norm: only then do the soft cells add up to the soft labels
    (``TP + FN = y``, ``TP + FP = p``), so micro and macro values of soft data
    keep the meaning they have on counts.

    Parameters
    ----------
    tnorm
        A name (``product``, ``godel``/``minimum``, ``lukasiewicz``; ``hamacher`` is
        ``af.tnorms.hamacher()`` at its default ``gamma = 1``, the product), ``af.tnorms.hamacher(gamma)``,
        or a callable ``T(a, b)`` on expressions (as :func:`~aggframe.from_long` takes it).
    grid
        Points per axis (at least 2).

    Returns
    -------
    float
        The largest violation (0 for the product t-norm).

    Raises
    ------
    OptionError
        An unknown t-norm name, or a grid of fewer than two points.

    Examples
    --------
    >>> import aggframe as af
    >>> [round(af.tnorms.marginal_defect(t), 12) for t in ("product", "godel", "lukasiewicz")]
    [0.0, 0.5, 0.5]
    """
    if isinstance(grid, bool) or not isinstance(grid, numbers.Integral) or grid < 2:
        msg = f"Expected `grid` to be an integer >= 2, got {grid!r}"
        raise OptionError(msg)
    fn, _ = resolve_tnorm(tnorm)
    if fn is None:
        msg = "marginal_defect needs a t-norm (a name or a callable), got None"
        raise OptionError(msg)
    xs = np.linspace(0.0, 1.0, int(grid))
    A, B = np.meshgrid(xs, xs, indexing="ij")
    frame = nw.from_dict({"a": A.ravel(), "b": B.ravel()}, backend="polars")
    a, b = nw.col("a"), nw.col("b")
    t = fn(a, b)
    out = frame.select(
        (t + fn(a, 1.0 - b) - a).abs().max().alias("rows"),
        (t + fn(1.0 - a, b) - b).abs().max().alias("columns"),
    )
    return float(max(out["rows"][0], out["columns"][0]))
