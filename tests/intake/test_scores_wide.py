"""The wide layout of scores (``from_scores(frame, y_true=..., scores=[...])``).

scikit-learn agreement on ``predict_proba`` of a real model (iris, 5-fold
``cross_val_predict``), equality with the long layout it unpivots to (every
decision, ``by=`` with a null key), eager = lazy = streaming, DuckDB and Spark
parity, the class naming rule, and each bad input with its error.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import polars as pl
import polars.selectors as cs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import aggframe as af
from aggframe.intake.scores_wide import class_names

SCORE_MEASURES = ["auroc", "average_precision"]
ALL = ["auroc", "average_precision", "f1", "precision", "recall", "log_loss", "brier", "ece"]


@cache
def _iris() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict

    x, y = load_iris(return_X_y=True)
    proba = cross_val_predict(LogisticRegression(max_iter=300), x, y, cv=5, method="predict_proba")
    return y, proba


def _wide(model: str = "a") -> pl.DataFrame:
    y, proba = _iris()
    return pl.DataFrame({"model": model, "y_true": y, **{f"p_{i}": proba[:, i] for i in range(3)}})


def _value(result: pl.DataFrame, measure: str, operator: str) -> float:
    return float(result.filter(measure=measure, operator=operator)["value"].item())


def _sorted(result: pl.DataFrame) -> pl.DataFrame:
    keys = [c for c in result.columns if c not in ("value",)][:3]
    return result.sort(keys, nulls_last=True)


@pytest.mark.parametrize(
    "scores",
    [["p_0", "p_1", "p_2"], cs.starts_with("p_"), "p_*", "list", "array"],
    ids=["list", "selector", "glob", "list-column", "array-column"],
)
def test_wide_agrees_with_sklearn(scores: Any) -> None:
    y, proba = _iris()
    df = _wide()
    if isinstance(scores, str) and scores in ("list", "array"):
        dtype = pl.List(pl.Float64) if scores == "list" else pl.Array(pl.Float64, 3)
        df = df.select("y_true", pl.Series("proba", proba.tolist(), dtype=dtype))
        scores = "proba"
    pr = af.from_scores(df, y_true="y_true", scores=scores)
    r = pr.evaluate([*SCORE_MEASURES, "f1"], ["micro", "macro", "weighted"])
    onehot = np.eye(3)[y]
    pred = proba.argmax(axis=1)
    expected = {
        ("auroc", "macro"): skm.roc_auc_score(y, proba, multi_class="ovr", average="macro"),
        ("auroc", "weighted"): skm.roc_auc_score(y, proba, multi_class="ovr", average="weighted"),
        ("auroc", "micro"): skm.roc_auc_score(onehot, proba, average="micro"),
        ("average_precision", "macro"): skm.average_precision_score(onehot, proba, average="macro"),
        ("average_precision", "micro"): skm.average_precision_score(onehot, proba, average="micro"),
        ("f1", "macro"): skm.f1_score(y, pred, average="macro"),
        ("f1", "micro"): skm.f1_score(y, pred, average="micro"),
        ("f1", "weighted"): skm.f1_score(y, pred, average="weighted"),
    }
    for (measure, operator), want in expected.items():
        assert _value(r, measure, operator) == pytest.approx(want, abs=1e-12), (measure, operator)
    losses = pr.evaluate(["log_loss", "brier"], ["multiclass"])
    assert _value(losses, "log_loss", "multiclass") == pytest.approx(skm.log_loss(y, proba), abs=1e-12)
    assert _value(losses, "brier", "multiclass") == pytest.approx(skm.brier_score_loss(y, proba), abs=1e-12)
    assert pr.accuracy() == pytest.approx(skm.accuracy_score(y, pred), abs=1e-15)


def _long(df: pl.DataFrame) -> pl.DataFrame:
    """The long layout of a wide frame, by hand (with an example id per row)."""
    return (
        df.with_row_index("example")
        .unpivot(on=cs.starts_with("p_"), index=cs.exclude(cs.starts_with("p_")), variable_name="c")
        .select(
            pl.exclude("c", "value"),
            pl.col("c").str.strip_prefix("p_").cast(pl.Int64).alias("class"),
            pl.col("value").alias("score"),
        )
        .with_columns((pl.col("class") == pl.col("y_true")).cast(pl.Int8).alias("y"))
    )


@pytest.mark.parametrize(
    "decision", [{}, {"decision": "threshold", "threshold": 0.4}, {"decision": "top_k", "k": 2}]
)
def test_wide_equals_long_by_group_with_null_key(decision: dict[str, Any]) -> None:
    df = pl.concat([_wide("a"), _wide("b").with_columns(pl.lit(None, pl.String).alias("model"))])
    df = df.with_columns(pl.col("y_true").cast(pl.Int64))
    long = _long(df)
    wide_pr = af.from_scores(df.lazy(), y_true="y_true", scores=cs.starts_with("p_"), **decision)
    long_pr = (
        af.from_scores(long, decision="argmax", **decision)
        if not decision
        else af.from_scores(long, **decision)
    )
    ops = ["micro", "macro", "weighted", "exemplar"]
    got = wide_pr.evaluate([*ALL[:5], "log_loss"], ops, by="model")
    want = long_pr.evaluate([*ALL[:5], "log_loss"], ops, by="model")
    assert got["model"].null_count() == want["model"].null_count() > 0
    assert_frame_equal(_sorted(got), _sorted(want), abs_tol=1e-12)


def test_wide_eager_lazy_streaming() -> None:
    df = _wide()
    out = [
        af.from_scores(frame, y_true="y_true", scores=["p_0", "p_1", "p_2"]).evaluate(
            ALL, ["micro", "macro"], engine=engine
        )
        for frame, engine in ((df, "in-memory"), (df.lazy(), "in-memory"), (df.lazy(), "streaming"))
    ]
    assert_frame_equal(out[0], out[1], abs_tol=1e-12)
    assert_frame_equal(out[0], out[2], abs_tol=1e-12)


def test_wide_duckdb_parity() -> None:
    duckdb = pytest.importorskip("duckdb")
    df = _wide().with_columns(
        pl.when(pl.col("y_true") == 1).then(None).otherwise(pl.col("model")).alias("model")
    )
    con = duckdb.connect()
    rel = con.from_arrow(df.to_arrow())
    want = af.from_scores(df, y_true="y_true", scores="p_*").evaluate(ALL, ["micro", "macro"], by="model")
    got = af.from_scores(rel, y_true="y_true", scores="p_*").evaluate(ALL, ["micro", "macro"], by="model")
    assert_frame_equal(_sorted(got), _sorted(want), abs_tol=1e-12, check_dtypes=False)
    con.close()


@pytest.mark.slow
def test_wide_spark_parity(spark: Any) -> None:
    df = _wide().with_columns(
        pl.when(pl.col("y_true") == 1).then(None).otherwise(pl.col("model")).alias("model")
    )
    sdf = spark.createDataFrame(df.to_pandas())
    measures = ["auroc", "f1"]  # the scores' ranking and the argmax decision, both over the unpivot
    want = af.from_scores(df, y_true="y_true", scores="p_*").evaluate(measures, ["macro"], by="model")
    got = af.from_scores(sdf, y_true="y_true", scores="p_*").evaluate(measures, ["macro"], by="model")
    assert_frame_equal(_sorted(got), _sorted(want), abs_tol=1e-12, check_dtypes=False)


def test_class_names_rule() -> None:
    assert class_names(["p_0", "p_1", "p_10"]) == ["0", "1", "10"]
    assert class_names(["p_10", "p_11"]) == ["10", "11"]
    assert class_names(["proba.cat", "proba.dog"]) == ["cat", "dog"]
    assert class_names(["x", "y"]) == ["x", "y"]


def test_string_classes_and_classes_option() -> None:
    y, proba = _iris()
    names = np.array(["setosa", "versicolor", "virginica"])
    df = pl.DataFrame({"y_true": names[y], **{f"prob_{n}": proba[:, i] for i, n in enumerate(names)}})
    pr = af.from_scores(df, y_true="y_true", scores=cs.starts_with("prob_"))
    want = skm.roc_auc_score(y, proba, multi_class="ovr", average="macro")
    assert pr.compute("auroc", "macro") == pytest.approx(want, abs=1e-12)
    renamed = df.rename({f"prob_{n}": f"col{i}" for i, n in enumerate(names)})
    pr2 = af.from_scores(renamed, y_true="y_true", scores=["col0", "col1", "col2"], classes=list(names))
    assert pr2.compute("auroc", "macro") == pytest.approx(want, abs=1e-12)


def test_hostile_names() -> None:
    y, proba = _iris()
    df = pl.DataFrame(
        {"class": y, "value": proba[:, 0], "score": proba[:, 1], "y": proba[:, 2], "n": "g", "__af_p0": "h"}
    )
    pr = af.from_scores(df, y_true="class", scores=["value", "score", "y"], classes=[0, 1, 2])
    r = pr.evaluate(["auroc", "f1"], ["macro"], by=["n", "__af_p0"])
    assert r["__af_p0"].to_list() == ["h", "h"]
    want = skm.roc_auc_score(y, proba, multi_class="ovr", average="macro")
    assert _value(r, "auroc", "macro") == pytest.approx(want, abs=1e-12)
    assert r["n"].to_list() == ["g", "g"]


def test_normalize_divides_by_the_row_sum() -> None:
    df = _wide()
    scaled = df.with_columns(cs.starts_with("p_") * pl.Series(np.linspace(0.5, 3, df.height)))
    with pytest.raises(
        af.errors.InvalidValueError, match=r"do not sum to 1 within tolerance=1e-06 \(e\.g\. row .*sum="
    ):
        af.from_scores(scaled, y_true="y_true", scores="p_*")
    got = af.from_scores(scaled, y_true="y_true", scores="p_*", normalize=True).evaluate(ALL, ["macro"])
    want = af.from_scores(df, y_true="y_true", scores="p_*").evaluate(ALL, ["macro"])
    assert_frame_equal(got, want, abs_tol=1e-12)
    loose = af.from_scores(
        df.with_columns(pl.col("p_0") + 1e-4), y_true="y_true", scores="p_*", tolerance=1e-3
    )
    assert loose.compute("auroc", "macro") > 0.9


@pytest.mark.parametrize(
    ("change", "kwargs", "error", "pattern"),
    [
        (
            None,
            {"scores": ["p_0", "p_1", "p_9"]},
            af.errors.ColumnNotFoundError,
            r"column 'p_9' \(role 'scores'\)",
        ),
        (None, {"scores": "q_*"}, af.errors.ColumnNotFoundError, r"'q_\*' matches no column"),
        (
            pl.col("p_1").cast(pl.String),
            {},
            af.errors.InvalidValueError,
            r"column 'p_1' \(role 'scores'\) has dtype String",
        ),
        (
            pl.when(pl.col("y_true") == 2).then(None).otherwise(pl.col("p_1")).alias("p_1"),
            {},
            af.errors.NullValueError,
            r"50 row\(s\) with a null probability \(e\.g\. row y_true=2",
        ),
        (
            pl.when(pl.col("y_true") == 2).then(-0.1).otherwise(pl.col("p_1")).alias("p_1"),
            {},
            af.errors.InvalidValueError,
            r"50 row\(s\) with a negative probability",
        ),
        (
            pl.when(pl.col("y_true") == 2).then(None).otherwise(pl.col("y_true")).alias("y_true"),
            {},
            af.errors.NullValueError,
            r"column 'y_true': 50 null value\(s\)",
        ),
        (
            pl.col("y_true") + 1,
            {},
            af.errors.UnknownClassError,
            r"50 row\(s\) with a class that has no score column",
        ),
        (None, {"scores": "p_0"}, af.errors.OptionError, r"one column per class"),
        (None, {"scores": ["p_0", "p_1", "p_2"], "classes": [0, 1]}, af.errors.OptionError, r"names 2 class"),
        (None, {"class_": "c"}, af.errors.OptionError, r"class_= names a column of the long layout"),
    ],
)
def test_wide_errors(change: Any, kwargs: dict[str, Any], error: type[Exception], pattern: str) -> None:
    df = _wide()
    if change is not None:
        df = df.with_columns(change)
    options = {"y_true": "y_true", "scores": "p_*", **kwargs}
    with pytest.raises(error, match=pattern):
        # a null truth is an unlabelled row (af.estimate reads it): refused when a measure reads it
        af.from_scores(df, **options).evaluate("auroc", "macro")


def test_suffix_that_does_not_parse_as_the_truth() -> None:
    df = _wide().rename({"p_0": "p_a", "p_1": "p_b", "p_2": "p_c"})
    with pytest.raises(
        af.errors.UnknownClassError, match=r"cannot be values of column 'y_true' \(dtype Int64\).*classes="
    ):
        af.from_scores(df, y_true="y_true", scores="p_*")


def test_broken_source(tmp_path: Any) -> None:
    path = tmp_path / "wide.parquet"
    _wide().write_parquet(path)
    lf = af.scan(str(path))
    path.write_bytes(b"PAR1 not parquet")
    with pytest.raises(af.AggframeError, match=r"wide\.parquet"):
        af.from_scores(lf, y_true="y_true", scores="p_*")


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 30),
    m=st.integers(2, 5),
    decision=st.sampled_from(["argmax", "threshold", "top_k"]),
)
def test_wide_equals_long_property(seed: int, n: int, m: int, decision: str) -> None:
    """Random wide tables (ties from small integer counts, null group keys): the long layout's numbers."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 3, size=(n, m)).astype(float) + np.eye(m)[rng.integers(0, m, n)]
    proba = counts / counts.sum(axis=1, keepdims=True)
    keys = rng.choice(np.array(["a", "b", None], dtype=object), size=n)
    df = pl.DataFrame(
        {
            "g": pl.Series(keys.tolist(), dtype=pl.String),
            "y_true": rng.integers(0, m, n),
            **{f"p_{c}": proba[:, c] for c in range(m)},
        }
    )
    options: dict[str, Any] = {"decision": decision}
    if decision == "top_k":
        options["k"] = 2
    got = af.from_scores(df, y_true="y_true", scores="p_*", **options)
    want = af.from_scores(_long(df), **options)
    measures = ["f1", "recall", "auroc", "log_loss"]
    a = got.evaluate(measures, ["micro", "macro"], by="g")
    b = want.evaluate(measures, ["micro", "macro"], by="g")
    assert_frame_equal(_sorted(a), _sorted(b), abs_tol=1e-12)
