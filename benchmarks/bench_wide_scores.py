"""Wide probability tables in ``from_scores``: the wide layout against the long layout and a bare Polars pass.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_wide_scores.py            # 1M examples x 10 classes
    PYTHONPATH=. python benchmarks/bench_wide_scores.py --quick    # 200k examples x 10 classes

The data (seeded, in memory): one row per example, its true class, 100 groups and the
probabilities of 10 classes (``p_0 .. p_9``, rows summing to 1). Three variants, each in a
fresh process, the same report (AUROC and F1 on argmax, micro and macro, by group):

``wide``
    ``af.from_scores(wide, y_true="y_true", scores="p_*")``: construction (its check
    queries) and the evaluation, the unpivot inside the plan.
``long``
    The same probabilities already unpivoted to the long layout in memory (the unpivot is
    not timed), ``af.from_scores(long, decision="argmax")``.
``bare``
    What any exact per-class AUROC over the wide table needs at least, in Polars: unpivot,
    sort by score, cumulative sum of the positives per (group, class), one sum per (group,
    class) (no ties, no AP, no F1, no micro, no checks).

Printed: the best wall and CPU time (user + sys, all threads: robust on a loaded machine) of
``--repeat`` runs and the peak RSS of each, and the ratios to ``bare`` and ``wide / long``.
The machine these numbers come from is shared: the ratios are what count. Nothing is
asserted; results go to ``benchmarks/_out/bench_wide_scores.json``.
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
N_CLASSES, N_GROUPS, SEED = 10, 100, 20_261_204
VARIANTS = ("bare", "long", "wide")
COLUMNS = [f"p_{c}" for c in range(N_CLASSES)]


def make_wide(n: int) -> pl.DataFrame:
    rng = np.random.default_rng(SEED)
    y = rng.integers(0, N_CLASSES, n)
    logits = rng.normal(size=(n, N_CLASSES))
    logits[np.arange(n), y] += 1.0
    proba = np.exp(logits)
    proba /= proba.sum(axis=1, keepdims=True)
    return pl.DataFrame(
        {
            "g": (np.arange(n) % N_GROUPS).astype(np.int32),
            "y_true": y,
            **dict(zip(COLUMNS, proba.T, strict=True)),
        }
    )


def make_long(wide: pl.DataFrame) -> pl.DataFrame:
    return (
        wide.with_row_index("example")
        .unpivot(on=COLUMNS, index=["example", "g", "y_true"], variable_name="c", value_name="score")
        .with_columns(pl.col("c").str.strip_prefix("p_").cast(pl.Int64).alias("class"))
        .with_columns((pl.col("class") == pl.col("y_true")).cast(pl.Int8).alias("y"))
        .drop("c", "y_true")
    )


def bare(lf: pl.LazyFrame) -> pl.DataFrame:
    long = lf.unpivot(on=COLUMNS, index=["g", "y_true"], variable_name="c", value_name="score").with_columns(
        (pl.col("c").str.strip_prefix("p_").cast(pl.Int64) == pl.col("y_true")).cast(pl.Int64).alias("y")
    )
    tp = pl.col("y").cum_sum().over("g", "c")
    return (
        long.sort("score", descending=True)
        .with_columns(tp.alias("tp"))
        .group_by("g", "c")
        .agg(((1 - pl.col("y")) * pl.col("tp")).sum())
        .collect()
    )


def report(pr: object) -> pl.DataFrame:
    return pr.evaluate(["auroc", "f1"], ["micro", "macro"], by="g")  # type: ignore[attr-defined, no-any-return]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(variant: str, n: int, repeat: int) -> dict[str, float]:
    import aggframe as af

    wide = make_wide(n)
    long = make_long(wide) if variant == "long" else None
    runs: dict[str, Callable[[], object]] = {
        "bare": lambda: bare(wide.lazy()),
        "long": lambda: report(af.from_scores(long, decision="argmax")),
        "wide": lambda: report(af.from_scores(wide, y_true="y_true", scores="p_*")),
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
    parser.add_argument("--quick", action="store_true", help="200k examples")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), args.repeat)))
        return
    n = 200_000 if args.quick else 1_000_000
    row: dict[str, dict[str, float]] = {}
    for variant in VARIANTS:
        cmd = [sys.executable, __file__, "--repeat", str(args.repeat), "--child", variant, str(n)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        row[variant] = json.loads(done.stdout.strip().splitlines()[-1])
    base = row["bare"]
    for variant in ("long", "wide"):
        row[variant]["wall_ratio_to_bare"] = round(row[variant]["wall_s"] / base["wall_s"], 2)
        row[variant]["cpu_ratio_to_bare"] = round(row[variant]["cpu_s"] / base["cpu_s"], 2)
    wide_long = round(row["wide"]["cpu_s"] / row["long"]["cpu_s"], 2)
    print(f"{n:,} examples x {N_CLASSES} classes, {N_GROUPS} groups (a shared machine: ratios count)")
    for variant in VARIANTS:
        r = row[variant]
        ratio = (
            ""
            if variant == "bare"
            else f" ({r['wall_ratio_to_bare']}x wall, {r['cpu_ratio_to_bare']}x cpu of bare)"
        )
        print(
            f"  {variant:>5}: wall {r['wall_s']:.2f} s, cpu {r['cpu_s']:.2f} s, rss {r['peak_rss_gib']:.2f} GiB{ratio}"
        )
    print(f"  wide / long (cpu): {wide_long}x (the long layout's unpivot is not timed)")
    OUT.mkdir(exist_ok=True)
    (OUT / "bench_wide_scores.json").write_text(
        json.dumps({"examples": n, **row, "wide_over_long_cpu": wide_long}, indent=2)
    )


if __name__ == "__main__":
    main()
