"""Measure suites, as ``af.suites.<name>``: which measures carry independent information.

A suite of (measure, operator) pairs is a map from the confusion cells to numbers; its
Jacobian's rank says how many of the pairs are free (at most :func:`degrees_of_freedom`),
and the volume it spans how much they say together (aggmetrics' ``suite_rank`` and
``select_suite``). :func:`suite_ranks` and :func:`select_suites` return a tidy frame (one
row per ``by`` group); :func:`suite_rank`, :func:`select_suite` and :func:`suite_jacobian`
return the objects :class:`SuiteRank`, :class:`SuiteSelection` and an array. These were
``af.suite_rank``, ``af.select_suite``, ... (still working for this release, with a
``FutureWarning``).

Examples
--------
>>> import aggframe as af
>>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
>>> af.suites.suite_rank(pr, ["precision", "recall", "f1"], operator="micro").rank
1
"""

from __future__ import annotations

from aggframe.analysis.coordinates import degrees_of_freedom
from aggframe.analysis.suite_frames import (
    select_suite,
    select_suites,
    suite_jacobian,
    suite_rank,
    suite_ranks,
)
from aggframe.analysis.suites import SuiteInput, SuiteRank, SuiteSelection

__all__ = [
    "SuiteInput",
    "SuiteRank",
    "SuiteSelection",
    "degrees_of_freedom",
    "select_suite",
    "select_suites",
    "suite_jacobian",
    "suite_rank",
    "suite_ranks",
]
