"""Timing helper shared by the benchmark scripts (run them from the repository root)."""

from __future__ import annotations

import time
from collections.abc import Callable


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
