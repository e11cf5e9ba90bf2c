"""Core benchmark of aggframe: the full report against a bare Polars pass, aggmetrics and scikit-learn.

Run from the repository root::

    python benchmarks/bench_core.py            # 10M rows, 200k examples, best of 5
    python benchmarks/bench_core.py --quick    # smoke run: 1M rows, 20k examples, 1 repetition

Part 1 (Parquet, lazy): a fresh ``af.from_labels(pl.scan_parquet(f), ...).evaluate()`` (21
measures x micro/macro/weighted/exemplar) against the one aggregation any confusion-based
evaluation needs, ``pl.scan_parquet(f).group_by("y_true", "y_pred").agg(pl.len())``, on
each Polars engine. Two diagnostic rows show where the difference goes: the bare pass with
a constant extra group key (what aggframe's scan groups by when no ``by`` is given) and a
re-evaluation of an already evaluated ``Predictions`` (cell tables cached: the narrow step
alone, independent of the number of rows).

Part 2 (NumPy label arrays in memory): aggframe against aggmetrics 0.2.0 and scikit-learn.

The data (seeded) is written under ``benchmarks/_data/`` and reused; the results go to
``benchmarks/_out/bench_core.json``. Timings use ``time.perf_counter``; nothing is asserted.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import aggframe as af

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE / "_data"
OUT_DIR = HERE / "_out"

N_CLASSES = 100
ACCURACY = 0.70  # share of examples whose prediction is right
SEED = 20_250_101
ENGINES = ("auto", "streaming", "in-memory")  # "auto" is Polars' default (streaming unless configured)
OPERATORS = ("micro", "macro", "weighted", "exemplar")
AGGMETRICS_SUBSET = ("f1", "mcc", "jaccard")
AGGMETRICS_BUDGET_S = 60.0  # run aggmetrics' full report only if it is expected to fit
TARGET_RATIO = 1.5
TARGET_SPEEDUP = 1000.0


# ---------------------------------------------------------------------------
# Data


def make_labels(n: int, n_classes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Single-label truth and predictions: Zipf-skewed class prevalence, ~70% right.

    Wrong predictions are drawn from the same skewed prevalence (re-drawn away from the
    true class), so frequent classes also collect most false positives.
    """
    rng = np.random.default_rng(seed)
    prevalence = 1.0 / np.arange(1, n_classes + 1)
    prevalence /= prevalence.sum()
    y_true = rng.choice(n_classes, size=n, p=prevalence)
    wrong = rng.choice(n_classes, size=n, p=prevalence)
    clash = wrong == y_true
    wrong[clash] = (wrong[clash] + rng.integers(1, n_classes, size=int(clash.sum()))) % n_classes
    y_pred = np.where(rng.random(n) < ACCURACY, y_true, wrong)
    return y_true, y_pred


def parquet_file(rows: int) -> tuple[Path, bool]:
    """The benchmark Parquet file (created if missing); returns (path, reused)."""
    path = DATA_DIR / f"labels_{rows}r_{N_CLASSES}c_seed{SEED}.parquet"
    if path.exists():
        return path, True
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    y_true, y_pred = make_labels(rows, N_CLASSES, SEED)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    pl.DataFrame({"y_true": y_true, "y_pred": y_pred}).write_parquet(tmp)
    tmp.replace(path)  # atomic: a concurrent run never sees a half-written file
    return path, False


# ---------------------------------------------------------------------------
# Timing


def time_once(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def time_interleaved(
    fns: dict[str, Callable[[], Any]], reps: int, *, warmup: bool = True
) -> dict[str, list[float]]:
    """Run each candidate once untimed, then ``reps`` timed rounds, candidates interleaved."""
    if warmup:
        for fn in fns.values():
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(reps):
        for name, fn in fns.items():
            times[name].append(time_once(fn))
    return times


def fmt_s(seconds: float) -> str:
    """Seconds to three significant digits."""
    return f"{seconds:.0f}" if seconds >= 1000 else f"{seconds:.3g}"


# ---------------------------------------------------------------------------
# Part 1: Parquet, lazy


def bench_parquet(path: Path, reps: int) -> dict[str, Any]:
    def bare(engine: str) -> Callable[[], Any]:
        return lambda: pl.scan_parquet(path).group_by("y_true", "y_pred").agg(pl.len()).collect(engine=engine)

    def bare_const_key(engine: str) -> Callable[[], Any]:
        return lambda: (
            pl.scan_parquet(path)
            .with_columns(pl.lit(0).alias("_key"))
            .group_by("_key", "y_true", "y_pred")
            .agg(pl.len())
            .collect(engine=engine)
        )

    def fresh(engine: str) -> Callable[[], Any]:
        def run() -> Any:
            pr = af.from_labels(pl.scan_parquet(path), y_true="y_true", y_pred="y_pred", n_classes=N_CLASSES)
            return pr.evaluate(engine=engine)  # type: ignore[arg-type]

        return run

    results: dict[str, Any] = {}
    for engine in ENGINES:
        cached = af.from_labels(pl.scan_parquet(path), y_true="y_true", y_pred="y_pred", n_classes=N_CLASSES)
        report = fresh(engine)()
        times = time_interleaved(
            {
                "bare": bare(engine),
                "aggframe": fresh(engine),
                "bare_const_key": bare_const_key(engine),
                "aggframe_cached": lambda cached=cached, engine=engine: cached.evaluate(engine=engine),
            },
            reps,
        )
        best = {name: min(ts) for name, ts in times.items()}
        results[engine] = {
            "best_s": best,
            "times_s": times,
            "ratio_aggframe_over_bare": best["aggframe"] / best["bare"],
            "n_values": report.height,
        }
    return results


# ---------------------------------------------------------------------------
# Part 2: NumPy arrays, in memory


def values_of(report: pl.DataFrame) -> dict[tuple[str, str], float]:
    return {(m, o): v for m, o, v in report.select("measure", "operator", "value").iter_rows()}


def bench_aggframe(y_true: np.ndarray, y_pred: np.ndarray, reps: int) -> dict[str, Any]:
    def full() -> Any:
        return af.from_labels(y_true, y_pred, n_classes=N_CLASSES).evaluate()

    def f1_macro() -> float:
        return af.from_labels(y_true, y_pred, n_classes=N_CLASSES).compute("f1", "macro")

    report = full()
    times = time_interleaved({"full": full, "f1_macro": f1_macro}, reps)
    return {
        "full_s": min(times["full"]),
        "f1_macro_s": min(times["f1_macro"]),
        "n_values": report.height,
        "times_s": times,
        "values": values_of(report),
    }


def bench_sklearn(y_true: np.ndarray, y_pred: np.ndarray, reps: int) -> dict[str, Any]:
    from sklearn.metrics import (
        balanced_accuracy_score,
        f1_score,
        jaccard_score,
        matthews_corrcoef,
        precision_recall_fscore_support,
    )

    labels = np.arange(N_CLASSES)

    def everything() -> dict[tuple[str, str], float]:
        out: dict[tuple[str, str], float] = {}
        for avg in ("micro", "macro", "weighted"):
            p, r, f, _ = precision_recall_fscore_support(
                y_true, y_pred, labels=labels, average=avg, zero_division=0
            )
            out["precision", avg], out["recall", avg], out["f1", avg] = float(p), float(r), float(f)
            out["jaccard", avg] = float(
                jaccard_score(y_true, y_pred, labels=labels, average=avg, zero_division=0)
            )
        out["mcc", "multiclass (R_K)"] = float(matthews_corrcoef(y_true, y_pred))
        out["balanced_accuracy", "multiclass"] = float(balanced_accuracy_score(y_true, y_pred))
        return out

    def f1_macro() -> float:
        return float(f1_score(y_true, y_pred, labels=labels, average="macro", zero_division=0))

    values = everything()
    times = time_interleaved({"all": everything, "f1_macro": f1_macro}, reps)
    return {
        "all_s": min(times["all"]),
        "f1_macro_s": min(times["f1_macro"]),
        "n_values": len(values),
        "times_s": times,
        "values": values,
    }


def bench_aggmetrics(y_true: np.ndarray, y_pred: np.ndarray, reps: int, n_measures: int) -> dict[str, Any]:
    import aggmetrics

    def build() -> Any:
        return aggmetrics.IndicatorMatrix(y_true, y_pred, task="multiclass", n_classes=N_CLASSES)

    # Subset first, timed value by value (best over the rounds), no warm-up (pure NumPy).
    rounds = max(1, min(reps, 3))
    build_s: list[float] = []
    per_value: dict[tuple[str, str], list[float]] = {}
    values: dict[tuple[str, str], float] = {}
    for _ in range(rounds):
        start = time.perf_counter()
        im = build()
        build_s.append(time.perf_counter() - start)
        for measure in AGGMETRICS_SUBSET:
            for op in OPERATORS:
                start = time.perf_counter()
                values[measure, op] = float(im.compute(measure, op))
                per_value.setdefault((measure, op), []).append(time.perf_counter() - start)
    best_build = min(build_s)
    best_value = {k: min(v) for k, v in per_value.items()}
    subset_s = best_build + sum(best_value.values())
    mean_value_s = sum(best_value.values()) / len(best_value)
    n_full = n_measures * len(OPERATORS)
    estimate_full_s = best_build + mean_value_s * n_full
    out: dict[str, Any] = {
        "subset": [f"{m} x {o}" for m, o in best_value],
        "subset_rounds": rounds,
        "build_s": best_build,
        "subset_s": subset_s,
        "per_value_s": {f"{m}|{o}": s for (m, o), s in best_value.items()},
        "mean_value_s": mean_value_s,
        "f1_macro_s": best_build + best_value["f1", "macro"],
        "values": values,
    }
    if estimate_full_s <= AGGMETRICS_BUDGET_S:
        start = time.perf_counter()
        im = build()
        for measure in aggmetrics.list_measures():
            for op in OPERATORS:
                values[measure, op] = float(im.compute(measure, op))
        out.update(full_s=time.perf_counter() - start, full_measured=True, n_values=len(values))
    else:
        out.update(full_s=estimate_full_s, full_measured=False, n_values=n_full)
    return out


def max_abs_diff(a: dict[tuple[str, str], float], b: dict[tuple[str, str], float]) -> tuple[float, int]:
    common = [k for k in a if k in b]
    if not common:
        return float("nan"), 0
    return max(abs(a[k] - b[k]) for k in common), len(common)


# ---------------------------------------------------------------------------
# Machine and reporting


def machine() -> dict[str, Any]:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    def version(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"

    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=HERE.parent, capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError):
            return "?"
        return done.stdout.strip()

    return {
        "aggframe_commit": git("rev-parse", "--short", "HEAD"),
        "aggframe_tree_dirty": bool(git("status", "--porcelain", "--", "aggframe")),
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "cpu_count": os.cpu_count(),
        "cpu": cpu,
        "loadavg_1_5_15_at_start": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "polars_threads": pl.thread_pool_size(),
        "polars_engine_affinity": os.environ.get("POLARS_ENGINE_AFFINITY", "(unset)"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "polars": pl.__version__,
        "aggframe": af.__version__,
        "aggmetrics": version("aggmetrics"),
        "scikit-learn": version("scikit-learn"),
        "numpy": np.__version__,
        "narwhals": version("narwhals"),
    }


def jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {
            ("|".join(map(str, k)) if isinstance(k, tuple) else str(k)): jsonable(v) for k, v in obj.items()
        }
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def print_parquet(res: dict[str, Any], rows: int, path: Path, reused: bool, reps: int) -> None:
    size_mb = path.stat().st_size / 1e6
    state = "reused" if reused else "written"
    print(
        f"\n[1] {rows:,} rows x {N_CLASSES} classes, Parquet {size_mb:.1f} MB ({state}), best of {reps} after a warm-up"
    )
    print("    aggframe = fresh from_labels(scan_parquet) + evaluate(): 21 measures x 4 operators")
    print("    bare     = scan_parquet().group_by('y_true', 'y_pred').agg(pl.len()).collect()")
    header = f"    {'engine':<10} {'bare':>8} {'aggframe':>9} {'ratio':>6}  {'| bare+const key':>16} {'cached re-eval':>15}"
    print(header)
    for engine, r in res.items():
        b = r["best_s"]
        flag = "ok" if r["ratio_aggframe_over_bare"] <= TARGET_RATIO else "MISS"
        print(
            f"    {engine:<10} {fmt_s(b['bare']):>8} {fmt_s(b['aggframe']):>9} {r['ratio_aggframe_over_bare']:>5.2f}x"
            f"  | {fmt_s(b['bare_const_key']):>14} {fmt_s(b['aggframe_cached']):>15}   {flag} (target <= {TARGET_RATIO}x)"
        )
    print(
        "    (seconds; 'auto' = Polars' default engine; the last two columns are diagnostics: see the docstring)"
    )


def print_numpy(afr: dict[str, Any], skl: dict[str, Any], amx: dict[str, Any], n: int, reps: int) -> None:
    print(
        f"\n[2] {n:,} examples x {N_CLASSES} classes, NumPy label arrays, best of {reps} (aggmetrics: best of {amx['subset_rounds']})"
    )
    per_af = afr["full_s"] / afr["n_values"]
    per_skl = skl["all_s"] / skl["n_values"]
    per_am = amx["full_s"] / amx["n_values"]
    how = "measured" if amx["full_measured"] else f"EXTRAPOLATED from {len(amx['subset'])} values"
    print(f"    {'tool / task':<44} {'values':>6} {'seconds':>9} {'s/value':>10}")
    print(
        f"    {'aggframe  full report':<44} {afr['n_values']:>6} {fmt_s(afr['full_s']):>9} {fmt_s(per_af):>10}"
    )
    print(
        f"    {'aggframe  compute(f1, macro)':<44} {1:>6} {fmt_s(afr['f1_macro_s']):>9} {fmt_s(afr['f1_macro_s']):>10}"
    )
    label = f"aggmetrics full report ({how})"
    print(f"    {label:<44} {amx['n_values']:>6} {fmt_s(amx['full_s']):>9} {fmt_s(per_am):>10}")
    label = f"aggmetrics subset ({', '.join(AGGMETRICS_SUBSET)} x 4 ops)"
    n_sub = len(amx["subset"])
    print(f"    {label:<44} {n_sub:>6} {fmt_s(amx['subset_s']):>9} {fmt_s(amx['subset_s'] / n_sub):>10}")
    print(
        f"    {'aggmetrics IndicatorMatrix + f1 macro':<44} {1:>6} {fmt_s(amx['f1_macro_s']):>9} {fmt_s(amx['f1_macro_s']):>10}"
    )
    print(
        f"    {'sklearn   prfs x3, jaccard x3, mcc, bal. acc.':<44} {skl['n_values']:>6} {fmt_s(skl['all_s']):>9} {fmt_s(per_skl):>10}"
    )
    print(
        f"    {'sklearn   f1_score(average=macro)':<44} {1:>6} {fmt_s(skl['f1_macro_s']):>9} {fmt_s(skl['f1_macro_s']):>10}"
    )
    full_speedup = amx["full_s"] / afr["full_s"]
    flag = "ok" if full_speedup >= TARGET_SPEEDUP else "MISS"
    print(
        f"    aggmetrics / aggframe: full report {full_speedup:,.0f}x   per value {per_am / per_af:,.0f}x   "
        f"f1 macro {amx['f1_macro_s'] / afr['f1_macro_s']:,.0f}x   {flag} (target >= {TARGET_SPEEDUP:,.0f}x, full report)"
    )
    print(
        f"    sklearn / aggframe:    its {skl['n_values']} values vs full report {skl['all_s'] / afr['full_s']:.2f}x   "
        f"per value {per_skl / per_af:.1f}x   f1 macro {skl['f1_macro_s'] / afr['f1_macro_s']:.2f}x"
    )
    d_am, n_am = max_abs_diff(afr["values"], amx["values"])
    d_skl, n_skl = max_abs_diff(afr["values"], skl["values"])
    print(
        f"    agreement: max |aggframe - aggmetrics| = {d_am:.1e} over {n_am} values; "
        f"max |aggframe - sklearn| = {d_skl:.1e} over {n_skl} values (micro/macro/weighted P, R, F1, Jaccard)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--rows", type=int, default=None, help="Parquet rows for part 1 (default 10M; 1M with --quick)"
    )
    parser.add_argument(
        "--examples", type=int, default=None, help="examples for part 2 (default 200k; 20k with --quick)"
    )
    parser.add_argument(
        "--reps", type=int, default=None, help="timed repetitions (best of; default 5, 1 with --quick)"
    )
    parser.add_argument("--quick", action="store_true", help="smoke run: 1M rows, 20k examples, 1 repetition")
    args = parser.parse_args(argv)
    rows = args.rows or (1_000_000 if args.quick else 10_000_000)
    examples = args.examples or (20_000 if args.quick else 200_000)
    reps = args.reps or (1 if args.quick else 5)

    info = machine()
    print(
        f"bench_core  {dt.datetime.now(dt.UTC).isoformat(timespec='seconds')}  nproc={info['nproc']} "
        f"({info['cpu']}), polars {info['polars']} ({info['polars_threads']} threads), aggframe {info['aggframe']} "
        f"(commit {info['aggframe_commit']}{'+dirty' if info['aggframe_tree_dirty'] else ''}), "
        f"aggmetrics {info['aggmetrics']}, scikit-learn {info['scikit-learn']}, numpy {info['numpy']}, "
        f"python {info['python']}, load average {info['loadavg_1_5_15_at_start'][0]:.2f}"
    )

    path, reused = parquet_file(rows)
    parquet = bench_parquet(path, reps)
    print_parquet(parquet, rows, path, reused, reps)

    y_true, y_pred = make_labels(examples, N_CLASSES, SEED + 1)
    afr = bench_aggframe(y_true, y_pred, reps)
    skl = bench_sklearn(y_true, y_pred, reps)
    amx = bench_aggmetrics(y_true, y_pred, reps, n_measures=len(af.list_measures()))
    print_numpy(afr, skl, amx, examples, reps)

    result = {
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "loadavg_1_5_15_at_end": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "machine": info,
        "config": {
            "rows": rows,
            "examples": examples,
            "reps": reps,
            "quick": args.quick,
            "n_classes": N_CLASSES,
            "accuracy": ACCURACY,
            "seed": SEED,
            "parquet": path,
            "aggmetrics_subset": AGGMETRICS_SUBSET,
        },
        "parquet": parquet,
        "numpy": {"aggframe": afr, "sklearn": skl, "aggmetrics": amx},
        "summary": {
            "ratio_aggframe_over_bare": {e: r["ratio_aggframe_over_bare"] for e, r in parquet.items()},
            "aggmetrics_over_aggframe_full": amx["full_s"] / afr["full_s"],
            "aggmetrics_over_aggframe_per_value": (amx["full_s"] / amx["n_values"])
            / (afr["full_s"] / afr["n_values"]),
            "aggmetrics_full_measured": amx["full_measured"],
            "sklearn_over_aggframe_full": skl["all_s"] / afr["full_s"],
            "sklearn_over_aggframe_per_value": (skl["all_s"] / skl["n_values"])
            / (afr["full_s"] / afr["n_values"]),
        },
    }
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    out = OUT_DIR / "bench_core.json"
    out.write_text(json.dumps(jsonable(result), indent=2) + "\n")
    print(f"\nresults written to {out.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
