"""Command line: ``aggframe report PATH... [options]`` and ``aggframe cells PATH... -o DIR``
(and ``aggframe check RULES PATH...``, a pipeline's gate: ``aggframe check --help``).

``report`` reads Parquet or CSV prediction files lazily (label form by default,
long form with ``--form long``), or cell stores written by ``cells``, evaluates
measures x operators per ``--by`` group in one scan, and prints or writes the
tidy report. ``cells`` writes the mergeable cell tables of the predictions to a
directory (``--with KEY=VALUE`` adds constant key columns; an existing store is
replaced only with ``--overwrite``); stores of several days passed together to
``report`` add up exactly. Every ``key=value`` folder of a Parquet input's path is
a column (``day=2026-11-30/`` gives ``day``: ``af.scan(paths, hive=True)``).

``--html OUT.html`` also writes a self-contained HTML report (tables, charts,
diagnostics; the ``plot`` extra). ``--n-boot B`` (with ``--level``, ``--seed``,
``--cluster``) adds bootstrap intervals to the table and the HTML report. On a terminal, a spinner on stderr names the stage
(scanning, rolling up cell stores, evaluating, writing) and the time it has taken;
``--quiet`` silences stderr except for errors.

Every failure is one line on stderr and exit code 2, worded by what was wrong:
``usage error`` (an option, or options that do not go together), ``input error``
(the files or stores, or the data in them) or ``output error`` (where the result
would go). Options are checked, and the output path too, before anything is read.
"""

# The parser and its help are in cli_parser.py, the option checks in cli_checks.py, the
# commands in cli_commands.py, messages, progress and the writing of results in cli_output.py.

from __future__ import annotations

import argparse
from collections.abc import Sequence

import polars as pl

from aggframe.exceptions import AggframeError, EmptyInputError
from aggframe.interop.cli_checks import _check_options, _check_output, _store_inputs
from aggframe.interop.cli_commands import _cells, _deliver, _evaluate, _predictions
from aggframe.interop.cli_estimate import run_estimate
from aggframe.interop.cli_gate import run_check
from aggframe.interop.cli_monitor import run_monitor
from aggframe.interop.cli_output import (
    FLAGS,
    _fail,
    _library_error,
    _one_line,
    _OutputError,
    _Progress,
    _UsageError,
    cli_words,
)
from aggframe.interop.cli_parser import build_parser
from aggframe.interop.cli_slices import run_slices

__all__ = ["FLAGS", "cli_words", "main"]


def _parser() -> argparse.ArgumentParser:
    """The parser of the ``aggframe`` command, this module's docstring at the top of its ``--help``."""
    return build_parser(__doc__)


def main(argv: Sequence[str] | None = None) -> int:  # noqa: PLR0911, PLR0912 -- a dispatch, one return per case
    """Entry point of the ``aggframe`` command; returns the exit code (2 on any failure)."""
    try:
        args = _parser().parse_args(argv)
        if args.command == "check":
            return run_check(args, argv)
        if args.command == "monitor":
            return run_monitor(args, argv)
        if args.command == "slices":
            return run_slices(args)  # its own checks, scan and output: aggframe/interop/cli_slices.py
        if args.command == "estimate":
            return run_estimate(args)  # its own checks and output: aggframe/interop/cli_estimate.py
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
            return _cells(args, pr, progress)
        result = _evaluate(args, pr, stores, progress)
    except _UsageError as exc:
        return _fail("usage", str(exc))
    except AggframeError as exc:
        if progress is not None:
            progress.failed()
        if isinstance(exc, EmptyInputError) and getattr(args, "where", None) is not None:
            exc = EmptyInputError(f"{exc} (after --where {args.where!r}: it keeps no row)")
        return _library_error(exc)
    except (pl.exceptions.PolarsError, OSError) as exc:
        if progress is not None:
            progress.failed()
        return _fail("input", f"could not read the input: {_one_line(exc)}")
    except Exception as exc:
        if progress is not None:
            progress.failed()
        return _fail("internal", f"{_one_line(exc)} (please report this)")

    return _deliver(args, pr, result, argv, progress)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
