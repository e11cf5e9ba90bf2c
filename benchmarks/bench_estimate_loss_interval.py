"""The interval of the estimated log loss and Brier: ``af.estimate`` with and without draws.

Run from the repository root::

    python benchmarks/bench_estimate_loss_interval.py [n_examples ...]   # default 300,000 and 1,000,000

Binary scores (one row per example) and wide 3-class scores (argmax: single-label, so the
interval sums each example's covariance with one more window per example), grouped by a
20-value key, read from Parquet. The calibration map is fitted once on 20,000 rows. Prints
wall times and the ratios with draws / without (``n_draws=200``) and without / a bare Polars
pass (one group-by summing the log loss). Timings are on a shared machine (2 cores, other
jobs running): the ratios are what count.
"""

from __future__ import annotations

import sys
import tempfile
import warnings
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).parent))
from _timing import best
from bench_estimate import READ, binary, wide

import aggframe as af

LOSSES = ["log_loss", "brier"]
OPERATORS = ["micro", "macro"]


def _bare(path: Path, probability: pl.Expr, truth: pl.Expr) -> object:
    p = probability.clip(1e-15, 1 - 1e-15)
    loss = -(truth * p.log() + (1 - truth) * (1 - p).log())
    return pl.scan_parquet(path).group_by("g").agg(loss.sum()).collect()


def times(sizes: list[int], where: Path) -> None:
    cmap_b = af.fit_calibration(af.from_scores(binary(20_000, 2), class_=None))
    cmap_w = af.fit_calibration(af.from_scores(wide(20_000, 4), **READ))  # type: ignore[arg-type]
    for n in sizes:
        b, w = where / f"b{n}.parquet", where / f"w{n}.parquet"
        binary(n, 1).write_parquet(b)
        wide(n, 3).write_parquet(w)
        for name, cmap, path, read, bare in (
            ("binary", cmap_b, b, {"class_": None}, lambda p=b: _bare(p, pl.col("score"), pl.col("y"))),
            ("wide x3", cmap_w, w, READ, lambda p=w: _bare(p, pl.col("p_0"), (pl.col("y_true") == 0))),
        ):

            def run(draws: int, cmap: object = cmap, path: Path = path, read: dict = read) -> object:  # type: ignore[type-arg]
                data = af.from_scores(pl.scan_parquet(path), **read)
                return af.estimate(cmap, data, LOSSES, OPERATORS, by="g", n_draws=draws)  # type: ignore[arg-type]

            t0, t1, tb = best(lambda: run(0)), best(lambda: run(200)), best(bare)
            print(
                f"n={n:>10,} {name:8} no draws {t0:.3f}s  200 draws {t1:.3f}s  bare {tb:.3f}s  "
                f"draws/none {t1 / t0:.2f}  none/bare {t0 / tb:.1f}"
            )


def main() -> None:
    warnings.simplefilter("ignore")
    print("shared machine (2 cores, other jobs running): read the ratios")
    with tempfile.TemporaryDirectory() as tmp:
        times([int(a) for a in sys.argv[1:]] or [300_000, 1_000_000], Path(tmp))


if __name__ == "__main__":
    main()
