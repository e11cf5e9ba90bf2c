"""The verdicts of slice rules ("no slice significantly worse") of :func:`~aggframe.check`.

A rule with ``slices = [columns]`` runs its own slice search
(:func:`aggframe.decisions.slices.slices`: its own scan, with the bootstrap replicates
its p-values come from), apart from the one scan of the other rules. Its rows have the
columns of :attr:`~aggframe.decisions.checks.CheckResult.frame`: one ``fail`` (or
``warn``) row per slice significantly worse than its complement, the slice in
``group_label``; or one ``pass`` row when none is (``skipped`` when no slice was large
enough to test).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe._options import Engine
from aggframe.decisions.rules import SLICE_DEFAULTS, Rule, RuleError
from aggframe.exceptions import AggframeError

if TYPE_CHECKING:
    from aggframe.predictions import Predictions

__all__ = ["check_slice_rule", "slice_verdicts"]


def check_slice_rule(pr: Predictions, rule: Rule) -> None:
    """Refuse a slice rule the predictions cannot answer, before any scan: a cell store (its
    sums cannot be reweighted by the bootstrap the p-values come from) or a missing column."""
    where = f"{rule.origin}: key 'slices'" if rule.origin else "key 'slices'"
    if pr.form == "cells":
        msg = (
            f"{where}: a cell store keeps sums, not rows, and a slice's p-value comes from a bootstrap "
            "that reweights the examples; check the predictions themselves"
        )
        raise RuleError(msg)
    try:
        pr.source.check_by(list(rule.slices))
    except AggframeError as exc:
        msg = f"{where}: {exc}"
        raise type(exc)(msg) from None


def _option(rule: Rule, key: str) -> Any:
    value = getattr(rule, key)
    return SLICE_DEFAULTS[key] if value is None else value


def _p_text(e: pl.Expr) -> pl.Expr:
    """An adjusted p-value to three decimals, ``< 0.001`` below that."""
    return pl.when(e < 0.001).then(pl.lit("< 0.001")).otherwise(e.round(3).cast(pl.String))


def slice_verdicts(  # noqa: PLR0913 -- one rule, its number and the check's options
    pr: Predictions,
    rule: Rule,
    number: int,
    *,
    level: float,
    seed: int,
    engine: Engine,
    number_text: Callable[[pl.Expr], pl.Expr],
    count_text: Callable[[pl.Expr], pl.Expr],
) -> pl.DataFrame:
    """The rows of one slice rule (``rule`` numbered ``number``) over ``pr``.

    Returns the columns of the check's result but the by-keys: one ``fail``/``warn``
    row per significantly worse slice, else one ``pass`` (or ``skipped``) row. The
    messages write numbers with ``number_text`` and counts with ``count_text`` (those
    of the checks' messages, passed in: this module does not import the checks).
    """
    from aggframe.decisions.slices import slices

    _fmt, _count = number_text, count_text

    alpha = float(_option(rule, "alpha"))
    least = int(_option(rule, "min_examples"))
    try:
        found = slices(
            pr,
            rule.measure,
            rule.operator,
            columns=list(rule.slices),
            max_depth=_option(rule, "max_depth"),
            min_examples=least,
            alpha=alpha,
            correction=_option(rule, "correction"),
            n_boot=_option(rule, "n_boot"),
            level=level,
            seed=seed,
            engine=engine,
        )
    except AggframeError as exc:
        msg = f"{rule.origin}: key 'slices': {exc}" if rule.origin else f"key 'slices': {exc}"
        raise type(exc)(msg) from None
    tested = found.filter(pl.col("p_adjusted").is_not_null())
    bad = tested.filter(pl.col("significant") & pl.col("worse"))
    what = f"{rule.operator} {rule.measure}"
    of = ", ".join(rule.slices)
    common = {
        "rule": pl.lit(number, dtype=pl.Int64),
        "name": pl.lit(rule.label),
        "measure": pl.lit(rule.measure),
        "operator": pl.lit(rule.operator),
        "on": pl.lit("p_adjusted"),
        "comparison": pl.lit(">"),
        "bound": pl.lit(alpha, dtype=pl.Float64),
        "severity": pl.lit(rule.severity),
    }
    nan = pl.lit(None, dtype=pl.Float64)
    if bad.height:
        status = "fail" if rule.severity == "error" else "warn"
        col = pl.col
        message = (
            pl.lit(what + " ")
            + _fmt(col("value"))
            + " in slice "
            + col("slice")
            + " vs "
            + _fmt(col("complement"))
            + " elsewhere (p_adj "
            + _p_text(col("p_adjusted"))
            + ", "
            + _count(col("n_examples"))
            + " examples)"
        )
        return bad.select(
            *[e.alias(k) for k, e in common.items() if k in ("rule", "name")],
            col("slice").alias("group_label"),
            common["measure"].alias("measure"),
            common["operator"].alias("operator"),
            col("value").cast(pl.Float64),
            nan.alias("ci_low"),
            nan.alias("ci_high"),
            col("complement").cast(pl.Float64).alias("baseline"),
            col("difference").cast(pl.Float64),
            common["on"].alias("on"),
            col("p_adjusted").cast(pl.Float64).alias("compared"),
            common["comparison"].alias("comparison"),
            common["bound"].alias("bound"),
            col("n_examples").cast(pl.Int64),
            common["severity"].alias("severity"),
            pl.lit(status).alias("status"),
            message.alias("message"),
        )
    smallest = tested["p_adjusted"].min() if tested.height else None
    if tested.height:
        status = "pass"
        text = (
            f"{what}: no slice significantly worse among {tested.height:,} slices of {of} "
            f"(smallest p_adj {_p_plain(smallest)})"
        )
    else:
        status = "skipped"
        text = (
            f"{what}: skipped, no slice of {of} has min_examples {least:,} examples "
            "(and as many outside it) to test"
        )
    return pl.DataFrame({"group_label": ["(all)"]}).select(
        *[e.alias(k) for k, e in common.items() if k in ("rule", "name")],
        "group_label",
        common["measure"].alias("measure"),
        common["operator"].alias("operator"),
        nan.alias("value"),
        nan.alias("ci_low"),
        nan.alias("ci_high"),
        nan.alias("baseline"),
        nan.alias("difference"),
        common["on"].alias("on"),
        pl.lit(smallest, dtype=pl.Float64).alias("compared"),
        common["comparison"].alias("comparison"),
        common["bound"].alias("bound"),
        pl.lit(None, dtype=pl.Int64).alias("n_examples"),
        common["severity"].alias("severity"),
        pl.lit(status).alias("status"),
        pl.lit(text).alias("message"),
    )


def _p_plain(p: Any) -> str:
    if p is None:
        return "undefined"
    return "< 0.001" if float(p) < 0.001 else f"{float(p):.3f}"
