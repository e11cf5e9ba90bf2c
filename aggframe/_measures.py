"""Binary confusion-count measures and their structural properties.

A measure is a function ``M(tp, fp, fn, tn)`` that works on Polars expressions
and on NumPy arrays (see :mod:`aggframe.ops`). The properties the aggregation
theory needs live beside the formula:

``linear``
    Coefficients ``(a, b)`` with ``M = <a, v> / <b, v>`` for ``v = (tp, fp, fn, tn)``,
    or ``None``. A measure with coefficients is *aggregation-decomposable*: its
    micro value equals the denominator-weighted mean of its per-class values.
``skew_invariant``
    Unchanged when the two classes are rescaled independently (a function of
    recall and specificity alone).
``tn_dependent_at_zero``
    Whether the value at ``tp == 0`` still depends on ``tn`` (one-hot multiclass
    data then keeps it away from its nominal minimum).
``greater_is_better``
    Direction.

The registry holds the 21 measures of aggmetrics 0.2.0 under the same names and
aliases; :func:`register_measure` adds the user's own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from aggframe.exceptions import OptionError, UnknownNameError
from aggframe.ops import ratio, sqrt

__all__ = [
    "Measure",
    "fbeta",
    "get_measure",
    "list_measures",
    "register_measure",
]

Coefficients = tuple[tuple[float, float, float, float], tuple[float, float, float, float]]
Formula = Callable[[Any, Any, Any, Any], Any]


@dataclass(frozen=True)
class Measure:
    """A binary measure: a formula of the four cells plus its properties.

    Calling a measure on numbers or arrays returns NumPy values (NaN where
    undefined); :meth:`expr` gives the Polars expression over cell columns
    (null where undefined).

    Examples
    --------
    >>> import aggframe as af
    >>> f1 = af.get_measure("dice")
    >>> f1.name, f1.decomposable
    ('f1', True)
    >>> float(f1(3, 1, 1, 5))
    0.75
    """

    name: str
    formula: Formula = field(repr=False)
    greater_is_better: bool = True
    linear: Coefficients | None = None
    skew_invariant: bool = False
    tn_dependent_at_zero: bool = False
    aliases: tuple[str, ...] = ()
    note: str = ""

    @property
    def decomposable(self) -> bool:
        """True iff micro equals the denominator-weighted macro (Theorem 1)."""
        return self.linear is not None

    def expr(self, tp: str = "tp", fp: str = "fp", fn: str = "fn", tn: str = "tn") -> pl.Expr:
        """The measure as a Polars expression over four cell columns.

        The cells are cast to Float64 first (integer products overflow on large
        counts); a non-finite result (a custom formula dividing by zero) is
        turned into null, so null is the one spelling of *undefined*.
        """
        cols = [pl.col(c).cast(pl.Float64) for c in (tp, fp, fn, tn)]
        out = self.formula(*cols)
        if not isinstance(out, pl.Expr):
            msg = f"measure {self.name!r}: the formula did not return a Polars expression"
            raise OptionError(msg)
        return pl.when(out.is_finite()).then(out)

    def __call__(self, tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
        args = [np.asarray(x, dtype=np.result_type(np.asarray(x), np.float64)) for x in (tp, fp, fn, tn)]
        with np.errstate(all="ignore"):
            out = np.asarray(self.formula(*args))
        if not np.iscomplexobj(out):
            out = np.where(np.isfinite(out), out, np.nan)
        return out if out.ndim else out[()]

    @property
    def numerator_coefficients(self) -> tuple[float, float, float, float] | None:
        """``a`` of ``M = <a, v> / <b, v>``, ``v = (tp, fp, fn, tn)``; None if not decomposable.

        >>> import aggframe as af
        >>> af.get_measure("f1").numerator_coefficients, af.get_measure("f1").denominator_coefficients
        ((2, 0, 0, 0), (2, 1, 1, 0))
        """
        return None if self.linear is None else self.linear[0]

    @property
    def denominator_coefficients(self) -> tuple[float, float, float, float] | None:
        """``b`` of ``M = <a, v> / <b, v>`` (the micro weights of Theorem 1); None if not decomposable."""
        return None if self.linear is None else self.linear[1]

    def numerator(self, counts: Sequence[float]) -> float:
        """``<a, (tp, fp, fn, tn)>`` for a decomposable measure."""
        return float(np.dot(self._coefficients()[0], counts))

    def denominator(self, counts: Sequence[float]) -> float:
        """``<b, (tp, fp, fn, tn)>`` for a decomposable measure."""
        return float(np.dot(self._coefficients()[1], counts))

    def bayes_threshold(self) -> float | None:
        """Optimal threshold on the conditional probability, or None (no closed form).

        For a numerator ``(alpha, -beta, -gamma, delta)`` over a denominator that
        does not depend on the predictions (it combines only the class totals
        ``tp + fn`` and ``fp + tn``), the population optimum predicts positive
        when the probability exceeds ``(beta + delta) / (alpha + beta + gamma + delta)``.
        """
        if self.linear is None:
            return None
        a, b = self.linear
        if not (math.isclose(b[0], b[2]) and math.isclose(b[1], b[3])):
            return None
        alpha, beta, gamma, delta = a[0], -a[1], -a[2], a[3]
        total = alpha + beta + gamma + delta
        if abs(total) < 1e-12:
            return None
        return float((beta + delta) / total)

    def erm_consistent(self) -> bool | None:
        """Whether the Bayes rule for 0/1 loss (threshold 0.5) optimises the measure."""
        t = self.bayes_threshold()
        return None if t is None else math.isclose(t, 0.5, abs_tol=1e-9)

    def attainable_floor(self, m: int) -> float:
        """The value when every prediction is wrong on one-hot data with ``m`` classes.

        Pooled cells are then ``tp = 0``, ``fp = fn = n``, ``tn = n (m - 2)``; a
        measure that depends on ``tn`` at ``tp = 0`` stays away from its nominal
        minimum by an amount that grows with ``m``.
        """
        if int(m) < 2:
            msg = f"Expected `m` to be at least 2, got {m!r}"
            raise OptionError(msg)
        n = 1000.0
        return float(self(0.0, n, n, n * (int(m) - 2)))

    def _coefficients(self) -> Coefficients:
        if self.linear is None:
            msg = (
                f"measure {self.name!r} is not aggregation-decomposable: it has no "
                "numerator or denominator that adds up across classes"
            )
            raise OptionError(msg)
        return self.linear


# ---------------------------------------------------------------------------
# Formulas: plain arithmetic plus ops.ratio / ops.sqrt, so they run on Expr and arrays.


def _recall(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tp, tp + fn)


def _specificity(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tn, tn + fp)


def _precision(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tp, tp + fp)


def _npv(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tn, tn + fn)


def _fpr(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(fp, fp + tn)


def _fnr(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(fn, tp + fn)


def _fdr(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(fp, tp + fp)


def _for(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(fn, fn + tn)


def _jaccard(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tp, tp + fp + fn)


def _label_accuracy(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tp + tn, tp + fp + fn + tn)


def _error_rate(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(fp + fn, tp + fp + fn + tn)


def _fbeta_formula(beta: float) -> Formula:
    b2 = beta * beta

    def formula(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
        return ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)

    return formula


def _balanced_accuracy(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return 0.5 * (_recall(tp, fp, fn, tn) + _specificity(tp, fp, fn, tn))


def _gmean(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return sqrt(_recall(tp, fp, fn, tn) * _specificity(tp, fp, fn, tn))


def _informedness(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return _recall(tp, fp, fn, tn) + _specificity(tp, fp, fn, tn) - 1.0


def _markedness(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return _precision(tp, fp, fn, tn) + _npv(tp, fp, fn, tn) - 1.0


def _mcc(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tp * tn - fp * fn, sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))


def _kappa(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    n = tp + fp + fn + tn
    po = ratio(tp + tn, n)
    pe = ratio((tp + fn) * (tp + fp) + (tn + fp) * (tn + fn), n * n)
    return ratio(po - pe, 1.0 - pe)


def _fowlkes_mallows(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return sqrt(_precision(tp, fp, fn, tn) * _recall(tp, fp, fn, tn))


# ---------------------------------------------------------------------------
# Registry

_REGISTRY: dict[str, Measure] = {}
_CANONICAL: dict[str, Measure] = {}
_BUILTIN: set[str] = set()


def _key(name: str) -> str:
    return str(name).strip().lower().replace("-", "_").replace(" ", "_")


def _add(measure: Measure, *, overwrite: bool = False) -> Measure:
    names = (measure.name, *measure.aliases)
    if not overwrite:
        taken = [n for n in names if _key(n) in _REGISTRY]
        if taken:
            msg = (
                f"measure name {taken[0]!r} is taken (by {_REGISTRY[_key(taken[0])].name!r}); "
                "pass overwrite=True to replace a measure you registered"
            )
            raise OptionError(msg)
    builtin = [n for n in names if _key(n) in _BUILTIN]
    if builtin:
        msg = f"measure name {builtin[0]!r} belongs to a built-in measure and cannot be replaced"
        raise OptionError(msg)
    if overwrite and _key(measure.name) in _CANONICAL:
        old = _CANONICAL.pop(_key(measure.name))
        for n in (old.name, *old.aliases):
            _REGISTRY.pop(_key(n), None)
    _CANONICAL[_key(measure.name)] = measure
    for n in names:
        _REGISTRY[_key(n)] = measure
    return measure


def _builtin(*args: Any, **kwargs: Any) -> None:
    m = _add(Measure(*args, **kwargs))
    _BUILTIN.update(_key(n) for n in (m.name, *m.aliases))


_builtin(
    "recall",
    _recall,
    linear=((1, 0, 0, 0), (1, 0, 1, 0)),
    skew_invariant=True,
    aliases=("sensitivity", "tpr", "hit_rate"),
)
_builtin(
    "specificity",
    _specificity,
    linear=((0, 0, 0, 1), (0, 1, 0, 1)),
    skew_invariant=True,
    tn_dependent_at_zero=True,
    aliases=("tnr", "selectivity"),
)
_builtin(
    "fnr",
    _fnr,
    greater_is_better=False,
    linear=((0, 0, 1, 0), (1, 0, 1, 0)),
    skew_invariant=True,
    aliases=("miss_rate",),
)
_builtin(
    "fpr",
    _fpr,
    greater_is_better=False,
    linear=((0, 1, 0, 0), (0, 1, 0, 1)),
    skew_invariant=True,
    tn_dependent_at_zero=True,
    aliases=("fall_out",),
    note="Lower is better; under one-hot encoding a wholly wrong classifier attains 1/(m-1).",
)
_builtin("precision", _precision, linear=((1, 0, 0, 0), (1, 1, 0, 0)), aliases=("ppv",))
_builtin("npv", _npv, linear=((0, 0, 0, 1), (0, 0, 1, 1)), tn_dependent_at_zero=True)
_builtin("fdr", _fdr, greater_is_better=False, linear=((0, 1, 0, 0), (1, 1, 0, 0)))
_builtin("for", _for, greater_is_better=False, linear=((0, 0, 1, 0), (0, 0, 1, 1)), tn_dependent_at_zero=True)
_builtin(
    "f1", _fbeta_formula(1.0), linear=((2, 0, 0, 0), (2, 1, 1, 0)), aliases=("dice", "f_measure", "fbeta1")
)
_builtin("f2", _fbeta_formula(2.0), linear=((5, 0, 0, 0), (5, 1, 4, 0)))
_builtin("f0.5", _fbeta_formula(0.5), linear=((1.25, 0, 0, 0), (1.25, 1, 0.25, 0)))
_builtin("jaccard", _jaccard, linear=((1, 0, 0, 0), (1, 1, 1, 0)), aliases=("iou", "csi", "tanimoto"))
_builtin(
    "label_accuracy",
    _label_accuracy,
    linear=((1, 0, 0, 1), (1, 1, 1, 1)),
    tn_dependent_at_zero=True,
    aliases=("accuracy_labelwise",),
    note="On one-hot multiclass data this is not standard accuracy; see accuracy().",
)
_builtin(
    "error_rate",
    _error_rate,
    greater_is_better=False,
    linear=((0, 1, 1, 0), (1, 1, 1, 1)),
    tn_dependent_at_zero=True,
    aliases=("hamming_loss",),
    note="Lower is better; under one-hot encoding a wholly wrong classifier attains 2/m.",
)
_builtin(
    "balanced_accuracy", _balanced_accuracy, skew_invariant=True, tn_dependent_at_zero=True, aliases=("ba",)
)
_builtin(
    "gmean",
    _gmean,
    skew_invariant=True,
    aliases=("g_mean", "geometric_mean"),
    note="Uses all four cells yet attains 0 at tp = 0, because recall annihilates it.",
)
_builtin(
    "informedness",
    _informedness,
    skew_invariant=True,
    tn_dependent_at_zero=True,
    aliases=("youden_j", "bookmaker"),
)
_builtin("markedness", _markedness, tn_dependent_at_zero=True, aliases=("deltap",))
_builtin("mcc", _mcc, tn_dependent_at_zero=True, aliases=("matthews", "phi"))
_builtin("kappa", _kappa, tn_dependent_at_zero=True, aliases=("cohen_kappa",))
_builtin("fowlkes_mallows", _fowlkes_mallows, aliases=("fm",))

_FBETA = re.compile(r"^f(?:beta)?_?(\d+(?:\.\d+)?)$")


def fbeta(beta: float) -> Measure:
    """The F-beta measure for any ``beta > 0`` (``f1``, ``f2`` and ``f0.5`` are registered).

    Examples
    --------
    >>> import aggframe as af
    >>> m = af.fbeta(3)
    >>> m.name, m.linear
    ('f3', ((10.0, 0.0, 0.0, 0.0), (10.0, 1.0, 9.0, 0.0)))
    """
    given = beta
    try:
        beta = float(beta)
    except (TypeError, ValueError):
        beta = float("nan")
    if not (beta > 0 and math.isfinite(beta)):
        msg = f"Expected `beta` to be a positive finite number, got {given!r}"
        raise OptionError(msg)
    b2 = beta * beta
    label = f"{beta:g}"
    existing = _REGISTRY.get(_key(f"f{label}"))
    if existing is not None:
        return existing
    return Measure(
        f"f{label}",
        _fbeta_formula(beta),
        linear=((1 + b2, 0.0, 0.0, 0.0), (1 + b2, 1.0, b2, 0.0)),
    )


def get_measure(name: str | Measure) -> Measure:
    """Look a measure up by name or alias (case, ``-`` and spaces do not matter).

    ``"f<beta>"`` (e.g. ``"f3"``, ``"fbeta_0.25"``) gives F-beta for any beta.

    Raises
    ------
    UnknownNameError
        With the list of valid names.
    """
    if isinstance(name, Measure):
        return name
    if not isinstance(name, str):
        msg = f"Expected a measure name or an af.Measure, got {type(name).__name__}: {name!r}"
        raise UnknownNameError(msg)
    key = _key(name)
    if key in _REGISTRY:
        return _REGISTRY[key]
    match = _FBETA.match(key)
    if match:
        return fbeta(float(match.group(1)))
    msg = f"unknown measure {name!r}; valid names: {', '.join(list_measures())} (or f<beta>)"
    raise UnknownNameError(msg)


def list_measures(*, decomposable: bool | None = None, skew_invariant: bool | None = None) -> list[str]:
    """Canonical names of the registered measures, sorted, optionally filtered.

    Examples
    --------
    >>> import aggframe as af
    >>> len(af.list_measures())
    21
    >>> af.list_measures(decomposable=False, skew_invariant=True)
    ['balanced_accuracy', 'gmean', 'informedness']
    """
    out = sorted(_CANONICAL.values(), key=lambda m: m.name)
    if decomposable is not None:
        out = [m for m in out if m.decomposable is decomposable]
    if skew_invariant is not None:
        out = [m for m in out if m.skew_invariant is skew_invariant]
    return [m.name for m in out]


def register_measure(
    name: str,
    formula: Formula,
    *,
    greater_is_better: bool | None = None,
    linear: Coefficients | None = None,
    skew_invariant: bool | None = None,
    tn_dependent_at_zero: bool | None = None,
    aliases: Sequence[str] = (),
    note: str = "",
    overwrite: bool = False,
    seed: int = 0,
) -> Measure:
    """Register the user's own measure, usable at once by every operator.

    ``formula(tp, fp, fn, tn)`` must work on Polars expressions and on NumPy
    arrays: plain arithmetic does, and :func:`aggframe.ops.ratio` /
    :func:`aggframe.ops.sqrt` make divisions safe (a raw ``/`` by zero is also
    accepted: any non-finite value counts as undefined). The formula is tried on
    both at registration.

    Every property not given is inferred from the formula
    (:func:`aggframe.infer_properties`, seeded by ``seed``): the ``linear``
    coefficients (so micro is the denominator-weighted macro at once),
    ``skew_invariant``, ``tn_dependent_at_zero`` and ``greater_is_better``
    (True when correcting predictions moves the value both ways). A property
    given explicitly is checked against the inference: a contradiction raises
    :class:`OptionError` naming the property.

    Examples
    --------
    >>> import aggframe as af
    >>> from aggframe.ops import ratio
    >>> m = af.register_measure("positive_rate", lambda tp, fp, fn, tn: ratio(tp + fp, tp + fp + fn + tn))
    >>> float(m(1, 1, 0, 2)), m.linear, m.skew_invariant
    (0.5, ((1.0, 1.0, 0.0, 0.0), (1.0, 1.0, 1.0, 1.0)), False)
    >>> af.unregister_measure("positive_rate")
    """
    if not isinstance(name, str) or not name.strip():
        msg = f"Expected `name` to be a non-empty string, got {name!r}"
        raise OptionError(msg)
    if not callable(formula):
        msg = f"Expected `formula` to be a callable of (tp, fp, fn, tn), got {type(formula).__name__}"
        raise OptionError(msg)
    probe = Measure(name, formula)
    grid = np.array([[3, 1, 2, 4], [0, 2, 2, 6], [5, 0, 0, 1], [1, 3, 0, 0], [7, 2, 5, 11]], dtype=float).T
    try:
        values = np.asarray(probe(*grid), dtype=float)
        probe.expr()
    except Exception as exc:
        msg = (
            f"measure {name!r}: the formula must work on NumPy arrays and on Polars "
            f"expressions; calling it failed with {type(exc).__name__}: {exc}"
        )
        raise OptionError(msg) from exc
    if values.shape != (grid.shape[1],):
        msg = f"measure {name!r}: the formula must be elementwise, got shape {values.shape}"
        raise OptionError(msg)
    if linear is not None:
        a, b = (np.asarray(c, dtype=float) for c in linear)
        with np.errstate(all="ignore"):
            expect = (a @ grid) / (b @ grid)
        ok = np.isfinite(expect)
        if not np.allclose(values[ok], expect[ok], rtol=1e-9, atol=1e-12):
            msg = f"measure {name!r}: `linear` coefficients do not reproduce the formula"
            raise OptionError(msg)
        linear = (tuple(map(float, a)), tuple(map(float, b)))  # type: ignore[assignment]
    from aggframe._inference import resolve_properties  # the inference imports this module

    properties = resolve_properties(
        probe,
        linear=linear,
        skew_invariant=skew_invariant,
        tn_dependent_at_zero=tn_dependent_at_zero,
        greater_is_better=greater_is_better,
        seed=seed,
    )
    measure = Measure(name, formula, aliases=tuple(aliases), note=note, **properties)
    return _add(measure, overwrite=overwrite)


def unregister_measure(name: str) -> None:
    """Remove a measure registered with :func:`register_measure` (built-ins stay)."""
    key = _key(name)
    if key in _BUILTIN:
        msg = f"measure {name!r} is built in and cannot be removed"
        raise OptionError(msg)
    measure = _REGISTRY.get(key)
    if measure is None:
        msg = f"no registered measure named {name!r}"
        raise UnknownNameError(msg)
    _CANONICAL.pop(_key(measure.name), None)
    for n in (measure.name, *measure.aliases):
        _REGISTRY.pop(_key(n), None)
