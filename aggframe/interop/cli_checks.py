"""The checks of the ``aggframe`` command's options, made before anything is read: inputs that
are cell stores or prediction files (not both), options that do not apply or do not go
together, the bootstrap options, and where the outputs (``-o``, ``--html``) would go.
"""

from __future__ import annotations

import argparse
import glob as globbing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aggframe._options import parse_bootstrap
from aggframe.exceptions import SourceError
from aggframe.intake.paths import EMPTY_PATH, FILE_NOT_FOUND, is_pattern
from aggframe.intake.store_format import is_store
from aggframe.intake.store_write import overwritten_input
from aggframe.interop.cli_output import _OutputError, _UsageError
from aggframe.measures.registry import is_score_measure


def _given(value: str | None, default: str) -> str:
    """A column flag's value (an empty name is a name), or the default when the flag was not given."""
    return default if value is None else value


def _split(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


# ---------------------------------------------------------------------------
# Inputs: prediction files or cell stores


def _store_inputs(paths: Sequence[str]) -> list[str] | None:
    """The store directories the paths (and quoted globs) name, or None for prediction files."""
    expanded: list[str] = []
    for p in paths:
        if not p.strip():  # pathlib reads '' as the current directory
            raise SourceError(EMPTY_PATH)
        matches = sorted(globbing.glob(p, recursive=True)) if is_pattern(p) else [p]
        expanded.extend(matches or [p])
    stores = [is_store(p) for p in expanded]
    if not any(stores):
        return None
    if not all(stores):
        other = next(p for p, s in zip(expanded, stores, strict=True) if not s)
        if not Path(other).exists():
            # a missing input is an input error, whatever the other inputs are
            raise SourceError(FILE_NOT_FOUND.format(path=other))
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
    "where",
    "scores",
    "decision",
    "threshold",
    "k",
    "normalize",
)
_LONG_ONLY = ("class_col", "y", "p", "mask", "tnorm")
_LABEL_ONLY = ("y_true", "y_pred", "task", "pos_label")


def _flag(dest: str) -> str:
    return "--class" if dest == "class_col" else "--" + dest.replace("_", "-")


def _check_options(args: argparse.Namespace, stores: list[str] | None) -> None:
    """Options that do not apply are errors, not ignored."""
    _check_input(args, stores)
    if args.command == "report":
        _check_report(args, stores)
    else:
        _check_with(args, stores)


def _check_input(args: argparse.Namespace, stores: list[str] | None) -> None:
    """The options that say how the input is read (of ``report`` and ``cells`` alike)."""
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
    _check_scores(args, form)
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
        # `cells` has no --operators: its stores take --operators binary when they are reported
        msg = (
            "--pos-label applies with --task binary" + (" or --operators binary" if report else "") + " only"
        )
        raise _UsageError(msg)


def _check_report(args: argparse.Namespace, stores: list[str] | None) -> None:
    """The options of what ``report`` computes and writes."""
    for dest in ("measures", "operators", "by"):
        if getattr(args, dest) is not None and not _split(getattr(args, dest)):
            # an empty list is not the default (every measure, operator; no groups): say so
            msg = f"{_flag(dest)} is empty; name at least one, or leave the option out for the default"
            raise _UsageError(msg)
    if stores is None and args.pooling is not None and args.fold is None:
        msg = "--pooling needs --fold COLUMN (the test fold of each row)"
        raise _UsageError(msg)
    if stores is None and args.within is not None and args.target is None:
        msg = "--within needs --target COLUMN (it is the operator inside each target)"
        raise _UsageError(msg)
    if args.grouping_sets is not None and not _split(args.by):
        msg = "--grouping-sets needs --by COLUMNS (the columns to roll up)"
        raise _UsageError(msg)
    asked = [m.lower() for m in _split(args.measures) or []]
    on_scores = next((m for m in asked if is_score_measure(m)), None)
    if on_scores is not None and args.scores is None and stores is None:
        msg = (
            f"--measures {on_scores} reads scores: pass --scores COLUMNS (e.g. --scores 'p_*', one probability "
            "column per class, with --y-true; or --form long --scores COLUMN)"
        )
        raise _UsageError(msg)
    _output_format(args)
    if args.format == "parquet" and args.output is None:
        msg = "--format parquet needs -o FILE (Parquet is not printed)"
        raise _UsageError(msg)
    _check_boot(args, stores)


def _check_scores(args: argparse.Namespace, form: str) -> None:
    """``--scores`` and its decision options: what goes with what, before anything is read."""
    if args.scores is None:
        alone = next(
            (f for f in ("decision", "threshold", "k", "normalize") if getattr(args, f) is not None), None
        )
        if alone is not None:
            msg = f"{_flag(alone)} applies with --scores only (predictions read from scores)"
            raise _UsageError(msg)
        return
    if not args.scores.strip():
        msg = "--scores is empty; name the score columns, e.g. --scores 'p_*'"
        raise _UsageError(msg)
    wrong = {
        "y_pred": "--y-pred",
        "p": "--p",
        "tnorm": "--tnorm",
        "task": "--task",
        "fold": "--fold",
        "repeat": "--repeat",
        "target": "--target",
    }
    clash = next((flag for dest, flag in wrong.items() if getattr(args, dest) is not None), None)
    if clash is not None:
        msg = f"{clash} does not apply with --scores (the predictions are decided from the scores)"
        raise _UsageError(msg)
    if form == "long" and args.normalize is not None:
        msg = "--normalize applies to one score column per class (not --form long)"
        raise _UsageError(msg)
    if args.threshold is not None and args.decision not in (None, "threshold"):
        msg = f"--threshold applies with --decision threshold (not {args.decision})"
        raise _UsageError(msg)
    if args.k is not None and args.decision != "top_k":
        msg = "--k applies with --decision top_k"
        raise _UsageError(msg)
    if args.decision == "top_k" and args.k is None:
        msg = "--decision top_k needs --k K (the classes predicted per example)"
        raise _UsageError(msg)


#: the report's format an -o file's extension names
_FORMAT_OF = {".csv": "csv", ".json": "json", ".parquet": "parquet"}


def _output_format(args: argparse.Namespace) -> None:
    """``--format`` from the -o file's extension when not given (``-o report.parquet`` wrote the text
    table into a .parquet file); an extension that names another format is a usage error."""
    named = _FORMAT_OF.get(Path(args.output).suffix.lower()) if args.output is not None else None
    if args.format is None:
        args.format = named or "table"
    elif named is not None and named != args.format:
        msg = f"-o {args.output!r} names a {named} file and --format is {args.format}; drop one of them"
        raise _UsageError(msg)


def _check_boot(args: argparse.Namespace, stores: list[str] | None) -> None:
    """``--n-boot`` and its options, checked before anything is read."""
    if args.n_boot is None:
        alone = next((f for f in ("level", "seed", "cluster") if getattr(args, f) is not None), None)
        if alone is not None:
            msg = f"--{alone} applies with --n-boot B (bootstrap intervals) only"
            raise _UsageError(msg)
        return
    if stores is not None:
        msg = "--n-boot needs the prediction rows: cell stores keep sums only, which cannot be resampled"
        raise _UsageError(msg)
    parse_bootstrap(args.n_boot, **_boot_options(args))  # a level outside (0, 1) is a usage error here


def _boot_options(args: argparse.Namespace) -> dict[str, Any]:
    """``--level``, ``--seed``, ``--cluster`` as ``evaluate`` takes them (its defaults when not given)."""
    return {
        "level": 0.95 if args.level is None else args.level,
        "seed": 0 if args.seed is None else args.seed,
        "cluster": args.cluster,
    }


def _check_html(args: argparse.Namespace) -> None:
    """``--html PATH``: the plot extra is installed and the file can go there, before anything is read."""
    if getattr(args, "html", None) is None:
        return
    _check_named(args.html, "--html")
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
    _check_not_input(args, "--html", args.html)


def _check_named(path: str, flag: str) -> None:
    """An empty output path is not the current directory (pathlib reads '' as '.')."""
    if not path.strip():
        msg = f"{flag} is empty ({path!r}); give a path to write to"
        raise _OutputError(msg)


def _check_not_input(args: argparse.Namespace, flag: str, path: str) -> None:
    """An output never replaces (or writes into) an input: a file, a store, a glob's match."""
    replaced = overwritten_input(path, list(getattr(args, "paths", None) or []))
    if replaced is not None:
        msg = f"{flag} {path!r} would replace or write into the input {replaced!r}; write it somewhere else"
        raise _OutputError(msg)


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
    _check_named(args.output, "-o")
    out = Path(args.output)
    _check_not_input(args, "-o", args.output)
    parent = out.parent
    # a store's folders are made as write_cells makes them (cells/2026-11-30 on the first day)
    if not parent.is_dir() and args.command == "report":
        msg = f"-o {args.output!r}: the directory {str(parent)!r} does not exist"
        raise _OutputError(msg)
    existing = next((p for p in (out, *out.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir() and existing != out:
        msg = f"-o {args.output!r}: {str(existing)!r} is a file, not a directory"
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
