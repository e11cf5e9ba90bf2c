"""Building a source of predictions with scores: the options of ``from_scores``, the one check query.

:func:`scores_source` checks the options and the rows of
:func:`~aggframe.from_scores` and returns the source of the layout they name: a
:class:`~aggframe.intake.scores_long.ScoreSource` (long layout; the decisions are
described in :mod:`aggframe.intake.scores_long`) or a
:class:`~aggframe.intake.binary_scores.BinaryScoreSource` (``class_=None``).

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
from typing import Any, cast

import narwhals as nw
import polars as pl

from aggframe._columns import CLASS_ROLE, EXAMPLE, MASK, PREFIX, P, Y
from aggframe._options import Decision, listify, parse_decision
from aggframe.exceptions import (
    DecisionWarning,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    UnknownClassError,
)
from aggframe.intake.binary_scores import POSITIVE, BinaryScoreSource
from aggframe.intake.frame_input import as_lazy
from aggframe.intake.input_checks import (
    check_numeric,
    enum_categories,
    null_columns,
    require_columns,
    resolve_universe,
)
from aggframe.intake.options import ScoreOptions
from aggframe.intake.origin import origin_of
from aggframe.intake.read_errors import reading
from aggframe.intake.scores_long import SCORE, ScoreSource, polars_dtype
from aggframe.tables.errors import MASK_VALUES, first_row
from aggframe.wide.engines import project_columns
from aggframe.wide.labels import LabelRoles
from aggframe.wide.long import LongRoles
from aggframe.wide.tnorms import TNorm, resolve_tnorm

__all__ = ["scores_source"]

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


@dataclass(frozen=True)
class _Options:
    """The options of :func:`scores_source` once checked (no data read)."""

    kind: Decision
    k: int | None
    soft_fn: TNorm | None
    bins: int | None
    logits: bool
    #: a decision was stated (``decision=``, ``threshold=``, ``k=`` or ``keep_soft=``)
    stated: bool
    binary: bool


@dataclass(frozen=True)
class _Roles:
    """The role columns of the scores frame under the user's names, and their private names."""

    score: str
    y: str
    example: str
    class_: str | None
    mask: str | None
    over: tuple[str, ...]
    #: private name -> the user's name
    private: dict[str, str]

    @property
    def over_private(self) -> list[str]:
        return [f"{PREFIX}over{i}" for i in range(len(self.over))]


def _check_options(
    decision: str | None,
    threshold: float | Mapping[Any, float],
    k: int | None,
    keep_soft: str | TNorm | None,
    *,
    logits: bool,
    bins: int | None,
    binary: bool,
) -> _Options:
    """The decision options checked against each other (no data read)."""
    stated = (
        decision is not None
        or isinstance(threshold, Mapping)
        or threshold != 0.5
        or k is not None
        or keep_soft is not None
    )
    kind = parse_decision("threshold" if decision is None else decision)
    soft_fn, _ = resolve_tnorm(keep_soft)
    checked_bins = _check_bins(bins)
    if not isinstance(logits, bool):
        msg = f"Expected `logits` to be True or False, got {logits!r}"
        raise OptionError(msg)
    if soft_fn is not None and (kind != "threshold" or k is not None):
        msg = (
            f"keep_soft={keep_soft!r} keeps the scores as soft predictions; it cannot be combined "
            f"with decision={decision!r} or k; drop one of them"
        )
        raise OptionError(msg)
    checked_k = _check_k(kind, k)
    per_class = isinstance(threshold, Mapping)
    if (kind != "threshold" or soft_fn is not None) and (per_class or threshold != 0.5):
        msg = f"`threshold` applies to decision='threshold' without keep_soft (decision is {kind!r})"
        raise OptionError(msg)
    return _Options(kind, checked_k, soft_fn, checked_bins, logits, stated, binary)


def _check_k(kind: Decision, k: int | None) -> int | None:
    """``k``: a positive integer with top-k, None otherwise."""
    if kind != "top_k":
        if k is not None:
            msg = f"`k` applies to decision='top_k' only (decision is {kind!r})"
            raise OptionError(msg)
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        msg = f"decision='top_k' needs `k`, a positive integer; got {k!r}"
        raise OptionError(msg)
    if k < 1:
        msg = f"Expected `k` >= 1 (the number of classes predicted per example), got {k}"
        raise OptionError(msg)
    return int(k)


def _check_binary_options(options: _Options, given: Mapping[str, bool]) -> None:
    """The binary layout (``class_=None``) takes none of the long layout's options (``given``: on)."""
    extra = {
        f"decision={options.kind!r}": options.kind != "threshold",
        "keep_soft": options.soft_fn is not None,
    }
    named = [name for name, on in {**extra, **given}.items() if on]
    if named:
        msg = (
            "class_=None reads the binary layout (one row per example: the 0/1 truth and the positive "
            f"class's score); {named[0]} does not apply to it"
        )
        raise OptionError(msg)


def _check_roles(lf: nw.LazyFrame[Any], roles: _Roles) -> None:
    """The role columns exist, and the score, truth and mask columns hold numbers."""
    schema = lf.collect_schema()
    named: dict[str, str | None] = {"score": roles.score, "y": roles.y}
    if roles.class_ is not None:
        named = {"example": roles.example, "class_": roles.class_, **named, "mask": roles.mask}
    require_columns(schema, {**named, **{f"over[{i}]": c for i, c in enumerate(roles.over)}})
    # a column of nothing but nulls (dtype Null) is left to the null checks, which count it
    all_null = null_columns(lf)
    score = roles.score
    if score not in all_null and not (schema[score].is_numeric() or schema[score] == nw.Boolean):
        msg = f"column {score!r} (role 'score') has dtype {schema[score]}; expected numbers"
        raise InvalidValueError(msg)
    check_numeric(schema, {"y": roles.y, "mask": roles.mask}, all_null)


def _prepare_roles(
    example: str | None, class_: str | None, score: str, y: str, mask: str | None, *, over: tuple[str, ...]
) -> _Roles:
    """The role columns and their private names (nothing below reads a user's name as a pattern)."""
    example_col = "example" if example is None else example
    private = {SCORE: score, Y: y}
    if class_ is not None:
        private = {EXAMPLE: example_col, CLASS_ROLE: class_, **private}
        private.update({f"{PREFIX}over{i}": c for i, c in enumerate(over)})
        if mask is not None:
            private[MASK] = mask
    return _Roles(score, y, example_col, class_, mask, over, private)


def _prepare_cuts(
    threshold: float | Mapping[Any, float], rows: nw.LazyFrame[Any], roles: _Roles, options: _Options
) -> tuple[tuple[tuple[Any, ...], tuple[float, ...]] | None, float]:
    """The per-class cuts of a threshold dict (classes cast to the class column's type), and the one cut."""
    if options.kind != "threshold" or options.soft_fn is not None:
        return None, 0.5
    if not isinstance(threshold, Mapping):
        t = _check_probability(threshold, "`threshold`")
        return None, _logit(t) if options.logits else t
    if not threshold:
        msg = "the threshold dict is empty; name a threshold for every class"
        raise OptionError(msg)
    values = [_check_probability(v, f"the threshold of class {c!r}") for c, v in threshold.items()]
    class_dtype = polars_dtype(rows, CLASS_ROLE)
    try:
        named = pl.Series(list(threshold.keys())).cast(class_dtype, strict=True).to_list()
    except Exception as exc:
        msg = (
            f"column {roles.class_!r}: the threshold dict names classes {list(threshold)[:5]!r} "
            f"that cannot be values of the column (dtype {class_dtype})"
        )
        raise UnknownClassError(msg) from exc
    return (tuple(named), tuple(_logit(v) if options.logits else v for v in values)), 0.5


def _compute_checks(
    rows: nw.LazyFrame[Any],
    roles: _Roles,
    options: _Options,
    cuts: tuple[tuple[Any, ...], tuple[float, ...]] | None,
    *,
    count_classes: bool,
    origin: Any,
) -> dict[str, Any]:
    """The one check query: how many rows each check flags (and the class count for top-k)."""
    s, yf = nw.col(SCORE).cast(nw.Float64), nw.col(Y).cast(nw.Float64)
    checks: dict[str, nw.Expr] = {
        "nan": s.is_nan().fill_null(value=False),
        "outside": (~s.is_between(0.0, 1.0) & ~s.is_nan()).fill_null(value=False),
        "soft_y": ((yf > 0.0) & (yf < 1.0)).fill_null(value=False),
        "bad_y": (~yf.is_between(0.0, 1.0)).fill_null(value=False),
    }
    nulls = {"null": SCORE, "null_y": Y}
    if not options.binary:
        nulls.update({"null_example": EXAMPLE, "null_class": CLASS_ROLE})
        if roles.mask is not None:
            # the measures on scores skip the unobserved entries: a mask that is neither says nothing
            nulls["null_mask"] = MASK
            checks["bad_mask"] = _BAD_MASK.fill_null(value=False)
        if cuts is not None:
            checks["no_threshold"] = (~nw.col(CLASS_ROLE).is_in(list(cuts[0]))).fill_null(value=False)
    return _run_checks(
        rows,
        checks,
        per_example=[*roles.over_private, EXAMPLE] if _softmax_check(options) else None,
        origin=origin,
        nulls=nulls,
        aggregates=[nw.col(CLASS_ROLE).n_unique().alias("_classes")] if count_classes else [],
    )


#: a mask value other than 0 and 1 (read only with a mask)
_BAD_MASK = ~nw.col(MASK).cast(nw.Float64).is_in([0.0, 1.0])


def _softmax_check(options: _Options) -> bool:
    """Whether the check query looks for softmax scores: long layout, no decision stated."""
    return not (options.binary or options.stated)


@dataclass(frozen=True)
class _Found:
    """What the check query found, and the first offending row of a predicate, for messages."""

    found: dict[str, Any]
    rows: nw.LazyFrame[Any]
    roles: _Roles

    def count(self, name: str) -> int:
        return int(self.found.get(name) or 0)

    def row(self, predicate: nw.Expr) -> str:
        private = self.roles.private
        shown = [c for c in [*self.roles.over_private, EXAMPLE, CLASS_ROLE, SCORE, Y, MASK] if c in private]
        return first_row(self.rows, predicate, shown, dict(private))


def _check_scores(found: _Found, options: _Options) -> str:
    """No rows, null or NaN scores, and scores outside [0, 1] where probabilities are needed; the
    first row outside [0, 1] (empty when none) for the source's later messages."""
    count, row, score = found.count, found.row, found.roles.score
    s = nw.col(SCORE).cast(nw.Float64)
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
    # keep_soft reads the scores as probabilities in every evaluation: refused now. A threshold
    # decision is refused when it is made (Scored.check_threshold): AUROC, AP and the curves of
    # the same predictions take any real scores
    if options.soft_fn is not None and not options.logits and count("outside"):
        msg = (
            f"column {score!r}: {count('outside')} score(s) outside [0, 1] (e.g. row {outside_row}); "
            "keep_soft needs probabilities; pass logits=True if the scores are logits"
        )
        raise InvalidValueError(msg)
    if options.bins is not None and count("outside") and not options.logits:
        msg = (
            f"column {score!r}: {count('outside')} score(s) outside [0, 1] (e.g. row {outside_row}); bins= "
            "quantises probabilities in [0, 1]; pass logits=True if the scores are logits"
        )
        raise InvalidValueError(msg)
    return outside_row


def _check_role_nulls(found: _Found) -> None:
    """Null examples, classes or mask values, and mask values other than 0 and 1."""
    count, row, roles = found.count, found.row, found.roles
    for key_, column in ((EXAMPLE, roles.example), (CLASS_ROLE, roles.class_)):
        flagged = count("null_example" if key_ == EXAMPLE else "null_class")
        if flagged and column is not None:
            msg = (
                f"column {column!r}: {flagged} null value(s) (e.g. row {row(nw.col(key_).is_null())}); "
                "role columns must not hold nulls"
            )
            raise NullValueError(msg)
    if count("null_mask"):
        msg = (
            f"column {roles.mask!r}: {count('null_mask')} null value(s) (e.g. row {row(nw.col(MASK).is_null())}); "
            "role columns must not hold nulls"
        )
        raise NullValueError(msg)
    if count("bad_mask"):
        msg = (
            f"column {roles.mask!r}: {count('bad_mask')} value(s) other than 0 and 1 (e.g. row {row(_BAD_MASK)}); "
            + MASK_VALUES
        )
        raise InvalidValueError(msg)


def _check_truth(found: _Found, options: _Options) -> None:
    """Truth other than 0/1 (soft truth only with keep_soft); a null truth is an unlabelled entry."""
    count, row, y = found.count, found.row, found.roles.y
    if count("bad_y") or (count("soft_y") and options.soft_fn is None):
        yf = nw.col(Y).cast(nw.Float64)
        bad = ~((yf == 0.0) | (yf == 1.0))
        msg = (
            f"column {y!r}: {count('bad_y') + count('soft_y')} value(s) other than 0 and 1 (e.g. row {row(bad)}); "
            "the truth is 0/1 or booleans" + ("" if options.binary else " (soft values only with keep_soft)")
        )
        raise InvalidValueError(msg)


def _check_decision(
    found: _Found, options: _Options, cuts: tuple[tuple[Any, ...], tuple[float, ...]] | None
) -> None:
    """Rows of classes a threshold dict does not name; the softmax warning when no decision was stated."""
    count, row = found.count, found.row
    if count("no_threshold"):
        assert cuts is not None
        msg = (
            f"column {found.roles.class_!r}: {count('no_threshold')} row(s) of classes the threshold dict does not name "
            f"(e.g. row {row(~nw.col(CLASS_ROLE).is_in(list(cuts[0])))}); give a threshold for every class"
        )
        raise OptionError(msg)
    if _softmax_check(options) and count("_ranked") and not count("_not_one"):
        msg = (
            "the scores of every example sum to one over its classes (softmax probabilities?), and no "
            "decision was stated: from_scores predicts every class whose score is above 0.5 (a multilabel "
            "reading, often no class at all). Pass decision='argmax' for one class per example, or state "
            "decision='threshold' to keep this reading"
        )
        # the user's call of from_scores: here, scores_source, the constructor, the caller
        warnings.warn(msg, DecisionWarning, stacklevel=4)


def _check_k_universe(
    options: _Options, universe: list[Any] | None, class_: str | None, found: _Found
) -> None:
    """``k`` at most the number of classes (declared, or seen in the data)."""
    k = options.k
    if options.kind != "top_k" or k is None:
        return
    if universe is not None:
        if k > len(universe):
            msg = f"k={k} is larger than the number of classes ({len(universe)} declared)"
            raise OptionError(msg)
        return
    m = found.count("_classes")
    if k > m:
        msg = (
            f"k={k} is larger than the number of classes in column {class_!r} ({m}); "
            "declare classes= or n_classes= if the data lacks some"
        )
        raise OptionError(msg)


def _check_cut_classes(
    cuts: tuple[tuple[Any, ...], tuple[float, ...]] | None,
    universe: list[Any] | None,
    class_: str | None,
    rows: nw.LazyFrame[Any],
    origin: Any,
) -> None:
    """A threshold dict names only classes of the declared universe (or, without one, of the data)."""
    if cuts is None:
        return
    named_classes = list(cuts[0])
    if universe is not None:
        unknown = [c for c in named_classes if c not in universe]
        if unknown:
            msg = (
                f"column {class_!r}: the threshold dict names {len(unknown)} class(es) outside the "
                f"declared universe (e.g. {unknown[0]!r}); declared: {list(universe)[:10]!r}"
            )
            raise UnknownClassError(msg)
        return
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


def scores_source(frame: Any, opts: ScoreOptions) -> ScoreSource | BinaryScoreSource:
    """A checked source of predictions with scores (the options of :func:`~aggframe.from_scores`)."""
    example, class_, score, y, mask = opts.example, opts.class_, opts.score, opts.y, opts.mask
    threshold, n_classes, classes = opts.threshold, opts.n_classes, opts.classes
    lf = as_lazy(frame, "frame")
    origin = origin_of(lf)
    binary = class_ is None
    options = _check_options(
        opts.decision, threshold, opts.k, opts.keep_soft, logits=opts.logits, bins=opts.bins, binary=binary
    )
    roles = _prepare_roles(example, class_, score, y, mask, over=tuple(listify(opts.over)))
    if binary:
        given = {
            "mask": mask is not None,
            "over": bool(roles.over),
            "example": example is not None,
            "n_classes/classes": n_classes is not None or classes is not None,
            "a threshold dict": isinstance(threshold, Mapping),
        }
        _check_binary_options(options, given)
    _check_roles(lf, roles)
    rows = project_columns(lf, roles.private)
    cuts, cut = _prepare_cuts(threshold, rows, roles, options)
    universe = (
        None if binary else resolve_universe(n_classes, classes, enum_categories(lf, cast("str", class_)))
    )
    assert universe is None or isinstance(universe, list)
    count_classes = options.kind == "top_k" and universe is None
    found = _Found(
        _compute_checks(rows, roles, options, cuts, count_classes=count_classes, origin=origin), rows, roles
    )
    outside_row = _check_scores(found, options)
    _check_role_nulls(found)
    _check_truth(found, options)
    _check_decision(found, options, cuts)
    # a null truth is an unlabelled entry: kept, refused by every measure (lazily), read by af.estimate
    n_unlabelled = found.count("null_y")
    unlabelled_row = found.row(nw.col(Y).is_null()) if n_unlabelled else ""
    if binary:
        return BinaryScoreSource(
            frame=lf,
            origin=origin,
            label_roles=LabelRoles(y_true=y, y_pred=y),
            task="binary",
            pos_label=POSITIVE,
            universe=[0, POSITIVE],
            score=score,
            logits=options.logits,
            bins=options.bins,
            cut=cut,
            outside=found.count("outside"),
            outside_row=outside_row,
            unlabelled=n_unlabelled,
            unlabelled_row=unlabelled_row,
            truth_column=str(y),
        )
    assert class_ is not None
    source = ScoreSource(
        frame=lf,
        origin=origin,
        long_roles=LongRoles(example=roles.example, class_=class_, y=y, p=P, mask=mask),
        universe=universe,
        tnorm=options.soft_fn,
        score=score,
        decision=options.kind,
        k=options.k,
        logits=options.logits,
        over=roles.over,
        bins=options.bins,
        cuts=cuts,
        cut=cut,
        outside=found.count("outside"),
        outside_row=outside_row,
        crisp_truth=not found.count("soft_y"),
        unlabelled=n_unlabelled,
        unlabelled_row=unlabelled_row,
        truth_column=str(y),
    )
    _check_k_universe(options, universe, class_, found)
    _check_cut_classes(cuts, universe, class_, rows, origin)
    return source
