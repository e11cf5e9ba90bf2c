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

import html
import warnings
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
from aggframe._options import (
    Bootstrap,
    CurveKind,
    Engine,
    Grain,
    Strategy,
    listify,
    parse_bootstrap,
    parse_convention,
    parse_curve,
    parse_operator,
    parse_strategy,
    unique_in_order,
)
from aggframe._progress import evaluating, tracked
from aggframe.exceptions import OptionError, UnknownNameError
from aggframe.intake.base import Kind, Source
from aggframe.intake.cells_value import Cells, cells_of
from aggframe.intake.scores import Scored
from aggframe.intake.source import scanning
from aggframe.intake.stored import StoredSource, origin_covers, source_meta, write_store
from aggframe.measures.matrix import Normalize
from aggframe.measures.measure import Measure
from aggframe.measures.registry import get_measure, list_measures
from aggframe.operators.bootstrap import compare_boot, summarize
from aggframe.operators.classes import class_table, class_values, example_values, subset_tables
from aggframe.operators.compare import compare_keys, compare_report
from aggframe.operators.matrix import confusion_frame
from aggframe.operators.report import ReportRequest, build_report
from aggframe.operators.scores import (
    best_threshold_frame,
    bound_frame,
    calibration_frame,
    check_score_request,
    curve_frame,
    merged_report,
    regrouped,
    score_grains,
    score_report,
)
from aggframe.tables.bootstrap import stack
from aggframe.tables.cells import CellTables, sorted_table
from aggframe.wide.ranking import ScoreFrame

__all__ = ["PER_CLASS_COLUMNS", "OrdinalPredictions", "Predictions", "summary_html"]

#: "not given" (the bare ``confusion_matrix()`` call keeps its old result for one release)
_UNSET: Any = object()

MeasureLike = str | Measure
#: The columns of :meth:`Predictions.per_class` after the keys.
PER_CLASS_COLUMNS = (CLASS, "measure", "value", "defined", "support", *CELLS)
_GRAIN_COLUMNS: dict[str, tuple[str, ...]] = {
    "class": (CLASS, *CELLS),
    "pooled": CELLS,
    "profiles": (*CELLS, "n"),
}
#: The cell tables beside ``classes`` and ``profiles`` that a grouping may have (collected with them).
_OPTIONAL_TABLES = ("block_profiles", "groups", "universe", "pairs", "order")


def summary_html(title: str, rows: dict[str, str]) -> str:
    """A small two-column HTML table (what notebooks show for aggframe's objects).

    Examples
    --------
    >>> summary_html("X", {"a": "<1>"})
    '<table><caption style="text-align:left"><b>X</b></caption><tr><th style="text-align:left">a</th><td style="text-align:left">&lt;1&gt;</td></tr></table>'
    """
    left = ' style="text-align:left"'
    body = "".join(
        f"<tr><th{left}>{html.escape(k)}</th><td{left}>{html.escape(v)}</td></tr>" for k, v in rows.items()
    )
    return f"<table><caption{left}><b>{html.escape(title)}</b></caption>{body}</table>"


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
    _boot_cache: dict[tuple[tuple[str, ...], Bootstrap], CellTables] = field(default_factory=dict, repr=False)

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

    # -- in a notebook ---------------------------------------------------------------------
    def summary(self) -> dict[str, str]:
        """What these predictions are, in a few words, without reading the data.

        ``form``, ``task``, ``roles`` (role -> your column), ``classes`` (the
        universe: its size if declared or already read), ``source`` (files,
        cell stores or a frame) and ``read`` (the groupings scanned so far). A
        task or a class count that only the data can tell says so rather than
        scanning. What a notebook shows (``_repr_html_``).

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels([0, 1, 2, 2], [0, 2, 2, 1], n_classes=3)
        >>> pr.summary()["classes"], pr.summary()["roles"]
        ('3 (declared)', "y_true='y_true', y_pred='y_pred'")
        """
        src = self.source
        read = next(iter(self._cache.values()), None)
        if not src.kind_inferred():
            task: str = self.kind
        elif () in self._cache:
            task = f"{self.kind} (inferred from the data)"
        else:
            task = "multiclass or multilabel: inferred from the data when first read"
        universe = src.universe
        if isinstance(universe, dict):
            classes = f"{sum(len(v) for v in universe.values())} over {len(universe)} targets (declared)"
        elif universe is not None:
            classes = f"{len(universe)} (declared)"
        elif read is not None:
            n = read.classes.select(pl.col(CLASS).n_unique()).collect().item()
            classes = f"{n} (seen in the data)"
        else:
            classes = "those seen in the data (not read yet)"
        roles = ", ".join(f"{k.removeprefix('__af_')}={v!r}" for k, v in src.roles().items())
        read_by = ["(all)" if not k else ", ".join(map(repr, k)) for k in self._cache]
        return {
            "form": self.form,
            "task": task,
            "roles": roles or "(the cell store's)",
            "classes": classes,
            "source": str(src.origin),
            "read": "; ".join(read_by) if read_by else "nothing yet",
        }

    def _repr_html_(self) -> str:
        return summary_html(type(self).__name__, self.summary())

    # -- cell tables ----------------------------------------------------------------------
    def cell_tables(
        self, by: str | Sequence[str] | None = None, *, engine: Engine = "auto", pairs: bool = False
    ) -> CellTables:
        """The validated cell tables of a grouping, collected once (one scan) and kept.

        Keyed by private key columns; ``tables.names`` gives the user's names.
        The accessor the analyses build on. ``pairs=True`` asks for the confusion
        counts too (single-label data: the label form counts them in the same
        scan; tables kept without them get them from one more grouped query).
        """
        by_cols = tuple(listify(by))
        if by_cols not in self._cache:
            self._collect_tables(by_cols, [], engine=engine, pairs=pairs)
        tables = self._cache[by_cols]
        if pairs and tables.pairs is None:
            # kept without the confusion counts (or a form that has none at hand): one more
            # grouped query, kept with the tables
            return self.with_pairs(tables, by_cols)
        return tables

    def _collect_tables(
        self, by: tuple[str, ...], extra: Sequence[pl.LazyFrame], *, engine: Engine, pairs: bool = False
    ) -> list[pl.DataFrame]:
        """Collect the cell tables of ``by`` and ``extra`` frames in one collect (one read); keep the tables."""
        tables = self.source.tables(by, pairs=pairs)
        given = {name: getattr(tables, name) for name in _OPTIONAL_TABLES}
        optional = {name: lf for name, lf in given.items() if lf is not None}
        parts = [tables.classes, tables.profiles, *optional.values()]
        # one collect: the grains share one read of the input
        with scanning(self.source.origin):
            got = pl.collect_all([*parts, *extra], engine=engine)
        self.source.check_collected(got[1])
        more = {name: frame.lazy() for name, frame in zip(optional, got[2 : len(parts)], strict=True)}
        self._cache[by] = replace(
            tables,
            classes=got[0].lazy(),
            profiles=got[1].lazy(),
            block_profiles=more.get("block_profiles"),
            groups=more.get("groups"),
            universe=more.get("universe"),
            pairs=more.get("pairs"),
            order=more.get("order"),
        )
        return got[len(parts) :]

    def boot_tables(
        self, by: str | Sequence[str] | None, boot: Bootstrap, *, engine: Engine = "auto", lazy: bool = False
    ) -> CellTables:
        """Bootstrap cell tables: keys ``REP`` (the replicate) and the grouping's keys, collected once and kept.

        Replicate ``-1`` is the data (:meth:`cell_tables`), ``0 .. n_boot - 1`` the
        Poisson-weighted resamples (:mod:`aggframe.tables.bootstrap`): the weighted
        sums come from one more read of the input, whatever ``n_boot``.
        ``lazy=True`` returns the whole plan (both reads) uncollected.
        """
        by_cols = tuple(listify(by))
        if lazy:
            base = self.source.tables(by_cols)
            return stack(base, self.source.boot_tables(by_cols, boot, base))
        key = (by_cols, boot)
        if key not in self._boot_cache:
            base = self.cell_tables(by_cols, engine=engine)
            reps = self.source.boot_tables(by_cols, boot, base)
            named = {"classes": reps.classes, "profiles": reps.profiles}
            named.update(
                {n: lf for n in ("block_profiles", "groups") if (lf := getattr(reps, n)) is not None}
            )
            with scanning(self.source.origin, f" for {boot.n_boot} bootstrap replicates"):
                got = dict(zip(named, pl.collect_all(list(named.values()), engine=engine), strict=True))
            block, groups = got.get("block_profiles"), got.get("groups")
            reps = replace(
                reps,
                classes=got["classes"].lazy(),
                profiles=got["profiles"].lazy(),
                block_profiles=None if block is None else block.lazy(),
                groups=None if groups is None else groups.lazy(),
            )
            self._boot_cache[key] = stack(base, reps)
        return self._boot_cache[key]

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
        n_boot: int | None = ...,
        level: float = ...,
        seed: int = ...,
        cluster: str | None = ...,
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
        n_boot: int | None = ...,
        level: float = ...,
        seed: int = ...,
        cluster: str | None = ...,
        lazy: Literal[True],
        engine: Engine = ...,
    ) -> pl.LazyFrame: ...

    @tracked("evaluate")
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
        n_boot: int | None = None,
        level: float = 0.95,
        seed: int = 0,
        cluster: str | None = None,
        lazy: bool = False,
        engine: Engine = "auto",
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
            positive class only (``pos_label``) and raises unless there are
            exactly two classes (scikit-learn's ``average='binary'``).
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
            and no pairing across models.
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

        Returns
        -------
        polars.DataFrame
            by..., measure, operator, convention, value, n_entries, n_undefined
            (with ``n_boot``: ci_low, ci_high, se, n_boot, level).
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
        boot = parse_bootstrap(n_boot, level=level, seed=seed, cluster=cluster)
        report, names = self.report(request, lazy=lazy, engine=engine, boot=boot)
        if boot is not None:
            report = summarize(report, boot)
        columns = [c for c in report.collect_schema().names() if c not in names and c != KEY_ALL]
        check_result_names(names.values(), columns, "evaluate")
        out = restore(report, names)
        return cast("pl.DataFrame | pl.LazyFrame", out if lazy else evaluating(out, engine=engine))

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
        self,
        request: ReportRequest,
        *,
        lazy: bool = False,
        engine: Engine = "auto",
        boot: Bootstrap | None = None,
    ) -> tuple[pl.LazyFrame, dict[str, str]]:
        """The report of a request with private key columns (lazy), and the user's names of those keys.

        ``lazy=True`` builds it on the lazy cell tables (the scan runs when the
        result is collected); otherwise on the collected, kept ones. With
        ``boot`` the report has one more key, the replicate ``REP`` (``-1``: the
        data), from :meth:`boot_tables`; :func:`~aggframe.operators.bootstrap.summarize`
        turns it into intervals.
        """
        if request.scores:
            if boot is not None:
                msg = (
                    "n_boot= intervals cover the measures of the cells; the measures on scores ("
                    + ", ".join(request.scores)
                    + ") have none yet: evaluate them without n_boot"
                )
                raise OptionError(msg)
            return self._score_report(request, lazy=lazy, engine=engine)
        if boot is not None and request.needs_pairs:
            msg = (
                "n_boot= intervals of the multiclass operator cover the measures of the matrix's margins "
                "(mcc, kappa, balanced accuracy, accuracy); the weighted kappas read every confusion count "
                "and have none yet: evaluate them without n_boot"
            )
            raise OptionError(msg)
        if boot is not None:
            tables = self.boot_tables(request.by, boot, engine=engine, lazy=lazy)
        elif lazy:
            tables = self.source.tables(request.by, pairs=request.needs_pairs)
        else:
            # the confusion counts only when the weighted kappas ask (the label form: same scan)
            tables = self.cell_tables(request.by, engine=engine, pairs=request.needs_pairs)
        if request.needs_pairs:
            tables = self.with_pairs(tables, request.by, lazy=lazy, what="the weighted kappas")
        elif request.matrix_measures:
            self.check_single_label("the multiclass operator")  # its margins are the class cells
        needs_dtype = request.classes is not None or "binary" in request.operators
        out = build_report(
            tables,
            request,
            folds=self.source.fold_keys(),
            class_dtype=self.source.class_dtype() if needs_dtype else None,
        )
        keys = {*(by_key(i) for i in range(len(request.by))), *self.source.fold_keys()}
        return out, {k: v for k, v in tables.names.items() if k in keys}

    def check_single_label(self, what: str) -> None:
        """Refuse, naming why, data without an m x m confusion matrix (binary task, soft, multilabel)."""
        if self.source.binary:
            msg = (
                f"{what} needs every class of single-label data, but these predictions keep the positive "
                "class only (task='binary'); build them with task=None (one-hot over all classes): on two "
                "classes the multiclass 'mcc' equals the binary 'mcc'"
            )
            raise OptionError(msg)
        if self.source.soft:
            msg = (
                f"{what} needs crisp single-label data; these predictions are soft (a t-norm was given), "
                "so an example has no one true and one predicted class to count"
            )
            raise OptionError(msg)
        if isinstance(self.source, StoredSource):
            if not self.source.meta.get("single_label"):
                msg = (
                    f"{what} needs single-label data (one true and one predicted class per example); these "
                    "stored cells are not of such data (or their store does not say so)"
                )
                raise OptionError(msg)
            return
        if isinstance(self, OrdinalPredictions):
            msg = (
                f"{what} needs single-label data; ordinal predictions are read as m - 1 cumulative "
                "thresholds: use their single-label view, pr.labels (e.g. pr.labels.compute("
                "'kappa_quadratic', 'multiclass'))"
            )
            raise OptionError(msg)
        if not self._single_label():
            msg = (
                f"{what} needs single-label data (one true and one predicted class per example); these "
                "predictions are multilabel (some example has other than one true or one predicted class), "
                "so there is no m x m confusion matrix: use micro, macro, weighted or exemplar"
            )
            raise OptionError(msg)

    def with_pairs(
        self, tables: CellTables, by: Sequence[str], *, lazy: bool = False, what: str = "the confusion matrix"
    ) -> CellTables:
        """The cell tables with their confusion counts (``pairs``), after :meth:`check_single_label`.

        Tables asked with ``pairs=True`` carry them (the label form counts them in
        its one scan: :meth:`cell_tables`); otherwise (tables kept without them, the
        long form) one more grouped query over the rows counts them, kept with the tables.
        """
        self.check_single_label(what)
        if tables.pairs is not None:
            return tables
        if self.form == "cells":
            msg = (
                f"{what} needs the confusion counts, and these stored cells hold none: a store keeps them "
                "when written from single-label data by this version of aggframe (write it again with "
                "pr.write_cells); the other whole-matrix measures need only the cells"
            )
            raise OptionError(msg)
        pairs = self.source.pair_table(by)
        if lazy:
            return replace(tables, pairs=pairs)
        with scanning(self.source.origin):
            collected = pairs.collect().lazy()
        out = replace(tables, pairs=collected)
        self._cache[tuple(by)] = out
        return out

    # -- measures on scores ------------------------------------------------------------------
    def _scored(self, what: str) -> Scored:
        """The source's scores, or an error saying where scores come from."""
        if not isinstance(self.source, Scored):
            msg = (
                f"{what} needs predictions that carry scores: build them with from_scores(frame, "
                "score='<column>', ...) (these predictions are in the "
                f"{self.source.form!r} form, without scores)"
            )
            raise OptionError(msg)
        return self.source

    def _score_report(
        self, request: ReportRequest, *, lazy: bool, engine: Engine
    ) -> tuple[pl.LazyFrame, dict[str, str]]:
        """A report with measures on scores: their rows from the scores, merged with the cell measures'.

        One collect reads the source for both: the score grains of every grouping
        set and, when not kept yet, the cell tables (``lazy=True``: one plan).
        """
        source = self._scored("measures on scores (" + ", ".join(request.scores) + ")")
        if self.source.fold_keys() or self.source.target is not None or request.classes is not None:
            msg = "measures on scores take by= and grouping_sets=, not folds, targets or classes="
            raise OptionError(msg)
        score_ops = list(request.operators)
        check_score_request(request.scores, score_ops)
        probabilities = [m for m in request.scores if m in ("log_loss", "brier", "ece")]
        if probabilities:
            source.check_probabilities(", ".join(probabilities))
        sets = request.grouping_sets
        frames = (
            [(None, source.score_frame(request.by))]
            if sets is None
            else [(keep, regrouped(source.score_frame(keep), keep, request.by)) for keep in sets]
        )
        grains = [score_grains(sf, request.scores, score_ops) for _, sf in frames]
        # the cell measures' operators (multiclass: the whole-matrix measures, when some are asked)
        cell_ops = tuple(o for o in score_ops if o != "multiclass" or request.matrix_measures)
        cell_request = replace(request, operators=cell_ops, scores=())
        tables: CellTables | None = None
        if request.measures or request.matrix_measures:
            if lazy:
                tables = self.source.tables(request.by, pairs=request.needs_pairs)
            else:
                tables, grains = self._collect_with(
                    request.by, grains, engine=engine, pairs=request.needs_pairs
                )
            if request.needs_pairs:
                tables = self.with_pairs(tables, request.by, lazy=lazy, what="the weighted kappas")
            elif request.matrix_measures:
                self.check_single_label("the multiclass operator")
        elif not lazy:
            grains = self._collect_grains(grains, engine=engine)
        parts = [(keep, sf, g) for (keep, sf), g in zip(frames, grains, strict=True)]
        scores = score_report(
            parts,
            by=request.by,
            measures=request.scores,
            operators=score_ops,
            conventions=request.conventions,
        )
        cells = None
        if tables is not None:
            cells = build_report(tables, cell_request, folds=[], class_dtype=None)
        out = merged_report(
            cells,
            scores,
            by=request.by,
            order=request.names(),
            operators=score_ops,
            conventions=request.conventions,
            sets=sets,
        )
        return out, {by_key(i): c for i, c in enumerate(request.by)}

    def _collect_grains(
        self, grains: list[dict[str, pl.LazyFrame]], *, engine: Engine
    ) -> list[dict[str, pl.LazyFrame]]:
        _, collected = self._collect_with(None, grains, engine=engine)
        return collected

    def _collect_with(
        self,
        by: Sequence[str] | None,
        grains: list[dict[str, pl.LazyFrame]],
        *,
        engine: Engine,
        pairs: bool = False,
    ) -> tuple[CellTables, list[dict[str, pl.LazyFrame]]]:
        """The score grains collected in one collect with the cell tables of ``by`` (kept, as :meth:`cell_tables`)."""
        flat = [(i, name, lf) for i, g in enumerate(grains) for name, lf in g.items()]
        frames = [lf for _, _, lf in flat]
        by_cols = tuple(listify(by)) if by is not None else None
        if by_cols is not None and by_cols not in self._cache:
            got = self._collect_tables(by_cols, frames, engine=engine, pairs=pairs)
        else:
            with scanning(self.source.origin):
                got = pl.collect_all(frames, engine=engine)
        collected: list[dict[str, pl.LazyFrame]] = [{} for _ in grains]
        for (i, name, _), frame in zip(flat, got, strict=True):
            collected[i][name] = frame.lazy()
        kept = self._cache[by_cols] if by_cols is not None else CellTables(pl.LazyFrame(), pl.LazyFrame(), ())
        return kept, collected

    def curve(
        self,
        kind: CurveKind = "roc",
        operator: str | None = None,
        *,
        by: str | Sequence[str] | None = None,
        engine: Engine = "auto",
    ) -> pl.DataFrame:
        """The ROC or precision-recall curve per group, as a tidy frame.

        Parameters
        ----------
        kind
            ``"roc"`` (columns ``fpr``, ``tpr``) or ``"pr"`` (``precision``, ``recall``).
        operator
            ``None``: one curve per class (one-vs-rest), with a ``class`` column;
            ``"micro"``: the curve of the pooled (flattened) entries; ``"macro"``:
            the classes' curves averaged. A macro ROC curve interpolates every
            class's tpr linearly at the union of all classes' fpr values (as
            ``np.interp`` in scikit-learn's ROC example; at a vertical step, its
            top) and averages over the classes with positives and negatives. A
            macro PR curve reads every class's precision as average precision
            does (at recall ``r``, the precision of the highest threshold
            reaching ``r``) at the union of the recall values, averaged over the
            classes with positives, so that its step area is the macro AP. Both
            have ``n_classes`` (the classes averaged) and no threshold.
        by
            Group columns: one curve per group (a null key is a group).

        Returns
        -------
        polars.DataFrame
            by..., [class], threshold, fpr, tpr (or precision, recall), in
            descending threshold order. Per class and micro, the points are
            scikit-learn's: ``roc_curve(drop_intermediate=False)`` (first row at
            threshold ``inf``, (0, 0)) and ``precision_recall_curve`` (its last
            point, precision 1 and recall 0, is the row of threshold ``inf``); a
            prediction is positive when ``score >= threshold``. A curve without
            negatives (positives) has null fpr (tpr, recall) where scikit-learn
            has NaN. With ``bins=N`` the points are the exact curve's at the
            thresholds ``q/N``.

        Examples
        --------
        >>> import polars as pl, aggframe as af
        >>> df = pl.DataFrame({"example": [0, 0, 1, 1, 2, 2], "class": [0, 1] * 3,
        ...                    "score": [0.8, 0.2, 0.4, 0.6, 0.3, 0.7], "y": [1, 0, 0, 1, 1, 0]})
        >>> af.from_scores(df, decision="argmax").curve("roc", "micro")
        shape: (7, 3)
        ┌───────────┬──────────┬──────────┐
        │ threshold ┆ fpr      ┆ tpr      │
        │ ---       ┆ ---      ┆ ---      │
        │ f64       ┆ f64      ┆ f64      │
        ╞═══════════╪══════════╪══════════╡
        │ inf       ┆ 0.0      ┆ 0.0      │
        │ 0.8       ┆ 0.0      ┆ 0.333333 │
        │ 0.7       ┆ 0.333333 ┆ 0.333333 │
        │ 0.6       ┆ 0.333333 ┆ 0.666667 │
        │ 0.4       ┆ 0.666667 ┆ 0.666667 │
        │ 0.3       ┆ 0.666667 ┆ 1.0      │
        │ 0.2       ┆ 1.0      ┆ 1.0      │
        └───────────┴──────────┴──────────┘
        """
        source = self._scored("curve()")
        chosen = parse_curve(kind)
        op = None if operator is None else parse_operator(operator)
        if op not in (None, "micro", "macro"):
            msg = f"curve() takes operator=None (per class), 'micro' or 'macro', got {operator!r}"
            raise OptionError(msg)
        sf = source.score_frame(listify(by))
        with scanning(self.source.origin):
            out = curve_frame(sf, chosen, op).collect(engine=engine)
        return self._restored(out, sf, "curve")

    def calibration(
        self,
        bins: int = 15,
        strategy: Strategy = "uniform",
        *,
        operator: str | None = None,
        by: str | Sequence[str] | None = None,
        engine: Engine = "auto",
    ) -> pl.DataFrame:
        """The reliability table per group (and class), as ``sklearn.calibration.calibration_curve``.

        Parameters
        ----------
        bins, strategy
            scikit-learn's ``n_bins`` and ``strategy``: ``"uniform"`` (edges
            ``np.linspace(0, 1, bins + 1)``) or ``"quantile"`` (edges at the
            scores' percentiles, NumPy's linear interpolation, bit for bit).
        operator
            ``None``: one table per class (the one-vs-rest column); ``"micro"``:
            the pooled entries.
        by
            Group columns.

        Returns
        -------
        polars.DataFrame
            by..., [class], bin, lower, upper, mean_score (``prob_pred``),
            frequency (``prob_true``), count; empty bins are left out. The
            expected calibration error is ``sum(count * |frequency - mean_score|)
            / sum(count)`` (the ``ece`` measure, with 15 uniform bins). With
            ``from_scores(bins=N)``, a quantisation cell goes to the calibration
            bin of its mean score (exact when every calibration edge is a cell
            edge, e.g. uniform calibration bins whose count divides ``N``).

        Examples
        --------
        >>> import polars as pl, aggframe as af
        >>> df = pl.DataFrame({"score": [0.1, 0.3, 0.35, 0.8, 0.9], "y": [0, 0, 1, 1, 1]})
        >>> af.from_scores(df, class_=None).calibration(bins=2).drop("class")
        shape: (2, 6)
        ┌─────┬───────┬───────┬────────────┬───────────┬───────┐
        │ bin ┆ lower ┆ upper ┆ mean_score ┆ frequency ┆ count │
        │ --- ┆ ---   ┆ ---   ┆ ---        ┆ ---       ┆ ---   │
        │ i64 ┆ f64   ┆ f64   ┆ f64        ┆ f64       ┆ i64   │
        ╞═════╪═══════╪═══════╪════════════╪═══════════╪═══════╡
        │ 0   ┆ 0.0   ┆ 0.5   ┆ 0.25       ┆ 0.333333  ┆ 3     │
        │ 1   ┆ 0.5   ┆ 1.0   ┆ 0.85       ┆ 1.0       ┆ 2     │
        └─────┴───────┴───────┴────────────┴───────────┴───────┘
        """
        source = self._scored("calibration()")
        source.check_probabilities("calibration()")
        if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
            msg = f"Expected `bins` to be a positive integer, got {bins!r}"
            raise OptionError(msg)
        how = parse_strategy(strategy)
        op = None if operator is None else parse_operator(operator)
        if op not in (None, "micro"):
            msg = f"calibration() takes operator=None (per class) or 'micro', got {operator!r}"
            raise OptionError(msg)
        sf = source.score_frame(listify(by))
        with scanning(self.source.origin):
            out = calibration_frame(sf, bins=bins, strategy=how, operator=op).collect(engine=engine)
        return self._restored(out, sf, "calibration")

    def best_threshold(
        self,
        measure: MeasureLike,
        operator: str | None = None,
        *,
        by: str | Sequence[str] | None = None,
        per_class: bool = False,
        convention: str = "exclude",
        engine: Engine = "auto",
    ) -> pl.DataFrame:
        """The score threshold that maximises a measure, and the measure's value there.

        The candidates are every distinct score and ``inf`` (nothing predicted);
        a prediction is positive when ``score >= threshold``. The cells at every
        threshold are the cumulative sums of the ROC curve, so this is one more
        small aggregation over the per-score table.

        Parameters
        ----------
        measure
            Any registered measure of the four cells (name, alias or
            :class:`Measure`).
        operator
            ``"micro"`` (default): one threshold for the pooled entries;
            ``"macro"`` / ``"weighted"``: one threshold for all classes,
            maximising the (support-weighted) mean of the per-class values, with
            undefined class values resolved by ``convention``.
        by
            Group columns: one threshold per group.
        per_class
            One threshold per class instead, each maximising its class's value
            (no ``operator`` then).
        convention
            For ``macro`` / ``weighted``: ``exclude``, ``zero``, ``one`` or ``nan``.

        Returns
        -------
        polars.DataFrame
            by..., [class], threshold, value, and for micro and per class the
            cells there (tp, fp, fn, tn). Undefined values are never chosen;
            when several thresholds reach the maximum the **largest** wins (the
            fewest positive predictions); a group where the measure is undefined
            everywhere gets nulls. ``from_scores(decision="threshold")`` predicts
            ``score > threshold``: pass a value just below this one (the next
            lower score, or any value between) to reproduce the decisions.

        Examples
        --------
        >>> import polars as pl, aggframe as af
        >>> df = pl.DataFrame({"score": [0.2, 0.7, 0.4, 0.9], "y": [1, 1, 0, 1]})
        >>> af.from_scores(df, class_=None).best_threshold("f1").select("threshold", "value")
        shape: (1, 2)
        ┌───────────┬──────────┐
        │ threshold ┆ value    │
        │ ---       ┆ ---      │
        │ f64       ┆ f64      │
        ╞═══════════╪══════════╡
        │ 0.2       ┆ 0.857143 │
        └───────────┴──────────┘
        """
        source = self._scored("best_threshold()")
        meas = get_measure(measure)
        conv = parse_convention(convention)
        if per_class and operator is not None:
            msg = "per_class=True picks one threshold per class; operator= does not apply"
            raise OptionError(msg)
        op = "micro" if operator is None else parse_operator(operator)
        if op == "exemplar":
            msg = "best_threshold() takes operator 'micro', 'macro' or 'weighted' (a threshold is per entry)"
            raise OptionError(msg)
        sf = source.score_frame(listify(by))
        frame = best_threshold_frame(sf, meas, operator=op, per_class=per_class, convention=conv)
        with scanning(self.source.origin):
            out = frame.collect(engine=engine)
        return self._restored(out, sf, "best_threshold")

    def auroc_bound(
        self, operator: str | None = None, *, by: str | Sequence[str] | None = None, engine: Engine = "auto"
    ) -> pl.DataFrame:
        """The bound on the AUROC error of ``from_scores(bins=N)``, per group (and class).

        Quantisation changes only pairs of a positive and a negative entry in
        one cell (their 1, 0 or 1/2 becomes 1/2), so ``|AUROC_binned - AUROC| <=
        sum_q pos_q neg_q / (2 P N)``, computed from the binned table itself.
        Exact predictions (no ``bins``) give 0. ``operator``: ``None`` (per
        class, the macro entries) or ``"micro"`` (the pooled entries).

        Returns
        -------
        polars.DataFrame
            by..., [class], bound (null where the AUROC is undefined).
        """
        source = self._scored("auroc_bound()")
        op = None if operator is None else parse_operator(operator)
        if op not in (None, "micro"):
            msg = f"auroc_bound() takes operator=None (per class) or 'micro', got {operator!r}"
            raise OptionError(msg)
        sf = source.score_frame(listify(by))
        with scanning(self.source.origin):
            out = bound_frame(sf, operator=op).collect(engine=engine)
        if sf.bins is None:
            out = out.with_columns(pl.when(pl.col("bound").is_not_null()).then(0.0).alias("bound"))
        return self._restored(out, sf, "auroc_bound")

    def _restored(self, out: pl.DataFrame, sf: ScoreFrame, what: str) -> pl.DataFrame:
        names = {k: sf.names[k] for k in sf.row_keys}
        check_result_names(names.values(), [c for c in out.columns if c not in names], what)
        return cast("pl.DataFrame", restore(out, names))

    @tracked("compare")
    def compare(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = None,
        operators: str | Sequence[str] | None = None,
        *,
        by: str | Sequence[str],
        control: str | Sequence[str] | None = None,
        convention: str | Sequence[str] = "exclude",
        reference: dict[str, Any] | None = None,
        summary: bool = False,
        n_boot: int | None = None,
        level: float = 0.95,
        seed: int = 0,
        cluster: str | None = None,
    ) -> pl.DataFrame:
        """Groups against the overall value (and a reference group), like fairlearn's MetricFrame.

        One row per group x measure x operator x convention: ``value``,
        ``overall``, ``difference_to_overall``, ``ratio_to_overall`` and, with
        ``reference={"col": value}``, the same against that group. With
        ``summary=True``, one row per measure x operator x convention instead:
        ``overall``, ``group_min``, ``group_max``, ``argmin``, ``argmax``,
        ``difference`` (max - min) and ``ratio`` (min / max). Ratios with a zero
        denominator are null. One scan (the overall row is a grouping set).

        ``control=`` (fairlearn's ``control_features``) compares within each
        level of the control columns: with ``by=["model", "segment"],
        control="model"`` each segment is held against its own model's overall,
        not the all-models overall; a reference names the compared columns only
        and is taken within each level (null where a level lacks it), and the
        summary has one row per level. A control column not in ``by`` is added
        in front of it; a null control key is a level. Still one scan (grouping
        sets ``[by, control]``).

        With ``n_boot`` (and ``level``, ``seed``, ``cluster``: see :meth:`evaluate`)
        every value, difference and ratio gets a bootstrap interval
        (``<column>_ci_low``, ``<column>_ci_high``, ``<column>_se``; the value's are
        ``ci_low``, ``ci_high``, ``se``) from the same replicates, so a difference
        between two models scored on the same examples is paired (an example has
        one weight in both: pass ``example=`` when building the predictions);
        ``difference_to_reference_excludes_zero`` and
        ``difference_to_overall_excludes_zero`` say whether the interval excludes
        zero. ``reference`` may then name some of the ``by`` columns: the others
        are matched (``{"model": "A"}`` with ``by=["model", "day"]`` compares each
        model with A on the same day).

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

        Within each level of a control column:

        >>> df = df.with_columns(m=pl.Series(["x", "y", "x", "y"]))
        >>> got = af.from_labels(df).compare("recall", "micro", by="g", control="m")
        >>> got.select("m", "g", "value", "overall").sort("m", "g").rows()
        [('x', 'a', 1.0, 0.5), ('x', 'b', 0.0, 0.5), ('y', 'a', 1.0, 1.0), ('y', 'b', 1.0, 1.0)]
        """
        ctrl = listify(control)
        keys = compare_keys(listify(by), ctrl) if listify(by) else []
        if not keys:
            msg = "compare needs by= columns (the groups to compare)"
            raise OptionError(msg)
        request = self.request(
            measures, operators, by=keys, convention=convention, grouping_sets=[keys, ctrl]
        )
        boot = parse_bootstrap(n_boot, level=level, seed=seed, cluster=cluster)
        if boot is not None:
            if summary or ctrl:
                msg = (
                    "summary=True and control= with n_boot= are not supported: compare the groups "
                    "against the overall (summary=False, no control)"
                )
                raise OptionError(msg)
            report, names = self.report(request, boot=boot)
            return compare_boot(evaluating(report), names, keys, reference=reference, boot=boot)
        report, names = self.report(request)
        return compare_report(
            evaluating(report), names, keys, reference=reference, summary=summary, control=ctrl
        )

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
        if str(operator).strip().lower() == "multiclass":
            msg = (
                "the multiclass operator gives one whole-matrix value per group; it has no parts "
                "(its input is pr.confusion_matrix())"
            )
            raise OptionError(msg)
        meas = get_measure(measure)
        op = parse_operator(operator)
        by_cols = listify(by)
        tables = self.cell_tables(by_cols)
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
        defined, support (``tp + fn``), tp, fp, fn, tn. The counts are Int64
        on crisp data and Float64 on soft data (:attr:`crisp`).

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
        names = listify(measures, scalar=(str, Measure)) or list_measures()
        ms = unique_in_order(get_measure(m) for m in names)
        tables = self.cell_tables(by)
        out = self.per_class_table(tables, ms, _class_subset(classes, labels)).collect()
        if self.crisp:
            out = out.with_columns(pl.col("support", *CELLS).round().cast(pl.Int64))
        return cast("pl.DataFrame", restore(out, self.key_names(tables, PER_CLASS_COLUMNS, "per_class")))

    @property
    def crisp(self) -> bool:
        """Whether every cell is a count (no t-norm): per-class counts are then integers.

        Stored cells are crisp when their store says so (stores written before it
        did are taken as possibly soft).
        """
        if self.source.soft:
            return False
        if isinstance(self.source, StoredSource):
            return self.source.meta.get("soft") is False
        return True

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
        """Single-label confusion counts per group: by..., ``true``, ``pred``, ``n`` (pairs with n > 0).

        For the label form (the counts of its one scan) and for one-hot long data
        (one grouped query, run where the rows are: only the counts cross to Polars).
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
        tables = self.with_pairs(self.cell_tables(by_cols), by_cols, what="the confusion matrix")
        columns = ["y_true", "y_pred", "count", *(["rate"] if normalize is not None else [])]
        names = self.key_names(tables, columns, "confusion_matrix")
        return cast("pl.DataFrame", restore(confusion_frame(tables, normalize).collect(), names))

    def confusion_array(self) -> tuple[np.ndarray, list[Any]]:
        """``(C, classes)``: ``C[j, k]`` examples of true class j predicted k, classes in universe order.

        The NumPy view of :meth:`confusion_matrix` (one group, no target or fold
        role); single-label data only. This was ``confusion_matrix()`` in aggframe 0.1.

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

    # -- stores -----------------------------------------------------------------------------
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
        """
        keys = listify(by)
        tables = self.store_tables(keys)
        meta = source_meta(self.source, single_label=self._single_label())
        return write_store(tables, path, by=keys, meta=meta, origin=self.source.origin, overwrite=overwrite)

    def store_tables(self, by: Sequence[str], *, engine: Engine = "auto") -> CellTables:
        """The cell tables a store (or :class:`~aggframe.Cells`) keeps: with the confusion counts on single-label data."""
        # (a lambda: the label form answers without collecting anything)
        single = self.source.single_label(lambda: self.cell_tables(by, engine=engine).profiles.collect())  # noqa: PLW0108
        wanted = single and not self.source.binary and not self.source.soft and self.form != "cells"
        return self.cell_tables(by, engine=engine, pairs=wanted)

    @tracked("to_cells")
    def to_cells(self, by: str | Sequence[str] | None = None, *, engine: Engine = "auto") -> Cells:
        """The cell tables per ``by`` group as an :class:`~aggframe.Cells` value: small, picklable, adds up.

        ``a + b`` and ``sum([...])`` add cells of different parts of the data
        (days, shards, Spark tasks) exactly; :meth:`Cells.evaluate
        <aggframe.Cells.evaluate>` evaluates them as :meth:`evaluate` would the
        rows. One scan (the cell tables of this grouping are kept); on
        single-label data the confusion counts too, as :meth:`write_cells` keeps them.

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
        keys = listify(by)
        tables = self.store_tables(keys, engine=engine)
        # whether the examples are single-label, from this grouping's profiles (no second scan)
        single = self.source.single_label(lambda: tables.profiles.collect())  # noqa: PLW0108
        return cells_of(
            tables,
            by=keys,
            layout=source_meta(self.source, single_label=single),
            covers=origin_covers(self.source.origin),
        )

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
