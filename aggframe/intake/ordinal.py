"""Ordinal data as cumulative thresholds: ``m`` ordered classes become ``m - 1`` binary questions.

Threshold ``c`` (every class but the last) asks "is the class above ``c``?" of
the truth and of the prediction; the result is a long-form source over the
thresholds (a lazy cross join, sparse: entries below both ranks are true
negatives), so every measure, operator, ``by=`` column and engine applies, and a
label-form source over the ``m`` classes, for costs, coordinates and dominance.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from aggframe._columns import fmt_row, free_name
from aggframe.exceptions import (
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    UnknownClassError,
)
from aggframe.intake.frame_input import as_lazy, is_frame
from aggframe.intake.input_checks import enum_categories, label_frame, require_columns
from aggframe.intake.labels import LabelSource, label_source
from aggframe.intake.long import LongSource, long_source
from aggframe.intake.options import LabelOptions, LongOptions, OrdinalOptions
from aggframe.intake.origin import FRAME, Origin, origin_of
from aggframe.intake.read_errors import reading
from aggframe.wide.engines import to_polars

__all__ = ["ordinal_sources"]


def _order_series(order: Sequence[Any], dtype: pl.DataType, column: str) -> pl.Series:
    try:
        return pl.Series(list(order)).cast(dtype, strict=True)
    except Exception as exc:
        msg = (
            f"column {column!r}: the order {list(order)[:5]!r} cannot be values of the column (dtype {dtype})"
        )
        raise OptionError(msg) from exc


@dataclass(frozen=True)
class _Columns:
    """The label columns of the ordinal data, and the optional example and fold columns."""

    y_true: str
    y_pred: str
    example: str | None = None
    fold: str | None = None
    repeat: str | None = None


def _prepare_input(data: Any, y_pred_values: Any, columns: _Columns) -> tuple[pl.LazyFrame, Origin, _Columns]:
    """The data as a Polars LazyFrame (an engine's Enum kept as a Polars Enum), its origin, and the
    columns to read (arrays are read as the columns ``y_true`` and ``y_pred``)."""
    if not is_frame(data):
        if y_pred_values is None:
            msg = "from_ordinal(y_true, y_pred) needs both arrays (or a frame with column names)"
            raise OptionError(msg)
        if any(c is not None for c in (columns.example, columns.fold, columns.repeat)):
            msg = "example=, fold= and repeat= name columns of a frame; with arrays, pass a frame instead"
            raise OptionError(msg)
        arrays = _Columns("y_true", "y_pred")
        return label_frame(data, y_pred_values, "y_true", "y_pred").lazy(), FRAME, arrays
    if y_pred_values is not None:
        msg = "with a frame, name the columns: from_ordinal(frame, y_true='col', y_pred='col')"
        raise OptionError(msg)
    native = as_lazy(data, "data")
    origin = origin_of(native)
    y_true, y_pred = columns.y_true, columns.y_pred
    with reading(origin):  # another engine's frame is read into Polars here
        lf = to_polars(native)
        # an engine's Enum (DuckDB ENUM) reaches Polars as a dictionary, Categorical: its order
        # is the ordinal order, so it becomes the Polars Enum it was
        names = native.collect_schema().names()
        declared = {c: enum_categories(native, c) for c in dict.fromkeys((y_true, y_pred)) if c in names}
    lf = lf.with_columns(pl.col(c).cast(pl.Enum(cats)) for c, cats in declared.items() if cats is not None)
    roles = {
        "y_true": y_true,
        "y_pred": y_pred,
        "example": columns.example,
        "fold": columns.fold,
        "repeat": columns.repeat,
    }
    require_columns(lf.collect_schema(), roles)
    return lf, origin, columns


def _check_order(order: Sequence[Any] | None, n_classes: int | None) -> list[Any] | None:
    """The order the options give (``order=`` or ``n_classes=``), or None (no data read)."""
    if order is not None and (isinstance(order, (str, bytes)) or not isinstance(order, Iterable)):
        # order="cba" was read as ['c', 'b', 'a']; order=5 a raw TypeError
        msg = f"`order` takes a list of the classes from lowest to highest, got {type(order).__name__} {order!r}"
        raise OptionError(msg)
    if n_classes is None:
        return None if order is None else list(order)
    if isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral) or n_classes < 2:
        msg = f"Expected `n_classes` to be an integer >= 2, got {n_classes!r}"
        raise OptionError(msg)
    if order is not None and list(order) != list(range(int(n_classes))):
        msg = f"`n_classes={n_classes}` and `order` disagree; give one of them"
        raise OptionError(msg)
    return list(range(int(n_classes)))


def _prepare_labels(
    schema: pl.Schema, columns: _Columns, order: list[Any] | None
) -> tuple[list[Any] | None, pl.DataType]:
    """The order (an Enum column's, when none is given) and the one type both label columns are read as."""
    y_true, y_pred = columns.y_true, columns.y_pred
    dtypes = {c: schema[c] for c in (y_true, y_pred)}
    as_string = {c: isinstance(d, (pl.Enum, pl.Categorical)) for c, d in dtypes.items()}
    if order is None:
        enums = [d for d in dtypes.values() if isinstance(d, pl.Enum)]
        if enums:
            order = enums[0].categories.to_list()
    if order is None and not all(d.is_integer() for d in dtypes.values()):
        msg = (
            f"the order of the classes is unknown: columns {y_true!r} and {y_pred!r} hold {dtypes[y_true]} "
            "labels; pass order=[lowest, ..., highest] (or n_classes=, or use an Enum column)"
        )
        raise OptionError(msg)
    differ = (
        f"columns {y_true!r} and {y_pred!r} hold labels of different types "
        f"({dtypes[y_true]} and {dtypes[y_pred]}); cast them to one type first"
    )
    if any(as_string.values()):
        if any(d != pl.String for c, d in dtypes.items() if not as_string[c]):
            raise InvalidValueError(differ)
        return order, pl.String()
    if dtypes[y_true] == dtypes[y_pred]:
        return order, dtypes[y_true]
    if dtypes[y_true].is_numeric() and dtypes[y_pred].is_numeric():
        floats = dtypes[y_true].is_float() or dtypes[y_pred].is_float()
        return order, pl.Float64() if floats else pl.Int64()
    raise InvalidValueError(differ)


def _compute_checks(
    lf: pl.LazyFrame,
    columns: _Columns,
    cols: dict[str, pl.Expr],
    order_series: pl.Series | None,
    origin: Origin,
) -> dict[str, Any]:
    """ONE aggregate query: the rows, the null labels and (with an order) the labels outside it, with
    an example row of each; without an order, the smallest and largest label."""
    position = {c: i for i, c in enumerate(lf.collect_schema().names())}
    shown = [c for c in (columns.example, columns.fold, columns.repeat, columns.y_true, columns.y_pred) if c]
    row = pl.struct([pl.nth(position[c]).alias(c) for c in _unique(shown)])
    checks: dict[str, pl.Expr] = {"n_rows": pl.len()}
    for role, c in (("y_true", columns.y_true), ("y_pred", columns.y_pred)):
        checks[f"n_null_{role}"] = cols[c].is_null().sum()
        checks[f"row_null_{role}"] = row.filter(cols[c].is_null()).first()
        if order_series is not None:
            bad = cols[c].is_not_null() & ~cols[c].is_in(order_series.implode())
            checks[f"n_unknown_{role}"] = bad.sum()
            checks[f"row_unknown_{role}"] = row.filter(bad).first()
        else:
            checks[f"min_{role}"] = cols[c].min()
            checks[f"max_{role}"] = cols[c].max()
    with reading(origin):
        return lf.select(**checks).collect().row(0, named=True)


def _check_found(found: dict[str, Any], columns: _Columns, order: list[Any] | None) -> None:
    """No rows, null labels, labels outside the order: each an error naming a row."""
    if not found["n_rows"]:
        msg = "the ordinal labels are empty (no rows)"
        raise EmptyInputError(msg)
    for role, c in (("y_true", columns.y_true), ("y_pred", columns.y_pred)):
        if found[f"n_null_{role}"]:
            msg = (
                f"column {c!r} (role {role!r}): {found[f'n_null_{role}']} null label(s) "
                f"(e.g. row {fmt_row(found[f'row_null_{role}'])}); every example needs a class"
            )
            raise NullValueError(msg)
        if found.get(f"n_unknown_{role}"):
            assert order is not None
            msg = (
                f"column {c!r} (role {role!r}): {found[f'n_unknown_{role}']} label(s) outside the order "
                f"(e.g. row {fmt_row(found[f'row_unknown_{role}'])}); order: {list(order)[:10]!r}"
            )
            raise UnknownClassError(msg)


def _finish_order(
    found: dict[str, Any], order: list[Any] | None, label_dtype: pl.DataType, column: str
) -> tuple[list[Any], pl.Series]:
    """The order (integer labels without one: 0 .. the largest label) and as a Series; at least two
    classes, none repeated."""
    if order is None:
        low = min(found["min_y_true"], found["min_y_pred"])
        if low < 0:
            msg = (
                f"integer labels without an order are read as 0 .. max, but there is a label {low}; "
                "pass order=[lowest, ..., highest]"
            )
            raise InvalidValueError(msg)
        order = list(range(int(max(found["max_y_true"], found["max_y_pred"])) + 1))
    order_series = _order_series(order, label_dtype, column)
    if len(order) < 2:
        msg = f"ordinal evaluation needs at least two classes; the order is {order!r}"
        raise OptionError(msg)
    if order_series.n_unique() != len(order):
        msg = f"the order repeats a class: {order!r}"
        raise OptionError(msg)
    return order, order_series


def _compute_long(
    lf: pl.LazyFrame,
    columns: _Columns,
    ranks: tuple[pl.Expr, pl.Expr],
    threshold_values: pl.Series,
) -> tuple[pl.LazyFrame, dict[str, str]]:
    """The thresholds, lazily: one cross join, sparse; the long frame and its role columns."""
    names = lf.collect_schema().names()
    m = len(threshold_values) + 1
    role = {
        "class_": free_name("class", names),
        "y": free_name("y", names),
        "p": free_name("p", names),
        "example": columns.example if columns.example is not None else free_name("example", names),
    }
    # helper columns of the derived frame, apart from the user's names
    rt, rp, k = (free_name(n, names) for n in ("rank_true", "rank_pred", "k"))
    thresholds = pl.LazyFrame({k: pl.Series(range(m - 1), dtype=pl.Int64), role["class_"]: threshold_values})
    # the row index goes last, so the user's columns keep their positions (cols pick by position)
    rows = (
        lf
        if columns.example is not None
        else lf.with_columns(pl.int_range(pl.len(), dtype=pl.UInt32).alias(role["example"]))
    )
    rows = rows.with_columns(ranks[0].alias(rt), ranks[1].alias(rp))
    long = (
        rows.join(thresholds, how="cross")
        # entries below both ranks are true negatives: left out (threshold 0 keeps every example)
        .filter((pl.col(k) < pl.max_horizontal(rt, rp)) | (pl.col(k) == 0))
        .with_columns(
            (pl.col(rt) > pl.col(k)).cast(pl.Int8).alias(role["y"]),
            (pl.col(rp) > pl.col(k)).cast(pl.Int8).alias(role["p"]),
        )
        .drop(rt, rp, k)
    )
    return long, role


def ordinal_sources(
    data: Any, y_pred_values: Any, opts: OrdinalOptions
) -> tuple[LongSource, LabelSource, list[Any]]:
    """The threshold (long) source, the single-label source and the order (see :func:`~aggframe.from_ordinal`)."""
    y_true, y_pred, example, fold, repeat = opts.y_true, opts.y_pred, opts.example, opts.fold, opts.repeat
    lf, origin, columns = _prepare_input(data, y_pred_values, _Columns(y_true, y_pred, example, fold, repeat))
    y_true, y_pred = columns.y_true, columns.y_pred
    schema = lf.collect_schema()
    given, label_dtype = _prepare_labels(schema, columns, _check_order(opts.order, opts.n_classes))
    position = {c: i for i, c in enumerate(schema.names())}
    # the user's columns by position: a name is never read as a pattern ("*", "^x$")
    cols = {c: pl.nth(position[c]).cast(label_dtype).alias(c) for c in (y_true, y_pred)}
    given_series = None if given is None else _order_series(given, label_dtype, y_true)
    found = _compute_checks(lf, columns, cols, given_series, origin)
    _check_found(found, columns, given)
    classes, order_series = _finish_order(found, given, label_dtype, y_true)
    threshold_values = order_series[: len(classes) - 1]
    if label_dtype == pl.String:
        # string classes become Enums, so results list them in the ordinal order
        enum = pl.Enum(order_series.to_list())
        cols = {c: e.cast(enum) for c, e in cols.items()}
        order_series = order_series.cast(enum)
        threshold_values = threshold_values.cast(pl.Enum(threshold_values.to_list()))
        rank_true, rank_pred = (cols[c].to_physical().cast(pl.Int64) for c in (y_true, y_pred))
    else:
        positions = pl.Series(range(len(classes)), dtype=pl.Int64)
        rank_true, rank_pred = (
            cols[c].replace_strict(order_series, positions, return_dtype=pl.Int64) for c in (y_true, y_pred)
        )
    long, role = _compute_long(lf, columns, (rank_true, rank_pred), threshold_values)
    base = long_source(
        long,
        LongOptions(
            example=role["example"],
            class_=role["class_"],
            y=role["y"],
            p=role["p"],
            mask=None,
            fold=fold,
            repeat=repeat,
            target=None,
            n_classes=None,
            classes=threshold_values.to_list(),
            tnorm=None,
            class_universe="global",
            task=None,
            examples=None,
            derived_from={y_true: "y_true", y_pred: "y_pred"},
        ),
    )
    base.origin = origin
    labels = label_source(
        lf.with_columns(cols[y_true], cols[y_pred]),
        None,
        LabelOptions(
            y_true=y_true,
            y_pred=y_pred,
            example=example,
            fold=fold,
            repeat=repeat,
            target=None,
            n_classes=None,
            classes=order_series.to_list(),
            task=None,
            pos_label=1,
            class_universe="global",
            derived_from=None,
        ),
    )
    labels.origin = origin
    return base, labels, order_series.to_list()


def _unique(items: Sequence[str]) -> list[str]:
    out: list[str] = []
    for it in items:
        if it not in out:
            out.append(it)
    return out
