"""Group comparisons (MetricFrame-like) and file inputs (paths, globs, hive partitions, CSV)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af

EXAMPLES = Path(__file__).parent.parent.parent / "examples"
FRAME = pl.read_parquet(EXAMPLES / "predictions.parquet")


def test_compare_against_separate_evaluations() -> None:
    pr = af.from_labels(FRAME)
    out = pr.compare(["f1", "mcc"], ["micro", "macro"], by="model", reference={"model": "baseline"})
    overall = af.from_labels(FRAME).evaluate(["f1", "mcc"], ["micro", "macro"])
    for row in out.iter_rows(named=True):
        alone = af.from_labels(FRAME.filter(pl.col("model") == row["model"])).compute(
            row["measure"], row["operator"]
        )
        base = af.from_labels(FRAME.filter(pl.col("model") == "baseline")).compute(
            row["measure"], row["operator"]
        )
        ref = overall.filter(pl.col("measure") == row["measure"], pl.col("operator") == row["operator"])[
            "value"
        ].item()
        assert row["value"] == pytest.approx(alone)
        assert row["overall"] == pytest.approx(ref)
        assert row["difference_to_overall"] == pytest.approx(alone - ref)
        assert row["ratio_to_overall"] == pytest.approx(alone / ref)
        assert row["ratio_to_reference"] == pytest.approx(alone / base)
    summary = pr.compare(["f1", "mcc"], ["micro", "macro"], by="model", summary=True)
    for row in summary.iter_rows(named=True):
        values = out.filter(pl.col("measure") == row["measure"], pl.col("operator") == row["operator"])
        assert row["group_min"] == pytest.approx(values["value"].min())
        assert row["group_max"] == pytest.approx(values["value"].max())
        assert row["difference"] == pytest.approx(values["value"].max() - values["value"].min())
        assert row["ratio"] == pytest.approx(values["value"].min() / values["value"].max())
        assert row["argmax"] == values.sort("value")["model"][-1]


def test_compare_ratio_with_zero_is_null_and_errors() -> None:
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 1, 0, 0], "y_pred": [0, 0, 0, 0]})
    out = af.from_labels(df, task="binary").compare("recall", "micro", by="g", reference={"g": "a"})
    assert out.filter(pl.col("g") == "b")["ratio_to_reference"].to_list() == [None]
    with pytest.raises(af.OptionError, match="not in the data"):
        af.from_labels(df).compare("f1", by="g", reference={"g": "z"})
    with pytest.raises(af.OptionError, match="needs by="):
        af.from_labels(df).compare("f1", by=[])


def test_paths_globs_hive_partitions_and_csv(tmp_path: Path) -> None:
    expected = af.from_labels(FRAME).evaluate(["f1", "mcc"], by="model")
    for model in FRAME["model"].unique().to_list():
        part = tmp_path / "hive" / f"model={model}"
        part.mkdir(parents=True)
        FRAME.filter(pl.col("model") == model).drop("model").write_parquet(part / "0.parquet")
    hive = af.from_labels(str(tmp_path / "hive")).evaluate(["f1", "mcc"], by="model")
    assert_frame_equal(hive, expected, abs_tol=1e-12)
    glob = af.from_labels(str(tmp_path / "hive" / "*" / "*.parquet")).evaluate(["f1", "mcc"])
    assert_frame_equal(glob, af.from_labels(FRAME).evaluate(["f1", "mcc"]), abs_tol=1e-12)
    FRAME.write_csv(tmp_path / "p.csv")
    assert_frame_equal(
        af.from_labels(tmp_path / "p.csv").evaluate(["f1", "mcc"], by="model"), expected, abs_tol=1e-12
    )
    with pytest.raises(af.SourceError, match="not found"):
        af.from_labels(str(tmp_path / "nope.parquet"))
    with pytest.raises(af.SourceError, match="unsupported"):
        af.from_labels([tmp_path / "p.csv", EXAMPLES / "predictions.parquet"])


def test_scan_is_lazy(tmp_path: Path) -> None:
    path = tmp_path / "x.parquet"
    pl.DataFrame({"y_true": np.arange(4) % 2, "y_pred": np.ones(4, dtype=int)}).write_parquet(path)
    assert isinstance(af.scan(path), pl.LazyFrame)
