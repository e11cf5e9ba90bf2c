"""Bootstrap cell tables: the wide step's replicate grains -> cell tables with one more key, the replicate.

The replicate grains (:mod:`aggframe.wide.bootstrap`) are wide: one column per
replicate (and per sum). Here, in Polars on those small tables, they become
cell tables keyed by ``REP`` and the tables' keys: the universe of each group
is the one of the unweighted tables of the same scan (``base``, validated
there), absent sparse entries are filled as in those, the classes are the
(group, class) pairs that occur in ``base`` and the classes absent from a group
stay absent (counted per replicate in its ``groups`` table, with each
replicate's weighted number of examples: :mod:`aggframe.tables.cells`), and
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
from aggframe.tables.cells import GROUP_COLUMNS, CellTables, group_table
from aggframe.wide.engines import to_polars_all

__all__ = ["finish_label_boot", "finish_long_boot", "stack"]

#: The replicate of the unweighted tables (every weight 1) in a stacked set of tables.
POINT = -1


def _long(frame: pl.LazyFrame, index: Sequence[str], families: Mapping[str, Sequence[str]]) -> pl.LazyFrame:
    """Wide replicate columns -> one row per replicate: ``families`` maps a value name to its B columns.

    Each replicate's values are packed into one struct column ``_s<b>`` and the B
    structs unpivoted (the replicate is read off the column name, never off a
    row position, which a parallel engine does not keep).
    """
    names = list(families)
    n_boot = len(families[names[0]])
    idx = list(index)
    if len(names) == 1:
        packed = frame.select(*idx, *[pl.col(c).alias(f"_s{b}") for b, c in enumerate(families[names[0]])])
    else:
        packed = frame.select(
            *idx,
            *[
                pl.struct([pl.col(families[n][b]).alias(n) for n in names]).alias(f"_s{b}")
                for b in range(n_boot)
            ],
        )
    out = packed.unpivot(on=[f"_s{b}" for b in range(n_boot)], index=idx, variable_name=REP, value_name="_s")
    value = pl.col("_s").alias(names[0]) if len(names) == 1 else pl.col("_s").struct.unnest()
    return out.select(pl.col(REP).str.slice(2).cast(pl.Int64), *idx, value)


def _weights(n_boot: int, prefix: str = "_w") -> list[str]:
    return [f"{prefix}{b}" for b in range(n_boot)]


def _sums(n_boot: int, prefix: str) -> list[pl.Expr]:
    """The replicate columns summed and renamed ``<prefix><b>``."""
    return [pl.col(c).sum().alias(f"{prefix}{b}") for b, c in enumerate(_weights(n_boot))]


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


def _classes(
    base: CellTables, n_boot: int, parts: Mapping[str, pl.LazyFrame], sizes: pl.LazyFrame
) -> pl.LazyFrame:
    """Every (group, class) pair of the unweighted tables (the pairs that occur), with the replicate
    sums of ``parts`` (each keyed by the keys and ``class``, columns ``<name><b>``; absent: 0) and the
    group sizes ``_N<b>``, wide."""
    k = list(base.keys)
    wide = base.classes.select(*k, CLASS)
    for part in parts.values():
        wide = wide.join(part, on=[*k, CLASS], how="left", nulls_equal=True)
    wide = wide.join(sizes, on=k, how="left", nulls_equal=True)
    values = [c for c in wide.collect_schema().names() if c not in (*k, CLASS)]
    return wide.with_columns(pl.col(*values).fill_null(0.0))


def _cells_long(
    wide: pl.LazyFrame, keys: Sequence[str], n_boot: int, cells: Mapping[str, Any]
) -> pl.LazyFrame:
    """``cells`` maps each cell to ``f(b) -> expr`` over the wide columns: the class table, long."""
    columns = [f(b).alias(f"{c}{b}") for c, f in cells.items() for b in range(n_boot)]
    frame = wide.select(*keys, CLASS, *columns)
    return _long(frame, [*keys, CLASS], {c: [f"{c}{b}" for b in range(n_boot)] for c in cells})


def _groups(base: CellTables, classes: pl.LazyFrame, sizes: pl.LazyFrame, n_boot: int) -> pl.LazyFrame:
    """Each replicate's ``groups`` table: the unweighted tables' classes and absent count, the
    replicate's weighted examples (``_N<b>``) and its pooled cells, an absent class adding its
    examples as true negatives."""
    k = list(base.keys)
    counts = group_table(base).select(*k, "n_classes", "n_absent")
    per_rep = _long(
        sizes.select(*k, *[f"_N{b}" for b in range(n_boot)]), k, {"n_examples": _weights(n_boot, "_N")}
    )
    pooled = classes.group_by(REP, *k).agg(pl.col(*CELLS).sum())
    absent = pl.col("n_absent").cast(pl.Float64) * pl.col("n_examples")
    return (
        per_rep.join(counts, on=k, how="inner", nulls_equal=True)
        .join(pooled, on=[REP, *k], how="left", nulls_equal=True)
        .with_columns(
            pl.col("tp", "fp", "fn").fill_null(0.0), (pl.col("tn").fill_null(0.0) + absent).alias("tn")
        )
        .select(REP, *k, *GROUP_COLUMNS)
    )


def _col(prefix: str) -> Any:
    return lambda b: pl.col(f"{prefix}{b}")


def finish_label_boot(  # noqa: PLR0913 -- the constructor's options, passed through
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
    """Bootstrap cell tables of the label form (keys: ``REP`` and the tables' keys).

    Everything is summed in the wide form (one column per replicate) and only the
    cell tables are turned long: per class #true, #pred and tp, per group the size
    and the right examples, from the weighted confusion counts.
    """
    k = list(base.keys)
    grains = [raw["conf"], *([raw["block"]] if "block" in raw else [])]
    conf_w, *block_w = to_polars_all(grains)
    weights = _weights(n_boot)
    conf = (
        conf_w.rename({y_true: "_yt", y_pred: "_yp"}).with_columns(pl.col(*weights).cast(pl.Float64)).cache()
    )
    right = conf.filter(pl.col("_yt") == pl.col("_yp"))
    parts = {
        "_t": conf.group_by(*k, pl.col("_yt").alias(CLASS)).agg(_sums(n_boot, "_t")),
        "_p": conf.group_by(*k, pl.col("_yp").alias(CLASS)).agg(_sums(n_boot, "_p")),
        "_tp": right.group_by(*k, pl.col("_yt").alias(CLASS)).agg(_sums(n_boot, "_tp")),
    }
    sizes = conf.group_by(k).agg(_sums(n_boot, "_N"))
    t, p, tp, size = _col("_t"), _col("_p"), _col("_tp"), _col("_N")
    classes = _cells_long(
        _classes(base, n_boot, parts, sizes),
        k,
        n_boot,
        {
            "tp": tp,
            "fp": lambda b: p(b) - tp(b),
            "fn": lambda b: t(b) - tp(b),
            "tn": lambda b: size(b) - t(b) - p(b) + tp(b),
        },
    )
    sizes_m = group_table(base).select(*k, pl.col("n_classes").cast(pl.Float64).alias("_m"))
    if task == "binary":
        t_pos, p_pos = pl.col("_yt") == pl.lit(pos_label), pl.col("_yp") == pl.lit(pos_label)
        kinds = conf.group_by(*k, t_pos.alias("_tt"), p_pos.alias("_pp")).agg(pl.col(*weights).sum())
        tt, pp = pl.col("_tt"), pl.col("_pp")
        prof = kinds.with_columns(
            (tt & pp).alias("tp"), (~tt & pp).alias("fp"), (tt & ~pp).alias("fn"), (~tt & ~pp).alias("tn")
        )
    else:
        kinds = conf.group_by(*k, (pl.col("_yt") == pl.col("_yp")).alias("_right")).agg(
            pl.col(*weights).sum()
        )
        r = pl.col("_right")
        prof = kinds.join(sizes_m, on=k, how="inner", nulls_equal=True).with_columns(
            r.alias("tp"),
            (~r).alias("fp"),
            (~r).alias("fn"),
            (pl.col("_m") - 2 + r.cast(pl.Float64)).alias("tn"),
        )
    prof = prof.with_columns(pl.col(*CELLS).cast(pl.Float64))
    profiles = _long(prof.select(*k, *CELLS, *weights), [*k, *CELLS], {"n": weights})
    block = None
    if base.target is not None:
        bk = [c for c in k if c != base.target]
        blk = _check_split(block_w[0], cluster).with_columns(pl.col(*CELLS, *weights).cast(pl.Float64))
        if task != "binary":
            # an example's tn sums the class counts of its group's targets (label_row_cells leaves them out)
            total_m = sizes_m.group_by(bk).agg(pl.col("_m").sum())
            blk = blk.join(total_m, on=bk, how="inner", nulls_equal=True).with_columns(
                pl.col("tn") + pl.col("_m")
            )
        blk = blk.group_by(*bk, *CELLS).agg(pl.col(*weights).sum())
        block = _long(blk, [*bk, *CELLS], {"n": weights})
    return _boot_tables(base, classes=classes, profiles=profiles, block=block, sizes=sizes, n_boot=n_boot)


def finish_long_boot(
    raw: dict[str, nw.LazyFrame[Any]],
    base: CellTables,
    *,
    n_boot: int,
    class_: str,
    soft: bool,
    cluster: str | None = None,
    declared: pl.LazyFrame | None = None,
) -> CellTables:
    """Bootstrap cell tables of the long form (keys: ``REP`` and the tables' keys), summed wide.

    ``declared`` (keys, _w0 ..): the weight sums of the declared examples (``examples=``);
    the unlogged ones (declared, without rows) are all-negative examples, as unweighted.
    """
    k = list(base.keys)
    names = ["class", "profiles", *(["block"] if "block" in raw else [])]
    class_w, profiles_w, *block_w = to_polars_all([raw[n] for n in names])
    weights = _weights(n_boot)
    class_w = class_w.rename({class_: CLASS}).with_columns(pl.col(*weights).cast(pl.Float64))
    prof_w = _check_split(profiles_w, cluster).with_columns(pl.col(*CELLS, *weights).cast(pl.Float64))
    prof_w = prof_w.select(*k, *CELLS, *weights)
    if declared is not None:
        logged = prof_w.group_by(k).agg(_sums(n_boot, "_L"))
        m = group_table(base).select(*k, pl.col("n_classes").cast(pl.Float64).alias("_m"))
        unlogged = (
            declared.with_columns(pl.col(*weights).cast(pl.Float64))
            .join(logged, on=k, how="left", nulls_equal=True)
            .join(m, on=k, how="inner", nulls_equal=True)
            .select(
                *k,
                *[pl.lit(0.0).alias(c) for c in ("tp", "fp", "fn")],
                pl.col("_m").alias("tn"),
                *[(pl.col(w) - pl.col(f"_L{b}").fill_null(0.0)).alias(w) for b, w in enumerate(weights)],
            )
        )
        prof_w = pl.concat([prof_w, unlogged], how="vertical_relaxed")
    prof_w = prof_w.cache()
    sizes = prof_w.group_by(k).agg(_sums(n_boot, "_N"))
    rows = class_w.group_by(*k, CLASS).agg(_sums(n_boot, "_rows"))
    if soft:
        sums = {
            c: class_w.group_by(*k, CLASS).agg(
                pl.col(f"_{c}{b}").sum().cast(pl.Float64).alias(f"_{c}{b}") for b in range(n_boot)
            )
            for c in CELLS
        }
    else:
        cat = {"tp": 3, "fp": 1, "fn": 2, "tn": 0}
        sums = {
            c: class_w.filter(pl.col("_cat") == v).group_by(*k, CLASS).agg(_sums(n_boot, f"_{c}"))
            for c, v in cat.items()
        }
    wide = _classes(base, n_boot, {**sums, "_rows": rows}, sizes)
    # absent entries (sparse data with a known universe) are observed true negatives
    cells = {c: _col(f"_{c}") for c in ("tp", "fp", "fn")}
    cells["tn"] = lambda b: pl.col(f"_tn{b}") + pl.col(f"_N{b}") - pl.col(f"_rows{b}")
    classes = _cells_long(wide, k, n_boot, cells)
    profiles = _long(prof_w.group_by(*k, *CELLS).agg(pl.col(*weights).sum()), [*k, *CELLS], {"n": weights})
    block = None
    if base.target is not None:
        bk = [c for c in k if c != base.target]
        blk = _check_split(block_w[0], cluster).with_columns(pl.col(*CELLS, *weights).cast(pl.Float64))
        block = _long(blk.group_by(*bk, *CELLS).agg(pl.col(*weights).sum()), [*bk, *CELLS], {"n": weights})
    return _boot_tables(base, classes=classes, profiles=profiles, block=block, sizes=sizes, n_boot=n_boot)


def _boot_tables(
    base: CellTables,
    *,
    classes: pl.LazyFrame,
    profiles: pl.LazyFrame,
    block: pl.LazyFrame | None,
    sizes: pl.LazyFrame,
    n_boot: int,
) -> CellTables:
    """The replicates' cell tables (keys ``REP`` and the base keys), the universe the base's."""
    classes = classes.cache()
    return CellTables(
        classes=classes,
        profiles=profiles,
        keys=(REP, *base.keys),
        block_profiles=block,
        target=base.target,
        names=base.names,
        groups=None if base.groups is None else _groups(base, classes, sizes, n_boot),
        universe=base.universe,
        universe_keys=base.universe_keys,
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
    groups = None
    if base.groups is not None and boot.groups is not None:
        point = base.groups.with_columns(pl.col("n_examples").cast(pl.Float64))
        groups = both(point, boot.groups.with_columns(pl.col("n_examples").cast(pl.Float64)))
    return CellTables(
        classes=both(base.classes, boot.classes),
        profiles=both(base.profiles.with_columns(pl.col("n").cast(pl.Float64)), boot.profiles),
        keys=boot.keys,
        block_profiles=block,
        target=base.target,
        names=base.names,
        groups=groups,
        universe=base.universe,
        universe_keys=base.universe_keys,
    )
