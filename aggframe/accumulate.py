"""An accumulator for loops and streams: ``update`` with batches, ``evaluate`` at any time, ``merge`` states.

:class:`Accumulator` keeps the cell tables of every row it was given (an
:class:`~aggframe.Cells`, bounded by groups x classes plus the distinct
per-example profiles) and evaluates them whenever asked, like torchmetrics'
``update``/``compute``/``merge_state``, but for every measure x operator x
convention x group at once. It is configured like the constructor of its form
(:func:`~aggframe.from_labels`, :func:`~aggframe.from_long`,
:func:`~aggframe.from_scores`, or NumPy indicator matrices as
:func:`~aggframe.from_indicator`), and each batch goes through that constructor:
the same checks, the same cells, the same class universe. The accumulated cells
equal those of all the rows together, however the rows were split into batches
(a property test checks it for every operator, ``by=``, folds, targets and soft
labels).

How the work is done. A batch is checked against the options and the earlier
batches' column types when it arrives (no row is read for that), then buffered;
once ``buffer_rows`` rows are buffered (and at :meth:`~Accumulator.evaluate`,
:meth:`~Accumulator.cells` or :meth:`~Accumulator.flush`) the buffer is reduced
to cell tables in one pass and added to the state. So the cost of an update is
proportional to its batch, the fixed cost of a reduction is paid once per
``buffer_rows`` rows, and memory is the state plus at most ``buffer_rows`` rows.
A data error (a null label, a value outside [0, 1], a class outside the declared
universe) is raised by the reduction, naming the update whose rows hold it; the
rows of that update are not added and those of every other update are. With
``buffer_rows=0`` each update is reduced (and checked) at once.

What a batch must hold: whole examples. The long form's per-example profiles
(the exemplar operator, and the task inferred from them) are computed per batch,
so every row of an example (every class, every target) must come in the same
batch; the label form has one row per example anyway. Repeated example ids are
checked within a batch, not across batches.
"""

from __future__ import annotations

import inspect
import uuid
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

import narwhals as nw
import numpy as np
import polars as pl

from aggframe._options import listify
from aggframe.cells import Cells
from aggframe.constructors import from_labels, from_long, from_scores
from aggframe.exceptions import (
    AggframeError,
    ColumnNotFoundError,
    EmptyInputError,
    InvalidValueError,
    OptionError,
    ShapeError,
)
from aggframe.intake.cells_checks import exact_widening
from aggframe.intake.collected import add_cells, check_parts
from aggframe.intake.frame_input import refuse_repeated_names
from aggframe.intake.input_checks import label_frame
from aggframe.intake.long import indicator_frame
from aggframe.intake.origin import origin_of
from aggframe.intake.read_errors import reading
from aggframe.predictions import Predictions

__all__ = ["Accumulator", "AccumulatorForm"]

#: The input forms an accumulator takes (as the constructors of the same names).
AccumulatorForm = Literal["labels", "long", "scores", "indicator"]

_CONSTRUCTORS: dict[str, Callable[..., Predictions]] = {
    "labels": from_labels,
    "long": from_long,
    "scores": from_scores,
}
#: the options of each form that name columns of the batches
_COLUMNS = {
    "labels": ("y_true", "y_pred", "example", "fold", "repeat", "target"),
    "long": ("example", "class_", "y", "p", "mask", "fold", "repeat", "target"),
    "scores": ("example", "class_", "score", "y", "mask", "over"),
    "indicator": (),
}
_REFUSED = {
    "examples": (
        "examples= declares the examples of all the data, but each batch is reduced on its own; "
        "give every example rows (or use from_long on the whole data)"
    ),
}
_INDICATOR_OPTIONS = ("tnorm", "task")


class _AllKeys:
    """The default ``by`` of :meth:`Accumulator.evaluate`: every by-column of the accumulator."""

    def __repr__(self) -> str:
        return "<all the accumulator's by-columns>"


ALL_KEYS = _AllKeys()


def _keyword_options(form: str) -> dict[str, Any]:
    """The keyword options of a form's constructor, with their defaults."""
    if form == "indicator":
        return {"tnorm": None, "task": None}
    params = inspect.signature(_CONSTRUCTORS[form]).parameters.values()
    return {p.name: p.default for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


class Accumulator:
    """Cell tables accumulated over batches, evaluated at any time.

    Parameters
    ----------
    form
        ``"labels"`` (default: one row per example, as :func:`~aggframe.from_labels`;
        a batch may also be two label arrays), ``"long"`` (:func:`~aggframe.from_long`),
        ``"scores"`` (:func:`~aggframe.from_scores`) or ``"indicator"`` (NumPy
        ``n x m`` matrices ``Y``, ``P`` and an optional ``mask``, as
        :func:`~aggframe.from_indicator`; every batch has the same ``m``).
    by
        Columns to keep the cells per (model, day, ...); :meth:`evaluate` evaluates
        per all of them by default, or any subset.
    buffer_rows
        Rows buffered before they are reduced to cells (default 1,000,000): a
        reduction costs a fixed few milliseconds plus a group-by whose cost per row
        falls with its size (a group-by of 100k rows costs about twice as much per
        row as one of 1M), so larger buffers are faster, at the memory of the
        buffered rows (tens of MB for a million rows of a few columns); ``0``
        reduces and checks every update at once.
    **options
        The options of the form's constructor: role columns (``y_true``,
        ``y_pred``, ``example``, ``class_``, ``y``, ``p``, ``mask``, ``score``,
        ...), ``fold``, ``repeat``, ``target``, the class universe (``classes``,
        ``n_classes``, ``class_universe``), ``task``, ``pos_label``, ``tnorm``,
        the decision options of scores. ``examples=`` is refused (it declares
        the examples of the whole data).

    Notes
    -----
    Without a declared class universe (``classes=``/``n_classes=``) the
    universe is the classes seen so far and grows as batches bring classes; in
    the label form the earlier batches' examples then count as true negatives of
    the new classes, exactly as if all rows had come at once. In the long form
    an absent entry without a declared universe is an error, so a batch that
    brings a class the earlier ones lacked is refused (declare the universe).

    Raises
    ------
    OptionError
        An unknown form, a negative ``buffer_rows``, or an option the form's constructor
        refuses (``examples=``, ...).

    Examples
    --------
    >>> import polars as pl, aggframe as af
    >>> acc = af.Accumulator(by="model")
    >>> acc.update(pl.DataFrame({"model": ["a", "b"], "y_true": [0, 1], "y_pred": [0, 0]}))
    >>> acc.update(pl.DataFrame({"model": ["a", "b"], "y_true": [1, 1], "y_pred": [1, 1]}))
    >>> acc.evaluate("recall", "micro").select("model", "value")
    shape: (2, 2)
    ┌───────┬───────┐
    │ model ┆ value │
    │ ---   ┆ ---   │
    │ str   ┆ f64   │
    ╞═══════╪═══════╡
    │ a     ┆ 1.0   │
    │ b     ┆ 0.5   │
    └───────┴───────┘
    >>> acc.n_updates, acc.n_rows
    (2, 4)
    """

    def __init__(
        self,
        form: AccumulatorForm = "labels",
        *,
        by: str | Sequence[str] | None = None,
        buffer_rows: int = 1_000_000,
        **options: Any,
    ) -> None:
        if form not in ("labels", "long", "scores", "indicator"):
            msg = f"unknown form {form!r}; valid forms: labels, long, scores, indicator"
            raise OptionError(msg)
        allowed = _keyword_options(form)
        for name in options:
            if name in _REFUSED and name in allowed:
                msg = f"Accumulator: {_REFUSED[name]}"
                raise OptionError(msg)
            if name not in allowed:
                msg = (
                    f"unknown option {name!r} for the {form} form; valid options: "
                    f"{', '.join(sorted(k for k in allowed if k not in _REFUSED))}"
                )
                raise OptionError(msg)
        if not isinstance(buffer_rows, int) or isinstance(buffer_rows, bool) or buffer_rows < 0:
            msg = f"Expected `buffer_rows` to be an integer >= 0, got {buffer_rows!r}"
            raise OptionError(msg)
        by_cols = listify(by)
        if form == "indicator" and by_cols:
            msg = "indicator matrices have no columns to group by; use the long form for by="
            raise OptionError(msg)
        self.form: AccumulatorForm = form
        self.by: tuple[str, ...] = tuple(by_cols)
        self.buffer_rows = buffer_rows
        self.options: dict[str, Any] = dict(options)
        resolved = {**allowed, **options}
        if form == "scores" and resolved.get("example") is None and resolved.get("class_") is not None:
            resolved["example"] = (
                "example"  # from_scores' default in the long layout (none in the binary one)
            )
        columns = [c for opt in _COLUMNS[form] for c in listify(resolved.get(opt))]
        #: the columns of a batch that are read (roles, keys), in order, without repeats
        self._columns = list(dict.fromkeys([*columns, *self.by]))
        self.reset()

    # -- state --------------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget every row: the state of a new accumulator (with a new identity for :meth:`merge`)."""
        self._cells: Cells | None = None
        self._buffer: list[pl.DataFrame] = []
        self._buffered: list[int] = []  # the update number of each buffered batch
        self._buffer_size = 0
        self._updates = 0
        self._rows = 0
        self._schema: pl.Schema | None = None  # the read columns' dtypes (first batch)
        self._checked: pl.Schema | None = None  # the last batch schema checked against the options
        self._width: int | None = None  # indicator matrices: their number of columns
        self._masked: bool | None = None
        self._examples = 0  # indicator matrices: the rows seen, so that each batch's ids follow
        self._id = str(uuid.uuid4())

    @property
    def n_updates(self) -> int:
        """How many times :meth:`update` was called (since the last :meth:`reset`).

        Returns
        -------
        int
            The number of batches added so far.
        """
        return self._updates

    @property
    def n_rows(self) -> int:
        """How many rows the updates brought (long form: entries; label form: examples).

        Returns
        -------
        int
            The number of rows added so far (reduced or buffered).
        """
        return self._rows

    @property
    def buffered_rows(self) -> int:
        """Rows waiting to be reduced to cells (at most ``buffer_rows`` plus one batch).

        Returns
        -------
        int
            The rows buffered and not yet reduced to cells.
        """
        return self._buffer_size

    def __repr__(self) -> str:
        return (
            f"Accumulator(form={self.form!r}, by={list(self.by)!r}, updates={self._updates}, "
            f"rows={self._rows}, buffered={self._buffer_size}, cells={self._cells!r})"
        )

    # -- update -------------------------------------------------------------------------------
    def update(self, batch: Any, y_pred: Any = None, /, *, mask: Any = None) -> None:
        """Add a batch of predictions.

        ``batch`` is a frame (Polars, pandas, PyArrow, a dict of columns, or any
        eager frame Narwhals supports) with the configured columns; in the label
        form it may be two label arrays (``update(y_true, y_pred)``), in the
        indicator form two NumPy matrices (``update(Y, P, mask=M)``). An empty
        batch is skipped. Column names, option and type errors are raised here;
        data errors when the buffer is reduced (see :class:`Accumulator`).

        Parameters
        ----------
        batch
            A Polars, pandas or Arrow frame, a dict of columns, or (label form) the true labels
            as an array; (indicator form) the ``Y`` matrix.
        y_pred
            The predicted labels (``P`` matrix) when ``batch`` is an array.
        mask
            The indicator form's optional 0/1 mask matrix.

        Raises
        ------
        ColumnNotFoundError
            A role or by-column the batch lacks.
        OptionError
            A batch of another form, or options that do not apply.
        AggframeError
            Bad data in the batch when it is reduced (at once with ``buffer_rows=0``), naming
            the update: its rows are not added.
        """
        self._updates += 1
        frame = self._frame(batch, y_pred, mask)
        if frame.height == 0:
            return
        self._check(frame)
        if len(frame.columns) != len(self._columns):
            # only the columns read are kept (by position: a name is never read as a pattern,
            # "*" or "^x$", and "" stays ""); a batch of exactly those columns is kept as it is
            position = {c: i for i, c in enumerate(frame.columns)}
            frame = frame.select(pl.nth(position[c]) for c in self._columns)
        self._buffer.append(frame)
        self._buffered.append(self._updates)
        self._buffer_size += frame.height
        self._rows += frame.height
        if self._buffer_size >= self.buffer_rows:
            self.flush()

    def _frame(self, batch: Any, y_pred: Any, mask: Any) -> pl.DataFrame:
        if self.form == "indicator":
            if y_pred is None:
                msg = "the indicator form takes two matrices: update(Y, P) (and mask=...)"
                raise OptionError(msg)
            return self._indicator(batch, y_pred, mask)
        if mask is not None:
            msg = (
                f"mask= is for indicator matrices; the {self.form} form reads a mask column (mask='<column>')"
            )
            raise OptionError(msg)
        if y_pred is not None:
            if self.form != "labels":
                msg = f"two arrays are label arrays; the {self.form} form takes a frame"
                raise OptionError(msg)
            names = {**_keyword_options("labels"), **self.options}
            return label_frame(batch, y_pred, names["y_true"], names["y_pred"])
        return _as_polars(batch)

    def _indicator(self, Y: Any, P: Any, mask: Any) -> pl.DataFrame:
        frame, width = indicator_frame(Y, P, mask)
        if self._width is None:
            self._width, self._masked = width, mask is not None
            self._columns = ["example", "class", "y", "p", *(["mask"] if mask is not None else [])]
        if width != self._width:
            msg = f"this batch's matrices have {width} columns, the earlier ones {self._width}; every batch needs the same classes"
            raise ShapeError(msg)
        if mask is not None and not self._masked:
            msg = (
                "this batch has a mask but the first one had none; pass mask= from the first update "
                "(np.ones_like(Y) where every entry is observed)"
            )
            raise OptionError(msg)
        if mask is None and self._masked:
            frame = frame.with_columns(pl.lit(1.0).alias("mask"))
        # each batch numbers its rows from 0: shifted past the rows seen, so that batches reduced
        # together are distinct examples (they were one example each, refused as duplicate
        # entries, and every batch was reduced alone on the error path)
        rows = Y.shape[0] if hasattr(Y, "shape") and len(Y.shape) else len(Y)
        frame = frame.with_columns(pl.col("example") + self._examples)
        self._examples += int(rows)
        return frame

    def _build(self, frame: pl.DataFrame) -> Predictions:
        if self.form == "indicator":
            return from_long(
                frame,
                mask="mask" if self._masked else None,
                n_classes=self._width,
                **{k: v for k, v in self.options.items() if k in _INDICATOR_OPTIONS},
            )
        return _CONSTRUCTORS[self.form](frame, **self.options)

    def _check(self, frame: pl.DataFrame) -> None:
        """Options and column names against this batch's schema (no rows read), and types against earlier batches.

        Done once per distinct schema: batches like the last one checked cost nothing here.
        """
        full = frame.schema
        if full == self._checked:
            return
        if self.form != "scores":
            # the constructor reads no rows: its option and column checks run on the empty frame
            # (from_scores checks its scores on the data: at the reduction)
            self._build(frame.clear()).source.check_by(self.by)
        missing = [c for c in self._columns if c not in full]
        if missing:
            msg = f"column {missing[0]!r} is not in the batch of update {self._updates}; columns: {frame.columns}"
            raise ColumnNotFoundError(msg)
        schema = pl.Schema({c: full[c] for c in self._columns})
        if self._schema is None:
            self._schema = schema
        elif any(d == pl.Null for d in self._schema.values()):
            # a column of nothing but nulls so far says nothing of its type: the first batch that
            # has values types it (a Null first batch let String '1' and Int64 1 meet later)
            self._schema = pl.Schema({c: schema[c] if d == pl.Null else d for c, d in self._schema.items()})
        for col, dtype in schema.items():
            before = self._schema[col]
            if (
                dtype != before
                and not (dtype.is_numeric() and before.is_numeric())
                and pl.Null not in (dtype, before)
            ):
                msg = (
                    f"column {col!r} is {dtype} in update {self._updates} but {before} in the earlier "
                    "updates; give every batch the same column types"
                )
                raise InvalidValueError(msg)
        self._checked = full

    # -- reduction ----------------------------------------------------------------------------
    def flush(self) -> None:
        """Reduce the buffered rows to cells now (the data checks run here); a no-op when none are buffered."""
        if not self._buffer:
            return
        batches, numbers = self._buffer, self._buffered
        self._buffer, self._buffered, self._buffer_size = [], [], 0
        try:
            self._add(self._reduce(batches))
        except AggframeError:
            # error path only: each update on its own, to add the good ones and name the bad one
            self._add_each(batches, numbers)

    def _reduce(self, batches: list[pl.DataFrame]) -> Cells:
        if len(batches) == 1:
            frame = batches[0]
        else:
            first = batches[0].schema
            if not all(b.schema == first for b in batches[1:]):
                # column orders or numeric widths differ: one order, the widest types
                order = list(first)
                batches = [b.select(pl.nth(b.columns.index(c)) for c in order) for b in batches]
                for col in order:
                    exact_widening([b.get_column(col) for b in batches], col)
            frame = pl.concat(batches, how="vertical_relaxed", rechunk=False)
        return replace(self._build(frame).to_cells(self.by), parts=())

    def _add(self, chunk: Cells) -> None:
        if self._cells is None:
            self._cells = replace(chunk, parts=({"id": self._id, "path": None, "covers": None},))
        else:
            self._cells = add_cells(self._cells, chunk)

    def _add_each(self, batches: list[pl.DataFrame], numbers: list[int]) -> None:
        failed: list[tuple[int, AggframeError]] = []
        for batch, number in zip(batches, numbers, strict=True):
            try:
                self._add(self._reduce([batch]))
            except AggframeError as error:
                failed.append((number, error))
                self._rows -= batch.height
        if not failed:
            # what failed is a check across updates of one buffer (a repeated example id):
            # such checks are per update, whatever the buffer held
            return
        number, first = failed[0]
        if len(batches) == 1:
            note = "its rows were not added"
        else:
            others = f"; updates {[n for n, _ in failed[1:]]} failed too" if len(failed) > 1 else ""
            note = f"the rows of this update were not added{others}; those of the other buffered updates were"
        msg = f"update {number}: {first} ({note})"
        raise type(first)(msg) from first

    # -- results ------------------------------------------------------------------------------
    def cells(self) -> Cells:
        """The accumulated cells (buffered rows are reduced first): evaluate, write or send them elsewhere.

        Returns
        -------
        Cells
            The cells of every row added so far.

        Raises
        ------
        EmptyInputError
            No rows were added yet.
        """
        self.flush()
        if self._cells is None:
            msg = "the accumulator has no rows yet: call update(batch) first"
            raise EmptyInputError(msg)
        return self._cells

    def evaluate(
        self,
        measures: Any = None,
        operators: Any = None,
        *,
        by: str | Sequence[str] | _AllKeys | None = ALL_KEYS,
        **options: Any,
    ) -> Any:
        """Evaluate the rows so far: :meth:`Cells.evaluate <aggframe.Cells.evaluate>` on :meth:`cells`.

        A tidy frame, as ``evaluate`` gives everywhere (this was ``compute``, which now
        means one number everywhere: ``Accumulator.compute`` still works for this release,
        with a ``FutureWarning``).

        ``by`` defaults to every by-column of the accumulator; ``by=None`` gives
        the overall values, a subset rolls up. The other options are those of
        :meth:`~aggframe.Predictions.evaluate`.

        Parameters
        ----------
        measures, operators
            As in :meth:`~aggframe.Predictions.evaluate`.
        by
            A subset of the accumulator's by-columns (default: all of them; ``None``: overall).
        **options
            Any other option of :meth:`~aggframe.Predictions.evaluate`.

        Returns
        -------
        pl.DataFrame
            The tidy report of the rows so far (a LazyFrame with ``lazy=True``).

        Raises
        ------
        EmptyInputError
            No rows were added yet.
        OptionError
            An option :meth:`~aggframe.Cells.evaluate` refuses.
        """
        keys = list(self.by) if isinstance(by, _AllKeys) else by
        return self.cells().evaluate(measures, operators, by=keys, **options)

    def compute(self, *args: Any, **kwargs: Any) -> Any:
        """Deprecated: :meth:`evaluate` (the same frame), with a ``FutureWarning``.

        ``compute`` returns one number everywhere else (:meth:`Predictions.compute
        <aggframe.Predictions.compute>`); the accumulator's frame is :meth:`evaluate`.

        Parameters
        ----------
        *args, **kwargs
            Those of :meth:`evaluate`.

        Returns
        -------
        pl.DataFrame
            What :meth:`evaluate` returns.

        Raises
        ------
        EmptyInputError
            No rows were added yet.
        """
        msg = (
            "Accumulator.compute(...) is deprecated and will be removed in a later release: use "
            "Accumulator.evaluate(...), the same frame (compute returns one number everywhere else)"
        )
        warnings.warn(msg, FutureWarning, stacklevel=2)
        return self.evaluate(*args, **kwargs)

    # -- merge --------------------------------------------------------------------------------
    def merge(self, other: Accumulator | Cells) -> None:
        """Add the rows of another accumulator (same form, options and ``by``) or of a :class:`Cells`.

        The same rows are never added twice: merging an accumulator into itself,
        or a copy of it (pickled, sent back), is refused.

        Parameters
        ----------
        other
            Another accumulator or a :class:`~aggframe.Cells`.

        Raises
        ------
        OptionError
            Another form, other by-columns, or cells that do not add up.
        StoreError
            The same rows twice (the accumulator itself, or a copy of it).
        """
        if isinstance(other, Accumulator):
            # the form and the by-columns here; every other option through the cells' layouts
            # (equivalent spellings, n_classes=3 or classes=[0, 1, 2], add up as cells do)
            if (other.form, list(other.by)) != (self.form, list(self.by)):
                msg = (
                    f"cannot merge accumulators of another form or by-columns: form {other.form!r}, by "
                    f"{list(other.by)!r} into form {self.form!r}, by {list(self.by)!r}"
                )
                raise OptionError(msg)
            other.flush()
            theirs, rows, updates = other._cells, other._rows, other._updates
        elif isinstance(other, Cells):
            forms = {
                "labels": ("labels",),
                "long": ("long",),
                "indicator": ("long",),
                "scores": ("labels", "long"),
            }
            if list(other.by) != list(self.by) or other.form not in forms.get(self.form, (other.form,)):
                # checked now also when nothing was added yet: taken as they are, they made every
                # later update fail (its rows lost) and compute() name a missing key
                msg = (
                    f"cannot merge these cells: form {other.form!r}, by {list(other.by)!r}, into an accumulator "
                    f"of form {self.form!r}, by {list(self.by)!r}"
                )
                raise OptionError(msg)
            theirs, rows, updates = other, 0, 0
        else:
            msg = f"merge takes an af.Accumulator or af.Cells, got {type(other).__name__}"
            raise OptionError(msg)
        if theirs is None:
            return
        self.flush()
        if self._cells is not None:
            check_parts(self._cells, theirs)
            self._cells = add_cells(self._cells, theirs)
        else:
            self._cells = theirs
        self._rows += rows
        self._updates += updates


def _as_polars(batch: Any) -> pl.DataFrame:
    """A batch as a Polars DataFrame (pandas, Arrow, dicts and Narwhals-supported frames are converted)."""
    if isinstance(batch, pl.DataFrame):
        return batch
    if isinstance(batch, pl.LazyFrame):
        with reading(origin_of(batch)):  # a scan of a missing file, a bad expression: SourceError
            return batch.collect()
    if isinstance(batch, Mapping):
        try:
            return pl.DataFrame(dict(batch))
        except (pl.exceptions.PolarsError, TypeError, ValueError) as exc:
            msg = (
                f"a batch given as a dict of columns could not be read as a frame: {str(exc).splitlines()[0]}"
            )
            raise OptionError(msg) from exc
    if isinstance(batch, np.ndarray):
        msg = (
            "a NumPy batch is two label arrays (update(y_true, y_pred)) or, with form='indicator', "
            "two indicator matrices (update(Y, P))"
        )
        raise OptionError(msg)
    try:
        out: pl.DataFrame = nw.from_native(batch, eager_only=True).to_polars()
        return out
    except nw.exceptions.DuplicateError as exc:
        refuse_repeated_names([str(c) for c in getattr(batch, "columns", [])], "batch")
        msg = "the batch has two columns of one name; rename one of them first"  # names not at hand
        raise InvalidValueError(msg) from exc
    except TypeError as exc:
        kind = f"{type(batch).__module__}.{type(batch).__qualname__}"
        msg = f"Expected a batch to be a DataFrame (Polars, pandas, Arrow, ...) or a dict of columns, got {kind}"
        if _engine_frame(batch):
            # a Spark DataFrame was "got DataFrame", which read as the very type expected
            msg += (
                ", a lazy frame of another engine: evaluate it there, af.from_labels(frame, ...)."
                "to_cells() (or from_long, from_scores), and merge() the Cells"
            )
        raise OptionError(msg) from exc


def _engine_frame(batch: Any) -> bool:
    """A lazy frame of an engine other than Polars (a DuckDB relation, a Spark DataFrame)."""
    try:
        return isinstance(nw.from_native(batch), nw.LazyFrame)
    except TypeError:
        return False
