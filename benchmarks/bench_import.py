"""Import and first-call latency (issue 35): ``import aggframe`` against ``import polars, numpy``,
and the quick start's command line against ``python -c "import polars"``.

Run from the repository root: ``python benchmarks/bench_import.py [--reps 7]``. Each command runs
in a fresh interpreter; the median of ``reps`` wall times is kept (the runs are interleaved, so a
burst of load on the shared machine hits every command alike). The package is byte-compiled
first, as ``pip install`` does: with ``PYTHONDONTWRITEBYTECODE`` set and a source tree, every
run would compile aggframe's modules again while Polars' and NumPy's are read compiled. Goals: import at most 1.25x,
the command at most 2x. The machine may be shared: ratios are what count.
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import shutil
import statistics
import subprocess
import sys
import time


def wall_cpu(argv: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of ``argv``."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def medians(commands: dict[str, list[str]], reps: int) -> dict[str, tuple[float, float]]:
    """Each command's median wall and CPU times, the commands run in turn ``reps`` times (interleaved)."""
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
    for _ in range(reps):
        for k, argv in commands.items():
            times[k].append(wall_cpu(argv))
    return {
        k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in times.items()
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    py = sys.executable
    spec = importlib.util.find_spec("aggframe")
    assert spec is not None
    assert spec.submodule_search_locations
    subprocess.run([py, "-m", "compileall", "-q", *spec.submodule_search_locations], check=True)
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
    (base, base_c), (ours, ours_c) = t["base"], t["ours"]
    (polars_only, polars_c), (quick, quick_c) = t["polars_only"], t["quick"]
    print("(median of", args.reps, "fresh interpreters each; a shared machine: the times move with load;")
    print(" CPU time, user + system, moves less with load than wall time)")
    print("                                 wall               cpu")
    print(f"import polars, numpy           {base:6.3f} s          {base_c:6.3f} s")
    print(
        f"import aggframe                {ours:6.3f} s  {ours / base:4.2f}x   {ours_c:6.3f} s  {ours_c / base_c:4.2f}x"
        "   (goal 1.25x)"
    )
    print(f"python -c 'import polars'      {polars_only:6.3f} s          {polars_c:6.3f} s")
    print(
        f"aggframe report (quick start)  {quick:6.3f} s  {quick / polars_only:4.2f}x   {quick_c:6.3f} s"
        f"  {quick_c / polars_c:4.2f}x   (goal 2x)"
    )


if __name__ == "__main__":
    main()
