"""Canonical coordinates of the confusion matrix, its degrees of freedom, and dominance between models.

A confusion matrix has few free parameters once the class sizes are fixed (the
reference's "degrees of freedom"): ``m (m - 1)`` for single-label data with
``m`` classes, spanned by the off-diagonal conditional rates ``R[j, k] =
P(predicted k | true j)``; two per column for binary and multilabel data (recall
and specificity). Model A dominates model B on the same examples when it is at
least as good in every coordinate; then every measure that rises with tp/tn and
falls with fp/fn ranks A at least as high.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, cast

import polars as pl

from aggframe._columns import CLASS, fmt_row, restore
from aggframe._options import listify
from aggframe.analysis.costs import class_cells, class_order, no_roles, single_label, with_group
from aggframe.exceptions import OptionError, ShapeError
from aggframe.predictions import OrdinalPredictions, Predictions
from aggframe.tables.cells import CellTables

__all__ = ["Relation", "canonical_coordinates", "degrees_of_freedom", "dominates", "pareto_dominance"]


Relation = Literal["A_dominates_B", "B_dominates_A", "equivalent", "incomparable"]


_TOL = 1e-12  # rates closer than this are tied (as in aggmetrics)


def _coordinate_kind(
    pr: Any, what: str, by: Sequence[str] = ()
) -> tuple[Literal["multiclass", "labelwise"], Predictions, list[Any]]:
    """``multiclass``: single-label, off-diagonal rates. ``labelwise``: per column recall and specificity."""
    if not isinstance(pr, Predictions):
        msg = f"{what}: expected an af.Predictions (from_labels, from_long, ...), got {type(pr).__name__}"
        raise OptionError(msg)
    if isinstance(pr, OrdinalPredictions):
        base, order = single_label(pr, what, by=by)
        return "multiclass", base, order
    no_roles(pr, what)
    kind = pr.extend.kind_by(by)
    single = pr.form != "cells" and kind == "multiclass"
    if pr.form == "cells" and kind == "multiclass":
        msg = (
            f"{what} of single-label data needs the (true, predicted) pair counts; stored cells hold only "
            "per-class sums: use the original frame"
        )
        raise OptionError(msg)
    order = class_order(pr, by)
    return ("multiclass" if single else "labelwise"), pr, order


def degrees_of_freedom(pr: Predictions) -> int:
    """Free parameters of the confusion matrix once the class sizes are fixed.

    ``m (m - 1)`` for single-label data with ``m`` classes (the off-diagonal
    conditional rates), ``2`` per column for binary and multilabel data
    (recall and specificity): the number of rows of
    :func:`canonical_coordinates` per group.

    Parameters
    ----------
    pr
        The predictions (single-label, multilabel or ordinal).

    Returns
    -------
    int
        ``m(m - 1)`` for single-label data on ``m`` classes, ``2m`` for multilabel data.

    Raises
    ------
    OptionError
        ``pr`` is not predictions, has fold or target roles, or is stored single-label
        cells (they keep per-class sums, not the pair counts).

    Examples
    --------
    >>> import aggframe as af
    >>> af.suites.degrees_of_freedom(af.from_labels([0, 1, 2], [0, 2, 2]))
    6
    >>> af.suites.degrees_of_freedom(af.from_labels([0, 1, 1], [0, 1, 0], task="binary"))
    2
    """
    kind, _, order = _coordinate_kind(pr, "degrees_of_freedom")
    m = len(order)
    return m * (m - 1) if kind == "multiclass" else 2 * m


def canonical_coordinates(pr: Predictions, *, by: str | Sequence[str] | None = None) -> pl.DataFrame:
    """The canonical coordinates of the confusion matrix, per group, as a tidy frame.

    Single-label data with classes ``0 .. m-1``: the ``m (m - 1)`` off-diagonal
    conditional rates ``R[j, k] = N[j, k] / N[j, .]`` (``coordinate =
    "misclassification_rate"``, lower is better), row by row. Binary and
    multilabel data: ``recall`` and ``specificity`` of every column (higher is
    better). A coordinate whose class has no examples (no negatives, for
    specificity) is undefined: a null ``value``.

    Parameters
    ----------
    pr
        The predictions.
    by
        Group columns.

    Raises
    ------
    OptionError
        ``pr`` is not predictions, has fold or target roles, or is stored single-label
        cells (they keep per-class sums, not the pair counts).

    Returns
    -------
    polars.DataFrame
        by..., class, pred (the predicted class of a rate; null for recall and
        specificity), coordinate, value, count (the numerator: ``N[j, k]``,
        ``tp`` or ``tn``), support (the denominator: ``N[j, .]``, ``tp + fn`` or
        ``fp + tn``), greater_is_better.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 0, 1, 1, 2, 2], [0, 1, 1, 1, 0, 2])
    >>> af.canonical_coordinates(pr).select("class", "pred", "value")
    shape: (6, 3)
    ┌───────┬──────┬───────┐
    │ class ┆ pred ┆ value │
    │ ---   ┆ ---  ┆ ---   │
    │ i64   ┆ i64  ┆ f64   │
    ╞═══════╪══════╪═══════╡
    │ 0     ┆ 1    ┆ 0.5   │
    │ 0     ┆ 2    ┆ 0.0   │
    │ 1     ┆ 0    ┆ 0.0   │
    │ 1     ┆ 2    ┆ 0.0   │
    │ 2     ┆ 0    ┆ 0.5   │
    │ 2     ┆ 1    ┆ 0.0   │
    └───────┴──────┴───────┘
    """
    kind, base, order = _coordinate_kind(pr, "canonical_coordinates", listify(by))
    out, keys, tables = _coordinates(kind, base, order, listify(by))
    return cast(
        "pl.DataFrame",
        restore(out, base.extend.key_names(tables, out.columns[len(keys) :], "canonical_coordinates")),
    )


def _coordinates(
    kind: str, base: Predictions, order: list[Any], by: list[str]
) -> tuple[pl.DataFrame, list[str], CellTables]:
    """The coordinates with private key columns, those keys, and the tables."""
    cells, keys, tables = class_cells(base, by)
    dtype = cells[CLASS].dtype
    rank = pl.DataFrame({CLASS: pl.Series(order).cast(dtype, strict=True), "_i": range(len(order))})
    cells = cells.join(rank, on=CLASS, how="left", nulls_equal=True)
    columns = [*keys, CLASS, "pred", "coordinate", "value", "count", "support", "greater_is_better"]
    if kind == "multiclass":
        counts, _ = base.extend.confusion_table(by)
        true = cells.select(*keys, CLASS, "_i", (pl.col("tp") + pl.col("fn")).alias("support"))
        pred = cells.select(*keys, pl.col(CLASS).alias("pred"), pl.col("_i").alias("_k"))
        pairs = (
            true.join(pred, on=keys, how="inner", nulls_equal=True) if keys else true.join(pred, how="cross")
        )
        out = (
            pairs.filter(pl.col("_i") != pl.col("_k"))
            .join(counts.rename({"true": CLASS}), on=[*keys, CLASS, "pred"], how="left", nulls_equal=True)
            .with_columns(
                pl.col("n").fill_null(0).cast(pl.Float64).alias("count"),
                pl.lit("misclassification_rate").alias("coordinate"),
                pl.lit(False).alias("greater_is_better"),  # noqa: FBT003
            )
            .with_columns(
                pl.when(pl.col("support") > 0).then(pl.col("count") / pl.col("support")).alias("value")
            )
            .sort([*keys, "_i", "_k"], nulls_last=True)
        )
        return out.select(columns), keys, tables
    rates = [
        cells.select(
            *keys,
            CLASS,
            "_i",
            pl.lit(c).alias("_c"),
            pl.lit(name).alias("coordinate"),
            pl.col(hit).alias("count"),
            (pl.col(hit) + pl.col(miss)).alias("support"),
        )
        for c, (name, hit, miss) in enumerate((("recall", "tp", "fn"), ("specificity", "tn", "fp")))
    ]
    out = (
        pl.concat(rates)
        .with_columns(
            pl.lit(None, dtype=dtype).alias("pred"),
            pl.when(pl.col("support") > 0).then(pl.col("count") / pl.col("support")).alias("value"),
            pl.lit(True).alias("greater_is_better"),  # noqa: FBT003
        )
        .sort([*keys, "_i", "_c"], nulls_last=True)
    )
    return out.select(columns), keys, tables


def pareto_dominance(
    a: Predictions, b: Predictions, *, by: str | Sequence[str] | None = None
) -> pl.DataFrame:
    """Does model A dominate model B (or B A) on the same examples? One row per group.

    A dominates B when it is at least as good in every canonical coordinate
    (:func:`canonical_coordinates`) and better in one: then every measure that
    rises with ``tp`` and ``tn`` and falls with ``fp`` and ``fn`` (recall,
    precision, F-beta, MCC, ...) is at least as good for A, per class and
    pooled. Undefined coordinates (a class without examples) are ties. Rates
    closer than 1e-12 are ties.

    Parameters
    ----------
    a, b
        Predictions of two models on the same examples.
    by
        Group columns: one row per group.

    Returns
    -------
    polars.DataFrame
        by..., relation (``"A_dominates_B"``, ``"B_dominates_A"``,
        ``"equivalent"``: every coordinate tied, ``"incomparable"``: the ranking
        depends on the measure), a_better, b_better, equal (how many
        coordinates), n_coordinates.

    Raises
    ------
    ShapeError
        The two are not on the same examples: different classes, or a class
        with a different number of examples (or negatives) in a group.

    Notes
    -----
    Two single-label models are compared in their ``m (m - 1)`` rates; when
    either is multilabel (or binary), both are compared label by label (recall
    and specificity of every class), the coordinates they share.

    Examples
    --------
    >>> import aggframe as af
    >>> y = [0, 0, 1, 1, 2, 2]
    >>> a = af.from_labels(y, [0, 0, 1, 1, 2, 1])
    >>> b = af.from_labels(y, [0, 1, 1, 1, 2, 1])
    >>> af.pareto_dominance(a, b)
    shape: (1, 5)
    ┌───────────────┬──────────┬──────────┬───────┬───────────────┐
    │ relation      ┆ a_better ┆ b_better ┆ equal ┆ n_coordinates │
    │ ---           ┆ ---      ┆ ---      ┆ ---   ┆ ---           │
    │ str           ┆ i64      ┆ i64      ┆ i64   ┆ i64           │
    ╞═══════════════╪══════════╪══════════╪═══════╪═══════════════╡
    │ A_dominates_B ┆ 1        ┆ 0        ┆ 5     ┆ 6             │
    └───────────────┴──────────┴──────────┴───────┴───────────────┘
    """
    keys = listify(by)
    ka, base_a, order_a = _coordinate_kind(a, "pareto_dominance (model A)")
    kb, base_b, order_b = _coordinate_kind(b, "pareto_dominance (model B)")
    # one single-label and one multilabel model share only the per-class coordinates
    kind = ka if ka == kb else "labelwise"
    if set(order_a) != set(order_b) or len(order_a) != len(order_b):
        only_a = [c for c in order_a if c not in order_b]
        only_b = [c for c in order_b if c not in order_a]
        msg = (
            f"models A and B have different classes: only in A {only_a[:5]!r}, only in B {only_b[:5]!r}; "
            "dominance compares predictions on the same examples and classes"
        )
        raise ShapeError(msg)
    ca, keys, tables = _coordinates(kind, base_a, order_a, keys)
    cb, _, _ = _coordinates(kind, base_b, order_a, listify(by))
    names = dict(tables.names)
    on = [*keys, CLASS, "pred", "coordinate"]
    joined = ca.join(
        cb.select(*on, "value", "support", pl.lit(True).alias("_in_b")),  # noqa: FBT003
        on=on,
        how="full",
        suffix="_b",
        nulls_equal=True,
        coalesce=True,
        maintain_order="left_right",
    ).with_columns(pl.col("_in_b").fill_null(False))  # noqa: FBT003
    unmatched = joined.filter(pl.col("greater_is_better").is_null() | ~pl.col("_in_b"))
    if unmatched.height:
        r = unmatched.row(0, named=True)
        side = "B" if r["greater_is_better"] is None else "A"
        group = {k: r[k] for k in keys}
        msg = (
            f"models A and B do not share their groups and classes: class {r[CLASS]!r}"
            f"{f' in group {fmt_row(group, names)}' if group else ''} appears only in model {side}"
        )
        raise ShapeError(msg)
    scale = pl.max_horizontal(pl.col("support").abs(), pl.col("support_b").abs(), pl.lit(1.0))
    differ = joined.filter((pl.col("support") - pl.col("support_b")).abs() > 1e-9 * scale)
    if differ.height:
        r = differ.row(0, named=True)
        group = {k: r[k] for k in keys}
        what = "negatives" if r["coordinate"] == "specificity" else "examples"
        msg = (
            f"models A and B are not on the same examples: class {r[CLASS]!r}"
            f"{f' in group {fmt_row(group, names)}' if group else ''} has {r['support']:g} {what} under A "
            f"but {r['support_b']:g} under B ({differ.height} coordinate(s) differ)"
        )
        raise ShapeError(msg)
    diff = (pl.col("value") - pl.col("value_b")).fill_null(0.0)
    signed = pl.when(pl.col("greater_is_better")).then(diff).otherwise(-diff)
    scored = joined.with_columns((signed > _TOL).alias("_a"), (signed < -_TOL).alias("_b"))
    scored, gkeys = with_group(scored, keys)
    out = scored.group_by(gkeys, maintain_order=True).agg(
        pl.col("_a").sum().cast(pl.Int64).alias("a_better"),
        pl.col("_b").sum().cast(pl.Int64).alias("b_better"),
        pl.len().cast(pl.Int64).alias("n_coordinates"),
    )
    relation = (
        pl.when((pl.col("a_better") > 0) & (pl.col("b_better") == 0))
        .then(pl.lit("A_dominates_B"))
        .when((pl.col("b_better") > 0) & (pl.col("a_better") == 0))
        .then(pl.lit("B_dominates_A"))
        .when((pl.col("a_better") == 0) & (pl.col("b_better") == 0))
        .then(pl.lit("equivalent"))
        .otherwise(pl.lit("incomparable"))
    )
    out = out.select(
        *keys,
        relation.alias("relation"),
        "a_better",
        "b_better",
        (pl.col("n_coordinates") - pl.col("a_better") - pl.col("b_better")).alias("equal"),
        "n_coordinates",
    )
    return cast(
        "pl.DataFrame",
        restore(out, base_a.extend.key_names(tables, out.columns[len(keys) :], "pareto_dominance")),
    )


def dominates(a: Predictions, b: Predictions, *, strict: bool = False) -> bool:
    """Whether model A is at least as good as model B in every canonical coordinate.

    On the same examples (see :func:`pareto_dominance`, which raises otherwise).
    ``strict=True`` also needs A to be better in at least one coordinate.

    Parameters
    ----------
    a, b
        Predictions of two models on the same examples.
    strict
        Also require a strict improvement in at least one coordinate.

    Returns
    -------
    bool
        Whether A dominates B (in every group).

    Raises
    ------
    ShapeError
        The models are not on the same examples (other classes or class sizes).
    OptionError
        ``strict`` not a bool, or predictions :func:`pareto_dominance` refuses.

    Examples
    --------
    >>> import aggframe as af
    >>> y = [0, 0, 1, 1]
    >>> a, b = af.from_labels(y, [0, 0, 1, 0]), af.from_labels(y, [0, 1, 1, 0])
    >>> af.dominates(a, b), af.dominates(b, a), af.dominates(a, a), af.dominates(a, a, strict=True)
    (True, False, True, False)
    """
    if not isinstance(strict, bool):
        msg = f"Expected `strict` to be True or False, got {strict!r}"
        raise OptionError(msg)
    row = pareto_dominance(a, b).row(0, named=True)
    return bool(row["b_better"] == 0 and (row["a_better"] > 0 or not strict))
