"""Estimation over time windows: ``af.estimate(..., time="ts", every="1w")``.

The windows are :meth:`~aggframe.Predictions.evaluate`'s (the same words and the
same bucketing code, :mod:`aggframe.facade.windows`): each row of ``data`` gets
the index of its ``every``-long slot, computed on the engine, and that index is
one more ``by`` key of the one estimate plan (calibration lookup, expected cells,
realized cells, draws). No loop over windows. A window longer than ``every``
(``period = k * every``) holds ``k`` slots. Without draws and without the
``exemplar`` operator the scan stays keyed by slot and its small tables (the bin
table and the group sizes: sums) are summed into the windows before the report
(:func:`_roller`): the cost of one tumbling window, on any engine. Otherwise each
row joins the ``k`` windows that hold it (a cross join with ``0 .. k-1``, as the
windows of the measures on scores do; Polars frames), so the cost is ``rows x k``.
Windows that would start before the data's first slot are dropped.

The result is :func:`~aggframe.estimate`'s frame with ``window_start`` and
``window_end`` after the by-columns: per (group, window) the ``estimated`` rows
(every row of the window) and, where the window has labelled rows, the
``realized`` rows, with the window's ``labelled_share``. Recent windows, whose
labels have not arrived, carry estimates alone; older ones both.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import narwhals as nw
import polars as pl

from aggframe._columns import CLASS_ROLE, check_result_names
from aggframe._options import listify
from aggframe.decisions.estimate_cells import BIN, PRED, BinTable, D, T
from aggframe.exceptions import InvalidValueError, OptionError
from aggframe.facade.windows import (
    WINDOW_COLUMNS,
    Window,
    _fresh,
    _over,
    _polars_dtype,
    _time_dtype,
    _window_bounds,
    _with_bucket,
    parse_window,
)

if TYPE_CHECKING:
    from aggframe.decisions.estimate import Roll
    from aggframe.predictions import Predictions

__all__ = ["windowed_estimate"]

#: The window index's column while the estimate runs (a fresh name if the data holds it).
_WINDOW = "__af_est_window"


def _check_window(window: dict[str, str | None], by: list[str]) -> Window:
    w = parse_window(window.get("time"), window.get("every"), window.get("period"), window.get("offset"))
    check_result_names(by, WINDOW_COLUMNS, "estimate over windows")
    if w.time in by:
        msg = f"time column {w.time!r} is also a by column; windows already group by it"
        raise OptionError(msg)
    return w


def _windowed_data(
    data: Predictions, w: Window, *, spread_rows: bool
) -> tuple[Predictions, str, pl.DataType]:
    """``data`` with the window index of each row as a column (each row ``k`` times when ``period > every``
    and ``spread_rows``; else the slot's index, the tables summed into windows by :func:`_roller`).

    The index is computed on the source's engine (:func:`~aggframe.facade.windows._with_bucket`);
    the spread over ``k`` windows needs a Polars frame, as it does for ``evaluate``'s windows.
    """
    source = data.source
    frame = getattr(source, "frame", None)
    if frame is None:
        msg = f"`data` must be predictions with scores (af.from_scores(...)), got {type(data).__name__}"
        raise OptionError(msg)
    if isinstance(_time_dtype(frame, w.time, "data"), nw.String):
        # ISO dates as text (a hive day= key, Polars frames): read as dates, as evaluate's windows do
        native = cast("pl.LazyFrame", nw.to_native(frame))
        frame = nw.from_native(native.with_columns(pl.col(w.time).str.to_date("%Y-%m-%d", strict=False)))
    tdtype = _polars_dtype(frame, w.time)
    index = _fresh(list(frame.collect_schema().names()), _WINDOW)
    bucketed = _with_bucket(frame, w, index)
    if w.k > 1 and spread_rows:
        native = nw.to_native(bucketed)
        if not isinstance(native, pl.LazyFrame):
            msg = "estimate over windows with period > every needs a Polars frame (each row joins k windows)"
            raise OptionError(msg)
        shifts = pl.LazyFrame({"__af_est_j": pl.int_ranges(0, w.k, eager=True).explode()})
        spread = native.join(shifts, how="cross").with_columns(
            (pl.col(index) - pl.col("__af_est_j")).alias(index)
        )
        bucketed = nw.from_native(spread.drop("__af_est_j"))
    return _over(data, replace(source, frame=bucketed)), index, tdtype


def _finish(out: pl.DataFrame, by: list[str], w: Window, index: str, dtype: pl.DataType) -> pl.DataFrame:
    """Null times refused, windows before the data's first slot dropped, the bounds as dates or datetimes."""
    missing = out.filter(pl.col(index).is_null())
    if missing.height:
        n = int(missing["n_examples"].max())  # type: ignore[arg-type]
        msg = (
            f"time column {w.time!r} has {n} example(s) without a time (null, or a text that is not an ISO "
            "date such as '2026-11-30'); every row needs a time to be in a window: drop or fill them first"
        )
        raise InvalidValueError(msg)
    first = out[index].min()
    if w.k > 1 and first is not None:
        out = out.filter(pl.col(index) >= cast("int", first) + w.k - 1)
    start, end = _window_bounds(w, pl.col(index), dtype)
    rest = [c for c in out.columns if c not in (*by, index)]
    framed = out.select(*by, start.alias("window_start"), end.alias("window_end"), *rest)
    return framed.sort(
        [*by, "window_start", "kind", "measure", "operator"], nulls_last=False, maintain_order=True
    )


def windowed_estimate(
    estimate: Callable[..., pl.DataFrame],
    reference: Any,
    data: Predictions,
    measures: str | Sequence[str],
    operators: Any,
    *,
    window: dict[str, str | None],
    options: dict[str, Any],
) -> pl.DataFrame:
    """:func:`~aggframe.estimate` per time window (see the module docstring).

    ``estimate`` is the function to run with the window index as the first by-key
    (passed in, so that this module does not import the one that calls it), called
    as ``estimate(reference, data, measures, operators, options, roll=roll)``;
    ``options`` are :func:`~aggframe.estimate`'s keyword arguments (``by`` among them).

    Examples
    --------
    >>> import datetime as dt
    >>> import polars as pl
    >>> import aggframe as af
    >>> ref = af.from_scores(pl.DataFrame({"y": [0, 0, 1, 1], "score": [0.1, 0.6, 0.4, 0.9]}), class_=None)
    >>> days = [dt.date(2024, 1, 1), dt.date(2024, 1, 2), dt.date(2024, 1, 9)]
    >>> new = af.from_scores(pl.DataFrame({"y": [None, None, None], "score": [0.2, 0.5, 0.85], "day": days}), class_=None)
    >>> af.estimate(ref, new, "recall", "binary", time="day", every="1w")["window_start"].to_list()
    [datetime.date(2023, 12, 28), datetime.date(2024, 1, 4)]
    """
    by_cols = listify(options.get("by"))
    w = _check_window(window, by_cols)
    # point estimates (no draws) from sums: the slots' tables summed into windows (not the exemplar's profiles)
    rolled = w.k > 1 and options.get("n_draws") == 0 and "exemplar" not in listify(operators)
    windowed, index, tdtype = _windowed_data(data, w, spread_rows=not rolled)
    run_options = {**options, "by": [index, *by_cols]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = estimate(
            reference, windowed, measures, operators, run_options, roll=_roller(w.k) if rolled else None
        )
    _rewarn(caught, index, w, tdtype)
    return _finish(out, by_cols, w, index, tdtype)


def _rewarn(caught: list[warnings.WarningMessage], index: str, w: Window, dtype: pl.DataType) -> None:
    """The estimate's warnings again, a window named by its start (``window_start=2026-11-30``), not its index."""
    pattern = re.compile(re.escape(index) + r"=(-?\d+)")

    def start(match: re.Match[str]) -> str:
        value = pl.select(_window_bounds(w, pl.lit(int(match.group(1)), pl.Int64), dtype)[0]).item()
        return f"window_start={value}"

    for item in caught:
        warnings.warn(pattern.sub(start, str(item.message)), item.category, stacklevel=4)


#: The key columns of the scan's small tables (the rest are sums).
_TABLE_KEYS = (PRED, CLASS_ROLE, D, T, BIN)


def _roller(k: int) -> Roll:
    """Sum the slot-keyed tables of the scan into windows of ``k`` slots (see the module docstring).

    A slot ``s`` is in the windows ``s - k + 1 .. s`` (the labels of the row spread), so each
    table row is copied ``k`` times with its slot shifted by ``0 .. k-1`` and the copies are
    summed per key: the sums of a window's rows, as the row spread gives them. A null slot
    (a row without a time) is kept once, for the error that names it.
    """

    def roll(bt: BinTable, sizes: pl.DataFrame) -> tuple[BinTable, pl.DataFrame]:
        slot = bt.keys[0]  # the window index is the first by-key
        bins = None if bt.bins is None else _rolled(bt.bins, bt.keys, slot, k)
        return replace(bt, frame=_rolled(bt.frame, bt.keys, slot, k), bins=bins), _rolled(
            sizes, bt.keys, slot, k
        )

    return roll


def _rolled(table: pl.DataFrame, keys: Sequence[str], slot: str, k: int) -> pl.DataFrame:
    group = [c for c in table.columns if c in keys or c in _TABLE_KEYS]
    sums = [c for c in table.columns if c not in group]
    shifts = pl.DataFrame({"_j": pl.Series(range(k), dtype=table.schema[slot])})
    spread = table.join(shifts, how="cross").with_columns((pl.col(slot) - pl.col("_j")).alias(slot))
    spread = spread.filter(pl.col(slot).is_not_null() | (pl.col("_j") == 0))
    return spread.group_by(group).agg(pl.col(sums).sum()).select(table.columns)
