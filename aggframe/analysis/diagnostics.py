"""Diagnostics: when a reported number misleads, per group, as a tidy frame.

Each check is a result about when a measure behaves as a reader assumes, and a
row fires when it does not (codes as in aggmetrics 0.2.0):

``outside_hull``        the pooled (micro) value lies outside the range of the per-class
                        values, so no weighting of them gives it (non-decomposable measure)
``inflated_floor``      a tn-dependent measure on one-hot data with m > 2 classes cannot
                        reach its nominal minimum even when every prediction is wrong
``micro_collapse``      micro precision, recall and F1 all equal accuracy on single-label data
``undefined_entries``   undefined per-class / per-example entries, with the value under
                        ``exclude`` and under ``zero`` (the size of the convention effect)
``degenerate_optimum``  the measure is maximised by predicting everything positive (or negative)
``not_erm_consistent``  the optimal threshold is not 0.5, so standard training does not target it
``ovr_skew_drift``      asymmetric off-diagonal errors make one-vs-rest specificity and
                        balanced accuracy drift with the class priors
``redundant_suite``     more measures than the confusion matrix has degrees of freedom
``inferred_task``       (aggframe's own) the long form's task was read off the data, not
                        stated with ``task=``; it decides accuracy, suites and degrees of freedom

All checks come from the cell tables of one scan (and, for the drift check on
single-label data, the confusion counts): group-bys, not loops over groups.

Scope: a finding about the measures or the task alone (``degenerate_optimum``,
``not_erm_consistent``, ``inferred_task``), or one that depends only on the number of
classes when every group has the same classes (``inflated_floor``,
``redundant_suite``), is reported once with ``scope`` ``"all"`` and null by-keys; a
finding about the data of one group has ``scope`` ``"group"`` and that group's keys
(which may be null: a null key is a group). Rows come ranked: warnings before notes,
then by code, then ``"all"`` before the groups, then by keys.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from aggframe._columns import CLASS, KEY_ALL, by_key, check_result_names, restore
from aggframe._options import listify, parse_report_operator
from aggframe.exceptions import OptionError
from aggframe.measures.measure import Measure
from aggframe.measures.registry import get_measure
from aggframe.operators.classes import absent_values, class_table
from aggframe.operators.matrix import confusion_frame
from aggframe.tables.cells import CellTables, group_table, sum_to

if TYPE_CHECKING:
    from aggframe.predictions import Predictions

__all__ = ["DIAGNOSTIC_COLUMNS", "MeasureWarning", "deviation_frame", "diagnose", "uniform_error_deviation"]

DEFAULT_MEASURES = (
    "precision",
    "recall",
    "f1",
    "balanced_accuracy",
    "gmean",
    "mcc",
    "label_accuracy",
    "specificity",
)
DIAGNOSTIC_COLUMNS = (
    "scope",
    "code",
    "severity",
    "measure",
    "operator",
    "message",
    "value",
    "lower",
    "upper",
)
DRIFTING = ("specificity", "balanced_accuracy", "gmean", "informedness")
#: the order of the findings: warnings first
SEVERITIES = ("warning", "note")
#: ``scope`` of a finding about every group at once / about one group
ALL, GROUP = "all", "group"


class MeasureWarning(UserWarning):
    """A measure is used outside the range where it behaves as commonly assumed."""


def _fmt(x: pl.Expr) -> pl.Expr:
    """A number for a message: four decimals, and no ``-0.0`` (a value off zero in its last bits)."""
    r = x.round(4)
    return pl.when(r == 0).then(pl.lit(0.0)).otherwise(r).cast(pl.String)


@dataclass(frozen=True)
class _Context:
    """What every check of :func:`diagnose` reads: the report, the cell tables and the class counts."""

    pr: Predictions
    measure_of: dict[str, Measure]
    user_keys: list[str]
    #: the private key columns the work runs on (the user's names come back at the end)
    keys: list[str]
    key_types: dict[str, pl.DataType]
    report: pl.DataFrame
    tables: CellTables
    #: per-class values of the classes that occur, and each group's absent classes once
    per_class: pl.DataFrame
    #: the number of classes per group (``_m``)
    classes: pl.DataFrame
    #: the class counts a count-only finding is stated for (one row when every group has the same)
    by_classes: pl.DataFrame
    classes_scope: str

    @property
    def names(self) -> list[str]:
        return list(self.measure_of)

    @property
    def single(self) -> bool:
        return self.pr.kind == "multiclass"

    @property
    def binary(self) -> bool:
        return self.pr.kind == "binary"

    @property
    def exclude(self) -> pl.DataFrame:
        return self.report.filter(pl.col("convention") == "exclude")

    def finding(
        self, frame: pl.DataFrame, code: str, severity: str, operator: str | None, scope: str = GROUP
    ) -> pl.DataFrame:
        """``frame`` (measure, message, value, lower, upper) as rows of findings."""
        return frame.select(
            *[
                pl.col(k) if scope == GROUP else pl.lit(None, dtype=self.key_types[k]).alias(k)
                for k in self.keys
            ],
            pl.lit(scope).alias("scope"),
            pl.lit(code).alias("code"),
            pl.lit(severity).alias("severity"),
            "measure",
            pl.lit(operator, dtype=pl.String).alias("operator"),
            "message",
            *[
                (pl.col(c) if c in frame.columns else pl.lit(None)).cast(pl.Float64).alias(c)
                for c in ("value", "lower", "upper")
            ],
        )


def _check_hull(hull: str) -> None:
    if hull not in ("macro", "weighted", "exemplar"):
        msg = (
            "Expected `hull` to be 'macro' or 'weighted' (per-class values) or 'exemplar' "
            f"(per-example values), got {hull!r}"
        )
        raise OptionError(msg)


def _prepare_context(
    pr: Predictions, measures: Sequence[str | Measure] | None, by: str | Sequence[str] | None
) -> tuple[_Context, dict[str, str]]:
    """The one report (micro, macro, exemplar under two conventions), the cell tables, the per-class
    values and the class counts; and the private key names with the user's."""
    # Measure objects are kept as given: an unregistered af.Measure works as a registered one
    measure_of: dict[str, Measure] = {}
    for m in listify(measures, scalar=(str, Measure)) or DEFAULT_MEASURES:
        found = get_measure(m)
        measure_of.setdefault(found.name, found)
    user_keys = [by] if isinstance(by, str) else list(by or [])
    keys = [by_key(i) for i in range(len(user_keys))]
    request = pr.extend.request(
        list(measure_of.values()),
        ["micro", "macro", "exemplar"],
        by=user_keys,
        convention=["exclude", "zero"],
    )
    report_lf, key_names = pr.extend.report(request)
    report = report_lf.collect()
    tables = pr.extend.cell_tables(user_keys)
    # the classes that occur, and each group's absent classes once (their one value): the
    # hull of the per-class values without filling the universe in (issue #19)
    ms = list(measure_of.values())
    per_class = pl.concat(
        [
            class_table(tables, ms, filled=False).select(*keys, "measure", "value", "defined"),
            absent_values(tables, ms).select(*keys, "measure", "value", "defined"),
        ],
        how="vertical_relaxed",
    ).collect()
    class_counts = group_table(tables).select(*keys, pl.col("n_classes").alias("_m")).collect()
    classes = class_counts if keys else class_counts.with_columns(pl.lit(0).alias("_all"))
    # a finding that depends on the number of classes only is stated once when every group has the same
    shared = classes.get_column("_m").n_unique() <= 1
    by_classes, classes_scope = (classes.head(1), ALL) if shared else (classes, GROUP)
    context = _Context(
        pr=pr,
        measure_of=measure_of,
        user_keys=user_keys,
        keys=keys,
        key_types={k: report.schema[k] for k in keys},
        report=report,
        tables=tables,
        per_class=per_class,
        classes=classes,
        by_classes=by_classes,
        classes_scope=classes_scope,
    )
    return context, key_names


def _outside_hull(ctx: _Context, hull: str) -> pl.DataFrame:
    """1. The pooled (micro) value outside the range of the per-class (or per-example) values."""
    keys, names, measure_of = ctx.keys, ctx.names, ctx.measure_of
    if hull == "exemplar":
        # per-example values are constant across the examples of a profile
        columns = {f"_v{i}": n for i, n in enumerate(names)}
        entries = (
            ctx.tables.profiles.select(*keys, *[measure_of[n].expr().alias(c) for c, n in columns.items()])
            .unpivot(on=list(columns), index=keys, variable_name="measure", value_name="value")
            .with_columns(
                pl.col("measure").replace_strict(columns, return_dtype=pl.String),
                pl.col("value").is_not_null().alias("defined"),
            )
            .collect()
        )
    else:
        entries = ctx.per_class
    hull_range = (
        entries.filter("defined")
        .group_by([*keys, "measure"])
        .agg(pl.col("value").min().alias("lower"), pl.col("value").max().alias("upper"))
    )
    micro = ctx.exclude.filter(pl.col("operator") == "micro").select(*keys, "measure", "value")
    outside = micro.join(hull_range, on=[*keys, "measure"], nulls_equal=True).filter(
        pl.col("value").is_not_nan()
        & ((pl.col("value") < pl.col("lower") - 1e-12) | (pl.col("value") > pl.col("upper") + 1e-12))
    )
    message = pl.format(
        "micro-{} = {} lies outside the range of the per-"
        + ("example" if hull == "exemplar" else "class")
        + " values [{}, {}], so it is not a weighted average of them; {} is not "
        "aggregation-decomposable",
        "measure",
        _fmt(pl.col("value")),
        _fmt(pl.col("lower")),
        _fmt(pl.col("upper")),
        "measure",
    )
    return ctx.finding(outside.with_columns(message.alias("message")), "outside_hull", "warning", "micro")


def _inflated_floor(ctx: _Context) -> pl.DataFrame | None:
    """2. tn-dependent measures on one-hot data with more than two classes: their floor."""
    if not ctx.single or ctx.binary:
        return None
    names, measure_of, classes = ctx.names, ctx.measure_of, ctx.classes
    tn_dependent = [n for n in names if measure_of[n].tn_dependent_at_zero]
    sizes = [int(m) for m in classes["_m"].unique().to_list() if int(m) > 2]
    floors = pl.DataFrame(
        [
            {"measure": n, "_m": m, "value": measure_of[n].attainable_floor(m)}
            for n in tn_dependent
            for m in sizes
        ],
        schema={"measure": pl.String, "_m": classes["_m"].dtype, "value": pl.Float64},
    )
    if not floors.height:
        return None
    grid = ctx.by_classes.join(floors, on="_m", nulls_equal=True)
    message = pl.format(
        "{} cannot fall below {} on this {}-class one-hot problem even if every prediction "
        "is wrong, because a misclassified example still contributes {} true negatives",
        "measure",
        _fmt(pl.col("value")),
        pl.col("_m"),
        pl.col("_m") - 2,
    )
    return ctx.finding(
        grid.with_columns(message.alias("message")), "inflated_floor", "warning", "micro", ctx.classes_scope
    )


def _micro_collapse(ctx: _Context) -> pl.DataFrame | None:
    """3. micro precision, recall and F1 all equal accuracy on single-label data."""
    if not ctx.single:
        return None
    collapse = (
        ctx.exclude.filter(
            pl.col("operator") == "micro", pl.col("measure").is_in(["precision", "recall", "f1"])
        )
        .group_by(ctx.keys or pl.lit(0).alias("_all"))
        .agg(pl.col("value").min().alias("lower"), pl.col("value").max().alias("upper"))
        .filter((pl.col("upper") - pl.col("lower")).abs() < 1e-9)
        .with_columns(
            pl.col("lower").alias("value"),
            pl.lit("precision, recall, f1").alias("measure"),
            pl.format(
                "micro-precision, micro-recall and micro-F1 all equal accuracy ({}) on single-label data; "
                "reporting more than one of them adds no information",
                _fmt(pl.col("lower")),
            ).alias("message"),
        )
    )
    return ctx.finding(collapse, "micro_collapse", "note", "micro")


def _undefined_entries(ctx: _Context) -> list[pl.DataFrame]:
    """4. Undefined entries, and the size of the convention effect (exclude against zero)."""
    # one class (the binary task): no per-example ranking to speak of. Read off the kept tables
    # of this grouping (the ungrouped ones refused example ids shared by two groups)
    tables = ctx.tables
    listed = tables.universe if tables.universe is not None else tables.classes
    one_class = listed.select(pl.col(CLASS).n_unique()).collect().item() == 1
    ops = ["macro"] if one_class else ["macro", "exemplar"]
    wide = (
        ctx.report.filter(pl.col("operator").is_in(ops))
        .pivot(
            on="convention",
            index=[*ctx.keys, "measure", "operator", "n_entries", "n_undefined"],
            values="value",
        )
        .filter(pl.col("n_undefined") > 0)
    )
    rows = []
    for op in ops:
        part = wide.filter(pl.col("operator") == op).with_columns(
            pl.col("exclude").alias("value"),
            pl.min_horizontal("exclude", "zero").alias("lower"),
            pl.max_horizontal("exclude", "zero").alias("upper"),
            pl.format(
                "{}-{} has {} of {} undefined entries; the reported value is {} under the exclusion convention "
                "and {} under substitution of zero (difference {})",
                "operator",
                "measure",
                "n_undefined",
                "n_entries",
                _fmt(pl.col("exclude")),
                _fmt(pl.col("zero")),
                _fmt((pl.col("exclude") - pl.col("zero")).abs()),
            ).alias("message"),
        )
        rows.append(ctx.finding(part, "undefined_entries", "warning", op))
    return rows


def _notes(ctx: _Context) -> list[dict[str, Any]]:
    """5. Measures whose optimum is not the Bayes rule for 0/1 loss (data-independent), and the
    task read off the data."""
    notes: list[dict[str, Any]] = []
    for n in ctx.names:
        m = ctx.measure_of[n]
        t = m.bayes_threshold()
        if m.erm_consistent() is False and t is not None:
            degenerate = t <= 1e-9 or t >= 1 - 1e-9
            side = "positive" if t <= 1e-9 else "negative"
            notes.append(
                {
                    "code": "degenerate_optimum" if degenerate else "not_erm_consistent",
                    "severity": "warning" if degenerate else "note",
                    "measure": n,
                    "message": (
                        f"{n} is maximised by predicting every instance {side} (threshold {round(t):d}): "
                        "a degenerate optimum"
                        if degenerate
                        else f"{n} is maximised at threshold {t:.3f}, not 0.5, so standard training does "
                        "not target it"
                    ),
                    "value": t,
                }
            )
    # the task was read off the data (long form without task=): say so, since it decides
    # standard accuracy, the degrees of freedom and the suites
    if ctx.pr.extend.kind_inferred:
        single = ctx.single
        reading = "single-label (multiclass)" if single else "multilabel"
        why = (
            "every example has exactly one true and one predicted class"
            if single
            else "some example has other than one true or one predicted class"
        )
        notes.append(
            {
                "code": "inferred_task",
                "severity": "note",
                "measure": None,
                "message": f"the predictions were read as {reading} because {why}; state task= "
                "('multiclass' or 'multilabel') when building them to fix the reading",
                "value": None,
            }
        )
    return notes


def _prior_drift(ctx: _Context) -> pl.DataFrame | None:
    """6. One-vs-rest prior drift from asymmetric off-diagonal errors."""
    if not (ctx.single and not ctx.binary and any(n in ctx.names for n in DRIFTING)):
        return None
    # per by-group (targets and folds summed, as the counts of this check always were)
    with_pairs = ctx.pr.extend.with_pairs(ctx.tables, ctx.user_keys, what="the ovr_skew_drift check")
    summed = sum_to(with_pairs, ctx.keys or [KEY_ALL])
    dev = (
        deviation_frame(summed)
        .drop(KEY_ALL, strict=False)
        .rename({"n_classes": "_m"})
        .collect()
        .filter((pl.col("_m") > 2) & (pl.col("value") >= 0.01))
        .with_columns(
            pl.lit("specificity, balanced_accuracy").alias("measure"),
            pl.format(
                "mean uniform-error deviation is {} >= 0.01; multiclass macro-specificity and "
                "macro-balanced-accuracy will drift under class prior shifts",
                _fmt(pl.col("value")),
            ).alias("message"),
        )
    )
    return ctx.finding(dev, "ovr_skew_drift", "note", "macro")


def _redundant_suite(ctx: _Context) -> pl.DataFrame:
    """7. More measures than the degrees of freedom of the confusion matrix."""
    names = ctx.names
    kind = "binary" if ctx.binary else ("multiclass" if ctx.single else "multilabel")
    dof = ctx.by_classes.with_columns(
        (
            pl.lit(2)
            if kind == "binary"
            else pl.col("_m") * (pl.col("_m") - 1)
            if kind == "multiclass"
            else 2 * pl.col("_m")
        ).alias("upper")
    ).filter(pl.lit(len(names)) > pl.col("upper"))
    return ctx.finding(
        dof.with_columns(
            pl.lit(", ".join(names)).alias("measure"),
            pl.lit(float(len(names))).alias("value"),
            pl.format(
                "the suite of {} measures exceeds the {} degrees of freedom of the confusion matrix; "
                "some of them carry redundant information",
                pl.lit(len(names)),
                "upper",
            ).alias("message"),
        ),
        "redundant_suite",
        "note",
        None,
        ctx.classes_scope,
    )


def _compute_findings(ctx: _Context, rows: list[pl.DataFrame], notes: list[dict[str, Any]]) -> pl.DataFrame:
    """The findings of every group and the notes stated once, in one frame."""
    out = (
        pl.concat([r for r in rows if r.height], how="vertical_relaxed")
        if any(r.height for r in rows)
        else None
    )
    frame = pl.DataFrame(
        notes,
        schema={
            "code": pl.String,
            "severity": pl.String,
            "measure": pl.String,
            "message": pl.String,
            "value": pl.Float64,
        },
    )
    frame = frame.select(
        *[pl.lit(None, dtype=ctx.key_types[k]).alias(k) for k in ctx.keys],
        pl.lit(ALL).alias("scope"),
        "code",
        "severity",
        "measure",
        pl.lit(None, dtype=pl.String).alias("operator"),
        "message",
        "value",
        pl.lit(None, dtype=pl.Float64).alias("lower"),
        pl.lit(None, dtype=pl.Float64).alias("upper"),
    )
    return frame if out is None else pl.concat([out, frame], how="vertical_relaxed")


def _rank(result: pl.DataFrame, keys: list[str], kept_operators: Sequence[str] | None) -> pl.DataFrame:
    """Warnings first, then by code; the findings about every group before the groups'."""
    if kept_operators is not None:
        result = result.filter(pl.col("operator").is_null() | pl.col("operator").is_in(kept_operators))
    rank = pl.col("severity").replace_strict(SEVERITIES, list(range(len(SEVERITIES))), return_dtype=pl.Int8)
    return result.sort(
        [rank, "code", pl.col("scope") != ALL, *keys, "measure", "operator"],
        nulls_last=True,
        maintain_order=True,
    )


def diagnose(
    pr: Predictions,
    measures: Sequence[str | Measure] | None = None,
    *,
    by: str | Sequence[str] | None = None,
    operators: str | Sequence[str] | None = None,
    hull: str = "macro",
    aggregation: str | None = None,
    emit_warnings: bool = False,
) -> pl.DataFrame:
    """Findings about the given measures on these predictions, one row each.

    Returns a tidy frame: by..., ``scope``, ``code``, ``severity`` (``warning``
    or ``note``), ``measure``, ``operator``, ``message``, and the numbers behind
    it (``value``, ``lower``, ``upper``). ``scope`` is ``"all"`` for a finding
    stated once for every group (about the measures or the task, or one that
    depends only on the number of classes when every group has the same), with
    null by-keys, and ``"group"`` for a finding about one group's data (whose
    keys may be null too: a null key is a group). Warnings come first, then the
    rows are ordered by code, scope and keys. With ``emit_warnings=True`` every
    ``warning`` row is also raised as a :class:`MeasureWarning`, so a pipeline
    or a test suite can fail on it.

    ``operators`` keeps the findings about those operators (and the findings
    about a measure or a suite, which have no operator); default all.
    ``hull`` picks the parts the micro value is held against in the
    ``outside_hull`` check: the per-class values (``"macro"``, ``"weighted"``)
    or the per-example values (``"exemplar"``, read off the cell profiles, so
    no per-example rows are needed), as in aggmetrics.

    Parameters
    ----------
    pr
        The predictions.
    measures
        Measure names or :class:`~aggframe.Measure` objects (registered or not); default:
        every built-in.
    by
        Group columns: the data findings are per group.
    operators
        Keep the findings about these operators (default: all).
    hull
        ``"macro"``, ``"weighted"`` or ``"exemplar"``: the parts of the ``outside_hull`` check.
    aggregation
        The old name of ``operators`` (deprecated: a ``FutureWarning``).
    emit_warnings
        Also raise every warning row as a :class:`~aggframe.errors.MeasureWarning`.

    Returns
    -------
    pl.DataFrame
        The findings, ranked as described above.

    Raises
    ------
    OptionError
        An unknown ``hull`` or operator, or ``by`` naming a role column.
    UnknownNameError
        An unknown measure.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    >>> "micro_collapse" in af.diagnose(pr)["code"].to_list()
    True
    >>> af.diagnose(pr, ["recall"]).filter(code="degenerate_optimum")["message"].item()
    'recall is maximised by predicting every instance positive (threshold 0): a degenerate optimum'
    """
    if aggregation is not None:
        warnings.warn(
            "diagnose(aggregation=...) is now hull=...; aggregation= will be removed",
            FutureWarning,
            stacklevel=2,
        )
        hull = aggregation
    _check_hull(hull)
    kept_operators = (
        None
        if operators is None
        else [parse_report_operator(o) for o in ([operators] if isinstance(operators, str) else operators)]
    )
    ctx, key_names = _prepare_context(pr, measures, by)
    found = [
        _outside_hull(ctx, hull),
        _inflated_floor(ctx),
        _micro_collapse(ctx),
        *_undefined_entries(ctx),
        _prior_drift(ctx),
        _redundant_suite(ctx) if measures is not None else None,
    ]
    result = _compute_findings(ctx, [r for r in found if r is not None], _notes(ctx))
    result = _rank(result, ctx.keys, kept_operators)
    check_result_names(key_names.values(), DIAGNOSTIC_COLUMNS, "diagnose")
    result = restore(result, key_names)
    if emit_warnings:
        for message in result.filter(pl.col("severity") == "warning")["message"].to_list():
            warnings.warn(message, MeasureWarning, stacklevel=2)
    return cast("pl.DataFrame", result)


def deviation_frame(tables: CellTables) -> pl.LazyFrame:
    """The mean uniform-error deviation per group of tables with confusion counts: keys..., value, n_classes.

    ``R[k, j]`` is the share of class ``k``'s examples predicted ``j`` (0 for a
    class without examples); per predicted class ``j`` the sample standard
    deviation (``ddof=1``) of ``R[k, j]`` over ``k != j``; their mean over ``j``.
    0 with at most two classes (as in aggmetrics).
    """
    keys = list(tables.keys)
    rate = pl.col("rate").fill_null(0.0)
    matrix = confusion_frame(tables, "true")
    per_pred = (
        matrix.filter(pl.col("y_true") != pl.col("y_pred"))
        .group_by([*keys, "y_pred"])
        .agg(rate.std(ddof=1).fill_null(0.0).alias("_s"))
        .group_by(keys)
        .agg(pl.col("_s").mean().alias("value"))
    )
    sizes = group_table(tables).select(*keys, pl.col("n_classes").cast(pl.Int64))
    return (
        sizes.join(per_pred, on=keys, how="left", nulls_equal=True)
        .select(
            *keys,
            pl.when(pl.col("n_classes") > 2)
            .then(pl.col("value"))
            .otherwise(0.0)
            .cast(pl.Float64)
            .alias("value"),
            "n_classes",
        )
        .sort(keys, nulls_last=True)
    )


def uniform_error_deviation(pr: Predictions, *, by: str | Sequence[str] | None = None) -> pl.DataFrame:
    """The mean uniform-error deviation of single-label predictions, per group (Proposition 6(2)).

    One-vs-rest specificity (and so macro balanced accuracy) is free of the class
    priors exactly when the error rates into each class are uniform:
    ``R[k, j] = P(predicted j | true k)`` the same for every ``k != j``. The
    deviation is the mean over predicted classes ``j`` of the sample standard
    deviation of ``R[k, j]`` over ``k != j`` (0: no drift; ``diagnose`` reports
    ``ovr_skew_drift`` from 0.01). aggmetrics' ``uniform_error_deviation``, per group.

    Parameters
    ----------
    pr
        Single-label predictions (the label form, or one-hot long data).
    by
        Group columns (a null key is a group). Target and fold roles are keys too.

    Returns
    -------
    polars.DataFrame
        by..., ``value``, ``n_classes`` (0 with at most two classes, as in aggmetrics).

    Raises
    ------
    OptionError
        Multilabel, soft or ``task="binary"`` data (aggmetrics returns 0 for them;
        they have no m x m confusion matrix).

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 0, 1, 1, 2, 2], [0, 1, 1, 1, 2, 0])
    >>> af.uniform_error_deviation(pr)
    shape: (1, 2)
    ┌──────────┬───────────┐
    │ value    ┆ n_classes │
    │ ---      ┆ ---       │
    │ f64      ┆ i64       │
    ╞══════════╪═══════════╡
    │ 0.235702 ┆ 3         │
    └──────────┴───────────┘
    """
    by_cols = [by] if isinstance(by, str) else list(by or [])
    tables = pr.extend.with_pairs(pr.extend.cell_tables(by_cols), by_cols, what="the uniform error deviation")
    out = deviation_frame(tables).collect()
    return cast(
        "pl.DataFrame",
        restore(out, pr.extend.key_names(tables, ["value", "n_classes"], "uniform_error_deviation")),
    )
