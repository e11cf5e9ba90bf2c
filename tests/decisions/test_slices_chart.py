"""The chart of slices (``plot_slices``) and the HTML report's section."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import aggframe as af
from aggframe.exceptions import ColumnNotFoundError, OptionError

pytest.importorskip("altair")
pytest.importorskip("vl_convert")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def result() -> pl.DataFrame:
    pr = af.from_labels(pl.read_parquet(EXAMPLES / "predictions.parquet"))
    return pr.slices("f1", "macro", columns=["model", "day"], n_boot=20)


def _rows(chart: object) -> list[dict[str, object]]:
    spec = chart.to_dict()  # type: ignore[attr-defined]
    return list(spec["data"]["values"])


def test_significant_slices_in_order_with_intervals(result: pl.DataFrame) -> None:
    chart = af.plot.slices(result)
    rows = _rows(chart)
    significant = result.filter("significant")
    assert [r["slice"] for r in rows] == significant["slice"].to_list()
    assert all(r["low"] <= r["difference"] <= r["high"] for r in rows)  # type: ignore[operator]
    kinds = {r["kind"] for r in rows}
    assert kinds <= {"significantly worse", "significantly better"}
    assert "f1 macro" in str(chart.to_dict())


def test_none_significant_draws_the_first_slices_hollow(result: pl.DataFrame) -> None:
    chart = af.plot.slices(result.with_columns(significant=pl.lit(value=False)), top=3)
    assert len(_rows(chart)) == 3
    assert chart.to_dict()["title"].startswith("no significant slice")
    assert {r["kind"] for r in _rows(chart)} == {"not significant"}


def test_bad_input(result: pl.DataFrame) -> None:
    with pytest.raises(OptionError, match="top"):
        af.plot.slices(result, top=0)
    with pytest.raises(ColumnNotFoundError):
        af.plot.slices(result.drop("difference"))


def test_html_report_section(result: pl.DataFrame, tmp_path: Path) -> None:
    pytest.importorskip("great_tables")
    pr = af.from_labels(pl.read_parquet(EXAMPLES / "predictions.parquet"))
    page = af.write_html_report(tmp_path / "r.html", pr, pr.evaluate("f1", "macro"), slices=result)
    text = page.read_text(encoding="utf-8")
    assert "<h2>Slices</h2>" in text
    worse = result.filter("significant", "worse").height
    assert f"{worse} significantly worse" in text
    empty = af.write_html_report(tmp_path / "e.html", pr, pr.evaluate("f1", "macro"), slices=result.head(0))
    assert "No slice had enough examples" in empty.read_text(encoding="utf-8")
