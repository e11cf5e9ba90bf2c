"""Windows over time: 7-day windows every day against one evaluation per (day, group).

Run from the repository root::

    python benchmarks/bench_windows.py             # 10M label rows, 90 days, 100 groups, best of 3
    python benchmarks/bench_windows.py --rows 2000000 --reps 1

The rows are single-label predictions (10 classes, ~70% right) of 100 groups over 90
days, in memory. Timed, best of ``--reps`` after a warm-up:

* ``bare``: a bare Polars pass, ``group_by(day, group)`` counting rows and right
  predictions (the floor: one pass over the rows at the day grain).
* ``by day``: ``evaluate(4 measures, [micro, macro], by=[day, group])``.
* ``windows``: ``evaluate(..., by=group, time=day, every="1d", period="7d")``: the same
  scan at the day grain, then 90 windows as sums of 7 day-tables each.
* ``windows 28d``: the same with ``period="28d"``: the cost should barely move (the windows
  are sums over the small cell tables, not a re-read of the rows per window).

Target: ``windows`` within 1.5x of ``by day``. The machine is shared (2 cores, other jobs
running): ratios are what count. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import best

import aggframe as af

MEASURES = ["f1", "precision", "recall", "jaccard"]
OPERATORS = ["micro", "macro"]


def make_frame(rows: int, days: int, groups: int, classes: int = 10) -> pl.DataFrame:
    rng = np.random.default_rng(20_261_204)
    y = rng.integers(0, classes, rows, dtype=np.int32)
    wrong = (y + rng.integers(1, classes, rows, dtype=np.int32)) % classes
    p = np.where(rng.random(rows) < 0.7, y, wrong).astype(np.int32)
    day = rng.integers(0, days, rows, dtype=np.int32)
    return pl.DataFrame(
        {
            "day": pl.Series(day + (dt.date(2024, 1, 1) - dt.date(1970, 1, 1)).days).cast(pl.Date),
            "group": rng.integers(0, groups, rows, dtype=np.int32),
            "y_true": y,
            "y_pred": p,
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    df = make_frame(args.rows, args.days, args.groups)

    def bare() -> object:
        right = (pl.col("y_true") == pl.col("y_pred")).sum()
        return df.lazy().group_by("day", "group").agg(pl.len(), right).collect()

    def by_day() -> object:
        return af.from_labels(df).evaluate(MEASURES, OPERATORS, by=["day", "group"])

    def windows(period: str) -> object:
        return af.from_labels(df).evaluate(
            MEASURES, OPERATORS, by="group", time="day", every="1d", period=period
        )

    out = af.from_labels(df).evaluate(MEASURES, OPERATORS, by="group", time="day", every="1d", period="7d")
    times = {
        "bare": best(bare, args.reps),
        "by day": best(by_day, args.reps),
        "windows": best(lambda: windows("7d"), args.reps),
        "windows 28d": best(lambda: windows("28d"), args.reps),
    }
    print(
        f"{args.rows:,} rows, {args.days} days, {args.groups} groups; {out.height:,} result rows (shared machine)"
    )
    for name, t in times.items():
        print(
            f"  {name:12s} {t:7.3f} s   {t / times['by day']:5.2f}x by day   {t / times['bare']:5.2f}x bare"
        )
    print(f"target: windows within 1.5x of by day -> {times['windows'] / times['by day']:.2f}x")


if __name__ == "__main__":
    main()
