"""Predictions: validated roles plus class universe; nothing is collected at construction.

Three ways in (long form, label form, NumPy indicator matrices), one currency out
(cell tables), and the evaluation entry points on top.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import narwhals as nw
import numpy as np
import polars as pl

from aggframe._cells import LabelRoles, LongRoles, label_grains, long_grains, with_group_key
from aggframe._columns import (
    CELLS,
    CLASS_ROLE,
    EXAMPLE,
    FOLD,
    KEY_ALL,
    MASK,
    REPEAT,
    TARGET,
    Y_PRED,
    Y_TRUE,
    P,
    Y,
    by_key,
    check_result_names,
    restore,
)
from aggframe._compare import compare_groups, summarize_groups
from aggframe._folds import POOLINGS, fold_report
from aggframe._grains import (
    CLASS,
    CellTables,
    _label_row_cells,
    finish_labels,
    finish_long,
    to_polars,
    universe_frame,
)
from aggframe._grouping import GROUPING_COLUMN, GROUPING_ID, resolve_grouping_sets, rollup_tables
from aggframe._measures import Measure, get_measure, list_measures
from aggframe._operators import (
    binary_rows,
    class_table,
    class_values,
    example_values,
    subset_tables,
)
from aggframe._source import FRAME, Origin, _as_lazy, _is_frame, _object_labels, origin_of, reading, scan
from aggframe._targets import target_reduce
from aggframe._tnorms import TNorm, resolve_tnorm
from aggframe._typing import CONVENTIONS, OPERATOR_ALIASES, OPERATORS, Convention, Operator
from aggframe.exceptions import (
    ColumnNotFoundError,
    EmptyInputError,
    InvalidValueError,
    OptionError,
    ShapeError,
    UnknownNameError,
)

__all__ = ["Predictions", "from_cells", "from_indicator", "from_labels", "from_long", "scan"]

Engine = Literal["auto", "in-memory", "streaming"]
MeasureLike = str | Measure


def _require_columns(lf: nw.LazyFrame[Any], needed: dict[str, str | None]) -> nw.Schema:
    schema = lf.collect_schema()
    missing = [(role, col) for role, col in needed.items() if col is not None and col not in schema]
    if missing:
        role, col = missing[0]
        msg = (
            f"column {col!r} (role {role!r}) is not in the frame; available columns: "
            f"{list(schema.names())}. Rename it or pass {role}=<column name>"
        )
        raise ColumnNotFoundError(msg)
    return schema


def _check_numeric(schema: nw.Schema, roles: dict[str, str | None]) -> None:
    for role, col in roles.items():
        if col is None:
            continue
        dtype = schema[col]
        if not (dtype.is_numeric() or dtype == nw.Boolean):
            msg = f"column {col!r} (role {role!r}) has dtype {dtype}; expected booleans or numbers in [0, 1]"
            raise InvalidValueError(msg)


def _operator(name: str) -> Operator:
    key = str(name).strip().lower()
    key = OPERATOR_ALIASES.get(key, key)
    if key not in OPERATORS:
        msg = (
            f"unknown operator {name!r}; valid operators: {', '.join(OPERATORS)} (alias 'samples' = "
            "exemplar), binary (two classes: the positive class alone), target (with a target column)"
        )
        raise UnknownNameError(msg)
    return key


def _convention(name: str) -> Convention:
    key = str(name).strip().lower()
    if key not in CONVENTIONS:
        msg = f"unknown convention {name!r}; valid conventions: {', '.join(CONVENTIONS)}"
        raise UnknownNameError(msg)
    return key


def _listify(x: Any) -> list[Any]:
    if x is None:
        return []
    if isinstance(x, (str, Measure)):
        return [x]
    if not isinstance(x, Iterable):
        msg = f"Expected a name or a list of names, got {type(x).__name__}: {x!r}"
        raise UnknownNameError(msg)
    return list(x)


def _single_predictions(items: Iterable[Any], what: str, caller: str) -> list[Predictions]:
    """Validate the list of per-fold / per-target predictions of the seed-parity functions."""
    preds = list(items)
    if not preds:
        msg = f"{caller} needs at least one {what}; got an empty list"
        raise OptionError(msg)
    for i, pr in enumerate(preds):
        if not isinstance(pr, Predictions):
            msg = f"{what} {i}: expected an af.Predictions (from_labels, from_long, ...), got {type(pr).__name__}"
            raise OptionError(msg)
        if pr._fold_keys() or pr.target is not None:
            msg = (
                f"{what} {i} has fold or target columns of its own; evaluate it with "
                "pr.evaluate(pooling=..., operators=['target', ...]) instead"
            )
            raise OptionError(msg)
    return preds


PER_CLASS_COLUMNS = (CLASS, "measure", "value", "defined", "support", *CELLS)
_ONE_HOT = (pl.col("tp") + pl.col("fn") == 1) & (pl.col("tp") + pl.col("fp") == 1)
_GRAIN_COLUMNS = {"class": (CLASS, *CELLS), "pooled": CELLS, "profiles": (*CELLS, "n")}
_PRIVATE_LONG = LongRoles(example=EXAMPLE, class_=CLASS_ROLE, y=Y, p=P)
_PRIVATE_LONG_MASKED = LongRoles(example=EXAMPLE, class_=CLASS_ROLE, y=Y, p=P, mask=MASK)


def _check_one_hot(profiles: pl.DataFrame) -> None:
    """``task="multiclass"`` was stated: every example has one true and one predicted class."""
    bad = profiles.filter(~_ONE_HOT)
    if bad.height:
        first = bad.row(0, named=True)
        msg = (
            f"task='multiclass' was stated, but {int(bad['n'].sum())} example(s) do not have exactly one "
            f"true and one predicted class (e.g. {first['tp'] + first['fn']:g} true and "
            f"{first['tp'] + first['fp']:g} predicted); pass task='multilabel', or task=None to infer it"
        )
        raise InvalidValueError(msg)


def _renamed(tables: CellTables, renames: dict[str, str], names: dict[str, str]) -> CellTables:
    """The same cell tables with key columns renamed (all at once, so names may swap)."""

    def rename(lf: pl.LazyFrame) -> pl.LazyFrame:
        present = {k: v for k, v in renames.items() if k in lf.collect_schema() and k != v}
        return lf.rename(present) if present else lf

    return CellTables(
        classes=rename(tables.classes),
        profiles=rename(tables.profiles),
        keys=tuple(renames.get(k, k) for k in tables.keys),
        block_profiles=None if tables.block_profiles is None else rename(tables.block_profiles),
        target=tables.target,
        names=names,
    )


def _unique_in_order(items: Iterable[Any]) -> list[Any]:
    seen: list[Any] = []
    for it in items:
        if it not in seen:
            seen.append(it)
    return seen


@dataclass
class Predictions:
    """Classification predictions in a (lazy) frame, ready to evaluate.

    Build one with :func:`from_long`, :func:`from_labels` or
    :func:`from_indicator`. Nothing is read at construction: the first
    evaluation scans the source once and keeps the small cell tables (per
    ``by``), so further calls on the same object are cheap.
    """

    form: Literal["long", "labels", "cells"]
    source: nw.LazyFrame[Any] = field(repr=False)
    long_roles: LongRoles | None = None
    label_roles: LabelRoles | None = None
    universe: list[Any] | dict[Any, list[Any]] | None = None
    tnorm: TNorm | None = field(default=None, repr=False)
    tnorm_name: str | None = None
    task: str = "multiclass"
    pos_label: Any = 1
    fold: str | None = None
    repeat: str | None = None
    target: str | None = None
    class_universe: Literal["global", "group"] = "global"
    #: the long form's stated task ("multiclass" or "multilabel"); None: inferred from the data
    declared_task: str | None = None
    #: the long form's declared examples (a count, or a Polars frame of example ids)
    declared_examples: int | pl.LazyFrame | None = field(default=None, repr=False)
    stored: CellTables | None = field(default=None, repr=False)
    stored_by: tuple[str, ...] = ()
    origin: Origin = field(default=FRAME, repr=False)  # the source, for messages and cell stores
    _cache: dict[tuple[str, ...], CellTables] = field(default_factory=dict, repr=False)

    # -- cell tables ------------------------------------------------------------
    def _class_dtype(self) -> pl.DataType:
        return self._dtype(self._class_column())

    def _roles(self) -> dict[str, str]:
        """The role columns: private name -> the user's column."""
        roles: dict[str, str | None] = {}
        if self.long_roles is not None:
            r = self.long_roles
            roles = {EXAMPLE: r.example, CLASS_ROLE: r.class_, Y: r.y, P: r.p, MASK: r.mask}
        elif self.label_roles is not None:
            lr = self.label_roles
            roles = {Y_TRUE: lr.y_true, Y_PRED: lr.y_pred, EXAMPLE: lr.example}
        roles.update({TARGET: self.target, REPEAT: self.repeat, FOLD: self.fold})
        return {k: v for k, v in roles.items() if v is not None}

    def _check_by(self, by: Sequence[str]) -> None:
        schema = self.source.collect_schema()
        roles = {user: private for private, user in self._roles().items()}
        for col in by:
            if not isinstance(col, str):
                msg = f"Expected by= to name columns (strings), got {col!r}"
                raise OptionError(msg)
            if col in roles:
                role = roles[col].removeprefix("__af_")
                msg = (
                    f"by column {col!r} is the {role!r} role column of these predictions; grouping by "
                    "a role has no meaning (group by another column, or copy it under a new name)"
                )
                raise OptionError(msg)
            if col not in schema:
                msg = f"by column {col!r} is not in the frame; available columns: {list(schema.names())}"
                raise ColumnNotFoundError(msg)
        if len(set(by)) != len(by):
            msg = f"by columns repeat a name: {list(by)!r}"
            raise OptionError(msg)

    def _fold_keys(self) -> list[str]:
        """The private fold keys of the cell tables (repeat, fold)."""
        return [k for k, c in ((REPEAT, self.repeat), (FOLD, self.fold)) if c is not None]

    def _target_key(self) -> str | None:
        return TARGET if self.target is not None else None

    def _project(self, by: Sequence[str]) -> tuple[nw.LazyFrame[Any], list[str], dict[str, str]]:
        """The source with only the role and by-columns, under private names (:mod:`aggframe._columns`).

        Returns the projected frame, the private by-keys, and the user's name of every
        private column. A select of aliased columns: the user's other columns (whatever
        their names) are not carried, so they can never meet an internal column.
        """
        self._check_by(by)
        roles = self._roles()
        keys = [by_key(i) for i in range(len(by))]
        names = {**roles, **dict(zip(keys, by, strict=True))}
        lf = self.source.select(*[nw.col(user).alias(private) for private, user in names.items()])
        return lf, keys, names

    def _lazy_tables(self, by: Sequence[str]) -> CellTables:
        """Cell tables keyed by the private by-keys (or the stand-in key) plus target and fold keys."""
        if self.form == "cells":
            assert self.stored is not None
            missing = [c for c in by if c not in self.stored_by]
            if missing:
                msg = (
                    f"by column {missing[0]!r} is not a key of these stored cells; they were written "
                    f"with by={list(self.stored_by)!r}, so any subset of those can be evaluated"
                )
                raise ColumnNotFoundError(msg)
            if len(set(by)) != len(by):
                msg = f"by columns repeat a name: {list(by)!r}"
                raise OptionError(msg)
            stored = [by_key(i) for i in range(len(self.stored_by))]
            kept = [by_key(self.stored_by.index(c)) for c in by]
            tables = rollup_tables(self.stored, stored, kept)
            # the requested by-columns take the private names of their position in `by`
            renames = {old: by_key(i) for i, old in enumerate(kept)}
            return _renamed(
                tables, renames, {**self.stored.names, **{by_key(i): c for i, c in enumerate(by)}}
            )
        lf, by_keys, names = self._project(by)
        lf, keys = with_group_key(lf, by_keys)
        keys = [*keys, *([TARGET] if self.target else []), *self._fold_keys()]
        universe = (
            None
            if self.universe is None
            else universe_frame(
                self.universe,
                self._class_dtype(),
                self._class_column(),
                target=self._target_key(),
                target_dtype=self._dtype(self.target) if self.target else None,
            )
        )
        group_universe = by_keys if self.class_universe == "group" else []
        if self.form == "long":
            roles = (
                _PRIVATE_LONG if self.long_roles and self.long_roles.mask is None else _PRIVATE_LONG_MASKED
            )
            examples = self._examples(by, names)
            raw = self._long_raw(lf, keys, examples)
            return finish_long(
                raw,
                source=lf,
                roles=roles,
                keys=keys,
                universe=universe,
                soft_ok=self.tnorm is not None,
                names=names,
                target=self._target_key(),
                group_universe=group_universe,
                examples=examples,
            )
        lroles = self._private_label_roles()
        raw = label_grains(lf, lroles, keys)
        return finish_labels(
            raw,
            source=lf,
            roles=lroles,
            keys=keys,
            universe=universe,
            task=self.task,
            pos_label=self.pos_label,
            names=names,
            target=self._target_key(),
            group_universe=group_universe,
        )

    def _private_label_roles(self) -> LabelRoles:
        assert self.label_roles is not None
        return LabelRoles(
            y_true=Y_TRUE, y_pred=Y_PRED, example=EXAMPLE if self.label_roles.example is not None else None
        )

    def _long_raw(
        self, lf: nw.LazyFrame[Any], keys: list[str], examples: pl.LazyFrame | int | None = None
    ) -> dict[str, nw.LazyFrame[Any]]:
        """The long form's raw grains of a projected frame (private names)."""
        assert self.long_roles is not None
        roles = _PRIVATE_LONG if self.long_roles.mask is None else _PRIVATE_LONG_MASKED
        return long_grains(
            lf,
            roles,
            keys,
            tnorm=self.tnorm,
            n_classes=self._universe_sizes(),
            target=self._target_key(),
            examples=examples if isinstance(examples, pl.LazyFrame) else None,
        )

    def _examples(self, by: Sequence[str], names: dict[str, str]) -> pl.LazyFrame | int | None:
        """The declared examples under private names, for this grouping (see ``examples=``)."""
        declared = self.declared_examples
        if declared is None:
            return None
        wanted = {p: u for p, u in names.items() if p not in (CLASS_ROLE, Y, P, MASK)}
        grouped = [u for p, u in wanted.items() if p != EXAMPLE]
        if isinstance(declared, int):
            if grouped:
                msg = (
                    f"examples={declared} counts the examples of all the data; it cannot say which group "
                    f"({', '.join(repr(c) for c in grouped)}) the unlogged ones belong to: pass examples= a "
                    "frame of example ids with those columns"
                )
                raise OptionError(msg)
            return declared
        schema = declared.collect_schema()
        for user in wanted.values():
            if user not in schema:
                msg = (
                    f"the examples= frame has no column {user!r}, which the evaluation needs; "
                    f"available columns: {schema.names()}"
                )
                raise ColumnNotFoundError(msg)
        return declared.select(*[pl.col(u).alias(p) for p, u in wanted.items()])

    def _universe_sizes(self) -> int | dict[Any, int] | None:
        if self.universe is None:
            return None
        if isinstance(self.universe, dict):
            return {t: len(v) for t, v in self.universe.items()}
        return len(self.universe)

    def _dtype(self, column: str) -> pl.DataType:
        if self.form == "cells":
            assert self.stored is not None
            return self.stored.classes.collect_schema()[column]
        return self._polars_schema()[column]

    def _polars_schema(self) -> pl.Schema:
        native = nw.to_native(self.source)
        if isinstance(native, pl.LazyFrame):
            return native.collect_schema()
        return pl.Schema(self.source.head(0).collect(backend="polars").to_native().schema)

    def _class_column(self) -> str:
        if self.form == "cells":
            return CLASS
        return self.long_roles.class_ if self.long_roles else self.label_roles.y_true  # type: ignore[union-attr]

    def _tables(self, by: Sequence[str], engine: Engine = "auto") -> CellTables:
        key = tuple(by)
        if key not in self._cache:
            tables = self._lazy_tables(by)
            parts = [tables.classes, tables.profiles]
            if tables.block_profiles is not None:
                parts.append(tables.block_profiles)
            # one collect: the grains share one read of the input
            with reading(self.origin):
                got = pl.collect_all(parts, engine=engine)
            if self.declared_task == "multiclass":
                _check_one_hot(got[1])
            self._cache[key] = CellTables(
                classes=got[0].lazy(),
                profiles=got[1].lazy(),
                keys=tables.keys,
                block_profiles=got[2].lazy() if len(got) > 2 else None,
                target=tables.target,
                names=tables.names,
            )
        return self._cache[key]

    def cells(
        self,
        grain: Literal["class", "pooled", "profiles"] = "class",
        *,
        by: str | Sequence[str] | None = None,
    ) -> pl.DataFrame:
        """The cell tables themselves (tidy): the mergeable summary of the predictions.

        ``"class"``: by..., class, tp, fp, fn, tn. ``"pooled"``: by..., tp, fp, fn, tn.
        ``"profiles"``: by..., tp, fp, fn, tn, n (n examples share those cells).
        """
        if grain not in _GRAIN_COLUMNS:
            msg = f"unknown grain {grain!r}; valid grains: class, pooled, profiles"
            raise UnknownNameError(msg)
        tables = self._tables(_listify(by))
        return restore(self._cell_frame(tables, grain), self._result_names(tables, _GRAIN_COLUMNS[grain]))

    def _cell_frame(self, tables: CellTables, grain: str) -> pl.DataFrame:
        """A cell table with private keys, sorted (nulls last)."""
        keys = list(tables.keys)
        if grain == "class":
            return tables.classes.sort([*keys, CLASS], nulls_last=True).collect()
        if grain == "pooled":
            out = tables.classes.group_by(keys).agg(pl.col(*CELLS).sum())
            return out.sort(keys, nulls_last=True).collect()
        return tables.profiles.sort([*keys, *CELLS], nulls_last=True).collect()

    def _result_names(self, tables: CellTables, columns: Sequence[str], what: str = "") -> dict[str, str]:
        """The user's names of the tables' keys, checked against the result's other columns."""
        names = {k: tables.names.get(k, k) for k in tables.keys if k != KEY_ALL}
        check_result_names(names.values(), columns, what or "cells")
        return names

    # -- evaluation ----------------------------------------------------------------
    def evaluate(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = None,
        operators: str | Sequence[str] | None = None,
        *,
        by: str | Sequence[str] | None = None,
        convention: str | Sequence[str] = "exclude",
        pooling: str | Sequence[str] | None = None,
        within: str | Sequence[str] = "micro",
        labels: Sequence[Any] | None = None,
        pos_label: Any = None,
        grouping_sets: str | Sequence[Sequence[str]] | None = None,
        lazy: bool = False,
        engine: Engine = "auto",
    ) -> pl.DataFrame | pl.LazyFrame:
        """Every measure under every operator (and convention), per group, as one tidy frame.

        Parameters
        ----------
        measures
            Names, aliases or :class:`Measure` objects; default: all 21 registered.
        operators
            ``micro``, ``macro``, ``weighted``, ``exemplar`` (default: all four).
            With a ``target`` role they apply to the block matrix of all targets
            (class key = (target, class)), and ``target`` averages, over the
            targets, the measure computed inside each target with the operator
            ``within`` (reported as ``target:<within>``). ``binary`` reports the
            positive class only (``pos_label``) and raises unless there are
            exactly two classes (scikit-learn's ``average='binary'``).
        by
            Columns to group by (model, day, segment, ...): one query, no loop.
        convention
            How undefined per-class/per-example entries are resolved: ``exclude``
            (default), ``zero``, ``one`` or ``nan``; a list puts them side by side.
        pooling
            With a ``fold`` role only: ``pooled`` (default: the union of the
            folds' predictions), ``averaged`` (each fold, then the mean weighted
            by fold size), ``fold`` (the per-fold values), ``min``, ``max``,
            ``std`` (their spread; the folds share training data, so the spread
            understates the uncertainty: a lower bound, not a confidence
            interval). A list puts them side by side, in a ``pooling`` column.
        within
            Operator(s) inside each target for the ``target`` operator.
        labels
            Evaluate over this subset of classes only (scikit-learn's
            ``labels=``): micro then pools the subset (no longer accuracy), macro
            and weighted average over it. A named class absent from the data
            counts as undefined (or 0/1 by the convention). Not with ``exemplar``.
        pos_label
            The positive class of the ``binary`` operator (default: the one
            given at construction, 1).
        grouping_sets
            ``"rollup"``, ``"cube"`` or explicit lists of ``by`` columns (SQL
            grouping sets): e.g. model x day, model, and overall rows in the same
            result, from the same scan (cell tables roll up exactly). A column
            ``grouping_set`` names the columns each row is grouped by ("" for the
            overall row); rolled-up by-columns are null.
        lazy
            Return the whole computation as one ``LazyFrame`` (validation runs
            when it is collected) instead of collecting.
        engine
            Polars engine for the collect (``"streaming"`` for data larger than memory).

        Returns
        -------
        polars.DataFrame
            by..., measure, operator, convention, value, n_entries, n_undefined.
            ``n_entries`` counts the values averaged (1 for micro, classes for
            macro/weighted, examples for exemplar) and ``n_undefined`` how many
            of them were undefined.

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
        >>> pr.evaluate(["f1", "mcc"], ["micro", "macro"]).select("measure", "operator", "value")
        shape: (4, 3)
        ┌─────────┬──────────┬──────────┐
        │ measure ┆ operator ┆ value    │
        │ ---     ┆ ---      ┆ ---      │
        │ str     ┆ str      ┆ f64      │
        ╞═════════╪══════════╪══════════╡
        │ f1      ┆ micro    ┆ 0.5      │
        │ f1      ┆ macro    ┆ 0.522222 │
        │ mcc     ┆ micro    ┆ 0.25     │
        │ mcc     ┆ macro    ┆ 0.294152 │
        └─────────┴──────────┴──────────┘
        """
        by_cols = _listify(by)
        report, names = self._report(
            measures,
            operators,
            by=by_cols,
            convention=convention,
            pooling=pooling,
            within=within,
            labels=labels,
            pos_label=pos_label,
            grouping_sets=grouping_sets,
            lazy=lazy,
            engine=engine,
        )
        columns = [c for c in report.collect_schema().names() if c not in names and c != KEY_ALL]
        check_result_names(names.values(), columns, "evaluate")
        out = restore(report, names)
        return out if lazy else out.collect(engine=engine)

    def _report(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None,
        operators: str | Sequence[str] | None,
        *,
        by: Sequence[str],
        convention: str | Sequence[str] = "exclude",
        pooling: str | Sequence[str] | None = None,
        within: str | Sequence[str] = "micro",
        labels: Sequence[Any] | None = None,
        pos_label: Any = None,
        grouping_sets: str | Sequence[Sequence[str]] | None = None,
        lazy: bool = False,
        engine: Engine = "auto",
    ) -> tuple[pl.LazyFrame, dict[str, str]]:
        """The report with private key columns (lazy), and the user's names of those keys."""
        ms = _unique_in_order(get_measure(m) for m in (_listify(measures) or list_measures()))
        ops = _unique_in_order(self._op(o) for o in (_listify(operators) or list(OPERATORS)))
        withins = _unique_in_order(_operator(w) for w in _listify(within))
        if "target" in ops and not withins:
            msg = "Expected at least one `within` operator for the target operator"
            raise OptionError(msg)
        convs = _unique_in_order(_convention(c) for c in _listify(convention))
        if not convs:
            msg = "Expected at least one convention"
            raise OptionError(msg)
        by_cols = list(by)
        pools = self._poolings(pooling)

        if labels is not None and ("exemplar" in ops or self.target is not None):
            msg = "labels= restricts the class columns: it works with micro, macro, weighted and binary, without targets"
            raise OptionError(msg)
        if "binary" in ops and labels is not None:
            msg = "labels= does not apply to the binary operator (it reports pos_label); evaluate them separately"
            raise OptionError(msg)
        if "binary" in ops and self.target is not None:
            msg = "the binary operator takes one target; with targets use 'target' with within=..."
            raise OptionError(msg)
        positive = self.pos_label if pos_label is None else pos_label
        dtype = self._class_dtype() if (labels is not None or "binary" in ops) else None
        folds = self._fold_keys()
        sets = resolve_grouping_sets(grouping_sets, by_cols) if grouping_sets is not None else None
        tables = self._lazy_tables(by_cols) if lazy else self._tables(by_cols, engine)
        by_keys = [by_key(i) for i in range(len(by_cols))]

        def reducer(tables: CellTables) -> pl.LazyFrame:
            if labels is not None:
                assert dtype is not None
                tables = subset_tables(tables, list(labels), dtype)
            others = [op for op in ops if op != "binary"]
            parts = [target_reduce(tables, ms, others, convs, withins)] if others else []
            if "binary" in ops:
                assert dtype is not None
                parts.append(binary_rows(tables, ms, convs, positive, dtype))
            if len(parts) == 1:
                return parts[0]
            visible = [k for k in tables.keys if k not in (KEY_ALL, tables.target)]
            order = {op: i for i, op in enumerate(ops)}
            names = {m.name: i for i, m in enumerate(ms)}
            return pl.concat(parts).sort(
                [
                    *visible,
                    pl.col("measure").replace_strict(names, return_dtype=pl.Int64),
                    pl.col("operator").replace_strict(order, default=len(order), return_dtype=pl.Int64),
                ],
                maintain_order=True,
                nulls_last=True,
            )

        def report(tables: CellTables) -> pl.LazyFrame:
            if not folds:
                return reducer(tables)
            keys = [k for k in tables.keys if k not in folds]
            return fold_report(tables, keys, folds, reducer=reducer, poolings=pools)

        names = {k: v for k, v in tables.names.items() if k in (*by_keys, *folds)}
        if sets is None:
            return report(tables), names
        parts = []
        for keep in sets:
            kept = [by_keys[by_cols.index(c)] for c in keep]
            # SQL's GROUPING_ID: bit (n - 1 - i) is set when the i-th by-column is rolled up
            rolled = sum(1 << (len(by_cols) - 1 - i) for i, c in enumerate(by_cols) if c not in keep)
            parts.append(
                report(rollup_tables(tables, by_keys, kept)).with_columns(
                    *[pl.lit(None).alias(k) for k in by_keys if k not in kept],
                    pl.lit(",".join(keep)).alias(GROUPING_COLUMN),
                    pl.lit(rolled, dtype=pl.Int64).alias(GROUPING_ID),
                )
            )
        marks = (GROUPING_COLUMN, GROUPING_ID)
        columns = parts[0].collect_schema().names()
        ordered = [*by_keys, *marks, *[c for c in columns if c not in (*by_keys, *marks)]]
        return pl.concat([p.select(ordered) for p in parts], how="vertical_relaxed"), names

    def _op(self, name: str) -> str:
        if str(name).strip().lower() == "binary":
            return "binary"
        if str(name).strip().lower() == "target":
            if self.target is None:
                msg = "the target operator needs a target column: pass target='<column>' when building the predictions"
                raise OptionError(msg)
            return "target"
        return _operator(name)

    def _poolings(self, pooling: str | Sequence[str] | None) -> list[str]:
        names = _listify(pooling)
        if not self._fold_keys():
            if any(p != "pooled" for p in names):
                msg = f"pooling={pooling!r} needs a fold column: pass fold='<column>' when building the predictions"
                raise OptionError(msg)
            return ["pooled"]
        if not names:
            return ["pooled"]
        out = []
        for p in names:
            key = str(p).strip().lower()
            if key not in POOLINGS:
                msg = f"unknown pooling {p!r}; valid poolings: {', '.join(POOLINGS)}"
                raise UnknownNameError(msg)
            if key not in out:
                out.append(key)
        return out

    def compare(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = None,
        operators: str | Sequence[str] | None = None,
        *,
        by: str | Sequence[str],
        convention: str | Sequence[str] = "exclude",
        reference: dict[str, Any] | None = None,
        summary: bool = False,
    ) -> pl.DataFrame:
        """Groups against the overall value (and a reference group), like fairlearn's MetricFrame.

        One row per group x measure x operator x convention: ``value``,
        ``overall``, ``difference_to_overall``, ``ratio_to_overall`` and, with
        ``reference={"col": value}``, the same against that group. With
        ``summary=True``, one row per measure x operator x convention instead:
        ``overall``, ``group_min``, ``group_max``, ``argmin``, ``argmax``,
        ``difference`` (max - min) and ``ratio`` (min / max). Ratios with a zero
        denominator are null. One scan (the overall row is a grouping set).

        Examples
        --------
        >>> import polars as pl, aggframe as af
        >>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [0, 1, 0, 1], "y_pred": [0, 1, 1, 1]})
        >>> af.from_labels(df).compare("recall", "macro", by="g").select("g", "value", "overall")
        shape: (2, 3)
        ┌─────┬───────┬─────────┐
        │ g   ┆ value ┆ overall │
        │ --- ┆ ---   ┆ ---     │
        │ str ┆ f64   ┆ f64     │
        ╞═════╪═══════╪═════════╡
        │ a   ┆ 1.0   ┆ 0.75    │
        │ b   ┆ 0.5   ┆ 0.75    │
        └─────┴───────┴─────────┘
        """
        keys = _listify(by)
        if not keys:
            msg = "compare needs by= columns (the groups to compare)"
            raise OptionError(msg)
        report, names = self._report(
            measures, operators, by=keys, convention=convention, grouping_sets=[keys, []]
        )
        private = [by_key(i) for i in range(len(keys))]
        ref = None
        if reference is not None:
            missing = [k for k in keys if k not in reference]
            if missing or set(reference) - set(keys):
                msg = f"reference must name a value for each by column {keys!r}, got {reference!r}"
                raise OptionError(msg)
            ref = {by_key(keys.index(k)): v for k, v in reference.items()}
        compared = compare_groups(report.collect(), private, ref, repr(reference))
        if summary:
            return summarize_groups(compared, private)
        check_result_names(names.values(), [c for c in compared.columns if c not in names], "compare")
        return restore(compared, names)

    def compute(
        self,
        measure: MeasureLike,
        operator: str = "micro",
        *,
        convention: str = "exclude",
        pooling: str = "pooled",
    ) -> float:
        """One number: ``measure`` under ``operator`` with ``convention`` (NaN if undefined).

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
        >>> round(pr.compute("f1", "macro"), 4)
        0.5222
        """
        if pooling == "fold":
            msg = "pooling='fold' gives one value per fold; use evaluate(..., pooling='fold')"
            raise OptionError(msg)
        out = self.evaluate([measure], [operator], convention=convention, pooling=pooling)
        assert isinstance(out, pl.DataFrame)
        return float(out["value"][0])

    def parts(
        self, measure: MeasureLike, operator: str = "macro", *, by: str | Sequence[str] | None = None
    ) -> pl.DataFrame:
        """Per-class (macro/weighted) or per-example (exemplar, not from stored cells) values.

        Undefined entries have a null ``value`` and ``defined = False``.
        """
        meas = get_measure(measure)
        op = _operator(operator)
        by_cols = _listify(by)
        if op in ("macro", "weighted"):
            tables = self._tables(by_cols)
            out = class_values(tables, meas).collect()
        elif op == "exemplar":
            with reading(self.origin):
                cells, keys, _ = self._example_cells(by_cols)
                tables = self._tables(by_cols)
                out = example_values(cells, keys, EXAMPLE, meas).collect()
        else:
            msg = "the micro operator pools all entries into one value; it has no parts"
            raise OptionError(msg)
        roles = self._roles()
        shown = {EXAMPLE: roles.get(EXAMPLE, "row")}
        columns = [shown.get(c, c) for c in out.columns if c not in tables.keys]
        return restore(out, {**self._result_names(tables, columns, "parts"), **shown})

    def per_class(
        self,
        measures: MeasureLike | Sequence[MeasureLike] | None = None,
        *,
        by: str | Sequence[str] | None = None,
        labels: Sequence[Any] | None = None,
    ) -> pl.DataFrame:
        """Per-class values of any measures, with support: scikit-learn's ``average=None``.

        One tidy frame: by..., class, measure, value (null where undefined),
        defined, support (``tp + fn``), tp, fp, fn, tn.

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels([0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0])
        >>> pr.per_class("precision").select("class", "value", "support")
        shape: (3, 3)
        ┌───────┬──────────┬─────────┐
        │ class ┆ value    ┆ support │
        │ ---   ┆ ---      ┆ ---     │
        │ i64   ┆ f64      ┆ f64     │
        ╞═══════╪══════════╪═════════╡
        │ 0     ┆ 0.5      ┆ 2.0     │
        │ 1     ┆ 0.666667 ┆ 2.0     │
        │ 2     ┆ 1.0      ┆ 3.0     │
        └───────┴──────────┴─────────┘
        """
        ms = _unique_in_order(get_measure(m) for m in (_listify(measures) or list_measures()))
        tables = self._tables(_listify(by))
        out = self._per_class(tables, ms, labels).collect()
        return restore(out, self._result_names(tables, PER_CLASS_COLUMNS, "per_class"))

    def _per_class(
        self, tables: CellTables, ms: Sequence[Measure], labels: Sequence[Any] | None = None
    ) -> pl.LazyFrame:
        """Per-class values with private keys, sorted."""
        if labels is not None:
            tables = subset_tables(tables, list(labels), self._class_dtype())
        visible = [k for k in tables.keys if k != KEY_ALL]
        order = {m.name: i for i, m in enumerate(ms)}
        return class_table(tables, ms).sort(
            [*visible, CLASS, pl.col("measure").replace_strict(order, return_dtype=pl.Int64)],
            nulls_last=True,
        )

    def _example_cells(self, by: Sequence[str]) -> tuple[pl.LazyFrame, list[str], str]:
        """Per-example cells with private keys and the private example column ``EXAMPLE``."""
        self._needs_rows("per-example values")
        tables = self._tables(by)  # validates
        lf, by_keys, _ = self._project(by)
        lf, keys = with_group_key(lf, by_keys)
        keys = [*keys, *([TARGET] if self.target else []), *self._fold_keys()]
        if self.form == "long":
            raw = self._long_raw(lf, keys)
            frame = to_polars(raw["examples"].select(*keys, EXAMPLE, *CELLS))
            return frame.with_columns(pl.col(*CELLS).cast(pl.Float64)), keys, EXAMPLE
        assert self.label_roles is not None
        frame = to_polars(lf)
        if self.label_roles.example is None:
            frame = frame.with_row_index(EXAMPLE)
        if KEY_ALL in keys:
            frame = frame.with_columns(pl.lit(0).alias(KEY_ALL))
        # each group's number of classes (its universe: global, per target or per group)
        m = tables.classes.group_by(list(tables.keys)).agg(pl.len().cast(pl.Float64).alias("_m"))
        rows = frame.rename({Y_TRUE: "_yt", Y_PRED: "_yp"})
        cells = _label_row_cells(rows, self.task, self.pos_label, m, list(tables.keys))
        return cells.select(*keys, EXAMPLE, *CELLS), keys, EXAMPLE

    # -- accuracies ------------------------------------------------------------------
    def _needs_rows(self, what: str) -> None:
        if self.form == "cells":
            msg = f"{what} needs the prediction rows; stored cells hold only their sums (use the original frame)"
            raise OptionError(msg)

    def write_cells(self, path: str | Any, *, by: str | Sequence[str] | None = None) -> Any:
        """Write the cell tables (per ``by`` group) to a directory, for :func:`from_cells`.

        The store holds sums only, so stores of different days or shards add
        up exactly when read together. Returns the directory path.
        """
        from aggframe._store import write_store

        keys = _listify(by)
        tables = self._tables(keys)
        meta = {
            "target": self.target,
            "folds": [c for c in (self.repeat, self.fold) if c is not None],
            "task": self.task if self.form != "long" else "long",
            "pos_label": self.pos_label,
            "single_label": self._is_single_label(),
        }
        return write_store(tables, path, by=keys, meta=meta, origin=self.origin)

    def _is_single_label(self) -> bool:
        if self.form == "labels":
            return self.task == "multiclass"
        if self.declared_task is not None:
            return self.declared_task == "multiclass"  # checked on the data by _tables
        prof = self._tables([]).profiles.collect()
        return self.tnorm is None and bool(prof.select(_ONE_HOT.all()).item())

    @property
    def kind(self) -> Literal["multiclass", "multilabel", "binary"]:
        """The task these predictions are read as: ``multiclass`` (single-label), ``multilabel`` or ``binary``.

        Stated by ``task=`` (or by the form: the label form is single-label), or
        inferred from the data when not stated (:attr:`kind_inferred`): long-form
        data where every example has exactly one true and one predicted class are
        read as single-label. The task decides standard accuracy, the confusion
        matrix, the suites' parametrisation and the degrees of freedom.
        """
        if self.form == "labels" and self.task == "binary":
            return "binary"
        return "multiclass" if self._is_single_label() else "multilabel"

    @property
    def kind_inferred(self) -> bool:
        """Whether :attr:`kind` was inferred from the data (long form without ``task=``)."""
        return self.form == "long" and self.declared_task is None

    def accuracy(self) -> float:
        """Standard accuracy: the share of examples whose class is right.

        On single-label data (the label form, or one-hot long data) this is
        ``sum(tp) / n_examples``, which is *not* ``label_accuracy`` (that one
        counts true negatives and has a floor of ``(m - 2) / m`` on one-hot
        data). On binary and multilabel data it is label accuracy, as in aggmetrics.

        Examples
        --------
        >>> import aggframe as af
        >>> af.from_labels([0, 1, 2, 2], [0, 1, 1, 0]).accuracy()
        0.5
        """
        if self._is_single_label():
            prof = self._tables([]).profiles
            return float(prof.select((pl.col("n") * pl.col("tp")).sum() / pl.col("n").sum()).collect().item())
        return self.compute("label_accuracy", "micro")

    def subset_accuracy(self) -> float:
        """Share of examples whose predicted label set is exactly right (all entries)."""
        if self.tnorm is not None:
            msg = "subset accuracy needs crisp labels; these predictions are soft (a t-norm was given)"
            raise OptionError(msg)
        prof = self._tables([]).profiles
        exact = pl.col("fp") + pl.col("fn") == 0
        return float(prof.select(pl.col("n").filter(exact).sum() / pl.col("n").sum()).collect().item())

    # -- hand-off to the NumPy suite module -----------------------------------------
    def _polars_source(self) -> pl.LazyFrame:
        """The source rows in Polars (every row crosses: for tests and small inputs only)."""
        return to_polars(self.source)

    def confusion_counts(self, *, by: str | Sequence[str] | None = None) -> pl.DataFrame:
        """Single-label confusion counts per group: by..., ``true``, ``pred``, ``n``.

        For the label form and for one-hot long data (each example has exactly
        one true and one predicted class). One grouped query, run where the rows
        are: only the counts cross to Polars.
        """
        keys = _listify(by)
        counts, tables = self._confusion(keys)
        return restore(counts, self._result_names(tables, ("true", "pred", "n"), "confusion_counts"))

    def _confusion(self, by: Sequence[str]) -> tuple[pl.DataFrame, CellTables]:
        """The confusion counts with private by-keys (and the validated tables)."""
        self._needs_rows("the confusion counts")
        tables = self._tables(by)  # validates the data
        lf, keys, _ = self._project(by)
        if self.form == "labels" and self.task == "multiclass":
            pairs = lf.select(*keys, nw.col(Y_TRUE).alias("true"), nw.col(Y_PRED).alias("pred"))
        elif self.form == "long" and self._is_single_label():
            y, p = nw.col(Y).cast(nw.Float64), nw.col(P).cast(nw.Float64)
            # each example has one true and one predicted class (checked above)
            pairs = lf.group_by([*keys, EXAMPLE]).agg(
                nw.when(y == 1).then(nw.col(CLASS_ROLE)).max().alias("true"),
                nw.when(p == 1).then(nw.col(CLASS_ROLE)).max().alias("pred"),
            )
        else:
            msg = "confusion counts need single-label data (the label form, or one-hot long data)"
            raise OptionError(msg)
        counts = pairs.group_by([*keys, "true", "pred"]).agg(nw.len().alias("n"))
        # one dtype for n whatever the engine counted with
        with reading(self.origin):
            out = (
                to_polars(counts)
                .with_columns(pl.col("n").cast(pl.Int64))
                .sort(*keys, "true", "pred", nulls_last=True)
                .collect()
            )
        return out, tables

    def confusion_matrix(self) -> tuple[np.ndarray, list[Any]]:
        """``(C, classes)`` with ``C[j, k]`` = examples of true class j predicted k (single-label only)."""
        classes = self.cells("class")[CLASS].to_list()
        return _matrix(self.confusion_counts(), classes), classes

    def _check_suite_data(self) -> None:
        if self.tnorm is not None or (self.long_roles is not None and self.long_roles.mask is not None):
            msg = (
                "measure suites are defined on crisp, unmasked data; soft labels and masks are not supported"
            )
            raise OptionError(msg)

    def _suite_input(self) -> Any:
        return self._suite_inputs([])[1][0]

    def _suite_inputs(self, by: Sequence[str]) -> tuple[list[tuple[Any, ...]], list[Any]]:
        """One SuiteInput per group (from one grouped query), for the NumPy suite module.

        Groups are the distinct key tuples (a null key is a group); the suite module
        is NumPy and sees one group's small count table at a time.
        """
        from aggframe._suites import SuiteInput

        self._check_suite_data()
        tables = self._tables(by)
        keys = [k for k in tables.keys if k != KEY_ALL]
        classes_tbl = self._cell_frame(tables, "class")
        groups = classes_tbl.select(keys).unique(maintain_order=True).rows() if keys else [()]

        def part(frame: pl.DataFrame, key: tuple[Any, ...]) -> pl.DataFrame:
            same = [pl.col(k).eq_missing(pl.lit(v)) for k, v in zip(keys, key, strict=True)]
            return frame.filter(*same) if keys else frame

        single = (self.form == "labels" and self.task == "multiclass") or (
            self.form == "long" and self._is_single_label()
        )
        inputs: list[Any] = []
        if single:
            counts, _ = self._confusion(by)
            classes = classes_tbl[CLASS].unique(maintain_order=True).to_list()
            for key in groups:
                inputs.append(SuiteInput(kind="multiclass", counts=_matrix(part(counts, key), classes)))
            return groups, inputs
        for key in groups:
            cells = part(classes_tbl, key).select(*CELLS).to_numpy().astype(float)
            if cells.shape[0] == 1:
                inputs.append(SuiteInput(kind="binary", counts=cells[0]))
            else:
                inputs.append(SuiteInput(kind="multilabel", counts=cells))
        return groups, inputs


def _matrix(counts: pl.DataFrame, classes: list[Any]) -> np.ndarray:
    index = {c: i for i, c in enumerate(classes)}
    C = np.zeros((len(classes), len(classes)))
    for t, p, n in counts.select("true", "pred", "n").iter_rows():
        C[index[t], index[p]] += n
    return C


# ---------------------------------------------------------------------------
# Constructors


def _resolve_universe(
    n_classes: int | dict[Any, int] | None,
    classes: Sequence[Any] | dict[Any, Sequence[Any]] | None,
    enum_categories: list[Any] | None,
    target: str | None = None,
) -> list[Any] | dict[Any, list[Any]] | None:
    if isinstance(n_classes, dict) or isinstance(classes, dict):
        if target is None:
            msg = "classes/n_classes given per target (a dict) need a target column: pass target='<column>'"
            raise OptionError(msg)
        if n_classes is not None and classes is not None:
            msg = "give either `n_classes` or `classes` per target, not both"
            raise OptionError(msg)
        out: dict[Any, list[Any]] = {}
        if isinstance(n_classes, dict):
            for t, size in n_classes.items():
                out[t] = _resolve_universe(size, None, None)  # type: ignore[assignment]
        elif isinstance(classes, dict):
            for t, values in classes.items():
                out[t] = _resolve_universe(None, values, None)  # type: ignore[assignment]
        return out
    if n_classes is not None:
        if not isinstance(n_classes, (int, np.integer)) or isinstance(n_classes, bool) or n_classes < 1:
            msg = f"Expected `n_classes` to be a positive integer, got {n_classes!r}"
            raise OptionError(msg)
        from_n = list(range(int(n_classes)))
        if classes is not None and list(classes) != from_n:
            msg = f"`n_classes={n_classes}` and `classes` disagree; give one of them"
            raise OptionError(msg)
        return from_n
    if classes is not None:
        values = list(classes)
        if not values:
            msg = "Expected `classes` to hold at least one class"
            raise OptionError(msg)
        if any(v is None for v in values):
            msg = f"`classes` {values[:5]!r} name a null class; a class is a value, not null"
            raise OptionError(msg)
        return values
    return enum_categories


def _enum_categories(lf: nw.LazyFrame[Any], column: str) -> list[Any] | None:
    native = nw.to_native(lf)
    if isinstance(native, pl.LazyFrame):
        dtype = native.collect_schema()[column]
        if isinstance(dtype, pl.Enum):
            return dtype.categories.to_list()
    return None


def from_long(
    frame: Any,
    *,
    example: str = "example",
    class_: str = "class",
    y: str = "y",
    p: str = "p",
    mask: str | None = None,
    fold: str | None = None,
    repeat: str | None = None,
    target: str | None = None,
    n_classes: int | dict[Any, int] | None = None,
    classes: Sequence[Any] | dict[Any, Sequence[Any]] | None = None,
    tnorm: str | TNorm | None = None,
    class_universe: Literal["global", "group"] = "global",
    task: Literal["multiclass", "multilabel"] | None = None,
    examples: int | Any | None = None,
) -> Predictions:
    """Predictions in long (indicator) form: one row per (example, class).

    Parameters
    ----------
    frame
        A Polars DataFrame or LazyFrame (e.g. ``pl.scan_parquet(...)``), or any
        frame Narwhals supports.
    example, class_, y, p, mask
        Role column names. ``y`` (truth) and ``p`` (prediction) hold 0/1,
        booleans, or soft values in [0, 1] (soft needs ``tnorm``); ``mask``
        (optional) is 1 for observed entries and 0 for unobserved ones.
    fold, repeat
        Cross-validation roles: the test fold of each row, and (repeated CV)
        the repetition. Each appearance of an example in a fold is its own
        example; the class universe is shared by all folds. See ``pooling`` in
        :meth:`Predictions.evaluate`.
    target
        Multi-output role: one block of classes per target, on the same
        examples. Targets may have different classes (give ``classes`` or
        ``n_classes`` as a dict per target; a plain list or int is one universe
        for every target). Enables the ``target`` operator.
    class_universe
        ``"global"`` (default): every class seen anywhere (or declared) is a
        class of every ``by`` group, so a class absent from a group is undefined
        there by the convention and counted in ``n_undefined``. ``"group"``: each
        group's classes are the ones seen in it (not with a declared universe).
    n_classes, classes
        The class universe (``classes`` = its values, ``n_classes`` = the values
        ``0 .. n-1``); an Enum class column gives it too. With a universe the
        frame may be *sparse*: absent (example, class) entries are observed true
        negatives (every example still needs at least one row). Without one, the
        frame must be dense.
    tnorm
        ``'product'``, ``'godel'`` (``'minimum'``), ``'lukasiewicz'``,
        ``'hamacher'``, ``af.hamacher(gamma)`` or a callable ``T(a, b)`` on
        expressions: combines soft y and p into the four cells.
    task
        ``"multiclass"`` (single-label: each example has exactly one true and
        one predicted class, checked) or ``"multilabel"``. Without it the task is
        inferred from the data (one-hot data are read as single-label), so one
        extra label on one example would change standard accuracy, the suites'
        parametrisation and the degrees of freedom: state it when you know it.
        :attr:`Predictions.kind` says which task is used and
        :attr:`Predictions.kind_inferred` whether it was inferred.
    examples
        Declare the examples, so that a sparse log that records only the
        entries with a 1 loses no example: declared examples without any row
        count as all-negative (every entry a true negative). A count (the
        number of examples; no ``by=``, folds or targets then), or a Polars
        frame with one row per example: the ``example`` column and every column
        the evaluation groups by (``by=``, ``fold``, ``repeat``). Every example
        with rows must be declared (checked). Not with targets or
        ``class_universe="group"``; as a frame, on Polars sources.

    Examples
    --------
    >>> import polars as pl, aggframe as af
    >>> df = pl.DataFrame({"example": [0, 0, 1, 1], "class": ["a", "b", "a", "b"],
    ...                    "y": [1, 0, 0, 1], "p": [1, 1, 0, 1]})
    >>> af.from_long(df).compute("precision", "micro")
    0.6666666666666666
    """
    if task not in (None, "multiclass", "multilabel"):
        msg = f"Expected `task` to be None, 'multiclass' or 'multilabel', got {task!r}"
        raise OptionError(msg)
    if task == "multiclass" and tnorm is not None:
        msg = "task='multiclass' needs crisp labels (one true and one predicted class); soft labels are multilabel"
        raise OptionError(msg)
    lf = _as_lazy(frame, "frame")
    roles = LongRoles(example=example, class_=class_, y=y, p=p, mask=mask)
    schema = _require_columns(
        lf,
        {"example": example, "class_": class_, "y": y, "p": p, "mask": mask, "fold": fold, "repeat": repeat},
    )
    _check_numeric(schema, {"y": y, "p": p, "mask": mask})
    fn, name = resolve_tnorm(tnorm)
    universe = _resolve_universe(n_classes, classes, _enum_categories(lf, class_), target)
    _check_class_universe(class_universe, universe)
    declared = _declared_examples(examples, lf, target=target, class_universe=class_universe)
    return Predictions(
        form="long",
        source=lf,
        origin=origin_of(lf),
        long_roles=roles,
        universe=universe,
        tnorm=fn,
        tnorm_name=name,
        fold=fold,
        repeat=repeat,
        target=target,
        class_universe=class_universe,
        declared_task=task,
        declared_examples=declared,
    )


def _declared_examples(
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


def _check_class_universe(mode: str, universe: Any) -> None:
    if mode not in ("global", "group"):
        msg = f"Expected `class_universe` to be 'global' or 'group', got {mode!r}"
        raise OptionError(msg)
    if mode == "group" and universe is not None:
        msg = "class_universe='group' takes each group's observed classes; it cannot be combined with declared classes"
        raise OptionError(msg)


def _label_array(values: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(values)
    except ValueError as exc:
        msg = f"{name} is not a 1-D sequence of labels (ragged or nested input): {exc}"
        raise ShapeError(msg) from exc


def _label_frame(y_true: Any, y_pred: Any, true_name: str, pred_name: str) -> pl.DataFrame:
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
    return _object_labels(values, name) if values.dtype == object else pl.Series(values)


def _align_label_dtypes(
    lf: nw.LazyFrame[Any], schema: nw.Schema, y_true: str, y_pred: str
) -> nw.LazyFrame[Any]:
    """Bring y_true and y_pred to one dtype (Int32 vs Int64, int vs float, bool vs int) or refuse.

    Numbers and strings never mix (scikit-learn: "Mix of label input types"): the
    string "0" is not the number 0, on arrays as on frames.
    """
    a, b = schema[y_true], schema[y_pred]
    if a == b:
        return lf

    def numeric(d: Any) -> bool:
        return bool(d.is_numeric() or d == nw.Boolean)

    if numeric(a) and numeric(b):
        target = nw.Float64 if (a.is_float() or b.is_float()) else nw.Int64
        return lf.with_columns(nw.col(y_true).cast(target), nw.col(y_pred).cast(target))
    msg = (
        f"columns {y_true!r} ({a}) and {y_pred!r} ({b}) hold labels of different types: a mix of "
        "label input types (the string '0' is not the number 0); cast them to one type first"
    )
    raise InvalidValueError(msg)


def from_cells(paths: Any) -> Predictions:
    """Predictions from stored cell tables (:meth:`Predictions.write_cells`): no raw rows needed.

    ``paths`` is one store directory or a list of them with the same layout (for
    example one per day): rows of the same group add up, so the result equals an
    evaluation of all their predictions together. Any subset of the stored ``by``
    columns can be evaluated; every operator, convention and grouping set works.

    Examples
    --------
    >>> import tempfile, aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    >>> store = pr.write_cells(tempfile.mkdtemp())
    >>> round(af.from_cells(store).compute("f1", "macro"), 4)
    0.5222
    """
    from aggframe._store import read_store, source_of

    tables, meta = read_store(paths)
    folds = list(meta.get("folds", []))
    return Predictions(
        form="cells",
        source=source_of(tables),
        task=meta.get("task", "multiclass") if meta.get("single_label") else "cells",
        pos_label=meta.get("pos_label", 1),
        fold=folds[-1] if folds else None,
        repeat=folds[0] if len(folds) > 1 else None,
        target=meta.get("target"),
        stored=tables,
        stored_by=tuple(meta["by"]),
        origin=meta["origin"],
    )


def from_labels(
    data: Any,
    y_pred_values: Any = None,
    /,
    *,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    example: str | None = None,
    fold: str | None = None,
    repeat: str | None = None,
    target: str | None = None,
    n_classes: int | dict[Any, int] | None = None,
    classes: Sequence[Any] | dict[Any, Sequence[Any]] | None = None,
    task: Literal["multiclass", "binary"] | None = None,
    pos_label: Any = 1,
    class_universe: Literal["global", "group"] = "global",
) -> Predictions:
    """Single-label predictions: one true and one predicted class per example.

    ``from_labels(y_true_array, y_pred_array)`` or
    ``from_labels(frame, y_true="col", y_pred="col", example="col")``.
    ``fold``/``repeat``/``target`` and ``class_universe`` are as in :func:`from_long`.

    Evaluated without building n x m rows: the confusion counts of (true,
    predicted) pairs hold everything. The encoding is one-hot over all classes,
    whatever their number: two classes are *not* silently turned into a binary
    task. ``task="binary"`` keeps the positive class ``pos_label`` only, as one
    column (aggmetrics' binary task).

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0])
    >>> round(pr.compute("precision", "macro"), 4), round(pr.compute("precision", "weighted"), 4)
    (0.7222, 0.7619)
    """
    if task not in (None, "multiclass", "binary"):
        msg = f"Expected `task` to be None, 'multiclass' or 'binary', got {task!r}"
        raise OptionError(msg)
    origin = FRAME  # label arrays; a frame (or paths) has its own, below
    if _is_frame(data):
        if y_pred_values is not None:
            msg = "with a frame, name the columns: from_labels(frame, y_true='col', y_pred='col')"
            raise OptionError(msg)
        lf = _as_lazy(data, "data")
        origin = origin_of(lf)
        roles = LabelRoles(y_true=y_true, y_pred=y_pred, example=example)
        schema = _require_columns(
            lf,
            {
                "y_true": y_true,
                "y_pred": y_pred,
                "example": example,
                "fold": fold,
                "repeat": repeat,
                "target": target,
            },
        )
        if target is not None and example is None:
            msg = "targets in the label form need an example column: pass example='<column>'"
            raise OptionError(msg)
        lf = _align_label_dtypes(lf, schema, y_true, y_pred)
    else:
        if y_pred_values is None:
            msg = "from_labels(y_true, y_pred) needs both arrays (or a frame with column names)"
            raise OptionError(msg)
        if fold is not None or repeat is not None or example is not None or target is not None:
            msg = "fold=, repeat=, target= and example= name columns of a frame; with arrays, pass a frame instead"
            raise OptionError(msg)
        df = _label_frame(data, y_pred_values, "y_true", "y_pred")
        lf = nw.from_native(df).lazy()
        lf = _align_label_dtypes(lf, lf.collect_schema(), "y_true", "y_pred")
        roles = LabelRoles()
    universe = _resolve_universe(n_classes, classes, _enum_categories(lf, roles.y_true), target)
    _check_class_universe(class_universe, universe)
    mode = task or "multiclass"
    if mode == "binary" and universe is not None and pos_label not in universe:
        msg = f"pos_label {pos_label!r} is not among the declared classes {universe[:10]!r}"
        raise OptionError(msg)
    return Predictions(
        form="labels",
        source=lf,
        origin=origin,
        label_roles=roles,
        universe=universe,
        task=mode,
        pos_label=pos_label,
        fold=fold,
        repeat=repeat,
        target=target,
        class_universe=class_universe,
    )


def from_indicator(
    Y: Any,
    P: Any,
    *,
    mask: Any = None,
    tnorm: str | TNorm | None = None,
    task: Literal["multiclass", "multilabel"] | None = None,
) -> Predictions:
    """Indicator matrices ``Y`` (truth) and ``P`` (predictions), n x m (1-D = one column).

    The NumPy bridge for people coming from aggmetrics or scikit-learn. The
    matrices are stored sparsely (entries with y = p = 0 that are observed are
    true negatives) with examples ``0 .. n-1`` and classes ``0 .. m-1``.
    ``task`` states whether the rows are single-label (``"multiclass"``, checked)
    or ``"multilabel"``; without it, it is inferred (see :func:`from_long`).

    Examples
    --------
    >>> import numpy as np, aggframe as af
    >>> Y = np.array([[1, 0, 1], [0, 1, 0]]); P = np.array([[1, 0, 0], [0, 1, 1]])
    >>> af.from_indicator(Y, P).compute("f1", "exemplar")
    0.6666666666666666
    """
    try:
        Ya, Pa = np.asarray(Y), np.asarray(P)
    except ValueError as exc:
        msg = f"Y and P must be n x m matrices (ragged or nested input): {exc}"
        raise ShapeError(msg) from exc
    Ya = Ya.reshape(-1, 1) if Ya.ndim == 1 else Ya
    Pa = Pa.reshape(-1, 1) if Pa.ndim == 1 else Pa
    if Ya.ndim != 2 or Ya.shape != Pa.shape:
        msg = f"Y has shape {np.asarray(Y).shape} but P has shape {np.asarray(P).shape}; they must match (n x m)"
        raise ShapeError(msg)
    if Ya.size == 0:
        msg = "the indicator matrices are empty"
        raise EmptyInputError(msg)
    Ma = None
    if mask is not None:
        Ma = np.asarray(mask)
        Ma = Ma.reshape(-1, 1) if Ma.ndim == 1 else Ma
        if Ma.shape != Ya.shape:
            msg = f"mask has shape {Ma.shape} but Y and P have shape {Ya.shape}"
            raise ShapeError(msg)
    for name, arr in (("Y", Ya), ("P", Pa), ("mask", Ma)):
        if arr is not None and not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            msg = f"{name} has dtype {arr.dtype}; expected booleans or numbers in [0, 1]"
            raise InvalidValueError(msg)
    keep = (Ya != 0) | (Pa != 0)
    if Ma is not None:
        keep |= Ma != 1
    keep |= np.isnan(Ya.astype(float)) | np.isnan(Pa.astype(float))
    keep[:, 0] = True  # every example keeps one row, so it is counted
    rows, cols = np.nonzero(keep)
    data: dict[str, Any] = {
        "example": rows.astype(np.int64),
        "class": cols.astype(np.int64),
        "y": Ya[rows, cols].astype(np.float64),
        "p": Pa[rows, cols].astype(np.float64),
    }
    if Ma is not None:
        data["mask"] = Ma[rows, cols].astype(np.float64)
    df = pl.DataFrame(data)
    return from_long(
        df, mask="mask" if Ma is not None else None, n_classes=Ya.shape[1], tnorm=tnorm, task=task
    )
