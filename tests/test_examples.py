"""Every script in examples/ runs (small data, seconds each) and exits 0; README's quick start runs.

The code blocks of README.md and of the documentation site run in tests/test_docs.py.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
README = EXAMPLES.parent / "README.md"
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


def _readme_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.slow
def test_readme_quick_start_report(tmp_path: Path) -> None:
    """The quick start's first command, as README writes it, on the data shipped in examples/."""
    install = _readme_blocks("bash")[0]
    line = next(line for line in install.splitlines() if "&& aggframe report " in line)
    args = shlex.split(line.split("&& aggframe ", 1)[1])
    out = tmp_path / "report.csv"
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES.parent)}
    done = subprocess.run(
        [sys.executable, "-m", "aggframe.interop.cli", *args, "-o", str(out)],
        cwd=EXAMPLES.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # "a report per model, measure and operator for three models scored over four days
    # (400 examples a day, 6 classes, one of them rare)"
    data = pl.read_parquet(EXAMPLES / "predictions.parquet")
    assert data["model"].n_unique() == 3
    assert data["day"].n_unique() == 4
    assert set(data.group_by("model", "day").len()["len"]) == {400}
    assert data["y_true"].n_unique() == 6
    assert (data["y_true"].value_counts(normalize=True)["proportion"] < 0.05).sum() == 1  # one rare
    report = pl.read_csv(out)
    sizes = [len(args[args.index(flag) + 1].split(",")) for flag in ("--measures", "--operators")]
    assert report.height == 3 * sizes[0] * sizes[1]
    assert report.select("model", "measure", "operator").n_unique() == report.height
