"""Cell stores from the façade: what a store keeps, written (held in memory: :mod:`aggframe.cells`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aggframe._options import (
    Engine,
    listify,
)
from aggframe._progress import tracked
from aggframe.facade.base import PredictionsBase
from aggframe.intake.store_write import write_store
from aggframe.intake.stored import source_meta
from aggframe.tables.cells import CellTables


class StoreMethods(PredictionsBase):
    """Write the cell tables to a store (:mod:`aggframe.cells` holds them in memory: ``to_cells``)."""

    @tracked("write_cells")
    def write_cells(
        self, path: str | Any, *, by: str | Sequence[str] | None = None, overwrite: bool = False
    ) -> Any:
        """Write the cell tables (per ``by`` group) to a directory, for :func:`from_cells`.

        The store holds sums only, so stores of different days or shards add
        up exactly when read together. On single-label data it also keeps the
        confusion counts (for the ``multiclass`` operator and the confusion
        matrix; one more grouped query for the long form). An existing cell store
        at ``path`` is refused unless ``overwrite=True`` (then it is replaced); so
        is a file, and a directory that is neither empty nor a store is always
        refused (a :class:`~aggframe.exceptions.StoreError`). Returns the directory path.

        Parameters
        ----------
        path
            The store directory (created; its parent must exist).
        by
            Group columns to keep the cells per (any subset can be evaluated later).
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
            not a store, or one of the inputs.
        ColumnNotFoundError
            A ``by`` column that is not in the data.
        """
        keys = listify(by)
        tables = self._store_tables(keys)
        meta = source_meta(self.source, single_label=self._single_label(keys))
        return write_store(tables, path, by=keys, meta=meta, origin=self.source.origin, overwrite=overwrite)

    def _store_tables(self, by: Sequence[str], *, engine: Engine = "auto") -> CellTables:
        """The cell tables a store (or :class:`~aggframe.Cells`) keeps: with the confusion counts on single-label data."""
        # (a lambda: the label form answers without collecting anything)
        single = self.source.single_label(lambda: self._cell_tables(by, engine=engine).profiles.collect())  # noqa: PLW0108
        wanted = single and not self.source.binary and not self.source.soft and self.form != "cells"
        return self._cell_tables(by, engine=engine, pairs=wanted)
