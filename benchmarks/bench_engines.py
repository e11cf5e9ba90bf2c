"""One long-format Parquet data set on three engines: Polars streaming, DuckDB and local Spark.

Run from the repository root::

    python benchmarks/bench_engines.py                 # 10^8 rows (10^7 examples x 10 classes)
    python benchmarks/bench_engines.py --rows 1e7      # a smaller set
    python benchmarks/bench_engines.py run spark --rows 1e7   # one engine, one pass (what the table runs)

The data set is ``bench_scale.py big``'s (written in chunks, reused when present).
Each engine runs the same full report, ``af.from_long(source, n_classes=10).evaluate()``
(21 measures x 4 operators), in its own process, one after the other:

``polars-bare``  a bare streaming per-class + per-example group-by (the baseline of the ratios)
``polars``       ``pl.scan_parquet`` on Polars' streaming engine (the default)
``duckdb``       a DuckDB relation over ``read_parquet`` (DuckDB's default threads and memory limit)
``spark``        ``spark.read.parquet`` on ``local[2]``, driver memory 4 GiB, loopback only

Wall time is the evaluation alone (Spark's session start is reported apart) and
peak memory is the peak resident set of the process, from ``/usr/bin/time -v``;
for Spark the JVM (driver and executor in one process on ``local[2]``) is a child
whose peak GNU time does not add to the Python process's, so the JVM's own high
water mark (``VmHWM`` in ``/proc/<pid>/status``, read just before it stops) is
added. Results go to ``benchmarks/_out/bench_engines_<rows>.json``; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl
from bench_scale import write_big

import aggframe as af

HERE = Path(__file__).resolve().parent
OUT = HERE / "_out"
ENGINES = ("polars-bare", "polars", "duckdb", "spark")
SPARK_CONF = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.driver.memory": "4g",
    "spark.sql.shuffle.partitions": "16",
    "spark.log.level": "ERROR",
}


def _spark() -> Any:
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master("local[2]").appName("aggframe-bench")
    for key, value in SPARK_CONF.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def _hwm_kib(pid: int) -> int:
    """Peak resident set of a live process (kB), from /proc."""
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", text).group(1))  # type: ignore[union-attr]


def run(engine: str, path: Path, m: int) -> None:
    """One engine, one full report; prints a JSON line."""
    extra: dict[str, Any] = {}
    t0 = time.perf_counter()
    if engine == "polars-bare":
        lf = pl.scan_parquet(path)
        sums = [pl.col("y").sum(), pl.col("p").sum(), (pl.col("y") * pl.col("p")).sum().alias("yp")]
        parts = pl.collect_all(
            [lf.group_by("class").agg(*sums), lf.group_by("example").agg(*sums)], engine="streaming"
        )
        rows_out = sum(p.height for p in parts)
    elif engine == "polars":
        out = af.from_long(pl.scan_parquet(path), n_classes=m).evaluate(engine="streaming")
        rows_out = out.height if isinstance(out, pl.DataFrame) else -1
    elif engine == "duckdb":
        import duckdb

        con = duckdb.connect()
        out = af.from_long(con.sql(f"select * from read_parquet('{path}')"), n_classes=m).evaluate()
        rows_out = out.height if isinstance(out, pl.DataFrame) else -1
        extra["threads"] = con.sql("select current_setting('threads')").fetchall()[0][0]
    else:
        spark = _spark()
        t_start = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = af.from_long(spark.read.parquet(str(path)), n_classes=m).evaluate()
        rows_out = out.height if isinstance(out, pl.DataFrame) else -1
        jvm = spark.sparkContext._gateway.proc.pid
        extra = {"session_start_s": t_start, "jvm_peak_rss_kib": _hwm_kib(jvm)}
        seconds = time.perf_counter() - t0
        spark.stop()
        print(json.dumps({"engine": engine, "seconds": seconds, "rows_out": rows_out, **extra}))
        return
    seconds = time.perf_counter() - t0
    extra["python_peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"engine": engine, "seconds": seconds, "rows_out": rows_out, **extra}))


def measure(engine: str, rows: int, m: int) -> dict[str, Any]:
    cmd = [
        *("/usr/bin/time", "-v", sys.executable, __file__, "run", engine),
        *("--rows", str(rows), "--classes", str(m)),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode:
        sys.exit(f"{engine} failed:\n{proc.stderr[-3000:]}")
    rss_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))  # type: ignore[union-attr]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    # the JVM is a child process: its peak adds to the Python process's
    result["peak_rss_gib"] = (rss_kib + result.get("jvm_peak_rss_kib", 0)) / 2**20
    result["time_v_peak_rss_gib"] = rss_kib / 2**20
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", default="all", choices=["all", "run"])
    parser.add_argument("engine", nargs="?", choices=ENGINES)
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--classes", type=int, default=10, help="classes per example")
    parser.add_argument("--engines", default=",".join(ENGINES), help="which engines to run")
    args = parser.parse_args()
    rows, m = int(args.rows), args.classes
    t0 = time.perf_counter()
    path = write_big(rows, m)
    if args.what == "run":
        run(args.engine, path, m)
        return
    print(f"data: {path} ({path.stat().st_size / 2**30:.2f} GiB on disk) in {time.perf_counter() - t0:.0f}s")
    results = {e: measure(e, rows, m) for e in args.engines.split(",")}
    base = results.get("polars-bare")
    print(
        f"\n{rows:.0e} rows, {rows // m:.0e} examples x {m} classes: full report (21 measures x 4 operators)"
    )
    print(f"{'engine':<12} {'wall s':>8} {'x bare':>7} {'peak GiB':>9} {'x bare':>7}  note")
    for engine, r in results.items():
        ratio_t = f"{r['seconds'] / base['seconds']:.2f}" if base else "-"
        ratio_m = f"{r['peak_rss_gib'] / base['peak_rss_gib']:.2f}" if base else "-"
        note = ""
        if engine == "spark":
            note = f"session start {r['session_start_s']:.1f} s; JVM peak {r['jvm_peak_rss_kib'] / 2**20:.2f} GiB"
        print(
            f"{engine:<12} {r['seconds']:>8.2f} {ratio_t:>7} {r['peak_rss_gib']:>9.2f} {ratio_m:>7}  {note}"
        )
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"bench_engines_{rows}.json"
    out.write_text(json.dumps({"rows": rows, "classes": m, "results": results}, indent=1))
    print(f"\nwritten {out}")


if __name__ == "__main__":
    main()
