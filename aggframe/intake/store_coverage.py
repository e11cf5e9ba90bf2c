"""A store's identity and coverage: what rows a store was written from, so that none is read twice.

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

import hashlib
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from aggframe._columns import KEY_ALL, key_text
from aggframe._version import package_version
from aggframe.exceptions import StoreError
from aggframe.intake.fingerprint import file_records
from aggframe.intake.origin import Origin
from aggframe.intake.store_format import STORE_COPY, STORE_OVERLAP, STORE_TWICE
from aggframe.tables.cells import CellTables

__all__ = [
    "check_overlaps",
    "coverage_keys",
    "origin_covers",
    "overlap",
    "store_identity",
]


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


def store_identity(tables: CellTables, origin: Origin) -> dict[str, Any]:
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


def check_overlaps(dirs: list[Path], metas: list[dict[str, Any]]) -> None:
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
