"""Group comparisons in the spirit of fairlearn's MetricFrame, as tidy frames.

One scan: the per-group rows and the overall rows come from the same cell tables
(grouping sets), then small joins give differences and ratios. Ratios whose
denominator is zero are null (guarded), never inf.

With control columns (fairlearn's ``control_features``) the overall is taken within
each level of the control columns: the grouping sets are ``[by, control]`` instead of
``[by, []]``, and every join on keys includes the control keys (a null control key is
a level, joined with ``nulls_equal=True``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import polars as pl

from aggframe._columns import by_key, check_result_names, group_label, key_label, restore
from aggframe.exceptions import OptionError
from aggframe.operators.grouping import GROUPING_COLUMN, GROUPING_ID

__all__ = [
    "SAME_VALUE",
    "SUMMARY_COLUMNS",
    "compare_groups",
    "compare_keys",
    "compare_report",
    "difference",
    "ratio",
    "summarize_groups",
]

STAT = ["measure", "operator", "convention"]
#: the columns of the summary after the control keys
SUMMARY_COLUMNS = (
    *STAT,
    "overall",
    "group_min",
    "group_max",
    "argmin",
    "argmax",
    "n_groups",
    "difference",
    "ratio",
)


#: Two values closer than this share of the larger are the same value: each is a sum run in
#: parallel, equal between runs to about 1e-15 only, so identical models differ by rounding.
SAME_VALUE = 1e-12


def _same(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    # a NaN (an undefined value) is never the same as anything: its difference stays NaN
    d = a - b
    return d.is_finite() & (d.abs() <= SAME_VALUE * pl.max_horizontal(a.abs(), b.abs()))


def difference(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """``a - b``, exactly zero for the same value (within :data:`SAME_VALUE`: two identical
    models have a zero difference, and a zero-width paired interval)."""
    return pl.when(_same(a, b)).then(pl.lit(0.0)).otherwise(a - b)


def ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """``num / den``, exactly one for the same value (see :func:`difference`); null when ``den`` is zero."""
    return pl.when(den.abs() > 0).then(pl.when(_same(num, den)).then(pl.lit(1.0)).otherwise(num / den))


def compare_keys(by: Sequence[str], control: Sequence[str]) -> list[str]:
    """The grouping of a comparison: the control columns not in ``by``, then ``by``.

    Raises :class:`~aggframe.errors.OptionError` when nothing is left to compare within the
    control levels, or a name repeats.

    Examples
    --------
    >>> compare_keys(["segment"], ["model"])
    ['model', 'segment']
    >>> compare_keys(["model", "segment"], ["model"])
    ['model', 'segment']
    """
    keys, ctrl = list(by), list(control)
    if len(set(ctrl)) != len(ctrl):
        msg = f"control columns repeat a name: {ctrl!r}"
        raise OptionError(msg)
    out = [c for c in ctrl if c not in keys] + keys
    if not [k for k in out if k not in ctrl]:
        msg = (
            f"control={ctrl!r} names every by column {keys!r}; nothing is left to compare within each "
            "control level (by= names the groups to compare, control= the levels to compare them within)"
        )
        raise OptionError(msg)
    return out


def compare_groups(
    report: pl.DataFrame,
    by: Sequence[str],
    reference: dict[str, Any] | None,
    shown: str = "",
    control: Sequence[str] = (),
) -> pl.DataFrame:
    """Per-group rows with the overall value, and differences and ratios to it (and to a reference group).

    ``report`` holds the grouping sets ``[by, control]``: rows with ``grouping_id`` 0
    are the groups, the others the overall rows of each control level (one overall
    row without control). ``reference`` maps the compared (non-control) by-columns to
    the reference group's values (None matches a null key), taken within each control
    level; ``shown`` is how the error message names it.
    """
    ctrl = list(control)
    on = [*ctrl, *STAT]
    marks = [GROUPING_COLUMN, GROUPING_ID]
    groups = report.filter(pl.col(GROUPING_ID) == 0).drop(marks)
    overall = report.filter(pl.col(GROUPING_ID) != 0).select(*on, pl.col("value").alias("overall"))
    out = groups.join(overall, on=on, how="left", nulls_equal=True).with_columns(
        difference(pl.col("value"), pl.col("overall")).alias("difference_to_overall"),
        ratio(pl.col("value"), pl.col("overall")).alias("ratio_to_overall"),
    )
    if reference is not None:
        ref = groups.filter(*[pl.col(k).eq_missing(pl.lit(v)) for k, v in reference.items()])
        if ref.height == 0:
            msg = f"reference group {shown or reference!r} is not in the data"
            raise OptionError(msg)
        ref = ref.select(*on, pl.col("value").alias("reference"))
        out = out.join(ref, on=on, how="left", nulls_equal=True).with_columns(
            difference(pl.col("value"), pl.col("reference")).alias("difference_to_reference"),
            ratio(pl.col("value"), pl.col("reference")).alias("ratio_to_reference"),
        )
    return out


def summarize_groups(compared: pl.DataFrame, by: Sequence[str], control: Sequence[str] = ()) -> pl.DataFrame:
    """Per measure (and control level): overall, group min and max (and which group), their difference and ratio.

    The groups are labelled by their compared (non-control) keys, as everywhere a group is
    named (:func:`~aggframe._columns.key_label`): a string as itself, a null key ``(null)``,
    a key that could read as another quoted (``"(null)"``, ``"a · b"``), the keys joined with
    `` · ``. Two groups never share a label.
    """
    ctrl = list(control)
    keys = [k for k in by if k not in ctrl]
    label = group_label([key_label(pl.col(k), compared.schema[k]) for k in keys])
    defined = compared.filter(pl.col("value").is_not_nan())
    return (
        defined.with_columns(label.alias("_group"))
        .group_by([*ctrl, *STAT], maintain_order=True)
        .agg(
            pl.col("overall").first(),
            pl.col("value").min().alias("group_min"),
            pl.col("value").max().alias("group_max"),
            pl.col("_group").sort_by("value").first().alias("argmin"),
            pl.col("_group").sort_by("value").last().alias("argmax"),
            pl.len().alias("n_groups"),
        )
        .with_columns(
            difference(pl.col("group_max"), pl.col("group_min")).alias("difference"),
            ratio(pl.col("group_min"), pl.col("group_max")).alias("ratio"),
        )
    )


def compare_report(
    report: pl.DataFrame,
    names: dict[str, str],
    by: Sequence[str],
    *,
    reference: dict[str, Any] | None,
    summary: bool,
    control: Sequence[str] = (),
) -> pl.DataFrame:
    """:meth:`~aggframe.Predictions.compare` from its grouping-set report (private keys): groups vs overall.

    ``by`` is the grouping (:func:`compare_keys`), in the user's names, and
    ``control`` the control columns among them; ``names`` maps the private keys to
    ``by``. ``reference`` is in the user's names, names each compared (non-control)
    column and may name a null key (None).
    """
    keys = list(by)
    ctrl = list(control)
    compared_keys = [k for k in keys if k not in ctrl]
    private = [by_key(i) for i in range(len(keys))]
    private_ctrl = [by_key(keys.index(c)) for c in ctrl]
    ref = None
    if reference is not None and summary:
        # the summary is the spread of the groups against the overall value; it has no place for
        # a reference group (it was checked, then left out without a word)
        msg = (
            "compare(summary=True) summarises the groups against the overall value; reference= compares "
            "each group with one group: ask for one or the other"
        )
        raise OptionError(msg)
    if reference is not None:
        missing = [k for k in compared_keys if k not in reference]
        if missing or set(reference) - set(compared_keys):
            within = f" (the control columns {ctrl!r} are not named: the reference is taken in each level)"
            msg = (
                f"reference must name a value for each compared by column {compared_keys!r}"
                f"{within if ctrl else ''}, got {reference!r}"
            )
            raise OptionError(msg)
        ref = {by_key(keys.index(k)): v for k, v in reference.items()}
    compared = compare_groups(report, private, ref, repr(reference), private_ctrl)
    if summary:
        summarized = summarize_groups(compared, private, private_ctrl)
        ctrl_names = {p: names[p] for p in private_ctrl}
        check_result_names(ctrl_names.values(), SUMMARY_COLUMNS, "compare(summary=True)")
        return cast("pl.DataFrame", restore(summarized, ctrl_names))
    check_result_names(names.values(), [c for c in compared.columns if c not in names], "compare")
    return cast("pl.DataFrame", restore(compared, names))
