"""The intake protocol: one :class:`Source` per input form, each knowing its roles, grains and checks.

A source holds where the rows are (a lazy frame on any engine, or stored cell
tables), which columns play which role, and the class universe. It turns a
``by`` grouping into *cell tables* in one lazy plan (:meth:`Source.tables`):
it projects the role and key columns onto private names (:meth:`Source.project`,
so a user's name never meets an internal one), runs its form's wide step
(:mod:`aggframe.wide`) and its checks and universe fill (:mod:`aggframe.tables`).
Everything downstream (operators, analyses) sees cell tables only.

The forms: :class:`~aggframe.intake.long.LongSource` (one row per (example,
class)), :class:`~aggframe.intake.labels.LabelSource` (one row per example, a
true and a predicted class) and :class:`~aggframe.intake.stored.StoredSource`
(cell tables written by :meth:`~aggframe.Predictions.write_cells`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import narwhals as nw
import polars as pl

from aggframe._columns import CLUSTER, EXAMPLE, FOLD, KEY_ALL, REPEAT, TARGET, by_key
from aggframe._options import Bootstrap, ClassUniverse
from aggframe.exceptions import ColumnNotFoundError, OptionError
from aggframe.intake.input_checks import check_groupable
from aggframe.intake.origin import FRAME, Origin
from aggframe.intake.read_errors import reading
from aggframe.tables.cells import CellTables
from aggframe.tables.universe import universe_frame
from aggframe.wide.engines import collect_polars, project_columns, to_polars
from aggframe.wide.keys import keyed, row_keys

__all__ = ["Form", "Kind", "Projection", "Source"]

Form = Literal["long", "labels", "cells"]
#: How the predictions are read: single-label, multilabel, or the positive class of two.
Kind = Literal["multiclass", "multilabel", "binary"]


@dataclass(frozen=True)
class Projection:
    """A source's role and key columns under private names, for one ``by`` grouping."""

    frame: nw.LazyFrame[Any]
    by_keys: list[str]  # the private by-keys, in the order of ``by``
    keys: list[str]  # the grouping keys of the cell tables: by-keys (or the stand-in), target, folds
    names: dict[str, str]  # private name -> the user's column
    #: the frame before the label form read y_true and y_pred as one type (None: not cast)
    raw: nw.LazyFrame[Any] | None = None


@dataclass(kw_only=True)
class Source(ABC):
    """One input form. Subclasses give the roles (:meth:`role_columns`) and the grains (:meth:`tables`)."""

    form: ClassVar[Form]

    frame: nw.LazyFrame[Any] = field(repr=False)
    origin: Origin = field(default=FRAME, repr=False)
    fold: str | None = None
    repeat: str | None = None
    target: str | None = None
    #: the declared class universe (per target as a dict), or None: the classes seen
    universe: list[Any] | dict[Any, list[Any]] | None = None
    class_universe: ClassUniverse = "global"
    #: the positive class of the binary operator (and of the label form's task="binary")
    pos_label: Any = 1
    #: user columns the roles were derived from (from_scores' score, from_ordinal's labels):
    #: grouping by them has no meaning either; column -> the role it fed
    derived_from: dict[str, str] = field(default_factory=dict)

    # -- roles and keys ------------------------------------------------------------------
    @abstractmethod
    def role_columns(self) -> dict[str, str]:
        """The form's role columns: private name -> the user's column."""

    def roles(self) -> dict[str, str]:
        """Every role column, the cross-validation and target roles included."""
        extra = {TARGET: self.target, REPEAT: self.repeat, FOLD: self.fold}
        return {**self.role_columns(), **{k: v for k, v in extra.items() if v is not None}}

    def fold_keys(self) -> list[str]:
        """The private fold keys of the cell tables (repeat, fold), those that exist."""
        return [k for k, c in ((REPEAT, self.repeat), (FOLD, self.fold)) if c is not None]

    def target_key(self) -> str | None:
        return TARGET if self.target is not None else None

    def keys(self, by_keys: Sequence[str]) -> list[str]:
        """The cell tables' keys for these by-keys: the by-keys (or the stand-in), target, folds."""
        return [*(by_keys or [KEY_ALL]), *([TARGET] if self.target is not None else []), *self.fold_keys()]

    def columns(self) -> list[str]:
        """The user's columns that a ``by`` may name."""
        return list(self.frame.collect_schema().names())

    def check_by(self, by: Sequence[str]) -> None:
        """``by`` names columns of the frame, none twice, none a role."""
        schema = self.frame.collect_schema()
        available = list(schema.names())
        roles = {user: private.removeprefix("__af_") for private, user in self.roles().items()}
        roles.update(self.derived_from)
        for col in by:
            if not isinstance(col, str):
                msg = f"Expected by= to name columns (strings), got {col!r}"
                raise OptionError(msg)
            if col in roles:
                msg = (
                    f"by column {col!r} is the {roles[col]!r} role column of these predictions; grouping "
                    "by a role has no meaning (group by another column, or copy it under a new name)"
                )
                raise OptionError(msg)
            if col not in available:
                msg = f"by column {col!r} is not in the frame; available columns: {available}"
                raise ColumnNotFoundError(msg)
            check_groupable(col, schema[col], "by column")
        if len(set(by)) != len(by):
            msg = f"by columns repeat a name: {list(by)!r}"
            raise OptionError(msg)

    def project(self, by: Sequence[str], extra: dict[str, str] | None = None) -> Projection:
        """The rows with only the role and by-columns, under private names (:mod:`aggframe._columns`).

        A select of each column under its private alias
        (:func:`~aggframe.wide.engines.project_columns`): a name is never read as
        a pattern (``*``, ``^x$``) or a qualified name (``a.b``), and the user's
        other columns are not carried, so they never meet an internal column.
        ``extra`` projects more columns (private name -> the user's column).
        """
        self.check_by(by)
        by_keys = [by_key(i) for i in range(len(by))]
        names = {**self.roles(), **dict(zip(by_keys, by, strict=True)), **(extra or {})}
        with reading(self.origin):  # a DuckDB relation binds its files here (one deleted: an IO error)
            frame = project_columns(self.frame, names)
        return Projection(frame=frame, by_keys=by_keys, keys=self.keys(by_keys), names=names)

    # -- classes -------------------------------------------------------------------------
    @abstractmethod
    def class_column(self) -> str:
        """The user's column holding the classes (for messages and dtypes)."""

    def polars_schema(self) -> pl.Schema:
        native = nw.to_native(self.frame)
        if isinstance(native, pl.LazyFrame):
            return native.collect_schema()
        return pl.Schema(collect_polars(self.frame.head(0)).schema)

    def class_dtype(self) -> pl.DataType:
        return self.polars_schema()[self.class_column()]

    def universe_table(self) -> pl.LazyFrame | None:
        """The declared universe as a frame (class, or target and class), or None."""
        if self.universe is None:
            return None
        return universe_frame(
            self.universe,
            self.class_dtype(),
            self.class_column(),
            target=self.target_key(),
            target_dtype=self.polars_schema()[self.target] if self.target is not None else None,
            target_name=self.target,
        )

    def universe_sizes(self) -> int | dict[Any, int] | None:
        if self.universe is None:
            return None
        if isinstance(self.universe, dict):
            return {t: len(v) for t, v in self.universe.items()}
        return len(self.universe)

    # -- grains ---------------------------------------------------------------------------
    @abstractmethod
    def tables(self, by: Sequence[str], *, pairs: bool = False) -> CellTables:
        """The validated cell tables of this grouping: one lazy plan.

        ``pairs=True`` asks the label form for the (y_true, y_pred) counts as well
        (``tables.pairs``, for what needs the whole confusion matrix); without it
        the label form never forms the pairs. Other forms have no pairs (None).
        """

    def boot_tables(self, by: Sequence[str], boot: Bootstrap, base: CellTables) -> CellTables:
        """Bootstrap cell tables (one more key, the replicate ``REP``) of this grouping: one lazy plan.

        ``base`` are the (validated) unweighted tables of the same grouping: the
        universe of each group comes from them. See :mod:`aggframe.tables.bootstrap`.
        """
        msg = (
            "n_boot= weights each example, and stored cells hold sums over the examples: bootstrap the "
            "predictions (pr.evaluate(..., n_boot=...)) before reducing them to cells"
        )
        raise OptionError(msg)

    def boot_projection(self, by: Sequence[str], boot: Bootstrap) -> tuple[Projection, str, str]:
        """The projection of a bootstrap, the column of its unit ids and that column's user name.

        The unit is the example (``EXAMPLE``), or the cluster column with
        ``cluster=`` (projected as ``CLUSTER``).
        """
        if boot.cluster is None:
            proj = self.project(by)
            return proj, EXAMPLE, proj.names.get(EXAMPLE, "row")
        self.check_cluster(boot.cluster)
        return self.project(by, {CLUSTER: boot.cluster}), CLUSTER, boot.cluster

    def check_cluster(self, cluster: str) -> None:
        """``cluster=`` names a column of the frame that is not a label role."""
        available = self.columns()
        if cluster not in available:
            msg = f"cluster column {cluster!r} is not in the frame; available columns: {available}"
            raise ColumnNotFoundError(msg)
        labels = {u: p.removeprefix("__af_") for p, u in self.role_columns().items() if p != EXAMPLE}
        labels.update(self.derived_from)
        if cluster in labels:
            msg = (
                f"cluster column {cluster!r} is the {labels[cluster]!r} role column of these predictions; "
                "a cluster groups examples (a user, a document, a session)"
            )
            raise OptionError(msg)

    def check_collected(self, profiles: pl.DataFrame) -> None:  # noqa: B027 (a hook: most forms check nothing)
        """A check on the collected profiles (the long form's stated task)."""

    @abstractmethod
    def single_label(self, profiles: Callable[[], pl.DataFrame]) -> bool:
        """Whether each example has exactly one true and one predicted class (``profiles``: on demand)."""

    def kind_inferred(self) -> bool:
        """Whether the reading (single-label or not) was inferred from the data."""
        return False

    @property
    def binary(self) -> bool:
        """The positive class alone (the label form's ``task="binary"``)."""
        return False

    @property
    def soft(self) -> bool:
        """Soft labels under a t-norm."""
        return False

    @property
    def masked(self) -> bool:
        return False

    def example_cells(self, by: Sequence[str], tables: CellTables) -> tuple[pl.LazyFrame, list[str]]:
        """Per-example cells (private keys, the example column ``EXAMPLE``); needs the rows."""
        msg = (
            "per-example values needs the prediction rows; stored cells hold only their sums "
            "(use the original frame)"
        )
        raise OptionError(msg)

    def confusion_pairs(self, projection: Projection, keys: Sequence[str] | None = None) -> nw.LazyFrame[Any]:
        """One row per example with its true and predicted class (``true``, ``pred``); single-label only.

        ``keys``: the row-level key columns to keep (default: the by-keys).
        """
        msg = "the confusion counts needs the prediction rows; stored cells hold only their sums (use the original frame)"
        raise OptionError(msg)

    def pair_table(self, by: Sequence[str]) -> pl.LazyFrame:
        """Single-label confusion counts keyed like the cell tables: ``keys..., _yt, _yp, n``.

        The keys are the cell tables' (the by-keys or the stand-in, the target, the
        folds), so the counts roll up and pool over folds as the cells do. One
        grouped query over the rows (for the forms whose cell tables do not carry them).
        """
        proj = self.project(by)
        rk = row_keys(proj.keys)
        counts = self.confusion_pairs(proj, rk).group_by([*rk, "true", "pred"]).agg(nw.len().alias("n"))
        return to_polars(keyed(counts, proj.keys)).select(
            *proj.keys, pl.col("true").alias("_yt"), pl.col("pred").alias("_yp"), pl.col("n").cast(pl.Int64)
        )

    def confusion_counts(self, by: Sequence[str]) -> pl.DataFrame:
        """Single-label confusion counts with private by-keys: ``true``, ``pred``, ``n`` (one grouped query)."""
        proj = self.project(by)
        counts = self.confusion_pairs(proj).group_by([*proj.by_keys, "true", "pred"]).agg(nw.len().alias("n"))
        with reading(self.origin):
            native = counts.collect(backend="polars").to_native()
        # one dtype for n whatever the engine counted with
        out: pl.DataFrame = native.with_columns(pl.col("n").cast(pl.Int64))
        return out.sort(*proj.by_keys, "true", "pred", nulls_last=True)

    def store_meta(self) -> dict[str, Any]:
        """What a cell store records of this source besides its tables."""
        return {
            "target": self.target,
            "folds": [c for c in (self.repeat, self.fold) if c is not None],
            "pos_label": None,
        }
