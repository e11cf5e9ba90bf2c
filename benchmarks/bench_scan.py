"""The scan goals of issue 35: two reports against the fairest bare Polars pass, as ratios.

Run from the repository root::

    python benchmarks/bench_scan.py labels    # 10M label rows from Parquet, 100 classes, 21 measures x 4 operators
    python benchmarks/bench_scan.py example   # 10M rows, 1,000 groups (model x day), an example column
    python benchmarks/bench_scan.py all [--reps 9]

``labels``: ``af.from_labels(scan, n_classes=100).evaluate()`` (the file of
``bench_core.py``) against the pair counts with the checks the label form makes
(nulls, labels outside the declared range), one ``collect_all``.

``example``: ``evaluate(by=["model", "day"])`` with ``example="example"`` (20 declared
classes) against the pair counts per group plus the example check done the cheap way
(``group_by(keys).agg(example.n_unique(), len(), example.null_count())``), and, for
reference, the same with the check over (keys, example) pairs.

Candidates run interleaved (A B C A B C ...) in one process after a warm-up; the medians
of the wall time and of the CPU time (the process's, all threads) and their ratios are
printed, with the goal of issue 35 (1.2x the bare pass) met or not. The machine may be shared: the ratios are what count, and
the load average is printed with them. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import N_CLASSES, parquet_file

import aggframe as af

DATA = Path(__file__).resolve().parent / "_data"
KEYS = ("model", "day")
EX_CLASSES = 20


def example_file(rows: int = 10_000_000) -> Path:
    """10M rows: 100 models x 10 days, a unique example id per row, 20 classes (seeded)."""
    path = DATA / f"example_groups_{rows}r.parquet"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(35)
    y = rng.integers(0, EX_CLASSES, rows)
    p = np.where(rng.random(rows) < 0.75, y, rng.integers(0, EX_CLASSES, rows))
    frame = pl.DataFrame(
        {
            "model": rng.integers(0, 100, rows).astype(np.int16),
            "day": rng.integers(0, 10, rows).astype(np.int8),
            "example": rng.permutation(rows).astype(np.int64),
            "y_true": y.astype(np.int16),
            "y_pred": p.astype(np.int16),
        }
    )
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    frame.write_parquet(tmp)
    tmp.replace(path)
    return path


def _checks(counts: pl.LazyFrame, m: int, keys: tuple[str, ...] = ()) -> pl.LazyFrame:
    """What the label form checks on the pair counts: null labels, labels outside ``0 .. m - 1``."""
    out_of_range = pl.any_horizontal(*[(pl.col(c) < 0) | (pl.col(c) >= m) for c in ("y_true", "y_pred")])
    return counts.select(
        pl.col("len").filter(pl.col("y_true").is_null() | pl.col("y_pred").is_null()).sum().alias("nulls"),
        pl.col("len").filter(out_of_range).sum().alias("outside"),
        pl.len().alias("pairs") if not keys else pl.struct(*keys).n_unique().alias("groups"),
    )


def labels_candidates() -> dict[str, Callable[[], Any]]:
    path, _ = parquet_file(10_000_000)

    def bare() -> Any:
        counts = pl.scan_parquet(path).group_by("y_true", "y_pred").agg(pl.len())
        return pl.collect_all([counts, _checks(counts, N_CLASSES)])

    def report() -> Any:
        return af.from_labels(pl.scan_parquet(path), n_classes=N_CLASSES).evaluate()

    return {"bare_checked": bare, "aggframe": report}


def example_candidates() -> dict[str, Callable[[], Any]]:
    path = example_file()
    k = list(KEYS)

    def bare(pairs_check: bool) -> Callable[[], Any]:
        def run() -> Any:
            lf = pl.scan_parquet(path)
            counts = lf.group_by(*k, "y_true", "y_pred").agg(pl.len())
            if pairs_check:
                ids = lf.group_by(*k, "example").agg(pl.len().alias("_n"))
                ex = ids.group_by(k).agg((pl.col("_n") - 1).sum().alias("dups"))
            else:
                ex = lf.group_by(k).agg(
                    pl.col("example").n_unique().alias("ids"),
                    pl.len(),
                    pl.col("example").null_count().alias("nulls"),
                )
            return pl.collect_all([counts, _checks(counts, EX_CLASSES, KEYS), ex])

        return run

    def report() -> Any:
        pr = af.from_labels(pl.scan_parquet(path), example="example", n_classes=EX_CLASSES)
        return pr.evaluate(by=k)

    return {"bare_cheap": bare(False), "bare_pairs": bare(True), "aggframe": report}


#: The goal of issue 35 for both reports: within 1.2x of the fairest bare pass.
GOAL = 1.2


def run(name: str, fns: dict[str, Callable[[], Any]], reps: int) -> dict[str, float]:
    """Median wall and CPU time (this process, all threads) of each candidate, interleaved; CPU ratios returned."""
    for fn in fns.values():
        fn()  # warm-up: file cache, thread pool
    wall: dict[str, list[float]] = {k: [] for k in fns}
    cpu: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(reps):
        for k, fn in fns.items():
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            wall[k].append(time.perf_counter() - t0)
            cpu[k].append(time.process_time() - c0)
    med = {k: statistics.median(v) for k, v in wall.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    base = next(iter(med))
    load = os.getloadavg()[0]
    print(f"{name}: median of {reps} interleaved runs (a shared machine, load average {load:.1f})")
    for k in fns:
        print(
            f"  {k:14s} wall {med[k]:7.3f} s {med[k] / med[base]:5.2f}x   "
            f"cpu {med_cpu[k]:7.3f} s {med_cpu[k] / med_cpu[base]:5.2f}x {base}"
        )
    ratio, ratio_cpu = med["aggframe"] / med[base], med_cpu["aggframe"] / med_cpu[base]
    verdict = "met" if max(ratio, ratio_cpu) <= GOAL else "not met"
    print(f"  goal: aggframe within {GOAL}x {base}: wall {ratio:.2f}x, cpu {ratio_cpu:.2f}x ({verdict})")
    return {"wall": ratio, "cpu": ratio_cpu}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["labels", "example", "all"])
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args()
    if args.what in ("labels", "all"):
        run("label-form report, 10M rows, 100 classes", labels_candidates(), args.reps)
    if args.what in ("example", "all"):
        run("10M rows, 1,000 groups, example column", example_candidates(), args.reps)


if __name__ == "__main__":
    main()
