"""Where aggframe's time and memory go on many groups x many classes (issue #19).

Run from the repository root, after ``bench_groups.py`` has written the data::

    python benchmarks/profile_groups.py labels_g1e6             # stage timings, best of 2
    python benchmarks/profile_groups.py long_10k_g1e3 --repeat 3
    python benchmarks/profile_groups.py labels_g1e6 --rss      # also peak RSS per stage (fresh processes)

Stages, timed back to back in one process (best of ``--repeat``, each on the
streaming engine), with the row count each produces:

``bare``           the bare pass of ``bench_groups.py`` (the reference)
``wide``           the wide step alone: the raw grains of ``aggframe._cells`` from the scan
                   (label form: the per-(group, y_true, y_pred) count table)
``tables``         ``Predictions._tables``: wide step + validation + the fill of the class
                   table to every (group, class) of the universe + the profiles
``finish``         ``finish_labels``/``finish_long`` alone, on the collected raw grains
``finish:classes`` ... only its class table (margins + universe fill)
``finish:margins`` ... only the per-(group, class) margins, without the fill (labels)
``finish:profiles``... only its profile table
``reduce``         ``reduce_tables`` on the collected cell tables (the report's narrow step)
``reduce:nosort``  the same plan with its final sort removed (``LazyFrame.sort`` patched out)
``reduce:entries`` the stacked entry table with every measure evaluated (first part of reduce)
``reduce:agg``     ... plus the unpivot and the group-by to sufficient sums
``evaluate``       the whole ``evaluate`` call (from the scan)

With ``--rss``, each of bare, wide, tables, evaluate (from the scan) and finish,
reduce (from the intermediate tables, read from Parquet) runs again in a fresh
subprocess, alone, for its peak RSS. CPU seconds (user + system, all threads) are
recorded next to each wall time: steadier than wall time on a loaded machine. Results go to ``benchmarks/_out/profile_<config>.json``.
The ``reduce:*`` pieces re-build the first steps of ``aggframe._operators.reduce_tables``
(at the commit measured); ``reduce`` and ``reduce:nosort`` call it as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(HERE))

import narwhals as nw  # noqa: E402
import polars as pl  # noqa: E402
from _timing import runs  # noqa: E402
from aggframe._cells import CELLS, KEY_ALL, LabelRoles, LongRoles, label_grains, long_grains  # noqa: E402
from aggframe._grains import CellTables, finish_labels, finish_long, universe_frame  # noqa: E402
from aggframe._measures import get_measure  # noqa: E402
from bench_groups import CONFIGS, DATA_DIR, GIB, OPERATORS, OUT_DIR, Config, _status, bare_query, data_path  # noqa: E402

import aggframe as af  # noqa: E402
from aggframe import _operators  # noqa: E402

ENGINE: Final = "streaming"


def predictions(cfg: Config) -> Any:
    scan = pl.scan_parquet(data_path(cfg))
    if cfg.form == "labels":
        return af.from_labels(scan, y_true="y_true", y_pred="y_pred", n_classes=cfg.classes)
    return af.from_long(scan, example="example", class_="class", y="y", p="p", n_classes=cfg.classes)


def by(cfg: Config) -> list[str]:
    return ["group"] if cfg.groups else []


def keys(cfg: Config) -> list[str]:
    return by(cfg) or [KEY_ALL]


def measures(cfg: Config) -> list[Any]:
    return [get_measure(m) for m in (cfg.measure_list or af.list_measures())]


def universe(cfg: Config, dtype: pl.DataType, column: str) -> pl.LazyFrame:
    return universe_frame(list(range(cfg.classes)), dtype, column)


# --- the pieces -------------------------------------------------------------------


def raw_grains(cfg: Config) -> dict[str, pl.LazyFrame]:
    """The wide step's raw grains, lazy (as ``Predictions._lazy_tables`` builds them)."""
    lf = nw.from_native(pl.scan_parquet(data_path(cfg)))
    k = keys(cfg)
    if cfg.form == "labels":
        raw = label_grains(lf, LabelRoles(), k)
        return {"conf": nw.to_native(raw["conf"])}
    raw = long_grains(lf, LongRoles(), k, tnorm=None, n_classes=cfg.classes)
    return {name: nw.to_native(raw[name]) for name in ("class", "groups", "profiles")}


def finish(cfg: Config, raw: dict[str, pl.DataFrame]) -> CellTables:
    """The narrow step 1 on collected raw grains (validation, universe fill, profiles)."""
    source = nw.from_native(pl.scan_parquet(data_path(cfg)))
    nraw = {name: nw.from_native(df.lazy()) for name, df in raw.items()}
    if cfg.form == "labels":
        dtype = raw["conf"].schema["y_true"]
        return finish_labels(
            nraw,
            source=source,
            roles=LabelRoles(),
            keys=keys(cfg),
            universe=universe(cfg, dtype, "y_true"),
            task="multiclass",
            pos_label=1,
        )
    dtype = raw["class"].schema["class"]
    return finish_long(
        nraw,
        source=source,
        roles=LongRoles(),
        keys=keys(cfg),
        universe=universe(cfg, dtype, "class"),
        soft_ok=False,
    )


def margins_only(cfg: Config, raw: dict[str, pl.DataFrame]) -> pl.LazyFrame:
    """The label form's per-(group, class) margins as finish_labels builds them, before the fill."""
    k = keys(cfg)
    conf = raw["conf"].lazy().rename({"y_true": "_yt", "y_pred": "_yp"})
    right = (pl.col("_yt") == pl.col("_yp")).cast(pl.Int64) * pl.col("n")
    zero = pl.lit(0, dtype=pl.Int64)
    return (
        pl.concat(
            [
                conf.select(
                    *k,
                    pl.col("_yt").alias("class"),
                    pl.col("n").cast(pl.Int64).alias("_t"),
                    zero.alias("_p"),
                    right.alias("tp"),
                ),
                conf.select(
                    *k,
                    pl.col("_yp").alias("class"),
                    zero.alias("_t"),
                    pl.col("n").cast(pl.Int64).alias("_p"),
                    zero.alias("tp"),
                ),
            ]
        )
        .group_by(*k, "class")
        .agg(pl.col("_t", "_p", "tp").sum())
    )


def entries(tables: CellTables, ms: list[Any]) -> pl.LazyFrame:
    """First part of reduce_tables: the stacked entries (pooled, class, profile) with every measure."""
    k = list(tables.keys)
    one = pl.lit(1.0, dtype=pl.Float64)
    support = (pl.col("tp") + pl.col("fn")).cast(pl.Float64)
    pooled = tables.classes.group_by(k).agg(pl.col(*CELLS).sum())
    stacked = [
        pooled.select(*k, *CELLS, pl.lit("pooled").alias("_src"), one.alias("_n"), one.alias("_s")),
        tables.classes.select(
            *k, *CELLS, pl.lit("class").alias("_src"), one.alias("_n"), support.alias("_s")
        ),
        tables.profiles.select(
            *k,
            *CELLS,
            pl.lit("profile").alias("_src"),
            pl.col("n").cast(pl.Float64).alias("_n"),
            one.alias("_s"),
        ),
    ]
    cols = [f"_v{i}" for i in range(len(ms))]
    return pl.concat(
        [e.with_columns(pl.col(*CELLS).cast(pl.Float64)) for e in stacked], how="vertical_relaxed"
    ).select(*k, "_src", "_n", "_s", *[m.expr().alias(c) for m, c in zip(ms, cols, strict=True)])


def agg(tables: CellTables, ms: list[Any]) -> pl.LazyFrame:
    """reduce_tables up to its sufficient sums: entries, unpivot, group-by."""
    k = list(tables.keys)
    cols = [f"_v{i}" for i in range(len(ms))]
    v, nn = pl.col("_v"), pl.col("_n")
    ww = nn * pl.col("_s")
    return (
        entries(tables, ms)
        .unpivot(on=cols, index=[*k, "_src", "_n", "_s"], variable_name="_i", value_name="_v")
        .group_by([*k, "_src", "_i"])
        .agg(
            nn.sum().alias("n_tot"),
            pl.when(v.is_not_null()).then(nn).sum().alias("n_def"),
            (v * nn).sum().alias("sv_n"),
            ww.sum().alias("w_tot"),
            pl.when(v.is_not_null()).then(ww).sum().alias("w_def"),
            (v * ww).sum().alias("sv_w"),
        )
    )


@contextmanager
def no_sort() -> Any:
    """Patch LazyFrame.sort to the identity (for the reduce:nosort piece only)."""
    original = pl.LazyFrame.sort
    pl.LazyFrame.sort = lambda self, *a, **kw: self  # type: ignore[method-assign]
    try:
        yield
    finally:
        pl.LazyFrame.sort = original  # type: ignore[method-assign]


def reduce(tables: CellTables, ms: list[Any]) -> pl.LazyFrame:
    return _operators.reduce_tables(tables, ms, OPERATORS, ["exclude"])


def collected(tables: CellTables) -> CellTables:
    got = pl.collect_all([tables.classes, tables.profiles], engine=ENGINE)
    return CellTables(classes=got[0].lazy(), profiles=got[1].lazy(), keys=tables.keys)


# --- driver -------------------------------------------------------------------------


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def heights(x: Any) -> int | list[int]:
    if isinstance(x, pl.DataFrame):
        return x.height
    return [d.height for d in x]


def stage_fns(
    cfg: Config, raw_df: dict[str, pl.DataFrame], tables: CellTables
) -> dict[str, Callable[[], Any]]:
    ms = measures(cfg)
    fns: dict[str, Callable[[], Any]] = {
        "bare": lambda: pl.collect_all(bare_query(cfg, data_path(cfg)), engine=ENGINE),
        "wide": lambda: pl.collect_all(list(raw_grains(cfg).values()), engine=ENGINE),
        "tables": lambda: predictions(cfg)._tables(by(cfg), engine=ENGINE),
        "finish": lambda: pl.collect_all([(t := finish(cfg, raw_df)).classes, t.profiles], engine=ENGINE),
        "finish:classes": lambda: finish(cfg, raw_df).classes.collect(engine=ENGINE),
    }
    if cfg.form == "labels":
        fns["finish:margins"] = lambda: margins_only(cfg, raw_df).collect(engine=ENGINE)
    fns["finish:profiles"] = lambda: finish(cfg, raw_df).profiles.collect(engine=ENGINE)
    fns["reduce:entries"] = lambda: entries(tables, ms).collect(engine=ENGINE)
    fns["reduce:agg"] = lambda: agg(tables, ms).collect(engine=ENGINE)

    def nosort() -> Any:
        with no_sort():
            plan = reduce(tables, ms)
        return plan.collect(engine=ENGINE)

    fns["reduce:nosort"] = nosort
    fns["reduce"] = lambda: reduce(tables, ms).collect(engine=ENGINE)
    fns["evaluate"] = lambda: predictions(cfg).evaluate(ms, OPERATORS, by=by(cfg) or None, engine=ENGINE)
    return fns


def tmp_paths(cfg: Config) -> dict[str, Path]:
    stem = f"_profile_{cfg.name}_{cfg.rows}r"
    names = ["conf"] if cfg.form == "labels" else ["class", "groups", "profiles"]
    out = {f"raw_{n}": DATA_DIR / f"{stem}_raw_{n}.parquet" for n in names}
    out |= {
        "classes": DATA_DIR / f"{stem}_classes.parquet",
        "profiles": DATA_DIR / f"{stem}_profiles.parquet",
    }
    return out


def load_intermediates(cfg: Config) -> tuple[dict[str, pl.DataFrame], CellTables]:
    paths = tmp_paths(cfg)
    raw = {k.removeprefix("raw_"): pl.read_parquet(p) for k, p in paths.items() if k.startswith("raw_")}
    tables = CellTables(
        classes=pl.read_parquet(paths["classes"]).lazy(),
        profiles=pl.read_parquet(paths["profiles"]).lazy(),
        keys=tuple(keys(cfg)),
    )
    return raw, tables


def rss_child(cfg: Config, stage: str) -> None:
    raw, tables = load_intermediates(cfg) if stage in ("finish", "reduce") else ({}, None)
    fns = stage_fns(cfg, raw, tables)
    t0 = time.perf_counter()
    fns[stage]()
    print(json.dumps({"seconds": time.perf_counter() - t0, "hwm_bytes": _status("VmHWM")}))


def rss_of(cfg: Config, stage: str, quick: bool) -> dict[str, Any]:
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        cfg.name,
        "--rss-child",
        stage,
        *(["--quick"] if quick else []),
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, _ = os.wait4(proc.pid, 0)
    out = proc.stdout.read() if proc.stdout else ""
    err = proc.stderr.read() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status):
        return {"error": err.strip().splitlines()[-1] if err.strip() else "failed"}
    # the child's own VmHWM: wait4's ru_maxrss would count this process's RSS at fork time
    line = json.loads(out.strip().splitlines()[-1])
    return {"seconds": line["seconds"], "peak_rss_gib": line["hwm_bytes"] / GIB}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("config", choices=[c.name for c in CONFIGS])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="the scaled-down data of bench_groups --quick")
    parser.add_argument("--rss", action="store_true", help="also peak RSS per stage, each in a fresh process")
    parser.add_argument("--stages", help="comma-separated subset of the stages to time")
    parser.add_argument("--rss-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    cfg = next(c for c in CONFIGS if c.name == args.config)
    cfg = cfg.quick() if args.quick else cfg
    if not data_path(cfg).exists():
        parser.error(f"no data for {cfg.name}: run python benchmarks/bench_groups.py --only {cfg.name} first")
    if args.rss_child:
        rss_child(cfg, args.rss_child)
        return 0

    print(
        f"profile {cfg.name}: {cfg.describe()}  (aggframe {af.__file__}, load {os.getloadavg()[0]:.2f})",
        flush=True,
    )
    # the intermediates every narrow-step piece starts from, kept for the RSS children
    raw_df = dict(
        zip(raw_grains(cfg), pl.collect_all(list(raw_grains(cfg).values()), engine=ENGINE), strict=True)
    )
    tables = collected(finish(cfg, raw_df))
    paths = tmp_paths(cfg)
    for name, df in raw_df.items():
        df.write_parquet(paths[f"raw_{name}"])
    tables.classes.collect().write_parquet(paths["classes"])
    tables.profiles.collect().write_parquet(paths["profiles"])
    sizes = {f"raw {n}": df.height for n, df in raw_df.items()}
    sizes |= {"class table": tables.classes.collect().height, "profiles": tables.profiles.collect().height}
    sizes["entries (stacked)"] = entries(tables, measures(cfg)).select(pl.len()).collect().item()
    sizes["entries x measures (unpivoted)"] = sizes["entries (stacked)"] * len(measures(cfg))
    print("  rows: " + ", ".join(f"{k} {v:,}" for k, v in sizes.items()), flush=True)

    fns = stage_fns(cfg, raw_df, tables)
    chosen = args.stages.split(",") if args.stages else list(fns)
    timings: dict[str, Any] = {}
    for stage in chosen:
        cpu: list[float] = []

        def timed(fn: Callable[[], Any] = fns[stage], cpu: list[float] = cpu) -> None:
            c0 = _cpu()
            fn()
            cpu.append(_cpu() - c0)

        times = runs(timed, args.repeat, warmup=False)
        timings[stage] = {"best_s": min(times), "times_s": times, "best_cpu_s": min(cpu), "cpu_s": cpu}
        print(
            f"  {stage:<16} {min(times):8.3f} s  CPU {min(cpu):8.3f} s   {[round(t, 3) for t in times]}",
            flush=True,
        )
    rss: dict[str, Any] = {}
    if args.rss:
        for stage in ("bare", "wide", "tables", "evaluate", "finish", "reduce"):
            rss[stage] = rss_of(cfg, stage, args.quick)
            r = rss[stage]
            shown = f"{r['peak_rss_gib']:.2f} GiB ({r['seconds']:.2f} s)" if "error" not in r else r["error"]
            print(f"  peak RSS {stage:<10} {shown}", flush=True)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    out = OUT_DIR / f"profile_{cfg.name}{'_quick' if args.quick else ''}.json"
    out.write_text(
        json.dumps({"config": cfg.name, "sizes": sizes, "timings": timings, "rss": rss}, indent=1) + "\n"
    )
    print(f"  written to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
