"""One evaluate call for the cell operators and multiclass together, against the two calls it replaces.

Run from the repository root: ``python benchmarks/bench_mixed.py [n_rows]``. Label form,
``n_rows`` rows, 10 classes, 20 groups; each call reads the data from a lazy frame (no
cell tables kept), so the times include the scan. Printed as ratios to a bare Polars pass
over the same data (a group-by of the rows by group, true and predicted label). The
machine may be shared: the ratios are what count.
"""

from __future__ import annotations

import sys

import numpy as np
import polars as pl
from _timing import best

import aggframe as af

MEASURES = ["f1", "mcc", "accuracy", "kappa", "balanced_accuracy"]


def main(n: int) -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, n)
    p = np.where(rng.random(n) < 0.7, y, rng.integers(0, 10, n))
    frame = pl.DataFrame({"g": rng.integers(0, 20, n), "y_true": y, "y_pred": p})
    lf = frame.lazy()

    def bare() -> object:
        return lf.group_by("g", "y_true", "y_pred").len().collect()

    def mixed() -> object:
        return af.from_labels(lf).evaluate(MEASURES, ["micro", "macro", "multiclass"], by="g")

    def two_calls() -> object:
        cells = af.from_labels(lf).evaluate(
            [m for m in MEASURES if m != "accuracy"], ["micro", "macro"], by="g"
        )
        whole = af.from_labels(lf).evaluate([m for m in MEASURES if m != "f1"], "multiclass", by="g")
        return pl.concat([cells, whole])

    def cells_only() -> object:
        return af.from_labels(lf).evaluate(["f1", "mcc"], ["micro", "macro"], by="g")

    base = best(bare)
    print(f"n={n:,} rows, 10 classes, 20 groups (shared machine: ratios to a bare Polars group-by)")
    print(f"  bare polars group-by          {base * 1e3:8.1f} ms   1.00x")
    for name, fn in (
        ("mixed: one call", mixed),
        ("two calls (before)", two_calls),
        ("cell operators only", cells_only),
    ):
        t = best(fn)
        print(f"  {name:<29} {t * 1e3:8.1f} ms  {t / base:5.2f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
