"""Estimation over time windows and as stored cells, against the plain estimate and a bare Polars pass.

Run from the repository root: ``python benchmarks/bench_estimate_ops.py [n_rows]``. Binary scores
over 90 days and a 20-value key; the map is fitted once (20,000 reference rows). Prints wall
times and the ratios of

- ``estimate(..., time="day", every="1d")`` and ``every="1w"`` to ``estimate(..., by=["day", "g"])``
  (the same plan with the day as a plain key: the windows' own cost is the bucket column);
- ``every="1d", period="7d"`` (no draws: the daily sums of the scan summed into the 7-day windows;
  before, each row joined its 7 windows: 8.6x at 500k rows) to the same, and the same windows
  summed from daily expected cells (``expected_cells(by=["day", "g"])``, then the windows of stored
  cells);
- ``expected_cells(...)`` (the cells collected) to ``estimate(..., by="g")``;
- each to a bare Polars group-by of the thresholded score per (day, g).

Timings are on a shared machine: the ratios are what count.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).parent))
from _timing import best

import aggframe as af

MEASURES = ["f1", "precision", "recall"]


def log(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return pl.DataFrame(
        {
            "score": s,
            "y": (rng.uniform(size=n) < s**2).astype(np.int64),
            "g": rng.integers(0, 20, size=n),
            "day": pl.Series(rng.integers(19_700, 19_790, size=n), dtype=pl.Int32).cast(pl.Date),
        }
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    warnings.simplefilter("ignore")
    print(f"n_rows={n:,}, 90 days, 20 groups (shared machine: read the ratios)")
    frame = log(n, 1)
    cmap = af.fit_calibration(af.from_scores(log(20_000, 2), class_=None))

    def data() -> af.Predictions:  # a fresh Predictions per call (no cached cell tables)
        return af.from_scores(frame, class_=None)

    t_key = best(lambda: af.estimate(cmap, data(), MEASURES, "binary", by=["day", "g"]))
    t_day = best(lambda: af.estimate(cmap, data(), MEASURES, "binary", by="g", time="day", every="1d"))
    t_week = best(lambda: af.estimate(cmap, data(), MEASURES, "binary", by="g", time="day", every="1w"))
    t_roll = best(
        lambda: af.estimate(cmap, data(), MEASURES, "binary", by="g", time="day", every="1d", period="7d"),
        reps=1,
    )
    t_cells_roll = best(
        lambda: af.from_cells(af.expected_cells(cmap, data(), by=["day", "g"])).evaluate(
            MEASURES, "binary", by="g", time="day", every="1d", period="7d"
        )
    )
    t_plain = best(lambda: af.estimate(cmap, data(), MEASURES, "binary", by="g"))
    t_cells = best(lambda: af.expected_cells(cmap, data(), by="g"))
    t_bare = best(
        lambda: (
            frame.lazy()
            .group_by("day", "g")
            .agg(
                ((pl.col("score") > 0.5) & (pl.col("y") == 1)).sum().alias("tp"),
                (pl.col("score") > 0.5).sum().alias("pp"),
                pl.col("y").sum().alias("p"),
            )
            .collect()
        )
    )
    rows = [
        ("estimate by=[day, g]", t_key, 1.0),
        ("estimate every=1d", t_day, t_day / t_key),
        ("estimate every=1w", t_week, t_week / t_key),
        ("estimate every=1d period=7d", t_roll, t_roll / t_key),
        ("daily expected cells, 7d windows", t_cells_roll, t_cells_roll / t_key),
        ("estimate by=g (no time)", t_plain, t_plain / t_key),
        ("expected_cells by=g", t_cells, t_cells / t_plain),
    ]
    print(f"{'':32} {'seconds':>8} {'ratio':>8} {'/ bare':>8}   (ratio: to the line it is compared with)")
    for name, t, ratio in rows:
        print(f"{name:32} {t:8.3f} {ratio:8.2f} {t / t_bare:8.1f}")
    print(f"{'bare Polars group-by (day, g)':32} {t_bare:8.3f}")
    print("every=...: to estimate by=[day, g]; expected_cells: to estimate by=g")


if __name__ == "__main__":
    main()
