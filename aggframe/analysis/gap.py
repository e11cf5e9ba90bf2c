"""The micro-macro gap and its covariance identity, per group, as a tidy frame.

For an aggregation-decomposable measure ``M = <a, v> / <b, v>`` micro-averaging
is the mean of the per-class values ``M_k`` weighted by the per-class
denominators ``d_k = <b, v_k>`` (Theorem 1). With ``w_k = d_k / sum(d)`` over the
``m`` defined classes, the gap to the unweighted (macro) mean is therefore

    micro - macro = sum_k (w_k - 1/m) M_k = m Cov(w, M) = Cov(d, M) / mean(d)

(population covariances): the gap is large when the classes with large
denominators score differently from the rest. Classes whose value is undefined
have a zero denominator and a zero numerator (the inference guarantees it for
registered measures), so they are absent from both sides. The identity does not
extend to non-decomposable measures (MCC, kappa, balanced accuracy, ...): their
pooled value need not even lie between the per-class values; the frame then
reports the gap with a null decomposition and a note.

Everything is computed from the cell tables of one scan: per-class values come from
`_operators.class_table` and micro from `_operators.reduce_tables`, as in `evaluate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import polars as pl

from aggframe._columns import CELLS, KEY_ALL, check_result_names, restore
from aggframe.measures.measure import Measure
from aggframe.measures.registry import get_measure, list_measures
from aggframe.operators.classes import class_table
from aggframe.operators.reduce import NAN, reduce_tables
from aggframe.operators.targets import block_view
from aggframe.tables.cells import sum_to

if TYPE_CHECKING:
    from aggframe.predictions import Predictions

__all__ = ["GAP_COLUMNS", "micro_macro_gap"]

GAP_COLUMNS = (
    "measure",
    "decomposable",
    "micro",
    "macro",
    "gap",
    "n_defined",
    "mean_denominator",
    "covariance",
    "covariance_gap",
    "note",
)
NOT_DECOMPOSABLE = (
    "not aggregation-decomposable: micro is not a weighted mean of the per-class values, "
    "so the gap is not a covariance"
)


def micro_macro_gap(
    pr: Predictions,
    measures: str | Measure | Sequence[str | Measure] | None = None,
    *,
    by: str | Sequence[str] | None = None,
) -> pl.DataFrame:
    """Micro, macro, their gap and its covariance decomposition, per group and measure.

    Parameters
    ----------
    pr
        :class:`Predictions` (any form; with folds the folds are pooled, with
        targets the classes are the (target, class) pairs of the block matrix,
        as in :meth:`Predictions.evaluate`).
    measures
        Names or :class:`Measure` objects (default: every registered measure).
    by
        Group columns.

    Returns
    -------
    polars.DataFrame
        by..., ``measure``, ``decomposable``, ``micro``, ``macro`` (undefined
        classes excluded, as ``evaluate``'s default), ``gap`` (micro - macro),
        ``n_defined`` (classes with a defined value), ``mean_denominator``
        (mean of ``d_k = <b, v_k>``), ``covariance`` (``Cov(d, M)``, population)
        and ``covariance_gap`` (``Cov(d, M) / mean(d) = m Cov(w, M)``, equal to
        ``gap`` for a decomposable measure), ``note``. The last three are null
        for a non-decomposable measure, whose note says so.

    Raises
    ------
    OptionError
        Stored cells without per-class tables, or ``by`` naming a role column.
    UnknownNameError
        An unknown measure.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 0, 0, 1, 1, 2], [0, 0, 1, 1, 2, 2])
    >>> af.micro_macro_gap(pr, ["recall", "mcc"]).select("measure", "gap", "covariance_gap")
    shape: (2, 3)
    ┌─────────┬───────────┬────────────────┐
    │ measure ┆ gap       ┆ covariance_gap │
    │ ---     ┆ ---       ┆ ---            │
    │ str     ┆ f64       ┆ f64            │
    ╞═════════╪═══════════╪════════════════╡
    │ recall  ┆ -0.055556 ┆ -0.055556      │
    │ mcc     ┆ -0.029854 ┆ null           │
    └─────────┴───────────┴────────────────┘
    """
    if measures is None:
        chosen = [get_measure(n) for n in list_measures()]
    elif isinstance(measures, (str, Measure)):
        chosen = [get_measure(measures)]
    else:
        chosen = [get_measure(m) for m in measures]
    chosen = list({m.name: m for m in chosen}.values())
    by_cols = [by] if isinstance(by, str) else list(by or [])
    tables = pr.extend.cell_tables(by_cols)
    folds = pr.source.fold_keys()
    if folds:
        tables = sum_to(tables, [k for k in tables.keys if k not in folds])
    if tables.target is not None:
        tables = block_view(tables)
    visible = [k for k in tables.keys if k != KEY_ALL]
    order = {m.name: i for i, m in enumerate(chosen)}
    # per class: the value and the denominator <b, v_k> of every measure, tidy (the
    # coefficients join in as a small frame, so the plan does not grow with measures)
    coefficients = pl.LazyFrame(
        {
            "measure": [m.name for m in chosen],
            "decomposable": [m.decomposable for m in chosen],
            **{
                f"_b_{c}": [float(m.linear[1][i]) if m.linear else None for m in chosen]
                for i, c in enumerate(CELLS)
            },
        },
        schema_overrides={f"_b_{c}": pl.Float64 for c in CELLS},
    )
    per_class = (
        class_table(tables, chosen)
        .filter("defined")
        .join(coefficients.drop("decomposable"), on="measure", nulls_equal=True)
        .with_columns(
            pl.sum_horizontal([pl.col(f"_b_{c}") * pl.col(c).cast(pl.Float64) for c in CELLS]).alias("_d")
        )
    )
    v, d = pl.col("value"), pl.when(pl.col("_b_tp").is_not_null()).then(pl.col("_d"))
    stats = per_class.group_by([*visible, "measure"]).agg(
        v.mean().alias("macro"),
        pl.len().cast(pl.Int64).alias("n_defined"),
        d.mean().alias("mean_denominator"),
        ((d - d.mean()) * (v - v.mean())).mean().alias("covariance"),
    )
    # the pooled cells' value, as evaluate's micro
    micro = reduce_tables(tables, chosen, ["micro"], ["exclude"]).select(
        *visible, "measure", pl.col("value").alias("micro")
    )
    out = (
        micro.join(coefficients.select("measure", "decomposable"), on="measure", nulls_equal=True)
        .join(stats, on=[*visible, "measure"], how="left", nulls_equal=True)
        .with_columns(
            pl.col("micro").fill_null(NAN),
            pl.col("macro").fill_null(NAN),
            pl.col("n_defined").fill_null(0),
        )
        .with_columns(
            (pl.col("micro") - pl.col("macro")).alias("gap"),
            pl.when(pl.col("decomposable")).then(pl.col("mean_denominator").fill_null(NAN)),
            pl.when(pl.col("decomposable")).then(pl.col("covariance").fill_null(NAN)),
            pl.when(pl.col("decomposable"))
            .then(
                pl.when(pl.col("mean_denominator") != 0)
                .then(pl.col("covariance") / pl.col("mean_denominator"))
                .otherwise(NAN)
            )
            .alias("covariance_gap"),
            pl.when(pl.col("decomposable").not_()).then(pl.lit(NOT_DECOMPOSABLE)).alias("note"),
        )
        .sort(
            [*visible, pl.col("measure").replace_strict(order, return_dtype=pl.Int64)],
            nulls_last=True,
        )
        .select(*visible, *GAP_COLUMNS)
    )
    names = {k: tables.names.get(k, k) for k in visible}
    check_result_names(names.values(), GAP_COLUMNS, "micro_macro_gap")
    return cast("pl.DataFrame", restore(out.collect(), names))
