"""Targets with folds: every example has a row in every target of its group, over its folds."""

from __future__ import annotations

import polars as pl
import pytest

import aggframe as af

ROWS = pl.DataFrame(
    {
        "example": [0, 1, 2, 0, 1],
        "target": ["a", "a", "a", "b", "b"],
        "y_true": [0, 1, 1, 0, 1],
        "y_pred": [0, 1, 0, 0, 0],
        "f": [0, 0, 1, 0, 0],
    }
)


def _predictions(rows: pl.DataFrame, form: str) -> af.Predictions:
    if form == "labels":
        return af.from_labels(rows, example="example", target="target", fold="f")
    long = rows.join(pl.DataFrame({"class": [0, 1]}), how="cross").with_columns(
        (pl.col("class") == pl.col("y_true")).cast(pl.Int8).alias("y"),
        (pl.col("class") == pl.col("y_pred")).cast(pl.Int8).alias("p"),
    )
    return af.from_long(
        long, example="example", class_="class", y="y", p="p", target="target", fold="f", n_classes=2
    )


@pytest.mark.parametrize("form", ["labels", "long"])
def test_a_target_absent_from_a_whole_fold_is_refused(form: str) -> None:
    """Target b with no row in fold 1: refused without the fold column ("targets are not on the
    same examples"), but with fold= it was evaluated (pooled target:micro 0.583, fold 1's target
    mean over one target). Refused the same way now."""
    with pytest.raises(af.errors.InvalidValueError, match="the targets are not on the same examples"):
        _predictions(ROWS, form).evaluate("recall", ["target", "micro"], pooling=["pooled", "fold"])
    whole = _predictions(ROWS.filter(pl.col("example") < 2), form)  # every example in both targets
    assert whole.evaluate("recall", "target", pooling="fold").height == 1


def test_a_target_without_an_entry_in_a_per_target_universe_is_named() -> None:
    """n_classes={"a": 2} with targets a and b said "declared 0 classes: []" for target b."""
    rows = ROWS.filter(pl.col("example") < 2)
    pr = af.from_labels(rows, example="example", target="target", n_classes={"a": 2})
    with pytest.raises(af.errors.UnknownClassError, match="classes/n_classes have no entry for target 'b'"):
        pr.evaluate("recall", "target")
