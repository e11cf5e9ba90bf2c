"""Decisions from scores: a full report of argmax, top-k and threshold decisions, against a bare Polars pass.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_decisions.py            # 10M score rows (1M examples x 10 classes)
    PYTHONPATH=. python benchmarks/bench_decisions.py --quick    # 1M score rows

The data (seeded, in memory): one row per (example, class), one true class per example,
softmax probabilities (continuous: no ties).

aggframe, through the public API, construction included (its one check query)::

    af.from_scores(lf, decision=...).evaluate()    # the full report: 21 measures x 4 operators

for ``argmax``, ``top_k`` (k=2) and ``threshold`` (0.3).

The bare passes do the least any argmax report needs: the predicted (and true) class per
example in one group-by, then the (true, predicted) confusion counts; no checks, no tie
rule, no measures. ``bare_arg_max`` is the pass of issue #14 (``class.get(score.arg_max())``);
``bare_sort_by`` is the fastest bare pass found (``class.sort_by(score).first()``, which
Polars runs as an arg-max; the same without the tie rule). Ratios are aggframe / bare.
Each variant runs in a fresh process: best of ``--repeat`` wall and CPU (user + sys, all
threads) times, and peak RSS. Nothing is asserted; results go to
``benchmarks/_out/bench_decisions.json``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

OUT = Path(__file__).resolve().parent / "_out"
N_CLASSES, SEED, TARGET = 10, 20_260_114, 1.5
VARIANTS = ("bare_arg_max", "bare_sort_by", "argmax", "top_k", "threshold")


def make_data(n_examples: int) -> pl.DataFrame:
    rng = np.random.default_rng(SEED)
    truth = rng.integers(0, N_CLASSES, n_examples)
    logits = rng.normal(size=(n_examples, N_CLASSES)) + 1.5 * np.eye(N_CLASSES)[truth]
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    klass = np.tile(np.arange(N_CLASSES), n_examples)
    return pl.DataFrame(
        {
            "example": np.repeat(np.arange(n_examples), N_CLASSES),
            "class": klass,
            "score": p.ravel(),
            "y": (klass == np.repeat(truth, N_CLASSES)).astype(np.int8),
        }
    )


def bare(lf: pl.LazyFrame, *, sort_by: bool) -> pl.DataFrame:
    c, s, y = pl.col("class"), pl.col("score"), pl.col("y")
    if sort_by:
        per = [
            c.sort_by(s, descending=True).first().alias("pred"),
            c.sort_by(y, descending=True).first().alias("true"),
        ]
    else:
        per = [c.get(s.arg_max()).alias("pred"), c.get(y.arg_max()).alias("true")]
    return lf.group_by("example").agg(*per).group_by("true", "pred").len().collect()


def report(lf: pl.LazyFrame, decision: str) -> pl.DataFrame:
    import aggframe as af

    options: dict[str, object] = {"decision": decision}
    if decision == "top_k":
        options["k"] = 2
    if decision == "threshold":
        options["threshold"] = 0.3
    return af.from_scores(lf, **options).evaluate()  # type: ignore[arg-type]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(variant: str, n_examples: int, repeat: int) -> dict[str, float]:
    lf = make_data(n_examples).lazy()
    runs: dict[str, Callable[[], object]] = {
        "bare_arg_max": lambda: bare(lf, sort_by=False),
        "bare_sort_by": lambda: bare(lf, sort_by=True),
        "argmax": lambda: report(lf, "argmax"),
        "top_k": lambda: report(lf, "top_k"),
        "threshold": lambda: report(lf, "threshold"),
    }
    fn = runs[variant]
    fn()  # warm-up
    walls, cpus = [], []
    for _ in range(repeat):
        c0, t0 = _cpu(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(_cpu() - c0)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    return {"wall_s": min(walls), "cpu_s": min(cpus), "peak_rss_gib": rss}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1M rows")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=list(VARIANTS))
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), args.repeat)))
        return
    n_examples = 100_000 if args.quick else 1_000_000
    row: dict[str, dict[str, float]] = {}
    for variant in args.only:
        cmd = [sys.executable, __file__, "--repeat", str(args.repeat), "--child", variant, str(n_examples)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        row[variant] = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{variant:>13}: {row[variant]}", flush=True)
    for base in ("bare_arg_max", "bare_sort_by"):
        if base not in row:
            continue
        for variant in ("argmax", "top_k", "threshold"):
            if variant in row:
                wall = row[variant]["wall_s"] / row[base]["wall_s"]
                cpu = row[variant]["cpu_s"] / row[base]["cpu_s"]
                row[variant][f"wall_ratio_{base}"] = round(wall, 2)
                row[variant][f"cpu_ratio_{base}"] = round(cpu, 2)
                print(
                    f"{variant:>13} / {base}: wall {wall:.2f}x, cpu {cpu:.2f}x (target {TARGET}x)", flush=True
                )
    OUT.mkdir(exist_ok=True)
    (OUT / "bench_decisions.json").write_text(
        json.dumps({"rows": n_examples * N_CLASSES, "results": row}, indent=2)
    )


if __name__ == "__main__":
    main()
