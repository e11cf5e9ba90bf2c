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
from typing import Any, Literal

import polars as pl

from aggframe._columns import fmt_row as _fmt_row
from aggframe._columns import free_name
from aggframe._grains import to_polars
from aggframe._predictions import Predictions, _as_lazy, _listify, from_long
from aggframe._source import reading
from aggframe._tnorms import TNorm, resolve_tnorm
from aggframe.exceptions import (
    ColumnNotFoundError,
    DuplicateEntryError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    UnknownClassError,
    UnknownNameError,
)

__all__ = ["DECISIONS", "from_scores"]

Decision = Literal["threshold", "argmax", "top_k"]
DECISIONS: tuple[Decision, ...] = ("threshold", "argmax", "top_k")
_P = "p"


def _decision(name: str) -> Decision:
    key = str(name).strip().lower().replace("-", "_")
    key = {"topk": "top_k", "top": "top_k"}.get(key, key)
    for d in DECISIONS:
        if d == key:
            return d
    msg = f"unknown decision {name!r}; valid decisions: {', '.join(DECISIONS)}"
    raise UnknownNameError(msg)


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
    return _fmt_row(dict(row)) if row else "?"


def from_scores(
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
) -> Predictions:
    """Predictions from per (example, class) scores: thresholded, argmax or top-k.

    The decision is made lazily with Polars expressions (window functions over
    the example) and the derived frame, with the decision in column ``p``, goes
    to :func:`~aggframe.from_long`: every operator, ``by=`` and engine works as
    on long-form predictions.

    Parameters
    ----------
    frame
        A Polars DataFrame or LazyFrame (or a frame Narwhals supports, which is
        converted to Polars), one row per (example, class) entry.
    example, class_, score, y
        Role columns: the example id, the class, the model's score for that
        class, and the truth (0/1 or booleans; soft only with ``keep_soft``).
    decision
        ``"threshold"`` (multilabel: ``score > threshold``, strictly),
        ``"argmax"`` (multiclass: exactly one class per example) or ``"top_k"``
        (the ``k`` best classes). Ties go to the smallest class in sort order
        (numbers ascending, strings lexicographically, ``Enum`` categories in
        declared order; ``Categorical`` as strings).
    threshold
        A probability in [0, 1], or a dict ``{class: threshold}`` that names
        every class of the data (and only known classes). Threshold decision only.
    k
        The number of classes predicted per example, ``1 <= k <= number of
        classes`` (the declared universe, else the classes in the data). An
        example with fewer than ``k`` rows (a sparse frame) is predicted for all
        of them; absent entries are never predicted. Top-k decision only.
    logits
        The scores are logits (or any real-valued scores). A threshold then
        applies to ``sigmoid(score)`` (computed exactly as
        ``score > log(t / (1 - t))``); argmax and top-k use the raw scores (they
        never need probabilities, with or without this flag); ``keep_soft``
        keeps ``sigmoid(score)``.
    n_classes, classes, mask
        As in :func:`~aggframe.from_long`. The mask does not change the
        decision: a masked entry can still be the argmax.
    keep_soft
        A t-norm name (``"product"``, ``"godel"``, ``"lukasiewicz"``,
        ``"hamacher"``) or callable: keep the scores as soft predictions under
        that t-norm instead of deciding (no ``decision``/``k`` then).
    over
        Columns that, with ``example``, identify one example, when several
        groups (models, days, ...) reuse the same example ids: the argmax and
        top-k windows run over ``(over..., example)``. Evaluate with ``by=``
        those columns.

    Returns
    -------
    Predictions
        Long-form predictions (column ``p``, or a private name if the frame
        already has an unrelated ``p``).

    Raises
    ------
    NullValueError
        Null or NaN scores.
    InvalidValueError
        Scores outside [0, 1] where probabilities are required (threshold or
        ``keep_soft`` without ``logits``), or a non-numeric score column.
    OptionError
        ``k`` below 1 or above the number of classes, a threshold outside
        [0, 1], a threshold dict missing classes of the data, or options that
        do not go together.
    DuplicateEntryError
        Argmax or top-k with an (example, class) entry repeated within ``over``
        (several groups reuse the example ids: pass ``over=``).
    UnknownClassError
        A threshold dict naming classes outside the universe (or, without a
        declared universe, absent from the data).
    UnknownNameError
        An unknown decision or t-norm name.

    Notes
    -----
    Besides the lazy decision, construction runs **one** small aggregate query
    over the scores for the data checks (bad-row counts and one offending row
    each); evaluation reads the source once more.

    Examples
    --------
    >>> import polars as pl
    >>> from aggframe._scores import from_scores
    >>> df = pl.DataFrame({"example": [0, 0, 0, 1, 1, 1], "class": [0, 1, 2] * 2,
    ...                    "score": [0.7, 0.2, 0.1, 0.4, 0.4, 0.2], "y": [1, 0, 0, 0, 1, 0]})
    >>> pr = from_scores(df, decision="argmax")  # the tie in example 1 goes to class 0
    >>> pr.accuracy()
    0.5
    >>> from_scores(df, decision="threshold", threshold=0.3).compute("precision", "micro")
    0.6666666666666666
    """
    lf = to_polars(_as_lazy(frame, "frame"))
    schema = lf.collect_schema()
    over_cols = _listify(over)

    # -- options (no data) ----------------------------------------------------------
    kind = _decision(decision)
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
    missing = [(role, col) for role, col in needed.items() if col is not None and col not in schema]
    if missing:
        role, col = missing[0]
        msg = (
            f"column {col!r} (role {role!r}) is not in the frame; available columns: "
            f"{schema.names()}. Rename it or pass {role.split('[')[0]}=<column name>"
        )
        raise ColumnNotFoundError(msg)
    if not (schema[score].is_numeric() or schema[score] == pl.Boolean):
        msg = f"column {score!r} (role 'score') has dtype {schema[score]}; expected numbers"
        raise InvalidValueError(msg)

    # -- the decision, as expressions -------------------------------------------------
    s = pl.col(score).cast(pl.Float64)
    class_dtype = schema[class_]
    # tie-break key: the class itself (Enum: declared order); Categorical as strings
    key = pl.col(class_).cast(pl.String) if class_dtype == pl.Categorical else pl.col(class_)
    window = [*over_cols, example]
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
            cut = pl.col(class_).replace_strict(
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
    pr = from_long(
        derived,
        example=example,
        class_=class_,
        y=y,
        p=p_name,
        mask=mask,
        n_classes=n_classes,
        classes=classes,
        tnorm=keep_soft,
    )
    universe = pr.universe

    # -- option checks against the declared universe (no data) -------------------------
    if kind == "top_k" and universe is not None and k is not None and k > len(universe):
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
    row = pl.struct([*over_cols, example, class_, score])
    checks: dict[str, pl.Expr] = {}

    def count(name: str, bad: pl.Expr) -> None:
        bad = bad.fill_null(False)  # noqa: FBT003
        checks[f"n_{name}"] = bad.sum()
        checks[f"row_{name}"] = row.filter(bad).first()

    count("null", pl.col(score).is_null())
    count("nan", s.is_nan())
    needs_probabilities = not logits and (kind == "threshold" or soft_fn is not None)
    if needs_probabilities:
        count("range", s.is_not_nan() & ~s.is_between(0.0, 1.0))
    if cut is not None and keys_series is not None:
        count("no_threshold", pl.col(class_).is_not_null() & cut.is_null())
        if universe is None:
            checks["found"] = (
                pl.col(class_).filter(pl.col(class_).is_in(keys_series.implode())).unique().implode()
            )
    if kind in ("argmax", "top_k"):
        # a repeated (over..., example, class) entry mixes examples in one window
        count("dup", pl.struct([*over_cols, example, class_]).is_duplicated())
    if kind == "top_k" and universe is None:
        checks["n_classes"] = pl.col(class_).drop_nulls().n_unique()
    checks["n_rows"] = pl.len()
    with reading(pr.origin):
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
    return pr
