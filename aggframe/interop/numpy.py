"""The NumPy bridge of the reference's aggregation module (``aggmetrics.aggregation``), for porting code.

``af.numpy`` has the reference's functions with its signatures, on NumPy
indicator matrices ``Y`` (truth) and ``P`` (predictions), ``n x m`` (a 1-D
array is one column)::

    from aggmetrics.aggregation import aggregate, cells, sigma_m   # before
    from aggframe.interop.numpy import aggregate, cells, sigma_m   # after (or af.numpy.aggregate)

* :func:`cells`: the entrywise TP, FP, FN, TN matrices (the cells aggframe's
  wide step sums, :mod:`aggframe.wide.long`), masked entries zero.
* :func:`sigma_1`, :func:`sigma_m`, :func:`sigma_n`: the three reductions (over
  all entries, per class, per example) of one cell matrix, and :func:`sigma_k`:
  the sum of the cell matrices of several folds.
* :func:`aggregate`: one measure under one operator, computed by aggframe itself
  (:func:`~aggframe.from_indicator`: the cell tables, the one reduction and the
  one resolution of undefined entries), with the per-class or per-example values
  when ``return_parts=True``.

Where aggframe answers differently from aggmetrics 0.2.0 (each a test):

* ``convention`` under ``micro``: aggmetrics ignores it (an undefined micro value
  is NaN); aggframe applies it to the one pooled entry, as scikit-learn's
  ``zero_division`` does (``zero`` gives 0, ``one`` gives 1).
* ``weighted`` when the counted entries have zero support in all: aggmetrics
  raises ``ZeroDivisionError``; aggframe takes their uniform mean.
* Bad input (shapes, NaN, values outside [0, 1], a mask other than 0/1) is an
  :class:`~aggframe.exceptions.AggframeError` naming what is wrong, where
  aggmetrics computes with it.
* Soft values combine by the product ``T(a, b) = ab`` as in aggmetrics (its
  cells are plain arithmetic); ``tnorm=`` picks another t-norm.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, cast

import numpy as np

from aggframe._options import TNormName, parse_convention, parse_operator
from aggframe.constructors import from_indicator
from aggframe.exceptions import InvalidValueError, OptionError, ShapeError, UnknownNameError
from aggframe.intake.input_checks import plain_array, real_dtype
from aggframe.measures.measure import Measure
from aggframe.tables.errors import MASK_VALUES

__all__ = [
    "UNDEFINED_CONVENTIONS",
    "Aggregation",
    "aggregate",
    "cells",
    "sigma_1",
    "sigma_k",
    "sigma_m",
    "sigma_n",
]

#: The operators of :func:`aggregate` (the reference's ``how``).
Aggregation = Literal["micro", "macro", "weighted", "exemplar"]
#: The conventions for undefined per-class or per-example values.
UNDEFINED_CONVENTIONS = ("exclude", "zero", "one", "nan")

Cells4 = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

_TNORMS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "product": lambda a, b: a * b,
    "prod": lambda a, b: a * b,
    "hamacher": lambda a, b: a * b,  # gamma = 1 is the product
    "godel": np.minimum,
    "minimum": np.minimum,
    "min": np.minimum,
    "lukasiewicz": lambda a, b: np.maximum(a + b - 1.0, 0.0),
    "luk": lambda a, b: np.maximum(a + b - 1.0, 0.0),
}


def _matrix(x: Any, name: str) -> np.ndarray:
    try:
        a = np.asarray(plain_array(x, name))
    except ValueError as exc:
        msg = f"{name} must be an n x m matrix (ragged or nested input): {exc}"
        raise ShapeError(msg) from exc
    a = a.reshape(-1, 1) if a.ndim == 1 else a
    if a.ndim != 2:
        msg = f"{name} has shape {a.shape}; expected an n x m matrix (or a 1-D array: one column)"
        raise ShapeError(msg)
    if not real_dtype(a.dtype):
        msg = f"{name} has dtype {a.dtype}; expected booleans or real numbers in [0, 1]"
        raise InvalidValueError(msg)
    f = a.astype(np.float64)
    bad = np.isnan(f) | (f < 0.0) | (f > 1.0)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        msg = (
            f"{name}: {int(bad.sum())} value(s) outside [0, 1] or NaN (e.g. {name}[{i}, {j}] = {f[i, j]!r}); "
            + (MASK_VALUES if name == "mask" else "expected 0/1, booleans, or soft values in [0, 1]")
        )
        raise InvalidValueError(msg)
    return f


def _inputs(Y: Any, P: Any, mask: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    Ya, Pa = _matrix(Y, "Y"), _matrix(P, "P")
    if Ya.shape != Pa.shape:
        msg = f"Y has shape {Ya.shape} but P has shape {Pa.shape}; they must match (n x m)"
        raise ShapeError(msg)
    if mask is None:
        return Ya, Pa, None
    Ma = _matrix(mask, "mask")
    if Ma.shape != Ya.shape:
        msg = f"mask has shape {Ma.shape} but Y and P have shape {Ya.shape}"
        raise ShapeError(msg)
    soft = (Ma > 0.0) & (Ma < 1.0)
    if soft.any():
        i, j = (int(v) for v in np.argwhere(soft)[0])
        msg = f"mask: {int(soft.sum())} value(s) strictly between 0 and 1 (e.g. mask[{i}, {j}] = {Ma[i, j]!r}); a mask is 1 (observed) or 0 (unobserved)"
        raise InvalidValueError(msg)
    return Ya, Pa, Ma


def _tnorm(tnorm: str | Callable[[Any, Any], Any] | None) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    if tnorm is None:
        return _TNORMS["product"]
    if callable(tnorm):
        return _on_arrays(tnorm)
    key = str(tnorm).strip().lower()
    if key not in _TNORMS:
        msg = f"unknown t-norm {tnorm!r}; valid names: godel, hamacher, lukasiewicz, minimum, product (or a callable T(a, b) on arrays)"
        raise UnknownNameError(msg)
    return _TNORMS[key]


def _on_arrays(fn: Callable[[Any, Any], Any]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A t-norm as a function of arrays: as given (``np.minimum``), or through Polars when it is
    written on expressions, as :func:`~aggframe.from_long` takes it (``af.tnorms.hamacher(0.5)``, whose
    ``.abs()`` NumPy arrays lack: a raw AttributeError)."""

    def on_arrays(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        try:
            out = fn(a, b)
            if isinstance(out, np.ndarray | float | int):
                return np.broadcast_to(np.asarray(out, dtype=np.float64), np.shape(a))
        except Exception:
            pass
        import narwhals as nw
        import polars as pl

        frame = nw.from_native(pl.DataFrame({"a": np.ravel(a), "b": np.ravel(b)}))
        try:
            column = frame.select(fn(nw.col("a"), nw.col("b")).alias("t")).to_native()["t"]
        except Exception as exc:
            msg = (
                f"the t-norm {fn!r} works neither on arrays nor on expressions ({type(exc).__name__}); "
                "a t-norm is a function T(a, b), e.g. np.minimum or lambda a, b: a * b"
            )
            raise OptionError(msg) from exc
        return np.asarray(column.to_numpy(), dtype=np.float64).reshape(np.shape(a))

    return on_arrays


def _numbers(X: Any, what: str) -> np.ndarray:
    """``X`` as a float array, or an InvalidValueError naming ``what`` (raw NumPy errors before)."""
    try:
        return np.asarray(plain_array(X, what), dtype=np.float64)
    except (TypeError, ValueError) as exc:
        msg = (
            f"{what} must be numbers (an array of floats), got {type(X).__name__}: {str(exc).splitlines()[0]}"
        )
        raise InvalidValueError(msg) from exc


def cells(
    Y: Any, P: Any, mask: Any = None, *, tnorm: str | Callable[[Any, Any], Any] | None = None
) -> Cells4:
    """Entrywise TP, FP, FN, TN matrices (``n x m`` floats): ``T(y, p)``, ``T(1 - y, p)``, ``T(y, 1 - p)``, ``T(1 - y, 1 - p)``.

    ``T`` is the product (crisp 0/1 values, and soft values as in the
    reference), or the t-norm ``tnorm`` names (``godel``, ``lukasiewicz``, ...;
    a callable ``T(a, b)`` on arrays). Entries where ``mask == 0`` are
    unobserved: all four cells are 0 there.

    Examples
    --------
    >>> import numpy as np, aggframe as af
    >>> TP, FP, FN, TN = af.numpy.cells(np.array([[1, 0], [1, 1]]), np.array([[1, 1], [0, 1]]))
    >>> TP.tolist(), FP.tolist()
    ([[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 0.0]])
    """
    Ya, Pa, Ma = _inputs(Y, P, mask)
    t = _tnorm(tnorm)
    out = [
        np.asarray(t(a, b), dtype=np.float64)
        for a, b in ((Ya, Pa), (1 - Ya, Pa), (Ya, 1 - Pa), (1 - Ya, 1 - Pa))
    ]
    if Ma is not None:
        out = [x * Ma for x in out]
    return out[0], out[1], out[2], out[3]


def sigma_1(X: Any) -> float:
    """Global aggregation: the sum over all entries (what ``micro`` pools).

    >>> import aggframe as af
    >>> af.numpy.sigma_1([[1.0, 2.0], [3.0, 4.0]])
    10.0
    """
    return float(np.sum(_numbers(X, "sigma_1's input")))


def sigma_m(X: Any) -> np.ndarray:
    """Column-wise aggregation: one sum per class or label (what ``macro`` and ``weighted`` average).

    >>> import aggframe as af
    >>> af.numpy.sigma_m([[1.0, 2.0], [3.0, 4.0]]).tolist()
    [4.0, 6.0]
    """
    a: np.ndarray = _numbers(X, "sigma_m's input")
    if a.ndim not in (1, 2):
        msg = f"sigma_m takes an n x m matrix (or a vector), got {a.ndim} dimensions"
        raise ShapeError(msg)
    out: np.ndarray = a.reshape(-1, 1).sum(axis=0) if a.ndim == 1 else a.sum(axis=0)
    return out


def sigma_n(X: Any) -> np.ndarray:
    """Row-wise aggregation: one sum per example (what ``exemplar`` averages).

    >>> import aggframe as af
    >>> af.numpy.sigma_n([[1.0, 2.0], [3.0, 4.0]]).tolist()
    [3.0, 7.0]
    """
    a: np.ndarray = _numbers(X, "sigma_n's input")
    if a.ndim not in (1, 2):
        msg = f"sigma_n takes an n x m matrix (or a vector), got {a.ndim} dimensions"
        raise ShapeError(msg)
    return a if a.ndim == 1 else a.sum(axis=1)


def sigma_k(cell_list: Sequence[Sequence[Any]]) -> Cells4:
    """Fold-wise aggregation: the four cell matrices (or per-class sums) of K folds, summed.

    Every fold's cells must have one shape (the same examples' cells per fold
    are summed entrywise). To pool folds of different sizes, stack their rows
    instead, or evaluate them with :func:`~aggframe.fold_aggregate`.

    Examples
    --------
    >>> import numpy as np, aggframe as af
    >>> one = af.numpy.cells(np.array([1, 0]), np.array([1, 1]))
    >>> [x.ravel().tolist() for x in af.numpy.sigma_k([one, one])]
    [[2.0, 0.0], [0.0, 2.0], [0.0, 0.0], [0.0, 0.0]]
    """
    items = list(cell_list)
    if not items:
        msg = "sigma_k needs the cells of at least one fold; got an empty list"
        raise OptionError(msg)
    arrays = []
    for k, c in enumerate(items):
        if not isinstance(c, Sequence) or len(c) != 4:
            msg = f"fold {k}: expected four cell matrices (TP, FP, FN, TN), got {c!r:.60}"
            raise ShapeError(msg)
        arrays.append([_numbers(x, f"fold {k}'s cells") for x in c])
    shape = arrays[0][0].shape
    for k, quad in enumerate(arrays):
        if any(x.shape != shape for x in quad):
            msg = f"fold {k}: cells of shape {[x.shape for x in quad]}; fold 0 has {shape}"
            raise ShapeError(msg)
    total = [sum((q[i] for q in arrays[1:]), arrays[0][i].copy()) for i in range(4)]
    return total[0], total[1], total[2], total[3]


def aggregate(  # noqa: PLR0913 -- the user's options, keyword-only
    Y: Any,
    P: Any,
    measure: str | Measure,
    how: str = "micro",
    *,
    convention: str = "exclude",
    mask: Any = None,
    return_parts: bool = False,
    tnorm: str | Callable[[Any, Any], Any] | None = None,
) -> float | tuple[float, np.ndarray | None]:
    """``measure`` of ``(Y, P)`` under the operator ``how``, computed by aggframe.

    Parameters
    ----------
    Y, P
        Indicator matrices ``n x m`` (a 1-D array is one column): 0/1, booleans
        or soft values in [0, 1].
    measure
        A measure name (``"f1"``, ``"mcc"``, ...) or :class:`~aggframe.Measure`.
    how
        ``"micro"`` (pool all entries, then the measure), ``"macro"`` (per class,
        then the mean), ``"weighted"`` (per class, mean weighted by support
        ``tp + fn``) or ``"exemplar"`` (per example, then the mean).
    convention
        Undefined entries: ``"exclude"`` (default: left out), ``"zero"``,
        ``"one"`` or ``"nan"`` (propagated). Applied under ``micro`` too.
    mask
        1 = observed entry, 0 = unobserved (contributes nothing).
    return_parts
        Also return the per-class (macro, weighted) or per-example (exemplar)
        values, NaN where undefined (None under micro).
    tnorm
        How soft values combine; default the product (the reference's arithmetic).

    Examples
    --------
    >>> import numpy as np, aggframe as af
    >>> Y = np.array([[1, 0, 1], [0, 1, 0]]); P = np.array([[1, 0, 0], [0, 1, 1]])
    >>> af.numpy.aggregate(Y, P, "f1", "exemplar")
    0.6666666666666666
    >>> value, parts = af.numpy.aggregate(Y, P, "precision", "macro", return_parts=True)
    >>> value, parts.tolist()
    (0.6666666666666666, [1.0, 1.0, 0.0])
    """
    op = parse_operator(how)
    conv = parse_convention(convention)
    Ya, Pa, Ma = _inputs(Y, P, mask)
    soft = bool((((Ya > 0) & (Ya < 1)) | ((Pa > 0) & (Pa < 1))).any())
    chosen = tnorm if tnorm is not None or not soft else "product"
    pr = from_indicator(Ya, Pa, mask=Ma, tnorm=cast("TNormName | Callable[[Any, Any], Any] | None", chosen))
    value = pr.compute(measure, op, convention=conv)
    if not return_parts:
        return value
    if op == "micro":
        return value, None
    parts = pr.parts(measure, op)["value"].cast(float).fill_null(np.nan).to_numpy()
    return value, parts
