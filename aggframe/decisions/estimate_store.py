"""Expected cells that add up, stored like cells, with the calibration map beside them.

:func:`expected_cells` calibrates the scores of ``data`` on a reference (or
with a fitted or saved map) exactly as :func:`~aggframe.estimate` does, and
returns the *expected* confusion cells as :class:`~aggframe.Cells`: the sums
``E[tp] = sum q d``, ... of the product t-norm per (group, class), the group
counts and, for the exemplar operator, the expected count of each crisp
per-example profile (fractional counts, exactly what :func:`estimate`'s exemplar
reads: :mod:`~aggframe.decisions.estimate_exemplar`). Cells add up, so the expected cells of two
months added (``a + b``, or their stores read together) are the expected cells of
both months, and ``cells.evaluate(...)`` gives the estimate over both (with the
same map: the calibration of a month is a function of that month's map).

``store=`` writes them as a cell store (:meth:`~aggframe.Cells.write`) with the
map beside the tables as ``calibration.parquet`` (:meth:`~aggframe.CalibrationMap.write`: one Parquet file, one
row per (class, bin) with ``q`` and the class's calibration error, the method in its
metadata), and a path to such a store (or to a map file, ``aggframe estimate --map-out``)
is accepted as the reference: next month's expected cells use the same map.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import narwhals as nw
import polars as pl

from aggframe._columns import CELLS, CLASS, CLASS_ROLE, EXAMPLE, KEY_ALL, free_name
from aggframe._options import Calibration, Engine, listify, parse_engine
from aggframe.decisions.estimate import CalibrationMap, _check_source, fit_calibration
from aggframe.decisions.estimate_cells import D, Entries, Q, entries
from aggframe.decisions.estimate_engines import engine_row_ids, rows_with_q
from aggframe.decisions.estimate_exemplar import EXACT_CLASSES, expected_from_cells, expected_multilabel
from aggframe.decisions.estimate_mapfile import MAP_FORMAT
from aggframe.exceptions import OptionError, StoreError
from aggframe.intake.read_errors import reading

if TYPE_CHECKING:
    from aggframe import Cells  # (its module moves: the public name stays)
    from aggframe.predictions import Predictions

__all__ = ["MAP_FILE", "MAP_FORMAT", "as_map", "expected_cells", "load_map"]


#: The file of a store of expected cells that holds its calibration map.
MAP_FILE = "calibration.parquet"


def load_map(path: str | PathLike[str]) -> CalibrationMap:
    """The map saved at ``path``: a map file, or a store of expected cells (its ``calibration.parquet``)."""
    where = Path(path)
    if where.is_dir():
        where = where / MAP_FILE
    if not where.is_file():
        msg = (
            f"no calibration map at {str(where)!r}: expected a calibration map file, or a store of "
            f"expected cells (which holds one as {MAP_FILE})"
        )
        raise StoreError(msg)
    return CalibrationMap.read(where)


def as_map(reference: Any, calibration: Calibration) -> CalibrationMap:
    """A fitted map from a reference: predictions (fitted here), a map, or the path of a saved one."""
    if isinstance(reference, CalibrationMap):
        return reference
    if isinstance(reference, str | PathLike):
        return load_map(reference)
    return fit_calibration(reference, calibration=calibration)


def _expected_long(cmap: CalibrationMap, ent: Entries) -> nw.LazyFrame[Any]:
    """The entries of ``data`` with the calibrated ``q`` (and a row id as the example of a binary layout).

    On the source's own engine: Polars looks the map up per row (a gather); DuckDB and Spark join
    it on (class, score bin) and renormalise by a window per example
    (:func:`~aggframe.decisions.estimate_engines.engine_with_q`). A lazy frame of that engine.
    """
    rows = rows_with_q(ent, cmap)
    if not ent.binary:
        return rows
    # one entry per row: the row is the example
    native = nw.to_native(rows)
    if isinstance(native, pl.LazyFrame):
        numbered: nw.LazyFrame[Any] = nw.from_native(native.with_row_index(EXAMPLE))
        return numbered
    return engine_row_ids(rows, EXAMPLE)


def _long_form(rows: nw.LazyFrame[Any], ent: Entries, by: list[str]) -> tuple[Any, dict[str, str]]:
    """One row per (example, class): the by-columns (user names), the calibrated ``q`` as the truth
    and the decision, under role names that no by-column takes (the rows of :func:`estimate`)."""
    keys = [k for k in ent.keys if k != KEY_ALL]
    roles = {r: free_name(f"__af_est_{r}", by) for r in ("example", "class", "y", "p")}
    long = rows.select(
        *(nw.col(k).alias(name) for k, name in zip(keys, by, strict=True)),
        nw.col(EXAMPLE).alias(roles["example"]),
        nw.col(CLASS_ROLE).alias(roles["class"]),
        nw.col(Q).alias(roles["y"]),
        nw.col(D).alias(roles["p"]),
    )
    return nw.to_native(long), roles


def _exact_profiles(
    cells: Cells, rows: nw.LazyFrame[Any], ent: Entries, cmap: CalibrationMap, origin: Any
) -> Cells:
    """``cells`` with the exact expected profile counts of the exemplar operator (as :func:`estimate`'s).

    The cells' own profiles are each example's expected cells (the soft cells of the product
    t-norm); the exemplar operator's estimate is the measure of the *expected counts of each
    crisp profile* (:mod:`~aggframe.decisions.estimate_exemplar`). Binary and single-label truth:
    from those per-example cells, no pass over the rows; multilabel truth (at most
    :data:`~aggframe.decisions.estimate_exemplar.EXACT_CLASSES` classes): one more query on the
    source's engine (per example the power sums of ``q``). With more classes the per-example
    expected cells are the estimate's own fallback, and they stay. The counts are fractional
    (``n`` a float): counts that add up, as the cells do.
    """
    keys = list(cells.keys)
    table = cells.profile_table
    if ent.binary or cmap.renormalize:
        exact = expected_from_cells(table, keys, binary=ent.binary)
    else:
        n_classes = cells.class_table[CLASS].n_unique()
        if n_classes > EXACT_CLASSES:
            return cells
        got = expected_multilabel(rows, ent.keys, origin, n_classes=n_classes)
        # the entries' keys are the cells' keys, in the same order (the stand-in key's type may differ)
        exact = got.rename(dict(zip(ent.keys, keys, strict=True))).with_columns(
            *[pl.col(k).cast(table.schema[k]) for k in keys]
        )
    return replace(cells, profile_table=exact.select(*keys, *CELLS, "n"))


def expected_cells(
    reference: Predictions | CalibrationMap | str | PathLike[str],
    data: Predictions,
    *,
    by: str | Sequence[str] | None = None,
    calibration: Calibration = "isotonic",
    store: str | PathLike[str] | None = None,
    overwrite: bool = False,
    engine: Engine = "auto",
) -> Cells:
    """The expected confusion cells of unlabelled predictions, as cells that add up (and can be stored).

    The scores of ``data`` are calibrated as :func:`~aggframe.estimate` calibrates
    them, and the expected cells (``E[tp] = sum q d``, ...) are kept per ``by``
    group. ``cells.evaluate(measures, operators, by=...)`` gives ``estimate``'s
    ``estimated`` values (``exemplar`` included: the cells hold the expected count of
    each per-example profile); cells of several periods added (``a + b``, or their
    stores read together) give the estimate over all of them.

    Parameters
    ----------
    reference
        Labelled predictions with scores (the map is fitted on them), a fitted
        :class:`~aggframe.CalibrationMap`, or the path of a saved map (a store written
        with ``store=``, or a map file written by ``aggframe estimate --map-out``).
    data
        Predictions with scores read with the same options as the reference (their truth is not read).
    by
        Columns of ``data`` to keep the cells per (any subset can be evaluated later).
    calibration
        ``"isotonic"``, ``"platt"`` or ``"none"``, when the map is fitted here.
    store
        Also write the cells to this folder (a cell store) with the map in its
        ``calibration.parquet`` file.
    overwrite
        Replace an existing store (and its map) at ``store``.
    engine
        The Polars engine of the scan.

    Returns
    -------
    Cells
        The expected cells (soft), their profiles the expected count of each crisp per-example
        profile (a float ``n``): the ``exemplar`` operator on them is ``estimate``'s.

    Raises
    ------
    OptionError
        A reference or data that is not predictions with scores, or a bad option.
    StoreError
        ``store`` is an existing store (without ``overwrite``), a file or another folder; a
        saved map that is missing or broken.

    Examples
    --------
    >>> import polars as pl
    >>> import aggframe as af
    >>> ref = af.from_scores(pl.DataFrame({"y": [0, 0, 1, 1], "score": [0.1, 0.6, 0.4, 0.9]}), class_=None)
    >>> a = af.from_scores(pl.DataFrame({"y": [0, 0], "score": [0.2, 0.5]}), class_=None)
    >>> b = af.from_scores(pl.DataFrame({"y": [0], "score": [0.85]}), class_=None)
    >>> cells = af.expected_cells(ref, a) + af.expected_cells(ref, b)
    >>> round(cells.evaluate("recall", "binary")["value"].item(), 3)
    0.579
    """
    from aggframe.constructors import from_long
    from aggframe.predictions import Predictions

    by_cols = listify(by)
    engine = parse_engine(engine)
    if store is not None and not isinstance(store, str | PathLike):
        msg = f"Expected `store` to be a folder path, got {type(store).__name__}"
        raise OptionError(msg)
    cmap = as_map(reference, calibration)
    source = _check_source(data, "data")
    origin = source.origin
    ent = entries(source, by_cols, None)
    rows = _expected_long(cmap, ent)
    long, roles = _long_form(rows, ent, by_cols)
    read = from_long(
        long,
        example=roles["example"],
        class_=roles["class"],
        y=roles["y"],
        p=roles["p"],
        tnorm="product",
        task="multilabel",
    )
    pr = Predictions(replace(read.source, origin=origin))
    with reading(origin):
        cells = _exact_profiles(pr.to_cells(by_cols, engine=engine), rows, ent, cmap, origin)
    if store is not None:
        cells.write(Path(store), overwrite=overwrite)
        cmap.write(Path(store) / MAP_FILE, overwrite=True)
    return cells
