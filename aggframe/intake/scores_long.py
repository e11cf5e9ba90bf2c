"""Predictions with scores: what both layouts share, and the long layout with its decisions.

:func:`~aggframe.from_scores` reads one of two layouts:

long layout (:class:`ScoreSource`, here)
    one row per (example, class) entry with its score and truth ``y``, as
    :func:`~aggframe.from_long` with a ``score`` column in place of ``p``;
binary layout (:class:`~aggframe.intake.binary_scores.BinaryScoreSource`, ``class_=None``)
    one row per example: the truth ``y`` (0/1) and the score of the positive
    class (a binary task: the positive class is the one column).

Both are :class:`Scored` sources: they keep the scores for the measures on scores
(:mod:`aggframe.operators.scores`: AUROC, average precision, losses, calibration,
curves) and turn them into decisions for the confusion-cell measures, lazily, in
the same plan as everything else. Everything is written with Narwhals (DuckDB,
Spark and Polars alike); Polars gets a faster argmax and top-k
(:func:`aggframe.wide.decisions.best_grains`). The options and the data are
checked, and the source built, by
:func:`~aggframe.intake.scores_source.scores_source`.

Decisions
---------
``"threshold"`` (multilabel)
    An entry is predicted when ``score > threshold`` (strictly, as aggmetrics and
    scikit-learn's binary ``predict`` do); ``threshold`` is one float or a dict
    ``{class: threshold}`` naming every class.
``"argmax"`` (multiclass)
    Exactly one predicted class per example: the one with the highest score.
``"top_k"``
    An example counts as predicted for its ``k`` best classes.

Ties (argmax, top-k) go to the **smallest class in sort order**: numbers
ascending, strings lexicographically, ``Enum`` categories in their declared order
(a ``Categorical`` column is compared as strings). For classes ``0 .. m-1`` this
is NumPy's ``argmax`` rule (the first maximum). An example is identified by its
``example`` value within each ``by=`` group: argmax and top-k decide per
(by..., example), and ``over=`` columns (which, with ``example``, identify one
example) must be among the ``by`` columns of an evaluation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import narwhals as nw
import polars as pl

from aggframe._columns import CLASS_ROLE, EXAMPLE, MASK, PREFIX, P, Y, free_name
from aggframe._options import Decision
from aggframe.exceptions import DuplicateEntryError, InvalidValueError, NullValueError, OptionError
from aggframe.intake.base import Projection, Source
from aggframe.intake.input_checks import enum_categories
from aggframe.intake.long import LongSource
from aggframe.intake.read_errors import reading
from aggframe.wide.decisions import MAX_PASSES, NEGATED, best_grains, ranked
from aggframe.wide.engines import collect_polars, shared
from aggframe.wide.ranking import ScoreFrame

__all__ = ["SCORE", "ScoreSource", "Scored", "polars_dtype"]

#: The private name of the score role.
SCORE = f"{PREFIX}score"


def polars_dtype(lf: nw.LazyFrame[Any], column: str) -> pl.DataType:
    """The Polars dtype of a column of a Narwhals frame (read from the schema of no rows on other engines)."""
    native = nw.to_native(lf)
    if isinstance(native, pl.LazyFrame):
        return native.collect_schema()[column]
    return collect_polars(lf.select(column).head(0)).schema[column]


# ---------------------------------------------------------------------------
# What both layouts share: the scores, read as probabilities or not


class Scored:
    """A source that keeps its scores: the measures on scores read them (:meth:`score_frame`)."""

    score: str
    logits: bool
    bins: int | None
    #: scores outside [0, 1] found at construction (probability measures need none), and one row
    outside: int
    outside_row: str
    #: entries with a null truth found at construction (unlabelled: only af.estimate reads them), and one row
    unlabelled: int
    unlabelled_row: str
    truth_column: str

    def score_frame(self, by: Sequence[str]) -> ScoreFrame:  # pragma: no cover - an interface
        raise NotImplementedError

    def probability(self, score: nw.Expr) -> nw.Expr:
        """The score as a probability: as given, or the sigmoid of a logit."""
        s = score.cast(nw.Float64)
        return 1.0 / (1.0 + (-s).exp()) if self.logits else s

    def check_truth(self) -> None:
        """Refuse a null truth: every measure reads it, only :func:`~aggframe.estimate` takes such rows (as unlabelled)."""
        if self.unlabelled:
            msg = (
                f"column {self.truth_column!r}: {self.unlabelled} null value(s) (e.g. row {self.unlabelled_row}); "
                "the truth must not be null (af.estimate reads such rows as unlabelled)"
            )
            raise NullValueError(msg)

    def check_threshold(self) -> None:
        """Refuse the threshold decision (``score > threshold``, a probability) when scores lie outside [0, 1]."""
        if self.outside and not self.logits:
            msg = (
                f"column {self.score!r}: {self.outside} score(s) outside [0, 1] (e.g. row {self.outside_row}); "
                "a threshold decision needs probabilities (the cell measures, decisions() and best_threshold() "
                "read it; AUROC, AP and curves take any real scores); pass logits=True if the scores are "
                "logits, or decision='argmax' / 'top_k'"
            )
            raise InvalidValueError(msg)

    def check_probabilities(self, what: str) -> None:
        """Refuse ``what`` (a measure or curve that reads probabilities) when scores lie outside [0, 1]."""
        if self.outside and not self.logits:
            msg = (
                f"{what} reads the scores as probabilities, but column {self.score!r} holds {self.outside} "
                f"score(s) outside [0, 1] (e.g. row {self.outside_row}); pass logits=True if they are logits"
            )
            raise InvalidValueError(msg)


# ---------------------------------------------------------------------------
# The long layout


@dataclass(kw_only=True)
class ScoreSource(LongSource, Scored):
    """Predictions from per (example, class) scores (see :func:`~aggframe.from_scores`).

    The roles are the long form's, with ``score`` in place of ``p``: the
    prediction ``p`` is derived from the private columns at each projection
    (:meth:`project`), never from the user's frame by name.
    """

    form: ClassVar = "long"

    score: str
    decision: Decision = "threshold"
    k: int | None = None
    logits: bool = False
    over: tuple[str, ...] = ()
    bins: int | None = None
    #: a per-class threshold: the classes and their cuts (in score units); else ``cut``
    cuts: tuple[tuple[Any, ...], tuple[float, ...]] | None = None
    cut: float = 0.5
    outside: int = 0
    outside_row: str = ""
    unlabelled: int = 0
    unlabelled_row: str = ""
    truth_column: str = ""
    #: the truth is 0/1 (soft truth only with keep_soft; measures on scores refuse it)
    crisp_truth: bool = True

    def role_columns(self) -> dict[str, str]:
        r = self.long_roles
        roles = {EXAMPLE: r.example, CLASS_ROLE: r.class_, Y: r.y, SCORE: self.score}
        return roles if r.mask is None else {**roles, MASK: r.mask}

    def _window(self) -> bool:
        """Whether the decision ranks the entries of an example (argmax, top-k)."""
        return self.tnorm is None and self.decision in ("argmax", "top_k")

    def _rows(self, by: Sequence[str], extra: dict[str, str] | None = None) -> Projection:
        """The projection of the roles (no decision), with ``over`` checked against ``by``."""
        proj = Source.project(self, by, extra)
        if self.over:
            missing = [c for c in self.over if c not in by]
            if missing:
                msg = (
                    f"over={list(self.over)!r}: these columns identify an example together with "
                    f"{self.long_roles.example!r}, so evaluations must group by them; add "
                    f"{', '.join(repr(c) for c in missing)} to by="
                )
                raise OptionError(msg)
        return proj

    def project(self, by: Sequence[str], extra: dict[str, str] | None = None) -> Projection:
        """The roles under private names, with the decision ``p`` made from them."""
        proj = self._rows(by, extra)
        frame = proj.frame
        s = nw.col(SCORE).cast(nw.Float64)
        if self.tnorm is not None:
            p = self.probability(nw.col(SCORE))
        elif self.decision == "threshold":
            self.check_threshold()
            if self.cuts is not None:
                classes, cuts = self.cuts
                # every class has a cut (checked at construction); the default is for engines that
                # want one (DuckDB, Spark) and is never read
                cut = nw.col(CLASS_ROLE).replace_strict(
                    list(classes), list(cuts), default=float("inf"), return_dtype=nw.Float64
                )
            else:
                cut = nw.lit(self.cut)
            p = (s > cut).cast(nw.Int8)
        else:
            # decide per (by..., example): the window runs over this grouping's examples
            key = CLASS_ROLE
            # a Categorical sorts by its physical codes (the order rows came in): ties go by the
            # text; an Enum (Polars, DuckDB) sorts in its declared order, as documented
            if (
                polars_dtype(frame, CLASS_ROLE) == pl.Categorical
                and enum_categories(frame, CLASS_ROLE) is None
            ):
                key = f"{PREFIX}key"
                frame = frame.with_columns(nw.col(CLASS_ROLE).cast(nw.String).alias(key))
            frame, p = ranked(frame, score=SCORE, key=key, partition=[*proj.by_keys, EXAMPLE], k=self._k())
        decided = frame.with_columns(p.alias(P))
        helpers = [c for c in (f"{PREFIX}key", NEGATED) if c in decided.collect_schema().names()]
        if helpers:
            decided = decided.drop(*helpers)
        return Projection(frame=decided, by_keys=proj.by_keys, keys=proj.keys, names=proj.names)

    def _k(self) -> int:
        return 1 if self.decision == "argmax" else int(self.k or 1)

    def _passes(self, proj: Projection) -> bool:
        """Whether Polars finds the best classes as successive arg-maxes (:func:`best_grains`)."""
        return (
            self._window()
            and self._k() <= MAX_PASSES
            and self.long_roles.mask is None
            and isinstance(nw.to_native(proj.frame), pl.LazyFrame)
        )

    def _grains(
        self, proj: Projection, examples: pl.LazyFrame | int | None = None
    ) -> dict[str, nw.LazyFrame[Any]]:
        raw = self._decision_grains(proj, examples)
        native = nw.to_native(raw["groups"])
        if self._window() and isinstance(native, pl.LazyFrame):
            # a repeated entry mixes examples in one ranking: named here, in the scores' terms
            raw["groups"] = nw.from_native(native.map_batches(lambda g: self._check_repeats(g, proj)))
        return raw

    def _check_repeats(self, groups: pl.DataFrame, proj: Projection) -> pl.DataFrame:
        if not int(groups["dup_entries"].sum() or 0):
            return groups
        entry = [*proj.by_keys, EXAMPLE, CLASS_ROLE]
        counted = proj.frame.group_by(entry).agg(nw.len().alias("_copies")).filter(nw.col("_copies") > 1)
        total = counted.select(nw.col("_copies").sum()).collect(backend="polars").item()
        if not total:
            return groups  # the wide step's count was a suspicion (see distinct_classes)
        example = counted.select(*entry).head(1).collect(backend="polars").to_native()
        row = ", ".join(f"{proj.names.get(c, c)}={v!r}" for c, v in example.row(0, named=True).items())
        r = self.long_roles
        msg = (
            f"columns ({r.example!r}, {r.class_!r}): {total} rows repeat an (example, class) entry "
            f"(e.g. row {row}); {self.decision} decides per example, so each class may appear once per "
            "example (within a by group). If several models or days reuse the example ids, group by them "
            "(by=) and name them in over="
        )
        raise DuplicateEntryError(msg)

    def _decision_grains(
        self, proj: Projection, examples: pl.LazyFrame | int | None = None
    ) -> dict[str, nw.LazyFrame[Any]]:
        if self._passes(proj):
            n = self.universe_sizes()
            return best_grains(
                proj.frame,
                keys=proj.keys,
                example=EXAMPLE,
                class_=CLASS_ROLE,
                score=SCORE,
                y=Y,
                k=self._k(),
                n_classes=n if isinstance(n, int) else None,
                universe=self.universe,
            )
        if self._window():
            # the window groups every row by example: computed once for both grains
            proj = Projection(
                frame=shared(proj.frame), by_keys=proj.by_keys, keys=proj.keys, names=proj.names
            )
        return super()._grains(proj, examples)

    def decisions(self, by: Sequence[str] = ()) -> pl.DataFrame:
        """Every entry with its decision, in the user's names: the role and by-columns, and ``p`` (0/1).

        ``p`` is named ``p``, or a free variant of it when a role column is called so.
        Collects the rows: for inspection and tests, not for large data.
        """
        proj = self.project(by)
        with reading(self.origin):
            out = proj.frame.collect(backend="polars").to_native()
        names = {k: v for k, v in proj.names.items() if k in out.columns}
        names[P] = free_name("p", names.values())
        return cast("pl.DataFrame", out.rename(names))

    def score_frame(self, by: Sequence[str]) -> ScoreFrame:
        self.check_truth()
        if not self.crisp_truth:
            msg = (
                f"measures on scores need a crisp truth (0/1); column {self.long_roles.y!r} holds soft values "
                "(keep_soft evaluates them as soft labels, but AUROC, AP, losses and curves need 0/1)"
            )
            raise InvalidValueError(msg)
        proj = self._rows(by)
        rows = proj.frame
        if self.long_roles.mask is not None:
            # an unobserved entry (mask 0) is no entry of any measure on scores, as it is no
            # cell of the cell measures: AUROC, AP, losses, curves and calibration skip it
            rows = rows.filter(nw.col(MASK).cast(nw.Float64) == 1.0)
        frame = rows.select(
            *proj.by_keys,
            EXAMPLE,
            CLASS_ROLE,
            nw.col(SCORE).cast(nw.Float64),
            nw.col(Y).cast(nw.Float64).cast(nw.Int64).alias(Y),
        )
        sizes = self.universe_sizes()
        return ScoreFrame(
            frame=frame,
            keys=tuple(proj.keys),
            row_keys=tuple(proj.by_keys),
            class_=CLASS_ROLE,
            score=SCORE,
            y=Y,
            example=EXAMPLE,
            bins=self.bins,
            logits=self.logits,
            universe=self.universe_table(),
            n_classes=sizes if isinstance(sizes, int) else None,
            names=dict(proj.names),
        )
