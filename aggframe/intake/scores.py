"""Scores to predictions: threshold, argmax or top-k decisions, made lazily in Polars.

:func:`from_scores` takes per (example, class) scores in long form (one row per
entry, as :func:`~aggframe.from_long`, with a ``score`` column in place of
``p``), turns them into predictions with Polars expressions (window functions
over the example; never a Python loop over rows) and hands the derived lazy
frame to :func:`~aggframe.from_long`, so every operator, ``by=`` and engine
works unchanged.

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
is NumPy's ``argmax`` rule (the first maximum).

Cost
----
The decisions themselves are lazy. The data checks (null or NaN scores, scores
outside [0, 1] where probabilities are required, a threshold dict that misses or
names unknown classes, ``k`` above the number of classes when no universe is
declared, and for argmax/top-k a repeated (example, class) entry, which would
mix examples in one window) run as **one** small aggregate query over the scores at construction:
bad-row counts plus one offending row each. That is the one extra read this
module allows itself; evaluation then reads the source once more, as usual.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from aggframe._columns import fmt_row, free_name
from aggframe._options import listify, parse_decision
from aggframe.exceptions import (
    DuplicateEntryError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    UnknownClassError,
)
from aggframe.intake.checks import require_columns
from aggframe.intake.long import LongSource, long_source
from aggframe.intake.source import as_lazy, reading
from aggframe.wide.engines import to_polars
from aggframe.wide.tnorms import TNorm, resolve_tnorm

__all__ = ["scores_source"]


_P = "p"


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


def _fmt(row: Mapping[str, Any] | None) -> str:
    return fmt_row(dict(row)) if row else "?"


def scores_source(
    frame: Any,
    *,
    example: str = "example",
    class_: str = "class",
    score: str = "score",
    y: str = "y",
    decision: str = "threshold",
    threshold: float | Mapping[Any, float] = 0.5,
    k: int | None = None,
    logits: bool = False,
    n_classes: int | None = None,
    classes: Sequence[Any] | None = None,
    mask: str | None = None,
    keep_soft: str | TNorm | None = None,
    over: str | Sequence[str] | None = None,
) -> LongSource:
    """A :class:`~aggframe.intake.long.LongSource` of decisions made from scores (see :func:`~aggframe.from_scores`)."""
    lf = to_polars(as_lazy(frame, "frame"))
    schema = lf.collect_schema()
    over_cols = listify(over)

    # -- options (no data) ----------------------------------------------------------
    kind = parse_decision(decision)
    soft_fn, _ = resolve_tnorm(keep_soft)
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

    needed = {"example": example, "class_": class_, "score": score, "y": y, "mask": mask}
    needed.update({f"over[{i}]": c for i, c in enumerate(over_cols)})
    require_columns(schema, needed)
    if not (schema[score].is_numeric() or schema[score] == pl.Boolean):
        msg = f"column {score!r} (role 'score') has dtype {schema[score]}; expected numbers"
        raise InvalidValueError(msg)

    # -- the decision, as expressions -------------------------------------------------
    position = {c: i for i, c in enumerate(schema.names())}

    def col(name: str) -> pl.Expr:
        # a user's column by position: a name is never read as a pattern ("*", "^x$")
        return pl.nth(position[name]).alias(name)

    s = col(score).cast(pl.Float64)
    class_dtype = schema[class_]
    # tie-break key: the class itself (Enum: declared order); Categorical as strings
    key = col(class_).cast(pl.String) if class_dtype == pl.Categorical else col(class_)
    window = [col(c) for c in (*over_cols, example)]
    keys_series: pl.Series | None = None
    cut: pl.Expr | None = None
    if soft_fn is not None:
        p_expr = (1.0 / (1.0 + (-s).exp())) if logits else s
    elif kind == "threshold":
        if isinstance(threshold, Mapping):
            if not threshold:
                msg = "the threshold dict is empty; name a threshold for every class"
                raise OptionError(msg)
            values = [_check_probability(v, f"the threshold of class {c!r}") for c, v in threshold.items()]
            try:
                keys_series = pl.Series(list(threshold.keys())).cast(class_dtype, strict=True)
            except Exception as exc:
                msg = (
                    f"column {class_!r}: the threshold dict names classes {list(threshold)[:5]!r} "
                    f"that cannot be values of the column (dtype {class_dtype})"
                )
                raise UnknownClassError(msg) from exc
            cuts = [_logit(v) for v in values] if logits else values
            cut = col(class_).replace_strict(
                keys_series, pl.Series(cuts, dtype=pl.Float64), default=None, return_dtype=pl.Float64
            )
        else:
            t = _check_probability(threshold, "`threshold`")
            cut = pl.lit(_logit(t) if logits else t, dtype=pl.Float64)
        p_expr = (s > cut).cast(pl.Int8)
    elif kind == "argmax":
        best = key.filter(s == s.max()).min().over(window)
        p_expr = (key == best).cast(pl.Int8)
    else:
        assert k is not None
        rank = pl.arg_sort_by([s, key], descending=[True, False]).arg_sort().over(window)
        p_expr = (rank < k).cast(pl.Int8)

    p_name = _P if score == _P else free_name(_P, schema.names())
    derived = lf.with_columns(p_expr.alias(p_name))
    source = long_source(
        derived,
        example=example,
        class_=class_,
        y=y,
        p=p_name,
        mask=mask,
        n_classes=n_classes,
        classes=classes,
        tnorm=keep_soft,
        derived_from={score: "score"},
    )
    universe = source.universe

    # -- option checks against the declared universe (no data) -------------------------
    decided: str = kind  # (after the branches above, the checker has narrowed `kind`)
    if decided == "top_k" and universe is not None and k is not None and k > len(universe):
        msg = f"k={k} is larger than the number of classes ({len(universe)} declared)"
        raise OptionError(msg)
    if keys_series is not None and universe is not None:
        unknown = [c for c in keys_series.to_list() if c not in universe]
        if unknown:
            msg = (
                f"column {class_!r}: the threshold dict names {len(unknown)} class(es) outside the "
                f"declared universe (e.g. {unknown[0]!r}); declared: {universe[:10]!r}"
            )
            raise UnknownClassError(msg)

    # -- data checks: ONE aggregate query ------------------------------------------------
    row = pl.struct([col(c) for c in dict.fromkeys([*over_cols, example, class_, score])])
    checks: dict[str, pl.Expr] = {}

    def count(name: str, bad: pl.Expr) -> None:
        bad = bad.fill_null(False)  # noqa: FBT003
        checks[f"n_{name}"] = bad.sum()
        checks[f"row_{name}"] = row.filter(bad).first()

    count("null", col(score).is_null())
    count("nan", s.is_nan())
    needs_probabilities = not logits and (kind == "threshold" or soft_fn is not None)
    if needs_probabilities:
        count("range", s.is_not_nan() & ~s.is_between(0.0, 1.0))
    if cut is not None and keys_series is not None:
        count("no_threshold", col(class_).is_not_null() & cut.is_null())
        if universe is None:
            checks["found"] = col(class_).filter(col(class_).is_in(keys_series.implode())).unique().implode()
    if kind in ("argmax", "top_k"):
        # a repeated (over..., example, class) entry mixes examples in one window
        count(
            "dup", pl.struct([col(c) for c in dict.fromkeys([*over_cols, example, class_])]).is_duplicated()
        )
    if decided == "top_k" and universe is None:
        checks["n_classes"] = col(class_).drop_nulls().n_unique()
    checks["n_rows"] = pl.len()
    with reading(source.origin):
        found = lf.select(**checks).collect().row(0, named=True)

    if not found["n_rows"]:
        msg = "the scores frame has no rows"
        raise EmptyInputError(msg)

    if found["n_null"]:
        msg = f"column {score!r}: {found['n_null']} null score(s) (e.g. row {_fmt(found['row_null'])}); scores must not be null"
        raise NullValueError(msg)
    if found["n_nan"]:
        msg = f"column {score!r}: {found['n_nan']} NaN score(s) (e.g. row {_fmt(found['row_nan'])}); scores must be numbers"
        raise NullValueError(msg)
    if found.get("n_dup"):
        msg = (
            f"columns ({example!r}, {class_!r}): {found['n_dup']} rows repeat an (example, class) entry "
            f"(e.g. row {_fmt(found['row_dup'])}); {kind} decides per example, so each class may appear "
            "once per example. If several models or days reuse the example ids, pass over=<those columns>"
        )
        raise DuplicateEntryError(msg)
    if needs_probabilities and found["n_range"]:
        what = "keep_soft" if soft_fn is not None else "a threshold"
        msg = (
            f"column {score!r}: {found['n_range']} score(s) outside [0, 1] (e.g. row "
            f"{_fmt(found['row_range'])}); {what} needs probabilities; pass logits=True if the "
            "scores are logits"
        )
        raise InvalidValueError(msg)
    if found.get("n_no_threshold"):
        msg = (
            f"column {class_!r}: {found['n_no_threshold']} row(s) of classes the threshold dict does not "
            f"name (e.g. row {_fmt(found['row_no_threshold'])}); give a threshold for every class"
        )
        raise OptionError(msg)
    if "found" in found and keys_series is not None:
        seen = set(found["found"] or [])
        absent = [c for c in keys_series.to_list() if c not in seen]
        if absent:
            msg = (
                f"column {class_!r}: the threshold dict names {len(absent)} class(es) that never occur "
                f"in the data (e.g. {absent[0]!r}); declare classes= or n_classes= if they are real classes"
            )
            raise UnknownClassError(msg)
    if "n_classes" in found and k is not None and k > found["n_classes"]:
        msg = (
            f"k={k} is larger than the number of classes in column {class_!r} ({found['n_classes']}); "
            "declare classes= or n_classes= if the data lacks some"
        )
        raise OptionError(msg)
    return source
