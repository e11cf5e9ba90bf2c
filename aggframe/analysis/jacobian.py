"""The confusion matrix's free parameters, and the measures' exact gradients with respect to them (NumPy).

A suite of measures is judged by its Jacobian with respect to the free
parameters of the confusion matrix (Remark 2 of the reference). This module
holds the counts a suite is evaluated at (:class:`SuiteInput`), the
parametrisation (``_Model``) and the gradients: exact complex steps where the
formula allows them, central differences otherwise (probed per formula). It
never imports Polars: it sees one small count table at a time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from aggframe.exceptions import EmptyInputError, InvalidValueError, OptionError, ShapeError
from aggframe.measures.measure import Measure

__all__ = ["FloatArray", "IntArray", "Pair", "SuiteInput", "SuiteKind", "jacobian", "model"]


FloatArray = npt.NDArray[np.float64]


IntArray = npt.NDArray[np.intp]


SuiteKind = Literal["binary", "multiclass", "multilabel"]


Pair = tuple[str, str]


_H_COMPLEX = 1e-30  # complex step
_H_CHECK = 1e-20  # a second complex step: a derivative is the same at both


_H_CENTRAL = 1e-6  # central differences (fallback), the step of aggmetrics


@dataclass(frozen=True, eq=False)
class SuiteInput:
    """The counts a suite is evaluated at.

    Parameters
    ----------
    kind : {'binary', 'multiclass', 'multilabel'}
        The task.
    counts : numpy.ndarray
        ``binary``: shape ``(4,)``, the cells ``tp, fp, fn, tn``.
        ``multiclass``: the confusion matrix ``C`` of shape ``(m, m)``, ``m >= 2``,
        with ``C[j, k]`` the number of examples of true class ``j`` predicted as ``k``.
        ``multilabel``: shape ``(m, 4)``, the cells ``tp, fp, fn, tn`` of each label.
        Stored as a read-only float array.

    Raises
    ------
    OptionError
        An unknown kind.
    ShapeError
        Counts of the wrong shape for the kind.
    InvalidValueError
        Negative or non-finite counts.

    Examples
    --------
    >>> import numpy as np
    >>> from aggframe.analysis.jacobian import SuiteInput
    >>> SuiteInput("binary", np.array([60, 30, 20, 90])).counts
    array([60., 30., 20., 90.])
    """

    kind: SuiteKind
    counts: FloatArray

    def __post_init__(self) -> None:
        if self.kind not in ("binary", "multiclass", "multilabel"):
            msg = f"Expected `kind` to be one of 'binary', 'multiclass', 'multilabel', got {self.kind!r}"
            raise OptionError(msg)
        try:
            counts = np.array(self.counts, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            msg = f"Expected `counts` to be a numeric array, got {type(self.counts).__name__}"
            raise InvalidValueError(msg) from exc
        shape = counts.shape
        if self.kind == "binary" and shape != (4,):
            msg = f"Expected binary `counts` of shape (4,) (tp, fp, fn, tn), got shape {shape}"
            raise ShapeError(msg)
        if self.kind == "multiclass" and (counts.ndim != 2 or shape[0] != shape[1] or shape[0] < 2):
            msg = (
                "Expected multiclass `counts` to be a square confusion matrix of shape "
                f"(m, m) with m >= 2, got shape {shape}"
            )
            raise ShapeError(msg)
        if self.kind == "multilabel" and (counts.ndim != 2 or shape[1] != 4 or shape[0] < 1):
            msg = (
                f"Expected multilabel `counts` of shape (m, 4) (tp, fp, fn, tn per label), got shape {shape}"
            )
            raise ShapeError(msg)
        bad = ~np.isfinite(counts) | (counts < 0)
        if bad.any():
            msg = (
                f"Expected `counts` to be finite and non-negative, got {int(bad.sum())} "
                f"offending value(s), e.g. {counts[bad][0]!r}"
            )
            raise InvalidValueError(msg)
        if counts.sum() <= 0:
            msg = "Expected `counts` to hold at least one example, got counts that add up to 0"
            raise EmptyInputError(msg)
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)


class _Model:
    """Cells ``(tp, fp, fn, tn)`` per class or label as functions of ``theta``.

    Multiclass: ``theta`` holds the rates ``R[j, k] = C[j, k] / n_j`` for
    ``j != k`` (row-major); a class without support keeps ``theta = 0`` and its
    cells do not move. Binary and multilabel: ``theta`` holds recall and
    specificity of each label, interleaved.
    """

    def __init__(self, data: SuiteInput) -> None:
        counts = data.counts
        self.multiclass = data.kind == "multiclass"
        if self.multiclass:
            m = counts.shape[0]
            self.m = m
            self.n = float(counts.sum())
            self.support: FloatArray = counts.sum(axis=1)
            rows = counts / np.where(self.support == 0, 1.0, self.support)[:, None]
            jj, kk = np.nonzero(~np.eye(m, dtype=bool))
            self._jj: IntArray = jj.astype(np.intp)
            self._kk: IntArray = kk.astype(np.intp)
            self.theta: FloatArray = rows[jj, kk]
            self.names = [f"R[{j},{k}]" for j, k in zip(jj.tolist(), kk.tolist(), strict=True)]
        else:
            cells = counts.reshape(-1, 4)
            tp, fp, fn, tn = cells.T
            self.m = cells.shape[0]
            self.pos: FloatArray = tp + fn
            self.neg: FloatArray = fp + tn
            self.support = self.pos
            rec = tp / np.where(self.pos == 0, 1.0, self.pos)
            spec = tn / np.where(self.neg == 0, 1.0, self.neg)
            self.theta = np.column_stack([rec, spec]).ravel()
            if self.m == 1:
                self.names = ["recall", "specificity"]
            else:
                self.names = [f"{what}[{j}]" for j in range(self.m) for what in ("recall", "specificity")]

    @property
    def dim(self) -> int:
        return int(self.theta.size)

    def cells(self, theta: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], ...]:
        """Cells for a batch of parameters ``(B, d)`` (real or complex): four ``(B, m)``."""
        if self.multiclass:
            batch = theta.shape[0]
            rates = np.zeros((batch, self.m, self.m), dtype=theta.dtype)
            rates[:, self._jj, self._kk] = theta
            off = self.support[None, :, None] * rates  # diagonal still zero
            tp = self.support - off.sum(axis=2)
            fn = self.support - tp
            fp = off.sum(axis=1)
            tn = self.n - tp - fn - fp
            return tp, fp, fn, tn
        rec, spec = theta[:, 0::2], theta[:, 1::2]
        return (
            self.pos * rec,
            self.neg * (1.0 - spec),
            self.pos * (1.0 - rec),
            self.neg * spec,
        )


_PROBE = np.array(
    [
        [3, 1, 2, 4],
        [7, 2, 5, 11],
        [20, 3, 9, 40],
        [5, 8, 1, 2],
        [12, 6, 4, 30],
        [1, 9, 7, 3],
    ],
    dtype=np.float64,
)


_COMPLEX_OK: dict[Measure, bool] = {}


def _complex_step_ok(measure: Measure) -> bool:
    """Whether complex step differentiates ``measure`` correctly (probe, cached).

    The derivative along each cell at a few generic points is compared with
    central differences; a formula that raises on complex input, drops the
    imaginary part or is not analytic fails and gets central differences.
    """
    try:
        cached = _COMPLEX_OK.get(measure)
    except TypeError:  # unhashable custom formula
        cached = None
    if cached is not None:
        return cached
    base = np.repeat(_PROBE, 4, axis=0)
    step = np.tile(np.eye(4), (_PROBE.shape[0], 1))
    h = 1e-5
    try:
        with np.errstate(all="ignore"):
            z = np.asarray(measure(*(base + 1j * _H_COMPLEX * step).T))
            real = np.asarray(measure(*base.T), dtype=np.float64)
            plus = np.asarray(measure(*(base + h * step).T), dtype=np.float64)
            minus = np.asarray(measure(*(base - h * step).T), dtype=np.float64)
        ok = bool(np.iscomplexobj(z)) and z.shape == real.shape == (base.shape[0],)
        if ok:
            central = (plus - minus) / (2 * h)
            good = np.isfinite(real) & np.isfinite(central)
            ok = bool(
                np.allclose(z.real[good], real[good], rtol=1e-12, atol=1e-12)
                and np.allclose(z.imag[good] / _H_COMPLEX, central[good], rtol=1e-5, atol=1e-8)
            )
    except Exception:  # any failure on complex input means: fall back
        ok = False
    with contextlib.suppress(TypeError):
        _COMPLEX_OK[measure] = ok
    return ok


def _aggregate(per: npt.NDArray[Any], how: str, support: FloatArray) -> npt.NDArray[Any]:
    """Macro or weighted mean over the defined classes (aggmetrics' convention).

    ``per`` is ``(B, m)``. An undefined per-class value (NaN) is excluded, as by
    ``np.nanmean``; the weighted mean weights by support among the defined classes.
    A row without any defined class (or zero total weight) is NaN.
    """
    ok = np.isfinite(per)
    vals = np.where(ok, per, 0.0)
    weights = ok.astype(np.float64) if how == "macro" else ok * support
    total = weights.sum(axis=1)
    with np.errstate(all="ignore"):
        out = (vals * weights).sum(axis=1) / np.where(total > 0, total, 1.0)
    return np.where(total > 0, out, np.nan)


class _Evaluator:
    """Values of measures on batches of perturbed cells, shared across items."""

    def __init__(self, model: _Model, theta: npt.NDArray[Any]) -> None:
        self.model = model
        self.cells = model.cells(theta)
        self.pooled = tuple(c.sum(axis=1) for c in self.cells)
        self._per: dict[int, npt.NDArray[Any]] = {}

    def value(self, measure: Measure, how: str) -> npt.NDArray[Any]:
        with np.errstate(all="ignore"):
            if how == "micro":
                return np.asarray(measure(*self.pooled))
            key = id(measure)
            if key not in self._per:
                self._per[key] = np.asarray(measure(*self.cells))
            return _aggregate(self._per[key], how, self.model.support)


def _jacobian(model: _Model, measures: Sequence[Measure], pairs: Sequence[Pair]) -> FloatArray:
    """Rows of exact gradients; NaN where a measure is undefined at the data."""
    d = model.dim
    jac = np.full((len(pairs), d), np.nan)
    eye = np.eye(d)
    steps: dict[float, _Evaluator] = {}
    central: tuple[_Evaluator, _Evaluator, FloatArray] | None = None

    def complex_grad(meas: Measure, how: str, h: float) -> FloatArray:
        if h not in steps:
            steps[h] = _Evaluator(model, model.theta + 1j * h * eye)
        out = steps[h].value(meas, how)
        return np.where(np.isfinite(out), np.imag(out) / h, np.nan)

    for row, (meas, (_, how)) in enumerate(zip(measures, pairs, strict=True)):
        grad = complex_grad(meas, how, _H_COMPLEX) if _complex_step_ok(meas) else None
        if grad is not None and not np.allclose(
            grad, complex_grad(meas, how, _H_CHECK), rtol=1e-6, atol=1e-9, equal_nan=True
        ):
            # Not differentiable here (sqrt at 0: gmean with a recall of 0): the complex step
            # grows as 1/sqrt(h) (6e14 at h = 1e-30), which no other step size repeats. The
            # one-sided slope of central differences is what aggmetrics reports there.
            grad = None
        if grad is None:
            # Fallback for formulas complex step cannot go through (the probe in
            # _complex_step_ok failed: abs/max/comparisons, casts to float, ...) and points
            # where it is not a derivative: central differences clamped to [0, 1], exactly as
            # aggmetrics does it. None of the 21 built-in formulas needs it away from such
            # points (tests/analysis/test_suites.py checks).
            if central is None:
                hi = np.minimum(model.theta + _H_CENTRAL, 1.0)
                lo = np.maximum(model.theta - _H_CENTRAL, 0.0)
                up, down = np.tile(model.theta, (d, 1)), np.tile(model.theta, (d, 1))
                up[np.diag_indices(d)] = hi
                down[np.diag_indices(d)] = lo
                central = (_Evaluator(model, up), _Evaluator(model, down), hi - lo)
            plus = np.real(central[0].value(meas, how))
            minus = np.real(central[1].value(meas, how))
            with np.errstate(all="ignore"):
                grad = (plus - minus) / central[2]
        jac[row] = grad
    jac[~np.isfinite(jac).all(axis=1)] = np.nan
    return jac


def model(data: SuiteInput) -> _Model:
    """The parametrisation of the confusion matrix these counts are from."""
    return _Model(data)


def jacobian(data: _Model, measures: Sequence[Measure], pairs: Sequence[Pair]) -> FloatArray:
    """The Jacobian of the (measure, operator) pairs at the model's parameters, one row per pair."""
    return _jacobian(data, measures, pairs)
