"""Several targets scored at once (multi-output classification).

Problem: one model predicts three things per ticket (team, priority, language), each with its
own classes. You want one number per target, a mean over targets, and the pooled view over
every (target, class) pair, without three separate scoring loops.

Run: ``python examples/several_targets.py``
"""

from __future__ import annotations

import numpy as np
import polars as pl

import aggframe as af

rng = np.random.default_rng(4)
n = 1_000
targets = {
    "team": ["billing", "tech", "sales", "legal"],
    "priority": ["low", "high"],
    "language": ["en", "de", "fr"],
}
skill = {"team": 0.8, "priority": 0.65, "language": 0.95}
frames = []
for target, classes in targets.items():
    y = rng.choice(classes, size=n)
    p = np.where(rng.random(n) < skill[target], y, rng.choice(classes, size=n))
    frames.append(pl.DataFrame({"ticket": np.arange(n), "target": target, "y_true": y, "y_pred": p}))
frame = pl.concat(frames)

pr = af.from_labels(frame, example="ticket", target="target")
report = pr.evaluate(["recall", "f1"], ["target", "micro", "macro"], within=["micro", "macro"])
with pl.Config(tbl_cols=-1, tbl_rows=-1, tbl_width_chars=200):
    print(af.wide_table(report, by="measure"))
    # one number per target: the same rows grouped by the target column (no target role), one query
    print("\nper target (micro inside each target):")
    print(af.wide_table(af.from_labels(frame, example="ticket").evaluate("f1", "micro", by="target")))
