"""``aggframe monitor INPUT... --time COL --every 1d --reference START..END``, and the time options of ``report``.

``monitor`` writes :func:`~aggframe.monitor`'s table and exits 1 when an alert of
severity ``error`` fires (0 otherwise, 2 on any failure, one line on stderr).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import polars as pl

from aggframe.exceptions import AggframeError
from aggframe.intake.paths import scan
from aggframe.intake.store_format import is_store
from aggframe.interop.cli_checks import _split, _store_inputs
from aggframe.interop.cli_commands import _predictions
from aggframe.interop.cli_output import _fail, _library_error, _one_line, _UsageError, _write
from aggframe.interop.cli_time import add_time_options, time_options

__all__ = ["add_monitor_parser", "run_monitor"]

_EXAMPLES = """examples:
  aggframe monitor log.parquet --time day --every 1d --period 7d --by model --reference 2026-01-01..2026-02-01
  aggframe monitor 'cells/*' --time day --every 1d --reference cells_ref --measures recall --operators micro
  aggframe monitor log.parquet --time ts --every 1d --unlabelled --min-labelled-share 0.5 --reference ref.parquet
"""


def add_monitor_parser(sub: Any, inputs: Any) -> argparse.ArgumentParser:
    """The ``monitor`` sub-command (``inputs`` adds the input flags shared with ``report``)."""
    mon: argparse.ArgumentParser = sub.add_parser(
        "monitor",
        help="windows over time against a reference band; exit 1 on alerts",
        description="Evaluate measures per time window and --by group, draw a band from the reference "
        "windows (mean +- 3 sd by default) and flag the windows outside it. Exit 1 when an alert of "
        "severity error fires.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    inputs(mon, report=True)
    add_time_options(mon)
    mon.add_argument(
        "--reference",
        metavar="REF",
        required=True,
        help="START..END (ISO dates or datetimes: the windows inside), a cell store, or a file with the "
        "same columns, e.g. 2026-01-01..2026-02-01",
    )
    mon.add_argument(
        "--rules",
        metavar="TOML",
        default=None,
        help="[[rule]] tables (measure, operator, by, severity, n_boot, band, width, quantiles, ...), one "
        "monitor each, instead of --measures/--operators/--by/--severity, e.g. --rules watch.toml",
    )
    mon.add_argument(
        "--measures",
        metavar="LIST",
        default=None,
        help="comma-separated measures, e.g. f1,recall (default: f1)",
    )
    mon.add_argument(
        "--operators",
        metavar="LIST",
        default=None,
        help="comma-separated operators, e.g. micro,macro (default: macro)",
    )
    mon.add_argument(
        "--convention",
        metavar="LIST",
        default="exclude",
        help="undefined entries: exclude, zero, one or nan, e.g. zero (default: exclude)",
    )
    mon.add_argument(
        "--band",
        choices=["sd", "quantile"],
        default="sd",
        help="band rule: mean +- width sd of the reference windows, or their quantiles, e.g. quantile (default: sd)",
    )
    mon.add_argument(
        "--width",
        metavar="K",
        type=float,
        default=3.0,
        help="band half-width in standard deviations, e.g. 2.5 (default: 3)",
    )
    mon.add_argument(
        "--min-reference-windows",
        metavar="N",
        type=int,
        default=3,
        help="fewer reference windows give no band, e.g. 5 (default: 3)",
    )
    mon.add_argument(
        "--min-labelled-share",
        metavar="S",
        type=float,
        default=0.5,
        help="with --unlabelled: windows with a smaller labelled share are flagged, e.g. 0.8 (default: 0.5)",
    )
    mon.add_argument(
        "--n-boot",
        metavar="B",
        type=int,
        default=None,
        help="bootstrap each window (its se and interval), e.g. 200",
    )
    mon.add_argument(
        "--severity",
        choices=["error", "warn"],
        default=None,
        help="what an alert is: error (exit 1) or warn, e.g. warn (default: error)",
    )
    mon.add_argument(
        "--format",
        choices=["table", "csv", "json", "parquet"],
        default=None,
        help="output format, e.g. csv (default: the -o extension, else a table)",
    )
    mon.add_argument(
        "-o", "--output", metavar="PATH", default=None, help="write the table to this file, e.g. monitor.csv"
    )
    return mon


def _when(text: str) -> date | datetime:
    try:
        return date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
    except ValueError:
        msg = f"--reference: {text!r} is not an ISO date or datetime (e.g. 2026-01-01 or 2026-01-01T06:00)"
        raise _UsageError(msg) from None


def _reference(text: str, args: argparse.Namespace) -> Any:
    if ".." in text:
        start, end = text.split("..", 1)
        return (_when(start.strip()), _when(end.strip()))
    if is_store(text):
        return text
    return scan([text], hive=True)


def _format(args: argparse.Namespace) -> str:
    out = args.output or ""
    fmt = args.format or next((e for e in ("csv", "json", "parquet") if out.endswith("." + e)), "table")
    if fmt == "parquet" and args.output is None:
        msg = "--format parquet needs -o PATH"
        raise _UsageError(msg)
    return str(fmt)


def run_monitor(args: argparse.Namespace, argv: Sequence[str] | None = None) -> int:
    """``aggframe monitor``: 0 (no alert of severity error), 1 (one fired) or 2 (a failure)."""
    del argv
    # imported here: the parser of every command is built from this module (issue 35)
    from aggframe.decisions.monitor import load_monitor_rules, monitor, monitor_rules

    try:
        window = time_options(args)
        if "time" not in window:
            msg = "monitor needs --time COLUMN and --every DURATION (e.g. --time day --every 1d)"
            raise _UsageError(msg)
        stores = _store_inputs(args.paths)
        fmt = _format(args)
        pr = _predictions(args, stores)
        reference = _reference(args.reference, args)
        if args.rules is not None:
            clash = [
                f
                for f in ("measures", "operators", "by", "severity", "n_boot")
                if getattr(args, f) is not None
            ]
            if clash:
                msg = f"--{clash[0].replace('_', '-')} does not apply with --rules (each rule says it)"
                raise _UsageError(msg)
            shared = {"reference": reference, "convention": _split(args.convention) or "exclude", **window}
            table = monitor_rules(pr, load_monitor_rules(args.rules), **shared)
        else:
            table = monitor(
                pr,
                _split(args.measures) or "f1",
                _split(args.operators) or "macro",
                **window,
                reference=reference,
                by=_split(args.by),
                convention=_split(args.convention) or "exclude",
                band=args.band,
                width=args.width,
                min_reference_windows=args.min_reference_windows,
                min_labelled_share=args.min_labelled_share,
                n_boot=args.n_boot,
                severity=args.severity or "error",
            )
    except _UsageError as exc:
        return _fail("usage", str(exc))
    except AggframeError as exc:
        return _library_error(exc)
    except (pl.exceptions.PolarsError, OSError) as exc:
        return _fail("input", f"could not read the input: {_one_line(exc)}")
    try:
        _write(table, fmt, args.output)
    except (pl.exceptions.PolarsError, OSError) as exc:
        return _fail("output", f"could not write {args.output or 'to stdout'!r}: {_one_line(exc)}")
    fired = table.filter(pl.col("alert") & (pl.col("severity") == "error")).height
    return 1 if fired else 0
