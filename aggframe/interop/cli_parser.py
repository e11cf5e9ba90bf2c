"""The arguments of the ``aggframe`` command and their help: the subcommands ``report`` and
``cells``, every option with an example, and the examples printed under ``--help``. A wrong
option is a usage error (:class:`~aggframe.interop.cli_output._UsageError`).
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from aggframe.interop.cli_estimate import add_estimate_parser
from aggframe.interop.cli_gate import add_check_parser
from aggframe.interop.cli_monitor import add_monitor_parser
from aggframe.interop.cli_output import _UsageError
from aggframe.interop.cli_slices import add_slices_parser
from aggframe.interop.cli_time import add_time_options


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        msg = f"{message} (see `{self.prog} --help`)"
        raise _UsageError(msg)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        msg = f"expected a positive integer, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


_REPORT_EXAMPLES = """examples:
  aggframe report examples/predictions.parquet --by model,day --measures f1,mcc --operators micro,macro
  aggframe report 'logs/*.parquet' --by model --html report.html -o report.csv --format csv
  aggframe report examples/multilabel.parquet --form long --n-classes 8   # sparse: absent entries are negatives
  aggframe report tags.parquet --form long --example doc --class tag --y truth --p predicted --classes a,b,c
  aggframe report cv.parquet --fold fold --pooling pooled,averaged --convention exclude,zero
  aggframe report preds.parquet --example id --by model --n-boot 200 --html report.html   # intervals
  aggframe report 'cells/*' --by model --grouping-sets rollup   # stores written by `aggframe cells`
  aggframe report cv/ --scores 'p_*' --y-true y_true --by model --measures auroc,log_loss,f1 --operators micro,macro
  aggframe report log/ --where "model = 'a' AND day >= '2024-01-02'"
"""

_CELLS_EXAMPLES = """examples:
  aggframe cells day1.parquet --by model -o cells/2026-11-29
  aggframe cells 'log/day=2026-11-29' --by model,day -o cells/2026-11-29   # day: a column from the path
  aggframe cells day1.csv --by model --with day=2026-11-29 -o cells/2026-11-29
  aggframe cells examples/multilabel.parquet --form long --n-classes 8 -o cells/ml --overwrite
  aggframe report 'cells/*' --by model   # the stores of several days add up exactly
  aggframe cells log/ --where "day = '2024-01-02'" --by model -o cells/2024-01-02   # one day's rows
"""


def build_parser(description: str | None) -> argparse.ArgumentParser:
    """The parser of ``aggframe report`` and ``aggframe cells``, ``description`` at the top of ``--help``."""
    parser = _Parser(
        prog="aggframe", description=description, formatter_class=argparse.RawDescriptionHelpFormatter
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
        _inputs(p, report=p is rep)
    add_check_parser(sub, _inputs)  # `aggframe check` (cli_gate.py)
    add_time_options(rep)
    add_monitor_parser(sub, _inputs)
    add_slices_parser(sub, _inputs)  # `aggframe slices`: its own module
    add_estimate_parser(sub, _inputs)  # `aggframe estimate`: its own module
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
        help="with --fold: pooled, averaged, fold, min, max, std; with --repeat too: repeat_pooled, "
        "repeat, repeat_min, repeat_max, repeat_std; comma-separated, e.g. pooled,averaged (default: pooled)",
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
        "--n-boot",
        metavar="B",
        type=_positive_int,
        default=None,
        help="bootstrap intervals from B Poisson replicates (columns ci_low, ci_high, se, n_boot, level; "
        "in the --html charts and tables too), e.g. --n-boot 200 (pass --example so that the models "
        "of one example pair up)",
    )
    rep.add_argument(
        "--level",
        metavar="L",
        type=float,
        default=None,
        help="with --n-boot: the intervals' coverage, e.g. --level 0.9 (default: 0.95)",
    )
    rep.add_argument(
        "--seed",
        metavar="N",
        type=int,
        default=None,
        help="with --n-boot: the seed of the replicate weights, e.g. --seed 7 (default: 0)",
    )
    rep.add_argument(
        "--cluster",
        metavar="COL",
        default=None,
        help="with --n-boot: resample the values of this column (users, sessions) instead of examples, "
        "e.g. --cluster user_id",
    )
    rep.add_argument(
        "--format",
        choices=["table", "csv", "json", "parquet"],
        default=None,
        help="output format, e.g. csv (default: the -o file's extension .csv/.json/.parquet, else table; "
        "parquet needs -o)",
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


def _inputs(p: argparse.ArgumentParser, *, report: bool) -> None:
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
        help="long form, soft values: product, godel (or minimum), lukasiewicz, or hamacher (the "
        "Hamacher family at gamma = 1, which is the product itself), e.g. product",
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
        help="the positive class, with --task binary"
        + (" or --operators binary" if report else "")  # `cells` has no --operators
        + ", e.g. 1 (default: 1; Boolean labels: true or false)",
    )
    p.add_argument(
        "--where",
        metavar="EXPR",
        default=None,
        help="keep the input rows where this SQL condition holds, before anything else, e.g. "
        "--where \"model = 'a' AND day >= '2024-01-02'\"",
    )
    p.add_argument(
        "--scores",
        metavar="COLS",
        default=None,
        help="read scores: one probability column per class (a glob or a comma-separated list, with "
        "--y-true), e.g. --scores 'p_*', or one list column; with --form long, the score column "
        "(with --class, --y), e.g. --scores score",
    )
    p.add_argument(
        "--decision",
        choices=["argmax", "threshold", "top_k"],
        default=None,
        help="with --scores: how the cell measures (f1, ...) decide: argmax (one class per example; the "
        "default of one column per class), threshold (every class above --threshold) or top_k (--k best), e.g. --decision threshold",
    )
    p.add_argument(
        "--threshold",
        metavar="T",
        type=float,
        default=None,
        help="with --scores --decision threshold: predict a class when its score is above T (default 0.5), "
        "e.g. --threshold 0.3",
    )
    p.add_argument(
        "--k",
        metavar="K",
        type=_positive_int,
        default=None,
        help="with --decision top_k: classes per example, e.g. --k 3",
    )
    p.add_argument(
        "--normalize",
        action="store_true",
        default=None,
        help="with --scores COLS: divide each row's probabilities by their sum (else a row that does not "
        "sum to 1 within 1e-6 is an error), e.g. --scores 'p_*' --normalize",
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
