"""Monitoring: bands from reference windows, alerts exactly where a planted drop lies, new groups, late labels."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import aggframe as af

DAY0 = dt.date(2024, 1, 1)
DROP = {45, 46}  # the days whose accuracy drops


def _log(seed: int, days: int = 60, per_day: int = 300, drop: set[int] | None = None) -> pl.DataFrame:
    """Daily predictions of two models: right 90% of the time, 50% on the ``drop`` days of model "a"."""
    rng = np.random.default_rng(seed)
    drop = DROP if drop is None else drop
    frames = []
    for d in range(days):
        for model in ("a", "b"):
            y = rng.integers(0, 3, per_day)
            right = 0.5 if (d in drop and model == "a") else 0.9
            wrong = (y + rng.integers(1, 3, per_day)) % 3
            p = np.where(rng.random(per_day) < right, y, wrong)
            frames.append(
                pl.DataFrame(
                    {"day": [DAY0 + dt.timedelta(days=d)] * per_day, "model": model, "y_true": y, "y_pred": p}
                )
            )
    return pl.concat(frames)


def test_a_planted_drop_alerts_in_exactly_the_windows_that_hold_it() -> None:
    pr = af.from_labels(_log(0))
    ref = (DAY0, DAY0 + dt.timedelta(days=30))
    out = af.monitor(pr, "recall", "micro", by="model", time="day", every="1d", period="3d", reference=ref)
    starts = (out["window_start"] - pl.lit(DAY0)).dt.total_days()
    out = out.with_columns(starts.alias("d"))
    alerted = out.filter("alert")
    # a 3-day window starting on day s holds days s, s+1, s+2: it holds a drop day iff 43 <= s <= 46
    assert set(alerted["model"]) == {"a"}
    assert sorted(alerted["d"]) == [43, 44, 45, 46]
    # the last two windows run past the data (days 58-60, 59-61): reported, not judged
    assert sorted(out.filter(pl.col("status") == "partial")["d"].unique()) == [58, 59]
    assert (out.filter((pl.col("model") == "b") & (pl.col("d") < 58))["status"] == "ok").all()
    ok = out.filter(pl.col("status") == "ok")
    assert (ok["value"] >= ok["band_low"]).all()
    assert (ok["value"] <= ok["band_high"]).all()
    # the band is mean +- 3 sd of the 28 whole 3-day windows inside the reference range
    inside = out.filter(pl.col("in_reference") & (pl.col("model") == "a"))
    assert inside.height == 28
    assert out.filter(pl.col("model") == "a")["band_low"][0] == pytest.approx(
        inside["value"].mean() - 3 * inside["value"].std()
    )
    assert (out["severity"] == "error").all()
    # the sampling error: binomial over the window's examples (900 per model and window)
    full = out.filter(pl.col("d") == 10).row(0, named=True)
    assert full["n_window"] == 900
    assert full["se"] == pytest.approx((full["value"] * (1 - full["value"]) / 900) ** 0.5)


def test_bands_from_other_predictions_a_frame_or_a_store(tmp_path: Path) -> None:
    reference = _log(1, days=20, drop=set())
    current = _log(2, days=60)
    pr = af.from_labels(current)
    kw = {
        "by": "model",
        "time": "day",
        "every": "1d",
        "period": "2d",
        "band": "quantile",
        "quantiles": (0.0, 1.0),
    }
    from_pr = af.monitor(pr, "recall", "micro", reference=af.from_labels(reference), **kw)
    from_frame = af.monitor(pr, "recall", "micro", reference=reference, **kw)
    af.from_labels(reference).write_cells(tmp_path / "ref", by=["day", "model"])
    from_store = af.monitor(pr, "recall", "micro", reference=str(tmp_path / "ref"), **kw)
    cells = af.from_cells(tmp_path / "ref").to_cells(by=["day", "model"])
    from_cells = af.monitor(pr, "recall", "micro", reference=cells, **kw)
    assert from_pr.equals(from_frame)
    assert from_pr.equals(from_store)
    assert from_pr.equals(from_cells)
    # quantiles 0 and 1: the band is the range of the 19 reference windows
    a = from_pr.filter(pl.col("model") == "a").row(0, named=True)
    assert a["n_reference"] == 19
    assert a["in_reference"] is False
    assert set(from_pr.filter("alert")["window_start"]) >= {DAY0 + dt.timedelta(days=d) for d in (44, 45, 46)}


def test_a_group_that_appears_after_the_reference_says_so() -> None:
    log = _log(3, days=20, drop=set())
    late = log.filter(pl.col("model") == "b").with_columns(pl.lit("c").alias("model"))
    late = late.filter(pl.col("day") >= DAY0 + dt.timedelta(days=12))
    nulls = log.filter(pl.col("model") == "a").with_columns(pl.lit(None, pl.String).alias("model"))
    pr = af.from_labels(pl.concat([log, late, nulls]))
    out = af.monitor(
        pr,
        "recall",
        "micro",
        by="model",
        time="day",
        every="1d",
        reference=(DAY0, DAY0 + dt.timedelta(days=10)),
    )
    c = out.filter(pl.col("model") == "c")
    assert (c["status"] == "new group").all()
    assert not c["alert"].any()
    assert c["band_low"].is_null().all()
    # a null model is a group of its own, with its own band
    assert (out.filter(pl.col("model").is_null())["n_reference"] == 10).all()


def test_late_labels_flag_windows_and_never_alert() -> None:
    log = _log(4, days=30, drop=set())
    rng = np.random.default_rng(5)
    share = (pl.col("day") - pl.lit(DAY0)).dt.total_days() / 30  # the last days are mostly unlabelled
    hidden = pl.lit(rng.random(log.height)) < share**4
    log = log.with_columns(pl.when(hidden).then(None).otherwise(pl.col("y_true")).alias("y_true"))
    pr = af.from_labels(log)
    kw = {"by": "model", "time": "day", "every": "1d", "reference": (DAY0, DAY0 + dt.timedelta(days=15))}
    out = af.monitor(pr, "recall", "micro", unlabelled="count", min_labelled_share=0.6, **kw)
    few = out.filter(pl.col("labelled_share") < 0.6)
    assert few.height > 0
    assert (few["status"] == "few labels").all()
    assert not few["alert"].any()
    assert (out.filter(pl.col("labelled_share") >= 0.6)["status"] != "few labels").all()
    with pytest.raises(af.errors.NullValueError):
        af.monitor(pr, "recall", "micro", **kw)


def test_false_alerts_are_rare_without_a_drop() -> None:
    # a seeded simulation: 2 models x 40 windows, no drop; mean +- 3 sd flags few of them
    pr = af.from_labels(_log(6, days=60, per_day=200, drop=set()))
    out = af.monitor(
        pr,
        "recall",
        "micro",
        by="model",
        time="day",
        every="1d",
        reference=(DAY0, DAY0 + dt.timedelta(days=20)),
    )
    outside = out.filter(~pl.col("in_reference"))
    assert outside.height == 80
    assert outside["alert"].sum() <= 2
    # the binomial se of a one-day window is the spread of the daily values (recall micro is
    # accuracy on single-label data): their ratio is near 1 over 60 independent days per model
    spread = out.group_by("model").agg(pl.col("value").std() / pl.col("se").mean())
    assert spread["value"].is_between(0.7, 1.3).all()


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"band": "iqr"}, "band="),
        ({"width": 0}, "width="),
        ({"quantiles": (0.9, 0.1)}, "quantiles="),
        ({"min_reference_windows": 1}, "min_reference_windows="),
        ({"severity": "fatal"}, "severity="),
        ({"reference": 3}, "reference="),
        ({"reference": ("2024-01-01", "2024-02-01")}, "reference="),
        ({"by": "status"}, "status"),
    ],
)
def test_bad_monitor_options(kw: dict[str, object], match: str) -> None:
    pr = af.from_labels(_log(7, days=3, per_day=5))
    args: dict[str, object] = {"time": "day", "every": "1d", "reference": (DAY0, DAY0 + dt.timedelta(days=2))}
    with pytest.raises(af.errors.OptionError, match=match):
        af.monitor(pr, "recall", "micro", **{**args, **kw})  # type: ignore[arg-type]
