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
from aggframe.intake.origin import FRAME, origin_of
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


def ordinal_sources(  # noqa: PLR0912, PLR0913, PLR0915 -- to be split into named stages; the constructor's options, passed through
    data: Any,
    y_pred_values: Any = None,
    /,
    *,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    example: str | None = None,
    order: Sequence[Any] | None = None,
    n_classes: int | None = None,
    fold: str | None = None,
    repeat: str | None = None,
) -> tuple[LongSource, LabelSource, list[Any]]:
    """The threshold (long) source, the single-label source and the order (see :func:`~aggframe.from_ordinal`)."""
    # -- input ---------------------------------------------------------------------
    if is_frame(data):
        if y_pred_values is not None:
            msg = "with a frame, name the columns: from_ordinal(frame, y_true='col', y_pred='col')"
            raise OptionError(msg)
        native = as_lazy(data, "data")
        origin = origin_of(native)
        with reading(origin):  # another engine's frame is read into Polars here
            lf = to_polars(native)
            # an engine's Enum (DuckDB ENUM) reaches Polars as a dictionary, Categorical: its order
            # is the ordinal order, so it becomes the Polars Enum it was
            names = native.collect_schema().names()
            declared = {c: enum_categories(native, c) for c in dict.fromkeys((y_true, y_pred)) if c in names}
        lf = lf.with_columns(
            pl.col(c).cast(pl.Enum(cats)) for c, cats in declared.items() if cats is not None
        )
        schema = lf.collect_schema()
        roles = {
            "y_true": y_true,
            "y_pred": y_pred,
            "example": example,
            "fold": fold,
            "repeat": repeat,
        }
        require_columns(schema, roles)
    else:
        if y_pred_values is None:
            msg = "from_ordinal(y_true, y_pred) needs both arrays (or a frame with column names)"
            raise OptionError(msg)
        if any(c is not None for c in (example, fold, repeat)):
            msg = "example=, fold= and repeat= name columns of a frame; with arrays, pass a frame instead"
            raise OptionError(msg)
        y_true, y_pred = "y_true", "y_pred"
        lf = label_frame(data, y_pred_values, y_true, y_pred).lazy()
        origin = FRAME
        schema = lf.collect_schema()

    # -- the order (options, no data) -------------------------------------------------
    if order is not None and (isinstance(order, (str, bytes)) or not isinstance(order, Iterable)):
        # order="cba" was read as ['c', 'b', 'a']; order=5 a raw TypeError
        msg = f"`order` takes a list of the classes from lowest to highest, got {type(order).__name__} {order!r}"
        raise OptionError(msg)
    if n_classes is not None:
        if isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral) or n_classes < 2:
            msg = f"Expected `n_classes` to be an integer >= 2, got {n_classes!r}"
            raise OptionError(msg)
        if order is not None and list(order) != list(range(int(n_classes))):
            msg = f"`n_classes={n_classes}` and `order` disagree; give one of them"
            raise OptionError(msg)
        order = list(range(int(n_classes)))
    dtypes = {c: schema[c] for c in (y_true, y_pred)}
    as_string = {c: isinstance(d, (pl.Enum, pl.Categorical)) for c, d in dtypes.items()}
    if order is None:
        enums = [d for d in dtypes.values() if isinstance(d, pl.Enum)]
        if enums:
            order = enums[0].categories.to_list()
    infer = order is None
    if infer and not all(d.is_integer() for d in dtypes.values()):
        msg = (
            f"the order of the classes is unknown: columns {y_true!r} and {y_pred!r} hold {dtypes[y_true]} "
            "labels; pass order=[lowest, ..., highest] (or n_classes=, or use an Enum column)"
        )
        raise OptionError(msg)
    if any(as_string.values()):
        other = [d for c, d in dtypes.items() if not as_string[c]]
        if any(d != pl.String for d in other):
            msg = (
                f"columns {y_true!r} and {y_pred!r} hold labels of different types "
                f"({dtypes[y_true]} and {dtypes[y_pred]}); cast them to one type first"
            )
            raise InvalidValueError(msg)
        label_dtype: pl.DataType = pl.String()
    elif dtypes[y_true] == dtypes[y_pred]:
        label_dtype = dtypes[y_true]
    elif dtypes[y_true].is_numeric() and dtypes[y_pred].is_numeric():
        label_dtype = pl.Float64() if (dtypes[y_true].is_float() or dtypes[y_pred].is_float()) else pl.Int64()
    else:
        msg = (
            f"columns {y_true!r} and {y_pred!r} hold labels of different types "
            f"({dtypes[y_true]} and {dtypes[y_pred]}); cast them to one type first"
        )
        raise InvalidValueError(msg)
    position = {c: i for i, c in enumerate(schema.names())}
    # the user's columns by position: a name is never read as a pattern ("*", "^x$")
    cols = {c: pl.nth(position[c]).cast(label_dtype).alias(c) for c in (y_true, y_pred)}

    # -- data checks: ONE aggregate query ---------------------------------------------
    shown = [c for c in (example, fold, repeat, y_true, y_pred) if c is not None]
    row = pl.struct([pl.nth(position[c]).alias(c) for c in _unique(shown)])
    checks: dict[str, pl.Expr] = {"n_rows": pl.len()}
    order_series: pl.Series | None = None
    if not infer:
        assert order is not None
        order_series = _order_series(order, label_dtype, y_true)
    for role, c in (("y_true", y_true), ("y_pred", y_pred)):
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
        found = lf.select(**checks).collect().row(0, named=True)
    if not found["n_rows"]:
        msg = "the ordinal labels are empty (no rows)"
        raise EmptyInputError(msg)
    for role, c in (("y_true", y_true), ("y_pred", y_pred)):
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
    if infer:
        low = min(found["min_y_true"], found["min_y_pred"])
        if low < 0:
            msg = (
                f"integer labels without an order are read as 0 .. max, but there is a label {low}; "
                "pass order=[lowest, ..., highest]"
            )
            raise InvalidValueError(msg)
        order = list(range(int(max(found["max_y_true"], found["max_y_pred"])) + 1))
        order_series = _order_series(order, label_dtype, y_true)
    assert order is not None
    assert order_series is not None
    order = list(order)
    if len(order) < 2:
        msg = f"ordinal evaluation needs at least two classes; the order is {order!r}"
        raise OptionError(msg)
    if order_series.n_unique() != len(order):
        msg = f"the order repeats a class: {order!r}"
        raise OptionError(msg)

    # -- the thresholds, lazily: one cross join, sparse -------------------------------
    m = len(order)
    threshold_values = order_series[: m - 1]
    if label_dtype == pl.String:
        # string classes become Enums, so results list them in the ordinal order
        enum = pl.Enum(order_series.to_list())
        cols = {c: e.cast(enum) for c, e in cols.items()}
        order_series = order_series.cast(enum)
        threshold_values = threshold_values.cast(pl.Enum(threshold_values.to_list()))
        rank_true, rank_pred = (cols[c].to_physical().cast(pl.Int64) for c in (y_true, y_pred))
    else:
        ranks = pl.Series(range(m), dtype=pl.Int64)
        rank_true, rank_pred = (
            cols[c].replace_strict(order_series, ranks, return_dtype=pl.Int64) for c in (y_true, y_pred)
        )
    names = schema.names()
    class_col = free_name("class", names)
    y_col, p_col = free_name("y", names), free_name("p", names)
    ex_col = example if example is not None else free_name("example", names)
    # helper columns of the derived frame, apart from the user's names
    rt, rp, k = (free_name(n, names) for n in ("rank_true", "rank_pred", "k"))
    thresholds = pl.LazyFrame({k: pl.Series(range(m - 1), dtype=pl.Int64), class_col: threshold_values})
    # the row index goes last, so the user's columns keep their positions (cols pick by position)
    rows = (
        lf if example is not None else lf.with_columns(pl.int_range(pl.len(), dtype=pl.UInt32).alias(ex_col))
    )
    rows = rows.with_columns(
        rank_true.alias(rt),
        rank_pred.alias(rp),
    )
    long = (
        rows.join(thresholds, how="cross")
        # entries below both ranks are true negatives: left out (threshold 0 keeps every example)
        .filter((pl.col(k) < pl.max_horizontal(rt, rp)) | (pl.col(k) == 0))
        .with_columns(
            (pl.col(rt) > pl.col(k)).cast(pl.Int8).alias(y_col),
            (pl.col(rp) > pl.col(k)).cast(pl.Int8).alias(p_col),
        )
        .drop(rt, rp, k)
    )
    derived = {y_true: "y_true", y_pred: "y_pred"}
    base = long_source(
        long,
        example=ex_col,
        class_=class_col,
        y=y_col,
        p=p_col,
        fold=fold,
        repeat=repeat,
        classes=threshold_values.to_list(),
        derived_from=derived,
    )
    base.origin = origin
    labels = label_source(
        lf.with_columns(cols[y_true], cols[y_pred]),
        y_true=y_true,
        y_pred=y_pred,
        example=example,
        fold=fold,
        repeat=repeat,
        classes=order_series.to_list(),
    )
    labels.origin = origin
    return base, labels, order_series.to_list()


def _unique(items: Sequence[str]) -> list[str]:
    out: list[str] = []
    for it in items:
        if it not in out:
            out.append(it)
    return out
