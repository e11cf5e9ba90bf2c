"""Per-class and per-entry values in the façade: ``parts``, ``per_class`` and its private-keyed table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import polars as pl

from aggframe._columns import (
    CELLS,
    CLASS,
    EXAMPLE,
    KEY_ALL,
    check_result_names,
    restore,
)
from aggframe._options import (
    ReportOperator,
    listify,
    parse_operator,
    parse_report_operator,
    unique_in_order,
)
from aggframe.exceptions import OptionError
from aggframe.facade.base import PredictionsBase, class_subset
from aggframe.intake.read_errors import scanning
from aggframe.intake.stored import StoredSource
from aggframe.measures.measure import Measure, MeasureLike
from aggframe.measures.registry import get_measure, list_measures
from aggframe.operators.classes import (
    check_binary_subset,
    class_list,
    class_table,
    class_values,
    example_values,
    subset_tables,
)
from aggframe.tables.cells import CellTables

#: The columns of :meth:`Predictions.per_class` after the keys.
PER_CLASS_COLUMNS = (CLASS, "measure", "value", "defined", "support", *CELLS)


class PartsMethods(PredictionsBase):
    """The entries an operator averages, and the per-class values with their cells."""

    def parts(
        self,
        measure: MeasureLike,
        operator: ReportOperator = "macro",
        *,
        by: str | Sequence[str] | None = None,
    ) -> pl.DataFrame:
        """Per-class (macro/weighted) or per-example (exemplar, not from stored cells) values.

        Undefined entries have a null ``value`` and ``defined = False``.

        Parameters
        ----------
        measure
            A measure name, alias or :class:`~aggframe.Measure`.
        operator
            ``"macro"`` or ``"weighted"`` (per-class values) or ``"exemplar"`` (per-example).
        by
            Group columns.

        Returns
        -------
        pl.DataFrame
            by..., the class (or example), ``value``, ``defined`` and the entry's weight.

        Raises
        ------
        OptionError
            ``micro`` or ``multiclass`` (one pooled value: no parts), or ``exemplar`` on stored
            cells (they keep profiles, not examples).
        UnknownNameError
            An unknown measure or operator.
        """
        if parse_report_operator(operator) == "multiclass":
            msg = (
                "the multiclass operator gives one whole-matrix value per group; it has no parts "
                "(its input is pr.confusion_matrix())"
            )
            raise OptionError(msg)
        meas = get_measure(measure)
        op = parse_operator(operator)
        by_cols = listify(by)
        tables = self._cell_tables(by_cols)
        if op in ("macro", "weighted"):
            out = class_values(tables, meas).collect()
        elif op == "exemplar":
            with scanning(self.source.origin):
                cells, keys = self.source.example_cells(by_cols, tables)
                out = example_values(cells, keys, EXAMPLE, meas).collect()
        else:
            msg = "the micro operator pools all entries into one value; it has no parts"
            raise OptionError(msg)
        shown = {EXAMPLE: self.source.roles().get(EXAMPLE, "row")}
        if EXAMPLE in out.columns:
            # the example column keeps the user's name: it may not be one of the value columns
            check_result_names(
                [shown[EXAMPLE]], [c for c in out.columns if c not in (*tables.keys, EXAMPLE)], "parts"
            )
        columns = [shown.get(c, c) for c in out.columns if c not in tables.keys]
        return cast("pl.DataFrame", restore(out, {**self._key_names(tables, columns, "parts"), **shown}))

    def per_class(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = None,
        *,
        by: str | Sequence[str] | None = None,
        classes: Sequence[Any] | None = None,
        labels: Sequence[Any] | None = None,
    ) -> pl.DataFrame:
        """Per-class values of any measures, with support: scikit-learn's ``average=None``.

        One tidy frame: by..., class, measure, value (null where undefined),
        defined, support (``tp + fn``), tp, fp, fn, tn. The counts are Int64
        on crisp data and Float64 on soft data (:attr:`crisp`).

        Parameters
        ----------
        measures
            Measure names or :class:`~aggframe.Measure` objects (default: every built-in).
        by
            Group columns.
        classes, labels
            A subset of classes (``labels`` is scikit-learn's name for it).

        Returns
        -------
        pl.DataFrame
            The per-class rows described above.

        Raises
        ------
        OptionError
            ``measures=[]``, or a class subset with a null class.
        UnknownNameError
            An unknown measure.

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels([0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0])
        >>> pr.per_class("precision").select("class", "value", "support")
        shape: (3, 3)
        ┌───────┬──────────┬─────────┐
        │ class ┆ value    ┆ support │
        │ ---   ┆ ---      ┆ ---     │
        │ i64   ┆ f64      ┆ i64     │
        ╞═══════╪══════════╪═════════╡
        │ 0     ┆ 0.5      ┆ 2       │
        │ 1     ┆ 0.666667 ┆ 2       │
        │ 2     ┆ 1.0      ┆ 3       │
        └───────┴──────────┴─────────┘
        """
        names = listify(measures, scalar=(str, Measure))
        if measures is not None and not names:
            msg = "measures=[] names none; leave measures out (None) for every measure"
            raise OptionError(msg)
        names = names or list_measures()
        ms = unique_in_order(get_measure(m) for m in names)
        tables = self._cell_tables(by)
        out = self._per_class_table(tables, ms, class_subset(classes, labels)).collect()
        if self.crisp:
            out = out.with_columns(pl.col("support", *CELLS).round().cast(pl.Int64))
        return cast("pl.DataFrame", restore(out, self._key_names(tables, PER_CLASS_COLUMNS, "per_class")))

    @property
    def crisp(self) -> bool:
        """Whether every cell is a count (no t-norm): per-class counts are then integers.

        Stored cells are crisp when their store says so (stores written before it
        did are taken as possibly soft).

        Returns
        -------
        bool
            ``True`` when the cells are counts.
        """
        if self.source.soft:
            return False
        if isinstance(self.source, StoredSource):
            return self.source.meta.get("soft") is False
        return True

    def _per_class_table(
        self, tables: CellTables, measures: Sequence[Measure], classes: Sequence[Any] | None = None
    ) -> pl.LazyFrame:
        """Per-class values with private keys, sorted by keys, class and measure."""
        subset = class_list(classes)
        check_binary_subset(binary=self.source.binary, classes=subset)
        if subset is not None:
            tables = subset_tables(tables, subset, self.source.class_dtype())
        visible = [k for k in tables.keys if k != KEY_ALL]
        order = {m.name: i for i, m in enumerate(measures)}
        return class_table(tables, measures).sort(
            [*visible, CLASS, pl.col("measure").replace_strict(order, return_dtype=pl.Int64)],
            nulls_last=True,
        )
