"""Measure suites on predictions: the Polars side of :mod:`aggframe.analysis.suites`.

The suite module is NumPy only and sees one small count table at a time. This
module reads those tables (one grouped query) and hands them over:

- :func:`suite_rank`, :func:`select_suite` and :func:`suite_jacobian` take
  predictions (or a :class:`SuiteInput`) and return the suite module's objects;
- :func:`suite_ranks` and :func:`select_suites` always return a tidy frame,
  one row per ``by`` group (one row without ``by``).

One result type per function: ``by=`` on :func:`suite_rank` / :func:`select_suite`
still works but is deprecated in favour of the plural functions.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import polars as pl

from aggframe._columns import CELLS, CLASS, KEY_ALL, check_result_names
from aggframe.analysis.suites import Item, SuiteInput, SuiteRank, SuiteSelection
from aggframe.analysis.suites import select_suite as _select_suite
from aggframe.analysis.suites import suite_jacobian as _suite_jacobian
from aggframe.analysis.suites import suite_rank as _suite_rank
from aggframe.exceptions import OptionError
from aggframe.measures.measure import Measure

if TYPE_CHECKING:
    import numpy as np

    from aggframe.predictions import Predictions

__all__ = ["select_suite", "select_suites", "suite_inputs", "suite_jacobian", "suite_rank", "suite_ranks"]

_RANK_COLUMNS = ("items", "rank", "degrees_of_freedom", "redundant", "volume", "flat")
_SELECT_COLUMNS = ("items", "volume", "rank", "method")


def suite_inputs(pr: Predictions, by: Sequence[str]) -> tuple[list[tuple[Any, ...]], list[SuiteInput]]:
    """One :class:`SuiteInput` per group (from one grouped query): the group keys and the counts.

    Groups are the distinct key tuples (a null key is a group). Single-label data
    give each group's m x m confusion matrix, binary data the four cells, other
    data each label's four cells.
    """
    from aggframe.predictions import matrix

    pr.extend.check_suite_data()
    tables = pr.extend.cell_tables(by)
    keys = [k for k in tables.keys if k != KEY_ALL]
    classes_tbl = pr.extend.cell_frame(tables, "class")
    groups = classes_tbl.select(keys).unique(maintain_order=True).rows() if keys else [()]

    def part(frame: pl.DataFrame, key: tuple[Any, ...]) -> pl.DataFrame:
        same = [pl.col(k).eq_missing(pl.lit(v)) for k, v in zip(keys, key, strict=True)]
        return frame.filter(*same) if keys else frame

    inputs: list[SuiteInput] = []
    if pr.kind == "multiclass":
        counts, _ = pr.extend.confusion_table(by)
        classes = classes_tbl[CLASS].unique(maintain_order=True).to_list()
        for key in groups:
            inputs.append(SuiteInput(kind="multiclass", counts=matrix(part(counts, key), classes)))
        return groups, inputs
    for key in groups:
        cells = part(classes_tbl, key).select(*CELLS).to_numpy().astype(float)
        if cells.shape[0] == 1:
            inputs.append(SuiteInput(kind="binary", counts=cells[0]))
        else:
            inputs.append(SuiteInput(kind="multilabel", counts=cells))
    return groups, inputs


@runtime_checkable
class SupportsSuiteInput(Protocol):
    """Anything that can describe itself as a :class:`SuiteInput`."""

    def suite_input(self) -> SuiteInput: ...


def _input(pr: Predictions | SuiteInput | SupportsSuiteInput) -> SuiteInput:
    """The counts of predictions, a SuiteInput itself, or an object's ``suite_input()``."""
    from aggframe.predictions import Predictions

    if isinstance(pr, SuiteInput):
        return pr
    if isinstance(pr, Predictions):
        return suite_inputs(pr, [])[1][0]
    if isinstance(pr, SupportsSuiteInput):
        data = pr.suite_input()
        if isinstance(data, SuiteInput):
            return data
        msg = f"`suite_input()` must return a SuiteInput, got {type(data).__name__}"
        raise OptionError(msg)
    msg = f"Expected predictions (or a SuiteInput), got {type(pr).__name__}"
    raise OptionError(msg)


def _operator_option(operator: str, aggregation: str | None, what: str) -> str:
    """``operator=``, or its former name ``aggregation=`` (deprecated)."""
    if aggregation is None:
        return operator
    warnings.warn(
        f"{what}(aggregation=...) is now operator=...; aggregation= will be removed",
        FutureWarning,
        stacklevel=3,
    )
    return aggregation


def _label(pair: tuple[str, str]) -> str:
    return f"{pair[0]}:{pair[1]}"


def _groups(
    pr: Predictions, by: str | Sequence[str] | None, columns: Sequence[str], what: str
) -> tuple[list[str], list[tuple[Any, ...]], list[SuiteInput]]:
    keys = [by] if isinstance(by, str) else list(by or [])
    check_result_names(keys, columns, what)
    groups, inputs = suite_inputs(pr, keys)
    return keys, groups, inputs


def suite_jacobian(
    pr: Predictions | SuiteInput | SupportsSuiteInput,
    measures: Item | Iterable[Item],
    operator: str = "macro",
) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """The Jacobian of a suite at the data (see :func:`aggframe.analysis.suites.suite_jacobian`).

    Parameters
    ----------
    pr
        Predictions (single-label, binary or multilabel; not ordinal), or a
        :class:`~aggframe.suites.SuiteInput` of counts.
    measures
        The suite: measure names (or ``(measure, operator)`` pairs).
    operator
        The operator of the names given alone.

    Returns
    -------
    tuple[np.ndarray, list[tuple[str, str]]]
        The Jacobian (one row per item, one column per free parameter) and the items.

    Raises
    ------
    OptionError
        Soft or ordinal predictions, an unknown operator, or ``by=`` on counts.
    UnknownNameError
        An unknown measure.

    Examples
    --------
    >>> import numpy as np, aggframe as af
    >>> y = np.array([1] * 80 + [0] * 120)
    >>> p = np.array([1] * 60 + [0] * 20 + [1] * 30 + [0] * 90)
    >>> J, rows = af.suites.suite_jacobian(af.from_labels(y, p, task="binary"), ["recall", "fnr"], "micro")
    >>> J.shape, rows
    ((2, 2), [('recall', 'micro'), ('fnr', 'micro')])
    """
    return _suite_jacobian(_input(pr), measures, operator)


def suite_rank(
    pr: Predictions | SuiteInput | SupportsSuiteInput,
    measures: Item | Iterable[Item],
    operator: str = "macro",
    tol: float = 1e-6,
    *,
    by: str | Sequence[str] | None = None,
    aggregation: str | None = None,
) -> SuiteRank | pl.DataFrame:
    """Rank test of a suite of measures (Remark 2): a :class:`SuiteRank`.

    ``items``, ``rank``, ``redundant``, ``degrees_of_freedom``, ``volume``,
    ``singular_values``, ``flat``. Per group, as a frame: :func:`suite_ranks`
    (``by=`` here still works, deprecated; so is ``aggregation=``, now ``operator=``).

    Parameters
    ----------
    pr
        Predictions (single-label, binary or multilabel; not ordinal), or a
        :class:`~aggframe.suites.SuiteInput` of counts.
    measures
        The suite: measure names (or ``(measure, operator)`` pairs).
    operator
        The operator of the names given alone.
    tol
        The relative tolerance of the rank.
    by, aggregation
        Deprecated (``by``: use :func:`suite_ranks`; ``aggregation``: ``operator``).

    Returns
    -------
    SuiteRank
        The rank test (a frame when the deprecated ``by`` is given).

    Raises
    ------
    OptionError
        Soft or ordinal predictions, an unknown operator, or ``by=`` on counts.
    UnknownNameError
        An unknown measure.

    Examples
    --------
    >>> import numpy as np, aggframe as af
    >>> y = np.array([1] * 80 + [0] * 120)
    >>> p = np.array([1] * 60 + [0] * 20 + [1] * 30 + [0] * 90)
    >>> pr = af.from_labels(y, p, task="binary")
    >>> af.suites.suite_rank(pr, ["recall", "fnr"], "micro").rank
    1
    """
    op = _operator_option(operator, aggregation, "suite_rank")
    if by is not None:
        warnings.warn(
            "suite_rank(..., by=...) returns a frame; use af.suites.suite_ranks(..., by=...), which always does",
            FutureWarning,
            stacklevel=2,
        )
        from aggframe.predictions import Predictions

        if not isinstance(pr, Predictions):
            msg = f"by= groups predictions; got {type(pr).__name__}"
            raise OptionError(msg)
        return suite_ranks(pr, measures, op, tol, by=by)
    return _suite_rank(_input(pr), measures, op, tol)


def suite_ranks(
    pr: Predictions,
    measures: Item | Iterable[Item],
    operator: str = "macro",
    tol: float = 1e-6,
    *,
    by: str | Sequence[str] | None = None,
) -> pl.DataFrame:
    """The rank test per group, as a tidy frame (one row per group; one row without ``by``).

    Columns: by..., ``items``, ``rank``, ``degrees_of_freedom``, ``redundant``,
    ``volume``, ``flat``.

    Parameters
    ----------
    pr
        Predictions.
    measures, operator, tol
        As in :func:`suite_rank`.
    by
        Group columns.

    Returns
    -------
    pl.DataFrame
        One row per group: by..., items, rank, size, redundant, degrees_of_freedom, volume.

    Raises
    ------
    OptionError
        Soft or ordinal predictions, an unknown operator, or ``by=`` on counts.
    UnknownNameError
        An unknown measure.

    Examples
    --------
    >>> import polars as pl, aggframe as af
    >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [0, 1, 2, 1] * 2, "y_pred": [0, 1, 1, 2] * 2})
    >>> af.suites.suite_ranks(af.from_labels(df), ["recall", "precision"], "macro", by="g")["rank"].to_list()
    [2, 2]
    """
    keys, groups, inputs = _groups(pr, by, _RANK_COLUMNS, "suite_ranks")
    items: Item | list[Item] = measures if isinstance(measures, (str, tuple, Measure)) else list(measures)
    rows = []
    for key, data in zip(groups, inputs, strict=True):
        r = _suite_rank(data, items, operator, tol)
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "items": [_label(p) for p in r.items],
                "rank": r.rank,
                "degrees_of_freedom": r.degrees_of_freedom,
                "redundant": r.redundant,
                "volume": r.volume,
                "flat": [_label(p) for p in r.flat],
            }
        )
    return pl.DataFrame(rows, schema_overrides={"items": pl.List(pl.String), "flat": pl.List(pl.String)})


def select_suite(
    pr: Predictions | SuiteInput | SupportsSuiteInput,
    candidates: Item | Iterable[Item] | None = None,
    size: int | None = None,
    operator: str = "macro",
    tol: float = 1e-6,
    *,
    by: str | Sequence[str] | None = None,
    aggregation: str | None = None,
) -> SuiteSelection | pl.DataFrame:
    """The suite with the largest information volume: a :class:`SuiteSelection`.

    Per group, as a frame: :func:`select_suites` (``by=`` here still works,
    deprecated; so is ``aggregation=``, now ``operator=``).

    Parameters
    ----------
    pr
        Predictions (single-label, binary or multilabel; not ordinal), or a
        :class:`~aggframe.suites.SuiteInput` of counts.
    candidates
        The measures to choose from (default: every built-in with a gradient).
    size
        The suite's size (default: the degrees of freedom).
    operator
        The operator of the names given alone.
    tol
        The relative tolerance of the rank.
    by, aggregation
        Deprecated (``by``: use :func:`select_suites`; ``aggregation``: ``operator``).

    Returns
    -------
    SuiteSelection
        The chosen suite (a frame when the deprecated ``by`` is given).

    Raises
    ------
    OptionError
        Soft or ordinal predictions, an unknown operator, or ``by=`` on counts.
    UnknownNameError
        An unknown measure.

    Examples
    --------
    >>> import numpy as np, aggframe as af
    >>> y = np.array([1] * 80 + [0] * 120)
    >>> p = np.array([1] * 60 + [0] * 20 + [1] * 30 + [0] * 90)
    >>> af.suites.select_suite(af.from_labels(y, p, task="binary"), operator="micro").items
    (('recall', 'micro'), ('specificity', 'micro'))
    """
    op = _operator_option(operator, aggregation, "select_suite")
    if by is not None:
        warnings.warn(
            "select_suite(..., by=...) returns a frame; use af.suites.select_suites(..., by=...), which always does",
            FutureWarning,
            stacklevel=2,
        )
        from aggframe.predictions import Predictions

        if not isinstance(pr, Predictions):
            msg = f"by= groups predictions; got {type(pr).__name__}"
            raise OptionError(msg)
        return select_suites(pr, candidates, size, op, tol, by=by)
    return _select_suite(_input(pr), candidates, size, op, tol)


def select_suites(
    pr: Predictions,
    candidates: Item | Iterable[Item] | None = None,
    size: int | None = None,
    operator: str = "macro",
    tol: float = 1e-6,
    *,
    by: str | Sequence[str] | None = None,
) -> pl.DataFrame:
    """The best suite per group, as a tidy frame: by..., ``items``, ``volume``, ``rank``, ``method``.

    Parameters
    ----------
    pr
        Predictions.
    candidates, size, operator, tol
        As in :func:`select_suite`.
    by
        Group columns.

    Returns
    -------
    pl.DataFrame
        One row per group, as described above.

    Raises
    ------
    OptionError
        Soft or ordinal predictions, an unknown operator, or ``by=`` on counts.
    UnknownNameError
        An unknown measure.

    Examples
    --------
    >>> import polars as pl, aggframe as af
    >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [0, 1, 2, 1] * 2, "y_pred": [0, 1, 1, 2] * 2})
    >>> af.suites.select_suites(af.from_labels(df), ["recall", "precision"], 1, by="g")["method"].to_list()
    ['exhaustive', 'exhaustive']
    """
    keys, groups, inputs = _groups(pr, by, _SELECT_COLUMNS, "select_suites")
    cands: Item | list[Item] | None = (
        candidates
        if candidates is None or isinstance(candidates, (str, tuple, Measure))
        else list(candidates)
    )
    rows = []
    for key, data in zip(groups, inputs, strict=True):
        s = _select_suite(data, cands, size, operator, tol)
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "items": [_label(p) for p in s.items],
                "volume": s.volume,
                "rank": s.rank,
                "method": s.method,
            }
        )
    return pl.DataFrame(rows, schema_overrides={"items": pl.List(pl.String)})
