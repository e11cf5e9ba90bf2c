"""The ``exemplar`` interval under multilabel truth on DuckDB: the engine's own hash, the same method.

The draws of every entry's truth (``u < q``, ``u`` from a hash of by-keys, example,
class, seed and the draw) are made with DuckDB's ``hash`` instead of Polars', so they
are other draws of the same distribution: the bounds of the interval on one large group
agree with Polars' within a few Monte Carlo errors (and their widths too), the draws are
seeded, and the interval covers the realized value in about 95% of groups (a coverage
run that can fail: half as wide, it does). Spark: a smoke test in ``test_estimate_exemplar.py``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af

pytestmark = pytest.mark.engines

LEVEL = 0.95


def _multilabel(seed: int, n: int, groups: int, classes: int = 3) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.beta(1.5, 2.5, size=(n * groups, classes))
    y = (rng.uniform(size=s.shape) < s).astype(np.int64)
    run = pl.Series("run", np.repeat(np.arange(groups), n * classes), dtype=pl.Int64)
    if groups > 1:  # a null group
        run = pl.select(pl.when(run != 0).then(run)).to_series().alias("run")
    return pl.DataFrame(
        {
            "run": run,
            "example": np.repeat(np.arange(n * groups), classes),
            "class": np.tile([f"c{i}" for i in range(classes)], n * groups),
            "score": s.ravel(),
            "y": y.ravel(),
        }
    )


def _duckdb(frame: pl.DataFrame) -> Any:
    duckdb = pytest.importorskip("duckdb")
    return duckdb.connect().from_arrow(frame.to_arrow())


def _estimate(src: Any, measures: list[str], draws: int, seed: int = 0, by: str = "run") -> pl.DataFrame:
    data = af.from_scores(src)
    return af.estimate(
        data, data, measures, "exemplar", by=by, calibration="none", n_draws=draws, level=LEVEL, seed=seed
    ).sort(by, "measure", "kind", nulls_last=True)


def test_duckdb_draws_agree_with_polars_in_distribution() -> None:
    """One group of 1500 examples, 400 draws: the bounds within 0.2 of the interval's width
    (about four Monte Carlo standard errors of their difference), the widths within 20%."""
    frame = _multilabel(1, 1500, 1, classes=4)
    got = [
        _estimate(src, ["f1", "recall"], 400).filter(pl.col("kind") == "estimated")
        for src in (frame, _duckdb(frame))
    ]
    assert_frame_equal(got[0].drop("ci_low", "ci_high"), got[1].drop("ci_low", "ci_high"), abs_tol=1e-9)
    lo, hi = (np.stack([g[c].to_numpy() for g in got]) for c in ("ci_low", "ci_high"))
    width = hi[0] - lo[0]
    assert (width > 0).all()
    assert (np.abs(lo[1] - lo[0]) < 0.2 * width).all(), (lo, hi)
    assert (np.abs(hi[1] - hi[0]) < 0.2 * width).all(), (lo, hi)
    assert (np.abs((hi[1] - lo[1]) / width - 1.0) < 0.2).all(), (lo, hi)


@pytest.mark.parametrize("by", ["_draw", 'n "x"_é'])  # the engine query's own names, quotes, unicode
def test_duckdb_draws_are_seeded(by: str) -> None:
    frame = _multilabel(2, 40, 3).rename({"run": by})
    rel = _duckdb(frame)
    a, b, c = (_estimate(rel, ["f1"], 60, seed=s, by=by) for s in (5, 5, 6))
    assert a[by].null_count() > 0  # the null group is drawn too
    assert a.filter(pl.col("kind") == "estimated")["ci_low"].null_count() == 0
    assert_frame_equal(a, b)
    assert not a.equals(c)


RUNS = 300


@pytest.mark.filterwarnings("ignore::aggframe.errors.ShiftWarning")  # small groups: their scores wander
def test_duckdb_multilabel_exemplar_covers() -> None:
    frame = _multilabel(3, 40, RUNS)
    out = _estimate(_duckdb(frame), ["f1"], 200)
    est, real = (
        out.filter(pl.col("kind") == k).sort("run", nulls_last=True) for k in ("estimated", "realized")
    )
    assert est.height == real.height == RUNS
    lo, hi, value = est["ci_low"].to_numpy(), est["ci_high"].to_numpy(), real["value"].to_numpy()
    sd = math.sqrt(LEVEL * (1 - LEVEL) / RUNS)
    covered = ((lo <= value) & (value <= hi)).mean()
    assert abs(covered - LEVEL) < 3 * sd, covered
    err = est["value"].to_numpy() - value
    assert abs(err.mean()) < 3 * err.std(ddof=1) / math.sqrt(RUNS)
    # the band can fail: an interval half as wide about its middle covers far too few groups
    mid, half = (lo + hi) / 2.0, (hi - lo) / 4.0
    assert ((mid - half <= value) & (value <= mid + half)).mean() < LEVEL - 3 * sd
