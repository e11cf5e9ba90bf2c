"""``aggframe check RULES INPUT...``: hold predictions against a rules file, for a pipeline's gate.

Exit 0 when no ``error`` rule fails, 1 when one does, 2 on bad input or bad rules
(one line on stderr). The verdicts go to stdout (the rows that did not pass) and,
on request, to JUnit XML (``--junit``), JSON (``--json``), Parquet (``--failures``:
the failing and warning rows) and the HTML report with a verdict section (``--html``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from aggframe.exceptions import AggframeError
from aggframe.interop.cli_checks import _store_inputs
from aggframe.interop.cli_commands import _predictions
from aggframe.interop.cli_output import _fail, _library_error, _one_line, _OutputError, _UsageError, cli_words

__all__ = ["add_check_parser", "run_check"]

_EXAMPLES = """examples:
  aggframe check gate.toml predictions.parquet --junit check.xml
  aggframe check gate.toml 'logs/day=2026-11-30/*.parquet' --baseline cells/2026-11-23 --json check.json
  aggframe check gate.toml cells/2026-11-30 --failures failures.parquet --html report.html

exit codes: 0 no error rule failed (warnings may have), 1 an error rule failed, 2 bad input or rules
"""

_OUTPUTS = (("junit", "--junit"), ("json", "--json"), ("failures", "--failures"), ("html", "--html"))


def add_check_parser(sub: Any, inputs: Callable[..., None]) -> None:
    """Add the ``check`` subcommand to the ``aggframe`` parser (``inputs`` adds the input options)."""
    p = sub.add_parser(
        "check",
        help="hold predictions against a rules file: exit 0 pass, 1 fail, 2 bad input",
        description="Evaluate the rules of a TOML file ([[rule]] tables: measure, operator, by, where, min, "
        "max, on, max_drop, max_relative_drop, baseline, min_examples, severity, n_boot) over the inputs in "
        "one scan, print the rows that did not pass, and exit 1 when an error rule failed.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("rules", metavar="RULES", help="the rules file (TOML), e.g. gate.toml")
    inputs(p, report=False)
    p.add_argument(
        "--baseline",
        metavar="STORE_OR_FILE",
        default=None,
        help="the reference of drop rules without their own: a cell store or a Parquet/CSV file of expected "
        "values (by-columns, measure, operator, value), e.g. --baseline cells/2026-11-23",
    )
    p.add_argument("--junit", metavar="OUT.xml", default=None, help="write JUnit XML, e.g. --junit check.xml")
    p.add_argument(
        "--json", metavar="OUT.json", default=None, help="write the verdicts as JSON, e.g. --json check.json"
    )
    p.add_argument(
        "--failures",
        metavar="OUT.parquet",
        default=None,
        help="write the failing and warning rows as Parquet, e.g. --failures failures.parquet",
    )
    p.add_argument(
        "--html",
        metavar="OUT.html",
        default=None,
        help="write the HTML report with the verdict at the top, e.g. --html report.html "
        "(needs the plot extra: pip install 'aggframe[plot]')",
    )


def _check_outputs(args: argparse.Namespace) -> None:
    inputs = {Path(p).resolve() for p in [args.rules, *args.paths] if "*" not in p}
    seen: dict[Path, str] = {}
    for dest, flag in _OUTPUTS:
        path = getattr(args, dest)
        if path is None:
            continue
        out = Path(path)
        if out.is_dir():
            msg = f"{flag} {path!r} is a directory; give a file name"
            raise _OutputError(msg)
        if not out.parent.is_dir():
            msg = f"{flag} {path!r}: the directory {str(out.parent)!r} does not exist"
            raise _OutputError(msg)
        if out.resolve() in inputs:
            msg = f"{flag} {path!r} would replace an input; write it somewhere else"
            raise _OutputError(msg)
        if out.resolve() in seen:
            msg = f"{flag} {path!r} and {seen[out.resolve()]} name the same file; give each its own"
            raise _OutputError(msg)
        seen[out.resolve()] = flag


def run_check(args: argparse.Namespace, argv: Any = None) -> int:
    """Run ``aggframe check``; the exit code."""
    # imported here: the parser of every command is built from this module (issue 35)
    from aggframe.decisions.checks import WHOLE_BASELINE, check
    from aggframe.decisions.rules import load_rules

    try:
        if args.by is not None:
            msg = "check takes its groups from the rules (by = [...] in each rule), not from --by"
            raise _UsageError(msg)
        _check_outputs(args)
        rules = load_rules(args.rules)
        if args.baseline is not None and not Path(args.baseline).exists():
            msg = (
                f"--baseline {args.baseline!r} does not exist (a cell store directory or a Parquet/CSV file)"
            )
            raise _UsageError(msg)
        stores = _store_inputs(args.paths)
        pr = _predictions(args, stores)
        result = check(pr, rules, baseline=args.baseline, engine=args.engine)
        _deliver(args, pr, result, argv)
    except _UsageError as exc:
        return _fail("usage", str(exc))
    except _OutputError as exc:
        return _fail("output", str(exc))
    except AggframeError as exc:
        exc.args = (str(exc).replace(WHOLE_BASELINE, "--baseline STORE_OR_FILE"),)
        return _library_error(exc)
    except (pl.exceptions.PolarsError, OSError) as exc:
        return _fail("input", f"could not read the input: {_one_line(exc)}")
    except Exception as exc:
        return _fail("internal", f"{_one_line(exc)} (please report this)")
    return 0 if result.passed else 1


def _deliver(args: argparse.Namespace, pr: Any, result: Any, argv: Any) -> None:
    if args.junit:
        from aggframe.decisions.junit import write_junit

        write_junit(result, args.junit)
    if args.json:
        result.to_json(args.json)
    if args.failures:
        result.frame.filter(pl.col("status").is_in(["fail", "warn"])).write_parquet(args.failures)
    if args.html:
        _html(args, pr, result, argv)
    for row in result.frame.filter(pl.col("status") != "pass").iter_rows(named=True):
        sys.stdout.write(f"{row['status'].upper():9} rule {row['rule']}: {cli_words(row['message'])}\n")
    if not args.quiet:
        sys.stderr.write(f"aggframe: {result.summary()}\n")


def _html(args: argparse.Namespace, pr: Any, result: Any, argv: Any) -> None:
    import shlex

    from aggframe.interop.html import write_html_report
    from aggframe.interop.html_verdict import write_verdict

    by = list(dict.fromkeys(c for r in result.rules for c in r.by))
    measures = list(dict.fromkeys(r.measure for r in result.rules))
    operators = list(dict.fromkeys(r.operator for r in result.rules))
    try:
        report = pr.evaluate(measures, operators, by=by or None)
    except AggframeError:  # measures not defined under every operator: one per rule's pair
        report = pl.concat(
            [pr.evaluate([r.measure], [r.operator], by=by or None) for r in result.rules],
            how="diagonal_relaxed",
        ).unique(maintain_order=True)
    command = "aggframe " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    write_html_report(args.html, pr, report, by=by or None, title="aggframe check", command=command)
    write_verdict(args.html, result)
