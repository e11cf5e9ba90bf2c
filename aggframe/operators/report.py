"""The report builder: a frozen request and cell tables in, one lazy plan of tidy rows out.

:meth:`~aggframe.Predictions.evaluate` parses its options once into a
:class:`ReportRequest`; :func:`build_report` turns it and the cell tables of
one scan into the whole report as one lazy frame (private key columns): every
measure x operator x convention, per group, per fold or pooled, per grouping
set. The plan's size does not grow with the number of measures or groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
from aggframe.measures.registry import get_measure, is_score_measure, list_measures, score_measure
from aggframe.operators.classes import check_binary_subset, class_list, subset_tables
from aggframe.operators.folds import fold_report
from aggframe.operators.grouping import GROUPING_COLUMN, GROUPING_ID, resolve_grouping_sets, rollup_tables
from aggframe.operators.matrix import matrix_wide, target_matrix_wide
from aggframe.operators.reduce import (
    EXAMPLES,
    Slot,
    Wide,
    entries_col,
    one_layout,
    tidy,
    undefined_col,
    value_col,
)
from aggframe.operators.reduce_rows import reduce_rows, rows_reduction
from aggframe.operators.targets import merge_slots, operator_labels, target_reduce
from aggframe.tables.cells import CellTables, group_table

__all__ = ["ReportRequest", "build_report", "examples_table", "report_blocks"]


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
    #: measures on scores (canonical names), computed from the scores (:mod:`aggframe.operators.scores`)
    scores: tuple[str, ...] = ()
    #: the measures' names in the order asked (every kind; default: ``measures``, then the others)
    measure_order: tuple[str, ...] = ()
    #: a mixed request's (measure, operator label) pairs without a definition: reported as rows
    #: whose value is null and ``n_entries`` 0 (:func:`with_undefined`)
    undefined: tuple[tuple[str, str], ...] = ()

    @property
    def needs_pairs(self) -> bool:
        """Whether the report computes a weighted kappa (it needs the confusion counts themselves)."""
        return any(m in WEIGHTED for m in self.matrix_measures)

    def names(self) -> tuple[str, ...]:
        """The measures' names in report order."""
        return self.measure_order or (
            *(m.name for m in self.measures),
            *self.matrix_measures,
            *self.scores,
        )

    @classmethod
    def parse(  # noqa: PLR0913 -- evaluate's options and the source's facts
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
        binary_task: bool = False,
    ) -> ReportRequest:
        """Parse the user's options of :meth:`~aggframe.Predictions.evaluate` once, or raise naming the bad one.

        ``binary_task``: the predictions keep the positive class only (``task="binary"``),
        so ``classes=`` is refused (it would report the negative class as absent).
        """
        for option, value in (("measures", measures), ("operators", operators)):
            if value is not None and not isinstance(value, (str, Measure)) and not listify(value):
                # an empty list is not the default (None): it read as every measure (operator)
                msg = f"{option}=[] names none; leave {option} out (None) for the default"
                raise OptionError(msg)
        ops = unique_in_order(parse_report_operator(o) for o in (listify(operators) or list(OPERATORS)))
        if "target" in ops and not has_target:
            msg = "the target operator needs a target column: pass target='<column>' when building the predictions"
            raise OptionError(msg)
        withins = unique_in_order(parse_within(w) for w in listify(within))
        if not has_target and withins != ["micro"]:
            # the default needs no target; anything else asked of it would be ignored
            msg = (
                f"within={within!r} is the operator inside each target of the target operator, and these "
                "predictions have no target column: pass target='<column>' when building them"
            )
            raise OptionError(msg)
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
        ms, matrix, scores, order = _measures(measures, ops, withins)
        convs = unique_in_order(parse_convention(c) for c in listify(convention))
        if not convs:
            msg = "Expected at least one convention"
            raise OptionError(msg)
        pools = _poolings(pooling, has_folds=has_folds)
        classes = class_list(classes)
        check_binary_subset(binary=binary_task, classes=classes)
        _check_pos_label(pos_label)
        if classes is not None and ("exemplar" in ops or "multiclass" in ops or has_target):
            msg = (
                "classes= (labels=) restricts the class columns: it works with micro, macro and weighted "
                "only, without targets (not with exemplar/samples: slice the classes' columns out of the "
                "data instead; the multiclass operator takes the whole confusion matrix; the binary "
                "operator reports pos_label)"
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
        labels = operator_labels(ops, withins)
        undefined = _undefined(
            measures, cell=ms, matrix=matrix, order=order, labels=labels, ops=ops, withins=withins
        )
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
            scores=scores,
            measure_order=order,
            undefined=undefined,
        )


def _check_pos_label(pos_label: Any) -> None:
    """``pos_label`` is one class: not a list (of classes) nor a mapping."""
    if isinstance(pos_label, (str, bytes)) or not isinstance(pos_label, Iterable):
        return
    msg = (
        f"pos_label takes one class, got {type(pos_label).__name__}: {pos_label!r}; e.g. pos_label=1 "
        "(for several classes use labels=[...] with 'macro', 'weighted' or 'micro')"
    )
    raise OptionError(msg)


#: The operators that average a binary measure over cells (everything but ``multiclass``).
_CELL_OPERATORS = ("micro", "macro", "weighted", "exemplar", "binary")


def _measures(
    measures: Any, ops: Sequence[str], withins: Sequence[str]
) -> tuple[list[Measure], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The cell measures, the whole-matrix measures, the measures on scores and the report order of their names.

    With cell operators only (or ``multiclass`` only), a named measure must exist
    under every operator asked for: a measure without a whole-matrix definition
    under ``multiclass`` and a whole-matrix-only measure (``accuracy``,
    ``kappa_linear``, ...) under a cell operator are refused. With both kinds of
    operator the request is *mixed*: each name must exist under at least one of
    them, and each kind must get at least one name; the pairs a measure does not
    exist under are reported as rows of their own (:func:`with_undefined`).
    A name that is no measure at all is always an error. The measures on scores
    (``auroc``, ``log_loss``, ...) are set aside here and checked against the
    operators by the score report. By default each kind of operator takes all its
    measures (the registered ones, the whole-matrix ones); the measures on scores
    are taken only when named.
    """
    cell = any(op in _CELL_OPERATORS for op in ops) or (
        "target" in ops and any(w != "multiclass" for w in withins)
    )
    whole = "multiclass" in ops or ("target" in ops and "multiclass" in withins)
    given = listify(measures, scalar=(str, Measure))
    scores = tuple(unique_in_order(score_measure(m) for m in given if is_score_measure(m)))
    rest = [m for m in given if not is_score_measure(m)]
    if not given:
        ms = [get_measure(m) for m in list_measures()] if cell else []
        matrix = MATRIX_MEASURES if whole else ()
        return ms, tuple(matrix), (), tuple(unique_in_order([*(m.name for m in ms), *matrix]))
    mixed = cell and whole and bool(rest)
    if mixed:
        # a typo is still an error; each kind of operator gets the names it defines
        for m in rest:
            if not is_matrix_measure(m):
                get_measure(m)  # raises on a name that is no measure
        cells = [m for m in rest if not (isinstance(m, str) and _is_matrix_only(m))]
        wholes = [m for m in rest if is_matrix_measure(m)]
        # each kind of operator needs a measure: a loss on scores serves multiclass, any
        # measure on scores the cell operators
        if not wholes and not any(s in ("log_loss", "brier") for s in scores):
            resolve_matrix_measures(rest)  # refuses, naming why
        if not cells and not scores:
            _cell_measure(rest[0], ops)  # refuses, naming why
        rest_cell, rest_whole = cells, wholes
    else:
        rest_cell = rest_whole = rest
    ms = unique_in_order(_cell_measure(m, ops) for m in rest_cell) if cell else []
    matrix = resolve_matrix_measures(rest_whole) if whole and rest_whole else ()
    order: list[str] = []
    for m in given:
        if is_score_measure(m):
            order.append(score_measure(m))
            continue
        if cell and m in rest_cell:
            order.append(get_measure(m).name)
        if whole and m in rest_whole:
            order.extend(resolve_matrix_measures(m))
    return ms, matrix, scores, tuple(unique_in_order(order))


def _undefined(
    measures: Any,
    *,
    cell: Sequence[Measure],
    matrix: Sequence[str],
    order: Sequence[str],
    labels: Sequence[str],
    ops: Sequence[str],
    withins: Sequence[str],
) -> tuple[tuple[str, str], ...]:
    """The (measure, operator label) pairs of named measures that have no definition (mixed requests only).

    A cell measure under ``multiclass`` (or ``target:multiclass``), a
    whole-matrix-only measure under a cell operator (the measures on scores list
    theirs in the score report). The default measures (none named) list none:
    each operator then takes its own measures.
    """
    both = any(op in _CELL_OPERATORS for op in ops) or (
        "target" in ops and any(w != "multiclass" for w in withins)
    )
    both = both and ("multiclass" in ops or ("target" in ops and "multiclass" in withins))
    if measures is None or not both or not (cell or matrix):
        return ()
    names_cell = {m.name for m in cell}
    out = []
    for name in order:
        for label in labels:
            whole = label in ("multiclass", "target:multiclass")
            if not is_score_measure(name) and name not in (set(matrix) if whole else names_cell):
                out.append((name, label))
    return tuple(out)


def _is_matrix_only(name: str) -> bool:
    """Whether a name is a whole-matrix measure with no measure of the cells (``accuracy``, ``qwk``, ...)."""
    if not is_matrix_measure(name):
        return False
    try:
        get_measure(name)
    except UnknownNameError:
        return True
    return False


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
    column's dtype (needed with ``classes=`` or the binary operator). The rows
    are built in order (:func:`~aggframe.operators.reduce.tidy`): only the
    blocks (one per group, fold, pooling and grouping set) are sorted.
    """
    # the blocks as rows when nothing after them needs slot columns (no pair without a definition)
    blocks = report_blocks(tables, request, folds=folds, class_dtype=class_dtype, rows=not request.undefined)
    return tidy(with_undefined(blocks, request))


def report_blocks(
    tables: CellTables,
    request: ReportRequest,
    *,
    folds: Sequence[str],
    class_dtype: pl.DataType | None,
    rows: bool = False,
) -> Wide:
    """The report as blocks (:class:`~aggframe.operators.reduce.Wide`), grouping sets one after another.

    ``rows``: the blocks may hold their slots as rows (``Wide.rows``; only
    :func:`~aggframe.operators.reduce.tidy` reads them) where the reduction is
    over small kept tables (:func:`~aggframe.operators.reduce_rows.reduce_rows`);
    the folds' and the grouping sets' blocks as rows when one of their reductions
    is (the others exploded to rows).
    """
    if request.grouping_sets is None:
        return _folded(tables, request, folds, class_dtype, rows=rows)
    by_keys = [by_key(i) for i in range(len(request.by))]
    dtypes = tables.classes.collect_schema()
    marks = (GROUPING_COLUMN, GROUPING_ID)
    parts: list[Wide] = []
    for keep in request.grouping_sets:
        kept = [by_keys[request.by.index(c)] for c in keep]
        # SQL's GROUPING_ID: bit (n - 1 - i) is set when the i-th by-column is rolled up
        rolled = sum(1 << (len(request.by) - 1 - i) for i, c in enumerate(request.by) if c not in keep)
        wide = _folded(rollup_tables(tables, by_keys, kept), request, folds, class_dtype, rows=rows)
        rest = [c for c in wide.keys if c not in (*by_keys, KEY_ALL)]
        frame = wide.frame.with_columns(
            # a rolled-up key keeps its column's dtype (null, told apart by grouping_id)
            *[pl.lit(None, dtype=dtypes[k]).alias(k) for k in by_keys if k not in kept],
            pl.lit(",".join(keep)).alias(GROUPING_COLUMN),
            pl.lit(rolled, dtype=pl.Int64).alias(GROUPING_ID),
        )
        keys = [*by_keys, *marks, *rest]
        parts.append(wide.with_frame(frame.select(*keys, *wide.extra(), *wide.slot_columns()), keys))
    # each set's reduction chose its layout (the finer sets have more groups): one for all
    parts = one_layout(parts)
    frame = pl.concat([p.frame for p in parts], how="vertical_relaxed")
    return parts[0].with_frame(frame)


def _folded(
    tables: CellTables,
    request: ReportRequest,
    folds: Sequence[str],
    class_dtype: pl.DataType | None,
    *,
    rows: bool = False,
) -> Wide:
    if not folds:
        return _reduce(tables, request, class_dtype, rows=rows)
    keys = [k for k in tables.keys if k not in folds]
    return fold_report(
        tables,
        keys,
        folds,
        reducer=lambda t: _reduce(t, request, class_dtype, rows=rows),
        poolings=request.poolings,
    )


def _reduce(
    tables: CellTables, request: ReportRequest, class_dtype: pl.DataType | None, *, rows: bool = False
) -> Wide:
    """Every measure x operator x convention of one set of cell tables, as blocks (``rows``:
    as rows when :func:`~aggframe.operators.reduce_rows.rows_reduction` takes the tables and
    the operators: then the cell measures are the only part)."""
    if request.classes is not None:
        assert class_dtype is not None
        tables = subset_tables(tables, list(request.classes), class_dtype)
    ops, ms, convs = request.operators, request.measures, request.conventions
    if rows and ms and tables.target is None:
        # the four averaging operators only (no multiclass or target part)
        groups = rows_reduction(tables, ops, n_measures=len(ms), n_slots=len(ms) * len(ops) * len(convs))
        if groups is not None:
            return with_examples(reduce_rows(tables, groups, ms, ops, convs), tables)
    cell_withins = [w for w in request.withins if w != "multiclass"]
    others = [op for op in ops if op != "multiclass" and (op != "target" or cell_withins)]
    parts: list[Wide] = []
    if others and ms:
        parts.append(
            target_reduce(
                tables, ms, others, convs, cell_withins, pos_label=request.pos_label, class_dtype=class_dtype
            )
        )
    if "multiclass" in ops and request.matrix_measures:
        parts.append(matrix_wide(tables, request.matrix_measures, convs))
    if "target" in ops and "multiclass" in request.withins and request.matrix_measures:
        parts.append(target_matrix_wide(tables, request.matrix_measures, convs))
    keys = [k for k in tables.keys if k != tables.target]
    # side by side, the slots in report order: measures as asked, operators as asked, conventions
    merged = (
        parts[0]
        if len(parts) == 1
        else merge_slots(parts, keys, request.names(), operator_labels(ops, request.withins), convs)
    )
    return with_examples(merged, tables)


def examples_table(tables: CellTables) -> pl.LazyFrame:
    """Each group's number of examples (:data:`~aggframe.operators.reduce.EXAMPLES`), keyed by the
    tables' keys without the target: the examples the group's cells count.

    The ``groups`` table's ``n_examples`` (the label form: the group's rows; the
    long form: its distinct examples); with targets, the examples of the block
    matrix (an example of several targets counts once).
    """
    keys = [k for k in tables.keys if k != tables.target]
    if tables.target is not None and tables.block_profiles is not None:
        sizes = tables.block_profiles.group_by(keys).agg(pl.col("n").sum().cast(pl.Float64).alias(EXAMPLES))
        return sizes
    return group_table(tables).select(*keys, pl.col("n_examples").cast(pl.Float64).alias(EXAMPLES))


def with_examples(wide: Wide, tables: CellTables) -> Wide:
    """The blocks with their number of examples (:func:`examples_table`), joined on the group keys."""
    if wide.examples:
        return wide
    sizes = examples_table(tables)
    keys = list(wide.keys)
    frame = wide.frame.join(sizes, on=keys, how="left", nulls_equal=True, maintain_order="left")
    frame = frame.select(*keys, pl.col(EXAMPLES).fill_null(0.0), *wide.slot_columns())
    return Wide(frame=frame, keys=wide.keys, slots=wide.slots, examples=True, rows=wide.rows)


def with_undefined(wide: Wide, request: ReportRequest) -> Wide:
    """The blocks with a slot for each pair without a definition, every slot in report order.

    Added last, after folds, grouping sets and targets have reduced the defined
    slots, so nothing averages them: a null value (not NaN, which is a measure
    undefined on these data) and ``n_entries`` 0 mark a measure that the
    operator does not define at all; a mixed request's grid is complete and no
    pair asked for vanishes.
    """
    if not request.undefined:
        return wide
    assert not wide.rows  # build_report asks for slot columns then
    convs = request.conventions
    added = [Slot(m, op, conv) for m, op in request.undefined for conv in convs]
    where = {slot: j for j, slot in enumerate(wide.slots)}
    where.update({slot: len(wide.slots) + j for j, slot in enumerate(added)})
    labels = operator_labels(request.operators, request.withins)
    slots = [
        slot
        for m in request.names()
        for op in labels
        for conv in convs
        if (slot := Slot(m, op, conv)) in where
    ]
    n = len(wide.slots)
    frame = wide.frame.with_columns(
        c
        for j in range(len(added))
        for c in (
            pl.lit(None, dtype=pl.Float64).alias(value_col(n + j)),
            pl.lit(0, dtype=pl.Int64).alias(entries_col(n + j)),
            pl.lit(0, dtype=pl.Int64).alias(undefined_col(n + j)),
        )
    )
    columns = [
        pl.col(c(where[slot])).alias(c(j))
        for j, slot in enumerate(slots)
        for c in (value_col, entries_col, undefined_col)
    ]
    frame = frame.select(*wide.keys, *wide.extra(), *columns)
    return Wide(frame=frame, keys=wide.keys, slots=tuple(slots), examples=wide.examples)
