"""The cost of ``where`` in check rules: 50 rules over 1,000 groups, 10 of them filtered.

Run from the repository root::

    python benchmarks/bench_check_where.py                 # 1M rows, best of 5
    python benchmarks/bench_check_where.py --rows 5000000

The data and the rules are those of ``bench_checks.py`` (label form, 1,000 groups, 7 days,
6 classes). ``check`` has no ``where``; ``check_where`` filters 10 of the rules by a
``where`` on ``day`` (7 distinct filters). Each distinct filter is a Boolean key of the one
scan; since this round each grouping set is evaluated with its own rules' measures only (it
evaluated every measure of every rule over every set before). ``bare`` is a bare Polars pass
(per group and label pair counts). The machine may be shared: the ratios are what count.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best
from bench_checks import data, rules

import aggframe as af


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    path = data(args.rows)
    plain, filtered = rules(where=False), rules(where=True)

    def bare() -> object:
        return pl.scan_parquet(path).group_by("group", "y_true", "y_pred").agg(pl.len()).collect()

    def check() -> object:
        return af.check(af.from_labels(pl.scan_parquet(path), n_classes=6), plain)

    def check_where() -> object:
        return af.check(af.from_labels(pl.scan_parquet(path), n_classes=6), filtered)

    print(f"{args.rows:,} rows, 50 rules (10 with a where) (timed on a shared machine: compare the ratios)")
    t = {
        name: best(fn, args.repeat) for name, fn in (("bare", bare), ("check", check), ("where", check_where))
    }
    print(f"  bare {t['bare']:.3f} s   check {t['check']:.3f} s   check_where {t['where']:.3f} s")
    print(
        f"  check_where / check = {t['where'] / t['check']:.2f}x   check_where / bare = {t['where'] / t['bare']:.1f}x"
    )


if __name__ == "__main__":
    main()
