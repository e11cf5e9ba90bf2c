"""Estimation before the labels arrive: ``af.estimate`` against ``evaluate`` with decisions on the same rows.

Run from the repository root: ``python benchmarks/bench_estimate.py [n_rows]``. Binary scores
(one row per example) and wide 3-class scores (argmax), grouped by a 20-value key; the
reference has 20,000 rows. Prints wall times and the ratios estimate / evaluate and
estimate / a bare Polars pass (the same group-by of the thresholded score, no calibration).
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


def binary(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return pl.DataFrame(
        {"score": s, "y": (rng.uniform(size=n) < s**2).astype(np.int64), "g": rng.integers(0, 20, size=n)}
    )


def wide(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet([2.0, 1.0, 1.0], size=n)
    y = (rng.uniform(size=n)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    return pl.DataFrame(
        {"y_true": y, "p_0": p[:, 0], "p_1": p[:, 1], "p_2": p[:, 2], "g": rng.integers(0, 20, size=n)}
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    warnings.simplefilter("ignore")
    print(f"n_rows={n:,} (shared machine: read the ratios)")
    b = binary(n, 1)
    ref_b = af.from_scores(binary(20_000, 2), class_=None)
    data_b = af.from_scores(b, class_=None)
    t_est = best(lambda: af.estimate(ref_b, data_b, ["f1", "precision", "recall"], "binary", by="g"))
    # a fresh Predictions per call: a Predictions caches its cell tables per grouping
    t_eval = best(
        lambda: af.from_scores(b, class_=None).evaluate(["f1", "precision", "recall"], "binary", by="g")
    )
    t_bare = best(
        lambda: (
            b.lazy()
            .group_by("g")
            .agg(
                ((pl.col("score") > 0.5) & (pl.col("y") == 1)).sum().alias("tp"),
                (pl.col("score") > 0.5).sum().alias("pp"),
                pl.col("y").sum().alias("pos"),
            )
            .collect()
        )
    )
    print(
        f"binary : estimate {t_est:.3f}s  evaluate {t_eval:.3f}s  bare {t_bare:.3f}s  "
        f"estimate/evaluate {t_est / t_eval:.2f}  estimate/bare {t_est / t_bare:.1f}"
    )
    m = n // 3
    w = wide(m, 3)
    read = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
    ref_w = af.from_scores(wide(20_000, 4), **read)
    data_w = af.from_scores(w, **read)
    t_est = best(lambda: af.estimate(ref_w, data_w, ["f1", "recall"], ["macro", "micro"], by="g"))
    t_eval = best(lambda: af.from_scores(w, **read).evaluate(["f1", "recall"], ["macro", "micro"], by="g"))
    print(
        f"wide x3: {m:,} examples  estimate {t_est:.3f}s  evaluate {t_eval:.3f}s  estimate/evaluate {t_est / t_eval:.2f}"
    )


if __name__ == "__main__":
    main()
