"""Accumulator benchmark: 1,000 updates of 10k rows against one evaluation of the same 10M rows.

Run from the repository root (``PYTHONPATH=.`` when the package is installed elsewhere)::

    python benchmarks/bench_accumulate.py            # 10M label rows, 1,000 batches, best of 3
    python benchmarks/bench_accumulate.py --quick    # smoke run: 1M rows, 100 batches, 1 repetition

The rows are single-label predictions (100 classes, Zipf-skewed, ~70% right, as in
``bench_core.py``) of 4 models, held in memory as one Polars DataFrame; the batches are
zero-copy slices of it. Each variant runs in a fresh process and reports the CPU time
(user + sys of the process, which is robust on a loaded machine), the wall time and the
peak RSS of the measured section:

* ``whole``: ``af.from_labels(df).evaluate(by="model")``: 21 measures x 4 operators, once.
* ``default``: ``acc = af.Accumulator(by="model")`` (``buffer_rows=1_000_000``), one
  ``acc.update(batch)`` per batch, then one ``acc.evaluate()`` (the same report).
* ``buffer_rows=N``: the same with another buffer (``0``: every update reduced at once).
* ``updates + report every 100``: as the default, with a ``compute()`` every 100 batches
  (the running report of ``examples/running_report.py``).

The target: the updates together within 1.5x of the whole evaluation. Results go to
``benchmarks/_out/bench_accumulate.json``; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
OUT_DIR = HERE / "_out"
N_CLASSES = 100
N_MODELS = 4
SEED = 20_251_130
TARGET_RATIO = 1.5


def make_frame(rows: int) -> pl.DataFrame:
    rng = np.random.default_rng(SEED)
    prevalence = 1.0 / np.arange(1, N_CLASSES + 1)
    prevalence /= prevalence.sum()
    y_true = rng.choice(N_CLASSES, size=rows, p=prevalence)
    wrong = rng.choice(N_CLASSES, size=rows, p=prevalence)
    y_pred = np.where(rng.random(rows) < 0.7, y_true, wrong)
    model = rng.integers(0, N_MODELS, size=rows)
    return pl.DataFrame({"model": model, "y_true": y_true, "y_pred": y_pred})


def run_variant(variant: str, rows: int, batch: int) -> dict[str, Any]:
    """One measurement in this process (called in a fresh subprocess)."""
    import aggframe as af

    df = make_frame(rows)
    batches = [df.slice(i, batch) for i in range(0, rows, batch)]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    if variant == "whole":
        out = af.from_labels(df).evaluate(by="model")
    else:
        options = {"buffer_rows": int(variant.split("=")[1])} if variant.startswith("buffer_rows=") else {}
        every = 100 if variant == "report_every_100" else 0
        acc = af.Accumulator(by="model", **options)
        for i, b in enumerate(batches, start=1):
            acc.update(b)
            if every and i % every == 0:
                acc.evaluate()
        out = acc.evaluate()
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB (Linux)
    return {"variant": variant, "cpu_s": cpu, "wall_s": wall, "peak_rss_mib": peak, "rows_out": out.height}


def measure(variant: str, rows: int, batch: int, reps: int) -> dict[str, Any]:
    """Best of ``reps`` fresh processes (by CPU time)."""
    results = []
    env = {**os.environ, "PYTHONPATH": str(HERE.parent) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for _ in range(reps):
        cmd = [sys.executable, __file__, "--child", variant, "--rows", str(rows), "--batch", str(batch)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return min(results, key=lambda r: r["cpu_s"])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1M rows, 100 batches, 1 repetition")
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows = args.rows or (1_000_000 if args.quick else 10_000_000)
    if args.child:
        print(json.dumps(run_variant(args.child, rows, args.batch)))
        return
    reps = args.reps or (1 if args.quick else 3)
    variants = ["whole", "default", "buffer_rows=100000", "buffer_rows=0", "report_every_100"]
    table = {v: measure(v, rows, args.batch, reps) for v in variants}
    whole = table["whole"]
    print(f"{rows:,} label rows, {N_CLASSES} classes, {N_MODELS} models; batches of {args.batch:,} rows")
    print(f"{'variant':<24} {'cpu s':>8} {'wall s':>8} {'peak MiB':>9} {'cpu ratio':>10} {'wall ratio':>10}")
    for v, r in table.items():
        r["cpu_ratio"] = r["cpu_s"] / whole["cpu_s"]
        r["wall_ratio"] = r["wall_s"] / whole["wall_s"]
        print(
            f"{v:<24} {r['cpu_s']:>8.2f} {r['wall_s']:>8.2f} {r['peak_rss_mib']:>9.0f} "
            f"{r['cpu_ratio']:>10.2f} {r['wall_ratio']:>10.2f}"
        )
    print(f"target: the updates within {TARGET_RATIO}x of the whole evaluation")
    OUT_DIR.mkdir(exist_ok=True)
    record = {
        "rows": rows,
        "batch": args.batch,
        "reps": reps,
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "polars": pl.__version__,
        "results": table,
    }
    (OUT_DIR / "bench_accumulate.json").write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
