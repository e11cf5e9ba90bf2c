"""Measures on scores: AUROC + AP, micro and macro, per group, against a bare Polars pass.

Run from the repository root::

    python benchmarks/bench_curves.py            # 10M score rows (1M examples x 10 classes), 100 groups
    python benchmarks/bench_curves.py --quick    # 1M score rows, 1 repetition

The data (seeded, in memory): one row per (example, class), 100 groups (``example % 100``),
one true class per example, and scores either continuous (every score distinct: the
per-score table is as large as the input, the worst case) or rounded to 3 decimals (heavy
ties: the table is small).

aggframe, two paths to the same numbers (the reduction to micro and macro included):

counts path
    the wide step (``_ranking.score_counts``: a group-by on (group, class, score),
    Narwhals over Polars' streaming engine; what DuckDB and Spark run), the table crosses
    to Polars, then the narrow step (``_curves.ranking_entries``: one sort by score,
    cumulative counts per (group, class) and per group, tie runs corrected).
rows path
    Polars sources only: the rows go to the same narrow step without the group-by
    (``_ranking.score_rows``), one lazy plan.

The bare pass is what any exact per-class AUROC needs at least: sort the rows by score,
cumulative sum of the positives per (group, class), one sum per (group, class) (it ignores
ties and computes neither AP nor micro). The ratio is aggframe / bare; the target is 2x.
Timings are the best of ``--repeat`` interleaved runs (``time.perf_counter``); nothing is
asserted. Results go to ``benchmarks/_out/bench_curves.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import narwhals as nw
import numpy as np
import polars as pl

from aggframe.operators import curves as cv
from aggframe.wide.ranking import score_counts, score_rows

OUT = Path(__file__).resolve().parent / "_out"
N_CLASSES, N_GROUPS, SEED, TARGET = 10, 100, 20_260_114, 2.0


def make_data(n_examples: int, decimals: int | None) -> pl.DataFrame:
    rng = np.random.default_rng(SEED)
    rows = n_examples * N_CLASSES
    example = np.repeat(np.arange(n_examples), N_CLASSES)
    klass = np.tile(np.arange(N_CLASSES), n_examples)
    truth = rng.integers(0, N_CLASSES, n_examples)
    y = (klass == np.repeat(truth, N_CLASSES)).astype(np.int8)
    score = np.clip(0.2 * y + 0.8 * rng.random(rows), 0.0, 1.0)
    if decimals is not None:
        score = np.round(score, decimals)
    return pl.DataFrame({"g": (example % N_GROUPS).astype(np.int32), "class": klass, "score": score, "y": y})


def bare(lf: pl.LazyFrame) -> pl.DataFrame:
    tp = pl.col("y").cast(pl.Int64).cum_sum().over("g", "class")
    return (
        lf.sort("score", descending=True)
        .with_columns(tp.alias("tp"))
        .group_by("g", "class")
        .agg(((1 - pl.col("y")).cast(pl.Int64) * pl.col("tp")).sum())
        .collect()
    )


def aggframe_counts(lf: pl.LazyFrame) -> pl.DataFrame:
    """The engine path: group-by on (group, class, score), the table crosses to Polars."""
    counts = score_counts(nw.from_native(lf), ["g"], score="score", y="y", class_="class")
    table = counts.collect(backend="polars").to_native().rechunk().lazy()
    entries = cv.ranking_entries(table, ["g"], "class")
    return cv.reduce_entries(["g"], operators=["micro", "macro"], **entries).collect()


def aggframe_rows(lf: pl.LazyFrame) -> pl.DataFrame:
    """The Polars path: no group-by, one lazy plan over the rows."""
    rows = score_rows(nw.from_native(lf), ["g"], score="score", y="y", class_="class").to_native()
    entries = cv.ranking_entries(rows, ["g"], "class", unit_rows=True)
    return cv.reduce_entries(["g"], operators=["micro", "macro"], **entries).collect()


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1M rows, 1 repetition")
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args()
    n_examples = 100_000 if args.quick else 1_000_000
    repeat = args.repeat or (1 if args.quick else 3)
    results = []
    for label, decimals in (("continuous", None), ("ties_3_decimals", 3)):
        lf = make_data(n_examples, decimals).lazy()
        runs = {"bare": bare, "counts": aggframe_counts, "rows": aggframe_rows}
        times: dict[str, list[float]] = {name: [] for name in runs}
        for fn in runs.values():  # warm-up
            fn(lf)
        for _ in range(repeat):  # interleaved: all see the same machine load
            for name, fn in runs.items():
                times[name].append(timed(lambda fn=fn, lf=lf: fn(lf)))
        best = {name: min(ts) for name, ts in times.items()}
        row = {
            "data": label,
            "rows": n_examples * N_CLASSES,
            "groups": N_GROUPS,
            "bare_s": round(best["bare"], 3),
            "counts_s": round(best["counts"], 3),
            "rows_s": round(best["rows"], 3),
            "ratio_counts": round(best["counts"] / best["bare"], 2),
            "ratio_rows": round(best["rows"] / best["bare"], 2),
            "target": TARGET,
        }
        results.append(row)
        print(
            f"{label:>16}: bare sort + cum_sum {row['bare_s']:.2f} s; aggframe counts path "
            f"{row['counts_s']:.2f} s ({row['ratio_counts']:.2f}x), rows path {row['rows_s']:.2f} s "
            f"({row['ratio_rows']:.2f}x); target {TARGET}x",
            flush=True,
        )
    OUT.mkdir(exist_ok=True)
    (OUT / "bench_curves.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
