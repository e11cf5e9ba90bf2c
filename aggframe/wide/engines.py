"""Engine-specific pieces of the wide step, kept apart from the Narwhals code.

The wide step (:mod:`~aggframe.wide.long`, :mod:`~aggframe.wide.labels`) is
written once with Narwhals; what one engine does better natively lives here:
the distinct-class bound of the duplicate check (bit words from a Polars table
lookup, which can carry the flag of refused values, Spark ``shiftleft``, DuckDB SQL), marking a sub-plan shared, handing the
small grains to Polars in one engine query, and the declared-examples lookup
(a Polars join that matches null keys).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import narwhals as nw
import polars as pl

from aggframe._columns import PREFIX
from aggframe.exceptions import InvalidValueError

__all__ = [
    "DistinctCheck",
    "Frame",
    "collect_polars",
    "distinct_classes",
    "engine_of",
    "lookup_declared",
    "shared",
    "shared_small",
    "to_polars",
    "to_polars_all",
]


def engine_of(frame: Any) -> nw.Implementation:
    """The engine a Narwhals frame runs on (typed as such, whatever the frame's backend parameter)."""
    return cast("nw.Implementation", frame.implementation)


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
    return nw.from_native(collect_polars(lf).lazy())


#: bits of the Polars duplicate check when the class count is not known (classes c and c + 128
#: share a bit), and the most it uses (four words of 128 bits)
_BITS, _MAX_BITS = 128, 512


Frame = nw.LazyFrame[Any]


@dataclass(frozen=True)
class DistinctCheck:
    """How the per-example aggregation gets ``n_cls`` (see :func:`distinct_classes`).

    ``fold``, when set, can take the place of ``rows``: it adds the bit words to a
    frame, given a Polars expression that accepts a row (true; false or null refuse
    it) and the columns to drop after, and a refused row sets no bit, so its
    example's ``n_cls`` falls short of its rows: the duplicate check's suspicion then
    stands for the flag of refused values as well, which needs no aggregate of its own.
    """

    rows: Callable[[Frame], Frame]  # adds the row-level columns it aggregates
    aggs: list[nw.Expr]
    finish: Callable[[Frame], Frame]  # turns the aggregates into n_cls
    columns: list[str]  # the row-level columns it needs kept
    fold: Callable[[Frame, pl.Expr, Sequence[str]], Frame] | None = None


def distinct_classes(
    lf: Frame, column: str, n_classes: int | None = None, value_range: tuple[int, int] | None = None
) -> DistinctCheck:
    """Per-example aggregations giving ``n_cls``: the distinct classes, or a count short of the rows.

    The duplicate check compares it with the example's row count. An exact
    distinct count per group is the costliest aggregation of the wide step on
    Polars (measured at 10^8 rows: 11.9 s and 2.25 GiB for the per-example
    group-by, against 3.4 s and 0.71 GiB without it). For integer class columns
    on Polars, each row sets bit ``c mod b`` of a ``b``-bit set held in words (one
    ``UInt64`` for ``b = 64``, else ``UInt128`` words: one sum where two 64-bit
    words took two, benchmarks/NOTES_scan.md), a gather from a ``b``-entry table
    (an integer power costs about 8x more), and the words are summed, wrapping: a
    sum of distinct powers of two has as many one-bits as terms, and a sum of k
    powers of two with a repeat has fewer than k (a carry; a wrap only loses bits),
    so ``popcount`` equals the example's rows when its classes are distinct and no
    two of them are ``b`` apart, and falls short of them otherwise. A shortfall is therefore a suspicion, not a verdict: the validation recounts
    exactly (``_check_groups``) before it raises. ``b`` covers the declared class
    count (``n_classes``) when it is at most 512, is 128 when no count is declared,
    and with more classes than that the distinct count is exact from the start,
    over the classes cast to the narrowest integer type holding the declared
    classes (``value_range``): the per-example sets of Polars' distinct count are
    most of the per-example aggregation's memory (5M rows, 1.5M examples, 10^4
    classes: 0.66 GiB as Int64, 0.56 as UInt16). A class outside that type becomes
    null (a non-strict cast), which can only lower the count (a suspicion,
    recounted exactly) and is outside the declared universe, which the validation
    refuses anyway. The bit words can also carry the flag of refused values
    (:attr:`DistinctCheck.fold`). Spark and DuckDB build the same bound from native
    functions (:func:`_spark_bit_words`, :func:`_duckdb_bit_words`); other engines,
    and non-integer classes, count distinct values.
    """
    spark = (nw.Implementation.PYSPARK, nw.Implementation.PYSPARK_CONNECT)
    if engine_of(lf) in spark and lf.collect_schema()[column].is_integer():
        return _spark_bit_words(lf, column)
    if engine_of(lf) is nw.Implementation.DUCKDB and lf.collect_schema()[column].is_integer():
        return _duckdb_bit_words(column)
    n_bits = _BITS if n_classes is None else 64 if n_classes <= 64 else -(-n_classes // 128) * 128
    polars_ints = isinstance(nw.to_native(lf), pl.LazyFrame) and lf.collect_schema()[column].is_integer()
    if polars_ints and n_bits <= _MAX_BITS:
        return _polars_bit_words(column, n_bits)
    narrow = _narrowest(value_range) if polars_ints else None
    if narrow is None:
        return DistinctCheck(
            rows=lambda frame: frame,
            aggs=[nw.col(column).n_unique().alias("n_cls")],
            finish=lambda frame: frame,
            columns=[],
        )

    def narrowed(frame: Frame) -> Frame:
        native = nw.to_native(frame).with_columns(pl.col(column).cast(narrow, strict=False).alias(_NARROWED))
        return cast("nw.LazyFrame[Any]", nw.from_native(native))

    return DistinctCheck(
        rows=narrowed,
        aggs=[nw.col(_NARROWED).n_unique().alias("n_cls")],
        finish=lambda frame: frame,
        columns=[_NARROWED],
    )


def _polars_bit_words(column: str, n_bits: int) -> DistinctCheck:
    """The Polars bit set of :func:`distinct_classes`: ``n_bits`` bits (64, or a multiple of 128)."""
    width = 64 if n_bits == 64 else 128
    dtype = pl.UInt64() if width == 64 else pl.UInt128()
    bits = [f"_bits{w}" for w in range(n_bits // width)]
    bit = (pl.col(column) % n_bits).cast(pl.Int64)  # floor modulo: any integer dtype and sign
    tables = [
        pl.Series([2 ** (i - lo) if lo <= i < lo + width else 0 for i in range(n_bits)], dtype=dtype)
        for lo in range(0, n_bits, width)
    ]

    def words(index: pl.Expr) -> list[pl.Expr]:
        return [pl.lit(t).gather(index).alias(name) for t, name in zip(tables, bits, strict=True)]

    def rows(frame: Frame) -> Frame:
        return cast("nw.LazyFrame[Any]", nw.from_native(nw.to_native(frame).with_columns(words(bit))))

    def fold(frame: Frame, accepted: pl.Expr, drop: Sequence[str]) -> Frame:
        # a refused row gathers at a null index: a null word, which the sums skip
        native = nw.to_native(frame).with_columns(words(pl.when(accepted).then(bit))).drop(drop)
        return cast("nw.LazyFrame[Any]", nw.from_native(native))

    def popcount(frame: Frame) -> Frame:
        ones = [pl.col(name).bitwise_count_ones().cast(pl.Int64) for name in bits]
        native = nw.to_native(frame).with_columns(pl.sum_horizontal(ones).alias("n_cls")).drop(bits)
        return cast("nw.LazyFrame[Any]", nw.from_native(native))

    return DistinctCheck(
        rows=rows, aggs=[nw.col(name).sum() for name in bits], finish=popcount, columns=bits, fold=fold
    )


#: the class column narrowed for the exact distinct count
_NARROWED = "_ncls"
#: the integer dtypes the exact distinct count narrows classes to, with their ranges
_NARROW = (
    (pl.UInt16(), 0, 2**16 - 1),
    (pl.Int16(), -(2**15), 2**15 - 1),
    (pl.UInt32(), 0, 2**32 - 1),
    (pl.Int32(), -(2**31), 2**31 - 1),
)


def _narrowest(value_range: tuple[int, int] | None) -> pl.DataType | None:
    """The narrowest integer dtype of 16 or 32 bits holding ``value_range`` (None: none, or not known)."""
    if value_range is None:
        return None
    lo, hi = value_range
    return next((dtype for dtype, least, most in _NARROW if least <= lo and hi <= most), None)


_SPARK_BITS = ["_sbits0", "_sbits1"]


def _spark_bit_words(lf: Frame, column: str) -> DistinctCheck:
    """Spark's ``n_cls`` lower bound: the bit words of the Polars check, from native functions.

    Spark plans a distinct count next to other aggregates by expanding every row
    and shuffling twice (measured at 10^7 rows on ``local[2]``: 17.7 s for the
    per-example aggregation, 3.6 s without the distinct count, 5.6 s with native
    bit words). Each row sets bit ``c mod 64`` of two 32-bit words (``shiftleft``),
    the words are summed as longs (below 2^63 for fewer than 2^32 rows per example,
    so ANSI mode cannot overflow) and ``bit_count`` gives the lower bound; as on
    Polars, a shortfall is recounted exactly before an error is raised.
    """
    if engine_of(lf) is nw.Implementation.PYSPARK_CONNECT:
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
        return cast("nw.LazyFrame[Any]", nw.from_native(nw.to_native(frame).select("*", *words)))

    def popcount(frame: Frame) -> Frame:
        ones = sum(
            (F.bit_count(F.col(name)).cast("long") for name in _SPARK_BITS[1:]),
            F.bit_count(F.col(_SPARK_BITS[0])).cast("long"),
        )
        native = nw.to_native(frame).withColumn("n_cls", ones).drop(*_SPARK_BITS)
        return cast("nw.LazyFrame[Any]", nw.from_native(native))

    return DistinctCheck(
        rows=rows, aggs=[nw.col(name).sum() for name in _SPARK_BITS], finish=popcount, columns=_SPARK_BITS
    )


_DUCKDB_BITS = ["_dbits0", "_dbits1"]


def _duckdb_bit_words(column: str) -> DistinctCheck:
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
        return cast(
            "nw.LazyFrame[Any]", nw.from_native(nw.to_native(frame).select(duckdb.StarExpression(), *words))
        )

    def popcount(frame: Frame) -> Frame:
        ones = " + ".join(f'CAST(bit_count(CAST("{name}" AS BIGINT)) AS BIGINT)' for name in _DUCKDB_BITS)
        native = nw.to_native(frame).select(
            duckdb.StarExpression(exclude=_DUCKDB_BITS), duckdb.SQLExpression(ones).alias("n_cls")
        )
        return cast("nw.LazyFrame[Any]", nw.from_native(native))

    return DistinctCheck(
        rows=rows, aggs=[nw.col(name).sum() for name in _DUCKDB_BITS], finish=popcount, columns=_DUCKDB_BITS
    )


def to_polars(lf: nw.LazyFrame[Any]) -> pl.LazyFrame:
    """Hand a Narwhals lazy frame to Polars (only small grains cross)."""
    native = nw.to_native(lf)
    if isinstance(native, pl.LazyFrame):
        return native
    return collect_polars(lf).lazy()


def collect_polars(lf: nw.LazyFrame[Any]) -> pl.DataFrame:
    """Collect another engine's frame into Polars, its Enum columns Enums again (:func:`_enums`)."""
    return _with_enums(lf.collect(backend="polars").to_native(), _enums(lf))


def _enums(lf: nw.LazyFrame[Any], schema: nw.Schema | None = None) -> dict[str, pl.Enum]:
    """The Enum columns of a DuckDB frame (``schema``: its schema, when read already): an ``ENUM``
    crosses Arrow as a dictionary, which Polars reads as ``Categorical`` (no declared order: keys
    and classes came out in text order, where a Polars ``Enum`` keeps its own). Spark has no Enum
    type, and its schema may cost a round trip."""
    if engine_of(lf) is not nw.Implementation.DUCKDB:
        return {}
    return {
        name: pl.Enum([str(c) for c in dtype.categories])
        for name, dtype in (schema if schema is not None else lf.collect_schema()).items()
        if isinstance(dtype, nw.Enum)
    }


def _with_enums(df: pl.DataFrame, enums: dict[str, pl.Enum]) -> pl.DataFrame:
    """``df`` with the columns of ``enums`` cast to them (their values are the categories' own)."""
    if not enums:
        return df
    return df.with_columns(pl.col(name).cast(pl.String).cast(enum) for name, enum in enums.items())


#: Column tagging each grain's rows in the one engine query of :func:`to_polars_all`.
_GRAIN = f"{PREFIX}grain"


def to_polars_all(frames: Sequence[nw.LazyFrame[Any]]) -> list[pl.LazyFrame]:
    """Hand several grains of one source to Polars in one engine query.

    Polars frames pass through lazily (they are collected together later). The
    grains of another engine (DuckDB, Spark) are stacked into one query, a
    diagonal union tagged by grain, with each grain's columns renamed apart so
    their dtypes never meet, and split again in Polars: one Spark job (and one
    Spark Connect round trip) for all of them instead of one per grain.
    """
    remote = [i for i, f in enumerate(frames) if not isinstance(nw.to_native(f), pl.LazyFrame)]
    if len(remote) <= 1:
        return [to_polars(f) for f in frames]
    schemas = {i: frames[i].collect_schema() for i in remote}
    names = {i: schema.names() for i, schema in schemas.items()}
    tagged = [
        frames[i].select(nw.lit(i).alias(_GRAIN), *[nw.col(c).alias(f"_g{i}_{c}") for c in names[i]])
        for i in remote
    ]
    stacked = nw.concat(tagged, how="diagonal").collect(backend="polars").to_native()
    return [
        _with_enums(
            stacked.filter(pl.col(_GRAIN) == i).select(pl.col(f"_g{i}_{c}").alias(c) for c in names[i]),
            _enums(f, schemas[i]),
        ).lazy()
        if i in names
        else to_polars(f)
        for i, f in enumerate(frames)
    ]


def lookup_declared(
    frame: Frame, declared: pl.LazyFrame, keys: Sequence[str], example: str, flag: str
) -> Frame:
    """Flag each example of a per-example table that is not among the declared (1) or is (0).

    A Polars join that matches null keys (Narwhals joins cannot), so declared
    examples need a Polars source.
    """
    known = declared.select(*keys, example).with_columns(pl.lit(0, dtype=pl.Int64).alias(flag))
    native = nw.to_native(frame).join(known, on=[*keys, example], how="left", nulls_equal=True)
    return cast("nw.LazyFrame[Any]", nw.from_native(native.with_columns(pl.col(flag).fill_null(1))))


def _refuse_case_twins(native: Any, columns: Sequence[str], used: Any) -> None:
    """Spark resolves names case-insensitively (unless ``spark.sql.caseSensitive``): a column read
    next to another that differs only in case was Spark's AMBIGUOUS_REFERENCE, worded as a source
    that could not be read. Refused by name."""
    try:
        sensitive = str(native.sparkSession.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"
    except Exception:  # a session that cannot say: Spark's default
        sensitive = False
    if sensitive:
        return
    for name in used:
        twins = [c for c in columns if c != name and c.lower() == name.lower()]
        if twins:
            msg = (
                f"the frame has columns {name!r} and {twins[0]!r}, which Spark reads as one name "
                "(spark.sql.caseSensitive is false); rename one of them first, or set "
                "spark.sql.caseSensitive=true"
            )
            raise InvalidValueError(msg)


#: Spark types that cannot be a group key (``VARIANT``) or cross to Polars through Arrow (the
#: calendar and year-month intervals); Narwhals names none of them (``Unknown``)
_SPARK_UNUSABLE = ("VariantType", "CalendarIntervalType", "YearMonthIntervalType")


def _refuse_unusable_types(native: Any, schema: Any, used: Any) -> None:
    """A Spark column of a type in :data:`_SPARK_UNUSABLE`: Spark's error named the private column
    (``__af_by0``), as a source that could not be read. Refused by name, with Spark's type."""
    for name in dict.fromkeys(used):
        if not isinstance(schema[name], nw.Unknown):
            continue
        dtype = native.schema[name].dataType
        if type(dtype).__name__ in _SPARK_UNUSABLE:
            msg = (
                f"column {name!r} has the Spark type {dtype.simpleString()!r}, which cannot be grouped "
                "by or read into Polars; cast it first (e.g. to a string)"
            )
            raise InvalidValueError(msg)


def project_columns(frame: Frame, names: dict[str, str]) -> Frame:
    """``select`` of the user's columns under private names: ``{private: user}``, any user name.

    A user's name is never read as a pattern or a qualified name: Polars picks
    each column by position (``nth``: ``*`` and ``^x$`` stay names), DuckDB by
    position too (``#n``: it matches names case-insensitively), Spark by a quoted
    identifier (`` `...` ``; a column that differs from a read one only in case is
    refused unless ``spark.sql.caseSensitive``, and so is a column of a type Spark cannot
    group by or hand to Polars), other engines by Narwhals' ``nth``.
    """
    schema = frame.collect_schema()
    columns = list(schema.names())
    native = nw.to_native(frame)
    if isinstance(native, pl.LazyFrame):
        position = {c: i for i, c in enumerate(columns)}
        return nw.from_native(native.select(pl.nth(position[u]).alias(p) for p, u in names.items()))
    if engine_of(frame) is nw.Implementation.DUCKDB:
        import duckdb

        # by position (``#n``): DuckDB matches even a quoted name case-insensitively, so "y_true"
        # read a column "Y_true" before it (another column's values, silently)
        position = {c: i for i, c in enumerate(columns)}
        chosen = [duckdb.SQLExpression(f"#{position[u] + 1}").alias(p) for p, u in names.items()]
        return cast("Frame", nw.from_native(native.select(*chosen)))
    if engine_of(frame) in (nw.Implementation.PYSPARK, nw.Implementation.PYSPARK_CONNECT):
        if engine_of(frame) is nw.Implementation.PYSPARK_CONNECT:
            from pyspark.sql.connect import functions as F
        else:
            from pyspark.sql import functions as F  # type: ignore[no-redef]
        _refuse_case_twins(native, columns, names.values())
        _refuse_unusable_types(native, schema, names.values())
        quoted_cols = [F.col("`" + u.replace("`", "``") + "`").alias(p) for p, u in names.items()]
        return cast("Frame", nw.from_native(native.select(*quoted_cols)))
    position = {c: i for i, c in enumerate(columns)}
    return frame.select(*[nw.nth(position[u]).alias(p) for p, u in names.items()])
