"""Slices of the measures on scores: each slice and its complement equal ``evaluate`` (and scikit-learn)
on those rows; a slice with worse scores is found; null keys, hostile names, engines, refusals and the
null p-values' rate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import average_precision_score, roc_auc_score

import aggframe as af
from aggframe.decisions import slice_scores
from aggframe.exceptions import OptionError
from aggframe.interop.cli import main

SCORES = ["auroc", "average_precision", "log_loss", "brier", "ece"]
COLUMNS = ["a", "b c", "tp"]  # a blank and a cell's name among the slice columns


def _binary(n: int = 500, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = rng.choice(np.array(["x", "y", "é"], dtype=object), n)
    a[rng.random(n) < 0.2] = None  # a null key is a slice like any other
    b = rng.integers(0, 2, n)
    noise = np.where(b == 1, 2.0, 0.8)  # b c = 1 ranks worse
    z = (2 * y - 1) + rng.normal(0, 1, n) * noise
    return pl.DataFrame(
        {
            "a": pl.Series(a.tolist(), dtype=pl.String),
            "b c": b,
            "tp": rng.integers(0, 2, n).astype(bool),
            "score": 1.0 / (1.0 + np.exp(-z)),
            "y": y,
        }
    )


def _mask(df: pl.DataFrame, row: dict[str, Any], grouping_set: list[str]) -> pl.Series:
    expr = pl.lit(True)
    for c in grouping_set:
        expr = expr & pl.col(c).eq_missing(pl.lit(row[c], dtype=df.schema[c]))
    return df.select(expr).to_series()


def _evaluated(df: pl.DataFrame, **options: Any) -> dict[str, float]:
    got = af.from_scores(df, **options).evaluate(SCORES, options.pop("_op", "micro"))
    return dict(zip(got["measure"], got["value"], strict=True))


@pytest.fixture(scope="module")
def binary_slices() -> dict[str, pl.DataFrame]:
    pr = af.from_scores(_binary(), class_=None)
    return {m: pr.slices(m, columns=COLUMNS, max_depth=2, min_examples=25, n_boot=10, seed=3) for m in SCORES}


def test_values_equal_evaluate_and_sklearn(binary_slices: dict[str, pl.DataFrame]) -> None:
    df = _binary()
    first = binary_slices["auroc"]
    assert first.height > 15
    assert first["a"].is_null().any()  # slices without a, and the null slice of a
    for row in first.iter_rows(named=True):
        mask = _mask(df, row, row["grouping_set"].split(","))
        assert int(mask.sum()) == row["n_examples"]
        inside, outside = df.filter(mask), df.filter(~mask)
        want_in, want_out = _evaluated(inside, class_=None), _evaluated(outside, class_=None)
        for m in SCORES:
            got = binary_slices[m].filter(pl.col("slice") == row["slice"]).row(0, named=True)
            assert got["value"] == pytest.approx(want_in[m]), (m, row["slice"])
            assert got["complement"] == pytest.approx(want_out[m]), (m, row["slice"])
        assert row["value"] == pytest.approx(roc_auc_score(inside["y"], inside["score"]))
        assert row["complement"] == pytest.approx(roc_auc_score(outside["y"], outside["score"]))
        ap = binary_slices["average_precision"].filter(pl.col("slice") == row["slice"]).row(0, named=True)
        assert ap["complement"] == pytest.approx(average_precision_score(outside["y"], outside["score"]))


def test_worse_scores_are_found_in_the_loss_direction(binary_slices: dict[str, pl.DataFrame]) -> None:
    # b c = 1 has noisier scores: lower AUROC and AP, higher log loss and Brier
    for m in SCORES[:4]:
        top = binary_slices[m].row(0, named=True)
        assert top["slice"] == "b c=1", m
        assert top["significant"], m
        assert top["worse"], m
        assert (top["difference"] < 0) == (m in ("auroc", "average_precision")), m


def _multiclass(n: int = 300, k: int = 3, seed: int = 1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    g = np.where(rng.random(n) < 0.15, -1, rng.integers(0, 3, n))
    cls = np.tile(np.arange(k), n)
    y = (cls == np.repeat(truth, k)).astype(int)
    raw = (rng.random(n * k) + 0.6 * y).reshape(n, k)
    return pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), k),
            "class": cls,
            "score": (
                raw / raw.sum(axis=1, keepdims=True)
            ).ravel(),  # probabilities: sklearn's ovr needs them
            "y": y,
            "n": pl.Series([None if v < 0 else int(v) for v in np.repeat(g, k)], dtype=pl.Int64),
        }
    )


@pytest.mark.parametrize("operator", ["macro", "weighted"])
def test_multiclass_slices_equal_evaluate(operator: str) -> None:
    df = _multiclass()
    pr = af.from_scores(df, example="example", decision="argmax")
    out = pr.slices("auroc", operator, columns="n", min_examples=20, n_boot=8)
    assert out.height == 4  # three values and null
    for row in out.iter_rows(named=True):
        mask = df.select(pl.col("n").eq_missing(pl.lit(row["n"], dtype=pl.Int64))).to_series()
        for part, got in ((df.filter(mask), row["value"]), (df.filter(~mask), row["complement"])):
            want = (
                af.from_scores(part, example="example", decision="argmax")
                .evaluate("auroc", operator)["value"]
                .item()
            )
            assert got == pytest.approx(want)
            wide = part.pivot(on="class", index="example", values="score").sort("example")
            truth = part.filter(pl.col("y") == 1).sort("example")["class"]
            average = "macro" if operator == "macro" else "weighted"
            sk = roc_auc_score(truth, wide.drop("example").to_numpy(), multi_class="ovr", average=average)
            assert got == pytest.approx(sk)


def test_engines_agree_for_scores() -> None:
    df = _multiclass(n=150, seed=5)

    def run(native: Any, **options: Any) -> pl.DataFrame:
        pr = af.from_scores(native, example="example", decision="argmax")
        return pr.slices("average_precision", "macro", columns="n", min_examples=20, n_boot=6, **options)

    key = ["grouping_id", "slice"]
    expected = run(df).sort(key)
    assert_frame_equal(run(df.lazy(), engine="streaming").sort(key), expected, abs_tol=1e-12, rel_tol=0)
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    try:
        ducked = run(con.from_arrow(df.to_arrow()))
    finally:
        con.close()
    assert_frame_equal(ducked.sort(key), expected, abs_tol=1e-12, rel_tol=0)


@pytest.mark.slow  # one bootstrap of 60 slices over 3000 rows: seconds
def test_null_p_values_are_not_too_small() -> None:
    """No slice differs: the share of raw p-values <= 0.05 over 60 slices stays near 5% (seeded)."""
    rng = np.random.default_rng(7)
    n = 3000
    y = rng.integers(0, 2, n)
    z = (2 * y - 1) * 0.8 + rng.normal(0, 1, n)
    df = pl.DataFrame({"a": rng.integers(0, 40, n), "b": rng.integers(0, 20, n), "score": z, "y": y})
    out = af.from_scores(df, class_=None).slices(
        "auroc", columns=["a", "b"], max_depth=1, min_examples=40, n_boot=60
    )
    p = out["p_value"].drop_nulls().to_numpy()
    assert p.size == 60
    # Binomial(60, 0.05): 3 +- 1.7; 9 or more has probability 0.3% at 5% (correlated tests: wider)
    assert (p <= 0.05).sum() <= 8
    assert 0.25 <= (p <= 0.5).mean() <= 0.75  # not vacuous: the p-values spread
    assert not out["significant"].any()


def test_refusals_name_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    df = _binary(n=200)
    pr = af.from_scores(df, class_=None)
    with pytest.raises(OptionError, match="micro, macro or weighted"):
        pr.slices("auroc", "exemplar", columns="a")
    monkeypatch.setattr(slice_scores, "MAX_SCORE_ROW_SLICES", 1000)
    with pytest.raises(OptionError, match=r"200 score rows x .* slices .* raise min_examples"):
        pr.slices("auroc", columns=COLUMNS, min_examples=20)
    labels = af.from_labels(df.with_columns(y_true=pl.col("y"), y_pred=pl.col("y")))
    with pytest.raises(OptionError, match="carry scores"):
        labels.slices("auroc", columns="a")
    with pytest.raises(OptionError, match="cluster"):
        pr.slices("auroc", columns="a", cluster="a", n_boot=5)


def test_command_line_reads_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(2)
    n = 300
    y = rng.integers(0, 3, n)
    raw = rng.random((n, 3)) + 0.8 * (np.arange(3) == y[:, None])
    p = raw / raw.sum(axis=1, keepdims=True)
    df = pl.DataFrame({"id": np.arange(n), "g": rng.integers(0, 3, n), "y_true": y})
    df = df.with_columns(*[pl.Series(f"p_{k}", p[:, k]) for k in range(3)])
    path, out = tmp_path / "scores.parquet", tmp_path / "slices.csv"
    df.write_parquet(path)
    argv = ["slices", str(path), "--example", "id", "--scores", "p_*", "--columns", "g"]
    assert (
        main([*argv, "--measure", "log_loss", "--operator", "macro", "--n-boot", "10", "-o", str(out), "-q"])
        == 0
    )
    got = pl.read_csv(out)
    want = af.from_scores(df, example="id", scores=["p_0", "p_1", "p_2"], y_true="y_true").slices(
        "log_loss", "macro", columns="g", n_boot=10
    )
    assert got["slice"].to_list() == want["slice"].to_list()
    assert got["value"].to_list() == pytest.approx(want["value"].to_list())
    assert got["p_value"].to_list() == pytest.approx(want["p_value"].to_list())
