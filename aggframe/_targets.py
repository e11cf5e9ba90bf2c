"""Several targets (multi-output): the block-matrix operators and the target-wise operator.

With T targets on the same examples the data are the block matrix
``[Y(1) | ... | Y(T)]``: its classes are the (target, class) pairs and its
examples span every target. The cell tables keyed by target give both views:

* block ``micro``/``macro``/``weighted``: the per-class table with the target
  dropped from the group keys, so the entries are all (target, class) pairs;
* block ``exemplar``: per-example cells summed over the targets (``block_profiles``);
* ``target:<within>``: the operator ``within`` inside each target, then the
  mean over the targets, with the convention deciding what an undefined target
  value counts as (exactly as for per-class entries).

For a decomposable measure pooling every target (block micro) equals the
target-wise micro average weighted by each target's denominator (Theorem 1 on
the blocks); the two coincide when the denominators are equal (Corollary 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from aggframe._cells import KEY_ALL
from aggframe._grains import CellTables
from aggframe._measures import Measure, get_measure
from aggframe._operators import RESULT_COLUMNS, reduce_tables
from aggframe.exceptions import OptionError

__all__ = ["block_view", "multioutput_aggregate", "target_reduce"]

_NAN = pl.lit(float("nan"), dtype=pl.Float64)


def block_view(tables: CellTables) -> CellTables:
    """The block matrix of all targets: the target leaves the keys."""
    assert tables.target is not None
    assert tables.block_profiles is not None
    keys = tuple(k for k in tables.keys if k != tables.target)
    return CellTables(classes=tables.classes, profiles=tables.block_profiles, keys=keys)


def _target_mean(per_target: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """Mean over targets of per-target values, the convention deciding undefined ones."""
    v = pl.col("value")
    defined = v.is_not_nan()
    n_t = pl.len()
    n_def = defined.sum()
    s_def = v.filter(defined).sum()
    conv = pl.col("convention").first()
    value = (
        pl.when((conv == "nan") & (n_def < n_t))
        .then(_NAN)
        .when(conv == "zero")
        .then(s_def / n_t)
        .when(conv == "one")
        .then((s_def + (n_t - n_def)) / n_t)
        .when(n_def > 0)
        .then(s_def / n_def)
        .otherwise(_NAN)
    )
    return per_target.group_by([*keys, "measure", "operator", "convention"], maintain_order=True).agg(
        value.cast(pl.Float64).alias("value"),
        n_t.cast(pl.Int64).alias("n_entries"),
        (n_t - n_def).cast(pl.Int64).alias("n_undefined"),
    )


def target_reduce(
    tables: CellTables,
    measures: Sequence[Measure],
    operators: Sequence[str],
    conventions: Sequence[str],
    withins: Sequence[str],
) -> pl.LazyFrame:
    """Tidy rows for every operator, keyed by the tables' keys without the target."""
    if tables.target is None:
        return reduce_tables(tables, measures, operators, conventions)
    block_ops = [op for op in operators if op != "target"]
    keys = [k for k in tables.keys if k != tables.target]
    visible = [k for k in keys if k != KEY_ALL]
    parts: list[pl.LazyFrame] = []
    if block_ops:
        parts.append(reduce_tables(block_view(tables), measures, block_ops, conventions))
    if "target" in operators:
        per_target = reduce_tables(tables, measures, withins, conventions)
        mean = _target_mean(per_target, visible)
        parts.append(
            mean.with_columns(pl.concat_str(pl.lit("target:"), pl.col("operator")).alias("operator"))
        )
    labels = [
        op if op != "target" else f"target:{w}"
        for op in operators
        for w in (withins if op == "target" else [op])
    ]
    order = {label: i for i, label in enumerate(labels)}
    names = {m.name: i for i, m in enumerate(measures)}
    out = pl.concat([p.select(*visible, *RESULT_COLUMNS) for p in parts], how="vertical")
    return out.sort(
        [
            *visible,
            pl.col("measure").replace_strict(names, return_dtype=pl.Int64),
            pl.col("operator").replace_strict(order, return_dtype=pl.Int64),
        ],
        nulls_last=True,
        maintain_order=True,
    )


def multioutput_aggregate(
    predictions: Sequence[Any],
    measure: str | Measure,
    how: str = "target",
    *,
    within: str = "micro",
    convention: str = "exclude",
) -> float:
    """One measure over several targets given as separate predictions on the same examples.

    Parity with the reference's ``multioutput_aggregate``: ``how="target"``
    averages over the targets the measure computed inside each with ``within``;
    ``"micro"``, ``"macro"``, ``"weighted"`` (and ``"exemplar"``) apply to the
    block matrix of all targets. The targets may have different classes. Each
    prediction set is evaluated on its own cell tables; only those are combined.

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
    from aggframe._predictions import _convention, _operator, _single_predictions

    preds = _single_predictions(predictions, "target", "multioutput_aggregate")
    conv = _convention(convention)
    meas = get_measure(measure)
    w = _operator(within)
    op = "target" if str(how).strip().lower() == "target" else _operator(how)
    tables = [pr._tables([]) for pr in preds]
    sizes = [int(t.profiles.select(pl.col("n").sum()).collect().item()) for t in tables]
    if len(set(sizes)) != 1:
        msg = f"the targets must be on the same examples; their numbers of examples differ: {sizes}"
        raise OptionError(msg)
    if op == "target":
        values = [reduce_tables(t, [meas], [w], [conv]).collect()["value"][0] for t in tables]
        frame = pl.LazyFrame({"measure": meas.name, "operator": w, "convention": conv, "value": values})
        return float(_target_mean(frame, []).collect()["value"][0])
    if op == "exemplar":
        ids = [pr._example_cells([]) for pr in preds]
        per_example = pl.concat(
            [cells.select(pl.col(ex).alias("_e"), "tp", "fp", "fn", "tn") for cells, _, ex in ids]
        )
        profiles = (
            per_example.group_by("_e")
            .agg(pl.col("tp", "fp", "fn", "tn").sum())
            .group_by("tp", "fp", "fn", "tn")
            .agg(pl.len().cast(pl.Int64).alias("n"))
            .with_columns(pl.lit(0).alias(KEY_ALL))
        )
        classes = pl.concat([t.classes.collect().lazy() for t in tables], how="vertical_relaxed")
        block = CellTables(classes=classes, profiles=profiles, keys=(KEY_ALL,))
    else:
        classes = pl.concat(
            [t.classes.collect().lazy().with_columns(pl.col("class").cast(pl.String)) for t in tables]
        )
        block = CellTables(classes=classes, profiles=tables[0].profiles, keys=(KEY_ALL,))
    return float(reduce_tables(block, [meas], [op], [conv]).collect()["value"][0])
