"""The core of the Predictions façade: one source, and the cell tables of each grouping read.

Every other part of the façade (:mod:`aggframe.facade`) builds on these accessors:
``_cell_tables`` (one scan per grouping, kept), the bootstrap tables, the checks of
single-label data and the confusion counts. Other layers reach them as ``pr.extend.<name>``
(:mod:`aggframe.facade.extend`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal, cast

import polars as pl

from aggframe._columns import (
    CLASS,
    KEY_ALL,
    check_result_names,
    restore,
)
from aggframe._options import (
    Bootstrap,
    Engine,
    Grain,
    listify,
    parse_engine,
)
from aggframe.exceptions import AggframeError, OptionError
from aggframe.intake.base import Kind, Source
from aggframe.intake.cells_checks import UNKNOWN
from aggframe.intake.read_errors import reading, scanning
from aggframe.intake.stored import StoredSource
from aggframe.tables.bootstrap import stack
from aggframe.tables.cells import CellTables, grain_columns, sorted_table

#: The cell tables beside ``classes`` and ``profiles`` that a grouping may have (collected with them).
_OPTIONAL_TABLES = ("block_profiles", "groups", "universe", "pairs", "order")


def class_subset(classes: Sequence[Any] | None, labels: Sequence[Any] | None) -> Sequence[Any] | None:
    """``classes=`` (a class subset), or its scikit-learn spelling ``labels=``; not both."""
    if classes is not None and labels is not None:
        msg = "give the class subset once: classes= (or its scikit-learn spelling labels=), not both"
        raise OptionError(msg)
    return classes if classes is not None else labels


def summary_html(title: str, rows: dict[str, str]) -> str:
    """A small two-column HTML table (what notebooks show for aggframe's objects).

    Examples
    --------
    >>> summary_html("X", {"a": "<1>"})
    '<table><caption style="text-align:left"><b>X</b></caption><tr><th style="text-align:left">a</th><td style="text-align:left">&lt;1&gt;</td></tr></table>'
    """
    left = ' style="text-align:left"'
    body = "".join(
        f"<tr><th{left}>{html.escape(k)}</th><td{left}>{html.escape(v)}</td></tr>" for k, v in rows.items()
    )
    return f"<table><caption{left}><b>{html.escape(title)}</b></caption>{body}</table>"


def _check_stored_single_label(source: StoredSource, what: str) -> None:
    """Refuse stored cells without an m x m confusion matrix, naming why (from what they record)."""
    meta = source.meta
    if meta.get("task") == "binary":
        msg = (
            f"{what} needs every class of single-label data, but these cells keep the positive class only "
            "(task='binary'); build the predictions with task=None"
        )
        raise OptionError(msg)
    if meta.get("soft") is True or meta.get("tnorm") not in (None, UNKNOWN):
        msg = (
            f"{what} needs crisp single-label data; these cells are of soft predictions (a t-norm was given)"
        )
        raise OptionError(msg)
    if meta.get("single_label") is not True:  # False, or not recorded (an older store: UNKNOWN)
        msg = (
            f"{what} needs single-label data (one true and one predicted class per example); these "
            "stored cells are not of such data (or their store does not say so)"
        )
        raise OptionError(msg)


@dataclass(repr=False)
class PredictionsBase:
    """The source and the kept cell tables of :class:`~aggframe.Predictions` (see there)."""

    #: whether these are ordinal predictions (:class:`~aggframe.OrdinalPredictions`)
    ordinal: ClassVar[bool] = False

    source: Source
    _cache: dict[tuple[str, ...], CellTables] = field(default_factory=dict, repr=False)
    _boot_cache: dict[tuple[tuple[str, ...], Bootstrap], CellTables] = field(default_factory=dict, repr=False)

    @property
    def form(self) -> Literal["long", "labels", "cells"]:
        """The input form: ``long``, ``labels`` or ``cells`` (stored cell tables).

        Returns
        -------
        str
            ``"long"``, ``"labels"`` or ``"cells"`` (stored cells).
        """
        return self.source.form

    @property
    def kind(self) -> Kind:
        """The task these predictions are read as: ``multiclass`` (single-label), ``multilabel`` or ``binary``.

        Stated by ``task=`` (or by the form: the label form is single-label), or
        inferred from the data when not stated (``pr.extend.kind_inferred``): long-form
        data where every example has exactly one true and one predicted class are
        read as single-label. The task decides standard accuracy, the confusion
        matrix, the suites' parametrisation and the degrees of freedom.

        Returns
        -------
        str
            The task used: ``"binary"``, ``"multiclass"`` or ``"multilabel"``.
        """
        return self._kind_by(())

    def _kind_by(self, by: Sequence[str]) -> Kind:
        """:attr:`kind`, read off the cell tables of a grouping (example ids need only be unique
        within each of its groups: two models scored on the same examples)."""
        if self.source.binary:
            return "binary"
        return "multiclass" if self._single_label(by) else "multilabel"

    @property
    def _kind_inferred(self) -> bool:
        """Whether :attr:`kind` was inferred from the data (long form without ``task=``).

        Returns
        -------
        bool
            ``True`` when the task was inferred from the data rather than stated.
        """
        return self.source.kind_inferred()

    def _single_label(self, by: Sequence[str] = ()) -> bool:
        # the profiles are read only if the source infers its reading from them
        return self.source.single_label(lambda: self._kind_tables(by).profiles.collect())  # noqa: PLW0108 - read only when needed

    def _kind_tables(self, by: Sequence[str]) -> CellTables:
        """The cell tables the task is read off: those of ``by``, or with no grouping asked for, those of
        a grouping already read. The task is a property of the examples, and example ids need be unique
        only within a group (several models scored on the same ids): reading the ungrouped tables then
        would refuse the repeated ids that the grouping the caller works in keeps apart (issue 29)."""
        key = tuple(by)
        if not key and () not in self._cache and self._cache:
            return next(iter(self._cache.values()))
        return self._cell_tables(key or None)

    def summary(self) -> dict[str, str]:
        """What these predictions are, in a few words, without reading the data.

        ``form``, ``task``, ``roles`` (role -> your column), ``classes`` (the
        universe: its size if declared or already read), ``source`` (files,
        cell stores or a frame) and ``read`` (the groupings scanned so far). A
        task or a class count that only the data can tell says so rather than
        scanning. What a notebook shows (``_repr_html_``).

        Returns
        -------
        dict[str, str]
            Field name -> text, in display order.

        Examples
        --------
        >>> import aggframe as af
        >>> pr = af.from_labels([0, 1, 2, 2], [0, 2, 2, 1], n_classes=3)
        >>> pr.summary()["classes"], pr.summary()["roles"]
        ('3 (declared)', "y_true='y_true', y_pred='y_pred'")
        """
        src = self.source
        read = next(iter(self._cache.values()), None)
        if not src.kind_inferred():
            task: str = self.kind
        elif () in self._cache:
            task = f"{self.kind} (inferred from the data)"
        else:
            task = "multiclass or multilabel: inferred from the data when first read"
        universe = src.universe
        if isinstance(universe, dict):
            classes = f"{sum(len(v) for v in universe.values())} over {len(universe)} targets (declared)"
        elif universe is not None:
            classes = f"{len(universe)} (declared)"
        elif read is not None:
            n = read.classes.select(pl.col(CLASS).n_unique()).collect().item()
            classes = f"{n} (seen in the data)"
        else:
            classes = "those seen in the data (not read yet)"
        roles = ", ".join(f"{k.removeprefix('__af_')}={v!r}" for k, v in src.roles().items())
        read_by = ["(all)" if not k else ", ".join(map(repr, k)) for k in self._cache]
        return {
            "form": self.form,
            "task": task,
            "roles": roles or "(the cell store's)",
            "classes": classes,
            "source": str(src.origin),
            "read": "; ".join(read_by) if read_by else "nothing yet",
        }

    def _repr_html_(self) -> str:
        return summary_html(type(self).__name__, self.summary())

    def __repr__(self) -> str:
        """What these predictions are (:meth:`summary`), on one line: never the universe's classes."""
        try:
            about = self.summary()
        except AggframeError:  # a source that cannot say (a vanished file): its form at least
            return f"{type(self).__name__}(form={self.form!r})"
        shown = ", ".join(f"{k}={about[k]!r}" for k in ("form", "task", "roles", "classes", "source"))
        return f"{type(self).__name__}({shown})"

    def _cell_tables(
        self, by: str | Sequence[str] | None = None, *, engine: Engine = "auto", pairs: bool = False
    ) -> CellTables:
        """The validated cell tables of a grouping, collected once (one scan) and kept.

        Keyed by private key columns; ``tables.names`` gives the user's names.
        The accessor the analyses build on. ``pairs=True`` asks for the confusion
        counts too (single-label data: the label form counts them in the same
        scan; tables kept without them get them from one more grouped query).
        """
        engine = parse_engine(engine)
        by_cols = tuple(listify(by))
        if by_cols not in self._cache:
            self._collect_tables(by_cols, [], engine=engine, pairs=pairs)
        tables = self._cache[by_cols]
        if pairs and tables.pairs is None:
            # kept without the confusion counts (or a form that has none at hand): one more
            # grouped query, kept with the tables
            return self._with_pairs(tables, by_cols)
        return tables

    def _source_tables(self, by: Sequence[str], *, pairs: bool = False) -> CellTables:
        """The source's cell tables, lazy: what the engine does to build them (a DuckDB relation
        collects its small tables, Spark resolves its files) turns read errors into SourceErrors."""
        with reading(self.source.origin):
            return self.source.tables(tuple(by), pairs=pairs)

    def _collect_tables(
        self, by: tuple[str, ...], extra: Sequence[pl.LazyFrame], *, engine: Engine, pairs: bool = False
    ) -> list[pl.DataFrame]:
        """Collect the cell tables of ``by`` and ``extra`` frames in one collect (one read); keep the tables."""
        tables = self._source_tables(by, pairs=pairs)
        given = {name: getattr(tables, name) for name in _OPTIONAL_TABLES}
        optional = {name: lf for name, lf in given.items() if lf is not None}
        parts = [tables.classes, tables.profiles, *optional.values()]
        # one collect: the grains share one read of the input
        with scanning(self.source.origin):
            got = pl.collect_all([*parts, *extra], engine=engine)
        self.source.check_collected(got[1])
        more = {name: frame.lazy() for name, frame in zip(optional, got[2 : len(parts)], strict=True)}
        self._cache[by] = replace(
            tables,
            classes=got[0].lazy(),
            profiles=got[1].lazy(),
            block_profiles=more.get("block_profiles"),
            groups=more.get("groups"),
            universe=more.get("universe"),
            pairs=more.get("pairs"),
            order=more.get("order"),
            rows=got[0].height + got[1].height,
        )
        return got[len(parts) :]

    def _boot_tables(
        self, by: str | Sequence[str] | None, boot: Bootstrap, *, engine: Engine = "auto", lazy: bool = False
    ) -> CellTables:
        """Bootstrap cell tables: keys ``REP`` (the replicate) and the grouping's keys, collected once and kept.

        Replicate ``-1`` is the data (:meth:`cell_tables`), ``0 .. n_boot - 1`` the
        Poisson-weighted resamples (:mod:`aggframe.tables.bootstrap`): the weighted
        sums come from one more read of the input, whatever ``n_boot``.
        ``lazy=True`` returns the whole plan (both reads) uncollected.
        """
        engine = parse_engine(engine)
        by_cols = tuple(listify(by))
        if lazy:
            base = self._source_tables(by_cols)
            with reading(self.source.origin):
                return stack(base, self.source.boot_tables(by_cols, boot, base))
        key = (by_cols, boot)
        if key not in self._boot_cache:
            base = self._cell_tables(by_cols, engine=engine)
            with reading(self.source.origin):
                reps = self.source.boot_tables(by_cols, boot, base)
            named = {"classes": reps.classes, "profiles": reps.profiles}
            named.update(
                {n: lf for n in ("block_profiles", "groups") if (lf := getattr(reps, n)) is not None}
            )
            with scanning(self.source.origin, f" for {boot.n_boot} bootstrap replicates"):
                got = dict(zip(named, pl.collect_all(list(named.values()), engine=engine), strict=True))
            block, groups = got.get("block_profiles"), got.get("groups")
            reps = replace(
                reps,
                classes=got["classes"].lazy(),
                profiles=got["profiles"].lazy(),
                block_profiles=None if block is None else block.lazy(),
                groups=None if groups is None else groups.lazy(),
            )
            self._boot_cache[key] = stack(base, reps)
        return self._boot_cache[key]

    def _key_names(self, tables: CellTables, columns: Sequence[str], what: str) -> dict[str, str]:
        """The user's names of the tables' keys, checked against a result's other ``columns``."""
        names = {k: tables.names.get(k, k) for k in tables.keys if k != KEY_ALL}
        check_result_names(names.values(), columns, what)
        return names

    def cells(self, grain: Grain = "class", *, by: str | Sequence[str] | None = None) -> pl.DataFrame:
        """The cell tables themselves (tidy): the mergeable summary of the predictions.

        ``"class"``: by..., class, tp, fp, fn, tn. ``"pooled"``: by..., tp, fp, fn, tn.
        ``"profiles"``: by..., tp, fp, fn, tn, n (n examples share those cells).

        Parameters
        ----------
        grain
            ``"class"`` (per class), ``"pooled"`` (per group) or ``"profiles"`` (examples per
            per-example cell profile).
        by
            Group columns.

        Returns
        -------
        pl.DataFrame
            by..., the grain's keys, tp, fp, fn, tn (and n for profiles).

        Raises
        ------
        UnknownNameError
            An unknown grain.
        ColumnNotFoundError
            A ``by`` column that is not in the data.
        """
        columns = grain_columns(grain)
        tables = self._cell_tables(by)
        return cast(
            "pl.DataFrame",
            restore(self._cell_frame(tables, grain), self._key_names(tables, columns, "cells")),
        )

    def _cell_frame(self, tables: CellTables, grain: Grain) -> pl.DataFrame:
        """A cell table with private keys, sorted (nulls last): :func:`~aggframe.tables.cells.sorted_table`."""
        return sorted_table(tables, grain)

    def _check_single_label(self, what: str, by: Sequence[str] = ()) -> None:
        """Refuse, naming why, data without an m x m confusion matrix (binary task, soft, multilabel):
        read at the grouping ``by`` (example ids need be unique only within its groups)."""
        if self.source.binary:
            msg = (
                f"{what} needs every class of single-label data, but these predictions keep the positive "
                "class only (task='binary'); build them with task=None (one-hot over all classes): on two "
                "classes the multiclass 'mcc' equals the binary 'mcc'"
            )
            raise OptionError(msg)
        if self.source.soft:
            msg = (
                f"{what} needs crisp single-label data; these predictions are soft (a t-norm was given), "
                "so an example has no one true and one predicted class to count"
            )
            raise OptionError(msg)
        if isinstance(self.source, StoredSource):
            _check_stored_single_label(self.source, what)
            return
        if self.ordinal:
            msg = (
                f"{what} needs single-label data; ordinal predictions are read as m - 1 cumulative "
                "thresholds: use their single-label view, pr.labels (e.g. pr.labels.compute("
                "'kappa_quadratic', 'multiclass'))"
            )
            raise OptionError(msg)
        if not self._single_label(by):
            msg = (
                f"{what} needs single-label data (one true and one predicted class per example); these "
                "predictions are multilabel (some example has other than one true or one predicted class), "
                "so there is no m x m confusion matrix: use micro, macro, weighted or exemplar"
            )
            raise OptionError(msg)

    def _with_pairs(
        self, tables: CellTables, by: Sequence[str], *, lazy: bool = False, what: str = "the confusion matrix"
    ) -> CellTables:
        """The cell tables with their confusion counts (``pairs``), after :meth:`check_single_label`.

        Tables asked with ``pairs=True`` carry them (the label form counts them in
        its one scan: :meth:`cell_tables`); otherwise (tables kept without them, the
        long form) one more grouped query over the rows counts them, kept with the tables.
        """
        self._check_single_label(what, by)
        if tables.pairs is not None:
            return tables
        if self.form == "cells":
            msg = (
                f"{what} needs the confusion counts, and these stored cells hold none: a store read has no "
                "pairs.parquet (a store keeps them when written from single-label data by this version of "
                "aggframe; write it again with pr.write_cells); the other whole-matrix measures need only the cells"
            )
            raise OptionError(msg)
        pairs = self.source.pair_table(by)
        if lazy:
            return replace(tables, pairs=pairs)
        with scanning(self.source.origin):
            collected = pairs.collect().lazy()
        out = replace(tables, pairs=collected)
        self._cache[tuple(by)] = out
        return out

    def _check_suite_data(self) -> None:
        """Suites are defined on crisp, unmasked data (and not on ordinal predictions)."""
        if self.source.soft or self.source.masked:
            msg = (
                "measure suites are defined on crisp, unmasked data; soft labels and masks are not supported"
            )
            raise OptionError(msg)
