"""Errors of reading: the engine's exceptions at collect time turned into a SourceError.

What only shows when the rows are read (a corrupt page, a CSV row with more
fields than the header, a file deleted after the scan) comes from the engine at
collect time: :func:`reading` wraps those collects and turns the engine's
exception into a :class:`~aggframe.exceptions.SourceError` naming the source and
the engine's first line. Errors aggframe raises itself (the data checks that run
inside the plan) pass through it unchanged.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl

from aggframe._progress import stage
from aggframe.exceptions import AggframeError, SourceError
from aggframe.intake.origin import FRAME, Origin

__all__ = [
    "READ_FAILED",
    "READ_HINTS",
    "bad_file",
    "engine_read_errors",
    "first_line",
    "reading",
    "scanning",
]

# Error texts (tests import them; ``{...}`` are filled in)
READ_FAILED = "could not read {source}: {reason}"
#: what some engine messages of reading mean, in aggframe's words
READ_HINTS = {
    "found more fields than defined": "a CSV row has more fields than the header",
    "No such file or directory": "a file is gone (deleted or moved after the scan?)",
    "FILE_NOT_EXIST": "a file is gone (deleted or moved after the scan?)",
    "File out of specification": "not a valid Parquet file (corrupt or truncated?)",
    "is not a Parquet file": "not a valid Parquet file (corrupt or truncated?)",
    "data type mismatch for column": "the files disagree on a column's type",
    "DATA_TYPE_MISMATCH": "the files disagree on a column's type",
    "extra column in file": "a file has a column the first file lacks",
    "did not find column": "a file lacks a column the first file has",
    "empty CSV": "a CSV file is empty",
}


def engine_read_errors() -> tuple[type[BaseException], ...]:
    """The engines' read errors: Polars, OS and Arrow, and DuckDB's and Spark's once they are loaded
    (a relation over a deleted or corrupt file, a path Spark cannot find), never imported here."""
    kinds: list[type[BaseException]] = [pl.exceptions.PolarsError, pl.exceptions.PanicException, OSError]
    for module, name in (
        ("pyarrow", "ArrowException"),
        ("duckdb", "Error"),
        ("pyspark.errors", "PySparkException"),
        ("py4j.protocol", "Py4JError"),
    ):
        loaded = sys.modules.get(module)
        kind = getattr(loaded, name, None)
        if isinstance(kind, type) and issubclass(kind, BaseException):
            kinds.append(kind)
    return tuple(kinds)


def first_line(exc: BaseException) -> str:
    text = str(exc)
    java = getattr(exc, "java_exception", None)  # Spark classic: the JVM's exception says what failed
    if java is not None:
        try:
            text = _java_text(java)
        except Exception:  # a gateway already gone: the Python side's text
            text = str(exc)
    return _line(text) or type(exc).__name__


def _line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else ""


def _java_text(java: Any) -> str:
    """A JVM exception's own words: the innermost of its chain with a Spark error condition (it names
    the file: ``[FAILED_READ_FILE...] ... reading file file:///x.parquet``), and the root cause when
    that is another (what was wrong with the file). The outer exceptions of a failed read on Spark
    classic are wrappers (``Exception thrown in awaitResult:``, ``Multiple failures (2) in stage
    materialization:``) that say neither."""
    chain: list[Any] = []
    while java is not None and len(chain) < 32:
        chain.append(java)
        java = java.getCause()

    def condition(j: Any) -> Any:
        try:
            return j.getCondition()  # SparkThrowable; any other exception has no such method
        except Exception:
            return None

    named = max((i for i, j in enumerate(chain) if condition(j)), default=0)
    text = _line(str(chain[named].toString()))
    if named < len(chain) - 1:
        text = f"{text} (caused by {_line(str(chain[-1].toString()))})"
    return text


#: Polars' message for a scan whose paths match no file (its internals quoted: the paths' debug form)
_NO_MATCH = re.compile(r"expanded paths were empty \(path expansion input: '(?P<paths>.*)'(?:, glob: \w+)?\)")


def _reason(exc: BaseException) -> str:
    """The engine's first line, with what it means when that is known."""
    line = first_line(exc)
    empty = _NO_MATCH.search(line)
    if empty is not None:
        # the paths of the user's own scan (pl.scan_parquet("missing/*.parquet")), in words
        paths = re.findall(r'inner: "((?:[^"\\]|\\.)*)"', empty.group("paths"))
        shown = ", ".join(repr(p) for p in paths) if paths else "the scan's paths"
        return f"no file matches {shown} (a path or pattern of the scan that finds nothing)"
    hint = next((h for key, h in READ_HINTS.items() if key in line), None)
    return f"{line} ({hint})" if hint else line


#: engine messages about files that disagree with each other, not about one broken file
_BETWEEN_FILES = re.compile(r"mismatch|extra column|schema|DATA_TYPE|disagree", re.IGNORECASE)

_SCANNERS: dict[str, Callable[[str], pl.LazyFrame]] = {
    ".parquet": pl.scan_parquet,
    ".pq": pl.scan_parquet,
    ".csv": pl.scan_csv,
    ".arrow": pl.scan_ipc,
    ".ipc": pl.scan_ipc,
    ".feather": pl.scan_ipc,
}


def bad_file(files: Sequence[str]) -> tuple[str, BaseException] | None:
    """The first of several files that cannot be read on its own, and its error, or None.

    Asked only once a read of them all has failed: first every Parquet file's footer (cheap),
    then each file read whole, one at a time, stopping at the first that fails.
    """
    for name in files:
        if Path(name).suffix.lower() in (".parquet", ".pq"):
            try:
                pl.read_parquet_schema(name)
            except engine_read_errors() as exc:
                return name, exc
    for name in files:
        scan_one = _SCANNERS.get(Path(name).suffix.lower())
        if scan_one is None:
            continue
        try:
            scan_one(name).collect()
        except engine_read_errors() as exc:
            return name, exc
    return None


@contextmanager
def reading(source: Origin | str | None) -> Iterator[None]:
    """Turn the engine's exceptions of reading ``source`` into a :class:`SourceError`.

    Wraps the collects that read the source (the cell tables, the confusion
    counts, the per-example values) and the schema resolution at construction.
    An :class:`AggframeError` raised inside (the data checks that run in the plan)
    passes through unchanged; Polars, Arrow and OS errors become a
    ``SourceError`` naming the source and the first line of the engine's message
    (the engine's exception is its ``__cause__``).

    Examples
    --------
    >>> import polars as pl
    >>> from aggframe.intake.read_errors import reading
    >>> with reading("'broken.parquet'"):
    ...     pl.scan_parquet("broken.parquet").collect()
    Traceback (most recent call last):
    ...
    aggframe.exceptions.SourceError: could not read 'broken.parquet': No such file or directory ...
    """
    try:
        yield
    except AggframeError:
        raise
    except engine_read_errors() as exc:
        text = str(FRAME if source is None else source)
        reason = _reason(exc)
        several = isinstance(source, Origin) and source.kind == "files" and len(source.files) > 1
        # a disagreement between the files (a column's type, a column more) is no one file's fault:
        # each would read alone, and reading every one whole to find that out is not worth it
        if several and isinstance(source, Origin) and not _BETWEEN_FILES.search(reason):
            # which of the files: each read alone (only now, on the way to the error)
            found = bad_file(source.files)
            if found is not None:
                reason = f"the file {found[0]!r}: {_reason(found[1])}"
        msg = READ_FAILED.format(source=text, reason=reason)
        raise SourceError(msg) from exc


@contextmanager
def scanning(source: Origin | None, what: str = "") -> Iterator[None]:
    """:func:`reading`, shown as a stage of ``af.progress()``: ``scanning 'x.parquet'``.

    Cell stores are ``reading and rolling up cell stores ...``; ``what`` is added
    (``" for 200 bootstrap replicates"``). Free when no progress display is active.
    """
    origin = FRAME if source is None else source
    verb = "reading and rolling up" if origin.kind == "stores" else "scanning"
    with stage(f"{verb} {origin}{what}"), reading(source):
        yield
