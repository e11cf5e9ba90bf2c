"""A measure's structural properties, inferred from its formula alone.

:func:`register_measure` needs the properties the aggregation theory relies on;
this module recovers them numerically (NumPy, seeded, on sampled count vectors
``v = (tp, fp, fn, tn)``), so a formula is all a user has to give:

decomposability
    ``M = <a, v> / <b, v>``. Every sample gives one linear equation
    ``M(v) <b, v> - <a, v> = 0`` in the eight unknowns ``(a, b)``; the null
    vector of the sampled system (smallest right singular vector) is the fit.
    It is accepted only if it reproduces the formula on held-out count vectors
    of other scales, *and* on the boundary of the domain (integer counts with
    zero cells, as per-class tables are full of): wherever ``<b, v> != 0`` the
    formula must be defined and equal, and wherever ``<b, v> = 0`` the
    numerator must vanish too. Those are exactly the conditions under which
    micro equals the denominator-weighted macro on every cell table (Theorem 1);
    aggmetrics 0.2.0 checks the interior only, so it calls ``tp**2 / (tp (tp + fp))``
    decomposable although the identity fails as soon as a class has
    ``tp = 0 < fp``. The coefficients are normalised like the built-ins'
    ``linear``: the denominator's ``fp`` coefficient is 1 (the F-beta
    convention), or, when it is 0, the denominator's first non-zero coefficient;
    values within 1e-9 of a fraction with denominator at most 1000 are snapped
    to it.
skew invariance
    ``M(l tp, u fp, l fn, u tn) == M(tp, fp, fn, tn)`` for independent rescalings
    ``l``, ``u`` of the positive and the negative class (the definition of the
    reference and of aggmetrics: a function of recall and specificity alone).
tn-dependence at tp = 0
    At ``tp = 0`` the value still moves when only ``tn`` does (one-hot data then
    keeps the measure away from its nominal minimum).
direction
    Correcting a prediction (a false negative into a true positive, a false
    positive into a true negative, or both) raises the value: greater is
    better; lowers it: smaller is better; no consistent answer: ``None``
    (a formula that is not a performance measure, such as a prevalence gap).
Bayes threshold, ERM consistency
    Derived from the coefficients as :meth:`Measure.bayes_threshold` does.

Inference is numerical, not a proof; :func:`verify_inference` checks it against
the built-in measures, whose properties are known analytically (all agree).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

from aggframe.exceptions import OptionError
from aggframe.measures.measure import Coefficients, Formula, Measure

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = ["PROPERTIES", "InferredProperties", "infer", "resolve_properties", "same_linear"]


#: Relative tolerance of the held-out validation and of the invariance tests.
TOL = 1e-8


#: The properties :func:`verify_inference` compares, in its row order.
PROPERTIES = (
    "decomposable",
    "linear",
    "skew_invariant",
    "tn_dependent_at_zero",
    "greater_is_better",
    "bayes_threshold",
    "erm_consistent",
)


@dataclass(frozen=True)
class InferredProperties:
    """Structural properties of a binary measure, recovered from its formula.

    ``linear`` is ``None`` when the formula is not linear-fractional (``reason``
    then says where the fit failed); ``greater_is_better`` is ``None`` when
    correcting predictions does not move the value consistently one way. The
    last three fields are the evidence: the held-out relative residual of the
    fit (NaN without a fit), the largest relative change under a class
    rescaling, and the share of prediction corrections that raise the value.
    """

    linear: Coefficients | None
    skew_invariant: bool
    tn_dependent_at_zero: bool
    greater_is_better: bool | None
    bayes_threshold: float | None
    erm_consistent: bool | None
    reason: str = ""
    residual: float = math.nan
    skew_deviation: float = math.nan
    fraction_increasing: float = math.nan

    @property
    def decomposable(self) -> bool:
        """True iff the formula is ``<a, v> / <b, v>`` on the whole domain (Theorem 1 holds).

        Returns
        -------
        bool
            Whether a linear-fractional form was found.
        """
        return self.linear is not None

    def summary(self) -> str:
        """The properties as aligned text, one per line, with the evidence behind them.

        The lines of aggmetrics' ``InferredProperties.summary()`` (decomposability,
        skew invariance, tn-dependence, direction, the coefficients and the fit's
        held-out residual), then aggframe's own: the Bayes threshold, ERM
        consistency, the skew deviation, the share of corrections that raise the
        value, and why a fit failed.

        Examples
        --------
        >>> import aggframe as af
        >>> from aggframe.ops import ratio
        >>> print(af.infer_properties(lambda tp, fp, fn, tn: ratio(tp, tp + fn)).summary())  # doctest: +ELLIPSIS
        decomposable          : True
        skew-invariant        : True
        tn-dependent at tp=0  : False
        greater is better     : True
        numerator coeffs      : (+1, +0, +0, +0)
        denominator coeffs    : (+1, +0, +1, +0)
        held-out residual     : ...
        bayes threshold       : 0
        erm consistent        : False
        skew deviation        : ...
        fraction increasing   : 1

        Returns
        -------
        str
            One line per property.
        """

        def fmt(v: Sequence[float]) -> str:
            return "(" + ", ".join(f"{x:+.4g}" for x in v) + ")"

        def num(x: float | None) -> str:
            return "None" if x is None else f"{x:.4g}"

        lines = [
            f"decomposable          : {self.decomposable}",
            f"skew-invariant        : {self.skew_invariant}",
            f"tn-dependent at tp=0  : {self.tn_dependent_at_zero}",
            f"greater is better     : {self.greater_is_better}",
        ]
        if self.linear is not None:
            a, b = self.linear
            lines += [
                f"numerator coeffs      : {fmt(a)}",
                f"denominator coeffs    : {fmt(b)}",
                f"held-out residual     : {self.residual:.2e}",
            ]
        lines += [
            f"bayes threshold       : {num(self.bayes_threshold)}",
            f"erm consistent        : {self.erm_consistent}",
            f"skew deviation        : {self.skew_deviation:.2e}",
            f"fraction increasing   : {num(self.fraction_increasing)}",
        ]
        if self.reason:
            lines.append(f"why not decomposable  : {self.reason}")
        return "\n".join(lines)


def _evaluator(formula: Formula | Measure) -> Callable[[np.ndarray], np.ndarray]:
    """``V (n x 4) -> values (n,)``: NaN where undefined, whatever the formula returns."""
    measure = formula if isinstance(formula, Measure) else Measure("_inferred", formula)

    def values(V: np.ndarray) -> np.ndarray:
        try:
            out = np.asarray(measure(V[:, 0], V[:, 1], V[:, 2], V[:, 3]))
        except Exception as exc:
            msg = (
                f"measure {measure.name!r}: inference calls the formula on NumPy arrays of counts; "
                f"it failed with {type(exc).__name__}: {exc}"
            )
            raise OptionError(msg) from exc
        if np.iscomplexobj(out):
            out = out.real
        out = np.broadcast_to(np.asarray(out, dtype=float), (V.shape[0],)).copy()
        out[~np.isfinite(out)] = np.nan
        return out

    return values


def _interior(rng: np.random.Generator, n: int, low: float = 1.0, high: float = 60.0) -> np.ndarray:
    """Count vectors with every cell positive, at scales from 0.1x to 100x."""
    scale = 10.0 ** rng.uniform(-1.0, 2.0, size=(n, 1))
    return rng.uniform(low, high, size=(n, 4)) * scale


def _boundary(rng: np.random.Generator, n: int = 400) -> np.ndarray:
    """Small integer count vectors with at least one zero cell (and every zero pattern)."""
    patterns = np.array([[(z >> i) & 1 for i in range(4)] for z in range(1, 16)], dtype=float)
    counts = rng.integers(1, 8, size=(n, 4)).astype(float)
    zeros = patterns[np.arange(n) % len(patterns)]
    return counts * (1.0 - zeros)


def _relative(diff: np.ndarray, base: np.ndarray) -> np.ndarray:
    return cast("np.ndarray", np.abs(diff) / np.maximum(1.0, np.abs(base)))


def _normalise(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Scale ``(a, b)`` like the built-ins: ``b_fp = 1``, else the first non-zero ``b_i = 1``."""
    big = float(np.max(np.abs(b)))
    if big == 0.0:
        return None
    nonzero = np.abs(b) > 1e-9 * big
    pivot = 1 if nonzero[1] else int(np.argmax(nonzero))
    k = b[pivot]
    a, b = a / k, b / k
    scale = max(float(np.max(np.abs(a))), float(np.max(np.abs(b))))
    a = np.where(np.abs(a) <= 1e-10 * scale, 0.0, a)
    b = np.where(np.abs(b) <= 1e-10 * scale, 0.0, b)
    return a, b


def _snap(x: np.ndarray) -> np.ndarray:
    """Coefficients within 1e-9 of a small fraction become that fraction (1.2500000001 -> 1.25)."""
    out = x.copy()
    for i, value in enumerate(x):
        frac = float(Fraction(float(value)).limit_denominator(1000))
        if abs(frac - value) <= 1e-9 * max(1.0, abs(value)):
            out[i] = frac
    return out


def _reproduces(  # noqa: PLR0911 -- a dispatch, one return per case
    values: Callable[[np.ndarray], np.ndarray],
    a: np.ndarray,
    b: np.ndarray,
    *,
    interior: np.ndarray,
    boundary: np.ndarray,
    tol: float,
) -> tuple[float, str]:
    """Worst held-out relative residual, and why ``<a, v> / <b, v>`` fails the formula ("" if not)."""
    y = values(interior)
    num, den = interior @ a, interior @ b
    usable = np.abs(den) > 1e-9 * np.abs(interior).sum(axis=1) * max(1.0, float(np.max(np.abs(b))))
    if not usable.any():
        return math.inf, "no held-out count vector gives the fitted denominator a non-zero value"
    if np.isnan(y[usable]).any():
        return math.inf, "the formula is undefined on held-out count vectors where the fit is defined"
    residual = float(np.max(_relative(num[usable] / den[usable] - y[usable], y[usable])))
    if residual > tol:
        return residual, f"a linear-fractional fit misses held-out count vectors by up to {residual:.2g}"
    yb = values(boundary)
    num_b, den_b = boundary @ a, boundary @ b
    zero = np.abs(den_b) <= 1e-9 * max(1.0, float(np.max(np.abs(b))))
    if (np.abs(num_b[zero]) > 1e-9 * max(1.0, float(np.max(np.abs(a))))).any():
        return residual, "the fitted numerator does not vanish where the denominator does (at a zero cell)"
    on = ~zero
    if np.isnan(yb[on]).any():
        v = boundary[on][np.isnan(yb[on])][0]
        return residual, (
            f"the formula is undefined at {tuple(v.tolist())} where <b, v> != 0, so a class with "
            "those cells would count in micro but not in the weighted macro"
        )
    miss = float(np.max(_relative(num_b[on] / den_b[on] - yb[on], yb[on]), initial=0.0))
    if miss > tol:
        return (
            residual,
            f"the fit differs from the formula by up to {miss:.2g} at count vectors with a zero cell",
        )
    return residual, ""


def _fit_linear(
    values: Callable[[np.ndarray], np.ndarray], rng: np.random.Generator, tol: float
) -> tuple[Coefficients | None, float, str]:
    """``(a, b)`` with ``M = <a, v> / <b, v>`` on the whole domain, or None with the reason."""
    V = _interior(rng, 64)
    y = values(V)
    ok = np.isfinite(y)
    interior, boundary = _interior(rng, 64), _boundary(rng)
    if ok.sum() < 16:
        return None, math.nan, "the formula is undefined on most count vectors with every cell positive"
    V, y = V[ok], y[ok]
    if np.ptp(y) <= tol * max(1.0, float(np.max(np.abs(y)))):
        # a constant: any (c b, b) fits; take the example count as the denominator
        c = float(np.median(y))
        a, b = np.full(4, c), np.ones(4)
    else:
        rows = np.hstack([-V, y[:, None] * V]) / np.linalg.norm(V, axis=1, keepdims=True)
        *_, vt = np.linalg.svd(rows, full_matrices=False)
        normed = _normalise(vt[-1][:4], vt[-1][4:])
        if normed is None:
            return None, math.nan, "the fitted denominator vanishes"
        a, b = normed
    residual, reason = _reproduces(values, a, b, interior=interior, boundary=boundary, tol=tol)
    if reason:
        return None, residual, reason
    sa, sb = _snap(a), _snap(b)
    if (sa != a).any() or (sb != b).any():
        snapped_residual, snapped_reason = _reproduces(
            values, sa, sb, interior=interior, boundary=boundary, tol=tol
        )
        if not snapped_reason:
            a, b, residual = sa, sb, snapped_residual
    linear = (
        (float(a[0]), float(a[1]), float(a[2]), float(a[3])),
        (float(b[0]), float(b[1]), float(b[2]), float(b[3])),
    )
    return linear, residual, ""


def _skew(
    values: Callable[[np.ndarray], np.ndarray], rng: np.random.Generator, tol: float
) -> tuple[bool, float]:
    """Largest relative change under ``(l tp, u fp, l fn, u tn)``; invariant if within ``tol``."""
    V = _interior(rng, 96)
    lu = 10.0 ** rng.uniform(-0.7, 0.7, size=(96, 2))
    scaled = V * lu[:, [0, 1, 0, 1]]
    base, alt = values(V), values(scaled)
    ok = np.isfinite(base) & np.isfinite(alt)
    if not ok.any():
        return False, math.nan
    worst = float(np.max(_relative(alt[ok] - base[ok], base[ok])))
    return worst <= tol, worst


def _tn_dependence(values: Callable[[np.ndarray], np.ndarray], rng: np.random.Generator, tol: float) -> bool:
    """At ``tp = 0``, does the value move when only ``tn`` does?"""
    fp_fn = rng.uniform(1.0, 50.0, size=(48, 2))
    tns = np.array([1.0, 25.0, 500.0, 5000.0])
    V = np.column_stack(
        [np.zeros(48 * 4), np.repeat(fp_fn[:, 0], 4), np.repeat(fp_fn[:, 1], 4), np.tile(tns, 48)]
    )
    y = values(V).reshape(48, 4)
    spreads = []
    for row in y:
        finite = row[np.isfinite(row)]
        if finite.size >= 2:
            spreads.append((finite.max() - finite.min()) / max(1.0, float(np.max(np.abs(finite)))))
    return bool(spreads) and bool(max(spreads) > tol)


def _direction(
    values: Callable[[np.ndarray], np.ndarray], rng: np.random.Generator
) -> tuple[bool | None, float]:
    """Share of corrections (FN -> TP, FP -> TN, both) that raise the value; None if not one-sided."""
    V = _interior(rng, 48, low=5.0, high=60.0)
    V = np.round(V) + 2.0
    moves = np.array([[1.0, 0.0, -1.0, 0.0], [0.0, -1.0, 0.0, 1.0], [1.0, -1.0, -1.0, 1.0]])
    before = values(V)
    ups = downs = 0
    for move in moves:
        after = values(V + move)
        ok = np.isfinite(before) & np.isfinite(after)
        change = after[ok] - before[ok]
        moved = np.abs(change) > 1e-12 * np.maximum(1.0, np.abs(before[ok]))
        ups += int((change[moved] > 0).sum())
        downs += int((change[moved] < 0).sum())
    total = ups + downs
    if total == 0:
        return None, math.nan
    share = ups / total
    if share >= 0.9:
        return True, share
    if share <= 0.1:
        return False, share
    return None, share


def infer(formula: Formula | Measure, *, seed: int = 0, tol: float = TOL) -> InferredProperties:
    """Recover a binary measure's structural properties from its formula (or a :class:`Measure`).

    The public entry point, which also takes a measure's name, is
    :func:`aggframe.infer_properties` (:mod:`aggframe.measures.verify`).
    """
    values = _evaluator(formula)
    rng = np.random.default_rng(seed)
    linear, residual, reason = _fit_linear(values, rng, tol)
    skew, deviation = _skew(values, rng, tol)
    tn_dependent = _tn_dependence(values, rng, tol)
    direction, share = _direction(values, rng)
    probe = Measure("_inferred", formula.formula if isinstance(formula, Measure) else formula, linear=linear)
    return InferredProperties(
        linear=linear,
        skew_invariant=skew,
        tn_dependent_at_zero=tn_dependent,
        greater_is_better=direction,
        bayes_threshold=probe.bayes_threshold(),
        erm_consistent=probe.erm_consistent(),
        reason=reason,
        residual=residual,
        skew_deviation=deviation,
        fraction_increasing=share,
    )


def _contradiction(measure: Measure, prop: str, given: Any, why: str) -> OptionError:
    msg = f"measure {measure.name!r}: `{prop}={given!r}` contradicts the formula: {why}"
    return OptionError(msg)


def resolve_properties(
    measure: Measure,
    *,
    linear: Coefficients | None,
    skew_invariant: bool | None,
    tn_dependent_at_zero: bool | None,
    greater_is_better: bool | None,
    seed: int = 0,
) -> dict[str, Any]:
    """The properties :func:`register_measure` stores: given ones checked, the rest inferred.

    Raises
    ------
    OptionError
        When a given property contradicts the inference (naming the property).
    """
    inf = infer(measure, seed=seed)
    if linear is not None and not same_linear(linear, inf.linear):
        why = inf.reason or f"the inferred coefficients are {_text(inf.linear)}"
        raise _contradiction(measure, "linear", linear, why)
    if skew_invariant is not None and skew_invariant != inf.skew_invariant:
        why = (
            f"rescaling the positive and negative classes independently moves it by up to {inf.skew_deviation:.3g}"
            if skew_invariant
            else "it is unchanged when the positive and negative classes are rescaled independently"
        )
        raise _contradiction(measure, "skew_invariant", skew_invariant, why)
    if tn_dependent_at_zero is not None and tn_dependent_at_zero != inf.tn_dependent_at_zero:
        why = f"at tp = 0 its value {'does not depend' if tn_dependent_at_zero else 'depends'} on tn"
        raise _contradiction(measure, "tn_dependent_at_zero", tn_dependent_at_zero, why)
    if greater_is_better is not None and inf.greater_is_better not in (None, greater_is_better):
        why = (
            f"correcting predictions {'raises' if inf.greater_is_better else 'lowers'} it "
            f"({inf.fraction_increasing:.0%} of sampled corrections raise it)"
        )
        raise _contradiction(measure, "greater_is_better", greater_is_better, why)
    return {
        "linear": inf.linear if linear is None else linear,
        "skew_invariant": inf.skew_invariant,
        "tn_dependent_at_zero": inf.tn_dependent_at_zero,
        "greater_is_better": (
            greater_is_better if greater_is_better is not None else inf.greater_is_better is not False
        ),
    }


def same_linear(x: Coefficients | None, y: Coefficients | None) -> bool:
    """Both absent, or the same coefficients up to a common non-zero factor."""
    if x is None or y is None:
        return x is None and y is None
    nx = _normalise(np.asarray(x[0], dtype=float), np.asarray(x[1], dtype=float))
    ny = _normalise(np.asarray(y[0], dtype=float), np.asarray(y[1], dtype=float))
    if nx is None or ny is None:
        return False
    return bool(np.allclose(np.concatenate(nx), np.concatenate(ny), rtol=1e-9, atol=1e-12))


def _text(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(_text(v) for v in value) + ")"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _agree(prop: str, declared: Any, inferred: Any) -> bool:
    if prop == "linear":
        return same_linear(declared, inferred)
    if prop == "bayes_threshold" and declared is not None and inferred is not None:
        return math.isclose(declared, inferred, rel_tol=1e-9, abs_tol=1e-12)
    return bool(declared == inferred) and type(declared) is type(inferred)
