"""Mergeable cell tables on disk: write them once, evaluate later from them alone.

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
written onto an existing one only with ``overwrite=True`` (:func:`write_store`).
Stores read together share one universe: the union of theirs (a class seen in
one store only is absent from the others' groups, as if their rows had been
evaluated together; :func:`~aggframe.tables.cells.add_tables`).

Everything in it is a sum, so stores add up: the stores of two days, read
together, give exactly the numbers of both days (rows of the same group are
summed when read). The exemplar operator needs only ``profiles``: how many
examples share each per-example cell profile, which also adds up exactly. On
crisp data a store is tiny (groups x classes rows, plus a handful of profiles
per group); on soft data the profiles hold up to one row per example.

Because stores add up, the same rows must not be read twice. ``meta.json``
gives each store an identity and a record of what it covers (next to the layout)::

    {"format": ..., "by": [...], "target": ..., "folds": [...], ...,
     "tables": {"classes.parquet": "<fingerprint>", ...},
     "id": "<uuid4>", "written": "<UTC ISO time>", "aggframe_version": "0.1.0",
     "covers": {"kind": "files", "inputs": [...], "cells": "<sha256 of the cell tables>",
                "files": [{"path", "size", "mtime_ns", "fingerprint"}, ...]}
             | {"kind": "frame", "cells": "<sha256 of the cell tables>"}
             | {"kind": "stores", "stores": [{"id", "path", "covers"}, ...]}}

``tables``: each table written, with a fingerprint of it (its size and its first and
last 64 KiB): a table of the store replaced (copied in from another store), edited,
removed or added is refused on read, as are the tables of format 3 under an older
format's meta.json (stores written before the record keep these unchecked).
``files``: each file's resolved path, size, mtime and a content fingerprint (the
first and last 64 KiB of the file, with its size and the ``key=value`` folders of its
path); a URI
records its name only; and the fingerprint of its cell tables, as a frame's store
records it (the same rows written once from the files and once from a frame read
from them are refused together; two stores of files with identical cell tables are
told apart by their files: :func:`overlap`). ``frame``: an in-memory or engine frame leaves no trace of
its rows, so the store records a fingerprint of its own cell tables; two stores
with identical cell tables are taken as the same frame written twice (two
different frames with exactly the same counts in every group, class and profile
are refused too: write them with a by-key that tells them apart). ``stores``: a
store written from stores covers what they covered. :func:`read_store` refuses a
store given twice (the same directory, or copies with one id) and stores whose
records share a file, a cell fingerprint or an input store, with a
:class:`~aggframe.exceptions.StoreError` naming both stores and what they share.
Stores written before stores had an identity (no ``id``) still read, as of unknown
coverage: only the same directory given twice is caught for them.
"""

from __future__ import annotations

import glob as globbing
import hashlib
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import narwhals as nw
import polars as pl

from aggframe._columns import CLASS, FOLD, KEY_ALL, REPEAT, TARGET, by_key, key_text
from aggframe._version import package_version
from aggframe.exceptions import ColumnNotFoundError, OptionError, SourceError, StoreError
from aggframe.intake.base import Source
from aggframe.intake.fingerprint import content_fingerprint, file_records
from aggframe.intake.origin import FRAME, Origin
from aggframe.intake.paths import EMPTY_PATH, broken_link, footer_schema, is_pattern
from aggframe.intake.read_errors import engine_read_errors, first_line
from aggframe.tables.cells import CellTables, add_tables, renamed, rollup_tables, with_groups
from aggframe.wide.tnorms import tnorm_name

__all__ = [
    "FORMAT",
    "OPTIONS",
    "StoredSource",
    "coverage_keys",
    "expand_stores",
    "is_store",
    "origin_covers",
    "overlap",
    "overwritten_input",
    "prepare_output",
    "read_store",
    "source_meta",
    "stored_source",
    "tables_source",
    "write_store",
]

FORMAT = "aggframe-cells/3"
#: the first format stored the keys under the user's names; the first two every (group, class)
_FORMATS = (FORMAT, "aggframe-cells/2", "aggframe-cells/1")
#: the formats that store the pairs that occur, the groups and the universe
_SPARSE = (FORMAT,)


def write_store(
    tables: CellTables,
    path: str | Path,
    *,
    by: Sequence[str],
    meta: dict[str, Any],
    origin: Origin = FRAME,
    overwrite: bool = False,
    covers: dict[str, Any] | None = None,
) -> Path:
    """Write the (collected) cell tables and meta.json (layout, identity, coverage) to ``path``.

    An existing cell store there is refused unless ``overwrite=True`` (then its
    files are replaced); a file there is refused unless ``overwrite=True`` (then it
    is removed); a directory that is neither empty nor a cell store is always
    refused (nothing of the user's is deleted). Each a :class:`StoreError`.
    ``covers`` replaces the coverage record derived from ``origin``.
    """
    out = Path(path)
    replaced = overwritten_input(out, _input_paths(origin))
    if replaced is not None:
        msg = STORE_ON_INPUT.format(path=str(out), input=replaced)
        raise StoreError(msg)
    prepare_output(out, overwrite=overwrite)
    out.mkdir(parents=True, exist_ok=True)
    tables = with_groups(tables)
    assert tables.groups is not None
    assert tables.universe is not None
    tables.classes.drop(KEY_ALL, strict=False).sink_parquet(out / "classes.parquet")
    tables.groups.drop(KEY_ALL, strict=False).sink_parquet(out / "groups.parquet")
    tables.universe.drop(KEY_ALL, strict=False).sink_parquet(out / "universe.parquet")
    tables.profiles.drop(KEY_ALL, strict=False).sink_parquet(out / "profiles.parquet")
    optional = {
        "block_profiles.parquet": tables.block_profiles,
        "pairs.parquet": tables.pairs,
        "order.parquet": tables.order,
    }
    for name, table in optional.items():
        if table is not None:
            table.drop(KEY_ALL, strict=False).sink_parquet(out / name)
        else:
            # a store written here before must not lend this one its optional tables
            (out / name).unlink(missing_ok=True)
    identity = _identity(tables, origin)
    if covers is not None:
        identity["covers"] = covers
    universe_keys = [c for c in tables.universe_keys if c != KEY_ALL]
    # the tables written, each with a fingerprint: one replaced, removed or added later is refused on read
    written = {name: _table_fingerprint(out / name) for name in TABLES if (out / name).exists()}
    info = {
        "format": FORMAT,
        "by": list(by),
        **meta,
        "universe_keys": universe_keys,
        "tables": written,
        **identity,
    }
    (out / "meta.json").write_text(json.dumps(info, indent=1, default=str))
    return out


def _input_paths(origin: Origin) -> list[str]:
    """The files and stores ``origin`` reads, and the files in-memory cells were made from."""
    if origin.kind not in ("files", "stores"):
        return []
    # the folders given (a dataset of hive partitions) as well as the files they hold
    paths = [f for f in (*origin.inputs, *origin.files) if Path(f).exists()]
    for part in origin.stores:
        covers = part.get("covers") if isinstance(part, dict) else None
        if isinstance(covers, dict) and covers.get("kind") == "files":
            paths += [str(r["path"]) for r in covers.get("files", []) if r.get("path")]
    return paths


def overwritten_input(out: str | Path, inputs: Sequence[str]) -> str | None:
    """The input (a file, a folder or a store, or a glob's match) that writing to ``out`` would
    replace or write into, if any: ``out`` is it, a folder holding it, or a path inside it (a
    report written into a folder of hive partitions, or a store's table, is read back with it)."""
    target = Path(out).resolve()
    for name in inputs:
        matches = globbing.glob(name, recursive=True) if is_pattern(name) else [name]
        for match in matches:
            resolved = Path(match).resolve()
            inside = resolved.is_dir() and resolved in target.parents
            if resolved == target or target in resolved.parents or inside:
                return str(match)
    return None


def prepare_output(out: Path, *, overwrite: bool) -> None:
    """Check where a store goes (see :func:`write_store`) and, with ``overwrite``, clear it."""
    if out.is_file():
        if not overwrite:
            msg = STORE_ON_FILE.format(path=str(out))
            raise StoreError(msg)
        out.unlink()
        return
    if not out.is_dir() or not any(out.iterdir()):
        return
    if not is_store(out):
        msg = STORE_ON_OTHER.format(path=str(out))
        raise StoreError(msg)
    if not overwrite:
        msg = STORE_EXISTS.format(path=str(out))
        raise StoreError(msg)
    for name in (*TABLES, "meta.json"):
        (out / name).unlink(missing_ok=True)


def _meta(path: Path) -> dict[str, Any]:
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
    if info.get("format") not in _FORMATS:
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
    names = _private_names(info)
    private = info["format"] in _SPARSE or info["format"] == "aggframe-cells/2"
    keys = list(names) if private else list(names.values())
    missing = [names.get(c, c) for c in keys if c not in columns["classes.parquet"]]
    if missing:
        return f"it names the key columns {missing!r}, which its tables do not have"
    if info["format"] in _SPARSE:
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


# ---------------------------------------------------------------------------
# Identity and coverage: a store's rows are read once

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


def _check_tables(path: Path, info: dict[str, Any]) -> dict[str, list[str]]:
    """Every table of the store readable (its footer) and the tables its meta.json says; their column
    names, by file name.

    The tables must be those of the declared format: the groups and the universe are
    format 3's alone (under an older format's meta.json the classes table would be
    read as every (group, class), its absent classes lost). A store that records its
    tables (``tables``: each one's fingerprint, :func:`_table_fingerprint`) must hold
    exactly those, unchanged: a table copied in from another store, edited, removed
    or added was read as if written with the rest (another store's exemplar values).
    """
    sparse = info["format"] in _SPARSE
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
        if record is not None and record[name] != _table_fingerprint(table):
            msg = STORE_TABLE_CHANGED.format(path=str(path), name=name)
            raise StoreError(msg)
    return columns


def _table_fingerprint(path: Path) -> str:
    """A store table's fingerprint: its size and its first and last 64 KiB (all of a small table).

    As a file's (:func:`~aggframe.intake.fingerprint.file_records`), without its path: a
    store may be moved. Reads at most 128 KiB of each table, whatever the store's size
    (so a table over 128 KiB rewritten with other rows of the same size, the same
    first pages and the same footer statistics is not told apart: a copy from another
    store, or a rewrite by another tool, is).
    """
    return content_fingerprint(path, path.stat().st_size)


def _cells_fingerprint(tables: CellTables) -> str:
    """sha256 of the cell tables, sorted, as CSV (in memory: they are small and already collected)."""
    digest = hashlib.sha256()
    for lf in (tables.classes, tables.profiles, tables.block_profiles, tables.groups, tables.universe):
        if lf is None:
            continue
        df = lf.drop(KEY_ALL, strict=False).collect()
        df = df.select(key_text(pl.col(c), df.schema[c]).alias(c) for c in sorted(df.columns))
        digest.update(df.sort(df.columns, nulls_last=True).write_csv().encode())
    return digest.hexdigest()


def origin_covers(origin: Origin) -> dict[str, Any] | None:
    """What a source of files or stores covers (its coverage record); None for a frame."""
    if origin.kind == "files":
        return {"kind": "files", "inputs": list(origin.inputs), "files": file_records(origin)}
    if origin.kind == "stores":
        stores = zip(origin.files, origin.stores, strict=True)
        return {
            "kind": "stores",
            "stores": [{"id": m.get("id"), "path": p, "covers": m.get("covers")} for p, m in stores],
        }
    return None


def _identity(tables: CellTables, origin: Origin) -> dict[str, Any]:
    """The store's id, write time, aggframe version and what it covers."""
    covers = origin_covers(origin)
    if covers is None:
        covers = {"kind": "frame", "cells": _cells_fingerprint(tables)}
    elif covers["kind"] == "files":
        # the same rows may also be written from a frame (pl.read_parquet of the same file), whose
        # store knows only its cell tables: a store of files records their fingerprint too
        covers["cells"] = _cells_fingerprint(tables)
    elif covers["kind"] == "stores" and any(entry["covers"] is None for entry in covers["stores"]):
        # cells made in memory from a frame (``to_cells``, then ``Cells.write``) cover what a
        # frame covers: the cell tables' fingerprint, as ``write_cells`` records it (a part's own
        # tables are gone once parts are added up: then the fingerprint of the sum)
        frame = {"kind": "frame", "cells": _cells_fingerprint(tables)}
        covers["stores"] = [
            e if e["covers"] is not None else {**e, "covers": frame} for e in covers["stores"]
        ]
    return {
        "id": str(uuid.uuid4()),
        "written": datetime.now(UTC).isoformat(timespec="seconds"),
        "aggframe_version": package_version(),
        "covers": covers,
    }


def coverage_keys(covers: Any) -> dict[tuple[Any, ...], str]:
    """What a coverage record covers, as keys (two records that share a key overlap), with texts."""
    return _coverage(covers)


def overlap(key: tuple[Any, ...], seen: Mapping[tuple[Any, ...], Any]) -> tuple[Any, ...] | None:
    """The key of ``seen`` that coverage key ``key`` overlaps, if any: the same key, except that
    identical cell tables of two stores of files do not overlap (their files tell them apart),
    while those of a store of files and a store of a frame do (the frame may be those files)."""
    if key[0] == "cells":
        frame, files = ("cells", key[1]), ("cells", key[1], "files")
        wanted = (frame,) if key == files else (frame, files)
        return next((k for k in wanted if k in seen), None)
    return key if key in seen else None


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


def expand_stores(paths: str | Path | Sequence[str | Path]) -> list[Path]:
    """Store directories from paths and quoted globs (``"cells/*"``), in order (a broken link a glob
    matches is a StoreError: it was skipped as not a directory)."""
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    out: list[Path] = []
    for item in items:
        name = str(item)
        if isinstance(item, str) and not item.strip():
            raise StoreError(EMPTY_PATH)
        if is_pattern(name):
            matches = [Path(p) for p in globbing.glob(name, recursive=True)]
            broken = broken_link(matches)
            if broken is not None:  # skipped as not a directory, its cells would be left out
                raise StoreError(broken)
            found = sorted(p for p in matches if p.is_dir())
            if not found:
                msg = STORE_NO_MATCH.format(path=name)
                raise StoreError(msg)
            out.extend(found)
        else:
            out.append(Path(item))
    return out


def _coverage(covers: Any) -> dict[tuple[Any, ...], str]:
    """What a coverage record covers, as keys (shared keys = overlap) with a text for messages."""
    out: dict[tuple[Any, ...], str] = {}
    if not isinstance(covers, dict):
        return out
    kind = covers.get("kind")
    if kind == "files":
        if covers.get("cells") is not None:
            # matched against frames' stores only (see overlap): two stores of files are told
            # apart by their files (the same bytes under two partitions are two days)
            out[("cells", covers["cells"], "files")] = "identical cell tables (the same rows written twice?)"
        for rec in covers.get("files", []):
            what = f"the file {rec.get('path')!r}"
            if rec.get("fingerprint") is not None:
                out[("file", rec["fingerprint"])] = what
            out[("file at", rec.get("path"), rec.get("size"), rec.get("mtime_ns"))] = what
    elif kind == "frame":
        out[("cells", covers.get("cells"))] = "identical cell tables (the same rows written twice?)"
    elif kind == "stores":
        for entry in covers.get("stores", []):
            if entry.get("id"):
                out[("store", entry["id"])] = f"the store {entry.get('path')!r} (id {entry['id']})"
            else:
                out[("store at", entry.get("path"))] = f"the store {entry.get('path')!r}"
            out.update(_coverage(entry.get("covers")))
    return out


def _check_overlaps(dirs: list[Path], metas: list[dict[str, Any]]) -> None:
    """Refuse a store given twice, copies of a store, and stores whose coverage records overlap."""
    seen_dir: set[Path] = set()
    seen_id: dict[str, Path] = {}
    seen: dict[tuple[Any, ...], Path] = {}
    for d, m in zip(dirs, metas, strict=True):
        resolved = d.resolve()
        if resolved in seen_dir:
            msg = STORE_TWICE.format(path=str(d))
            raise StoreError(msg)
        seen_dir.add(resolved)
        ident = m.get("id")
        if ident is not None and ident in seen_id:
            msg = STORE_COPY.format(a=str(seen_id[ident]), b=str(d), id=ident)
            raise StoreError(msg)
        keys = _coverage(m.get("covers"))
        if ident is not None:
            keys[("store", ident)] = f"the store {str(d)!r} (id {ident})"
            seen_id[ident] = d
        keys[("store at", str(resolved))] = f"the store {str(d)!r}"
        for key, what in keys.items():
            shared = overlap(key, seen)
            if shared is not None:
                msg = STORE_OVERLAP.format(a=str(seen[shared]), b=str(d), what=what)
                raise StoreError(msg)
        seen.update(dict.fromkeys(keys, d))


def read_store(paths: str | Path | Sequence[str | Path]) -> tuple[CellTables, dict[str, Any]]:
    """Lazy scans of one or more stores with the same layout (rows of a group add up).

    ``paths``: store directories or quoted globs of them. Several stores are added
    as :func:`~aggframe.tables.cells.add_tables` adds cell tables (one universe:
    the union of theirs); :class:`~aggframe.Cells` checks first that their
    universes may be united. The meta returned is the first store's, with
    ``"origin"``: the :class:`Origin` of all of them.
    """
    dirs = expand_stores(paths)
    if not dirs:
        msg = "from_cells needs at least one cell store directory"
        raise OptionError(msg)
    metas = [_meta(d) for d in dirs]
    _check_overlaps(dirs, metas)
    origin = Origin("stores", tuple(map(str, dirs)), tuple(str(d.resolve()) for d in dirs), tuple(metas))
    first = {**metas[0], "origin": origin}
    for d, m in zip(dirs[1:], metas[1:], strict=True):
        differ = [k for k in LAYOUT if m.get(k) != first.get(k)]
        if differ:
            shown = "; ".join(f"{k} {m.get(k)!r} against {first.get(k)!r}" for k in differ)
            msg = (
                f"cell store {str(d)!r} has another layout than {str(dirs[0])!r} ({shown}); stores add up only "
                "when written with the same by-columns (in the same order), target, folds and task"
            )
            raise StoreError(msg)
    names = _private_names(first)
    parts = [_store_tables(d, m, names) for d, m in zip(dirs, metas, strict=True)]
    tables = add_tables(parts)
    return tables, first


def _store_tables(path: Path, meta: dict[str, Any], names: dict[str, str]) -> CellTables:
    """One store's tables under private key names (a store of an older format made sparse)."""
    keys = list(names)
    rename = (
        {}
        if meta["format"] in _SPARSE or meta["format"] == "aggframe-cells/2"
        else {v: k for k, v in names.items()}
    )

    def scan(name: str) -> pl.LazyFrame:
        lf = pl.scan_parquet(path / name, glob=False).rename(rename)
        return lf if meta["by"] else lf.with_columns(pl.lit(0).alias(KEY_ALL))

    table_keys = keys if meta["by"] else [KEY_ALL, *keys]
    block = scan("block_profiles.parquet") if (path / "block_profiles.parquet").exists() else None
    pairs = scan("pairs.parquet") if (path / "pairs.parquet").exists() else None
    order = pl.scan_parquet(path / "order.parquet", glob=False) if (path / "order.parquet").exists() else None
    tables = CellTables(
        classes=scan("classes.parquet"),
        profiles=scan("profiles.parquet"),
        keys=tuple(table_keys),
        block_profiles=block,
        target=TARGET if meta.get("target") is not None else None,
        names=names,
        pairs=pairs,
        order=order,
    )
    if meta["format"] not in _SPARSE:
        return with_groups(tables)
    universe = pl.scan_parquet(path / "universe.parquet", glob=False)
    return replace(
        tables,
        groups=scan("groups.parquet"),
        universe=universe,
        universe_keys=tuple(meta.get("universe_keys", [])),
    )


def _private_names(meta: dict[str, Any]) -> dict[str, str]:
    """The private key columns of a store, in table order, with the user's names."""
    names = {by_key(i): c for i, c in enumerate(meta["by"])}
    if meta.get("target") is not None:
        names[TARGET] = meta["target"]
    folds = list(meta.get("folds", []))
    private_folds = [REPEAT, FOLD] if len(folds) > 1 else [FOLD]
    names.update(dict(zip(private_folds, folds, strict=False)))
    return names


@dataclass(kw_only=True)
class StoredSource(Source):
    """Predictions from stored cell tables (see :func:`~aggframe.from_cells`): sums only, no rows."""

    form: ClassVar = "cells"

    stored: CellTables = field(repr=False)
    stored_by: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict, repr=False)

    def role_columns(self) -> dict[str, str]:
        return {}

    def class_column(self) -> str:
        return CLASS

    def class_dtype(self) -> pl.DataType:
        return self.stored.classes.collect_schema()[CLASS]

    @property
    def binary(self) -> bool:
        return bool(self.meta.get("single_label")) and self.meta.get("task") == "binary"

    def check_by(self, by: Sequence[str]) -> None:
        missing = [c for c in by if c not in self.stored_by]
        if missing:
            msg = (
                f"by column {missing[0]!r} is not a key of these stored cells; they were written "
                f"with by={list(self.stored_by)!r}, so any subset of those can be evaluated"
            )
            raise ColumnNotFoundError(msg)
        if len(set(by)) != len(by):
            msg = f"by columns repeat a name: {list(by)!r}"
            raise OptionError(msg)

    def tables(self, by: Sequence[str], *, pairs: bool = False) -> CellTables:
        self.check_by(by)
        stored = [by_key(i) for i in range(len(self.stored_by))]
        kept = [by_key(self.stored_by.index(c)) for c in by]
        tables = rollup_tables(self.stored, stored, kept)
        # the requested by-columns take the private names of their position in `by`
        renames = {old: by_key(i) for i, old in enumerate(kept)}
        names = {**self.stored.names, **{by_key(i): c for i, c in enumerate(by)}}
        return renamed(tables, renames, names)

    def single_label(self, profiles: Callable[[], pl.DataFrame]) -> bool:
        return bool(self.meta.get("single_label")) and self.meta.get("task") == "multiclass"

    def store_meta(self) -> dict[str, Any]:
        return {k: self.meta.get(k) for k in ("target", "folds", "task", "pos_label")}


def stored_source(paths: Any) -> StoredSource:
    """A :class:`StoredSource` over one or more stores (rows of a group add up)."""
    tables, meta = read_store(paths)
    return tables_source(tables, meta, meta["origin"])


def tables_source(tables: CellTables, meta: dict[str, Any], origin: Origin) -> StoredSource:
    """A :class:`StoredSource` over cell tables (lazy or collected) and their layout (``meta``)."""
    folds = list(meta.get("folds", []))
    # the key columns under the user's names stand in for the frame (for column checks)
    tables = with_groups(tables)
    assert tables.groups is not None
    frame = nw.from_native(tables.groups.select(pl.col(k).alias(u) for k, u in tables.names.items()))
    pos_label = meta.get("pos_label")
    return StoredSource(
        frame=frame,
        origin=origin,
        fold=folds[-1] if folds else None,
        repeat=folds[0] if len(folds) > 1 else None,
        target=meta.get("target"),
        pos_label=1 if pos_label is None else pos_label,
        class_universe="group" if meta.get("class_universe") == "group" else "global",
        stored=tables,
        stored_by=tuple(meta["by"]),
        meta=meta,
    )


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


def source_meta(source: Source, *, single_label: bool) -> dict[str, Any]:
    """What a store (or an :class:`~aggframe.Cells`) records of a source besides its tables and keys.

    ``task`` (``"long"``, or the label form's ``"multiclass"``/``"binary"``),
    ``pos_label``, ``single_label``, ``soft``, the t-norm's name (``tnorm``, None
    when crisp), ``masked``, ``class_universe`` (``"global"``/``"group"``),
    ``universe`` (``"declared"``: ``classes=``, ``n_classes=``, an Enum column or
    the binary task; ``"observed"``: the classes seen) and the long form's stated
    task (``stated_task``). Stores written before these were recorded give None.
    """
    meta = {**source.store_meta(), "single_label": single_label}
    if isinstance(source, StoredSource):
        return {**meta, **{k: source.meta.get(k) for k in OPTIONS if k not in meta}}
    tnorm = getattr(source, "tnorm", None)
    return {
        **meta,
        "soft": source.soft,
        "tnorm": None if tnorm is None else tnorm_name(tnorm),
        "masked": source.masked,
        "class_universe": source.class_universe,
        "universe": "declared" if source.universe is not None or source.binary else "observed",
        "stated_task": getattr(source, "task", None) if source.form == "long" else None,
    }
