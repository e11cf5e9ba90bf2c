"""Group comparisons in the spirit of fairlearn's MetricFrame, as tidy frames.

One scan: the per-group rows and the overall row come from the same cell tables
(grouping sets), then small joins give differences and ratios. Ratios whose
denominator is zero are null (guarded), never inf.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import polars as pl

from aggframe._columns import by_key, check_result_names, restore
from aggframe.exceptions import OptionError
from aggframe.operators.grouping import GROUPING_COLUMN, GROUPING_ID

__all__ = ["compare_groups", "compare_report", "summarize_groups"]

STAT = ["measure", "operator", "convention"]


def _ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    return pl.when(den.abs() > 0).then(num / den)


def compare_groups(
    report: pl.DataFrame, by: Sequence[str], reference: dict[str, Any] | None, shown: str = ""
) -> pl.DataFrame:
    """Per-group rows with the overall value, and differences and ratios to it (and to a reference group).

    ``report`` holds the grouping sets ``[by, []]``: rows with ``grouping_id`` 0 are
    the groups, the others the overall rows. ``reference`` maps by-columns to the
    reference group's values (None matches a null key); ``shown`` is how the error
    message names it.
    """
    marks = [GROUPING_COLUMN, GROUPING_ID]
    groups = report.filter(pl.col(GROUPING_ID) == 0).drop(marks)
    overall = report.filter(pl.col(GROUPING_ID) != 0).select(*STAT, pl.col("value").alias("overall"))
    out = groups.join(overall, on=STAT, how="left", nulls_equal=True).with_columns(
        (pl.col("value") - pl.col("overall")).alias("difference_to_overall"),
        _ratio(pl.col("value"), pl.col("overall")).alias("ratio_to_overall"),
    )
    if reference is not None:
        ref = groups.filter(*[pl.col(k).eq_missing(pl.lit(v)) for k, v in reference.items()])
        if ref.height == 0:
            msg = f"reference group {shown or reference!r} is not in the data"
            raise OptionError(msg)
        ref = ref.select(*STAT, pl.col("value").alias("reference"))
        out = out.join(ref, on=STAT, how="left", nulls_equal=True).with_columns(
            (pl.col("value") - pl.col("reference")).alias("difference_to_reference"),
            _ratio(pl.col("value"), pl.col("reference")).alias("ratio_to_reference"),
        )
    return out


def summarize_groups(compared: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """Per measure: overall, group min and max (and which group), their difference and ratio."""
    keys = list(by)
    label = pl.concat_str([pl.col(k).cast(pl.String).fill_null("null") for k in keys], separator=",")
    defined = compared.filter(pl.col("value").is_not_nan())
    return (
        defined.with_columns(label.alias("_group"))
        .group_by(STAT, maintain_order=True)
        .agg(
            pl.col("overall").first(),
            pl.col("value").min().alias("group_min"),
            pl.col("value").max().alias("group_max"),
            pl.col("_group").sort_by("value").first().alias("argmin"),
            pl.col("_group").sort_by("value").last().alias("argmax"),
            pl.len().alias("n_groups"),
        )
        .with_columns(
            (pl.col("group_max") - pl.col("group_min")).alias("difference"),
            _ratio(pl.col("group_min"), pl.col("group_max")).alias("ratio"),
        )
    )


def compare_report(
    report: pl.DataFrame,
    names: dict[str, str],
    by: Sequence[str],
    *,
    reference: dict[str, Any] | None,
    summary: bool,
) -> pl.DataFrame:
    """:meth:`~aggframe.Predictions.compare` from its grouping-set report (private keys): groups vs overall.

    ``names`` maps the private keys to ``by`` (the user's names); ``reference``
    is in the user's names and may name a null key (None).
    """
    keys = list(by)
    private = [by_key(i) for i in range(len(keys))]
    ref = None
    if reference is not None:
        missing = [k for k in keys if k not in reference]
        if missing or set(reference) - set(keys):
            msg = f"reference must name a value for each by column {keys!r}, got {reference!r}"
            raise OptionError(msg)
        ref = {by_key(keys.index(k)): v for k, v in reference.items()}
    compared = compare_groups(report, private, ref, repr(reference))
    if summary:
        return summarize_groups(compared, private)
    check_result_names(names.values(), [c for c in compared.columns if c not in names], "compare")
    return cast("pl.DataFrame", restore(compared, names))
