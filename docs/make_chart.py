"""Regenerate docs/assets/report-chart.png, the picture of the README and the site's home page.

The chart is the HTML report's group chart (``af.plot.groups``) of the example data: macro F1
and MCC per model and day, with 95% bootstrap intervals, rendered offline by vl-convert.
Run from the repository root: ``python docs/make_chart.py`` (needs the ``plot`` extra).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

import aggframe as af

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "assets" / "report-chart.png"


def main() -> None:
    frame = pl.read_parquet(ROOT / "examples" / "predictions.parquet")
    pr = af.from_labels(frame, example="example")
    report = pr.evaluate(["f1", "mcc"], "macro", by=["model", "day"], n_boot=200, seed=0)
    chart = af.plot.groups(report, columns=2).properties(
        title="Macro F1 and MCC per model and day, with 95% bootstrap intervals"
    )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    chart.save(str(OUT), scale_factor=1.5)
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
