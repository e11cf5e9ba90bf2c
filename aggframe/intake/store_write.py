"""Writing a cell store: where it may go (never over its own input, never over what is not a store) and
the tables with their meta.json.
"""

from __future__ import annotations

import glob as globbing
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aggframe._columns import KEY_ALL
from aggframe.exceptions import StoreError
from aggframe.intake.origin import FRAME, Origin
from aggframe.intake.paths import is_pattern
from aggframe.intake.store_coverage import store_identity
from aggframe.intake.store_format import (
    FORMAT,
    STORE_EXISTS,
    STORE_ON_FILE,
    STORE_ON_INPUT,
    STORE_ON_OTHER,
    TABLES,
    is_store,
    table_fingerprint,
)
from aggframe.tables.cells import CellTables, with_groups

__all__ = [
    "overwritten_input",
    "prepare_output",
    "write_store",
]


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
    identity = store_identity(tables, origin)
    if covers is not None:
        identity["covers"] = covers
    universe_keys = [c for c in tables.universe_keys if c != KEY_ALL]
    # the tables written, each with a fingerprint: one replaced, removed or added later is refused on read
    written = {name: table_fingerprint(out / name) for name in TABLES if (out / name).exists()}
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
