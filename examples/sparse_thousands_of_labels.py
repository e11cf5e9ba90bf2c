"""Thousands of labels in sparse long form.

Problem: a tagger with 5,000 possible tags. Each example has a handful of true tags and a
handful of predicted ones; writing the dense example x tag matrix (here 20 million cells)
just to score it is wasteful. In long form you keep only the rows where a tag is true or
predicted (plus one row per example), and declare the universe with ``n_classes=``: every
absent (example, tag) entry is then an observed true negative, not a guess.

Run: ``python examples/sparse_thousands_of_labels.py``
"""

from __future__ import annotations

import numpy as np
import polars as pl

import aggframe as af

N_TAGS = 5_000
N_EXAMPLES = 4_000
rng = np.random.default_rng(2)
popularity = 1.0 / np.arange(1, N_TAGS + 1)  # a long tail: few tags are common
popularity /= popularity.sum()

rows = []
for example in range(N_EXAMPLES):  # building toy data; aggframe itself never loops over rows
    true = set(rng.choice(N_TAGS, size=rng.integers(1, 5), p=popularity).tolist())
    kept = {t for t in true if rng.random() < 0.7}
    extra = set(rng.choice(N_TAGS, size=rng.integers(0, 3), p=popularity).tolist())
    pred = kept | extra
    for tag in true | pred:
        rows.append((example, tag, int(tag in true), int(tag in pred)))
frame = pl.DataFrame(rows, schema=["example", "tag", "y", "p"], orient="row")
dense = N_EXAMPLES * N_TAGS
print(f"{frame.height:,} sparse rows instead of {dense:,} dense cells ({frame.height / dense:.4%})")

pr = af.from_long(frame.lazy(), class_="tag", n_classes=N_TAGS, task="multilabel")
report = pr.evaluate(
    ["precision", "recall", "f1"], ["micro", "macro", "exemplar"], convention=["exclude", "zero"]
)
with pl.Config(tbl_cols=-1, tbl_width_chars=200):
    print(af.wide_table(report, by="measure"))
print("\nmacro over 5,000 tags: thousands of tags never occur or are never predicted (n_undefined)")
print(report.filter(pl.col("operator") == "macro").select("measure", "convention", "value", "n_undefined"))
