"""Command line: ``aggframe report PATH... [options]`` and ``aggframe cells PATH... -o DIR``.

``report`` reads Parquet or CSV prediction files lazily (label form by default,
long form with ``--form long``), or cell stores written by ``cells``, evaluates
measures x operators per ``--by`` group in one scan, and prints or writes the
tidy report. ``cells`` writes the mergeable cell tables of the predictions to a
directory; stores of several days passed together to ``report`` add up exactly.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from aggframe._predictions import Predictions, from_cells, from_labels, from_long, scan
from aggframe.exceptions import AggframeError

__all__ = ["main"]


def _split(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def _is_store(path: str) -> bool:
    return (Path(path) / "meta.json").exists()


def _predictions(args: argparse.Namespace) -> Predictions:
    stores = [_is_store(p) for p in args.paths]
    if any(stores):
        if not all(stores):
            msg = "mix of cell stores and prediction files; pass one kind"
            raise AggframeError(msg)
        return from_cells(args.paths)
    lf = scan(args.paths)
    classes = _split(args.classes)
    if args.form == "long":
        return from_long(
            lf,
            example=args.example or "example",
            class_=args.class_col,
            y=args.y,
            p=args.p,
            mask=args.mask,
            n_classes=args.n_classes,
            classes=classes,
            tnorm=args.tnorm,
            fold=args.fold,
            repeat=args.repeat,
            target=args.target,
        )
    return from_labels(
        lf,
        y_true=args.y_true,
        y_pred=args.y_pred,
        example=args.example,
        n_classes=args.n_classes,
        classes=classes,
        task=args.task,
        pos_label=args.pos_label,
        fold=args.fold,
        repeat=args.repeat,
        target=args.target,
    )


def _write(df: pl.DataFrame, fmt: str, out: str | None) -> None:
    if fmt == "parquet":
        if out is None:
            msg = "--format parquet needs -o OUT"
            raise AggframeError(msg)
        df.write_parquet(out)
        return
    if fmt == "csv":
        text = df.write_csv()
    elif fmt == "json":
        text = df.write_json()
    else:
        with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_hide_dataframe_shape=True, fmt_str_lengths=40):
            text = str(df)
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(out).write_text(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aggframe", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="evaluate measures x operators per group")
    cel = sub.add_parser("cells", help="write the mergeable cell tables to a directory")
    for p in (rep, cel):
        _inputs(p)
    rep.add_argument("--measures", help="comma-separated measures (default: all 21)")
    rep.add_argument("--operators", help="comma-separated operators (default: micro,macro,weighted,exemplar)")
    rep.add_argument("--convention", default="exclude", help="exclude, zero, one or nan (comma-separated)")
    rep.add_argument("--pooling", help="with --fold: pooled, averaged, fold, min, max, std (comma-separated)")
    rep.add_argument("--within", default="micro", help="operator(s) inside each target for 'target'")
    rep.add_argument("--grouping-sets", choices=["rollup", "cube"], default=None)
    rep.add_argument("--format", choices=["table", "csv", "json", "parquet"], default="table")
    rep.add_argument("-o", "--output", default=None)
    cel.add_argument("-o", "--output", required=True, help="directory of the cell store")
    return parser


def _inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", help="Parquet or CSV files (globs allowed), or cell stores")
    p.add_argument("--form", choices=["labels", "long"], default="labels")
    p.add_argument("--by", help="comma-separated group columns, e.g. model,day")
    p.add_argument("--y-true", default="y_true")
    p.add_argument("--y-pred", default="y_pred")
    p.add_argument("--example", default=None)
    p.add_argument("--class", dest="class_col", default="class")
    p.add_argument("--y", default="y")
    p.add_argument("--p", default="p")
    p.add_argument("--mask", default=None)
    p.add_argument("--tnorm", default=None)
    p.add_argument("--n-classes", type=int, default=None)
    p.add_argument("--classes", default=None, help="comma-separated class universe (strings)")
    p.add_argument("--task", choices=["multiclass", "binary"], default=None)
    p.add_argument("--pos-label", default=1, type=int)
    p.add_argument("--fold", default=None)
    p.add_argument("--repeat", default=None)
    p.add_argument("--target", default=None)
    p.add_argument("--engine", choices=["auto", "in-memory", "streaming"], default="streaming")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``aggframe`` command; returns the exit code."""
    args = _parser().parse_args(argv)
    try:
        pr = _predictions(args)
        sys.stderr.write(f"aggframe: scanning {len(args.paths)} input(s)...\n")
        started = time.perf_counter()
        if args.command == "cells":
            out = pr.write_cells(args.output, by=_split(args.by))
            sys.stderr.write(f"aggframe: wrote cell store {out} in {time.perf_counter() - started:.1f}s\n")
            return 0
        result = pr.evaluate(
            _split(args.measures),
            _split(args.operators),
            by=_split(args.by),
            convention=_split(args.convention) or "exclude",
            pooling=_split(args.pooling),
            within=_split(args.within) or "micro",
            grouping_sets=args.grouping_sets,
            engine=args.engine,
        )
        assert isinstance(result, pl.DataFrame)
        sys.stderr.write(f"aggframe: {result.height} rows in {time.perf_counter() - started:.1f}s\n")
        _write(result, args.format, args.output)
    except AggframeError as exc:
        sys.stderr.write(f"aggframe: error: {exc}\n")
        return 2
    except (pl.exceptions.PolarsError, OSError) as exc:
        sys.stderr.write(f"aggframe: error reading input: {type(exc).__name__}: {str(exc).splitlines()[0]}\n")
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
