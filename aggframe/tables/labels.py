"""Narrow step of the label form: confusion counts -> validated, universe-complete cell tables (Polars).

Per class, tp, #true and #pred come from the (small) confusion counts; per
example only whether it is right. Validation runs inside the plan, as for the
long form (:mod:`aggframe.tables.long`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import narwhals as nw
import polars as pl

from aggframe._columns import CELLS, CLASS, KEY_ALL
from aggframe.exceptions import (
    DuplicateEntryError,
    EmptyInputError,
    NullValueError,
    OptionError,
    UnknownClassError,
)
from aggframe.tables.cells import CellTables
from aggframe.tables.errors import first_group, first_row
from aggframe.tables.long import block_profiles
from aggframe.tables.universe import join_universe, targets_per_group, universe_frame, universe_keys
from aggframe.wide.engines import to_polars_all
from aggframe.wide.labels import LabelRoles, label_row_cells
from aggframe.wide.long import block_grain

__all__ = ["finish_labels", "row_cells"]


def finish_labels(
    raw: dict[str, nw.LazyFrame[Any]],
    *,
    source: nw.LazyFrame[Any],
    roles: LabelRoles,
    keys: Sequence[str],
    universe: pl.LazyFrame | None,
    task: str,
    pos_label: Any,
    names: Mapping[str, str],
    target: str | None = None,
    group_universe: Sequence[str] = (),
) -> CellTables:
    """Validated, universe-complete cell tables of the label form (all names private)."""
    k = list(keys)
    ukeys = [*group_universe, *universe_keys(target, universe)]
    yt, yp = roles.y_true, roles.y_pred
    grains = [raw["conf"], *([raw["examples"]] if "examples" in raw else [])]
    if target is not None:
        if roles.example is None or "rows" not in raw:
            msg = "targets in the label form need an example column (example='<column>')"
            raise OptionError(msg)
        # each row's cells, summed per example over the targets and reduced to profiles
        # where the rows are (the class count m is added below, once per group)
        rows = label_row_cells(raw["rows"], yt, yp, task=task, pos_label=pos_label)
        block_raw, block_detail = block_grain(
            rows.select(*k, roles.example, *CELLS), [c for c in k if c != target], roles.example
        )
        grains.append(block_raw)
    conf, *more = to_polars_all(grains)
    conf = conf.rename({yt: "_yt", yp: "_yp"})
    examples = more[0] if "examples" in raw else None
    declared = None if universe is None else universe.collect()
    audit_in = conf if examples is None else conf.join(examples, on=k, how="left", nulls_equal=True)

    def check(audit: pl.DataFrame) -> pl.DataFrame:
        _check_labels(
            audit,
            source=source,
            roles=roles,
            keys=k,
            declared=declared,
            task=task,
            pos_label=pos_label,
            target=target if universe_keys(target, universe) else None,
            names=names,
        )
        return audit

    conf = audit_in.map_batches(check).select(*k, "_yt", "_yp", "n").cache()
    groups = conf.group_by(k).agg(pl.col("n").sum().alias("_N"))
    if task == "binary":
        dtype = conf.collect_schema()["_yt"]
        classes_lf = universe_frame([pos_label], dtype, names.get(yt, yt))
    elif universe is not None:
        classes_lf = universe
    else:
        classes_lf = pl.concat(
            [conf.select(*ukeys, pl.col("_yt").alias(CLASS)), conf.select(*ukeys, pl.col("_yp").alias(CLASS))]
        ).unique()
    # per class: #true, #pred and tp in one group-by over the (small) confusion counts,
    # read once as true labels and once as predicted labels
    right = (pl.col("_yt") == pl.col("_yp")).cast(pl.Int64) * pl.col("n")
    zero = pl.lit(0, dtype=pl.Int64)
    margins = (
        pl.concat(
            [
                conf.select(
                    *k,
                    pl.col("_yt").alias(CLASS),
                    pl.col("n").cast(pl.Int64).alias("_t"),
                    zero.alias("_p"),
                    right.alias("tp"),
                ),
                conf.select(
                    *k,
                    pl.col("_yp").alias(CLASS),
                    zero.alias("_t"),
                    pl.col("n").cast(pl.Int64).alias("_p"),
                    zero.alias("tp"),
                ),
            ]
        )
        .group_by(*k, CLASS)
        .agg(pl.col("_t", "_p", "tp").sum())
    )
    classes = (
        join_universe(groups, classes_lf, ukeys)
        .join(margins, on=[*k, CLASS], how="left", nulls_equal=True)
        .with_columns(pl.col("tp", "_t", "_p").fill_null(0).cast(pl.Float64))
        .select(
            *k,
            CLASS,
            pl.col("tp"),
            (pl.col("_p") - pl.col("tp")).alias("fp"),
            (pl.col("_t") - pl.col("tp")).alias("fn"),
            (pl.col("_N") - pl.col("_t") - pl.col("_p") + pl.col("tp")).alias("tn"),
        )
    )
    if task == "binary":
        t_pos = pl.col("_yt") == pl.lit(pos_label)
        p_pos = pl.col("_yp") == pl.lit(pos_label)
        prof = conf.with_columns(
            (t_pos & p_pos).alias("tp"),
            (~t_pos & p_pos).alias("fp"),
            (t_pos & ~p_pos).alias("fn"),
            (~t_pos & ~p_pos).alias("tn"),
        )
    else:
        m = (
            classes_lf.group_by(ukeys).agg(pl.len().cast(pl.Float64).alias("_m"))
            if ukeys
            else classes_lf.select(pl.len().cast(pl.Float64).alias("_m"))
        )
        right = pl.col("_yt") == pl.col("_yp")
        with_m = conf.join(m, on=ukeys, nulls_equal=True) if ukeys else conf.join(m, how="cross")
        prof = with_m.with_columns(
            right.alias("tp"),
            (~right).alias("fp"),
            (~right).alias("fn"),
            (pl.col("_m") - 2 + right.cast(pl.Float64)).alias("tn"),
        )
    profiles = (
        prof.with_columns(pl.col(*CELLS).cast(pl.Float64))
        .group_by(*k, *CELLS)
        .agg(pl.col("n").sum().cast(pl.Int64))
    )
    block = None
    if target is not None:
        bk = [c for c in k if c != target]
        assert roles.example is not None  # checked above
        # the group's number of targets comes from conf, which carries the checks: the
        # block is read after validation
        block = block_profiles(
            more[-1], block_detail, targets_per_group(conf, bk, target), bk, roles.example, target, names
        )
        if task != "binary":
            # every example has a row in each target of its group (checked), so its tn sums
            # the m of those targets: add the group's total class count
            groups_m = conf.select(*k).unique()
            groups_m = (
                groups_m.join(m, on=ukeys, nulls_equal=True) if ukeys else groups_m.join(m, how="cross")
            )
            total_m = groups_m.group_by(bk).agg(pl.col("_m").sum())
            block = block.join(total_m, on=bk, nulls_equal=True).select(
                *bk, "tp", "fp", "fn", (pl.col("tn") + pl.col("_m")).alias("tn"), "n"
            )
    # single-label data: the validated confusion counts are the whole-matrix measures' input
    # (no extra scan: the same cached counts the cells come from)
    pairs = None if task == "binary" else conf.with_columns(pl.col("n").cast(pl.Int64))
    order = None if universe is None or task == "binary" else universe.with_row_index("_pos")
    return CellTables(
        classes=classes,
        profiles=profiles,
        keys=tuple(k),
        block_profiles=block,
        target=target,
        names=names,
        pairs=pairs,
        order=order,
    )


def row_cells(
    rows: pl.LazyFrame, task: str, pos_label: Any, m: pl.LazyFrame | None, ukeys: list[str]
) -> pl.LazyFrame:
    """Each row's cells (columns ``_yt``, ``_yp``), with its universe's class count ``m``."""
    cells = label_row_cells(nw.from_native(rows), "_yt", "_yp", task=task, pos_label=pos_label).to_native()
    if task == "binary":
        return cast("pl.LazyFrame", cells)
    assert m is not None
    with_m = cells.join(m, on=ukeys, nulls_equal=True) if ukeys else cells.join(m, how="cross")
    return cast("pl.LazyFrame", with_m.with_columns(pl.col("tn") + pl.col("_m")))


def _check_labels(
    audit: pl.DataFrame,
    *,
    source: nw.LazyFrame[Any],
    roles: LabelRoles,
    keys: list[str],
    declared: pl.DataFrame | None,
    task: str,
    pos_label: Any,
    names: Mapping[str, str],
    target: str | None = None,
) -> None:
    def show(col: str) -> str:
        return names.get(col, col)

    if audit.height == 0:
        msg = "the predictions frame has no rows"
        raise EmptyInputError(msg)
    cols = [c for c in (*keys, roles.example, roles.y_true, roles.y_pred) if c and c != KEY_ALL]
    for col, internal in ((roles.y_true, "_yt"), (roles.y_pred, "_yp")):
        missing = pl.col(internal).is_null()
        source_missing = nw.col(col).is_null()
        if audit[internal].dtype.is_float():
            missing = missing | pl.col(internal).is_nan()
            source_missing = source_missing | nw.col(col).is_nan()
        count = int(audit.filter(missing)["n"].sum())
        if count:
            row = first_row(source, source_missing, cols, names)
            msg = f"column {show(col)!r}: {count} null value(s) (e.g. row {row}); labels must not be null"
            raise NullValueError(msg)
    if roles.example is not None:
        group_level = audit.unique(keys)
        count = int(group_level["null_example"].sum())
        if count:
            row = first_row(source, nw.col(roles.example).is_null(), cols, names)
            msg = f"column {show(roles.example)!r}: {count} null value(s) (e.g. row {row})"
            raise NullValueError(msg)
        dups = int(group_level["dup_examples"].sum())
        if dups:
            row = first_group(source, [*keys, roles.example], "copies", lambda n: n > 1, names) or "?"
            msg = (
                f"column {show(roles.example)!r}: {dups} repeated example row(s) (e.g. {row}); "
                "the label form takes one row per example" + (" per by-group" if keys != [KEY_ALL] else "")
            )
            raise DuplicateEntryError(msg)
    values = pl.concat([audit["_yt"], audit["_yp"]]).unique()
    if declared is not None:
        ukeys = [target] if target is not None else []
        known = declared.select(*ukeys, CLASS).with_columns(pl.lit(True).alias("_known"))  # noqa: FBT003
        flags = audit.join(
            known.rename({CLASS: "_yt", "_known": "_kt"}), on=[*ukeys, "_yt"], how="left", nulls_equal=True
        ).join(
            known.rename({CLASS: "_yp", "_known": "_kp"}), on=[*ukeys, "_yp"], how="left", nulls_equal=True
        )
        outside = flags.filter(pl.col("_kt").is_null() | pl.col("_kp").is_null())
        if outside.height:
            first = outside.row(0, named=True)
            bad = first["_yt"] if first["_kt"] is None else first["_yp"]
            where = f" of target {first[target]!r}" if target is not None else ""
            listed = declared[CLASS].to_list()
            msg = (
                f"columns ({show(roles.y_true)!r}, {show(roles.y_pred)!r}): {int(outside['n'].sum())} row(s) with a "
                f"label outside the declared universe{where} (e.g. {bad!r}); declared {len(listed)} "
                f"classes: {listed[:10]!r}{' ...' if len(listed) > 10 else ''}"
            )
            raise UnknownClassError(msg)
    if task == "binary" and declared is None and values.len() == 2 and pos_label not in values.to_list():
        # two labels and neither is the positive class: the caller meant another pos_label
        msg = (
            f"pos_label {pos_label!r} does not occur in the labels (found {values.sort().to_list()[:5]!r}); "
            "pass the positive class as pos_label=..., or declare classes=[...] if it is absent from this data"
        )
        raise OptionError(msg)
    if task == "binary" and values.len() > 2:
        msg = (
            f"task='binary' keeps only the positive class, but the labels hold {values.len()} "
            f"classes (e.g. {values.sort().to_list()[:5]!r}); name the averaging you meant "
            "(task=None for one-hot over all classes, then 'macro', 'weighted' or 'micro')"
        )
        raise OptionError(msg)
