"""Import and first-call latency (issue 35): ``import aggframe`` against ``import polars, numpy``,
and the quick start's command line against ``python -c "import polars"``.

Run from the repository root: ``python benchmarks/bench_import.py [--reps 7]``. Each command runs
in a fresh interpreter; the median of ``reps`` wall times is kept (the runs are interleaved, so a
burst of load on the shared machine hits every command alike). Goals: import at most 1.25x,
the command at most 2x. The machine may be shared: ratios are what count.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time


def wall(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - t0


def medians(commands: dict[str, list[str]], reps: int) -> dict[str, float]:
    """Each command's median wall time, the commands run in turn ``reps`` times (interleaved)."""
    times: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(reps):
        for k, argv in commands.items():
            times[k].append(wall(argv))
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    py = sys.executable
    cli = shutil.which("aggframe")
    command = [
        *([cli] if cli else [py, "-m", "aggframe.interop.cli"]),
        "report",
        "examples/predictions.parquet",
        "--by",
        "model",
        "--measures",
        "f1,mcc,balanced_accuracy",
        "--operators",
        "micro,macro,weighted,exemplar",
    ]
    t = medians(
        {
            "base": [py, "-c", "import polars, numpy"],
            "ours": [py, "-c", "import aggframe"],
            "polars_only": [py, "-c", "import polars"],
            "quick": command,
        },
        args.reps,
    )
    base, ours, polars_only, quick = t["base"], t["ours"], t["polars_only"], t["quick"]
    print("(median of", args.reps, "fresh interpreters each; a shared machine: the times move with load)")
    print(f"import polars, numpy        {base:6.3f} s")
    print(f"import aggframe             {ours:6.3f} s   ratio {ours / base:4.2f}x (goal 1.25x)")
    print(f"python -c 'import polars'   {polars_only:6.3f} s")
    print(f"aggframe report (quick start) {quick:6.3f} s   ratio {quick / polars_only:4.2f}x (goal 2x)")


if __name__ == "__main__":
    main()
