"""Bootstrap cell tables: the wide step's replicate grains -> cell tables with one more key, the replicate.

The replicate grains (:mod:`aggframe.wide.bootstrap`) are wide: one column per
replicate (and per sum). Here, in Polars on those small tables, they become
cell tables keyed by ``REP`` and the tables' keys: the universe of each group
is the one of the unweighted tables of the same scan (``base``, validated
there), absent classes and absent sparse entries are filled as in those, and
:func:`stack` puts the unweighted tables in as replicate ``-1``. Then the one
reduction (:func:`~aggframe.operators.reduce.reduce_tables`) and every operator
above it run unchanged, the replicate being just another key, and
:func:`~aggframe.operators.bootstrap.summarize` reads the intervals off.

Nothing is validated again (the unweighted tables carry the checks) but what
only the bootstrap can get wrong: a cluster that varies within an example.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import narwhals as nw
import polars as pl

from aggframe._columns import CELLS, CLASS, REP
from aggframe.exceptions import InvalidValueError
from aggframe.tables.cells import CellTables
from aggframe.wide.engines import to_polars_all

__all__ = ["finish_label_boot", "finish_long_boot", "stack"]

#: The replicate of the unweighted tables (every weight 1) in a stacked set of tables.
POINT = -1


def _replicates(n_boot: int) -> pl.LazyFrame:
    return pl.LazyFrame({REP: pl.Series(range(n_boot), dtype=pl.Int64)})


def _long(frame: pl.LazyFrame, index: Sequence[str], families: Mapping[str, Sequence[str]]) -> pl.LazyFrame:
    """Wide replicate columns -> one row per replicate: ``families`` maps a value name to its B columns."""
    idx = list(index)
    names = list(families)
    first = names[0]
    position = {c: b for b, c in enumerate(families[first])}
    head = frame.unpivot(
        on=list(families[first]), index=idx, variable_name=REP, value_name=first
    ).with_columns(pl.col(REP).replace_strict(position, return_dtype=pl.Int64))
    # unpivot emits the columns one after the other, each over all rows: the families line up
    rest = [frame.unpivot(on=list(families[n]), index=[], value_name=n).select(n) for n in names[1:]]
    return pl.concat([head, *rest], how="horizontal") if rest else head


def _weights(n_boot: int, prefix: str = "_w") -> list[str]:
    return [f"{prefix}{b}" for b in range(n_boot)]


def _check_split(profiles: pl.LazyFrame, cluster: str | None) -> pl.LazyFrame:
    """A clustered bootstrap needs one cluster per example (its rows share the weights)."""

    def check(frame: pl.DataFrame) -> pl.DataFrame:
        split = int(frame["_split"].sum())
        if split:
            msg = (
                f"column {cluster!r}: {split} example(s) have rows in more than one cluster; a clustered "
                "bootstrap resamples whole clusters, so every row of an example needs the same cluster"
            )
            raise InvalidValueError(msg)
        return frame

    return profiles.map_batches(check) if cluster is not None else profiles


def _class_keys(base: CellTables, n_boot: int) -> pl.LazyFrame:
    """Every (replicate, group, class) of the unweighted tables' universe."""
    return _replicates(n_boot).join(base.classes.select(*base.keys, CLASS), how="cross")


def finish_label_boot(
    raw: dict[str, nw.LazyFrame[Any]],
    base: CellTables,
    *,
    n_boot: int,
    y_true: str,
    y_pred: str,
    task: str,
    pos_label: Any,
    cluster: str | None = None,
) -> CellTables:
    """Bootstrap cell tables of the label form (keys: ``REP`` and the tables' keys)."""
    k = list(base.keys)
    grains = [raw["conf"], *([raw["block"]] if "block" in raw else [])]
    conf_w, *block_w = to_polars_all(grains)
    conf = _long(conf_w.rename({y_true: "_yt", y_pred: "_yp"}), [*k, "_yt", "_yp"], {"n": _weights(n_boot)})
    conf = conf.with_columns(pl.col("n").cast(pl.Float64)).cache()
    rk = [REP, *k]
    sizes = conf.group_by(rk).agg(pl.col("n").sum().alias("_N"))
    right = pl.col("_yt") == pl.col("_yp")
    zero = pl.lit(0.0, dtype=pl.Float64)
    margins = (
        pl.concat(
            [
                conf.select(
                    *rk,
                    pl.col("_yt").alias(CLASS),
                    pl.col("n").alias("_t"),
                    zero.alias("_p"),
                    (right.cast(pl.Float64) * pl.col("n")).alias("tp"),
                ),
                conf.select(
                    *rk,
                    pl.col("_yp").alias(CLASS),
                    zero.alias("_t"),
                    pl.col("n").alias("_p"),
                    zero.alias("tp"),
                ),
            ]
        )
        .group_by(*rk, CLASS)
        .agg(pl.col("_t", "_p", "tp").sum())
    )
    classes = (
        _class_keys(base, n_boot)
        .join(sizes, on=rk, how="left", nulls_equal=True)
        .join(margins, on=[*rk, CLASS], how="left", nulls_equal=True)
        .with_columns(pl.col("tp", "_t", "_p", "_N").fill_null(0.0))
        .select(
            *rk,
            CLASS,
            pl.col("tp"),
            (pl.col("_p") - pl.col("tp")).alias("fp"),
            (pl.col("_t") - pl.col("tp")).alias("fn"),
            (pl.col("_N") - pl.col("_t") - pl.col("_p") + pl.col("tp")).alias("tn"),
        )
    )
    sizes_m = base.classes.group_by(k).agg(pl.len().cast(pl.Float64).alias("_m"))
    if task == "binary":
        t_pos, p_pos = pl.col("_yt") == pl.lit(pos_label), pl.col("_yp") == pl.lit(pos_label)
        prof = conf.with_columns(
            (t_pos & p_pos).alias("tp"),
            (~t_pos & p_pos).alias("fp"),
            (t_pos & ~p_pos).alias("fn"),
            (~t_pos & ~p_pos).alias("tn"),
        )
    else:
        prof = conf.join(sizes_m, on=k, how="inner", nulls_equal=True).with_columns(
            right.alias("tp"),
            (~right).alias("fp"),
            (~right).alias("fn"),
            (pl.col("_m") - 2 + right.cast(pl.Float64)).alias("tn"),
        )
    profiles = prof.with_columns(pl.col(*CELLS).cast(pl.Float64)).group_by(*rk, *CELLS).agg(pl.col("n").sum())
    block = None
    if base.target is not None:
        bk = [c for c in k if c != base.target]
        block = _check_split(block_w[0], cluster)
        block = _long(block, [*bk, *CELLS], {"n": _weights(n_boot)}).with_columns(
            pl.col("n").cast(pl.Float64)
        )
        if task != "binary":
            # an example's tn sums the class counts of its group's targets (label_row_cells leaves them out)
            total_m = sizes_m.group_by(bk).agg(pl.col("_m").sum())
            block = block.join(total_m, on=bk, how="inner", nulls_equal=True).with_columns(
                pl.col("tn") + pl.col("_m")
            )
        block = block.group_by(REP, *bk, *CELLS).agg(pl.col("n").sum())
    return CellTables(
        classes=classes,
        profiles=profiles,
        keys=(REP, *k),
        block_profiles=block,
        target=base.target,
        names=base.names,
    )


def finish_long_boot(
    raw: dict[str, nw.LazyFrame[Any]],
    base: CellTables,
    *,
    n_boot: int,
    class_: str,
    soft: bool,
    cluster: str | None = None,
) -> CellTables:
    """Bootstrap cell tables of the long form (keys: ``REP`` and the tables' keys)."""
    k = list(base.keys)
    rk = [REP, *k]
    names = ["class", "profiles", *(["block"] if "block" in raw else [])]
    class_w, profiles_w, *block_w = to_polars_all([raw[n] for n in names])
    class_w = class_w.rename({class_: CLASS})
    weights = _weights(n_boot)
    if soft:
        families = {c: [f"_{c}{b}" for b in range(n_boot)] for c in CELLS}
        present = _long(class_w, [*k, CLASS], {"rows": weights, **families})
    else:
        kinds = _long(class_w, [*k, CLASS, "_cat"], {"n": weights})
        cat = pl.col("_cat")
        present = kinds.group_by(*rk, CLASS).agg(
            pl.col("n").filter(cat == 3).sum().alias("tp"),
            pl.col("n").filter(cat == 1).sum().alias("fp"),
            pl.col("n").filter(cat == 2).sum().alias("fn"),
            pl.col("n").filter(cat == 0).sum().alias("tn"),
            pl.col("n").sum().alias("rows"),
        )
    present = present.with_columns(pl.col(*CELLS, "rows").cast(pl.Float64))
    prof_w = _check_split(profiles_w, cluster)
    profiles = (
        _long(prof_w, [*k, *CELLS], {"n": weights}).with_columns(pl.col(*CELLS, "n").cast(pl.Float64)).cache()
    )
    sizes = profiles.group_by(rk).agg(pl.col("n").sum().alias("_N"))
    classes = (
        _class_keys(base, n_boot)
        .join(sizes, on=rk, how="left", nulls_equal=True)
        .join(present, on=[*rk, CLASS], how="left", nulls_equal=True)
        .with_columns(pl.col(*CELLS, "rows", "_N").fill_null(0.0))
        # absent entries (sparse data with a known universe) are observed true negatives
        .select(*rk, CLASS, "tp", "fp", "fn", (pl.col("tn") + pl.col("_N") - pl.col("rows")).alias("tn"))
    )
    block = None
    if base.target is not None:
        bk = [c for c in k if c != base.target]
        blk = _check_split(block_w[0], cluster)
        block = _long(blk, [*bk, *CELLS], {"n": weights}).with_columns(pl.col(*CELLS, "n").cast(pl.Float64))
        block = block.group_by(REP, *bk, *CELLS).agg(pl.col("n").sum())
    profiles = profiles.group_by(*rk, *CELLS).agg(pl.col("n").sum())
    return CellTables(
        classes=classes,
        profiles=profiles,
        keys=tuple(rk),
        block_profiles=block,
        target=base.target,
        names=base.names,
    )


def stack(base: CellTables, boot: CellTables) -> CellTables:
    """The unweighted tables as replicate ``-1`` (:data:`POINT`) on top of the replicates: one set of tables."""

    def both(point: pl.LazyFrame, reps: pl.LazyFrame) -> pl.LazyFrame:
        columns = reps.collect_schema().names()
        first = point.with_columns(pl.lit(POINT, dtype=pl.Int64).alias(REP)).select(columns)
        return pl.concat([first.with_columns(pl.col(*CELLS).cast(pl.Float64)), reps], how="vertical_relaxed")

    block = None
    if base.block_profiles is not None and boot.block_profiles is not None:
        block = both(base.block_profiles.with_columns(pl.col("n").cast(pl.Float64)), boot.block_profiles)
    return CellTables(
        classes=both(base.classes, boot.classes),
        profiles=both(base.profiles.with_columns(pl.col("n").cast(pl.Float64)), boot.profiles),
        keys=boot.keys,
        block_profiles=block,
        target=base.target,
        names=base.names,
    )
