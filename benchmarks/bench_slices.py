"""Slice search (issue #32): its cost against one bootstrap evaluation, and its error rates.

Run from the repository root::

    python benchmarks/bench_slices.py                  # 10M rows, B = 200 (minutes, GBs)
    python benchmarks/bench_slices.py --rows 2000000   # fewer rows
    python benchmarks/bench_slices.py --quick          # 200k rows, B = 50: a smoke run
    python benchmarks/bench_slices.py --errors         # the error-rate simulation, full size
    /usr/bin/time -v python benchmarks/bench_slices.py --only slices   # one candidate: its peak memory

**Speed.** The data (seeded): ``rows`` examples, five slice columns of 3, 5, 8, 12 and 20
levels, ``y_true`` and ``y_pred`` over 6 classes (75% right). Each candidate gets a fresh
``Predictions`` (nothing cached) and is timed best of ``--repeat``:

``bare``      a bare Polars pass: the (5 columns, y_true, y_pred) counts, no bootstrap
``evaluate``  ``pr.evaluate("f1", "macro", by=<the 5 columns>, n_boot=B)``: one scan, intervals
``slices``    ``pr.slices("f1", "macro", columns=<the 5 columns>, max_depth=2, n_boot=B)``:
              the same scan (the finest grouping's bootstrap cell tables), then every
              slice of up to 2 columns and its complement rolled up from those tables

The target (the issue): ``slices`` within 3x of ``evaluate``. Ratios are printed; nothing is
asserted. The machine may be shared: ratios are what count.

**Errors** (``--errors``). ``runs`` independent null data sets (no slice differs), each its
own ``slices`` call (2 columns of 3 and 4 levels, depth 2, 19 slices, 3000 rows, macro
recall, B = 200): the share of runs with any significant slice under Holm (the family-wise
error) and under Benjamini-Hochberg (the mean false discovery proportion: with no planted
effect every discovery is false), with a binomial standard error. The test suite runs a
cheaper version (tests/decisions/test_slices_errors.py: many families in one call).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # this checkout's aggframe, not an editable install's

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

import aggframe as af  # noqa: E402

LEVELS = (3, 5, 8, 12, 20)
COLUMNS = [f"c{k}" for k in LEVELS]


def _data(rows: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 6, rows, dtype=np.int32)
    p = np.where(rng.random(rows) < 0.75, y, rng.integers(0, 6, rows, dtype=np.int32))
    cols = {c: rng.integers(0, k, rows, dtype=np.int32) for c, k in zip(COLUMNS, LEVELS, strict=True)}
    return pl.DataFrame({"example": np.arange(rows), **cols, "y_true": y, "y_pred": p})


def _best(fn: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return min(times)


def speed(rows: int, n_boot: int, repeat: int, only: str | None = None) -> None:
    df = _data(rows)
    print(f"{rows:,} rows, columns {dict(zip(COLUMNS, LEVELS, strict=True))}, B = {n_boot}; shared machine")

    def bare() -> None:
        df.lazy().group_by([*COLUMNS, "y_true", "y_pred"]).agg(pl.len()).collect()

    def evaluate() -> None:
        af.from_labels(df, example="example").evaluate("f1", "macro", by=COLUMNS, n_boot=n_boot)

    found: dict[str, pl.DataFrame] = {}

    def slices() -> None:
        found["out"] = af.from_labels(df, example="example").slices(
            "f1", "macro", columns=COLUMNS, max_depth=2, n_boot=n_boot
        )

    if only:  # one candidate per process: its peak memory under /usr/bin/time -v
        took = _best({"evaluate": evaluate, "slices": slices}[only], repeat)
        print(f"{only}  {took:8.2f} s")
        return
    t_bare, t_eval, t_slices = _best(bare, repeat), _best(evaluate, repeat), _best(slices, repeat)
    out = found["out"]
    print(f"bare      {t_bare:8.2f} s")
    print(f"evaluate  {t_eval:8.2f} s   {t_eval / t_bare:6.1f}x bare")
    print(
        f"slices    {t_slices:8.2f} s   {t_slices / t_bare:6.1f}x bare   {t_slices / t_eval:5.2f}x evaluate"
    )
    print(f"{out.height} slices tested, {int(out['significant'].sum())} significant (no planted effect)")


def errors(runs: int, n_boot: int, rows: int = 3000) -> None:
    any_holm = any_bh = 0
    t0 = time.perf_counter()
    for r in range(runs):
        rng = np.random.default_rng(1000 + r)
        y = rng.integers(0, 3, rows)
        p = np.where(rng.random(rows) < 0.75, y, rng.integers(0, 3, rows))
        df = pl.DataFrame(
            {
                "example": np.arange(rows),
                "a": rng.integers(0, 3, rows),
                "b": rng.integers(0, 4, rows),
                "y_true": y,
                "y_pred": p,
            }
        )
        pr = af.from_labels(df, example="example")
        holm = pr.slices("recall", "macro", columns=["a", "b"], n_boot=n_boot, seed=r, min_examples=100)
        bh = pr.slices(
            "recall", "macro", columns=["a", "b"], n_boot=n_boot, seed=r, min_examples=100, correction="bh"
        )
        any_holm += bool(holm["significant"].any())
        any_bh += bool(bh["significant"].any())
    took = time.perf_counter() - t0
    for name, k in (("Holm family-wise error", any_holm), ("BH false discovery proportion", any_bh)):
        rate = k / runs
        se = math.sqrt(rate * (1 - rate) / runs)
        print(f"{name:32s} {rate:.3f} +- {se:.3f}  ({k} of {runs} runs; alpha 0.05)")
    print(f"{runs} runs of {rows} rows, B = {n_boot}, in {took:.0f} s (shared machine)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="200k rows, B = 50")
    parser.add_argument("--errors", action="store_true", help="the error-rate simulation instead")
    parser.add_argument(
        "--only", choices=["evaluate", "slices"], help="time one candidate alone (for its peak memory)"
    )
    parser.add_argument("--runs", type=int, default=400, help="with --errors: the number of runs")
    args = parser.parse_args()
    if args.errors:
        errors(args.runs, args.n_boot)
        return
    rows, n_boot = (200_000, 50) if args.quick else (args.rows, args.n_boot)
    speed(rows, n_boot, args.repeat, args.only)


if __name__ == "__main__":
    main()
