"""The ``aggframe`` namespace on Polars frames: registered on import, stateless, chains."""

from __future__ import annotations

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal

import aggframe as af


def _labels(n: int = 300, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "model": rng.choice(["a", "b"], n),
            "day": rng.integers(1, 4, n),
            "truth": rng.integers(0, 4, n),
            "guess": rng.integers(0, 4, n),
        }
    )


def _long(n_examples: int = 80, n_classes: int = 5, seed: int = 1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "ex": np.repeat(np.arange(n_examples), n_classes),
            "label": np.tile(np.arange(n_classes), n_examples),
            "t": rng.integers(0, 2, n_examples * n_classes),
            "q": rng.integers(0, 2, n_examples * n_classes),
        }
    )


def test_registered_on_import() -> None:
    assert isinstance(pl.LazyFrame({"a": [1]}).aggframe, af.AggframeNamespace)
    assert isinstance(pl.DataFrame({"a": [1]}).aggframe, af.AggframeNamespace)


def test_labels_chain_equals_from_labels() -> None:
    lf = _labels().lazy()
    chained = (
        lf.filter(pl.col("day") > 1)
        .with_columns(pl.col("guess").clip(0, 2))
        .aggframe.labels(y_true="truth", y_pred="guess", n_classes=4)
        .evaluate(["f1", "mcc"], ["micro", "macro"], by="model")
    )
    direct = af.from_labels(
        lf.filter(pl.col("day") > 1).with_columns(pl.col("guess").clip(0, 2)),
        y_true="truth",
        y_pred="guess",
        n_classes=4,
    ).evaluate(["f1", "mcc"], ["micro", "macro"], by="model")
    assert_frame_equal(chained, direct)
    # and against scikit-learn, so the chain is not merely equal to itself
    from sklearn.metrics import f1_score

    kept = _labels().filter(pl.col("day") > 1).with_columns(pl.col("guess").clip(0, 2))
    for model in ("a", "b"):
        part = kept.filter(pl.col("model") == model)
        want = f1_score(
            part["truth"], part["guess"], average="macro", labels=[0, 1, 2, 3], zero_division=np.nan
        )
        got = chained.filter(
            (pl.col("model") == model) & (pl.col("measure") == "f1") & (pl.col("operator") == "macro")
        )
        assert abs(got["value"].item() - want) < 1e-12


def test_dataframe_namespace_too() -> None:
    df = _labels()
    got = df.aggframe.labels(y_true="truth", y_pred="guess").evaluate("recall", "weighted", by="day")
    want = af.from_labels(df, y_true="truth", y_pred="guess").evaluate("recall", "weighted", by="day")
    assert_frame_equal(got, want)


def test_long_chain_equals_from_long() -> None:
    lf = _long().lazy()
    chained = (
        lf.filter(pl.col("ex") < 60)
        .aggframe.long(example="ex", class_="label", y="t", p="q")
        .evaluate(["precision", "f1"], ["micro", "macro", "exemplar"])
    )
    direct = af.from_long(lf.filter(pl.col("ex") < 60), example="ex", class_="label", y="t", p="q").evaluate(
        ["precision", "f1"], ["micro", "macro", "exemplar"]
    )
    assert_frame_equal(chained, direct)


def test_options_reach_the_constructor() -> None:
    import pytest

    with pytest.raises(af.errors.ColumnNotFoundError, match="nope"):
        _labels().lazy().aggframe.labels(y_true="nope", y_pred="guess").evaluate("f1", "micro")
