"""Predictions: the façade users hold, small enough to read at once.

A :class:`Predictions` holds one intake :class:`~aggframe.intake.base.Source`
(long, label or stored form) and the cell tables of each grouping it has
scanned (one scan per ``by``, kept for later calls). Each method parses its
options, asks the source for cell tables and hands them to the operators
(:mod:`aggframe.operators`); results come back with the user's column names.

The class is composed of one part per capability (:mod:`aggframe.facade`):
the source and its kept cell tables (``base``), the measures on scores
(``scores``), the report and ``compare`` (``report``), per-class and
per-entry values (``parts``), the confusion matrix (``matrix``) and cell stores
(``stores``); this module adds :meth:`~Predictions.evaluate`, the entry point,
and the ordinal subclass. A new capability is a new part, not a longer class.

The accessors for analyses and extensions return frames keyed by private key
columns (:mod:`aggframe._columns`) with the user's names beside them; they are
private to the façade and reach other layers as ``pr.extend.<name>``
(:mod:`aggframe.facade.extend`): ``cell_tables``, ``cell_frame``, ``request``,
``report``, ``per_class_table``, ``confusion_table``, ``key_names``, ...
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, overload

import polars as pl

from aggframe._options import (
    Convention,
    Engine,
    Pooling,
    ReportOperator,
    Unlabelled,
    Within,
    parse_bootstrap,
    parse_engine,
    parse_pooling,
)
from aggframe._progress import tracked
from aggframe.exceptions import OptionError
from aggframe.facade.base import class_subset, summary_html
from aggframe.facade.extend import PredictionsExtension, moved_to_extend
from aggframe.facade.matrix import MatrixMethods
from aggframe.facade.parts import PER_CLASS_COLUMNS, PartsMethods
from aggframe.facade.report import ReportMethods, finished_report
from aggframe.facade.stores import StoreMethods
from aggframe.facade.windows import windowed_evaluate
from aggframe.measures.measure import MeasureLike
from aggframe.operators.bootstrap import summarize

if TYPE_CHECKING:
    import numpy as np

    from aggframe.cells import Cells
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = ["PER_CLASS_COLUMNS", "OrdinalPredictions", "Predictions", "summary_html"]


class _Registered:
    """A method that a later layer sets on the class (this module may not import it): the first
    access imports that module, whose import replaces this placeholder with the method.

    ``import aggframe`` loads modules on first use (issue 35), so no import side effect may be
    counted on: ``pr.slices`` works whether or not ``af.slices`` was touched first."""

    def __init__(self, module: str) -> None:
        self._module = module
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, obj: object, owner: type) -> Any:
        importlib.import_module(self._module)  # sets the method on the class that holds this
        if inspect.getattr_static(owner, self._name) is self:
            msg = f"{self._module} did not register {owner.__name__}.{self._name}"
            raise AttributeError(msg)
        return getattr(owner if obj is None else obj, self._name)


@dataclass(repr=False)
class Predictions(ReportMethods, PartsMethods, MatrixMethods, StoreMethods):
    """Classification predictions in a (lazy) frame, ready to evaluate.

    Build one with :func:`from_long`, :func:`from_labels` or
    :func:`from_indicator`. Nothing is read at construction: the first
    evaluation scans the source once and keeps the small cell tables (per
    ``by``), so further calls on the same object are cheap.
    """

    #: :func:`aggframe.slices` as a method, ``pr.slices(measure, operator, columns=...)``: set by
    #: :mod:`aggframe.decisions.slices` (a later layer, which this module may not import)
    #: :meth:`to_cells`, the :class:`~aggframe.Cells` of a grouping: set by :mod:`aggframe.cells` (idem)
    if TYPE_CHECKING:
        slices: ClassVar[Callable[..., pl.DataFrame]]
        to_cells: ClassVar[Callable[..., Cells]]
    else:
        slices = _Registered("aggframe.decisions.slices")
        to_cells = _Registered("aggframe.cells")

    @property
    def extend(self) -> PredictionsExtension:
        """The plumbing, for people who write operators, analyses and charts: cell tables, requests, reports.

        ``pr.extend.cell_tables(by)``, ``pr.extend.report(pr.extend.request(...))``, ...
        (:class:`~aggframe.facade.extend.PredictionsExtension`): frames keyed by private key
        columns, under the verbs users call. These were methods of ``Predictions``
        (``pr.cell_tables``, ...), which still work for this release with a ``FutureWarning``.

        Returns
        -------
        PredictionsExtension
            An accessor that holds nothing but these predictions.

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels([0, 1, 1, 2], [0, 1, 0, 2])
        >>> pr.extend.kind_by([])
        'multiclass'
        """
        return PredictionsExtension(self)

    if not TYPE_CHECKING:  # the checker sees no __getattr__: a misspelt attribute stays an error

        def __getattr__(self, name: str) -> Any:
            # the plumbing moved to pr.extend: the old names work for a release, with a FutureWarning
            return moved_to_extend(self, name)

    @overload
    def evaluate(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = ...,
        operators: ReportOperator | Sequence[ReportOperator] | None = ...,
        *,
        by: str | Sequence[str] | None = ...,
        convention: Convention | Sequence[Convention] = ...,
        pooling: Pooling | Sequence[Pooling] | None = ...,
        within: Within | Sequence[Within] = ...,
        classes: Sequence[Any] | None = ...,
        labels: Sequence[Any] | None = ...,
        pos_label: Any = ...,
        grouping_sets: str | Sequence[Sequence[str]] | None = ...,
        n_boot: int | None = ...,
        level: float = ...,
        seed: int = ...,
        cluster: str | None = ...,
        lazy: Literal[False] = ...,
        engine: Engine = ...,
        time: str | None = ...,
        every: str | None = ...,
        period: str | None = ...,
        offset: str | None = ...,
        unlabelled: Unlabelled | None = ...,
    ) -> pl.DataFrame: ...

    @overload
    def evaluate(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = ...,
        operators: ReportOperator | Sequence[ReportOperator] | None = ...,
        *,
        by: str | Sequence[str] | None = ...,
        convention: Convention | Sequence[Convention] = ...,
        pooling: Pooling | Sequence[Pooling] | None = ...,
        within: Within | Sequence[Within] = ...,
        classes: Sequence[Any] | None = ...,
        labels: Sequence[Any] | None = ...,
        pos_label: Any = ...,
        grouping_sets: str | Sequence[Sequence[str]] | None = ...,
        n_boot: int | None = ...,
        level: float = ...,
        seed: int = ...,
        cluster: str | None = ...,
        lazy: Literal[True],
        engine: Engine = ...,
        time: str | None = ...,
        every: str | None = ...,
        period: str | None = ...,
        offset: str | None = ...,
        unlabelled: Unlabelled | None = ...,
    ) -> pl.LazyFrame: ...

    @tracked("evaluate")
    def evaluate(  # noqa: PLR0913 -- the user's options, keyword-only
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = None,
        operators: ReportOperator | Sequence[ReportOperator] | None = None,
        *,
        by: str | Sequence[str] | None = None,
        convention: Convention | Sequence[Convention] = "exclude",
        pooling: Pooling | Sequence[Pooling] | None = None,
        within: Within | Sequence[Within] = "micro",
        classes: Sequence[Any] | None = None,
        labels: Sequence[Any] | None = None,
        pos_label: Any = None,
        grouping_sets: str | Sequence[Sequence[str]] | None = None,
        n_boot: int | None = None,
        level: float = 0.95,
        seed: int = 0,
        cluster: str | None = None,
        lazy: bool = False,
        engine: Engine = "auto",
        time: str | None = None,
        every: str | None = None,
        period: str | None = None,
        offset: str | None = None,
        unlabelled: Unlabelled | None = None,
    ) -> pl.DataFrame | pl.LazyFrame:
        """Every measure under every operator (and convention), per group, as one tidy frame.

        Parameters
        ----------
        measures
            Names, aliases or :class:`Measure` objects; default: all 21 registered
            (and, for ``multiclass``, its seven). A named measure must exist under
            every operator asked for. With scores (:func:`from_scores`), also the
            measures on scores ``auroc``, ``average_precision``, ``log_loss``,
            ``brier`` and ``ece`` (one-vs-rest per class, pooled, per example; see
            :func:`from_scores`), in the same frame.
        operators
            ``micro``, ``macro``, ``weighted``, ``exemplar`` (default: all four).
            With a ``target`` role they apply to the block matrix of all targets
            (class key = (target, class)), and ``target`` averages, over the
            targets, the measure computed inside each target with the operator
            ``within`` (reported as ``target:<within>``). ``binary`` reports the
            positive class only (``pos_label``) and raises on more than two
            classes (scikit-learn's ``average='binary'``; one class, where the
            other never occurs, is binary data with the positive class present
            or absent).
            ``multiclass`` evaluates the measures defined on the whole confusion
            matrix of single-label data, as scikit-learn does: ``mcc``
            (``matthews_corrcoef``), ``kappa``, ``kappa_linear``,
            ``kappa_quadratic`` (``cohen_kappa_score`` with ``weights``),
            ``balanced_accuracy``, ``balanced_accuracy_adjusted``
            (``balanced_accuracy_score``) and ``accuracy``; one entry per group,
            resolved by the convention as a micro value (scikit-learn's ``mcc``
            is 0 where undefined: ``convention="zero"``). Not with targets (use
            ``target`` with ``within="multiclass"``), nor on multilabel, soft or
            ``task="binary"`` data.
            With scores, ``multiclass`` also gives the whole-distribution
            ``log_loss`` and ``brier`` (scikit-learn's ``log_loss(y, P)``).
        by
            Columns to group by (model, day, segment, ...): one query, no loop.
        convention
            How undefined per-class/per-example entries are resolved: ``exclude``
            (default), ``zero``, ``one`` or ``nan``; a list puts them side by side.
        pooling
            With a ``fold`` role only: ``pooled`` (default: the union of the
            folds' predictions), ``averaged`` (each fold, then the mean weighted
            by fold size), ``fold`` (the per-fold values), ``min``, ``max``,
            ``std`` (their spread; the folds share training data, so the spread
            understates the uncertainty: a lower bound, not a confidence
            interval). With a ``repeat`` role too (repeated cross-validation):
            ``repeat_pooled`` (the folds of each repeat pooled, then the mean over
            the repeats), ``repeat`` (the per-repeat pooled values),
            ``repeat_min``, ``repeat_max``, ``repeat_std`` (their spread). A list
            puts them side by side, in a ``pooling`` column.
        within
            Operator(s) inside each target for the ``target`` operator (the four,
            or ``multiclass``: each target's whole-matrix value).
        classes, labels
            Evaluate over this subset of classes only (``labels=`` is
            scikit-learn's spelling of the same option): micro then pools the
            subset (no longer accuracy), macro and weighted average over it. A
            named class absent from the data counts as undefined (or 0/1 by the
            convention). Not with ``exemplar``.
        pos_label
            The positive class of the ``binary`` operator (default: the one
            given at construction, 1).
        grouping_sets
            ``"rollup"``, ``"cube"`` or explicit lists of ``by`` columns (SQL
            grouping sets): e.g. model x day, model, and overall rows in the same
            result, from the same scan (cell tables roll up exactly). A column
            ``grouping_set`` names the columns each row is grouped by ("" for the
            overall row) and ``grouping_id`` is SQL's ``GROUPING_ID`` (bit
            ``n - 1 - i`` set when the ``i``-th by-column is rolled up), so a
            rolled-up key (null) is told apart from a real null key.
        n_boot
            Bootstrap the result: ``n_boot`` Poisson(1) resamples of the examples
            (each example's weight a seeded hash of its id, so the same on every
            engine, whatever the row order), computed in the same plan as one more
            key of the cell tables; every measure of the cells under every
            operator (``multiclass``: all but the weighted kappas), convention,
            pooling and grouping set gets ``ci_low`` and ``ci_high`` (percentile interval),
            ``se`` (standard deviation over the replicates), ``n_boot`` (the
            replicates whose value is defined) and ``level``. Without an
            ``example`` column (label form) a row's position is its id: Polars only,
            and no pairing across models. The measures on scores (``auroc``,
            ``average_precision``, ``log_loss``, ``brier``, ``ece``; micro, macro,
            weighted) get theirs from the same weights, as weighted curves per
            replicate (see the intervals page of the documentation).
        level
            The interval's coverage (default 0.95).
        seed
            The bootstrap's seed: the same seed gives the same replicates.
        cluster
            Resample this column's values (users, documents, sessions) instead of
            the examples, when examples of one cluster are not independent; every
            row of an example needs the same cluster.
        lazy
            Return the whole computation as one ``LazyFrame`` (validation runs
            when it is collected) instead of collecting.
        engine
            Polars engine for the collect (``"streaming"`` for data larger than memory).
            With ``"auto"``, the last step over small kept cell tables (at most 50,000
            rows) runs on the in-memory engine, where it is fastest.
        time, every, period, offset
            Windows over time (Polars' ``group_by_dynamic`` words): a window
            ``[window_start, window_end)`` of length ``period`` (default ``every``)
            starts every ``every`` (``"1d"``, ``"12h"``, ``"1w"``), aligned to the
            Unix epoch plus ``offset``; ``time`` names a date or datetime column
            (zoned: local calendar days) or a date key of stored cells. Each window
            equals evaluating its rows alone; the result gains ``window_start`` and
            ``window_end`` after the by-keys. See the "Time" page of the docs.
        unlabelled
            ``"count"``: a null truth means "not yet labelled" (with ``time``):
            those rows are left out of the measures and counted per group and
            window (``n_labelled``, ``n_unlabelled``, ``labelled_share``). Without
            it a null truth is an error.

        Returns
        -------
        polars.DataFrame
            by..., measure, operator, convention, value, n_entries, n_undefined
            (with ``n_boot``: ci_low, ci_high, se, n_boot, level).
            ``n_entries`` counts the values averaged (1 for micro, classes for
            macro/weighted, examples for exemplar) and ``n_undefined`` how many
            of them were undefined.

        Raises
        ------
        OptionError
            An unknown or inapplicable option (a measure under an operator that cannot compute
            it, ``within`` without targets, a by-key named like a result column, ...).
        UnknownNameError
            An unknown measure, operator, convention or pooling name.
        ColumnNotFoundError
            A ``by`` or ``cluster`` column that is not in the data.
        AggframeError
            Bad data found by the checks inside the query (nulls, duplicates, values out of
            range), naming the column, the count and a row.

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
        >>> pr.evaluate(["f1", "mcc"], ["micro", "macro"]).select("measure", "operator", "value")
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

        A bootstrap interval (200 Poisson resamples of the examples, in the same plan):

        >>> pr = af.from_labels([0, 1, 2, 2, 1, 0] * 50, [0, 2, 2, 1, 1, 1] * 50)
        >>> out = pr.evaluate("f1", "macro", n_boot=200, seed=0)
        >>> out.select(pl.col("value", "ci_low", "ci_high").round(3), "n_boot")
        shape: (1, 4)
        ┌───────┬────────┬─────────┬────────┐
        │ value ┆ ci_low ┆ ci_high ┆ n_boot │
        │ ---   ┆ ---    ┆ ---     ┆ ---    │
        │ f64   ┆ f64    ┆ f64     ┆ i64    │
        ╞═══════╪════════╪═════════╪════════╡
        │ 0.522 ┆ 0.467  ┆ 0.57    ┆ 200    │
        └───────┴────────┴─────────┴────────┘
        """
        if time is not None or every is not None or period is not None or unlabelled is not None:
            options: dict[str, Any] = {
                "by": by,
                "convention": convention,
                "pooling": pooling,
                "within": within,
            }
            options |= {"classes": class_subset(classes, labels), "pos_label": pos_label, "lazy": lazy}
            options |= {"grouping_sets": grouping_sets, "n_boot": n_boot, "level": level, "seed": seed}
            options |= {"cluster": cluster, "engine": parse_engine(engine)}
            window = {"time": time, "every": every, "period": period, "offset": offset}
            return windowed_evaluate(
                self, measures, operators, window, unlabelled=unlabelled, options=options
            )
        engine = parse_engine(engine)
        request = self._request(
            measures,
            operators,
            by=by,
            convention=convention,
            pooling=pooling,
            within=within,
            classes=class_subset(classes, labels),
            pos_label=pos_label,
            grouping_sets=grouping_sets,
        )
        boot = parse_bootstrap(n_boot, level=level, seed=seed, cluster=cluster)
        report, names = self._report(request, lazy=lazy, engine=engine, boot=boot)
        if boot is not None:
            report = summarize(report, boot)
        small = not lazy and self._small_tables(request, boot)
        return finished_report(report, names, lazy=lazy, engine=engine, small=small)

    def compute(
        self,
        measure: MeasureLike,
        operator: ReportOperator = "micro",
        *,
        convention: Convention = "exclude",
        pooling: Pooling = "pooled",
        classes: Sequence[Any] | None = None,
        labels: Sequence[Any] | None = None,
    ) -> float:
        """One number: ``measure`` under ``operator`` with ``convention`` (NaN if undefined).

        ``compute`` is a float everywhere in aggframe, ``evaluate`` a tidy frame: this is
        the row of :meth:`evaluate` for one measure, operator and convention, with its
        defaults (``convention="exclude"``; operator ``micro``). :func:`~aggframe.score`
        is the scikit-learn bridge: label arrays in, scikit-learn's defaults (``macro``,
        ``zero_division=0``, i.e. ``convention="zero"``).

        Parameters
        ----------
        measure
            A measure name, alias (``"f3"``, ``"iou"``) or :class:`~aggframe.Measure`.
        operator
            One operator: ``"micro"``, ``"macro"``, ``"weighted"``, ``"exemplar"``,
            ``"binary"``, ``"multiclass"``, ``"target"``.
        convention
            What undefined entries become: ``"exclude"``, ``"zero"``, ``"one"``, ``"nan"``.
        pooling
            How folds combine (``"pooled"``, ``"averaged"``, ``"min"``, ...; not the per-fold
            ``"fold"``/``"repeat"``, which are several values).
        classes, labels
            A subset of classes (``labels`` is scikit-learn's name for it).

        Returns
        -------
        float
            The value (NaN when it is undefined under the convention).

        Raises
        ------
        OptionError
            Several measures, operators, conventions or poolings (one number takes one), or a
            per-fold pooling.
        UnknownNameError
            An unknown name.
        AggframeError
            Bad data, as in :meth:`evaluate`.

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
        >>> round(pr.compute("f1", "macro"), 4)
        0.5222
        """
        for option, value in (
            ("measure", measure),
            ("operator", operator),
            ("convention", convention),
            ("pooling", pooling),
        ):
            if isinstance(value, (list, tuple, set)) or (
                hasattr(value, "__array__") and not isinstance(value, str)
            ):
                # one number: several values would be cut to the first one's result
                msg = f"compute() returns one number: {option} takes one name, got {value!r}; use evaluate() for several"
                raise OptionError(msg)
        if parse_pooling(pooling) in ("fold", "repeat"):
            msg = f"pooling={pooling!r} gives one value per fold (or repeat); use evaluate(..., pooling={pooling!r})"
            raise OptionError(msg)
        out = self.evaluate(
            [measure],
            [operator],
            convention=convention,
            pooling=pooling,
            classes=class_subset(classes, labels),
        )
        return float(out["value"][0])

    def accuracy(self) -> float:
        """Standard accuracy: the share of examples whose class is right.

        On single-label data (the label form, or one-hot long data) this is
        ``sum(tp) / n_examples``, which is *not* ``label_accuracy`` (that one
        counts true negatives and has a floor of ``(m - 2) / m`` on one-hot
        data). On binary and multilabel data it is label accuracy, as in aggmetrics.

        Returns
        -------
        float
            The share of right examples (label accuracy on binary and multilabel data).

        Examples
        --------
        >>> import aggframe as af
        >>> af.from_labels([0, 1, 2, 2], [0, 1, 1, 0]).accuracy()
        0.5
        """
        if self._single_label():
            prof = self._cell_tables().profiles
            return float(prof.select((pl.col("n") * pl.col("tp")).sum() / pl.col("n").sum()).collect().item())
        return self.compute("label_accuracy", "micro")


@dataclass(repr=False)
class OrdinalPredictions(Predictions):
    """Ordinal predictions as ``m - 1`` cumulative thresholds (from :func:`from_ordinal`).

    A long-form :class:`Predictions` whose classes are the thresholds: class
    ``c`` stands for the indicator ``y > c``, so ``order[:-1]`` are the classes.
    ``labels`` is the same data as single-label predictions over the ``m``
    ordered classes; :func:`cost`, :func:`canonical_coordinates` and the
    dominance functions use it (the ``m x m`` confusion matrix, in ``order``).
    As on any multilabel data (and as in aggmetrics), ``accuracy()`` is the label
    accuracy over the thresholds; the share of exactly right classes is
    ``subset_accuracy()`` (or ``labels.accuracy()``).

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_ordinal([0, 1, 2, 2], [0, 2, 2, 1])
    >>> pr.subset_accuracy(), pr.labels.accuracy(), pr.accuracy()
    (0.5, 0.5, 0.75)
    """

    order: list[Any] = field(default_factory=list)
    labels: Predictions | None = field(default=None, repr=False)
    #: ordinal: m - 1 cumulative thresholds, whose single-label view is ``labels``
    ordinal: ClassVar[bool] = True

    def _check_suite_data(self) -> None:
        # as the reference: suites parametrise multiclass, multilabel and binary data; the
        # m - 1 threshold columns of ordinal data are neither (their cells are constrained)
        msg = (
            "measure suites are not defined on ordinal predictions (the reference refuses them too: "
            "the m - 1 cumulative thresholds are not free multilabel columns); evaluate the "
            "single-label view instead: suite_rank(pr.labels, ...)"
        )
        raise OptionError(msg)


def matrix(counts: pl.DataFrame, classes: list[Any]) -> np.ndarray:
    """The m x m confusion matrix of one group's counts (``true``, ``pred``, ``n``), classes in order."""
    index = {c: i for i, c in enumerate(classes)}
    C = np.zeros((len(classes), len(classes)))
    for t, p, n in counts.select("true", "pred", "n").iter_rows():
        C[index[t], index[p]] += n
    return C
