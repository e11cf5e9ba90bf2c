"""The reduction over small kept cell tables, in rows: one row per (group, slot), no slot columns.

:func:`~aggframe.operators.reduce.reduce_wide` holds a group's slots in columns
(value, ``n_entries``, ``n_undefined`` per measure x operator x convention) and
:func:`~aggframe.operators.reduce.tidy` explodes them into rows. A report of 21
measures x 4 operators builds ~900 expressions that way, and over a few hundred
rows of kept tables planning them is the cost (benchmarks/NOTES_latency.md). Here
the same sums are rows:

1. every entry of every kind (the pooled cells, the class cells, the absent
   classes' cells ``(0, 0, 0, N)``, the profiles) is one row with its
   multiplicity ``mu`` (1, 1, ``n_absent``, ``n``) and its support weight ``w``
   (``tp + fn`` for a class that occurs, else 0), and each measure's value a column;
2. the values are unpivoted to (entry, measure) rows and one ``group_by(keys,
   source, measure)`` sums ``mu``, ``mu * defined``, ``mu * value`` and the same
   weighted by ``w`` (the sums of :func:`~aggframe.operators.reduce.resolve`);
3. the grid of every group x slot, in report order, reads its sums by a join,
   and one expression per convention resolves the value.

The same sums of the same terms as the wide reduction (over a group's classes
summed first and its absent classes added after, as there), so the same numbers
to float rounding; the number of expressions no longer grows with the slots. The
report takes it (:func:`~aggframe.operators.report.report_blocks`) for each
reduction (per fold, pooled, per grouping set) of the four averaging operators
without a target, whole-matrix measures or pairs without a definition, within the
bounds of :func:`rows_reduction`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import polars as pl

from aggframe._columns import CELLS
from aggframe._lazy import loaded
from aggframe.measures.measure import Measure
from aggframe.measures.registry import is_builtin_measure
from aggframe.operators.reduce import SOURCE, Slot, Wide, measure_columns, resolve
from aggframe.tables.cells import CellTables, group_keys, group_table, small_tables

__all__ = ["ROWS_ENTRIES", "ROWS_GRID", "reduce_rows", "rows_reduction"]

#: The code of each kind of entry the four averaging operators read
#: (:data:`~aggframe.operators.reduce.SOURCE`): micro the pooled cells, macro and
#: weighted the classes (those that occur, then the absent ones), exemplar the profiles.
_CODE = {"pooled": 0, "class": 1, "profile": 2}
_SRC, _MU, _WT, _W, _I, _V = "_src", "_mu", "_wt", "_w", "_i", "_v"
#: The slot grid's columns: the slot's position, whether it is weighted, its convention's position.
_SLOT, _WEIGHTED, _CONV = "_slot", "_wtd", "_conv"


#: The rows reduction's bounds: at most this many (entry, measure) rows ...
ROWS_ENTRIES = 200_000
#: ... and (group, slot) rows. Its cost grows with both (the unpivot and the sums; the
#: grid and its join), the slot columns' mostly with the measures: over 20 classes and
#: 21 measures x 4 operators, 2.9 against 13.9 ms for one group, 8.8 against 16.1 for
#: 100 groups, even at 400 and 49 against 24 ms at 1,000 (benchmarks/NOTES_latency.md).
ROWS_GRID = 10_000


def rows_reduction(
    tables: CellTables, operators: Sequence[str], *, n_measures: int, n_slots: int
) -> pl.DataFrame | None:
    """The groups (keys, sorted, nulls last) when :func:`reduce_rows` reduces these tables,
    else None: small kept ones, the four averaging operators, no block view (the groups table
    keyed like the tables), within the bounds :data:`ROWS_ENTRIES` and :data:`ROWS_GRID`
    (the groups are collected here, from a kept table, and are the grid's)."""
    if not (
        small_tables(tables)
        and all(SOURCE.get(op) in _CODE for op in operators)
        and set(group_keys(tables)) == set(tables.keys)
    ):
        return None
    assert tables.rows is not None  # small tables are counted
    k = list(tables.keys)
    groups = group_table(tables).select(k).sort(k, nulls_last=True).collect(engine="in-memory")
    n = groups.height
    fits = (tables.rows + 2 * n) * n_measures <= ROWS_ENTRIES and n * n_slots <= ROWS_GRID
    return groups if fits else None


def reduce_rows(
    tables: CellTables,
    groups: pl.DataFrame,
    measures: Sequence[Measure],
    operators: Sequence[str],
    conventions: Sequence[str],
) -> Wide:
    """Every measure x operator x convention of small kept tables, as rows (``Wide.rows``).

    ``groups``: the tables' groups, sorted (:func:`rows_reduction`). The frame holds
    the keys, ``_slot`` (the slot's position in ``slots``), ``value``, ``n_entries``
    and ``n_undefined``: one row per group and slot, in slot order. See the module
    docstring.
    """
    k = list(tables.keys)
    ms, ops, convs = tuple(measures), tuple(operators), tuple(conventions)
    sources = {_CODE[SOURCE[op]] for op in ops}
    entries = _with_values(_entry_rows(tables, k, sources), ms)
    values = [f"_x{i}" for i in range(len(ms))]
    long = entries.unpivot(on=values, index=[*k, _SRC, _MU, _WT, _W], variable_name=_I, value_name=_V)
    sums = long.with_columns(pl.col(_I).str.slice(2).cast(pl.UInt32)).group_by(*k, _SRC, _I).agg(_SUMS)
    grid = groups.lazy().join(_grid(len(ms), ops, convs).lazy(), how="cross", maintain_order="left_right")
    rows = grid.join(sums, on=[*k, _SRC, _I], how="left", nulls_equal=True, maintain_order="left")
    nt, nd = _SUM_COLUMNS[:2]
    frame = rows.select(
        *k,
        _SLOT,
        _value(convs, weighted="weighted" in ops).alias("value"),
        nt.round().cast(pl.Int64).alias("n_entries"),
        (nt - nd).round().cast(pl.Int64).alias("n_undefined"),
    )
    slots = tuple(Slot(m.name, op, conv) for m in ms for op in ops for conv in convs)
    return Wide(frame=frame, keys=tuple(k), slots=slots, rows=True)


def _entry_rows(tables: CellTables, k: list[str], sources: set[int]) -> pl.LazyFrame:
    """Every entry the operators read: keys, source, multiplicity, the total-support term,
    the support weight and the cells (Float64), a group's classes before its absent ones."""
    f64 = pl.Float64
    zero, one = pl.lit(0.0, dtype=f64), pl.lit(1.0, dtype=f64)
    cells = [pl.col(c).cast(f64) for c in CELLS]
    g = group_table(tables)
    parts: list[pl.LazyFrame] = []
    if 0 in sources:
        src = pl.lit(0, dtype=pl.Int8).alias(_SRC)
        parts.append(g.select(*k, src, one.alias(_MU), zero.alias(_WT), zero.alias(_W), *cells))
    if 1 in sources:
        src = pl.lit(1, dtype=pl.Int8).alias(_SRC)
        support = (pl.col("tp") + pl.col("fn")).cast(f64)
        parts.append(
            tables.classes.select(*k, src, one.alias(_MU), zero.alias(_WT), support.alias(_W), *cells)
        )
        # a group's absent classes: one entry of multiplicity n_absent, support 0; it
        # carries the group's total support (tp + fn of the pooled cells) for the
        # filled conventions of weighted
        parts.append(
            g.select(
                *k,
                src,
                pl.col("n_absent").cast(f64).alias(_MU),
                (pl.col("tp") + pl.col("fn")).cast(f64).alias(_WT),
                zero.alias(_W),
                zero.alias("tp"),
                zero.alias("fp"),
                zero.alias("fn"),
                pl.col("n_examples").cast(f64).alias("tn"),
            )
        )
    if 2 in sources:
        src = pl.lit(2, dtype=pl.Int8).alias(_SRC)
        parts.append(
            tables.profiles.select(
                *k, src, pl.col("n").cast(f64).alias(_MU), zero.alias(_WT), zero.alias(_W), *cells
            )
        )
    return pl.concat(parts, how="vertical_relaxed")


def _with_values(entries: pl.LazyFrame, ms: tuple[Measure, ...]) -> pl.LazyFrame:
    """The entries with each measure's value a column ``_x{i}``, null where undefined.

    The entries are a few hundred rows of kept tables: they are collected here and
    the built-in measures' formulas run on their NumPy arrays, the arithmetic of
    their Polars expressions (:func:`~aggframe.ops.ratio` makes a vanishing
    denominator NaN there, and NaN is read as null, as :meth:`Measure.expr` turns a
    non-finite value into null). 21 measures over 104 entries: ~1 ms, against ~4 ms
    to plan and run their expressions (benchmarks/NOTES_latency.md). A user's
    measure stays a Polars expression: its formula may be written for expressions only.
    So do all measures when NumPy is not imported yet: its import costs ~0.1 s (the command
    line's report loads no NumPy).
    """
    if not loaded("numpy"):
        return entries.with_columns(measure_columns(ms))
    frame = entries.collect(engine="in-memory", optimizations=pl.QueryOptFlags.none())
    cells = [frame.get_column(c).to_numpy() for c in CELLS]
    builtin = [is_builtin_measure(m) for m in ms]
    arrays = [
        pl.Series(f"_x{i}", m(*cells), dtype=pl.Float64, nan_to_null=True)
        for i, (m, b) in enumerate(zip(ms, builtin, strict=True))
        if b
    ]
    users = [m.expr().alias(f"_x{i}") for i, (m, b) in enumerate(zip(ms, builtin, strict=True)) if not b]
    out = frame.hstack(arrays).lazy()
    return out.with_columns(users) if users else out


#: The sufficient sums of one (group, source, measure): see :func:`~aggframe.operators.reduce.resolve`.
_DEFINED = pl.col(_V).is_not_null().cast(pl.Float64)
_VALUE = pl.col(_V).fill_null(0.0)
_SUMS = (
    pl.col(_MU).sum().alias("_nt"),
    (pl.col(_MU) * _DEFINED).sum().alias("_nd"),
    (pl.col(_MU) * _VALUE).sum().alias("_sn"),
    pl.col(_WT).sum().alias("_wt"),
    (pl.col(_W) * _DEFINED).sum().alias("_wd"),
    (pl.col(_W) * _VALUE).sum().alias("_sw"),
)


#: Those sums read back after the grid's join (0 for a (group, source, measure) without entries).
_SUM_COLUMNS = tuple(pl.col(c).fill_null(0.0) for c in ("_nt", "_nd", "_sn", "_wt", "_wd", "_sw"))


@lru_cache(maxsize=64)
def _grid(n_measures: int, ops: tuple[str, ...], convs: tuple[str, ...]) -> pl.DataFrame:
    """One row per slot in report order (measure, operator, convention): its position,
    source, measure, whether weighted and convention (built once per shape)."""
    rows = [
        (j, _CODE[SOURCE[op]], i, op == "weighted", c)
        for j, (i, op, c) in enumerate(
            (i, op, c) for i in range(n_measures) for op in ops for c in range(len(convs))
        )
    ]
    schema = {_SLOT: pl.UInt32, _SRC: pl.Int8, _I: pl.UInt32, _WEIGHTED: pl.Boolean, _CONV: pl.UInt8}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _value(convs: tuple[str, ...], *, weighted: bool) -> pl.Expr:
    """Each slot's value from its sums, for its convention (and weighting)."""
    nt, nd, sn, wt, wd, sw = _SUM_COLUMNS
    cases: list[tuple[pl.Expr, pl.Expr]] = []
    for c, conv in enumerate(convs):
        cases.append(((pl.col(_CONV) == c) & ~pl.col(_WEIGHTED), resolve(conv, nt, nd, sn)))
        if weighted:
            both = resolve(conv, nt, nd, sn, weights=(wt, wd, sw))
            cases.append(((pl.col(_CONV) == c) & pl.col(_WEIGHTED), both))
    out = pl.lit(None, dtype=pl.Float64)
    for when, then in reversed(cases):
        out = pl.when(when).then(then).otherwise(out)
    return out
