"""Predictions with scores, binary layout: one row per example, a 0/1 truth and the positive class's score.

``from_scores(class_=None)`` reads this layout (:func:`~aggframe.intake.scores_source.scores_source`
checks it and builds the source). :class:`BinaryScoreSource` is a label-form
source (:class:`~aggframe.intake.labels.LabelSource`) of the binary task whose
prediction ``score > threshold`` is derived at each projection, and a
:class:`~aggframe.intake.scores_long.Scored` source like the long layout's
:class:`~aggframe.intake.scores_long.ScoreSource`: the measures on scores read its
scores as one class, the positive one (:data:`POSITIVE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import narwhals as nw
import polars as pl

from aggframe._columns import CLASS_ROLE, Y_PRED, Y_TRUE
from aggframe.intake.base import Projection, Source
from aggframe.intake.labels import LabelSource
from aggframe.intake.scores_long import SCORE, Scored
from aggframe.wide.ranking import ScoreFrame

__all__ = ["POSITIVE", "BinaryScoreSource"]

#: The binary layout's one class: the positive class of a 0/1 truth.
POSITIVE = 1


@dataclass(kw_only=True)
class BinaryScoreSource(LabelSource, Scored):
    """One row per example: a 0/1 truth and the positive class's score (``from_scores(class_=None)``).

    A label-form source of the binary task (the positive class ``1`` alone) whose
    prediction ``score > threshold`` is derived from the private columns at each
    projection.
    """

    form: ClassVar = "labels"

    score: str
    logits: bool = False
    bins: int | None = None
    cut: float = 0.5
    outside: int = 0
    outside_row: str = ""
    unlabelled: int = 0
    unlabelled_row: str = ""
    truth_column: str = ""

    def role_columns(self) -> dict[str, str]:
        return {Y_TRUE: self.label_roles.y_true, SCORE: self.score}

    def class_dtype(self) -> pl.DataType:
        return pl.Int64()

    def project(self, by: Sequence[str], extra: dict[str, str] | None = None) -> Projection:
        self.check_threshold()
        proj = Source.project(self, by, extra)
        frame = proj.frame.with_columns(
            nw.col(Y_TRUE).cast(nw.Float64).cast(nw.Int64).alias(Y_TRUE),
            (nw.col(SCORE).cast(nw.Float64) > nw.lit(self.cut)).cast(nw.Int64).alias(Y_PRED),
        )
        return Projection(frame=frame, by_keys=proj.by_keys, keys=proj.keys, names=proj.names)

    def score_frame(self, by: Sequence[str]) -> ScoreFrame:
        self.check_truth()
        proj = Source.project(self, by)
        frame = proj.frame.select(
            *proj.by_keys,
            nw.lit(POSITIVE).cast(nw.Int64).alias(CLASS_ROLE),
            nw.col(SCORE).cast(nw.Float64),
            nw.col(Y_TRUE).cast(nw.Float64).cast(nw.Int64).alias(Y_TRUE),
        )
        return ScoreFrame(
            frame=frame,
            keys=tuple(proj.keys),
            row_keys=tuple(proj.by_keys),
            class_=CLASS_ROLE,
            score=SCORE,
            y=Y_TRUE,
            example=None,
            bins=self.bins,
            logits=self.logits,
            universe=pl.LazyFrame({"class": [POSITIVE]}),
            n_classes=1,
            names=dict(proj.names),
        )
