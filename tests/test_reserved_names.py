"""A by-column named like an output column: a clear error naming it, or the right result.

Every verb that puts the user's by-columns beside its own columns (evaluate with grouping
sets, lazily, with bootstrap intervals or over windows; compare; monitor; slices; check and
its slice rules; stored cells) is called with a key column named like one of its output
columns. The call either raises an :class:`~aggframe.AggframeError` whose message names the
column, or returns exactly what it returns when the column has a neutral name (renamed back).
Never a raw Polars error.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.exceptions import AggframeError

NEUTRAL = "grp"
N = 48

#: the output columns of the verbs below (and the marks of grouping sets and windows)
RESERVED = (
    "grouping_id",
    "grouping_set",
    "measure",
    "operator",
    "convention",
    "value",
    "n_entries",
    "n_undefined",
    "n_examples",
    "ci_low",
    "ci_high",
    "level",
    "n_boot",
    "window_start",
    "window_end",
    "kind",
    "status",
    "alert",
    "band_low",
    "slice",
    "depth",
    "p_value",
    "rule",
    "group_label",
    "overall",
    "difference_to_overall",
)

#: the verbs that resample (each call a bootstrap) take the names of their own output only
BOOT_VERBS = ("evaluate_boot", "compare_boot", "slices", "check_slices")
BOOT_NAMES = (
    "grouping_id",
    "measure",
    "value",
    "n_examples",
    "ci_low",
    "ci_high",
    "level",
    "n_boot",
    "slice",
)


def _frame(key: str) -> pl.DataFrame:
    rng = np.random.default_rng(7)
    return pl.DataFrame(
        {
            "example": list(range(N)),
            key: ["a", "b", None] * (N // 3),
            "g2": [["x", "y"][(i // 2) % 2] for i in range(N)],
            "day": [dt.datetime(2024, 1, 1) + dt.timedelta(days=i % 6) for i in range(N)],
            "y_true": rng.integers(0, 2, N).tolist(),
            "y_pred": rng.integers(0, 2, N).tolist(),
        }
    )


Call = Callable[[af.Predictions, str], Any]

CALLS: dict[str, Call] = {
    "evaluate_rollup": lambda pr, k: pr.evaluate("f1", by=[k, "g2"], grouping_sets="rollup"),
    "evaluate_lazy": lambda pr, k: pr.evaluate("f1", by=[k], grouping_sets="cube", lazy=True).collect(),
    "evaluate_boot": lambda pr, k: pr.evaluate("f1", by=k, n_boot=5),
    "evaluate_window": lambda pr, k: pr.evaluate("f1", by=k, time="day", every="2d"),
    "compare": lambda pr, k: pr.compare("f1", by=k),
    "compare_summary": lambda pr, k: pr.compare("f1", by=[k, "g2"], control="g2", summary=True),
    "compare_boot": lambda pr, k: pr.compare("f1", by=k, n_boot=5),
    "monitor": lambda pr, k: af.monitor(
        pr, "f1", time="day", every="1d", reference=(dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 4)), by=k
    ),
    "slices": lambda pr, k: af.slices(pr, "f1", columns=[k, "g2"], min_examples=5, n_boot=10),
    "check": lambda pr, k: af.check(pr, [{"measure": "f1", "operator": "micro", "by": k, "min": 0.0}]).frame,
    "check_slices": lambda pr, k: (
        af.check(
            pr, [{"measure": "f1", "operator": "micro", "slices": [k, "g2"], "min_examples": 5, "n_boot": 10}]
        ).frame
    ),
    "stored_cells": lambda pr, k: af.from_cells(pr.to_cells(by=k)).evaluate(
        "f1", by=k, grouping_sets="rollup"
    ),
}


def _run(call: Call, key: str) -> pl.DataFrame | AggframeError:
    """The call's result frame, or the aggframe error it raised."""
    try:
        out = call(af.from_labels(_frame(key)), key)
    except AggframeError as err:
        return err
    assert isinstance(out, pl.DataFrame)
    return out


@pytest.mark.parametrize("verb", sorted(CALLS))
def test_a_key_named_like_an_output_column(verb: str) -> None:
    call = CALLS[verb]
    neutral = _run(call, NEUTRAL)
    assert isinstance(neutral, pl.DataFrame)
    for key in BOOT_NAMES if verb in BOOT_VERBS else RESERVED:
        got = _run(call, key)
        if isinstance(got, AggframeError):
            assert repr(key) in str(got), (verb, key, str(got))
            continue
        # no error: the neutral result with the key renamed, in its column names and in the labels
        # that name it (grouping_set, slice, group_label, message)
        want = neutral.rename({NEUTRAL: key}) if NEUTRAL in neutral.columns else neutral
        texts = [c for c, t in want.schema.items() if t == pl.String and c != key]
        want = want.with_columns(pl.col(texts).str.replace_all(NEUTRAL, key, literal=True))
        assert_frame_equal(got, want, check_exact=False)
