"""Soft labels: probabilities instead of 0/1, combined by a t-norm.

Problem: your annotators give graded labels (0.7 "probably spam") and your model outputs
probabilities. Thresholding both throws information away; the confusion cells of fuzzy
classification use a t-norm T(y, p) for "true and predicted" instead. Which t-norm you pick
(product, Goedel/minimum, Lukasiewicz) changes the numbers, so name it and compare.

Run: ``python examples/soft_labels.py``
"""

from __future__ import annotations

import numpy as np
import polars as pl

import aggframe as af

rng = np.random.default_rng(5)
n_examples, n_classes = 500, 4
y = rng.beta(0.6, 0.6, size=(n_examples, n_classes))  # graded annotations
p = np.clip(y + rng.normal(0, 0.25, size=y.shape), 0, 1)  # a model's probabilities
frame = pl.DataFrame(
    {
        "example": np.repeat(np.arange(n_examples), n_classes),
        "class": np.tile(np.arange(n_classes), n_examples),
        "y": y.ravel(),
        "p": p.ravel(),
    }
)

rows = []
for tnorm in ["product", "godel", "lukasiewicz"]:
    pr = af.from_long(frame.lazy(), tnorm=tnorm)
    rows.append(
        pr.evaluate(["precision", "recall", "f1"], ["micro", "macro"]).with_columns(tnorm=pl.lit(tnorm))
    )
report = pl.concat(rows).select("tnorm", pl.exclude("tnorm"))
with pl.Config(tbl_cols=-1, tbl_width_chars=200):
    print(af.wide_table(report))

crisp = af.from_long(frame.lazy().with_columns(pl.col("y", "p").round(0)))
print(f"\nthresholded at 0.5 instead: micro f1 = {crisp.compute('f1', 'micro'):.4f}")
