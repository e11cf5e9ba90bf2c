"""Reading cell stores: stores expanded, checked and added up into one :class:`StoredSource`.

Everything in it is a sum, so stores add up: the stores of two days, read
together, give exactly the numbers of both days (rows of the same group are
summed when read). The exemplar operator needs only ``profiles``: how many
examples share each per-example cell profile, which also adds up exactly. On
crisp data a store is tiny (groups x classes rows, plus a handful of profiles
per group); on soft data the profiles hold up to one row per example.

The format is :mod:`aggframe.intake.store_format`, the identity and coverage that keep a
store from being read twice :mod:`aggframe.intake.store_coverage`, writing
:mod:`aggframe.intake.store_write`.
"""

from __future__ import annotations

import glob as globbing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import narwhals as nw
import polars as pl

from aggframe._columns import CLASS, KEY_ALL, TARGET, by_key
from aggframe.exceptions import ColumnNotFoundError, OptionError, StoreError
from aggframe.intake.base import Source
from aggframe.intake.origin import Origin
from aggframe.intake.paths import EMPTY_PATH, broken_link, is_pattern
from aggframe.intake.store_coverage import check_overlaps
from aggframe.intake.store_format import (
    LAYOUT,
    OPTIONS,
    SPARSE_FORMATS,
    STORE_NO_MATCH,
    private_names,
    read_meta,
)
from aggframe.tables.cells import CellTables, add_tables, renamed, rollup_tables, with_groups
from aggframe.wide.tnorms import tnorm_name

__all__ = [
    "StoredSource",
    "expand_stores",
    "read_store",
    "source_meta",
    "stored_source",
    "tables_source",
]


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
    metas = [read_meta(d) for d in dirs]
    check_overlaps(dirs, metas)
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
    names = private_names(first)
    parts = [_store_tables(d, m, names) for d, m in zip(dirs, metas, strict=True)]
    tables = add_tables(parts)
    return tables, first


def _store_tables(path: Path, meta: dict[str, Any], names: dict[str, str]) -> CellTables:
    """One store's tables under private key names (a store of an older format made sparse)."""
    keys = list(names)
    rename = (
        {}
        if meta["format"] in SPARSE_FORMATS or meta["format"] == "aggframe-cells/2"
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
    if meta["format"] not in SPARSE_FORMATS:
        return with_groups(tables)
    universe = pl.scan_parquet(path / "universe.parquet", glob=False)
    return replace(
        tables,
        groups=scan("groups.parquet"),
        universe=universe,
        universe_keys=tuple(meta.get("universe_keys", [])),
    )


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
