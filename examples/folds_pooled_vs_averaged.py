"""Pooled vs averaged cross-validation folds.

Problem: 5-fold cross-validation on a data set with a rare class. Do you average the five
fold scores (what ``cross_val_score`` does) or evaluate the pooled out-of-fold predictions
once? With a rare class some folds barely contain it, and the two disagree, most for macro
averages. aggframe computes both in one pass, with the per-fold values and their spread.

Run: ``python examples/folds_pooled_vs_averaged.py [OUT_DIR]`` (writes folds.svg with the
``plot`` extra installed)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import polars as pl

import aggframe as af

rng = np.random.default_rng(3)
n = 600
prior = np.array([0.5, 0.3, 0.17, 0.03])
y_true = rng.choice(4, size=n, p=prior)
y_pred = np.where(rng.random(n) < 0.75, y_true, rng.choice(4, size=n, p=prior))
frame = pl.DataFrame({"example": np.arange(n), "fold": np.arange(n) % 5, "y_true": y_true, "y_pred": y_pred})

pr = af.from_labels(frame, example="example", fold="fold", n_classes=4)
report = pr.evaluate(
    ["f1", "recall"], ["micro", "macro"], pooling=["pooled", "averaged", "fold", "min", "max", "std"]
)
summary = report.filter(pl.col("pooling") != "fold")
with pl.Config(tbl_cols=-1, tbl_rows=-1, tbl_width_chars=200):
    print(af.wide_table(summary, by=["measure", "operator"]))

try:
    chart = af.plot.folds(report)
except ImportError as exc:  # the plot extra is optional
    print(f"no chart: {exc}")
else:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path()
    chart.save(out / "folds.svg")
    print(f"wrote {out / 'folds.svg'}")
