"""The options of each public constructor, as one frozen record per intake source.

A public constructor (:func:`~aggframe.from_scores`, :func:`~aggframe.from_labels`,
...) is the only place where its options' defaults and ``Literal`` types are
written; it gathers the user's values into one of these records and hands the
record to its intake function (``scores_source(frame, options)``). The records
have no defaults of their own, so a default cannot drift between the signature
the user reads and the function that checks it: a caller inside the package
(the wide layout, the ordinal thresholds) states every field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aggframe._options import ClassUniverse, LabelTask, LongTask
from aggframe.wide.tnorms import TNorm

__all__ = ["LabelOptions", "LongOptions", "OrdinalOptions", "ScoreOptions", "WideOptions"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ScoreOptions:
    """The long and binary layouts of :func:`~aggframe.from_scores` (see its parameters)."""

    example: str | None
    class_: str | None
    score: str
    y: str
    decision: str | None
    threshold: float | Mapping[Any, float]
    k: int | None
    logits: bool
    n_classes: int | None
    classes: Sequence[Any] | None
    mask: str | None
    keep_soft: str | TNorm | None
    over: str | Sequence[str] | None
    bins: int | None


@dataclass(frozen=True, kw_only=True, slots=True)
class WideOptions:
    """The wide layout of :func:`~aggframe.from_scores` (``y_true=`` and ``scores=``)."""

    y_true: str
    scores: Any
    classes: Sequence[Any] | None
    example: str | None
    normalize: bool
    tolerance: float
    logits: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class LabelOptions:
    """The options of :func:`~aggframe.from_labels`; ``derived_from`` names the user's columns of a derived frame."""

    y_true: str
    y_pred: str
    example: str | None
    fold: str | None
    repeat: str | None
    target: str | None
    n_classes: int | dict[Any, int] | None
    classes: Sequence[Any] | dict[Any, Sequence[Any]] | None
    task: LabelTask | None
    pos_label: Any
    class_universe: ClassUniverse
    derived_from: dict[str, str] | None


@dataclass(frozen=True, kw_only=True, slots=True)
class LongOptions:
    """The options of :func:`~aggframe.from_long`; ``derived_from`` names the user's columns of a derived frame."""

    example: str
    class_: str
    y: str
    p: str
    mask: str | None
    fold: str | None
    repeat: str | None
    target: str | None
    n_classes: int | dict[Any, int] | None
    classes: Sequence[Any] | dict[Any, Sequence[Any]] | None
    tnorm: Any
    class_universe: ClassUniverse
    task: LongTask | None
    examples: Any
    derived_from: dict[str, str] | None


@dataclass(frozen=True, kw_only=True, slots=True)
class OrdinalOptions:
    """The options of :func:`~aggframe.from_ordinal`."""

    y_true: str
    y_pred: str
    example: str | None
    order: Sequence[Any] | None
    n_classes: int | None
    fold: str | None
    repeat: str | None
