"""A running report over a stream of prediction batches, with bounded memory.

Problem: predictions arrive in micro-batches (a Kafka topic, a training loop's validation
steps, the partitions of a Spark job). You want the measures of everything seen so far,
per model, every N batches, without keeping the rows; and the state of several workers
merged into one at the end. A rare class may show up only after a while: the earlier
batches' examples are then true negatives of it, exactly as if every row had come at once.

``af.Accumulator`` keeps only the cell tables (groups x classes, plus the per-example
profiles) and a buffer of rows; ``update`` takes a Polars, pandas or Arrow batch (or two
label arrays), ``evaluate`` evaluates at any time, ``merge`` adds another worker's state
(pickled and sent back: the same rows are never added twice), and ``cells()`` is an
``af.Cells`` value that can be written as a cell store.

Run: ``python examples/running_report.py [OUT_DIR]``.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np
import polars as pl

import aggframe as af

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path()
rng = np.random.default_rng(11)
N_BATCHES, EVERY, BATCH = 60, 20, 400


def batch(i: int) -> pl.DataFrame:
    """One micro-batch of two models' predictions; class 4 (rare) appears from batch 30 on."""
    classes = 5 if i >= 30 else 4
    prior = np.array([0.45, 0.3, 0.15, 0.1, 0.05][:classes])
    parts = []
    for model, skill in (("baseline", 0.62), ("candidate", 0.8 - 0.004 * i)):  # the candidate drifts
        y = rng.choice(classes, size=BATCH, p=prior / prior.sum())
        p = np.where(rng.random(BATCH) < skill, y, rng.choice(classes, size=BATCH))
        parts.append(pl.DataFrame({"model": model, "batch": i, "y_true": y, "y_pred": p}))
    return pl.concat(parts)


stream = [batch(i) for i in range(N_BATCHES)]

# one worker: a running report every EVERY batches
acc = af.Accumulator(by="model")
for i, b in enumerate(stream, start=1):
    acc.update(b)
    if i % EVERY == 0:
        report = acc.evaluate(["f1", "mcc"], ["micro", "macro"])
        print(f"after {i} batches ({acc.n_rows} predictions):")
        print(af.wide_table(report).with_columns(pl.selectors.float().round(3)))

# two workers, each on half of the stream; their states pickled (as a Spark task would
# return them) and merged
workers = [af.Accumulator(by="model"), af.Accumulator(by="model")]
for i, b in enumerate(stream):
    workers[i % 2].update(b)
merged = pickle.loads(pickle.dumps(workers[0]))
merged.merge(pickle.loads(pickle.dumps(workers[1])))

whole = af.from_labels(pl.concat(stream))
everything = whole.evaluate(["f1", "mcc"], ["micro", "macro", "exemplar"], by="model")
for state in (acc, merged):
    # the same cells exactly (sums of counts), so the same values (up to the order of a mean's terms)
    assert state.cells().table("class").equals(whole.cells("class", by="model")), "the cells differ"
    got = state.evaluate(["f1", "mcc"], ["micro", "macro", "exemplar"])
    assert (got["value"] - everything["value"]).abs().max() < 1e-12, "the values differ"
print("merged workers = one worker = all rows at once")

cells = merged.cells()
print(f"state kept: {cells!r}, {cells.estimated_size() / 1e3:.1f} kB for {merged.n_rows} predictions")
store = cells.write(out / "running_cells", overwrite=True)
print(f"wrote the cells to {store}; af.from_cells({str(store)!r}) evaluates them later")
