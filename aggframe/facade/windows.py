"""Windows over time: ``evaluate(..., time=, every=, period=)`` as sums of per-bucket cell tables.

A window is ``[start, start + period)`` with starts every ``every`` (Polars'
``group_by_dynamic`` words), aligned to the Unix epoch plus ``offset``. The
plan: one scan groups the cell tables by the ``by`` keys and the *bucket* of
each row (its ``every``-long slot, an integer computed on the engine), so the
expensive step costs what ``evaluate(by=[*by, day])`` costs. Each window is then
the sum of the ``period / every`` consecutive bucket tables
(:func:`~aggframe.tables.cells.sum_to` over a small bucket -> window map), on
the small cell tables, and the windowed tables are evaluated as stored cells are.
Exact for every measure of the cells and every operator: cells add up, the
per-example profiles too (an example's rows share one time), and a class
universe observed per group is recounted per window.

The measures on scores (their rank statistics need each window's score
distribution) and ``n_boot`` (each window's resamples) take another route,
also exact: each row joins the ``period / every`` windows that hold it (cost
rows x ``period / every``), and the window is one more ``by`` key of the
ordinary plan.

This module sits in the façade because :meth:`~aggframe.Predictions.evaluate`
calls it; monitoring (bands, alerts) is built on it in :mod:`aggframe.decisions.monitor`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import narwhals as nw
import polars as pl

from aggframe._columns import by_key, check_result_names
from aggframe._options import Engine, listify
from aggframe.exceptions import ColumnNotFoundError, InvalidValueError, OptionError
from aggframe.intake.partitions import partition_dtype, partition_value
from aggframe.intake.scores_long import Scored
from aggframe.intake.stored import StoredSource, read_store, source_meta, tables_source
from aggframe.tables.cells import CellTables, add_tables, group_table, sum_to

if TYPE_CHECKING:
    from aggframe.predictions import Predictions

__all__ = [
    "WINDOW_COLUMNS",
    "Window",
    "parse_duration",
    "parse_window",
    "windowed_evaluate",
]

#: The columns a windowed result adds after the by-keys.
WINDOW_COLUMNS = ("window_start", "window_end")
#: The columns ``unlabelled="count"`` adds.
LABEL_COLUMNS = ("n_labelled", "n_unlabelled", "labelled_share")

_US = {"ns": 0.001, "us": 1, "ms": 1_000, "s": 1_000_000, "m": 60_000_000, "h": 3_600_000_000}
_US.update({"d": 86_400_000_000, "w": 7 * 86_400_000_000})
_DAY = 86_400_000_000
_EPOCH = datetime(1970, 1, 1)
_PART = re.compile(r"(\d+)(ns|us|ms|mo|s|m|h|d|w|q|y)")


def parse_duration(text: str, what: str) -> int:
    """A fixed Polars duration string (``"1d"``, ``"12h"``, ``"1w2d"``) in microseconds.

    Calendar units (``mo``, ``q``, ``y``) vary in length and are refused.

    Examples
    --------
    >>> parse_duration("1d12h", "every")
    129600000000
    """
    if not isinstance(text, str) or not text or _PART.sub("", text) != "":
        msg = f"Expected {what}= to be a duration such as '1d', '12h' or '1w', got {text!r}"
        raise OptionError(msg)
    total = 0.0
    for count, unit in _PART.findall(text):
        if unit in ("mo", "q", "y"):
            msg = (
                f"{what}={text!r}: calendar units (mo, q, y) vary in length, so windows could not be "
                "sums of equal buckets; use days or weeks ('30d', '4w')"
            )
            raise OptionError(msg)
        total += int(count) * _US[unit]
    if total != int(total):
        msg = f"{what}={text!r} is not a whole number of microseconds"
        raise OptionError(msg)
    return int(total)


@dataclass(frozen=True)
class Window:
    """Parsed window options, durations in microseconds."""

    time: str
    every: int
    period: int
    offset: int
    every_text: str
    period_text: str

    @property
    def k(self) -> int:
        """How many buckets a window spans."""
        return self.period // self.every

    @property
    def whole_days(self) -> bool:
        return self.every % _DAY == 0 and self.offset % _DAY == 0 and self.period % _DAY == 0


def parse_window(time: str | None, every: str | None, period: str | None, offset: str | None) -> Window:
    """Check the window options: a time column, ``every``, ``period`` a multiple of it, ``offset``.

    Examples
    --------
    >>> parse_window("ts", "1d", "7d", None).k
    7
    """
    if not isinstance(time, str):
        msg = f"windows need time= to name a date or datetime column, got {time!r}"
        raise OptionError(msg)
    if every is None:
        msg = "windows need every= (how often a window starts, e.g. '1d')"
        raise OptionError(msg)
    step = parse_duration(every, "every")
    span = step if period is None else parse_duration(period, "period")
    shift = 0 if offset is None else _signed(offset)
    if step <= 0 or span <= 0:
        msg = f"every= and period= must be positive durations, got every={every!r}, period={period!r}"
        raise OptionError(msg)
    if span % step:
        msg = (
            f"period={period!r} is not a whole multiple of every={every!r}: windows are sums of "
            "every-long buckets; choose a period that is (e.g. every='1d', period='7d')"
        )
        raise OptionError(msg)
    return Window(time, step, span, shift % step, every, period or every)


def _signed(text: str) -> int:
    if isinstance(text, str) and text.startswith("-"):
        return -parse_duration(text[1:], "offset")
    return parse_duration(text, "offset")


# -- the bucket of a row ------------------------------------------------------------------
def _time_dtype(frame: nw.LazyFrame[Any], column: str, what: str) -> nw.dtypes.DType:
    schema = frame.collect_schema()
    if column not in schema:
        msg = f"time column {column!r} is not in the {what}; available columns: {list(schema.names())}"
        raise ColumnNotFoundError(msg)
    dtype = schema[column]
    if isinstance(dtype, nw.String) and isinstance(nw.to_native(frame), pl.LazyFrame):
        return dtype  # ISO dates as text (a hive day= key read as text): read as dates
    if not isinstance(dtype, (nw.Date, nw.Datetime)):
        msg = f"time column {column!r} must be a date or a datetime, got {dtype}"
        raise InvalidValueError(msg)
    return dtype


def _bucket_polars(expr: pl.Expr, dtype: pl.DataType, w: Window) -> pl.Expr:
    """The bucket index of a Polars date/datetime expression (tz-aware: local wall-clock time)."""
    if isinstance(dtype, pl.Date):
        micros = expr.cast(pl.Int64) * _DAY
    else:
        if getattr(dtype, "time_zone", None) is not None:
            expr = expr.dt.replace_time_zone(None)  # local wall-clock time: a DST day is one day
        micros = expr.dt.epoch("us")
    return ((micros - w.offset) // w.every).cast(pl.Int64)


def _bucket_narwhals(column: str, dtype: nw.dtypes.DType, w: Window) -> nw.Expr:
    """The bucket index on any engine (dates and datetimes, read as wall-clock time)."""
    col = nw.col(column)
    # from the calendar fields, which every engine has (and which read wall-clock time):
    # the days before January 1 of the year (Gregorian leap rule), then the day of the year
    y = col.dt.year().cast(nw.Int64) - 1
    days = 365 * (y - 1969) + y // 4 - y // 100 + y // 400 - 477 + col.dt.ordinal_day().cast(nw.Int64) - 1
    micros = days * _DAY
    if not isinstance(dtype, nw.Date):
        parts = ((col.dt.hour(), 3_600_000_000), (col.dt.minute(), 60_000_000), (col.dt.second(), 1_000_000))
        for part, scale in (*parts, (col.dt.microsecond(), 1)):
            micros = micros + part.cast(nw.Int64) * scale
    return ((micros - w.offset) // w.every).cast(nw.Int64)


def _with_bucket(frame: nw.LazyFrame[Any], w: Window, name: str) -> nw.LazyFrame[Any]:
    native = nw.to_native(frame)
    if isinstance(native, pl.LazyFrame):
        dtype = native.collect_schema()[w.time]
        return nw.from_native(native.with_columns(_bucket_polars(pl.col(w.time), dtype, w).alias(name)))
    nw_dtype = frame.collect_schema()[w.time]
    return frame.with_columns(_bucket_narwhals(w.time, nw_dtype, w).alias(name))


def _first_bucket(pr: Predictions, frame: nw.LazyFrame[Any], bucket: str) -> nw.LazyFrame[Any]:
    """Long form: every row of an example in the bucket of the example's first time.

    An example is one unit of the exemplar operator (its profile of cells) and of
    ``n_examples``: it lies in one window, that of its earliest row, not split across the
    buckets its rows fall in. A row without a time keeps its null (an error of
    :func:`check_times`). The other forms have one row per example (nothing to do).
    """
    roles = pr.source.roles()
    if pr.form != "long" or "__af_example" not in roles:
        return frame
    first = nw.col(bucket).min().over(roles["__af_example"])
    return frame.with_columns(
        nw.when(nw.col(bucket).is_null()).then(nw.col(bucket)).otherwise(first).alias(bucket)
    )


def _fresh(taken: Sequence[str], base: str) -> str:
    name = base
    while name in taken:
        name = "_" + name
    return name


# -- windows from buckets -----------------------------------------------------------------
def _window_map(buckets: pl.Series, k: int) -> pl.LazyFrame:
    """bucket -> window pairs: each bucket b lies in windows b - k + 1 .. b (those from the first bucket on)."""
    first = buckets.min()
    present = pl.DataFrame({"_b": buckets.unique()}).lazy()
    shifts = pl.LazyFrame({"_j": pl.int_ranges(0, k, eager=True).explode()}) if k > 1 else None
    if shifts is None:
        return present.with_columns(pl.col("_b").alias("_w"))
    pairs = present.join(shifts, how="cross").select("_b", (pl.col("_b") - pl.col("_j")).alias("_w"))
    return pairs.filter(pl.col("_w") >= first)


def check_times(profiles: pl.DataFrame, column: str, time: str) -> None:
    """Every example has a time: a null ``column`` in the per-bucket profiles (``n`` examples each) is an error."""
    missing = profiles.filter(pl.col(column).is_null())
    if not missing.is_empty():
        n = int(missing.get_column("n").sum())
        msg = (
            f"time column {time!r} has {n} example(s) without a time (null, or a text that is not an ISO "
            "date such as '2026-11-30'); every row needs a time to be in a window: drop or fill them first"
        )
        raise InvalidValueError(msg)


def window_tables(
    tables: CellTables,
    key: str,
    bucket: Callable[[pl.Expr], pl.Expr],
    k: int,
    *,
    time: str,
    engine: Engine = "auto",
) -> CellTables:
    """The cell tables summed per window: ``key`` (a bucketable key column) becomes the window index.

    Each table gets the bucket of its ``key``, joins the bucket -> window map
    (a bucket lies in ``k`` windows) and :func:`sum_to` adds up each window's
    buckets, exactly as cells add up. The window index takes ``key``'s place.
    """
    b, wk = "__af_bucket", "__af_window"
    sizes = tables.profiles.select(bucket(pl.col(key)).alias("_b"), "n").collect()
    buckets = sizes.get_column("_b")
    if buckets.is_empty():
        msg = "no rows to window: the predictions are empty"
        raise InvalidValueError(msg)
    check_times(sizes, "_b", time)
    mapping = _window_map(buckets.drop_nulls(), k).rename({"_b": b, "_w": wk})

    def mapped(lf: pl.LazyFrame | None) -> pl.LazyFrame | None:
        if lf is None or key not in lf.collect_schema():
            return lf
        with_b = lf.with_columns(bucket(pl.col(key)).alias(b))
        return with_b.join(mapping, on=b, how="inner", nulls_equal=True)

    spread = replace(
        tables,
        classes=cast("pl.LazyFrame", mapped(tables.classes)),
        profiles=cast("pl.LazyFrame", mapped(tables.profiles)),
        groups=mapped(tables.groups),
        block_profiles=mapped(tables.block_profiles),
        pairs=mapped(tables.pairs),
    )
    keys = [wk if c == key else c for c in tables.keys]
    summed = sum_to(spread, keys)
    renamed_keys = tuple(key if c == wk else c for c in summed.keys)

    def back(lf: pl.LazyFrame | None) -> pl.LazyFrame | None:
        if lf is None:
            return None
        cols = lf.collect_schema().names()
        dropped = [c for c in (key, b) if c in cols and c != wk]
        out = lf.drop(dropped) if dropped else lf
        return out.rename({wk: key}) if wk in cols else out

    universe = summed.universe
    if universe is not None and wk in universe.collect_schema().names():
        universe = back(universe)
    parts = {
        "classes": back(summed.classes),
        "profiles": back(summed.profiles),
        "groups": back(summed.groups),
        "block_profiles": back(summed.block_profiles),
        "pairs": back(summed.pairs),
        "universe": universe,
    }
    present = {name: lf for name, lf in parts.items() if lf is not None}
    # one collect: the tables share the summed sub-plans
    got = dict(zip(present, pl.collect_all(list(present.values()), engine=engine), strict=True))
    return replace(
        summed,
        **cast("dict[str, Any]", {name: (got[name].lazy() if name in got else None) for name in parts}),
        universe_keys=tuple(key if c == wk else c for c in summed.universe_keys),
        keys=renamed_keys,
    )


# -- evaluate over windows ----------------------------------------------------------------
def _window_bounds(w: Window, index: pl.Expr, dtype: pl.DataType) -> tuple[pl.Expr, pl.Expr]:
    """window_start and window_end of a window index, in the time column's type (and zone)."""
    start_us = index * w.every + w.offset
    if isinstance(dtype, pl.Date) and w.whole_days:
        return (start_us // _DAY).cast(pl.Date), ((start_us + w.period) // _DAY).cast(pl.Date)
    zone = getattr(dtype, "time_zone", None)
    unit: Literal["ns", "us", "ms"] = getattr(dtype, "time_unit", None) or "us"

    def stamp(us: pl.Expr) -> pl.Expr:
        out = pl.from_epoch(us, time_unit="us").dt.cast_time_unit(unit)
        if zone is not None:
            out = out.dt.replace_time_zone(zone, ambiguous="earliest", non_existent="null")
        return out

    return stamp(start_us), stamp(start_us + w.period)


def _finish(out: pl.DataFrame, by: list[str], w: Window, dtype: pl.DataType, index: str) -> pl.DataFrame:
    start, end = _window_bounds(w, pl.col(index), dtype)
    rest = [c for c in out.columns if c not in (*by, index)]
    return out.select(*by, start.alias("window_start"), end.alias("window_end"), *rest)


def _truth(pr: Predictions) -> str:
    roles = pr.source.roles()
    for role in ("__af_y_true", "__af_y"):
        if role in roles:
            return roles[role]
    msg = "unlabelled='count' needs predictions with a truth column (the label or long form)"
    raise OptionError(msg)


def _label_counts(
    pr: Predictions, frame: nw.LazyFrame[Any], by: list[str], *, bucket: str, truth: str
) -> pl.LazyFrame | pl.DataFrame:
    """Per (by, bucket): examples with and without a truth (long form: an example is unlabelled if any row is)."""
    roles = pr.source.roles()
    keys = [*by, bucket]
    if "__af_example" in roles and pr.form == "long":
        example = roles["__af_example"]
        per = frame.group_by([*keys, example], drop_null_keys=False).agg(
            nw.col(truth).is_null().max().alias("_u")
        )
        counted = per.group_by(keys, drop_null_keys=False).agg(
            nw.col("_u").sum().alias("_nu"), nw.len().alias("_n")
        )
    else:
        counted = frame.group_by(keys, drop_null_keys=False).agg(
            nw.col(truth).is_null().sum().alias("_nu"), nw.len().alias("_n")
        )
    native = nw.to_native(counted)
    if isinstance(native, pl.LazyFrame):
        return native  # collected with the cell tables (one read)
    return cast("pl.DataFrame", pl.from_arrow(counted.collect().to_arrow()))


def _check_window_options(options: dict[str, Any], unlabelled: str | None, by: list[str]) -> None:
    """Refuse the evaluate options that windows do not take."""
    if options.get("lazy"):
        msg = "windows are evaluated eagerly (their bucket map reads the small cell tables): drop lazy=True"
        raise OptionError(msg)
    if options.get("grouping_sets") is not None:
        msg = "grouping_sets= with windows is not supported yet: evaluate each grouping with by="
        raise OptionError(msg)
    if unlabelled not in (None, "count"):
        msg = f"Expected unlabelled= to be None or 'count', got {unlabelled!r}"
        raise OptionError(msg)
    check_result_names(by, WINDOW_COLUMNS, "windowed evaluate")


def windowed_evaluate(
    pr: Predictions,
    measures: Any,
    operators: Any,
    window: dict[str, str | None],
    *,
    unlabelled: str | None,
    options: dict[str, Any],
    sizes: bool = False,
) -> pl.DataFrame:
    """``evaluate`` per window (see the module docstring): by..., window_start, window_end, measure, ..."""
    w = parse_window(window.get("time"), window.get("every"), window.get("period"), window.get("offset"))
    by = listify(options.pop("by", None))
    engine: Engine = options.get("engine", "auto")
    _check_window_options(options, unlabelled, by)
    if isinstance(pr.source, StoredSource):
        if unlabelled is not None:
            msg = "unlabelled='count' reads the truth of each row: it needs predictions, not stored cells"
            raise OptionError(msg)
        return _stored_windows(pr, measures, operators, w=w, by=by, options=options, sizes=sizes)
    source = pr.source
    if w.time in by:
        msg = f"time column {w.time!r} is also a by column; windows already group by it"
        raise OptionError(msg)
    if isinstance(_time_dtype(source.frame, w.time, "frame"), nw.String):
        native = cast("pl.LazyFrame", nw.to_native(source.frame))
        dated = pl.col(w.time).str.to_date("%Y-%m-%d", strict=False)
        source = replace(source, frame=nw.from_native(native.with_columns(dated)))
    columns = list(source.frame.collect_schema().names())
    bucket = _fresh(columns, "__af_time_bucket")
    frame = _first_bucket(pr, _with_bucket(source.frame, w, bucket), bucket)
    counts: pl.LazyFrame | pl.DataFrame | None = None
    if unlabelled == "count":
        truth = _truth(pr)
        counts = _label_counts(pr, frame, by, bucket=bucket, truth=truth)
        frame = frame.filter(~nw.col(truth).is_null())
    bucketed = replace(pr, source=replace(source, frame=frame), _cache={}, _boot_cache={})
    tdtype = _polars_dtype(source.frame, w.time)
    if options.get("n_boot") is not None or isinstance(source, Scored):
        if isinstance(counts, pl.LazyFrame):
            counts = counts.collect(engine=engine)
        out, tables = _exploded(bucketed, measures, operators, w=w, by=by, bucket=bucket, options=options)
    else:
        lazy_counts = counts if isinstance(counts, pl.LazyFrame) else None
        out, tables, got = _cells_windows(
            bucketed, measures, operators, w=w, by=by, bucket=bucket, options=options, extra=lazy_counts
        )
        counts = got if got is not None else counts
    if sizes:
        out = _with_sizes(out, tables, by, bucket)
    out = _finish(out, by, w, tdtype, bucket)
    if counts is not None:
        out = _with_label_counts(out, cast("pl.DataFrame", counts), by, bucket=bucket, w=w, dtype=tdtype)
    return out


def _polars_dtype(frame: nw.LazyFrame[Any], column: str) -> pl.DataType:
    native = nw.to_native(frame)
    if isinstance(native, pl.LazyFrame):
        return native.collect_schema()[column]
    dtype = frame.collect_schema()[column]
    if isinstance(dtype, nw.Date):
        return pl.Date()
    return pl.Datetime("us", getattr(dtype, "time_zone", None))


def _cells_windows(  # noqa: PLR0913 -- the roles of one windowed evaluation, keyword-only
    bucketed: Predictions,
    measures: Any,
    operators: Any,
    *,
    w: Window,
    by: list[str],
    bucket: str,
    options: dict[str, Any],
    extra: pl.LazyFrame | None = None,
) -> tuple[pl.DataFrame, CellTables, pl.DataFrame | None]:
    keys = [*by, bucket]
    engine = options.get("engine", "auto")
    # the confusion counts (a table per (group, true, predicted)) only for the whole-matrix measures
    matrix = "multiclass" in [*listify(operators), *listify(options.get("within"))]
    got = None
    if extra is not None:
        # the label counts in the same collect as the cell tables: one read of the rows
        got = bucketed._collect_tables(tuple(keys), [extra], engine=engine, pairs=matrix)[0]
    tables = (
        bucketed.extend.store_tables(keys, engine=engine)
        if matrix
        else bucketed.extend.cell_tables(keys, engine=engine)
    )
    windowed = window_tables(tables, by_key(len(by)), lambda e: e, w.k, time=w.time, engine=engine)
    single = bucketed.source.single_label(lambda: tables.profiles.collect())  # noqa: PLW0108
    meta = {**source_meta(bucketed.source, single_label=single), "by": keys}
    stored = tables_source(windowed, meta, bucketed.source.origin)
    out = cast("pl.DataFrame", _over(bucketed, stored).evaluate(measures, operators, by=keys, **options))
    return out, windowed, got


def _over(pr: Predictions, source: Any) -> Predictions:
    """Predictions of the same class over another source (nothing kept)."""
    return replace(pr, source=source, _cache={}, _boot_cache={})


def _hive_value(path: str, key: str) -> str | None:
    """The value of the ``key=VALUE`` folder of a store's path (the nearest one), or None."""
    for part in reversed(Path(path).parts):
        name, sep, value = part.partition("=")
        if sep and name == key:
            return value
    return None


def _hive_keyed(source: StoredSource, key: str) -> StoredSource:
    """Stores whose directories are ``key=VALUE`` partitions, the value as one more stored key.

    Each store is read alone and its tables get the key as a constant column (typed as a
    hive key: an ISO date is a date); the parts then add up as stores read together do.
    """
    stores = [str(p.get("path") or "") for p in source.origin.stores or ()]
    values = [_hive_value(p, key) for p in stores]
    if not stores or any(v is None for v in values):
        msg = (
            f"time column {key!r} is not a key of these stored cells (their keys: {list(source.stored_by)!r}) "
            f"nor a {key}=VALUE folder of every store's path; write the cells with by=[{key!r}, ...] or "
            f"into folders such as 'cells/{key}=2026-11-30'"
        )
        raise ColumnNotFoundError(msg)
    dtype = partition_dtype([v for v in values if v is not None])
    new = by_key(len(source.stored_by))
    parts = []
    for path, value in zip(stores, values, strict=True):
        tables, _ = read_store(path)
        constant = pl.lit(partition_value(cast("str", value)), dtype=dtype).alias(new)

        def keyed(lf: pl.LazyFrame | None, constant: pl.Expr = constant) -> pl.LazyFrame | None:
            return None if lf is None else lf.with_columns(constant)

        n = len(source.stored_by)
        keys = (*tables.keys[:n], new, *tables.keys[n:])
        by_universe = bool(tables.universe_keys) and set(tables.universe_keys) <= set(tables.keys[:n])
        parts.append(
            replace(
                tables,
                classes=cast("pl.LazyFrame", keyed(tables.classes)),
                profiles=cast("pl.LazyFrame", keyed(tables.profiles)),
                groups=keyed(tables.groups),
                block_profiles=keyed(tables.block_profiles),
                pairs=keyed(tables.pairs),
                universe=keyed(tables.universe) if by_universe else tables.universe,
                universe_keys=(*tables.universe_keys, new) if by_universe else tables.universe_keys,
                keys=keys,
                names={**tables.names, new: key},
            )
        )
    meta = {**source.meta, "by": [*source.stored_by, key]}
    return tables_source(add_tables(parts), meta, source.origin)


def _stored_windows(
    pr: Predictions,
    measures: Any,
    operators: Any,
    *,
    w: Window,
    by: list[str],
    options: dict[str, Any],
    sizes: bool,
) -> pl.DataFrame:
    source = cast("StoredSource", pr.source)
    if w.time not in source.stored_by:
        source = _hive_keyed(source, w.time)
        pr = _over(pr, source)
    if w.time in by:
        msg = f"time column {w.time!r} is also a by column; windows already group by it"
        raise OptionError(msg)
    if options.get("n_boot") is not None:
        msg = "n_boot= needs the examples; stored cells keep sums only (window the predictions instead)"
        raise OptionError(msg)
    keys = [*by, w.time]
    tables = pr.extend.cell_tables(keys, engine=options.get("engine", "auto"))
    key = by_key(len(by))
    dtype = tables.profiles.collect_schema()[key]
    if dtype == pl.String:
        dtype = pl.Date()

        def bucket(e: pl.Expr) -> pl.Expr:
            return _bucket_polars(e.str.to_date(strict=False), pl.Date(), w)
    elif isinstance(dtype, (pl.Date, pl.Datetime)):
        tdtype = dtype

        def bucket(e: pl.Expr) -> pl.Expr:
            return _bucket_polars(e, tdtype, w)
    else:
        msg = f"time key {w.time!r} of the stored cells must be a date, a datetime or an ISO date text, got {dtype}"
        raise InvalidValueError(msg)
    windowed = window_tables(tables, key, bucket, w.k, time=w.time, engine=options.get("engine", "auto"))
    meta = {**source.meta, "by": keys}
    stored = tables_source(windowed, meta, source.origin)
    out = cast("pl.DataFrame", _over(pr, stored).evaluate(measures, operators, by=keys, **options))
    if sizes:
        out = _with_sizes(out, windowed, by, w.time)
    return _finish(out, by, w, dtype, w.time)


def _with_sizes(out: pl.DataFrame, tables: CellTables, by: list[str], index: str) -> pl.DataFrame:
    """``__af_n``: the examples of each (by, window) (one count per group, across targets and folds)."""
    private = [by_key(i) for i in range(len(by) + 1)]
    named = {**{by_key(i): c for i, c in enumerate(by)}, by_key(len(by)): index}
    counts = (
        group_table(tables)
        .group_by(private)
        .agg(pl.col("n_examples").max().cast(pl.Int64).alias("__af_n"))
        .rename(named)
        .collect()
    )
    return out.join(counts, on=[*by, index], how="left", nulls_equal=True, maintain_order="left")


def _exploded(
    bucketed: Predictions,
    measures: Any,
    operators: Any,
    *,
    w: Window,
    by: list[str],
    bucket: str,
    options: dict[str, Any],
) -> tuple[pl.DataFrame, CellTables]:
    """Each row in each of its windows: the window index is one more by key (scores, n_boot)."""
    source = bucketed.source
    frame = source.frame
    if w.k > 1:
        shifts = nw.from_native(pl.LazyFrame({"__af_j": list(range(w.k))}))
        native = nw.to_native(frame)
        if isinstance(native, pl.LazyFrame):
            spread = native.join(nw.to_native(shifts), how="cross").with_columns(
                (pl.col(bucket) - pl.col("__af_j")).alias(bucket)
            )
            frame = nw.from_native(spread.drop("__af_j"))
        else:
            msg = "windows with period > every for n_boot or the measures on scores need a Polars frame"
            raise OptionError(msg)
    spread_pr = replace(bucketed, source=replace(source, frame=frame), _cache={}, _boot_cache={})
    engine = options.get("engine", "auto")
    tables = spread_pr.extend.cell_tables([*by, bucket], engine=engine)  # the scan, kept for evaluate
    check_times(tables.profiles.select(by_key(len(by)), "n").collect(), by_key(len(by)), w.time)
    out = cast("pl.DataFrame", spread_pr.evaluate(measures, operators, by=[*by, bucket], **options))
    first = out[bucket].min()
    if w.k > 1 and first is not None:
        out = out.filter(pl.col(bucket) >= cast("int", first) + w.k - 1)
    return out, tables


def _with_label_counts(
    out: pl.DataFrame, counts: pl.DataFrame, by: list[str], *, bucket: str, w: Window, dtype: pl.DataType
) -> pl.DataFrame:
    """n_labelled, n_unlabelled and labelled_share per (by, window), joined to the windowed result."""
    if counts.is_empty():
        return out.with_columns(
            pl.lit(0, pl.Int64).alias("n_labelled"),
            pl.lit(0, pl.Int64).alias("n_unlabelled"),
            pl.lit(None, pl.Float64).alias("labelled_share"),
        )
    mapping = _window_map(counts[bucket], w.k)
    summed = (
        counts.lazy()
        .join(mapping.rename({"_b": bucket}), on=bucket, how="inner", nulls_equal=True)
        .group_by([*by, "_w"])
        .agg(pl.col("_nu").sum().cast(pl.Int64), pl.col("_n").sum().cast(pl.Int64))
        .collect()
    )
    start, _ = _window_bounds(w, pl.col("_w"), dtype)
    summed = summed.select(
        *by,
        start.alias("window_start"),
        (pl.col("_n") - pl.col("_nu")).alias("n_labelled"),
        pl.col("_nu").alias("n_unlabelled"),
        pl.when(pl.col("_n") > 0).then((pl.col("_n") - pl.col("_nu")) / pl.col("_n")).alias("labelled_share"),
    )
    return out.join(summed, on=[*by, "window_start"], how="left", nulls_equal=True, maintain_order="left")
