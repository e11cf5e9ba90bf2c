"""Cell stores and :class:`~aggframe.Cells` from the façade: what a store keeps, written or held in memory."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aggframe._options import (
    Engine,
    listify,
    parse_engine,
)
from aggframe._progress import tracked
from aggframe.facade.base import PredictionsBase
from aggframe.intake.cells_value import Cells, cells_of
from aggframe.intake.stored import origin_covers, source_meta, write_store
from aggframe.tables.cells import CellTables


class StoreMethods(PredictionsBase):
    """Write the cell tables to a store, or hold them as :class:`~aggframe.Cells`."""

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

    @tracked("to_cells")
    def to_cells(self, by: str | Sequence[str] | None = None, *, engine: Engine = "auto") -> Cells:
        """The cell tables per ``by`` group as an :class:`~aggframe.Cells` value: small, picklable, adds up.

        ``a + b`` and ``sum([...])`` add cells of different parts of the data
        (days, shards, Spark tasks) exactly; :meth:`Cells.evaluate
        <aggframe.Cells.evaluate>` evaluates them as :meth:`evaluate` would the
        rows. One scan (the cell tables of this grouping are kept); on
        single-label data the confusion counts too, as :meth:`write_cells` keeps them.

        Parameters
        ----------
        by
            Group columns to keep the cells per.
        engine
            ``"auto"``, ``"streaming"`` or ``"in-memory"``.

        Returns
        -------
        Cells
            The collected cell tables.

        Raises
        ------
        ColumnNotFoundError
            A ``by`` column that is not in the data.
        AggframeError
            Bad data found by the checks of the scan.

        Examples
        --------
        >>> import aggframe as af
        >>> a = af.from_labels([0, 1, 1], [0, 1, 0]).to_cells()
        >>> b = af.from_labels([2, 1, 0], [2, 1, 1]).to_cells()
        >>> round((a + b).evaluate("f1", "macro")["value"][0], 4)
        0.7222
        >>> round(af.from_labels([0, 1, 1, 2, 1, 0], [0, 1, 0, 2, 1, 1]).compute("f1", "macro"), 4)
        0.7222
        """
        engine = parse_engine(engine)
        keys = listify(by)
        tables = self._store_tables(keys, engine=engine)
        # whether the examples are single-label, from this grouping's profiles (no second scan)
        single = self.source.single_label(lambda: tables.profiles.collect())  # noqa: PLW0108
        return cells_of(
            tables,
            by=keys,
            layout=source_meta(self.source, single_label=single),
            covers=origin_covers(self.source.origin),
        )
