"""Many groups, many classes: aggframe's grouped report against a bare Polars pass (issue #19).

Run from the repository root::

    python benchmarks/bench_groups.py                      # every configuration, best of 3
    python benchmarks/bench_groups.py --only labels_g1e6   # one configuration
    python benchmarks/bench_groups.py --repeat 5           # best of 5
    python benchmarks/bench_groups.py --quick              # smoke run (rows / 100), a minute or two;
                                                           # its ratios are fixed costs, not a measurement
    python benchmarks/bench_groups.py --small-groups       # also bench_core.py and bench_scale.py groups

Each configuration is a Parquet file under ``benchmarks/_data/`` (seeded, written once):

label form   columns ``group`` (Int64), ``y_true``, ``y_pred`` (Int64 classes); class
             prevalence Zipf (1/rank) and shifted per group (each group has its own
             head classes, so a group holds a fraction of the universe); 70% right,
             wrong predictions drawn from the same skewed prevalence.
long form    sparse multilabel: ``group``, ``example``, ``class``, ``y``, ``p`` (Int8),
             only the rows with y = 1 or p = 1, every example with at least one row;
             1 + Poisson(1.5) true labels per example, each predicted with probability
             0.7, plus Poisson(0.8) false positives, classes Zipf over the declared
             universe (``n_classes=``) and shifted per group.

For each configuration, each candidate runs in its own fresh subprocess, so one
candidate's memory never counts against another's: peak RSS is the child's own
``VmHWM`` (``wait4``'s ``ru_maxrss`` would also count the parent's RSS at fork time,
which Linux carries across exec). Each reports the best of ``--repeat`` wall times and
the CPU seconds of each run (user + system over all threads: less sensitive than wall
time to other work on a shared machine). A first run shorter than 3 s is an untimed
warm-up; a longer one counts.

``bare``       the sums the report needs and nothing else, on the streaming engine:
               label form: per (group, class) #true and tp (one group-by on y_true) and
               #pred (one on y_pred); per example the cells are fixed by right/wrong, so
               the per-group count of right examples (the sum of tp) is all exemplar needs.
               Long form: per (group, class) sum y, sum p, sum y*p, rows; per (group,
               example) the same sums, reduced to per-group profiles with their counts.
``aggframe``   ``af.from_labels(pl.scan_parquet(f), ..., n_classes=m)`` or
               ``af.from_long(pl.scan_parquet(f), ..., n_classes=m)``, then
               ``.evaluate(measures, ["micro", "macro", "weighted", "exemplar"], by="group")``.
``byhand``     the whole report (the same values, in the same order) written by hand in
               plain Polars with none of aggframe's checks (``byhand_report.py``): what a
               careful user would write for these data; ``--check`` there compares it.
``pairs``      (label form, a diagnostic) the per-(group, y_true, y_pred) count table that
               aggframe's wide step builds, to tell the scan from the narrow steps.

A candidate still running after ``--timeout`` seconds, or whose RSS passes
``--max-rss-gib`` (or that leaves the machine less than 2 GiB available), is stopped and
reported as such in the table, with the runs it completed. Results go to
``benchmarks/_out/bench_groups.json`` (``bench_groups_quick.json`` with ``--quick``).
Nothing is asserted; the targets (time <= 1.5x and peak RSS <= 2x the bare pass) are
printed next to each ratio.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# measure this checkout's aggframe, not whatever an editable install points at
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(HERE))

import byhand_report  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

import aggframe as af  # noqa: E402

DATA_DIR = HERE / "_data"
OUT_DIR = HERE / "_out"
SEED = 19
ACCURACY = 0.70
OPERATORS = ["micro", "macro", "weighted", "exemplar"]
FOUR = ["f1", "precision", "recall", "mcc"]
TARGET_TIME, TARGET_RSS = 1.5, 2.0
QUICK_SCALE = 100
GIB = 2**30
WARMUP_BELOW_S = 3.0


@dataclass(frozen=True)
class Config:
    name: str
    form: str  # "labels" or "long"
    rows: int
    classes: int
    groups: int  # 0: no by=
    measures: str  # "four" or "all" (21)
    note: str = ""

    @property
    def measure_list(self) -> list[str] | None:
        return FOUR if self.measures == "four" else None  # None: all 21 registered

    def describe(self) -> str:
        form = "label rows" if self.form == "labels" else "sparse multilabel rows"
        groups = f"{self.groups:,} groups" if self.groups else "no groups"
        n_measures = len(FOUR) if self.measures == "four" else len(af.list_measures())
        return f"{_si(self.rows)} {form}, {_si(self.classes)} classes, {groups}, {n_measures} measures"

    def quick(self) -> Config:
        groups = max(2, self.groups // QUICK_SCALE) if self.groups else 0
        return replace(self, rows=self.rows // QUICK_SCALE, groups=groups)


CONFIGS = [
    Config("labels_g1e5", "labels", 10_000_000, 20, 100_000, "four"),
    Config("labels_g1e6", "labels", 10_000_000, 20, 1_000_000, "four", "per-user accuracy"),
    Config("long_10k_g100", "long", 5_000_000, 10_000, 100, "four"),
    Config("long_10k_g1e3", "long", 5_000_000, 10_000, 1_000, "four"),
    Config("long_10k_g1e4", "long", 5_000_000, 10_000, 10_000, "four"),
    Config("labels_1e4c", "labels", 10_000_000, 10_000, 0, "all"),
    Config("labels_1e5c", "labels", 10_000_000, 100_000, 0, "all"),
]


def _si(n: int) -> str:
    for div, unit in ((10**9, "G"), (10**6, "M"), (10**3, "k")):
        if n >= div and n % (div // 10) == 0:
            return f"{n / div:g}{unit}"
    return f"{n:,}"


# ---------------------------------------------------------------------------
# Data


def zipf(m: int, s: float = 1.0) -> np.ndarray:
    prevalence = 1.0 / np.arange(1, m + 1) ** s
    return prevalence / prevalence.sum()


def data_path(cfg: Config) -> Path:
    return DATA_DIR / f"groups_{cfg.form}_{cfg.rows}r_{cfg.classes}c_{cfg.groups}g_seed{SEED}.parquet"


def make_labels(cfg: Config, rng: np.random.Generator) -> pl.DataFrame:
    """Label form: Zipf class prevalence, shifted per group; 70% right."""
    m, n = cfg.classes, cfg.rows
    prevalence = zipf(m)
    y_true = rng.choice(m, size=n, p=prevalence)
    wrong = rng.choice(m, size=n, p=prevalence)
    clash = wrong == y_true
    wrong[clash] = (wrong[clash] + rng.integers(1, m, size=int(clash.sum()))) % m
    y_pred = np.where(rng.random(n) < ACCURACY, y_true, wrong)
    cols: dict[str, np.ndarray] = {}
    if cfg.groups:
        group = rng.integers(0, cfg.groups, size=n)
        shift = rng.integers(0, m, size=cfg.groups)[group]  # each group's own head classes
        y_true, y_pred = (y_true + shift) % m, (y_pred + shift) % m
        cols["group"] = group
    cols["y_true"], cols["y_pred"] = y_true, y_pred
    return pl.DataFrame({k: v.astype(np.int64) for k, v in cols.items()})


def make_long(cfg: Config, rng: np.random.Generator) -> pl.DataFrame:
    """Sparse multilabel long form: rows with y = 1 or p = 1 only, about ``cfg.rows`` of them."""
    m = cfg.classes
    prevalence = zipf(m)
    n_ex = int(cfg.rows / 2.8)  # a little more than needed; trimmed to cfg.rows below
    groups = max(cfg.groups, 1)
    group_of = rng.integers(0, groups, size=n_ex)
    shift = rng.integers(0, m, size=groups)[group_of]
    k_true = 1 + rng.poisson(1.5, size=n_ex)
    k_fp = rng.poisson(0.8, size=n_ex)
    ex_t = np.repeat(np.arange(n_ex), k_true)
    ex_f = np.repeat(np.arange(n_ex), k_fp)
    cls_t = (rng.choice(m, size=ex_t.size, p=prevalence) + shift[ex_t]) % m
    cls_f = (rng.choice(m, size=ex_f.size, p=prevalence) + shift[ex_f]) % m
    entries = pl.DataFrame(
        {
            "example": np.concatenate([ex_t, ex_f]),
            "class": np.concatenate([cls_t, cls_f]),
            "y": np.concatenate([np.ones(ex_t.size, np.int8), np.zeros(ex_f.size, np.int8)]),
            "p": np.concatenate(
                [(rng.random(ex_t.size) < ACCURACY).astype(np.int8), np.ones(ex_f.size, np.int8)]
            ),
        }
    )
    # a class drawn twice for one example is one entry (y and p or-ed); keep whole examples
    # up to cfg.rows rows
    out = (
        entries.group_by("example", "class")
        .agg(pl.col("y").max(), pl.col("p").max())
        .sort("example", "class")
    )
    per_ex = out.group_by("example").agg(pl.len().alias("_n")).sort("example")
    keep = per_ex.filter(pl.col("_n").cum_sum() <= cfg.rows).select("example")
    out = out.join(keep, on="example", how="semi", maintain_order="left")
    out = out.with_columns(pl.Series("group", group_of[out["example"].to_numpy()]))
    cols = (["group"] if cfg.groups else []) + ["example", "class", "y", "p"]
    return out.select(
        pl.col(c).cast(pl.Int64) if c in ("group", "example", "class") else pl.col(c) for c in cols
    )


def ensure_data(cfg: Config) -> tuple[Path, bool, float]:
    """The configuration's Parquet file (written if missing): (path, reused, seconds to write)."""
    path = data_path(cfg)
    if path.exists():
        return path, True, 0.0
    t0 = time.perf_counter()
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([SEED, cfg.rows, cfg.classes, cfg.groups, cfg.form == "long"])
    df = make_labels(cfg, rng) if cfg.form == "labels" else make_long(cfg, rng)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    df.write_parquet(tmp)
    tmp.replace(path)  # atomic: a concurrent run never sees a half-written file
    return path, False, time.perf_counter() - t0


def data_stats(path: Path, cfg: Config) -> dict[str, Any]:
    """What the data holds: rows, and how much of the universe the groups actually touch."""
    lf = pl.scan_parquet(path)
    cls = "y_true" if cfg.form == "labels" else "class"
    keys = ["group"] if cfg.groups else []
    stats: dict[str, Any] = {
        "rows": lf.select(pl.len()).collect().item(),
        "file_mb": path.stat().st_size / 1e6,
    }
    if cfg.form == "labels":
        present = pl.concat(
            [lf.select(*keys, pl.col("y_true").alias("c")), lf.select(*keys, pl.col("y_pred").alias("c"))]
        )
    else:
        present = lf.select(*keys, pl.col(cls).alias("c"))
        stats["examples"] = lf.select(pl.col("example").n_unique()).collect().item()
    pairs = present.unique().select(pl.len()).collect().item()
    n_groups = max(cfg.groups, 1)
    stats["present_group_class_pairs"] = pairs
    stats["universe_group_class_pairs"] = n_groups * cfg.classes
    stats["fill_share_present"] = pairs / (n_groups * cfg.classes)
    return stats


# ---------------------------------------------------------------------------
# The candidates (run inside the child process)


def bare_query(cfg: Config, path: Path) -> list[pl.LazyFrame]:
    """The sums the report needs (see the module docstring); collected together."""
    lf = pl.scan_parquet(path)
    keys = ["group"] if cfg.groups else []
    if cfg.form == "labels":
        right = (pl.col("y_true") == pl.col("y_pred")).cast(pl.Int64)
        per_true = lf.group_by(*keys, "y_true").agg(pl.len().alias("n_true"), right.sum().alias("tp"))
        per_pred = lf.group_by(*keys, "y_pred").agg(pl.len().alias("n_pred"))
        return [per_true, per_pred]
    y, p = pl.col("y").cast(pl.Int64), pl.col("p").cast(pl.Int64)
    sums = [y.sum().alias("sy"), p.sum().alias("sp"), (y * p).sum().alias("syp"), pl.len().alias("rows")]
    per_class = lf.group_by(*keys, "class").agg(*sums)
    per_example = (
        lf.group_by(*keys, "example")
        .agg(*sums)
        .group_by(*keys, "sy", "sp", "syp", "rows")
        .agg(pl.len().alias("n"))
    )
    return [per_class, per_example]


def _cpu() -> float:
    """CPU seconds (user + system, every thread) this process has used so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_candidate(cfg: Config, which: str, reps: int, out: Path) -> None:
    path = data_path(cfg)
    if which == "bare":

        def fn() -> int:
            got = pl.collect_all(bare_query(cfg, path), engine="streaming")
            return sum(g.height for g in got)

    elif which == "byhand":

        def fn() -> int:
            keys = ["group"] if cfg.groups else []
            names = cfg.measure_list or af.list_measures()
            lf = pl.scan_parquet(path)
            return byhand_report.report(lf, form=cfg.form, keys=keys, m=cfg.classes, measures=names).height

    elif which == "pairs":

        def fn() -> int:
            keys = ["group"] if cfg.groups else []
            lf = pl.scan_parquet(path).group_by(*keys, "y_true", "y_pred").agg(pl.len())
            return lf.collect(engine="streaming").height

    else:

        def fn() -> int:
            scan = pl.scan_parquet(path)
            if cfg.form == "labels":
                pr = af.from_labels(scan, y_true="y_true", y_pred="y_pred", n_classes=cfg.classes)
            else:
                pr = af.from_long(
                    scan, example="example", class_="class", y="y", p="p", n_classes=cfg.classes
                )
            res = pr.evaluate(
                cfg.measure_list, OPERATORS, by="group" if cfg.groups else None, engine="streaming"
            )
            assert isinstance(res, pl.DataFrame)
            return res.height

    # one line per completed run, flushed: a run stopped by the parent keeps the ones before.
    # A first run shorter than WARMUP_BELOW_S is a warm-up (not recorded); a longer one counts.
    with out.open("a") as f:
        done = 0
        first = True
        while done < reps:
            t0, c0 = time.perf_counter(), _cpu()
            height = fn()
            seconds, cpu = time.perf_counter() - t0, _cpu() - c0
            if first and seconds < WARMUP_BELOW_S:
                first = False
                continue
            first = False
            line = {"seconds": seconds, "cpu_s": cpu, "rows_out": height, "hwm_bytes": _status("VmHWM")}
            f.write(json.dumps(line) + "\n")
            f.flush()
            done += 1


# ---------------------------------------------------------------------------
# The parent: one fresh subprocess per candidate, watched


def _status(field: str, pid: int | str = "self") -> int:
    """A memory field of /proc/<pid>/status in bytes (VmRSS: now; VmHWM: the peak so far)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def _available_bytes() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 1 << 62


def measure(cfg: Config, which: str, args: argparse.Namespace) -> dict[str, Any]:
    """Run one candidate in a fresh subprocess: its best time and peak RSS, or why it was stopped."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as tmp:
        out = Path(tmp.name)
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        cfg.name,
        which,
        "--repeat",
        str(args.repeat),
    ]
    if args.quick:
        cmd.append("--quick")
    t0 = time.perf_counter()
    proc = subprocess.Popen([*cmd, "--child-out", str(out)], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    stopped = None
    max_rss = int(args.max_rss_gib * GIB)
    polled = 0
    while True:
        pid, status, _ = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        elapsed = time.perf_counter() - t0
        rss = _status("VmRSS", proc.pid)
        polled = max(polled, rss)
        if stopped is None:
            if rss > max_rss:
                stopped = f"RSS > {args.max_rss_gib:g} GiB after {elapsed:.0f} s"
            elif _available_bytes() < 2 * GIB:
                stopped = f"machine below 2 GiB available at RSS {rss / GIB:.1f} GiB after {elapsed:.0f} s"
            elif elapsed > args.timeout:
                stopped = f"> {args.timeout:g} s"
            if stopped:
                os.kill(proc.pid, signal.SIGKILL)
        time.sleep(0.1)
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read() if proc.stderr else ""
    lines = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
    out.unlink()
    res: dict[str, Any] = {
        "times_s": [r["seconds"] for r in lines],
        "best_s": min((r["seconds"] for r in lines), default=None),
        "cpu_s": [r.get("cpu_s") for r in lines],
        "best_cpu_s": min((r["cpu_s"] for r in lines if "cpu_s" in r), default=None),
        "loadavg_1_at_end": os.getloadavg()[0],
        "rows_out": lines[0]["rows_out"] if lines else None,
        # the child's own high-water mark (VmHWM of its address space after exec); wait4's
        # ru_maxrss would also count the parent's RSS at fork time (Linux keeps it across exec)
        "peak_rss_gib": max([r.get("hwm_bytes", 0) for r in lines] + [polled]) / GIB,
        "polled_max_rss_gib": polled / GIB,
        "process_s": time.perf_counter() - t0,
        "stopped": stopped,
    }
    if proc.returncode and not stopped:
        res["error"] = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {proc.returncode}"
    return res


def fmt_s(x: float | None) -> str:
    return "-" if x is None else (f"{x:.0f}" if x >= 100 else f"{x:.3g}")


def print_table(results: list[dict[str, Any]], reps: int) -> None:
    print(f"\nbest of {reps} wall time (s) and peak RSS (GiB), each candidate in a fresh process")
    head = (
        f"{'config':<15} {'data':<66} {'bare':>6} {'aggframe':>9} {'ratio':>6} "
        f"{'cpu x':>6} {'bare RSS':>8} {'af RSS':>7} {'ratio':>6} {'byhand':>7} {'af/bh':>6} {'pairs':>6}  verdict"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        b, a = r["bare"], r["aggframe"]
        t_ratio = a["best_s"] / b["best_s"] if a["best_s"] and b["best_s"] else None
        m_ratio = a["peak_rss_gib"] / b["peak_rss_gib"] if b["peak_rss_gib"] else None
        c_ratio = a["best_cpu_s"] / b["best_cpu_s"] if a.get("best_cpu_s") and b.get("best_cpu_s") else None
        if a.get("stopped") or a.get("error"):
            verdict = (
                f"aggframe STOPPED: {a['stopped']}" if a.get("stopped") else f"aggframe ERROR: {a['error']}"
            )
            if a["best_s"] is not None:
                verdict += f" ({len(a['times_s'])} run(s) done)"
        else:
            ok_t = t_ratio is not None and t_ratio <= TARGET_TIME
            ok_m = m_ratio is not None and m_ratio <= TARGET_RSS
            verdict = f"time {'ok' if ok_t else 'MISS'}, memory {'ok' if ok_m else 'MISS'}"
        pairs = r.get("pairs", {}).get("best_s")
        byhand = r.get("byhand", {}).get("best_s")
        h_ratio = a["best_s"] / byhand if a["best_s"] and byhand else None
        print(
            f"{r['name']:<15} {r['data']:<66} {fmt_s(b['best_s']):>6} {fmt_s(a['best_s']):>9} "
            f"{(f'{t_ratio:.1f}x' if t_ratio else '-'):>6} {(f'{c_ratio:.1f}x' if c_ratio else '-'):>6} {b['peak_rss_gib']:>8.2f} {a['peak_rss_gib']:>7.2f} "
            f"{(f'{m_ratio:.1f}x' if m_ratio else '-'):>6} {fmt_s(byhand):>7} "
            f"{(f'{h_ratio:.1f}x' if h_ratio else '-'):>6} {fmt_s(pairs):>6}  {verdict}"
        )
    print(
        f"(targets: aggframe <= {TARGET_TIME}x the bare pass in time and <= {TARGET_RSS}x in peak RSS; "
        "'cpu x' = the same ratio of CPU seconds (user + system, all threads), steadier than wall time "
        "on a loaded machine; 'byhand' = the whole report written by hand in plain Polars, no checks "
        "(byhand_report.py), and 'af/bh' aggframe's time over it; 'pairs' = the per-(group, y_true, "
        "y_pred) count table alone, a diagnostic)"
    )


def run_small_groups() -> dict[str, Any]:
    """bench_core.py and bench_scale.py groups, as they are, on this checkout's aggframe."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    out: dict[str, Any] = {}
    for script, extra, result in (
        ("bench_core.py", [], "bench_core.json"),
        ("bench_scale.py", ["groups"], "bench_scale_groups.json"),
    ):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, str(HERE / script), *extra], cwd=ROOT, env=env, check=True, capture_output=True
        )
        data = json.loads((OUT_DIR / result).read_text())
        out[script] = data.get("summary", data)
        out[script]["wall_s"] = time.perf_counter() - t0
    core = out["bench_core.py"]["ratio_aggframe_over_bare"]
    scale = out["bench_scale.py"]
    print("\nsmall groups (existing benchmarks, this checkout):")
    print("  bench_core  aggframe / bare: " + ", ".join(f"{e} {r:.2f}x" for e, r in core.items()))
    print(
        f"  bench_scale groups (1000 groups, 20 classes): bare {scale['bare_s']:.3g} s, aggframe {scale['aggframe_s']:.3g} s, ratio {scale['ratio']:.2f}x"
    )
    return out


def git(*args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return done.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", action="append", help="run only this configuration (repeatable)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="timed runs per candidate, best of (default 3; 1 with --quick)",
    )
    parser.add_argument("--quick", action="store_true", help=f"smoke run: rows and groups / {QUICK_SCALE}")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="stop a candidate after this many seconds"
    )
    parser.add_argument("--max-rss-gib", type=float, default=16.0, help="stop a candidate past this RSS")
    parser.add_argument(
        "--small-groups", action="store_true", help="also run bench_core.py and bench_scale.py groups"
    )
    parser.add_argument("--list", action="store_true", help="list the configurations and exit")
    parser.add_argument("--child", nargs=2, metavar=("CONFIG", "WHICH"), help=argparse.SUPPRESS)
    parser.add_argument("--child-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.repeat = args.repeat or (1 if args.quick else 3)
    configs = {c.name: (c.quick() if args.quick else c) for c in CONFIGS}

    if args.list:
        for c in configs.values():
            print(f"{c.name:<15} {c.describe()}")
        return 0
    if args.child:
        name, which = args.child
        run_candidate(configs[name], which, args.repeat, args.child_out)
        return 0

    unknown = [n for n in args.only or [] if n not in configs]
    if unknown:
        parser.error(f"unknown configuration {unknown[0]!r}; known: {', '.join(configs)}")
    chosen = [configs[n] for n in (args.only or configs)]
    started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    head = git("rev-parse", "--short", "HEAD")
    dirty = "+dirty" if git("status", "--porcelain", "--", "aggframe") else ""
    print(
        f"bench_groups  {started}  aggframe {af.__file__} (commit {head}{dirty}), polars {pl.__version__} "
        f"({pl.thread_pool_size()} threads), nproc {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}"
        + ("  [QUICK]" if args.quick else "")
    )
    results = []
    for cfg in chosen:
        path, reused, write_s = ensure_data(cfg)
        stats = data_stats(path, cfg)
        print(
            f"\n{cfg.name}: {cfg.describe()}{f' ({cfg.note})' if cfg.note else ''}\n"
            f"  data {path.name} ({'reused' if reused else f'written in {write_s:.0f} s'}, {stats['file_mb']:.0f} MB, "
            f"{stats['rows']:,} rows{', ' + format(stats['examples'], ',') + ' examples' if 'examples' in stats else ''}); "
            f"(group, class) pairs present {stats['present_group_class_pairs']:,} of "
            f"{stats['universe_group_class_pairs']:,} ({stats['fill_share_present']:.1%})",
            flush=True,
        )
        entry: dict[str, Any] = {
            "name": cfg.name,
            "data": cfg.describe(),
            "config": asdict(cfg),
            "data_stats": stats,
        }
        for which in ("bare", "byhand", *(("pairs",) if cfg.form == "labels" else ()), "aggframe"):
            entry[which] = res = measure(cfg, which, args)
            state = res["stopped"] or res.get("error") or "ok"
            print(
                f"  {which:<8} best {fmt_s(res['best_s'])} s of {[round(t, 3) for t in res['times_s']]} "
                f"(CPU {fmt_s(res['best_cpu_s'])} s), "
                f"peak RSS {res['peak_rss_gib']:.2f} GiB, {res['rows_out']} rows out ({state})",
                flush=True,
            )
        results.append(entry)
    print_table(results, args.repeat)
    summary: dict[str, Any] = {
        "when": started,
        "loadavg_1_5_15_at_end": os.getloadavg(),
        "aggframe_commit": head + dirty,
        "aggframe_file": af.__file__,
        "polars": pl.__version__,
        "polars_threads": pl.thread_pool_size(),
        "repeat": args.repeat,
        "quick": args.quick,
        "timeout_s": args.timeout,
        "max_rss_gib": args.max_rss_gib,
        "results": results,
    }
    if args.small_groups:
        summary["small_groups"] = run_small_groups()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    out = OUT_DIR / ("bench_groups_quick.json" if args.quick else "bench_groups.json")
    if args.only and out.exists():  # keep the other configurations' last results
        previous = json.loads(out.read_text())
        kept = [r for r in previous.get("results", []) if r["name"] not in set(args.only)]
        summary["results"] = kept + results
    out.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"\nresults written to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
