"""Narrow step of the long form: raw grains -> validated cell tables (Polars), absent classes counted.

Validation runs on the small tables inside the same lazy plan: a
``map_batches`` node checks the wide step's aggregates when the plan is
collected and raises an :class:`~aggframe.exceptions.AggframeError` naming the
column (the user's name), the number of bad rows and one offending row
(fetched from the source only on that error path).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import narwhals as nw
import polars as pl

from aggframe._columns import CELLS, CLASS, FOLD, KEY_ALL, REPEAT, fmt_row
from aggframe.exceptions import (
    DuplicateEntryError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    SparseInputError,
)
from aggframe.tables.cells import GROUP_COLUMNS, CellTables
from aggframe.tables.errors import MASK_VALUES, exact_duplicates, first_group, first_row, raise_outside
from aggframe.tables.universe import declared_lists, targets_per_group, universe_keys
from aggframe.wide.engines import to_polars, to_polars_all
from aggframe.wide.long import BAD_VALUES, LongRoles, block_grain, class_refused

__all__ = ["block_profiles", "finish_long", "value_stats"]


def finish_long(  # noqa: PLR0913 -- the constructor's options, passed through
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
    """Validated cell tables of the long form (all names private): the pairs that occur, absent ones counted.

    ``examples`` declares the examples (a frame of private keys and example ids, or
    a count without keys): declared examples without rows are all-negative
    examples (a sparse log that records only positives loses none).
    """
    k = list(keys)
    ukeys = [*group_universe, *universe_keys(target, universe)]
    grains = [raw["class"], raw["groups"], raw["profiles"]]
    if target is not None:
        # the block matrix's profiles are reduced where the rows are, like the others
        block_raw, block_detail = block_grain(raw["examples"], [c for c in k if c != target], roles.example)
        grains.append(block_raw)
    class_raw, groups, profiles, *block_pl = to_polars_all(grains)
    class_raw = class_raw.rename({roles.class_: CLASS})
    declared = None if universe is None else universe.collect()

    def check(counts: pl.DataFrame) -> pl.DataFrame:
        _check_groups(
            counts,
            source=source,
            roles=roles,
            keys=k,
            declared=declared,
            soft_ok=soft_ok,
            ukeys=ukeys,
            names=names,
            examples=examples,
        )
        return counts

    # Every check reads the per-group counts (one row per group): the flag of refused
    # values and classes rides on the per-example aggregation (wide.long.long_grains),
    # so the (group, class) pairs stream past, joined to their group's size, and no
    # check holds them all at once (a check over the 3M pairs of 10^4 groups x 10k labels
    # cost ~5% of the report and 60 MiB). The pairs depend on the checked sizes, so the
    # checks run in every plan that reads them (lazy=True too).
    checked = groups.map_batches(check).cache()
    if declared is None:
        # an undeclared universe: whether the data are dense reads the pairs (after the
        # checks above, which it follows in order)
        def check_dense(audit: pl.DataFrame) -> pl.DataFrame:
            _check_dense(audit, source=source, roles=roles, keys=k, ukeys=ukeys, names=names)
            return audit

        sized = checked.select(*k, "n_examples", "min_rows")
        audit = class_raw.join(sized, on=k, how="left", nulls_equal=True).map_batches(check_dense).cache()
    else:
        audit = class_raw.join(checked.select(*k, "n_examples"), on=k, how="left", nulls_equal=True)
    present = audit.select(*k, CLASS, *CELLS, "rows", "n_examples")
    classes_lf = universe if universe is not None else present.select(*ukeys, CLASS).unique()
    unlogged = None
    sizes = None
    if examples is not None:
        observed = checked.select(*k, "n_examples")
        sizes, unlogged = _declared_examples(examples, observed, k, roles.example, names)
        present = present.drop("n_examples").join(sizes, on=k, how="inner", nulls_equal=True)
    f64 = pl.Float64
    # an (example, class) entry without a row, in a class that occurs, is an observed
    # true negative: tn counts the group's examples that have no row in the class
    classes = present.select(
        *k,
        CLASS,
        *[pl.col(c).cast(f64) for c in ("tp", "fp", "fn")],
        (pl.col("tn") + pl.col("n_examples") - pl.col("rows")).cast(f64).alias("tn"),
    )
    # the groups that occur and their examples: the per-example grain's one row per group
    # (the same groups as the classes'; the checks above run in the same collect)
    occurring = checked.select(*k, "n_examples") if sizes is None else sizes
    m = (
        classes_lf.group_by(ukeys).agg(pl.len().cast(pl.Int64).alias("n_classes"))
        if ukeys
        else classes_lf.select(pl.len().cast(pl.Int64).alias("n_classes"))
    )
    with_m = (
        occurring.join(m, on=ukeys, how="left", nulls_equal=True) if ukeys else occurring.join(m, how="cross")
    )
    prof = profiles.with_columns(pl.col(*CELLS).cast(pl.Float64), pl.col("n").cast(pl.Int64))
    if unlogged is not None:
        # declared examples without rows: every entry a true negative (m of them)
        missing = unlogged.join(m, how="cross").select(
            *k,
            *[pl.lit(0.0).alias(c) for c in ("tp", "fp", "fn")],
            pl.col("n_classes").cast(pl.Float64).alias("tn"),
            "n",
        )
        prof = pl.concat([prof, missing], how="vertical_relaxed")
    # The pooled cells of a group (every class of its universe, absent ones included) are
    # its examples' cells summed: each example's tn already counts its absent entries
    # (the wide step adds them, or the data are dense), so a sum over the small profiles
    # replaces one over the (group, class) pairs; only the count of classes that occur
    # is read from those.
    n = pl.col("n").cast(f64)
    pooled = prof.group_by(k).agg(*[(pl.col(c) * n).sum() for c in CELLS])
    present = classes.group_by(k).agg(pl.len().cast(pl.Int64).alias("_present"))
    absent = pl.col("n_classes") - pl.col("_present").fill_null(0)
    groups = (
        with_m.join(pooled, on=k, how="left", nulls_equal=True)
        .join(present, on=k, how="left", nulls_equal=True)
        .with_columns(
            pl.col("n_examples").cast(pl.Int64),
            absent.alias("n_absent"),
            *[pl.col(c).fill_null(0.0) for c in CELLS],
        )
        .select(*k, *GROUP_COLUMNS)
        .cache()
    )
    block = None
    if target is not None:
        # the targets a group has rows in, over its folds: a target absent from a whole fold
        # leaves that fold's examples without it (the pooled rows would mix examples of two
        # target sets, which the evaluation without the fold column refuses)
        per_group = [c for c in k if c not in (target, FOLD, REPEAT)]
        block = block_profiles(
            block_pl[0],
            block_detail,
            targets_per_group(present, per_group, target),
            [c for c in k if c != target],
            roles.example,
            target,
            names,
        )
    return CellTables(
        classes=classes,
        profiles=prof,
        keys=tuple(k),
        block_profiles=block,
        target=target,
        names=names,
        groups=groups.select(*k, *GROUP_COLUMNS),  # not the cache itself (Polars 2.x panic)
        universe=classes_lf,
        universe_keys=tuple(ukeys),
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
    cover the examples seen; no rows and no declared example is empty input); every
    example with rows is among them (checked on the
    per-example table, see :func:`~aggframe.wide.long.long_grains`).
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
        if KEY_ALL in keys:
            # no by-columns: the stand-in key (folds and repeats, when given, are columns of both)
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
        if int(frame["_D"].sum()) == 0:
            msg = "the predictions frame has no rows and examples= declares none"
            raise EmptyInputError(msg)
        return frame

    both = both.map_batches(check).cache()
    sizes = both.select(*keys, pl.col("_D").alias("n_examples"))
    unlogged = both.select(*keys, (pl.col("_D") - pl.col("n_examples")).cast(pl.Int64).alias("n")).filter(
        pl.col("n") > 0
    )
    return sizes, unlogged


def block_profiles(  # noqa: PLR0917
    raw: pl.LazyFrame,
    detail: nw.LazyFrame[Any],
    targets: pl.LazyFrame,
    keys: list[str],
    example: str,
    target: str,
    names: Mapping[str, str],
) -> pl.LazyFrame:
    """The block matrix's profiles (from :func:`~aggframe.wide.long.block_grain`), checked.

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
            row = first_row(
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

    # the targets' count is per group over its folds (finish_long): joined on the keys it has
    on = [c for c in targets.collect_schema().names() if c in keys]
    joined = raw.join(targets, on=on, how="left", nulls_equal=True) if on else raw.join(targets, how="cross")
    return (
        joined.map_batches(check)
        .group_by(*keys, *CELLS)
        .agg(pl.col("n").sum().cast(pl.Int64))
        .with_columns(pl.col(*CELLS).cast(pl.Float64))
    )


def _out_of_range(x: nw.Expr) -> nw.Expr:
    return (~x.cast(nw.Float64).is_between(0.0, 1.0)).fill_null(False)  # noqa: FBT003


def _strictly_soft(x: nw.Expr) -> nw.Expr:
    x = x.cast(nw.Float64)
    return ((x > 0.0) & (x < 1.0)).fill_null(False)  # noqa: FBT003


def value_stats(
    source: nw.LazyFrame[Any], example: str, roles: Mapping[str, str], class_: str, outside: nw.Expr | None
) -> dict[str, int]:
    """What the wide step's flag of refused values and classes stands for (:func:`~aggframe.wide.long.invalid_values`,
    :func:`~aggframe.wide.long.class_refused`).

    One query on the source (error path only): the null examples and classes,
    the rows whose class is ``outside`` the declared universe (an expression; None:
    none declared), and per role (``y``, ``p``, ``mask``: column) its null values
    (``null_<role>``), values outside [0, 1] or NaN (``range_<role>``) and values
    strictly between 0 and 1 (``soft_<role>``).
    """
    counts = [
        nw.col(example).null_count().alias("null_example"),
        nw.col(class_).null_count().alias("null_class"),
        *([outside.cast(nw.Int64).sum().alias("outside")] if outside is not None else []),
    ]
    for role, col in roles.items():
        x = nw.col(col)
        counts += [
            x.null_count().alias(f"null_{role}"),
            _out_of_range(x).cast(nw.Int64).sum().alias(f"range_{role}"),
            _strictly_soft(x).cast(nw.Int64).sum().alias(f"soft_{role}"),
        ]
    row = source.select(*counts).collect(backend="polars").to_native().row(0, named=True)
    return {name: int(value or 0) for name, value in row.items()}


def _check_groups(  # noqa: PLR0913 -- finish_long's options, passed through
    counts: pl.DataFrame,
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
    """The checks on the per-group counts of the wide step (one row per group), in the order they report.

    Empty input (unless examples are declared: then a frame without rows is every
    declared example all-negative), nulls (examples, classes, role values), undeclared examples,
    duplicate entries, values outside [0, 1], soft values where none may be, and
    classes outside a declared universe; which of the refused values or classes a
    group's flag count stands for is counted on the source (:func:`value_stats`),
    only when some row is flagged.
    """

    def show(col: str) -> str:
        return names.get(col, col)

    def total(col: str) -> int:
        return int(counts[col].sum()) if col in counts.columns else 0

    if examples is None and (counts.height == 0 or total("n_examples") == 0):
        msg = "the predictions frame has no rows"
        raise EmptyInputError(msg)
    cols = [
        c for c in (*keys, roles.example, roles.class_, roles.y, roles.p, roles.mask) if c and c != KEY_ALL
    ]
    roles_of = {"y": roles.y, "p": roles.p, **({"mask": roles.mask} if roles.mask is not None else {})}
    universe = None if declared is None else declared_lists(declared, ukeys)
    target = ukeys[0] if ukeys and declared is not None else None
    outside = None if universe is None else class_refused(roles.class_, universe, target)
    stats = value_stats(source, roles.example, roles_of, roles.class_, outside) if total(BAD_VALUES) else None

    def flagged(name: str) -> int:
        return 0 if stats is None else stats.get(name, 0)

    nulls = [
        (roles.example, flagged("null_example")),
        (roles.class_, flagged("null_class")),
        *[(col, flagged(f"null_{role}")) for role, col in roles_of.items()],
    ]
    for col, count in nulls:
        if count:
            row = first_row(source, nw.col(col).is_null(), cols, names)
            msg = f"column {show(col)!r}: {count} null value(s) (e.g. row {row}); role columns must not hold nulls"
            raise NullValueError(msg)

    undeclared = total("undeclared")
    if undeclared and isinstance(examples, pl.LazyFrame):
        _raise_undeclared(source, examples, keys, roles.example, undeclared, names=names)
    if total("dup_entries"):
        _check_duplicates(source, keys, roles, names)

    for role, col in roles_of.items():
        count = flagged(f"range_{role}")
        if count:
            row = first_row(source, _out_of_range(nw.col(col)), cols, names)
            expected = MASK_VALUES if role == "mask" else "expected 0/1, booleans, or soft values in [0, 1]"
            msg = f"column {show(col)!r}: {count} value(s) outside [0, 1] or NaN (e.g. row {row}); {expected}"
            raise InvalidValueError(msg)
    for role, col in roles_of.items():
        count = flagged(f"soft_{role}")
        if (role == "mask" or not soft_ok) and count:
            row = first_row(source, _strictly_soft(nw.col(col)), cols, names)
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

    if declared is not None and outside is not None and flagged("outside"):
        first = (
            source.filter(outside)
            .select(nw.col(roles.class_).alias(CLASS), *[nw.col(u) for u in ukeys])
            .head(1)
            .collect(backend="polars")
            .to_native()
        )
        raise_outside(first, declared, show(roles.class_), ukeys, count=flagged("outside"))


def _raise_undeclared(
    source: nw.LazyFrame[Any],
    examples: pl.LazyFrame,
    keys: list[str],
    example: str,
    count: int,
    *,
    names: Mapping[str, str],
) -> None:
    """``count`` examples with rows are not among the declared ``examples``: name the first."""
    rk = [c for c in keys if c != KEY_ALL]
    unknown = to_polars(source).join(examples, on=[*rk, example], how="anti", nulls_equal=True)
    first = unknown.select(*rk, example).head(1).collect()
    row = fmt_row(first.row(0, named=True), names) if first.height else "?"
    msg = (
        f"column {names.get(example, example)!r}: {count} example(s) with rows are not among the "
        f"declared examples= (e.g. {row}); declare every example of the predictions"
    )
    raise InvalidValueError(msg)


def _check_duplicates(
    source: nw.LazyFrame[Any], keys: list[str], roles: LongRoles, names: Mapping[str, str]
) -> None:
    """Duplicate (example, class) entries, recounted exactly on the source (the wide step's
    count can be a suspicion: an example whose bit words fall short of its rows, see
    aggframe.wide.engines.distinct_classes)."""
    dups = exact_duplicates(source, [*keys, roles.example], roles.class_)
    if not dups:
        return
    row = first_group(source, [*keys, roles.example, roles.class_], "copies", lambda n: n > 1, names) or "?"
    example, class_ = (names.get(c, c) for c in (roles.example, roles.class_))
    msg = (
        f"columns ({example!r}, {class_!r}): {dups} duplicate entr(y/ies) "
        f"(e.g. {row}); each (example, class) must appear at most once"
        + (" per by-group" if keys != [KEY_ALL] else "")
    )
    raise DuplicateEntryError(msg)


def _check_dense(
    audit: pl.DataFrame,
    *,
    source: nw.LazyFrame[Any],
    roles: LongRoles,
    keys: list[str],
    ukeys: list[str],
    names: Mapping[str, str],
) -> None:
    """Without a declared universe, every example needs a row in every class of its universe.

    ``audit`` holds the (group, class) pairs with their group's ``n_examples`` and
    ``min_rows`` (the fewest rows an example of the group has).
    """
    if audit.height == 0:
        return
    column = names.get(roles.class_, roles.class_)
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
            first_group(source, [*by, roles.example], f"n_{column}_rows", lambda n: n < m0, names)
            or "a class absent from a by-group"
        )
        msg = (
            f"column {column!r}: the frame is sparse ({missing} (example, class) entries "
            f"of {m0} classes are absent; e.g. {row}) but no class universe was given; pass "
            "classes=..., n_classes=... or an Enum class column to count absent entries as "
            "true negatives"
        )
        raise SparseInputError(msg)
