"""Every error and warning aggframe raises, as ``af.errors.<name>``.

All errors derive from :class:`AggframeError` (a ``ValueError``; also ``af.AggframeError``),
so ``except af.AggframeError`` catches each of them; the subclasses say which input was
wrong, and their messages name the column, the count of bad rows and an example. The
warnings derive from ``UserWarning``. These were top-level names (``af.OptionError``, ...),
which still work for this release, with a ``FutureWarning``.

=============================  ======================================================
:class:`AggframeError`         the base class of every error
:class:`ColumnNotFoundError`   a role or ``by`` column that is not in the data
:class:`NullValueError`        a null in a column that may not hold one
:class:`InvalidValueError`     a value a role does not accept (y or p outside [0, 1], ...)
:class:`DuplicateEntryError`   the same (example, class) entry, or example, twice
:class:`UnknownClassError`     a class outside the declared universe
:class:`SparseInputError`      missing entries and no class universe to read them
:class:`EmptyInputError`       an input without rows
:class:`UnknownNameError`      an unknown measure, operator, convention or t-norm
:class:`OptionError`           an option outside its domain, or options that contradict
:class:`ShapeError`            arrays whose shapes do not match
:class:`SourceError`           a source that cannot be read (a missing file, ...)
:class:`StoreError`            a cell store that cannot be used
:class:`RuleError`             a rule (or rules file) that cannot be read
:class:`CheckFailedError`      a check whose ``error`` rules failed
:class:`DecisionWarning`       scores turned into decisions by a doubtful rule
:class:`ShiftWarning`          estimated data with scores outside the reference's
:class:`MeasureWarning`        a measure used outside where it behaves as assumed
=============================  ======================================================

Examples
--------
>>> import aggframe as af
>>> issubclass(af.errors.OptionError, af.AggframeError)
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from aggframe.exceptions import (
    AggframeError,
    ColumnNotFoundError,
    DecisionWarning,
    DuplicateEntryError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    ShapeError,
    SourceError,
    SparseInputError,
    StoreError,
    UnknownClassError,
    UnknownNameError,
)

if TYPE_CHECKING:
    from aggframe.analysis.diagnostics import MeasureWarning
    from aggframe.decisions.checks import CheckFailedError
    from aggframe.decisions.estimate import ShiftWarning
    from aggframe.decisions.rules import RuleError

#: the classes defined in the layers above (imported on first access: ``af.errors`` stays cheap)
_LAZY = {
    "CheckFailedError": "aggframe.decisions.checks",
    "MeasureWarning": "aggframe.analysis.diagnostics",
    "RuleError": "aggframe.decisions.rules",
    "ShiftWarning": "aggframe.decisions.estimate",
}


def __getattr__(name: str) -> Any:
    """Import an error class of a later layer on first access (PEP 562)."""
    if name not in _LAZY:
        msg = f"module 'aggframe.errors' has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names and every error class, loaded or not."""
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "AggframeError",
    "CheckFailedError",
    "ColumnNotFoundError",
    "DecisionWarning",
    "DuplicateEntryError",
    "EmptyInputError",
    "InvalidValueError",
    "MeasureWarning",
    "NullValueError",
    "OptionError",
    "RuleError",
    "ShapeError",
    "ShiftWarning",
    "SourceError",
    "SparseInputError",
    "StoreError",
    "UnknownClassError",
    "UnknownNameError",
]
