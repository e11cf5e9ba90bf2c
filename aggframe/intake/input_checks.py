"""The intake's checks of options and columns, one copy each for every input form.

The missing-column error, the numeric role check, the class universe
(``classes=``/``n_classes=``/an ``Enum`` column, per target as a dict), label
arrays (1-D, same length, one label type), the alignment of ``y_true`` and
``y_pred`` dtypes, and the declared examples of the long form.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import narwhals as nw
import polars as pl

from aggframe._options import ClassUniverse, parse_class_universe
from aggframe.exceptions import (
    ColumnNotFoundError,
    EmptyInputError,
    InvalidValueError,
    OptionError,
    ShapeError,
)
from aggframe.intake.label_arrays import object_labels

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = [
    "align_label_dtypes",
    "check_class_universe",
    "check_groupable",
    "check_numeric",
    "declared_examples",
    "enum_categories",
    "label_frame",
    "null_columns",
    "require_columns",
    "resolve_universe",
    "unfit_labels",
]

Universe = list[Any] | dict[Any, list[Any]]


def require_columns(
    schema: Mapping[str, Any] | nw.Schema | pl.Schema, needed: Mapping[str, str | None]
) -> None:
    """Each role's column is in the frame, or a :class:`ColumnNotFoundError` naming it and the available ones."""
    missing = [(role, col) for role, col in needed.items() if col is not None and col not in schema]
    if missing:
        role, col = missing[0]
        shown = role.split("[")[0]
        msg = (
            f"column {col!r} (role {role!r}) is not in the frame; available columns: "
            f"{list(schema.keys())}. Rename it or pass {shown}=<column name>"
        )
        raise ColumnNotFoundError(msg)
    for name, column in needed.items():
        if column is not None:
            check_groupable(column, schema[column], f"role {name.split('[')[0]!r}")
    seen: dict[str, str] = {}
    for name, column in needed.items():
        if column is None:
            continue
        if column in seen:
            # y_true='y_pred' (a typo) scored the predictions against themselves: f1 1.0
            msg = (
                f"column {column!r} is given for two roles, {seen[column].split('[')[0]!r} and "
                f"{name.split('[')[0]!r}; each role needs its own column"
            )
            raise OptionError(msg)
        seen[column] = name


def check_groupable(column: str, dtype: Any, what: str) -> None:
    """Refuse a column of Python objects (Polars' ``Object``): no engine groups, joins or compares them.

    ``what`` says what the column is for (``role 'y_true'``, ``by column``), for the message.
    """
    if type(dtype).__name__ == "Object":
        msg = (
            f"column {column!r} ({what}) has dtype Object (Python objects), which cannot be grouped, "
            "joined or compared; cast it to String or a number first "
            f"(e.g. pl.col({column!r}).map_elements(str, return_dtype=pl.String))"
        )
        raise InvalidValueError(msg)


def check_numeric(
    schema: nw.Schema, roles: dict[str, str | None], nulls: set[str] | frozenset[str] = frozenset()
) -> None:
    """Each role's column holds booleans or numbers (a column of nothing but nulls, ``nulls``, is left
    to the null check, which counts its rows)."""
    for role, col in roles.items():
        if col is None or col in nulls:
            continue
        dtype = schema[col]
        if not (dtype.is_numeric() or dtype == nw.Boolean):
            msg = f"column {col!r} (role {role!r}) has dtype {dtype}; expected booleans or numbers in [0, 1]"
            raise InvalidValueError(msg)


def resolve_universe(
    n_classes: int | dict[Any, int] | None,
    classes: Sequence[Any] | dict[Any, Sequence[Any]] | None,
    enum_categories: list[Any] | None,
    target: str | None = None,
) -> Universe | None:
    if isinstance(n_classes, dict) or isinstance(classes, dict):
        return _universe_per_target(n_classes, classes, target)
    if n_classes is not None:
        return _universe_from_n(n_classes, classes)
    if classes is not None:
        return _universe_from_classes(classes)
    return enum_categories


def _universe_per_target(
    n_classes: int | dict[Any, int] | None,
    classes: Sequence[Any] | dict[Any, Sequence[Any]] | None,
    target: str | None,
) -> Universe:
    """The universe of each target, from ``n_classes`` or ``classes`` given as a dict."""
    if target is None:
        msg = "classes/n_classes given per target (a dict) need a target column: pass target='<column>'"
        raise OptionError(msg)
    if n_classes is not None and classes is not None:
        msg = "give either `n_classes` or `classes` per target, not both"
        raise OptionError(msg)
    out: dict[Any, list[Any]] = {}
    if isinstance(n_classes, dict):
        for t, size in n_classes.items():
            out[t] = resolve_universe(size, None, None)  # type: ignore[assignment]
    elif isinstance(classes, dict):
        for t, values in classes.items():
            out[t] = resolve_universe(None, values, None)  # type: ignore[assignment]
    return out


def _universe_from_n(
    n_classes: object, classes: Sequence[Any] | dict[Any, Sequence[Any]] | None
) -> list[Any]:
    """The classes 0, ..., n_classes - 1 (``classes``, if given too, must name the same)."""
    if not isinstance(n_classes, (int, np.integer)) or isinstance(n_classes, bool) or n_classes < 1:
        msg = f"Expected `n_classes` to be a positive integer, got {n_classes!r}"
        raise OptionError(msg)
    from_n = list(range(int(n_classes)))
    if classes is not None and list(classes) != from_n:
        msg = f"`n_classes={n_classes}` and `classes` disagree; give one of them"
        raise OptionError(msg)
    return from_n


def _universe_from_classes(classes: object) -> list[Any]:
    """The declared classes as a list: a non-empty iterable of non-null values."""
    if isinstance(classes, (str, bytes)) or not isinstance(classes, Iterable):
        # classes="012" read as the classes '0', '1', '2'; classes=3 as a raw TypeError
        msg = (
            f"`classes` takes a list of classes, got {type(classes).__name__} {classes!r}; e.g. "
            "classes=['cat', 'dog'] (or n_classes=3 for the classes 0, 1, 2)"
        )
        raise OptionError(msg)
    values = list(classes)
    if not values:
        msg = "Expected `classes` to hold at least one class"
        raise OptionError(msg)
    if any(v is None for v in values):
        msg = f"`classes` {values[:5]!r} name a null class; a class is a value, not null"
        raise OptionError(msg)
    return values


def enum_categories(lf: nw.LazyFrame[Any], column: str) -> list[Any] | None:
    """The declared categories of an Enum column (Polars ``Enum``, DuckDB ``ENUM``), in order; else None."""
    native = nw.to_native(lf)
    if isinstance(native, pl.LazyFrame):
        dtype = native.collect_schema()[column]
        return dtype.categories.to_list() if isinstance(dtype, pl.Enum) else None
    # other engines: Narwhals reads the categories off the engine's type (a DuckDB ENUM comes
    # through Arrow as a dictionary, which Polars would call Categorical: no order, no universe)
    declared = lf.collect_schema()[column]
    return list(declared.categories) if isinstance(declared, nw.Enum) else None


def check_class_universe(mode: object, universe: Any) -> ClassUniverse:
    checked = parse_class_universe(mode)
    if checked == "group" and universe is not None:
        msg = "class_universe='group' takes each group's observed classes; it cannot be combined with declared classes"
        raise OptionError(msg)
    return checked


def real_dtype(dtype: np.dtype[Any]) -> bool:
    """Booleans or real numbers: what indicator matrices, masks and cost matrices hold (complex
    values would lose their imaginary part in the cast to float, 1j read as 0)."""
    return bool(
        (np.issubdtype(dtype, np.number) and not np.issubdtype(dtype, np.complexfloating))
        or np.issubdtype(dtype, np.bool_)
    )


def plain_array(values: Any, name: str) -> Any:
    """An array NumPy reads as it is meant: a SciPy sparse matrix densified (``np.asarray`` made it a
    0-d object array: "shape ()"), a masked array with masked entries refused (NumPy drops the
    mask: masked entries were counted as data). Anything else is returned unchanged."""
    if type(values).__module__.startswith("scipy.sparse") and hasattr(values, "toarray"):
        return values.toarray()
    if isinstance(values, np.ma.MaskedArray):
        if np.ma.getmaskarray(values).any():
            msg = (
                f"{name} is a masked array with {int(np.ma.getmaskarray(values).sum())} masked entries, which "
                "NumPy would read as data: pass the observation mask as mask= (indicator matrices) or drop "
                "those entries first"
            )
            raise InvalidValueError(msg)
        return np.ma.getdata(values)
    return values


def _label_array(values: Any, name: str) -> np.ndarray:
    values = plain_array(values, name)
    if isinstance(values, (list, tuple)) and any(isinstance(v, str) for v in values):
        # NumPy would make [0, "a"] an array of strings (0 becomes "0"): keep the Python
        # objects, so that a mix of strings and numbers is refused as in an object array
        kinds = {type(v) for v in values if v is not None}
        if kinds - {str}:
            return np.asarray(values, dtype=object)
    try:
        return np.asarray(values)
    except ValueError as exc:
        msg = f"{name} is not a 1-D sequence of labels (ragged or nested input): {exc}"
        raise ShapeError(msg) from exc


def label_frame(y_true: Any, y_pred: Any, true_name: str, pred_name: str) -> pl.DataFrame:
    """Two label arrays, checked (1-D, same length, not empty), as a frame."""
    yt, yp = _label_array(y_true, "y_true"), _label_array(y_pred, "y_pred")
    if yt.ndim != 1 or yp.ndim != 1:
        msg = (
            f"Expected 1-D label arrays, got shapes {yt.shape} and {yp.shape}; for indicator "
            "matrices use af.from_indicator"
        )
        raise ShapeError(msg)
    if yt.shape != yp.shape:
        msg = f"y_true has {yt.shape[0]} labels but y_pred has {yp.shape[0]}"
        raise ShapeError(msg)
    if yt.size == 0:
        msg = "the label arrays are empty"
        raise EmptyInputError(msg)
    return pl.DataFrame({true_name: _label_series(yt, "y_true"), pred_name: _label_series(yp, "y_pred")})


def _label_series(values: np.ndarray, name: str) -> pl.Series:
    # object arrays (e.g. ints with a None) go through lists, so None becomes a null
    return object_labels(values, name) if values.dtype == object else pl.Series(values)


def null_columns(lf: nw.LazyFrame[Any]) -> set[str]:
    """The columns of dtype ``Null`` (nothing but nulls: an empty CSV column) of a Polars frame.

    Narwhals reads that dtype as ``Unknown``; the native schema tells it from types
    that are really unknown. Other engines type such a column themselves.
    """
    native = nw.to_native(lf)
    if not isinstance(native, pl.LazyFrame):
        return set()
    return {c for c, d in native.collect_schema().items() if d == pl.Null}


def align_label_dtypes(
    schema: Mapping[str, Any], y_true: str, y_pred: str, nulls: set[str] | frozenset[str] = frozenset()
) -> Any:
    """The one dtype y_true and y_pred are read as (a Narwhals dtype), None when they share one; or refuse.

    Int32 vs Int64, int vs float and bool vs int are one numeric type; numbers
    and strings never mix (scikit-learn: "Mix of label input types"): the string
    "0" is not the number 0, on arrays as on frames. A column of nothing but nulls
    (``nulls``: dtype ``Null``) is read as the other's type, so that the null check
    counts its rows (both: as integers).
    """
    a, b = schema[y_true], schema[y_pred]
    if y_true in nulls or y_pred in nulls:
        if y_true in nulls and y_pred in nulls:
            return nw.Int64
        return b if y_true in nulls else a
    if a == b:
        return None

    def numeric(d: Any) -> bool:
        return bool(d.is_numeric() or d == nw.Boolean)

    if numeric(a) and numeric(b):
        decimals = [d for d in (a, b) if d == nw.Decimal]
        wide = [d for d in decimals if getattr(d, "precision", None) is None or d.precision > _EXACT_DIGITS]
        if wide:
            # an integer type would truncate 1.5 to 1; a Float64 tells apart decimals of at most
            # 15 digits only (DuckDB reads the literal 3.0 as DECIMAL(2,1): that one mixes)
            msg = (
                f"columns {y_true!r} ({a}) and {y_pred!r} ({b}) hold labels of different types, and "
                f"{wide[0]} has more digits than a Float64 tells apart ({_EXACT_DIGITS}); cast them to one type first"
            )
            raise InvalidValueError(msg)
        if a.is_float() or b.is_float() or decimals:
            return nw.Float64
        unsigned = [d for d in (a, b) if d.is_unsigned_integer()]
        return nw.UInt64 if len(unsigned) == 2 else nw.Int64
    msg = (
        f"columns {y_true!r} ({a}) and {y_pred!r} ({b}) hold labels of different types: a mix of "
        "label input types (the string '0' is not the number 0); cast them to one type first"
    )
    raise InvalidValueError(msg)


#: The decimal digits a Float64 tells apart: two decimals of at most 15 significant digits
#: are two floats (DBL_DIG).
_EXACT_DIGITS = 15
#: The integers a Float64 holds exactly: up to 2^53 in magnitude.
EXACT_IN_FLOAT = 2**53
_INT64_MAX = 2**63 - 1


def unfit_labels(dtype: Any, column: str, cast: Any) -> tuple[Any, str] | None:
    """The labels of ``column`` (of ``dtype``) that the common label type ``cast`` cannot hold exactly.

    A flag expression and what the flagged labels are, or None when every value
    fits: integers beyond 2^53 in magnitude read as Float64 (next to float labels:
    two of them could become one float), and UInt64 labels above 2^63 - 1 read as
    Int64 (next to signed ones). The label form reads those as null and, when the
    null check finds them, counts them on the source with this flag.
    """
    col = nw.col(column)
    if cast == nw.Float64 and dtype.is_integer():
        flag = col > EXACT_IN_FLOAT
        if dtype.is_signed_integer():
            flag = flag | (col < -EXACT_IN_FLOAT)
        return flag, (
            "integer label(s) beyond 2^53 in magnitude, which the Float64 labels of both columns "
            "(the other holds floats) cannot tell apart"
        )
    if cast == nw.Int64 and dtype in (nw.UInt64, nw.UInt128):
        return (
            col > _INT64_MAX,
            "label(s) above 2^63 - 1, which Int64 (the other holds signed integers) cannot hold",
        )
    if cast == nw.Int64 and dtype == nw.Int128:
        return (
            (col > _INT64_MAX) | (col < -_INT64_MAX - 1),
            "label(s) beyond the Int64 range (a 128-bit column next to 64-bit labels), which Int64 cannot hold",
        )
    if cast == nw.UInt64 and dtype == nw.UInt128:
        return col > 2**64 - 1, "label(s) above 2^64 - 1, which UInt64 (the other's type) cannot hold"
    return None


def declared_examples(
    examples: Any, lf: nw.LazyFrame[Any], *, target: str | None, class_universe: str
) -> int | pl.LazyFrame | None:
    """Check the ``examples=`` option of the long form (a count or a frame)."""
    if examples is None:
        return None
    if target is not None or class_universe == "group":
        msg = "examples= declares the examples of one class universe: not with targets or class_universe='group'"
        raise OptionError(msg)
    if isinstance(examples, (int, np.integer)) and not isinstance(examples, bool):
        if examples < 1:
            msg = f"Expected examples= to be a positive count of examples, got {examples!r}"
            raise OptionError(msg)
        return int(examples)
    if isinstance(examples, (pl.DataFrame, pl.LazyFrame)):
        if not isinstance(nw.to_native(lf), pl.LazyFrame):
            msg = "examples= as a frame needs a Polars source (a count works on every engine)"
            raise OptionError(msg)
        return examples.lazy()
    msg = f"Expected examples= to be a count or a Polars frame of example ids, got {type(examples).__name__}"
    raise OptionError(msg)
