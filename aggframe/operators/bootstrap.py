"""Bootstrap intervals: the report over replicates -> one row per result, with its interval.

A bootstrap report is an ordinary report (:func:`~aggframe.operators.report.build_report`)
of cell tables with one more key, the replicate ``REP`` (:mod:`aggframe.tables.bootstrap`):
replicate ``-1`` is the data itself, replicates ``0 .. B-1`` the Poisson-weighted
resamples. :func:`summarize` keeps the values of replicate ``-1`` and adds,
per (keys, measure, operator, convention[, pooling, grouping set]), the
percentile interval and the standard error over the replicates whose value is
defined; :func:`compare_boot` does the same for differences and ratios between
groups computed within each replicate, so that two models scored on the same
examples are compared on the same resamples (the pairing).

Percentile intervals (``quantile`` with linear interpolation, Hyndman-Fan type 7):
BCa would need the acceleration, a jackknife over the examples (``n`` more
evaluations, or per-example influence values that the cell sums do not keep),
which the one-pass design cannot give cheaply; the percentile interval is
transformation-respecting and, for the smooth ratio measures here, first-order
accurate (the coverage test in ``tests/operators/test_bootstrap.py`` checks it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import polars as pl

from aggframe._columns import BOOT_COLUMNS, REP, by_key, check_result_names, restore
from aggframe._options import Bootstrap
from aggframe.exceptions import OptionError
from aggframe.operators.compare import difference, ratio
from aggframe.operators.grouping import GROUPING_COLUMN, GROUPING_ID

__all__ = ["compare_boot", "interval_columns", "summarize"]

STAT = ["measure", "operator", "convention"]
_POINT = pl.col(REP) == -1
NAN = float("nan")


def _defined(column: str) -> pl.Expr:
    v = pl.col(column)
    return v.filter((pl.col(REP) >= 0) & v.is_not_null() & v.is_not_nan())


def interval_columns(column: str, boot: Bootstrap, prefix: str) -> list[pl.Expr]:
    """Aggregations over a group's replicates: the percentile interval of ``column`` (``<prefix>ci_low``,
    ``<prefix>ci_high``) and its standard error (``<prefix>se``), NaN without two defined replicates."""
    alpha = (1.0 - boot.level) / 2.0
    reps = _defined(column)
    return [
        reps.quantile(alpha, interpolation="linear").cast(pl.Float64).fill_null(NAN).alias(f"{prefix}ci_low"),
        reps.quantile(1.0 - alpha, interpolation="linear")
        .cast(pl.Float64)
        .fill_null(NAN)
        .alias(f"{prefix}ci_high"),
        reps.std(ddof=1).cast(pl.Float64).fill_null(NAN).alias(f"{prefix}se"),
    ]


def summarize(report: pl.LazyFrame, boot: Bootstrap) -> pl.LazyFrame:
    """One row per result of replicate ``-1`` (in its order), with ``ci_low``, ``ci_high``, ``se``,
    ``n_boot`` (the replicates whose value is defined) and ``level``."""
    columns = report.collect_schema().names()
    point = [c for c in ("value", "n_entries", "n_undefined", "n_examples") if c in columns]
    stat = [c for c in columns if c not in (REP, *point)]
    out = report.group_by(stat, maintain_order=True).agg(
        *[pl.col(c).filter(_POINT).first() for c in point],
        *interval_columns("value", boot, ""),
        _defined("value").len().cast(pl.Int64).alias("n_boot"),
    )
    ordered = [c for c in columns if c != REP]
    return out.with_columns(pl.lit(boot.level, dtype=pl.Float64).alias("level")).select(
        *ordered, *BOOT_COLUMNS
    )


def compare_boot(
    report: pl.DataFrame,
    names: dict[str, str],
    by: Sequence[str],
    *,
    reference: Mapping[str, Any] | None,
    boot: Bootstrap,
) -> pl.DataFrame:
    """:meth:`~aggframe.Predictions.compare` with intervals, from a bootstrap report of the grouping sets
    ``[by, []]`` (private keys, replicate key ``REP``).

    Within each replicate: every group's value, the overall value, their
    difference and ratio, and with ``reference`` (the user's names; it may name
    a subset of ``by``, matched within the others: ``{"model": "A"}`` with
    ``by=["model", "day"]`` compares each model with A on the same day) the
    difference and ratio to the reference group. Then per group and result the
    values of replicate ``-1`` and the percentile interval of each over the
    replicates; ``difference_to_*_excludes_zero`` says whether that interval
    excludes zero (null when it is undefined).
    """
    keys = list(by)
    private = [by_key(i) for i in range(len(keys))]
    marks = [GROUPING_COLUMN, GROUPING_ID]
    groups = report.filter(pl.col(GROUPING_ID) == 0).drop(marks)
    overall = report.filter(pl.col(GROUPING_ID) != 0).select(REP, *STAT, pl.col("value").alias("overall"))
    per = groups.join(overall, on=[REP, *STAT], how="left", nulls_equal=True).with_columns(
        difference(pl.col("value"), pl.col("overall")).alias("difference_to_overall"),
        ratio(pl.col("value"), pl.col("overall")).alias("ratio_to_overall"),
    )
    quantities = ["value", "difference_to_overall", "ratio_to_overall"]
    if reference is not None:
        unknown = [k for k in reference if k not in keys]
        if unknown or not reference:
            msg = f"reference must name a value for some of the by columns {keys!r}, got {dict(reference)!r}"
            raise OptionError(msg)
        named = {by_key(keys.index(k)): v for k, v in reference.items()}
        matched = [p for p in private if p not in named]
        ref = groups.filter(*[pl.col(k).eq_missing(pl.lit(v)) for k, v in named.items()])
        if ref.height == 0:
            msg = f"reference group {dict(reference)!r} is not in the data"
            raise OptionError(msg)
        ref = ref.select(REP, *matched, *STAT, pl.col("value").alias("reference"))
        per = per.join(ref, on=[REP, *matched, *STAT], how="left", nulls_equal=True).with_columns(
            difference(pl.col("value"), pl.col("reference")).alias("difference_to_reference"),
            ratio(pl.col("value"), pl.col("reference")).alias("ratio_to_reference"),
        )
        quantities += ["difference_to_reference", "ratio_to_reference"]
    point_columns = [c for c in per.columns if c not in (REP, *private, *STAT)]
    summary = per.group_by([*private, *STAT], maintain_order=True).agg(
        *[pl.col(c).filter(_POINT).first() for c in point_columns],
        *[e for q in quantities for e in interval_columns(q, boot, "" if q == "value" else f"{q}_")],
        _defined("value").len().cast(pl.Int64).alias("n_boot"),
    )
    excludes = [
        pl.when(pl.col(f"{d}_ci_low").is_nan() | pl.col(f"{d}_ci_high").is_nan())
        .then(None)
        .otherwise((pl.col(f"{d}_ci_low") > 0) | (pl.col(f"{d}_ci_high") < 0))
        .alias(f"{d}_excludes_zero")
        for d in quantities
        if d.startswith("difference")
    ]
    ordered = [*private, *STAT, "value", "ci_low", "ci_high", "se", "n_entries", "n_undefined"]
    for q in quantities[1:]:
        point = (
            ["overall"]
            if q == "difference_to_overall"
            else ["reference"]
            if q == "difference_to_reference"
            else []
        )
        ordered += [*point, q, f"{q}_ci_low", f"{q}_ci_high", f"{q}_se"]
        if q.startswith("difference"):
            ordered.append(f"{q}_excludes_zero")
    out = summary.with_columns(*excludes, pl.lit(boot.level, dtype=pl.Float64).alias("level")).select(
        *ordered, "n_boot", "level"
    )
    check_result_names(names.values(), [c for c in out.columns if c not in names], "compare")
    return cast("pl.DataFrame", restore(out, names))
