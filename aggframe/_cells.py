"""The wide step: input frame -> raw cell grains, in one scan, with Narwhals.

This is the only module that touches the user's rows. It is written with the
Narwhals lazy API so the same code runs on every engine Narwhals drives (Polars
now; DuckDB and Spark through the same expressions). Everything it returns is
small: group-by sums keyed by the ``by`` columns plus class, plus cell profiles,
plus the counts the validation needs. The narrow steps (universe, sparse fill,
measures, operators) run in Polars on those small tables (``_grains.py``,
``_operators.py``).

The cells are defined here and nowhere else::

    TP = T(y, p) m    FP = T(1 - y, p) m    FN = T(y, 1 - p) m    TN = T(1 - y, 1 - p) m

with ``T`` the product (crisp data) or another t-norm, and ``m`` the observation
mask (1 when absent). On crisp data the four sums follow from three,
``sum(m y p)``, ``sum(m y)`` and ``sum(m p)``, plus ``sum(m)``, which is what the
aggregations compute then.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import narwhals as nw
import polars as pl

from aggframe._columns import CELLS, KEY_ALL
from aggframe._tnorms import TNorm

__all__ = [
    "CELLS",
    "KEY_ALL",
    "LabelRoles",
    "LongRoles",
    "block_grain",
    "label_grains",
    "label_row_cells",
    "long_grains",
]


@dataclass(frozen=True)
class LongRoles:
    """Column names of the long (indicator) form."""

    example: str = "example"
    class_: str = "class"
    y: str = "y"
    p: str = "p"
    mask: str | None = None


@dataclass(frozen=True)
class LabelRoles:
    """Column names of the label form (one row per example)."""

    y_true: str = "y_true"
    y_pred: str = "y_pred"
    example: str | None = None


def with_group_key(lf: nw.LazyFrame[Any], by: Sequence[str]) -> tuple[nw.LazyFrame[Any], list[str]]:
    """Add the stand-in key when there are no ``by`` columns."""
    if by:
        return lf, list(by)
    # the stand-in key is added after the aggregations (_keyed): grouping the rows by a
    # constant column as well would cost a second hash key on every row
    return lf, [KEY_ALL]


def _row_keys(keys: Sequence[str]) -> list[str]:
    return [k for k in keys if k != KEY_ALL]


def _keyed(lf: nw.LazyFrame[Any], keys: Sequence[str]) -> nw.LazyFrame[Any]:
    """Add the stand-in key to an aggregate when there are no by columns."""
    return lf.with_columns(nw.lit(0).alias(KEY_ALL)) if KEY_ALL in keys else lf


def shared(lf: nw.LazyFrame[Any]) -> nw.LazyFrame[Any]:
    """Mark a sub-plan read by several aggregations, so the engine computes it once.

    Polars' automatic common-subplan elimination does not see through the
    validation nodes, so the shared rows are cached explicitly (one scan of the
    input). Other engines get the plan unchanged.
    """
    native = nw.to_native(lf)
    if isinstance(native, pl.LazyFrame):
        return nw.from_native(native.cache())
    return lf


def shared_small(lf: nw.LazyFrame[Any]) -> nw.LazyFrame[Any]:
    """Mark a small aggregate that several grains read, so every engine computes it once.

    Polars caches it in the plan (:func:`shared`). DuckDB inlines a sub-plan into
    each reader and Spark plans each reader afresh (and may rewrite one reader's
    aggregations into its own), so there the aggregate is collected now, in its
    own engine query, and the grains that read it are finished in Polars: the
    per-example aggregation (a shuffle of every row on Spark) runs once, not once
    per grain.
    """
    if isinstance(nw.to_native(lf), pl.LazyFrame):
        return shared(lf)
    return nw.from_native(lf.collect(backend="polars").to_native().lazy())


#: bit words of the Polars duplicate check when the class count is not known
#: (classes c and c + 64 * words share a bit), and the most it uses
_WORDS, _MAX_WORDS = 2, 8
Frame = nw.LazyFrame[Any]


@dataclass(frozen=True)
class _DistinctCheck:
    """How the per-example aggregation gets ``n_cls`` (see :func:`_distinct_classes`)."""

    rows: Callable[[Frame], Frame]  # adds the row-level columns it aggregates
    aggs: list[nw.Expr]
    finish: Callable[[Frame], Frame]  # turns the aggregates into n_cls
    columns: list[str]  # the row-level columns it needs kept


def _distinct_classes(lf: Frame, column: str, n_classes: int | None = None) -> _DistinctCheck:
    """Per-example aggregations giving ``n_cls``: the distinct classes, or a lower bound.

    The duplicate check compares it with the example's row count. An exact
    distinct count per group is the costliest aggregation of the wide step on
    Polars (measured at 10^8 rows: 11.9 s and 2.25 GiB for the per-example
    group-by, against 3.4 s and 0.71 GiB without it). For integer class columns
    on Polars, each row sets bit ``c mod 64w`` of ``w`` 64-bit words (a gather
    from a ``64w``-entry table: an integer power costs about 8x more) and the
    words are summed, wrapping: a sum of distinct powers of two has as many
    one-bits as terms, and any repeat carries and loses one, so ``popcount``
    equals the number of distinct classes when no two classes of the example are
    ``64w`` apart, and is smaller otherwise. A shortfall is therefore a suspicion,
    not a verdict: the validation recounts exactly (``_check_long``) before it
    raises. ``w`` covers the declared class count (``n_classes``) when it is at
    most ``64 * 8``, is 2 when no count is declared, and with more classes than
    that the distinct count is exact from the start. Spark and DuckDB
    build the same bound from native functions (:func:`_spark_bit_words`,
    :func:`_duckdb_bit_words`); other engines, and non-integer classes, count
    distinct values.
    """
    spark = (nw.Implementation.PYSPARK, nw.Implementation.PYSPARK_CONNECT)
    if lf.implementation in spark and lf.collect_schema()[column].is_integer():
        return _spark_bit_words(lf, column)
    if lf.implementation is nw.Implementation.DUCKDB and lf.collect_schema()[column].is_integer():
        return _duckdb_bit_words(column)
    words = _WORDS if n_classes is None else max(1, -(-n_classes // 64))
    polars_ints = isinstance(nw.to_native(lf), pl.LazyFrame) and lf.collect_schema()[column].is_integer()
    if not polars_ints or words > _MAX_WORDS:
        return _DistinctCheck(
            rows=lambda frame: frame,
            aggs=[nw.col(column).n_unique().alias("n_cls")],
            finish=lambda frame: frame,
            columns=[],
        )
    bits = [f"_bits{w}" for w in range(words)]
    bit = (pl.col(column) % (64 * words)).cast(pl.Int64)  # floor modulo: any integer dtype and sign
    tables = [
        pl.Series([2 ** (i - lo) if lo <= i < lo + 64 else 0 for i in range(64 * words)], dtype=pl.UInt64)
        for lo in range(0, 64 * words, 64)
    ]

    def rows(frame: Frame) -> Frame:
        columns = [pl.lit(t).gather(bit).alias(name) for t, name in zip(tables, bits, strict=True)]
        return nw.from_native(nw.to_native(frame).with_columns(columns))

    def popcount(frame: Frame) -> Frame:
        ones = [pl.col(name).bitwise_count_ones().cast(pl.Int64) for name in bits]
        native = nw.to_native(frame).with_columns(pl.sum_horizontal(ones).alias("n_cls")).drop(bits)
        return nw.from_native(native)

    return _DistinctCheck(
        rows=rows, aggs=[nw.col(name).sum() for name in bits], finish=popcount, columns=bits
    )


_SPARK_BITS = ["_sbits0", "_sbits1"]


def _spark_bit_words(lf: Frame, column: str) -> _DistinctCheck:
    """Spark's ``n_cls`` lower bound: the bit words of the Polars check, from native functions.

    Spark plans a distinct count next to other aggregates by expanding every row
    and shuffling twice (measured at 10^7 rows on ``local[2]``: 17.7 s for the
    per-example aggregation, 3.6 s without the distinct count, 5.6 s with native
    bit words). Each row sets bit ``c mod 64`` of two 32-bit words (``shiftleft``),
    the words are summed as longs (below 2^63 for fewer than 2^32 rows per example,
    so ANSI mode cannot overflow) and ``bit_count`` gives the lower bound; as on
    Polars, a shortfall is recounted exactly before an error is raised.
    """
    if lf.implementation is nw.Implementation.PYSPARK_CONNECT:
        from pyspark.sql.connect import functions as F
    else:
        from pyspark.sql import functions as F  # type: ignore[no-redef]
    bit = F.pmod(F.col(column).cast("long"), F.lit(64))

    def rows(frame: Frame) -> Frame:
        words = [
            F.when(
                (bit >= 32 * w) & (bit < 32 * (w + 1)),
                F.call_function("shiftleft", F.lit(1).cast("long"), (bit - 32 * w).cast("int")),
            )
            .otherwise(F.lit(0).cast("long"))
            .alias(name)
            for w, name in enumerate(_SPARK_BITS)
        ]
        return nw.from_native(nw.to_native(frame).select("*", *words))

    def popcount(frame: Frame) -> Frame:
        ones = sum(
            (F.bit_count(F.col(name)).cast("long") for name in _SPARK_BITS[1:]),
            F.bit_count(F.col(_SPARK_BITS[0])).cast("long"),
        )
        native = nw.to_native(frame).withColumn("n_cls", ones).drop(*_SPARK_BITS)
        return nw.from_native(native)

    return _DistinctCheck(
        rows=rows, aggs=[nw.col(name).sum() for name in _SPARK_BITS], finish=popcount, columns=_SPARK_BITS
    )


_DUCKDB_BITS = ["_dbits0", "_dbits1"]


def _duckdb_bit_words(column: str) -> _DistinctCheck:
    """DuckDB's ``n_cls`` lower bound, from native functions as on Spark.

    DuckDB's distinct count per example is the costliest aggregation there too
    (measured at 10^7 rows: 2.5 s of the per-example aggregation's 3.0 s).
    """
    import duckdb

    col = '"' + column.replace('"', '""') + '"'
    bit = f"((CAST({col} % 64 AS INTEGER) + 64) % 64)"  # any integer type, negative too

    def rows(frame: Frame) -> Frame:
        words = [
            duckdb.SQLExpression(
                f"CASE WHEN {bit} >= {32 * w} AND {bit} < {32 * (w + 1)} "
                f"THEN (CAST(1 AS BIGINT) << CAST({bit} - {32 * w} AS INTEGER)) ELSE CAST(0 AS BIGINT) END"
            ).alias(name)
            for w, name in enumerate(_DUCKDB_BITS)
        ]
        return nw.from_native(nw.to_native(frame).select(duckdb.StarExpression(), *words))

    def popcount(frame: Frame) -> Frame:
        ones = " + ".join(f'CAST(bit_count(CAST("{name}" AS BIGINT)) AS BIGINT)' for name in _DUCKDB_BITS)
        native = nw.to_native(frame).select(
            duckdb.StarExpression(exclude=_DUCKDB_BITS), duckdb.SQLExpression(ones).alias("n_cls")
        )
        return nw.from_native(native)

    return _DistinctCheck(
        rows=rows, aggs=[nw.col(name).sum() for name in _DUCKDB_BITS], finish=popcount, columns=_DUCKDB_BITS
    )


def long_grains(
    lf: nw.LazyFrame[Any],
    roles: LongRoles,
    keys: Sequence[str],
    *,
    tnorm: TNorm | None,
    n_classes: int | dict[Any, int] | None,
    target: str | None = None,
    examples: pl.LazyFrame | None = None,
) -> dict[str, nw.LazyFrame[Any]]:
    """Raw grains of the long form.

    Returns lazy frames:

    ``class``
        keys, class, tp, fp, fn, tn, rows (entries present), plus the validation
        aggregates: null_<role> (counts), min_<role>, max_<role>, soft_<role>
        (sum of x - x^2) for the roles y, p and mask, and null_example.
    ``profiles``
        keys, tp, fp, fn, tn, n: how many examples have each per-example cell
        profile (the exemplar operator's sufficient statistic). When
        ``n_classes`` is known, absent entries are filled in as true negatives.
    ``groups``
        keys, n_examples, min_rows, max_rows, dup_entries (and with ``examples``,
        the declared examples (keys, example) of a Polars source: ``undeclared``,
        how many examples with rows are not among them).
    """
    k = list(keys)
    rk = _row_keys(k)
    # The per-class and the per-example aggregations each read the input (two reads,
    # never a buffer): a shared sub-plan whose consumers run at different speeds is
    # buffered by Polars' streaming engine, and that buffer grows with the input
    # (measured at 10^8 rows: 1.99 GiB cached against 1.40 GiB read twice). The
    # per-example hash table is the only state that grows, with the number of examples.
    used = [*rk, roles.example, roles.class_, roles.y, roles.p, *([roles.mask] if roles.mask else [])]
    lf = lf.select(*dict.fromkeys(used))
    declared = max(n_classes.values(), default=None) if isinstance(n_classes, dict) else n_classes
    distinct = _distinct_classes(lf, roles.class_, declared)
    lf = distinct.rows(lf)
    y = nw.col(roles.y).cast(nw.Float64)
    p = nw.col(roles.p).cast(nw.Float64)
    m = nw.col(roles.mask).cast(nw.Float64) if roles.mask else None
    # Validation rides on the per-class aggregation as cheap aggregates (null counts,
    # min, max, and the sum of x - x^2, which is 0 exactly when every value is 0 or 1
    # and NaN when one is NaN); the counts of offending rows for the error messages
    # are taken from the source only when a check fails (_grains._check_long).
    validated = {"y": y, "p": p, **({"mask": m} if m is not None else {})}
    check_rows = [e for r, x in validated.items() for e in (x.alias(f"_v_{r}"), (x - x * x).alias(f"_q_{r}"))]
    check_aggs = [nw.col(roles.example).null_count().alias("null_example")] + [
        e
        for r in validated
        for e in (
            nw.col(f"_v_{r}").null_count().alias(f"null_{r}"),
            nw.col(f"_v_{r}").min().alias(f"min_{r}"),
            nw.col(f"_v_{r}").max().alias(f"max_{r}"),
            nw.col(f"_q_{r}").sum().alias(f"soft_{r}"),
        )
    ]
    if tnorm is None:
        # Crisp (soft values are rejected by validation): three weighted sums give all
        # four cells, exactly. Soft values take the general path even under the
        # product, where the subtractions would leave rounding residue (1e-17
        # instead of 0, which a square root turns into 1e-9).
        w = m if m is not None else nw.lit(1.0)
        rows = lf.select(
            *rk,
            nw.col(roles.example),
            nw.col(roles.class_),
            *[nw.col(c) for c in distinct.columns],
            (w * y * p).alias("_syp"),
            (w * y).alias("_sy"),
            (w * p).alias("_sp"),
            *([w.alias("_sw")] if m is not None else []),
            *check_rows,
        )
        # without a mask the weight total is the row count, which the group-bys count anyway
        total = nw.col("_sw").sum() if m is not None else nw.len().cast(nw.Float64).alias("_sw")
        sums = [*(nw.col(c).sum() for c in ("_syp", "_sy", "_sp")), total]

        def cells(frame: nw.LazyFrame[Any]) -> nw.LazyFrame[Any]:
            return frame.with_columns(
                nw.col("_syp").alias("tp"),
                (nw.col("_sp") - nw.col("_syp")).alias("fp"),
                (nw.col("_sy") - nw.col("_syp")).alias("fn"),
                (nw.col("_sw") - nw.col("_sy") - nw.col("_sp") + nw.col("_syp")).alias("tn"),
            ).drop("_syp", "_sy", "_sp", "_sw")

    else:
        w = m if m is not None else nw.lit(1.0)
        one_y, one_p = 1.0 - y, 1.0 - p
        rows = lf.select(
            *rk,
            nw.col(roles.example),
            nw.col(roles.class_),
            *[nw.col(c) for c in distinct.columns],
            (tnorm(y, p) * w).alias("tp"),
            (tnorm(one_y, p) * w).alias("fp"),
            (tnorm(y, one_p) * w).alias("fn"),
            (tnorm(one_y, one_p) * w).alias("tn"),
            *check_rows,
        )
        sums = [nw.col(c).sum() for c in CELLS]

        def cells(frame: nw.LazyFrame[Any]) -> nw.LazyFrame[Any]:
            return frame

    per_class = _keyed(
        cells(rows.group_by([*rk, roles.class_]).agg(*sums, nw.len().alias("rows"), *check_aggs)), k
    )
    per_example = _keyed(
        cells(
            rows.group_by([*rk, roles.example]).agg(
                *sums,
                nw.len().alias("rows"),
                *distinct.aggs,
            )
        ),
        k,
    )
    per_example = distinct.finish(per_example)
    if isinstance(n_classes, dict):
        # one universe per target: m_t classes for the rows of target t
        m_t: Any = nw.lit(None)
        assert target is not None
        for t, size in n_classes.items():
            m_t = nw.when(nw.col(target) == t).then(nw.lit(size)).otherwise(m_t)
        per_example = per_example.with_columns((nw.col("tn") + (m_t - nw.col("rows"))).alias("tn"))
    elif n_classes is not None:
        # Absent (example, class) entries are observed true negatives.
        per_example = per_example.with_columns(
            (nw.col("tn") + (nw.lit(n_classes) - nw.col("rows"))).alias("tn")
        )
    # The validation's per-group counts come from the profiles (keyed by the row count
    # and the duplicate count as well), so the per-example table has one consumer.
    checked = per_example.with_columns((nw.col("rows") - nw.col("n_cls")).alias("_dup"))
    flags = ["_dup"]
    if examples is not None:
        # each example with rows is looked up among the declared ones (one join per
        # example, not per row, on the per-example table's one consumer)
        known = examples.select(*rk, roles.example).with_columns(
            pl.lit(0, dtype=pl.Int64).alias("_undeclared")
        )
        native = nw.to_native(checked).join(known, on=[*rk, roles.example], how="left", nulls_equal=True)
        checked = nw.from_native(native.with_columns(pl.col("_undeclared").fill_null(1)))
        flags.append("_undeclared")
    checked = shared_small(checked.group_by([*k, *CELLS, "rows", *flags]).agg(nw.len().alias("n")))
    profiles = checked.group_by([*k, *CELLS]).agg(nw.col("n").sum())
    groups = checked.group_by(k).agg(
        nw.col("n").sum().alias("n_examples"),
        nw.col("rows").min().alias("min_rows"),
        nw.col("rows").max().alias("max_rows"),
        *[(nw.col(f) * nw.col("n")).sum().alias(name) for f, name in zip(flags, _FLAG_NAMES, strict=False)],
    )
    return {"class": per_class, "profiles": profiles, "groups": groups, "examples": per_example}


_FLAG_NAMES = ("dup_entries", "undeclared")


def label_grains(
    lf: nw.LazyFrame[Any], roles: LabelRoles, keys: Sequence[str]
) -> dict[str, nw.LazyFrame[Any]]:
    """Raw grains of the label form: the confusion counts per group.

    ``conf`` (keys, y_true, y_pred, n) holds everything: per class tp, #true and
    #pred, and per example only whether it is right. No n x m expansion. With an
    example column, ``examples`` (keys, n_examples, dup_examples, null_example)
    checks that each example appears once per group.
    """
    k = list(keys)
    rk = _row_keys(k)
    if roles.example is not None:
        lf = shared(lf.select(*rk, roles.y_true, roles.y_pred, roles.example))
    out: dict[str, nw.LazyFrame[Any]] = {
        "conf": _keyed(lf.group_by([*rk, roles.y_true, roles.y_pred]).agg(nw.len().alias("n")), k)
    }
    if roles.example is not None:
        out["rows"] = _keyed(lf, k)
        ex = _keyed(lf.group_by([*rk, roles.example]).agg(nw.len().alias("_n")), k)
        out["examples"] = ex.group_by(k).agg(
            nw.len().alias("n_ids"),
            (nw.col("_n") - 1).sum().alias("dup_examples"),
            nw.when(nw.col(roles.example).is_null())
            .then(nw.col("_n"))
            .otherwise(0)
            .sum()
            .alias("null_example"),
        )
    return out


def label_row_cells(
    lf: nw.LazyFrame[Any], y_true: str, y_pred: str, *, task: str, pos_label: Any
) -> nw.LazyFrame[Any]:
    """Each row's cells in the label form (one row = one example), as columns tp, fp, fn, tn.

    ``task="binary"``: the positive class only, one indicator per cell. Otherwise
    one-hot over the ``m`` classes of the row's universe: tp = right, fp = fn =
    1 - right and tn = m - 2 + right, of which ``tn`` holds ``right - 2``: ``m``
    depends on the class universe, resolved later on the small tables, and the
    caller adds it (per row, or once per group to a sum over rows).
    """
    if task == "binary":
        t_pos, p_pos = nw.col(y_true) == nw.lit(pos_label), nw.col(y_pred) == nw.lit(pos_label)
        cells = (t_pos & p_pos, ~t_pos & p_pos, t_pos & ~p_pos, ~t_pos & ~p_pos)
        return lf.with_columns(*[c.cast(nw.Float64).alias(n) for c, n in zip(cells, CELLS, strict=True)])
    right = (nw.col(y_true) == nw.col(y_pred)).cast(nw.Float64)
    return lf.with_columns(
        right.alias("tp"), (1.0 - right).alias("fp"), (1.0 - right).alias("fn"), (right - 2.0).alias("tn")
    )


def block_grain(
    per_row: nw.LazyFrame[Any], keys: Sequence[str], example: str
) -> tuple[nw.LazyFrame[Any], nw.LazyFrame[Any]]:
    """Per-example cells summed over the targets (the block matrix), reduced to profiles here.

    ``per_row`` holds one row per (keys..., target, example) with its cells;
    ``keys`` are the block keys (without the target). Returns the profiles
    (keys, tp, fp, fn, tn, ``_n_targets``: how many targets the examples have a
    row in, n) and the per-example sums, read only for an error message. Whether
    an example lacks a target is decided on the small profiles, against the
    group's number of targets (no join on the keys here: engines other than
    Polars cannot join null keys as equal). Per-example values never leave the engine.
    """
    k = list(keys)
    summed = per_row.group_by([*k, example]).agg(
        *[nw.col(c).cast(nw.Float64).sum() for c in CELLS], nw.len().alias("_n_targets")
    )
    profiles = summed.group_by([*k, *CELLS, "_n_targets"]).agg(nw.len().alias("n"))
    return profiles, summed
