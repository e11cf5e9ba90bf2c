"""``aggframe slices INPUT --columns a,b --measure f1 --operator macro``: the slices that are worse.

The input options are the ``report`` command's (files, roles, ``--form``); the result is
:func:`aggframe.slices`' frame, printed as a short table (the slice, its size, value,
complement, difference and interval, adjusted p-value, significance) or written whole
with ``-o``/``--format``. Failures are one line on stderr and exit code 2, as everywhere.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import polars as pl

from aggframe.decisions.slice_columns import SLICE_TABLE
from aggframe.exceptions import AggframeError
from aggframe.interop.cli_checks import _check_options, _check_output, _output_format, _split, _store_inputs
from aggframe.interop.cli_commands import _predictions
from aggframe.interop.cli_output import (
    _fail,
    _library_error,
    _one_line,
    _OutputError,
    _Progress,
    _UsageError,
    _write,
)

__all__ = ["add_slices_parser", "run_slices"]

_EXAMPLES = """examples:
  aggframe slices examples/predictions.parquet --columns model,day --measure f1 --operator macro
  aggframe slices preds.parquet --example id --columns region,device,plan --measure recall --max-depth 2 \\
      --min-examples 200 --correction bh -o slices.csv
"""

_TABLE = (
    "slice",
    "n_examples",
    "value",
    "complement",
    "difference",
    "ci_low",
    "ci_high",
    "p_adjusted",
    "significant",
)


def add_slices_parser(sub: Any, inputs: Callable[..., None]) -> None:
    """The ``slices`` subcommand on the parser's subparsers; ``inputs`` adds the input options."""
    p = sub.add_parser(
        "slices",
        help="find the slices of some columns where a measure is significantly worse",
        description="Every slice (up to --max-depth of the --columns, one value each) against the rest of "
        "the data, with bootstrap intervals and p-values adjusted for the number of slices (Holm or "
        "Benjamini-Hochberg); worst first.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    inputs(p, report=False)
    p.add_argument(
        "--columns", metavar="COLS", required=True, help="comma-separated slice columns, e.g. region,device"
    )
    p.add_argument("--measure", metavar="NAME", required=True, help="one measure, e.g. recall")
    p.add_argument(
        "--operator", metavar="NAME", default="micro", help="one operator, e.g. macro (default: micro)"
    )
    p.add_argument(
        "--convention",
        metavar="NAME",
        default="exclude",
        help="undefined entries: exclude, zero, one or nan, e.g. zero (default: exclude)",
    )
    p.add_argument(
        "--max-depth", metavar="D", type=int, default=2, help="most columns per slice, e.g. 3 (default: 2)"
    )
    p.add_argument(
        "--min-examples",
        metavar="N",
        type=int,
        default=30,
        help="fewest examples per slice and complement, e.g. 200 (default: 30)",
    )
    p.add_argument(
        "--max-levels",
        metavar="N",
        type=int,
        default=200,
        help="most distinct values per column, e.g. 500 (default: 200)",
    )
    p.add_argument(
        "--alpha",
        metavar="A",
        type=float,
        default=0.05,
        help="the error rate controlled, e.g. 0.01 (default: 0.05)",
    )
    p.add_argument(
        "--correction",
        choices=["holm", "bh"],
        default="holm",
        help="holm (family-wise error, default) or bh (false discovery rate), e.g. bh",
    )
    p.add_argument(
        "--n-boot", metavar="B", type=int, default=200, help="bootstrap replicates, e.g. 500 (default: 200)"
    )
    p.add_argument(
        "--level",
        metavar="L",
        type=float,
        default=0.95,
        help="the intervals' coverage, e.g. 0.9 (default: 0.95)",
    )
    p.add_argument(
        "--seed", metavar="N", type=int, default=0, help="the replicates' seed, e.g. 7 (default: 0)"
    )
    p.add_argument(
        "--cluster", metavar="COL", default=None, help="resample this column's values, e.g. user_id"
    )
    p.add_argument(
        "--format",
        choices=["table", "csv", "json", "parquet"],
        default=None,
        help="output format, e.g. csv (default: the -o file's extension, else table)",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        default=None,
        help="write every column of the slices to this file, e.g. slices.csv",
    )
    p.add_argument(
        "--html",
        metavar="PATH",
        default=None,
        help="also write a self-contained HTML report with the slices' chart and table, e.g. slices.html",
    )
    p.set_defaults(with_keys=None)


def run_slices(args: argparse.Namespace) -> int:  # noqa: PLR0911 -- a dispatch, one return per case
    """``aggframe slices``: the options checked, the scan and the slices, the result written; the exit code."""
    from aggframe.decisions.slices import slices  # only this command loads the slice search

    try:
        if args.by is not None:
            msg = "aggframe slices takes --columns (the slice columns), not --by"
            raise _UsageError(msg)
        stores = _store_inputs(args.paths)
        if stores is not None:
            msg = "aggframe slices needs the prediction rows (for the bootstrap); cell stores keep sums only"
            raise _UsageError(msg)
        _check_options(args, stores)
        _check_output(args)
        _output_format(args)
        if args.format == "parquet" and args.output is None:
            msg = "--format parquet needs -o FILE (Parquet is not printed)"
            raise _UsageError(msg)
    except _UsageError as exc:
        return _fail("usage", str(exc))
    except _OutputError as exc:
        return _fail("output", str(exc))
    except AggframeError as exc:
        return _library_error(exc)
    progress = _Progress(f"scanning {len(args.paths)} input(s)", quiet=args.quiet)
    try:
        pr = _predictions(args, None)
        progress.step(f"slices with {args.n_boot} bootstrap replicates")
        result = slices(
            pr,
            args.measure,
            args.operator,
            columns=_split(args.columns) or [],
            max_depth=args.max_depth,
            min_examples=args.min_examples,
            alpha=args.alpha,
            correction=args.correction,
            n_boot=args.n_boot,
            level=args.level,
            seed=args.seed,
            cluster=args.cluster,
            convention=args.convention,
            max_levels=args.max_levels,
            engine=args.engine,
        )
    except _UsageError as exc:
        progress.failed()
        return _fail("usage", str(exc))
    except AggframeError as exc:
        progress.failed()
        return _library_error(exc)
    except (pl.exceptions.PolarsError, OSError) as exc:
        progress.failed()
        return _fail("input", f"could not read the input: {_one_line(exc)}")
    if args.html is not None:
        code = _write_html(args, pr, result)
        if code:
            progress.failed()
            return code
    shown = result.select(SLICE_TABLE) if args.format == "table" else result  # -o: every column
    try:
        _write(shown, args.format, args.output)
    except (pl.exceptions.PolarsError, OSError) as exc:
        progress.failed()
        return _fail("output", f"could not write {args.output or 'to stdout'!r}: {_one_line(exc)}")
    found = int(result["significant"].sum())
    progress.done(f"{result.height} slices tested, {found} significant")
    return 0


def _write_html(args: argparse.Namespace, pr: Any, result: pl.DataFrame) -> int:
    """The HTML report: the measure overall, then the slices' section; 0 or the exit code of the failure."""
    from aggframe.interop.html import write_html_report

    try:
        overall = pr.evaluate(args.measure, args.operator, convention=args.convention)
        write_html_report(args.html, pr, overall, title="aggframe slices", slices=result)
    except (pl.exceptions.PolarsError, OSError) as exc:
        return _fail("output", f"could not write the HTML report {args.html!r}: {_one_line(exc)}")
    return 0
