"""The slice result's columns are named once: the command line's printed table and the HTML
report's table show the same columns, in the result's order."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import aggframe as af
from aggframe.decisions.slice_columns import SLICE_COLUMNS, SLICE_TABLE
from aggframe.interop.cli import main
from tests.interop.test_cli_errors import PREDICTIONS


class _Page:
    """The parts of an HTML page the slices section writes to, kept."""

    def __init__(self) -> None:
        self.tables: list[pl.DataFrame] = []

    def table(self, frame: pl.DataFrame, **_: Any) -> None:
        self.tables.append(frame)

    def heading(self, *_: Any, **__: Any) -> None: ...

    def add(self, *_: Any, **__: Any) -> None: ...

    def note(self, *_: Any, **__: Any) -> None: ...

    def chart(self, *_: Any, **__: Any) -> None: ...


def _printed_columns(out: str) -> list[str]:
    header = next(line for line in out.splitlines() if "slice" in line and "n_examples" in line)
    return [c.strip() for c in header.strip("│ ").split("┆")]


def test_the_printed_and_the_html_tables_show_the_same_columns(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("altair")
    args = ["slices", PREDICTIONS, "--columns", "model", "--measure", "f1", "--operator", "macro"]
    assert main([*args, "--n-boot", "5", "--max-depth", "1", "-q"]) == 0
    printed = _printed_columns(capsys.readouterr().out)
    result = af.from_labels(pl.read_parquet(PREDICTIONS)).slices(
        "f1", "macro", columns=["model"], n_boot=5, max_depth=1
    )
    from aggframe.interop.html_slices import slices_section

    page = _Page()
    slices_section(page, result)
    assert printed == page.tables[0].columns == list(SLICE_TABLE)
    assert [c for c in SLICE_COLUMNS if c in SLICE_TABLE] == list(SLICE_TABLE)
    assert result.columns[-len(SLICE_COLUMNS) :] == list(SLICE_COLUMNS)
