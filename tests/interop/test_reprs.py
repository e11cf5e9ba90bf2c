"""What people read in a terminal or a notebook: reprs that fit a screen, HTML summaries."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import polars as pl
import pytest

import aggframe as af


class _Cells(HTMLParser):
    """The text of a small HTML table, and whether its tags close."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.text: list[str] = []
        self.balanced = True

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        self.balanced &= bool(self.open) and self.open.pop() == tag

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _read(page: str) -> list[str]:
    parser = _Cells()
    parser.feed(page)
    assert parser.balanced
    assert not parser.open
    return parser.text


def _many_classes(m: int = 20) -> af.Predictions:
    rng = np.random.default_rng(0)
    return af.from_labels(rng.integers(0, m, 400), rng.integers(0, m, 400), n_classes=m)


def test_suite_rank_repr_fits_a_screen_and_keeps_the_data() -> None:
    rank = af.suites.suite_rank(
        _many_classes(), ["precision", "recall", "f1", "mcc", "jaccard", "npv", "fpr", "fnr"]
    )
    text = repr(rank)
    assert len(text) < 600
    assert "\n" not in text
    assert len(rank.parameters) == 380
    assert "<380 names: R[0,1]" in text
    assert text.count("R[") == 6  # five first and the last
    assert rank.parameters[-1] in text
    assert "... 2 more ..." in text  # 8 items: 5 shown, 2 cut, the last
    assert len(rank.singular_values) == 8
    cells = _read(rank._repr_html_())
    assert "SuiteRank" in cells
    assert "rank" in cells


def test_short_suites_are_shown_whole() -> None:
    rank = af.suites.suite_rank(
        af.from_labels([0, 1, 1, 0, 1], [0, 1, 0, 0, 1]), ["precision", "recall"], "micro"
    )
    text = repr(rank)
    assert "more" not in text
    assert f"parameters={rank.parameters!r}" in text
    assert "items=(('precision', 'micro'), ('recall', 'micro'))" in text
    selection = af.suites.select_suite(_many_classes(6), ["precision", "recall", "f1"], size=2)
    assert repr(selection).startswith("SuiteSelection(items=(")
    assert "exhaustive" in _read(selection._repr_html_())


def test_predictions_summary_reads_nothing() -> None:
    def boom(s: pl.Series) -> pl.Series:
        msg = "the data was read"
        raise RuntimeError(msg)

    lf = pl.LazyFrame({"t": [0, 1, 2], "p": [0, 1, 1]}).with_columns(
        pl.col("t").map_batches(boom, return_dtype=pl.Int64)
    )
    pr = af.from_labels(lf, y_true="t", y_pred="p")
    summary = pr.summary()
    assert summary["classes"] == "those seen in the data (not read yet)"
    assert summary["read"] == "nothing yet"
    assert summary["roles"] == "y_true='t', y_pred='p'"
    long = af.from_long(pl.LazyFrame({"example": [0], "class": [0], "y": [1], "p": [1]}))
    assert "inferred from the data when first read" in long.summary()["task"]
    long.evaluate("f1")
    assert long.summary()["task"] == "multiclass (inferred from the data)"
    assert long.summary()["read"] == "(all)"


def test_predictions_repr_is_one_line_and_reads_nothing() -> None:
    """repr is the summary on one line: a declared universe by its size, never its classes.

    Regression: the dataclass repr printed every declared class (689k characters at 10^5).
    """

    def boom(s: pl.Series) -> pl.Series:
        msg = "the data was read"
        raise RuntimeError(msg)

    lf = pl.LazyFrame({"t": [0, 1, 2], "p": [0, 1, 1]}).with_columns(
        pl.col("t").map_batches(boom, return_dtype=pl.Int64)
    )
    text = repr(af.from_labels(lf, y_true="t", y_pred="p", classes=list(range(100_000))))
    assert text.startswith("Predictions(form='labels', task='multiclass'")
    assert "classes='100000 (declared)'" in text
    assert len(text) < 300
    assert "\n" not in text
    assert repr(af.from_ordinal([0, 1, 2], [0, 2, 2])).startswith("OrdinalPredictions(form='long'")


def test_predictions_html_names_roles_source_and_universe(tmp_path: object) -> None:
    frame = pl.DataFrame({"<b>&": [0, 1, 2, 2], "y'": [0, 2, 2, 1], "*": ["a", None, "a", "b"]})
    pr = af.from_labels(frame, y_true="<b>&", y_pred="y'", classes=[0, 1, 2, 3])
    page = pr._repr_html_()
    assert "<b>&" not in page.replace("<b>Predictions</b>", "")  # escaped
    cells = _read(page)
    assert "4 (declared)" in cells
    assert "y_true='<b>&', y_pred=\"y'\"" in cells
    assert "the frame" in cells
    pr.evaluate("f1", by="*")
    assert "'*'" in pr.summary()["read"]


@pytest.mark.parametrize("form", ["labels", "cells"])
def test_summary_of_files_and_stores(form: str, tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "p.parquet"
    pl.DataFrame({"y_true": [0, 1, 2], "y_pred": [0, 1, 1]}).write_parquet(path)
    pr = af.from_labels(str(path))
    if form == "cells":
        pr = af.from_cells(pr.write_cells(Path(str(tmp_path)) / "store"))
    summary = pr.summary()
    assert summary["form"] == form
    assert ("p.parquet" if form == "labels" else "cell store") in summary["source"]
