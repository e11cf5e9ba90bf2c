"""Cross-validation benchmark: 5-fold x 10-repeat CV of 1M single-label predictions.

Run from the repository root::

    python benchmarks/bench_folds.py            # 1M examples x 10 repeats = 10M rows, best of 3
    python benchmarks/bench_folds.py --quick    # 100k examples, 1 repetition

The data (seeded): for every repeat a fresh 5-fold assignment of 1M examples of 100
classes, one row per (repeat, example): repeat, fold, example, y_true, y_pred, written
as Parquet under ``benchmarks/_data/``. Timed, each from a fresh ``pl.scan_parquet``:

* ``bare``: the one aggregation any fold-aware confusion evaluation needs,
  ``group_by("repeat", "fold", "y_true", "y_pred").agg(pl.len())``;
* ``aggframe``: the full report (21 measures x micro/macro/weighted/exemplar) pooled
  and averaged over the 50 folds, plus the per-fold min/max/std rows;
* ``aggframe+example``: the same with the example column, which adds the check that
  no example repeats inside a fold (a second aggregation over the rows).

Ratios to the bare pass are printed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np
import polars as pl
from _timing import best

import aggframe as af

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
OUT = HERE / "_out"


def make_data(n: int, repeats: int, k: int, m: int, seed: int = 7) -> Path:
    path = DATA / f"cv_{n}x{repeats}_{k}f_{m}c.parquet"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.ones(m))
    y = rng.choice(m, size=n, p=prior)
    frames = []
    for r in range(repeats):
        fold = rng.permutation(np.arange(n) % k)
        p = np.where(rng.random(n) < 0.7, y, rng.choice(m, size=n, p=prior))
        frames.append(
            pl.DataFrame(
                {
                    "repeat": np.full(n, r, dtype=np.int16),
                    "fold": fold.astype(np.int16),
                    "example": np.arange(n, dtype=np.int64),
                    "y_true": y.astype(np.int32),
                    "y_pred": p.astype(np.int32),
                }
            )
        )
    pl.concat(frames).write_parquet(path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, reps = (100_000, 1) if args.quick else (1_000_000, 3)
    path = make_data(n, repeats=10, k=5, m=100)
    pooling = ["pooled", "averaged", "min", "max", "std"]

    def bare() -> None:
        pl.scan_parquet(path).group_by("repeat", "fold", "y_true", "y_pred").agg(pl.len()).collect()

    def report(example: str | None) -> pl.DataFrame:
        pr = af.from_labels(
            pl.scan_parquet(path), example=example, fold="fold", repeat="repeat", n_classes=100
        )
        out = pr.evaluate(pooling=pooling)
        assert isinstance(out, pl.DataFrame)
        return out

    rows = report(None).height
    t_bare = best(bare, reps)
    t_af = best(lambda: report(None), reps)
    t_ex = best(lambda: report("example"), reps)
    result = {
        "rows": n * 10,
        "folds": 50,
        "report_rows": rows,
        "cores": os.cpu_count(),
        "polars": pl.__version__,
        "seconds": {"bare": t_bare, "aggframe": t_af, "aggframe+example": t_ex},
        "ratio": {"aggframe": t_af / t_bare, "aggframe+example": t_ex / t_bare},
    }
    print(f"{n * 10:,} rows, 5 folds x 10 repeats, 100 classes; report: {rows} rows")
    print(f"{'pass':<20}{'seconds':>10}{'x bare':>10}")
    for name, t in result["seconds"].items():
        print(f"{name:<20}{t:>10.3f}{t / t_bare:>10.2f}")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "bench_folds.json").write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
