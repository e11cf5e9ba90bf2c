"""The measure registry: the 21 built-ins (aggmetrics' names and aliases) and the user's own.

Names are looked up case-insensitively, with ``-`` and spaces as ``_``;
``"f<beta>"`` gives any F-beta. :func:`register_measure` checks a user's formula
on NumPy and on Polars and infers every property it is not given
(:mod:`aggframe.measures.inference`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe._options import suggestion
from aggframe.exceptions import OptionError, UnknownNameError
from aggframe.measures import formulas as f
from aggframe.measures.inference import resolve_properties
from aggframe.measures.measure import Coefficients, Formula, Measure

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = [
    "BUILTIN",
    "SCORE_MEASURES",
    "fbeta",
    "get_measure",
    "is_builtin",
    "is_builtin_measure",
    "is_score_measure",
    "key",
    "list_measures",
    "register_measure",
    "score_measure",
    "unknown_measure",
    "unregister_measure",
]


_REGISTRY: dict[str, Measure] = {}


_CANONICAL: dict[str, Measure] = {}


_BUILTIN: set[str] = set()


def _key(name: str) -> str:
    return str(name).strip().lower().replace("-", "_").replace(" ", "_")


#: The measures on scores (threshold-free: no formula of the four cells), canonical names.
SCORE_MEASURES = ("auroc", "average_precision", "log_loss", "brier", "ece")

#: Every accepted spelling of a measure on scores -> its canonical name.
_SCORE_NAMES: dict[str, str] = {
    **{m: m for m in SCORE_MEASURES},
    "roc_auc": "auroc",
    "auc": "auroc",
    "ap": "average_precision",
    "pr_auc": "average_precision",
    "cross_entropy": "log_loss",
    "logloss": "log_loss",
    "brier_score": "brier",
    "expected_calibration_error": "ece",
}


def is_score_measure(name: object) -> bool:
    """Whether ``name`` is a measure on scores (``auroc``, ``average_precision``, ``log_loss``, ``brier``, ``ece``).

    These are computed from the scores themselves, not from confusion cells, so
    they have no :class:`Measure` object; :meth:`~aggframe.Predictions.evaluate`
    tells them apart by name. Aliases: ``roc_auc``, ``auc``, ``ap``, ``pr_auc``,
    ``cross_entropy``, ``logloss``, ``brier_score``, ``expected_calibration_error``.

    Examples
    --------
    >>> from aggframe.measures.registry import is_score_measure
    >>> is_score_measure("ROC-AUC"), is_score_measure("f1")
    (True, False)
    """
    return isinstance(name, str) and _key(name) in _SCORE_NAMES


def score_measure(name: str) -> str:
    """The canonical name of a measure on scores (see :func:`is_score_measure`)."""
    key = _key(name)
    if key not in _SCORE_NAMES:
        msg = (
            f"unknown measure on scores {name!r}{suggestion(key, _SCORE_NAMES)}; valid names: "
            f"{', '.join(SCORE_MEASURES)}"
        )
        raise UnknownNameError(msg)
    return _SCORE_NAMES[key]


def _add(measure: Measure, *, overwrite: bool = False, is_builtin: bool = False) -> Measure:
    names = (measure.name, *measure.aliases)
    scored = [n for n in names if _key(n) in _SCORE_NAMES]
    if scored:
        msg = f"measure name {scored[0]!r} belongs to a measure on scores and cannot be registered"
        raise OptionError(msg)
    if not is_builtin:
        _check_user_names(names)
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


#: The whole-matrix measures' names and spellings (measures.matrix reserves them when it loads:
#: it builds on this module, not the other way round).
_MATRIX_NAMES: set[str] = set()
#: The whole-matrix measures' canonical names, in report order (for the lists of valid names).
_MATRIX_CANONICAL: list[str] = []


def reserve_matrix_names(names: Sequence[str], *, canonical: Sequence[str] = ()) -> None:
    """Names of the whole-matrix measures, which a user's measure cannot take (``canonical``: their own names)."""
    _MATRIX_NAMES.update(_key(n) for n in names)
    _MATRIX_CANONICAL.extend(n for n in canonical if n not in _MATRIX_CANONICAL)


def unknown_measure(name: object) -> str:
    """The message for a name that is no measure at all: every valid name, grouped, and the closest one.

    The measures of the four cells (every operator but ``multiclass``), the
    whole-matrix measures (operator ``multiclass``) and the measures on scores
    (predictions from :func:`~aggframe.from_scores`); difflib picks the closest
    spelling among every name and alias.

    Examples
    --------
    >>> from aggframe.measures.registry import unknown_measure
    >>> unknown_measure("precison").split(";")[0]
    "unknown measure 'precison' (did you mean 'precision'?)"
    """
    spellings = [*_REGISTRY, *sorted(_MATRIX_NAMES), *_SCORE_NAMES]
    return (
        f"unknown measure {name!r}{suggestion(name, spellings)}; valid names: "
        f"measures of the cells (every operator but multiclass): {', '.join(list_measures())}, f<beta>; "
        f"whole-matrix measures (operator multiclass): {', '.join(_MATRIX_CANONICAL)}; "
        f"measures on scores (predictions with scores): {', '.join(SCORE_MEASURES)}"
    )


def _check_user_names(names: Sequence[str]) -> None:
    """A user's measure takes no name that already means something else under some operator.

    The whole-matrix measures (``accuracy``, ``kappa_linear``, ``qwk``, ...: the
    ``multiclass`` operator would still read the built-in one, so one name would be two
    measures) and the F-beta spellings (``f3``, ``f_1``, ``fbeta_0.5``: ``af.fbeta`` and
    every ``"f<beta>"`` name are F-beta).
    """
    for n in names:
        if _key(n) in _MATRIX_NAMES:
            msg = (
                f"measure name {n!r} belongs to a whole-matrix measure (the multiclass operator's) and "
                "cannot be registered: the name would mean your formula under macro and the built-in one "
                "under multiclass; pick another name"
            )
            raise OptionError(msg)
        if _FBETA.match(_key(n)):
            msg = f"measure name {n!r} is an F-beta name (f<beta>: af.fbeta) and cannot be registered; pick another name"
            raise OptionError(msg)


def _builtin(*args: Any, **kwargs: Any) -> None:
    m = _add(Measure(*args, **kwargs), is_builtin=True)
    _BUILTIN.update(_key(n) for n in (m.name, *m.aliases))


_builtin(
    "recall",
    f.recall,
    linear=((1, 0, 0, 0), (1, 0, 1, 0)),
    skew_invariant=True,
    aliases=("sensitivity", "tpr", "hit_rate"),
)

_builtin(
    "specificity",
    f.specificity,
    linear=((0, 0, 0, 1), (0, 1, 0, 1)),
    skew_invariant=True,
    tn_dependent_at_zero=True,
    aliases=("tnr", "selectivity"),
)

_builtin(
    "fnr",
    f.fnr,
    greater_is_better=False,
    linear=((0, 0, 1, 0), (1, 0, 1, 0)),
    skew_invariant=True,
    aliases=("miss_rate",),
)

_builtin(
    "fpr",
    f.fpr,
    greater_is_better=False,
    linear=((0, 1, 0, 0), (0, 1, 0, 1)),
    skew_invariant=True,
    tn_dependent_at_zero=True,
    aliases=("fall_out",),
    note="Lower is better; under one-hot encoding a wholly wrong classifier attains 1/(m-1).",
)

_builtin("precision", f.precision, linear=((1, 0, 0, 0), (1, 1, 0, 0)), aliases=("ppv",))

_builtin("npv", f.npv, linear=((0, 0, 0, 1), (0, 0, 1, 1)), tn_dependent_at_zero=True)

_builtin("fdr", f.fdr, greater_is_better=False, linear=((0, 1, 0, 0), (1, 1, 0, 0)))

_builtin(
    "for", f.for_, greater_is_better=False, linear=((0, 0, 1, 0), (0, 0, 1, 1)), tn_dependent_at_zero=True
)

_builtin(
    "f1", f.fbeta_formula(1.0), linear=((2, 0, 0, 0), (2, 1, 1, 0)), aliases=("dice", "f_measure", "fbeta1")
)

_builtin("f2", f.fbeta_formula(2.0), linear=((5, 0, 0, 0), (5, 1, 4, 0)))

_builtin("f0.5", f.fbeta_formula(0.5), linear=((1.25, 0, 0, 0), (1.25, 1, 0.25, 0)))

_builtin("jaccard", f.jaccard, linear=((1, 0, 0, 0), (1, 1, 1, 0)), aliases=("iou", "csi", "tanimoto"))

_builtin(
    "label_accuracy",
    f.label_accuracy,
    linear=((1, 0, 0, 1), (1, 1, 1, 1)),
    tn_dependent_at_zero=True,
    aliases=("accuracy_labelwise",),
    note="On one-hot multiclass data this is not standard accuracy; see accuracy().",
)

_builtin(
    "error_rate",
    f.error_rate,
    greater_is_better=False,
    linear=((0, 1, 1, 0), (1, 1, 1, 1)),
    tn_dependent_at_zero=True,
    aliases=("hamming_loss",),
    note="Lower is better; under one-hot encoding a wholly wrong classifier attains 2/m.",
)

_builtin(
    "balanced_accuracy", f.balanced_accuracy, skew_invariant=True, tn_dependent_at_zero=True, aliases=("ba",)
)

_builtin(
    "gmean",
    f.gmean,
    skew_invariant=True,
    aliases=("g_mean", "geometric_mean"),
    note="Uses all four cells yet attains 0 at tp = 0, because recall annihilates it.",
)

_builtin(
    "informedness",
    f.informedness,
    skew_invariant=True,
    tn_dependent_at_zero=True,
    aliases=("youden_j", "bookmaker"),
)

_builtin("markedness", f.markedness, tn_dependent_at_zero=True, aliases=("deltap",))

_builtin("mcc", f.mcc, tn_dependent_at_zero=True, aliases=("matthews", "phi"))

_builtin("kappa", f.kappa, tn_dependent_at_zero=True, aliases=("cohen_kappa",))

_builtin("fowlkes_mallows", f.fowlkes_mallows, aliases=("fm",))


_FBETA = re.compile(r"^f(?:beta)?_?(\d+(?:\.\d+)?)$")


def fbeta(beta: float) -> Measure:
    """The F-beta measure for any ``beta > 0`` (``f1``, ``f2`` and ``f0.5`` are registered).

    Parameters
    ----------
    beta
        The weight of recall relative to precision (``beta > 0``).

    Returns
    -------
    Measure
        The F-beta measure (registered under ``f<beta>`` on first use).

    Raises
    ------
    OptionError
        ``beta`` not a positive finite number.

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
        f.fbeta_formula(beta),
        linear=((1 + b2, 0.0, 0.0, 0.0), (1 + b2, 1.0, b2, 0.0)),
    )


def get_measure(name: str | Measure) -> Measure:
    """Look a measure up by name or alias (case, ``-`` and spaces do not matter).

    ``"f<beta>"`` (e.g. ``"f3"``, ``"fbeta_0.25"``) gives F-beta for any beta.

    Parameters
    ----------
    name
        A name, alias, ``"f<beta>"``, or a :class:`~aggframe.Measure` (returned as it is).

    Returns
    -------
    Measure
        The measure.

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
    if key in _SCORE_NAMES:
        msg = (
            f"{name!r} is a measure on scores (threshold-free): it has no formula of the four cells; "
            "evaluate it with Predictions.evaluate on predictions that carry scores (from_scores)"
        )
        raise UnknownNameError(msg)
    match = _FBETA.match(key)
    if match:
        return fbeta(float(match.group(1)))
    if key in _MATRIX_NAMES:
        msg = (
            f"measure {name!r} is defined on the whole confusion matrix only (operator 'multiclass'): it "
            "has no formula of the four cells"
        )
        raise UnknownNameError(msg)
    raise UnknownNameError(unknown_measure(name))


def list_measures(*, decomposable: bool | None = None, skew_invariant: bool | None = None) -> list[str]:
    """Canonical names of the registered measures, sorted, optionally filtered.

    Parameters
    ----------
    decomposable, skew_invariant
        Keep only the measures with (``True``) or without (``False``) the property.

    Returns
    -------
    list[str]
        The names, sorted.

    Raises
    ------
    None
        It raises nothing of its own (a filter is compared with each property).

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


def register_measure(  # noqa: PLR0913 -- the user's options, keyword-only
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

    Parameters
    ----------
    name
        The new measure's name (not a built-in name or alias, nor an F-beta spelling).
    formula
        ``formula(tp, fp, fn, tn)`` on Polars expressions and NumPy arrays.
    greater_is_better, linear, skew_invariant, tn_dependent_at_zero
        Properties; inferred from the formula when not given, checked when given.
    aliases
        Other names for the measure.
    note
        A line of text kept with the measure.
    overwrite
        Replace a measure of the same name registered before.
    seed
        The seed of the inference.

    Returns
    -------
    Measure
        The registered measure.

    Raises
    ------
    OptionError
        A taken name, a formula that does not give numbers on expressions and arrays, or a
        property that contradicts the formula.

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
    if isinstance(aliases, (str, bytes)) or not all(isinstance(a, str) for a in aliases):
        # aliases="xy" registered the aliases 'x' and 'y'
        msg = f"`aliases` takes a list of names, got {aliases!r}; e.g. aliases=['my_alias']"
        raise OptionError(msg)
    probe = Measure(name, formula)
    grid = np.array([[3, 1, 2, 4], [0, 2, 2, 6], [5, 0, 0, 1], [1, 3, 0, 0], [7, 2, 5, 11]], dtype=float).T
    try:
        values = np.asarray(probe(*grid), dtype=float)
        probe.expr()
        cols = pl.DataFrame({c: grid[i] for i, c in enumerate(("tp", "fp", "fn", "tn"))})
        kind = cols.select(formula(*(pl.col(c) for c in cols.columns)).alias("v")).schema["v"]
    except Exception as exc:
        msg = (
            f"measure {name!r}: the formula must work on NumPy arrays and on Polars "
            f"expressions; calling it failed with {type(exc).__name__}: {exc}"
        )
        raise OptionError(msg) from exc
    if not kind.is_numeric():
        msg = (
            f"measure {name!r}: the formula must give numbers, and on Polars expressions it gives {kind} "
            "(a comparison such as tp > fp is a Boolean: multiply it by 1.0)"
        )
        raise OptionError(msg)
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
    """Remove a measure registered with :func:`register_measure` (built-ins stay).

    Parameters
    ----------
    name
        The name of a measure registered with :func:`register_measure`.

    Raises
    ------
    OptionError
        A built-in measure.
    UnknownNameError
        A name that is not registered.
    """
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


def key(name: str) -> str:
    """The registry key of a name (case-insensitive; ``-`` and spaces as ``_``)."""
    return _key(name)


def is_builtin(name: str) -> bool:
    """Whether ``name`` (or an alias) belongs to a built-in measure."""
    return _key(name) in _BUILTIN


def is_builtin_measure(measure: Measure) -> bool:
    """Whether ``measure`` is a built-in measure itself (the registered one, not one named like it)."""
    return is_builtin(measure.name) and _REGISTRY.get(_key(measure.name)) is measure


#: The built-in measures' canonical names, sorted.
BUILTIN = tuple(sorted(m for m in list_measures() if is_builtin(m)))
