"""Group comparisons in the spirit of fairlearn's MetricFrame, as tidy frames.

One scan: the per-group rows and the overall row come from the same cell tables
(grouping sets), then small joins give differences and ratios. Ratios whose
denominator is zero are null (guarded), never inf.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from aggframe._grouping import GROUPING_COLUMN
from aggframe.exceptions import OptionError

__all__ = ["compare_groups", "summarize_groups"]

STAT = ["measure", "operator", "convention"]


def _ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    return pl.when(den.abs() > 0).then(num / den)


def compare_groups(report: pl.DataFrame, by: Sequence[str], reference: dict[str, Any] | None) -> pl.DataFrame:
    """Per-group rows with the overall value, and differences and ratios to it (and to a reference group)."""
    keys = list(by)
    groups = report.filter(pl.col(GROUPING_COLUMN) != "").drop(GROUPING_COLUMN)
    overall = report.filter(pl.col(GROUPING_COLUMN) == "").select(*STAT, pl.col("value").alias("overall"))
    out = groups.join(overall, on=STAT, how="left").with_columns(
        (pl.col("value") - pl.col("overall")).alias("difference_to_overall"),
        _ratio(pl.col("value"), pl.col("overall")).alias("ratio_to_overall"),
    )
    if reference is not None:
        missing = [k for k in keys if k not in reference]
        if missing or set(reference) - set(keys):
            msg = f"reference must name a value for each by column {keys!r}, got {reference!r}"
            raise OptionError(msg)
        ref = groups.filter(*[pl.col(k) == v for k, v in reference.items()])
        if ref.height == 0:
            msg = f"reference group {reference!r} is not in the data"
            raise OptionError(msg)
        ref = ref.select(*STAT, pl.col("value").alias("reference"))
        out = out.join(ref, on=STAT, how="left").with_columns(
            (pl.col("value") - pl.col("reference")).alias("difference_to_reference"),
            _ratio(pl.col("value"), pl.col("reference")).alias("ratio_to_reference"),
        )
    return out


def summarize_groups(compared: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """Per measure: overall, group min and max (and which group), their difference and ratio."""
    keys = list(by)
    label = pl.concat_str([pl.col(k).cast(pl.String) for k in keys], separator=",")
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
