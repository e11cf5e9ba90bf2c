"""The reference's functions over lists of predictions: :func:`fold_aggregate` and :func:`multioutput_aggregate`.

Parity with aggmetrics' ``fold_aggregate`` and the documented
``multioutput_aggregate``: one prediction set per fold or per target, each
evaluated on its own cell tables, and only those tables combined. They keep the
reference's ``how=`` for the operator, as documented. Predictions with fold or
target columns of their own are evaluated with :meth:`~aggframe.Predictions.evaluate`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from aggframe._columns import CLASS, EXAMPLE, KEY_ALL
from aggframe._options import (
    Convention,
    Operator,
    Pooling,
    ReportOperator,
    Within,
    parse_convention,
    parse_operator,
    parse_report_operator,
)
from aggframe.exceptions import OptionError, UnknownClassError, UnknownNameError
from aggframe.measures.measure import Measure
from aggframe.measures.registry import get_measure
from aggframe.operators.folds import fold_report
from aggframe.operators.reduce import reduce_tables, reduce_wide, tidy
from aggframe.operators.targets import target_mean
from aggframe.predictions import Predictions
from aggframe.tables.cells import CellTables, filled_classes

__all__ = ["fold_aggregate", "multioutput_aggregate"]


def predictions_list(items: Iterable[Any], what: str, caller: str) -> list[Predictions]:
    """Validate the list of per-fold / per-target predictions of the seed-parity functions."""
    preds = list(items)
    if not preds:
        msg = f"{caller} needs at least one {what}; got an empty list"
        raise OptionError(msg)
    for i, pr in enumerate(preds):
        if not isinstance(pr, Predictions):
            msg = f"{what} {i}: expected an af.Predictions (from_labels, from_long, ...), got {type(pr).__name__}"
            raise OptionError(msg)
        if pr.source.fold_keys() or pr.source.target is not None:
            msg = (
                f"{what} {i} has fold or target columns of its own; evaluate it with "
                "pr.evaluate(pooling=..., operators=['target', ...]) instead"
            )
            raise OptionError(msg)
    return preds


FOLD_KEY = "__af_fold_index"


def fold_aggregate(
    predictions: Sequence[Any],
    measure: str | Measure,
    how: Operator = "macro",
    pooling: Pooling = "pooled",
    *,
    convention: Convention = "exclude",
) -> float:
    """One measure over K cross-validation folds given as separate predictions.

    Parity with ``aggmetrics.fold_aggregate``: ``predictions`` holds one
    :class:`~aggframe.Predictions` per test fold (folds may differ in size; for
    repeated CV pass the folds of every repeat). ``pooling="pooled"`` evaluates
    the union of the folds' predictions, ``"averaged"`` the fold values' mean
    weighted by fold size. Only the folds' small cell tables are combined (each
    fold is scanned once); the class universe must be the same in every fold
    (build them with ``n_classes=``/``classes=`` when a rare class may be absent).

    Parameters
    ----------
    predictions
        One prediction set per fold: :class:`~aggframe.Predictions` or ``(Y, P)`` arrays.
    measure
        A measure name or :class:`~aggframe.Measure`.
    how
        The operator (``"micro"``, ``"macro"``, ``"weighted"``, ``"exemplar"``).
    pooling
        ``"pooled"`` (the union of the folds) or ``"averaged"`` (mean weighted by fold size).
    convention
        What undefined entries become.

    Returns
    -------
    float
        The value.

    Raises
    ------
    OptionError
        No folds, or predictions with fold or target roles of their own.
    UnknownNameError
        An unknown pooling.
    UnknownClassError
        Folds with different class universes.

    Examples
    --------
    >>> import aggframe as af
    >>> folds = [af.from_labels([0, 1, 1], [0, 1, 0], n_classes=2), af.from_labels([1, 0], [1, 1], n_classes=2)]
    >>> round(af.fold_aggregate(folds, "recall", "micro", "pooled"), 4)
    0.6
    >>> round(af.fold_aggregate(folds, "f1", "macro", "averaged"), 4)
    0.5333
    """
    preds = predictions_list(predictions, "fold", "fold_aggregate")
    key = str(pooling).strip().lower()
    if key not in ("pooled", "averaged"):
        msg = f"unknown pooling {pooling!r}; valid poolings: pooled, averaged"
        raise UnknownNameError(msg)
    op, conv = parse_operator(how), parse_convention(convention)
    tables = [pr.extend.cell_tables() for pr in preds]
    # each fold's whole universe (its absent classes filled in: one group, the classes)
    classes = [filled_classes(t).collect() for t in tables]
    first = classes[0][CLASS]
    for i, c in enumerate(classes[1:], start=1):
        if c[CLASS].dtype != first.dtype or sorted(c[CLASS].to_list()) != sorted(first.to_list()):
            msg = (
                f"fold {i} has classes {c[CLASS].to_list()[:10]!r} but fold 0 has {first.to_list()[:10]!r}; "
                "the folds must share one class universe (pass n_classes= or classes= when building them)"
            )
            raise UnknownClassError(msg)
    stacked = CellTables(
        classes=pl.concat(
            [c.lazy().with_columns(pl.lit(i).alias(FOLD_KEY)) for i, c in enumerate(classes)], how="vertical"
        ),
        profiles=pl.concat(
            [t.profiles.with_columns(pl.lit(i).alias(FOLD_KEY)) for i, t in enumerate(tables)], how="vertical"
        ),
        keys=(KEY_ALL, FOLD_KEY),
    )
    meas = get_measure(measure)
    out = tidy(
        fold_report(
            stacked,
            [KEY_ALL],
            [FOLD_KEY],
            reducer=lambda t: reduce_wide(t, [meas], [op], [conv]),
            poolings=[key],
        )
    ).collect()
    return float(out["value"][0])


def multioutput_aggregate(
    predictions: Sequence[Any],
    measure: str | Measure,
    how: ReportOperator = "target",
    *,
    within: Within = "micro",
    convention: Convention = "exclude",
) -> float:
    """One measure over several targets given as separate predictions on the same examples.

    Parity with the reference's ``multioutput_aggregate``: ``how="target"``
    averages over the targets the measure computed inside each with ``within``;
    ``"micro"``, ``"macro"``, ``"weighted"`` (and ``"exemplar"``) apply to the
    block matrix of all targets. The targets may have different classes. Each
    prediction set is evaluated on its own cell tables; only those are combined.

    Parameters
    ----------
    predictions
        One prediction set per target, on the same examples.
    measure
        A measure name or :class:`~aggframe.Measure`.
    how
        ``"target"`` (each target's value with ``within``, then the mean) or an operator
        over the block matrix of every target.
    within
        The operator inside each target (``how="target"`` only).
    convention
        What undefined entries become.

    Returns
    -------
    float
        The value.

    Raises
    ------
    OptionError
        No targets, predictions with roles of their own, or targets on different
        numbers of examples.

    Examples
    --------
    >>> import aggframe as af
    >>> t1 = af.from_labels([0, 1, 1, 0, 1, 0], [0, 1, 0, 0, 1, 1])
    >>> t2 = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    >>> round(af.multioutput_aggregate([t1, t2], "recall", "target", within="macro"), 3)
    0.583
    >>> round(af.multioutput_aggregate([t1, t2], "recall", "macro"), 3)
    0.567
    """
    preds = predictions_list(predictions, "target", "multioutput_aggregate")
    conv = parse_convention(convention)
    meas = get_measure(measure)
    w = parse_operator(within)
    op = "target" if parse_report_operator(how) == "target" else parse_operator(how)
    tables = [pr.extend.cell_tables() for pr in preds]
    sizes = [int(t.profiles.select(pl.col("n").sum()).collect().item()) for t in tables]
    if len(set(sizes)) != 1:
        msg = f"the targets must be on the same examples; their numbers of examples differ: {sizes}"
        raise OptionError(msg)
    if op == "target":
        values = [reduce_tables(t, [meas], [w], [conv]).collect()["value"][0] for t in tables]
        frame = pl.LazyFrame({"measure": meas.name, "operator": w, "convention": conv, "value": values})
        return float(target_mean(frame, []).collect()["value"][0])
    if op == "exemplar":
        ids = [pr.source.example_cells([], t) for pr, t in zip(preds, tables, strict=True)]
        per_example = pl.concat(
            [cells.select(pl.col(EXAMPLE).alias("_e"), "tp", "fp", "fn", "tn") for cells, _ in ids]
        )
        profiles = (
            per_example.group_by("_e")
            .agg(pl.col("tp", "fp", "fn", "tn").sum())
            .group_by("tp", "fp", "fn", "tn")
            .agg(pl.len().cast(pl.Int64).alias("n"))
            .with_columns(pl.lit(0).alias(KEY_ALL))
        )
        classes = pl.concat([filled_classes(t).collect().lazy() for t in tables], how="vertical_relaxed")
        block = CellTables(classes=classes, profiles=profiles, keys=(KEY_ALL,))
    else:
        classes = pl.concat(
            [filled_classes(t).collect().lazy().with_columns(pl.col("class").cast(pl.String)) for t in tables]
        )
        block = CellTables(classes=classes, profiles=tables[0].profiles, keys=(KEY_ALL,))
    return float(reduce_tables(block, [meas], [op], [conv]).collect()["value"][0])
