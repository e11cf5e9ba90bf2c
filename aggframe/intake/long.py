"""The long (indicator) form: one row per (example, class), with truth ``y``, prediction ``p`` and a mask.

Crisp 0/1 or soft values under a t-norm; dense, or sparse when the class
universe is known (absent entries are observed true negatives); with declared
examples, examples without any row are all-negative. NumPy indicator matrices
(:func:`indicator_frame`) become this form.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import narwhals as nw
import polars as pl

from aggframe._columns import CELLS, CLASS_ROLE, EXAMPLE, KEY_ALL, MASK, P, Y
from aggframe._options import Bootstrap, LongTask
from aggframe.exceptions import (
    ColumnNotFoundError,
    EmptyInputError,
    InvalidValueError,
    OptionError,
    ShapeError,
)
from aggframe.intake.base import Projection, Source
from aggframe.intake.frame_input import as_lazy
from aggframe.intake.input_checks import (
    check_class_universe,
    check_numeric,
    declared_examples,
    enum_categories,
    null_columns,
    plain_array,
    real_dtype,
    require_columns,
    resolve_universe,
)
from aggframe.intake.options import LongOptions
from aggframe.intake.origin import origin_of
from aggframe.tables.bootstrap import finish_long_boot
from aggframe.tables.cells import CellTables, group_table
from aggframe.tables.long import finish_long
from aggframe.wide.bootstrap import unit_hash, weight_columns
from aggframe.wide.engines import to_polars
from aggframe.wide.keys import keyed, row_keys
from aggframe.wide.long import LongRoles, long_boot_grains, long_grains
from aggframe.wide.tnorms import TNorm, resolve_tnorm

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = ["ONE_HOT", "LongSource", "indicator_frame", "long_source"]

#: Profiles of single-label examples: exactly one true and one predicted class.
ONE_HOT = (pl.col("tp") + pl.col("fn") == 1) & (pl.col("tp") + pl.col("fp") == 1)

_PRIVATE = LongRoles(example=EXAMPLE, class_=CLASS_ROLE, y=Y, p=P)
_PRIVATE_MASKED = LongRoles(example=EXAMPLE, class_=CLASS_ROLE, y=Y, p=P, mask=MASK)


@dataclass(kw_only=True)
class LongSource(Source):
    """Predictions in long form (see :func:`~aggframe.from_long`)."""

    form: ClassVar = "long"

    long_roles: LongRoles
    tnorm: TNorm | None = field(default=None, repr=False)
    #: the stated task ("multiclass" or "multilabel"); None: inferred from the data
    task: LongTask | None = None
    #: the declared examples (a count, or a Polars frame of example ids)
    examples: int | pl.LazyFrame | None = field(default=None, repr=False)

    def role_columns(self) -> dict[str, str]:
        r = self.long_roles
        roles = {EXAMPLE: r.example, CLASS_ROLE: r.class_, Y: r.y, P: r.p}
        return roles if r.mask is None else {**roles, MASK: r.mask}

    def class_column(self) -> str:
        return self.long_roles.class_

    @property
    def soft(self) -> bool:
        return self.tnorm is not None

    @property
    def masked(self) -> bool:
        return self.long_roles.mask is not None

    def _private_roles(self) -> LongRoles:
        return _PRIVATE if self.long_roles.mask is None else _PRIVATE_MASKED

    def tables(self, by: Sequence[str], *, pairs: bool = False) -> CellTables:
        proj = self.project(by)
        examples = self._examples(proj)
        return finish_long(
            self._grains(proj, examples),
            source=proj.frame,
            roles=self._private_roles(),
            keys=proj.keys,
            universe=self.universe_table(),
            soft_ok=self.tnorm is not None,
            names=proj.names,
            target=self.target_key(),
            group_universe=proj.by_keys if self.class_universe == "group" else [],
            examples=examples,
        )

    def boot_tables(self, by: Sequence[str], boot: Bootstrap, base: CellTables) -> CellTables:
        proj, unit, what = self.boot_projection(by, boot)
        declared = None
        if self.examples is not None:
            declared = self._boot_declared(proj, boot)
        raw = long_boot_grains(
            proj.frame,
            self._private_roles(),
            proj.keys,
            boot,
            unit=unit,
            what=what,
            tnorm=self.tnorm,
            n_classes=self.universe_sizes(),
            target=self.target_key(),
        )
        return finish_long_boot(
            raw,
            base,
            n_boot=boot.n_boot,
            class_=CLASS_ROLE,
            soft=self.tnorm is not None,
            cluster=boot.cluster,
            declared=declared,
        )

    def _boot_declared(self, proj: Projection, boot: Bootstrap) -> pl.LazyFrame:
        """The declared examples' weight sums per group (keys, _w0 ..): unlogged examples are weighted too."""
        if boot.cluster is not None or not isinstance(self.examples, pl.LazyFrame):
            msg = (
                "a bootstrap with declared examples needs their ids (examples= a frame of ids, not a count) "
                "and resamples examples (not with cluster=): an unlogged example gets the weights of its id"
            )
            raise OptionError(msg)
        ids = self._examples(proj)
        assert isinstance(ids, pl.LazyFrame)
        rk = row_keys(proj.keys)
        hashed = unit_hash(nw.from_native(ids), EXAMPLE, boot.seed, "_h", what=proj.names[EXAMPLE])
        frame, weights = weight_columns(hashed, "_h", boot)
        sums = [nw.col(c).sum() for c in weights]
        totals = frame.group_by(rk).agg(*sums) if rk else frame.select(*sums)
        return to_polars(keyed(totals, proj.keys))

    def _grains(
        self, proj: Projection, examples: pl.LazyFrame | int | None = None
    ) -> dict[str, nw.LazyFrame[Any]]:
        return long_grains(
            proj.frame,
            self._private_roles(),
            proj.keys,
            tnorm=self.tnorm,
            n_classes=self.universe_sizes(),
            universe=self.universe,
            target=self.target_key(),
            examples=examples if isinstance(examples, pl.LazyFrame) else None,
        )

    def _examples(self, proj: Projection) -> pl.LazyFrame | int | None:
        """The declared examples under private names, for this grouping (see ``examples=``)."""
        declared = self.examples
        if declared is None:
            return None
        wanted = {p: u for p, u in proj.names.items() if p not in (CLASS_ROLE, Y, P, MASK)}
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
        position = {c: i for i, c in enumerate(schema.names())}
        return declared.select(*[pl.nth(position[u]).alias(p) for p, u in wanted.items()])

    def check_collected(self, profiles: pl.DataFrame) -> None:
        """``task="multiclass"`` was stated: every example has one true and one predicted class."""
        if self.task != "multiclass":
            return
        bad = profiles.filter(~ONE_HOT)
        if bad.height:
            first = bad.row(0, named=True)
            msg = (
                f"task='multiclass' was stated, but {int(bad['n'].sum())} example(s) do not have exactly one "
                f"true and one predicted class (e.g. {first['tp'] + first['fn']:g} true and "
                f"{first['tp'] + first['fp']:g} predicted); pass task='multilabel', or task=None to infer it"
            )
            raise InvalidValueError(msg)

    def single_label(self, profiles: Callable[[], pl.DataFrame]) -> bool:
        if self.task is not None:
            return self.task == "multiclass"  # checked on the data by check_collected
        return self.tnorm is None and bool(profiles().select(ONE_HOT.all()).item())

    def kind_inferred(self) -> bool:
        return self.task is None

    def example_cells(self, by: Sequence[str], tables: CellTables) -> tuple[pl.LazyFrame, list[str]]:
        """Each example's cells (keys, example, tp, fp, fn, tn): the declared examples without rows
        too, all-negative (``tn`` = the classes of their group), as the exemplar operator counts them:
        by id with a frame of ids, with a null id each with a count."""
        proj = self.project(by)
        keys = list(proj.keys)
        raw = self._grains(proj)
        frame = to_polars(raw["examples"].select(*keys, EXAMPLE, *CELLS)).with_columns(
            pl.col(*CELLS).cast(pl.Float64)
        )
        declared = self._examples(proj)
        if declared is None:
            return frame, keys
        logged = frame.collect()
        m = group_table(tables).select(*keys, pl.col("n_classes").cast(pl.Float64).alias("tn")).collect()
        if isinstance(declared, int):
            # a count names no example: each unlogged one is a row without an id
            ids = pl.DataFrame(
                {EXAMPLE: [None] * max(declared - logged.height, 0)}, schema={EXAMPLE: logged.schema[EXAMPLE]}
            )
        else:
            ids = declared.collect()
            ids = ids.with_columns(pl.col(c).cast(logged.schema[c]) for c in ids.columns)
        if KEY_ALL in keys:
            ids = ids.with_columns(pl.lit(0, dtype=logged.schema[KEY_ALL]).alias(KEY_ALL))
        unlogged = ids.join(logged.select(*keys, EXAMPLE), on=[*keys, EXAMPLE], how="anti", nulls_equal=True)
        zeros = [pl.lit(0.0).alias(c) for c in ("tp", "fp", "fn")]
        rows = unlogged.join(m, on=keys, how="inner", nulls_equal=True).select(*keys, EXAMPLE, *zeros, "tn")
        return pl.concat([logged, rows], how="vertical_relaxed").lazy(), keys

    def confusion_pairs(self, projection: Projection, keys: Sequence[str] | None = None) -> nw.LazyFrame[Any]:
        y, p = nw.col(Y).cast(nw.Float64), nw.col(P).cast(nw.Float64)
        if self.long_roles.mask is not None:
            # an unobserved entry is no cell: the classes are read off the observed entries
            observed = nw.col(MASK).cast(nw.Float64) == 1
            y, p = nw.when(observed).then(y), nw.when(observed).then(p)
        group = [*(projection.by_keys if keys is None else keys), EXAMPLE]
        # each example has one true and one predicted class (the caller checked)
        return projection.frame.group_by(group).agg(
            nw.when(y == 1).then(nw.col(CLASS_ROLE)).max().alias("true"),
            nw.when(p == 1).then(nw.col(CLASS_ROLE)).max().alias("pred"),
        )

    def store_meta(self) -> dict[str, Any]:
        return {**super().store_meta(), "task": "long"}


def long_source(frame: Any, opts: LongOptions) -> LongSource:
    """A checked :class:`LongSource` (the options of :func:`~aggframe.from_long`); reads no rows."""
    example, class_, y, p, mask = opts.example, opts.class_, opts.y, opts.p, opts.mask
    fold, repeat, target, tnorm = opts.fold, opts.repeat, opts.target, opts.tnorm
    task = opts.task
    task = task.strip().lower() if isinstance(task, str) else task  # type: ignore[assignment]  # any case
    if task not in (None, "multiclass", "multilabel"):
        msg = f"Expected `task` to be None, 'multiclass' or 'multilabel', got {task!r}"
        raise OptionError(msg)
    if task == "multiclass" and tnorm is not None:
        msg = "task='multiclass' needs crisp labels (one true and one predicted class); soft labels are multilabel"
        raise OptionError(msg)
    lf = as_lazy(frame, "frame")
    schema = lf.collect_schema()
    require_columns(
        schema,
        {
            "example": example,
            "class_": class_,
            "y": y,
            "p": p,
            "mask": mask,
            "fold": fold,
            "repeat": repeat,
            "target": target,
        },
    )
    check_numeric(schema, {"y": y, "p": p, "mask": mask}, null_columns(lf))
    fn, _ = resolve_tnorm(tnorm)
    universe = resolve_universe(opts.n_classes, opts.classes, enum_categories(lf, class_), target)
    mode = check_class_universe(opts.class_universe, universe)
    declared = declared_examples(opts.examples, lf, target=target, class_universe=mode)
    source = LongSource(
        frame=lf,
        origin=origin_of(lf),
        long_roles=LongRoles(example=example, class_=class_, y=y, p=p, mask=mask),
        universe=universe,
        tnorm=fn,
        fold=fold,
        repeat=repeat,
        target=target,
        class_universe=mode,
        task=task,
        examples=declared,
        derived_from=opts.derived_from or {},
    )
    if universe is not None:
        source.universe_table()  # the declared classes (and per-target keys), checked now
    return source


def indicator_frame(Y: Any, P: Any, mask: Any = None) -> tuple[pl.DataFrame, int]:
    """NumPy indicator matrices as a sparse long frame (example, class, y, p[, mask]) and their width."""
    Y, P, mask = plain_array(Y, "Y"), plain_array(P, "P"), plain_array(mask, "mask")
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
        if arr is not None and not real_dtype(arr.dtype):
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
    return pl.DataFrame(data), int(Ya.shape[1])
