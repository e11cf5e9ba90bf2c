"""Estimation before the labels arrive: ``af.estimate`` against ``evaluate`` with decisions on the same rows.

Run from the repository root::

    python benchmarks/bench_estimate.py [n_rows ...]          # times and ratios (default 1M and 10M)
    python benchmarks/bench_estimate.py --memory [n_rows]     # peak memory of each, one process each

Binary scores (one row per example, the truth present: estimate gives the estimated and the
realized values, evaluate the realized ones, on the same rows) and wide 3-class
scores (argmax, ``n_rows / 3`` examples), grouped by a 20-value key, read from a Parquet file
(a lazy scan, as a log would be). The calibration map is fitted once on a 20,000-row reference
(``estimate`` with the reference itself refits it each call: a few milliseconds). Prints wall
times and the ratios estimate / evaluate (the same measures with the decisions, on the labelled
rows) and estimate / a bare Polars pass (one group-by of the thresholded score). Peak memory
comes from ``/usr/bin/time -v`` around a process that runs one call. Timings are on a shared
machine (2 cores, other jobs running): the ratios are what count.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).parent))
from _timing import best, calls_main

import aggframe as af

MEASURES = ["f1", "precision", "recall"]
READ = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}


def binary(n: int, seed: int, *, hidden: bool = False) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    y = pl.Series("y", (rng.uniform(size=n) < s**2).astype(np.int64))
    frame = pl.DataFrame({"score": s, "y": y, "g": rng.integers(0, 20, size=n)})
    if hidden:  # a third of the truth has not arrived
        frame = frame.with_columns(pl.when(pl.int_range(pl.len()) % 3 != 0).then(pl.col("y")).alias("y"))
    return frame


def wide(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet([2.0, 1.0, 1.0], size=n)
    y = (rng.uniform(size=n)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    return pl.DataFrame(
        {"y_true": y, "p_0": p[:, 0], "p_1": p[:, 1], "p_2": p[:, 2], "g": rng.integers(0, 20, size=n)}
    )


def _files(n: int, where: Path) -> tuple[Path, Path]:
    b, w = where / f"binary_{n}.parquet", where / f"wide_{n}.parquet"
    if not b.exists():
        binary(n, 1).write_parquet(b)
        wide(n // 3, 3).write_parquet(w)
    return b, w


def _calls(n: int, where: Path) -> dict[str, object]:
    """The calls measured: name -> a function of no arguments."""
    b, w = _files(n, where)
    cmap_b = af.fit_calibration(af.from_scores(binary(20_000, 2), class_=None))
    cmap_w = af.fit_calibration(af.from_scores(wide(20_000, 4), **READ))  # type: ignore[arg-type]
    labelled = pl.scan_parquet(
        b
    )  # every truth present: estimate reads the same rows (and their realized cells)
    s = pl.col("score")
    return {
        "binary estimate": lambda: af.estimate(
            cmap_b, af.from_scores(pl.scan_parquet(b), class_=None), MEASURES, "binary", by="g"
        ),
        "binary evaluate": lambda: af.from_scores(labelled, class_=None).evaluate(MEASURES, "binary", by="g"),
        "binary bare": lambda: (
            labelled.group_by("g")
            .agg(((s > 0.5) & (pl.col("y") == 1)).sum(), (s > 0.5).sum().alias("pp"), pl.col("y").sum())
            .collect()
        ),
        "wide estimate": lambda: af.estimate(
            cmap_w,
            af.from_scores(pl.scan_parquet(w), **READ),
            MEASURES,
            ["macro", "micro"],
            by="g",  # type: ignore[arg-type]
        ),
        "wide evaluate": lambda: af.from_scores(pl.scan_parquet(w), **READ).evaluate(  # type: ignore[arg-type]
            MEASURES, ["macro", "micro"], by="g"
        ),
    }


def times(sizes: list[int], where: Path) -> None:
    for n in sizes:
        calls = _calls(n, where)
        t = {name: best(fn, reps=3) for name, fn in calls.items()}  # type: ignore[arg-type]
        print(
            f"n_rows={n:>11,}  binary: estimate {t['binary estimate']:.3f}s  evaluate {t['binary evaluate']:.3f}s  "
            f"bare {t['binary bare']:.3f}s  estimate/evaluate {t['binary estimate'] / t['binary evaluate']:.2f}  "
            f"estimate/bare {t['binary estimate'] / t['binary bare']:.1f}"
        )
        print(
            f"{'':17}wide x3 ({n // 3:,} examples): estimate {t['wide estimate']:.3f}s  "
            f"evaluate {t['wide evaluate']:.3f}s  estimate/evaluate {t['wide estimate'] / t['wide evaluate']:.2f}"
        )


def main() -> None:
    calls_main(
        __file__,
        _calls,
        times,
        sizes=[1_000_000, 10_000_000],
        memory_rows=10_000_000,
        memory_names=["binary estimate", "binary evaluate", "wide estimate", "wide evaluate"],
    )


if __name__ == "__main__":
    main()
