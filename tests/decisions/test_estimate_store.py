"""``af.expected_cells``: expected cells that add up (two months stored apart and read together give the
estimate over both), the calibration map stored beside them and reused, broken maps and stores."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.decisions.estimate_store import load_map
from aggframe.exceptions import OptionError, StoreError

MEASURES = ["f1", "precision", "recall"]


def _month(seed: int, n: int, key: str = "region") -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return pl.DataFrame(
        {
            "score": s,
            "y": (rng.uniform(size=n) < s**3).astype(np.int64),
            key: [("n", "s", None)[i] for i in rng.integers(0, 3, size=n)],
        }
    )


def _wide(seed: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet([2.0, 1.0, 1.0], size=n)
    truth = (rng.uniform(size=n)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    g = [("x", None)[i] for i in rng.integers(0, 2, size=n)]
    return pl.DataFrame({"y_true": truth, "p_0": p[:, 0], "p_1": p[:, 1], "p_2": p[:, 2], "g": g})


def _estimated(out: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    return out.filter(pl.col("kind") == "estimated").select(*by, "measure", "operator", "value")


@pytest.mark.parametrize("key", ["region", "tp", "__af_est_y", "a b", "名前"])
def test_two_months_stored_apart_and_read_together_equal_the_estimate_over_both(
    tmp_path: Path, key: str
) -> None:
    ref = af.from_scores(_month(0, 3000), class_=None)
    cmap = af.fit_calibration(ref)
    nov, dec = _month(1, 800, key), _month(2, 600, key)
    af.expected_cells(ref, af.from_scores(nov, class_=None), by=key, store=tmp_path / "nov")
    # next month with the map stored beside November's cells
    af.expected_cells(tmp_path / "nov", af.from_scores(dec, class_=None), by=key, store=tmp_path / "dec")
    both = af.Cells.read([tmp_path / "nov", tmp_path / "dec"])
    got = both.evaluate(MEASURES, ["binary", "micro"], by=key).select(key, "measure", "operator", "value")
    whole = af.from_scores(pl.concat([nov, dec]), class_=None)
    want = _estimated(af.estimate(cmap, whole, MEASURES, ["binary", "micro"], by=key), [key])
    assert_frame_equal(got, want, check_row_order=False, abs_tol=1e-12)
    assert got[key].null_count() == len(MEASURES) * 2  # the null group is a group
    # the stores read with from_cells, and the overall estimate (no by)
    total = (
        af.from_cells([str(tmp_path / "nov"), str(tmp_path / "dec")]).evaluate("f1", "binary")["value"].item()
    )
    assert total == pytest.approx(
        _estimated(af.estimate(cmap, whole, "f1", "binary"), [])["value"].item(), abs=1e-12
    )


def test_multiclass_cells_add_up_in_memory_for_every_operator() -> None:
    read = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
    ref = af.from_scores(_wide(3, 1500), **read)  # type: ignore[arg-type]
    a, b = _wide(4, 400), _wide(5, 300)
    cmap = af.fit_calibration(ref)
    cells = af.expected_cells(cmap, af.from_scores(a, **read), by="g") + af.expected_cells(  # type: ignore[arg-type]
        cmap,
        af.from_scores(b, **read),  # type: ignore[arg-type]
        by="g",
    )
    ops = ["micro", "macro", "weighted", "exemplar"]
    got = cells.evaluate(["f1", "recall"], ops, by="g").select("g", "measure", "operator", "value")
    whole = af.estimate(cmap, af.from_scores(pl.concat([a, b]), **read), ["f1", "recall"], ops, by="g")  # type: ignore[arg-type]
    assert_frame_equal(got, _estimated(whole, ["g"]), check_row_order=False, abs_tol=1e-12)


def test_a_stored_map_is_the_fitted_map(tmp_path: Path) -> None:
    ref = af.from_scores(_month(6, 2000), class_=None)
    data = af.from_scores(_month(7, 500), class_=None)
    for method in ("isotonic", "platt", "none"):
        cmap = af.fit_calibration(ref, calibration=method)  # type: ignore[arg-type]
        store = tmp_path / method
        af.expected_cells(cmap, data, store=store)
        assert (store / "calibration.parquet").is_file()
        for path in (store, store / "calibration.parquet"):
            back = load_map(path)
            assert (back.method, back.renormalize) == (cmap.method, cmap.renormalize)
            assert_frame_equal(back.table, cmap.table)
            assert_frame_equal(back.ece, cmap.ece)
        from_path = af.expected_cells(store, data).evaluate(MEASURES, "binary")
        assert_frame_equal(from_path, af.expected_cells(cmap, data).evaluate(MEASURES, "binary"))


def test_stores_and_maps_refuse_what_they_should(tmp_path: Path) -> None:
    ref = af.from_scores(_month(8, 1000), class_=None)
    data = af.from_scores(_month(9, 200), class_=None)
    store = tmp_path / "est"
    af.expected_cells(ref, data, store=store)
    with pytest.raises(StoreError, match="existing cell store"):
        af.expected_cells(ref, data, store=store)
    again = af.expected_cells(ref, data, store=store, overwrite=True)
    with pytest.raises(StoreError, match="no calibration map at"):
        load_map(tmp_path / "nowhere")
    with pytest.raises(StoreError, match="no calibration map at"):
        af.expected_cells(tmp_path, data)  # a folder, but no map in it
    (store / "calibration.parquet").write_bytes(b"not parquet")
    with pytest.raises(StoreError, match="cannot read the calibration map"):
        af.expected_cells(store, data)
    af.expected_cells(ref, data, store=store, overwrite=True)  # the broken map replaced
    assert_frame_equal(load_map(store).table, af.fit_calibration(ref).table)
    pl.DataFrame({"class": [1], "bin": [0], "q": [0.5]}).write_parquet(store / "calibration.parquet")
    with pytest.raises(StoreError, match="not a calibration map"):
        load_map(store)
    with pytest.raises(StoreError):  # the same cells twice are refused, as any cells
        _ = again + again
    with pytest.raises(OptionError, match="predictions with scores"):
        af.expected_cells(ref, af.from_labels([0, 1], [1, 1]))
    with pytest.raises(OptionError, match="folder path"):
        af.expected_cells(ref, data, store=3)  # type: ignore[arg-type]


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    cut=st.floats(0.1, 0.9),
    name=st.sampled_from(["g", "n", "p", "__af_x", "é x"]),
)
def test_expected_cells_of_any_split_add_up_to_the_whole(seed: int, cut: float, name: str) -> None:
    whole = _month(seed, 120, name)
    cmap = _MAP
    k = int(cut * whole.height)
    parts = [af.expected_cells(cmap, af.from_scores(p, class_=None), by=name) for p in (whole[:k], whole[k:])]
    got = (
        (parts[0] + parts[1])
        .evaluate(["f1", "recall"], "binary", by=name)
        .select(name, "measure", "operator", "value")
    )
    want = _estimated(
        af.estimate(cmap, af.from_scores(whole, class_=None), ["f1", "recall"], "binary", by=name), [name]
    )
    assert_frame_equal(got, want, check_row_order=False, abs_tol=1e-12)


#: a map whose reference spans [0, 1]: no score of the data is outside it (no shift warning)
_MAP = af.fit_calibration(
    af.from_scores(
        pl.concat([_month(11, 1000), pl.DataFrame({"score": [0.0, 1.0], "y": [0, 1], "region": ["n", "n"]})]),
        class_=None,
    )
)


def test_rolling_windows_of_daily_expected_cells_equal_the_windowed_estimate() -> None:
    rng = np.random.default_rng(12)
    frame = _month(13, 900).with_columns(
        day=pl.Series(rng.integers(19_800, 19_815, size=900), dtype=pl.Int32).cast(pl.Date)
    )
    data = af.from_scores(frame, class_=None)
    cells = af.expected_cells(_MAP, data, by=["day", "region"])  # one scan, kept per day
    window = {"time": "day", "every": "1d", "period": "7d"}
    got = af.from_cells(cells).evaluate(["f1", "precision"], "binary", by="region", **window)  # type: ignore[arg-type]
    want = af.estimate(_MAP, data, ["f1", "precision"], "binary", by="region", **window)  # type: ignore[arg-type]
    keys = ["region", "window_start", "window_end", "measure", "operator", "value"]
    assert_frame_equal(got.select(keys), _estimated_windows(want, keys), check_row_order=False, abs_tol=1e-12)
    assert got["region"].null_count() > 0


def _estimated_windows(out: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    return out.filter(pl.col("kind") == "estimated").select(keys)
