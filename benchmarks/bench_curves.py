"""Measures on scores: AUROC + AP, micro and macro, per group, through the public API, against a bare Polars pass.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_curves.py            # 10M score rows (1M examples x 10 classes), 100 groups
    PYTHONPATH=. python benchmarks/bench_curves.py --quick    # 1M score rows

The data (seeded, in memory, one Polars frame): one row per (example, class), 100 groups
(``example % 100``), one true class per example, and scores either continuous (every score
distinct: the per-score table is as large as the input, the worst case) or rounded to 3
decimals (heavy ties).

aggframe, through the public API (construction included: its one check query)::

    af.from_scores(lf, decision="argmax").evaluate(["auroc", "average_precision"], ["micro", "macro"], by="g")

``api`` is exact (Polars: the rows go to one sort by score, no group-by on the scores);
``api_bins`` quantises to 1,000 cells (``from_scores(bins=1000)``: the engines' path, a
group-by on (group, class, cell)).

The bare pass is what any exact per-class AUROC needs at least: sort the rows by score,
cumulative sum of the positives per (group, class), one sum per (group, class) (it ignores
ties and computes neither AP nor micro). Each variant runs in a fresh process: the best of
``--repeat`` runs of its wall time and of its CPU time (user + sys, all threads: robust on a
loaded machine), and the process's peak RSS (data included). Nothing is asserted; results
go to ``benchmarks/_out/bench_curves.json``.
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
N_CLASSES, N_GROUPS, SEED, TARGET = 10, 100, 20_260_114, 2.0
VARIANTS = ("bare", "api", "api_bins")


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
    return pl.DataFrame(
        {
            "example": example,
            "g": (example % N_GROUPS).astype(np.int32),
            "class": klass,
            "score": score,
            "y": y,
        }
    )


def bare(lf: pl.LazyFrame) -> pl.DataFrame:
    tp = pl.col("y").cast(pl.Int64).cum_sum().over("g", "class")
    return (
        lf.sort("score", descending=True)
        .with_columns(tp.alias("tp"))
        .group_by("g", "class")
        .agg(((1 - pl.col("y")).cast(pl.Int64) * pl.col("tp")).sum())
        .collect()
    )


def api(lf: pl.LazyFrame, bins: int | None = None) -> pl.DataFrame:
    import aggframe as af

    pr = af.from_scores(lf, decision="argmax", bins=bins)
    return pr.evaluate(["auroc", "average_precision"], ["micro", "macro"], by="g")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(variant: str, n_examples: int, decimals: int | None, repeat: int) -> dict[str, float]:
    """One variant in this (fresh) process: best wall and CPU time, peak RSS."""
    lf = make_data(n_examples, decimals).lazy()
    runs: dict[str, Callable[[], object]] = {
        "bare": lambda: bare(lf),
        "api": lambda: api(lf),
        "api_bins": lambda: api(lf, bins=1000),
    }
    fn = runs[variant]
    fn()  # warm-up
    walls, cpus = [], []
    for _ in range(repeat):
        c0, t0 = _cpu(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(_cpu() - c0)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2  # KiB -> GiB
    return {"wall_s": min(walls), "cpu_s": min(cpus), "peak_rss_gib": rss}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1M rows")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        variant, n, decimals = args.child
        out = child(variant, int(n), None if decimals == "none" else int(decimals), args.repeat)
        print(json.dumps(out))
        return
    n_examples = 100_000 if args.quick else 1_000_000
    results = []
    for label, decimals in (("continuous", None), ("ties_3_decimals", 3)):
        row: dict[str, object] = {"data": label, "rows": n_examples * N_CLASSES, "groups": N_GROUPS}
        for variant in VARIANTS:
            cmd = [
                sys.executable,
                __file__,
                "--repeat",
                str(args.repeat),
                "--child",
                variant,
                str(n_examples),
            ]
            cmd.append("none" if decimals is None else str(decimals))
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            row[variant] = json.loads(done.stdout.strip().splitlines()[-1])
        base = row["bare"]
        assert isinstance(base, dict)
        for variant in VARIANTS[1:]:
            got = row[variant]
            assert isinstance(got, dict)
            got["wall_ratio"] = round(got["wall_s"] / base["wall_s"], 2)
            got["cpu_ratio"] = round(got["cpu_s"] / base["cpu_s"], 2)
        results.append(row)
        print(
            f"{label:>16}: bare sort + cum_sum wall {base['wall_s']:.2f} s, cpu {base['cpu_s']:.2f} s; "
            + "; ".join(
                f"{v} wall {row[v]['wall_s']:.2f} s ({row[v]['wall_ratio']}x), "  # type: ignore[index]
                f"cpu {row[v]['cpu_s']:.2f} s ({row[v]['cpu_ratio']}x), rss {row[v]['peak_rss_gib']:.2f} GiB"  # type: ignore[index]
                for v in VARIANTS[1:]
            )
            + f" (bare rss {base['peak_rss_gib']:.2f} GiB); target {TARGET}x",
            flush=True,
        )
    OUT.mkdir(exist_ok=True)
    (OUT / "bench_curves.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
