"""Command line: ``aggframe report PATH... [options]`` and ``aggframe cells PATH... -o DIR``.

``report`` reads Parquet or CSV prediction files lazily (label form by default,
long form with ``--form long``), or cell stores written by ``cells``, evaluates
measures x operators per ``--by`` group in one scan, and prints or writes the
tidy report. ``cells`` writes the mergeable cell tables of the predictions to a
directory (``--with KEY=VALUE`` adds constant key columns; an existing store is
replaced only with ``--overwrite``); stores of several days passed together to
``report`` add up exactly. Every ``key=value`` folder of a Parquet input's path is
a column (``day=2026-11-30/`` gives ``day``: ``af.scan(paths, hive=True)``).

``--html OUT.html`` also writes a self-contained HTML report (tables, charts,
diagnostics; the ``plot`` extra). On a terminal, a spinner on stderr names the stage
(scanning, rolling up cell stores, evaluating, writing) and the time it has taken;
``--quiet`` silences stderr except for errors.

Every failure is one line on stderr and exit code 2, worded by what was wrong:
``usage error`` (an option, or options that do not go together), ``input error``
(the files or stores, or the data in them) or ``output error`` (where the result
would go). Options are checked, and the output path too, before anything is read.
"""

from __future__ import annotations

import argparse
import glob as globbing
import re
import shlex
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import polars as pl

from aggframe.constructors import from_cells, from_labels, from_long
from aggframe.exceptions import AggframeError, OptionError, SourceError, StoreError, UnknownNameError
from aggframe.intake.source import _has_glob, keep_origin, partition_dtype, partition_value, scan
from aggframe.intake.stored import is_store
from aggframe.predictions import Predictions

__all__ = ["FLAGS", "cli_words", "main"]

#: library keywords and the flags that set them (for messages in the CLI's language)
FLAGS = {
    "y_true": "--y-true",
    "y_pred": "--y-pred",
    "example": "--example",
    "class_": "--class",
    "y": "--y",
    "p": "--p",
    "mask": "--mask",
    "fold": "--fold",
    "repeat": "--repeat",
    "target": "--target",
    "n_classes": "--n-classes",
    "classes": "--classes",
    "task": "--task",
    "pos_label": "--pos-label",
    "tnorm": "--tnorm",
    "by": "--by",
    "measures": "--measures",
    "operators": "--operators",
    "convention": "--convention",
    "pooling": "--pooling",
    "within": "--within",
    "grouping_sets": "--grouping-sets",
    "engine": "--engine",
}
_KEYS = "|".join(sorted(map(re.escape, FLAGS), key=len, reverse=True))
_WORDS = [
    (re.compile(r"task=None"), lambda m: "--task multiclass"),
    (re.compile(rf"`({_KEYS})=([^`]*)`"), lambda m: f"`{FLAGS[m[1]]} {m[2]}`"),
    (re.compile(rf"`({_KEYS})`"), lambda m: f"`{FLAGS[m[1]]}`"),
    (re.compile(rf"\(role '({_KEYS})'\)"), lambda m: f"({FLAGS[m[1]]})"),
    (re.compile(rf"(?<![\w.\-'`])({_KEYS})='([\w<> ]*)'"), lambda m: f"{FLAGS[m[1]]} {m[2]}"),
    (re.compile(rf"(?<![\w.\-'`])({_KEYS})="), lambda m: f"{FLAGS[m[1]]} "),
    (re.compile(r" when building the predictions"), lambda m: ""),
]


def cli_words(message: str) -> str:
    """A library message in the CLI's language: ``classes=`` becomes ``--classes``.

    Examples
    --------
    >>> cli_words("`n_classes=3` and `classes` disagree; give one of them")
    '`--n-classes 3` and `--classes` disagree; give one of them'
    >>> cli_words("pass fold='<column>' when building the predictions")
    'pass --fold <column>'
    >>> cli_words("column 'day' (role 'y_true') is not in the frame")
    "column 'day' (--y-true) is not in the frame"
    """
    for pattern, repl in _WORDS:
        message = pattern.sub(repl, message)
    return message


class _UsageError(Exception):
    """Options that are wrong or do not go together."""


class _OutputError(Exception):
    """Where the result would go is not usable."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        msg = f"{message} (see `{self.prog} --help`)"
        raise _UsageError(msg)


def _given(value: str | None, default: str) -> str:
    """A column flag's value (an empty name is a name), or the default when the flag was not given."""
    return default if value is None else value


def _split(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        msg = f"expected a positive integer, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


# ---------------------------------------------------------------------------
# Inputs: prediction files or cell stores


def _store_inputs(paths: Sequence[str]) -> list[str] | None:
    """The store directories the paths (and quoted globs) name, or None for prediction files."""
    expanded: list[str] = []
    for p in paths:
        matches = sorted(globbing.glob(p, recursive=True)) if _has_glob(p) else [p]
        expanded.extend(matches or [p])
    stores = [is_store(p) for p in expanded]
    if not any(stores):
        return None
    if not all(stores):
        other = next(p for p, s in zip(expanded, stores, strict=True) if not s)
        msg = f"{other!r} is not a cell store but other inputs are; pass cell stores or prediction files, not both"
        raise _UsageError(msg)
    return expanded


_FILE_OPTIONS = (
    "form",
    "y_true",
    "y_pred",
    "example",
    "class_col",
    "y",
    "p",
    "mask",
    "tnorm",
    "n_classes",
    "classes",
    "task",
    "pos_label",
    "fold",
    "repeat",
    "target",
)
_LONG_ONLY = ("class_col", "y", "p", "mask", "tnorm")
_LABEL_ONLY = ("y_true", "y_pred", "task", "pos_label")


def _flag(dest: str) -> str:
    return "--class" if dest == "class_col" else "--" + dest.replace("_", "-")


def _check_options(args: argparse.Namespace, stores: list[str] | None) -> None:
    """Options that do not apply are errors, not ignored."""
    report = args.command == "report"
    given = {k for k, v in vars(args).items() if v is not None}
    if stores is not None:
        wrong = [k for k in _FILE_OPTIONS if k in given]
        if wrong:
            msg = f"{_flag(wrong[0])} does not apply to cell stores (they keep the roles they were written with)"
            raise _UsageError(msg)
    form = args.form or "labels"
    for dest in _LONG_ONLY if form == "labels" else _LABEL_ONLY:
        if dest in given:
            other = "--form long" if form == "labels" else "the label form (--form labels)"
            msg = f"{_flag(dest)} applies to {other} only"
            raise _UsageError(msg)
    if args.repeat is not None and args.fold is None:
        msg = "--repeat needs --fold COLUMN (the test fold of each row)"
        raise _UsageError(msg)
    if args.n_classes is not None and args.classes is not None:
        msg = "give --n-classes or --classes, not both"
        raise _UsageError(msg)
    if args.classes is not None and not _split(args.classes):
        msg = "--classes needs at least one class, e.g. --classes cat,dog,bird"
        raise _UsageError(msg)
    binary_op = report and "binary" in [o.lower() for o in _split(args.operators) or []]
    if args.pos_label is not None and form == "labels" and args.task != "binary" and not binary_op:
        msg = "--pos-label applies with --task binary or --operators binary only"
        raise _UsageError(msg)
    if not report:
        _check_with(args, stores)
        return
    if stores is None and args.pooling is not None and args.fold is None:
        msg = "--pooling needs --fold COLUMN (the test fold of each row)"
        raise _UsageError(msg)
    if stores is None and args.within is not None and args.target is None:
        msg = "--within needs --target COLUMN (it is the operator inside each target)"
        raise _UsageError(msg)
    if args.grouping_sets is not None and not _split(args.by):
        msg = "--grouping-sets needs --by COLUMNS (the columns to roll up)"
        raise _UsageError(msg)
    if args.format == "parquet" and args.output is None:
        msg = "--format parquet needs -o FILE (Parquet is not printed)"
        raise _UsageError(msg)


def _check_html(args: argparse.Namespace) -> None:
    """``--html PATH``: the plot extra is installed and the file can go there, before anything is read."""
    if getattr(args, "html", None) is None:
        return
    try:
        from aggframe.interop.html import _deps

        _deps()
    except ImportError as exc:
        msg = f"--html needs the plot extra: {exc}"
        raise _UsageError(msg) from exc
    out = Path(args.html)
    if not out.parent.is_dir():
        msg = f"--html {args.html!r}: the directory {str(out.parent)!r} does not exist"
        raise _OutputError(msg)
    if out.is_dir():
        msg = f"--html {args.html!r} is a directory; give a file name for the HTML report"
        raise _OutputError(msg)
    if args.output is not None and Path(args.output).resolve() == out.resolve():
        msg = f"--html {args.html!r} and -o name the same file; give each its own"
        raise _UsageError(msg)


def _with_columns(args: argparse.Namespace) -> dict[str, str]:
    """``cells --with KEY=VALUE`` (repeatable): the constant key columns, as text."""
    out: dict[str, str] = {}
    for item in getattr(args, "with_keys", None) or []:
        if "=" not in item:
            msg = f"--with {item!r}: expected KEY=VALUE, e.g. --with day=2026-11-30"
            raise _UsageError(msg)
        key, value = item.split("=", 1)
        if key in out:
            msg = f"--with names the column {key!r} twice"
            raise _UsageError(msg)
        out[key] = value
    return out


def _check_with(args: argparse.Namespace, stores: list[str] | None) -> None:
    if _with_columns(args) and stores is not None:
        msg = "--with adds key columns to prediction files; cell stores keep the keys they were written with"
        raise _UsageError(msg)


def _check_output(args: argparse.Namespace) -> None:
    """Where the result goes, checked before anything is computed."""
    _check_html(args)
    if args.output is None:
        return
    out = Path(args.output)
    parent = out.parent
    if not parent.is_dir():
        msg = f"-o {args.output!r}: the directory {str(parent)!r} does not exist"
        raise _OutputError(msg)
    if args.command == "report":
        if out.is_dir():
            msg = f"-o {args.output!r} is a directory; give a file name for the report"
            raise _OutputError(msg)
        return
    if out.is_file() and not args.overwrite:
        msg = f"-o {args.output!r} is an existing file; a cell store is a directory (--overwrite replaces the file)"
        raise _OutputError(msg)
    if out.is_dir() and any(out.iterdir()):
        if not is_store(out):
            msg = f"-o {args.output!r} is a directory that is not empty and not a cell store; pick a new directory"
            raise _OutputError(msg)
        if not args.overwrite:
            msg = f"-o {args.output!r} is an existing cell store; pass --overwrite to replace it"
            raise _OutputError(msg)


def _as_labels(args: argparse.Namespace, lf: pl.LazyFrame, flag: str, values: list[str]) -> list[Any]:
    """Class values given as text (--classes, --pos-label) in the type of the class column."""
    column = (_given(args.class_col, "class")) if args.form == "long" else (_given(args.y_true, "y_true"))
    dtype = lf.collect_schema().get(column)
    if dtype is None or not dtype.is_numeric():
        return values
    kind = int if dtype.is_integer() else float
    bad = [v for v in values if not _parses(v, kind)]
    if bad:
        msg = f"{flag} {bad[0]!r} is not a number, but column {column!r} holds {dtype} labels"
        raise _UsageError(msg)
    return [kind(v) for v in values]


def _parses(text: str, kind: type) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


def _predictions(args: argparse.Namespace, stores: list[str] | None) -> Predictions:
    if stores is not None:
        return from_cells(stores)
    # checks the paths; the predictions know their files through it. Every key=value folder
    # of a Parquet file's path (as given) is a column: day=2026-11-30/ gives `day`
    lf = scan(args.paths, hive=True)
    constants = _with_columns(args)
    if constants:
        present = lf.collect_schema().names()
        clash = next((k for k in constants if k in present), None)
        if clash is not None:
            msg = f"--with {clash}=...: the input already has a column {clash!r} (a column of the files or a hive key of their path)"
            raise _UsageError(msg)
        added = [
            pl.lit(partition_value(v), dtype=partition_dtype([v])).alias(k) for k, v in constants.items()
        ]
        lf = keep_origin(lf.with_columns(added), lf)
    if args.form == "long":
        return from_long(
            lf,
            example=_given(args.example, "example"),
            class_=_given(args.class_col, "class"),
            y=_given(args.y, "y"),
            p=_given(args.p, "p"),
            mask=args.mask,
            n_classes=args.n_classes,
            classes=None
            if args.classes is None
            else _as_labels(args, lf, "--classes", _split(args.classes) or []),
            tnorm=args.tnorm,
            fold=args.fold,
            repeat=args.repeat,
            target=args.target,
        )
    return from_labels(
        lf,
        y_true=_given(args.y_true, "y_true"),
        y_pred=_given(args.y_pred, "y_pred"),
        example=args.example,
        n_classes=args.n_classes,
        classes=None
        if args.classes is None
        else _as_labels(args, lf, "--classes", _split(args.classes) or []),
        task=args.task,
        pos_label=1 if args.pos_label is None else _as_labels(args, lf, "--pos-label", [args.pos_label])[0],
        fold=args.fold,
        repeat=args.repeat,
        target=args.target,
    )


def _cells_by(args: argparse.Namespace) -> list[str]:
    """The store's key columns: ``--by``, then the ``--with`` columns not named there."""
    by = _split(args.by) or []
    return [*by, *(k for k in _with_columns(args) if k not in by)]


def _write(df: pl.DataFrame, fmt: str, out: str | None) -> None:
    if fmt == "parquet":
        assert out is not None  # checked up front
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


# ---------------------------------------------------------------------------
# The parser

_REPORT_EXAMPLES = """examples:
  aggframe report preds.parquet --by model,day --measures f1,mcc --operators micro,macro
  aggframe report 'logs/*.parquet' --by model --html report.html -o report.csv --format csv
  aggframe report multilabel.parquet --form long --example doc --class label --y y --p p
  aggframe report cv.parquet --fold fold --pooling pooled,averaged --convention exclude,zero
  aggframe report 'cells/*' --by model --grouping-sets rollup   # stores written by `aggframe cells`
"""

_CELLS_EXAMPLES = """examples:
  aggframe cells day1.parquet --by model -o cells/2026-11-29
  aggframe cells 'log/day=2026-11-29' --by model,day -o cells/2026-11-29   # day: a column from the path
  aggframe cells day1.csv --by model --with day=2026-11-29 -o cells/2026-11-29
  aggframe cells multilabel.parquet --form long --by model -o cells/ml --overwrite
  aggframe report 'cells/*' --by model   # the stores of several days add up exactly
"""


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="aggframe", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser(
        "report",
        help="evaluate measures x operators per group",
        description="Evaluate measures x operators per --by group in one scan and print or write the tidy "
        "report (one row per group x measure x operator x convention).",
        epilog=_REPORT_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cel = sub.add_parser(
        "cells",
        help="write the mergeable cell tables to a directory",
        description="Write the cell tables of the predictions (per --by group) to a directory: a cell store. "
        "Stores of several days or shards passed together to `aggframe report` add up exactly.",
        epilog=_CELLS_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for p in (rep, cel):
        _inputs(p)
    rep.add_argument(
        "--measures",
        metavar="LIST",
        help="comma-separated measures, e.g. f1,mcc,balanced_accuracy (default: all 21)",
    )
    rep.add_argument(
        "--operators",
        metavar="LIST",
        help="comma-separated operators, e.g. micro,macro (default: micro,macro,weighted,exemplar; "
        "also binary, multiclass (the whole confusion matrix of single-label data: scikit-learn's mcc, "
        "kappa, balanced accuracy; measures mcc,kappa,kappa_linear,kappa_quadratic,balanced_accuracy,"
        "balanced_accuracy_adjusted,accuracy), and target with --target)",
    )
    rep.add_argument(
        "--convention",
        metavar="LIST",
        default="exclude",
        help="undefined entries: exclude, zero, one or nan, comma-separated to compare, e.g. exclude,zero "
        "(default: exclude)",
    )
    rep.add_argument(
        "--pooling",
        metavar="LIST",
        help="with --fold: pooled, averaged, fold, min, max, std, comma-separated, e.g. pooled,averaged "
        "(default: pooled)",
    )
    rep.add_argument(
        "--within",
        metavar="LIST",
        help="with --target: operator(s) inside each target for the 'target' operator, e.g. macro "
        "or multiclass (default: micro)",
    )
    rep.add_argument(
        "--grouping-sets",
        choices=["rollup", "cube"],
        default=None,
        help="with --by: add the rolled-up rows, e.g. --by model,day --grouping-sets rollup",
    )
    rep.add_argument(
        "--format",
        choices=["table", "csv", "json", "parquet"],
        default="table",
        help="output format, e.g. csv (default: table; parquet needs -o)",
    )
    rep.add_argument(
        "-o", "--output", metavar="PATH", default=None, help="write the report to this file, e.g. report.csv"
    )
    rep.add_argument(
        "--html",
        metavar="PATH",
        default=None,
        help="also write a self-contained HTML report (tables, charts, diagnostics; opens offline) to this "
        "file, e.g. report.html (needs the plot extra: pip install 'aggframe[plot]')",
    )
    cel.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        required=True,
        help="directory of the cell store, e.g. cells/2026-11-29",
    )
    cel.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing cell store (or file) at -o, e.g. -o cells/2026-11-29 --overwrite",
    )
    cel.add_argument(
        "--with",
        dest="with_keys",
        metavar="KEY=VALUE",
        action="append",
        default=None,
        help="add a constant key column to every row and to --by, e.g. --with day=2026-11-30 (repeatable; "
        "typed as a hive key: an integer, an ISO date, else text)",
    )
    return parser


def _inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="+",
        help="Parquet or CSV files, directories of hive partitions, globs (quoted, e.g. 'data/*.parquet'), "
        "or cell stores (e.g. 'cells/*')",
    )
    p.add_argument(
        "--form",
        choices=["labels", "long"],
        default=None,
        help="labels: one row per example (default); long: one row per (example, class), e.g. --form long",
    )
    p.add_argument("--by", metavar="COLS", help="comma-separated group columns, e.g. model,day")
    p.add_argument(
        "--y-true",
        metavar="COL",
        default=None,
        help="label form: true class column, e.g. --y-true label (default: y_true)",
    )
    p.add_argument(
        "--y-pred",
        metavar="COL",
        default=None,
        help="label form: predicted class column, e.g. --y-pred prediction (default: y_pred)",
    )
    p.add_argument(
        "--example",
        metavar="COL",
        default=None,
        help="example id column, e.g. example (long form default: example)",
    )
    p.add_argument(
        "--class",
        metavar="COL",
        dest="class_col",
        default=None,
        help="long form: class column, e.g. --class label (default: class)",
    )
    p.add_argument(
        "--y",
        metavar="COL",
        default=None,
        help="long form: truth column, 0/1 or in [0, 1], e.g. --y truth (default: y)",
    )
    p.add_argument(
        "--p",
        metavar="COL",
        default=None,
        help="long form: prediction column, 0/1 or in [0, 1], e.g. --p predicted (default: p)",
    )
    p.add_argument(
        "--mask",
        metavar="COL",
        default=None,
        help="long form: 1 = observed entry, 0 = unobserved, e.g. observed",
    )
    p.add_argument(
        "--tnorm",
        metavar="NAME",
        default=None,
        help="long form, soft values: product, godel, lukasiewicz or hamacher, e.g. product",
    )
    p.add_argument(
        "--n-classes", metavar="N", type=_positive_int, default=None, help="class universe 0 .. N-1, e.g. 10"
    )
    p.add_argument(
        "--classes", metavar="A,B,...", default=None, help="comma-separated class universe, e.g. cat,dog,bird"
    )
    p.add_argument(
        "--task",
        choices=["multiclass", "binary"],
        default=None,
        help="label form: binary keeps the positive class only, e.g. --task binary (default: multiclass)",
    )
    p.add_argument(
        "--pos-label",
        default=None,
        metavar="LABEL",
        help="the positive class, with --task binary or --operators binary, e.g. 1 (default: 1)",
    )
    p.add_argument("--fold", metavar="COL", default=None, help="cross-validation fold column, e.g. fold")
    p.add_argument(
        "--repeat",
        metavar="COL",
        default=None,
        help="with --fold: repetition column of repeated CV, e.g. repeat",
    )
    p.add_argument("--target", metavar="COL", default=None, help="multi-output target column, e.g. target")
    p.add_argument(
        "--engine",
        choices=["auto", "in-memory", "streaming"],
        default="streaming",
        help="Polars engine, e.g. in-memory (default: streaming)",
    )
    p.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress or summary on stderr (errors still are), e.g. in a cron job: --quiet",
    )


# ---------------------------------------------------------------------------
# main


class _Progress:
    """Progress on stderr.

    On a terminal: one line, redrawn every ``interval`` seconds by a background
    thread while the main thread waits on Polars (which releases the GIL): a
    spinner, the stage (``scanning 3 input(s)``, ``evaluating`` ...) and the time
    taken so far; cleared when the job ends. Elsewhere (a pipe, a log file) no
    live display. Either way one summary line at the end, unless ``quiet``.
    """

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    ASCII = "|/-\\"

    def __init__(self, text: str, *, quiet: bool = False, stream: Any = None, interval: float = 0.1) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.text = text
        self.stage = text
        self.quiet = quiet
        self.live = not quiet and _is_terminal(self.stream)
        self.started = time.perf_counter()
        encoding = (getattr(self.stream, "encoding", None) or "ascii").lower()
        self.frames = self.FRAMES if encoding.replace("-", "") in ("utf8", "utf16") else self.ASCII
        self.ticks = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if self.live:
            self._draw()
            self._thread = threading.Thread(target=self._spin, args=(interval,), daemon=True)
            self._thread.start()

    def step(self, stage: str) -> None:
        """Name the stage now running."""
        with self._lock:
            self.stage = stage
        if self.live:
            self._draw()

    def _draw(self) -> None:
        with self._lock:
            frame = self.frames[self.ticks % len(self.frames)]
            self.ticks += 1
            took = time.perf_counter() - self.started
            self.stream.write(f"\r\x1b[K{frame} aggframe: {self.stage}... {took:.1f}s")
            self.stream.flush()

    def _spin(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self._draw()

    def _close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self.live:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.live = False

    def done(self, text: str) -> None:
        self._close()
        if not self.quiet:
            took = time.perf_counter() - self.started
            self.stream.write(f"aggframe: {self.text}: {text} in {took:.1f}s\n")

    def failed(self) -> None:
        self._close()


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def _fail(kind: str, message: str) -> int:
    first = " ".join(message.split())
    sys.stderr.write(f"aggframe: {kind} error: {first}\n")
    return 2


def _library_error(exc: AggframeError) -> int:
    usage = isinstance(exc, (OptionError, UnknownNameError)) and not isinstance(exc, SourceError)
    return _fail("usage" if usage else "input", cli_words(str(exc)))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``aggframe`` command; returns the exit code (2 on any failure)."""
    try:
        args = _parser().parse_args(argv)
        stores = _store_inputs(args.paths)
        _check_options(args, stores)
        _check_output(args)
    except _UsageError as exc:
        return _fail("usage", str(exc))
    except _OutputError as exc:
        return _fail("output", str(exc))
    except AggframeError as exc:
        return _library_error(exc)

    progress: _Progress | None = None
    try:
        pr = _predictions(args, stores)
        scanning = f"scanning {len(stores or args.paths)} input(s)"
        progress = _Progress(scanning, quiet=args.quiet)
        if args.command == "cells":
            by = _cells_by(args)
            pr.cell_tables(by, engine=args.engine)  # reads the source: input errors stop here
            try:
                out = pr.write_cells(args.output, by=by, overwrite=args.overwrite)  # the cached tables
            except (pl.exceptions.PolarsError, OSError, StoreError) as exc:
                progress.failed()
                return _fail("output", f"could not write the cell store {args.output!r}: {_one_line(exc)}")
            progress.done(f"wrote cell store {out}")
            return 0
        options: dict[str, Any] = {
            "by": _split(args.by),
            "convention": _split(args.convention) or "exclude",
            "pooling": _split(args.pooling),
            "within": _split(args.within) or "micro",
            "grouping_sets": args.grouping_sets,
        }
        # the options first (a usage error comes before a long scan), then the one scan, kept
        request = pr.request(_split(args.measures), _split(args.operators), **options)
        if stores is not None:
            progress.step(f"reading and rolling up {len(stores)} cell store(s)")
        pr.cell_tables(list(request.by), engine=args.engine)
        progress.step("evaluating")
        result = pr.evaluate(_split(args.measures), _split(args.operators), **options, engine=args.engine)
        assert isinstance(result, pl.DataFrame)
    except _UsageError as exc:
        return _fail("usage", str(exc))
    except AggframeError as exc:
        if progress is not None:
            progress.failed()
        return _library_error(exc)
    except (pl.exceptions.PolarsError, OSError) as exc:
        if progress is not None:
            progress.failed()
        return _fail("input", f"could not read the input: {_one_line(exc)}")
    except Exception as exc:
        if progress is not None:
            progress.failed()
        return _fail("internal", f"{_one_line(exc)} (please report this)")

    if args.html is not None:
        progress.step("writing the HTML report")
        code = _write_html(args, pr, result, argv)
        if code:
            progress.failed()
            return code
    try:
        _write(result, args.format, args.output)
    except (pl.exceptions.PolarsError, OSError) as exc:
        progress.failed()
        return _fail("output", f"could not write {args.output or 'to stdout'!r}: {_one_line(exc)}")
    rows = f"{result.height} row{'' if result.height == 1 else 's'}"
    progress.done(rows + (f", HTML report {args.html}" if args.html is not None else ""))
    return 0


def _write_html(
    args: argparse.Namespace, pr: Predictions, result: pl.DataFrame, argv: Sequence[str] | None
) -> int:
    """Write ``--html``; 0, or the exit code of the failure (already reported)."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        from aggframe.interop.html import write_html_report

        write_html_report(args.html, pr, result, by=_split(args.by), command=shlex.join(["aggframe", *words]))
    except ImportError as exc:
        return _fail("usage", f"--html needs the plot extra: {exc}")
    except OSError as exc:
        return _fail("output", f"could not write the HTML report {args.html!r}: {_one_line(exc)}")
    except AggframeError as exc:
        return _library_error(exc)
    except pl.exceptions.PolarsError as exc:  # the report's diagnostics read the input again
        return _fail("input", f"could not read the input: {_one_line(exc)}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
