"""``af.Cells``: the cell tables of predictions as a value held in memory, that adds up.

Everything aggframe evaluates is a function of small cell tables, and cell
tables add up. A :class:`Cells` holds them collected (plain Polars frames: it
pickles, so it moves between processes, Spark tasks or a message queue), with
the options they were computed with; it is bounded by the (group, class) pairs
that occur plus the distinct per-example profiles, never by the number of rows.

* ``pr.to_cells(by=...)`` makes one; :meth:`Cells.read` reads cell stores.
* ``a + b`` and ``sum([...])`` add them exactly (the sum equals the cells of the
  rows of both), and refuse cells that do not add up: other keys, forms or
  options, declared class universes that differ, or the same cells twice.
* :meth:`Cells.evaluate` *is* :meth:`Predictions.evaluate
  <aggframe.Predictions.evaluate>` on ``af.from_cells(cells)``: the same
  signature, the same frame, the same errors.
* :meth:`Cells.write` writes a cell store, as :meth:`~aggframe.Predictions.write_cells`.

The layers: the data structure and its arithmetic (the sum, the checks that
parts add up, reading and writing stores) sit below the façade, in
:mod:`aggframe.intake.collected`, because the intake reads stores into it. This
module, above the façade, adds what a user does with the value, by delegation
to the one façade: ``from_cells(cells)`` is a :class:`~aggframe.Predictions`
over the stored-cells source, and every evaluation goes through it. It also
registers :meth:`Predictions.to_cells <aggframe.Predictions.to_cells>` (the
façade may not import a later layer; see ``Predictions.slices`` for the same
pattern).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from aggframe._options import Engine, listify, parse_engine
from aggframe._progress import tracked
from aggframe.intake.collected import CollectedCells, cells_of
from aggframe.intake.store_coverage import origin_covers
from aggframe.intake.stored import source_meta
from aggframe.predictions import Predictions

__all__ = ["Cells", "to_cells"]

P = ParamSpec("P")
R = TypeVar("R")


def _through_predictions(
    method: Callable[Concatenate[Predictions, P], R],
) -> Callable[Concatenate[Cells, P], R]:
    """``method`` run on ``af.from_cells(self)``: for type checkers (the overloads of ``method``, on
    :class:`Cells`); at run time :meth:`Cells.evaluate` is a plain method with ``method``'s signature."""

    def call(self: Cells, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return method(self._predictions(), *args, **kwargs)

    return call


def _signature_of(method: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give the decorated function ``method``'s signature (``inspect.signature`` follows ``__wrapped__``)."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__wrapped__ = method  # type: ignore[attr-defined]
        return fn

    return decorate


@dataclass(frozen=True, eq=False, repr=False)
class Cells(CollectedCells):
    """The cell tables of predictions, collected: a small value that adds up exactly.

    Make one with :meth:`Predictions.to_cells <aggframe.Predictions.to_cells>`,
    :meth:`Cells.read` (cell stores) or an :class:`~aggframe.Accumulator`; add
    them with ``+`` or ``sum``; evaluate with :meth:`evaluate` (or
    ``af.from_cells(cells)`` for every method of :class:`~aggframe.Predictions`).
    The fields are the tables with private key columns (see
    :mod:`aggframe._columns`); :meth:`table` gives them in the user's names.

    Examples
    --------
    >>> import polars as pl, aggframe as af
    >>> day1 = pl.DataFrame({"model": ["a", "a", "b"], "y_true": [0, 1, 1], "y_pred": [0, 1, 0]})
    >>> day2 = pl.DataFrame({"model": ["a", "b", "b"], "y_true": [2, 1, 0], "y_pred": [2, 1, 1]})
    >>> total = af.from_labels(day1).to_cells(by="model") + af.from_labels(day2).to_cells(by="model")
    >>> total.evaluate("recall", "macro", by="model").select("model", "value")
    shape: (2, 2)
    ┌───────┬───────┐
    │ model ┆ value │
    │ ---   ┆ ---   │
    │ str   ┆ f64   │
    ╞═══════╪═══════╡
    │ a     ┆ 1.0   │
    │ b     ┆ 0.25  │
    └───────┴───────┘
    >>> both = af.from_labels(pl.concat([day1, day2])).evaluate("recall", "macro", by="model")
    >>> both["value"].to_list() == total.evaluate("recall", "macro", by="model")["value"].to_list()
    True
    """

    def _predictions(self) -> Predictions:
        """These cells as :class:`~aggframe.Predictions` (what ``af.from_cells(cells)`` returns)."""
        return Predictions(self.source())

    if TYPE_CHECKING:
        evaluate = _through_predictions(Predictions.evaluate)
    else:

        @tracked("Cells.evaluate")
        @_signature_of(Predictions.evaluate)
        def evaluate(self, *args, **kwargs):
            """Every measure under every operator (and convention), per group: :meth:`Predictions.evaluate <aggframe.Predictions.evaluate>`.

            ``cells.evaluate(...)`` is ``af.from_cells(cells).evaluate(...)``: the same
            signature, options, result and errors as evaluating the predictions the
            cells were made from. ``by`` is any subset of :attr:`by` (the cells roll up
            exactly), and every operator, convention, pooling (with folds), ``within``
            (with targets), class subset and grouping set works. Windows over time
            (``time=``, ``every=``, ...) work when the time column is one of the
            stored by-columns (each window sums the cells of its days). What needs
            the examples or the scores is refused with an :class:`OptionError` that
            says so: ``n_boot`` (a bootstrap weights each example) and the measures
            on scores (``auroc``, ``log_loss``, ...).

            Parameters
            ----------
            measures, operators, by, convention, pooling, within, classes, labels, pos_label, grouping_sets, n_boot, level, seed, cluster, lazy, engine, time, every, period, offset, unlabelled
                As in :meth:`Predictions.evaluate <aggframe.Predictions.evaluate>`.

            Returns
            -------
            pl.DataFrame or pl.LazyFrame
                The tidy report (a LazyFrame with ``lazy=True``).

            Raises
            ------
            OptionError
                ``n_boot``, a measure on scores, or an option
                :meth:`Predictions.evaluate <aggframe.Predictions.evaluate>` refuses.
            ColumnNotFoundError
                A ``by`` or ``time`` column that is not one of the stored by-columns.

            Examples
            --------
            >>> import aggframe as af
            >>> cells = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1]).to_cells()
            >>> cells.evaluate(["f1", "mcc"], ["micro", "macro"]).select("measure", "operator", "value")
            shape: (4, 3)
            ┌─────────┬──────────┬──────────┐
            │ measure ┆ operator ┆ value    │
            │ ---     ┆ ---      ┆ ---      │
            │ str     ┆ str      ┆ f64      │
            ╞═════════╪══════════╪══════════╡
            │ f1      ┆ micro    ┆ 0.5      │
            │ f1      ┆ macro    ┆ 0.522222 │
            │ mcc     ┆ micro    ┆ 0.25     │
            │ mcc     ┆ macro    ┆ 0.294152 │
            └─────────┴──────────┴──────────┘
            """
            return self._predictions().evaluate(*args, **kwargs)


@tracked("to_cells")
def to_cells(self: Predictions, by: str | Sequence[str] | None = None, *, engine: Engine = "auto") -> Cells:
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
    tables = self.extend.store_tables(keys, engine=engine)
    # whether the examples are single-label, from this grouping's profiles (no second scan)
    single = self.source.single_label(lambda: tables.profiles.collect())  # noqa: PLW0108
    return cells_of(
        tables,
        by=keys,
        layout=source_meta(self.source, single_label=single),
        covers=origin_covers(self.source.origin),
        kind=Cells,
    )


Predictions.to_cells = to_cells  # the façade may not import this layer: set on the class here
