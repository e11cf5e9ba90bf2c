"""A sketch, not the library: the label form's grouped report without the universe fill (issue #19).

Run from the repository root, after ``bench_groups.py`` has written the data::

    python benchmarks/sketch_closed_form.py labels_g1e6           # time: bare, sketch, aggframe
    python benchmarks/sketch_closed_form.py labels_g1e6 --quick   # also checks the values against aggframe

What it shows: the report's cost can follow the data (the (group, class) pairs that
occur) and the result size, not groups x classes. For each group it computes

* per class that occurs in the group: #true, #pred, tp (the bare pass's margins, no
  (y_true, y_pred) pair table), every measure on those cells, and the sufficient sums
  of macro and weighted over them;
* for the ``m - present`` absent classes, whose cells are all (0, 0, 0, N): the
  measure once, ``M(0, 0, 0, N)``, added ``absent`` times (weight 0 under weighted);
* micro from the pooled cells (tp = right, fp = fn = N - right, tn = mN - tp - 2 fp),
  and exemplar from the two per-example profiles (right: (1, 0, 0, m - 1); wrong:
  (0, 1, 1, m - 2)), both per group from (N, right);

then resolves the ``exclude`` convention as ``aggframe._operators._resolve`` does
(weighted sums, uniform fallback on a zero weight total) and unpivots to the tidy
result, unsorted. Only ``convention="exclude"``, one by-column, a declared universe
``n_classes=m``, label form; the measures are aggframe's own expressions.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(HERE))

import polars as pl  # noqa: E402
from _timing import runs  # noqa: E402
from aggframe._measures import get_measure  # noqa: E402
from bench_groups import CONFIGS, FOUR, OPERATORS, Config, _status, bare_query, data_path  # noqa: E402

import aggframe as af  # noqa: E402

NAN = pl.lit(float("nan"), dtype=pl.Float64)


def _cells(tp: pl.Expr, fp: pl.Expr, fn: pl.Expr, tn: pl.Expr) -> list[pl.Expr]:
    named = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
    return [e.cast(pl.Float64).alias(name) for name, e in named.items()]


def sketch(cfg: Config, measures: list[str]) -> pl.LazyFrame:
    """The tidy report (group, measure, operator, value, n_entries, n_undefined), unsorted."""
    ms = [get_measure(m) for m in measures]
    m = float(cfg.classes)
    g = "group"
    lf = pl.scan_parquet(data_path(cfg))
    right = (pl.col("y_true") == pl.col("y_pred")).cast(pl.Int64)
    per_true = lf.group_by(g, pl.col("y_true").alias("class")).agg(
        pl.len().cast(pl.Int64).alias("t"), right.sum().alias("tp")
    )
    per_pred = lf.group_by(g, pl.col("y_pred").alias("class")).agg(pl.len().cast(pl.Int64).alias("p"))
    present = per_true.join(per_pred, on=[g, "class"], how="full", coalesce=True).with_columns(
        pl.col("t", "tp", "p").fill_null(0)
    )
    sizes = per_true.group_by(g).agg(pl.col("t").sum().alias("N"), pl.col("tp").sum().alias("R"))
    N, R, t, p, tp = pl.col("N"), pl.col("R"), pl.col("t"), pl.col("p"), pl.col("tp")

    # macro / weighted over the classes that occur: one group-by, sums per measure
    vals = present.join(sizes, on=g).select(
        g, t.cast(pl.Float64).alias("_s"), *_cells(tp, p - tp, t - tp, N - t - p + tp)
    )
    vals = vals.select(g, "_s", *[mm.expr().alias(f"v{i}") for i, mm in enumerate(ms)])
    agg = [pl.len().alias("present"), pl.col("_s").sum().alias("w_tot")]
    for i in range(len(ms)):
        v = pl.col(f"v{i}")
        agg += [
            v.is_not_null().sum().alias(f"nd{i}"),
            v.sum().alias(f"sv{i}"),
            pl.when(v.is_not_null()).then(pl.col("_s")).otherwise(0.0).sum().alias(f"wd{i}"),
            (v * pl.col("_s")).sum().alias(f"sw{i}"),
        ]
    per_group = vals.group_by(g).agg(agg).join(sizes, on=g)

    # the absent classes' one value, and the pooled and per-example cells, per group
    absent = pl.lit(m) - pl.col("present")
    zero, fp_pool = pl.lit(0.0), (N - R).cast(pl.Float64)
    pieces = {
        "v0": _cells(zero, zero, zero, N),
        "vmicro": _cells(R, fp_pool, fp_pool, m * N - R - 2 * fp_pool),
        "vright": _cells(pl.lit(1.0), zero, zero, pl.lit(m - 1)),
        "vwrong": _cells(zero, pl.lit(1.0), pl.lit(1.0), pl.lit(m - 2)),
    }
    consts = per_group
    for key, cells in pieces.items():  # the measures' own expressions, on each piece's cells
        consts = (
            consts.with_columns(cells)
            .with_columns(mm.expr().alias(f"{key}{i}") for i, mm in enumerate(ms))
            .drop("tp", "fp", "fn", "tn")
        )

    def entry(op: str, i: int) -> pl.Expr:
        """One (operator, measure) of a group: its value and counts, as a struct."""

        def d(c: str) -> pl.Expr:
            return pl.col(c).is_not_null().cast(pl.Float64)

        def z(c: str) -> pl.Expr:
            return pl.col(c).fill_null(0.0)

        if op == "micro":
            n_tot, n_def, sv = pl.lit(1.0), d(f"vmicro{i}"), z(f"vmicro{i}")
            w_def, sv_w = n_def, sv
        elif op in ("macro", "weighted"):
            n_tot = pl.lit(m)
            n_def = pl.col(f"nd{i}").cast(pl.Float64) + absent * d(f"v0{i}")
            sv = pl.col(f"sv{i}").fill_null(0.0) + absent * z(f"v0{i}")
            w_def, sv_w = (n_def, sv) if op == "macro" else (pl.col(f"wd{i}"), pl.col(f"sw{i}"))
        else:  # exemplar: R examples with the 'right' profile, N - R with the 'wrong' one
            n_tot = N.cast(pl.Float64)
            n_def = R * d(f"vright{i}") + (N - R) * d(f"vwrong{i}")
            sv = R * z(f"vright{i}") + (N - R) * z(f"vwrong{i}")
            w_def, sv_w = n_def, sv
        # the exclude convention, as aggframe._operators._resolve: weighted mean over the
        # defined entries, the uniform mean when their weights sum to zero, NaN when none
        value = pl.when(w_def > 0).then(sv_w / w_def).when(n_def > 0).then(sv / n_def).otherwise(NAN)
        return pl.struct(
            value.cast(pl.Float64).alias("value"),
            n_tot.round().cast(pl.Int64).alias("n_entries"),
            (n_tot - n_def).round().cast(pl.Int64).alias("n_undefined"),
        )

    # tidy: one struct column per (operator, measure), unpivoted (no pivot, no list of structs)
    pairs = [(op, i) for i in range(len(ms)) for op in OPERATORS]
    return (
        consts.select(g, *[entry(op, i).alias(f"{op}|{i}") for op, i in pairs])
        .unpivot(index=g, variable_name="_k", value_name="_x")
        .select(
            g,
            pl.col("_k")
            .replace_strict({f"{op}|{i}": ms[i].name for op, i in pairs}, return_dtype=pl.String)
            .alias("measure"),
            pl.col("_k")
            .replace_strict({f"{op}|{i}": op for op, i in pairs}, return_dtype=pl.String)
            .alias("operator"),
            pl.col("_x").struct.unnest(),
        )
    )


def check(cfg: Config) -> None:
    """The sketch's values, entry counts and undefined counts equal aggframe's."""
    mine = sketch(cfg, FOUR).collect()
    pr = af.from_labels(pl.scan_parquet(data_path(cfg)), n_classes=cfg.classes)
    theirs = pr.evaluate(FOUR, OPERATORS, by="group")
    assert isinstance(theirs, pl.DataFrame)
    on = ["group", "measure", "operator"]
    both = theirs.join(mine, on=on, how="full", suffix="_sketch", coalesce=True)
    v, w = pl.col("value"), pl.col("value_sketch")
    same_value = (v.is_nan() & w.is_nan()) | ((v - w).abs() <= 1e-12 * (1 + v.abs()))
    same = (
        same_value
        & (pl.col("n_entries") == pl.col("n_entries_sketch"))
        & (pl.col("n_undefined") == pl.col("n_undefined_sketch"))
    )
    bad = both.filter(~same.fill_null(False))
    print(f"check: {theirs.height:,} aggframe rows, {mine.height:,} sketch rows, {bad.height} differ")
    if bad.height:
        print(bad.select(*on, "value", "value_sketch", "n_undefined", "n_undefined_sketch").head(10))
        raise SystemExit(1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("config", choices=[c.name for c in CONFIGS if c.form == "labels" and c.groups])
    parser.add_argument("--quick", action="store_true", help="the scaled-down data of bench_groups --quick")
    parser.add_argument("--check", action="store_true", help="compare the values with aggframe's")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rss-child", choices=["bare", "sketch"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    cfg = next(c for c in CONFIGS if c.name == args.config)
    cfg = cfg.quick() if args.quick else cfg
    fns = {
        "bare": lambda: pl.collect_all(bare_query(cfg, data_path(cfg)), engine="streaming"),
        "sketch": lambda: sketch(cfg, FOUR).collect(engine="streaming"),
    }
    if args.rss_child:
        fns[args.rss_child]()
        print(_status("VmHWM"))  # the child's own peak (wait4 would count the parent's RSS at fork)
        return 0
    if args.check:
        check(cfg)
    print(f"{cfg.name}: {cfg.describe()}")
    # back to back in one process (best of --repeat, after a warm-up), then peak RSS of each alone
    best = {name: min(runs(fn, args.repeat)) for name, fn in fns.items()}
    rss = {}
    for name in fns:
        cmd = [sys.executable, __file__, cfg.name, "--rss-child", name, *(["--quick"] if args.quick else [])]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
        rss[name] = int(done.stdout.split()[-1]) / 2**30
    for name in fns:
        print(f"  {name:<7} best {best[name]:.3f} s  peak RSS {rss[name]:.2f} GiB")
    print(
        f"  sketch / bare: time {best['sketch'] / best['bare']:.2f}x, memory {rss['sketch'] / rss['bare']:.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
