"""``aggframe slices``: the table, the written frame, and failures as one line with exit code 2."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import aggframe as af
from aggframe.interop.cli import main
from tests.interop.test_cli_errors import PREDICTIONS, fails

BASE = ["slices", PREDICTIONS, "--columns", "model,day", "--measure", "f1", "--operator", "macro"]


def test_writes_the_slices_frame(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "slices.csv"
    assert main([*BASE, "--n-boot", "20", "--seed", "3", "--correction", "bh", "-o", str(out), "-q"]) == 0
    assert capsys.readouterr().err == ""
    got = pl.read_csv(out, schema_overrides={"model": pl.String, "day": pl.String})
    want = af.from_labels(pl.read_parquet(PREDICTIONS)).slices(
        "f1", "macro", columns=["model", "day"], n_boot=20, seed=3, correction="bh"
    )
    assert got.columns == want.columns
    assert got["slice"].to_list() == want["slice"].to_list()
    assert got["p_adjusted"].to_list() == pytest.approx(want["p_adjusted"].to_list())


def test_prints_a_short_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--n-boot", "20", "--max-depth", "1"]) == 0
    out, err = capsys.readouterr()
    assert "model=baseline" in out
    assert "p_adjusted" in out
    assert "grouping_id" not in out
    assert "slices tested" in err


@pytest.mark.parametrize(
    ("extra", "kind", "words"),
    [
        (["--by", "model"], "usage", "--columns"),
        (["--measure", "auroc"], "usage", "scores"),
        (["--columns", "example"], "usage", "max_levels"),
        (["--columns", "nope"], "input", "'nope'"),
        (["--correction", "none"], "usage", "correction"),
        (["--alpha", "2"], "usage", "alpha"),
        (["--format", "parquet"], "usage", "-o FILE"),
    ],
)
def test_failures_are_one_line(
    extra: list[str], kind: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = fails(capsys, [*BASE, "--n-boot", "5", *extra], kind)
    assert words in line


HTML_DEPS = all(
    __import__("importlib").util.find_spec(m) is not None for m in ("altair", "vl_convert", "great_tables")
)


@pytest.mark.skipif(not HTML_DEPS, reason="the plot extra is not installed")
def test_html_has_the_slices_section(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "slices.html"
    assert main([*BASE, "--n-boot", "20", "--html", str(out), "-q"]) == 0
    capsys.readouterr()
    text = out.read_text(encoding="utf-8")
    assert "<h2>Slices</h2>" in text
    assert "significantly worse" in text
    assert "model=baseline" in text
    assert "https://" not in text


def test_a_broken_source_is_an_input_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "broken.parquet"
    bad.write_bytes(b"PAR1 this is not a parquet file")
    line = fails(
        capsys, ["slices", str(bad), "--columns", "model", "--measure", "f1", "--n-boot", "5"], "input"
    )
    assert "broken.parquet" in line or "could not read" in line
