"""Options, parsed once: operators, conventions, poolings, decisions, t-norm names and the rest.

Every option of the public API is a ``Literal`` type here (as in Polars'
``_typing``) with one parse function that accepts the spellings users type
(case, surrounding blanks, the documented aliases) and raises an
:class:`~aggframe.exceptions.UnknownNameError` that lists the valid values.
Nothing below this module parses an option string again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, TypeVar, get_args

from aggframe.exceptions import OptionError, UnknownNameError

__all__ = [
    "CONVENTIONS",
    "DECISIONS",
    "OPERATORS",
    "POOLINGS",
    "ClassUniverse",
    "Convention",
    "Decision",
    "Engine",
    "Grain",
    "LabelTask",
    "LongTask",
    "Operator",
    "Pooling",
    "ReportOperator",
    "TNormName",
    "Within",
    "listify",
    "parse_class_universe",
    "parse_convention",
    "parse_decision",
    "parse_operator",
    "parse_pooling",
    "parse_report_operator",
    "parse_within",
    "unique_in_order",
]

#: The four averaging operators over one set of cell tables.
Operator = Literal["micro", "macro", "weighted", "exemplar"]
#: What ``evaluate(operators=...)`` takes: the four, plus the positive class alone
#: (``binary``, two classes only), the mean over targets (``target``, with a target role)
#: and the whole confusion matrix of single-label data (``multiclass``: scikit-learn's
#: ``matthews_corrcoef``, ``cohen_kappa_score``, ``balanced_accuracy_score``, ``accuracy_score``).
ReportOperator = Literal["micro", "macro", "weighted", "exemplar", "binary", "target", "multiclass"]
#: The operator inside each target of the ``target`` operator: the four, or ``multiclass``.
Within = Literal["micro", "macro", "weighted", "exemplar", "multiclass"]
Convention = Literal["exclude", "zero", "one", "nan"]
Pooling = Literal["pooled", "averaged", "fold", "min", "max", "std"]
Decision = Literal["threshold", "argmax", "top_k"]
TNormName = Literal["product", "godel", "minimum", "lukasiewicz", "hamacher"]
Engine = Literal["auto", "in-memory", "streaming"]
ClassUniverse = Literal["global", "group"]
#: The label form's task: one-hot over all classes, or the positive class alone.
LabelTask = Literal["multiclass", "binary"]
#: The long form's stated task (None: inferred from the data).
LongTask = Literal["multiclass", "multilabel"]
Grain = Literal["class", "pooled", "profiles"]

OPERATORS: tuple[Operator, ...] = get_args(Operator)
CONVENTIONS: tuple[Convention, ...] = get_args(Convention)
POOLINGS: tuple[Pooling, ...] = get_args(Pooling)
DECISIONS: tuple[Decision, ...] = get_args(Decision)

_OPERATOR_ALIASES: dict[str, Operator] = {"samples": "exemplar", "example": "exemplar"}
_DECISION_ALIASES: dict[str, Decision] = {"topk": "top_k", "top": "top_k", "top-k": "top_k"}

T = TypeVar("T")


def _key(name: object) -> str:
    return str(name).strip().lower()


def parse_operator(name: object) -> Operator:
    """One of the four operators (``samples`` is an alias of ``exemplar``)."""
    key = _key(name)
    key = _OPERATOR_ALIASES.get(key, key)
    if key not in OPERATORS:
        msg = (
            f"unknown operator {name!r}; valid operators: {', '.join(OPERATORS)} (alias 'samples' = "
            "exemplar), binary (two classes: the positive class alone), target (with a target column), "
            "multiclass (the whole confusion matrix of single-label data)"
        )
        raise UnknownNameError(msg)
    return key


def parse_report_operator(name: object) -> ReportOperator:
    """An operator of :meth:`~aggframe.Predictions.evaluate`: the four, ``binary``, ``target`` or ``multiclass``."""
    key = _key(name)
    if key == "binary":
        return "binary"
    if key == "target":
        return "target"
    if key == "multiclass":
        return "multiclass"
    return parse_operator(name)


def parse_within(name: object) -> Within:
    """The operator inside each target: the four, or ``multiclass`` (the whole matrix of each target)."""
    if _key(name) == "multiclass":
        return "multiclass"
    return parse_operator(name)


def parse_convention(name: object) -> Convention:
    key = _key(name)
    if key not in CONVENTIONS:
        msg = f"unknown convention {name!r}; valid conventions: {', '.join(CONVENTIONS)}"
        raise UnknownNameError(msg)
    return key


def parse_pooling(name: object) -> Pooling:
    key = _key(name)
    if key not in POOLINGS:
        msg = f"unknown pooling {name!r}; valid poolings: {', '.join(POOLINGS)}"
        raise UnknownNameError(msg)
    return key


def parse_decision(name: object) -> Decision:
    key = _key(name).replace("-", "_")
    key = _DECISION_ALIASES.get(key, key)
    if key not in DECISIONS:
        msg = f"unknown decision {name!r}; valid decisions: {', '.join(DECISIONS)}"
        raise UnknownNameError(msg)
    return key


def parse_class_universe(mode: object) -> ClassUniverse:
    if mode not in ("global", "group"):
        msg = f"Expected `class_universe` to be 'global' or 'group', got {mode!r}"
        raise OptionError(msg)
    return mode


def listify(x: Any, *, scalar: tuple[type, ...] = (str,)) -> list[Any]:
    """``None`` -> ``[]``, a name (or any of ``scalar``) -> ``[it]``, an iterable -> a list."""
    if x is None:
        return []
    if isinstance(x, scalar):
        return [x]
    if not isinstance(x, Iterable):
        msg = f"Expected a name or a list of names, got {type(x).__name__}: {x!r}"
        raise UnknownNameError(msg)
    return list(x)


def unique_in_order(items: Iterable[T]) -> list[T]:
    """The items without repeats, in first-seen order (for unhashable items too)."""
    seen: list[T] = []
    for it in items:
        if it not in seen:
            seen.append(it)
    return seen
