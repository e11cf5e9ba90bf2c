"""The columns of a slice search's result (:func:`~aggframe.slices`), named once.

:data:`SLICE_COLUMNS` follows the slice columns and the grouping-set marks in every result;
:data:`SLICE_TABLE` is the part a reader looks at first, the table the command line prints
and the HTML report shows (``-o`` and the Parquet/CSV/JSON formats keep every column). A
light module: the command line and the report read it without loading the search.
"""

from __future__ import annotations

__all__ = ["SLICE_COLUMNS", "SLICE_TABLE"]

#: The result's columns after the slice columns and the grouping-set marks.
SLICE_COLUMNS = (
    "slice",
    "depth",
    "measure",
    "operator",
    "convention",
    "n_examples",
    "value",
    "complement",
    "difference",
    "ci_low",
    "ci_high",
    "se",
    "p_value",
    "p_adjusted",
    "significant",
    "worse",
    "n_boot",
)

#: The columns shown first: the printed table of ``aggframe slices``, the HTML report's table.
SLICE_TABLE = (
    "slice",
    "n_examples",
    "value",
    "complement",
    "difference",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "significant",
)
