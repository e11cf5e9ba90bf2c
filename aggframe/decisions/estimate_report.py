"""From the bin table of the scan to the tidy estimate: cell tables, the report plan, intervals.

The expected cells (``kind`` -1), the realized cells of the labelled entries
(-2) and the interval's draws of the cells (0 .. n_draws - 1) become one set of
:class:`~aggframe.tables.cells.CellTables` keyed by (by-keys, kind), and the
report builder of :meth:`~aggframe.Predictions.evaluate` computes every
measure x operator of all of them in one plan over these small tables.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from aggframe._columns import CLASS, CLASS_ROLE, EXAMPLE, PREFIX
from aggframe.decisions.estimate_cells import PRED, BinTable, D, Entries, Q, T
from aggframe.decisions.estimate_draws import draw_cells
from aggframe.operators.report import ReportRequest, build_report
from aggframe.tables.cells import GROUP_COLUMNS, CellTables

__all__ = ["ESTIMATED", "KIND", "REALIZED", "Sizes", "cell_report", "exemplar_plan", "expected_cells"]

KIND = f"{PREFIX}est_kind"
ESTIMATED, REALIZED = -1, -2
_CELLS = ("tp", "fp", "fn", "tn")


@dataclass(frozen=True)
class Sizes:
    """Per group: ``n_examples`` and ``n_labelled`` (keys..., n_examples, n_labelled)."""

    frame: pl.DataFrame


def expected_cells(bt: BinTable) -> pl.DataFrame:
    """Per (group, class): the expected cells and the variances of tp and fn (keys..., class, tp, fp, fn, tn, v_tp, v_fn)."""
    d, n, q, v = pl.col(D), pl.col("n"), pl.col("q_sum"), pl.col("v_sum")
    out = bt.frame.group_by([*bt.keys, CLASS_ROLE]).agg(
        (q * d).sum().alias("tp"),
        ((n - q) * d).sum().alias("fp"),
        (q * (1.0 - d)).sum().alias("fn"),
        ((n - q) * (1.0 - d)).sum().alias("tn"),
        (v * d).sum().alias("v_tp"),
        (v * (1.0 - d)).sum().alias("v_fn"),
    )
    return out.sort([*bt.keys, CLASS_ROLE], nulls_last=True)


def _realized(bt: BinTable, expected: pl.DataFrame) -> pl.DataFrame:
    """Per (group, class): the cells of the labelled entries (every class of the group, zero where none)."""
    d, n, t = pl.col(D), pl.col("n"), pl.col(T)
    got = (
        bt.frame.filter(t.is_not_null())
        .group_by([*bt.keys, CLASS_ROLE])
        .agg(
            (n * t * d).sum().alias("tp"),
            (n * (1.0 - t) * d).sum().alias("fp"),
            (n * t * (1.0 - d)).sum().alias("fn"),
            (n * (1.0 - t) * (1.0 - d)).sum().alias("tn"),
        )
    )
    base = expected.select(*bt.keys, CLASS_ROLE)
    joined = base.join(got, on=[*bt.keys, CLASS_ROLE], how="left", nulls_equal=True, maintain_order="left")
    return joined.with_columns(pl.col(*_CELLS).fill_null(0.0))


def _confusion(bt: BinTable) -> pl.DataFrame:
    """Single-label: per (group, predicted class, class) the expected count ``mu`` and its variance ``v``."""
    return (
        bt.frame.group_by([*bt.keys, PRED, CLASS_ROLE])
        .agg(pl.col("q_sum").sum().alias("mu"), pl.col("v_sum").sum().alias("v"))
        .rename({PRED: "pred"})
    )


def _groups(classes: pl.DataFrame, sizes: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The ``groups`` table: n_examples (realized: the labelled ones), n_classes, n_absent = 0, pooled cells."""
    k = [*keys, KIND]
    pooled = classes.group_by(k).agg(
        pl.len().cast(pl.Int64).alias("n_classes"),
        pl.lit(0, pl.Int64).alias("n_absent"),
        *[pl.col(c).sum() for c in _CELLS],
    )
    per = pooled.join(sizes, on=keys, how="left", nulls_equal=True)
    n = pl.when(pl.col(KIND) == REALIZED).then(pl.col("n_labelled")).otherwise(pl.col("n_examples"))
    return per.with_columns(n.cast(pl.Int64).alias("n_examples")).select(*k, *GROUP_COLUMNS)


def cell_tables(
    bt: BinTable,
    sizes: pl.DataFrame,
    *,
    n_draws: int,
    seed: int,
    profiles: pl.DataFrame | Callable[[pl.DataFrame], pl.DataFrame] | None,
) -> CellTables:
    """The cell tables of every kind (estimated, realized, the draws), keyed by (by-keys, kind).

    ``profiles``: the exemplar operator's profiles of every kind, or a function of the
    class cells of every kind that makes them (binary: the profile counts are the cells).
    """
    keys = list(bt.keys)
    expected = expected_cells(bt)
    cells = list(_CELLS)
    labelled = sizes.filter(pl.col("n_labelled") > 0).select(keys) if keys else None
    realized = _realized(bt, expected)
    if labelled is not None:
        realized = realized.join(labelled, on=keys, how="semi", nulls_equal=True)
    elif not sizes["n_labelled"].sum():
        realized = realized.head(0)
    parts = [
        expected.select(*keys, pl.lit(ESTIMATED, pl.Int64).alias(KIND), CLASS_ROLE, *cells),
        realized.select(*keys, pl.lit(REALIZED, pl.Int64).alias(KIND), CLASS_ROLE, *cells),
    ]
    if n_draws:
        rows = _confusion(bt) if bt.single_label else None
        drawn = draw_cells(expected, rows, keys, n_draws=n_draws, seed=seed, kind=KIND)
        parts.append(drawn.select(*keys, KIND, CLASS_ROLE, *cells))
    classes = pl.concat(parts, how="vertical_relaxed").rename({CLASS_ROLE: CLASS})
    groups = _groups(classes, sizes, keys)
    k = (*keys, KIND)
    if callable(profiles):
        profiles = profiles(classes)
    if profiles is None:
        # nothing reads profiles unless the exemplar operator is asked: one neutral row per group
        profiles = groups.select(*k, *[pl.lit(0.0).alias(c) for c in cells], pl.col("n_examples").alias("n"))
    return CellTables(
        classes=classes.lazy(),
        profiles=profiles.lazy(),
        keys=k,
        groups=groups.lazy(),
        universe=classes.select(*k, CLASS).unique().lazy(),
        universe_keys=k,
    )


def exemplar_plan(lf: pl.LazyFrame, ent: Entries) -> pl.LazyFrame:
    """Per-example cell profiles of the estimated and realized kinds (keys..., kind, tp, fp, fn, tn, n; lazy)."""
    keys = list(ent.keys)
    q, d, t = pl.col(Q), pl.col(D), pl.col(T)
    est = [q * d, (1.0 - q) * d, q * (1.0 - d), (1.0 - q) * (1.0 - d)]
    real = [t * d, (1.0 - t) * d, t * (1.0 - d), (1.0 - t) * (1.0 - d)]
    if ent.binary:
        per_est = lf.select(*keys, *[e.alias(c) for e, c in zip(est, _CELLS, strict=True)])
        per_real = lf.filter(t.is_not_null()).select(
            *keys, *[e.alias(c) for e, c in zip(real, _CELLS, strict=True)]
        )
    else:
        ex = [*keys, EXAMPLE]
        per_est = lf.group_by(ex).agg(*[e.sum().alias(c) for e, c in zip(est, _CELLS, strict=True)])
        per_real = (
            lf.group_by(ex)
            .agg(
                t.is_null().any().alias("_u"), *[e.sum().alias(c) for e, c in zip(real, _CELLS, strict=True)]
            )
            .filter(~pl.col("_u"))
        )
    count = [*keys, *_CELLS]
    parts = [
        per_est.group_by(count)
        .agg(pl.len().cast(pl.Float64).alias("n"))
        .with_columns(pl.lit(ESTIMATED, pl.Int64).alias(KIND)),
        per_real.group_by(count)
        .agg(pl.len().cast(pl.Float64).alias("n"))
        .with_columns(pl.lit(REALIZED, pl.Int64).alias(KIND)),
    ]
    return pl.concat(parts).select(*keys, KIND, *_CELLS, "n")


def cell_report(
    tables: CellTables, request: ReportRequest, class_dtype: pl.DataType, engine: Any
) -> pl.DataFrame:
    """Every measure x operator of every kind: keys..., kind, measure, operator, value (one plan, collected)."""
    report = build_report(tables, request, folds=[], class_dtype=class_dtype)
    names = report.collect_schema().names()
    # the report drops the stand-in key of "no by-columns": put it back for the joins after
    keys = [pl.col(k) if k in names else pl.lit(0, pl.Int64).alias(k) for k in tables.keys]
    return report.select(*keys, "measure", "operator", "value").collect(engine=engine)


def intervals(res: pl.DataFrame, keys: Sequence[str], level: float) -> pl.DataFrame:
    """The percentile interval of the draws per (group, measure, operator)."""
    alpha = (1.0 - level) / 2.0
    v = pl.col("value").filter(pl.col("value").is_finite())
    return (
        res.filter(pl.col(KIND) >= 0)
        .group_by(*keys, "measure", "operator")
        .agg(
            v.quantile(alpha, interpolation="linear").alias("ci_low"),
            v.quantile(1.0 - alpha, interpolation="linear").alias("ci_high"),
        )
    )
