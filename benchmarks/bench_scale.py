"""Scale benchmarks: 1000 groups in one frame, and a long-format set far beyond memory-friendly size.

Run from the repository root::

    python benchmarks/bench_scale.py groups            # 10M label rows, 100 models x 10 days
    python benchmarks/bench_scale.py big --rows 1e8    # long form, 1e8 rows (1e7 examples x 10 classes)
    python benchmarks/bench_scale.py big --rows 1e9 --classes 100   # 1e9 rows (1e7 examples x 100 classes)
    /usr/bin/time -v python benchmarks/bench_scale.py big-run aggframe   # one pass, for peak RSS
    /usr/bin/time -v python benchmarks/bench_scale.py big-run bare

``groups``: the full report (21 measures x 4 operators) with ``by=["model", "day"]``
against the bare grouped pass ``group_by("model", "day", "y_true", "y_pred").agg(len)``
over the same Parquet file, best of 3, as a ratio.

``big``: writes the long-format set in chunks (never in memory at once), then runs
``big-run bare`` and ``big-run aggframe`` under ``/usr/bin/time -v`` (``--pairs N``: N
pairs in turn) and reports wall time, CPU time (user + system) and peak RSS of each,
with the ratios per pair (the bare pass is a streaming per-class and per-example
group-by, the two aggregations any exemplar-capable evaluation needs). Results go to
``benchmarks/_out/bench_scale_*.json``; nothing is asserted. Streaming memory is
bounded by the per-example state, so the 10^9-row set keeps 10^7 examples (100
classes each) to show that it does not grow with the number of rows.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
from _timing import best

import aggframe as af

HERE = Path(__file__).resolve().parent
#: where the data files go: ``AGGFRAME_BENCH_DATA`` or benchmarks/_data (the 10^9-row file is ~3 GiB:
#: keep it out of the repository, e.g. in a temporary directory)
DATA = Path(os.environ.get("AGGFRAME_BENCH_DATA", HERE / "_data"))
OUT = HERE / "_out"


def groups_data(rows: int = 10_000_000, m: int = 20) -> Path:
    path = DATA / f"groups_{rows}r.parquet"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(11)
    y = rng.integers(0, m, rows)
    p = np.where(rng.random(rows) < 0.75, y, rng.integers(0, m, rows))
    pl.DataFrame(
        {
            "model": (rng.integers(0, 100, rows)).astype(np.int16),
            "day": (rng.integers(0, 10, rows)).astype(np.int8),
            "y_true": y.astype(np.int16),
            "y_pred": p.astype(np.int16),
        }
    ).write_parquet(path)
    return path


def run_groups() -> None:
    path = groups_data()

    def bare() -> None:
        pl.scan_parquet(path).group_by("model", "day", "y_true", "y_pred").agg(pl.len()).collect()

    def report() -> None:
        af.from_labels(pl.scan_parquet(path), n_classes=20).evaluate(by=["model", "day"])

    t_bare, t_af = best(bare), best(report)
    result = {
        "rows": 10_000_000,
        "groups": 1000,
        "bare_s": t_bare,
        "aggframe_s": t_af,
        "ratio": t_af / t_bare,
    }
    print(json.dumps(result, indent=1))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "bench_scale_groups.json").write_text(json.dumps(result, indent=1))


def big_path(rows: int, m: int = 10) -> Path:
    return DATA / (f"long_{rows}r.parquet" if m == 10 else f"long_{rows}r_{m}c.parquet")


def write_big(rows: int, m: int = 10) -> Path:
    path = big_path(rows, m)
    chunk_examples = 10_000_000 // m  # 10^7 rows per written chunk
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    n_examples = rows // m
    rng = np.random.default_rng(5)
    schema = pa.schema([("example", pa.int64()), ("class", pa.int8()), ("y", pa.int8()), ("p", pa.int8())])
    with pq.ParquetWriter(path, schema) as writer:
        for start in range(0, n_examples, chunk_examples):
            k = min(chunk_examples, n_examples - start)
            truth = rng.integers(0, m, k)
            pred = np.where(rng.random(k) < 0.7, truth, rng.integers(0, m, k))
            example = np.repeat(np.arange(start, start + k, dtype=np.int64), m)
            cls = np.tile(np.arange(m, dtype=np.int8), k)
            y = (np.repeat(truth, m) == cls).astype(np.int8)
            p = (np.repeat(pred, m) == cls).astype(np.int8)
            writer.write_table(pa.table({"example": example, "class": cls, "y": y, "p": p}, schema=schema))
    return path


def big_run(which: str, rows: int, m: int) -> None:
    path = big_path(rows, m)
    t0 = time.perf_counter()
    if which == "aggframe":
        out = af.from_long(pl.scan_parquet(path), n_classes=m).evaluate(engine="streaming")
        assert isinstance(out, pl.DataFrame)
        n = out.height
    else:
        lf = pl.scan_parquet(path)
        a, b = pl.collect_all(
            [
                lf.group_by("class").agg(
                    pl.col("y").sum(), pl.col("p").sum(), (pl.col("y") * pl.col("p")).sum().alias("yp")
                ),
                lf.group_by("example").agg(
                    pl.col("y").sum(), pl.col("p").sum(), (pl.col("y") * pl.col("p")).sum().alias("yp")
                ),
            ],
            engine="streaming",
        )
        n = a.height + b.height
    print(json.dumps({"which": which, "seconds": time.perf_counter() - t0, "rows_out": n}))


def measure(which: str, rows: int, m: int) -> dict[str, float]:
    cmd = [
        *("/usr/bin/time", "-v", sys.executable, __file__, "big-run", which),
        *("--rows", str(rows), "--classes", str(m)),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))  # type: ignore[union-attr]
    cpu = sum(
        float(re.search(rf"{kind} time \(seconds\): ([\d.]+)", proc.stderr).group(1))
        for kind in ("User", "System")
    )  # type: ignore[union-attr]
    wall = json.loads(proc.stdout.strip().splitlines()[-1])["seconds"]
    return {"seconds": wall, "cpu_s": cpu, "peak_rss_gib": rss_kb / 2**20}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["groups", "big", "big-run"])
    parser.add_argument("which", nargs="?", default="aggframe", choices=["aggframe", "bare"])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--pairs", type=int, default=1, help="pairs of whole processes (big)")
    parser.add_argument(
        "--classes", type=int, default=10, help="classes per example (rows / classes examples)"
    )
    args = parser.parse_args()
    rows, m = int(args.rows), args.classes
    if args.what == "groups":
        run_groups()
    elif args.what == "big-run":
        big_run(args.which, rows, m)
    else:
        t0 = time.perf_counter()
        path = write_big(rows, m)
        print(
            f"data: {path} ({path.stat().st_size / 2**30:.2f} GiB on disk) in {time.perf_counter() - t0:.0f}s"
        )
        # whole processes in turn (bare, aggframe, bare, ...): the machine may be shared, so the
        # CPU ratio (user + system of each child) is printed beside the wall ratio, per pair
        pairs = [
            {"bare": measure("bare", rows, m), "aggframe": measure("aggframe", rows, m)}
            for _ in range(args.pairs)
        ]
        result: dict[str, object] = {"rows": rows, "classes": m, "load": os.getloadavg(), "pairs": pairs}
        for kind, key in (("time", "seconds"), ("cpu", "cpu_s")):
            result[f"ratio_{kind}"] = [p["aggframe"][key] / p["bare"][key] for p in pairs]
        print(json.dumps(result, indent=1))
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / f"{big_path(rows, m).stem}.json").write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
