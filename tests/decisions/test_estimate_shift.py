"""The distribution check of ``af.estimate``: a group whose scores moved away from the reference's warns.

Far is an effect size (at least half a reference standard deviation between the means) that is
also clear of the group's noise (at least four standard errors); the tests measure both the
false-alarm rate on groups drawn like the reference and the power on shifted groups.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import polars as pl
import pytest

import aggframe as af

KEY = 'group "g"'  # a hostile by-name


def _reference(rng: np.random.Generator, n: int = 4000) -> af.Predictions:
    s = rng.uniform(0.0, 1.0, n)
    return af.from_scores(pl.DataFrame({"y": (rng.uniform(size=n) < s).astype(int), "score": s}), class_=None)


def _data(groups: dict[str | None, np.ndarray]) -> af.Predictions:
    frames = [pl.DataFrame({KEY: [g] * len(s), "score": s, "y": [None] * len(s)}) for g, s in groups.items()]
    frame = pl.concat(frames).with_columns(pl.col(KEY).cast(pl.String), pl.col("y").cast(pl.Int64))
    return af.from_scores(frame, class_=None)


def _messages(ref: af.Predictions, data: af.Predictions) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        af.estimate(ref, data, "f1", "binary", by=KEY)
    return [
        str(w.message)
        for w in caught
        if issubclass(w.category, af.errors.ShiftWarning) and "distribution" in str(w.message)
    ]


def _flagged(messages: list[str]) -> int:
    if not messages:
        return 0
    found = re.match(r"(\d+) group\(s\)", messages[0])
    assert found is not None
    return int(found.group(1))


def test_a_shifted_group_warns_and_names_itself_a_like_group_does_not() -> None:
    rng = np.random.default_rng(7)
    ref = _reference(rng)
    same = rng.uniform(0.0, 1.0, 2000)
    shifted = np.sqrt(rng.uniform(0.0, 1.0, 2000))  # mean 2/3 against 1/2: 0.58 reference sds
    messages = _messages(ref, _data({"same": same, None: shifted}))
    assert _flagged(messages) == 1
    assert f"{KEY}=None" in messages[0]
    assert "no concept shift" in messages[0]


def test_false_alarms_and_power_over_many_groups() -> None:
    """100 groups of 200 drawn like the reference: no warning; 100 shifted by one sd: all flagged."""
    rng = np.random.default_rng(11)
    ref = _reference(rng)
    like = {f"g{i}": rng.uniform(0.0, 1.0, 200) for i in range(100)}
    assert _flagged(_messages(ref, _data(like))) == 0
    sd = 1.0 / np.sqrt(12.0)
    moved = {
        f"g{i}": np.clip(rng.uniform(0.0, 1.0, 200) * 0.4 + 0.5 + sd * 0.5, 0.0, 1.0) for i in range(100)
    }
    assert _flagged(_messages(ref, _data(moved))) == 100


def test_a_small_group_is_not_flagged_on_noise() -> None:
    """Five entries far out by chance are not 'far': the standard-error condition holds them back."""
    rng = np.random.default_rng(3)
    ref = _reference(rng)
    assert _flagged(_messages(ref, _data({"tiny": np.array([0.9, 0.95, 0.85, 0.8, 0.99])}))) == 0


def test_the_map_keeps_the_reference_mean_and_sd(tmp_path: pytest.TempPathFactory) -> None:
    rng = np.random.default_rng(5)
    s = rng.uniform(0.0, 1.0, 3000)
    ref = af.from_scores(
        pl.DataFrame({"y": (rng.uniform(size=3000) < s).astype(int), "score": s}), class_=None
    )
    cmap = af.fit_calibration(ref)
    row = cmap.ece.row(0, named=True)
    assert row["mean"] == pytest.approx(float(s.mean()), abs=1e-9)
    assert row["sd"] == pytest.approx(float(s.std()), abs=1e-9)
    back = af.CalibrationMap.read(cmap.write(tmp_path / "m.parquet"))  # type: ignore[operator]
    assert back.ece["sd"].to_list() == pytest.approx(cmap.ece["sd"].to_list(), abs=1e-12)


def test_duckdb_flags_the_same_groups() -> None:
    """The check reads the scan's sums: DuckDB (grouped by score bin) names the same groups as Polars."""
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(13)
    ref = _reference(rng)
    groups = {"same": rng.uniform(0.0, 1.0, 1000), None: np.sqrt(rng.uniform(0.0, 1.0, 1000))}
    frame = pl.concat(
        [pl.DataFrame({KEY: [g] * len(s), "score": s, "y": [None] * len(s)}) for g, s in groups.items()]
    ).with_columns(pl.col(KEY).cast(pl.String), pl.col("y").cast(pl.Int64))
    rel = duckdb.connect().from_arrow(frame.to_arrow())
    on_polars = _messages(ref, af.from_scores(frame, class_=None))
    on_duckdb = _messages(ref, af.from_scores(rel, class_=None))
    assert _flagged(on_polars) == _flagged(on_duckdb) == 1
    assert f"{KEY}=None" in on_duckdb[0]
