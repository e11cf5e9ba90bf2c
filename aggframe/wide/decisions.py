"""Decisions from scores (argmax, top-k), in the wide step: window expressions, and a fast argmax grain.

:func:`~aggframe.from_scores` turns per (example, class) scores into
predictions. Two ways, with the same results (tests/intake/test_scores.py):

:func:`ranked`
    A Narwhals window that marks each row predicted or not (its row number
    within the example, by score descending and class ascending), for every
    engine: the long form's wide step (:mod:`aggframe.wide.long`) then counts
    the cells from the marked rows. Used on DuckDB and Spark, for masked
    entries, and for top-k with ``k > MAX_PASSES`` on Polars.
:func:`best_grains`
    Polars only (an engine-specific piece, as in :mod:`aggframe.wide.engines`):
    argmax as **one** per-example aggregation, no window; top-k as ``k`` of
    them. Per example the best entry (``sort_by(score desc, class
    asc).first()``, which Polars runs as an arg-max, not a sort), whether it is
    a positive, and the example's row and positive counts; per class the rows
    and positives. A window over the example groups the rows once to rank them
    and again to count the cells (and ranking costs ~5x an arg-max, measured);
    here each pass reads the rows once and the cells of every class and every
    example follow from the predicted classes of each example.

Ties go to the smallest class in sort order (numbers ascending, strings
lexicographically, ``Enum`` categories in declared order; a ``Categorical``
column is compared as strings): the caller passes the tie key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import narwhals as nw
import polars as pl

from aggframe._columns import CELLS, PREFIX
from aggframe.wide.engines import Frame, distinct_classes
from aggframe.wide.keys import keyed, row_keys
from aggframe.wide.long import BAD_VALUES, class_refused, invalid_values, profiles_and_groups

__all__ = ["MAX_PASSES", "NEGATED", "best_grains", "ranked"]


def ranked(frame: Frame, *, score: str, key: str, partition: Sequence[str], k: int) -> tuple[Frame, nw.Expr]:
    """Whether each row is among the ``k`` best of its partition (0/1, Int8), as a Narwhals window.

    The rank of a row is its row number in the partition ordered by score
    descending, then key ascending (``ROW_NUMBER() OVER (PARTITION BY ... ORDER
    BY -score, key)``). Returns the frame with the helper column the ordering
    needs, and the expression; the caller drops ``NEGATED`` after using it.

    Examples
    --------
    >>> import narwhals as nw
    >>> import polars as pl
    >>> rows = pl.DataFrame({"e": [0, 0, 0, 1, 1], "c": [2, 0, 1, 0, 1], "s": [0.5, 0.5, 0.2, 0.1, 0.9]})
    >>> frame, best = ranked(nw.from_native(rows.lazy()), score="s", key="c", partition=["e"], k=1)
    >>> frame.with_columns(best.alias("p")).collect().to_native()["p"].to_list()
    [0, 1, 0, 0, 1]
    """
    with_negated = frame.with_columns((-nw.col(score).cast(nw.Float64)).alias(NEGATED))
    row_number = nw.col(key).cum_count().over(*partition, order_by=[NEGATED, key])
    return with_negated, (row_number <= k).cast(nw.Int8)


#: The helper column of :func:`ranked` (the score, negated: window orderings ascend).
NEGATED = f"{PREFIX}negated_score"
#: Up to this many best classes, Polars finds them as successive arg-maxes (one aggregation
#: per example each, and a join to set the found ones aside); above, with a window.
MAX_PASSES = 4


def best_grains(  # noqa: PLR0913 -- the scan's roles and options, keyword-only
    lf: Frame,
    *,
    keys: Sequence[str],
    example: str,
    class_: str,
    score: str,
    y: str,
    k: int = 1,
    n_classes: int | None = None,
    universe: Sequence[Any] | Mapping[Any, Sequence[Any]] | None = None,
) -> dict[str, Frame]:
    """The long form's raw grains (:func:`aggframe.wide.long.long_grains`) of argmax or top-k decisions, on Polars.

    ``lf`` holds the projected rows (private names, crisp truth ``y``). The
    best entry of an example is the first by score descending, then class
    ascending (a ``Categorical`` class compared as strings); the ``k`` best are
    found as ``k`` successive best entries, each pass setting the ones found
    aside with a join. Returns the grains ``class``, ``profiles``, ``groups`` and
    ``examples`` with the columns and validation aggregates of
    :func:`~aggframe.wide.long.long_grains`, so that
    :func:`~aggframe.tables.long.finish_long` checks and completes them.

    The cells, from the predicted classes of each example: per class ``tp``
    and the predictions counted from them, the positives and rows from a
    group-by of the rows by class; per example ``tp`` = the predicted entries'
    truths, ``fn = positives - tp``, and the rest of its entries true negatives
    (absent entries of a declared universe too).
    """
    # each row's refused truth or class (the flag of the long form's wide step), summed per example
    refused = invalid_values({"y": nw.col(y).cast(nw.Float64)}, nw.col(example), soft=False) | class_refused(
        class_, universe, None
    )
    lf = lf.with_columns(refused.cast(nw.Int64).alias("_bad"))
    native = cast("pl.LazyFrame", nw.to_native(lf))
    kk = list(keys)
    rk = row_keys(kk)
    part = [*rk, example]
    C, S, Y = pl.col(class_), pl.col(score).cast(pl.Float64), pl.col(y).cast(pl.Float64)
    dtype = native.collect_schema()[class_]
    order = [S, C.cast(pl.String) if dtype == pl.Categorical else C]
    integer = dtype.is_integer() and dtype != pl.UInt64  # UInt64 classes may not fit the code

    def best(i: int) -> list[pl.Expr]:
        if integer:
            # the class and its truth ride in one integer, so one arg-max finds both
            code = C.cast(pl.Int64) * 2 + Y.cast(pl.Int64)
            return [code.sort_by(order, descending=[True, False]).first().alias(f"_code{i}")]
        return [
            C.sort_by(order, descending=[True, False]).first().alias(f"_pred{i}"),
            Y.sort_by(order, descending=[True, False]).first().cast(pl.Float64).alias(f"_hit{i}"),
        ]

    def decoded(frame: pl.LazyFrame, i: int) -> pl.LazyFrame:
        if not integer:
            return frame
        code = pl.col(f"_code{i}")
        return frame.with_columns(
            (code // 2).cast(dtype).alias(f"_pred{i}"), (code % 2).cast(pl.Float64).alias(f"_hit{i}")
        ).drop(f"_code{i}")

    distinct = distinct_classes(lf, class_, n_classes)
    bits = distinct.columns
    rows = cast("pl.LazyFrame", nw.to_native(distinct.rows(lf)))
    n_cls = [pl.col(b).sum() for b in bits] if bits else [C.n_unique().alias("n_cls")]
    per_example = rows.group_by(part).agg(
        *best(1), pl.len().cast(pl.Float64).alias("rows"), Y.sum().alias("_pos"), *n_cls, pl.col("_bad").sum()
    )
    per_example = decoded(per_example, 1).cache()
    for i in range(2, k + 1):
        found = per_example.select(*part, *[f"_pred{j}" for j in range(1, i)])
        rest = native.join(found, on=part, how="inner", nulls_equal=True).filter(
            pl.all_horizontal([C.ne_missing(pl.col(f"_pred{j}")) for j in range(1, i)])
        )
        following = decoded(rest.group_by(part).agg(*best(i)), i)
        per_example = per_example.join(following, on=part, how="left", nulls_equal=True).cache()
    per_example = cast("pl.LazyFrame", nw.to_native(distinct.finish(nw.from_native(per_example))))
    hits = pl.sum_horizontal([pl.col(f"_hit{i}").fill_null(0.0) for i in range(1, k + 1)])
    npred = pl.sum_horizontal([pl.col(f"_pred{i}").is_not_null().cast(pl.Float64) for i in range(1, k + 1)])
    pos, n_rows = pl.col("_pos"), pl.col("rows")
    examples = per_example.with_columns(hits.alias("_tp"), npred.alias("_np"))
    tp, np_ = pl.col("_tp"), pl.col("_np")
    tn = n_rows - np_ - pos + tp
    if n_classes is not None:
        tn = tn + (float(n_classes) - n_rows)  # absent entries of a declared universe
    examples = examples.with_columns(
        tp.alias("tp"), (np_ - tp).alias("fp"), (pos - tp).alias("fn"), tn.alias("tn")
    ).cache()
    # per class: the rows and positives, and the predictions counted from the examples'
    # best entries
    yv = pl.col(y).cast(pl.Float64)
    class_rows = native.group_by([*rk, class_]).agg(
        pl.len().cast(pl.Float64).alias("rows"), yv.sum().alias("_pos")
    )
    picks = pl.concat(
        [
            examples.select(*rk, pl.col(f"_pred{i}").alias(class_), pl.col(f"_hit{i}").alias("_hit"))
            for i in range(1, k + 1)
        ]
    ).filter(pl.col("_hit").is_not_null())
    predicted = picks.group_by([*rk, class_]).agg(
        pl.len().cast(pl.Float64).alias("_npred"), pl.col("_hit").sum().alias("_tp")
    )
    on = [*rk, class_]
    per_class = class_rows.join(predicted, on=on, how="left", nulls_equal=True).with_columns(
        pl.col("_npred", "_tp").fill_null(0.0)
    )
    ctp, cpred, cpos = pl.col("_tp"), pl.col("_npred"), pl.col("_pos")
    per_class = per_class.select(
        *on,
        ctp.alias("tp"),
        (cpred - ctp).alias("fp"),
        (cpos - ctp).alias("fn"),
        (pl.col("rows") - cpred - cpos + ctp).alias("tn"),
        "rows",
    )
    checked = examples.with_columns((n_rows - pl.col("n_cls")).alias("_dup"))
    # the decisions are made here (one 0/1 prediction per entry): the truth is checked
    profiles, groups = profiles_and_groups(
        nw.from_native(checked.select(*rk, *CELLS, "rows", "_dup", "_bad")),
        kk,
        {"_dup": "dup_entries", "_bad": BAD_VALUES},
        min_rows=n_classes is None,
    )
    return {
        "class": keyed(nw.from_native(per_class), kk),
        "profiles": profiles,
        "groups": groups,
        "examples": keyed(nw.from_native(examples.select(*part, "rows", *CELLS)), kk),
    }
