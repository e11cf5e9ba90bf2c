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

The registry (:mod:`aggframe.measures.registry`) holds the 21 measures of
aggmetrics 0.2.0 under the same names and aliases, and the user's own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe.exceptions import OptionError

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = ["Coefficients", "Formula", "Measure", "MeasureLike"]


Coefficients = tuple[tuple[float, float, float, float], tuple[float, float, float, float]]


Formula = Callable[[Any, Any, Any, Any], Any]


@dataclass(frozen=True)
class Measure:
    """A binary measure: a formula of the four cells plus its properties.

    Calling a measure on numbers or arrays returns NumPy values (NaN where
    undefined); :meth:`expr` gives the Polars expression over cell columns
    (null where undefined).

    Parameters
    ----------
    name
        The canonical name.
    formula
        ``formula(tp, fp, fn, tn)`` on Polars expressions and NumPy arrays.
    greater_is_better
        The direction (for ranking and the diagnostics).
    linear
        ``(a, b)`` of ``M = <a, v> / <b, v>`` when the measure is decomposable, else None.
    skew_invariant
        Invariant under rescaling one class's cells.
    tn_dependent_at_zero
        Depends on ``tn`` when ``tp = 0`` (the floor trap of one-hot data).
    aliases
        Other names.
    note
        A line of text.

    Raises
    ------
    OptionError
        Calling :meth:`expr` with a formula that does not give a Polars expression.

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
        """True iff micro equals the denominator-weighted macro (Theorem 1).

        Returns
        -------
        bool
            Whether ``linear`` is known.
        """
        return self.linear is not None

    def expr(self, tp: str = "tp", fp: str = "fp", fn: str = "fn", tn: str = "tn") -> pl.Expr:
        """The measure as a Polars expression over four cell columns.

        The cells are cast to Float64 first (integer products overflow on large
        counts); a non-finite result (a custom formula dividing by zero) is
        turned into null, so null is the one spelling of *undefined*.

        Parameters
        ----------
        tp, fp, fn, tn
            The names of the cell columns.

        Returns
        -------
        pl.Expr
            The value, null where undefined.

        Raises
        ------
        OptionError
            The formula does not return a Polars expression.
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

        Returns
        -------
        tuple of four floats, or None
            The numerator coefficients.
        """
        return None if self.linear is None else self.linear[0]

    @property
    def denominator_coefficients(self) -> tuple[float, float, float, float] | None:
        """``b`` of ``M = <a, v> / <b, v>`` (the micro weights of Theorem 1); None if not decomposable.

        Returns
        -------
        tuple of four floats, or None
            The denominator coefficients.
        """
        return None if self.linear is None else self.linear[1]

    def numerator(self, counts: Sequence[float]) -> float:
        """``<a, (tp, fp, fn, tn)>`` for a decomposable measure.

        Parameters
        ----------
        counts
            ``(tp, fp, fn, tn)``.

        Returns
        -------
        float
            ``<a, counts>``.

        Raises
        ------
        OptionError
            The measure is not decomposable.
        """
        return float(np.dot(self._coefficients()[0], counts))

    def denominator(self, counts: Sequence[float]) -> float:
        """``<b, (tp, fp, fn, tn)>`` for a decomposable measure.

        Parameters
        ----------
        counts
            ``(tp, fp, fn, tn)``.

        Returns
        -------
        float
            ``<b, counts>``.

        Raises
        ------
        OptionError
            The measure is not decomposable.
        """
        return float(np.dot(self._coefficients()[1], counts))

    def bayes_threshold(self) -> float | None:
        """Optimal threshold on the conditional probability, or None (no closed form).

        For a numerator ``(alpha, -beta, -gamma, delta)`` over a denominator that
        does not depend on the predictions (it combines only the class totals
        ``tp + fn`` and ``fp + tn``), the population optimum predicts positive
        when the probability exceeds ``(beta + delta) / (alpha + beta + gamma + delta)``.

        Returns
        -------
        float or None
            The threshold, or None.
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
        """Whether the Bayes rule for 0/1 loss (threshold 0.5) optimises the measure.

        Returns
        -------
        bool or None
            None when the Bayes threshold has no closed form.
        """
        t = self.bayes_threshold()
        return None if t is None else math.isclose(t, 0.5, abs_tol=1e-9)

    def attainable_floor(self, m: int) -> float:
        """The value when every prediction is wrong on one-hot data with ``m`` classes.

        Pooled cells are then ``tp = 0``, ``fp = fn = n``, ``tn = n (m - 2)``; a
        measure that depends on ``tn`` at ``tp = 0`` stays away from its nominal
        minimum by an amount that grows with ``m``.

        Parameters
        ----------
        m
            The number of classes, at least 2.

        Returns
        -------
        float
            The measure's value there (NaN when undefined).

        Raises
        ------
        OptionError
            ``m < 2``.
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


#: What every signature takes as a measure: a name or alias (``"f1"``, ``"iou"``) or a :class:`Measure`.
MeasureLike = str | Measure
