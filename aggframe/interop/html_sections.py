"""The sections of the HTML report beyond its tables: the glossary of operators, conventions
and poolings, the data's shape (examples and classes per group), the note on the bootstrap
intervals, and the score charts (ROC and precision-recall curves, the reliability diagram) of
predictions made from scores.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any, cast

import polars as pl

from aggframe._columns import free_name
from aggframe.exceptions import AggframeError
from aggframe.intake.scores_long import Scored
from aggframe.interop.charts.frames import _keys, _label
from aggframe.interop.html_page import _Page
from aggframe.interop.layout import named
from aggframe.interop.plots import plot_calibration, plot_curve

_MAX_GROUP_PANELS = 12
_MAX_SCORE_LINES = 12
#: where the group keys of a curve or reliability frame end
_SCORE_STOP = ("operator", "class", "threshold", "fpr", "tpr", "precision", "recall", "bin", "mean_score")

_CONVENTIONS = {
    "exclude": "undefined entries (a zero denominator) are left out of the average; NaN if none is defined",
    "zero": "undefined entries count as 0",
    "one": "undefined entries count as 1",
    "nan": "the result is NaN as soon as one entry is undefined",
}
_OPERATORS = {
    "micro": "pool the confusion cells of every class, then compute the measure once",
    "macro": "compute the measure per class, then take the plain mean",
    "weighted": "compute the measure per class, then take the mean weighted by class support",
    "exemplar": "compute the measure per example, then take the mean",
    "binary": "the positive class only",
    "total": "the total cost",
}
_POOLINGS = {
    "pooled": "the union of the folds, evaluated once (exact cell sums)",
    "averaged": "each fold evaluated, then the mean weighted by fold size",
    "fold": "the value of each fold",
    "min": "the lowest fold value",
    "max": "the highest fold value",
    "std": "the spread of the fold values (a lower bound on the uncertainty, folds share training data)",
    "repeat_pooled": "the folds of each repeat pooled, then the mean over the repeats",
    "repeat": "the value of each repeat (its folds pooled)",
    "repeat_min": "the lowest repeat value",
    "repeat_max": "the highest repeat value",
    "repeat_std": "the spread of the repeat values (the partitioning's variation, not the data's)",
}


def _definitions(page: _Page, terms: dict[str, str], used: Sequence[str], what: str) -> None:
    rows = [f"<dt>{html.escape(str(u))}</dt><dd>{html.escape(terms.get(str(u), what))}</dd>" for u in used]
    page.add(f'<dl class="defs">{"".join(rows)}</dl>')


def _values(df: pl.DataFrame, column: str) -> list[Any]:
    if column not in df.columns:
        return []
    return [v for v in df.get_column(column).unique(maintain_order=True).to_list() if v is not None]


def _count_column(word: str, keys: Sequence[str]) -> str:
    """``word`` as the name of a count column next to the key columns, unless a key is called so."""
    return word if word not in keys else free_name(f"{word} (count)", keys)


def _shape(pr: Any, keys: list[str], per_class: pl.DataFrame | None) -> pl.DataFrame | None:
    """Examples (and classes) per group, from the public cell tables."""
    try:
        profiles = pr.cells("profiles", by=keys or None)
    except (AggframeError, AttributeError, TypeError):
        return None
    if "n" not in profiles.columns:
        return None
    # a key called "examples" or "classes" keeps its name (it was a raw DuplicateError)
    examples, classes = _count_column("examples", keys), _count_column("classes", keys)
    shape = (
        profiles.group_by([named(k) for k in keys], maintain_order=True).agg(
            pl.col("n").sum().alias(examples)
        )
        if keys
        else profiles.select(pl.col("n").sum().alias(examples))
    )
    if per_class is not None and "class" in per_class.columns and all(k in per_class.columns for k in keys):
        counted = (
            per_class.group_by([named(k) for k in keys], maintain_order=True).agg(
                pl.col("class").n_unique().alias(classes)
            )
            if keys
            else per_class.select(pl.col("class").n_unique().alias(classes))
        )
        shape = (
            shape.join(counted, on=[named(k) for k in keys], how="left", nulls_equal=True)
            if keys
            else pl.concat([shape, counted], how="horizontal")
        )
    return cast(
        "pl.DataFrame | None",
        shape.sort([named(k) for k in keys], nulls_last=True, maintain_order=True) if keys else shape,
    )


def _interval_note(report: pl.DataFrame, seed: int | None) -> str:
    """What the intervals are: level, replicates, seed."""
    levels = _values(report, "level")
    level = f"{float(levels[0]):.0%} " if len(levels) == 1 else ""
    counts = report.get_column("n_boot").drop_nulls().to_list() if "n_boot" in report.columns else []
    most, least = (int(max(counts)), int(min(counts))) if counts else (0, 0)
    count = f" over {most} bootstrap replicates" if counts else ""
    fewer = (
        f" (as few as {least} where a value is undefined in some replicates: column n_boot)"
        if least != most
        else ""
    )
    with_seed = f", seed {seed}" if seed is not None else ""
    return (
        f"Intervals: {level}percentile intervals{count}{fewer}{with_seed}. Each replicate weighs every "
        "example by a Poisson(1) draw from a seeded hash of its id (the same example has the same weight "
        "in every group, so differences between models scored on the same examples are paired); the "
        "charts draw them as error bars and bands, the tables as value [low, high]."
    )


def _one(df: pl.DataFrame, column: str, prefer: str) -> str | None:
    values = _values(df, column)
    if not values:
        return None
    return prefer if prefer in values else str(values[0])


def _has_scores(pr: Any) -> bool:
    """Predictions made from scores (``from_scores``): their curves and calibration mean something."""
    return isinstance(getattr(pr, "source", None), Scored)


def _score_charts(page: _Page, pr: Any, groups: list[str]) -> None:
    """ROC and precision-recall curves and the reliability diagram, where ``pr`` can give them.

    Calls ``pr.curve(kind, by=...)`` (``kind`` ``"roc"`` or ``"pr"``) and
    ``pr.calibration(by=...)``; a build without them, or an error, leaves a note.
    """
    by = groups or None
    # the reliability diagram micro-averaged: one line per panel (ten classes' lines overlap)
    calls: list[tuple[str, str, tuple[Any, ...], dict[str, Any], Any]] = [
        ("ROC curves", "curve", ("roc",), {}, plot_curve),
        ("Precision-recall curves", "curve", ("pr",), {}, plot_curve),
        (
            "Reliability diagram",
            "calibration",
            (),
            {"operator": "micro"},
            plot_calibration,
        ),
    ]
    for what, method, args, options, draw in calls:
        call = getattr(pr, method, None)
        if not callable(call):
            page.note(f"{what}: not available in this version of aggframe.")
            continue
        try:
            frame = call(*args, by=by, **options)
            if isinstance(frame, pl.LazyFrame):
                frame = frame.collect()
            if not isinstance(frame, pl.DataFrame):
                continue
        except (AggframeError, TypeError, NotImplementedError) as exc:
            page.note(
                f"{what}: not available ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})."
            )
            continue
        lines = frame.select(
            _label(frame, [c for c in ("class", "operator") if c in frame.columns]).n_unique()
        ).item()
        panels = (
            frame.select(_label(frame, _keys(frame, by, _SCORE_STOP)).n_unique()).item()
            if frame.height
            else 0
        )
        if lines > _MAX_SCORE_LINES or panels > _MAX_GROUP_PANELS:
            page.note(
                f"{what} left out: {lines} lines in {panels} panel(s) (drawn up to {_MAX_SCORE_LINES} lines "
                f"and {_MAX_GROUP_PANELS} panels)."
            )
            continue
        if frame.height:
            page.chart(draw(frame, by=by))
