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
        mine = rows.drop("grouping_set", "grouping_id", *[c for c in ("model", "day") if c not in keys])
        assert_frame_equal(mine.sort(pl.all()), alone.sort(pl.all()), check_column_order=False, abs_tol=1e-12)
    if spec == "cube":
        assert sorted(sets) == ["", "day", "model", "model,day"]


@pytest.mark.parametrize("n_classes", [None, 6])
def test_grouping_sets_are_one_scan(n_classes: int | None) -> None:
    import re

    def scans(**options: object) -> int:
        pr = af.from_labels(pl.scan_parquet("examples/predictions.parquet"), n_classes=n_classes)
        return len(re.findall(r"SCAN \[", pr.evaluate(by=["model", "day"], lazy=True, **options).explain()))

    # the rolled-up sets are sums of the finest cell tables: as many reads as one grouping
    # (the label form's grains read the source each: two group-bys, or, with a small declared
    # universe, one of the (y_true, y_pred) pairs)
    assert scans(grouping_sets="rollup") == scans() == (2 if n_classes is None else 1)


def test_grouping_set_errors() -> None:
    pr = af.from_labels(FRAME)
    with pytest.raises(af.errors.OptionError, match="not among the by columns"):
        pr.evaluate("f1", by="model", grouping_sets=[["day"]])
    with pytest.raises(af.errors.OptionError, match="rollup"):
        pr.evaluate("f1", by="model", grouping_sets="pivot")


def test_group_universe_equals_separate_evaluation() -> None:
    frame = pl.DataFrame(
        {
            "g": ["a"] * 5 + ["b"] * 5,
            "y_true": [0, 1, 0, 1, 1, 2, 3, 4, 2, 3],
            "y_pred": [0, 1, 1, 1, 0, 2, 4, 4, 3, 3],
        }
    )
    grouped = af.from_labels(frame, class_universe="group").evaluate(["f1", "specificity"], OPS, by="g")
    for g in ("a", "b"):
        alone = af.from_labels(frame.filter(pl.col("g") == g)).evaluate(["f1", "specificity"], OPS)
        assert_frame_equal(grouped.filter(pl.col("g") == g).drop("g"), alone, abs_tol=1e-12)
    # the global universe keeps the other group's classes: absent there, they count
    glob = af.from_labels(frame).evaluate("recall", "macro", by="g")
    assert glob["n_entries"].to_list() == [5, 5]
    assert glob["n_undefined"].to_list() == [3, 2]


def test_group_universe_long_form_and_errors() -> None:
    import numpy as np

    from tests.strategies import dense_long

    a = dense_long(np.eye(2)[[0, 1, 0]], np.eye(2)[[0, 1, 1]]).with_columns(g=pl.lit("a"))
    b = dense_long(np.eye(3)[[0, 1, 2]], np.eye(3)[[0, 2, 2]]).with_columns(
        g=pl.lit("b"), **{"class": pl.col("class") + 2}
    )
    frame = pl.concat([a, b.select(a.columns)])
    out = af.from_long(frame, class_universe="group").evaluate("f1", "macro", by="g")
    assert out["n_entries"].to_list() == [2, 3]
    with pytest.raises(af.errors.SparseInputError):
        af.from_long(frame).evaluate("f1", "macro", by="g")
    with pytest.raises(af.errors.OptionError, match="declared classes"):
        af.from_labels(FRAME, class_universe="group", n_classes=6)
    with pytest.raises(af.errors.OptionError, match="'global' or 'group'"):
        af.from_labels(FRAME, class_universe="local")  # type: ignore[arg-type]
