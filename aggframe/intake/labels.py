"""The label form: one row per example, a true and a predicted class (single-label data).

Never expanded to n x m rows: the (y_true, y_pred) confusion counts hold every
per-class cell, and an example is right or wrong. One-hot over all classes,
whatever their number; ``task="binary"`` keeps the positive class alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import narwhals as nw
import polars as pl

from aggframe._columns import CELLS, EXAMPLE, KEY_ALL, Y_PRED, Y_TRUE
from aggframe._options import Bootstrap, LabelTask
from aggframe.exceptions import OptionError
from aggframe.intake.base import Projection, Source
from aggframe.intake.frame_input import as_lazy, is_frame
from aggframe.intake.input_checks import (
    align_label_dtypes,
    check_class_universe,
    enum_categories,
    label_frame,
    null_columns,
    require_columns,
    resolve_universe,
    unfit_labels,
)
from aggframe.intake.options import LabelOptions
from aggframe.intake.origin import FRAME, origin_of
from aggframe.tables.bootstrap import finish_label_boot
from aggframe.tables.cells import CellTables, group_table
from aggframe.tables.labels import finish_labels, row_cells
from aggframe.tables.universe import exact_classes
from aggframe.wide.engines import collect_polars, to_polars
from aggframe.wide.labels import PAIRS_UP_TO, LabelRoles, label_boot_grains, label_grains

__all__ = ["LabelSource", "label_source"]


@dataclass(kw_only=True)
class LabelSource(Source):
    """Predictions in label form (see :func:`~aggframe.from_labels`)."""

    form: ClassVar = "labels"

    label_roles: LabelRoles
    task: LabelTask = "multiclass"
    #: the one dtype y_true and y_pred are read as, when they differ (Narwhals dtype)
    cast: Any = None

    def role_columns(self) -> dict[str, str]:
        r = self.label_roles
        roles = {Y_TRUE: r.y_true, Y_PRED: r.y_pred}
        return roles if r.example is None else {**roles, EXAMPLE: r.example}

    def class_column(self) -> str:
        return self.label_roles.y_true

    def class_dtype(self) -> pl.DataType:
        if self.cast is None:
            return super().class_dtype()
        if self.cast in (nw.Float64, nw.Int64):
            return pl.Float64() if self.cast == nw.Float64 else pl.Int64()
        # a column of nulls read as the other's type (any type): ask the engine for it
        col = self.class_column()
        return collect_polars(self.frame.select(nw.col(col).cast(self.cast)).head(0)).schema[col]

    @property
    def binary(self) -> bool:
        return self.task == "binary"

    def project(self, by: Sequence[str], extra: dict[str, str] | None = None) -> Projection:
        proj = super().project(by, extra)
        if self.cast is None:
            return proj
        # a label the common type cannot hold exactly is read as null, never as another label:
        # the null check then counts it on ``raw`` (``cast_guards``) and says what it is
        guards = self.cast_guards(proj.frame.collect_schema())
        cast = [
            (nw.col(c) if c not in guards else nw.when(~guards[c][0]).then(nw.col(c)))
            .cast(self.cast)
            .alias(c)
            for c in (Y_TRUE, Y_PRED)
        ]
        return replace(proj, frame=proj.frame.with_columns(*cast), raw=proj.frame)

    def cast_guards(self, schema: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
        """Per (private) label column, the labels the common type cannot hold (:func:`unfit_labels`)."""
        guards = {c: unfit_labels(schema[c], c, self.cast) for c in (Y_TRUE, Y_PRED)}
        return {c: g for c, g in guards.items() if g is not None}

    def _private_roles(self) -> LabelRoles:
        return LabelRoles(
            y_true=Y_TRUE, y_pred=Y_PRED, example=EXAMPLE if self.label_roles.example is not None else None
        )

    def tables(self, by: Sequence[str], *, pairs: bool = False) -> CellTables:
        proj = self.project(by)
        roles = self._private_roles()
        guards = {} if proj.raw is None else self.cast_guards(proj.raw.collect_schema())
        return finish_labels(
            label_grains(proj.frame, roles, proj.keys, pairs=pairs, via_pairs=self._few_classes()),
            source=proj.frame,
            unfit=(proj.raw, guards) if guards and proj.raw is not None else None,
            roles=roles,
            keys=proj.keys,
            universe=self.universe_table(),
            task=self.task,
            pos_label=self.pos_label,
            names=proj.names,
            target=self.target_key(),
            group_universe=proj.by_keys if self.class_universe == "group" else [],
        )

    def _few_classes(self) -> bool:
        """Whether a universe known before the scan has at most ``PAIRS_UP_TO`` classes (see :func:`label_grains`)."""
        sizes = self.universe_sizes()
        m = max(sizes.values(), default=0) if isinstance(sizes, dict) else sizes
        return m is not None and m <= PAIRS_UP_TO

    def boot_tables(self, by: Sequence[str], boot: Bootstrap, base: CellTables) -> CellTables:
        proj, unit, what = self.boot_projection(by, boot)
        frame = proj.frame
        if unit == EXAMPLE and self.label_roles.example is None:
            # no example ids: a row is an example, and its position its id (Polars keeps row order)
            native = nw.to_native(frame)
            if not isinstance(native, pl.LazyFrame):
                msg = (
                    "a bootstrap of the label form without example ids numbers the rows, which only Polars "
                    "keeps in order; pass example='<column>' (it also pairs the examples of several models)"
                )
                raise OptionError(msg)
            frame = nw.from_native(
                native.with_row_index(EXAMPLE).with_columns(pl.col(EXAMPLE).cast(pl.Int64))
            )
        roles = self._private_roles()
        raw = label_boot_grains(
            frame,
            roles,
            proj.keys,
            boot,
            unit=unit,
            what=what,
            target=self.target_key(),
            task=self.task,
            pos_label=self.pos_label,
        )
        return finish_label_boot(
            raw,
            base,
            n_boot=boot.n_boot,
            y_true=Y_TRUE,
            y_pred=Y_PRED,
            task=self.task,
            pos_label=self.pos_label,
            cluster=boot.cluster,
        )

    def single_label(self, profiles: Callable[[], pl.DataFrame]) -> bool:
        return self.task == "multiclass"

    def example_cells(self, by: Sequence[str], tables: CellTables) -> tuple[pl.LazyFrame, list[str]]:
        proj = self.project(by)
        frame = to_polars(proj.frame)
        if self.label_roles.example is None:
            frame = frame.with_row_index(EXAMPLE)
        if KEY_ALL in proj.keys:
            frame = frame.with_columns(pl.lit(0).alias(KEY_ALL))
        # each group's number of classes (its universe: global, per target or per group)
        m = group_table(tables).select(*tables.keys, pl.col("n_classes").cast(pl.Float64).alias("_m"))
        rows = frame.rename({Y_TRUE: "_yt", Y_PRED: "_yp"})
        cells = row_cells(rows, self.task, self.pos_label, m, list(tables.keys))
        return cells.select(*proj.keys, EXAMPLE, *CELLS), proj.keys

    def confusion_pairs(self, projection: Projection, keys: Sequence[str] | None = None) -> nw.LazyFrame[Any]:
        return projection.frame.select(
            *(projection.by_keys if keys is None else keys),
            nw.col(Y_TRUE).alias("true"),
            nw.col(Y_PRED).alias("pred"),
        )

    def store_meta(self) -> dict[str, Any]:
        return {**super().store_meta(), "task": self.task, "pos_label": self.pos_label}


def label_source(data: Any, y_pred_values: Any, opts: LabelOptions) -> LabelSource:
    """A checked :class:`LabelSource` (the options of :func:`~aggframe.from_labels`); reads no rows."""
    y_true, y_pred, example, target = opts.y_true, opts.y_pred, opts.example, opts.target
    fold, repeat, pos_label = opts.fold, opts.repeat, opts.pos_label
    task = opts.task
    task = task.strip().lower() if isinstance(task, str) else task  # type: ignore[assignment]  # any case
    if task not in (None, "multiclass", "binary"):
        msg = f"Expected `task` to be None, 'multiclass' or 'binary', got {task!r}"
        raise OptionError(msg)
    origin = FRAME  # label arrays; a frame (or paths) has its own, below
    if is_frame(data):
        if y_pred_values is not None:
            msg = "with a frame, name the columns: from_labels(frame, y_true='col', y_pred='col')"
            raise OptionError(msg)
        lf = as_lazy(data, "data")
        origin = origin_of(lf)
        roles = LabelRoles(y_true=y_true, y_pred=y_pred, example=example)
        require_columns(
            lf.collect_schema(),
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
    else:
        if y_pred_values is None:
            msg = "from_labels(y_true, y_pred) needs both arrays (or a frame with column names)"
            raise OptionError(msg)
        if fold is not None or repeat is not None or example is not None or target is not None:
            msg = "fold=, repeat=, target= and example= name columns of a frame; with arrays, pass a frame instead"
            raise OptionError(msg)
        lf = nw.from_native(label_frame(data, y_pred_values, "y_true", "y_pred")).lazy()
        roles = LabelRoles()
    cast = align_label_dtypes(lf.collect_schema(), roles.y_true, roles.y_pred, null_columns(lf))
    universe = resolve_universe(opts.n_classes, opts.classes, enum_categories(lf, roles.y_true), target)
    mode = check_class_universe(opts.class_universe, universe)
    label_task: LabelTask = task or "multiclass"
    if label_task == "binary" and isinstance(universe, list) and pos_label not in universe:
        msg = f"pos_label {pos_label!r} is not among the declared classes {universe[:10]!r}"
        raise OptionError(msg)
    source = LabelSource(
        frame=lf,
        origin=origin,
        label_roles=roles,
        universe=universe,
        task=label_task,
        pos_label=pos_label,
        cast=cast,
        fold=fold,
        repeat=repeat,
        target=target,
        class_universe=mode,
        derived_from=opts.derived_from or {},
    )
    if label_task == "binary":
        # the positive class exactly (1.5 is no class 1), before the universe that holds it
        exact_classes([pos_label], source.class_dtype(), option="pos_label")
    if universe is not None:
        source.universe_table()  # the declared classes (and per-target keys), checked now
    return source
