"""Grouping sets (SQL ROLLUP / CUBE) from one scan: cell tables roll up exactly.

The cell tables of the finest grouping (e.g. model x day) are sums; summing
them over a by-column gives exactly the cell tables of the coarser grouping
(model), down to the overall table. So every grouping set of a report is a
small group-by over the finest tables, never another scan of the input. The
exemplar operator's profiles roll up the same way (their counts add).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from aggframe.exceptions import OptionError
from aggframe.tables.cells import rollup_tables

__all__ = ["GROUPING_COLUMN", "GROUPING_ID", "resolve_grouping_sets", "rollup_tables"]


#: The result column naming the by-columns each row is grouped by ("" for the overall row).
GROUPING_COLUMN = "grouping_set"


#: SQL's GROUPING_ID: bit ``n - 1 - i`` set when the ``i``-th by-column is rolled up, so a
#: rolled-up key (null) is told from a real null key even when names are empty or hold commas.
GROUPING_ID = "grouping_id"


def resolve_grouping_sets(spec: str | Sequence[Sequence[str]], by: Sequence[str]) -> list[list[str]]:
    """``"rollup"``, ``"cube"`` or explicit lists of by-columns, finest first."""
    cols = list(by)
    if isinstance(spec, str):
        kind = spec.strip().lower()
        if kind == "rollup":
            return [cols[:i] for i in range(len(cols), -1, -1)]
        if kind == "cube":
            return [list(c) for r in range(len(cols), -1, -1) for c in combinations(cols, r)]
        msg = f"unknown grouping_sets {spec!r}; expected 'rollup', 'cube' or a list of column lists"
        raise OptionError(msg)
    if not isinstance(spec, (list, tuple)) or not all(
        isinstance(s, (list, tuple)) and all(isinstance(c, str) for c in s) for s in spec
    ):
        # ["model"] was read as the set ['m', 'o', 'd', 'e', 'l']; 5 was a raw TypeError
        msg = (
            f"grouping_sets takes 'rollup', 'cube' or a list of column lists, e.g. [['model', 'day'], "
            f"['model'], []], got {spec!r}"
        )
        raise OptionError(msg)
    sets = [list(s) for s in spec]
    for i, s in enumerate(sets):
        if len(set(s)) != len(s):
            msg = f"grouping set {s!r} names a column twice"
            raise OptionError(msg)
        if any(set(s) == set(t) for t in sets[:i]):
            msg = f"grouping set {s!r} is given twice (its rows would be reported twice)"
            raise OptionError(msg)
    for s in sets:
        extra = [c for c in s if c not in cols]
        if extra:
            msg = f"grouping set {s!r} names {extra[0]!r}, which is not among the by columns {cols!r}"
            raise OptionError(msg)
    if not sets:
        msg = "Expected at least one grouping set"
        raise OptionError(msg)
    return sets
