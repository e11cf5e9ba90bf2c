"""Bootstrap intervals of AUROC and average precision (issue #29): B = 200 on 1M score rows x 10 classes.

Run from the repository root::

    python benchmarks/bench_score_boot.py                # 1M rows (100k examples x 10 classes), B = 200
    python benchmarks/bench_score_boot.py --quick        # 100k rows, B = 50: a smoke run
    python benchmarks/bench_score_boot.py --rows 300000  # another size

The data (seeded, written once under ``benchmarks/_data/``): long scores, one row per
(example, class): ``example`` (Int64 id), ``class`` (10), ``score`` (continuous: a
softmax of noisy logits), ``y`` (0/1, one positive per example). Each candidate runs
in its own fresh process; peak RSS is the child's ``ru_maxrss``.

``bare``      the same work written by hand in plain Polars: per-example Poisson(1)
              weights from a seeded hash (Polars' own ``hash``, one ``UInt8`` column
              per replicate), the rows sorted by (class, score descending), and per
              class and replicate the weighted cumulative sums down the scores and
              the sums that make AUROC and AP (and the same over the pooled rows,
              sorted by score: micro). No tie handling (the scores here have no
              ties), no unweighted pass, no checks, no intervals.
``aggframe``  ``af.from_scores(pl.scan_parquet(f), decision="argmax").evaluate(
              ["auroc", "average_precision"], ["micro", "macro"], n_boot=B)``: the
              point values, the B replicates (tie runs handled, null keys, the
              universe), percentile intervals.
``no_ci``     the same without intervals (``n_boot=None``).

Ratios to ``bare`` are printed; nothing is asserted. The machine may be shared with
other work: ratios are what count. Results go to ``benchmarks/_out/bench_score_boot.json``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # this checkout's aggframe, not an editable install's

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

import aggframe as af  # noqa: E402
from aggframe.wide.bootstrap import THRESHOLDS, replicate_constants  # noqa: E402

DATA = HERE / "_data"
OUT = HERE / "_out"
CANDIDATES = ("bare", "aggframe", "no_ci")


def make_data(rows: int, m: int = 10, seed: int = 29) -> Path:
    path = DATA / f"score_boot_{rows}r_{m}c.parquet"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    n = rows // m
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, m, n)
    logits = rng.normal(0, 1, (n, m)) + 1.5 * np.eye(m)[yt]
    prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    pl.DataFrame(
        {
            "example": np.repeat(rng.permutation(n).astype(np.int64) * 7 + 3, m),
            "class": np.tile(np.arange(m), n),
            "score": prob.ravel(),
            "y": np.eye(m, dtype=np.int64)[yt].ravel(),
        }
    ).write_parquet(path)
    return path


def _poisson(u: pl.Expr) -> pl.Expr:
    out = pl.lit(len(THRESHOLDS), dtype=pl.UInt8)
    for k in reversed(range(len(THRESHOLDS))):
        out = (
            pl.when(u < pl.lit(THRESHOLDS[k], dtype=pl.UInt32)).then(pl.lit(k, dtype=pl.UInt8)).otherwise(out)
        )
    return out


def _bare_sums(rows: pl.LazyFrame, group: list[str], n_boot: int) -> pl.LazyFrame:
    y = pl.col("y")
    aggs = []
    for b in range(n_boot):
        p = pl.col(f"w{b}").cast(pl.Int64) * y
        n = pl.col(f"w{b}").cast(pl.Int64) - p
        tp, fp = p.cum_sum(), n.cum_sum()
        aggs += [
            p.sum().alias(f"P{b}"),
            n.sum().alias(f"N{b}"),
            (n * tp).sum().alias(f"A{b}"),
            (p * tp / (tp + fp)).sum().alias(f"AP{b}"),
        ]
    return rows.sort([*group, "score"], descending=[*[False] * len(group), True]).group_by(group).agg(aggs)


def bare(path: Path, n_boot: int) -> pl.DataFrame:
    consts = replicate_constants(0, n_boot)
    h = (pl.col("example").hash(seed=0) % (2**32)).cast(pl.UInt32)  # 32 bits of Polars' own hash
    rows = (
        pl.scan_parquet(path)
        .with_columns(
            *[
                _poisson(h * pl.lit(k, dtype=pl.UInt32) + pl.lit(c, dtype=pl.UInt32)).alias(f"w{b}")
                for b, (k, c) in enumerate(consts)
            ]
        )
        .drop("example")
    )
    per_class = _bare_sums(rows, ["class"], n_boot)
    pooled = _bare_sums(rows.with_columns(pl.lit(0).alias("all")), ["all"], n_boot)
    got = pl.collect_all([per_class, pooled])
    return got[0]


def run_aggframe(path: Path, n_boot: int | None) -> pl.DataFrame:
    pr = af.from_scores(pl.scan_parquet(path), example="example", decision="argmax")
    return pr.evaluate(["auroc", "average_precision"], ["micro", "macro"], n_boot=n_boot)


def child(candidate: str, path: Path, n_boot: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    if candidate == "bare":
        out = bare(path, n_boot)
    elif candidate == "aggframe":
        out = run_aggframe(path, n_boot)
    else:
        out = run_aggframe(path, None)
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "candidate": candidate,
        "wall_s": round(wall, 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "rows_out": out.height,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--child", choices=CANDIDATES)
    parser.add_argument("--path")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, Path(args.path), args.n_boot)))
        return
    rows, n_boot = (100_000, 50) if args.quick else (args.rows, args.n_boot)
    path = make_data(rows)
    print(f"{rows:,} score rows (10 classes), B = {n_boot}; machine shared with other work: ratios count")
    results: dict[str, dict[str, Any]] = {}
    for candidate in CANDIDATES:
        best: dict[str, Any] | None = None
        for _ in range(args.repeat):
            cmd = [
                sys.executable,
                __file__,
                "--child",
                candidate,
                "--path",
                str(path),
                "--n-boot",
                str(n_boot),
            ]
            got = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            if best is None or got["wall_s"] < best["wall_s"]:
                best = got
        assert best is not None
        results[candidate] = best
        print(
            f"{candidate:>9}: {best['wall_s']:8.2f} s wall, {best['cpu_s']:8.2f} s cpu, "
            f"peak RSS {best['peak_rss_mb']:8.1f} MB"
        )
    base = results["bare"]
    for name in ("aggframe", "no_ci"):
        r = results[name]
        print(
            f"{name} / bare: wall {r['wall_s'] / base['wall_s']:.2f}x, cpu {r['cpu_s'] / base['cpu_s']:.2f}x, "
            f"peak RSS {r['peak_rss_mb'] / base['peak_rss_mb']:.2f}x"
        )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "bench_score_boot.json").write_text(
        json.dumps({"rows": rows, "n_boot": n_boot, "results": results}, indent=2)
    )


if __name__ == "__main__":
    main()
