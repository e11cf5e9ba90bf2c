"""The fixed cost of ``n_boot`` on tiny data: evaluate(n_boot=...) on 40 rows (issue: ~1 s at 200).

Run from the repository root::

    python benchmarks/bench_boot_tiny.py            # n_boot 200 and 1000, best of 5

``bare``      a bare Polars pass over the same 40 rows: 200 Poisson-like replicate weight
              columns from a hash, summed per group (what the bootstrap does, by hand).
``weights``   building the Polars plan of the replicate weights alone (Python, no data).
``evaluate``  ``af.from_labels(frame).evaluate("f1", by="g", n_boot=n)``, a fresh Predictions
              each time (nothing cached).

On tiny data the time is the plan's, not the rows': building and optimising an expression
per replicate. The machine may be shared: compare the ratios, not the seconds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import narwhals as nw
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best

import aggframe as af
from aggframe._options import parse_bootstrap
from aggframe.wide.bootstrap import weight_columns

FRAME = pl.DataFrame(
    {"example": range(40), "g": ["a", "b"] * 20, "y_true": [0, 1, 1, 0] * 10, "y_pred": [0, 1, 0, 0] * 10}
)


def main() -> None:
    print("40 rows, 2 groups (timed on a shared machine: compare the ratios, not the seconds)")
    for n_boot in (200, 1000):
        boot = parse_bootstrap(n_boot, level=0.95, seed=0, cluster=None)
        assert boot is not None

        def bare(n: int = n_boot) -> object:
            w = [((pl.col("example").hash(0) + b) % 3).alias(f"w{b}") for b in range(n)]
            return FRAME.lazy().with_columns(w).group_by("g").agg(pl.col("^w.*$").sum()).collect()

        def weights(boot: object = boot) -> object:
            frame = nw.from_native(FRAME.lazy().with_columns(pl.col("example").alias("h")))
            return weight_columns(frame, "h", boot)  # type: ignore[arg-type]

        def evaluate(n: int = n_boot) -> object:
            return af.from_labels(FRAME).evaluate("f1", by="g", n_boot=n)

        t_bare, t_w, t_eval = best(bare, 5), best(weights, 5), best(evaluate, 3)
        print(
            f"  n_boot={n_boot:5}: bare {t_bare:6.3f} s   weights (plan only) {t_w:6.3f} s   "
            f"evaluate {t_eval:6.3f} s   evaluate / bare = {t_eval / t_bare:5.1f}x"
        )


if __name__ == "__main__":
    main()
