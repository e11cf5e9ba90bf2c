"""Sketch (plain Polars): what each aggregate of the long form's per-example pass costs.

The 10^9-row goal of issue 35 (``bench_scale.py big --rows 1e9 --classes 100``) compares the
long-form report with a bare per-class + per-example pass. The report's per-example aggregation
has more aggregates than the bare pass's three sums (the duplicate check's bit words, the
refused-value flag, the row count). This sketch writes the variants by hand over the same
Parquet file (``bench_scale.py``'s, 100 classes) and times them in one process, interleaved
round by round, as CPU seconds of the process (all threads) and wall seconds; medians and
ratios to the bare pass are printed with the load average. Nothing is asserted.

Run from the repository root (the data directory as for ``bench_scale.py``)::

    AGGFRAME_BENCH_DATA=/tmp/data python benchmarks/sketch_long_example.py --rows 1e8 --reps 5

Variants (per-example aggregation only unless ``--both``, which adds the per-class pass).
Row-level columns are computed before the group-by (as the package does); the aggregates
are plain column sums and ``len``:

``bare``      sum(y), sum(p), sum(y p)
``len``       ``bare`` + len (the package's row count); ``pklen``: y, p, y p packed in one Int64 + len
``c8`` / ``c8x`` / ``c64`` / ``c128``  ``len`` + a fourth sum: the class column itself (its Parquet
              decode), ``class % 100``, the class as UInt64, as UInt128 (what any column costs)
``before``    the package before this round: sum(y p), sum(y), sum(p), len, two UInt64 bit words
              gathered from a 128-entry table, the flag cast to Int64 and summed (7 aggregates)
``u128``      the two words as one UInt128 word (6); ``u8``: indexed by the class as UInt8;
              ``pow``: 2^c by an integer power; ``g64``: one UInt64 word (not exact for 100)
``boolflag``  ``u128`` with the flag summed as a Boolean; ``flag2``: one cheaper flag expression
``rowsflag``  ``u128`` with len and the flag as one sum, ``1 + flag`` per row (5)
``packed``    ``rowsflag`` with y, p, y p packed in one Int64 sum, 21 bits a field (3);
              ``packed2``: the packed word gathered from a 4-entry table
``fold*``     the flag folded into the bit word (a flagged row gathers at a null index: no bit,
              no flag aggregate): ``foldA`` the package's flag expression, ``fold`` one cheaper
              expression (``y | p`` in [0, 1]), ``foldmod*`` indexed by ``class % 128``,
              ``fold64`` a UInt64 word, ``foldcls`` only the class and example checks,
              ``foldnone`` no flag at all, ``foldpk`` / ``foldApk`` with packed cells
``tbl`` / ``tbl2``  the class range check in the gathered table (0 for an undeclared class),
              with the package's value flag / with ``y | p``
``noflag`` / ``nobits``  ``before`` without the flag / without the bit words
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("AGGFRAME_BENCH_DATA", HERE / "_data"))

Y, P, C, E = pl.col("y"), pl.col("p"), pl.col("class"), pl.col("example")


def flag(m: int) -> pl.Expr:
    """The refused-value flag of the integer path (``wide.long.invalid_values`` + ``class_refused``)."""
    out = E.is_null()
    for x in (Y, P):
        out = out | x.is_null() | ~x.is_between(0, 1)
    return out | C.is_null() | ~C.is_between(0, m - 1).fill_null(value=False)


def words64() -> list[pl.Expr]:
    bit = (C % 128).cast(pl.Int64)
    tables = [
        pl.Series([2 ** (i - lo) if lo <= i < lo + 64 else 0 for i in range(128)], dtype=pl.UInt64)
        for lo in (0, 64)
    ]
    return [pl.lit(t).gather(bit).alias(f"_b{i}") for i, t in enumerate(tables)]


def word128() -> pl.Expr:
    table = pl.Series([2**i for i in range(128)], dtype=pl.UInt128)
    return pl.lit(table).gather((C % 128).cast(pl.Int64)).alias("_b")


def packed() -> pl.Expr:
    y, p = Y.cast(pl.Int64), P.cast(pl.Int64)
    return (y + p * 2**21 + (y * p) * 2**42).alias("_cells")


def packed_gather() -> pl.Expr:
    table = pl.Series([0, 2**21, 1, 1 + 2**21 + 2**42], dtype=pl.Int64)
    return pl.lit(table).gather((Y * 2 + P).cast(pl.Int64).clip(0, 3)).alias("_cells")


def word128_u8(index: pl.Expr | None = None) -> pl.Expr:
    """2^(c mod 128) from a 256-entry table indexed by the class as UInt8 (no modulo; a class
    outside 0..255 is null: no bit, a suspicion)."""
    table = pl.Series([2 ** (i % 128) for i in range(256)], dtype=pl.UInt128)
    idx = C.cast(pl.UInt8, strict=False) if index is None else index
    return pl.lit(table).gather(idx).alias("_b")


def word128_pow() -> pl.Expr:
    return pl.lit(2, dtype=pl.UInt128).pow(C.cast(pl.UInt8, strict=False)).alias("_b")


def ok2(m: int) -> pl.Expr:
    """Whether a row is accepted, in one expression: y | p in [0, 1], the class declared, an
    example; null where an input is null (Kleene: null & False is False)."""
    return (Y | P).is_between(0, 1) & C.is_between(0, m - 1) & E.is_not_null()


def ranged_table(m: int) -> pl.Expr:
    """2^c for a declared class c (0 .. m - 1), 0 for any other value of 0 .. 255: the table
    refuses the classes outside the universe itself (no bit: a suspicion)."""
    return pl.lit(pl.Series([2**i if i < m else 0 for i in range(256)], dtype=pl.UInt128))


def values_flag() -> pl.Expr:
    """The flag without the class check: a null example, y or p null or outside [0, 1]."""
    out = E.is_null()
    for x in (Y, P):
        out = out | x.is_null() | ~x.is_between(0, 1)
    return out


#: per variant: the row-level columns (computed before the group-by, as the package does) and
#: the aggregates (plain column sums and len, the streaming engine's fast reductions)
Variant = tuple[list[pl.Expr], list[pl.Expr]]


def sums(*names: str) -> list[pl.Expr]:
    return [pl.col(n).sum() for n in names]


def variants(m: int) -> dict[str, Variant]:
    three = [(Y * P).alias("_syp"), Y.alias("_sy"), P.alias("_sp")]
    s3 = sums("_syp", "_sy", "_sp")
    bad64, bad_bool = flag(m).cast(pl.Int64).alias("_bad"), flag(m).alias("_bad")
    rows1 = (flag(m).cast(pl.Int64) + 1).alias("_rows")
    return {
        "bare": ([(Y * P).alias("yp")], sums("y", "p", "yp")),
        "before": ([*three, *words64(), bad64], [*s3, pl.len(), *sums("_b0", "_b1", "_bad")]),
        "u128": ([*three, word128(), bad64], [*s3, pl.len(), *sums("_b", "_bad")]),
        "boolflag": ([*three, word128(), bad_bool], [*s3, pl.len(), *sums("_b", "_bad")]),
        "rowsflag": ([*three, word128(), rows1], [*s3, *sums("_b", "_rows")]),
        "packed": ([packed(), word128(), rows1], sums("_cells", "_b", "_rows")),
        "packed2": ([packed_gather(), word128(), rows1], sums("_cells", "_b", "_rows")),
        "u8": ([*three, word128_u8(), bad64], [*s3, pl.len(), *sums("_b", "_bad")]),
        "pow": ([*three, word128_pow(), bad64], [*s3, pl.len(), *sums("_b", "_bad")]),
        "flag2": (
            [*three, word128_u8(), (~ok2(m)).fill_null(value=True).alias("_bad")],
            [*s3, pl.len(), *sums("_b", "_bad")],
        ),
        "fold": (
            [*three, word128_u8(pl.when(ok2(m)).then(C.cast(pl.UInt8, strict=False)))],
            [*s3, pl.len(), *sums("_b")],
        ),
        "foldpk": (
            [packed(), word128_u8(pl.when(ok2(m)).then(C.cast(pl.UInt8, strict=False)))],
            [pl.len(), *sums("_cells", "_b")],
        ),
        "foldA": (
            [*three, word128_u8(pl.when(~flag(m)).then(C.cast(pl.UInt8, strict=False)))],
            [*s3, pl.len(), *sums("_b")],
        ),
        "foldmod": (
            [*three, word128_u8(pl.when(~flag(m)).then((C % 128).cast(pl.Int64)))],
            [*s3, pl.len(), *sums("_b")],
        ),
        "foldmod2": (
            [*three, word128_u8(pl.when(ok2(m)).then((C % 128).cast(pl.Int64)))],
            [*s3, pl.len(), *sums("_b")],
        ),
        "fold64": (
            [
                *three,
                pl.lit(pl.Series([2 ** (i % 64) for i in range(256)], dtype=pl.UInt64))
                .gather(pl.when(ok2(m)).then(C.cast(pl.UInt8, strict=False)))
                .alias("_b"),
            ],
            [*s3, pl.len(), *sums("_b")],
        ),
        "foldcls": (
            [
                *three,
                word128_u8(
                    pl.when(C.is_between(0, m - 1) & E.is_not_null()).then(C.cast(pl.UInt8, strict=False))
                ),
            ],
            [*s3, pl.len(), *sums("_b")],
        ),
        "foldnone": ([*three, word128_u8()], [*s3, pl.len(), *sums("_b")]),
        "foldApk": (
            [packed(), word128_u8(pl.when(~flag(m)).then(C.cast(pl.UInt8, strict=False)))],
            [pl.len(), *sums("_cells", "_b")],
        ),
        "len": (three, [*s3, pl.len()]),
        "pklen": ([packed()], [pl.len(), *sums("_cells")]),
        "g64": (
            [
                *three,
                pl.lit(pl.Series([2 ** (i % 64) for i in range(256)], dtype=pl.UInt64))
                .gather(C.cast(pl.UInt8, strict=False))
                .alias("_b"),
            ],
            [*s3, pl.len(), *sums("_b")],
        ),
        "c128": ([*three, C.cast(pl.UInt128).alias("_b")], [*s3, pl.len(), *sums("_b")]),
        "c64": ([*three, C.cast(pl.UInt64).alias("_b")], [*s3, pl.len(), *sums("_b")]),
        "c8": ([*three, C.alias("_b")], [*s3, pl.len(), *sums("_b")]),
        "c8x": ([*three, (C % 100).alias("_b")], [*s3, pl.len(), *sums("_b")]),
        "tbl": (
            [
                *three,
                ranged_table(m)
                .gather(pl.when(~values_flag()).then(C.cast(pl.UInt8, strict=False)))
                .alias("_b"),
            ],
            [*s3, pl.len(), *sums("_b")],
        ),
        "tbl2": (
            [
                *three,
                ranged_table(m)
                .gather(
                    pl.when((Y | P).is_between(0, 1) & E.is_not_null()).then(C.cast(pl.UInt8, strict=False))
                )
                .alias("_b"),
            ],
            [*s3, pl.len(), *sums("_b")],
        ),
        "noflag": ([*three, *words64()], [*s3, pl.len(), *sums("_b0", "_b1")]),
        "nobits": ([*three, bad64], [*s3, pl.len(), *sums("_bad")]),
    }


def timed(run: Callable[[], object]) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    run()
    return time.process_time() - c0, time.perf_counter() - w0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--classes", type=int, default=100)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--both", action="store_true", help="add the per-class pass to every variant")
    args = parser.parse_args()
    rows, m = int(args.rows), args.classes
    path = DATA / f"long_{rows}r_{m}c.parquet"
    lf = pl.scan_parquet(path)
    plans = {k: v for k, v in variants(m).items() if args.only is None or k in args.only or k == "bare"}

    def run(variant: Variant) -> Callable[[], object]:
        columns, aggs = variant
        queries = [lf.with_columns(columns).group_by("example").agg(aggs)]
        if args.both:
            queries.append(lf.group_by("class").agg(Y.sum(), P.sum(), (Y * P).sum().alias("yp")))
        return lambda: pl.collect_all(queries, engine="streaming")

    cpu: dict[str, list[float]] = {k: [] for k in plans}
    wall: dict[str, list[float]] = {k: [] for k in plans}
    run(plans["bare"])()  # warm the file cache
    for _ in range(args.reps):
        for name, variant in plans.items():
            c, w = timed(run(variant))
            cpu[name].append(c)
            wall[name].append(w)
    base_c, base_w = statistics.median(cpu["bare"]), statistics.median(wall["bare"])
    print(f"rows={rows:.0e} classes={m} reps={args.reps} load={os.getloadavg()} (shared machine)")
    for name in plans:
        c, w = statistics.median(cpu[name]), statistics.median(wall[name])
        print(f"{name:10s} cpu {c:6.2f}s {c / base_c:5.2f}x   wall {w:6.2f}s {w / base_w:5.2f}x")


if __name__ == "__main__":
    main()
