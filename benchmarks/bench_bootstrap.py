"""Bootstrap intervals in the plan (issue #16): B = 200 replicates of 1M examples in 100 groups.

Run from the repository root::

    python benchmarks/bench_bootstrap.py                 # best of 3 per candidate
    python benchmarks/bench_bootstrap.py --repeat 5
    python benchmarks/bench_bootstrap.py --quick         # 100k examples, B = 50: a smoke run

The data (seeded, written once under ``benchmarks/_data/``): 1M examples, one row
each: ``group`` (100 groups of 10k), ``example`` (Int64 id), ``y_true``, ``y_pred``
(10 classes, 70% right). Each candidate runs in its own fresh process (peak RSS is
the child's ``VmHWM``; CPU seconds are user + system over all threads, less
sensitive than wall time to other work on a shared machine):

``bare``        a bare Polars pass computing the same weighted per-replicate group-by:
                the same per-example weights (the hash of
                :mod:`aggframe.wide.bootstrap`, written out in plain Polars with native
                bit operations where Polars has them, checked equal to aggframe's), one
                ``UInt8`` weight column per replicate, summed per (group, y_true, y_pred):
                the (group, replicate, y_true, y_pred) weighted counts, and nothing else
                (no unweighted pass, no checks, no measures, no intervals).
``bare_long``   the same counts the other way round: the rows cross-joined with the B
                replicates (one row per example and replicate), weighted, grouped by
                (group, replicate, y_true, y_pred) (the design question of the issue).
``aggframe``    ``af.from_labels(pl.scan_parquet(f), example="example").evaluate(
                measures, operators, by="group", n_boot=B)``: the full report (21
                measures x micro/macro/weighted/exemplar) with intervals.
``aggframe_f1`` the same with one measure and one operator (macro F1): what the
                intervals cost without the report's width.
``no_ci``       the full report without intervals (``n_boot=None``).

Ratios to ``bare`` and ``no_ci`` are printed; nothing is asserted. Results go to
``benchmarks/_out/bench_bootstrap.json``.
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
from aggframe.wide.bootstrap import THRESHOLDS, _seed_words, replicate_constants  # noqa: E402

DATA = HERE / "_data"
OUT = HERE / "_out"
CANDIDATES = ("bare", "bare_long", "aggframe", "aggframe_f1", "no_ci")
M32 = 2**32


def make_data(n: int, groups: int, m: int, seed: int = 16) -> Path:
    path = DATA / f"boot_{n}x{groups}g_{m}c.parquet"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m, n)
    p = np.where(rng.random(n) < 0.7, y, rng.integers(0, m, n))
    pl.DataFrame(
        {
            "group": rng.integers(0, groups, n),
            "example": rng.permutation(n).astype(np.int64) * 7 + 3,
            "y_true": y,
            "y_pred": p,
        }
    ).write_parquet(path)
    return path


# -- the bare pass: the same weights, in plain Polars ------------------------------------------


MASK = M32 - 1


def _mix_steps(c: pl.Expr) -> list[pl.Expr]:
    """The steps of the hash's mix (applied in turn, each to the column ``c``)."""
    lo, hi = c & 65535, c // 65536
    add_shift = (c + c // 65536) & MASK
    multiply = (c * 73244475) & MASK
    quadratic = (c + 2 * ((lo * lo + ((hi * lo) & 32767) * 131072) & MASK)) & MASK
    return [add_shift, multiply, quadratic, add_shift, multiply, quadratic, add_shift]


def bare_hash(lf: pl.LazyFrame, seed: int) -> pl.LazyFrame:
    """``_h``: the base hash of ``example`` (Int64 ids, no nulls)."""
    s1, s2, s3, _ = _seed_words(seed)
    x, h = pl.col("example"), pl.col("_h")
    lf = lf.with_columns((x & MASK).alias("_lo"), (x // M32 + 2**31).alias("_hi"))
    for start in ((pl.col("_lo") + s1) & MASK, (h + pl.col("_hi") + s2) & MASK, (h + s3) & MASK):
        lf = lf.with_columns(start.alias("_h"))
        for step in _mix_steps(h):
            lf = lf.with_columns(step.alias("_h"))
    return lf.drop("_lo", "_hi")


def poisson_u8(u: pl.Expr) -> pl.Expr:
    expr = pl.lit(len(THRESHOLDS), dtype=pl.UInt8)
    for k in reversed(range(len(THRESHOLDS))):
        expr = (
            pl.when(u < pl.lit(THRESHOLDS[k], dtype=pl.UInt32))
            .then(pl.lit(k, dtype=pl.UInt8))
            .otherwise(expr)
        )
    return expr


def bare_weights(lf: pl.LazyFrame, n_boot: int, seed: int) -> tuple[pl.LazyFrame, list[str]]:
    names = [f"w{b}" for b in range(n_boot)]
    h = pl.col("_h").cast(pl.UInt32)
    consts = replicate_constants(seed, n_boot)
    lf = bare_hash(lf, seed).with_columns(
        (h * pl.lit(k, dtype=pl.UInt32) + pl.lit(c, dtype=pl.UInt32)).alias(n)
        for n, (k, c) in zip(names, consts, strict=True)
    )
    return lf.with_columns(poisson_u8(pl.col(n)).alias(n) for n in names), names


def bare(path: Path, n_boot: int) -> pl.DataFrame:
    lf, names = bare_weights(pl.scan_parquet(path), n_boot, 0)
    return lf.group_by("group", "y_true", "y_pred").agg(pl.col(names).sum()).collect(engine="streaming")


def bare_long(path: Path, n_boot: int) -> pl.DataFrame:
    reps = pl.LazyFrame({"rep": pl.Series(range(n_boot), dtype=pl.UInt32)})
    consts = replicate_constants(0, n_boot)
    k = pl.Series([c[0] for c in consts], dtype=pl.UInt32)
    c = pl.Series([c[1] for c in consts], dtype=pl.UInt32)
    lf = bare_hash(pl.scan_parquet(path), 0).join(reps, how="cross")
    u = pl.col("_h").cast(pl.UInt32) * pl.lit(k).gather(pl.col("rep")) + pl.lit(c).gather(pl.col("rep"))
    return (
        lf.with_columns(poisson_u8(u).alias("w"))
        .group_by("group", "rep", "y_true", "y_pred")
        .agg(pl.col("w").sum())
        .collect(engine="streaming")
    )


MEASURES: list[str] | None = None  # all 21
OPERATORS = ["micro", "macro", "weighted", "exemplar"]


def run(which: str, path: Path, n_boot: int) -> Any:
    if which == "bare":
        return bare(path, n_boot)
    if which == "bare_long":
        return bare_long(path, n_boot)
    pr = af.from_labels(pl.scan_parquet(path), example="example")
    if which == "aggframe":
        return pr.evaluate(MEASURES, OPERATORS, by="group", n_boot=n_boot)
    if which == "aggframe_f1":
        return pr.evaluate("f1", "macro", by="group", n_boot=n_boot)
    return pr.evaluate(MEASURES, OPERATORS, by="group")


def _vm_hwm_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def child(which: str, path: Path, n_boot: int, repeat: int) -> dict[str, Any]:
    walls, cpus = [], []
    for _ in range(repeat):
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        run(which, path, n_boot)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        walls.append(wall)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return {
        "which": which,
        "wall": min(walls),
        "walls": walls,
        "cpu": min(cpus),
        "cpus": cpus,
        "rss_gib": _vm_hwm_kib() / 2**20,
    }


def check_weights(path: Path) -> None:
    """The bare pass's weights are aggframe's (on the first 2,000 examples)."""
    import narwhals as nw

    from aggframe._options import Bootstrap
    from aggframe.wide.bootstrap import unit_hash, weight_columns

    head = pl.scan_parquet(path).head(2000)
    ours, names = weight_columns(
        unit_hash(nw.from_native(head), "example", 0, "_h", what="example"), "_h", Bootstrap(n_boot=8)
    )
    theirs, bare_names = bare_weights(head, 8, 0)
    a = nw.to_native(ours).select(names).collect().cast(pl.Int64)
    b = theirs.select(bare_names).collect().cast(pl.Int64)
    assert a.to_numpy().tolist() == b.to_numpy().tolist(), "the bare pass's weights differ from aggframe's"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", nargs="*", default=list(CANDIDATES))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--path", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--n-boot", type=int, default=None)
    args = parser.parse_args()
    n, n_boot = (100_000, 50) if args.quick else (1_000_000, 200)
    n_boot = args.n_boot or n_boot
    if args.child:
        print(json.dumps(child(args.child, args.path, n_boot, args.repeat)))
        return
    path = make_data(n, 100, 10)
    check_weights(path)
    results = {}
    for which in args.only:
        cmd = [
            sys.executable,
            __file__,
            "--child",
            which,
            "--path",
            str(path),
            "--n-boot",
            str(n_boot),
            "--repeat",
            str(args.repeat),
        ]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT)
        results[which] = json.loads(out.stdout.strip().splitlines()[-1])
        r = results[which]
        print(
            f"{which:12s} wall {r['wall']:7.2f} s  cpu {r['cpu']:7.2f} s  peak RSS {r['rss_gib']:.2f} GiB",
            flush=True,
        )
    if "bare" in results:
        for which, r in results.items():
            if which != "bare":
                print(
                    f"{which:12s} / bare : wall {r['wall'] / results['bare']['wall']:.2f}x  cpu {r['cpu'] / results['bare']['cpu']:.2f}x  rss {r['rss_gib'] / results['bare']['rss_gib']:.2f}x"
                )
    if "no_ci" in results and "aggframe" in results:
        r, base = results["aggframe"], results["no_ci"]
        print(f"aggframe / no_ci: wall {r['wall'] / base['wall']:.1f}x  cpu {r['cpu'] / base['cpu']:.1f}x")
    OUT.mkdir(parents=True, exist_ok=True)
    name = "bench_bootstrap_quick.json" if args.quick else "bench_bootstrap.json"
    (OUT / name).write_text(
        json.dumps({"n": n, "n_boot": n_boot, "groups": 100, "classes": 10, "results": results}, indent=2)
    )


if __name__ == "__main__":
    main()
