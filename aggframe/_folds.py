"""Cross-validation folds as operators on per-fold cell tables.

The wide step keys the cell tables by ``by`` plus the fold columns (``repeat``,
``fold``), so every appearance of an example in a fold is its own per-example
row. From those per-fold tables, in the same plan:

``pooled``
    the union of the folds' predictions: class cells and cell profiles summed
    over the folds (exact: sums of cells are the cells of the union);
``averaged``
    every operator inside each fold, then the mean weighted by the fold's number
    of examples (NaN as soon as one fold's value is NaN, as ``numpy.average``);
``fold``, ``min``, ``max``, ``std``
    the per-fold values themselves and their spread over the folds whose value is
    defined (``std`` with ``ddof=1``).

The spread of fold values is an indication, not a confidence interval: the folds
share training data, so their standard deviation understates the uncertainty.

For a decomposable measure the pooled value is the average of the fold values
weighted by the fold *denominators*; ``averaged`` weights by fold *size*. They
coincide when the denominator is proportional to the fold size (micro recall on
single-label data is accuracy) and differ otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from aggframe._cells import KEY_ALL
from aggframe._grains import CLASS, CellTables, sum_to
from aggframe._measures import Measure, get_measure
from aggframe._operators import RESULT_COLUMNS, reduce_tables
from aggframe.exceptions import UnknownClassError, UnknownNameError

__all__ = ["POOLINGS", "fold_aggregate", "fold_report"]

POOLINGS = ("pooled", "averaged", "fold", "min", "max", "std")
_NAN = pl.lit(float("nan"), dtype=pl.Float64)


def fold_report(
    tables: CellTables,
    keys: Sequence[str],
    fold_keys: Sequence[str],
    *,
    reducer: Callable[[CellTables], pl.LazyFrame],
    poolings: Sequence[str],
) -> pl.LazyFrame:
    """Tidy rows for every requested pooling; ``fold_keys`` are null except on fold rows.

    ``reducer`` turns cell tables into tidy rows keyed by their keys (minus a
    target column): every operator of the report, applied per fold or pooled.
    """
    k, fk = list(keys), list(fold_keys)
    visible = [c for c in k if c not in (KEY_ALL, tables.target)]
    parts: list[pl.LazyFrame] = []
    null_folds = [pl.lit(None).alias(c) for c in fk]
    if "pooled" in poolings:
        pooled = reducer(sum_to(tables, k)).with_row_index("_r")
        parts.append(pooled.with_columns(*null_folds, pl.lit("pooled").alias("pooling")))
    needs_folds = [p for p in poolings if p != "pooled"]
    if needs_folds:
        # _r keeps the reducer's row order (measure, operator, convention) through the
        # joins and group-bys below, so the result's order is deterministic
        per_fold = reducer(tables).with_row_index("_r").cache()
        stat_keys = [*visible, "measure", "operator", "convention"]
        if "fold" in poolings:
            parts.append(per_fold.with_columns(pl.lit("fold").alias("pooling")))
        if "averaged" in poolings:
            examples = tables.block_profiles if tables.block_profiles is not None else tables.profiles
            size_keys = [c for c in (*k, *fk) if c != tables.target]
            sizes = examples.group_by(size_keys).agg(pl.col("n").sum().cast(pl.Float64).alias("_size"))
            sized = per_fold.join(
                sizes.drop(KEY_ALL, strict=False),
                on=[*visible, *fk],
                how="left",
                maintain_order="left",
                nulls_equal=True,
            )
            value = pl.col("value")
            averaged = sized.group_by(stat_keys, maintain_order=True).agg(
                pl.when(value.is_nan().any())
                .then(_NAN)
                .otherwise((value * pl.col("_size")).sum() / pl.col("_size").sum())
                .alias("value"),
                pl.len().cast(pl.Int64).alias("n_entries"),
                value.is_nan().sum().cast(pl.Int64).alias("n_undefined"),
                pl.col("_r").min(),
            )
            parts.append(averaged.with_columns(*null_folds, pl.lit("averaged").alias("pooling")))
        spread = [p for p in ("min", "max", "std") if p in poolings]
        if spread:
            value = pl.col("value").filter(pl.col("value").is_not_nan())
            stats = per_fold.group_by(stat_keys, maintain_order=True).agg(
                value.min().alias("min"),
                value.max().alias("max"),
                value.std(ddof=1).alias("std"),
                pl.len().cast(pl.Int64).alias("n_entries"),
                pl.col("value").is_nan().sum().cast(pl.Int64).alias("n_undefined"),
                pl.col("_r").min(),
            )
            for stat in spread:
                parts.append(
                    stats.select(
                        *stat_keys,
                        pl.col(stat).cast(pl.Float64).fill_null(float("nan")).alias("value"),
                        "n_entries",
                        "n_undefined",
                        *null_folds,
                        pl.lit(stat).alias("pooling"),
                        "_r",
                    )
                )
    columns = [*visible, *fk, "pooling", *RESULT_COLUMNS]
    out = pl.concat([p.select(*columns, "_r") for p in parts], how="vertical_relaxed")
    rank = {p: i for i, p in enumerate(POOLINGS)}
    return out.sort(
        [*visible, pl.col("pooling").replace_strict(rank, return_dtype=pl.Int64), *fk, "_r"],
        nulls_last=True,
    ).drop("_r")


FOLD_KEY = "__aggframe_fold__"


def fold_aggregate(
    predictions: Sequence[Any],
    measure: str | Measure,
    how: str = "macro",
    pooling: str = "pooled",
    *,
    convention: str = "exclude",
) -> float:
    """One measure over K cross-validation folds given as separate predictions.

    Parity with ``aggmetrics.fold_aggregate``: ``predictions`` holds one
    :class:`~aggframe.Predictions` per test fold (folds may differ in size; for
    repeated CV pass the folds of every repeat). ``pooling="pooled"`` evaluates
    the union of the folds' predictions, ``"averaged"`` the fold values' mean
    weighted by fold size. Only the folds' small cell tables are combined (each
    fold is scanned once); the class universe must be the same in every fold
    (build them with ``n_classes=``/``classes=`` when a rare class may be absent).

    Examples
    --------
    >>> import aggframe as af
    >>> folds = [af.from_labels([0, 1, 1], [0, 1, 0], n_classes=2), af.from_labels([1, 0], [1, 1], n_classes=2)]
    >>> round(af.fold_aggregate(folds, "recall", "micro", "pooled"), 4)
    0.6
    >>> round(af.fold_aggregate(folds, "f1", "macro", "averaged"), 4)
    0.5333
    """
    from aggframe._predictions import _convention, _operator, _single_predictions

    preds = _single_predictions(predictions, "fold", "fold_aggregate")
    key = str(pooling).strip().lower()
    if key not in ("pooled", "averaged"):
        msg = f"unknown pooling {pooling!r}; valid poolings: pooled, averaged"
        raise UnknownNameError(msg)
    op, conv = _operator(how), _convention(convention)
    tables = [pr._tables([]) for pr in preds]
    classes = [t.classes.collect() for t in tables]
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
    out = fold_report(
        stacked,
        [KEY_ALL],
        [FOLD_KEY],
        reducer=lambda t: reduce_tables(t, [meas], [op], [conv]),
        poolings=[key],
    ).collect()
    return float(out["value"][0])
