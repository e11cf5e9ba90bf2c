"""Micro vs macro under imbalance, with classes the model never predicts.

Problem: 8 classes, two of them rare, and a model that never predicts the rarest ones. Micro
F1 (= accuracy on single-label data) looks fine because the big classes dominate; macro F1
drops because each rare class counts as much as a big one; and macro precision is not even
defined for a class that is never predicted (0 / 0). Which number you report depends on a
convention most libraries pick silently: aggframe shows all of them side by side.

Run: ``python examples/micro_vs_macro_imbalance.py``
"""

from __future__ import annotations

import numpy as np
import polars as pl

import aggframe as af

rng = np.random.default_rng(1)
prior = np.array([0.40, 0.25, 0.15, 0.10, 0.05, 0.03, 0.015, 0.005])
n = 5_000
y_true = rng.choice(len(prior), size=n, p=prior)
# right 80% of the time on the common classes; the two rarest are mistaken for class 0
y_pred = np.where(rng.random(n) < 0.8, y_true, rng.choice(6, size=n, p=prior[:6] / prior[:6].sum()))
y_pred = np.where(y_true >= 6, 0, y_pred)

pr = af.from_labels(y_true, y_pred, n_classes=len(prior))
report = pr.evaluate(
    ["precision", "recall", "f1"], ["micro", "macro", "weighted"], convention=["exclude", "zero", "one"]
)
with pl.Config(tbl_cols=-1, tbl_rows=-1, tbl_width_chars=200):
    print(af.wide_table(report, by="measure"))
    print("\nper class (precision is undefined where nothing was predicted):")
    print(af.wide_table(pr.per_class(["precision", "recall", "f1"]), by=["class", "support"]))

macro = report.filter((pl.col("measure") == "precision") & (pl.col("operator") == "macro"))
print(f"\nmacro precision: {dict(zip(macro['convention'], macro['value'].round(3), strict=True))}")
print(f"undefined per-class entries: {macro['n_undefined'][0]} of {macro['n_entries'][0]}")
