"""Grouping sets from one scan: every rolled-up row equals a separate evaluation."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af

FRAME = pl.read_parquet("examples/predictions.parquet")
MEASURES = ["f1", "mcc", "precision"]
OPS = ["micro", "macro", "weighted", "exemplar"]


@pytest.mark.parametrize("spec", ["rollup", "cube", [["model"], []]])
def test_grouping_set_rows_equal_separate_evaluations(spec: object) -> None:
    pr = af.from_labels(FRAME)
    out = pr.evaluate(MEASURES, OPS, by=["model", "day"], grouping_sets=spec)  # type: ignore[arg-type]
    sets = out["grouping_set"].unique().to_list()
    for gs in sets:
        keys = [c for c in gs.split(",") if c]
        rows = out.filter(pl.col("grouping_set") == gs)
        alone = af.from_labels(FRAME).evaluate(MEASURES, OPS, by=keys or None)
        mine = rows.drop("grouping_set", *[c for c in ("model", "day") if c not in keys])
        assert_frame_equal(mine.sort(pl.all()), alone.sort(pl.all()), check_column_order=False, abs_tol=1e-12)
    if spec == "cube":
        assert sorted(sets) == ["", "day", "model", "model,day"]


def test_grouping_sets_are_one_scan() -> None:
    import re

    plan = af.from_labels(pl.scan_parquet("examples/predictions.parquet")).evaluate(
        by=["model", "day"], grouping_sets="rollup", lazy=True
    )
    assert len(re.findall(r"SCAN \[", plan.explain())) == 1


def test_grouping_set_errors() -> None:
    pr = af.from_labels(FRAME)
    with pytest.raises(af.OptionError, match="not among the by columns"):
        pr.evaluate("f1", by="model", grouping_sets=[["day"]])
    with pytest.raises(af.OptionError, match="rollup"):
        pr.evaluate("f1", by="model", grouping_sets="pivot")
