"""The HTML report's section of slices (:func:`aggframe.slices`): the chart and the table.

:func:`slices_section` adds, to a page being built (:mod:`aggframe.interop.html_page`), a
heading, one sentence on what was tested and found, the chart of the significant slices
against their complements (:func:`~aggframe.interop.charts.slices.plot_slices`) and the table
of the first slices.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from aggframe.decisions.slice_columns import SLICE_TABLE
from aggframe.interop.charts.slices import plot_slices

__all__ = ["SLICE_TABLE", "slices_section"]


def slices_section(page: Any, slices: pl.DataFrame, *, top: int = 20) -> None:
    """Add the slices' heading, summary, chart and table (the first ``top`` rows) to ``page``."""
    page.heading("Slices")
    tested = slices.filter(pl.col("p_value").is_not_null()).height
    worse = slices.filter(pl.col("significant") & pl.col("worse")).height
    better = slices.filter(pl.col("significant") & ~pl.col("worse")).height
    spec = " ".join(
        str(slices.get_column(c)[0]) for c in ("measure", "operator") if c in slices.columns and slices.height
    )
    page.add(
        f"<p>{tested} slice(s) tested against their complements{f' ({spec})' if spec else ''}: "
        f"{worse} significantly worse, {better} significantly better.</p>"
    )
    if slices.height == 0:
        page.note("No slice had enough examples to be tested.")
        return
    page.chart(plot_slices(slices, top=top))
    shown = slices.head(top).select([c for c in SLICE_TABLE if c in slices.columns])
    page.table(shown, title=f"the first {shown.height} of {slices.height} slices, worst first")
