"""Options, parsed once: operators, conventions, poolings, decisions, t-norm names and the rest.

Every option of the public API is a ``Literal`` type here (as in Polars'
``_typing``) with one parse function that accepts the spellings users type
(case, surrounding blanks, the documented aliases) and raises an
:class:`~aggframe.exceptions.UnknownNameError` that lists the valid values.
Nothing below this module parses an option string again.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Literal, TypeVar, get_args

from aggframe.exceptions import OptionError, UnknownNameError

__all__ = [
    "CONVENTIONS",
    "DECISIONS",
    "OPERATORS",
    "POOLINGS",
    "REPEAT_POOLINGS",
    "BandRule",
    "Bootstrap",
    "ClassUniverse",
    "CompareColumns",
    "Convention",
    "CurveKind",
    "Decision",
    "Engine",
    "Grain",
    "LabelTask",
    "LongTask",
    "Operator",
    "Pooling",
    "ReportOperator",
    "RuleKind",
    "Severity",
    "SliceCorrection",
    "Strategy",
    "TNormName",
    "Unlabelled",
    "Within",
    "listify",
    "parse_bootstrap",
    "parse_class_universe",
    "parse_compare_columns",
    "parse_convention",
    "parse_curve",
    "parse_decision",
    "parse_operator",
    "parse_pooling",
    "parse_report_operator",
    "parse_strategy",
    "parse_within",
    "suggestion",
    "unique_in_order",
]

#: The four averaging operators over one set of cell tables.
Operator = Literal["micro", "macro", "weighted", "exemplar"]
#: What ``evaluate(operators=...)`` takes: the four, plus the positive class alone
#: (``binary``, two classes only), the mean over targets (``target``, with a target role)
#: and the whole confusion matrix of single-label data (``multiclass``: scikit-learn's
#: ``matthews_corrcoef``, ``cohen_kappa_score``, ``balanced_accuracy_score``, ``accuracy_score``;
#: and of scores, the whole-distribution ``log_loss`` and ``brier``).
ReportOperator = Literal["micro", "macro", "weighted", "exemplar", "binary", "target", "multiclass"]
#: The operator inside each target of the ``target`` operator: the four, or ``multiclass``.
Within = Literal["micro", "macro", "weighted", "exemplar", "multiclass"]
Convention = Literal["exclude", "zero", "one", "nan"]
#: ``pooled`` .. ``std``: over the folds; ``repeat_*``: pool the folds of each repeat, then over repeats.
Pooling = Literal[
    "pooled",
    "averaged",
    "fold",
    "min",
    "max",
    "std",
    "repeat_pooled",
    "repeat",
    "repeat_min",
    "repeat_max",
    "repeat_std",
]
Decision = Literal["threshold", "argmax", "top_k"]
#: How calibration bins are placed (``calibration_curve``'s ``strategy``).
Strategy = Literal["uniform", "quantile"]
#: The two curves of :meth:`~aggframe.Predictions.curve`.
CurveKind = Literal["roc", "pr"]
TNormName = Literal["product", "godel", "minimum", "lukasiewicz", "hamacher"]
Engine = Literal["auto", "in-memory", "streaming"]
#: What a null truth means with windows: ``"count"`` = not yet labelled (counted, left out).
Unlabelled = Literal["count"]
#: How monitoring draws its band from the reference windows.
BandRule = Literal["sd", "quantile"]
#: How serious a failed check or an alert of a monitor is: ``error`` fails the run, ``warn`` reports.
Severity = Literal["error", "warn"]
#: Which use a rule is read for: a check (a bound) or monitoring (a band).
RuleKind = Literal["check", "monitor"]
ClassUniverse = Literal["global", "group"]
#: The label form's task: one-hot over all classes, or the positive class alone.
LabelTask = Literal["multiclass", "binary"]
#: The long form's stated task (None: inferred from the data).
LongTask = Literal["multiclass", "multilabel"]
Grain = Literal["class", "pooled", "profiles"]
#: the multiple-comparison correction of :func:`~aggframe.slices`
SliceCorrection = Literal["holm", "bh"]
#: the calibration map of :func:`~aggframe.estimate`
Calibration = Literal["isotonic", "platt", "none"]

ENGINES: tuple[Engine, ...] = get_args(Engine)
OPERATORS: tuple[Operator, ...] = get_args(Operator)
CONVENTIONS: tuple[Convention, ...] = get_args(Convention)
POOLINGS: tuple[Pooling, ...] = get_args(Pooling)
#: The poolings that need a repeat column (``repeat=``).
REPEAT_POOLINGS: tuple[Pooling, ...] = tuple(p for p in POOLINGS if p.startswith("repeat"))
DECISIONS: tuple[Decision, ...] = get_args(Decision)
STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
CURVES: tuple[CurveKind, ...] = get_args(CurveKind)

_OPERATOR_ALIASES: dict[str, Operator] = {"samples": "exemplar", "example": "exemplar"}
_DECISION_ALIASES: dict[str, Decision] = {"topk": "top_k", "top": "top_k", "top-k": "top_k"}

T = TypeVar("T")


def _key(name: object) -> str:
    return str(name).strip().lower()


def suggestion(name: object, valid: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the valid name closest to ``name`` (difflib), or ``""``.

    Examples
    --------
    >>> suggestion("precison", ["precision", "recall"])
    " (did you mean 'precision'?)"
    >>> suggestion("zzz", ["precision", "recall"])
    ''
    """
    names = list(dict.fromkeys(valid))
    close = difflib.get_close_matches(_key(name).replace("-", "_").replace(" ", "_"), names, n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""


def parse_operator(name: object) -> Operator:
    """One of the four operators (``samples`` is an alias of ``exemplar``)."""
    key = _key(name)
    key = _OPERATOR_ALIASES.get(key, key)
    if key in ("binary", "target", "multiclass"):
        # an operator of evaluate() that does not average cells here: not "unknown"
        msg = (
            f"operator {name!r} does not apply here: this call takes {', '.join(OPERATORS)} (alias "
            f"'samples' = exemplar); {key!r} is an operator of evaluate()"
        )
        raise OptionError(msg)
    if key not in OPERATORS:
        valid = [*OPERATORS, *_OPERATOR_ALIASES, "binary", "target", "multiclass"]
        msg = (
            f"unknown operator {name!r}{suggestion(key, valid)}; valid operators: {', '.join(OPERATORS)} (alias 'samples' = "
            "exemplar), binary (two classes: the positive class alone), target (with a target column), "
            "multiclass (the whole confusion matrix of single-label data; log_loss and brier of scores)"
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
        msg = f"unknown convention {name!r}{suggestion(key, CONVENTIONS)}; valid conventions: {', '.join(CONVENTIONS)}"
        raise UnknownNameError(msg)
    return key


def parse_pooling(name: object) -> Pooling:
    key = _key(name)
    if key not in POOLINGS:
        msg = f"unknown pooling {name!r}{suggestion(key, POOLINGS)}; valid poolings: {', '.join(POOLINGS)}"
        raise UnknownNameError(msg)
    return key


@dataclass(frozen=True)
class Bootstrap:
    """A Poisson bootstrap, parsed (:func:`parse_bootstrap`): see :mod:`aggframe.wide.bootstrap`."""

    n_boot: int
    level: float = 0.95
    seed: int = 0
    #: the user's column whose values are resampled instead of the examples (a clustered bootstrap)
    cluster: str | None = None


def parse_bootstrap(
    n_boot: Any, *, level: Any = 0.95, seed: Any = 0, cluster: Any = None
) -> Bootstrap | None:
    """``n_boot=None`` -> None (no bootstrap); otherwise a checked :class:`Bootstrap`."""
    if n_boot is None:
        given = [
            name
            for name, value, default in (
                ("cluster", cluster, None),
                ("level", level, 0.95),
                ("seed", seed, 0),
            )
            if value != default
        ]
        if given:
            # level=0.9 or seed=3 without n_boot were neither checked nor used
            msg = f"{given[0]}= is an option of the bootstrap: pass n_boot= (the number of replicates) too"
            raise OptionError(msg)
        return None
    if isinstance(n_boot, bool) or not isinstance(n_boot, Integral) or n_boot < 2:
        msg = f"Expected `n_boot` to be an integer >= 2 (the number of bootstrap replicates), got {n_boot!r}"
        raise OptionError(msg)
    if isinstance(level, bool) or not isinstance(level, Real) or not 0 < float(level) < 1:
        msg = f"Expected `level` to be a number in (0, 1) (e.g. 0.95), got {level!r}"
        raise OptionError(msg)
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        msg = f"Expected `seed` to be a non-negative integer, got {seed!r}"
        raise OptionError(msg)
    if cluster is not None and not isinstance(cluster, str):
        msg = f"Expected `cluster` to name a column (a string), got {cluster!r}"
        raise OptionError(msg)
    return Bootstrap(n_boot=int(n_boot), level=float(level), seed=int(seed), cluster=cluster)


def parse_decision(name: object) -> Decision:
    key = _key(name).replace("-", "_")
    key = _DECISION_ALIASES.get(key, key)
    if key not in DECISIONS:
        msg = f"unknown decision {name!r}; valid decisions: {', '.join(DECISIONS)}"
        raise UnknownNameError(msg)
    return key


def parse_strategy(name: object) -> Strategy:
    key = _key(name)
    if key not in STRATEGIES:
        msg = f"Expected `strategy` to be 'uniform' or 'quantile', got {name!r}"
        raise UnknownNameError(msg)
    return key


def parse_curve(name: object) -> CurveKind:
    key = _key(name).replace("-", "_")
    key = {"precision_recall": "pr", "roc_curve": "roc", "pr_curve": "pr"}.get(key, key)
    if key not in CURVES:
        msg = f"unknown curve {name!r}; valid curves: roc, pr (precision-recall)"
        raise UnknownNameError(msg)
    return key


def parse_class_universe(mode: object) -> ClassUniverse:
    mode = _key(mode) if isinstance(mode, str) else mode  # any case and blanks, as every option name
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


def parse_engine(name: object) -> Engine:
    """A Polars engine name (any case, ``-``/``_``/blanks alike), or an UnknownNameError listing them.

    Polars' own error named its internals ("Invalid engine argument"), and a report whose
    cell tables were kept never looked at the name.
    """
    key = str(name).strip().lower().replace("_", "-").replace(" ", "-") if isinstance(name, str) else None
    if key in ENGINES:
        return key
    msg = f"unknown engine {name!r}; valid engines: {', '.join(ENGINES)}"
    raise UnknownNameError(msg)


#: The columns of :meth:`~aggframe.Predictions.compare`: the lean default or every column.
CompareColumns = Literal["lean", "all"]


def parse_compare_columns(columns: object) -> CompareColumns:
    key = _key(columns) if isinstance(columns, str) else columns
    if key == "lean":
        return "lean"
    if key == "all":
        return "all"
    msg = f"Expected `columns` to be 'lean' (the default) or 'all', got {columns!r}"
    raise OptionError(msg)
