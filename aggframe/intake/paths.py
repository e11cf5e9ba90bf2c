"""Paths checked up front: :func:`scan` of files, globs and directories of hive partitions.

A source is one or more paths (files, globs, directories of hive partitions) or a
frame. :func:`scan` checks what is cheap to check before anything is read: a
missing file, a glob without a match, an empty directory or one without Parquet
files, a zero-byte file, a CSV header naming a column twice, a broken symbolic
link, a folder reached twice through links (linked partition folders are
followed), and the Parquet footers of every file (a corrupt file, and files of
one data set whose columns or types differ). Integer and float
widths that differ between files (``Int32`` in one, ``Int64`` in another) are
one data set: the scan reads every file at the widest type. What only shows when
the rows are read is :mod:`aggframe.intake.read_errors`' business.
"""

from __future__ import annotations

import glob as globbing
import os
import re
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import polars as pl

from aggframe._columns import first_repeat
from aggframe.exceptions import OptionError, SourceError
from aggframe.intake.origin import Origin, remember_origin
from aggframe.intake.partitions import hive_pairs, partition_dtype
from aggframe.intake.read_errors import engine_read_errors, first_line, reading

__all__ = [
    "BROKEN_LINK",
    "CSV_IS_PARQUET",
    "CSV_REPEATED",
    "DIRECTORY_EMPTY",
    "DIRECTORY_MIXED",
    "DIRECTORY_NO_PARQUET",
    "EMPTY_PATH",
    "FILE_EMPTY",
    "FILE_NOT_FOUND",
    "FOLDER_TWICE",
    "GLOB_NO_MATCH",
    "HIVE_CLASH",
    "HIVE_KEYS",
    "HIVE_VALUE",
    "NOT_PARQUET",
    "SCHEMA_COLUMNS",
    "SCHEMA_TYPES",
    "UNSUPPORTED",
    "broken_link",
    "footer_schema",
    "is_pattern",
    "scan",
]

# Error texts (tests import them; ``{...}`` are filled in)
FILE_NOT_FOUND = "input file not found: {path!r}"
#: an empty path names the current directory to pathlib (an unset shell variable: ``"$LOG"``)
EMPTY_PATH = "an input path is empty (''); give a file, a glob or a directory ('.' for the current one)"
GLOB_NO_MATCH = "the glob {path!r} matches no files"
DIRECTORY_EMPTY = "the directory {path!r} is empty: it holds no files (zero-byte files are skipped)"
DIRECTORY_NO_PARQUET = (
    "the directory {path!r} holds no Parquet files (found {example!r}); a directory is read as "
    "Parquet (hive partitions); pass CSV files by name or with a glob such as '{path}/*.csv'"
)
DIRECTORY_MIXED = (
    "the directory {path!r} mixes Parquet files with other files (e.g. {example!r}); "
    "pass a glob such as '{path}/**/*.parquet' to read only the Parquet files"
)
FILE_EMPTY = "input file {path!r} is empty (0 bytes)"
CSV_IS_PARQUET = "{path!r} is a Parquet file (it starts with PAR1), not CSV; name it .parquet"
CSV_REPEATED = (
    "the header of {path!r} names column {name!r} twice (the second would be read as "
    "'{name}_duplicated_0', and a role would read the first); rename one of them"
)
BROKEN_LINK = (
    "{path!r} is a broken symbolic link (to {target!r}, which does not exist); its rows would be left out"
)
FOLDER_TWICE = (
    "the folder {path!r} is {first!r} again (through a symbolic link, or a link loop); its files would "
    "be read twice; give each folder once"
)
NOT_PARQUET = "{path!r} is not a readable Parquet file: {reason}"
SCHEMA_COLUMNS = (
    "{path!r} {what} {columns} that {first!r} {other}; the files of one data set need the same columns"
)
SCHEMA_TYPES = (
    "column {column!r} is {a} in {first!r} but {b} in {path!r}; the files of one data set need one "
    "type per column (integer and float widths may differ); cast the files to one type"
)
UNSUPPORTED = (
    "unsupported or mixed input formats {kinds} in {paths}; expected .parquet files (or directories) or .csv"
)


def _has_glob(name: str) -> bool:
    return any(ch in name for ch in "*?[")


def is_pattern(name: str) -> bool:
    """A glob to expand: wildcards in a path that does not exist as written (a file named
    ``run[1].parquet`` is that file, not a pattern matching ``run1.parquet``)."""
    return _has_glob(name) and not os.path.lexists(name)


def _is_remote(name: str) -> bool:
    """A URI (``s3://``, ``gs://``, ``https://``, ...): left to the engine, not checked here."""
    return re.match(r"^[A-Za-z][A-Za-z0-9+.\-]+://", name) is not None and not name.startswith("file://")


def _unreadable(exc: OSError) -> None:
    msg = f"cannot read the folder {exc.filename!r}: {exc.strerror or exc}; its files would be left out"
    raise SourceError(msg) from exc


def broken_link(paths: Iterable[Path]) -> str | None:
    """The message for the first symbolic link among ``paths`` whose target is gone (``glob`` and
    ``is_file``/``is_dir`` skip it, and its rows with it), or None."""
    broken = next((p for p in paths if p.is_symlink() and not p.exists()), None)
    return None if broken is None else BROKEN_LINK.format(path=str(broken), target=os.readlink(broken))


def _walk(root: Path) -> Iterator[Path]:
    """The files under ``root``, through linked folders too (a partition folder may be a link).

    A folder that cannot be listed, a broken link and a folder reached twice (two links to
    it, or a link loop) are a SourceError: ``os.walk`` without ``followlinks``, ``rglob``
    and ``glob`` skip the first two, and the rows under them would be left out of the
    result without a word; a loop would be walked forever.
    """
    seen: dict[str, str] = {}
    for folder, _, names in os.walk(root, onerror=_unreadable, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            msg = FOLDER_TWICE.format(path=folder, first=seen[real])
            raise SourceError(msg)
        seen[real] = folder
        for name in names:
            path = Path(folder) / name
            if path.is_file():
                yield path
            elif (broken := broken_link([path])) is not None:
                raise SourceError(broken)


def _glob_root(name: str) -> Path:
    """The folder a glob starts from (its path before the first component with a wildcard)."""
    parts = Path(name).parts
    first = next(i for i, part in enumerate(parts) if _has_glob(part))
    return Path(*parts[:first]) if first else Path()


def _expand(name: str) -> list[Path]:
    """The files a path, glob or directory stands for (as Polars expands them), or a SourceError."""
    path = Path(name)
    if is_pattern(name):
        if "**" in name:
            # a recursive glob skips the folders it cannot list (and follows a link loop until the
            # path is too long): walk them first to say so
            root = _glob_root(name)
            if root.is_dir():
                for _ in _walk(root):
                    pass
        matches = [Path(p) for p in globbing.glob(name, recursive=True, include_hidden=True)]
        broken = broken_link(matches)
        if broken is not None:
            raise SourceError(broken)
        found = sorted(p for p in matches if p.is_file())
        if not found:
            msg = GLOB_NO_MATCH.format(path=name)
            raise SourceError(msg)
        # Polars skips zero-byte files in a Parquet glob (e.g. _SUCCESS markers); in CSV it fails
        nonempty = [p for p in found if p.suffix.lower() == ".csv" or p.stat().st_size > 0]
        if not nonempty:
            msg = f"{GLOB_NO_MATCH.format(path=name)} but zero-byte ones ({str(found[0])!r})"
            raise SourceError(msg)
        return nonempty
    if path.is_dir():
        files = sorted(p for p in _walk(path) if p.stat().st_size > 0)
        if not files:
            msg = DIRECTORY_EMPTY.format(path=name)
            raise SourceError(msg)
        parquet = [p for p in files if p.suffix.lower() == ".parquet"]
        if not parquet:
            msg = DIRECTORY_NO_PARQUET.format(path=name, example=str(files[0]))
            raise SourceError(msg)
        if len(parquet) != len(files):
            other = next(p for p in files if p.suffix.lower() != ".parquet")
            msg = DIRECTORY_MIXED.format(path=name, example=str(other))
            raise SourceError(msg)
        return files
    if not path.exists():
        msg = FILE_NOT_FOUND.format(path=name)
        raise SourceError(msg)
    return [path]


def _kind(name: str, files: list[Path]) -> str:
    if Path(name).is_dir():
        return ".parquet"
    kinds = {p.suffix.lower() for p in files}
    return kinds.pop() if len(kinds) == 1 else "mixed"


_SIGNED = (pl.Int8, pl.Int16, pl.Int32, pl.Int64)
_UNSIGNED = (pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64)
_FLOATS = (pl.Float32, pl.Float64)


def _widest(dtypes: set[pl.DataType]) -> pl.DataType | None:
    """The type the files' widths of one column are read at, or None when there is none.

    Integers: the widest (signed and unsigned: a signed type wide enough for both; none
    for UInt64 next to a signed type). Floats: the widest. Integers next to floats:
    Float64 (exact for integers up to 2**53, e.g. 0/1 indicators written either way).
    """
    if all(d in _SIGNED or d in _UNSIGNED for d in dtypes):
        signed = max((_SIGNED.index(d) for d in dtypes if d in _SIGNED), default=-1)
        unsigned = max((_UNSIGNED.index(d) for d in dtypes if d in _UNSIGNED), default=-1)
        if signed < 0:
            return _UNSIGNED[unsigned]()
        if unsigned < 0:
            return _SIGNED[signed]()
        # an unsigned width fits a signed type one step wider
        step = max(signed, unsigned + 1)
        return _SIGNED[step]() if step < len(_SIGNED) else None
    if all(d in _FLOATS or d in _SIGNED or d in _UNSIGNED for d in dtypes):
        # integers next to floats are read as Float64 (0/1 indicators written either way)
        return pl.Float32() if all(d == pl.Float32 for d in dtypes) else pl.Float64()
    return None


def footer_schema(path: str | Path) -> pl.Schema:
    """The schema in a Parquet file's footer, read from that file (no glob: ``run[1].parquet``)."""
    return pl.scan_parquet(path, glob=False).collect_schema()


def _parquet_schema(files: list[Path]) -> pl.Schema | None:
    """Read every footer; the unified schema if the files' widths differ, None if they agree."""
    schemas: list[pl.Schema] = []
    for path in files:
        try:
            schemas.append(footer_schema(path))
        except engine_read_errors() as exc:
            msg = NOT_PARQUET.format(path=str(path), reason=first_line(exc))
            raise SourceError(msg) from exc
    first, base = str(files[0]), schemas[0]
    for path, schema in zip(files[1:], schemas[1:], strict=True):
        extra = [c for c in schema if c not in base]
        missing = [c for c in base if c not in schema]
        for what, verb, cols in (("has column(s)", "lacks", extra), ("lacks column(s)", "has", missing)):
            if cols:
                shown = ", ".join(repr(c) for c in cols[:5])
                msg = SCHEMA_COLUMNS.format(path=str(path), what=what, columns=shown, first=first, other=verb)
                raise SourceError(msg)
    if all(s == base for s in schemas[1:]):
        return None
    unified: dict[str, pl.DataType] = {}
    for column, dtype in base.items():
        seen = {s[column] for s in schemas}
        if len(seen) == 1:
            unified[column] = dtype
            continue
        wide = _widest(seen)
        if wide is None:
            other = next(i for i, s in enumerate(schemas) if s[column] != dtype)
            msg = SCHEMA_TYPES.format(
                column=column, a=dtype, first=first, b=schemas[other][column], path=str(files[other])
            )
            raise SourceError(msg)
        unified[column] = wide
    return pl.Schema(unified)


def _scan_parquet(
    names: list[str],
    schema: pl.Schema | None,
    *,
    hive: bool | None = None,
    hive_schema: dict[str, pl.DataType] | None = None,
    glob: bool = False,
) -> pl.LazyFrame:
    """A Polars scan of ``names``: the files (or the one directory) :func:`scan` expanded, so
    Polars expands no pattern again (``run[1].parquet`` is that file), unless ``glob`` (URIs)."""
    if schema is None:
        return pl.scan_parquet(names, hive_partitioning=hive, hive_schema=hive_schema, glob=glob)
    with warnings.catch_warnings():
        # schema= and cast_options= are marked unstable in Polars 2.x
        warnings.simplefilter("ignore", pl.exceptions.UnstableWarning)
        cast = pl.ScanCastOptions(integer_cast=["upcast", "allow-float"], float_cast="upcast")
        return pl.scan_parquet(
            names,
            hive_partitioning=hive,
            hive_schema=hive_schema,
            schema=schema,
            cast_options=cast,
            glob=glob,
        )


HIVE_KEYS = (
    "the hive partition keys of {path!r} ({keys}) differ from those of {first!r} ({first_keys}); "
    "the files of one data set need the same key=value folders"
)
HIVE_VALUE = (
    "the folder {folder!r} of {path!r} holds '=' in its value, which a hive partition writes as %3D "
    "({quoted!r}); rename the folder"
)
HIVE_CLASH = (
    "column {column!r} is both a column of {path!r} and a hive partition key of its path "
    "({column}=...); rename the column or the folder"
)


def _scan_hive(files: list[Path], schema: pl.Schema | None, root: Path | None = None) -> pl.LazyFrame:
    """Parquet files with every ``key=value`` folder of their paths (as given) as a typed column.

    With ``root`` (the one directory given, read without ``hive=``), the folders below it
    only, as Polars reads a directory: typed and checked the same way (Polars' own typing
    read ``shard=09`` and ``shard=9`` as one key, and a key named like a column of the
    files replaced the column).
    """
    pairs = [hive_pairs(f if root is None else f.relative_to(root)) for f in files]
    for path, kv in zip(files, pairs, strict=True):
        for key, value in kv:
            if "=" in value:
                # Polars reads no partition from such a folder: refuse it by name, not by a height mismatch
                msg = HIVE_VALUE.format(
                    folder=f"{key}={value}", path=str(path), quoted=f"{key}={value.replace('=', '%3D')}"
                )
                raise SourceError(msg)
    keys = [k for k, _ in pairs[0]]
    for path, kv in zip(files[1:], pairs[1:], strict=True):
        if [k for k, _ in kv] != keys:
            msg = HIVE_KEYS.format(
                path=str(path),
                keys=[k for k, _ in kv] or "none",
                first=str(files[0]),
                first_keys=keys or "none",
            )
            raise SourceError(msg)
    if not keys:
        return _scan_parquet([str(f) for f in files], schema, hive=False)
    # a directory: Polars reads the keys below it
    given = [str(f) for f in files] if root is None else [str(root)]
    if len(set(keys)) != len(keys):
        msg = f"the path {str(files[0])!r} repeats a hive partition key ({keys}); each key=value folder once"
        raise SourceError(msg)
    columns = schema if schema is not None else footer_schema(files[0])
    for key in keys:
        if key in columns:
            raise SourceError(HIVE_CLASH.format(column=key, path=str(files[0])))
    hive_schema = {k: partition_dtype([unquote(kv[i][1]) for kv in pairs]) for i, k in enumerate(keys)}
    return _scan_parquet(given, schema, hive=True, hive_schema=hive_schema)


def _check_csv_header(path: Path) -> None:
    """Refuse a CSV header that names a column twice: Polars renames the second one
    (``y_pred_duplicated_0``), so a role would read the first without a word. A Parquet
    file named ``.csv`` is refused too (its header was bytes of the file, shown as column names)."""
    with path.open("rb") as fh:
        if fh.read(4) == b"PAR1":
            msg = CSV_IS_PARQUET.format(path=str(path))
            raise SourceError(msg)
    with reading(repr(str(path))):
        header = pl.read_csv(
            path, has_header=False, n_rows=1, infer_schema=False, truncate_ragged_lines=True, glob=False
        )
    # unnamed columns (trailing commas) are read as None: not names
    repeated = first_repeat(name for name in (header.row(0) if header.height else ()) if name is not None)
    if repeated is not None:
        msg = CSV_REPEATED.format(path=str(path), name=repeated)
        raise SourceError(msg)


def _check_read_once(names: Sequence[str], expanded: dict[str, list[Path]]) -> None:
    """Refuse a file that two inputs reach (the same path twice, a glob and a file of it, a folder
    and one of its partitions): its rows would count twice."""
    seen: dict[Path, str] = {}
    for name in names:
        for f in expanded[name]:
            key = f.resolve()
            if key in seen:
                msg = (
                    f"the file {str(f)!r} is read twice, through {seen[key]!r} and {name!r}: its rows would "
                    "count twice; give each file once"
                )
                raise SourceError(msg)
            seen[key] = name


def scan(paths: Any, *, hive: bool | None = None) -> pl.LazyFrame:
    """A lazy scan of prediction files: a path, a glob, a directory or a list of them.

    Parquet (``.parquet``; one directory of hive partitions ``key=value/`` gives the
    keys below it as columns) or CSV (``.csv``). With ``hive=True`` every
    ``key=value`` folder of each Parquet file's path *as given* becomes a column,
    the folders of the path you passed included: ``data/day=2026-11-30`` (a
    directory, a file in it, or a glob under it) gives a ``day`` column. Either way a
    key is typed ``Int64`` when every value is a plain integer (no sign but ``-``, no
    leading zero: ``01234`` stays text, and ``-0`` too), ``Date`` when every value is
    an ISO date (``2026-11-30``), and ``String`` otherwise (:func:`partition_dtype`); a
    key that is also a column of the files, or files whose paths have different keys,
    are a :class:`~aggframe.exceptions.SourceError`. Nothing is read until evaluation, which
    streams the files with bounded memory. What is cheap is checked now, with a
    :class:`~aggframe.exceptions.SourceError` naming the path: a missing file, a
    glob without a match, an empty directory or one without Parquet files, a
    zero-byte file, a CSV header naming a column twice, a broken symbolic link, a
    folder reached twice through links
    (a partition folder may be a link: it is followed), and the footer of every
    Parquet file (a corrupt file; files
    whose columns or column types differ). Files whose integer or float widths
    differ (``Int32`` and ``Int64``) are read at the widest type.

    Parameters
    ----------
    paths
        A path (``str`` or ``Path``), a glob, a directory, or a list of them.
    hive
        ``True``: every ``key=value`` folder of each Parquet path as given is a column.
        Default: the partitions below one directory given alone.

    Returns
    -------
    pl.LazyFrame
        The scan, not yet read.

    Raises
    ------
    SourceError
        A path that cannot be read as described above, naming it.
    OptionError
        No path at all.

    Examples
    --------
    >>> import tempfile, pathlib, polars as pl, aggframe as af
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> pl.DataFrame({"y_true": [0, 1]}, schema={"y_true": pl.Int32}).write_parquet(folder / "a.parquet")
    >>> pl.DataFrame({"y_true": [1, 1]}, schema={"y_true": pl.Int64}).write_parquet(folder / "b.parquet")
    >>> af.scan(folder).collect()["y_true"].to_list()
    [0, 1, 1, 1]
    >>> af.scan(folder / "*.csv")
    Traceback (most recent call last):
    ...
    aggframe.exceptions.SourceError: the glob '...*.csv' matches no files
    """
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if not items:
        msg = "Expected at least one input path"
        raise OptionError(msg)
    if any(isinstance(p, str) and not p.strip() for p in items):
        raise SourceError(EMPTY_PATH)
    names = [str(p) for p in items]
    remote = [name for name in names if _is_remote(name)]
    expanded = {name: _expand(name) for name in names if name not in remote}
    kinds = {_kind(name, files) for name, files in expanded.items()}
    kinds |= {".csv" if name.lower().endswith(".csv") else ".parquet" for name in remote}
    files = [f for name in names if name not in remote for f in expanded[name]]
    _check_read_once([name for name in names if name not in remote], expanded)
    if kinds not in ({".parquet"}, {".csv"}):
        msg = UNSUPPORTED.format(kinds=sorted(kinds), paths=names)
        raise SourceError(msg)
    for name in expanded:
        if not is_pattern(name) and not Path(name).is_dir() and Path(name).stat().st_size == 0:
            msg = FILE_EMPTY.format(path=name)
            raise SourceError(msg)
    origin = Origin("files", inputs=tuple(names), files=(*(str(f.resolve()) for f in files), *remote))
    if kinds == {".parquet"} and hive and files and not remote:
        lf = _scan_hive(files, _parquet_schema(files))
    elif kinds == {".parquet"} and hive is None and len(names) == 1 and files and Path(names[0]).is_dir():
        # Polars reads the key=value folders below a directory: typed and checked as with hive=True
        lf = _scan_hive(files, _parquet_schema(files), root=Path(names[0]))
    elif kinds == {".parquet"}:
        # remote files keep the engine's own checks (their footers are not read here)
        given = names if remote else [str(f) for f in files]
        lf = _scan_parquet(
            given, _parquet_schema(files) if files and not remote else None, hive=hive, glob=bool(remote)
        )
    else:
        for f in files:
            if f.stat().st_size == 0:
                msg = FILE_EMPTY.format(path=str(f))
                raise SourceError(msg)
            _check_csv_header(f)
        lf = pl.scan_csv(names if remote else [str(f) for f in files], glob=bool(remote))
    remember_origin(lf, origin)
    return lf
