"""The cost of the ``exemplar`` operator's interval in ``af.estimate``.

Run from the repository root::

    python benchmarks/bench_estimate_exemplar.py [n_rows ...]       # times and ratios (default 300k and 1M)
    python benchmarks/bench_estimate_exemplar.py --memory [n_rows]  # peak memory of each call, one process each

Three forms, each read from a Parquet file (a lazy scan) and grouped by a 20-value key:
binary scores (one row per example), wide 3-class scores with argmax (single-label,
``n_rows / 3`` examples) and long multilabel scores (5 classes, ``n_rows / 5`` examples).
For each: ``estimate(f1, micro)`` with ``n_draws`` draws (the interval of the other operators,
the baseline), the same with ``exemplar`` added and no draws (its estimate), and with ``exemplar``
and the draws (its interval). Binary and single-label draws come from small tables (the cells;
the hits per group), so their interval costs little; multilabel draws draw every entry's truth
``n_draws`` times, a cost proportional to rows x draws. Timings are on a shared machine (2 cores,
other jobs running): the ratios are what count.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).parent))
from _timing import best, calls_main
from bench_estimate import binary, wide

import aggframe as af

READ_WIDE = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
CLASSES = 5
DRAWS = 200


def multilabel(n_examples: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.beta(1.5, 2.5, size=(n_examples, CLASSES))
    y = (rng.uniform(size=s.shape) < s).astype(np.int64)
    return pl.DataFrame(
        {
            "example": np.repeat(np.arange(n_examples), CLASSES),
            "class": np.tile(np.arange(CLASSES), n_examples),
            "score": s.ravel(),
            "y": y.ravel(),
            "g": np.repeat(rng.integers(0, 20, size=n_examples), CLASSES),
        }
    )


def _files(n: int, where: Path) -> dict[str, Path]:
    paths = {form: where / f"{form}_{n}.parquet" for form in ("binary", "wide", "multilabel")}
    if not paths["binary"].exists():
        binary(n, 1).write_parquet(paths["binary"])
        wide(n // 3, 3).write_parquet(paths["wide"])
        multilabel(n // CLASSES, 5).write_parquet(paths["multilabel"])
    return paths


def _calls(n: int, where: Path) -> dict[str, object]:
    """The calls measured: "form: variant" -> a function of no arguments."""
    paths = _files(n, where)
    maps = {
        "binary": af.fit_calibration(af.from_scores(binary(20_000, 2), class_=None)),
        "wide": af.fit_calibration(af.from_scores(wide(20_000, 4), **READ_WIDE)),  # type: ignore[arg-type]
        "multilabel": af.fit_calibration(af.from_scores(multilabel(4_000, 6))),
    }
    reads: dict[str, dict[str, object]] = {"binary": {"class_": None}, "wide": READ_WIDE, "multilabel": {}}
    variants = {
        "micro, draws": (["micro"], DRAWS),
        "+exemplar, no draws": (["micro", "exemplar"], 0),
        "+exemplar, draws": (["micro", "exemplar"], DRAWS),
    }
    calls: dict[str, object] = {}
    for form, path in paths.items():
        for name, (ops, draws) in variants.items():

            def call(form: str = form, path: Path = path, ops: list[str] = ops, draws: int = draws) -> object:
                data = af.from_scores(pl.scan_parquet(path), **reads[form])  # type: ignore[arg-type]
                return af.estimate(maps[form], data, "f1", ops, by="g", n_draws=draws)  # type: ignore[arg-type]

            calls[f"{form}: {name}"] = call
    return calls


def times(sizes: list[int], where: Path) -> None:
    for n in sizes:
        calls = _calls(n, where)
        t = {name: best(fn, reps=2) for name, fn in calls.items()}  # type: ignore[arg-type]
        for form in ("binary", "wide", "multilabel"):
            base = t[f"{form}: micro, draws"]
            point, drawn = t[f"{form}: +exemplar, no draws"], t[f"{form}: +exemplar, draws"]
            print(
                f"n_rows={n:>10,}  {form:10}  micro+{DRAWS} draws {base:.3f}s  +exemplar {point:.3f}s "
                f"({point / base:.2f}x)  +exemplar+{DRAWS} draws {drawn:.3f}s ({drawn / base:.2f}x)"
            )


def main() -> None:
    calls_main(__file__, _calls, times, sizes=[300_000, 1_000_000], memory_rows=1_000_000)


if __name__ == "__main__":
    main()
