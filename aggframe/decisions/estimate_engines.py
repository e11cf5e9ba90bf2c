"""Renormalised estimates and the ``exemplar`` operator on DuckDB and Spark (one query on the engine).

With argmax or top-k decisions the calibrated probability of an entry is
renormalised over its example's classes, so ``q`` depends on every class of the
example and the map must be applied per row before the group-by. On DuckDB and
Spark that is done by the engine, in one query over the source:

1. the collected map (a row per class and score bin) becomes a small frame on the
   source's own engine (DuckDB: a relation on the source's connection; Spark: a
   DataFrame of the source's session) and is joined to the entries on
   ``(class, bin)``, a lookup;
2. the sum of ``q`` over each example's classes is a window (``over`` the
   by-keys and the example), and ``q`` is divided by it (a null key partitions
   like any value);
3. one group-by over ``(by-keys, [predicted class], class, bin, d, t)`` sums the
   entries, ``q``, ``q (1 - q)`` and the losses; the small result is collected and
   the bin table (and the score bins of AUROC) are sums over it in Polars.

The ``exemplar`` operator reads per-example cell profiles: two group-bys on the
engine (per example, then per profile), one query.
"""

from __future__ import annotations

from typing import Any

import narwhals as nw
import polars as pl

from aggframe._columns import CLASS_ROLE, EXAMPLE, PREFIX
from aggframe.decisions.estimate_cells import (
    BIN,
    EPS,
    LOSSES,
    PRED,
    BinTable,
    D,
    Entries,
    Losses,
    Q,
    S,
    T,
    binned,
    spread_exprs,
    with_moments,
    with_q,
)
from aggframe.intake.read_errors import reading
from aggframe.wide.engines import collect_polars, engine_of

__all__ = [
    "engine_drawn_codes",
    "engine_profiles",
    "engine_row_ids",
    "engine_table",
    "engine_with_q",
    "rows_with_q",
]

_CELLS = ("tp", "fp", "fn", "tn")


def _map_frame(ent: Entries, cmap: Any) -> nw.LazyFrame[Any]:
    """The map (class, bin, q) as a frame on the entries' own engine, the class in the entries' type."""
    table = cmap.table.select(
        pl.col("class").alias(CLASS_ROLE),
        pl.col("bin").cast(pl.Int64).alias(BIN),
        pl.col("q").cast(pl.Float64).alias(Q),
    )
    native = nw.to_native(ent.frame)
    if engine_of(ent.frame) is nw.Implementation.DUCKDB:
        small = _duckdb_frame(native, table)
    else:
        small = _spark_frame(native, table)
    dtype = ent.frame.collect_schema()[CLASS_ROLE]
    frame: nw.LazyFrame[Any] = nw.from_native(small)
    return frame.with_columns(nw.col(CLASS_ROLE).cast(dtype))


def _duckdb_frame(native: Any, table: pl.DataFrame) -> Any:
    """A relation on the source's connection (relations of two connections do not join), built from values.

    The map travels in the query's text, not by a name: a Python variable read by DuckDB's
    replacement scan would lose to a table of that name on the connection and fail where the
    connection disables replacement scans. One row per class holds its bins and ``q`` as two
    comma-separated texts (the shortest text that reads back as the same double), split and
    unnested on the engine: a few short literals to parse, whatever the map (a row per bin
    would cost DuckDB seconds to plan for tens of classes). The class is text until cast (as on Spark).
    """
    per_class = (
        table.sort(CLASS_ROLE, BIN)
        .group_by(CLASS_ROLE, maintain_order=True)
        .agg(pl.col(BIN).cast(pl.String).str.join(","), pl.col(Q).cast(pl.Float64))
    )
    rows = ", ".join(
        f"({_sql_text(cls)}, '{bins}', '{','.join(repr(float(v)) for v in values)}')"
        for cls, bins, values in per_class.iter_rows()
    )
    sql = (
        f"SELECT _c AS {_sql_name(CLASS_ROLE)}, "
        f"unnest(CAST(string_split(_b, ',') AS BIGINT[])) AS {_sql_name(BIN)}, "
        f"unnest(CAST(string_split(_q, ',') AS DOUBLE[])) AS {_sql_name(Q)} "
        f"FROM (VALUES {rows}) AS _m(_c, _b, _q)"
    )
    return native.query(f"{PREFIX}est_src", sql)


def _sql_name(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sql_text(value: Any) -> str:
    """A class as SQL text (null: NULL), cast to the entries' class type after the relation is made."""
    if value is None:
        return "CAST(NULL AS VARCHAR)"
    return "'" + str(value).replace("'", "''") + "'"


def _spark_frame(native: Any, table: pl.DataFrame) -> Any:
    """A DataFrame of the source's session (classic or Connect), the class as a string until cast."""
    spark = native.sparkSession
    rows = [(str(c), int(b), float(q)) for c, b, q in table.iter_rows()]
    schema = f"`{CLASS_ROLE}` string, `{BIN}` bigint, `{Q}` double"
    return spark.createDataFrame(rows, schema=schema)


def engine_with_q(ent: Entries, cmap: Any) -> nw.LazyFrame[Any]:
    """The entries (DuckDB, Spark) with ``BIN`` and ``Q`` (renormalised over an example if the map says so)."""
    lf = ent.frame.with_columns(binned(nw.col(S)).alias(BIN))
    if cmap.method == "none":
        lf = lf.with_columns(nw.col(S).clip(0.0, 1.0).alias(Q))
    else:
        # a class or bin the map never saw: its score. Narwhals joins have no nulls_equal; these
        # keys cannot be null (the intake refuses null classes and scores; the bin is of the score)
        on = [CLASS_ROLE, BIN]
        lf = lf.join(_map_frame(ent, cmap), on=on, how="left")  # keys never null: class, score bin
        lf = lf.with_columns(nw.col(Q).fill_null(nw.col(S)).clip(0.0, 1.0).alias(Q))
    if cmap.renormalize and not ent.binary:
        total = nw.col(Q).sum().over(*ent.keys, EXAMPLE)
        lf = lf.with_columns(nw.when(total > 0).then(nw.col(Q) / total).otherwise(nw.col(Q)).alias(Q))
        lf = lf.with_columns(nw.col(Q).clip(0.0, 1.0).alias(Q))
    return lf


def rows_with_q(ent: Entries, cmap: Any) -> nw.LazyFrame[Any]:
    """The entries with ``Q`` on the source's own engine: a gather of the map on Polars
    (:func:`~aggframe.decisions.estimate_cells.with_q`), a join on DuckDB and Spark."""
    if isinstance(nw.to_native(ent.frame), pl.LazyFrame):
        return nw.from_native(with_q(ent, cmap))
    return engine_with_q(ent, cmap)


def _row_sums(*, losses: bool) -> list[Any]:
    """Per group: entries, sum q, sum q (1 - q), and the expected and realized losses (:data:`LOSSES`)."""
    q, s, t = nw.col(Q), nw.col(S), nw.col(T)
    p = s.clip(EPS, 1.0 - EPS)
    sums = [
        nw.len().cast(nw.Float64).alias("n"),
        q.sum().alias("q_sum"),
        (q * (1.0 - q)).sum().alias("v_sum"),
        s.sum().alias("s1"),  # the scores' sum: the distribution check
    ]
    if losses:
        parts = [
            -(q * p.log() + (1.0 - q) * (1.0 - p).log()),
            q - 2.0 * q * s + s * s,
            (-(t * p.log() + (1.0 - t) * (1.0 - p).log())).fill_null(0.0),
            ((t - s) ** 2).fill_null(0.0),
            *spread_exprs(nw),  # the variances (the interval)
        ]
        sums += [e.sum().alias(name) for e, name in zip(parts, LOSSES, strict=True)]
    return sums


def engine_table(ent: Entries, cmap: Any, origin: Any, *, losses: Losses, pred: bool) -> BinTable:
    """The bin table of a renormalising map on DuckDB or Spark: one query, its small result summed in Polars.

    ``pred``: the example's predicted class as a key too (the single-label interval; argmax).
    """
    lf = engine_with_q(ent, cmap)
    if losses:
        lf = with_moments(lf, ent.keys, single_label=losses == "interval")
        losses = True
    group = [*ent.keys, CLASS_ROLE, BIN, D, T]
    if pred:
        chosen = nw.when(nw.col(D) == 1.0).then(nw.col(CLASS_ROLE)).max().over(*ent.keys, EXAMPLE)
        lf = lf.with_columns(chosen.alias(PRED))
        group.insert(len(ent.keys), PRED)
    agg = lf.group_by(group, drop_null_keys=False).agg(*_row_sums(losses=losses))
    with reading(origin):
        small = collect_polars(agg)
    small = small.with_columns(pl.col(D).cast(pl.Float64), pl.col(T).cast(pl.Float64))
    small = small.with_columns(_outside(small, cmap).alias("out"))
    sums = ["n", "q_sum", "v_sum", *(LOSSES if losses else ()), "out", "s1"]
    frame = small.group_by([c for c in group if c != BIN]).agg(pl.col(sums).sum())
    bins = small.group_by([*ent.keys, CLASS_ROLE, BIN, T]).agg(pl.col("n", "q_sum", "v_sum").sum())
    return BinTable(frame, bins, ent.keys, single_label=pred)


def _outside(small: pl.DataFrame, cmap: Any) -> pl.Series:
    """Entries outside the reference's range of their class, at the grid's resolution."""
    ranges = cmap.ece.select(
        pl.col("class").cast(small.schema[CLASS_ROLE]).alias(CLASS_ROLE),
        binned(pl.col("low")).alias("_lo"),
        binned(pl.col("high")).alias("_hi"),
    )
    got = small.select(CLASS_ROLE, BIN, "n").join(
        ranges, on=CLASS_ROLE, how="left", nulls_equal=True, maintain_order="left"
    )
    outside = ((pl.col(BIN) < pl.col("_lo")) | (pl.col(BIN) > pl.col("_hi"))).fill_null(value=False)
    return got.select((pl.col("n") * outside).alias("out")).to_series()


def engine_profiles(ent: Entries, cmap: Any, origin: Any, *, kinds: tuple[int, int]) -> pl.DataFrame:
    """Per-example cell profiles (keys..., kind, tp, fp, fn, tn, n) of the estimated and realized kinds.

    ``kinds``: the codes of the estimated and realized kinds. One query on the engine: the
    cells per example (estimated, realized, and whether it is labelled), then the count of
    each joint profile; the two kinds' counts are sums over that small table in Polars.
    """
    lf = engine_with_q(ent, cmap)
    keys = list(ent.keys)
    q, d, t = nw.col(Q), nw.col(D), nw.col(T)
    est = [q * d, (1.0 - q) * d, q * (1.0 - d), (1.0 - q) * (1.0 - d)]
    real = [t * d, (1.0 - t) * d, t * (1.0 - d), (1.0 - t) * (1.0 - d)]
    e_names, r_names = [f"_e{c}" for c in _CELLS], [f"_r{c}" for c in _CELLS]
    unlabelled = t.is_null().cast(nw.Int64)
    if ent.binary:
        per = lf.select(
            *keys,
            *[e.alias(c) for e, c in zip(est, e_names, strict=True)],
            *[e.fill_null(0.0).alias(c) for e, c in zip(real, r_names, strict=True)],
            unlabelled.alias("_u"),
        )
    else:
        per = lf.group_by([*keys, EXAMPLE], drop_null_keys=False).agg(
            *[e.sum().alias(c) for e, c in zip(est, e_names, strict=True)],
            *[e.sum().fill_null(0.0).alias(c) for e, c in zip(real, r_names, strict=True)],
            unlabelled.max().alias("_u"),
        )
    joint = per.group_by([*keys, *e_names, *r_names, "_u"], drop_null_keys=False).agg(
        nw.len().cast(nw.Float64).alias("n")
    )
    with reading(origin):
        got = collect_polars(joint)
    parts = [
        got.group_by([*keys, *e_names])
        .agg(pl.col("n").sum())
        .select(
            *keys,
            pl.lit(kinds[0], pl.Int64).alias("_kind"),
            *[pl.col(e).alias(c) for e, c in zip(e_names, _CELLS, strict=True)],
            "n",
        ),
        got.filter(pl.col("_u") == 0)
        .group_by([*keys, *r_names])
        .agg(pl.col("n").sum())
        .select(
            *keys,
            pl.lit(kinds[1], pl.Int64).alias("_kind"),
            *[pl.col(r).alias(c) for r, c in zip(r_names, _CELLS, strict=True)],
            "n",
        ),
    ]
    return pl.concat(parts, how="vertical_relaxed")


def engine_row_ids(lf: nw.LazyFrame[Any], name: str) -> nw.LazyFrame[Any]:
    """``lf`` (DuckDB, Spark) with a column ``name`` unique per row: the example of a binary layout.

    No sort and no shuffle: DuckDB numbers the rows as they stream (``row_number() OVER ()``),
    Spark with ``monotonically_increasing_id`` (unique, not consecutive: an id, not a position).
    """
    native = nw.to_native(lf)
    if engine_of(lf) is nw.Implementation.DUCKDB:
        view = f"{PREFIX}est_rows"
        sql = f"SELECT *, row_number() OVER () AS {_sql_name(name)} FROM {_sql_name(view)}"
        numbered: nw.LazyFrame[Any] = nw.from_native(native.query(view, sql))
        return numbered
    if engine_of(lf) is nw.Implementation.PYSPARK_CONNECT:
        from pyspark.sql.connect import functions as F
    else:
        from pyspark.sql import functions as F  # type: ignore[no-redef]
    with_ids: nw.LazyFrame[Any] = nw.from_native(native.withColumn(name, F.monotonically_increasing_id()))
    return with_ids


# -- multilabel draws of the exemplar interval ---------------------------------------------------

_H = f"{PREFIX}est_h"  # an entry's hash (by-keys, example, class, seed)
_W = f"{PREFIX}est_w"  # what a drawn true entry adds to its example's code
#: a draw's column in the per-example table (``DRAW_COLUMN.format(j)``), its name in the counts
DRAW_COLUMN = "_d{}"
_U53 = 1.0 / (1 << 53)


def engine_drawn_codes(
    lf: nw.LazyFrame[Any], keys: list[str], *, base: int, draws: range, seed: int, origin: Any
) -> pl.DataFrame:
    """Multilabel draws on DuckDB or Spark: per (group, k, C, draw, code) the examples ``n`` (collected).

    The method of the Polars draws (:func:`~aggframe.decisions.estimate_exemplar.multilabel_draws`)
    with the engine's own hash: an entry's hash of (by-keys, example, class, seed) (DuckDB
    ``hash``, Spark ``xxhash64``), hashed again with the draw (DuckDB: the hash of the entry's
    hash xor a constant of the draw; Spark: ``xxhash64`` of both); its top 53 bits are a uniform
    ``u`` and the entry is true in that draw when ``u < q``. A drawn true entry adds ``base``
    (predicted) or 1 (unpredicted) to its example's code; one group-by per example sums the
    codes of every draw of the block (a column each), the per-example table is unpivoted and
    counted per (group, k, C, draw, code) on the engine: one query, a small result. The engines'
    hashes differ, so the draws differ from Polars' (equal in distribution).
    """
    native = nw.to_native(lf)
    if engine_of(lf) is nw.Implementation.DUCKDB:
        counted = _duckdb_draws(native, keys, base=base, draws=draws, seed=seed)
    else:
        counted = _spark_draws(native, keys, base=base, draws=draws, seed=seed, engine=engine_of(lf))
    with reading(origin):
        return collect_polars(nw.from_native(counted))


def _draw_constant(draw: int) -> int:
    """A 64-bit constant per draw (multiples of the golden ratio's): xor-ed into the entry's hash,
    then hashed again. (DuckDB's ``hash(h, j)`` combines ``h`` and ``hash(j)`` by a xor, so the
    uniforms of one entry in two draws shared their top bits: correlated draws, a narrow interval.)"""
    return ((draw + 1) * 0x9E3779B97F4A7C15) & ((1 << 64) - 1)


def _duckdb_draws(native: Any, keys: list[str], *, base: int, draws: range, seed: int) -> Any:
    view = f"{PREFIX}est_draw_src"
    k = ", ".join(_sql_name(c) for c in keys)
    q, d = _sql_name(Q), _sql_name(D)
    h, w = _sql_name(_H), _sql_name(_W)
    codes = ", ".join(
        f"CAST(sum(CASE WHEN CAST(hash(xor({h}, CAST({_draw_constant(j)} AS UBIGINT))) >> 11 AS DOUBLE) "
        f"* {_U53!r} < {q} THEN {w} ELSE 0 END) "
        f"AS BIGINT) AS {_sql_name(DRAW_COLUMN.format(j))}"
        for j in draws
    )
    names = ", ".join(_sql_name(DRAW_COLUMN.format(j)) for j in draws)
    sql = (
        f"WITH e AS (SELECT {k}, {_sql_name(EXAMPLE)}, {q}, {d}, "
        f"hash({k}, {_sql_name(EXAMPLE)}, {_sql_name(CLASS_ROLE)}, {int(seed)}) AS {h}, "
        f"CASE WHEN {d} = 1.0 THEN {int(base)} ELSE 1 END AS {w} FROM {_sql_name(view)}), "
        f"per AS (SELECT {k}, CAST(sum({d}) AS DOUBLE) AS _k, CAST(count(*) AS DOUBLE) AS _c, {codes} "
        f"FROM e GROUP BY {k}, {_sql_name(EXAMPLE)}) "
        f"SELECT {k}, _k, _c, _draw, _x, CAST(count(*) AS DOUBLE) AS n "
        f"FROM (UNPIVOT per ON {names} INTO NAME _draw VALUE _x) GROUP BY {k}, _k, _c, _draw, _x"
    )
    return native.query(view, sql)


def _spark_draws(
    native: Any, keys: list[str], *, base: int, draws: range, seed: int, engine: nw.Implementation
) -> Any:
    if engine is nw.Implementation.PYSPARK_CONNECT:
        from pyspark.sql.connect import functions as F
    else:
        from pyspark.sql import functions as F  # type: ignore[no-redef]
    cols = [F.col(c) for c in keys]
    h = F.xxhash64(*cols, F.col(EXAMPLE), F.col(CLASS_ROLE), F.lit(int(seed)))
    entries = native.select(
        *cols,
        F.col(EXAMPLE),
        F.col(Q),
        F.col(D),
        h.alias(_H),
        F.when(F.col(D) == 1.0, F.lit(int(base))).otherwise(F.lit(1)).alias(_W),
    )
    mask = F.lit((1 << 53) - 1)
    codes = [
        F.sum(
            F.when(
                F.xxhash64(F.col(_H), F.lit(j)).bitwiseAND(mask).cast("double") * F.lit(_U53) < F.col(Q),
                F.col(_W),
            ).otherwise(F.lit(0))
        )
        .cast("bigint")
        .alias(DRAW_COLUMN.format(j))
        for j in draws
    ]
    per = entries.groupBy(*cols, F.col(EXAMPLE)).agg(
        F.sum(F.col(D)).cast("double").alias("_k"), F.count(F.lit(1)).cast("double").alias("_c"), *codes
    )
    ids = [*keys, "_k", "_c"]
    long = per.unpivot(ids, [DRAW_COLUMN.format(j) for j in draws], "_draw", "_x")
    return long.groupBy(*[F.col(c) for c in ids], F.col("_draw"), F.col("_x")).agg(
        F.count(F.lit(1)).cast("double").alias("n")
    )
