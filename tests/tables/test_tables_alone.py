"""Each cell table's plan collected on its own (not with the others in one ``collect_all``):
Polars 2.x panicked in its common-subplan optimizer (``cse/cache_states.rs``) on a plan whose
root was a cache (the ``groups`` table of every form). Each table alone equals the table the
one collect gives."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af

TABLES = ("classes", "profiles", "groups", "universe", "block_profiles", "pairs")


def _sources() -> dict[str, Any]:
    g = pl.Series([None if i % 7 == 0 else ["a", "b"][i % 2] for i in range(40)], dtype=pl.String)
    lab = pl.DataFrame(
        {"example": range(40), "g": g, "y_true": [0, 1, 1, 2] * 10, "y_pred": [0, 1, 2, 2] * 10}
    )
    long = pl.DataFrame(
        {
            "example": [i // 2 for i in range(40)],
            "class": ["a", "b"] * 20,
            "g": ["u"] * 20 + [None] * 20,
            "y": [1.0, 0, 0, 1] * 10,
            "p": [1.0, 0, 1, 0] * 10,
        }
    )
    targets = lab.with_columns(
        target=pl.Series(["t1", "t2"] * 20),
        example=pl.Series([i // 2 for i in range(40)]),
        g=pl.Series([None if i % 8 < 2 else ["a", "b"][(i // 2) % 2] for i in range(40)], dtype=pl.String),
    )
    p = np.linspace(0, 1, 40)
    scores = pl.DataFrame({"example": range(40), "g": g, "y_true": [0, 1, 1, 0] * 10, "p0": p, "p1": 1 - p})
    return {
        "labels": af.from_labels(lab),
        "binary": af.from_labels(
            lab.filter(pl.col("y_true") < 2, pl.col("y_pred") < 2), task="binary", pos_label=1
        ),
        "long": af.from_long(long),
        "targets": af.from_labels(targets, target="target", example="example"),
        "scores": af.from_scores(scores, y_true="y_true", scores=["p0", "p1"], classes=[0, 1]),
    }


@pytest.mark.parametrize("form", ["labels", "binary", "long", "targets", "scores"])
@pytest.mark.parametrize("by", [(), ("g",)], ids=["whole", "by_g"])
def test_each_table_collects_alone(form: str, by: tuple[str, ...]) -> None:
    pr = _sources()[form]
    if by and "g" not in pr.source.columns():
        pytest.skip("no g column")
    together = pr.extend.store_tables(list(by)) if form != "binary" else pr.extend.cell_tables(list(by))
    lazy = pr._source_tables(by, pairs=form != "binary")
    for name in TABLES:
        plan = getattr(lazy, name)
        if plan is None:
            continue
        want = getattr(together, name).collect()
        for engine in ("in-memory", "streaming"):
            got = plan.collect(engine=engine)
            assert_frame_equal(got, want, check_row_order=False, check_dtypes=False)
