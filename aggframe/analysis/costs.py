"""Expected costs of the confusion matrix under a cost matrix (MAE and MSE as costs; Theorem 4).

:func:`cost` is ``sum_jk N[j, k] C[j, k]`` of the confusion matrix ``N`` (rows:
true class, columns: predicted) under ``C``, per group and operator. With
``C[j, k] = |j - k|`` over ordinal class indices its micro value is the mean
absolute error, with ``(j - k)^2`` the mean squared error (:func:`cost_matrix`).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, Literal, cast

import narwhals as nw
import numpy as np
import polars as pl

from aggframe._columns import CLASS, CLASS_ROLE, EXAMPLE, KEY_ALL, MASK, PREFIX, P, Y, restore
from aggframe._options import listify
from aggframe.exceptions import (
    InvalidValueError,
    OptionError,
    ShapeError,
    UnknownClassError,
    UnknownNameError,
)
from aggframe.intake.input_checks import plain_array, real_dtype
from aggframe.intake.read_errors import reading
from aggframe.predictions import OrdinalPredictions, Predictions
from aggframe.tables.cells import CellTables
from aggframe.tables.errors import first_row

__all__ = ["COST_OPERATORS", "class_cells", "cost", "cost_matrix", "no_roles", "single_label", "with_group"]


CostOperator = Literal["micro", "macro", "weighted", "exemplar", "total"]


COST_OPERATORS: tuple[CostOperator, ...] = ("micro", "macro", "weighted", "exemplar", "total")


CostKind = Literal["absolute", "squared", "zero_one"]


_COST_KINDS: tuple[CostKind, ...] = ("absolute", "squared", "zero_one")


_GROUP = f"{PREFIX}group"


def cost_matrix(kind: str, m: int) -> np.ndarray:
    """A standard ``m x m`` cost matrix over ordered classes ``0 .. m-1``.

    ``"absolute"``: ``|j - k|`` (micro cost = mean absolute error);
    ``"squared"``: ``(j - k)^2`` (mean squared error); ``"zero_one"``: 1 off
    the diagonal (error rate, ``1 - accuracy``).

    Parameters
    ----------
    kind
        ``"absolute"`` (``|j - k|``), ``"squared"`` (``(j - k)^2``) or ``"zero_one"``.
    m
        The number of classes.

    Returns
    -------
    np.ndarray
        The ``m x m`` matrix, zero on the diagonal.

    Raises
    ------
    UnknownNameError
        An unknown kind.

    Examples
    --------
    >>> import aggframe as af
    >>> af.cost_matrix("absolute", 3)
    array([[0., 1., 2.],
           [1., 0., 1.],
           [2., 1., 0.]])
    """
    key = str(kind).strip().lower().replace("-", "_")
    key = {"mae": "absolute", "mse": "squared", "0_1": "zero_one", "zero_one_loss": "zero_one"}.get(key, key)
    if key not in _COST_KINDS:
        msg = f"unknown cost matrix {kind!r}; valid kinds: {', '.join(_COST_KINDS)} (aliases mae, mse)"
        raise UnknownNameError(msg)
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 1:
        msg = f"Expected `m` (the number of classes) to be a positive integer, got {m!r}"
        raise OptionError(msg)
    idx = np.arange(int(m), dtype=float)
    diff = idx[:, None] - idx[None, :]
    if key == "absolute":
        return np.abs(diff)
    if key == "squared":
        return diff**2
    return (diff != 0).astype(float)


def _check_cost_matrix(C: Any, m: int, classes: Sequence[Any], *, zero_diagonal: bool) -> np.ndarray:
    try:
        M = np.asarray(plain_array(C, "the cost matrix"))
    except ValueError as exc:
        msg = f"the cost matrix is not an m x m array (ragged or nested input): {exc}"
        raise ShapeError(msg) from exc
    if M.shape != (m, m):
        msg = (
            f"the cost matrix has shape {M.shape}; expected ({m}, {m}): one row (true class) and one "
            f"column (predicted class) per class, in the order {list(classes)[:10]!r}"
        )
        raise ShapeError(msg)
    if not real_dtype(M.dtype):
        msg = f"the cost matrix has dtype {M.dtype}; expected numbers"
        raise InvalidValueError(msg)
    M = M.astype(float)
    checks = ((~np.isfinite(M), "non-finite", "finite"), (M < 0, "negative", ">= 0"))
    for flagged, what, rule in checks:
        bad = np.argwhere(flagged)
        if bad.size:
            j, k = bad[0]
            msg = (
                f"the cost matrix has {len(bad)} {what} entr{'y' if len(bad) == 1 else 'ies'} "
                f"(e.g. C[{j}, {k}] = {M[j, k]:g}, true {classes[j]!r}, predicted {classes[k]!r}); "
                f"costs must be {rule}"
            )
            raise InvalidValueError(msg)
    diag = np.flatnonzero(np.diag(M) != 0)
    if zero_diagonal and diag.size:
        j = int(diag[0])
        msg = (
            f"the cost matrix has {diag.size} non-zero diagonal entr{'y' if diag.size == 1 else 'ies'} "
            f"(e.g. C[{j}, {j}] = {M[j, j]:g}, class {classes[j]!r}): a correct prediction usually costs "
            "nothing; pass zero_diagonal=False if it does"
        )
        raise InvalidValueError(msg)
    return M


def single_label(
    pr: Any, what: str, *, masked_ok: bool = False, by: Sequence[str] = ()
) -> tuple[Predictions, list[Any]]:
    """The single-label predictions behind ``pr`` and their class order.

    ``masked_ok``: accept crisp masked long data too (whose observed entries may
    not be one-hot; :func:`masked_counts` checks them). ``by``: the grouping the
    caller works in, which the data are read at (example ids need be unique only
    within its groups).
    """
    if not isinstance(pr, Predictions):
        msg = f"{what}: expected an af.Predictions (from_labels, from_ordinal, ...), got {type(pr).__name__}"
        raise OptionError(msg)
    if isinstance(pr, OrdinalPredictions):
        assert pr.labels is not None
        return pr.labels, list(pr.order)
    no_roles(pr, what)
    by = listify(by)
    if pr.form == "cells" or (
        pr.extend.kind_by(by) != "multiclass" and not (masked_ok and masked_single_label(pr))
    ):
        msg = (
            f"{what} needs single-label predictions (one true and one predicted class per example: "
            "af.from_labels, af.from_ordinal or one-hot long data); these are multilabel, soft, binary "
            "(task='binary') or stored cells"
        )
        raise OptionError(msg)
    return pr, class_order(pr, by)


def class_order(pr: Predictions, by: Sequence[str] = ()) -> list[Any]:
    """The sorted classes of ``pr``, read at the grouping ``by`` (its ungrouped cells when none)."""
    if not by:
        return pr.cells("class")[CLASS].to_list()
    return pr.cells("class", by=list(by))[CLASS].unique().sort().to_list()


def masked_single_label(pr: Predictions) -> bool:
    """Crisp long-form data with a mask, which may hide a true or predicted entry (checked by the counts)."""
    return pr.form == "long" and pr.source.masked and not pr.source.soft


def masked_counts(pr: Predictions, by: list[str]) -> pl.DataFrame:
    """Confusion counts of masked single-label data: by-keys, ``true``, ``pred``, ``n`` (observed costs).

    Each example's classes are read off all its entries (its one ``y = 1`` and
    its one ``p = 1``, observed or not), and its cost counts when its predicted
    entry is observed, as aggmetrics masks the cost (``(Y C) * P * mask``). One
    grouped query where the rows are.
    """
    source = pr.source
    proj = source.project(by)
    y, p = nw.col(Y).cast(nw.Float64), nw.col(P).cast(nw.Float64)
    observed = nw.col(MASK).cast(nw.Float64) == 1
    per_example = proj.frame.group_by([*proj.by_keys, EXAMPLE]).agg(
        (y == 1).cast(nw.Int64).sum().alias("_nt"),
        (p == 1).cast(nw.Int64).sum().alias("_np"),
        nw.when(y == 1).then(nw.col(CLASS_ROLE)).max().alias("true"),
        nw.when(p == 1).then(nw.col(CLASS_ROLE)).max().alias("pred"),
        nw.when((p == 1) & observed).then(1).otherwise(0).max().alias("_obs"),
    )
    one_hot = (nw.col("_nt") == 1) & (nw.col("_np") == 1)
    counts = (
        per_example.with_columns(one_hot.alias("_ok"))
        .group_by([*proj.by_keys, "_ok", "true", "pred"])
        .agg(nw.len().alias("_n"), nw.col("_obs").sum().alias("n"))
    )
    with reading(source.origin):
        table = counts.collect(backend="polars").to_native()
    bad = table.filter(~pl.col("_ok"))
    if bad.height:
        shown = {**proj.names, "_nt": "true classes", "_np": "predicted classes"}
        row = first_row(per_example, ~one_hot, [*proj.by_keys, EXAMPLE, "_nt", "_np"], shown)
        msg = (
            f"{int(bad['_n'].sum())} example(s) do not have exactly one true (y = 1) and one predicted "
            f"(p = 1) class among their entries, masked or not (e.g. {row}): a cost needs single-label "
            "predictions"
        )
        raise InvalidValueError(msg)
    out: pl.DataFrame = (
        table.filter(pl.col("n") > 0)
        .select(*proj.by_keys, "true", "pred", pl.col("n").cast(pl.Int64))
        .sort(*proj.by_keys, "true", "pred", nulls_last=True)
    )
    return out


def no_roles(pr: Predictions, what: str) -> None:
    if pr.source.fold_keys() or pr.source.target is not None:
        msg = (
            f"{what} is computed on one confusion matrix per group; these predictions have fold or "
            "target roles: build them without those roles and pass the columns as by="
        )
        raise OptionError(msg)


def _cost_operators(operators: str | Sequence[str]) -> list[CostOperator]:
    out: list[CostOperator] = []
    for op in listify(operators):
        key = str(op).strip().lower()
        key = {"samples": "exemplar", "example": "exemplar", "sum": "total"}.get(key, key)
        match = [o for o in COST_OPERATORS if o == key]
        if not match:
            msg = f"unknown cost operator {op!r}; valid operators: {', '.join(COST_OPERATORS)}"
            raise UnknownNameError(msg)
        if match[0] not in out:
            out.append(match[0])
    if not out:
        msg = "Expected at least one cost operator"
        raise OptionError(msg)
    return out


def with_group(frame: pl.DataFrame, keys: list[str]) -> tuple[pl.DataFrame, list[str]]:
    if keys:
        return frame, keys
    return frame.with_columns(pl.lit(0).alias(_GROUP)), [_GROUP]


def cost(
    pr: Predictions,
    C: Any,
    operators: str | Sequence[str] = "micro",
    *,
    by: str | Sequence[str] | None = None,
    classes: Sequence[Any] | None = None,
    zero_diagonal: bool = True,
    name: str | None = None,
) -> pl.DataFrame:
    """Expected misclassification cost under a cost matrix ``C``, as a tidy frame.

    ``C[j, k]`` is the cost of predicting class ``k`` for an example of class
    ``j``. The confusion counts ``N[j, k]`` come from one grouped query;
    everything after is a group-by on them.

    Parameters
    ----------
    pr
        Single-label predictions (:func:`~aggframe.from_labels`, one-hot long
        data, or :func:`from_ordinal`, whose ``m``-class matrix is used). Masked
        long data count too when each example has one true and one predicted
        class among all its entries: an example's cost counts when its predicted
        entry is observed (aggmetrics' ``(Y C) * P * mask``) and the others are
        left out (aggmetrics counts them as zero cost: its ``exemplar`` divides
        the same total by every example).
    C
        An ``m x m`` array-like of finite, non-negative costs, rows and columns
        in the class order (``classes``, else the ordinal ``order``, else the
        sorted classes of ``pr.cells("class")``), or a kind of
        :func:`cost_matrix` (``"absolute"``, ``"squared"``, ``"zero_one"``).
        A kind costs the distance between the classes' *positions* in that
        order, not between label values: it is scikit-learn's MAE/MSE when the
        classes are ``0 .. m-1`` (or an ordinal order), but labels ``10, 20, 30``
        cost 1 a step, and labels ``0, 1, 3`` cost 1 from 1 to 3. For the
        distance of the values, pass ``C`` built from them
        (``abs(v[:, None] - v[None, :])``).
    operators
        ``micro``: total cost / examples (the expected cost of an example; MAE
        and MSE with the absolute and squared matrices). ``macro``: the mean over
        true classes of each class's mean cost (macro-averaged MAE); a class
        without examples is undefined and left out. ``weighted``: the same,
        support-weighted (equal to micro). ``exemplar``: the mean cost per
        example (equal to micro on single-label data). ``total``: the total cost
        (aggmetrics' micro).
    by
        Group columns: one row per group and operator.
    classes
        The order of the rows and columns of ``C`` (all the classes).
    zero_diagonal
        Require ``C[j, j] = 0`` (default); ``False`` accepts a cost for correct
        predictions.
    name
        The ``measure`` column (default ``"cost"``, or the kind when ``C`` is one).

    Returns
    -------
    polars.DataFrame
        by..., measure, operator, value, n_entries, n_undefined (``n_entries``:
        1 for micro and total, classes for macro and weighted, examples for
        exemplar; ``n_undefined``: classes without examples).

    Raises
    ------
    ShapeError
        ``C`` is not ``m x m``.
    InvalidValueError
        Non-numeric, non-finite or negative costs, or a non-zero diagonal.
    UnknownClassError
        ``classes`` is not the set of classes of the predictions.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 0, 1, 2, 2, 2], [0, 2, 1, 1, 2, 2])
    >>> af.cost(pr, "absolute", ["micro", "macro", "total"]).select("operator", "value")
    shape: (3, 2)
    ┌──────────┬──────────┐
    │ operator ┆ value    │
    │ ---      ┆ ---      │
    │ str      ┆ f64      │
    ╞══════════╪══════════╡
    │ micro    ┆ 0.5      │
    │ macro    ┆ 0.444444 │
    │ total    ┆ 3.0      │
    └──────────┴──────────┘
    """
    base, order = single_label(pr, "cost", masked_ok=True, by=listify(by))
    if classes is not None:
        given = list(classes)
        if len(given) != len(order) or set(given) != set(order):
            extra = [c for c in given if c not in order]
            absent = [c for c in order if c not in given]
            msg = (
                f"`classes` must list every class of the predictions once; "
                f"unknown: {extra[:5]!r}, missing: {absent[:5]!r}, classes: {order[:10]!r}"
            )
            raise UnknownClassError(msg)
        order = given
    m = len(order)
    if isinstance(C, str):
        name = name or str(C)
        C = cost_matrix(C, m)
    if not isinstance(zero_diagonal, bool):
        msg = f"Expected `zero_diagonal` to be True or False, got {zero_diagonal!r}"
        raise OptionError(msg)
    M = _check_cost_matrix(C, m, order, zero_diagonal=zero_diagonal)
    ops = _cost_operators(operators)
    # the work runs on private key columns; the user's names come back at the end
    cells, keys, tables = class_cells(base, listify(by))
    if base.extend.kind_by(listify(by)) != "multiclass" and masked_single_label(base):
        counts = masked_counts(base, listify(by))
    else:
        counts, _ = base.extend.confusion_table(listify(by))
    dtype = cells[CLASS].dtype
    values = pl.Series(order).cast(dtype, strict=True)
    costs = pl.DataFrame(
        {
            "true": values.gather(np.repeat(np.arange(m), m)),
            "pred": values.gather(np.tile(np.arange(m), m)),
            "_cost": M.ravel(),
        }
    )
    cells, gkeys = with_group(cells, keys)
    counts, _ = with_group(counts, keys)
    weighted = counts.join(costs, on=["true", "pred"], how="left", nulls_equal=True).with_columns(
        (pl.col("n") * pl.col("_cost")).alias("_w")
    )
    per_true = weighted.group_by(*gkeys, "true").agg(pl.col("_w").sum(), pl.col("n").sum())
    per_class = (
        cells.select(*gkeys, CLASS)
        .join(per_true, left_on=[*gkeys, CLASS], right_on=[*gkeys, "true"], how="left", nulls_equal=True)
        .with_columns(pl.col("_w", "n").fill_null(0))
        .with_columns(pl.when(pl.col("n") > 0).then(pl.col("_w") / pl.col("n")).alias("_mean"))
    )
    g = per_class.group_by(gkeys, maintain_order=True).agg(
        pl.col("_w").sum().alias("_total"),
        pl.col("n").sum().alias("_n"),
        pl.col("_mean").mean().alias("_macro"),
        pl.len().alias("_m"),
        pl.col("_mean").is_null().sum().alias("_undefined"),
    )
    micro = pl.col("_total") / pl.col("_n")
    spec: dict[str, tuple[pl.Expr, pl.Expr, pl.Expr]] = {
        "micro": (micro, pl.lit(1), pl.lit(0)),
        "macro": (pl.col("_macro"), pl.col("_m"), pl.col("_undefined")),
        "weighted": (micro, pl.col("_m"), pl.col("_undefined")),
        "exemplar": (micro, pl.col("_n"), pl.lit(0)),
        "total": (pl.col("_total"), pl.lit(1), pl.lit(0)),
    }
    parts = [
        g.select(
            *gkeys,
            pl.lit(name or "cost").alias("measure"),
            pl.lit(op).alias("operator"),
            spec[op][0].cast(pl.Float64).fill_null(float("nan")).alias("value"),
            spec[op][1].cast(pl.Int64).alias("n_entries"),
            spec[op][2].cast(pl.Int64).alias("n_undefined"),
        )
        for op in ops
    ]
    out = pl.concat(parts)
    if keys:
        rank = {op: i for i, op in enumerate(ops)}
        out = out.sort(
            [*keys, pl.col("operator").replace_strict(rank, return_dtype=pl.Int64)],
            maintain_order=True,
            nulls_last=True,
        )
    out = out.drop(_GROUP, strict=False)
    return cast("pl.DataFrame", restore(out, base.extend.key_names(tables, out.columns[len(keys) :], "cost")))


def class_cells(base: Predictions, by: list[str]) -> tuple[pl.DataFrame, list[str], CellTables]:
    """The per-class cells with private key columns, those keys, and the tables."""
    tables = base.extend.cell_tables(by)
    keys = [k for k in tables.keys if k != KEY_ALL]
    return base.extend.cell_frame(tables, "class").drop(KEY_ALL, strict=False), keys, tables
