"""Import and first-call latency (issue 35): ``import aggframe`` against ``import polars, numpy``,
and the quick start's command line against ``python -c "import polars"``.

Run from the repository root: ``python benchmarks/bench_import.py [--reps 7]``. Each command runs
in a fresh interpreter; the best of ``reps`` wall times is kept. Goals: import at most 1.25x,
the command at most 2x. The machine may be shared: ratios are what count.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time


def best(argv: list[str], reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    py = sys.executable
    base = best([py, "-c", "import polars, numpy"], args.reps)
    ours = best([py, "-c", "import aggframe"], args.reps)
    polars_only = best([py, "-c", "import polars"], args.reps)
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
    quick = best(command, args.reps)
    print("(best of", args.reps, "fresh interpreters; timings on a shared machine: they move with load)")
    print(f"import polars, numpy        {base:6.3f} s")
    print(f"import aggframe             {ours:6.3f} s   ratio {ours / base:4.2f}x (goal 1.25x)")
    print(f"python -c 'import polars'   {polars_only:6.3f} s")
    print(f"aggframe report (quick start) {quick:6.3f} s   ratio {quick / polars_only:4.2f}x (goal 2x)")


if __name__ == "__main__":
    main()
