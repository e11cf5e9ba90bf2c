"""Mergeable cell stores and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.interop.cli import main
from tests.strategies import dense_long

EXAMPLES = Path(__file__).parent.parent.parent / "examples"
FRAME = pl.read_parquet(EXAMPLES / "predictions.parquet")
OPS = ["micro", "macro", "weighted", "exemplar"]


def test_cells_written_and_reread_give_identical_reports(tmp_path: Path) -> None:
    pr = af.from_labels(FRAME, n_classes=6)
    store = pr.write_cells(tmp_path / "s", by=["model", "day"])
    again = af.from_cells(store)
    for by in (["model", "day"], ["model"], None):
        assert_frame_equal(again.evaluate(by=by), pr.evaluate(by=by), abs_tol=1e-12)
    assert again.accuracy() == pytest.approx(pr.accuracy())
    meta = json.loads((Path(store) / "meta.json").read_text())
    assert meta["by"] == ["model", "day"]


def test_stores_of_two_days_add_up_to_both_days(tmp_path: Path) -> None:
    days = FRAME["day"].unique().sort().to_list()
    stores = [
        af.from_labels(FRAME.filter(pl.col("day") == d), n_classes=6).write_cells(tmp_path / d, by="model")
        for d in days
    ]
    union = af.from_labels(FRAME, n_classes=6)
    assert_frame_equal(af.from_cells(stores).evaluate(by="model"), union.evaluate(by="model"), abs_tol=1e-12)
    assert_frame_equal(
        af.from_cells(stores).evaluate(by="model", grouping_sets="rollup"),
        union.evaluate(by="model", grouping_sets="rollup"),
        abs_tol=1e-12,
    )


def test_long_form_masks_targets_and_folds_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    Y, P, M = rng.integers(0, 2, (40, 5)), rng.integers(0, 2, (40, 5)), rng.integers(0, 2, (40, 5))
    frame = dense_long(Y, P, M).with_columns((pl.col("example") % 4).alias("fold"))
    pr = af.from_long(frame, mask="mask", fold="fold")
    store = pr.write_cells(tmp_path / "long")
    kwargs = {"pooling": ["pooled", "averaged", "fold"]}
    assert_frame_equal(af.from_cells(store).evaluate(**kwargs), pr.evaluate(**kwargs), abs_tol=1e-12)
    targets = pl.concat(
        [
            pl.DataFrame(
                {
                    "example": range(30),
                    "target": t,
                    "y_true": rng.integers(0, m, 30),
                    "y_pred": rng.integers(0, m, 30),
                }
            )
            for t, m in (("a", 2), ("b", 3))
        ]
    )
    pt = af.from_labels(targets, example="example", target="target")
    kw = {"operators": ["micro", "macro", "exemplar", "target"], "within": "macro"}
    assert_frame_equal(
        af.from_cells(pt.write_cells(tmp_path / "t")).evaluate(**kw), pt.evaluate(**kw), abs_tol=1e-12
    )


def test_store_errors(tmp_path: Path) -> None:
    with pytest.raises(af.errors.OptionError, match="not an aggframe cell store"):
        af.from_cells(tmp_path)
    store = af.from_labels(FRAME).write_cells(tmp_path / "s", by="model")
    with pytest.raises(af.errors.ColumnNotFoundError, match="not a key of these stored cells"):
        af.from_cells(store).evaluate(by="day")
    with pytest.raises(af.errors.OptionError, match="needs the prediction rows"):
        af.from_cells(store).parts("f1", "exemplar")


def test_cli_main_job_prints_a_report(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "report",
            str(EXAMPLES / "predictions.parquet"),
            "--by",
            "model",
            "--measures",
            "f1,mcc,balanced_accuracy",
            "--operators",
            "micro,macro,weighted,exemplar",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert "transformer" in out
    assert "balanced_accuracy" in out
    assert "scanning" in err


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_cli_formats_and_cells_round_trip(fmt: str, tmp_path: Path) -> None:
    out = tmp_path / f"report.{fmt}"
    assert (
        main(
            [
                "report",
                str(EXAMPLES / "predictions.parquet"),
                "--by",
                "model",
                "--format",
                fmt,
                "-o",
                str(out),
            ]
        )
        == 0
    )
    read = {"csv": pl.read_csv, "json": pl.read_json, "parquet": pl.read_parquet}[fmt]
    direct = read(out)
    assert direct.height == 3 * 21 * 4
    store = tmp_path / "cells"
    assert main(["cells", str(EXAMPLES / "predictions.parquet"), "--by", "model", "-o", str(store)]) == 0
    again = tmp_path / f"again.{fmt}"
    assert main(["report", str(store), "--by", "model", "--format", fmt, "-o", str(again)]) == 0
    assert_frame_equal(read(again), direct, abs_tol=1e-12)


def test_cli_long_form_and_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert (
        main(
            [
                "report",
                str(EXAMPLES / "multilabel.parquet"),
                "--form",
                "long",
                "--n-classes",
                "8",
                "--measures",
                "f1",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["report", str(tmp_path / "missing.parquet")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") <= 2
    assert "not found" in err
    assert main(["report", str(EXAMPLES / "predictions.parquet"), "--measures", "f7x"]) == 2
    assert "unknown measure 'f7x'" in capsys.readouterr().err
    assert main(["report", str(EXAMPLES / "multilabel.parquet"), "--form", "long"]) == 2
    assert "sparse" in capsys.readouterr().err


def test_within_without_a_target_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``within=`` (``--within``) is the operator inside each target: without a target it would be
    ignored, so it is refused, on predictions and on stores written without a target alike.

    Regression: ``aggframe report STORE --within macro`` on a store without a target printed the
    report as if --within had not been given (exit 0).
    """
    pr = af.from_labels(FRAME, y_true="y_true", y_pred="y_pred")
    with pytest.raises(af.errors.OptionError, match="within='macro' is the operator inside each target"):
        pr.evaluate("f1", "macro", within="macro")
    # the default (sums of class values: equal to the last bits only up to the order of a parallel sum)
    assert_frame_equal(pr.evaluate("f1", "macro", within="micro"), pr.evaluate("f1", "macro"), abs_tol=1e-12)
    store = str(pr.write_cells(tmp_path / "store", by="model"))
    with pytest.raises(af.errors.OptionError, match="no target column"):
        af.from_cells(store).evaluate("f1", "macro", by="model", within=["macro", "micro"])
    for within in ("macro", "micro"):  # given on the command line: refused even as the default
        assert main(["report", store, "--measures", "f1", "--within", within]) == 2
        err = capsys.readouterr().err
        assert err.startswith("aggframe: usage error: --within applies to stores written with --target")
