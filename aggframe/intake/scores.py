"""Predictions with scores: decisions (threshold, argmax, top-k) for the cell tables, and the scores themselves.

:func:`~aggframe.from_scores` reads one of two layouts:

long layout (:class:`ScoreSource`)
    one row per (example, class) entry with its score and truth ``y``, as
    :func:`~aggframe.from_long` with a ``score`` column in place of ``p``;
binary layout (:class:`BinaryScoreSource`, ``class_=None``)
    one row per example: the truth ``y`` (0/1) and the score of the positive
    class (a binary task: the positive class is the one column).

Both keep the scores for the measures on scores (:mod:`aggframe.operators.scores`:
AUROC, average precision, losses, calibration, curves) and turn them into
decisions for the confusion-cell measures, lazily, in the same plan as
everything else. Everything is written with Narwhals (DuckDB, Spark and Polars
alike); Polars gets a faster argmax and top-k (:func:`aggframe.wide.decisions.best_grains`).

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

When no decision is stated (no ``decision=``, ``threshold=``, ``k=`` or
``keep_soft=``), the default is a 0.5 threshold, and if the scores of every
example sum to one over its classes (softmax probabilities, where argmax is
usually meant) a :class:`~aggframe.exceptions.DecisionWarning` says so.

Cost
----
Construction runs **one** aggregate query over the scores (null and NaN
scores, scores outside [0, 1], null or non-0/1 truth, null examples or
classes, a threshold dict's classes, the class count for top-k; without a
stated decision, per example: the softmax check), with one offending row
fetched on the error path only. The checks of the rows against each other
(a repeated (example, class) entry, a sparse frame without a universe) run
inside the evaluation's plan, on its small aggregates, as for the long form.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import narwhals as nw
import polars as pl

from aggframe._columns import CLASS_ROLE, EXAMPLE, MASK, PREFIX, Y_PRED, Y_TRUE, P, Y, free_name
from aggframe._options import Decision, listify, parse_decision
from aggframe.exceptions import (
    DecisionWarning,
    DuplicateEntryError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    UnknownClassError,
)
from aggframe.intake.base import Projection, Source
from aggframe.intake.checks import check_numeric, enum_categories, require_columns, resolve_universe
from aggframe.intake.labels import LabelSource
from aggframe.intake.long import LongSource
from aggframe.intake.source import as_lazy, origin_of, reading
from aggframe.tables.errors import first_row
from aggframe.wide.decisions import MAX_PASSES, NEGATED, best_grains, ranked
from aggframe.wide.engines import project_columns, shared
from aggframe.wide.labels import LabelRoles
from aggframe.wide.long import LongRoles
from aggframe.wide.ranking import ScoreFrame
from aggframe.wide.tnorms import TNorm, resolve_tnorm

__all__ = ["SCORE", "BinaryScoreSource", "ScoreSource", "Scored", "scores_source"]

#: The private name of the score role.
SCORE = f"{PREFIX}score"
#: The binary layout's one class: the positive class of a 0/1 truth.
POSITIVE = 1
#: How close to one the scores of every example must sum for the softmax warning.
SOFTMAX_TOLERANCE = 1e-6


def _check_probability(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        msg = f"Expected {what} to be a number in [0, 1], got {value!r}"
        raise OptionError(msg)
    t = float(value)
    if not 0.0 <= t <= 1.0:  # NaN fails too
        msg = f"Expected {what} to lie in [0, 1], got {value!r}"
        raise OptionError(msg)
    return t


def _logit(t: float) -> float:
    if t <= 0.0:
        return -math.inf
    if t >= 1.0:
        return math.inf
    return math.log(t / (1.0 - t))


def _check_bins(bins: Any) -> int | None:
    if bins is None:
        return None
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral) or bins < 1:
        msg = f"Expected `bins` to be a positive integer (quantisation cells of [0, 1]) or None, got {bins!r}"
        raise OptionError(msg)
    return int(bins)


def _polars_dtype(lf: nw.LazyFrame[Any], column: str) -> pl.DataType:
    native = nw.to_native(lf)
    if isinstance(native, pl.LazyFrame):
        return native.collect_schema()[column]
    schema: pl.Schema = lf.select(column).head(0).collect(backend="polars").to_native().schema
    return schema[column]


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

    def score_frame(self, by: Sequence[str]) -> ScoreFrame:  # pragma: no cover - an interface
        raise NotImplementedError

    def probability(self, score: nw.Expr) -> nw.Expr:
        """The score as a probability: as given, or the sigmoid of a logit."""
        s = score.cast(nw.Float64)
        return 1.0 / (1.0 + (-s).exp()) if self.logits else s

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
            if self.cuts is not None:
                classes, cuts = self.cuts
                cut = nw.col(CLASS_ROLE).replace_strict(list(classes), list(cuts), return_dtype=nw.Float64)
            else:
                cut = nw.lit(self.cut)
            p = (s > cut).cast(nw.Int8)
        else:
            # decide per (by..., example): the window runs over this grouping's examples
            key = CLASS_ROLE
            if _polars_dtype(frame, CLASS_ROLE) == pl.Categorical:
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
        if not self.crisp_truth:
            msg = (
                f"measures on scores need a crisp truth (0/1); column {self.long_roles.y!r} holds soft values "
                "(keep_soft evaluates them as soft labels, but AUROC, AP, losses and curves need 0/1)"
            )
            raise InvalidValueError(msg)
        proj = self._rows(by)
        frame = proj.frame.select(
            *proj.by_keys,
            EXAMPLE,
            CLASS_ROLE,
            self.probability(nw.col(SCORE)).alias(SCORE),
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
            universe=self.universe_table(),
            n_classes=sizes if isinstance(sizes, int) else None,
            names=dict(proj.names),
        )


# ---------------------------------------------------------------------------
# The binary layout


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

    def role_columns(self) -> dict[str, str]:
        return {Y_TRUE: self.label_roles.y_true, SCORE: self.score}

    def class_dtype(self) -> pl.DataType:
        return pl.Int64()

    def project(self, by: Sequence[str], extra: dict[str, str] | None = None) -> Projection:
        proj = Source.project(self, by, extra)
        frame = proj.frame.with_columns(
            nw.col(Y_TRUE).cast(nw.Float64).cast(nw.Int64).alias(Y_TRUE),
            (nw.col(SCORE).cast(nw.Float64) > nw.lit(self.cut)).cast(nw.Int64).alias(Y_PRED),
        )
        return Projection(frame=frame, by_keys=proj.by_keys, keys=proj.keys, names=proj.names)

    def score_frame(self, by: Sequence[str]) -> ScoreFrame:
        proj = Source.project(self, by)
        frame = proj.frame.select(
            *proj.by_keys,
            nw.lit(POSITIVE).cast(nw.Int64).alias(CLASS_ROLE),
            self.probability(nw.col(SCORE)).alias(SCORE),
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
            universe=pl.LazyFrame({"class": [POSITIVE]}),
            n_classes=1,
            names=dict(proj.names),
        )


# ---------------------------------------------------------------------------
# Construction: options, the one check query, the sources


def _run_checks(
    rows: nw.LazyFrame[Any],
    checks: dict[str, nw.Expr],
    *,
    per_example: Sequence[str] | None,
    origin: Any,
    nulls: Mapping[str, str] | None = None,
    aggregates: Sequence[nw.Expr] = (),
) -> dict[str, Any]:
    """One query over the projected rows: how many rows each check flags (0/1 row expressions).

    ``nulls`` (name -> column) are counted with ``null_count`` (free for an
    in-memory Polars frame).
    With ``per_example`` (the columns of an example) it groups by example first
    and also counts the examples with several entries (``_ranked``) and, of
    them, those whose scores do not sum to one (``_not_one``): the softmax check.
    ``aggregates`` (whole-frame aggregations) ride on the query without ``per_example``.
    """
    sums = [expr.cast(nw.Int64).sum().alias(name) for name, expr in checks.items()]
    sums += [nw.col(column).null_count().cast(nw.Int64).alias(name) for name, column in (nulls or {}).items()]
    names = [*checks, *(nulls or {})]
    with reading(origin):
        if per_example is None:
            out = rows.select(*sums, *aggregates, nw.len().alias("n_rows")).collect(backend="polars")
            return cast("dict[str, Any]", out.to_native().row(0, named=True))
        s = nw.col(SCORE).cast(nw.Float64)
        grouped = rows.group_by(list(per_example)).agg(*sums, nw.len().alias("_m"), s.sum().alias("_s"))
        several = nw.col("_m") > 1
        sums_one = (nw.col("_s") - 1.0).abs() <= SOFTMAX_TOLERANCE
        out = grouped.select(
            *[nw.col(name).sum() for name in names],
            nw.col("_m").sum().alias("n_rows"),
            (several & ~sums_one).cast(nw.Int64).sum().alias("_not_one"),
            several.cast(nw.Int64).sum().alias("_ranked"),
        ).collect(backend="polars")
    return cast("dict[str, Any]", out.to_native().row(0, named=True))


def scores_source(
    frame: Any,
    *,
    example: str | None = None,
    class_: str | None = "class",
    score: str = "score",
    y: str = "y",
    decision: str | None = None,
    threshold: float | Mapping[Any, float] = 0.5,
    k: int | None = None,
    logits: bool = False,
    n_classes: int | None = None,
    classes: Sequence[Any] | None = None,
    mask: str | None = None,
    keep_soft: str | TNorm | None = None,
    over: str | Sequence[str] | None = None,
    bins: int | None = None,
) -> ScoreSource | BinaryScoreSource:
    """A checked source of predictions with scores (the options of :func:`~aggframe.from_scores`)."""
    lf = as_lazy(frame, "frame")
    origin = origin_of(lf)
    schema = lf.collect_schema()
    over_cols = listify(over)
    binary = class_ is None

    # -- options (no data) ----------------------------------------------------------
    stated = (
        decision is not None
        or isinstance(threshold, Mapping)
        or threshold != 0.5
        or k is not None
        or keep_soft is not None
    )
    kind = parse_decision("threshold" if decision is None else decision)
    top_k = kind == "top_k"  # (a bool: the checker narrows `kind` through the branches below)
    soft_fn, _ = resolve_tnorm(keep_soft)
    bins = _check_bins(bins)
    if not isinstance(logits, bool):
        msg = f"Expected `logits` to be True or False, got {logits!r}"
        raise OptionError(msg)
    if soft_fn is not None and (kind != "threshold" or k is not None):
        msg = (
            f"keep_soft={keep_soft!r} keeps the scores as soft predictions; it cannot be combined "
            f"with decision={decision!r} or k; drop one of them"
        )
        raise OptionError(msg)
    if kind == "top_k":
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            msg = f"decision='top_k' needs `k`, a positive integer; got {k!r}"
            raise OptionError(msg)
        k = int(k)
        if k < 1:
            msg = f"Expected `k` >= 1 (the number of classes predicted per example), got {k}"
            raise OptionError(msg)
    elif k is not None:
        msg = f"`k` applies to decision='top_k' only (decision is {kind!r})"
        raise OptionError(msg)
    per_class = isinstance(threshold, Mapping)
    if (kind != "threshold" or soft_fn is not None) and (per_class or threshold != 0.5):
        msg = f"`threshold` applies to decision='threshold' without keep_soft (decision is {kind!r})"
        raise OptionError(msg)
    if binary:
        extra = {
            f"decision={kind!r}": kind != "threshold",
            "keep_soft": soft_fn is not None,
            "mask": mask is not None,
            "over": bool(over_cols),
            "example": example is not None,
            "n_classes/classes": n_classes is not None or classes is not None,
            "a threshold dict": per_class,
        }
        given = [name for name, on in extra.items() if on]
        if given:
            msg = (
                "class_=None reads the binary layout (one row per example: the 0/1 truth and the positive "
                f"class's score); {given[0]} does not apply to it"
            )
            raise OptionError(msg)
    example_col = "example" if example is None else example
    roles: dict[str, str | None] = {"score": score, "y": y}
    if not binary:
        roles = {"example": example_col, "class_": class_, **roles, "mask": mask}
    require_columns(schema, {**roles, **{f"over[{i}]": c for i, c in enumerate(over_cols)}})
    if not (schema[score].is_numeric() or schema[score] == nw.Boolean):
        msg = f"column {score!r} (role 'score') has dtype {schema[score]}; expected numbers"
        raise InvalidValueError(msg)
    check_numeric(schema, {"y": y, "mask": mask})

    # -- the rows under private names: nothing below reads a user's name as a pattern -----------
    private = {SCORE: score, Y: y}
    if not binary:
        assert class_ is not None
        private = {EXAMPLE: example_col, CLASS_ROLE: class_, **private}
        private.update({f"{PREFIX}over{i}": c for i, c in enumerate(over_cols)})
    rows = project_columns(lf, private)
    s, yf = nw.col(SCORE).cast(nw.Float64), nw.col(Y).cast(nw.Float64)

    cuts: tuple[tuple[Any, ...], tuple[float, ...]] | None = None
    cut = 0.5
    if kind == "threshold" and soft_fn is None:
        if isinstance(threshold, Mapping):
            if not threshold:
                msg = "the threshold dict is empty; name a threshold for every class"
                raise OptionError(msg)
            values = [_check_probability(v, f"the threshold of class {c!r}") for c, v in threshold.items()]
            assert class_ is not None
            class_dtype = _polars_dtype(rows, CLASS_ROLE)
            try:
                named = pl.Series(list(threshold.keys())).cast(class_dtype, strict=True).to_list()
            except Exception as exc:
                msg = (
                    f"column {class_!r}: the threshold dict names classes {list(threshold)[:5]!r} "
                    f"that cannot be values of the column (dtype {class_dtype})"
                )
                raise UnknownClassError(msg) from exc
            cuts = (tuple(named), tuple(_logit(v) if logits else v for v in values))
        else:
            t = _check_probability(threshold, "`threshold`")
            cut = _logit(t) if logits else t

    # -- the one check query ----------------------------------------------------------------
    checks: dict[str, nw.Expr] = {
        "nan": s.is_nan().fill_null(value=False),
        "outside": (~s.is_between(0.0, 1.0) & ~s.is_nan()).fill_null(value=False),
        "soft_y": ((yf > 0.0) & (yf < 1.0)).fill_null(value=False),
        "bad_y": (~yf.is_between(0.0, 1.0)).fill_null(value=False),
    }
    nulls = {"null": SCORE, "null_y": Y}
    if not binary:
        nulls.update({"null_example": EXAMPLE, "null_class": CLASS_ROLE})
        if cuts is not None:
            checks["no_threshold"] = (~nw.col(CLASS_ROLE).is_in(list(cuts[0]))).fill_null(value=False)
    over_private = [f"{PREFIX}over{i}" for i in range(len(over_cols))]
    softmax_check = not (binary or stated)
    universe = (
        None if binary else resolve_universe(n_classes, classes, enum_categories(lf, cast("str", class_)))
    )
    count_classes = top_k and universe is None
    found = _run_checks(
        rows,
        checks,
        per_example=[*over_private, EXAMPLE] if softmax_check else None,
        origin=origin,
        nulls=nulls,
        aggregates=[nw.col(CLASS_ROLE).n_unique().alias("_classes")] if count_classes else [],
    )
    names = dict(private)  # private -> the user's name, for messages
    shown = [c for c in [*over_private, EXAMPLE, CLASS_ROLE, SCORE, Y] if c in private]

    def row(predicate: nw.Expr) -> str:
        return first_row(rows, predicate, shown, names)

    def count(name: str) -> int:
        return int(found.get(name) or 0)

    if not count("n_rows"):
        msg = "the scores frame has no rows"
        raise EmptyInputError(msg)
    if count("null"):
        msg = f"column {score!r}: {count('null')} null score(s) (e.g. row {row(nw.col(SCORE).is_null())}); scores must not be null"
        raise NullValueError(msg)
    if count("nan"):
        msg = f"column {score!r}: {count('nan')} NaN score(s) (e.g. row {row(s.is_nan())}); scores must be numbers"
        raise NullValueError(msg)
    outside_row = row(~s.is_between(0.0, 1.0)) if count("outside") else ""
    needs_probabilities = not logits and (kind == "threshold" or soft_fn is not None)
    if needs_probabilities and count("outside"):
        what = "keep_soft" if soft_fn is not None else "a threshold"
        msg = (
            f"column {score!r}: {count('outside')} score(s) outside [0, 1] (e.g. row {outside_row}); "
            f"{what} needs probabilities; pass logits=True if the scores are logits"
        )
        raise InvalidValueError(msg)
    if bins is not None and count("outside") and not logits:
        msg = (
            f"column {score!r}: {count('outside')} score(s) outside [0, 1] (e.g. row {outside_row}); bins= "
            "quantises probabilities in [0, 1]; pass logits=True if the scores are logits"
        )
        raise InvalidValueError(msg)
    for key_, column in ((EXAMPLE, example_col), (CLASS_ROLE, class_)):
        flagged = count("null_example" if key_ == EXAMPLE else "null_class")
        if flagged and column is not None:
            msg = (
                f"column {column!r}: {flagged} null value(s) (e.g. row {row(nw.col(key_).is_null())}); "
                "role columns must not hold nulls"
            )
            raise NullValueError(msg)
    if count("null_y"):
        msg = f"column {y!r}: {count('null_y')} null value(s) (e.g. row {row(nw.col(Y).is_null())}); the truth must not be null"
        raise NullValueError(msg)
    if count("bad_y") or (count("soft_y") and soft_fn is None):
        bad = ~((yf == 0.0) | (yf == 1.0))
        msg = (
            f"column {y!r}: {count('bad_y') + count('soft_y')} value(s) other than 0 and 1 (e.g. row {row(bad)}); "
            "the truth is 0/1 or booleans" + ("" if binary else " (soft values only with keep_soft)")
        )
        raise InvalidValueError(msg)
    if count("no_threshold"):
        assert class_ is not None
        assert cuts is not None
        msg = (
            f"column {class_!r}: {count('no_threshold')} row(s) of classes the threshold dict does not name "
            f"(e.g. row {row(~nw.col(CLASS_ROLE).is_in(list(cuts[0])))}); give a threshold for every class"
        )
        raise OptionError(msg)
    if softmax_check and count("_ranked") and not count("_not_one"):
        msg = (
            "the scores of every example sum to one over its classes (softmax probabilities?), and no "
            "decision was stated: from_scores predicts every class whose score is above 0.5 (a multilabel "
            "reading, often no class at all). Pass decision='argmax' for one class per example, or state "
            "decision='threshold' to keep this reading"
        )
        warnings.warn(msg, DecisionWarning, stacklevel=3)

    if binary:
        return BinaryScoreSource(
            frame=lf,
            origin=origin,
            label_roles=LabelRoles(y_true=y, y_pred=y),
            task="binary",
            pos_label=POSITIVE,
            universe=[0, POSITIVE],
            score=score,
            logits=logits,
            bins=bins,
            cut=cut,
            outside=count("outside"),
            outside_row=outside_row,
        )
    assert class_ is not None

    # -- the long source ---------------------------------------------------------------------------
    assert universe is None or isinstance(universe, list)
    source = ScoreSource(
        frame=lf,
        origin=origin,
        long_roles=LongRoles(example=example_col, class_=class_, y=y, p=P, mask=mask),
        universe=universe,
        tnorm=soft_fn,
        score=score,
        decision=kind,
        k=k,
        logits=logits,
        over=tuple(over_cols),
        bins=bins,
        cuts=cuts,
        cut=cut,
        outside=count("outside"),
        outside_row=outside_row,
        crisp_truth=not count("soft_y"),
    )

    # -- against the universe: k and the threshold dict's classes --------------------------------
    if top_k and k is not None:
        if universe is not None:
            if k > len(universe):
                msg = f"k={k} is larger than the number of classes ({len(universe)} declared)"
                raise OptionError(msg)
        else:
            m = count("_classes")
            if k > m:
                msg = (
                    f"k={k} is larger than the number of classes in column {class_!r} ({m}); "
                    "declare classes= or n_classes= if the data lacks some"
                )
                raise OptionError(msg)
    if cuts is not None:
        named_classes = list(cuts[0])
        if universe is not None:
            unknown = [c for c in named_classes if c not in universe]
            if unknown:
                msg = (
                    f"column {class_!r}: the threshold dict names {len(unknown)} class(es) outside the "
                    f"declared universe (e.g. {unknown[0]!r}); declared: {list(universe)[:10]!r}"
                )
                raise UnknownClassError(msg)
        else:
            with reading(origin):
                seen = (
                    rows.filter(nw.col(CLASS_ROLE).is_in(named_classes))
                    .select(CLASS_ROLE)
                    .unique()
                    .collect(backend="polars")
                )
            present = set(seen.to_native()[CLASS_ROLE].to_list())
            absent = [c for c in named_classes if c not in present]
            if absent:
                msg = (
                    f"column {class_!r}: the threshold dict names {len(absent)} class(es) that never occur "
                    f"in the data (e.g. {absent[0]!r}); declare classes= or n_classes= if they are real classes"
                )
                raise UnknownClassError(msg)
    return source
