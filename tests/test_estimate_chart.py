"""The chart of an estimate over time (``plot_estimate``): realized solid, estimated dashed with its band."""

from __future__ import annotations

import datetime as dt

import numpy as np
import polars as pl
import pytest

import aggframe as af
from tests.test_time_charts import _values

pytest.importorskip("altair")

DAY0 = dt.date(2024, 3, 4)


def _estimate(*, n_draws: int, by: str | None = "g") -> pl.DataFrame:
    rng = np.random.default_rng(0)
    n = 600
    s = rng.uniform(size=n)
    day = rng.integers(0, 10, size=n)
    frame = pl.DataFrame(
        {
            "score": s,
            "y": (rng.uniform(size=n) < s).astype(np.int64),
            "day": [DAY0 + dt.timedelta(days=int(d)) for d in day],
            "g": [("a", None)[i] for i in rng.integers(0, 2, size=n)],
            "lab": day < 6,  # the last four days are not labelled yet
        }
    )
    ref = af.from_scores(frame.head(300), class_=None)
    return af.estimate(
        ref,
        af.from_scores(frame, class_=None),
        ["f1", "recall"],
        "binary",
        by=by,
        labelled="lab",
        n_draws=n_draws,
        time="day",
        every="1d",
    )


def _marks(spec: dict[str, object]) -> list[tuple[str, object, object]]:
    out = []
    for layer in spec["layer"]:  # type: ignore[attr-defined]
        mark = layer["mark"]
        kind = mark["type"] if isinstance(mark, dict) else mark
        dash = mark.get("strokeDash") if isinstance(mark, dict) else None
        out.append((kind, dash, layer["transform"][0]["filter"]))
    return out


def test_realized_solid_estimated_dashed_with_its_band() -> None:
    out = _estimate(n_draws=20)
    spec = af.plot.estimate(out, measure="f1").to_dict()
    assert _marks(spec) == [
        ("area", None, "datum.kind === 'estimated'"),
        ("line", [6, 4], "datum.kind === 'estimated'"),
        ("line", None, "datum.kind === 'realized'"),
    ]
    assert spec["layer"][0]["encoding"]["y"]["field"] == "low"
    assert spec["layer"][0]["encoding"]["y2"]["field"] == "high"
    rows = _values(spec)
    want = out.filter(pl.col("measure") == "f1")
    assert len(rows) == want.height
    realized_days = {r["window_start"] for r in rows if r["kind"] == "realized"}
    assert realized_days == {str(DAY0 + dt.timedelta(days=d)) for d in range(6)}  # labelled days only
    assert {r["group"] for r in rows} == {"a", "(null)"}  # the null group labelled, never dropped
    assert "f1 binary" in str(spec["title"])


def test_without_draws_no_band_and_the_options_are_checked() -> None:
    out = _estimate(n_draws=0, by=None)
    spec = af.plot.estimate(out, measure="recall", operator="binary").to_dict()
    assert [m[0] for m in _marks(spec)] == ["line", "line"]
    with pytest.raises(af.errors.OptionError, match="measure"):
        af.plot.estimate(out)  # two measures, none chosen
    with pytest.raises(af.errors.ColumnNotFoundError, match="window_start"):
        af.plot.estimate(out.drop("window_start", "window_end"), measure="f1")
    with pytest.raises(af.errors.OptionError, match="Polars frame"):
        af.plot.estimate(out.to_dict(), measure="f1")  # type: ignore[arg-type]
