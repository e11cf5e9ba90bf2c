"""The multiclass operator end to end: its cost, and what keeping the confusion counts costs the rest.

Run from the repository root (``PYTHONPATH=.`` when the editable install points elsewhere)::

    python benchmarks/bench_multiclass.py [--rows 10000000] [--package PATH]

Each case runs in a fresh process on a Parquet file of label-form rows (written once
to a temporary directory) and reports the CPU time (user + sys) and peak RSS of the
whole process, which are robust on a shared machine. Cases:

``cells``       ``evaluate(["mcc", "f1"], ["micro", "macro"], by="g")``: the scan that
                builds the cell tables, which now also keep the confusion counts
``multiclass``  ``evaluate(None, "multiclass", by="g")``: the seven whole-matrix measures
``both``        ``evaluate(["mcc", "kappa"], ["micro", "macro", "multiclass"], by="g")``
``matrix``      ``confusion_matrix(by="g", normalize="true")``
``long``        the same data as one-hot long rows, ``evaluate(None, "multiclass", by="g")``
                (the long form counts its pairs in one more grouped query)

``--package PATH`` runs the ``cells`` case against another checkout (e.g. main) for
the before/after comparison. Nothing is asserted.

Measured on 2 shared cores (load 8 to 13), best of 3 fresh processes, 10^7 rows::

    m = 20, 100 groups             cpu s   peak MiB
    cells (main)                    1.21     713
    cells (this branch)             1.25     713     the counts kept with the tables: noise
    multiclass (all seven)          1.32     713
    both (mcc, kappa x 3 ops)       1.14     713
    confusion_matrix                1.26     713
    long (2e6 rows, all seven)      2.20     713     + one grouped query for the weighted kappas

    m = 1000, 1000 groups (4e6 pairs)
    cells (main)                    5.52     799
    cells (this branch)             5.33     798
    multiclass (all seven)          7.54     794     the weighted kappas join 1e6 ranks
    both (mcc, kappa x 3 ops)       4.54     787     unweighted: the class cells' margins, free
    long (2e6 rows, all seven)      4.32     736

The tidy confusion matrix has groups x m^2 rows (zeros included): 10^9 for the
second configuration, which is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

CASES = {
    "cells": 'pr.evaluate(["mcc", "f1"], ["micro", "macro"], by="g")',
    "multiclass": 'pr.evaluate(None, "multiclass", by="g")',
    "both": 'pr.evaluate(["mcc", "kappa"], ["micro", "macro", "multiclass"], by="g")',
    "matrix": 'pr.confusion_matrix(by="g", normalize="true")',
    "long": 'pr.evaluate(None, "multiclass", by="g")',
}


def write_data(directory: Path, rows: int, m: int, groups: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    yt = rng.integers(0, m, rows)
    yp = np.where(rng.random(rows) < 0.7, yt, rng.integers(0, m, rows))
    labels = directory / f"labels_{rows}_{m}_{groups}.parquet"
    pl.DataFrame({"g": rng.integers(0, groups, rows), "y_true": yt, "y_pred": yp}).write_parquet(labels)
    # the long form: one-hot rows only where y or p is 1 (a declared universe makes the rest negatives)
    n_long = min(rows, 2_000_000)
    long = directory / f"long_{n_long}_{m}_{groups}.parquet"
    frame = pl.read_parquet(labels).head(n_long).with_row_index("example")
    pl.concat(
        [
            frame.select(
                "g",
                "example",
                pl.col("y_true").alias("class"),
                pl.lit(1, dtype=pl.Int64).alias("y"),
                (pl.col("y_pred") == pl.col("y_true")).cast(pl.Int64).alias("p"),
            ),
            frame.filter(pl.col("y_pred") != pl.col("y_true")).select(
                "g",
                "example",
                pl.col("y_pred").alias("class"),
                pl.lit(0, dtype=pl.Int64).alias("y"),
                pl.lit(1, dtype=pl.Int64).alias("p"),
            ),
        ]
    ).sort("example").write_parquet(long)
    return labels, long


def child(case: str, path: str, m: int) -> None:
    import aggframe as af

    if case == "long":
        pr = af.from_long(pl.scan_parquet(path), n_classes=m, task="multiclass")
    else:
        pr = af.from_labels(pl.scan_parquet(path))
    eval(CASES[case], {"pr": pr})  # the fixed strings above
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mib": usage.ru_maxrss / 1024}))


def run(case: str, path: Path, m: int, package: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": package}
    cmd = [sys.executable, __file__, "--child", case, str(path), str(m)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--package", default=None, help="a checkout to compare the 'cells' case with")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    here = str(Path(__file__).resolve().parent.parent)
    configs = [(20, 100), (1000, 1000)]
    with tempfile.TemporaryDirectory() as tmp:
        for m, groups in configs:
            labels, long = write_data(Path(tmp), args.rows, m, groups)
            print(f"-- {args.rows:.0e} rows, m={m}, {groups} groups")
            cases = [(c, here) for c in CASES] + ([("cells", args.package)] if args.package else [])
            for case, package in cases:
                if case == "matrix" and groups * m * m > 10**8:
                    # every pair of the universe, zeros included: groups x m^2 rows
                    print(f"{case:>10}: skipped ({groups * m * m:.0e} rows of pairs)")
                    continue
                path = long if case == "long" else labels
                got = [run(case, path, m, package) for _ in range(args.reps)]
                cpu = min(g["cpu_s"] for g in got)
                rss = min(g["peak_rss_mib"] for g in got)
                who = "" if package == here else f" ({package})"
                print(f"{case:>10}{who}: cpu {cpu:6.2f} s  peak rss {rss:7.0f} MiB")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
