"""Cell tables: the common currency between the wide step and the operators.

``classes``   keys..., class, tp, fp, fn, tn   the (group, class) pairs that *occur*
``groups``    keys..., n_examples, n_classes, n_absent, tp, fp, fn, tn   one row per group
``profiles``  keys..., tp, fp, fn, tn, n       (n examples share these per-example cells)
``universe``  universe_keys..., class          the class universe (per target, per group, or one)
``pairs``     keys..., _yt, _yp, n             (single-label data, asked for: n examples of true
                                               class _yt predicted _yp; the whole-matrix measures' input)

Absent classes are never materialised. A class of a group's universe that does
not occur in the group (no true and no predicted entry, or no row in the long
form) has known cells: ``tp = fp = fn = 0`` and ``tn = n_examples``, the group's
number of examples. So ``classes`` holds the pairs that occur, and ``groups``
says per group how many examples it has (``n_examples``, the ``tn`` of every
absent class), how many classes its universe has (``n_classes``) and how many of
them are absent (``n_absent``), with the *pooled* cells: the cells summed over
every class of the universe, absent ones included (their ``tn`` counts). The
operators take the absent classes in closed form: one entry per group with
multiplicity ``n_absent`` (:mod:`aggframe.operators.reduce`). What really is per
(group, class) fills the universe on demand (:func:`filled_classes`), and says so.

``groups`` is ``None`` for tables built elsewhere (:func:`~aggframe.fold_aggregate`
and tests): then ``classes`` already holds every (group, class) of the universe.

Keys are private (:mod:`aggframe._columns`); ``names`` maps them back to the
user's names. Every table is a sum, so tables add up (:func:`sum_to`): the union
of folds, grouping sets and cell stores are all sums of cell tables. An absent
class adds ``n_examples`` true negatives, so a pair summed over groups where it
is sometimes absent gets ``tn = N - sum(N_g - tn_g)`` over the groups where it occurs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import polars as pl

from aggframe._columns import CELLS, CLASS, KEY_ALL
from aggframe.exceptions import UnknownNameError

__all__ = [
    "GRAIN_COLUMNS",
    "GROUP_COLUMNS",
    "PART",
    "SMALL_TABLES",
    "CellTables",
    "add_tables",
    "filled_classes",
    "grain_columns",
    "group_keys",
    "group_table",
    "renamed",
    "rollup_tables",
    "small_tables",
    "sorted_table",
    "sum_to",
    "with_groups",
]

#: The columns of the ``groups`` table after its keys.
GROUP_COLUMNS = ("n_examples", "n_classes", "n_absent", *CELLS)
#: The columns of each grain of :func:`sorted_table` after its keys (the tidy cell tables users see).
GRAIN_COLUMNS: dict[str, tuple[str, ...]] = {
    "class": (CLASS, *CELLS),
    "pooled": CELLS,
    "profiles": (*CELLS, "n"),
}
#: The key telling apart the parts added by :func:`add_tables` (summed away there).
PART = "__af_part"
#: Kept cell tables of at most this many rows (classes and profiles, :attr:`CellTables.rows`)
#: make the narrow step a fixed cost: planning and dispatching its plan, not the arithmetic.
#: Then each measure is evaluated once over every kind of entry stacked
#: (:mod:`aggframe.operators.reduce`), and the eager report runs on the in-memory engine
#: without the optimizer's passes (common subexpressions cost more to find than to
#: recompute over a few rows): 11.5 against 20.6 ms CPU for 21 measures x 4 operators over
#: 100 classes, 28 against 42 ms at 10^4 class rows, even at 4 * 10^4. Above it, each kind
#: of entry on its own and the engine asked for with every pass (benchmarks/NOTES_latency.md).
SMALL_TABLES = 50_000


@dataclass(frozen=True)
class CellTables:
    """Validated cell tables of one evaluation (lazy); see the module docstring for each table."""

    classes: pl.LazyFrame  # keys..., class, tp, fp, fn, tn: the pairs that occur
    profiles: pl.LazyFrame  # keys..., tp, fp, fn, tn, n
    keys: tuple[str, ...]
    #: with a target role: the per-example profiles across all targets (the block
    #: matrix), keyed by the keys without the target column
    block_profiles: pl.LazyFrame | None = None
    target: str | None = None
    #: the user's names of the private key columns (see :mod:`aggframe._columns`)
    names: Mapping[str, str] = field(default_factory=dict)
    #: per group: n_examples, n_classes, n_absent and the pooled cells (None: ``classes``
    #: holds every class of the universe). Keyed by the groups' own keys: the block view
    #: of targets (:func:`~aggframe.operators.targets.block_view`) keeps the target here.
    groups: pl.LazyFrame | None = None
    #: the class universe: ``universe_keys``..., class (None when ``groups`` is None)
    universe: pl.LazyFrame | None = None
    #: the keys a universe depends on: () for one universe, the target, or the by-keys
    #: (``class_universe="group"``: each group's classes are the ones seen in it)
    universe_keys: tuple[str, ...] = ()
    #: single-label data, asked for (see ``pairs=`` of the sources): the confusion counts
    #: ``keys..., _yt, _yp, n`` (pairs with n = 0 absent); None where not asked or the form
    #: has none (multilabel, soft, binary task, long form)
    pairs: pl.LazyFrame | None = None
    #: a declared class universe's order: ``[target,] class, _pos`` (None: classes sort by value)
    order: pl.LazyFrame | None = None
    #: the rows of ``classes`` and ``profiles`` when they are collected and kept (None: lazy,
    #: or not counted); derived tables (roll-ups, subsets) keep the count of those they came from
    rows: int | None = None


def small_tables(tables: CellTables) -> bool:
    """Whether the tables are kept (collected) and have at most :data:`SMALL_TABLES` rows."""
    return tables.rows is not None and tables.rows <= SMALL_TABLES


def group_keys(tables: CellTables) -> list[str]:
    """The keys of the ``groups`` table (the tables' keys, plus the target in a block view)."""
    if tables.groups is None:
        return list(tables.keys)
    return [c for c in tables.groups.collect_schema().names() if c not in GROUP_COLUMNS]


def group_table(tables: CellTables) -> pl.LazyFrame:
    """The ``groups`` table, or, for tables without one, derived from the complete ``classes``."""
    if tables.groups is not None:
        return tables.groups
    k = list(tables.keys)
    sizes = tables.profiles.group_by(k).agg(pl.col("n").sum().cast(pl.Int64).alias("n_examples"))
    pooled = tables.classes.group_by(k).agg(
        pl.len().cast(pl.Int64).alias("n_classes"),
        pl.lit(0, dtype=pl.Int64).alias("n_absent"),
        *[pl.col(c).cast(pl.Float64).sum() for c in CELLS],
    )
    joined = pooled.join(sizes, on=k, how="left", nulls_equal=True)
    return joined.with_columns(pl.col("n_examples").fill_null(0)).select(*k, *GROUP_COLUMNS)


def filled_classes(tables: CellTables) -> pl.LazyFrame:
    """Every (group, class) of the universe, the absent pairs filled in (``tp = fp = fn = 0``, ``tn = N``).

    Costs what the universe is: groups x classes rows. For the views that really
    are per (group, class) (:meth:`~aggframe.Predictions.per_class`,
    :meth:`~aggframe.Predictions.parts`, ``cells("class")``, suites, costs); the
    operators never call it. Keyed by :func:`group_keys`, unsorted.
    """
    if tables.groups is None or tables.universe is None:
        return tables.classes
    fine = group_keys(tables)
    ukeys = list(tables.universe_keys)
    sizes = tables.groups.filter(pl.col("n_absent") > 0).select(*fine, "n_examples")
    if ukeys:
        universe = sizes.join(tables.universe, on=ukeys, how="inner", nulls_equal=True)
    else:
        universe = sizes.join(tables.universe, how="cross")
    absent = universe.join(tables.classes, on=[*fine, CLASS], how="anti", nulls_equal=True).select(
        *fine,
        CLASS,
        *[pl.lit(0.0).alias(c) for c in ("tp", "fp", "fn")],
        pl.col("n_examples").cast(pl.Float64).alias("tn"),
    )
    present = tables.classes.select(*fine, CLASS, *CELLS)
    return pl.concat([present, absent], how="vertical_relaxed")


def _keyed(lf: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """The stand-in key added when ``keys`` names it and the table lacks it."""
    if KEY_ALL in keys and KEY_ALL not in lf.collect_schema():
        return lf.with_columns(pl.lit(0).alias(KEY_ALL))
    return lf


def sum_to(tables: CellTables, keys: Sequence[str]) -> CellTables:
    """The cell tables summed down to ``keys`` (any subset of their keys; exact, as cells add up).

    Used for the union of folds, grouping sets and cell stores read together. A
    class absent from some of the summed groups and present in others gets their
    examples as true negatives; each coarse group's absent count is recounted
    against its universe. A universe of observed classes per group
    (``class_universe="group"``) summed over a by-key becomes the classes seen in
    the coarser group, as when it is evaluated alone.
    """
    k = list(keys)
    profiles = _keyed(tables.profiles, k).group_by([*k, *CELLS]).agg(pl.col("n").sum())
    block = None
    if tables.block_profiles is not None:
        block_keys = [c for c in k if c != tables.target]
        block = _keyed(tables.block_profiles, k).group_by([*block_keys, *CELLS]).agg(pl.col("n").sum())
    if tables.groups is None:
        classes = _keyed(tables.classes, k).group_by([*k, CLASS]).agg(pl.col(*CELLS).sum())
        return replace(
            tables,
            classes=classes,
            profiles=profiles,
            keys=tuple(k),
            block_profiles=block,
            pairs=_summed_pairs(tables, k),
        )
    fine = group_keys(tables)
    if set(fine) <= set(k):
        # nothing is summed over: the same tables (the stand-in key added if asked)
        return replace(
            tables,
            classes=_keyed(tables.classes, k),
            groups=_keyed(tables.groups, k),
            profiles=_keyed(tables.profiles, k),
            keys=tuple(k),
            block_profiles=None if tables.block_profiles is None else _keyed(tables.block_profiles, k),
            pairs=None if tables.pairs is None else _keyed(tables.pairs, k),
        )
    groups = _keyed(tables.groups, k)
    # each pair's deficit N - tn is zero where the class is absent: it adds up
    deficit = (
        _keyed(tables.classes, k)
        .join(groups.select(*fine, "n_examples"), on=fine, how="inner", nulls_equal=True)
        .group_by([*k, CLASS])
        .agg(
            pl.col("tp", "fp", "fn").sum(),
            (pl.col("n_examples").cast(pl.Float64) - pl.col("tn")).sum().alias("_deficit"),
        )
    )
    sizes = groups.group_by(k).agg(
        pl.col("n_examples").sum(), pl.col("n_classes").first(), *[pl.col(c).sum() for c in CELLS]
    )
    classes = (
        deficit.join(sizes.select(*k, "n_examples"), on=k, how="inner", nulls_equal=True)
        .select(
            *k,
            CLASS,
            "tp",
            "fp",
            "fn",
            (pl.col("n_examples").cast(pl.Float64) - pl.col("_deficit")).alias("tn"),
        )
        .cache()
    )
    present = classes.group_by(k).agg(pl.len().cast(pl.Int64).alias("_present"))
    ukeys = list(tables.universe_keys)
    universe, universe_keys = tables.universe, tuple(ukeys)
    if set(ukeys) <= set(k):
        # one universe for the groups summed together: the pooled cells add up
        summed = sizes.join(present, on=k, how="left", nulls_equal=True).with_columns(
            (pl.col("n_classes") - pl.col("_present").fill_null(0)).alias("n_absent")
        )
    else:
        # observed classes per group, summed over a by-key: the coarser group's classes
        kept = [c for c in ukeys if c in k]
        universe, universe_keys = classes.select(*kept, CLASS).unique(), tuple(kept)
        m = universe.group_by(kept).agg(pl.len().cast(pl.Int64).alias("_m")) if kept else None
        pooled = classes.group_by(k).agg(pl.col(*CELLS).sum(), pl.len().cast(pl.Int64).alias("_present"))
        base = sizes.drop("n_classes", *CELLS).join(pooled, on=k, how="left", nulls_equal=True)
        base = (
            base.join(m, on=kept, how="left", nulls_equal=True)
            if m is not None
            else base.join(universe.select(pl.len().cast(pl.Int64).alias("_m")), how="cross")
        )
        absent = pl.col("_m") - pl.col("_present").fill_null(0)
        summed = base.with_columns(
            pl.col("_m").alias("n_classes"),
            absent.alias("n_absent"),
            *[pl.col(c).fill_null(0.0) for c in ("tp", "fp", "fn")],
            (pl.col("tn").fill_null(0.0) + absent * pl.col("n_examples")).alias("tn"),
        ).cache()
        # every example gains the coarser universe's new classes as true negatives
        grown = groups.join(summed.select(*k, "n_classes"), on=k, how="inner", nulls_equal=True, suffix="_c")
        grown = grown.select(
            *fine, (pl.col("n_classes_c") - pl.col("n_classes")).cast(pl.Float64).alias("_more")
        )
        profiles = _grown(tables.profiles, grown, fine, k)
        if tables.block_profiles is not None:
            fine_block = [c for c in fine if c != tables.target]
            per_block = grown.group_by(fine_block).agg(pl.col("_more").sum())
            block = _grown(tables.block_profiles, per_block, fine_block, [c for c in k if c != tables.target])
    return replace(
        tables,
        classes=classes,
        groups=summed.select(*k, *GROUP_COLUMNS),
        profiles=profiles,
        keys=tuple(k),
        block_profiles=block,
        universe=universe,
        universe_keys=universe_keys,
        pairs=_summed_pairs(tables, k),
    )


def _grown(profiles: pl.LazyFrame, more: pl.LazyFrame, fine: list[str], keys: list[str]) -> pl.LazyFrame:
    """Profiles with ``_more`` true negatives per example of each fine group, summed to ``keys``."""
    grown = _more_tn(_keyed(profiles, keys), more, fine)
    summed: pl.LazyFrame = grown.group_by([*keys, *CELLS]).agg(pl.col("n").sum())
    return summed


def _summed_pairs(tables: CellTables, keys: list[str]) -> pl.LazyFrame | None:
    """The confusion counts summed to ``keys`` (an absent class has none: they simply add up)."""
    if tables.pairs is None:
        return None
    summed: pl.LazyFrame = _keyed(tables.pairs, keys).group_by([*keys, "_yt", "_yp"]).agg(pl.col("n").sum())
    return summed


def with_groups(tables: CellTables) -> CellTables:
    """Tables with ``groups`` and a universe: complete ones (no ``groups``) get each group's classes as its universe."""
    if tables.groups is not None and tables.universe is not None:
        return tables
    keys = list(tables.keys)
    return replace(
        tables,
        groups=group_table(tables),
        universe=tables.classes.select(*keys, CLASS).unique(),
        universe_keys=tuple(keys),
    )


def add_tables(parts: Sequence[CellTables]) -> CellTables:
    """The cell tables of parts of the data (same keys and layout) added up: the cells of all their rows.

    The parts share one universe, the union of theirs (per universe key): each
    part's groups are recounted against it, a class only another part saw being
    absent from this part's groups (``n_examples`` more true negatives), and each
    of its examples gains one true negative per such class (a class no example is
    or is predicted is a true negative of every example). Parts whose universes
    have different keys (a store of an older format among them) are filled out
    first, each group its own universe. Whether the universes may differ at all
    (declared ones must agree; an observed long form must be dense) is the
    caller's to check (:class:`~aggframe.Cells`). Lazy; cost: the parts' rows.
    """
    items = [with_groups(p) for p in parts]
    if len(items) == 1:
        return items[0]
    if any(p.universe_keys != items[0].universe_keys for p in items):
        items = [
            with_groups(replace(p, classes=filled_classes(p), groups=None, universe=None)) for p in items
        ]
    first = items[0]
    uk = list(first.universe_keys)
    universe = pl.concat(
        [p.universe.select(*uk, CLASS) for p in items if p.universe is not None], how="vertical_relaxed"
    ).unique()
    m = (
        universe.group_by(uk).agg(pl.len().cast(pl.Int64).alias("_m"))
        if uk
        else universe.select(pl.len().cast(pl.Int64).alias("_m"))
    )
    recounted = [_recounted(p, m, uk) for p in items]

    def stacked(name: str) -> pl.LazyFrame | None:
        frames: list[pl.LazyFrame | None] = [getattr(p, name) for p in recounted]
        if any(f is None for f in frames):
            return None
        tagged = [
            f.with_columns(pl.lit(i, dtype=pl.Int64).alias(PART))
            for i, f in enumerate(frames)
            if f is not None
        ]
        return pl.concat(tagged, how="vertical_relaxed")

    classes, profiles = stacked("classes"), stacked("profiles")
    assert classes is not None
    assert profiles is not None
    together = replace(
        first,
        classes=classes,
        profiles=profiles,
        block_profiles=stacked("block_profiles"),
        groups=stacked("groups"),
        pairs=stacked("pairs"),
        universe=universe,
        keys=(PART, *first.keys),
        rows=None,  # not the first part's count: the parts together, not counted
    )
    return sum_to(together, first.keys)


def _recounted(tables: CellTables, m: pl.LazyFrame, uk: list[str]) -> CellTables:
    """One part's groups over the united universe (``_m`` classes per universe key): the new classes absent."""
    assert tables.groups is not None
    fine = group_keys(tables)
    sized = (
        tables.groups.join(m, on=uk, how="left", nulls_equal=True)
        if uk
        else tables.groups.join(m, how="cross")
    )
    more = (pl.col("_m") - pl.col("n_classes")).cast(pl.Float64)
    groups = sized.with_columns(
        pl.col("_m").alias("n_classes"),
        (pl.col("n_absent") + pl.col("_m") - pl.col("n_classes")).alias("n_absent"),
        (pl.col("tn") + more * pl.col("n_examples").cast(pl.Float64)).alias("tn"),
    ).select(*fine, *GROUP_COLUMNS)
    grown = sized.select(*fine, more.alias("_more")).filter(pl.col("_more") > 0)
    profiles = _more_tn(tables.profiles, grown, fine)
    block = tables.block_profiles
    if block is not None:
        bk = [c for c in fine if c != tables.target]
        block = _more_tn(block, grown.group_by(bk).agg(pl.col("_more").sum()), bk)
    return replace(tables, groups=groups, profiles=profiles, block_profiles=block)


def _more_tn(profiles: pl.LazyFrame, more: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Profiles with ``_more`` true negatives per example of each group (``keys``)."""
    return (
        profiles.join(more, on=keys, how="left", nulls_equal=True)
        .with_columns(pl.col("tn") + pl.col("_more").fill_null(0.0))
        .drop("_more")
    )


def renamed(tables: CellTables, renames: dict[str, str], names: dict[str, str]) -> CellTables:
    """The same cell tables with key columns renamed (all at once, so names may swap)."""

    def rename(lf: pl.LazyFrame | None) -> pl.LazyFrame | None:
        if lf is None:
            return None
        present = {k: v for k, v in renames.items() if k in lf.collect_schema() and k != v}
        return lf.rename(present) if present else lf

    classes, profiles = rename(tables.classes), rename(tables.profiles)
    assert classes is not None
    assert profiles is not None
    return replace(
        tables,
        classes=classes,
        profiles=profiles,
        keys=tuple(renames.get(k, k) for k in tables.keys),
        block_profiles=rename(tables.block_profiles),
        names=names,
        groups=rename(tables.groups),
        universe=rename(tables.universe),
        universe_keys=tuple(renames.get(k, k) for k in tables.universe_keys),
        pairs=rename(tables.pairs),
    )


def rollup_tables(tables: CellTables, by: Sequence[str], keep: Sequence[str]) -> CellTables:
    """Sum the cell tables over the by-columns not in ``keep`` (other keys stay)."""
    rest = [k for k in tables.keys if k not in (*by, KEY_ALL)]
    return sum_to(tables, [*(keep or [KEY_ALL]), *rest])


def grain_columns(grain: str) -> tuple[str, ...]:
    """The columns of ``grain`` after its keys (:data:`GRAIN_COLUMNS`); an unknown grain is refused.

    Examples
    --------
    >>> grain_columns("pooled")
    ('tp', 'fp', 'fn', 'tn')
    """
    if grain not in GRAIN_COLUMNS:
        msg = f"unknown grain {grain!r}; valid grains: {', '.join(GRAIN_COLUMNS)}"
        raise UnknownNameError(msg)
    return GRAIN_COLUMNS[grain]


def sorted_table(tables: CellTables, grain: str) -> pl.DataFrame:
    """One cell table, collected and sorted by its keys (nulls last): ``class``, ``pooled`` or ``profiles``.

    ``class`` fills the universe (every group x every class of it:
    :func:`filled_classes`); ``pooled`` is one row per group.
    """
    keys = list(tables.keys)
    if grain == "class":
        return filled_classes(tables).sort([*keys, CLASS], nulls_last=True).collect()
    if grain == "pooled":
        out = group_table(tables).select(*keys, *CELLS)
        return out.sort(keys, nulls_last=True).collect()
    return tables.profiles.sort([*keys, *CELLS], nulls_last=True).collect()
