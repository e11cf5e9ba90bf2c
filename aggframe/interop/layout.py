"""Wide tables: one row per group, one column per measure x operator (x convention, x pooling).

Every tidy frame aggframe returns puts its group keys first, then ``measure``,
``operator`` and the values. :func:`wide_table` spreads the specification columns into
column names so a report reads like a spreadsheet, without a hand-written pivot.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from aggframe._columns import PREFIX, group_label, key_label, named
from aggframe.exceptions import ColumnNotFoundError, DuplicateEntryError, OptionError
from aggframe.operators.grouping import GROUPING_COLUMN, GROUPING_ID

__all__ = [
    "GROUPING_MARKS",
    "SPEC_COLUMNS",
    "key_columns",
    "key_labels",
    "label_of",
    "named",
    "wide",
    "wide_table",
]

#: The columns that say *what* a row of a tidy result computed, in the order they appear in a
#: wide column name. ``measure`` and ``operator`` always name a column; the others only when
#: they take more than one value in the frame.
SPEC_COLUMNS: tuple[str, ...] = ("measure", "operator", "convention", "pooling")
_ALWAYS = ("measure", "operator")
#: The columns that mark the grouping set of a row (``grouping_sets=``): never group keys themselves.
GROUPING_MARKS: tuple[str, ...] = (GROUPING_COLUMN, GROUPING_ID)
_INDEX = f"{PREFIX}row"
#: The number of examples of each group of a tidy result, kept beside the keys of a wide one.
EXAMPLES_COLUMN = "n_examples"


def _rolled_up(df: pl.DataFrame, column: str) -> pl.Expr | None:
    """Whether ``column`` is rolled up in a row of a grouping-set result (None: it never is).

    The by-columns of such a result are the columns before ``grouping_set``, in order, and bit
    ``n - 1 - i`` of ``grouping_id`` is set where the ``i``-th is rolled up (its key null).
    """
    if GROUPING_ID not in df.columns or GROUPING_COLUMN not in df.columns:
        return None
    by = df.columns[: df.columns.index(GROUPING_COLUMN)]
    if column not in by:
        return None
    bit = 1 << (len(by) - 1 - by.index(column))
    return (pl.col(GROUPING_ID) & bit) != 0


def key_columns(df: pl.DataFrame, stop: Sequence[str] = SPEC_COLUMNS) -> list[str]:
    """The key columns of a tidy result: those before the first of ``stop``, not the grouping-set marks."""
    first = min((df.columns.index(c) for c in stop if c in df.columns), default=0)
    return [c for c in df.columns[:first] if c not in GROUPING_MARKS]


def key_labels(df: pl.DataFrame, keys: Sequence[str], *, rolled_up: pl.Expr | None = None) -> list[pl.Expr]:
    """The label of each key column of a tidy result (:func:`~aggframe._columns.key_label`), named as it.

    A null key reads ``(null)``; in a grouping-set result a rolled-up key reads ``(all)``, as it
    does in the rows where ``rolled_up`` is true (a finding of ``diagnose`` stated for all groups).
    """
    return [
        key_label(
            named(k), df.schema[k], rolled_up=_rolled_up(df, k) if rolled_up is None else rolled_up
        ).alias(k)
        for k in keys
    ]


def label_of(df: pl.DataFrame, keys: Sequence[str]) -> pl.Expr:
    """One label per group of a tidy result, its key labels joined (``gbm · 2026-11-01``); two
    groups never share one (:func:`~aggframe._columns.group_label`)."""
    return group_label(key_labels(df, keys))


def _private_keys(keys: Sequence[str]) -> list[str]:
    """Stand-in names for the user's key columns while a frame is reshaped."""
    return [f"{PREFIX}key{i}" for i in range(len(keys))]


def _as_list(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _keys_before_spec(columns: list[str], spec: list[str]) -> list[str]:
    first = min(columns.index(c) for c in spec)
    return columns[:first]


def _check_wide(
    columns: list[str], values: str | Sequence[str], by: str | Sequence[str] | None
) -> tuple[list[str], list[str], list[str]]:
    """The value columns, the row keys and the specification columns spread into column names."""
    spec = [c for c in SPEC_COLUMNS if c in columns]
    if "measure" not in spec:
        msg = f"wide() needs a tidy aggframe result with a 'measure' column; the frame has columns {columns}"
        raise ColumnNotFoundError(msg)
    value_cols = _as_list(values)
    if not value_cols:
        msg = "wide(values=...) names no column; give one, e.g. values='value'"
        raise OptionError(msg)
    keys = _as_list(by) if by is not None else _keys_before_spec(columns, spec)
    spec = [c for c in spec if c not in keys]  # a specification column named in by= is a row key
    missing = [c for c in [*value_cols, *keys] if c not in columns]
    if missing:
        msg = f"wide(): column(s) {missing} not in the report; it has {columns}"
        raise ColumnNotFoundError(msg)
    clash = [c for c in value_cols if c in keys or c in spec]
    if clash:
        msg = f"wide(): {clash} is both a value and a key or specification column"
        raise OptionError(msg)
    return value_cols, keys, spec


def _check_names(long: pl.DataFrame, keys: list[str], user_keys: list[str]) -> list[str]:
    """The wide column names, in order; refused when two rows share keys and name, or a name is a key."""
    dup = long.group_by([*keys, "__name__"], maintain_order=True).len().filter(pl.col("len") > 1)
    if dup.height:
        example = dup.rename(dict(zip(keys, user_keys, strict=True))).row(0, named=True)
        msg = (
            f"wide(): {dup.height} combination(s) of the keys {user_keys} and the column name appear more "
            f"than once, e.g. {example}; pass every group column in by=[...]"
        )
        raise DuplicateEntryError(msg)
    names: list[str] = long.get_column("__name__").unique(maintain_order=True).to_list()
    clash = [n for n in names if n in user_keys]
    if clash:
        msg = f"wide(): the column name(s) {clash} are also key columns; rename the key or use separator="
        raise OptionError(msg)
    return names


def wide_table(
    report: pl.DataFrame | pl.LazyFrame,
    *,
    values: str | Sequence[str] = "value",
    by: str | Sequence[str] | None = None,
    separator: str = " ",
) -> pl.DataFrame:
    """Spread a tidy result into one row per group and one column per measure x operator.

    Parameters
    ----------
    report
        A tidy frame from ``Predictions.evaluate``, ``per_class``, ``compare``, ... (a LazyFrame
        is collected: results are small).
    values
        The value column(s) to spread (``"value"``; ``compare`` also has ``difference_to_overall``
        and ``ratio_to_overall``). With several, each column name ends with the value's name.
    by
        The row keys. Default: the columns before the first specification column (``measure``,
        ``operator``, ``convention``, ``pooling``): the by-keys every aggframe result puts first
        (and ``class`` in a ``per_class`` frame). A specification column named here stays a row
        key: ``by=["model", "measure"]`` gives one row per model and measure and one column per
        operator.
    separator
        Joins the parts of a column name: ``"f1 macro"``, ``"f1 macro zero"``.

    Returns
    -------
    pl.DataFrame
        The keys first, in the order they first appear, then one column per combination of
        ``measure`` and ``operator`` (and ``convention``/``pooling`` where they take several
        values), in the order of the rows. Columns a tidy frame has beyond the keys, the
        specification and ``values`` (``n_entries``, ``n_undefined``, ...) are left out.

    Raises
    ------
    ColumnNotFoundError
        A value or key column is not in the frame, or the frame has no ``measure`` column.
    DuplicateEntryError
        Two rows share the keys and the specification (pass the missing key in ``by``).
    OptionError
        A wide column name equals a key column's name.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    >>> report = pr.evaluate(["f1", "recall"], ["micro", "macro"])
    >>> af.wide_table(report)
    shape: (1, 5)
    ┌────────────┬──────────┬──────────┬──────────────┬──────────────┐
    │ n_examples ┆ f1 micro ┆ f1 macro ┆ recall micro ┆ recall macro │
    │ ---        ┆ ---      ┆ ---      ┆ ---          ┆ ---          │
    │ i64        ┆ f64      ┆ f64      ┆ f64          ┆ f64          │
    ╞════════════╪══════════╪══════════╪══════════════╪══════════════╡
    │ 6          ┆ 0.5      ┆ 0.522222 ┆ 0.5          ┆ 0.5          │
    └────────────┴──────────┴──────────┴──────────────┴──────────────┘
    >>> af.wide_table(report, by="measure")  # one row per measure, one column per operator
    shape: (2, 4)
    ┌─────────┬────────────┬───────┬──────────┐
    │ measure ┆ n_examples ┆ micro ┆ macro    │
    │ ---     ┆ ---        ┆ ---   ┆ ---      │
    │ str     ┆ i64        ┆ f64   ┆ f64      │
    ╞═════════╪════════════╪═══════╪══════════╡
    │ f1      ┆ 6          ┆ 0.5   ┆ 0.522222 │
    │ recall  ┆ 6          ┆ 0.5   ┆ 0.5      │
    └─────────┴────────────┴───────┴──────────┘
    """
    df = report.collect() if isinstance(report, pl.LazyFrame) else report
    value_cols, keys, spec = _check_wide(df.columns, values, by)

    # the keys under stand-in names while reshaping (a key may be called "*", "^x$", "__name__")
    user_keys, keys = keys, _private_keys(keys)
    df = df.rename(dict(zip(user_keys, keys, strict=True)))

    # name parts: measure and operator always, the others when they vary
    parts = [c for c in spec if c in _ALWAYS or df.get_column(c).n_unique() > 1]
    if not parts and len(value_cols) == 1:
        parts = [value_cols[0]]
    tidy = df  # the rows before the values are stacked (their n_examples)
    if len(value_cols) > 1:
        df = df.unpivot(on=value_cols, index=[*keys, *spec], variable_name="__value__", value_name="__v__")
        parts_exprs = [*parts, "__value__"]
        value_col = "__v__"
    else:
        parts_exprs = parts
        value_col = value_cols[0]
    if parts_exprs == [value_col]:  # nothing left to spread: the value keeps its name
        name = pl.lit(value_col)
    else:
        name = pl.concat_str(
            [pl.col(c).cast(pl.String).fill_null("null") for c in parts_exprs], separator=separator
        )
    long = df.select(*keys, name.alias("__name__"), pl.col(value_col))

    names = _check_names(long, keys, user_keys)

    if not keys:
        long = long.with_columns(pl.lit(0).alias(_INDEX))
        tidy = tidy.with_columns(pl.lit(0).alias(_INDEX))
    index = keys or [_INDEX]
    out = long.pivot(on="__name__", on_columns=names, index=index, values=value_col, maintain_order=True)
    out = _with_examples(out, tidy, index, [*user_keys, *names, *value_cols, *spec])
    return out.drop(_INDEX) if not keys else out.rename(dict(zip(keys, user_keys, strict=True)))


def _with_examples(out: pl.DataFrame, df: pl.DataFrame, index: list[str], taken: list[str]) -> pl.DataFrame:
    """The wide rows with their ``n_examples`` after the keys, when the tidy rows of each wide row
    share one (every group of ``evaluate``); left out where it varies within a wide row."""
    if EXAMPLES_COLUMN not in df.columns or EXAMPLES_COLUMN in taken:
        return out
    sizes = df.group_by(index, maintain_order=True).agg(pl.col(EXAMPLES_COLUMN).unique())
    if sizes.height != out.height or (sizes.get_column(EXAMPLES_COLUMN).list.len() != 1).any():
        return out
    column = sizes.get_column(EXAMPLES_COLUMN).list.first()
    return out.insert_column(len(index), column)


#: the name inside the package (``af.wide`` is the deprecated public alias: :mod:`aggframe._deprecated`)
wide = wide_table
