"""Evaluate a Parquet data set on Spark and print the tidy report.

Run from the repository root (needs ``pip install -e ".[test]"`` or ``pip install
"pyspark[connect]==4.3.0"``, and Java 17)::

    python examples/spark_report.py                       # examples/predictions.parquet on local[2]
    python examples/spark_report.py PATH --by model,day   # label-form Parquet (--example '' without ids)
    python examples/spark_report.py --remote sc://spark-connect.example:15002   # a real cluster

Locally the session binds to loopback only (``SPARK_LOCAL_IP``, the driver host
and bind address are 127.0.0.1, the UI is off): nothing listens on, or calls,
another address. With ``--remote`` it is a Spark Connect client of that server
instead, and the Parquet path is read by the cluster, so it must be a path the
cluster can see (``s3a://...``, ``hdfs://...``, ``abfss://...``).

The rows stay in Spark: the per-class and per-example sums (and the group counts
the validation needs) are computed there, in one Spark query, and only those
small cell tables are collected to the driver and finished in Polars.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

import aggframe as af

HERE = Path(__file__).resolve().parent

LOOPBACK = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "8",
    "spark.log.level": "ERROR",
}


def session(remote: str | None, master: str) -> Any:
    """A Spark session: a Connect client of ``remote``, or a local one bound to loopback."""
    if remote:
        from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

        return RemoteSparkSession.builder.remote(remote).getOrCreate()
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"  # before the JVM starts
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName("aggframe-spark-report")
    for key, value in LOOPBACK.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default=str(HERE / "predictions.parquet"))
    # the example data repeats example ids across days: each (model, day) is one evaluation
    parser.add_argument("--by", default="model,day", help="comma-separated group columns")
    parser.add_argument("--example", default="example", help="example id column ('' for none)")
    parser.add_argument("--measures", default="f1,mcc,balanced_accuracy")
    parser.add_argument("--operators", default="micro,macro,weighted,exemplar")
    parser.add_argument("--remote", help="Spark Connect URL, e.g. sc://host:15002/;token=...")
    parser.add_argument("--master", default="local[2]", help="local master (ignored with --remote)")
    args = parser.parse_args()

    t0 = time.perf_counter()
    spark = session(args.remote, args.master)
    t1 = time.perf_counter()
    frame = spark.read.parquet(args.path)
    by = [c for c in args.by.split(",") if c]
    pr = af.from_labels(frame, example=args.example or None)
    report = pr.evaluate(args.measures.split(","), args.operators.split(","), by=by)
    t2 = time.perf_counter()
    assert isinstance(report, pl.DataFrame)
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=120):
        print(report)
    print(f"session {t1 - t0:.1f}s, evaluation {t2 - t1:.1f}s on {type(spark).__module__}", file=sys.stderr)
    spark.stop()


if __name__ == "__main__":
    main()
