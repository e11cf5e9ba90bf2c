"""Where the label-form report's time goes (issue 35): 10M label rows from Parquet, 100 classes,
21 measures x 4 operators, against the bare pass of ``bench_core.py``.

Run from the repository root::

    python benchmarks/profile_label_report.py [--rows 10000000] [--reps 5]

Prints the median wall times (candidates interleaved) and their ratios, then the narrow step
alone (a re-evaluation on cached cell tables), so the scan's share is the difference (Polars 2
has no ``LazyFrame.profile()``). For the Python side, run the ``--once`` mode under py-spy::

    py-spy record -o /tmp/report.svg -- python benchmarks/profile_label_report.py --once

The data (seeded) is ``bench_core.py``'s file under ``benchmarks/_data/``. The machine may be
shared: the ratios are what count. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import N_CLASSES, parquet_file
from bench_scan import GOAL, _checks

import aggframe as af


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--once", action="store_true", help="one fresh report only (for py-spy)")
    args = ap.parse_args()
    path, _ = parquet_file(args.rows)

    def fresh() -> pl.DataFrame:
        pr = af.from_labels(pl.scan_parquet(path), y_true="y_true", y_pred="y_pred", n_classes=N_CLASSES)
        return pr.evaluate()

    if args.once:
        fresh()
        return

    def bare() -> Any:
        return pl.scan_parquet(path).group_by("y_true", "y_pred").agg(pl.len()).collect()

    def bare_checked() -> Any:
        # the pair counts, with the checks the label form makes (bench_scan.py's: null labels and
        # labels outside 0 .. m - 1 in either column, the number of pairs)
        counts = pl.scan_parquet(path).group_by("y_true", "y_pred").agg(pl.len())
        return pl.collect_all([counts, _checks(counts, N_CLASSES)])

    fns: dict[str, Callable[[], Any]] = {"bare": bare, "bare_checked": bare_checked, "aggframe": fresh}
    for fn in fns.values():
        fn()  # warm-up: file cache, thread pool
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(args.reps):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{args.rows:,} rows, {N_CLASSES} classes, median of {args.reps} (a shared machine: ratios count)")
    for k, v in med.items():
        print(
            f"  {k:14s} {v:7.3f} s   {v / med['bare']:5.2f}x bare   {v / med['bare_checked']:5.2f}x bare_checked"
        )

    # LazyFrame.profile() is gone in Polars 2 (it timed the in-memory engine's nodes): split
    # the report instead into the scan (the cell tables) and the narrow step on cached tables
    cached = af.from_labels(pl.scan_parquet(path), y_true="y_true", y_pred="y_pred", n_classes=N_CLASSES)
    cached.evaluate()
    narrow = []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        cached.evaluate()
        narrow.append(time.perf_counter() - t0)
    n = statistics.median(narrow)
    print(f"  narrow step alone (cell tables cached) {n:.3f} s: the scan is ~{med['aggframe'] - n:.3f} s,")
    print(f"  {(med['aggframe'] - n) / med['bare_checked']:.2f}x bare_checked")
    ratio = med["aggframe"] / med["bare_checked"]
    print(f"  goal: within {GOAL}x bare_checked: {ratio:.2f}x ({'met' if ratio <= GOAL else 'not met'})")


if __name__ == "__main__":
    main()
