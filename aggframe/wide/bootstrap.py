"""Poisson bootstrap weights in the plan: a seeded hash of (seed, replicate, unit id), on every engine.

Each resampling unit (an example; a cluster with ``cluster=``) gets in replicate
``b`` the weight ``w_b = F^-1(u_b / 2^32)`` of a Poisson(1) variable, with
``u_b`` a 32-bit integer hashed from (seed, b, unit id). The weights are a
function of the unit's id alone: the same on every engine, whatever the row
order or partitioning, and the same for the unit wherever it appears (two models
scored on the same examples, the folds of repeated cross-validation, several
targets), which is what pairs a comparison. A weighted sum over a unit's rows is
then a cell of replicate ``b`` (:mod:`aggframe.tables.bootstrap`).

The hash, in integer arithmetic that every engine computes alike (``+``, ``*``,
floor division and modulo by positive constants, on non-negative 64-bit integers
that never reach 2^63, so no engine overflows and ANSI Spark never raises;
Narwhals gives ``//`` and ``%`` Python's floored meaning on every engine)::

    mix(h)  = A(Q(M(A(Q(M(A(h)))))))       h in [0, 2^32)
    A(h)    = (h + h // 2^16) mod 2^32     (an invertible add-shift: high bits reach low ones)
    M(h)    = (h * 73244475) mod 2^32
    Q(h)    = (h + 2 h^2) mod 2^32         (a permutation (Rivest 1999), and the nonlinear step;
                                            h^2 mod 2^32 from 16-bit halves: no product reaches 2^49)
    words   integer id x: lo = x mod 2^32, hi = (x - lo) // 2^32 + 2^31
            string id (UTF-8 bytes c_0 .. c_{L-1}):  lo, hi = sum_i mix(c_i + 256 i + s_j) mod 2^32, j = 1, 2
            a null id: lo = hi = 0 and null = 1 (a unit of its own)
    base    h = mix(lo + s_1); h = mix(h + hi + s_2); h = mix(h + null * s_4 + s_3)   (all mod 2^32)
    u_b     (h * K_b + C_b) mod 2^32        K_b odd in [2^30, 2^31), C_b < 2^32
    w_b     #{k : u_b >= T_k},  T_k = round(2^32 P(Poisson(1) <= k - 1)),  k = 1 .. 12

Without ``Q`` the add-shift and multiply steps are nearly linear over the
integers (consecutive ids then got weights correlated at -0.43 in the first
version; ``tests/operators/test_bootstrap.py`` checks neighbours, replicates and
frequencies). ``s_j``, ``K_b`` and ``C_b`` come from splitmix64 of the seed (and ``b``) in
Python (:func:`replicate_constants`). :func:`reference_weights` is the same
computation in plain Python, the oracle of the tests. A null id is a unit of its
own (the null flag). The base hash is computed once per row; each replicate then
costs one multiply-add, a modulo and the threshold comparisons.

Strings are hashed from their UTF-8 bytes by each engine's own functions (Polars
``str.encode("hex")`` and list evaluation, DuckDB and Spark ``hex`` with list
lambdas); integer, boolean and string (categorical, enum) ids are supported on
Polars, DuckDB and Spark, integer and boolean ids on any Narwhals engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal, localcontext
from typing import Any, cast

import narwhals as nw
import polars as pl

from aggframe._options import Bootstrap
from aggframe.exceptions import OptionError
from aggframe.wide.engines import Frame, engine_of

__all__ = [
    "THRESHOLDS",
    "poisson",
    "reference_weights",
    "replicate_constants",
    "unit_hash",
    "weight_columns",
]

_M = 2**32
_MUL = 73244475  # 0x45d9f3b: h * _MUL < 2^59
_MASK64 = 2**64 - 1


def _thresholds() -> tuple[int, ...]:
    """``round(2^32 P(X <= k - 1))`` for X ~ Poisson(1), every one below 2^32 (k = 1 .. 12)."""
    out: list[int] = []
    with localcontext() as ctx:
        ctx.prec = 60
        cdf, term, k = Decimal(0), Decimal(-1).exp(), 0
        while True:
            cdf += term
            k += 1
            term /= k
            t = int((cdf * _M).to_integral_value())
            if t >= _M:
                return tuple(out)
            out.append(t)


#: The Poisson(1) inverse-CDF thresholds on 32-bit integers (weights 0 .. 12).
THRESHOLDS: tuple[int, ...] = _thresholds()


def _splitmix64(x: int) -> int:
    z = (x + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _seed_words(seed: int) -> tuple[int, int, int, int]:
    """``s_1 .. s_4`` of the base hash: 32-bit words of the seed."""
    z = _splitmix64(seed & _MASK64)
    y = _splitmix64(z ^ 0x5EED)
    return z & (_M - 1), z >> 32, y & (_M - 1), (y >> 32) | 1


def replicate_constants(seed: int, n_boot: int) -> list[tuple[int, int]]:
    """``(K_b, C_b)`` of each replicate: an odd multiplier in [2^30, 2^31) and an offset below 2^32."""
    out = []
    for b in range(n_boot):
        z = _splitmix64(((seed & _MASK64) * 0x9E3779B97F4A7C15 + b + 1) & _MASK64)
        out.append((((z >> 34) | (1 << 30)) | 1, z & (_M - 1)))
    return out


# -- the hash in plain Python (the tests' oracle) -------------------------------------------


def _square_py(h: int) -> int:
    lo, hi = h % 65536, h // 65536
    return (lo * lo + ((hi * lo) % 32768) * 131072) % _M


def _mix_py(h: int) -> int:
    for step in ("A", "M", "Q", "A", "M", "Q", "A"):
        if step == "A":
            h = (h + h // 65536) % _M
        elif step == "M":
            h = (h * _MUL) % _M
        else:
            h = (h + 2 * _square_py(h)) % _M
    return h


def _words_py(x: Any, s1: int, s2: int) -> tuple[int, int]:
    if isinstance(x, str):
        data = x.encode()
        lo = sum(_mix_py((c + 256 * i + s1) % _M) for i, c in enumerate(data)) % _M
        hi = sum(_mix_py((c + 256 * i + s2) % _M) for i, c in enumerate(data)) % _M
        return lo, hi
    v = int(x)
    lo = v % _M
    return lo, (v - lo) // _M + 2**31


def reference_weights(ids: Sequence[Any], seed: int, n_boot: int) -> list[list[int]]:
    """The weights of each id in each replicate, in plain Python: ``out[i][b]`` (slow; for tests).

    Examples
    --------
    >>> from aggframe.wide.bootstrap import reference_weights
    >>> reference_weights([0, 1, "doc-7", None], seed=0, n_boot=5)  # one row per id, one weight per replicate
    [[0, 1, 2, 0, 1], [0, 0, 2, 0, 0], [0, 2, 1, 1, 1], [2, 1, 0, 1, 1]]
    """
    s1, s2, s3, s4 = _seed_words(seed)
    consts = replicate_constants(seed, n_boot)
    out = []
    for x in ids:
        null = x is None
        lo, hi = (0, 0) if null else _words_py(x, s1, s2)
        h = _mix_py((lo + s1) % _M)
        h = _mix_py((h + hi + s2) % _M)
        h = _mix_py((h + int(null) * s4 + s3) % _M)
        row = []
        for k, c in consts:
            u = (h * k + c) % _M
            row.append(sum(u >= t for t in THRESHOLDS))
        out.append(row)
    return out


# -- the hash as Narwhals expressions ---------------------------------------------------------


def _add_shift(c: Any) -> Any:
    return (c + c // 65536) % _M


def _multiply(c: Any) -> Any:
    return (c * _MUL) % _M


def _quadratic(c: Any) -> Any:
    lo, hi = c % 65536, c // 65536
    return (c + 2 * ((lo * lo + ((hi * lo) % 32768) * 131072) % _M)) % _M


#: The steps of ``mix``, on Narwhals or Polars expressions alike.
_STEPS = (_add_shift, _multiply, _quadratic, _add_shift, _multiply, _quadratic, _add_shift)


def _mix_stages(frame: Frame, column: str) -> Frame:
    """``column = mix(column)``, one ``with_columns`` a step (a step reads its input several times:
    nesting the steps as one expression would multiply it at every step)."""
    for step in _STEPS:
        frame = frame.with_columns(step(nw.col(column)).alias(column))
    return frame


def _string_words(frame: Frame, column: str, *, lo: str, hi: str, s1: int, s2: int) -> Frame:
    """The two 32-bit words of a string column (UTF-8 bytes), computed by the engine's own functions."""
    native = nw.to_native(frame)
    if isinstance(native, pl.LazyFrame):
        codes = (
            pl.col(column)
            .str.encode("hex")
            .str.extract_all("..")
            .list.eval(pl.element().str.to_integer(base=16) + 256 * pl.int_range(pl.len()))
        )

        def word(s: int) -> pl.Expr:
            steps = codes.list.eval((pl.element() + s) % _M)
            for step in _STEPS:
                steps = steps.list.eval(step(pl.element()))
            return (steps.list.sum() % _M).cast(pl.Int64)

        return nw.from_native(native.with_columns(word(s1).alias(lo), word(s2).alias(hi)))
    if engine_of(frame) is nw.Implementation.DUCKDB:
        import duckdb

        col = '"' + column.replace('"', '""') + '"'
        hexed = f"hex({col})"

        def sql_word(s: int) -> str:
            expr = (
                f"list_transform(range(strlen({hexed}) // 2), lambda i: "
                f"(CAST(('0x' || substr({hexed}, 2 * i + 1, 2)) AS BIGINT) + 256 * i + {s}) % {_M})"
            )
            for step in _SQL_STEPS:
                expr = f"list_transform({expr}, lambda x: {step})"
            return f"CAST(coalesce(list_sum({expr}), 0) % {_M} AS BIGINT)"

        words = [duckdb.SQLExpression(sql_word(s)).alias(name) for s, name in ((s1, lo), (s2, hi))]
        return cast("Frame", nw.from_native(native.select(duckdb.StarExpression(), *words)))
    if engine_of(frame) in (nw.Implementation.PYSPARK, nw.Implementation.PYSPARK_CONNECT):
        if engine_of(frame) is nw.Implementation.PYSPARK_CONNECT:
            from pyspark.sql.connect import functions as F
        else:
            from pyspark.sql import functions as F  # type: ignore[no-redef]
        col = "`" + column.replace("`", "``") + "`"
        hexed = f"hex({col})"

        def spark_word(s: int) -> str:
            expr = (
                f"transform(sequence(0, length({hexed}) div 2 - 1), i -> "
                f"(CAST(conv(substr({hexed}, 2 * i + 1, 2), 16, 10) AS BIGINT) + 256 * i + {s}L) % {_M}L)"
            )
            for step in _SQL_STEPS:
                expr = f"transform({expr}, x -> {step.replace('//', 'div')})"
            total = f"aggregate({expr}, 0L, (acc, x) -> acc + x) % {_M}L"
            return f"CASE WHEN {col} IS NULL THEN NULL WHEN length({hexed}) = 0 THEN 0L ELSE {total} END"

        spark_words = [F.expr(spark_word(s)).alias(name) for s, name in ((s1, lo), (s2, hi))]
        return cast("Frame", nw.from_native(native.select("*", *spark_words)))
    msg = (
        f"a bootstrap over string ids hashes their bytes with engine functions, which aggframe has for "
        f"Polars, DuckDB and Spark, not {engine_of(frame)}; use integer ids"
    )
    raise OptionError(msg)


_SQL_A = f"(x + x // 65536) % {_M}"
_SQL_M = f"(x * {_MUL}) % {_M}"
_SQL_Q = (
    f"(x + 2 * (((x % 65536) * (x % 65536) + (((x // 65536) * (x % 65536)) % 32768) * 131072) % {_M})) % {_M}"
)
#: The steps of ``mix`` as SQL lambdas' bodies (DuckDB; Spark with ``div`` for ``//``).
_SQL_STEPS = (_SQL_A, _SQL_M, _SQL_Q, _SQL_A, _SQL_M, _SQL_Q, _SQL_A)


def unit_hash(frame: Frame, column: str, seed: int, out: str, *, what: str) -> Frame:
    """Add ``out``: the base hash of each row's unit id in ``column`` (see the module docstring).

    ``what`` names the column for an error message (the user's name).
    """
    s1, s2, s3, s4 = _seed_words(seed)
    dtype = frame.collect_schema()[column]
    lo, hi, null = f"{out}_lo", f"{out}_hi", f"{out}_null"
    x = nw.col(column)
    frame = frame.with_columns(x.is_null().cast(nw.Int64).alias(null))
    if dtype == nw.UInt64:
        # ids up to 2^64 - 1: both 32-bit words computed unsigned (an Int64 cast fails above
        # 2^63 - 1); below that, the words of the Int64 path, so the same id hashes the same
        u = x.fill_null(0)
        frame = frame.with_columns((u % _M).cast(nw.Int64).alias(lo))
        hi_word = ((u - (u % _M)) // _M).cast(nw.Int64) + 2**31
        frame = frame.with_columns(nw.when(x.is_null()).then(0).otherwise(hi_word).alias(hi))
    elif (dtype.is_integer() and dtype not in (nw.Int128, nw.UInt128)) or dtype == nw.Boolean:
        v = x.cast(nw.Int64).fill_null(0)
        frame = frame.with_columns((v % _M).alias(lo))
        hi_word = (v - nw.col(lo)) // _M + 2**31
        frame = frame.with_columns(nw.when(x.is_null()).then(0).otherwise(hi_word).alias(hi))
    elif dtype in (nw.String, nw.Categorical, nw.Enum, nw.Int128, nw.UInt128):
        # 128-bit ids (DuckDB HUGEINT) are hashed by their text: no 64-bit cast holds them all
        if dtype != nw.String:
            frame = frame.with_columns(x.cast(nw.String).alias(column))
        frame = _string_words(frame, column, lo=lo, hi=hi, s1=s1, s2=s2)
        frame = frame.with_columns(nw.col(lo).fill_null(0), nw.col(hi).fill_null(0))
    else:
        msg = (
            f"column {what!r} has dtype {dtype}: a bootstrap hashes integer, boolean or string ids "
            "(cast it to one of those)"
        )
        raise OptionError(msg)
    frame = frame.with_columns(((nw.col(lo) + s1) % _M).alias(out))
    frame = _mix_stages(frame, out)
    frame = frame.with_columns(((nw.col(out) + nw.col(hi) + s2) % _M).alias(out))
    frame = _mix_stages(frame, out)
    frame = frame.with_columns(((nw.col(out) + nw.col(null) * s4 + s3) % _M).alias(out))
    return _mix_stages(frame, out).drop(lo, hi, null)


def poisson(u: nw.Expr) -> nw.Expr:
    """The Poisson(1) weight of a uniform 32-bit integer ``u``: how many thresholds it reaches."""
    expr: nw.Expr = nw.lit(len(THRESHOLDS), dtype=nw.Int64)
    for k in reversed(range(len(THRESHOLDS))):
        expr = nw.when(u < THRESHOLDS[k]).then(nw.lit(k, dtype=nw.Int64)).otherwise(expr)
    return expr


def _poisson_u32(u: pl.Expr) -> pl.Expr:
    expr = pl.lit(len(THRESHOLDS), dtype=pl.UInt8)
    for k in reversed(range(len(THRESHOLDS))):
        expr = (
            pl.when(u < pl.lit(THRESHOLDS[k], dtype=pl.UInt32))
            .then(pl.lit(k, dtype=pl.UInt8))
            .otherwise(expr)
        )
    return expr


def weight_columns(frame: Frame, hashed: str, boot: Bootstrap, prefix: str = "_w") -> tuple[Frame, list[str]]:
    """Add the ``n_boot`` weight columns ``<prefix>0 ..`` of each row's unit (base hash in ``hashed``).

    On Polars the replicate step runs on ``UInt32``, whose multiplication wraps
    modulo 2^32 (the same numbers, about half the time of the portable
    ``Int64`` form, measured in ``benchmarks/bench_bootstrap.py``); the weights
    are ``UInt8`` there (their sums are ``Int64``).
    """
    names = [f"{prefix}{b}" for b in range(boot.n_boot)]
    consts = replicate_constants(boot.seed, boot.n_boot)
    native = nw.to_native(frame)
    if isinstance(native, pl.LazyFrame):
        h32 = pl.col(hashed).cast(pl.UInt32)
        native = native.with_columns(
            (h32 * pl.lit(k, dtype=pl.UInt32) + pl.lit(c, dtype=pl.UInt32)).alias(n)
            for n, (k, c) in zip(names, consts, strict=True)
        )
        # one expression over every replicate column (Polars expands it): building n_boot
        # separate when/then chains cost ~3 ms each in Python, most of a small bootstrap's time
        native = native.with_columns(_poisson_u32(pl.col(names)).name.keep())
        return nw.from_native(native), names
    h = nw.col(hashed)
    frame = frame.with_columns(((h * k + c) % _M).alias(n) for n, (k, c) in zip(names, consts, strict=True))
    return frame.with_columns(poisson(nw.col(n)).alias(n) for n in names), names
