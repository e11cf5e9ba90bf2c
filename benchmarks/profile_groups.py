"""Where aggframe's time goes on many groups x many classes (issue #19): the pipeline stage by stage.

Run from the repository root, after ``bench_groups.py`` has written the data::

    python benchmarks/profile_groups.py labels_g1e6             # every stage, best of 3
    python benchmarks/profile_groups.py long_10k_g1e4 --repeat 5

The stages run in one process, in turn (bare, byhand, wide, tables, report,
evaluate, bare, byhand, ...), so a drift of the machine's speed hits each alike;
each line is the best of ``--repeat`` runs, wall and CPU seconds (user + system,
all threads), on the streaming engine:

``bare``      the issue's bare pass (``bench_groups.bare_query``): the sums, nothing after
``byhand``    the whole report by hand in plain Polars (``byhand_report.py``), no checks
``wide``      aggframe's wide step alone: the raw grains the scan produces (label form:
              the margins; long form: per class, per group, the profiles)
``tables``    the validated cell tables, collected and kept (``pr.extend.cell_tables``):
              wide step, checks, the groups table
``report``    the report on those kept tables (``operators.report.build_report``)
``evaluate``  ``Predictions.evaluate`` from the scan (tables + report)

Peak memory per candidate is ``bench_groups.py``'s (each in a fresh process).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(1, str(HERE))

import byhand_report  # noqa: E402
import narwhals as nw  # noqa: E402
import polars as pl  # noqa: E402
from bench_groups import CONFIGS, OPERATORS, Config, bare_query, data_path, ensure_data  # noqa: E402

import aggframe as af  # noqa: E402
from aggframe.operators.report import build_report  # noqa: E402

ENGINE = "streaming"


def predictions(cfg: Config) -> af.Predictions:
    scan = pl.scan_parquet(data_path(cfg))
    if cfg.form == "labels":
        return af.from_labels(scan, y_true="y_true", y_pred="y_pred", n_classes=cfg.classes)
    return af.from_long(scan, example="example", class_="class", y="y", p="p", n_classes=cfg.classes)


def stages(cfg: Config) -> dict[str, Callable[[], Any]]:
    by = ("group",) if cfg.groups else ()
    names = cfg.measure_list or af.list_measures()
    kept = predictions(cfg)
    tables = kept.extend.cell_tables(by or None, engine=ENGINE)
    request = kept.extend.request(names, list(OPERATORS), by=by or None)

    def wide() -> Any:
        source = predictions(cfg).source
        proj = source.project(by)
        if cfg.form == "labels":
            from aggframe.wide.labels import label_grains

            raw = label_grains(
                proj.frame, source._private_roles(), proj.keys, via_pairs=source._few_classes()
            )
            grains = [raw["margins"]]
        else:
            raw = source._grains(proj)
            grains = [raw[n] for n in ("class", "groups", "profiles")]
        return pl.collect_all([nw.to_native(g) for g in grains], engine=ENGINE)

    return {
        "bare": lambda: pl.collect_all(bare_query(cfg, data_path(cfg)), engine=ENGINE),
        "byhand": lambda: byhand_report.report(
            pl.scan_parquet(data_path(cfg)), form=cfg.form, keys=list(by), m=cfg.classes, measures=names
        ),
        "wide": wide,
        "tables": lambda: predictions(cfg).extend.cell_tables(by or None, engine=ENGINE),
        "report": lambda: build_report(tables, request, folds=[], class_dtype=None).collect(engine=ENGINE),
        "evaluate": lambda: predictions(cfg).evaluate(names, list(OPERATORS), by=by or None, engine=ENGINE),
    }


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("config", choices=[c.name for c in CONFIGS])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cfg = {c.name: c for c in CONFIGS}[args.config]
    ensure_data(cfg)
    fns = stages(cfg)
    for fn in fns.values():  # warm-up
        fn()
    seen: dict[str, list[tuple[float, float]]] = {name: [] for name in fns}
    for _ in range(args.repeat):
        for name, fn in fns.items():
            t0, c0 = time.perf_counter(), _cpu()
            fn()
            seen[name].append((time.perf_counter() - t0, _cpu() - c0))
    print(f"{cfg.name}: {cfg.describe()}; best of {args.repeat}, in turn, streaming engine")
    bare = min(w for w, _ in seen["bare"])
    for name, runs in seen.items():
        wall, cpu = min(w for w, _ in runs), min(c for _, c in runs)
        print(f"  {name:<9} wall {wall:7.2f} s ({wall / bare:4.2f}x bare)   CPU {cpu:7.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
