"""The wide layout of scores: one row per example, one probability per class (``predict_proba``).

:func:`wide_scores` checks a wide table of probabilities (a list of columns, a
Polars selector, a glob, or one List/Array column) and its truth column
``y_true``, and returns the **long layout** of the same scores as a lazy frame:
the wide columns are unpivoted *inside the plan* (Polars ``unpivot`` streams,
DuckDB ``UNPIVOT``, Spark ``stack``), never collected, so that every measure on
scores and every decision of :mod:`aggframe.intake.scores_long` (argmax, threshold,
top-k) reads it unchanged. Why unpivot rather than expressions over the wide
columns: AUROC and average precision rank each class's scores (a sort or a count
per distinct score, per class), and the pooled (micro) ranking mixes the classes;
over wide columns each would be a separate pass per class, whereas the long
frame feeds the one existing grain of the scores, which every engine runs as one
group-by. The unpivot costs no extra scan: the engine expands each row as it
reads it.

Classes
-------
``classes=`` names them in column order. Otherwise, for a list of columns, the
class of each column is its name with the **longest common prefix that ends at a
separator** (``_``, ``-``, ``.``, ``:``, ``/``, ``=``, a space) removed
(``p_0 .. p_9`` give ``"0" .. "9"``, ``proba_cat, proba_dog`` give ``"cat",
"dog"``; ``p_10, p_11`` give ``"10", "11"``: the prefix never ends inside a
name); for one List/Array column the classes are ``0 .. m-1``. The suffixes are
then cast to the dtype of ``y_true`` (``"0"`` becomes ``0`` for integer labels);
a suffix that does not parse as that dtype, two columns naming one class, or a
``y_true`` value that is not one of the classes is an error asking for
``classes=``.

Checks (one aggregate query over the wide rows)
-----------------------------------------------
Null ``y_true``, null, NaN or negative probabilities, and rows whose
probabilities do not sum to 1 within :data:`WIDE_TOLERANCE` (``|sum - 1| <=
tolerance``) are errors naming one row, its sum and the tolerance;
``normalize=True`` divides every row by its sum instead (a row summing to 0 is
still an error). With ``logits=True`` the scores are not probabilities and only
the null and NaN checks apply.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import narwhals as nw
import polars as pl
import polars.selectors as cs

from aggframe._columns import PREFIX, fmt_row, free_name
from aggframe.exceptions import (
    ColumnNotFoundError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    UnknownClassError,
)
from aggframe.intake.frame_input import as_lazy
from aggframe.intake.options import WideOptions
from aggframe.intake.origin import keep_origin, origin_of
from aggframe.intake.read_errors import reading
from aggframe.wide.engines import collect_polars

__all__ = ["WIDE_TOLERANCE", "WideScores", "class_names", "wide_scores"]

#: The default tolerance of the row sums of a wide table: ``|sum - 1| <= 1e-6`` (float32
#: softmax outputs over tens of classes sum to 1 within about 1e-7; scikit-learn's
#: ``predict_proba`` within 1e-15).
WIDE_TOLERANCE = 1e-6

_SEPARATORS = "_-.:/= "
_ROW = f"{PREFIX}wide_row"


@dataclass(frozen=True)
class WideScores:
    """The long layout of a wide score table: a lazy frame and the names of its role columns."""

    frame: Any
    example: str
    class_: str
    score: str
    y: str
    classes: list[Any]


def class_names(columns: Sequence[str]) -> list[str]:
    """The class names of wide score columns: each name without the longest common prefix that ends at a separator.

    >>> class_names(["p_0", "p_1", "p_10"])
    ['0', '1', '10']
    >>> class_names(["proba_cat", "proba_car"])
    ['cat', 'car']
    >>> class_names(["a", "b"])
    ['a', 'b']
    """
    if len(columns) < 2:
        return list(columns)
    common = columns[0]
    for name in columns[1:]:
        i = 0
        while i < min(len(common), len(name)) and common[i] == name[i]:
            i += 1
        common = common[:i]
    cut = max(common.rfind(s) for s in _SEPARATORS) + 1
    return [name[cut:] for name in columns]


def _polars_schema(lf: nw.LazyFrame[Any]) -> pl.Schema:
    native = nw.to_native(lf)
    if isinstance(native, pl.LazyFrame):
        return native.collect_schema()
    return collect_polars(lf.head(0)).schema


def _score_columns(scores: Any, schema: pl.Schema) -> tuple[list[str], bool]:
    """The score columns named by ``scores`` (a list, a selector, a glob, a List/Array column); and whether list mode."""
    names = list(schema.names())
    if cs.is_selector(scores):
        picked = list(cs.expand_selector(schema, scores))
        if not picked:
            msg = f"scores={scores!r} selects no column; available columns: {names}"
            raise ColumnNotFoundError(msg)
        return picked, False
    if isinstance(scores, str):
        if scores in schema and isinstance(schema[scores], (pl.List, pl.Array)):
            return [scores], True
        if any(ch in scores for ch in "*?["):
            picked = [c for c in names if fnmatch.fnmatchcase(c, scores)]
            if not picked:
                msg = f"scores={scores!r} matches no column; available columns: {names}"
                raise ColumnNotFoundError(msg)
            return picked, False
        if scores not in schema:
            msg = f"column {scores!r} (role 'scores') is not in the frame; available columns: {names}"
            raise ColumnNotFoundError(msg)
        msg = (
            f"scores={scores!r} names one column of dtype {schema[scores]}: the wide layout needs one "
            "column per class (a list of columns, a selector or a glob such as 'p_*') or one List/Array "
            "column of per-class probabilities"
        )
        raise OptionError(msg)
    if isinstance(scores, Sequence) and all(isinstance(c, str) for c in scores):
        picked = list(scores)
        missing = [c for c in picked if c not in schema]
        if missing:
            msg = f"column {missing[0]!r} (role 'scores') is not in the frame; available columns: {names}"
            raise ColumnNotFoundError(msg)
        repeated = next((c for i, c in enumerate(picked) if c in picked[:i]), None)
        if repeated is not None:
            msg = f"scores names column {repeated!r} twice; each class has one column"
            raise OptionError(msg)
        return picked, False
    msg = (
        "Expected `scores` to be a list of column names, a Polars selector, a glob such as 'p_*' or the "
        f"name of one List/Array column, got {type(scores).__name__}"
    )
    raise OptionError(msg)


def _classes(
    columns: list[str], classes: Sequence[Any] | None, width: int, dtype: pl.DataType, y_true: str
) -> list[Any]:
    """The class of each score column (or list position), in the dtype of ``y_true``."""
    if classes is not None:
        given = list(classes)
        if len(given) != width:
            msg = f"classes= names {len(given)} class(es) but there are {width} score column(s)/position(s)"
            raise OptionError(msg)
        raw: list[Any] = given
    elif len(columns) == 1:
        raw = list(range(width))
    else:
        raw = class_names(columns)
    target = pl.String if dtype in (pl.Categorical,) or isinstance(dtype, pl.Enum) else dtype
    try:
        typed = pl.Series(raw).cast(target, strict=True).to_list()
    except Exception as exc:
        msg = (
            f"the class names {raw[:5]!r} (from {'classes=' if classes is not None else 'the score columns'}) "
            f"cannot be values of column {y_true!r} (dtype {dtype}); pass classes= with the label of each column"
        )
        raise UnknownClassError(msg) from exc
    if any(v is None for v in typed) or len(set(typed)) != len(typed):
        msg = (
            f"the score columns name the classes {typed[:10]!r} (as {dtype}), with a repeat or an empty name; "
            "pass classes= with the label of each column"
        )
        raise OptionError(msg)
    return typed


def _list_width(lf: nw.LazyFrame[Any], column: str, dtype: pl.DataType, origin: Any) -> int:
    if isinstance(dtype, pl.Array):
        return int(dtype.size)
    n = nw.col(column).list.len()
    with reading(origin):
        row = (
            lf.select(
                n.min().alias("lo"),
                n.max().alias("hi"),
                nw.col(column).is_null().sum().alias("nulls"),
            )
            .collect(backend="polars")
            .to_native()
            .row(0, named=True)
        )
    if row["nulls"]:
        msg = f"column {column!r}: {row['nulls']} null list(s) of scores; every row needs its probabilities"
        raise NullValueError(msg)
    if row["lo"] is None:
        msg = "the scores frame has no rows"
        raise EmptyInputError(msg)
    if row["lo"] != row["hi"]:
        msg = (
            f"column {column!r}: the lists of scores have between {row['lo']} and {row['hi']} entries; "
            "every row needs one probability per class"
        )
        raise InvalidValueError(msg)
    return int(row["hi"])


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _unpivot(
    lf: nw.LazyFrame[Any], *, on: list[str], index: list[str], variable: str, value: str
) -> nw.LazyFrame[Any]:
    """``lf.unpivot``, lazily on every engine: a DuckDB relation is unpivoted on its own connection
    (Narwhals' DuckDB unpivot runs on the default connection, which cannot read a relation of another)."""
    native = nw.to_native(lf)
    if type(native).__module__.startswith("duckdb"):
        view = free_name(f"{PREFIX}wide", [*index, *on])
        sql = (
            f"UNPIVOT {_quoted(view)} ON {', '.join(_quoted(c) for c in on)} "
            f"INTO NAME {_quoted(variable)} VALUE {_quoted(value)}"
        )
        unpivoted: nw.LazyFrame[Any] = nw.from_native(native.query(view, sql))
        return unpivoted
    return lf.unpivot(on=on, index=index, variable_name=variable, value_name=value)


@dataclass(frozen=True)
class _Options:
    """The options of :func:`wide_scores` about the probabilities."""

    normalize: bool
    tolerance: float
    logits: bool


def _check_options(normalize: Any, tolerance: Any, *, logits: bool) -> _Options:
    if not isinstance(normalize, bool):
        msg = f"Expected `normalize` to be True or False, got {normalize!r}"
        raise OptionError(msg)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance < 1:
        msg = f"Expected `tolerance` to be a number in [0, 1), got {tolerance!r}"
        raise OptionError(msg)
    return _Options(normalize, tolerance, logits)


def _check_columns(
    schema: pl.Schema, y_true: str, example: str | None, scores: Any
) -> tuple[list[str], bool]:
    """The score columns (and whether they are one List/Array column), checked against the roles."""
    names = list(schema.names())
    if not isinstance(y_true, str) or y_true not in schema:
        msg = f"column {y_true!r} (role 'y_true') is not in the frame; available columns: {names}"
        raise ColumnNotFoundError(msg)
    if example is not None and example not in schema:
        msg = f"column {example!r} (role 'example') is not in the frame; available columns: {names}"
        raise ColumnNotFoundError(msg)
    columns, listed = _score_columns(scores, schema)
    for c in columns:
        if c in (y_true, example):
            msg = f"column {c!r} is given for two roles, 'scores' and {'y_true' if c == y_true else 'example'!r}"
            raise OptionError(msg)
        dtype = schema[c]
        inner = dtype.inner if isinstance(dtype, (pl.List, pl.Array)) and listed else dtype
        if not (inner is not None and (inner.is_numeric() or inner == pl.Null)):
            msg = f"column {c!r} (role 'scores') has dtype {dtype}; expected numbers (probabilities)"
            raise InvalidValueError(msg)
    if not listed and len(columns) < 2:
        msg = (
            f"scores selects one column ({columns[0]!r}); the wide layout needs one column per class "
            "(for a binary task with the positive class's score, use class_=None, y=..., score=...)"
        )
        raise OptionError(msg)
    return columns, listed


def _prepare_probs(
    lf: nw.LazyFrame[Any], schema: pl.Schema, columns: list[str], *, listed: bool, width: int
) -> tuple[nw.LazyFrame[Any], list[str]]:
    """The probabilities under private names, one column per class, and those names."""
    private = [free_name(f"{PREFIX}p{i}", set(schema.names())) for i in range(width)]
    if listed:
        as_list = nw.col(columns[0])
        if isinstance(schema[columns[0]], pl.Array):
            as_list = as_list.cast(nw.List(nw.Float64))
        values = [as_list.list.get(i).cast(nw.Float64) for i in range(width)]
    else:
        values = [nw.col(c).cast(nw.Float64) for c in columns]
    return lf.with_columns(*[v.alias(p) for v, p in zip(values, private, strict=True)]), private


@dataclass(frozen=True)
class _Probs:
    """The probabilities under private names, with what the error messages show of a row."""

    probs: nw.LazyFrame[Any]
    private: list[str]
    origin: Any
    #: the columns a message shows of an offending row (example, truth, scores)
    shown: list[nw.Expr]
    #: the score columns, as a message names them
    what: str

    def total(self) -> nw.Expr:
        return nw.sum_horizontal(*[nw.col(p) for p in self.private])

    def any_of(self, flag: Callable[[nw.Expr], nw.Expr]) -> nw.Expr:
        return nw.any_horizontal(*[flag(nw.col(p)) for p in self.private], ignore_nulls=True)

    def row(self, predicate: nw.Expr, *extra: nw.Expr) -> str:
        """The first row ``predicate`` flags (with ``extra`` columns), for a message; ``?`` if none."""
        try:
            with reading(self.origin):
                df = (
                    self.probs.filter(predicate)
                    .select(*self.shown, *extra)
                    .head(1)
                    .collect(backend="polars")
                    .to_native()
                )
        except Exception:
            return "?"
        return fmt_row(df.row(0, named=True)) if df.height else "?"


def _compute_checks(
    wide: _Probs, y_true: str, truth: nw.Expr, labels: list[Any], options: _Options
) -> dict[str, Any]:
    """The one check query over the wide rows: how many rows each check flags."""
    total = wide.total()

    def n(flag: nw.Expr) -> nw.Expr:
        return flag.cast(nw.Int64).sum()

    checks: dict[str, nw.Expr] = {
        "n": nw.len(),
        "null_y": n(nw.col(y_true).is_null()),
        "null_p": n(wide.any_of(lambda p: p.is_null())),
        "nan_p": n(wide.any_of(lambda p: p.is_nan())),
        "unknown_y": n((~truth.is_in(labels)).fill_null(value=False)),
    }
    if not options.logits:
        checks["neg_p"] = n(wide.any_of(lambda p: p < 0))
        checks["zero_sum"] = n((total <= 0).fill_null(value=False))
        checks["off_sum"] = n(((total - 1.0).abs() > options.tolerance).fill_null(value=False))
    with reading(wide.origin):
        found: dict[str, Any] = (
            wide.probs.select(*[e.alias(k) for k, e in checks.items()])
            .collect(backend="polars")
            .to_native()
            .row(0, named=True)
        )
    return found


def _check_missing(found: dict[str, Any], wide: _Probs, y_true: str) -> None:
    """No rows, null truth, null or NaN probabilities."""
    what, row = wide.what, wide.row
    if not found["n"]:
        msg = "the scores frame has no rows"
        raise EmptyInputError(msg)
    # a null truth is an unlabelled example: its entries' truth is null (checked as the long layout's)
    if found["null_p"]:
        pred = wide.any_of(lambda p: p.is_null())
        msg = f"{what}: {found['null_p']} row(s) with a null probability (e.g. row {row(pred)}); scores must not be null"
        raise NullValueError(msg)
    if found["nan_p"]:
        pred = wide.any_of(lambda p: p.is_nan())
        msg = f"{what}: {found['nan_p']} row(s) with a NaN probability (e.g. row {row(pred)}); scores must be numbers"
        raise NullValueError(msg)


def _check_values(
    found: dict[str, Any],
    wide: _Probs,
    truth: tuple[str, nw.Expr],
    labels: list[Any],
    options: _Options,
    *,
    classes_given: bool,
) -> None:
    """Negative probabilities, truth without a score column, rows that do not sum to 1."""
    what, row, total = wide.what, wide.row, wide.total()
    y_true, truth_expr = truth
    if found.get("neg_p"):
        pred = wide.any_of(lambda p: p < 0)
        msg = (
            f"{what}: {found['neg_p']} row(s) with a negative probability (e.g. row {row(pred)}); "
            "probabilities are in [0, 1] (pass logits=True if the scores are logits)"
        )
        raise InvalidValueError(msg)
    if found["unknown_y"]:
        pred = (~truth_expr.is_in(labels)).fill_null(value=False)
        msg = (
            f"column {y_true!r}: {found['unknown_y']} row(s) with a class that has no score column "
            f"(e.g. row {row(pred)}); the score columns name the classes {labels[:10]!r}"
            + ("" if classes_given else "; pass classes= if the column names do not")
        )
        raise UnknownClassError(msg)
    if found.get("zero_sum"):
        msg = f"{what}: {found['zero_sum']} row(s) whose probabilities sum to 0 (e.g. row {row(total <= 0)}); nothing to normalise"
        raise InvalidValueError(msg)
    if found.get("off_sum") and not options.normalize:
        tolerance = options.tolerance
        pred = ((total - 1.0).abs() > tolerance).fill_null(value=False)
        msg = (
            f"{what}: {found['off_sum']} row(s) whose probabilities do not sum to 1 within tolerance={tolerance:g} "
            f"(e.g. row {row(pred, total.alias('sum'))}); pass normalize=True to divide each row by its sum, "
            "or tolerance= to accept it"
        )
        raise InvalidValueError(msg)


def _compute_long(
    wide: _Probs,
    schema: pl.Schema,
    columns: list[str],
    roles: tuple[str, str | None, nw.Expr],
    labels: list[Any],
    *,
    options: _Options,
) -> WideScores:
    """The long layout, lazily: one row per (example, class)."""
    y_true, ex, truth = roles
    probs, private = wide.probs, wide.private
    names = list(schema.names())
    taken = set(names)
    if ex is None:
        ex = free_name("example", taken)
        native = nw.to_native(probs)
        if isinstance(native, pl.LazyFrame):
            probs = nw.from_native(native.with_row_index(ex))
        else:
            probs = probs.with_row_index(ex, order_by=[y_true])
        taken.add(ex)
    if options.normalize and not options.logits:
        s = free_name(f"{PREFIX}sum", taken | set(private))
        probs = probs.with_columns(wide.total().alias(s)).with_columns(
            *[(nw.col(p) / nw.col(s)).alias(p) for p in private]
        )
        probs = probs.drop(s)
    kept = [c for c in names if c not in columns]
    class_col = free_name("class", taken)
    score_col = free_name("score", taken | {class_col})
    y_col = free_name("y", taken | {class_col, score_col})
    variable = free_name(f"{PREFIX}variable", taken | set(private))
    long = _unpivot(
        probs.select(*dict.fromkeys([ex, *kept]), *private),
        on=private,
        index=list(dict.fromkeys([ex, *kept])),
        variable=variable,
        value=score_col,
    )
    y_dtype = schema[y_true]
    truth_text = y_dtype == pl.Categorical or isinstance(y_dtype, pl.Enum)
    class_dtype = (
        nw.String if truth_text else nw.from_native(pl.DataFrame(schema=[("c", y_dtype)])).schema["c"]
    )
    long = long.with_columns(
        nw.col(variable)
        .replace_strict(private, labels, default=labels[0], return_dtype=class_dtype)
        .alias(class_col)
    )
    long = long.with_columns((nw.col(class_col) == truth).cast(nw.Int8).alias(y_col)).drop(variable)
    return WideScores(
        frame=nw.to_native(long), example=ex, class_=class_col, score=score_col, y=y_col, classes=labels
    )


def wide_scores(frame: Any, opts: WideOptions) -> WideScores:
    """The wide layout checked and unpivoted lazily to the long layout (see the module's docstring)."""
    y_true, scores, classes, example = opts.y_true, opts.scores, opts.classes, opts.example
    options = _check_options(opts.normalize, opts.tolerance, logits=opts.logits)
    lf = as_lazy(frame, "frame")
    origin = origin_of(lf)
    schema = _polars_schema(lf)
    columns, listed = _check_columns(schema, y_true, example, scores)
    y_dtype = schema[y_true]
    width = _list_width(lf, columns[0], schema[columns[0]], origin) if listed else len(columns)
    labels = _classes(columns, classes, width, y_dtype, y_true)
    probs, private = _prepare_probs(lf, schema, columns, listed=listed, width=width)
    truth_text = y_dtype == pl.Categorical or isinstance(y_dtype, pl.Enum)
    truth = nw.col(y_true).cast(nw.String) if truth_text else nw.col(y_true)
    shown_scores = [nw.col(c) for c in columns] if not listed else [nw.col(columns[0])]
    what = (
        f"columns {columns[:3]!r}{'...' if len(columns) > 3 else ''}"
        if not listed
        else f"column {columns[0]!r}"
    )
    shown = [*([nw.col(example)] if example is not None else []), nw.col(y_true), *shown_scores]
    wide = _Probs(probs, private, origin, shown, what)
    found = _compute_checks(wide, y_true, truth, labels, options)
    _check_missing(found, wide, y_true)
    _check_values(found, wide, (y_true, truth), labels, options, classes_given=classes is not None)
    out = _compute_long(wide, schema, columns, (y_true, example, truth), labels, options=options)
    if isinstance(out.frame, pl.LazyFrame):
        return replace(out, frame=keep_origin(out.frame, nw.to_native(lf)))
    return out
