"""Mergeable cell tables on disk: write them once, evaluate later from them alone.

A cell store is a directory::

    classes.parquet          keys..., class, tp, fp, fn, tn
    profiles.parquet         keys..., tp, fp, fn, tn, n
    block_profiles.parquet   (with targets) per-example cells over all targets
    meta.json                the key columns and roles

The key columns are stored under aggframe's private names (``__af_by0``, ...,
:mod:`aggframe._columns`); ``meta.json`` holds the user's names (``by``,
``target``, ``folds``), so a key may have any name, ``tp`` or ``n`` included.
Stores of the first format (keys under the user's names) are still read.

Everything in it is a sum, so stores add up: the stores of two days, read
together, give exactly the numbers of both days (rows of the same group are
summed when read). The exemplar operator needs only ``profiles``: how many
examples share each per-example cell profile, which also adds up exactly. On
crisp data a store is tiny (groups x classes rows, plus a handful of profiles
per group); on soft data the profiles hold up to one row per example.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import narwhals as nw
import polars as pl

from aggframe._columns import FOLD, KEY_ALL, REPEAT, TARGET, by_key
from aggframe._grains import CellTables
from aggframe.exceptions import OptionError

__all__ = ["FORMAT", "read_store", "write_store"]

FORMAT = "aggframe-cells/2"
#: the first format stored the keys under the user's names
_FORMATS = (FORMAT, "aggframe-cells/1")


def write_store(tables: CellTables, path: str | Path, *, by: Sequence[str], meta: dict[str, Any]) -> Path:
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    tables.classes.drop(KEY_ALL, strict=False).sink_parquet(out / "classes.parquet")
    tables.profiles.drop(KEY_ALL, strict=False).sink_parquet(out / "profiles.parquet")
    if tables.block_profiles is not None:
        tables.block_profiles.drop(KEY_ALL, strict=False).sink_parquet(out / "block_profiles.parquet")
    info = {"format": FORMAT, "by": list(by), **meta}
    (out / "meta.json").write_text(json.dumps(info, indent=1, default=str))
    return out


def _meta(path: Path) -> dict[str, Any]:
    file = path / "meta.json"
    if not file.exists():
        msg = f"{path} is not an aggframe cell store (no meta.json); write one with pr.write_cells(path)"
        raise OptionError(msg)
    info: dict[str, Any] = json.loads(file.read_text())
    if info.get("format") not in _FORMATS:
        msg = f"{path}: unknown cell store format {info.get('format')!r}; expected {FORMAT!r}"
        raise OptionError(msg)
    return info


def read_store(paths: str | Path | Sequence[str | Path]) -> tuple[CellTables, dict[str, Any]]:
    """Lazy scans of one or more stores with the same layout (rows of a group add up)."""
    dirs = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    if not dirs:
        msg = "from_cells needs at least one cell store directory"
        raise OptionError(msg)
    metas = [_meta(d) for d in dirs]
    first = metas[0]
    for d, m in zip(dirs[1:], metas[1:], strict=True):
        if {k: v for k, v in m.items() if k != "pos_label"} != {
            k: v for k, v in first.items() if k != "pos_label"
        }:
            msg = f"cell store {d} has another layout than {dirs[0]}: {m} vs {first}"
            raise OptionError(msg)
    names = _private_names(first)
    keys = list(names)
    renames = [{} if m["format"] == FORMAT else {v: k for k, v in names.items()} for m in metas]

    def scan(name: str) -> pl.LazyFrame:
        lf = pl.concat(
            [pl.scan_parquet(d / name).rename(r) for d, r in zip(dirs, renames, strict=True)],
            how="vertical_relaxed",
        )
        return lf if first["by"] else lf.with_columns(pl.lit(0).alias(KEY_ALL))

    table_keys = keys if first["by"] else [KEY_ALL, *keys]
    block = scan("block_profiles.parquet") if (dirs[0] / "block_profiles.parquet").exists() else None
    tables = CellTables(
        classes=scan("classes.parquet"),
        profiles=scan("profiles.parquet"),
        keys=tuple(table_keys),
        block_profiles=block,
        target=TARGET if first.get("target") else None,
        names=names,
    )
    return tables, first


def _private_names(meta: dict[str, Any]) -> dict[str, str]:
    """The private key columns of a store, in table order, with the user's names."""
    names = {by_key(i): c for i, c in enumerate(meta["by"])}
    if meta.get("target"):
        names[TARGET] = meta["target"]
    folds = list(meta.get("folds", []))
    private_folds = [REPEAT, FOLD] if len(folds) > 1 else [FOLD]
    names.update(dict(zip(private_folds, folds, strict=False)))
    return names


def source_of(tables: CellTables) -> nw.LazyFrame[Any]:
    """The classes table stands in as the 'source' (for column checks)."""
    source = tables.classes.select(pl.col(k).alias(user) for k, user in tables.names.items())
    return nw.from_native(source)
