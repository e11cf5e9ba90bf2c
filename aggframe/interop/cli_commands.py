"""The commands of ``aggframe``: the predictions built from the inputs (prediction files with
their roles, or cell stores), ``cells`` (one scan, a cell store written) and ``report`` (the
evaluation, then the result and the HTML report written).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import Any, cast

import polars as pl

from aggframe._options import ReportOperator
from aggframe.constructors import from_cells, from_labels, from_long, from_scores
from aggframe.exceptions import AggframeError, StoreError
from aggframe.intake.origin import keep_origin
from aggframe.intake.partitions import partition_dtype, partition_value
from aggframe.intake.paths import scan
from aggframe.intake.where import parse_where
from aggframe.interop.cli_checks import _boot_options, _given, _split, _with_columns
from aggframe.interop.cli_output import _fail, _library_error, _one_line, _Progress, _UsageError, _write
from aggframe.interop.cli_time import time_options
from aggframe.predictions import Predictions


def _as_labels(args: argparse.Namespace, lf: pl.LazyFrame, flag: str, values: list[str]) -> list[Any]:
    """Class values given as text (--classes, --pos-label) in the type of the class column."""
    column = (_given(args.class_col, "class")) if args.form == "long" else (_given(args.y_true, "y_true"))
    dtype = lf.collect_schema().get(column)
    if dtype == pl.Boolean:
        truth = {"1": True, "true": True, "0": False, "false": False}
        bad = [v for v in values if v.lower() not in truth]
        if bad:
            msg = f"{flag} {bad[0]!r} is not a boolean (1, 0, true or false), but column {column!r} holds Boolean labels"
            raise _UsageError(msg)
        return [truth[v.lower()] for v in values]
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
        lf = keep_origin(lf.with_columns(added), lf, constants)
    if args.where is not None:
        try:  # the user's own text: its message is not reworded into flags (`y_true=2` is no --y-true)
            kept = parse_where(args.where, lf.collect_schema(), what="--where")
        except AggframeError as exc:
            raise _UsageError(str(exc)) from exc
        lf = keep_origin(lf.filter(kept), lf)
    if args.scores is not None:
        return _from_scores(args, lf)
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


def _from_scores(args: argparse.Namespace, lf: pl.LazyFrame) -> Predictions:
    """``--scores``: one probability column per class (a glob, a list, a list column), or ``--form long``."""
    classes = None if args.classes is None else _as_labels(args, lf, "--classes", _split(args.classes) or [])
    decision: dict[str, Any] = {"decision": args.decision}
    if args.threshold is not None:
        decision["threshold"] = args.threshold
    if args.k is not None:
        decision["k"] = args.k
    if args.form == "long":
        return from_scores(
            lf,
            example=_given(args.example, "example"),
            class_=_given(args.class_col, "class"),
            score=args.scores,
            y=_given(args.y, "y"),
            mask=args.mask,
            n_classes=args.n_classes,
            classes=classes,
            **decision,
        )
    names = _split(args.scores) or []
    if len(names) == 1 and lf.collect_schema().get(names[0], pl.Null()).is_numeric():
        # one numeric column: the binary layout (the positive class's score, a 0/1 truth)
        return from_scores(lf, class_=None, score=names[0], y=_given(args.y_true, "y_true"), **decision)
    return from_scores(
        lf,
        y_true=_given(args.y_true, "y_true"),
        scores=names[0] if len(names) == 1 else names,
        example=args.example,
        n_classes=args.n_classes,
        classes=classes,
        normalize=bool(args.normalize),
        **decision,
    )


def _cells_by(args: argparse.Namespace) -> list[str]:
    """The store's key columns: ``--by``, then the ``--with`` columns not named there."""
    by = _split(args.by) or []
    return [*by, *(k for k in _with_columns(args) if k not in by)]


# ---------------------------------------------------------------------------
# The commands


def _cells(args: argparse.Namespace, pr: Predictions, progress: _Progress) -> int:
    """``aggframe cells``: one scan, then the cell store written; the exit code (input errors raise)."""
    by = _cells_by(args)
    pr.extend.cell_tables(by, engine=args.engine)  # reads the source: input errors stop here
    try:
        out = pr.write_cells(args.output, by=by, overwrite=args.overwrite)  # the cached tables
    except (pl.exceptions.PolarsError, OSError, StoreError) as exc:
        progress.failed()
        from aggframe.interop.cli_output import _output_error  # (here: the import list above is shared)

        return _fail("output", _output_error("cell store", args.output, exc))
    progress.done(f"wrote cell store {str(out)!r}")
    return 0


def _evaluate(
    args: argparse.Namespace, pr: Predictions, stores: list[str] | None, progress: _Progress
) -> pl.DataFrame:
    """``aggframe report``: the options checked, the one scan, the evaluation (errors raise)."""
    options: dict[str, Any] = {
        "by": _split(args.by),
        "convention": _split(args.convention) or "exclude",
        "pooling": _split(args.pooling),
        "within": _split(args.within) or "micro",
        "grouping_sets": args.grouping_sets,
    }
    if stores is not None and args.within is not None and pr.source.target_key() is None:
        # on files the same is refused before reading (--within needs --target)
        msg = "--within applies to stores written with --target (it is the operator inside each target)"
        raise _UsageError(msg)
    # the options first (a usage error comes before a long scan), then the one scan, kept
    request = pr.extend.request(_split(args.measures), _split(args.operators), **options)
    boot = {} if args.n_boot is None else {"n_boot": args.n_boot, **_boot_options(args)}
    window = time_options(args)  # --time ...: the windows' own scan (at the --every grain)
    if window:
        progress.step("evaluating windows")
        windowed: pl.DataFrame = pr.evaluate(
            _split(args.measures),
            cast("list[ReportOperator] | None", _split(args.operators)),
            **options,
            **boot,
            **window,
            engine=args.engine,
        )
        return windowed
    if stores is not None:
        progress.step(f"reading and rolling up {len(stores)} cell store(s)")
    pr.extend.cell_tables(list(request.by), engine=args.engine)
    progress.step("evaluating" if not boot else f"evaluating {args.n_boot} bootstrap replicates")
    # the operator names are checked by evaluate's one parser (a typo is an input error, not a crash)
    operators = cast("list[ReportOperator] | None", _split(args.operators))
    result = pr.evaluate(_split(args.measures), operators, **options, **boot, engine=args.engine)
    assert isinstance(result, pl.DataFrame)
    return result


def _deliver(
    args: argparse.Namespace,
    pr: Predictions,
    result: pl.DataFrame,
    argv: Sequence[str] | None,
    progress: _Progress,
) -> int:
    """``aggframe report``: the HTML report (``--html``) and the result written; the exit code."""
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
    rows = f"a report of {result.height} row{'' if result.height == 1 else 's'}"
    progress.done(rows + (f", HTML report {args.html!r}" if args.html is not None else ""))
    return 0


def _write_html(
    args: argparse.Namespace, pr: Predictions, result: pl.DataFrame, argv: Sequence[str] | None
) -> int:
    """Write ``--html``; 0, or the exit code of the failure (already reported)."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        from aggframe.interop.html import write_html_report

        write_html_report(
            args.html,
            pr,
            result,
            by=_split(args.by),
            command=shlex.join(["aggframe", *words]),
            seed=None if args.n_boot is None else _boot_options(args)["seed"],
        )
    except ImportError as exc:
        return _fail("usage", f"--html needs the plot extra: {exc}")
    except OSError as exc:
        return _fail("output", f"could not write the HTML report {args.html!r}: {_one_line(exc)}")
    except AggframeError as exc:
        return _library_error(exc)
    except pl.exceptions.PolarsError as exc:  # the report's diagnostics read the input again
        return _fail("input", f"could not read the input: {_one_line(exc)}")
    return 0
