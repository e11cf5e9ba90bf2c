"""Rolling estimate windows (``period`` longer than ``every``) of point estimates: the scan stays keyed by
slot and its small tables are summed into the windows. The result equals the row spread (each row joined
into each of its windows, the path that draws take) for every measure, operator and decision, with null
keys, hostile by-names, labelled and unlabelled rows; on DuckDB too (the spread needs Polars)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.exceptions import InvalidValueError

DAY0 = dt.date(2024, 3, 4)
#: hostile by-names: a result column's neighbour, the window index's private name, quotes and unicode
KEY = "__af_est_window"
POINT = ["value", "n_examples", "labelled_share"]


def _days(rng: np.random.Generator, n: int) -> list[dt.date]:
    return [DAY0 + dt.timedelta(days=int(d)) for d in rng.integers(0, 12, size=n)]


def _binary(seed: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < s**2).astype(np.int64)
    return pl.DataFrame(
        {
            "score": s,
            "y": pl.Series(y).set(pl.Series(rng.uniform(size=n) < 0.4), None),  # some unlabelled
            "day": _days(rng, n),
            KEY: [("a", None)[i] for i in rng.integers(0, 2, size=n)],
        }
    )


def _multiclass(seed: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet([2.0, 1.0, 0.5], size=n)
    y = (rng.uniform(size=n)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    return pl.DataFrame(
        {
            "y_true": pl.Series(np.array(["a", "b", "c"])[np.minimum(y, 2)]).set(
                pl.Series(rng.uniform(size=n) < 0.3), None
            ),
            "p_a": p[:, 0],
            "p_b": p[:, 1],
            "p_c": p[:, 2],
            "day": _days(rng, n),
            'a "b" é': pl.Series([1, None] * (n // 2), dtype=pl.Int64),
        }
    )


CASES: dict[str, dict[str, Any]] = {
    "binary": {
        "frame": _binary,
        "read": {"class_": None},
        "measures": ["f1", "precision", "auroc", "log_loss", "brier"],
        "operators": ["binary"],
        "by": KEY,
    },
    "argmax": {
        "frame": _multiclass,
        "read": {"y_true": "y_true", "scores": ["p_a", "p_b", "p_c"], "decision": "argmax"},
        "measures": ["f1", "recall", "auroc", "log_loss"],
        "operators": ["macro", "micro", "weighted"],
        "by": 'a "b" é',
    },
    "top_k": {
        "frame": _multiclass,
        "read": {"y_true": "y_true", "scores": ["p_a", "p_b", "p_c"], "decision": "top_k", "k": 2},
        "measures": ["f1", "brier"],
        "operators": ["macro", "micro"],
        "by": 'a "b" é',
    },
    "threshold": {
        "frame": _multiclass,
        "read": {"y_true": "y_true", "scores": ["p_a", "p_b", "p_c"], "decision": "threshold"},
        "measures": ["f1", "precision", "brier"],
        "operators": ["macro", "micro", "weighted"],
        "by": 'a "b" é',
    },
}


def _run(case: str, source: Any, **kw: Any) -> pl.DataFrame:
    c = CASES[case]
    return af.estimate(
        af.fit_calibration(af.from_scores(c["frame"](1, 900).drop_nulls(), **c["read"])),
        af.from_scores(source, **c["read"]),
        c["measures"],
        c["operators"],
        by=c["by"],
        time="day",
        every="1d",
        period="3d",
        **kw,
    )


@pytest.mark.filterwarnings("ignore::aggframe.errors.ShiftWarning")
@pytest.mark.parametrize("case", list(CASES))
def test_rolled_windows_equal_the_row_spread(case: str) -> None:
    frame = CASES[case]["frame"](2, 600)
    rolled = _run(case, frame)
    spread = _run(case, frame, n_draws=2)  # draws take the row spread; their point values are the same
    assert rolled.height > 0
    assert set(rolled["kind"]) == {"estimated", "realized"}
    assert rolled[CASES[case]["by"]].null_count() > 0  # a null key is a group
    keys = [c for c in rolled.columns if c not in (*POINT, "ci_low", "ci_high")]
    assert_frame_equal(rolled.select(*keys, *POINT), spread.select(*keys, *POINT), abs_tol=1e-9)
    # each window is the estimate of its rows alone (its first one here)
    first = rolled["window_start"].min()
    rows = frame.filter(pl.col("day").is_between(first, first + dt.timedelta(days=2)))
    alone = _run(case, rows).filter(pl.col("window_start") == first)
    assert_frame_equal(
        rolled.filter(pl.col("window_start") == first).select(*keys, *POINT),
        alone.select(*keys, *POINT),
        abs_tol=1e-9,
    )


@pytest.mark.engines
@pytest.mark.filterwarnings("ignore::aggframe.errors.ShiftWarning")
def test_rolled_windows_on_duckdb_equal_polars() -> None:
    duckdb = pytest.importorskip("duckdb")
    frame = _multiclass(3, 450)
    rel = duckdb.connect().from_arrow(frame.to_arrow())
    assert_frame_equal(_run("argmax", rel), _run("argmax", frame), abs_tol=1e-9, check_dtypes=False)


def test_a_row_without_a_time_is_refused_with_its_count() -> None:
    frame = _binary(4, 300).with_columns(
        pl.when(pl.int_range(300) < 7).then(None).otherwise(pl.col("day")).alias("day")
    )
    # the largest group's count of rows without a time (each counted once, not once per window)
    most = frame.filter(pl.col("day").is_null()).group_by(KEY).len()["len"].max()
    with pytest.raises(InvalidValueError, match=f"has {most} example"):
        _run("binary", frame)
