"""Exceptions raised by aggframe.

Every error derives from :class:`AggframeError` (itself a ``ValueError``), so a
caller can catch one class. The subclasses say which kind of input was wrong;
their messages name the column, the number of offending rows and one example.
"""

from __future__ import annotations

__all__ = [
    "AggframeError",
    "ColumnNotFoundError",
    "DecisionWarning",
    "DuplicateEntryError",
    "EmptyInputError",
    "InvalidValueError",
    "NullValueError",
    "OptionError",
    "ShapeError",
    "SourceError",
    "SparseInputError",
    "StoreError",
    "UnknownClassError",
    "UnknownNameError",
]


class AggframeError(ValueError):
    """Base class of every error aggframe raises on bad input or options."""


class ColumnNotFoundError(AggframeError):
    """A role column (or a ``by`` column) is not in the frame."""


class NullValueError(AggframeError):
    """A role column holds nulls (or NaN)."""


class InvalidValueError(AggframeError):
    """Values outside what a role accepts (y/p outside [0, 1], soft without a t-norm, ...)."""


class DuplicateEntryError(AggframeError):
    """The same (example, class) entry, or the same example, appears more than once."""


class UnknownClassError(AggframeError):
    """A class value lies outside the declared class universe."""


class SparseInputError(AggframeError):
    """Entries are missing and no class universe says what they mean."""


class EmptyInputError(AggframeError):
    """The input has no rows."""


class UnknownNameError(AggframeError):
    """An unknown measure, operator, convention or t-norm name."""


class OptionError(AggframeError):
    """An option has a value outside its domain, or options contradict each other."""


class ShapeError(AggframeError):
    """Arrays whose shapes do not match."""


class SourceError(AggframeError):
    """A source that cannot be read: a missing file, an empty glob or directory, a corrupt or
    zero-byte file, a malformed CSV row, files of one data set with different columns or types.

    The message names the path(s) and what is wrong with them.
    """


class StoreError(SourceError, OptionError):
    """A cell store that cannot be used: no or a bad ``meta.json``, a store given twice, or stores
    whose recorded sources overlap (reading them together would count rows twice).

    Also an :class:`OptionError`, as a missing store was before it had its own class.
    """


class DecisionWarning(UserWarning):
    """Scores were turned into decisions by a rule the data suggest was not meant.

    :func:`~aggframe.from_scores` warns when no decision was stated and the
    scores of every example sum to one over its classes (softmax probabilities):
    the default decision, ``score > 0.5`` per entry, is a multilabel reading of
    them, where ``decision="argmax"`` is usually what is meant.
    """
