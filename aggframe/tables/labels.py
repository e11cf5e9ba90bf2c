"""Narrow step of the label form: per-class margins -> validated cell tables (Polars).

Per class, tp, #true and #pred come from the wide step's margins (by true and by
predicted label, or from the (y_true, y_pred) counts: :func:`~aggframe.wide.labels.label_grains`);
per example only whether it is right. Only the (group, class) pairs that occur are kept: the
absent ones are counted per group (:mod:`aggframe.tables.cells`). Validation runs
inside the plan, as for the long form (:mod:`aggframe.tables.long`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import narwhals as nw
import polars as pl

from aggframe._columns import CELLS, CLASS, FOLD, KEY_ALL, REPEAT
from aggframe.exceptions import (
    DuplicateEntryError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    UnknownClassError,
)
from aggframe.tables.cells import GROUP_COLUMNS, CellTables
from aggframe.tables.errors import count_rows, declared_text, first_group, first_row
from aggframe.tables.long import block_profiles
from aggframe.tables.universe import (
    declared_lists,
    targets_per_group,
    universe_frame,
    universe_keys,
)
from aggframe.wide.engines import to_polars_all
from aggframe.wide.labels import LabelRoles, label_row_cells
from aggframe.wide.long import block_grain, class_refused

__all__ = ["finish_labels", "row_cells"]


def finish_labels(  # noqa: PLR0913 -- the constructor's options, passed through
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
    unfit: tuple[nw.LazyFrame[Any], Mapping[str, tuple[Any, str]]] | None = None,
) -> CellTables:
    """Validated cell tables of the label form (all names private), absent classes in ``groups``.

    From the per-class margins (``raw["margins"]``; with the confusion counts
    ``raw["conf"]`` when the pairs were asked for): per class ``tp``, ``#true``
    and ``#pred``; per group ``N`` and the right count, which fix the pooled cells
    and the per-example profiles (an example is right or wrong). ``unfit``: the
    source before y_true and y_pred were read as one type, and per label column the
    flag of the labels that type cannot hold (read as null): the null check counts
    those on it.
    """
    k = list(keys)
    ukeys = [*group_universe, *universe_keys(target, universe)]
    yt, yp = roles.y_true, roles.y_pred
    grains = [raw["margins"], *(raw[g] for g in ("conf", "examples") if g in raw)]
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
    counted, *more = to_polars_all(grains)
    pairs = None
    if "conf" in raw:
        pairs = more.pop(0).select(
            *k, pl.col(yt).alias("_yt"), pl.col(yp).alias("_yp"), pl.col("n").cast(pl.Int64)
        )
    examples = more[0] if "examples" in raw else None
    declared = None if universe is None else universe.collect()
    audit_in = counted if examples is None else counted.join(examples, on=k, how="left", nulls_equal=True)

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
            unfit=unfit,
        )
        return audit

    int64 = pl.Int64
    margins = (
        audit_in.map_batches(check)
        .select(*k, CLASS, pl.col("_t").cast(int64), pl.col("_p").cast(int64), pl.col("tp").cast(int64))
        .cache()
    )
    # per group: its examples (every example has one true label), right ones, classes that occur
    sizes = margins.group_by(k).agg(
        pl.col("_t").sum().alias("n_examples"),
        pl.col("tp").sum().alias("_right"),
        pl.len().cast(int64).alias("_present"),
    )
    classes_lf, occurring, ukeys = _class_universe(
        margins, universe, ukeys, task, pos_label=pos_label, label=names.get(yt, yt)
    )
    sized = _with_class_counts(sizes, classes_lf, ukeys)
    f64 = pl.Float64
    tp, t, p, n = (pl.col(c).cast(f64) for c in ("tp", "_t", "_p", "n_examples"))
    classes = occurring.join(sizes.select(*k, "n_examples"), on=k, how="inner", nulls_equal=True).select(
        *k, CLASS, tp.alias("tp"), (p - tp).alias("fp"), (t - tp).alias("fn"), (n - t - p + tp).alias("tn")
    )
    if task == "binary":
        groups, profiles = _binary_groups(sized, classes, k)
    else:
        groups, profiles = _multiclass_groups(sized, k)
    groups = groups.select(*k, *GROUP_COLUMNS).cache()
    block = None
    if target is not None:
        assert roles.example is not None  # checked above
        bk = [c for c in k if c != target]
        # the group's number of targets comes from the margins, which carry the checks:
        # the block is read after validation
        # per group over its folds: a target absent from a whole fold is missing from its examples
        per_group = [c for c in bk if c not in (FOLD, REPEAT)]
        targets = targets_per_group(margins, per_group, target)
        block = block_profiles(more[-1], block_detail, targets, bk, roles.example, target, names)
        if task != "binary":
            block = _with_class_count(block, groups, bk)
    if pairs is not None:
        # asked for, single-label data: the whole-matrix measures' input, from the same scan;
        # read after validation (the groups come from the checked margins)
        pairs = None if task == "binary" else pairs.join(sizes.select(*k), on=k, how="semi", nulls_equal=True)
    order = None if universe is None or task == "binary" else universe.with_row_index("_pos")
    return CellTables(
        classes=classes,
        profiles=profiles,
        keys=tuple(k),
        block_profiles=block,
        target=target,
        names=names,
        groups=groups.select(*k, *GROUP_COLUMNS),  # not the cache itself (Polars 2.x panic)
        universe=classes_lf,
        universe_keys=tuple(ukeys),
        pairs=pairs,
        order=order,
    )


def _class_universe(
    margins: pl.LazyFrame,
    universe: pl.LazyFrame | None,
    ukeys: list[str],
    task: str,
    *,
    pos_label: Any,
    label: str,
) -> tuple[pl.LazyFrame, pl.LazyFrame, list[str]]:
    """The classes of each universe, the margins of the classes kept, and the universe keys.

    The binary task has one universe, the positive class; otherwise the declared
    universe or the classes that occur.
    """
    if task == "binary":
        dtype = margins.collect_schema()[CLASS]
        occurring = margins.filter(pl.col(CLASS) == pl.lit(pos_label).cast(dtype))
        return universe_frame([pos_label], dtype, label), occurring, []
    classes_lf = universe if universe is not None else margins.select(*ukeys, CLASS).unique()
    return classes_lf, margins, ukeys


def _with_class_counts(sizes: pl.LazyFrame, classes_lf: pl.LazyFrame, ukeys: list[str]) -> pl.LazyFrame:
    """Each group's sizes with its universe's class count ``n_classes``."""
    count = pl.len().cast(pl.Int64).alias("n_classes")
    if not ukeys:
        return sizes.join(classes_lf.select(count), how="cross")
    return sizes.join(classes_lf.group_by(ukeys).agg(count), on=ukeys, how="left", nulls_equal=True)


def _binary_groups(
    sized: pl.LazyFrame, classes: pl.LazyFrame, k: list[str]
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The groups and profiles of the binary task: the positive class alone, its cells the
    pooled cells, the profiles one-hot cells."""
    int64, f64 = pl.Int64, pl.Float64
    pos = classes.select(*k, *CELLS, pl.lit(1, dtype=int64).alias("_present"))
    groups = (
        sized.drop("_present")
        .join(pos, on=k, how="left", nulls_equal=True)
        .with_columns(
            pl.col("tp", "fp", "fn").fill_null(0.0),
            pl.col("tn").fill_null(pl.col("n_examples").cast(f64)),
            (1 - pl.col("_present").fill_null(0)).alias("n_absent"),
        )
    )
    one_hot = [
        groups.select(
            *k,
            *[pl.lit(1.0 if c == cell else 0.0).alias(c) for c in CELLS],
            pl.col(cell).round().cast(int64).alias("n"),
        )
        for cell in CELLS
    ]
    return groups, pl.concat(one_hot).filter(pl.col("n") > 0)


def _multiclass_groups(sized: pl.LazyFrame, k: list[str]) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The groups and profiles of single-label data: an example is right (tp = 1, tn = m - 1)
    or wrong (fp = fn = 1, tn = m - 2)."""
    f64 = pl.Float64
    n = pl.col("n_examples").cast(f64)
    right, mm = pl.col("_right").cast(f64), pl.col("n_classes").cast(f64)
    groups = sized.with_columns(
        (pl.col("n_classes") - pl.col("_present")).alias("n_absent"),
        right.alias("tp"),
        (n - right).alias("fp"),
        (n - right).alias("fn"),
        (mm * n - 2 * n + right).alias("tn"),
    )
    right_rows = groups.select(
        *k,
        *[pl.lit(v).alias(c) for c, v in zip(CELLS, (1.0, 0.0, 0.0), strict=False)],
        (mm - 1).alias("tn"),
        pl.col("_right").alias("n"),
    )
    wrong_rows = groups.select(
        *k,
        pl.lit(0.0).alias("tp"),
        pl.lit(1.0).alias("fp"),
        pl.lit(1.0).alias("fn"),
        (mm - 2).alias("tn"),
        (pl.col("n_examples") - pl.col("_right")).alias("n"),
    )
    return groups, pl.concat([right_rows, wrong_rows]).filter(pl.col("n") > 0)


def _with_class_count(block: pl.LazyFrame, groups: pl.LazyFrame, bk: list[str]) -> pl.LazyFrame:
    """Single-label block profiles: every example has a row in each target of its group
    (checked), so its tn sums the m of those targets: add the group's total class count."""
    total_m = groups.group_by(bk).agg(pl.col("n_classes").sum().cast(pl.Float64).alias("_m"))
    return block.join(total_m, on=bk, nulls_equal=True).select(
        *bk, "tp", "fp", "fn", (pl.col("tn") + pl.col("_m")).alias("tn"), "n"
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


def _check_labels(  # noqa: PLR0913 -- finish_labels' options, passed through
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
    unfit: tuple[nw.LazyFrame[Any], Mapping[str, tuple[Any, str]]] | None = None,
) -> None:
    """The checks on the per-class margins, in the order they report: empty input, null
    labels, null and repeated examples, labels outside a declared universe, the binary task."""
    if audit.height == 0:
        msg = "the predictions frame has no rows"
        raise EmptyInputError(msg)
    cols = [c for c in (*keys, roles.example, roles.y_true, roles.y_pred) if c and c != KEY_ALL]
    _check_null_labels(audit, source, roles, cols, names=names, unfit=unfit)
    if roles.example is not None:
        _check_examples(audit, source, roles.example, keys, cols, names=names)
    if declared is not None:
        _check_declared(audit, source, roles, declared, target, names=names)
    if task == "binary":
        _check_binary(audit, declared, pos_label)


def _check_null_labels(
    audit: pl.DataFrame,
    source: nw.LazyFrame[Any],
    roles: LabelRoles,
    cols: list[str],
    *,
    names: Mapping[str, str],
    unfit: tuple[nw.LazyFrame[Any], Mapping[str, tuple[Any, str]]] | None,
) -> None:
    """Null (or NaN) labels; those the one label type could not hold are named as such."""
    missing = pl.col(CLASS).is_null()
    if audit[CLASS].dtype.is_float():
        missing = missing | pl.col(CLASS).is_nan()
    for col, internal in ((roles.y_true, "_t"), (roles.y_pred, "_p")):
        count = int(audit.filter(missing)[internal].sum())
        if not count:
            continue
        if unfit is not None and col in unfit[1]:
            _check_unfit(unfit, col, roles, cols, names)
        source_missing = nw.col(col).is_null()
        if audit[CLASS].dtype.is_float():
            source_missing = source_missing | nw.col(col).is_nan()
        row = first_row(source, source_missing, cols, names)
        what = "null or NaN" if audit[CLASS].dtype.is_float() else "null"
        msg = f"column {names.get(col, col)!r}: {count} {what} value(s) (e.g. row {row}); labels must not be {what}"
        raise NullValueError(msg)


def _check_unfit(
    unfit: tuple[nw.LazyFrame[Any], Mapping[str, tuple[Any, str]]],
    col: str,
    roles: LabelRoles,
    cols: list[str],
    names: Mapping[str, str],
) -> None:
    """Labels of ``col`` the one type of y_true and y_pred cannot hold (read as null)."""
    raw, (flag, what) = unfit[0], unfit[1][col]
    lost = count_rows(raw, flag)
    if lost:
        row = first_row(raw, flag, cols, names)
        y_true, y_pred = (names.get(c, c) for c in (roles.y_true, roles.y_pred))
        msg = (
            f"column {names.get(col, col)!r}: {lost} {what} (e.g. row {row}); cast "
            f"{y_true!r} and {y_pred!r} to one type first"
        )
        raise InvalidValueError(msg)


def _check_examples(
    audit: pl.DataFrame,
    source: nw.LazyFrame[Any],
    example: str,
    keys: list[str],
    cols: list[str],
    *,
    names: Mapping[str, str],
) -> None:
    """Null examples, and examples with more than one row per group."""
    group_level = audit.unique(keys)
    count = int(group_level["null_example"].sum())
    if count:
        row = first_row(source, nw.col(example).is_null(), cols, names)
        msg = f"column {names.get(example, example)!r}: {count} null value(s) (e.g. row {row})"
        raise NullValueError(msg)
    dups = int(group_level["dup_examples"].sum())
    if dups:
        row = first_group(source, [*keys, example], "copies", lambda n: n > 1, names) or "?"
        msg = (
            f"column {names.get(example, example)!r}: {dups} repeated example row(s) (e.g. {row}); "
            "the label form takes one row per example" + (" per by-group" if keys != [KEY_ALL] else "")
        )
        raise DuplicateEntryError(msg)


def _check_declared(
    audit: pl.DataFrame,
    source: nw.LazyFrame[Any],
    roles: LabelRoles,
    declared: pl.DataFrame,
    target: str | None,
    *,
    names: Mapping[str, str],
) -> None:
    """Labels outside the declared universe (of their target, with a target)."""
    ukeys = [target] if target is not None else []
    refused = class_refused(CLASS, declared_lists(declared, ukeys), target)
    outside = nw.from_native(audit).filter(refused).to_native()
    if not outside.height:
        return
    first = outside.row(0, named=True)
    where = f" of target {first[target]!r}" if target is not None else ""
    count = _rows_outside(source, roles, declared, target)
    listed = declared_text(declared, ukeys, first[target] if target is not None else None)
    y_true, y_pred = (names.get(c, c) for c in (roles.y_true, roles.y_pred))
    msg = (
        f"columns ({y_true!r}, {y_pred!r}): {count} row(s) with a "
        f"label outside the declared universe{where} (e.g. {first[CLASS]!r}); {listed}"
    )
    raise UnknownClassError(msg)


def _check_binary(audit: pl.DataFrame, declared: pl.DataFrame | None, pos_label: Any) -> None:
    """The binary task: the positive class occurs (of two labels), and at most two labels do."""
    values = audit[CLASS].unique()
    if declared is None and values.len() == 2 and pos_label not in values.to_list():
        # two labels and neither is the positive class: the caller meant another pos_label
        msg = (
            f"pos_label {pos_label!r} does not occur in the labels (found {values.sort().to_list()[:5]!r}); "
            "pass the positive class as pos_label=..., or declare classes=[...] if it is absent from this data"
        )
        raise OptionError(msg)
    if values.len() > 2:
        msg = (
            f"task='binary' keeps only the positive class, but the labels hold {values.len()} "
            f"classes (e.g. {values.sort().to_list()[:5]!r}); name the averaging you meant "
            "(task=None for one-hot over all classes, then 'macro', 'weighted' or 'micro')"
        )
        raise OptionError(msg)


def _rows_outside(
    source: nw.LazyFrame[Any], roles: LabelRoles, declared: pl.DataFrame, target: str | None
) -> int:
    """How many source rows have a label outside the declared universe (error path only)."""
    universe = declared_lists(declared, [target] if target is not None else [])
    outside = class_refused(roles.y_true, universe, target) | class_refused(roles.y_pred, universe, target)
    return count_rows(source, outside)
