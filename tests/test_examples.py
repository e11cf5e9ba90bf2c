"""Every script in examples/ runs (small data, seconds each) and exits 0."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# make_data.py rewrites the shipped Parquet files; spark_report.py starts a JVM (tests/engines/test_spark.py
# covers the engine): neither is a quick example to run here
SKIP = {"make_data.py", "spark_report.py"}
SCRIPTS = sorted(p for p in EXAMPLES.glob("*.py") if p.name not in SKIP)
NEEDS_PLOT = {"daily_log_html.py"}
_HAS_PLOT = all(importlib.util.find_spec(m) for m in ("altair", "vl_convert", "great_tables"))


def test_there_are_examples() -> None:
    assert len(SCRIPTS) >= 7


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_example_runs(script: Path, tmp_path: Path) -> None:
    if script.name in NEEDS_PLOT and not _HAS_PLOT:
        pytest.skip("the plot extra (altair, vl-convert-python, great_tables) is not installed")
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES.parent)}  # this checkout's aggframe
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{script.name} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert done.stdout.strip(), f"{script.name} printed nothing"
    if script.name == "running_report.py":
        assert "merged workers = one worker = all rows at once" in done.stdout
    if script.name == "daily_log_html.py":
        page = tmp_path / "daily_report.html"
        assert page.exists()
        assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
