"""50 rules over 1,000 groups: af.check against one evaluate of the same measures (issue #30).

Run from the repository root::

    python benchmarks/bench_checks.py                  # 10M rows, best of 3
    python benchmarks/bench_checks.py --rows 2000000   # fewer rows (a shared or small machine)

Data (seeded, written once to ``benchmarks/_data/checks_<rows>.parquet``): label form,
``group`` (1,000 groups), ``day`` (7 values), ``y_true``/``y_pred`` over 6 classes, 80% right.

``bare``      a bare Polars pass: the per (group, y_true, y_pred) counts, streaming.
``evaluate``  ``af.from_labels(scan, n_classes=6).evaluate(measures, operators, by="group")``: the
              5 measures x 3 operators of the rules, one scan.
``check``     ``af.check`` of 50 rules over the same scan: those 15 (measure, operator) pairs per
              group with min bounds and severities, 5 with ``min_examples``; verdicts, messages
              and all.
``check_where`` the same with 10 of the rules filtered by a ``where`` on ``day`` (7 distinct
              filters): each filter is one more Boolean key of the one scan.

Each candidate is timed in this process, best of ``--repeat`` (a fresh Predictions each
time, so every run scans). Nothing is asserted; the target (check <= 1.3x evaluate) is
printed beside the ratio. The machine may be shared: the ratios are what count.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best

import aggframe as af

MEASURES = ["f1", "recall", "precision", "jaccard", "mcc"]
OPERATORS = ["micro", "macro", "weighted"]


def data(rows: int) -> Path:
    path = Path(__file__).resolve().parent / "_data" / f"checks_{rows}.parquet"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(30)
    y = rng.integers(0, 6, rows)
    right = rng.random(rows) < 0.8
    pl.DataFrame(
        {
            "group": rng.integers(0, 1000, rows),
            "day": rng.integers(0, 7, rows),
            "y_true": y,
            "y_pred": np.where(right, y, rng.integers(0, 6, rows)),
        }
    ).write_parquet(path)
    return path


def rules(*, where: bool) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i in range(50):
        rule: dict[str, object] = {
            "measure": MEASURES[i % 5],
            "operator": OPERATORS[(i // 5) % 3],
            "by": "group",
            "min": 0.5 + 0.01 * (i % 7),
            "severity": "error" if i % 2 else "warn",
        }
        if where and i % 5 == 4:
            rule["where"] = f"day <> {i % 7}"
        if i % 10 == 3:
            rule["min_examples"] = 2000
        out.append(rule)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    path = data(args.rows)
    checks = rules(where=False)
    filtered = rules(where=True)

    def bare() -> object:
        return (
            pl.scan_parquet(path)
            .group_by("group", "y_true", "y_pred")
            .agg(pl.len())
            .collect(engine="streaming")
        )

    def evaluate() -> object:
        pr = af.from_labels(pl.scan_parquet(path), n_classes=6)
        return pr.evaluate(MEASURES, OPERATORS, by="group", engine="streaming")

    def check() -> object:
        return af.check(af.from_labels(pl.scan_parquet(path), n_classes=6), checks, engine="streaming")

    def check_where() -> object:
        return af.check(af.from_labels(pl.scan_parquet(path), n_classes=6), filtered, engine="streaming")

    result = check()
    assert isinstance(result, af.CheckResult)
    print(
        f"{args.rows:,} rows, 1,000 groups, 50 rules -> {result.frame.height:,} (rule, group) rows; {result.summary()}"
    )
    print("(timed on a shared machine: compare the ratios, not the seconds)")
    times = {}
    for name, fn in (("bare", bare), ("evaluate", evaluate), ("check", check), ("check_where", check_where)):
        t0 = time.perf_counter()
        times[name] = best(fn, args.repeat)
        print(f"  {name:9} best {times[name]:7.2f} s   ({time.perf_counter() - t0:.0f} s with warm-up)")
    print(f"check / evaluate = {times['check'] / times['evaluate']:.2f}x   (target <= 1.3x)")
    print(f"check / bare     = {times['check'] / times['bare']:.2f}x")
    print(
        f"check_where / evaluate = {times['check_where'] / times['evaluate']:.2f}x   (10 of the rules with a "
        "where on day: 7 distinct filters, each a Boolean key of the scan, so 7x the groups in it)"
    )
    print(f"evaluate / bare  = {times['evaluate'] / times['bare']:.2f}x")


if __name__ == "__main__":
    main()
