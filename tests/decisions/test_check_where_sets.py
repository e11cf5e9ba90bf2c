"""Rules with ``where`` filters, different by-columns and operators in one check: each grouping
set is evaluated with its own rules only, and every verdict equals the rule checked alone on the
rows its filter keeps (values, n_examples, statuses)."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from tests.decisions.test_checks import groups_frame

RULES: list[dict[str, Any]] = [
    {"measure": "f1", "operator": "macro", "by": "g", "min": 0.8},
    {"measure": "recall", "operator": "micro", "by": "g", "where": "day <> 1", "min": 0.8},
    {"measure": "mcc", "operator": "multiclass", "where": "day = 2", "min": 0.5},  # no cell rule in its set
    {"measure": "precision", "operator": "weighted", "by": ["g", "day"], "where": "g < 3", "min": 0.7},
    {"measure": "f1", "operator": "macro", "where": "day <> 1", "min": 0.9, "severity": "warn"},
    {
        "measure": "recall",
        "operator": "macro",
        "by": "g",
        "where": "day <> 1",
        "n_boot": 20,
        "on": "ci_low",
        "min": 0.5,
    },
]
FILTERS = {"day <> 1": pl.col("day") != 1, "day = 2": pl.col("day") == 2, "g < 3": pl.col("g") < 3}
SHOWN = ["value", "ci_low", "ci_high", "n_examples", "status", "message"]


def _data() -> pl.DataFrame:
    data = groups_frame(6, 60, bad=2, seed=3).with_columns(
        day=pl.col("example") % 3, example=pl.int_range(pl.len(), dtype=pl.Int64)
    )
    # a null group and a null day: real groups of their own
    return data.with_columns(
        pl.when(pl.col("example") % 50 == 5).then(None).otherwise(pl.col("g")).alias("g"),
        pl.when(pl.col("example") % 40 == 7).then(None).otherwise(pl.col("day")).alias("day"),
    )


@pytest.mark.parametrize("i", range(len(RULES)))
def test_each_rule_as_if_alone_on_its_rows(i: int) -> None:
    data = _data()
    together = af.check(af.from_labels(data, example="example"), RULES).frame
    rule = dict(RULES[i])
    kept = data.filter(FILTERS[rule.pop("where")]) if "where" in rule else data
    alone = af.check(af.from_labels(kept, example="example"), [rule]).frame
    keys = [k for k in ("g", "day") if k in alone.columns]
    got = together.filter(pl.col("rule") == i + 1).select(*keys, *SHOWN).sort(keys, nulls_last=True)
    want = alone.select(*keys, *SHOWN).sort(keys, nulls_last=True)
    assert got.height > 0
    assert_frame_equal(got, want, check_dtypes=False, abs_tol=1e-12)
