"""Predictions: the façade users hold, small enough to read at once.

A :class:`Predictions` holds one intake :class:`~aggframe.intake.base.Source`
(long, label or stored form) and the cell tables of each grouping it has
scanned (one scan per ``by``, kept for later calls). Each method parses its
options, asks the source for cell tables and hands them to the operators
(:mod:`aggframe.operators`); results come back with the user's column names.

The accessors for analyses and extensions return frames keyed by private key
columns (:mod:`aggframe._columns`) with the user's names beside them:
:meth:`cell_tables`, :meth:`cell_frame`, :meth:`report`,
:meth:`per_class_table`, :meth:`confusion_table`, :meth:`key_names`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast, overload

import numpy as np
import polars as pl

from aggframe._columns import (
    CELLS,
    CLASS,
    EXAMPLE,
    KEY_ALL,
    by_key,
    check_result_names,
    restore,
)
from aggframe._options import Engine, Grain, listify, parse_operator, unique_in_order
from aggframe.exceptions import OptionError, UnknownNameError
from aggframe.intake.base import Kind, Source
from aggframe.intake.source import reading
from aggframe.intake.stored import write_store
from aggframe.measures.measure import Measure
from aggframe.measures.registry import get_measure, list_measures
from aggframe.operators.classes import class_table, class_values, example_values, subset_tables
from aggframe.operators.compare import compare_report
from aggframe.operators.report import ReportRequest, build_report
from aggframe.tables.cells import CellTables, sorted_table

__all__ = ["PER_CLASS_COLUMNS", "OrdinalPredictions", "Predictions"]

MeasureLike = str | Measure
#: The columns of :meth:`Predictions.per_class` after the keys.
PER_CLASS_COLUMNS = (CLASS, "measure", "value", "defined", "support", *CELLS)
_GRAIN_COLUMNS: dict[str, tuple[str, ...]] = {
    "class": (CLASS, *CELLS),
    "pooled": CELLS,
    "profiles": (*CELLS, "n"),
}


@dataclass
class Predictions:
    """Classification predictions in a (lazy) frame, ready to evaluate.

    Build one with :func:`from_long`, :func:`from_labels` or
    :func:`from_indicator`. Nothing is read at construction: the first
    evaluation scans the source once and keeps the small cell tables (per
    ``by``), so further calls on the same object are cheap.
    """

    source: Source
    _cache: dict[tuple[str, ...], CellTables] = field(default_factory=dict, repr=False)

    # -- what these predictions are ------------------------------------------------------
    @property
    def form(self) -> Literal["long", "labels", "cells"]:
        """The input form: ``long``, ``labels`` or ``cells`` (stored cell tables)."""
        return self.source.form

    @property
    def kind(self) -> Kind:
        """The task these predictions are read as: ``multiclass`` (single-label), ``multilabel`` or ``binary``.

        Stated by ``task=`` (or by the form: the label form is single-label), or
        inferred from the data when not stated (:attr:`kind_inferred`): long-form
        data where every example has exactly one true and one predicted class are
        read as single-label. The task decides standard accuracy, the confusion
        matrix, the suites' parametrisation and the degrees of freedom.
        """
        if self.source.binary:
            return "binary"
        return "multiclass" if self._single_label() else "multilabel"

    @property
    def kind_inferred(self) -> bool:
        """Whether :attr:`kind` was inferred from the data (long form without ``task=``)."""
        return self.source.kind_inferred()

    def _single_label(self) -> bool:
        # the profiles are read only if the source infers its reading from them
        return self.source.single_label(lambda: self.cell_tables().profiles.collect())  # noqa: PLW0108

    # -- cell tables ----------------------------------------------------------------------
    def cell_tables(self, by: str | Sequence[str] | None = None, *, engine: Engine = "auto") -> CellTables:
        """The validated cell tables of a grouping, collected once (one scan) and kept.

        Keyed by private key columns; ``tables.names`` gives the user's names.
        The accessor the analyses build on.
        """
        by_cols = tuple(listify(by))
        if by_cols not in self._cache:
            tables = self.source.tables(by_cols)
            parts = {"classes": tables.classes, "profiles": tables.profiles}
            for name in ("block_profiles", "groups", "universe", "pairs"):
                lf = getattr(tables, name)
                if lf is not None:
                    parts[name] = lf
            # one collect: the grains share one read of the input
            with reading(self.source.origin):
                got = dict(zip(parts, pl.collect_all(list(parts.values()), engine=engine), strict=True))
            self.source.check_collected(got["profiles"])
            self._cache[by_cols] = replace(tables, **{name: frame.lazy() for name, frame in got.items()})
        return self._cache[by_cols]

    def key_names(self, tables: CellTables, columns: Sequence[str], what: str) -> dict[str, str]:
        """The user's names of the tables' keys, checked against a result's other ``columns``."""
        names = {k: tables.names.get(k, k) for k in tables.keys if k != KEY_ALL}
        check_result_names(names.values(), columns, what)
        return names

    def cells(self, grain: Grain = "class", *, by: str | Sequence[str] | None = None) -> pl.DataFrame:
        """The cell tables themselves (tidy): the mergeable summary of the predictions.

        ``"class"``: by..., class, tp, fp, fn, tn. ``"pooled"``: by..., tp, fp, fn, tn.
        ``"profiles"``: by..., tp, fp, fn, tn, n (n examples share those cells).
        """
        if grain not in _GRAIN_COLUMNS:
            msg = f"unknown grain {grain!r}; valid grains: class, pooled, profiles"
            raise UnknownNameError(msg)
        tables = self.cell_tables(by)
        return cast(
            "pl.DataFrame",
            restore(self.cell_frame(tables, grain), self.key_names(tables, _GRAIN_COLUMNS[grain], "cells")),
        )

    def cell_frame(self, tables: CellTables, grain: Grain) -> pl.DataFrame:
        """A cell table with private keys, sorted (nulls last): :func:`~aggframe.tables.cells.sorted_table`."""
        return sorted_table(tables, grain)

    # -- evaluation -------------------------------------------------------------------------
    @overload
    def evaluate(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = ...,
        operators: str | Sequence[str] | None = ...,
        *,
        by: str | Sequence[str] | None = ...,
        convention: str | Sequence[str] = ...,
        pooling: str | Sequence[str] | None = ...,
        within: str | Sequence[str] = ...,
        classes: Sequence[Any] | None = ...,
        labels: Sequence[Any] | None = ...,
        pos_label: Any = ...,
        grouping_sets: str | Sequence[Sequence[str]] | None = ...,
        lazy: Literal[False] = ...,
        engine: Engine = ...,
    ) -> pl.DataFrame: ...

    @overload
    def evaluate(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = ...,
        operators: str | Sequence[str] | None = ...,
        *,
        by: str | Sequence[str] | None = ...,
        convention: str | Sequence[str] = ...,
        pooling: str | Sequence[str] | None = ...,
        within: str | Sequence[str] = ...,
        classes: Sequence[Any] | None = ...,
        labels: Sequence[Any] | None = ...,
        pos_label: Any = ...,
        grouping_sets: str | Sequence[Sequence[str]] | None = ...,
        lazy: Literal[True],
        engine: Engine = ...,
    ) -> pl.LazyFrame: ...

    def evaluate(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = None,
        operators: str | Sequence[str] | None = None,
        *,
        by: str | Sequence[str] | None = None,
        convention: str | Sequence[str] = "exclude",
        pooling: str | Sequence[str] | None = None,
        within: str | Sequence[str] = "micro",
        classes: Sequence[Any] | None = None,
        labels: Sequence[Any] | None = None,
        pos_label: Any = None,
        grouping_sets: str | Sequence[Sequence[str]] | None = None,
        lazy: bool = False,
        engine: Engine = "auto",
    ) -> pl.DataFrame | pl.LazyFrame:
        """Every measure under every operator (and convention), per group, as one tidy frame.

        Parameters
        ----------
        measures
            Names, aliases or :class:`Measure` objects; default: all 21 registered.
        operators
            ``micro``, ``macro``, ``weighted``, ``exemplar`` (default: all four).
            With a ``target`` role they apply to the block matrix of all targets
            (class key = (target, class)), and ``target`` averages, over the
            targets, the measure computed inside each target with the operator
            ``within`` (reported as ``target:<within>``). ``binary`` reports the
            positive class only (``pos_label``) and raises unless there are
            exactly two classes (scikit-learn's ``average='binary'``).
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
            interval). A list puts them side by side, in a ``pooling`` column.
        within
            Operator(s) inside each target for the ``target`` operator.
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
        lazy
            Return the whole computation as one ``LazyFrame`` (validation runs
            when it is collected) instead of collecting.
        engine
            Polars engine for the collect (``"streaming"`` for data larger than memory).

        Returns
        -------
        polars.DataFrame
            by..., measure, operator, convention, value, n_entries, n_undefined.
            ``n_entries`` counts the values averaged (1 for micro, classes for
            macro/weighted, examples for exemplar) and ``n_undefined`` how many
            of them were undefined.

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
        """
        request = self.request(
            measures,
            operators,
            by=by,
            convention=convention,
            pooling=pooling,
            within=within,
            classes=_class_subset(classes, labels),
            pos_label=pos_label,
            grouping_sets=grouping_sets,
        )
        report, names = self.report(request, lazy=lazy, engine=engine)
        columns = [c for c in report.collect_schema().names() if c not in names and c != KEY_ALL]
        check_result_names(names.values(), columns, "evaluate")
        out = restore(report, names)
        return cast("pl.DataFrame | pl.LazyFrame", out if lazy else out.collect(engine=engine))

    def request(
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
        """The options of :meth:`evaluate`, parsed once into a frozen :class:`ReportRequest`."""
        return ReportRequest.parse(
            measures,
            operators,
            by=by,
            convention=convention,
            pooling=pooling,
            within=within,
            classes=classes,
            pos_label=self.source.pos_label if pos_label is None else pos_label,
            grouping_sets=grouping_sets,
            has_folds=bool(self.source.fold_keys()),
            has_target=self.source.target is not None,
        )

    def report(
        self, request: ReportRequest, *, lazy: bool = False, engine: Engine = "auto"
    ) -> tuple[pl.LazyFrame, dict[str, str]]:
        """The report of a request with private key columns (lazy), and the user's names of those keys.

        ``lazy=True`` builds it on the lazy cell tables (the scan runs when the
        result is collected); otherwise on the collected, kept ones.
        """
        tables = self.source.tables(request.by) if lazy else self.cell_tables(request.by, engine=engine)
        needs_dtype = request.classes is not None or "binary" in request.operators
        out = build_report(
            tables,
            request,
            folds=self.source.fold_keys(),
            class_dtype=self.source.class_dtype() if needs_dtype else None,
        )
        keys = {*(by_key(i) for i in range(len(request.by))), *self.source.fold_keys()}
        return out, {k: v for k, v in tables.names.items() if k in keys}

    def compare(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = None,
        operators: str | Sequence[str] | None = None,
        *,
        by: str | Sequence[str],
        convention: str | Sequence[str] = "exclude",
        reference: dict[str, Any] | None = None,
        summary: bool = False,
    ) -> pl.DataFrame:
        """Groups against the overall value (and a reference group), like fairlearn's MetricFrame.

        One row per group x measure x operator x convention: ``value``,
        ``overall``, ``difference_to_overall``, ``ratio_to_overall`` and, with
        ``reference={"col": value}``, the same against that group. With
        ``summary=True``, one row per measure x operator x convention instead:
        ``overall``, ``group_min``, ``group_max``, ``argmin``, ``argmax``,
        ``difference`` (max - min) and ``ratio`` (min / max). Ratios with a zero
        denominator are null. One scan (the overall row is a grouping set).

        Examples
        --------
        >>> import polars as pl, aggframe as af
        >>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [0, 1, 0, 1], "y_pred": [0, 1, 1, 1]})
        >>> af.from_labels(df).compare("recall", "macro", by="g").select("g", "value", "overall")
        shape: (2, 3)
        ┌─────┬───────┬─────────┐
        │ g   ┆ value ┆ overall │
        │ --- ┆ ---   ┆ ---     │
        │ str ┆ f64   ┆ f64     │
        ╞═════╪═══════╪═════════╡
        │ a   ┆ 1.0   ┆ 0.75    │
        │ b   ┆ 0.5   ┆ 0.75    │
        └─────┴───────┴─────────┘
        """
        keys = listify(by)
        if not keys:
            msg = "compare needs by= columns (the groups to compare)"
            raise OptionError(msg)
        request = self.request(measures, operators, by=keys, convention=convention, grouping_sets=[keys, []])
        report, names = self.report(request)
        return compare_report(report.collect(), names, keys, reference=reference, summary=summary)

    def compute(
        self,
        measure: MeasureLike,
        operator: str = "micro",
        *,
        convention: str = "exclude",
        pooling: str = "pooled",
        classes: Sequence[Any] | None = None,
        labels: Sequence[Any] | None = None,
    ) -> float:
        """One number: ``measure`` under ``operator`` with ``convention`` (NaN if undefined).

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
        >>> round(pr.compute("f1", "macro"), 4)
        0.5222
        """
        if pooling == "fold":
            msg = "pooling='fold' gives one value per fold; use evaluate(..., pooling='fold')"
            raise OptionError(msg)
        out = self.evaluate(
            [measure],
            [operator],
            convention=convention,
            pooling=pooling,
            classes=_class_subset(classes, labels),
        )
        return float(out["value"][0])

    def parts(
        self, measure: MeasureLike, operator: str = "macro", *, by: str | Sequence[str] | None = None
    ) -> pl.DataFrame:
        """Per-class (macro/weighted) or per-example (exemplar, not from stored cells) values.

        Undefined entries have a null ``value`` and ``defined = False``.
        """
        meas = get_measure(measure)
        op = parse_operator(operator)
        by_cols = listify(by)
        tables = self.cell_tables(by_cols)
        if op in ("macro", "weighted"):
            out = class_values(tables, meas).collect()
        elif op == "exemplar":
            with reading(self.source.origin):
                cells, keys = self.source.example_cells(by_cols, tables)
                out = example_values(cells, keys, EXAMPLE, meas).collect()
        else:
            msg = "the micro operator pools all entries into one value; it has no parts"
            raise OptionError(msg)
        shown = {EXAMPLE: self.source.roles().get(EXAMPLE, "row")}
        columns = [shown.get(c, c) for c in out.columns if c not in tables.keys]
        return cast("pl.DataFrame", restore(out, {**self.key_names(tables, columns, "parts"), **shown}))

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
        defined, support (``tp + fn``), tp, fp, fn, tn.

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels([0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0])
        >>> pr.per_class("precision").select("class", "value", "support")
        shape: (3, 3)
        ┌───────┬──────────┬─────────┐
        │ class ┆ value    ┆ support │
        │ ---   ┆ ---      ┆ ---     │
        │ i64   ┆ f64      ┆ f64     │
        ╞═══════╪══════════╪═════════╡
        │ 0     ┆ 0.5      ┆ 2.0     │
        │ 1     ┆ 0.666667 ┆ 2.0     │
        │ 2     ┆ 1.0      ┆ 3.0     │
        └───────┴──────────┴─────────┘
        """
        names = listify(measures, scalar=(str, Measure)) or list_measures()
        ms = unique_in_order(get_measure(m) for m in names)
        tables = self.cell_tables(by)
        out = self.per_class_table(tables, ms, _class_subset(classes, labels)).collect()
        return cast("pl.DataFrame", restore(out, self.key_names(tables, PER_CLASS_COLUMNS, "per_class")))

    def per_class_table(
        self, tables: CellTables, measures: Sequence[Measure], classes: Sequence[Any] | None = None
    ) -> pl.LazyFrame:
        """Per-class values with private keys, sorted by keys, class and measure."""
        if classes is not None:
            tables = subset_tables(tables, list(classes), self.source.class_dtype())
        visible = [k for k in tables.keys if k != KEY_ALL]
        order = {m.name: i for i, m in enumerate(measures)}
        return class_table(tables, measures).sort(
            [*visible, CLASS, pl.col("measure").replace_strict(order, return_dtype=pl.Int64)],
            nulls_last=True,
        )

    # -- accuracies, the confusion matrix --------------------------------------------------
    def accuracy(self) -> float:
        """Standard accuracy: the share of examples whose class is right.

        On single-label data (the label form, or one-hot long data) this is
        ``sum(tp) / n_examples``, which is *not* ``label_accuracy`` (that one
        counts true negatives and has a floor of ``(m - 2) / m`` on one-hot
        data). On binary and multilabel data it is label accuracy, as in aggmetrics.

        Examples
        --------
        >>> import aggframe as af
        >>> af.from_labels([0, 1, 2, 2], [0, 1, 1, 0]).accuracy()
        0.5
        """
        if self._single_label():
            prof = self.cell_tables().profiles
            return float(prof.select((pl.col("n") * pl.col("tp")).sum() / pl.col("n").sum()).collect().item())
        return self.compute("label_accuracy", "micro")

    def subset_accuracy(self) -> float:
        """Share of examples whose predicted label set is exactly right (all entries)."""
        if self.source.soft:
            msg = "subset accuracy needs crisp labels; these predictions are soft (a t-norm was given)"
            raise OptionError(msg)
        prof = self.cell_tables().profiles
        exact = pl.col("fp") + pl.col("fn") == 0
        return float(prof.select(pl.col("n").filter(exact).sum() / pl.col("n").sum()).collect().item())

    def confusion_counts(self, *, by: str | Sequence[str] | None = None) -> pl.DataFrame:
        """Single-label confusion counts per group: by..., ``true``, ``pred``, ``n``.

        For the label form and for one-hot long data (each example has exactly
        one true and one predicted class). One grouped query, run where the rows
        are: only the counts cross to Polars.
        """
        counts, tables = self.confusion_table(listify(by))
        return cast(
            "pl.DataFrame", restore(counts, self.key_names(tables, ("true", "pred", "n"), "confusion_counts"))
        )

    def confusion_table(self, by: Sequence[str]) -> tuple[pl.DataFrame, CellTables]:
        """The confusion counts with private by-keys (``true``, ``pred``, ``n``), and the validated tables."""
        tables = self.cell_tables(by)  # validates the data
        if self.source.binary or not self._single_label():
            msg = "confusion counts need single-label data (the label form, or one-hot long data)"
            raise OptionError(msg)
        return self.source.confusion_counts(by), tables

    def confusion_matrix(self) -> tuple[np.ndarray, list[Any]]:
        """``(C, classes)`` with ``C[j, k]`` = examples of true class j predicted k (single-label only)."""
        classes = self.cells("class")[CLASS].to_list()
        counts, _ = self.confusion_table([])
        return matrix(counts, classes), classes

    # -- stores -----------------------------------------------------------------------------
    def write_cells(self, path: str | Any, *, by: str | Sequence[str] | None = None) -> Any:
        """Write the cell tables (per ``by`` group) to a directory, for :func:`from_cells`.

        The store holds sums only, so stores of different days or shards add
        up exactly when read together. Returns the directory path.
        """
        keys = listify(by)
        tables = self.cell_tables(keys)
        meta = {**self.source.store_meta(), "single_label": self._single_label()}
        return write_store(tables, path, by=keys, meta=meta, origin=self.source.origin)

    # -- the NumPy suite module --------------------------------------------------------------
    def check_suite_data(self) -> None:
        """Suites are defined on crisp, unmasked data (and not on ordinal predictions)."""
        if self.source.soft or self.source.masked:
            msg = (
                "measure suites are defined on crisp, unmasked data; soft labels and masks are not supported"
            )
            raise OptionError(msg)


@dataclass
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

    def check_suite_data(self) -> None:
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


def _class_subset(classes: Sequence[Any] | None, labels: Sequence[Any] | None) -> Sequence[Any] | None:
    """``classes=`` (a class subset), or its scikit-learn spelling ``labels=``; not both."""
    if classes is not None and labels is not None:
        msg = "give the class subset once: classes= (or its scikit-learn spelling labels=), not both"
        raise OptionError(msg)
    return classes if classes is not None else labels
