"""Inference against the registry: :func:`infer_properties` by name, and :func:`verify_inference`.

Above both the registry and the inference, so neither imports the other in a
circle: the registry infers a user measure's properties at registration, and
this module checks the inference on the built-ins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from aggframe.measures.inference import PROPERTIES, TOL, InferredProperties, _agree, _text, infer
from aggframe.measures.measure import Formula, Measure
from aggframe.measures.registry import BUILTIN, get_measure

__all__ = ["infer_properties", "verify_inference"]


def infer_properties(
    formula: Formula | Measure | str, *, seed: int = 0, tol: float = TOL
) -> InferredProperties:
    """Recover a binary measure's structural properties from its formula.

    Parameters
    ----------
    formula
        ``formula(tp, fp, fn, tn)`` working on NumPy arrays (non-finite values
        count as undefined), or a :class:`Measure` or a measure name.
    seed
        Seed of the sampled count vectors (the result is deterministic).
    tol
        Relative tolerance of the held-out validation of the linear-fractional
        fit and of the skew-invariance and tn-dependence tests.

    Returns
    -------
    InferredProperties
        The inferred properties; ``summary()`` gives them as text.

    Raises
    ------
    UnknownNameError
        An unknown measure name.

    Examples
    --------
    >>> import aggframe as af
    >>> from aggframe.ops import ratio
    >>> p = af.infer_properties(lambda tp, fp, fn, tn: ratio(2 * tp, 2 * tp + fp + fn))
    >>> p.linear, p.skew_invariant, p.greater_is_better, p.bayes_threshold
    (((2.0, 0.0, 0.0, 0.0), (2.0, 1.0, 1.0, 0.0)), False, True, None)
    >>> p = af.infer_properties("balanced_accuracy")
    >>> p.decomposable, p.skew_invariant, p.tn_dependent_at_zero
    (False, True, True)
    """
    measure = get_measure(formula) if isinstance(formula, str) else formula
    return infer(measure, seed=seed, tol=tol)


def verify_inference(names: Sequence[str | Measure] | None = None, *, seed: int = 0) -> pl.DataFrame:
    """Inferred against declared properties, one row per measure x property.

    By default the 21 built-in measures, whose properties are known
    analytically; every row must agree (a test asserts it). Any registered
    measure (or :class:`Measure`) can be passed instead.

    Returns a tidy frame: ``measure``, ``property`` (``decomposable``, ``linear``,
    ``skew_invariant``, ``tn_dependent_at_zero``, ``greater_is_better``,
    ``bayes_threshold``, ``erm_consistent``), ``declared`` and ``inferred`` (as
    text) and ``agree``.

    Parameters
    ----------
    names
        Measures to check (default: every built-in).
    seed
        The seed of the inference.

    Returns
    -------
    pl.DataFrame
        measure, property, declared, inferred, agree.

    Raises
    ------
    UnknownNameError
        An unknown measure name.

    Examples
    --------
    >>> import aggframe as af
    >>> report = af.verify_inference()
    >>> report.height, report["agree"].all()
    (147, True)
    >>> report.filter(measure="f0.5", property="linear")["inferred"].item()
    '((1.25, 0, 0, 0), (1.25, 1, 0.25, 0))'
    """
    chosen = [get_measure(n) for n in BUILTIN] if names is None else [get_measure(n) for n in names]
    rows: list[dict[str, Any]] = []
    for m in chosen:
        inf = infer(m, seed=seed)
        declared = {
            "decomposable": m.decomposable,
            "linear": m.linear,
            "skew_invariant": m.skew_invariant,
            "tn_dependent_at_zero": m.tn_dependent_at_zero,
            "greater_is_better": m.greater_is_better,
            "bayes_threshold": m.bayes_threshold(),
            "erm_consistent": m.erm_consistent(),
        }
        for prop in PROPERTIES:
            d, i = declared[prop], getattr(inf, prop)
            rows.append(
                {
                    "measure": m.name,
                    "property": prop,
                    "declared": _text(d),
                    "inferred": _text(i),
                    "agree": _agree(prop, d, i),
                }
            )
    return pl.DataFrame(
        rows,
        schema={
            "measure": pl.String,
            "property": pl.String,
            "declared": pl.String,
            "inferred": pl.String,
            "agree": pl.Boolean,
        },
    )
