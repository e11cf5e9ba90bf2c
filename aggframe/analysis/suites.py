"""Choosing which measures to report: the rank test of Remark 2 and information volume.

Experimental: the signatures may change in a later 0.x release.

A confusion matrix has few degrees of freedom once the class sizes are fixed:
``d = 2`` for a binary problem (recall and specificity), ``m(m - 1)`` for ``m``
classes (the off-diagonal rates ``R[j, k]``, the share of class ``j`` predicted
as ``k``) and ``2m`` for ``m`` labels (recall and specificity of each label).
Remark 2 of the companion paper: a suite of ``k <= d`` measures is locally
non-redundant if and only if the Jacobian of the measures with respect to those
free parameters has full row rank ``k``.

:func:`suite_rank` computes that Jacobian at the data and its rank;
:func:`select_suite` picks the subset of candidates with the largest
*information volume*, a score added by the package (not a result of the paper):
the rows of the Jacobian are scaled to unit length and the volume is
``sqrt(det(J J^T))``, the volume of the parallelepiped they span. It lies in
``[0, 1]``, is 0 exactly when the suite is redundant and 1 when the gradients are
mutually orthogonal.

The parametrisation, the handling of classes without support and of undefined
per-class values follow aggmetrics 0.2.0 (``aggmetrics.suites``), so the numbers
agree. Unlike aggmetrics, the gradients are exact: the cells are linear in the
free parameters, and each measure is differentiated by the *complex step*
``f'(x) = Im f(x + i h) / h`` (``h = 1e-30``) through its formula and the
aggregation. Complex step has no subtractive cancellation, so the derivative is
correct to machine precision. It needs formulas that are analytic in the cells:
plain arithmetic, :func:`aggframe.ops.ratio` (its test ``abs(den) > EPS`` uses the
modulus, and the perturbation of ``1e-30`` cannot move a denominator across
``EPS``) and :func:`aggframe.ops.sqrt` (complex square root, away from its branch
cut on the negative axis). All built-in measures qualify. A user-registered
formula that does not (it uses ``abs``, ``max``, comparisons, or casts to float)
is detected by a probe against central differences and is differentiated by
central differences instead, as aggmetrics does.

The Jacobian is local: it says how the measures respond to the classifier at the
data given, not to a change of prevalence. Only the operators ``'micro'``,
``'macro'`` and ``'weighted'`` are functions of the confusion matrix; the
exemplar operator depends on the examples and has no Jacobian of this kind.
Masks, soft labels (t-norms) and ordinal data are not supported.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from aggframe._options import parse_operator
from aggframe.analysis.jacobian import FloatArray, IntArray, Pair, SuiteInput, jacobian, model
from aggframe.exceptions import OptionError, UnknownNameError
from aggframe.measures.measure import Measure
from aggframe.measures.registry import get_measure, list_measures
from aggframe.predictions import summary_html

__all__ = ["SuiteInput", "SuiteRank", "SuiteSelection", "select_suite", "suite_jacobian", "suite_rank"]


#: A measure of a suite: a name (or :class:`Measure`) with the default operator,
#: or a ``(name, operator)`` pair.
Item: TypeAlias = str | Measure | tuple[str | Measure, str]


_OPERATORS: tuple[str, ...] = ("micro", "macro", "weighted")


_EXHAUSTIVE_LIMIT = 200_000


_CHUNK = 8_192  # subsets scored per batch in the exhaustive search


_TIE = 1e-10  # volumes this close (relatively) to the best tie: the first candidate wins


@dataclass(frozen=True)
class SuiteRank:
    """Result of :func:`suite_rank`.

    Attributes
    ----------
    items : tuple of (str, str)
        The suite, as canonical ``(measure, operator)`` pairs.
    rank : int
        Number of independent directions the suite spans.
    degrees_of_freedom : int
        Number of free parameters ``d`` of the confusion matrix.
    volume : float
        Information volume in ``[0, 1]``; 0 exactly when the suite is redundant.
    singular_values : numpy.ndarray
        Singular values of the unit-scaled Jacobian, largest first.
    flat : tuple of (str, str)
        Measures whose gradient vanishes (or is undefined) at the data.
    parameters : tuple of str
        Names of the free parameters (the columns of the Jacobian).
    """

    items: tuple[Pair, ...]
    rank: int
    degrees_of_freedom: int
    volume: float
    singular_values: FloatArray = field(compare=False)
    flat: tuple[Pair, ...]
    parameters: tuple[str, ...] = ()

    @property
    def redundant(self) -> bool:
        """True if the suite does not have full row rank.

        Returns
        -------
        bool
            Whether the suite's Jacobian has lower rank than its size.
        """
        return self.rank < len(self.items)

    def __repr__(self) -> str:
        """One screen: long tuples (parameters, singular values) are cut, the attributes keep everything.

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels(list(range(20)) * 3, list(range(20)) * 2 + list(range(1, 20)) + [0])
        >>> r = af.suites.suite_rank(pr, ["precision", "recall", "f1"], "macro")
        >>> len(r.parameters), len(repr(r)) < 400
        (380, True)
        """
        return (
            f"SuiteRank(items={_short_items(self.items)}, rank={self.rank}, "
            f"degrees_of_freedom={self.degrees_of_freedom}, volume={self.volume:.6g}, "
            f"singular_values={_short_numbers(self.singular_values)}, flat={_short_items(self.flat)}, "
            f"parameters={_short_names(self.parameters)})"
        )

    def _repr_html_(self) -> str:
        return summary_html(
            "SuiteRank",
            {
                "items": _short_items(self.items, html=True),
                "rank": f"{self.rank} of {len(self.items)} measures"
                + (" (redundant)" if self.redundant else ""),
                "degrees of freedom": str(self.degrees_of_freedom),
                "volume": f"{self.volume:.6g}",
                "singular values": _short_numbers(self.singular_values),
                "flat": _short_items(self.flat, html=True) if self.flat else "none",
                "parameters": _short_names(self.parameters),
            },
        )


@dataclass(frozen=True)
class SuiteSelection:
    """Result of :func:`select_suite`.

    Attributes
    ----------
    items : tuple of (str, str)
        The chosen suite, in candidate order for an exhaustive search and in
        the order of choice for a greedy one.
    volume : float
        Its information volume.
    rank : int
        Its rank.
    method : {'exhaustive', 'greedy'}
        How it was found.
    """

    items: tuple[Pair, ...]
    volume: float
    rank: int
    method: Literal["exhaustive", "greedy"]

    def __repr__(self) -> str:
        return (
            f"SuiteSelection(items={_short_items(self.items)}, volume={self.volume:.6g}, rank={self.rank}, "
            f"method={self.method!r})"
        )

    def _repr_html_(self) -> str:
        return summary_html(
            "SuiteSelection",
            {
                "items": _short_items(self.items, html=True),
                "volume": f"{self.volume:.6g}",
                "rank": str(self.rank),
                "method": self.method,
            },
        )


_SHOWN = 6  # items of a long tuple shown in a repr: the first ones and the last


def _cut(parts: list[str]) -> list[str]:
    if len(parts) <= _SHOWN + 1:
        return parts
    return [*parts[: _SHOWN - 1], f"... {len(parts) - _SHOWN} more ...", parts[-1]]


def _short_items(items: tuple[Pair, ...], *, html: bool = False) -> str:
    """``(('f1', 'macro'), ...)`` cut to a few; ``f1 (macro), ...`` for a table."""
    if html:
        return ", ".join(_cut([f"{m} ({o})" for m, o in items]))
    parts = _cut([repr(it) for it in items])
    return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"


def _short_numbers(values: FloatArray) -> str:
    return f"[{', '.join(_cut([f'{float(v):.4g}' for v in np.asarray(values).ravel()]))}]"


def _short_names(names: tuple[str, ...]) -> str:
    if len(names) <= _SHOWN + 1:
        return repr(names)
    return f"<{len(names)} names: {', '.join(_cut(list(names)))}>"


def _as_input(data: object) -> SuiteInput:
    if isinstance(data, SuiteInput):
        return data
    msg = (
        f"Expected a SuiteInput, got {type(data).__name__}; for predictions use af.suites.suite_rank, "
        "af.suites.select_suite or af.suites.suite_jacobian, which read their counts"
    )
    raise OptionError(msg)


def _operator(how: object, what: str) -> str:
    if not isinstance(how, str):
        msg = f"Expected {what} to be one of 'micro', 'macro', 'weighted', got {how!r}"
        raise OptionError(msg)
    try:
        key: str = parse_operator(how)
    except UnknownNameError:
        key = how.strip().lower()
    if key in _OPERATORS:
        return key
    msg = f"Expected {what} to be one of 'micro', 'macro', 'weighted', got {how!r}"
    if key == "exemplar":
        msg += (
            ": the exemplar operator depends on the examples, not on the confusion "
            "matrix, so a suite has no Jacobian under it"
        )
    raise OptionError(msg)


def _items(measures: Item | Iterable[Item], aggregation: str) -> tuple[list[Pair], list[Measure]]:
    default = _operator(aggregation, "`aggregation`")
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    pairs: list[Pair] = []
    objs: list[Measure] = []
    for it in measures:
        if isinstance(it, (str, Measure)):
            meas, how = get_measure(it), default
        elif isinstance(it, (tuple, list)) and len(it) == 2:
            meas = get_measure(it[0])
            how = _operator(it[1], f"the operator of {tuple(it)!r}")
        else:
            msg = f"Expected a measure name or a (name, operator) pair, got {it!r}"
            raise OptionError(msg)
        pair = (meas.name, how)
        if pair in pairs:
            msg = f"the suite repeats the pair {pair!r}"
            raise OptionError(msg)
        pairs.append(pair)
        objs.append(meas)
    if not pairs:
        msg = "Expected at least one measure in the suite, got none"
        raise OptionError(msg)
    return pairs, objs


def _check_tol(tol: object) -> float:
    """A tolerance is a finite number >= 0 (NaN made every comparison false: rank 0, volume 0)."""
    if (
        isinstance(tol, bool)
        or not isinstance(tol, (int, float, np.integer, np.floating))
        or not (np.isfinite(tol) and tol >= 0)
    ):
        msg = f"Expected `tol` to be a finite number >= 0, got {tol!r}"
        raise OptionError(msg)
    return float(tol)


def _unit_rows(jac: FloatArray, tol: float) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    norms = np.linalg.norm(jac, axis=1)
    flat = ~np.isfinite(norms) | (norms <= tol)
    unit = jac / np.where(flat, 1.0, norms)[:, None]
    unit[flat] = 0.0
    return unit, flat


def _volume_and_rank(unit: FloatArray, tol: float) -> tuple[float, int, FloatArray]:
    """Volume (product of the singular values, 0 if redundant), rank, singular values."""
    sv = np.asarray(np.linalg.svd(unit, compute_uv=False), dtype=np.float64)
    rank = int((sv > tol).sum())
    if rank < unit.shape[0]:
        return 0.0, rank, sv
    # prod(sv) = sqrt(det(U U^T)), without squaring the condition number
    return min(float(np.prod(sv)), 1.0), rank, sv


def _first_best(scores: FloatArray) -> int:
    """Index of the first score within a relative ``_TIE`` of the largest.

    Ties go to the order of the candidates. The tolerance is relative (aggmetrics
    rounds volumes to 12 decimals), so that tiny volumes of large suites are
    still told apart instead of all rounding to 0.
    """
    best = float(scores.max().item())
    return int(np.flatnonzero(scores >= best * (1.0 - _TIE))[0])


def _subset_volumes(gram: FloatArray, idx: IntArray) -> FloatArray:
    """Volumes ``sqrt(det(G[s, s]))`` of the subsets ``idx`` (``(S, k)`` row indices)."""
    sub = gram[idx[:, :, None], idx[:, None, :]]
    det = np.linalg.det(sub)
    return np.asarray(np.sqrt(np.clip(det, 0.0, None)), dtype=np.float64)


def _exhaustive(gram: FloatArray, subsets: Iterable[tuple[int, ...]], k: int) -> list[int]:
    """The first subset (in iteration order) of largest volume, scored in batches."""
    it = iter(subsets)
    chunks: list[IntArray] = []
    scores: list[FloatArray] = []
    while True:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(it, _CHUNK)), dtype=np.intp)
        if flat.size == 0:
            break
        chunks.append(flat.reshape(-1, k))
        scores.append(_subset_volumes(gram, chunks[-1]))
    best = _first_best(np.concatenate(scores))
    return [int(v) for v in np.concatenate(chunks)[best]]


def _greedy(unit: FloatArray, keep: list[int], k: int) -> list[int]:
    """The best pair, then at each step the candidate that most increases the volume.

    Adding ``u`` multiplies the volume by its distance to the span of the suite,
    so each step maximises that residual (computed against an orthonormal basis,
    accurate even when the volume itself has become tiny).
    """
    chosen = _exhaustive(unit @ unit.T, itertools.combinations(keep, 2), 2)
    basis, _ = np.linalg.qr(unit[chosen].T)  # (d, 2)
    while len(chosen) < k:
        rest = [i for i in keep if i not in chosen]
        cand = unit[rest]
        resid = cand - (cand @ basis) @ basis.T
        resid -= (resid @ basis) @ basis.T  # second pass: keep it orthogonal
        norms = np.linalg.norm(resid, axis=1)
        pick = _first_best(norms)
        chosen.append(rest[pick])
        basis = np.column_stack([basis, resid[pick] / norms[pick]])
    return chosen


def _search(unit: FloatArray, keep: list[int], k: int) -> tuple[list[int], Literal["exhaustive", "greedy"]]:
    if k == 1 or math.comb(len(keep), k) <= _EXHAUSTIVE_LIMIT:
        return _exhaustive(unit @ unit.T, itertools.combinations(keep, k), k), "exhaustive"
    return _greedy(unit, keep, k), "greedy"


def suite_jacobian(
    data: SuiteInput,
    measures: Item | Iterable[Item],
    aggregation: str = "macro",
) -> tuple[FloatArray, list[tuple[str, str]]]:
    """Exact Jacobian of a suite of measures with respect to the free parameters.

    Parameters
    ----------
    data : SuiteInput
        The counts (:func:`aggframe.suites.suite_jacobian` also takes predictions).
    measures : sequence of str or (str, str)
        Measure names (resolved through :func:`aggframe.get_measure`) or
        ``(name, operator)`` pairs; a bare name uses ``aggregation``.
    aggregation : {'macro', 'micro', 'weighted'}
        Default operator.

    Returns
    -------
    J : numpy.ndarray
        Shape ``(k, d)``: one row per measure, one column per free parameter,
        evaluated at the data. A row is NaN where the measure is undefined there.
    items : list of (str, str)
        The canonical ``(measure, operator)`` pair of each row (aliases resolved).

    Notes
    -----
    The columns are the free parameters, in the order of
    :attr:`SuiteRank.parameters`: ``recall, specificity`` for binary data;
    ``R[j,k]`` (``j != k``, row-major) for multiclass; ``recall[j],
    specificity[j]`` per label for multilabel. (aggmetrics returns those column
    names as the second element instead of the rows' pairs.)

    Examples
    --------
    >>> import numpy as np
    >>> from aggframe.analysis.suites import SuiteInput, suite_jacobian
    >>> data = SuiteInput("binary", np.array([60, 30, 20, 90]))
    >>> J, rows = suite_jacobian(data, ["recall", "fnr"], "micro")
    >>> J
    array([[ 1.,  0.],
           [-1.,  0.]])
    >>> rows
    [('recall', 'micro'), ('fnr', 'micro')]
    """
    data = _as_input(data)
    pairs, objs = _items(measures, aggregation)
    m = model(data)
    return jacobian(m, objs, pairs), list(pairs)


def suite_rank(
    data: SuiteInput,
    measures: Item | Iterable[Item],
    aggregation: str = "macro",
    tol: float = 1e-6,
) -> SuiteRank:
    """Rank test of Remark 2: is the suite locally non-redundant?

    Parameters
    ----------
    data : SuiteInput
        The counts (:func:`aggframe.suites.suite_jacobian` also takes predictions).
    measures : sequence of str or (str, str)
        Measure names or ``(name, operator)`` pairs; a bare name uses ``aggregation``.
    aggregation : {'macro', 'micro', 'weighted'}
        Default operator. ``'exemplar'`` is refused: it depends on the examples,
        not on the confusion matrix.
    tol : float
        Gradients with a norm at or below ``tol`` count as flat; singular values
        of the unit-scaled Jacobian above ``tol`` count towards the rank.

    Returns
    -------
    SuiteRank
        ``rank`` is the number of independent directions the suite spans; the
        suite is ``redundant`` if it is smaller than the number of measures.
        Measures that do not respond to the classifier at the data (or are
        undefined there) are listed in ``flat``.

    Examples
    --------
    >>> import numpy as np
    >>> from aggframe.analysis.suites import SuiteInput, suite_rank
    >>> data = SuiteInput("binary", np.array([60, 30, 20, 90]))
    >>> suite_rank(data, ["recall", "specificity"], "micro").rank
    2
    >>> r = suite_rank(data, ["label_accuracy", "f1", "balanced_accuracy"], "micro")
    >>> r.rank, r.redundant
    (2, True)
    """
    data = _as_input(data)
    pairs, objs = _items(measures, aggregation)
    m = model(data)
    jac = jacobian(m, objs, pairs)
    tol = _check_tol(tol)
    unit, flat = _unit_rows(jac, tol)
    volume, rank, sv = _volume_and_rank(unit, tol)
    return SuiteRank(
        items=tuple(pairs),
        rank=rank,
        degrees_of_freedom=m.dim,
        volume=volume,
        singular_values=sv,
        flat=tuple(p for p, f in zip(pairs, flat.tolist(), strict=True) if f),
        parameters=tuple(m.names),
    )


def _default_candidates() -> list[str]:
    # greater-is-better measures first, so that they win ties (as in aggmetrics)
    names = list_measures()
    return sorted(names, key=lambda n: not get_measure(n).greater_is_better)


def select_suite(
    data: SuiteInput,
    candidates: Item | Iterable[Item] | None = None,
    size: int | None = None,
    aggregation: str = "macro",
    tol: float = 1e-6,
) -> SuiteSelection:
    """Pick the suite of ``size`` measures with the largest information volume.

    Parameters
    ----------
    data : SuiteInput
        The counts (:func:`aggframe.suites.suite_jacobian` also takes predictions).
    candidates : sequence of str or (str, str), optional
        Defaults to every registered measure under ``aggregation``, those where
        greater is better first (each group in alphabetical order).
    size : int, optional
        Number of measures. Defaults to the degrees of freedom, capped by the
        number of independent directions the candidates span (their rank at
        ``tol``), and lowered further in the rare case that the best suite of
        that size is itself rank-deficient at ``tol``. A ``size`` above the rank
        of the candidates is an error (such a suite is redundant by construction).
    aggregation : {'macro', 'micro', 'weighted'}
        Default operator.
    tol : float
        Flatness and rank tolerance, as in :func:`suite_rank`.

    Returns
    -------
    SuiteSelection
        The search is exhaustive when there are at most 200,000 subsets and
        greedy otherwise (the best pair, then at each step the candidate that
        most increases the volume). Ties in the volume (rounded to 12 decimals)
        go to the order of ``candidates``. Flat candidates are never chosen.

    Examples
    --------
    >>> import numpy as np
    >>> from aggframe.analysis.suites import SuiteInput, select_suite
    >>> data = SuiteInput("binary", np.array([60, 30, 20, 90]))
    >>> select_suite(data, aggregation="micro").items
    (('recall', 'micro'), ('specificity', 'micro'))
    >>> s = select_suite(data, ["f1", "precision", "recall", "jaccard", "mcc"], aggregation="micro")
    >>> s.items, round(s.volume, 3)
    ((('precision', 'micro'), ('recall', 'micro')), 0.949)
    """
    data = _as_input(data)
    pairs, objs = _items(_default_candidates() if candidates is None else candidates, aggregation)
    m = model(data)
    jac = jacobian(m, objs, pairs)
    tol = _check_tol(tol)
    unit, flat = _unit_rows(jac, tol)
    keep = [i for i, f in enumerate(flat.tolist()) if not f]
    cap = 0
    if keep:
        cap = int((np.linalg.svd(unit[keep], compute_uv=False) > tol).sum())
    if size is None:
        k = min(m.dim, cap)
    else:
        try:
            k = operator.index(size)
        except TypeError:
            k = -1
        if isinstance(size, bool):
            k = -1
    if k < 1 or k > cap:
        got = "" if size is None else f", got {size!r}"
        msg = (
            f"Expected `size` to be between 1 and {cap}, the number of independent "
            f"directions the candidates span{got}"
        )
        if cap == 0:
            msg = "none of the candidates responds to the classifier at this data"
        raise OptionError(msg)
    chosen, method = _search(unit, keep, k)
    volume, rank, _ = _volume_and_rank(unit[chosen], tol)
    while size is None and rank < k and k > 1:
        # The candidates span k directions but no suite of k found is independent
        # at `tol` (a subset's smallest singular value can fall below the
        # candidates' k-th one): the default is the largest suite that is.
        k -= 1
        chosen, method = _search(unit, keep, k)
        volume, rank, _ = _volume_and_rank(unit[chosen], tol)
    return SuiteSelection(items=tuple(pairs[i] for i in chosen), volume=volume, rank=rank, method=method)
