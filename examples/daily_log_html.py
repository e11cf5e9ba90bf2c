"""A daily prediction log in Parquet, reported per model and day as one HTML file.

Problem: every day each deployed model writes its predictions (and, once known, the truth)
to a Parquet file. You want one page to send around: a table per model and day, a heat map
of model x day, the per-class values, the diagnostics, and what conventions were used; a file
that opens offline, from an e-mail or an artifact store, with nothing loaded from the web.
(Per-class values are a table here: the page draws per-class charts for up to 12 groups,
and a week of two models is 14.)

Run: ``python examples/daily_log_html.py [OUT_DIR]`` (needs the ``plot`` extra); the same
report from the command line:
``aggframe report 'OUT_DIR/log/*.parquet' --by model,day --measures f1,mcc --html report.html``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import polars as pl

import aggframe as af

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path()
log = out / "log"
log.mkdir(parents=True, exist_ok=True)

rng = np.random.default_rng(6)
prior = np.array([0.4, 0.3, 0.2, 0.08, 0.02])
for day in range(1, 8):  # one file per day, as a scheduled job would write them
    parts = []
    for model, skill in (("baseline", 0.6), ("candidate", 0.8)):
        n = 300
        y = rng.choice(5, size=n, p=prior)
        drift = 0.03 * day if model == "candidate" else 0.0  # the candidate degrades over the week
        p = np.where(rng.random(n) < skill - drift, y, rng.choice(5, size=n, p=prior))
        parts.append(pl.DataFrame({"model": model, "day": f"2026-11-{day:02d}", "y_true": y, "y_pred": p}))
    pl.concat(parts).write_parquet(log / f"2026-11-{day:02d}.parquet")

pr = af.from_labels(pl.scan_parquet(log / "*.parquet"), y_true="y_true", y_pred="y_pred", n_classes=5)
path = out / "daily_report.html"
af.html_report(pr, ["f1", "mcc"], ["micro", "macro"], by=["model", "day"], path=path, title="Daily report")
print(f"wrote {path} ({path.stat().st_size / 1e3:.0f} kB)")
