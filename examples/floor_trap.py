"""The floor trap: "98% label accuracy" on 50 classes from a model that guesses.

Problem: you one-hot your 50-class predictions (one column per class, as multilabel tooling
does) and report label-wise accuracy or specificity. Each example has 49 negative entries and
even a wrong prediction gets 48 of them right, so these measures start near 1 before the
model has learned anything. aggframe's ``diagnose`` says so (``inflated_floor``). F1 on the
same matrix has no floor; MCC's (-0.02 on 50 classes, listed too: its nominal minimum is -1)
sits at its chance level of 0, so the guessing model scores about 0 on both.

Run: ``python examples/floor_trap.py``
"""

from __future__ import annotations

import numpy as np
import polars as pl

import aggframe as af

N_CLASSES = 50
rng = np.random.default_rng(0)
n = 2_000
y_true = rng.integers(0, N_CLASSES, n)
guess = rng.integers(0, N_CLASSES, n)  # a model that guesses uniformly
skilled = np.where(rng.random(n) < 0.7, y_true, guess)  # a model that is right 70% of the time

frame = pl.concat(
    [
        pl.DataFrame({"model": "guess", "y_true": y_true, "y_pred": guess}),
        pl.DataFrame({"model": "skilled", "y_true": y_true, "y_pred": skilled}),
    ]
)
pr = af.from_labels(frame, y_true="y_true", y_pred="y_pred", n_classes=N_CLASSES)
measures = ["label_accuracy", "specificity", "f1", "mcc"]
report = pr.evaluate(measures, ["micro", "macro"], by="model")
with pl.Config(tbl_cols=-1, tbl_width_chars=160):
    print(af.wide_table(report))

guess_row = report.filter(
    (pl.col("model") == "guess") & (pl.col("measure") == "label_accuracy") & (pl.col("operator") == "micro")
)
print(f"\nthe guessing model's micro label accuracy: {guess_row['value'].item():.3f} (a floor, not skill)")

findings = af.diagnose(pr, measures, by="model").filter(pl.col("code") == "inflated_floor")
with pl.Config(fmt_str_lengths=120, tbl_width_chars=160):
    print(findings.select("model", "measure", "message"))
assert findings.height > 0, "diagnose should flag the floor"
