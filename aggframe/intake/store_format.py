"""The cell store format: what a store directory holds, and whether a directory is a well-formed one.

A cell store is a directory::

    classes.parquet          keys..., class, tp, fp, fn, tn   (the (group, class) pairs that occur)
    groups.parquet           keys..., n_examples, n_classes, n_absent, tp, fp, fn, tn
    universe.parquet         universe keys..., class          (the class universe)
    profiles.parquet         keys..., tp, fp, fn, tn, n
    block_profiles.parquet   (with targets) per-example cells over all targets
    pairs.parquet            (single-label data) the confusion counts: keys..., _yt, _yp, n
    order.parquet            (a declared class universe) its order: [target,] class, _pos
    meta.json                the key columns and roles, the universe's keys, the tables written

A store holds what occurs: a class absent from a group is counted in
``groups.parquet`` (its cells are known: no positives, every example a true
negative), not written out, and the universe is stored once
(:mod:`aggframe.tables.cells`). Stores of the formats before (``aggframe-cells/1``
and ``/2``, which wrote every (group, class) of the universe) are still read:
each group's universe is then the classes written for it.

The key columns are stored under aggframe's private names (``__af_by0``, ...,
:mod:`aggframe._columns`); ``meta.json`` holds the user's names (``by``,
``target``, ``folds``), so a key may have any name, ``tp`` or ``n`` included,
and the options the cells were computed with (:data:`OPTIONS`: the task, the
positive class, the t-norm, the mask, the class universe and whether it was
declared), which :class:`~aggframe.Cells` checks before adding cells. Stores of
the first format (keys under the user's names) are still read. A store is
written onto an existing one only with ``overwrite=True`` (:func:`~aggframe.intake.store_write.write_store`).
Stores read together share one universe: the union of theirs (a class seen in
one store only is absent from the others' groups, as if their rows had been
evaluated together; :func:`~aggframe.tables.cells.add_tables`).

:func:`read_meta` reads and checks ``meta.json`` against the tables (a bad store is a
:class:`~aggframe.exceptions.StoreError` naming it); the error texts are here, for the tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aggframe._columns import FOLD, REPEAT, TARGET, by_key
from aggframe.exceptions import SourceError, StoreError
from aggframe.intake.fingerprint import content_fingerprint
from aggframe.intake.paths import footer_schema
from aggframe.intake.read_errors import engine_read_errors, first_line

__all__ = [
    "FORMAT",
    "FORMATS",
    "LAYOUT",
    "OPTIONS",
    "SPARSE_FORMATS",
    "STORE_BAD_META",
    "STORE_COPY",
    "STORE_EXISTS",
    "STORE_FORMAT",
    "STORE_NO_MATCH",
    "STORE_NO_META",
    "STORE_ON_FILE",
    "STORE_ON_INPUT",
    "STORE_ON_OTHER",
    "STORE_OVERLAP",
    "STORE_TABLE",
    "STORE_TABLE_ADDED",
    "STORE_TABLE_CHANGED",
    "STORE_TABLE_GONE",
    "STORE_TWICE",
    "TABLES",
    "is_store",
    "private_names",
    "read_meta",
    "table_fingerprint",
]

FORMAT = "aggframe-cells/3"


#: the first format stored the keys under the user's names; the first two every (group, class)
FORMATS = (FORMAT, "aggframe-cells/2", "aggframe-cells/1")


#: the formats that store the pairs that occur, the groups and the universe
SPARSE_FORMATS = (FORMAT,)


STORE_NO_META = "{path!r} is not an aggframe cell store (no meta.json); write one with pr.write_cells(path)"


STORE_BAD_META = (
    "cell store {path!r} has a bad meta.json ({reason}); write the store again with pr.write_cells"
)


STORE_TWICE = "cell store {path!r} is given twice; a store's rows are counted once"


STORE_COPY = (
    "cell stores {a!r} and {b!r} are copies of one store (id {id}); reading both would count its rows twice"
)


STORE_OVERLAP = (
    "cell stores {a!r} and {b!r} both cover {what}; reading them together would count those rows twice"
)


STORE_NO_MATCH = "the glob {path!r} matches no cell stores"


STORE_TABLE = "cell store {path!r}: {name} is missing or unreadable ({reason})"


STORE_TABLE_GONE = (
    "cell store {path!r}: {name} is missing (its meta.json records it as written with the store); "
    "write the store again with pr.write_cells"
)


STORE_TABLE_ADDED = (
    "cell store {path!r}: {name} was not written with the store (its meta.json does not record it: "
    "copied in from another store?); remove it or write the store again with pr.write_cells"
)


STORE_TABLE_CHANGED = (
    "cell store {path!r}: {name} is not the table written with the store (it does not match the "
    "fingerprint in its meta.json: copied in from another store, or edited?); write the store again "
    "with pr.write_cells"
)


STORE_FORMAT = (
    "cell store {path!r}: its meta.json says format {format!r}, but it holds (or records) {tables}, which only "
    "{new!r} writes (its class table holds the classes that occur, not every class); the meta.json "
    "does not belong to these tables: write the store again with pr.write_cells"
)


STORE_ON_FILE = (
    "cannot write a cell store to {path!r}: it is a file (a cell store is a directory; "
    "overwrite=True replaces the file)"
)


STORE_EXISTS = "{path!r} is an existing cell store; pass overwrite=True to replace it"


STORE_ON_INPUT = (
    "cannot write a cell store to {path!r}: it would replace or write into {input!r}, which these cells are read "
    "from; write it somewhere else"
)


STORE_ON_OTHER = (
    "cannot write a cell store to {path!r}: it is a directory that is not empty and not a cell store; "
    "pick a new directory"
)


TABLES = (
    "classes.parquet",
    "profiles.parquet",
    "block_profiles.parquet",
    "pairs.parquet",
    "order.parquet",
    "groups.parquet",
    "universe.parquet",
)


#: the tables of the formats before the groups and the universe were stored
_FILLED_TABLES = TABLES[:5]


#: the tables a store may lack (block profiles without targets, the rest for other than single-label data)
_OPTIONAL = ("block_profiles.parquet", "pairs.parquet", "order.parquet")


#: the keys of meta.json that must agree for stores to be read together
LAYOUT = ("by", "target", "folds", "task", "single_label")


#: What cell tables record of their source besides the keys (``meta.json``, and the
#: layout of :class:`~aggframe.Cells`); tables add up only when these agree.
OPTIONS = (
    "task",
    "pos_label",
    "single_label",
    "tnorm",
    "masked",
    "class_universe",
    "universe",
    "stated_task",
)


def read_meta(path: Path) -> dict[str, Any]:
    file = path / "meta.json"
    if not file.exists():
        msg = STORE_NO_META.format(path=str(path))
        raise StoreError(msg)
    try:
        info = json.loads(file.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        msg = STORE_BAD_META.format(path=str(path), reason=first_line(exc))
        raise StoreError(msg) from exc
    if not isinstance(info, dict):
        msg = STORE_BAD_META.format(path=str(path), reason=f"a JSON {type(info).__name__}, not an object")
        raise StoreError(msg)
    if info.get("format") not in FORMATS:
        msg = STORE_BAD_META.format(
            path=str(path), reason=f"unknown format {info.get('format')!r}; expected {FORMAT!r}"
        )
        raise StoreError(msg)
    if not isinstance(info.get("by"), list):
        msg = STORE_BAD_META.format(path=str(path), reason="no list of 'by' columns")
        raise StoreError(msg)
    reason = _bad_record(info)
    if reason is not None:
        msg = STORE_BAD_META.format(path=str(path), reason=reason)
        raise StoreError(msg)
    columns = _check_tables(path, info)
    reason = _bad_layout(columns, info)
    if reason is not None:
        msg = STORE_BAD_META.format(path=str(path), reason=reason)
        raise StoreError(msg)
    return info


def _bad_record(info: dict[str, Any]) -> str | None:
    """What is wrong with meta.json's record of the tables (``tables``: name -> fingerprint), or None."""
    record = info.get("tables")
    if record is None:
        return None
    if not isinstance(record, dict) or not all(
        name in TABLES and isinstance(f, str) for name, f in record.items()
    ):
        return f"'tables' is not a record of the store's tables ({str(record)[:60]})"
    return None


def _bad_layout(columns: dict[str, list[str]], info: dict[str, Any]) -> str | None:  # noqa: PLR0911 -- a dispatch, one return per case
    """What in meta.json does not fit its tables (``columns``: their column names), or None.

    The key columns it names (by, folds and the target, the universe's keys) must be
    lists of names (the target a name) and columns of the class table (the universe's
    keys of the universe table); the coverage record an object whose files are objects:
    read as they were, an edited or damaged file gave raw errors or other numbers.
    """
    by, folds, target = info.get("by"), info.get("folds", []), info.get("target")
    universe_keys = info.get("universe_keys", [])
    for name, value in (("by", by), ("folds", folds), ("universe_keys", universe_keys)):
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            return f"{name!r} is {value!r}, not a list of column names"
    if target is not None and not isinstance(target, str):
        return f"'target' is {target!r}, not a column name"
    if len(folds) > 2:
        return f"'folds' is {folds!r}: a fold column, or a repeat and a fold column"
    # the tables' key columns (private names; formats before 3 kept the user's names)
    names = private_names(info)
    private = info["format"] in SPARSE_FORMATS or info["format"] == "aggframe-cells/2"
    keys = list(names) if private else list(names.values())
    missing = [names.get(c, c) for c in keys if c not in columns["classes.parquet"]]
    if missing:
        return f"it names the key columns {missing!r}, which its tables do not have"
    if info["format"] in SPARSE_FORMATS:
        unknown = [c for c in universe_keys if c not in keys or c not in columns["universe.parquet"]]
        if unknown:
            return f"'universe_keys' names {unknown!r}, which are not key columns of its universe table"
    covers = info.get("covers")
    if covers is not None:
        files = covers.get("files", []) if isinstance(covers, dict) else None
        if (
            not isinstance(covers, dict)
            or not isinstance(files, list)
            or not all(isinstance(f, dict) for f in files)
        ):
            return f"'covers' is not a coverage record ({str(covers)[:60]})"
    return None


def _check_tables(path: Path, info: dict[str, Any]) -> dict[str, list[str]]:
    """Every table of the store readable (its footer) and the tables its meta.json says; their column
    names, by file name.

    The tables must be those of the declared format: the groups and the universe are
    format 3's alone (under an older format's meta.json the classes table would be
    read as every (group, class), its absent classes lost). A store that records its
    tables (``tables``: each one's fingerprint, :func:`table_fingerprint`) must hold
    exactly those, unchanged: a table copied in from another store, edited, removed
    or added was read as if written with the rest (another store's exemplar values).
    """
    sparse = info["format"] in SPARSE_FORMATS
    record = info.get("tables")
    if not sparse:
        newer = [
            n for n in TABLES if n not in _FILLED_TABLES and ((path / n).exists() or n in (record or {}))
        ]
        if newer:
            msg = STORE_FORMAT.format(
                path=str(path), format=info["format"], tables=" and ".join(newer), new=FORMAT
            )
            raise StoreError(msg)
    columns: dict[str, list[str]] = {}
    for name in TABLES if sparse else _FILLED_TABLES:
        table = path / name
        if name in _OPTIONAL and not table.exists():
            if record is not None and name in record:
                msg = STORE_TABLE_GONE.format(path=str(path), name=name)
                raise StoreError(msg)
            continue
        try:
            columns[name] = list(footer_schema(table))
        except engine_read_errors() as exc:
            msg = STORE_TABLE.format(path=str(path), name=name, reason=first_line(exc))
            raise StoreError(msg) from exc
        if record is not None and name not in record:
            msg = STORE_TABLE_ADDED.format(path=str(path), name=name)
            raise StoreError(msg)
        if record is not None and record[name] != table_fingerprint(table):
            msg = STORE_TABLE_CHANGED.format(path=str(path), name=name)
            raise StoreError(msg)
    return columns


def table_fingerprint(path: Path) -> str:
    """A store table's fingerprint: its size and its first and last 64 KiB (all of a small table).

    As a file's (:func:`~aggframe.intake.fingerprint.file_records`), without its path: a
    store may be moved. Reads at most 128 KiB of each table, whatever the store's size
    (so a table over 128 KiB rewritten with other rows of the same size, the same
    first pages and the same footer statistics is not told apart: a copy from another
    store, or a rewrite by another tool, is).
    """
    return content_fingerprint(path, path.stat().st_size)


def private_names(meta: dict[str, Any]) -> dict[str, str]:
    """The private key columns of a store, in table order, with the user's names."""
    names = {by_key(i): c for i, c in enumerate(meta["by"])}
    if meta.get("target") is not None:
        names[TARGET] = meta["target"]
    folds = list(meta.get("folds", []))
    private_folds = [REPEAT, FOLD] if len(folds) > 1 else [FOLD]
    names.update(dict(zip(private_folds, folds, strict=False)))
    return names


def is_store(path: str | Path) -> bool:
    """A directory with a meta.json, or with the cell tables of one (then its meta.json is missing)."""
    p = Path(path)
    try:
        return p.is_dir() and (
            (p / "meta.json").exists()
            or ((p / "classes.parquet").exists() and (p / "profiles.parquet").exists())
        )
    except OSError as exc:  # a folder that cannot be read (permissions): say so, not a traceback
        msg = f"cannot read {str(p)!r}: {exc.strerror or exc}"
        raise SourceError(msg) from exc
