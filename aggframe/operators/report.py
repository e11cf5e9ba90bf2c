"""The report builder: a frozen request and cell tables in, one lazy plan of tidy rows out.

:meth:`~aggframe.Predictions.evaluate` parses its options once into a
:class:`ReportRequest`; :func:`build_report` turns it and the cell tables of
one scan into the whole report as one lazy frame (private key columns): every
measure x operator x convention, per group, per fold or pooled, per grouping
set. The plan's size does not grow with the number of measures or groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from aggframe._columns import KEY_ALL, by_key
from aggframe._options import (
    OPERATORS,
    Convention,
    Pooling,
    ReportOperator,
    Within,
    listify,
    parse_convention,
    parse_pooling,
    parse_report_operator,
    parse_within,
    unique_in_order,
)
from aggframe.exceptions import OptionError, UnknownNameError
from aggframe.measures.matrix import MATRIX_MEASURES, WEIGHTED, is_matrix_measure, resolve_matrix_measures
from aggframe.measures.measure import Measure
from aggframe.measures.registry import get_measure, list_measures
from aggframe.operators.classes import binary_rows, subset_tables
from aggframe.operators.folds import fold_report
from aggframe.operators.grouping import GROUPING_COLUMN, GROUPING_ID, resolve_grouping_sets, rollup_tables
from aggframe.operators.matrix import matrix_rows, target_matrix_rows
from aggframe.operators.targets import target_reduce
from aggframe.tables.cells import CellTables

__all__ = ["ReportRequest", "build_report"]


@dataclass(frozen=True)
class ReportRequest:
    """What one report computes, parsed and checked (:meth:`parse`); the builder's only input besides tables."""

    measures: tuple[Measure, ...]
    operators: tuple[ReportOperator, ...]
    conventions: tuple[Convention, ...]
    by: tuple[str, ...] = ()
    poolings: tuple[Pooling, ...] = ("pooled",)
    withins: tuple[Within, ...] = ("micro",)
    classes: tuple[Any, ...] | None = None
    pos_label: Any = 1
    grouping_sets: tuple[tuple[str, ...], ...] | None = None
    #: the whole-matrix measures of the ``multiclass`` operator (and ``target`` within it)
    matrix_measures: tuple[str, ...] = ()
    #: the measures' names in report order (both kinds; default: ``measures`` then the others)
    measure_order: tuple[str, ...] = ()

    @property
    def needs_pairs(self) -> bool:
        """Whether the report computes a weighted kappa (it needs the confusion counts themselves)."""
        return any(m in WEIGHTED for m in self.matrix_measures)

    def names(self) -> tuple[str, ...]:
        """The measures' names in report order."""
        return self.measure_order or tuple(m.name for m in self.measures)

    @classmethod
    def parse(
        cls,
        measures: Any,
        operators: Any,
        *,
        by: Any = None,
        convention: Any = "exclude",
        pooling: Any = None,
        within: Any = "micro",
        classes: Sequence[Any] | None = None,
        pos_label: Any,
        grouping_sets: Any = None,
        has_folds: bool,
        has_target: bool,
    ) -> ReportRequest:
        """Parse the user's options of :meth:`~aggframe.Predictions.evaluate` once, or raise naming the bad one."""
        ops = unique_in_order(parse_report_operator(o) for o in (listify(operators) or list(OPERATORS)))
        if "target" in ops and not has_target:
            msg = "the target operator needs a target column: pass target='<column>' when building the predictions"
            raise OptionError(msg)
        withins = unique_in_order(parse_within(w) for w in listify(within))
        if "target" in ops and not withins:
            msg = "Expected at least one `within` operator for the target operator"
            raise OptionError(msg)
        if "multiclass" in ops and has_target:
            msg = (
                "the multiclass operator evaluates one confusion matrix, and with targets each target has "
                "its own: use operators='target' with within='multiclass' (each target's whole-matrix "
                "value, averaged over the targets)"
            )
            raise OptionError(msg)
        ms, matrix, order = _measures(measures, ops, withins)
        convs = unique_in_order(parse_convention(c) for c in listify(convention))
        if not convs:
            msg = "Expected at least one convention"
            raise OptionError(msg)
        pools = _poolings(pooling, has_folds=has_folds)
        if classes is not None and ("exemplar" in ops or "multiclass" in ops or has_target):
            msg = (
                "classes= (labels=) restricts the class columns: it works with micro, macro, weighted and "
                "binary, without targets (the multiclass operator takes the whole confusion matrix)"
            )
            raise OptionError(msg)
        if "binary" in ops and classes is not None:
            msg = (
                "classes= (labels=) does not apply to the binary operator (it reports pos_label); "
                "evaluate them separately"
            )
            raise OptionError(msg)
        if "binary" in ops and has_target:
            msg = "the binary operator takes one target; with targets use 'target' with within=..."
            raise OptionError(msg)
        by_cols = tuple(listify(by))
        sets = None
        if grouping_sets is not None:
            sets = tuple(tuple(s) for s in resolve_grouping_sets(grouping_sets, by_cols))
        return cls(
            measures=tuple(ms),
            operators=tuple(ops),
            conventions=tuple(convs),
            by=by_cols,
            poolings=tuple(pools),
            withins=tuple(withins),
            classes=None if classes is None else tuple(classes),
            pos_label=pos_label,
            grouping_sets=sets,
            matrix_measures=matrix,
            measure_order=order,
        )


#: The operators that average a binary measure over cells (everything but ``multiclass``).
_CELL_OPERATORS = ("micro", "macro", "weighted", "exemplar", "binary")


def _measures(
    measures: Any, ops: Sequence[str], withins: Sequence[str]
) -> tuple[list[Measure], tuple[str, ...], tuple[str, ...]]:
    """The cell measures, the whole-matrix measures and the report order of their names.

    Named measures must exist under every operator asked for: a measure without a
    whole-matrix definition under ``multiclass`` and a whole-matrix-only measure
    (``accuracy``, ``kappa_linear``, ...) under a cell operator are refused. By
    default each kind of operator takes all its measures (the registered ones,
    the whole-matrix ones).
    """
    cell = any(op in _CELL_OPERATORS for op in ops) or (
        "target" in ops and any(w != "multiclass" for w in withins)
    )
    whole = "multiclass" in ops or ("target" in ops and "multiclass" in withins)
    given = listify(measures, scalar=(str, Measure))
    if not given:
        ms = [get_measure(m) for m in list_measures()] if cell else []
        matrix = MATRIX_MEASURES if whole else ()
        return ms, tuple(matrix), tuple(unique_in_order([*(m.name for m in ms), *matrix]))
    ms = unique_in_order(_cell_measure(m, ops) for m in given) if cell else []
    matrix = resolve_matrix_measures(given) if whole else ()
    order: list[str] = []
    for m in given:
        if cell:
            order.append(get_measure(m).name)
        if whole:
            order.extend(resolve_matrix_measures(m))
    return ms, matrix, tuple(unique_in_order(order))


def _cell_measure(name: str | Measure, ops: Sequence[str]) -> Measure:
    """A registered measure, or a refusal that points a whole-matrix-only name to ``multiclass``."""
    try:
        return get_measure(name)
    except UnknownNameError:
        if not is_matrix_measure(name):
            raise
    cell_ops = ", ".join(repr(op) for op in ops if op != "multiclass")
    msg = (
        f"measure {name!r} is defined on the whole confusion matrix only, so operator(s) {cell_ops} (which "
        "apply a measure of the four cells tp, fp, fn, tn) cannot compute it; use operator 'multiclass'"
    )
    if str(name).strip().lower() == "accuracy":
        msg += (
            " (or 'label_accuracy' for the share of right one-vs-rest cells, or 'recall' under 'micro', "
            "which is accuracy on single-label data)"
        )
    raise OptionError(msg)


def _poolings(pooling: Any, *, has_folds: bool) -> list[Pooling]:
    names = listify(pooling)
    if not has_folds:
        if any(str(p).strip().lower() != "pooled" for p in names):
            msg = (
                f"pooling={pooling!r} needs a fold column: pass fold='<column>' when building the predictions"
            )
            raise OptionError(msg)
        return ["pooled"]
    return unique_in_order(parse_pooling(p) for p in names) or ["pooled"]


def build_report(
    tables: CellTables, request: ReportRequest, *, folds: Sequence[str], class_dtype: pl.DataType | None
) -> pl.LazyFrame:
    """Every row of the report, keyed by the tables' private keys (restore the user's names after).

    ``folds`` are the tables' private fold keys; ``class_dtype`` the class
    column's dtype (needed with ``classes=`` or the binary operator).
    """
    if request.grouping_sets is None:
        return _folded(tables, request, folds, class_dtype)
    by_keys = [by_key(i) for i in range(len(request.by))]
    parts = []
    for keep in request.grouping_sets:
        kept = [by_keys[request.by.index(c)] for c in keep]
        # SQL's GROUPING_ID: bit (n - 1 - i) is set when the i-th by-column is rolled up
        rolled = sum(1 << (len(request.by) - 1 - i) for i, c in enumerate(request.by) if c not in keep)
        dtypes = tables.classes.collect_schema()
        parts.append(
            _folded(rollup_tables(tables, by_keys, kept), request, folds, class_dtype).with_columns(
                # a rolled-up key keeps its column's dtype (null, told apart by grouping_id)
                *[pl.lit(None, dtype=dtypes[k]).alias(k) for k in by_keys if k not in kept],
                pl.lit(",".join(keep)).alias(GROUPING_COLUMN),
                pl.lit(rolled, dtype=pl.Int64).alias(GROUPING_ID),
            )
        )
    marks = (GROUPING_COLUMN, GROUPING_ID)
    columns = parts[0].collect_schema().names()
    ordered = [*by_keys, *marks, *[c for c in columns if c not in (*by_keys, *marks)]]
    return pl.concat([p.select(ordered) for p in parts], how="vertical_relaxed")


def _folded(
    tables: CellTables, request: ReportRequest, folds: Sequence[str], class_dtype: pl.DataType | None
) -> pl.LazyFrame:
    if not folds:
        return _reduce(tables, request, class_dtype)
    keys = [k for k in tables.keys if k not in folds]
    return fold_report(
        tables,
        keys,
        folds,
        reducer=lambda t: _reduce(t, request, class_dtype),
        poolings=request.poolings,
    )


def _reduce(tables: CellTables, request: ReportRequest, class_dtype: pl.DataType | None) -> pl.LazyFrame:
    """Every measure x operator x convention of one set of cell tables."""
    ops, ms, convs = request.operators, request.measures, request.conventions
    if request.classes is not None:
        assert class_dtype is not None
        tables = subset_tables(tables, list(request.classes), class_dtype)
    cell_withins = [w for w in request.withins if w != "multiclass"]
    others = [op for op in ops if op not in ("binary", "multiclass") and (op != "target" or cell_withins)]
    parts = [target_reduce(tables, ms, others, convs, cell_withins)] if others else []
    if "binary" in ops:
        assert class_dtype is not None
        parts.append(binary_rows(tables, ms, convs, request.pos_label, class_dtype))
    if "multiclass" in ops:
        parts.append(matrix_rows(tables, request.matrix_measures, convs))
    if "target" in ops and "multiclass" in request.withins:
        parts.append(target_matrix_rows(tables, request.matrix_measures, convs))
    if len(parts) == 1:
        return parts[0]
    visible = [k for k in tables.keys if k not in (KEY_ALL, tables.target)]
    labels = [
        f"target:{w}" if op == "target" else op
        for op in ops
        for w in (request.withins if op == "target" else [op])
    ]
    order = {op: i for i, op in enumerate(labels)}
    names = {m: i for i, m in enumerate(request.names())}
    return pl.concat(parts).sort(
        [
            *visible,
            pl.col("measure").replace_strict(names, return_dtype=pl.Int64),
            pl.col("operator").replace_strict(order, default=len(order), return_dtype=pl.Int64),
        ],
        maintain_order=True,
        nulls_last=True,
    )
