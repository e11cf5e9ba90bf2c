"""Collected cell tables: the value under :class:`~aggframe.Cells`, how it adds up, is read and written.

Everything aggframe evaluates is a function of small *cell tables* (per class
that occurs in a group: ``keys..., class, tp, fp, fn, tn``; per group: its
examples, its classes and how many of them are absent, with the pooled cells; the
class universe; per example profile: ``keys..., tp, fp, fn, tn, n``; on
single-label data the confusion counts ``keys..., _yt, _yp, n``, for the
``multiclass`` operator's weighted kappas), and cell tables add up. A
:class:`CollectedCells` holds them collected (plain Polars ``DataFrame`` objects:
it pickles, so it moves between processes, Spark tasks or a message queue), with
their keys under private names and the user's names beside them, and the options
they were computed with (the form, the task, the t-norm, the class universe,
...). It is bounded by the (group, class) pairs that occur plus the distinct
per-example profiles, never by the number of rows (nor by groups x classes: a
class absent from a group is counted, not written; :mod:`aggframe.tables.cells`).

This module is the data structure and its arithmetic, below the façade: the sum
(``a + b``, ``sum([...])``, :func:`add_all`) refuses cells that do not add up
(other keys, forms or options, declared class universes that differ, the same
cells twice), :meth:`CollectedCells.read` reads cell stores and
:meth:`CollectedCells.write` writes one, and :meth:`CollectedCells.source` is the
stored-cells intake source over the tables. The class users hold,
:class:`aggframe.Cells`, subclasses it above the façade (:mod:`aggframe.cells`)
and evaluates through that source with the one ``Predictions.evaluate``. Every
constructor here builds the class of its inputs, so sums and reads of
:class:`aggframe.Cells` are :class:`aggframe.Cells`.

Class universes that grow. Without a declared universe (``classes=``,
``n_classes=``, an Enum column) the classes are the ones seen, so two parts may
have seen different classes. In the label form a class a part never saw is a
class none of its examples is or is predicted: each of its examples is a true
negative of it. So the sum takes one universe, the union of the parts': in each
part the classes it did not see are absent from its groups (``tp = fp = fn = 0``
and ``tn`` = the group's examples, counted, not written), and every per-example
profile gains one true negative per such class
(:func:`~aggframe.tables.cells.add_tables`). That is exactly what the cells of
all the rows together give. In the long form an absent entry without a
declared universe is an error (the frame would be sparse), so parts whose
classes differ are refused with the same :class:`~aggframe.exceptions.SparseInputError`
as the rows together would be; declare the universe to add them.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import polars as pl

from aggframe._columns import CLASS, KEY_ALL, TARGET, check_result_names, restore
from aggframe._options import Grain
from aggframe._progress import stage, tracked
from aggframe.exceptions import OptionError, StoreError
from aggframe.intake.cells_checks import (
    AGREE,
    UNKNOWN,
    aligned,
    block_keys,
    check_layouts,
    check_targets,
    check_universes,
    one_order,
    sorted_profiles,
    universe_of,
)
from aggframe.intake.origin import Origin
from aggframe.intake.store_coverage import coverage_keys, overlap
from aggframe.intake.store_write import write_store
from aggframe.intake.stored import StoredSource, expand_stores, read_store, tables_source
from aggframe.tables.cells import (
    CellTables,
    add_tables,
    filled_classes,
    grain_columns,
    sorted_table,
    with_groups,
)

__all__ = ["CollectedCells", "add_all", "add_cells", "cells_of", "check_parts"]

_MEMORY = "in-memory cells"

C = TypeVar("C", bound="CollectedCells")


@dataclass(frozen=True, eq=False, repr=False)
class CollectedCells:
    """The cell tables of predictions, collected, with their layout and what they cover.

    The fields are the tables with private key columns (see :mod:`aggframe._columns`);
    :meth:`table` gives them in the user's names. Users hold the subclass
    :class:`aggframe.Cells`, which adds the evaluation.
    """

    #: per class that occurs in a group: private keys..., class, tp, fp, fn, tn
    class_table: pl.DataFrame
    #: per-example cell profiles: private keys..., tp, fp, fn, tn, n (n examples share them)
    profile_table: pl.DataFrame
    #: with a target role: the profiles of the block matrix of all targets (keys without the target)
    block_table: pl.DataFrame | None
    #: the private key columns of the tables (by-keys or the stand-in, target, folds)
    keys: tuple[str, ...]
    #: private key column -> the user's name
    names: Mapping[str, str]
    #: the keys in the user's names and the options: by, target, folds and
    #: :data:`~aggframe.intake.store_format.OPTIONS` (form, task, t-norm, class universe, ...)
    layout: Mapping[str, Any]
    #: what the cells cover, so that the same rows are never added twice: one entry
    #: (``id``, ``path``, ``covers``) per part they were summed from
    parts: tuple[Mapping[str, Any], ...] = field(default=())
    #: single-label data: the confusion counts ``keys..., _yt, _yp, n`` (the multiclass
    #: operator's weighted kappas, the confusion matrix); None where there are none
    pair_table: pl.DataFrame | None = None
    #: a declared class universe's order (``[target,] class, _pos``); None: classes sort by value
    order_table: pl.DataFrame | None = None
    #: per group: n_examples, n_classes, n_absent and the pooled cells (:mod:`aggframe.tables.cells`)
    group_table: pl.DataFrame | None = None
    #: the class universe: universe keys..., class
    universe_table: pl.DataFrame | None = None
    #: the keys the universe is per (the target, the by-keys with ``class_universe="group"``, or none)
    universe_keys: tuple[str, ...] = ()

    # -- what these cells are ---------------------------------------------------------------
    @property
    def by(self) -> tuple[str, ...]:
        """The user's by-columns the cells are kept per (any subset can be evaluated).

        Returns
        -------
        tuple[str, ...]
            The by-columns the cells are kept per (the user's names).
        """
        return tuple(self.layout["by"])

    @property
    def form(self) -> Literal["long", "labels", "cells"]:
        """The form of the predictions: ``labels``, ``long`` or ``cells`` (a store of unknown form).

        Returns
        -------
        str
            ``"long"`` or ``"labels"``: the form the cells came from.
        """
        task = self.layout.get("task")
        if task == "long":
            return "long"
        return "labels" if task in ("multiclass", "binary") else "cells"

    def __repr__(self) -> str:
        block = "" if self.block_table is None else f", block profiles={self.block_table.height}"
        return (
            f"{type(self).__name__}(by={list(self.by)!r}, form={self.form!r}, class rows={self.class_table.height}, "
            f"profiles={self.profile_table.height}{block}, parts={len(self.parts)})"
        )

    def estimated_size(self) -> int:
        """Bytes held by the tables (they grow with the (group, class) pairs that occur and distinct profiles, not rows).

        Returns
        -------
        int
            Bytes of the tables in memory.
        """
        optional = (self.block_table, self.group_table, self.universe_table, self.pair_table)
        frames = [self.class_table, self.profile_table, *(f for f in optional if f is not None)]
        return int(sum(f.estimated_size() for f in frames))

    def tables(self) -> CellTables:
        """The tables as lazy :class:`~aggframe.tables.cells.CellTables` (private keys), for extensions.

        Returns
        -------
        CellTables
            The cell tables, keys under private names.
        """
        return CellTables(
            classes=self.class_table.lazy(),
            profiles=self.profile_table.lazy(),
            keys=self.keys,
            block_profiles=None if self.block_table is None else self.block_table.lazy(),
            target=TARGET if self.layout.get("target") is not None else None,
            names=dict(self.names),
            pairs=None if self.pair_table is None else self.pair_table.lazy(),
            order=None if self.order_table is None else self.order_table.lazy(),
            groups=None if self.group_table is None else self.group_table.lazy(),
            universe=None if self.universe_table is None else self.universe_table.lazy(),
            universe_keys=self.universe_keys,
        )

    def table(self, grain: Grain = "class") -> pl.DataFrame:
        """One table in the user's names, sorted: as :meth:`Predictions.cells <aggframe.Predictions.cells>`.

        ``"class"``: by..., class, tp, fp, fn, tn. ``"pooled"``: by..., tp, fp, fn,
        tn. ``"profiles"``: by..., tp, fp, fn, tn, n.

        Parameters
        ----------
        grain
            ``"class"`` (by..., class, tp, fp, fn, tn), ``"pooled"`` (by..., the summed cells)
            or ``"profiles"`` (by..., tp, fp, fn, tn, n: examples per cell profile).

        Returns
        -------
        pl.DataFrame
            The table with the user's column names.

        Raises
        ------
        UnknownNameError
            An unknown grain.
        """
        columns = grain_columns(grain)
        names = {k: v for k, v in self.names.items() if k != KEY_ALL}
        check_result_names(names.values(), columns, "cells")
        return cast("pl.DataFrame", restore(sorted_table(self.tables(), grain), names))

    def source(self) -> StoredSource:
        """The stored-cells intake source over these tables (what :meth:`evaluate` reads).

        Returns
        -------
        StoredSource
            The stored-cells source :func:`~aggframe.from_cells` wraps.
        """
        origin = Origin(
            "stores",
            inputs=(_MEMORY,),
            files=tuple(str(p.get("path") or _MEMORY) for p in self.parts),
            stores=tuple(dict(p) for p in self.parts),
        )
        return tables_source(self.tables(), {**self.layout, "by": list(self.by)}, origin)

    # -- stores -----------------------------------------------------------------------------
    def write(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write the cells as a cell store (a directory), for :func:`~aggframe.from_cells` or :meth:`read`.

        An existing store at ``path`` is refused unless ``overwrite=True``. The
        store records what the cells cover (the parts they were summed from), so
        reading it together with a store of the same rows is refused. Returns the
        directory.

        Parameters
        ----------
        path
            The store directory to write (created; its parent must exist).
        overwrite
            Replace an existing store at ``path``.

        Returns
        -------
        Path
            The store's directory.

        Raises
        ------
        StoreError
            ``path`` is a store (without ``overwrite``), a file, a non-empty directory that is
            not a store, or an input of these cells.

        Examples
        --------
        >>> import tempfile, aggframe as af
        >>> cells = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1]).to_cells()
        >>> store = cells.write(tempfile.mkdtemp())
        >>> round(af.from_cells(store).compute("f1", "macro"), 4)
        0.5222
        """
        meta = {k: v for k, v in self.layout.items() if k != "by"}
        return write_store(
            self.tables(), path, by=list(self.by), meta=meta, origin=self.source().origin, overwrite=overwrite
        )

    @classmethod
    @tracked("Cells.read")
    def read(cls: type[C], paths: str | Path | Sequence[str | Path]) -> C:
        """The cells of one or more cell stores (directories or quoted globs), added up.

        Each store is read into memory (they are small) and the stores are added
        as ``+`` does: the same stores or overlapping ones are refused, and class
        universes that grew are completed (label form). Stores that do not add up
        (written with other options, universes or key types) are a
        :class:`~aggframe.exceptions.StoreError` naming them.

        Parameters
        ----------
        paths
            A store directory, a glob of stores, or a list of them.

        Returns
        -------
        Cells
            The stores' cells, added up.

        Raises
        ------
        StoreError
            A path that is not a readable store, a store read twice, or stores that share a
            source.
        OptionError
            Stores that do not add up (other by-columns, forms, tasks, ...).

        Examples
        --------
        >>> import tempfile, aggframe as af
        >>> store = af.from_labels([0, 1, 1], [0, 1, 0]).write_cells(tempfile.mkdtemp())
        >>> af.Cells.read(store).table("pooled").rows()
        [(2.0, 1.0, 1.0, 2.0)]
        """
        dirs = expand_stores(paths)
        if not dirs:
            msg = "Cells.read needs at least one cell store directory"
            raise OptionError(msg)
        if len(dirs) > 1:
            # refuses stores given twice or overlapping (named as from_cells names them)
            read_store(dirs)
        with stage(f"reading and rolling up {len(dirs)} cell store(s)"):
            parts = [_read_one(d, cls) for d in dirs]
            try:
                return add_all(parts)
            except StoreError:
                raise
            except OptionError as exc:
                # the stores do not fit together (options, universes, key types): an error of the
                # inputs, named, not of the options of this call
                shown = ", ".join(repr(str(d)) for d in dirs[:3]) + (" and more" if len(dirs) > 3 else "")
                msg = f"cell stores {shown} cannot be read together: {exc}"
                raise StoreError(msg) from exc

    # -- adding up ----------------------------------------------------------------------------
    def __add__(self: C, other: object) -> C:
        if isinstance(other, int) and other == 0:  # sum([...]) starts at 0
            return self
        if not isinstance(other, CollectedCells):
            return NotImplemented
        check_parts(self, other)
        return add_cells(self, other)

    def __radd__(self: C, other: object) -> C:
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented


def cells_of(
    tables: CellTables,
    *,
    by: Sequence[str],
    layout: Mapping[str, Any],
    covers: Mapping[str, Any] | None = None,
    path: str | None = None,
    ident: str | None = None,
    kind: type[C],
) -> C:
    """Collect cell tables into a ``kind`` (one part: a new id, or ``ident``, with ``covers``)."""
    keys = tuple(tables.keys)
    names = {k: tables.names[k] for k in keys if k != KEY_ALL}
    part = {
        "id": ident or str(uuid.uuid4()),
        "path": path,
        "covers": None if covers is None else dict(covers),
    }
    return _collected(tables, layout={**layout, "by": list(by)}, parts=(part,), names=names, kind=kind)


def _collected(
    tables: CellTables,
    *,
    layout: Mapping[str, Any],
    parts: tuple[Mapping[str, Any], ...],
    names: Mapping[str, str],
    kind: type[C],
) -> C:
    """The tables collected in one collect into a ``kind`` (the groups and the universe made if missing)."""
    tables = with_groups(tables)
    optional = {
        "block": tables.block_profiles,
        "pairs": tables.pairs,
        "order": tables.order,
        "groups": tables.groups,
        "universe": tables.universe,
    }
    present = [k for k, v in optional.items() if v is not None]
    got = pl.collect_all([tables.classes, tables.profiles, *(v for v in optional.values() if v is not None)])
    extra = dict(zip(present, got[2:], strict=True))
    return kind(
        class_table=got[0],
        profile_table=got[1],
        block_table=extra.get("block"),
        keys=tuple(tables.keys),
        names=names,
        layout=layout,
        parts=parts,
        pair_table=extra.get("pairs"),
        order_table=extra.get("order"),
        group_table=extra.get("groups"),
        universe_table=extra.get("universe"),
        universe_keys=tuple(tables.universe_keys),
    )


def _read_one(path: Path, kind: type[C]) -> C:
    tables, meta = read_store(path)
    layout = {k: meta.get(k, UNKNOWN) for k in (*AGREE, "single_label") if k != "by"}
    layout["folds"] = list(meta.get("folds") or [])
    return cells_of(
        tables,
        by=list(meta["by"]),
        layout=layout,
        covers=meta.get("covers"),
        path=str(path),
        ident=meta.get("id"),
        kind=kind,
    )


# ---------------------------------------------------------------------------
# Adding cells: checks, then the class universes completed, then sums


def check_parts(a: CollectedCells, b: CollectedCells) -> None:
    """Refuse adding cells that cover the same parts (the same cells twice, or overlapping stores)."""
    seen = coverage_keys({"kind": "stores", "stores": [dict(p) for p in a.parts]})
    for key, what in coverage_keys({"kind": "stores", "stores": [dict(p) for p in b.parts]}).items():
        if overlap(key, seen) is not None:
            shown = (
                "the same cells (pickled copies, or read back from their store)" if "None" in what else what
            )
            msg = (
                f"these cells both cover {shown}: adding them would count those rows twice "
                "(add the cells of each part of the data once)"
            )
            raise StoreError(msg)


def add_cells(a: C, b: CollectedCells) -> C:
    """The cells of the rows of ``a`` and ``b`` together, as ``a``'s class (coverage: :func:`check_parts`)."""
    both: list[CollectedCells] = [a, b]
    return cast("C", add_all(both))


def add_all(items: Sequence[C]) -> C:
    """The cells of the rows of every part together, in one pass (no coverage check: :func:`check_parts`).

    The layouts must agree (:func:`check_layouts`), key and class columns get one
    dtype, a group's targets are the same in every part, and the class universes
    grow to their union (label form, observed universes) or must agree wherever two
    parts have them; then every table is concatenated and summed once
    (:func:`~aggframe.tables.cells.add_tables`).
    """
    if len(items) == 1:
        return items[0]
    kind = type(items[0])
    layout = check_layouts(list(items))
    parts = aligned(same_universe_keys(list(items)))
    first = parts[0]
    ukeys = list(first.universe_keys)
    check_targets(parts)
    grows = layout.get("universe") == "observed" and first.form == "labels" and layout.get("task") != "binary"
    if not grows:
        universes = [universe_of(c).select(*ukeys, CLASS).unique() for c in parts]
        check_universes(first, universes, ukeys, observed=layout.get("universe") == "observed")
    layout["single_label"] = all(c.layout.get("single_label") is True for c in parts)
    order = one_order(parts)
    summed = add_tables([c.tables() for c in parts])
    out = _collected(
        replace(summed, order=None),
        layout=layout,
        parts=tuple(p for c in parts for p in c.parts),
        names=first.names,
        kind=kind,
    )
    keys = list(out.keys)
    return replace(
        out,
        class_table=out.class_table.sort([*keys, CLASS], nulls_last=True),
        profile_table=sorted_profiles(out.profile_table, keys),
        block_table=None if out.block_table is None else sorted_profiles(out.block_table, block_keys(out)),
        group_table=None if out.group_table is None else out.group_table.sort(keys, nulls_last=True),
        pair_table=None
        if out.pair_table is None
        else out.pair_table.sort([*keys, "_yt", "_yp"], nulls_last=True),
        order_table=order,
    )


def same_universe_keys(parts: list[CollectedCells]) -> list[CollectedCells]:
    """Parts whose universes have other keys (an older store among them): filled out, each group its own universe."""
    if all(c.universe_keys == parts[0].universe_keys for c in parts):
        return parts
    out = []
    for c in parts:
        tables = c.tables()
        filled = replace(tables, classes=filled_classes(tables), groups=None, universe=None)
        out.append(_collected(filled, layout=c.layout, parts=c.parts, names=c.names, kind=type(c)))
    return out
