"""The one reduction: cell tables -> report rows, with the one convention resolution.

=========  ==========================  ==========================================
operator   entries (one value each)     averaged with weights
=========  ==========================  ==========================================
micro      pooled cells per group       (one entry)
macro      class cells                  1
weighted   class cells                  support ``tp + fn``
exemplar   cell profiles                multiplicity ``n`` (examples sharing it)
binary     the positive class's cells   (one entry)
=========  ==========================  ==========================================

Every measure is evaluated once per entry, and one ``group_by(keys)`` per kind
of entry gives each group's *sufficient sums* (per measure: the number of
entries and of defined ones, the sum of the values, and the same weighted), as
columns of one row per group: never a loop over groups, and never a table of
entries x measures. A class absent from a group has the cells ``(0, 0, 0, N)``
(``N`` the group's examples), so the group's ``n_absent`` absent classes are one
entry of that multiplicity: ``M(0, 0, 0, N)`` is evaluated once per group and
enters the sums ``n_absent`` times (with weight 0: its support is 0). The
numbers are those of the universe filled out, at the cost of the pairs that occur.

Conventions for undefined entries (null values):

``exclude``  mean over defined entries; NaN when none is defined
``zero``     undefined entries count as 0
``one``      undefined entries count as 1
``nan``      NaN as soon as one entry is undefined

Under ``weighted``, when the support of the counted entries sums to zero, the
uniform mean of those entries is used (aggmetrics 0.2.0 raises
``ZeroDivisionError`` there).

Every average of the package resolves its undefined entries here: over classes
and examples (:func:`reduce_wide`), over targets
(:mod:`~aggframe.operators.targets`) and one entry at a time
(:func:`resolve_entry`, for per-class reports).

The rows come out as *blocks* (:class:`Wide`): one row per group (later also per
fold, pooling and grouping set), sorted by its keys, holding the values of every
measure x operator x convention (its *slots*) in columns. :func:`tidy` turns the
blocks into the report's rows by exploding the slots in place, so the report's
order (keys, then measure, operator and convention as asked) is built, not
sorted: only the blocks are ever sorted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import polars as pl

from aggframe._columns import CELLS, CLASS, KEY_ALL, RESULT_COLUMNS
from aggframe._options import Convention
from aggframe.exceptions import OptionError
from aggframe.measures.measure import Measure
from aggframe.operators.classes import exact_classes
from aggframe.tables.cells import CellTables, group_keys, group_table, small_tables

__all__ = [
    "EXAMPLES",
    "NAN",
    "SLOT_ROW_COLUMNS",
    "SOURCE",
    "Slot",
    "Wide",
    "as_rows",
    "entries_col",
    "measure_columns",
    "one_layout",
    "reduce_tables",
    "reduce_wide",
    "resolve",
    "resolve_entry",
    "resolve_mean",
    "tidy",
    "undefined_col",
    "value_col",
]


NAN = pl.lit(float("nan"), dtype=pl.Float64)


#: What an undefined entry counts as under each filling convention (``exclude`` leaves it out).
_FILL: dict[str, float] = {"zero": 0.0, "one": 1.0, "nan": float("nan")}


def resolve_entry(value: pl.Expr, convention: Convention) -> pl.Expr:
    """One entry's value under the convention (undefined = null): filled, or left null by ``exclude``."""
    fill = _FILL.get(convention)
    return value if fill is None else value.fill_null(fill)


def resolve(
    convention: str,
    n_tot: pl.Expr,
    n_def: pl.Expr,
    sv_n: pl.Expr,
    *,
    weights: tuple[pl.Expr, pl.Expr, pl.Expr] | None = None,
) -> pl.Expr:
    """The value of one (measure, operator, group) from its sufficient sums, for one convention.

    ``n_*`` sum multiplicities, ``weights`` = ``(w_tot, w_def, sv_w)`` sum
    multiplicity x weight (the ``n_*`` when the weights are uniform), ``sv_*`` sum value x those, ``*_def`` over
    defined entries only. A filled convention adds its constant for the
    undefined remainder; a zero total weight falls back to the uniform mean of
    the counted entries.
    """
    w_tot, w_def, sv_w = weights if weights is not None else (n_tot, n_def, sv_n)
    if convention in ("zero", "one"):
        fill = _FILL[convention]
        num_w, den_w = sv_w + fill * (w_tot - w_def), w_tot
        num_n, den_n = sv_n + fill * (n_tot - n_def), n_tot
    else:
        num_w, den_w, num_n, den_n = sv_w, w_def, sv_n, n_def
    if weights is None:
        value = pl.when(den_n > 0).then(num_n / den_n).otherwise(NAN)
    else:
        value = pl.when(den_w > 0).then(num_w / den_w).when(den_n > 0).then(num_n / den_n).otherwise(NAN)
    if convention == "nan":
        value = pl.when(n_tot > n_def).then(NAN).otherwise(value)
    return value.cast(pl.Float64)


def resolve_mean(convention: pl.Expr) -> pl.Expr:
    """:func:`resolve` for a convention held in a column, over the columns ``n_tot``, ``n_def``, ``sv_n``, ``w_*``."""
    n_tot, n_def, sv_n, w_tot, w_def, sv_w = (
        pl.col(c) for c in ("n_tot", "n_def", "sv_n", "w_tot", "w_def", "sv_w")
    )
    weights = (w_tot, w_def, sv_w)
    out = (
        pl.when(convention == "exclude")
        .then(resolve("exclude", n_tot, n_def, sv_n, weights=weights))
        .when(convention == "zero")
        .then(resolve("zero", n_tot, n_def, sv_n, weights=weights))
        .when(convention == "one")
        .then(resolve("one", n_tot, n_def, sv_n, weights=weights))
        .when(convention == "nan")
        .then(resolve("nan", n_tot, n_def, sv_n, weights=weights))
    )
    return out.otherwise(NAN)


# ---------------------------------------------------------------------------
# Blocks of report rows


@dataclass(frozen=True)
class Slot:
    """One value of every block: a measure under an operator and a convention."""

    measure: str
    operator: str
    convention: str


#: The column of a block holding its number of examples (``n_examples`` of the report's rows).
EXAMPLES = "_nx"


def value_col(j: int) -> str:
    return f"_v{j}"


def entries_col(j: int) -> str:
    return f"_e{j}"


def undefined_col(j: int) -> str:
    return f"_u{j}"


#: The columns of a slot's row in :attr:`Wide.rows` blocks.
SLOT_ROW_COLUMNS = ("_slot", "value", "n_entries", "n_undefined")


def slot_columns(n: int) -> list[str]:
    """The columns of ``n`` slots, in order."""
    return [c for j in range(n) for c in (value_col(j), entries_col(j), undefined_col(j))]


@dataclass(frozen=True)
class Wide:
    """Report rows in blocks: one row per block, its slots' values in columns.

    ``frame`` holds the block columns ``keys`` (private names; the stand-in key
    is dropped by :func:`tidy`), then for each slot ``j`` its value ``_v{j}``,
    ``n_entries`` ``_e{j}`` and ``n_undefined`` ``_u{j}``. Rows are in report order.
    With ``examples``, the frame also holds each block's number of examples
    (:data:`EXAMPLES`), reported as ``n_examples``.

    With ``rows`` (:func:`~aggframe.operators.reduce_rows.reduce_rows`), the slots
    are rows instead: the frame holds the keys (and the examples), then ``_slot``
    (the position in ``slots``), ``value``, ``n_entries`` and ``n_undefined``, one
    row per block and slot, in report order. :func:`tidy`,
    :func:`~aggframe.operators.report.with_examples`, the folds
    (:func:`~aggframe.operators.folds.fold_report`) and the grouping sets
    (:func:`~aggframe.operators.report.report_blocks`) read such blocks; the
    rest (targets, merged parts, pairs without a definition) read slot columns.
    """

    frame: pl.LazyFrame
    keys: tuple[str, ...]
    slots: tuple[Slot, ...]
    examples: bool = False
    rows: bool = False

    def with_frame(self, frame: pl.LazyFrame, keys: Sequence[str] | None = None) -> Wide:
        keys = self.keys if keys is None else tuple(keys)
        return Wide(frame=frame, keys=keys, slots=self.slots, examples=self.examples, rows=self.rows)

    def slot_columns(self) -> list[str]:
        """The columns after the keys and the extra ones: the slots' columns, or their rows'."""
        return list(SLOT_ROW_COLUMNS) if self.rows else slot_columns(len(self.slots))

    def extra(self) -> list[str]:
        """The block columns beside the keys and slots (the number of examples, when carried)."""
        return [EXAMPLES] if self.examples else []


def tidy(wide: Wide) -> pl.LazyFrame:
    """The report's rows: each block's slots exploded in place, in slot order (no sort).

    block columns..., measure, operator, convention, value, n_entries, n_undefined
    (and ``n_examples`` when the blocks carry it).
    """
    blocks = [c for c in wide.keys if c != KEY_ALL]
    rows = wide.frame if wide.rows else _exploded(wide, blocks)

    def label(values: list[str]) -> pl.Expr:
        return pl.lit(pl.Series(values, dtype=pl.String)).gather(pl.col("_slot"))

    return rows.select(
        *blocks,
        label([s.measure for s in wide.slots]).alias("measure"),
        label([s.operator for s in wide.slots]).alias("operator"),
        label([s.convention for s in wide.slots]).alias("convention"),
        pl.col("value").cast(pl.Float64),
        pl.col("n_entries").cast(pl.Int64),
        pl.col("n_undefined").cast(pl.Int64),
        *([pl.col(EXAMPLES).round().cast(pl.Int64).alias("n_examples")] if wide.examples else []),
    )


def as_rows(wide: Wide) -> Wide:
    """The blocks with their slots as rows (the layout of :attr:`Wide.rows`), in slot order."""
    if wide.rows:
        return wide
    frame = _exploded(wide, list(wide.keys)).select(*wide.keys, *wide.extra(), *SLOT_ROW_COLUMNS)
    return Wide(frame=frame, keys=wide.keys, slots=wide.slots, examples=wide.examples, rows=True)


def one_layout(parts: Sequence[Wide]) -> list[Wide]:
    """Blocks reduced apart (folds, grouping sets: each reduction chose its layout) in one
    layout: all rows when one is (the others exploded), else as they are."""
    if any(p.rows for p in parts):
        return [as_rows(p) for p in parts]
    return list(parts)


def _exploded(wide: Wide, blocks: list[str]) -> pl.LazyFrame:
    """The slot columns of each block exploded into rows in slot order, their position ``_slot``."""
    n = len(wide.slots)
    values = [pl.col(value_col(j)) for j in range(n)]
    entries = [pl.col(entries_col(j)) for j in range(n)]
    undefined = [pl.col(undefined_col(j)) for j in range(n)]
    # fixed-width arrays explode by a reshape of the values (concat_list builds offsets row by row)
    rows = wide.frame.select(
        *blocks,
        *wide.extra(),
        pl.concat_arr(values).alias("value"),
        pl.concat_arr(entries).alias("n_entries"),
        pl.concat_arr(undefined).alias("n_undefined"),
    ).explode(["value", "n_entries", "n_undefined"])
    position = (pl.int_range(pl.len(), dtype=pl.UInt32) % n).alias("_slot")
    return rows.with_columns(position)


# ---------------------------------------------------------------------------
# The reduction


#: Which entries each operator averages.
SOURCE = {
    "micro": "pooled",
    "macro": "class",
    "weighted": "class",
    "exemplar": "profile",
    "binary": "positive",
}


def reduce_tables(
    tables: CellTables,
    measures: Sequence[Measure],
    operators: Sequence[str],
    conventions: Sequence[str],
) -> pl.LazyFrame:
    """Every measure x operator x convention of one set of cell tables, tidy (see :func:`reduce_wide`)."""
    wide = reduce_wide(tables, measures, operators, conventions)
    visible = [k for k in tables.keys if k != KEY_ALL]
    return tidy(wide).select(*visible, *RESULT_COLUMNS)


def reduce_wide(
    tables: CellTables,
    measures: Sequence[Measure],
    operators: Sequence[str],
    conventions: Sequence[str],
    *,
    pos_label: Any = None,
    class_dtype: pl.DataType | None = None,
) -> Wide:
    """Every measure x operator x convention of one set of cell tables: one block per group.

    Each kind of entry (pooled cells, class cells, profiles, the positive
    class) is grouped once by the keys, with every measure's sufficient sums as
    columns; the absent classes enter in closed form. The blocks are sorted by
    the keys (nulls last). The ``binary`` operator needs ``pos_label`` and the
    class dtype.
    """
    k = list(tables.keys)
    ms = list(measures)
    ops = list(operators)
    sources = {SOURCE[op] for op in ops}
    # every entry of every kind, each measure's value a column (over small tables: evaluated once)
    entries = _entries(tables, k, ms, sources)
    # one row per group, every group (the pooled cells and the absent classes' sums)
    pooled = _pooled_sums(entries, k, ms, absent="class" in sources, block=set(group_keys(tables)) != set(k))
    pooled = pooled.cache()
    every = pooled.select(k)
    parts: list[pl.LazyFrame] = []
    if sources & {"pooled", "class"}:
        parts.append(pooled)
    if "class" in sources:
        parts.append(_class_sums(entries, k, ms, every, weighted="weighted" in ops))
    if "profile" in sources:
        parts.append(_profile_sums(entries, k, ms, every))
    if "positive" in sources:
        if class_dtype is None:
            msg = "the binary operator needs the class dtype"
            raise OptionError(msg)
        parts.append(_positive_values(tables, k, ms, pos_label, class_dtype))
    # every part has one row per group, sorted by the keys (the pooled sums already are): side
    # by side, no join. The first part is the profiles or the positive class's values when no
    # operator reads the pooled sums: sorted too (unsorted, the columns were other groups')
    ordered = [p if p is pooled else p.sort(k, nulls_last=True) for p in parts]
    base = pl.concat([ordered[0], *[p.drop(k) for p in ordered[1:]]], how="horizontal")
    # the sums each (measure, operator) shares across conventions, once, as plain
    # columns; then each slot's value is a small expression of them (a report of
    # 21 measures x 4 operators x 4 conventions is 336 slots: the plan stays small)
    shared, counts, columns = _slot_exprs(len(ms), tuple(ops), tuple(conventions))
    slots = tuple(Slot(m.name, op, conv) for m in ms for op in ops for conv in conventions)
    frame = base.select(*k, *shared).with_columns(counts).select(*k, *columns)
    return Wide(frame=frame, keys=tuple(k), slots=slots)


@lru_cache(maxsize=64)
def _slot_exprs(
    n_measures: int, ops: tuple[str, ...], conventions: tuple[str, ...]
) -> tuple[tuple[pl.Expr, ...], tuple[pl.Expr, ...], tuple[pl.Expr, ...]]:
    """The slot columns of :func:`reduce_wide` (they read the measures' positions, not the measures).

    ``(shared sums, counts, slot columns)``: per (measure, operator) its sums and
    ``n_entries``/``n_undefined`` once; per slot (measure, operator, convention,
    in that order) its value, entries and undefined columns. Cached: a report
    builds them once per shape, not once per call.
    """
    shared: list[pl.Expr] = []
    counts: list[pl.Expr] = []
    columns: list[pl.Expr] = []
    j = 0
    for i in range(n_measures):
        for op in ops:
            s = f"_{i}_{op}"
            n_tot, n_def, sv_n, weights = _sums(op, i)
            shared += [
                n_tot.cast(pl.Float64).alias(f"_nt{s}"),
                n_def.cast(pl.Float64).alias(f"_nd{s}"),
                sv_n.cast(pl.Float64).alias(f"_sn{s}"),
            ]
            if weights is not None:
                shared += [
                    w.cast(pl.Float64).alias(f"{name}{s}")
                    for w, name in zip(weights, ("_wt", "_wd", "_sw"), strict=True)
                ]
            nt, nd, sn = pl.col(f"_nt{s}"), pl.col(f"_nd{s}"), pl.col(f"_sn{s}")
            w = None if weights is None else (pl.col(f"_wt{s}"), pl.col(f"_wd{s}"), pl.col(f"_sw{s}"))
            counts += [
                nt.round().cast(pl.Int64).alias(f"_E{s}"),
                (nt - nd).round().cast(pl.Int64).alias(f"_U{s}"),
            ]
            for conv in conventions:
                columns += [
                    resolve(conv, nt, nd, sn, weights=w).alias(value_col(j)),
                    pl.col(f"_E{s}").alias(entries_col(j)),
                    pl.col(f"_U{s}").alias(undefined_col(j)),
                ]
                j += 1
    # tuples: the cache hands the same value to every caller
    return tuple(shared), tuple(counts), tuple(columns)


def _sums(op: str, i: int) -> tuple[pl.Expr, pl.Expr, pl.Expr, tuple[pl.Expr, pl.Expr, pl.Expr] | None]:
    """(n_entries, n_defined, sum of values, weighted sums or None) of measure ``i`` under one operator."""
    f64 = pl.Float64
    if op in ("micro", "binary"):
        v = pl.col(f"_pv{i}" if op == "micro" else f"_bv{i}")
        return pl.lit(1.0, dtype=f64), v.is_not_null().cast(f64), v.fill_null(0.0), None
    if op == "exemplar":
        return (
            pl.col("_en").fill_null(0.0),
            pl.col(f"_ed{i}").fill_null(0.0),
            pl.col(f"_es{i}").fill_null(0.0),
            None,
        )
    # macro and weighted: the classes that occur, plus the absent ones in closed form
    n_tot = pl.col("_cn") + pl.col("_a")
    n_def = pl.col(f"_cd{i}").fill_null(0).cast(f64) + pl.col(f"_ad{i}")
    sv_n = pl.col(f"_cs{i}").fill_null(0.0) + pl.col(f"_as{i}")
    if op == "macro":
        return n_tot, n_def, sv_n, None
    # weighted: an absent class has support 0, so it adds to the uniform sums only
    w_tot = pl.col("_cw")
    w_def, sv_w = pl.col(f"_cwd{i}").fill_null(0.0), pl.col(f"_cws{i}").fill_null(0.0)
    return n_tot, n_def, sv_n, (w_tot, w_def, sv_w)


#: The kinds of entries in :func:`_entries` (column :data:`_KIND`).
_POOLED, _ABSENT, _CLASS, _PROFILE = 0, 1, 2, 3
_KIND = "_kind"


def _entries(
    tables: CellTables, k: list[str], ms: list[Measure], sources: set[str]
) -> dict[int, pl.LazyFrame]:
    """Every entry the operators read, by kind, each measure's value a column ``_x{i}``.

    ``_POOLED``: each group's pooled cells, with its absent classes' count and the
    classes that occur and their support (``_a``, ``_cn``, ``_cw``); ``_ABSENT``:
    one per group (per group of the ``groups`` table: a block view keeps the
    target), its absent classes' cells ``(0, 0, 0, N)``; ``_CLASS``: the class
    cells; ``_PROFILE``: the cell profiles and their ``n``.

    Over small kept tables (:attr:`~aggframe.tables.cells.CellTables.rows` at most
    :data:`~aggframe.tables.cells.SMALL_TABLES`) the kinds are one table (a kind
    column :data:`_KIND`) and each measure is evaluated once over all of them: one
    expression per measure in the plan, not one per kind of entry (21 measures x 4
    operators over 100 classes: 22 against 31 ms; planning is the cost there). Over
    larger or lazy tables each kind is evaluated on its own: stacking copies the rows
    (10^6 groups, 4 measures: +3% for the narrow step; benchmarks/NOTES_latency.md).
    """
    f64 = pl.Float64
    fine = group_keys(tables)
    g = group_table(tables).select(
        *fine,
        *[pl.col(c).cast(f64) for c in CELLS],
        pl.col("n_absent").cast(f64).alias("_a"),
        pl.col("n_examples").cast(f64),
        # the classes that occur, and their support (an absent class has none)
        (pl.col("n_classes") - pl.col("n_absent")).cast(f64).alias("_cn"),
        (pl.col("tp") + pl.col("fn")).cast(f64).alias("_cw"),
    )
    sums = ["_a", "_cn", "_cw"]
    # a block view: the targets' groups sum into one
    pooled = g.group_by(k).agg(pl.col(*CELLS, *sums).sum()) if set(fine) != set(k) else g
    parts = {_POOLED: pooled.select(*k, *CELLS, *sums)}
    if "class" in sources:
        zero = pl.lit(0.0, dtype=f64)
        absent = [zero.alias("tp"), zero.alias("fp"), zero.alias("fn"), pl.col("n_examples").alias("tn")]
        parts[_ABSENT] = g.select(*fine, *absent, "_a")
        parts[_CLASS] = tables.classes.select(*k, *CELLS)
    if "profile" in sources:
        parts[_PROFILE] = tables.profiles.select(*k, *CELLS, "n")
    measures = measure_columns(tuple(ms))
    if not small_tables(tables):
        return {kind: part.with_columns(measures) for kind, part in parts.items()}
    tagged = [part.with_columns(pl.lit(kind, dtype=pl.Int8).alias(_KIND)) for kind, part in parts.items()]
    stacked = pl.concat(tagged, how="diagonal_relaxed").with_columns(measures).cache()
    return {kind: stacked.filter(pl.col(_KIND) == kind) for kind in parts}


@lru_cache(maxsize=64)
def measure_columns(ms: tuple[Measure, ...]) -> tuple[pl.Expr, ...]:
    """Each measure's value over the cells, a column ``_x{i}`` (built once per list of measures)."""
    return tuple(_expr(m).alias(f"_x{i}") for i, m in enumerate(ms))


def _pooled_sums(
    entries: dict[int, pl.LazyFrame], k: list[str], ms: list[Measure], *, absent: bool, block: bool
) -> pl.LazyFrame:
    """Per group, sorted by the keys: micro's values (``_pv{i}``), the absent classes' count and sums
    (``_a``, ``_ad{i}``, ``_as{i}``), and the classes that occur and their support (``_cn``, ``_cw``)."""
    micro, terms = _pooled_terms(len(ms))
    pooled = entries[_POOLED].select(*k, "_a", "_cn", "_cw", *micro).sort(k, nulls_last=True)
    if not absent:
        return pooled
    sums = entries[_ABSENT].select(*k, *terms)
    if block:
        sums = sums.group_by(k).agg(pl.all().exclude(k).sum())
    sums = sums.sort(k, nulls_last=True)
    ordered = ["_a", *[f"_ad{i}" for i in range(len(ms))], *[f"_as{i}" for i in range(len(ms))], "_cn", "_cw"]
    both = pl.concat([pooled, sums.drop(k)], how="horizontal")
    return both.select(*k, *ordered, *[f"_pv{i}" for i in range(len(ms))])


@lru_cache(maxsize=64)
def _pooled_terms(n: int) -> tuple[tuple[pl.Expr, ...], tuple[pl.Expr, ...]]:
    """Micro's values ``_pv{i}``, and the absent classes' terms: one entry per group for its
    absent classes, cells (0, 0, 0, N), multiplicity ``_a`` (built once per number of measures)."""
    values = [pl.col(f"_x{i}") for i in range(n)]
    a = pl.col("_a")
    terms = (
        *[pl.when(v.is_not_null()).then(a).otherwise(0.0).alias(f"_ad{i}") for i, v in enumerate(values)],
        *[(v * a).fill_null(0.0).alias(f"_as{i}") for i, v in enumerate(values)],
    )
    return tuple(v.alias(f"_pv{i}") for i, v in enumerate(values)), terms


def _class_sums(
    entries: dict[int, pl.LazyFrame], k: list[str], ms: list[Measure], every: pl.LazyFrame, *, weighted: bool
) -> pl.LazyFrame:
    """Per group, over the classes that occur: per measure the sums (their count and support are the groups').

    The per-entry terms are columns before the group-by, so it only sums (Polars'
    fast path); ``every`` adds one empty row per group, so no group is missing.
    The number of summed columns is what this group-by costs (one random access
    per class and column): the counts of classes and their support come from the
    ``groups`` table instead (:func:`_pooled_sums`).
    """
    terms, counts = _class_terms(len(ms), weighted=weighted)
    rows = entries[_CLASS].select(*k, *terms)
    stacked = pl.concat([rows, every], how="diagonal_relaxed")
    return stacked.group_by(k).agg(*counts, pl.all().exclude(k).sum())


@lru_cache(maxsize=64)
def _class_terms(n: int, *, weighted: bool) -> tuple[tuple[pl.Expr, ...], tuple[pl.Expr, ...]]:
    """The per-class terms of :func:`_class_sums` and the counts of defined values (built once per shape)."""
    support = (pl.col("tp") + pl.col("fn")).cast(pl.Float64)
    values = [pl.col(f"_x{i}") for i in range(n)]
    terms: list[pl.Expr] = [v.alias(f"_cs{i}") for i, v in enumerate(values)]
    if weighted:
        for i, v in enumerate(values):
            terms += [
                pl.when(v.is_not_null()).then(support).alias(f"_cwd{i}"),
                (v * support).alias(f"_cws{i}"),
            ]
    # the defined values are counted (a null value is undefined), the rest summed
    counts = tuple(pl.col(f"_cs{i}").count().alias(f"_cd{i}") for i in range(n))
    return tuple(terms), counts


def _profile_sums(
    entries: dict[int, pl.LazyFrame], k: list[str], ms: list[Measure], every: pl.LazyFrame
) -> pl.LazyFrame:
    """Per group, over the cell profiles: examples (``_en``), and per measure the sums weighted by ``n``."""
    rows = entries[_PROFILE].select(*k, *_profile_terms(len(ms)))
    stacked = pl.concat([rows, every], how="diagonal_relaxed")
    return stacked.group_by(k).agg(pl.all().exclude(k).sum())


@lru_cache(maxsize=64)
def _profile_terms(n_measures: int) -> tuple[pl.Expr, ...]:
    """The per-profile terms of :func:`_profile_sums` (built once per number of measures)."""
    n = pl.col("n").cast(pl.Float64)
    terms = [n.alias("_en")]
    for i in range(n_measures):
        v = pl.col(f"_x{i}")
        terms += [pl.when(v.is_not_null()).then(n).alias(f"_ed{i}"), (v * n).alias(f"_es{i}")]
    return tuple(terms)


def _positive_values(
    tables: CellTables, k: list[str], ms: list[Measure], pos_label: Any, dtype: pl.DataType
) -> pl.LazyFrame:
    """The binary operator's values per group (``_bv{i}``): the positive class's cells, absent or not.

    As in scikit-learn and Lodestar.Metrics, a call written for two classes and
    later fed three raises instead of silently averaging. Fewer than two classes
    (a cross-validation fold, a day where one class never occurs) is binary data
    too, as in scikit-learn's ``average='binary'``: an absent positive class has
    no true or predicted positives (tp = fp = fn = 0), and the convention resolves
    what that leaves undefined.
    """
    # the class itself, never a cast of another value (1.5 is no Int64 class 1): refused
    positive = pl.lit(exact_classes([pos_label], dtype, option="pos_label")[0], dtype=dtype)
    groups = group_table(tables).select(*k, "n_examples", "n_classes")
    universe = tables.universe if tables.universe is not None else tables.classes.select(CLASS)

    def check_sizes(frame: pl.DataFrame) -> pl.DataFrame:
        many = frame.filter(pl.col("n_classes") > 2)
        if many.height:
            m = int(many["n_classes"][0])
            found = universe.select(CLASS).unique().sort(CLASS).head(5).collect()[CLASS].to_list()
            msg = (
                f"the binary operator reports the positive class only and needs at most two classes, "
                f"but found {m} (e.g. {found!r}); name the averaging you meant: 'macro', 'weighted' or 'micro'"
            )
            raise OptionError(msg)
        return frame

    def check_positive(frame: pl.DataFrame) -> pl.DataFrame:
        # two classes without the positive one: pos_label names neither (one class: it is absent)
        if int(frame["_has"][0]) == 0 and int(frame["_m"][0]) >= 2:
            listed = universe.select(CLASS).unique().sort(CLASS).collect()[CLASS].to_list()
            msg = f"pos_label {pos_label!r} is not one of the two classes {listed!r}"
            raise OptionError(msg)
        return frame

    has = universe.select(
        (pl.col(CLASS) == positive).sum().alias("_has"), pl.col(CLASS).n_unique().alias("_m")
    ).map_batches(check_positive)
    checked = groups.map_batches(check_sizes).join(has, how="cross").drop("_has", "_m")
    cells = tables.classes.filter(pl.col(CLASS) == positive).select(*k, *CELLS)
    filled = checked.join(cells, on=k, how="left", nulls_equal=True).with_columns(
        pl.col("tp", "fp", "fn").fill_null(0.0),
        pl.col("tn").fill_null(pl.col("n_examples").cast(pl.Float64)),
    )
    return filled.select(*k, *[_expr(m).alias(f"_bv{i}") for i, m in enumerate(ms)])


@lru_cache(maxsize=1024)
def _expr(measure: Measure, tp: str = "tp", fp: str = "fp", fn: str = "fn", tn: str = "tn") -> pl.Expr:
    """A measure's expression over four cell columns, built once per measure and columns."""
    return measure.expr(tp, fp, fn, tn)
