"""The columns :meth:`~aggframe.Predictions.compare` returns: a lean default, every column on request.

``columns="lean"`` (the default) keeps what answers "is this group different
from the one I hold it against": the keys, ``measure``, ``operator``,
``convention``, ``value`` (with ``n_boot``: ``ci_low``, ``ci_high``), then against
the reference group when one is given (``reference``, ``difference_to_reference``)
and otherwise against the overall value (``overall``, ``difference_to_overall``),
with ``n_boot`` that difference's interval, ``_excludes_zero`` and ``level``; and
``n_examples`` where the result has it. ``columns="all"`` keeps every column
(the ratios, standard errors, ``n_entries``, ``n_undefined``, ``n_boot``,
``level`` and, with a reference, the overall ones), as before the lean default.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from aggframe._columns import named
from aggframe._options import CompareColumns

__all__ = ["compare_columns"]

_KEEP = ("measure", "operator", "convention", "value", "ci_low", "ci_high")


def compare_columns(
    frame: pl.DataFrame, keys: Sequence[str], *, reference: bool, columns: CompareColumns
) -> pl.DataFrame:
    """``frame`` (a compare result, the user's key names ``keys``) with the chosen columns, in order."""
    if columns == "all":
        return frame
    against = "reference" if reference else "overall"
    diff = f"difference_to_{against}"
    # a key may share a name with a column the result lacks (``n_examples``, ``ci_low`` without
    # ``n_boot``): the key is that column, named once
    wanted = [
        *keys,
        *_KEEP,
        against,
        diff,
        f"{diff}_ci_low",
        f"{diff}_ci_high",
        f"{diff}_excludes_zero",
        "level",
        "n_examples",
    ]
    present = set(frame.columns)
    # named(): a key may be called ``*`` or ``^x$``, which pl.col would read as a pattern
    return frame.select([named(c) for c in dict.fromkeys(wanted) if c in present])
