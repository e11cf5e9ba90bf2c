"""Narrow step 1: raw grains -> validated, universe-complete cell tables (Polars).

Input: the small lazy frames of :mod:`aggframe._cells`. Output: two tidy cell
tables, the common currency of every operator:

``class cells``  keys..., class, tp, fp, fn, tn   (every group x every class)
``profiles``     keys..., tp, fp, fn, tn, n       (n examples share these cells)

Validation happens here, on the small tables, inside the same lazy plan: a
``map_batches`` node runs the checks when the plan is collected, and raises an
:class:`~aggframe.exceptions.AggframeError` naming the column, the number of bad
rows and one offending row (fetched from the source only on that error path).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import narwhals as nw
import polars as pl

from aggframe._cells import LabelRoles, LongRoles, block_grain, label_row_cells
from aggframe._columns import CELLS, CLASS, KEY_ALL, fmt_row
from aggframe.exceptions import (
    DuplicateEntryError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    SparseInputError,
    UnknownClassError,
)

__all__ = ["CLASS", "CellTables", "finish_labels", "finish_long"]


@dataclass(frozen=True)
class CellTables:
    """Validated cell tables of one evaluation (lazy)."""

    classes: pl.LazyFrame  # keys..., class, tp, fp, fn, tn
    profiles: pl.LazyFrame  # keys..., tp, fp, fn, tn, n
    keys: tuple[str, ...]
    #: with a target role: the per-example profiles across all targets (the block
    #: matrix), keyed by the keys without the target column
    block_profiles: pl.LazyFrame | None = None
    target: str | None = None
    #: the user's names of the private key columns (see :mod:`aggframe._columns`)
    names: Mapping[str, str] = field(default_factory=dict)


def sum_to(tables: CellTables, keys: Sequence[str]) -> CellTables:
    """The cell tables summed down to ``keys`` (any subset of their keys; exact, as cells add up).

    Used for the union of folds and for grouping sets. The stand-in key is added
    when ``keys`` names it and a table lacks it.
    """
    k = list(keys)

    def keyed(lf: pl.LazyFrame) -> pl.LazyFrame:
        if KEY_ALL in k and KEY_ALL not in lf.collect_schema():
            return lf.with_columns(pl.lit(0).alias(KEY_ALL))
        return lf

    classes = keyed(tables.classes).group_by([*k, CLASS]).agg(pl.col(*CELLS).sum())
    profiles = keyed(tables.profiles).group_by([*k, *CELLS]).agg(pl.col("n").sum())
    block = None
    if tables.block_profiles is not None:
        block_keys = [c for c in k if c != tables.target]
        block = keyed(tables.block_profiles).group_by([*block_keys, *CELLS]).agg(pl.col("n").sum())
    return CellTables(
        classes=classes,
        profiles=profiles,
        keys=tuple(k),
        block_profiles=block,
        target=tables.target,
        names=tables.names,
    )


def to_polars(lf: nw.LazyFrame[Any]) -> pl.LazyFrame:
    """Hand a Narwhals lazy frame to Polars (only small grains cross)."""
    native = nw.to_native(lf)
    if isinstance(native, pl.LazyFrame):
        return native
    return pl.LazyFrame(lf.collect(backend="polars").to_native())


#: Column tagging each grain's rows in the one engine query of :func:`to_polars_all`.
_GRAIN = "__aggframe_grain__"


def to_polars_all(frames: Sequence[nw.LazyFrame[Any]]) -> list[pl.LazyFrame]:
    """Hand several grains of one source to Polars in one engine query.

    Polars frames pass through lazily (they are collected together later). The
    grains of another engine (DuckDB, Spark) are stacked into one query, a
    diagonal union tagged by grain, with each grain's columns renamed apart so
    their dtypes never meet, and split again in Polars: one Spark job (and one
    Spark Connect round trip) for all of them instead of one per grain.
    """
    remote = [i for i, f in enumerate(frames) if not isinstance(nw.to_native(f), pl.LazyFrame)]
    if len(remote) <= 1:
        return [to_polars(f) for f in frames]
    names = {i: frames[i].collect_schema().names() for i in remote}
    tagged = [
        frames[i].select(nw.lit(i).alias(_GRAIN), *[nw.col(c).alias(f"_g{i}_{c}") for c in names[i]])
        for i in remote
    ]
    stacked = nw.concat(tagged, how="diagonal").collect(backend="polars").to_native()
    return [
        stacked.filter(pl.col(_GRAIN) == i).select(pl.col(f"_g{i}_{c}").alias(c) for c in names[i]).lazy()
        if i in names
        else to_polars(f)
        for i, f in enumerate(frames)
    ]


def _first_row(
    source: nw.LazyFrame[Any], predicate: nw.Expr, columns: Sequence[str], names: Mapping[str, str]
) -> str:
    """One offending row of the (projected) source, in the user's names (error path only)."""
    try:
        df = source.filter(predicate).select(*columns).head(1).collect(backend="polars").to_native()
    except Exception:
        return "?"
    return fmt_row(df.row(0, named=True), names) if df.height else "?"


def _first_group(
    source: nw.LazyFrame[Any],
    columns: Sequence[str],
    count: str,
    keep: Callable[[nw.Expr], nw.Expr],
    names: Mapping[str, str],
) -> str | None:
    """One group of source rows whose row count ``keep`` flags, for an error message (error path only).

    ``count`` names the row count in the message; the column itself is private.
    """
    df = (
        source.group_by([c for c in columns if c != KEY_ALL])
        .agg(nw.len().alias(_COUNT))
        .filter(keep(nw.col(_COUNT)))
        .head(1)
        .collect(backend="polars")
        .to_native()
    )
    return fmt_row(df.row(0, named=True), {**names, _COUNT: count}) if df.height else None


_COUNT = "__af_count"


def universe_frame(
    values: Sequence[Any] | dict[Any, list[Any]],
    dtype: pl.DataType,
    column: str,
    *,
    target: str | None = None,
    target_dtype: pl.DataType | None = None,
) -> pl.LazyFrame:
    """The declared class universe as a frame of the class column's dtype.

    With a target role, ``values`` maps each target to its classes and the frame
    has the columns (target, class).
    """
    if isinstance(values, dict):
        if target is None:
            msg = "classes given per target (a dict) need a target column: pass target='<column>'"
            raise OptionError(msg)
        frames = [
            universe_frame(list(v), dtype, column).with_columns(
                pl.lit(t).cast(target_dtype or pl.Null).alias(target)
            )
            for t, v in values.items()
        ]
        return pl.concat(frames).select(target, CLASS)
    try:
        series = pl.Series(CLASS, list(values)).cast(dtype, strict=True)
    except Exception as exc:
        msg = (
            f"column {column!r}: the declared classes {list(values)[:5]!r} cannot be cast to "
            f"the column's dtype {dtype}"
        )
        raise OptionError(msg) from exc
    if series.is_duplicated().any():
        msg = f"the declared classes repeat a value: {series.filter(series.is_duplicated())[0]!r}"
        raise OptionError(msg)
    return pl.LazyFrame(series)


# ---------------------------------------------------------------------------
# Long form


def finish_long(
    raw: dict[str, nw.LazyFrame[Any]],
    *,
    source: nw.LazyFrame[Any],
    roles: LongRoles,
    keys: Sequence[str],
    universe: pl.LazyFrame | None,
    soft_ok: bool,
    names: Mapping[str, str],
    target: str | None = None,
    group_universe: Sequence[str] = (),
    examples: pl.LazyFrame | int | None = None,
) -> CellTables:
    """Validated, universe-complete cell tables of the long form (all names private).

    ``examples`` declares the examples (a frame of private keys and example ids, or
    a count without keys): declared examples without rows are all-negative
    examples (a sparse log that records only positives loses none).
    """
    k = list(keys)
    ukeys = [*group_universe, *_universe_keys(target, universe)]
    grains = [raw["class"], raw["groups"], raw["profiles"]]
    if target is not None:
        # the block matrix's profiles are reduced where the rows are, like the others
        block_raw, block_detail = block_grain(raw["examples"], [c for c in k if c != target], roles.example)
        grains.append(block_raw)
    class_raw, groups, profiles, *block_pl = to_polars_all(grains)
    class_raw = class_raw.rename({roles.class_: CLASS})
    declared = None if universe is None else universe.collect()

    def check(audit: pl.DataFrame) -> pl.DataFrame:
        _check_long(
            audit,
            source=source,
            roles=roles,
            keys=k,
            declared=declared,
            soft_ok=soft_ok,
            ukeys=ukeys,
            names=names,
            examples=examples,
        )
        return audit

    audit = class_raw.join(groups, on=k, how="left", nulls_equal=True).map_batches(check).cache()
    present = audit.select(*k, CLASS, *CELLS, "rows", "n_examples")
    group_sizes = audit.select(*k, "n_examples").unique()
    classes_lf = universe if universe is not None else present.select(*ukeys, CLASS).unique()
    unlogged = None
    if examples is not None:
        group_sizes, unlogged = _declared_examples(examples, group_sizes, k, roles.example, names)
    full = (
        _join_universe(group_sizes, classes_lf, ukeys)
        .join(present.drop("n_examples"), on=[*k, CLASS], how="left", nulls_equal=True)
        .with_columns(pl.col(*CELLS, "rows").fill_null(0))
        .with_columns(
            # absent entries of a known universe are observed true negatives
            (pl.col("tn") + pl.col("n_examples") - pl.col("rows")).alias("tn")
        )
        .select(*k, CLASS, *[pl.col(c).cast(pl.Float64) for c in CELLS])
    )
    prof = profiles.with_columns(pl.col(*CELLS).cast(pl.Float64), pl.col("n").cast(pl.Int64))
    if unlogged is not None:
        # declared examples without rows: every entry a true negative (m of them)
        m = classes_lf.select(pl.len().cast(pl.Float64).alias("_m"))
        missing = unlogged.join(m, how="cross").select(
            *k, *[pl.lit(0.0).alias(c) for c in ("tp", "fp", "fn")], pl.col("_m").alias("tn"), "n"
        )
        prof = pl.concat([prof, missing], how="vertical_relaxed")
    block = None
    if target is not None:
        block = _block_profiles(
            block_pl[0],
            block_detail,
            _targets_per_group(present, [c for c in k if c != target], target),
            [c for c in k if c != target],
            roles.example,
            target,
            names,
        )
    return CellTables(
        classes=full, profiles=prof, keys=tuple(k), block_profiles=block, target=target, names=names
    )


def _declared_examples(
    examples: pl.LazyFrame | int,
    observed: pl.LazyFrame,
    keys: list[str],
    example: str,
    names: Mapping[str, str],
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Group sizes from the declared examples, and the unlogged examples per group (keys, n).

    Declared ids are checked (no nulls, no repeats within a group; a count must
    cover the examples seen); every example with rows is among them (checked on the
    per-example table, see :func:`~aggframe._cells.long_grains`).
    """
    if isinstance(examples, int):
        declared = pl.LazyFrame({KEY_ALL: [0], "_D": [examples], "_dups": [0], "_nulls": [0]})
    else:
        rk = [c for c in keys if c != KEY_ALL]
        declared = examples.group_by(rk).agg(
            pl.len().alias("_D"),
            (pl.len() - pl.col(example).drop_nulls().n_unique() - pl.col(example).null_count()).alias(
                "_dups"
            ),
            pl.col(example).null_count().alias("_nulls"),
        )
        if not rk:
            declared = declared.with_columns(pl.lit(0).alias(KEY_ALL))
    both = declared.join(observed, on=keys, how="full", coalesce=True, nulls_equal=True).with_columns(
        pl.col("_D", "_dups", "_nulls", "n_examples").fill_null(0)
    )
    column = names.get(example, example)

    def check(frame: pl.DataFrame) -> pl.DataFrame:
        nulls, dups = int(frame["_nulls"].sum()), int(frame["_dups"].sum())
        if nulls:
            msg = f"examples=: {nulls} null example id(s) in column {column!r}; declared examples need ids"
            raise NullValueError(msg)
        if dups:
            msg = (
                f"examples=: {dups} repeated example id(s) in column {column!r}; each example is "
                "declared once (per group)"
            )
            raise DuplicateEntryError(msg)
        over = frame.filter(pl.col("n_examples") > pl.col("_D"))
        if over.height:
            r = over.row(0, named=True)
            msg = (
                f"examples={r['_D']} declares fewer examples than the predictions hold "
                f"({r['n_examples']} examples have rows in column {column!r})"
            )
            raise InvalidValueError(msg)
        return frame

    both = both.map_batches(check).cache()
    sizes = both.select(*keys, pl.col("_D").alias("n_examples"))
    unlogged = both.select(*keys, (pl.col("_D") - pl.col("n_examples")).cast(pl.Int64).alias("n")).filter(
        pl.col("n") > 0
    )
    return sizes, unlogged


def _universe_keys(target: str | None, universe: pl.LazyFrame | None) -> list[str]:
    """Universes are per target unless one universe was declared for all targets."""
    if target is None or (universe is not None and target not in universe.collect_schema()):
        return []
    return [target]


def _join_universe(groups: pl.LazyFrame, classes: pl.LazyFrame, ukeys: list[str]) -> pl.LazyFrame:
    """Every group x every class of its universe (per target when there are targets)."""
    if ukeys:
        return groups.join(classes, on=ukeys, how="inner", nulls_equal=True)
    return groups.join(classes, how="cross")


def _targets_per_group(rows: pl.LazyFrame, keys: list[str], target: str) -> pl.LazyFrame:
    """How many targets each block group has rows in (every example needs a row in each)."""
    return rows.group_by(keys).agg(pl.col(target).n_unique().alias("_T"))


def _block_profiles(  # noqa: PLR0917
    raw: pl.LazyFrame,
    detail: nw.LazyFrame[Any],
    targets: pl.LazyFrame,
    keys: list[str],
    example: str,
    target: str,
    names: Mapping[str, str],
) -> pl.LazyFrame:
    """The block matrix's profiles (from :func:`~aggframe._cells.block_grain`), checked.

    Checks that the targets are on the same examples: within each group every
    example must have a row in every target (``targets``: the group's number of
    targets; one offending example is fetched from ``detail`` on the error path only).
    """

    def check(stats: pl.DataFrame) -> pl.DataFrame:
        short = stats.filter(pl.col("_n_targets") < pl.col("_T"))
        if short.height:
            count = int(short["n"].sum())
            first = short.row(0, named=True)
            visible = [c for c in keys if c != KEY_ALL]
            same_group = [nw.col(c).is_null() if first[c] is None else nw.col(c) == first[c] for c in visible]
            row = _first_row(
                detail,
                nw.all_horizontal(*same_group, nw.col("_n_targets") < first["_T"], ignore_nulls=False),
                [*visible, example, "_n_targets"],
                {**names, "_n_targets": "targets"},
            )
            msg = (
                f"column {names.get(target, target)!r}: the targets are not on the same examples "
                f"({count} example(s) lack a target, e.g. {row} of {first['_T']}); every example "
                "needs a row in every target"
            )
            raise InvalidValueError(msg)
        return stats

    return (
        raw.join(targets, on=keys, how="left", nulls_equal=True)
        .map_batches(check)
        .group_by(*keys, *CELLS)
        .agg(pl.col("n").sum().cast(pl.Int64))
        .with_columns(pl.col(*CELLS).cast(pl.Float64))
    )


def _check_long(
    audit: pl.DataFrame,
    *,
    source: nw.LazyFrame[Any],
    roles: LongRoles,
    keys: list[str],
    declared: pl.DataFrame | None,
    soft_ok: bool,
    ukeys: list[str],
    names: Mapping[str, str],
    examples: pl.LazyFrame | int | None = None,
) -> None:
    def show(col: str) -> str:
        return names.get(col, col)

    if audit.height == 0 or int(audit["rows"].sum()) == 0:
        msg = "the predictions frame has no rows"
        raise EmptyInputError(msg)
    cols = [
        c for c in (*keys, roles.example, roles.class_, roles.y, roles.p, roles.mask) if c and c != KEY_ALL
    ]
    group_level = audit.unique(keys)

    def total(col: str) -> int:
        return int(audit[col].sum())

    nulls = [
        (roles.example, total("null_example")),
        (roles.class_, int(audit.filter(pl.col(CLASS).is_null())["rows"].sum())),
        (roles.y, total("null_y")),
        (roles.p, total("null_p")),
    ]
    if roles.mask:
        nulls.append((roles.mask, total("null_mask")))
    for col, count in nulls:
        if count:
            row = _first_row(source, nw.col(col).is_null(), cols, names)
            msg = f"column {show(col)!r}: {count} null value(s) (e.g. row {row}); role columns must not hold nulls"
            raise NullValueError(msg)

    undeclared = int(group_level["undeclared"].sum()) if "undeclared" in group_level.columns else 0
    if undeclared and isinstance(examples, pl.LazyFrame):
        rk = [c for c in keys if c != KEY_ALL]
        unknown = to_polars(source).join(examples, on=[*rk, roles.example], how="anti", nulls_equal=True)
        first = unknown.select(*rk, roles.example).head(1).collect()
        row = fmt_row(first.row(0, named=True), names) if first.height else "?"
        msg = (
            f"column {show(roles.example)!r}: {undeclared} example(s) with rows are not among the "
            f"declared examples= (e.g. {row}); declare every example of the predictions"
        )
        raise InvalidValueError(msg)

    dups = int(group_level["dup_entries"].sum())
    if dups:
        # the wide step's count can be a suspicion (see _cells._distinct_classes): recount
        dups = _exact_duplicates(source, [*keys, roles.example], roles.class_)
    if dups:
        row = (
            _first_group(source, [*keys, roles.example, roles.class_], "copies", lambda n: n > 1, names)
            or "?"
        )
        msg = (
            f"columns ({show(roles.example)!r}, {show(roles.class_)!r}): {dups} duplicate entr(y/ies) "
            f"(e.g. {row}); each (example, class) must appear at most once"
            + (" per by-group" if keys != [KEY_ALL] else "")
        )
        raise DuplicateEntryError(msg)

    # The wide step's aggregates tell whether a check fails (min, max, and the sum of
    # x - x^2: 0 when every value is 0 or 1, NaN when one is NaN); the count of
    # offending rows for the message is then taken from the source.
    roles_of = {"y": roles.y, "p": roles.p, **({"mask": roles.mask} if roles.mask else {})}

    def fails(check: pl.Expr) -> bool:
        return bool(audit.select(check.fill_null(False).any()).item())  # noqa: FBT003

    for role, col in roles_of.items():
        out_of_range = (
            (pl.col(f"min_{role}") < 0) | (pl.col(f"max_{role}") > 1) | pl.col(f"soft_{role}").is_nan()
        )
        if fails(out_of_range):
            x = nw.col(col).cast(nw.Float64)
            predicate = (~x.is_between(0.0, 1.0)).fill_null(False)  # noqa: FBT003
            count, row = _count_rows(source, predicate), _first_row(source, predicate, cols, names)
            msg = (
                f"column {show(col)!r}: {count} value(s) outside [0, 1] or NaN (e.g. row {row}); "
                "expected 0/1, booleans, or soft values in [0, 1]"
            )
            raise InvalidValueError(msg)
    for role, col in roles_of.items():
        if (role == "mask" or not soft_ok) and fails(pl.col(f"soft_{role}") > 0):
            x = nw.col(col).cast(nw.Float64)
            predicate = (x > 0.0) & (x < 1.0)
            count, row = _count_rows(source, predicate), _first_row(source, predicate, cols, names)
            if role == "mask":
                msg = (
                    f"column {show(col)!r}: {count} value(s) strictly between 0 and 1 "
                    f"(e.g. row {row}); a mask is 1 (observed) or 0 (unobserved)"
                )
            else:
                msg = (
                    f"column {show(col)!r}: {count} soft value(s) strictly between 0 and 1 (e.g. row {row}) "
                    "but no t-norm was given; pass tnorm='product' (or godel, lukasiewicz, "
                    "hamacher) to evaluate soft labels, or threshold them first"
                )
            raise InvalidValueError(msg)

    if declared is not None:
        outside = audit.join(declared.select(*ukeys, CLASS), on=[*ukeys, CLASS], how="anti", nulls_equal=True)
        if outside.height:
            _raise_outside(outside, declared, show(roles.class_), ukeys, count=int(outside["rows"].sum()))
    else:
        m = audit.group_by(ukeys).agg(pl.col(CLASS).n_unique().alias("_m")) if ukeys else None
        with_m = (
            audit.join(m, on=ukeys, nulls_equal=True)
            if m is not None
            else audit.with_columns(pl.lit(audit[CLASS].n_unique()).alias("_m"))
        )
        short = with_m.filter(pl.col("min_rows") < pl.col("_m"))
        incomplete = with_m.group_by(keys).agg(
            (pl.col("n_examples").first() * pl.col("_m").first()) - pl.col("rows").sum()
        )
        missing = int(incomplete.to_series(-1).sum())
        if short.height or missing:
            m0 = int(with_m["_m"].max())  # type: ignore[arg-type]
            by = [c for c in keys if c != KEY_ALL]
            row = (
                _first_group(
                    source, [*by, roles.example], f"n_{show(roles.class_)}_rows", lambda n: n < m0, names
                )
                or "a class absent from a by-group"
            )
            msg = (
                f"column {show(roles.class_)!r}: the frame is sparse ({missing} (example, class) entries "
                f"of {m0} classes are absent; e.g. {row}) but no class universe was given; pass "
                "classes=..., n_classes=... or an Enum class column to count absent entries as "
                "true negatives"
            )
            raise SparseInputError(msg)


def _count_rows(source: nw.LazyFrame[Any], predicate: nw.Expr) -> int:
    """How many source rows ``predicate`` flags (error path only)."""
    return int(source.filter(predicate).select(nw.len()).collect(backend="polars").item())


def _exact_duplicates(source: nw.LazyFrame[Any], keys: Sequence[str], column: str) -> int:
    """Surplus rows of repeated (keys..., class) entries, counted exactly on the source."""
    per_key = source.group_by([c for c in keys if c != KEY_ALL]).agg(
        (nw.len() - nw.col(column).n_unique()).alias("_surplus")
    )
    total = per_key.select(nw.col("_surplus").sum()).collect(backend="polars").item()
    return int(total or 0)


def _raise_outside(
    outside: pl.DataFrame, declared: pl.DataFrame, column: str, ukeys: list[str], *, count: int
) -> None:
    value = outside[CLASS][0]
    where = f" of target {outside[ukeys[0]][0]!r}" if ukeys else ""
    values = declared[CLASS].to_list()
    msg = (
        f"column {column!r}: {count} row(s) with a class outside the declared universe{where} "
        f"(e.g. {value!r}); declared {len(values)} classes: {values[:10]!r}{' ...' if len(values) > 10 else ''}"
    )
    raise UnknownClassError(msg)


# ---------------------------------------------------------------------------
# Label form


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
    ukeys = [*group_universe, *_universe_keys(target, universe)]
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
            target=target if _universe_keys(target, universe) else None,
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
        _join_universe(groups, classes_lf, ukeys)
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
        block = _block_profiles(
            more[-1], block_detail, _targets_per_group(conf, bk, target), bk, roles.example, target, names
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
    return CellTables(
        classes=classes, profiles=profiles, keys=tuple(k), block_profiles=block, target=target, names=names
    )


def _label_row_cells(
    rows: pl.LazyFrame, task: str, pos_label: Any, m: pl.LazyFrame | None, ukeys: list[str]
) -> pl.LazyFrame:
    """Each row's cells (columns ``_yt``, ``_yp``), with its universe's class count ``m``."""
    cells = label_row_cells(nw.from_native(rows), "_yt", "_yp", task=task, pos_label=pos_label).to_native()
    if task == "binary":
        return cells
    assert m is not None
    with_m = cells.join(m, on=ukeys, nulls_equal=True) if ukeys else cells.join(m, how="cross")
    return with_m.with_columns(pl.col("tn") + pl.col("_m"))


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
            row = _first_row(source, source_missing, cols, names)
            msg = f"column {show(col)!r}: {count} null value(s) (e.g. row {row}); labels must not be null"
            raise NullValueError(msg)
    if roles.example is not None:
        group_level = audit.unique(keys)
        count = int(group_level["null_example"].sum())
        if count:
            row = _first_row(source, nw.col(roles.example).is_null(), cols, names)
            msg = f"column {show(roles.example)!r}: {count} null value(s) (e.g. row {row})"
            raise NullValueError(msg)
        dups = int(group_level["dup_examples"].sum())
        if dups:
            row = _first_group(source, [*keys, roles.example], "copies", lambda n: n > 1, names) or "?"
            msg = (
                f"column {show(roles.example)!r}: {dups} repeated example row(s) (e.g. {row}); "
                "the label form takes one row per example" + (" per by-group" if keys != [KEY_ALL] else "")
            )
            raise DuplicateEntryError(msg)
    values = pl.concat([audit["_yt"], audit["_yp"]]).unique()
    if declared is not None:
        ukeys = [target] if target else []
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
            where = f" of target {first[target]!r}" if target else ""
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
