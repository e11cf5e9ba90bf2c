"""``pr.extend``: what people who write operators, analyses and charts need from a :class:`~aggframe.Predictions`.

A user evaluates predictions with the verbs of :class:`~aggframe.Predictions` (``evaluate``,
``compute``, ``per_class``, ``confusion_matrix``, ...), which return frames with the user's
column names. Code that builds on aggframe (an analysis, a chart, a check, aggframe's own
later layers) needs the plumbing under them: the validated cell tables of a grouping, keyed
by private key columns (:mod:`aggframe._columns`), the parsed request of ``evaluate`` and its
report before the user's names are restored, the bootstrap replicates, the confusion counts.
Those live here, on one documented accessor, so that the user's namespace stays small
(fairlearn keeps its ``MetricFrame`` narrow over ``_``-private modules; Polars puts extension
points in namespaces)::

    tables = pr.extend.cell_tables(["model"])          # one scan, kept
    names = pr.extend.key_names(tables, ["value"], "my_analysis")
    frame = pr.extend.cell_frame(tables, "class")      # private keys, sorted
    ... compute on `frame` ...
    restore(result, names)                             # the user's names back

The accessor holds nothing: each call asks the predictions, which keep the tables they have
scanned. These were public methods of ``Predictions`` (``pr.cell_tables(...)``, ...); the
old names still work for this release, with a ``FutureWarning`` (:data:`MOVED_TO_EXTEND`).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from aggframe._options import Bootstrap, Engine, Grain
    from aggframe.intake.base import Kind, Source
    from aggframe.measures.measure import Measure
    from aggframe.operators.report import ReportRequest
    from aggframe.predictions import Predictions
    from aggframe.tables.cells import CellTables

__all__ = ["MOVED_TO_EXTEND", "PredictionsExtension", "moved_to_extend"]

#: The former public methods and properties of ``Predictions`` that are ``pr.extend.<name>`` now:
#: ``pr.<name>`` still works for this release, with a ``FutureWarning`` (one line per name).
MOVED_TO_EXTEND = frozenset(
    {
        "boot_tables",
        "cell_frame",
        "cell_tables",
        "check_single_label",
        "check_suite_data",
        "confusion_table",
        "key_names",
        "kind_by",
        "kind_inferred",
        "per_class_table",
        "report",
        "request",
        "store_tables",
        "with_pairs",
    }
)


def moved_to_extend(pr: Predictions, name: str) -> Any:
    """``pr.<name>`` of a name in :data:`MOVED_TO_EXTEND`: ``pr.extend.<name>``, with a ``FutureWarning``.

    Parameters
    ----------
    pr
        The predictions.
    name
        The old attribute name.

    Returns
    -------
    Any
        The bound method (or the property's value) of ``pr.extend``.

    Raises
    ------
    AttributeError
        A name that is not in :data:`MOVED_TO_EXTEND`.
    """
    if name not in MOVED_TO_EXTEND:
        msg = f"{type(pr).__name__!r} object has no attribute {name!r}"
        raise AttributeError(msg)
    msg = (
        f"Predictions.{name} is deprecated and will be removed in a later release: use "
        f"pr.extend.{name} (the same {'value' if name == 'kind_inferred' else 'method'}; "
        "pr.extend holds the plumbing for people who write operators)"
    )
    warnings.warn(msg, FutureWarning, stacklevel=3)  # the caller of Predictions.__getattr__
    return getattr(PredictionsExtension(pr), name)


class PredictionsExtension:
    """The plumbing of a :class:`~aggframe.Predictions`, for operators, analyses and charts: ``pr.extend``.

    Frames and tables here are keyed by private key columns (``__af_by0``, ...; the user's
    names are in ``tables.names``, or :meth:`key_names`); :func:`aggframe._columns.restore`
    puts the user's names back.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 1, 2], [0, 1, 0, 2])
    >>> tables = pr.extend.cell_tables()
    >>> pr.extend.cell_frame(tables, "class").select("tp", "fp", "fn", "tn").rows()
    [(1.0, 1.0, 0.0, 2.0), (1.0, 0.0, 1.0, 2.0), (1.0, 0.0, 0.0, 3.0)]
    """

    __slots__ = ("_pr",)

    def __init__(self, pr: Predictions) -> None:
        self._pr = pr

    def __repr__(self) -> str:
        return f"<extend of {self._pr!r}>"

    @property
    def source(self) -> Source:
        """The intake source (long, label or stored form) the predictions read.

        Returns
        -------
        Source
            The :class:`~aggframe.intake.base.Source`.
        """
        return self._pr.source

    @property
    def kind_inferred(self) -> bool:
        """Whether :attr:`Predictions.kind <aggframe.Predictions.kind>` was inferred from the data.

        Returns
        -------
        bool
            ``True`` for long-form data read without ``task=``.
        """
        return self._pr._kind_inferred

    def kind_by(self, by: Sequence[str]) -> Kind:
        """The task as read off the cell tables of the grouping ``by``.

        Example ids need be unique only within each group (two models scored on the same
        examples), so the task of grouped data is read at the grouping the caller works in.

        Parameters
        ----------
        by
            The group columns (the user's names).

        Returns
        -------
        str
            ``"binary"``, ``"multiclass"`` or ``"multilabel"``.

        Raises
        ------
        AggframeError
            Bad data, found by the scan.
        """
        return self._pr._kind_by(by)

    def cell_tables(
        self, by: str | Sequence[str] | None = None, *, engine: Engine = "auto", pairs: bool = False
    ) -> CellTables:
        """The validated cell tables of a grouping, collected once (one scan) and kept.

        Parameters
        ----------
        by
            The group columns (the user's names).
        engine
            The Polars engine of the collect.
        pairs
            Also the confusion counts (single-label data; one more grouped query if the
            form has none at hand).

        Returns
        -------
        CellTables
            Keyed by private key columns; ``tables.names`` maps them to the user's names.

        Raises
        ------
        ColumnNotFoundError
            A ``by`` column that is not in the data.
        AggframeError
            Bad data, found by the checks of the scan.
        """
        return self._pr._cell_tables(by, engine=engine, pairs=pairs)

    def boot_tables(
        self, by: str | Sequence[str] | None, boot: Bootstrap, *, engine: Engine = "auto", lazy: bool = False
    ) -> CellTables:
        """Bootstrap cell tables: keys ``REP`` (the replicate) and the grouping's keys, collected once and kept.

        Replicate ``-1`` is the data, ``0 .. n_boot - 1`` the Poisson-weighted resamples (one
        more read of the input, whatever ``n_boot``).

        Parameters
        ----------
        by
            The group columns.
        boot
            The parsed bootstrap options (:func:`aggframe._options.parse_bootstrap`).
        engine
            The Polars engine of the collect.
        lazy
            Return the whole plan (both reads) uncollected.

        Returns
        -------
        CellTables
            The stacked tables of the data and its replicates.

        Raises
        ------
        AggframeError
            Bad data, found by the scan.
        """
        return self._pr._boot_tables(by, boot, engine=engine, lazy=lazy)

    def with_pairs(
        self, tables: CellTables, by: Sequence[str], *, lazy: bool = False, what: str = "the confusion matrix"
    ) -> CellTables:
        """The cell tables with their confusion counts (``pairs``), after :meth:`check_single_label`.

        Parameters
        ----------
        tables
            Tables of the grouping ``by``.
        by
            The group columns.
        lazy
            Leave the counts' query uncollected.
        what
            What needs the counts (named in the error).

        Returns
        -------
        CellTables
            ``tables`` with ``pairs`` set (kept with the predictions' tables when collected).

        Raises
        ------
        OptionError
            Data without an m x m confusion matrix, or stored cells kept without counts.
        """
        return self._pr._with_pairs(tables, by, lazy=lazy, what=what)

    def store_tables(self, by: Sequence[str], *, engine: Engine = "auto") -> CellTables:
        """The cell tables a store (or :class:`~aggframe.Cells`) keeps: with the confusion counts on single-label data.

        Parameters
        ----------
        by
            The group columns.
        engine
            The Polars engine of the collect.

        Returns
        -------
        CellTables
            The kept tables of ``by``.

        Raises
        ------
        AggframeError
            Bad data, found by the scan.
        """
        return self._pr._store_tables(by, engine=engine)

    def key_names(self, tables: CellTables, columns: Sequence[str], what: str) -> dict[str, str]:
        """The user's names of the tables' keys, checked against a result's other ``columns``.

        Parameters
        ----------
        tables
            The cell tables whose keys the result carries.
        columns
            The result's other columns (a by-column may not be named like one of them).
        what
            The result's name, for the error.

        Returns
        -------
        dict[str, str]
            Private key -> the user's name (for :func:`aggframe._columns.restore`).

        Raises
        ------
        OptionError
            A by-column named like one of ``columns``.
        """
        return self._pr._key_names(tables, columns, what)

    def cell_frame(self, tables: CellTables, grain: Grain) -> pl.DataFrame:
        """A cell table with private keys, sorted (nulls last).

        Parameters
        ----------
        tables
            The cell tables.
        grain
            ``"class"``, ``"pooled"`` or ``"profiles"``.

        Returns
        -------
        pl.DataFrame
            keys..., the grain's keys, tp, fp, fn, tn (and n for profiles).

        Raises
        ------
        UnknownNameError
            An unknown grain.
        """
        return self._pr._cell_frame(tables, grain)

    def per_class_table(
        self, tables: CellTables, measures: Sequence[Measure], classes: Sequence[Any] | None = None
    ) -> pl.LazyFrame:
        """Per-class values with private keys, sorted by keys, class and measure (``per_class`` before its names).

        Parameters
        ----------
        tables
            The cell tables.
        measures
            The measures (resolved :class:`~aggframe.Measure` objects).
        classes
            A subset of classes.

        Returns
        -------
        pl.LazyFrame
            keys..., class, measure, value, defined, support, tp, fp, fn, tn.

        Raises
        ------
        OptionError
            A class subset the task refuses.
        """
        return self._pr._per_class_table(tables, measures, classes)

    def confusion_table(self, by: Sequence[str]) -> tuple[pl.DataFrame, CellTables]:
        """The confusion counts with private by-keys (``true``, ``pred``, ``n``), and the validated tables.

        Parameters
        ----------
        by
            The group columns.

        Returns
        -------
        tuple[pl.DataFrame, CellTables]
            The counts (pairs that occur) and the grouping's cell tables.

        Raises
        ------
        OptionError
            Data that are not single-label.
        """
        return self._pr._confusion_table(by)

    def check_single_label(self, what: str, by: Sequence[str] = ()) -> None:
        """Refuse, naming why, data without an m x m confusion matrix (binary task, soft, multilabel, ordinal).

        Parameters
        ----------
        what
            What needs single-label data (named in the error).
        by
            The grouping the data are read at.

        Raises
        ------
        OptionError
            Data without an m x m confusion matrix.
        """
        self._pr._check_single_label(what, by)

    def check_suite_data(self) -> None:
        """Refuse data that measure suites are not defined on (soft, masked, ordinal).

        Raises
        ------
        OptionError
            Soft, masked or ordinal predictions.
        """
        self._pr._check_suite_data()

    def request(  # noqa: PLR0913 -- the options of evaluate, keyword-only
        self,
        measures: Any = None,
        operators: Any = None,
        *,
        by: Any = None,
        convention: Any = "exclude",
        pooling: Any = None,
        within: Any = "micro",
        classes: Sequence[Any] | None = None,
        pos_label: Any = None,
        grouping_sets: Any = None,
    ) -> ReportRequest:
        """The options of :meth:`~aggframe.Predictions.evaluate`, parsed once into a frozen request.

        Parameters
        ----------
        measures, operators, by, convention, pooling, within, classes, pos_label, grouping_sets
            As in :meth:`~aggframe.Predictions.evaluate`.

        Returns
        -------
        ReportRequest
            The parsed, checked request (:class:`aggframe.operators.report.ReportRequest`).

        Raises
        ------
        OptionError
            An option ``evaluate`` refuses.
        UnknownNameError
            An unknown measure, operator, convention or pooling.
        """
        return self._pr._request(
            measures,
            operators,
            by=by,
            convention=convention,
            pooling=pooling,
            within=within,
            classes=classes,
            pos_label=pos_label,
            grouping_sets=grouping_sets,
        )

    def report(
        self,
        request: ReportRequest,
        *,
        lazy: bool = False,
        engine: Engine = "auto",
        boot: Bootstrap | None = None,
    ) -> tuple[pl.LazyFrame, dict[str, str]]:
        """The report of a request with private key columns (lazy), and the user's names of those keys.

        Parameters
        ----------
        request
            From :meth:`request`.
        lazy
            Build it on the lazy cell tables (the scan runs when it is collected).
        engine
            The Polars engine of the collects.
        boot
            Bootstrap options: the report gets one more key, the replicate ``REP`` (``-1``: the data).

        Returns
        -------
        tuple[pl.LazyFrame, dict[str, str]]
            The report and private key -> the user's name.

        Raises
        ------
        OptionError
            A request the data refuse (e.g. intervals of the weighted kappas).
        """
        return self._pr._report(request, lazy=lazy, engine=engine, boot=boot)
