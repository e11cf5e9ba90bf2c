"""The report in the façade: the parsed request, the one report builder's plan, and ``compare``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from aggframe._columns import (
    KEY_ALL,
    by_key,
    check_result_names,
    restore,
)
from aggframe._options import (
    Bootstrap,
    CompareColumns,
    Convention,
    Engine,
    ReportOperator,
    listify,
    parse_bootstrap,
    parse_compare_columns,
)
from aggframe._progress import evaluating, run_stage, tracked
from aggframe.exceptions import OptionError
from aggframe.facade.scores import ScoreMethods
from aggframe.measures.measure import MeasureLike
from aggframe.operators.bootstrap import compare_boot
from aggframe.operators.compare import compare_keys, compare_report
from aggframe.operators.compare_columns import compare_columns
from aggframe.operators.report import ReportRequest, build_report
from aggframe.tables.cells import small_tables


def finished_report(
    report: pl.LazyFrame, names: dict[str, str], *, lazy: bool, engine: Engine, small: bool
) -> pl.DataFrame | pl.LazyFrame:
    """The report with the user's key names (checked against its columns), collected unless ``lazy``.

    Eager, the report is a plan over the collected cell tables (the narrow step):
    its columns are read from the collected frame, since a plan's schema costs
    what planning it does (~7 ms of a ~40 ms narrow step of 21 measures x 4
    operators). ``small``: the plan reads collected tables of at most
    :data:`~aggframe.tables.cells.SMALL_TABLES` rows, and ``engine="auto"`` runs it on the in-memory
    engine without optimizations (the same results, sooner).
    """
    if lazy:
        _check_report_names(report.collect_schema().names(), names)
        out: pl.DataFrame | pl.LazyFrame = restore(report, names)
        return out
    if small and engine == "auto":
        fast = pl.QueryOptFlags.none()
        frame = run_stage("evaluating", report.collect, engine="in-memory", optimizations=fast)
    else:
        frame = evaluating(report, engine=engine)
    _check_report_names(frame.columns, names)
    collected: pl.DataFrame = restore(frame, names)
    return collected


def _check_report_names(columns: Sequence[str], names: dict[str, str]) -> None:
    """Refuse a by-key whose user name is one of the report's other columns."""
    check_result_names(names.values(), [c for c in columns if c not in names and c != KEY_ALL], "evaluate")


class ReportMethods(ScoreMethods):
    """A frozen :class:`~aggframe.operators.report.ReportRequest` and its report (cell measures, scores, bootstrap)."""

    def _request(  # noqa: PLR0913 -- the options of evaluate, keyword-only
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
            binary_task=self.source.binary,
        )

    def _report(
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
        if boot is not None and request.needs_pairs:
            msg = (
                "n_boot= intervals of the multiclass operator cover the measures of the matrix's margins "
                "(mcc, kappa, balanced accuracy, accuracy); the weighted kappas read every confusion count "
                "and have none yet: evaluate them without n_boot"
            )
            raise OptionError(msg)
        if request.scores:
            return self._score_report(request, lazy=lazy, engine=engine, boot=boot)
        if boot is not None:
            tables = self._boot_tables(request.by, boot, engine=engine, lazy=lazy)
        elif lazy:
            tables = self._source_tables(request.by, pairs=request.needs_pairs)
        else:
            # the confusion counts only when the weighted kappas ask (the label form: same scan)
            tables = self._cell_tables(request.by, engine=engine, pairs=request.needs_pairs)
        if request.needs_pairs:
            tables = self._with_pairs(tables, request.by, lazy=lazy, what="the weighted kappas")
        elif request.matrix_measures:
            self._check_single_label("the multiclass operator", request.by)  # its margins are the class cells
        needs_dtype = request.classes is not None or "binary" in request.operators
        out = build_report(
            tables,
            request,
            folds=self.source.fold_keys(),
            class_dtype=self.source.class_dtype() if needs_dtype else None,
        )
        keys = {*(by_key(i) for i in range(len(request.by))), *self.source.fold_keys()}
        return out, {k: v for k, v in tables.names.items() if k in keys}

    def _small_tables(self, request: ReportRequest, boot: Bootstrap | None) -> bool:
        """Whether the eager report of ``request`` reads kept cell tables of at most
        :data:`~aggframe.tables.cells.SMALL_TABLES` rows (not for measures on scores or the
        bootstrap: their plans read more than the kept tables)."""
        tables = None if request.scores or boot is not None else self._cache.get(tuple(request.by))
        return tables is not None and small_tables(tables)

    @tracked("compare")
    def compare(  # noqa: PLR0913 -- the user's options, keyword-only
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = None,
        operators: ReportOperator | Sequence[ReportOperator] | None = None,
        *,
        by: str | Sequence[str],
        control: str | Sequence[str] | None = None,
        convention: Convention | Sequence[Convention] = "exclude",
        reference: dict[str, Any] | None = None,
        summary: bool = False,
        n_boot: int | None = None,
        level: float = 0.95,
        seed: int = 0,
        cluster: str | None = None,
        columns: CompareColumns = "lean",
    ) -> pl.DataFrame:
        """Groups against the overall value (and a reference group), like fairlearn's MetricFrame.

        One row per group x measure x operator x convention: ``value``,
        ``overall``, ``difference_to_overall``, ``ratio_to_overall`` and, with
        ``reference={"col": value}``, the same against that group. With
        ``summary=True``, one row per measure x operator x convention instead:
        ``overall``, ``group_min``, ``group_max``, ``argmin``, ``argmax`` (the
        groups' labels, as the charts give them: ``(null)`` for a null key, the
        keys joined with `` · ``), ``difference`` (max - min) and ``ratio``
        (min / max). Ratios with a zero denominator are null. One scan (the
        overall row is a grouping set).

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

        ``columns="lean"`` (the default) returns the keys, ``measure``,
        ``operator``, ``convention``, ``value`` (``ci_low``, ``ci_high``), and the
        comparison: with ``reference`` the columns ``reference`` and
        ``difference_to_reference`` (and no pooled overall value at all), without
        it ``overall`` and ``difference_to_overall``; with ``n_boot`` that
        difference's ``_ci_low``, ``_ci_high``, ``_excludes_zero`` and ``level``.
        ``columns="all"`` returns every column: ``n_entries``, ``n_undefined``, the
        ratios, the standard errors (``*_se``), ``n_boot``, and with a reference
        the overall columns too (the default before the lean columns).
        ``summary=True`` is not affected.

        Parameters
        ----------
        measures, operators
            As in :meth:`evaluate` (default: every built-in measure; micro and macro).
        by
            The group columns to compare (required).
        control
            Columns whose levels are compared within (fairlearn's ``control_features``).
        convention
            What undefined entries become, one or several.
        reference
            ``{column: value}``: the group every other is compared with (a ``None`` value is
            the null key).
        summary
            ``True``: one row per measure x operator x convention with the groups' min, max,
            which groups, their difference and ratio.
        n_boot, level, seed, cluster
            Bootstrap intervals for every value, difference and ratio (see :meth:`evaluate`).
        columns
            ``"lean"`` (the default) or ``"all"``: which columns come back (above).

        Returns
        -------
        pl.DataFrame
            One row per group x measure x operator x convention (or per measure x operator x
            convention with ``summary=True``), the columns described above.

        Raises
        ------
        OptionError
            ``reference`` naming a column not in ``by``, a group that does not exist,
            ``summary=True`` or ``control`` with ``n_boot``, or an option ``evaluate`` refuses.
        ColumnNotFoundError
            A ``by`` or ``control`` column that is not in the data.

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
        chosen = parse_compare_columns(columns)
        # against a reference group the lean columns need no overall value: its grouping set is left out
        lean_ref = chosen == "lean" and reference is not None and not ctrl and not summary
        request = self._request(
            measures,
            operators,
            by=keys,
            convention=convention,
            grouping_sets=[keys] if lean_ref else [keys, ctrl],
        )
        boot = parse_bootstrap(n_boot, level=level, seed=seed, cluster=cluster)
        if boot is not None:
            if summary or ctrl:
                msg = (
                    "summary=True and control= with n_boot= are not supported: compare the groups "
                    "against the overall (summary=False, no control)"
                )
                raise OptionError(msg)
            report, names = self._report(request, boot=boot)
            report = report.drop("n_examples")  # compare keeps its columns (the groups' sizes: evaluate)
            out = compare_boot(evaluating(report), names, keys, reference=reference, boot=boot)
        else:
            report, names = self._report(request)
            report = report.drop("n_examples")
            out = compare_report(
                evaluating(report), names, keys, reference=reference, summary=summary, control=ctrl
            )
        if summary:
            return out
        return compare_columns(out, keys, reference=reference is not None, columns=chosen)
