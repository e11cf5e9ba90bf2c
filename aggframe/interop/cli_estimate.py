"""``aggframe estimate --reference REF INPUT... --scores COLS``: performance before the labels arrive.

The reference and the inputs are read with the same role flags as ``report``'s
(``--scores``, ``--y-true``, ``--form long``, ...; one numeric ``--scores`` column is
the binary layout); the result is :func:`aggframe.estimate`'s frame (``kind``
estimated/realized, ``value``, the interval with ``--n-draws``, ``labelled_share``),
per ``--by`` group and, with ``--time``/``--every``, per window. ``--map-out FILE``
saves the map fitted on the reference, ``--map-in PATH`` reuses a saved one (a map
folder, or a store written by ``af.expected_cells(..., store=)``) in place of
``--reference``. Failures are one line on stderr and exit code 2, as everywhere.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from aggframe.exceptions import AggframeError, ColumnNotFoundError, StoreError
from aggframe.interop.cli_checks import (
    _check_named,
    _check_not_input,
    _check_options,
    _output_format,
    _split,
    _store_inputs,
)
from aggframe.interop.cli_commands import _predictions
from aggframe.interop.cli_output import (
    _fail,
    _library_error,
    _one_line,
    _OutputError,
    _Progress,
    _UsageError,
    _write,
    cli_words,
)
from aggframe.interop.cli_time import add_time_options, time_options

__all__ = ["add_estimate_parser", "run_estimate"]

_EXAMPLES = """examples:
  aggframe estimate --reference october.parquet november.parquet --scores score --y-true y --measures f1,precision --operators binary
  aggframe estimate --reference ref.parquet log/ --scores 'p_*' --by model --labelled labelled --time day --every 1w
  aggframe estimate --reference ref.parquet now.parquet --scores score --map-out maps/2026-11.parquet -o estimate.csv
  aggframe estimate --map-in maps/2026-11.parquet december.parquet --scores score --operators binary --n-draws 200
"""


def add_estimate_parser(sub: Any, inputs: Callable[..., None]) -> None:
    """The ``estimate`` subcommand on the parser's subparsers; ``inputs`` adds the input options."""
    p = sub.add_parser(
        "estimate",
        help="estimate measures of unlabelled predictions from scores calibrated on a labelled reference",
        description="Calibrate the scores on a labelled reference (isotonic, Platt or none), then estimate "
        "cell measures of the inputs from their expected confusion cells, per --by group and time window; "
        "where --labelled rows exist, the realized values beside them.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    inputs(p, report=True)
    _estimate_options(p)
    p.set_defaults(with_keys=None)


def _estimate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--reference",
        metavar="REF",
        default=None,
        help="labelled predictions with the same columns (a file, a folder, a quoted glob), e.g. ref.parquet",
    )
    p.add_argument(
        "--measures", metavar="LIST", default=None, help="cell measures, e.g. f1,recall (default: f1)"
    )
    p.add_argument(
        "--operators", metavar="LIST", default=None, help="e.g. micro,macro or binary (default: micro)"
    )
    p.add_argument(
        "--calibration",
        choices=["isotonic", "platt", "none"],
        default=None,
        help="how the reference calibrates the scores, e.g. platt (default: isotonic)",
    )
    p.add_argument(
        "--labelled",
        metavar="COL",
        default=None,
        help="0/1 or boolean column: 1 where the truth is real (adds the realized values), e.g. labelled",
    )
    add_time_options(p)
    p.add_argument(
        "--n-draws", metavar="B", type=int, default=0, help="draws for the interval, e.g. 200 (default: none)"
    )
    p.add_argument(
        "--level", metavar="L", type=float, default=0.95, help="the interval's level (default: 0.95)"
    )
    p.add_argument("--seed", metavar="N", type=int, default=0, help="the seed of the draws (default: 0)")
    maps = p.add_mutually_exclusive_group()
    maps.add_argument(
        "--map-out",
        metavar="DIR",
        default=None,
        help="save the map fitted on --reference to this Parquet file, e.g. maps/2026-11.parquet",
    )
    maps.add_argument(
        "--map-in",
        metavar="PATH",
        default=None,
        help="use a saved map (a --map-out file or a store of expected cells) instead of --reference",
    )
    p.add_argument("--overwrite", action="store_true", help="replace an existing map at --map-out")
    p.add_argument(
        "--format",
        choices=["table", "csv", "json", "parquet"],
        default=None,
        help="output format, e.g. csv (default: the -o file's extension, else table)",
    )
    p.add_argument(
        "-o", "--output", metavar="PATH", default=None, help="write the estimate to this file, e.g. est.csv"
    )


def _check(args: argparse.Namespace) -> None:
    """What goes with what, and where the outputs go: before anything is read."""
    if args.scores is None:
        msg = "estimate reads scores: pass --scores COLUMNS (one numeric column: the binary layout; 'p_*': one per class)"
        raise _UsageError(msg)
    if (args.reference is None) == (args.map_in is None):
        msg = "give --reference REF (labelled predictions) or --map-in PATH (a saved map), one of them"
        raise _UsageError(msg)
    if args.map_out is not None and args.reference is None:
        msg = "--map-out saves the map fitted on --reference; it needs --reference"
        raise _UsageError(msg)
    if args.unlabelled is not None:
        msg = "--unlabelled does not apply to estimate: mark the labelled rows with --labelled COLUMN"
        raise _UsageError(msg)
    if _store_inputs(args.paths) is not None:
        msg = "estimate needs the prediction rows with their scores; cell stores keep sums only"
        raise _UsageError(msg)
    _check_options(args, None)
    for flag, value in (("--measures", args.measures), ("--operators", args.operators), ("--by", args.by)):
        if value is not None and not _split(value):
            msg = f"{flag} is empty; name at least one, or leave the option out for the default"
            raise _UsageError(msg)
    _output_format(args)
    if args.format == "parquet" and args.output is None:
        msg = "--format parquet needs -o FILE (Parquet is not printed)"
        raise _UsageError(msg)
    for flag, path in (("-o", args.output), ("--map-out", args.map_out)):
        if path is not None:
            _check_named(path, flag)
            _check_not_input(args, flag, path)
            if not Path(path).parent.is_dir():
                msg = f"{flag} {path!r}: the directory {str(Path(path).parent)!r} does not exist"
                raise _OutputError(msg)


def _reference(args: argparse.Namespace) -> Any:
    """The calibration: a saved map (``--map-in``), or the reference read with the inputs' role flags."""
    if args.map_in is not None:
        from aggframe.decisions.estimate_store import load_map

        return load_map(args.map_in)
    # the same roles as the inputs; --where filters the inputs only
    return _predictions(argparse.Namespace(**{**vars(args), "paths": [args.reference], "where": None}), None)


def _estimate(args: argparse.Namespace) -> pl.DataFrame:
    from aggframe.decisions.estimate import estimate, fit_calibration

    reference = _reference(args)
    data = _predictions(args, None)
    columns = data.source.frame.collect_schema().names()
    if args.labelled is not None and args.labelled not in columns:
        msg = f"--labelled column {args.labelled!r} is not in the input; its columns: {columns}"
        raise ColumnNotFoundError(msg)
    if args.map_out is not None:
        reference = fit_calibration(reference, calibration=args.calibration or "isotonic")
        try:
            reference.write(Path(args.map_out), overwrite=args.overwrite)
        except (StoreError, OSError) as exc:
            raise _OutputError(cli_words(" ".join(str(exc).split()))) from exc
    return estimate(
        reference,
        data,
        _split(args.measures) or "f1",
        _split(args.operators) or "micro",  # type: ignore[arg-type]  # checked by estimate
        by=_split(args.by),
        calibration=args.calibration or "isotonic",
        labelled=args.labelled,
        n_draws=args.n_draws,
        level=args.level,
        seed=args.seed,
        engine=args.engine,
        **time_options(args),
    )


def _code(exc: BaseException) -> int:
    """A failure as one line on stderr, worded by what was wrong; the exit code (2)."""
    if isinstance(exc, _UsageError):
        return _fail("usage", str(exc))
    if isinstance(exc, _OutputError):
        return _fail("output", str(exc))
    if isinstance(exc, AggframeError):
        return _library_error(exc)
    return _fail("input", f"could not read the input: {_one_line(exc)}")


def run_estimate(args: argparse.Namespace) -> int:
    """``aggframe estimate``: the options checked, the estimate, the table written; the exit code."""
    try:
        _check(args)
    except (_UsageError, _OutputError, AggframeError) as exc:
        return _code(exc)
    progress = _Progress(f"estimating from {len(args.paths)} input(s)", quiet=args.quiet)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = _estimate(args)
    except (_UsageError, _OutputError, AggframeError, pl.exceptions.PolarsError, OSError) as exc:
        progress.failed()
        return _code(exc)
    try:
        _write(result, args.format, args.output)
    except (pl.exceptions.PolarsError, OSError) as exc:
        progress.failed()
        return _fail("output", f"could not write {args.output or 'to stdout'!r}: {_one_line(exc)}")
    progress.done(f"an estimate of {result.height} rows")
    if not args.quiet:  # a shift warning (scores outside the reference's range) as one line each
        for w in caught:
            sys.stderr.write(f"aggframe: warning: {' '.join(str(w.message).split())}\n")
    return 0
