"""What it would take to reach issue #19's bar at 10^6 groups of 10 rows: a kernel outside Polars.

Not part of aggframe: a measured sketch for the decision the issue leaves open
(``benchmarks/NOTES_groups.md``, "A third look"). Run from the repository root,
after ``bench_groups.py --only labels_g1e6`` has written the data::

    pip install numba            # not a dependency of aggframe
    python benchmarks/sketch_dense_kernel.py            # best of 3, against the bare pass
    python benchmarks/sketch_dense_kernel.py --check    # also compare with aggframe's values

The report is ``bench_groups.py``'s (f1, precision, recall, mcc x micro, macro,
weighted, exemplar, ``by="group"``, convention exclude, a declared universe of
``m`` consecutive integer classes), values only (aggframe also reports
``n_entries`` and ``n_undefined``). The plan, eager and in memory:

1. read the three columns (``pl.read_parquet``);
2. dense group ids from an open-addressing hash table in Numba (first-seen order),
   then the keys sorted and the ids renumbered (the report is sorted by group);
3. one pass over the rows into a dense ``(groups, m, 3)`` table of #true, #pred and
   tp (a group's classes are adjacent: one random access a row, not one a column
   into a hash table as Polars' group-by sums do);
4. per group, every class of the universe (absent ones included: their cells are
   (0, 0, 0, N), so the closed form is not needed), the four measures and their
   four operators, fused;
5. the tidy rows.

What it leaves out, and what a real engine would have to add: validation (labels
outside the universe, nulls, dtypes), any key dtype (here one Int64 column),
labels that are not consecutive integers, custom measures (written as Polars
expressions: evaluating them needs the (group, class) rows in Polars again, the
step that costs), folds, targets, grouping sets, conventions other than exclude,
streaming (the dense table is groups x m; the input must fit in memory), and
engines other than Polars.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(1, str(HERE))

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from bench_groups import CONFIGS, bare_query, ensure_data  # noqa: E402

MEASURES = ("f1", "precision", "recall", "mcc")
OPERATORS = ("micro", "macro", "weighted", "exemplar")
TINY = 1e-12  # aggframe's guard on a denominator (measures.formulas)


try:
    import numba as nb
except ImportError:  # the sketch says so in main()
    nb = None


def _jit(f: Any) -> Any:
    return nb.njit(cache=True)(f) if nb is not None else f


@_jit
def dense_ids(keys: Any) -> Any:
    n = keys.size
    cap = 1
    while cap < 2 * n:
        cap *= 2
    slots = np.full(cap, -1, np.int64)
    vals = np.empty(cap, np.int64)
    gid = np.empty(n, np.int64)
    firsts = np.empty(n, np.int64)
    g = 0
    mask = cap - 1
    for i in range(n):
        k = keys[i]
        h = (k * np.int64(-7046029254386353131)) & mask
        while True:
            s = slots[h]
            if s == -1:
                slots[h] = g
                vals[h] = k
                firsts[g] = k
                gid[i] = g
                g += 1
                break
            if vals[h] == k:
                gid[i] = s
                break
            h = (h + 1) & mask
    return gid, firsts[:g]


@_jit
def counts(gid: Any, rank: Any, yt: Any, yp: Any, n_groups: int, m: int) -> Any:  # noqa: PLR0917
    c = np.zeros((n_groups, m, 3), np.int32)
    for i in range(gid.size):
        g = rank[gid[i]]
        a = yt[i]
        b = yp[i]
        c[g, a, 0] += 1
        c[g, b, 1] += 1
        if a == b:
            c[g, a, 2] += 1
    return c


@_jit
def _ratio(a: float, b: float) -> float:
    return a / b if abs(b) > TINY else np.nan


@_jit
def _four(tp: float, fp: float, fn: float, tn: float) -> Any:
    r = np.empty(4)
    r[0] = _ratio(2.0 * tp, 2.0 * tp + fn + fp)
    r[1] = _ratio(tp, tp + fp)
    r[2] = _ratio(tp, tp + fn)
    r[3] = _ratio(tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))
    return r


@_jit
def report(c: Any, m: int) -> Any:
    n_groups = c.shape[0]
    out = np.empty((n_groups, 16))
    for g in range(n_groups):
        n = 0.0
        right = 0.0
        for k in range(m):
            n += c[g, k, 0]
            right += c[g, k, 2]
        cd = np.zeros(4)
        cs = np.zeros(4)
        wd = np.zeros(4)
        ws = np.zeros(4)
        for k in range(m):
            t = float(c[g, k, 0])
            p = float(c[g, k, 1])
            tp = float(c[g, k, 2])
            vals = _four(tp, p - tp, t - tp, n - t - p + tp)
            for j in range(4):
                v = vals[j]
                if not np.isnan(v):
                    cd[j] += 1.0
                    cs[j] += v
                    wd[j] += t
                    ws[j] += v * t
        micro = _four(right, n - right, n - right, m * n - 2.0 * n + right)
        good = _four(1.0, 0.0, 0.0, m - 1.0)
        bad = _four(0.0, 1.0, 1.0, m - 2.0)
        for j in range(4):
            out[g, 4 * j] = micro[j]
            out[g, 4 * j + 1] = cs[j] / cd[j] if cd[j] > 0 else np.nan
            out[g, 4 * j + 2] = ws[j] / wd[j] if wd[j] > 0 else (cs[j] / cd[j] if cd[j] > 0 else np.nan)
            ed = 0.0
            es = 0.0
            if right > 0 and not np.isnan(good[j]):
                ed += right
                es += right * good[j]
            if n - right > 0 and not np.isnan(bad[j]):
                ed += n - right
                es += (n - right) * bad[j]
            out[g, 4 * j + 3] = es / ed if ed > 0 else np.nan
    return out


def sketch(path: Path, m: int) -> pl.DataFrame:
    df = pl.read_parquet(path, columns=["group", "y_true", "y_pred"])
    gid, firsts = dense_ids(df["group"].to_numpy())
    order = np.argsort(firsts, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    c = counts(gid, rank, df["y_true"].to_numpy(), df["y_pred"].to_numpy(), firsts.size, m)
    values = report(c, m)
    labels = [(meas, op) for meas in MEASURES for op in OPERATORS]
    slot = pl.int_range(pl.len(), dtype=pl.UInt32) % len(labels)
    return pl.DataFrame({"group": np.repeat(firsts[order], len(labels)), "value": values.ravel()}).select(
        "group",
        pl.lit(pl.Series([a for a, _ in labels])).gather(slot).alias("measure"),
        pl.lit(pl.Series([b for _, b in labels])).gather(slot).alias("operator"),
        "value",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="compare the values with aggframe's")
    args = parser.parse_args()
    cfg = {c.name: c for c in CONFIGS}["labels_g1e6"]
    path, _, _ = ensure_data(cfg)
    if nb is None:
        sys.exit("this sketch needs Numba, which aggframe does not depend on: pip install numba")
    sketch(path, cfg.classes)  # compiles (or loads the cache) and warms up
    bare, dense = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        pl.collect_all(bare_query(cfg, path), engine="streaming")
        bare.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        out = sketch(path, cfg.classes)
        dense.append(time.perf_counter() - t0)
    print(f"bare pass {min(bare):.2f} s, dense kernel {min(dense):.2f} s: {min(dense) / min(bare):.2f}x bare")
    if args.check:
        import aggframe as af

        got = af.from_labels(pl.scan_parquet(path), y_true="y_true", y_pred="y_pred", n_classes=cfg.classes)
        ref = got.evaluate(list(MEASURES), list(OPERATORS), by="group").select(
            "group", "measure", "operator", "value"
        )
        diff = (ref["value"] - out["value"]).abs().max()
        same = ref.drop("value").equals(out.drop("value"))
        print(f"the same rows in the same order: {same}; largest difference of a value: {diff:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
