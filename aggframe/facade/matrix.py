"""The confusion matrix and subset accuracy in the façade (single-label data: the whole matrix)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast, overload

import polars as pl

from aggframe._columns import (
    by_key,
    restore,
)
from aggframe._options import (
    listify,
)
from aggframe.exceptions import OptionError
from aggframe.facade.base import PredictionsBase
from aggframe.measures.matrix import Normalize
from aggframe.operators.matrix import confusion_frame
from aggframe.tables.cells import CellTables

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

#: "not given" (the bare ``confusion_matrix()`` call keeps its old result for one release)
_UNSET: Any = object()


class MatrixMethods(PredictionsBase):
    """The tidy confusion matrix, its counts and NumPy form, and subset accuracy."""

    def subset_accuracy(self) -> float:
        """Share of examples whose predicted label set is exactly right (every observed entry).

        With a mask only the observed entries are compared, and an example without
        any observed entry has no subset accuracy: it is left out (NaN when no
        example has an observed entry). aggmetrics 0.2.0 compares every entry,
        masked or not.

        Returns
        -------
        float
            The share of examples with every observed entry right (NaN when none is observed).

        Raises
        ------
        OptionError
            Soft predictions (a t-norm was given).
        """
        if self.source.soft:
            msg = "subset accuracy needs crisp labels; these predictions are soft (a t-norm was given)"
            raise OptionError(msg)
        prof = self._cell_tables().profiles
        observed = pl.sum_horizontal("tp", "fp", "fn", "tn") > 0
        exact = observed & (pl.col("fp") + pl.col("fn") == 0)
        n_observed = pl.col("n").filter(observed).sum()
        share = (
            pl.when(n_observed > 0).then(pl.col("n").filter(exact).sum() / n_observed).otherwise(float("nan"))
        )
        return float(prof.select(share).collect().item())

    def confusion_counts(self, *, by: str | Sequence[str] | None = None) -> pl.DataFrame:
        """Single-label confusion counts per group: by..., ``true``, ``pred``, ``n`` (pairs with n > 0).

        The sparse form of :meth:`confusion_matrix`: only the pairs that occur, so it
        stays small with thousands of classes. For the label form (the counts of its
        one scan) and for one-hot long data (one grouped query, run where the rows
        are: only the counts cross to Polars).

        Parameters
        ----------
        by
            Group columns (a null key is a group); None: the whole data.

        Returns
        -------
        pl.DataFrame
            by..., ``true``, ``pred``, ``n`` (Int64), sorted by the keys, nulls last.

        Raises
        ------
        OptionError
            Data that are not single-label (multilabel, soft, ``task="binary"``).
        ColumnNotFoundError
            A ``by`` column that is not in the data.

        Examples
        --------
        >>> import aggframe as af
        >>> af.from_labels([0, 1, 1, 2], [0, 1, 0, 0]).confusion_counts().rows()
        [(0, 0, 1), (1, 0, 1), (1, 1, 1), (2, 0, 1)]
        """
        counts, tables = self._confusion_table(listify(by))
        return cast(
            "pl.DataFrame",
            restore(counts, self._key_names(tables, ("true", "pred", "n"), "confusion_counts")),
        )

    def _confusion_table(self, by: Sequence[str]) -> tuple[pl.DataFrame, CellTables]:
        """The confusion counts with private by-keys (``true``, ``pred``, ``n``), and the validated tables."""
        tables = self._cell_tables(by)  # validates the data
        if self.source.binary or not self._single_label(by):
            msg = "confusion counts need single-label data (the label form, or one-hot long data)"
            raise OptionError(msg)
        if tables.pairs is None:
            return self.source.confusion_counts(by), tables
        # the label form's counts, summed over the target and fold keys (as the rows' query would)
        by_keys = [by_key(i) for i in range(len(by))]
        counts = (
            tables.pairs.group_by([*by_keys, "_yt", "_yp"])
            .agg(pl.col("n").sum().cast(pl.Int64))
            .rename({"_yt": "true", "_yp": "pred"})
            .sort(*by_keys, "true", "pred", nulls_last=True)
            .collect()
        )
        return counts, tables

    @overload
    def confusion_matrix(self) -> tuple[np.ndarray, list[Any]]: ...

    @overload
    def confusion_matrix(
        self, *, by: str | Sequence[str] | None, normalize: Normalize | None = ...
    ) -> pl.DataFrame: ...

    @overload
    def confusion_matrix(
        self, *, by: str | Sequence[str] | None = ..., normalize: Normalize | None
    ) -> pl.DataFrame: ...

    def confusion_matrix(
        self, *, by: Any = _UNSET, normalize: Any = _UNSET
    ) -> pl.DataFrame | tuple[np.ndarray, list[Any]]:
        """The confusion matrix per group, tidy: by..., ``y_true``, ``y_pred``, ``count`` [, ``rate``].

        Every ``(y_true, y_pred)`` pair of the group's class universe is a row,
        zeros included, the classes in universe order (the declared order, else
        sorted). Single-label data only. With a target or fold role, they are keys
        too (one matrix per target and fold; sum ``count`` over the folds for the
        pooled matrix). The frame has groups x m^2 rows: with thousands of classes,
        :meth:`confusion_counts` gives only the pairs that occur.

        Parameters
        ----------
        by
            Group columns: one matrix per group (a null key is a group); None: one matrix.
        normalize
            ``"true"`` (each row sums to 1: recall per class on the diagonal),
            ``"pred"`` (each column: precision) or ``"all"`` (the group), as in
            scikit-learn; adds a Float64 ``rate`` column, null where the row,
            column or group is empty (scikit-learn gives 0 there). None: counts only.

        Returns
        -------
        polars.DataFrame
            As soon as ``by`` or ``normalize`` is given (``by=None`` for one matrix).
            Called with no argument at all, it still returns the ``(array, classes)``
            pair of aggframe 0.1, with a ``FutureWarning``, for this release; that
            pair is :meth:`confusion_array`, and the bare call will return the frame.

        Raises
        ------
        OptionError
            Multilabel or soft data, an unknown ``normalize``, or stored cells without the
            confusion counts.

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels(["a", "b", "b", "c"], ["a", "b", "a", "a"])
        >>> pr.confusion_matrix(normalize="true").filter(pl.col("y_true") == "b")
        shape: (3, 4)
        ┌────────┬────────┬───────┬──────┐
        │ y_true ┆ y_pred ┆ count ┆ rate │
        │ ---    ┆ ---    ┆ ---   ┆ ---  │
        │ str    ┆ str    ┆ i64   ┆ f64  │
        ╞════════╪════════╪═══════╪══════╡
        │ b      ┆ a      ┆ 1     ┆ 0.5  │
        │ b      ┆ b      ┆ 1     ┆ 0.5  │
        │ b      ┆ c      ┆ 0     ┆ 0.0  │
        └────────┴────────┴───────┴──────┘
        """
        if by is _UNSET and normalize is _UNSET:
            warnings.warn(
                "pr.confusion_matrix() without arguments returns (array, classes) for one more release and "
                "will then return the tidy frame: call pr.confusion_array() for the array, or "
                "pr.confusion_matrix(by=None) (or by=..., normalize=...) for the tidy frame",
                FutureWarning,
                stacklevel=2,
            )
            C, classes = self.confusion_array()
            return C.astype(float), classes  # as aggframe 0.1 gave it
        by = None if by is _UNSET else by
        normalize = None if normalize is _UNSET else normalize
        return self._confusion_frame(by, normalize)

    def _confusion_frame(self, by: str | Sequence[str] | None, normalize: Normalize | None) -> pl.DataFrame:
        if normalize is not None and normalize not in ("true", "pred", "all"):
            msg = f"Expected `normalize` to be 'true', 'pred', 'all' or None, got {normalize!r}"
            raise OptionError(msg)
        by_cols = listify(by)
        tables = self._with_pairs(self._cell_tables(by_cols), by_cols, what="the confusion matrix")
        columns = ["y_true", "y_pred", "count", *(["rate"] if normalize is not None else [])]
        names = self._key_names(tables, columns, "confusion_matrix")
        return cast("pl.DataFrame", restore(confusion_frame(tables, normalize).collect(), names))

    def confusion_array(self) -> tuple[np.ndarray, list[Any]]:
        """``(C, classes)``: ``C[j, k]`` examples of true class j predicted k, classes in universe order.

        The NumPy view of :meth:`confusion_matrix` (one group, no target or fold
        role); single-label data only. This was ``confusion_matrix()`` in aggframe 0.1.

        Returns
        -------
        tuple[np.ndarray, list]
            The ``m x m`` counts and the classes in universe order.

        Raises
        ------
        OptionError
            Fold or target roles, multilabel or soft data.

        Examples
        --------
        >>> import aggframe as af
        >>> C, classes = af.from_labels([0, 1, 1, 2], [0, 1, 0, 0]).confusion_array()
        >>> C.tolist(), classes
        ([[1, 0, 0], [1, 1, 0], [1, 0, 0]], [0, 1, 2])
        """
        if self.source.fold_keys() or self.source.target is not None:
            msg = (
                "confusion_array() gives one m x m matrix; these predictions have fold or target roles: use "
                "confusion_matrix(), which keys each matrix by target and fold"
            )
            raise OptionError(msg)
        frame = self._confusion_frame(None, None)
        classes = frame["y_true"].unique(maintain_order=True).to_list()
        m = len(classes)
        return frame["count"].to_numpy().reshape(m, m), classes
