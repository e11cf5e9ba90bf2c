"""Measure suites per group: the Polars side of :mod:`aggframe._suites`.

The suite module is NumPy only and sees one small count table at a time. This
module fetches those tables for every group in one grouped query and returns the
results as a tidy frame (one row per group), so a suite can be checked per
model, day or segment.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from aggframe._columns import check_result_names
from aggframe._measures import Measure
from aggframe._suites import (
    Item,
    SuiteInput,
    SuiteRank,
    SuiteSelection,
    SupportsSuiteInput,
)
from aggframe._suites import select_suite as _select_suite
from aggframe._suites import suite_rank as _suite_rank

__all__ = ["select_suite", "suite_rank"]

_RANK_COLUMNS = ("items", "rank", "degrees_of_freedom", "redundant", "volume", "flat")
_SELECT_COLUMNS = ("items", "volume", "rank", "method")


def _label(pair: tuple[str, str]) -> str:
    return f"{pair[0]}:{pair[1]}"


def _groups(
    pr: Any, by: str | Sequence[str], columns: Sequence[str], what: str
) -> tuple[list[str], list[tuple[Any, ...]], list[SuiteInput]]:
    keys = [by] if isinstance(by, str) else list(by)
    check_result_names(keys, columns, what)
    groups, inputs = pr._suite_inputs(keys)
    return keys, groups, inputs


def suite_rank(
    pr: SuiteInput | SupportsSuiteInput,
    measures: Item | Iterable[Item],
    aggregation: str = "macro",
    tol: float = 1e-6,
    *,
    by: str | Sequence[str] | None = None,
) -> SuiteRank | pl.DataFrame:
    """Rank test of a suite of measures (Remark 2); per group with ``by``.

    Without ``by``: a :class:`SuiteRank` (``items``, ``rank``, ``redundant``,
    ``degrees_of_freedom``, ``volume``, ``singular_values``, ``flat``). With
    ``by``: a tidy frame, one row per group: by..., ``items``, ``rank``,
    ``degrees_of_freedom``, ``redundant``, ``volume``, ``flat``.

    Examples
    --------
    >>> import numpy as np, aggframe as af
    >>> y = np.array([1] * 80 + [0] * 120)
    >>> p = np.array([1] * 60 + [0] * 20 + [1] * 30 + [0] * 90)
    >>> pr = af.from_labels(y, p, task="binary")
    >>> af.suite_rank(pr, ["recall", "fnr"], "micro").rank
    1
    """
    if by is None:
        return _suite_rank(pr, measures, aggregation, tol)
    keys, groups, inputs = _groups(pr, by, _RANK_COLUMNS, "suite_rank")
    items: Item | list[Item] = measures if isinstance(measures, (str, tuple, Measure)) else list(measures)
    rows = []
    for key, data in zip(groups, inputs, strict=True):
        r = _suite_rank(data, items, aggregation, tol)
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
    pr: SuiteInput | SupportsSuiteInput,
    candidates: Item | Iterable[Item] | None = None,
    size: int | None = None,
    aggregation: str = "macro",
    tol: float = 1e-6,
    *,
    by: str | Sequence[str] | None = None,
) -> SuiteSelection | pl.DataFrame:
    """The suite with the largest information volume; per group with ``by``.

    With ``by``: a tidy frame, one row per group: by..., ``items``, ``volume``,
    ``rank``, ``method``.

    Examples
    --------
    >>> import numpy as np, aggframe as af
    >>> y = np.array([1] * 80 + [0] * 120)
    >>> p = np.array([1] * 60 + [0] * 20 + [1] * 30 + [0] * 90)
    >>> af.select_suite(af.from_labels(y, p, task="binary"), aggregation="micro").items
    (('recall', 'micro'), ('specificity', 'micro'))
    """
    if by is None:
        return _select_suite(pr, candidates, size, aggregation, tol)
    keys, groups, inputs = _groups(pr, by, _SELECT_COLUMNS, "select_suite")
    cands: Item | list[Item] | None = (
        candidates
        if candidates is None or isinstance(candidates, (str, tuple, Measure))
        else list(candidates)
    )
    rows = []
    for key, data in zip(groups, inputs, strict=True):
        s = _select_suite(data, cands, size, aggregation, tol)
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
