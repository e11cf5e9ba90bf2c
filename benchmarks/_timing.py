"""Timing helper shared by the benchmark scripts (run them from the repository root)."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path


def runs(fn: Callable[[], object], reps: int = 3, *, warmup: bool = True) -> list[float]:
    """Wall times of ``reps`` calls, after one untimed warm-up call unless ``warmup=False``."""
    if warmup:
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def best(fn: Callable[[], object], reps: int = 3) -> float:
    """Best wall time of ``reps`` calls after one warm-up call."""
    return min(runs(fn, reps))


def calls_main(
    script: str,
    calls: Callable[[int, Path], dict[str, object]],
    times: Callable[[list[int], Path], None],
    *,
    sizes: list[int],
    memory_rows: int,
    memory_names: Sequence[str] | None = None,
) -> None:
    """The command line of a benchmark of named calls over files it writes under a temporary directory.

    ``script [n_rows ...]`` prints ``times(sizes)``; ``script --memory [n_rows]`` the peak
    RSS of each call in ``memory_names`` (default: all), each in its own process under
    ``/usr/bin/time -v`` (``script --one NAME N DIR`` runs one call).
    """
    warnings.simplefilter("ignore")
    args = sys.argv[1:]
    if args[:1] == ["--one"]:  # one call, for /usr/bin/time
        calls(int(args[2]), Path(args[3]))[args[1]]()  # type: ignore[operator]
        return
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        if args[:1] == ["--memory"]:
            n = int(args[1]) if len(args) > 1 else memory_rows
            for name in memory_names or list(calls(n, where)):
                cmd = ["/usr/bin/time", "-v", sys.executable, script, "--one", name, str(n), str(where)]
                err = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
                found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
                peak = int(found.group(1)) / 1024 if found else float("nan")
                print(f"n_rows={n:>11,}  {name:32}  peak RSS {peak:,.0f} MB")
            return
        print("shared machine (2 cores, other jobs running): read the ratios")
        times([int(a) for a in args] or sizes, where)
