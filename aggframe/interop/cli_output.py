"""What the ``aggframe`` command says and writes: library messages in the CLI's language
(:func:`cli_words`: ``classes=`` becomes ``--classes``), the kinds of failure and their one line
on stderr (exit code 2), the progress on stderr, and the result written as a table, CSV, JSON
or Parquet.
"""

from __future__ import annotations

import ast
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from aggframe._progress import Spinner, is_terminal
from aggframe.exceptions import AggframeError, OptionError, SourceError, UnknownNameError
from aggframe.interop.layout import key_columns, key_labels

__all__ = ["FLAGS", "cli_words"]

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
    "n_boot": "--n-boot",
    "level": "--level",
    "seed": "--seed",
    "cluster": "--cluster",
    "scores": "--scores",
    "score": "--scores",
    "decision": "--decision",
    "threshold": "--threshold",
    "k": "--k",
}
_KEYS = "|".join(sorted(map(re.escape, FLAGS), key=len, reverse=True))
_WORDS: list[tuple[str, Callable[[re.Match[str]], str]]] = [  # patterns compiled on first use (issue 35)
    # the scores' Python advice first (the generic rules below would rewrite half of it)
    (
        (
            r"needs predictions that carry scores: build them with from_scores\(frame, score='<column>', \.\.\.\) "
            r"\(these predictions are in the 'cells' form, without scores\)"
        ),
        lambda m: (
            "needs the prediction rows: a cell store keeps the confusion cells of the decisions only; "
            "report the prediction files with --scores"
        ),
    ),
    (
        r"build them with from_scores\(frame, score='<column>', \.\.\.\)",
        lambda m: (
            "pass --scores COLUMNS (e.g. --scores 'p_*', one probability column per class, with --y-true)"
        ),
    ),
    (r"normalize=True", lambda m: "--normalize"),
    (r",? or tolerance= to accept it", lambda m: ""),
    (r";? ?\(?pass logits=True if the(y| scores) are logits\)?", lambda m: ""),
    (
        r"; pass classes= with the label of each column",
        lambda m: "; pass --classes A,B,... in column order",
    ),
    (r"task=None", lambda m: "--task multiclass"),
    (rf"`({_KEYS})=([^`]*)`", lambda m: f"`{FLAGS[m[1]]} {m[2]}`"),
    (rf"`({_KEYS})`", lambda m: f"`{FLAGS[m[1]]}`"),
    (rf"\(role '({_KEYS})'\)", lambda m: f"({FLAGS[m[1]]})"),
    (rf"(?<![\w.\-'`])({_KEYS})='([\w<> ]*)'", lambda m: f"{FLAGS[m[1]]} {m[2]}"),
    # `classes=3` reads `--classes 3`; a bare `classes=/n_classes=` reads `--classes/--n-classes`
    (rf"(?<![\w.\-'`])({_KEYS})=(?=[\w<\[\"'])", lambda m: f"{FLAGS[m[1]]} "),
    (rf"(?<![\w.\-'`])({_KEYS})=", lambda m: FLAGS[m[1]]),
    (r" when building the predictions", lambda m: ""),
    # Python advice a command-line user cannot follow, as what the command line offers
    (r"pr\.write_cells(\(path\))?", lambda m: "`aggframe cells INPUT... -o DIR`"),
    (r"overwrite=True", lambda m: "--overwrite"),
    (r" \(or af\.tnorms\.hamacher\(gamma\), or a callable T\(a, b\) on expressions\)", lambda m: ""),
    (
        r"cast it to one type in the predictions first",
        lambda m: (
            "give it one type in every store's input (a column of the files, the key=value folders "
            "or the --with values) and write the stores again"
        ),
    ),
    (
        r"rename it first, e\.g\. frame\.rename\(\{('[^']*'|\"[^\"]*\"): ('[^']*'|\"[^\"]*\")\}\)",
        lambda m: _rename_advice(ast.literal_eval(m[1]), ast.literal_eval(m[2])),
    ),
]


def _rename_advice(name: str, new: str) -> str:
    """Where a key column's name comes from on the command line, and how to give it another."""
    return (
        f"the command line cannot rename it: rename the key=value folders {name}=... (e.g. to {new}=...), "
        f"give --with another key ({new}=...), or write the files (or the cell store) with another column name"
    )


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
    >>> cli_words("one declared with classes=/n_classes=, the other the classes seen")
    'one declared with --classes/--n-classes, the other the classes seen'
    >>> cli_words("bad meta.json; write the store again with pr.write_cells")
    'bad meta.json; write the store again with `aggframe cells INPUT... -o DIR`'
    >>> cli_words("an existing cell store; pass overwrite=True to replace it")
    'an existing cell store; pass --overwrite to replace it'
    """
    for pattern, repl in _WORDS:
        message = re.sub(pattern, repl, message)  # compiled on first use, then cached by re
    return message


# ---------------------------------------------------------------------------
# Failures and progress


class _UsageError(Exception):
    """Options that are wrong or do not go together."""


class _OutputError(Exception):
    """Where the result would go is not usable."""


class _Progress:
    """Progress on stderr.

    On a terminal: one line, redrawn every ``interval`` seconds by a background
    thread while the main thread waits on Polars (which releases the GIL): a
    spinner, the stage (``scanning 3 input(s)``, ``evaluating`` ...) and the time
    taken so far; cleared when the job ends (:class:`aggframe._progress.Spinner`,
    the live line of ``af.progress()`` too). Elsewhere (a pipe, a log file) no
    live display. Either way one summary line at the end, unless ``quiet``.
    """

    def __init__(self, text: str, *, quiet: bool = False, stream: Any = None, interval: float = 0.1) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.text = text
        self.quiet = quiet
        self.started = time.perf_counter()
        live = not quiet and is_terminal(self.stream)
        self.spinner = Spinner(self.stream, text, started=self.started, interval=interval) if live else None

    def step(self, stage: str) -> None:
        """Name the stage now running."""
        if self.spinner is not None:
            self.spinner.set(stage)

    def _close(self) -> None:
        if self.spinner is not None:
            self.spinner.stop()
            self.spinner = None

    def done(self, text: str) -> None:
        self._close()
        if not self.quiet:
            took = time.perf_counter() - self.started
            self.stream.write(f"aggframe: {self.text}: {text} in {took:.1f}s\n")

    def failed(self) -> None:
        self._close()


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        # the system's words and the path (not "FileNotFoundError: [Errno 2] ...")
        return exc.strerror if exc.filename is None else f"{exc.strerror} ({str(exc.filename)!r})"
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def _output_error(what: str, path: str, exc: BaseException) -> str:
    """Why an output could not be written, in words: a directory that cannot be made names the
    path asked for (``cannot create the store directory '/proc/x/store': No such file or directory``)."""
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:
        target, failed = Path(path).absolute(), Path(str(exc.filename)).absolute()
        if failed == target or failed in target.parents:
            return f"cannot create the {what} directory {path!r}: {exc.strerror}"
    return f"could not write the {what} {path!r}: {_one_line(exc)}"


def _fail(kind: str, message: str) -> int:
    first = " ".join(message.split())
    sys.stderr.write(f"aggframe: {kind} error: {first}\n")
    return 2


def _library_error(exc: AggframeError) -> int:
    usage = isinstance(exc, (OptionError, UnknownNameError)) and not isinstance(exc, SourceError)
    return _fail("usage" if usage else "input", cli_words(str(exc)))


# ---------------------------------------------------------------------------
# The result


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
        # each key as it is labelled everywhere (a null key "(null)", a rolled-up one "(all)"): Polars
        # prints a null and the string "null" alike
        df = df.with_columns(key_labels(df, key_columns(df)))
        with pl.Config(
            tbl_rows=-1,
            tbl_cols=-1,
            tbl_hide_dataframe_shape=True,
            fmt_str_lengths=40,
            tbl_width_chars=10_000,
        ):
            text = str(df)
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(out).write_text(text)
