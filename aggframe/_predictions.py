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

from aggframe._cells import CELLS, KEY_ALL, LabelRoles, LongRoles, label_grains, long_grains, with_group_key
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
from aggframe._grouping import GROUPING_COLUMN, resolve_grouping_sets, rollup_tables
from aggframe._measures import Measure, get_measure, list_measures
from aggframe._operators import (
    RESULT_COLUMNS,
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
    stored: CellTables | None = field(default=None, repr=False)
    stored_by: tuple[str, ...] = ()
    origin: Origin = field(default=FRAME, repr=False)  # the source, for messages and cell stores
    _cache: dict[tuple[str, ...], CellTables] = field(default_factory=dict, repr=False)

    # -- cell tables ------------------------------------------------------------
    def _class_dtype(self) -> pl.DataType:
        return self._dtype(self._class_column())

    def _check_by(self, by: Sequence[str]) -> None:
        schema = self.source.collect_schema()
        for col in by:
            if col not in schema:
                msg = f"by column {col!r} is not in the frame; available columns: {list(schema.names())}"
                raise ColumnNotFoundError(msg)
            if col in (*RESULT_COLUMNS, CLASS, *CELLS, "pooling", *self._fold_keys(), self.target):
                msg = f"by column {col!r} collides with a result column; rename it first"
                raise OptionError(msg)
        if len(set(by)) != len(by):
            msg = f"by columns repeat a name: {list(by)!r}"
            raise OptionError(msg)

    def _fold_keys(self) -> list[str]:
        return [c for c in (self.repeat, self.fold) if c is not None]

    def _lazy_tables(self, by: Sequence[str]) -> CellTables:
        """Cell tables keyed by ``by`` (or the stand-in key) plus the fold columns."""
        if self.form == "cells":
            assert self.stored is not None
            missing = [c for c in by if c not in self.stored_by]
            if missing:
                msg = (
                    f"by column {missing[0]!r} is not a key of these stored cells; they were written "
                    f"with by={list(self.stored_by)!r}, so any subset of those can be evaluated"
                )
                raise ColumnNotFoundError(msg)
            return rollup_tables(self.stored, self.stored_by, list(by))
        self._check_by(by)
        lf, keys = with_group_key(self.source, by)
        keys = [*keys, *([self.target] if self.target else []), *self._fold_keys()]
        universe = (
            None
            if self.universe is None
            else universe_frame(
                self.universe,
                self._class_dtype(),
                self._class_column(),
                target=self.target,
                target_dtype=self._dtype(self.target) if self.target else None,
            )
        )
        if self.form == "long":
            roles = self.long_roles
            assert roles is not None
            raw = self._long_raw(lf, keys)
            return finish_long(
                raw,
                source=self.source,
                roles=roles,
                keys=keys,
                universe=universe,
                soft_ok=self.tnorm is not None,
                target=self.target,
                group_universe=self._group_universe(by),
            )
        lroles = self.label_roles
        assert lroles is not None
        raw = label_grains(lf, lroles, keys)
        return finish_labels(
            raw,
            source=self.source,
            roles=lroles,
            keys=keys,
            universe=universe,
            task=self.task,
            pos_label=self.pos_label,
            target=self.target,
            group_universe=self._group_universe(by),
        )

    def _group_universe(self, by: Sequence[str]) -> list[str]:
        """The by-columns that key the class universe (none: one global universe)."""
        return list(by) if self.class_universe == "group" else []

    def _long_raw(self, lf: nw.LazyFrame[Any], keys: list[str]) -> dict[str, nw.LazyFrame[Any]]:
        assert self.long_roles is not None
        return long_grains(
            lf, self.long_roles, keys, tnorm=self.tnorm, n_classes=self._universe_sizes(), target=self.target
        )

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
            self._cache[key] = CellTables(
                classes=got[0].lazy(),
                profiles=got[1].lazy(),
                keys=tables.keys,
                block_profiles=got[2].lazy() if len(got) > 2 else None,
                target=tables.target,
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
        tables = self._tables(_listify(by))
        visible = [k for k in tables.keys if k != KEY_ALL]
        if grain == "class":
            return tables.classes.sort([*visible, CLASS]).drop(KEY_ALL, strict=False).collect()
        if grain == "pooled":
            out = tables.classes.group_by(list(tables.keys)).agg(pl.col(*CELLS).sum())
            return out.sort(list(tables.keys)).drop(KEY_ALL, strict=False).collect()
        if grain == "profiles":
            return tables.profiles.sort([*tables.keys, *CELLS]).drop(KEY_ALL, strict=False).collect()
        msg = f"unknown grain {grain!r}; valid grains: class, pooled, profiles"
        raise UnknownNameError(msg)

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
        by_cols = _listify(by)
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
            if not self._fold_keys():
                return reducer(tables)
            keys = [k for k in tables.keys if k not in self._fold_keys()]
            return fold_report(tables, keys, self._fold_keys(), reducer=reducer, poolings=pools)

        if grouping_sets is not None:
            sets = resolve_grouping_sets(grouping_sets, by_cols)
            single = report

            def report(tables: CellTables) -> pl.LazyFrame:
                parts = [
                    single(rollup_tables(tables, by_cols, keep)).with_columns(
                        *[pl.lit(None).alias(c) for c in by_cols if c not in keep],
                        pl.lit(",".join(keep)).alias(GROUPING_COLUMN),
                    )
                    for keep in sets
                ]
                columns = parts[0].collect_schema().names()
                ordered = [
                    *by_cols,
                    GROUPING_COLUMN,
                    *[c for c in columns if c not in (*by_cols, GROUPING_COLUMN)],
                ]
                return pl.concat([p.select(ordered) for p in parts], how="vertical_relaxed")

        if lazy:
            return report(self._lazy_tables(by_cols))
        # the scan yields the small cell tables (kept for later calls); the report runs on them
        return report(self._tables(by_cols, engine)).collect(engine=engine)

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
        report = self.evaluate(measures, operators, by=keys, convention=convention, grouping_sets=[keys, []])
        assert isinstance(report, pl.DataFrame)
        compared = compare_groups(report, keys, reference)
        return summarize_groups(compared, keys) if summary else compared

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
            return class_values(self._tables(by_cols), meas).collect()
        if op == "exemplar":
            with reading(self.origin):
                cells, keys, example = self._example_cells(by_cols)
                return example_values(cells, keys, example, meas).collect()
        msg = "the micro operator pools all entries into one value; it has no parts"
        raise OptionError(msg)

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
        if labels is not None:
            tables = subset_tables(tables, list(labels), self._class_dtype())
        visible = [k for k in tables.keys if k != KEY_ALL]
        names = {m.name: i for i, m in enumerate(ms)}
        return (
            class_table(tables, ms)
            .sort(
                [*visible, CLASS, pl.col("measure").replace_strict(names, return_dtype=pl.Int64)],
                nulls_last=True,
            )
            .collect()
        )

    def _example_cells(self, by: Sequence[str]) -> tuple[pl.LazyFrame, list[str], str]:
        self._needs_rows("per-example values")
        self._tables(by)  # validates
        lf, keys = with_group_key(self.source, by)
        if self.form == "long":
            roles = self.long_roles
            assert roles is not None
            raw = self._long_raw(lf, keys)
            frame = to_polars(raw["examples"].select(*keys, roles.example, *CELLS))
            return frame.with_columns(pl.col(*CELLS).cast(pl.Float64)), keys, roles.example
        lroles = self.label_roles
        assert lroles is not None
        frame = to_polars(lf)
        if lroles.example is None:
            frame = frame.with_row_index("row")
        if KEY_ALL in keys:
            frame = frame.with_columns(pl.lit(0).alias(KEY_ALL))
        example = lroles.example or "row"
        # each group's number of classes (its universe: global, per target or per group)
        tables = self._tables(by)
        m = tables.classes.group_by(list(tables.keys)).agg(pl.len().cast(pl.Float64).alias("_m"))
        rows = frame.rename({lroles.y_true: "_yt", lroles.y_pred: "_yp"})
        cells = _label_row_cells(rows, self.task, self.pos_label, m, list(tables.keys))
        out = cells.select(*keys, example, *CELLS)
        return out, keys, example

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
            "folds": self._fold_keys(),
            "task": self.task if self.form != "long" else "long",
            "pos_label": self.pos_label,
            "single_label": self._is_single_label(),
        }
        return write_store(tables, path, by=keys, meta=meta, origin=self.origin)

    def _is_single_label(self) -> bool:
        if self.form == "labels":
            return self.task == "multiclass"
        prof = self._tables([]).profiles.collect()
        one_hot = (pl.col("tp") + pl.col("fn") == 1) & (pl.col("tp") + pl.col("fp") == 1)
        return self.tnorm is None and bool(prof.select(one_hot.all()).item())

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
        self._needs_rows("the confusion counts")
        keys = _listify(by)
        self._tables(keys)  # validates the data
        if self.form == "labels" and self.task == "multiclass":
            lroles = self.label_roles
            assert lroles is not None
            pairs = self.source.select(
                *keys, nw.col(lroles.y_true).alias("true"), nw.col(lroles.y_pred).alias("pred")
            )
        elif self.form == "long" and self._is_single_label():
            roles = self.long_roles
            assert roles is not None
            y, p = nw.col(roles.y).cast(nw.Float64), nw.col(roles.p).cast(nw.Float64)
            # each example has one true and one predicted class (checked above)
            pairs = self.source.group_by([*keys, roles.example]).agg(
                nw.when(y == 1).then(nw.col(roles.class_)).max().alias("true"),
                nw.when(p == 1).then(nw.col(roles.class_)).max().alias("pred"),
            )
        else:
            msg = "confusion counts need single-label data (the label form, or one-hot long data)"
            raise OptionError(msg)
        counts = pairs.group_by([*keys, "true", "pred"]).agg(nw.len().alias("n"))
        # one dtype for n whatever the engine counted with
        with reading(self.origin):
            return (
                to_polars(counts)
                .with_columns(pl.col("n").cast(pl.Int64))
                .sort(*keys, "true", "pred")
                .collect()
            )

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
        """One SuiteInput per group (from one grouped query), for the NumPy suite module."""
        from aggframe._suites import SuiteInput

        self._check_suite_data()
        keys = list(by)
        classes_tbl = self.cells("class", by=keys)
        groups = classes_tbl.select(keys).unique(maintain_order=True).rows() if keys else [()]
        single = (self.form == "labels" and self.task == "multiclass") or (
            self.form == "long" and self._is_single_label()
        )
        inputs: list[Any] = []
        if single:
            counts = self.confusion_counts(by=keys)
            classes = classes_tbl[CLASS].unique(maintain_order=True).to_list()
            for key in groups:
                part = (
                    counts.filter(*[pl.col(k) == v for k, v in zip(keys, key, strict=True)])
                    if keys
                    else counts
                )
                inputs.append(SuiteInput(kind="multiclass", counts=_matrix(part, classes)))
            return groups, inputs
        for key in groups:
            part = (
                classes_tbl.filter(*[pl.col(k) == v for k, v in zip(keys, key, strict=True)])
                if keys
                else classes_tbl
            )
            cells = part.select(*CELLS).to_numpy().astype(float)
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

    Examples
    --------
    >>> import polars as pl, aggframe as af
    >>> df = pl.DataFrame({"example": [0, 0, 1, 1], "class": ["a", "b", "a", "b"],
    ...                    "y": [1, 0, 0, 1], "p": [1, 1, 0, 1]})
    >>> af.from_long(df).compute("precision", "micro")
    0.6666666666666666
    """
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
    )


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
    """Bring y_true and y_pred to one dtype (Int32 vs Int64, int vs float) or refuse."""
    a, b = schema[y_true], schema[y_pred]
    if a == b:
        return lf
    if a.is_numeric() and b.is_numeric():
        target = nw.Float64 if (a.is_float() or b.is_float()) else nw.Int64
        return lf.with_columns(nw.col(y_true).cast(target), nw.col(y_pred).cast(target))
    msg = (
        f"columns {y_true!r} and {y_pred!r} hold labels of different types ({a} and {b}); "
        "cast them to one type first"
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
        if df["y_true"].dtype != df["y_pred"].dtype:
            try:
                df = df.with_columns(pl.col("y_pred").cast(df["y_true"].dtype, strict=True))
            except Exception as exc:
                msg = f"y_true ({df['y_true'].dtype}) and y_pred ({df['y_pred'].dtype}) hold labels of different types"
                raise InvalidValueError(msg) from exc
        lf = nw.from_native(df).lazy()
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


def from_indicator(Y: Any, P: Any, *, mask: Any = None, tnorm: str | TNorm | None = None) -> Predictions:
    """Indicator matrices ``Y`` (truth) and ``P`` (predictions), n x m (1-D = one column).

    The NumPy bridge for people coming from aggmetrics or scikit-learn. The
    matrices are stored sparsely (entries with y = p = 0 that are observed are
    true negatives) with examples ``0 .. n-1`` and classes ``0 .. m-1``.

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
    return from_long(df, mask="mask" if Ma is not None else None, n_classes=Ya.shape[1], tnorm=tnorm)
