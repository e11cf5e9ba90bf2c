"""Decisions from scores (argmax, top-k), in the wide step: window expressions, and a fast argmax grain.

:func:`~aggframe.from_scores` turns per (example, class) scores into
predictions. Two ways, with the same results (tests/test_scores.py):

:func:`ranked`
    Narwhals window expressions that mark each row predicted or not (rank of
    the entry within its example, by score descending and class ascending), for
    every engine: the long form's wide step (:mod:`aggframe.wide.long`) then
    counts the cells from the marked rows. Used for top-k, for masked
    entries, and on DuckDB and Spark.
:func:`argmax_grains`
    Polars only (an engine-specific piece, as in :mod:`aggframe.wide.engines`):
    argmax as **one** per-example aggregation, no window. Per example the
    best entry (``sort_by(score desc, class asc).first()``, which Polars runs
    as an arg-max, not a sort), whether it is a positive, and the example's
    row and positive counts; per class the rows and positives. A window over
    the example would group the rows once to rank them and again to count
    the cells; this reads each row once per grain and computes the cells of
    every class and every example from one predicted class per example.

Ties go to the smallest class in sort order (numbers ascending, strings
lexicographically, ``Enum`` categories in declared order; a ``Categorical``
column is compared as strings): the caller passes the tie key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import narwhals as nw
import polars as pl

from aggframe._columns import CELLS
from aggframe.wide.engines import distinct_classes, shared_small
from aggframe.wide.keys import keyed, row_keys

__all__ = ["argmax_grains", "ranked"]

Frame = nw.LazyFrame[Any]


def ranked(frame: Frame, *, score: str, key: str, partition: Sequence[str], k: int) -> nw.Expr:
    """Whether each row is among the ``k`` best of its partition (0/1, Int8), as a Narwhals expression.

    The rank of a row is ``1 + #{higher scores} + #{equal scores with a smaller
    key}``: two windows (``rank("min")`` of the score over the partition, and of
    the key over the partition and score). ``frame`` must carry ``score`` and
    ``key`` as columns (the key: the class, or its string form).

    Examples
    --------
    >>> import narwhals as nw
    >>> import polars as pl
    >>> rows = pl.DataFrame({"e": [0, 0, 0, 1, 1], "c": [2, 0, 1, 0, 1], "s": [0.5, 0.5, 0.2, 0.1, 0.9]})
    >>> frame = nw.from_native(rows.lazy())
    >>> out = frame.with_columns(ranked(frame, score="s", key="c", partition=["e"], k=1).alias("p"))
    >>> out.collect().to_native()["p"].to_list()
    [0, 1, 0, 0, 1]
    """
    del frame  # the expression reads the columns by name
    part = list(partition)
    above = nw.col(score).rank(method="min", descending=True).over(*part)
    tied = nw.col(key).rank(method="min").over(*part, score)
    return ((above + tied - 1) <= k).cast(nw.Int8)


def argmax_grains(
    lf: Frame,
    *,
    keys: Sequence[str],
    example: str,
    class_: str,
    score: str,
    y: str,
    n_classes: int | None = None,
) -> dict[str, Frame]:
    """The long form's raw grains (:func:`aggframe.wide.long.long_grains`) of argmax decisions, on Polars.

    ``lf`` holds the projected rows (private names, crisp truth ``y``). The
    predicted class of an example is the best entry by score descending, then
    class ascending (a ``Categorical`` class compared as strings). Returns the grains ``class``, ``profiles``,
    ``groups`` and ``examples`` with the columns and validation aggregates of
    :func:`~aggframe.wide.long.long_grains`, so that
    :func:`~aggframe.tables.long.finish_long` checks and completes them.

    The cells, from one predicted class per example: per class ``tp`` and the
    predictions counted from the examples' best entries, the positives and
    rows from a group-by of the rows by class; per example ``tp`` = the best
    entry's truth, one prediction, ``fn = positives - tp``, and the rest of its
    entries true negatives (absent entries of a declared universe too).
    """
    native = cast("pl.LazyFrame", nw.to_native(lf))
    k = list(keys)
    rk = row_keys(k)
    C, S, Y = pl.col(class_), pl.col(score).cast(pl.Float64), pl.col(y).cast(pl.Float64)
    dtype = native.collect_schema()[class_]
    order = [S, C.cast(pl.String) if dtype == pl.Categorical else C]
    integer = dtype.is_integer() and dtype != pl.UInt64  # UInt64 classes may not fit the code
    distinct = distinct_classes(lf, class_, n_classes)
    bits = distinct.columns
    rows = cast("pl.LazyFrame", nw.to_native(distinct.rows(lf)))
    best: list[pl.Expr]
    if integer:
        # the class and its truth ride in one integer, so one arg-max finds both
        code = C.cast(pl.Int64) * 2 + Y.cast(pl.Int64)
        best = [code.sort_by(order, descending=[True, False]).first().alias("_code")]
    else:
        best = [
            C.sort_by(order, descending=[True, False]).first().alias("_pred"),
            Y.sort_by(order, descending=[True, False]).first().alias("_hit"),
        ]
    n_cls = [pl.col(b).sum() for b in bits] if bits else [C.n_unique().alias("n_cls")]
    per_example = rows.group_by([*rk, example]).agg(
        *best,
        pl.len().cast(pl.Float64).alias("rows"),
        Y.sum().alias("_pos"),
        *n_cls,
    )
    if integer:
        per_example = per_example.with_columns(
            (pl.col("_code") // 2).cast(dtype).alias("_pred"),
            (pl.col("_code") % 2).cast(pl.Float64).alias("_hit"),
        ).drop("_code")
    else:
        per_example = per_example.with_columns(pl.col("_hit").cast(pl.Float64))
    per_example = cast("pl.LazyFrame", nw.to_native(distinct.finish(nw.from_native(per_example))))
    hit, pos, n_rows = pl.col("_hit"), pl.col("_pos"), pl.col("rows")
    tn = n_rows - 1.0 - pos + hit
    if n_classes is not None:
        tn = tn + (float(n_classes) - n_rows)  # absent entries of a declared universe
    examples = per_example.with_columns(
        hit.alias("tp"), (1.0 - hit).alias("fp"), (pos - hit).alias("fn"), tn.alias("tn")
    ).cache()
    # per class: the rows, positives and validation aggregates of the rows, and the
    # predictions counted from the examples' best entries
    yv = pl.col(y).cast(pl.Float64)
    class_rows = native.group_by([*rk, class_]).agg(
        pl.len().cast(pl.Float64).alias("rows"),
        yv.sum().alias("_pos"),
        pl.col(example).null_count().alias("null_example"),
        yv.null_count().alias("null_y"),
        yv.min().alias("min_y"),
        yv.max().alias("max_y"),
        (yv - yv * yv).sum().alias("soft_y"),
    )
    predicted = examples.group_by([*rk, pl.col("_pred").alias(class_)]).agg(
        pl.len().cast(pl.Float64).alias("_npred"), hit.sum().alias("_tp")
    )
    on = [*rk, class_]
    per_class = class_rows.join(predicted, on=on, how="left", nulls_equal=True).with_columns(
        pl.col("_npred", "_tp").fill_null(0.0)
    )
    tp, npred, cpos = pl.col("_tp"), pl.col("_npred"), pl.col("_pos")
    per_class = per_class.select(
        *on,
        tp.alias("tp"),
        (npred - tp).alias("fp"),
        (cpos - tp).alias("fn"),
        (pl.col("rows") - npred - cpos + tp).alias("tn"),
        "rows",
        "null_example",
        "null_y",
        "min_y",
        "max_y",
        "soft_y",
        # the decisions are made here: one 0/1 prediction per entry
        pl.lit(0, dtype=pl.UInt32).alias("null_p"),
        pl.lit(0.0).alias("min_p"),
        pl.lit(1.0).alias("max_p"),
        pl.lit(0.0).alias("soft_p"),
    )
    checked = examples.with_columns((n_rows - pl.col("n_cls")).alias("_dup"))
    checked_nw = shared_small(
        keyed(
            nw.from_native(checked.group_by([*rk, *CELLS, "rows", "_dup"]).agg(pl.len().alias("n"))),
            k,
        )
    )
    profiles = checked_nw.group_by([*k, *CELLS]).agg(nw.col("n").sum())
    groups = checked_nw.group_by(k).agg(
        nw.col("n").sum().alias("n_examples"),
        nw.col("rows").min().alias("min_rows"),
        nw.col("rows").max().alias("max_rows"),
        (nw.col("_dup") * nw.col("n")).sum().alias("dup_entries"),
    )
    return {
        "class": keyed(nw.from_native(per_class), k),
        "profiles": profiles,
        "groups": groups,
        "examples": keyed(nw.from_native(examples.drop("_pred", "_hit", "_pos", "n_cls")), k),
    }
