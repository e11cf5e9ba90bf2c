"""Gate a pipeline on its predictions: rules in a TOML file, a verdict, JUnit XML for CI.

Run: python examples/gate_pipeline.py [OUTPUT_DIR]. The same gate from a shell is
``aggframe check examples/gate.toml examples/predictions.parquet --junit check.xml``,
which exits 0 (pass), 1 (an error rule failed) or 2 (bad input or rules).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import polars as pl

import aggframe as af
from aggframe.interop.cli import main

HERE = Path(__file__).resolve().parent
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())

pr = af.from_labels(pl.scan_parquet(HERE / "predictions.parquet"))
result = af.check(pr, HERE / "gate.toml")
print(result.summary())
with pl.Config(fmt_str_lengths=120, tbl_width_chars=160, tbl_rows=20):
    print(result.frame.filter(pl.col("status") != "pass").select("rule", "status", "message"))
try:
    result.raise_for_status()
except af.errors.CheckFailedError as exc:
    print(f"the gate stops the pipeline: {str(exc)[:120]}...")

# the command line, as a CI job runs it: exit code 1 here, since the baseline model misses the floor
code = main(
    [
        "check",
        str(HERE / "gate.toml"),
        str(HERE / "predictions.parquet"),
        "--junit",
        str(out / "check.xml"),
        "-q",
    ]
)
print(f"aggframe check exited {code}; JUnit XML in {out / 'check.xml'}")
