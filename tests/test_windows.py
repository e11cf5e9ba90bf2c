"""Windows over time: every window equals evaluating its rows alone (``evaluate(time=, every=, period=)``).

The oracle puts each row in the windows that hold it by direct comparison
(``start <= t < start + period`` over the grid of starts), then evaluates once
with the window start as a by-key: no bucket arithmetic is shared with the code
under test.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.facade.windows import parse_duration

MEASURES = ["f1", "precision", "jaccard"]
OPERATORS = ["micro", "macro", "weighted", "exemplar"]
T0 = dt.datetime(2024, 3, 1)


def _sort(df: pl.DataFrame) -> pl.DataFrame:
    return df.sort(pl.all(), nulls_last=True)


def _oracle_frame(df: pl.DataFrame, time: str, every: str, period: str, offset: str | None) -> pl.DataFrame:
    """Each row once per window holding it; ``ws``/``we`` the window's bounds (naive times)."""
    step, span = parse_duration(every, "every"), parse_duration(period, "period")
    shift = (
        0
        if offset is None
        else (-1 if offset.startswith("-") else 1) * parse_duration(offset.lstrip("-"), "o")
    )
    epoch = dt.datetime(1970, 1, 1)
    t = df[time]
    lo, hi = t.min(), t.max()
    assert isinstance(lo, dt.datetime)
    assert isinstance(hi, dt.datetime)
    us = dt.timedelta(microseconds=1)
    first = ((lo - epoch) // us - shift) // step  # the grid slot of the first row
    starts = []
    i = first
    while epoch + (i * step + shift) * us <= hi:
        starts.append(epoch + (i * step + shift) * us)
        i += 1
    grid = pl.DataFrame({"ws": starts}).with_columns(pl.col("ws").dt.cast_time_unit("us"))
    grid = grid.with_columns((pl.col("ws") + pl.duration(microseconds=span)).alias("we"))
    spread = df.join(grid, how="cross")
    return spread.filter((pl.col("ws") <= pl.col(time)) & (pl.col(time) < pl.col("we")))


@st.composite
def windowed_frames(draw: st.DrawFn) -> tuple[pl.DataFrame, str, str, str | None]:
    n = draw(st.integers(20, 80))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    every = draw(st.sampled_from(["1d", "12h", "2d"]))
    k = draw(st.integers(1, 3))
    period = f"{k * parse_duration(every, 'e') // 3_600_000_000}h"
    offset = draw(st.sampled_from([None, "3h", "-5h", "1d"]))
    hours = rng.integers(0, 24 * 12, n)
    # gaps: days 4-6 hold no rows
    hours = np.where((hours >= 96) & (hours < 168), hours + 72, hours)
    g = rng.choice(np.array(["a", "b", "late", "null"]), n)
    # the group "late" starts on day 8
    hours = np.where(g == "late", np.maximum(hours, 8 * 24), hours)
    df = pl.DataFrame(
        {
            "ts": [
                T0 + dt.timedelta(hours=int(h), minutes=int(m))
                for h, m in zip(hours, rng.integers(0, 60, n), strict=False)
            ],
            "g": pl.Series(g).replace("null", None),
            "y_true": rng.integers(0, 3, n),
            "y_pred": rng.integers(0, 3, n),
        }
    ).with_columns(pl.col("ts").dt.cast_time_unit("us"))
    return df, every, period, offset


@settings(max_examples=15, deadline=None)
@given(windowed_frames())
def test_every_window_equals_its_rows_evaluated_alone(
    case: tuple[pl.DataFrame, str, str, str | None],
) -> None:
    df, every, period, offset = case
    kw = {"convention": ["exclude", "zero"]}
    got = af.from_labels(df).evaluate(
        MEASURES, OPERATORS, by="g", time="ts", every=every, period=period, offset=offset, **kw
    )
    spread = _oracle_frame(df, "ts", every, period, offset)
    want = af.from_labels(spread).evaluate(MEASURES, OPERATORS, by=["g", "ws", "we"], **kw)
    want = want.rename({"ws": "window_start", "we": "window_end"})
    assert got.columns[:3] == ["g", "window_start", "window_end"]
    assert_frame_equal(_sort(got), _sort(want.select(got.columns)), abs_tol=1e-12)


def test_long_form_exemplar_and_multilabel_windows() -> None:
    rng = np.random.default_rng(3)
    n_ex, m = 60, 4
    day = {e: dt.date(2024, 1, 1) + dt.timedelta(days=int(rng.integers(0, 9))) for e in range(n_ex)}
    rows = [
        {"example": e, "class": c, "y": int(rng.random() < 0.4), "p": int(rng.random() < 0.4), "day": day[e]}
        for e in range(n_ex)
        for c in range(m)
    ]
    df = pl.DataFrame(rows)
    pr = af.from_long(df, n_classes=m)
    got = pr.evaluate(MEASURES, OPERATORS, time="day", every="1d", period="3d")
    for row in got.filter(pl.col("operator") == "exemplar").iter_rows(named=True):
        sub = df.filter((pl.col("day") >= row["window_start"]) & (pl.col("day") < row["window_end"]))
        alone = af.from_long(sub, n_classes=m).compute(row["measure"], "exemplar")
        assert alone == pytest.approx(row["value"], abs=1e-12)
    assert got["window_start"].dtype == pl.Date


def test_stores_windows_equal_the_predictions(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    n = 400
    df = pl.DataFrame(
        {
            "day": [dt.date(2024, 5, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 12, n)],
            "g": pl.Series(rng.choice(["a", "b", "c"], n)).replace("c", None),
            "y_true": rng.integers(0, 4, n),
            "y_pred": rng.integers(0, 4, n),
        }
    )
    pr = af.from_labels(df)
    kw = {"by": "g", "time": "day", "every": "1d", "period": "7d"}
    asks = [(MEASURES, OPERATORS), (["mcc", "kappa_quadratic"], "multiclass")]
    want = [pr.evaluate(m, o, **kw) for m, o in asks]
    pr.write_cells(tmp_path / "store", by=["day", "g"])
    # the store's days may be ISO texts (a hive day= key): the same windows
    texts = df.with_columns(pl.col("day").cast(pl.String))
    af.from_labels(texts).write_cells(tmp_path / "texts", by=["day", "g"])
    # a store per day in hive folders: the day is read from the path
    for day in df["day"].unique():
        af.from_labels(df.filter(pl.col("day") == day)).write_cells(tmp_path / f"hive/day={day}", by="g")
    af.from_labels(df).write_cells(tmp_path / "plain", by="g")
    with pytest.raises(af.errors.ColumnNotFoundError, match="day=VALUE"):
        af.from_cells(tmp_path / "plain").evaluate("f1", "macro", **kw)
    for store in ("store", "texts", "hive/day=*"):
        stored = af.from_cells(str(tmp_path / store))
        for (m, o), expected in zip(asks, want, strict=True):
            got = stored.evaluate(m, o, **kw)
            assert_frame_equal(_sort(got), _sort(expected), abs_tol=1e-12)


def _zoned(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    base = dt.datetime(2024, 3, 29)
    ts = pl.Series([base + dt.timedelta(minutes=int(x)) for x in rng.integers(0, 5 * 1440, n)])
    zoned = ts.dt.replace_time_zone("Europe/Paris", ambiguous="earliest", non_existent="null")
    frame = pl.DataFrame({"ts": zoned, "y_true": rng.integers(0, 3, n), "y_pred": rng.integers(0, 3, n)})
    return frame.drop_nulls()


def test_zoned_datetimes_window_local_days_across_dst() -> None:
    df = _zoned(300, 1)
    got = af.from_labels(df).evaluate("f1", "macro", time="ts", every="1d", period="2d")
    assert got["window_start"].dtype == pl.Datetime("us", "Europe/Paris")
    # 2024-03-31 is 23 hours long in Paris: its window still starts and ends at local midnight
    assert got["window_start"].dt.hour().to_list() == [0] * got.height
    for row in got.iter_rows(named=True):
        sub = df.filter((pl.col("ts") >= row["window_start"]) & (pl.col("ts") < row["window_end"]))
        assert af.from_labels(sub).compute("f1", "macro") == pytest.approx(row["value"], abs=1e-12)


def test_intervals_and_scores_per_window() -> None:
    df = _zoned(240, 2).with_columns(pl.col("ts").dt.replace_time_zone(None))
    pr = af.from_labels(df, example=None)
    kw = {"time": "ts", "every": "1d", "period": "2d"}
    boot = af.from_labels(df.with_row_index("id"), example="id").evaluate("f1", "macro", n_boot=30, **kw)
    plain = pr.evaluate("f1", "macro", **kw)
    assert_frame_equal(boot.select(plain.columns), plain, abs_tol=1e-12)
    assert (boot["ci_low"] <= boot["value"]).all()
    assert (boot["value"] <= boot["ci_high"]).all()
    rng = np.random.default_rng(4)
    scores = df.with_row_index("example").with_columns(
        (pl.col("y_true") == 1).cast(pl.Int64).alias("y"), pl.lit(rng.random(df.height)).alias("score")
    )
    sp = af.from_scores(scores, class_=None)
    got = sp.evaluate(["auroc", "f1"], "micro", **kw)
    for row in got.filter(pl.col("measure") == "auroc").iter_rows(named=True):
        sub = scores.filter((pl.col("ts") >= row["window_start"]) & (pl.col("ts") < row["window_end"]))
        alone = af.from_scores(sub, class_=None).compute("auroc", "micro")
        assert alone == pytest.approx(row["value"], abs=1e-12)


def test_unlabelled_rows_never_change_a_labelled_measure() -> None:
    df = _zoned(300, 3).with_columns(pl.col("ts").dt.replace_time_zone(None))
    rng = np.random.default_rng(9)
    extra = df.sample(120, seed=1).with_columns(
        pl.lit(None, pl.Int64).alias("y_true"), pl.lit(rng.integers(0, 3, 120)).alias("y_pred")
    )
    both = pl.concat([df, extra])
    kw = {"time": "ts", "every": "1d", "period": "2d"}
    labelled = af.from_labels(df).evaluate(MEASURES, OPERATORS, **kw)
    got = af.from_labels(both).evaluate(MEASURES, OPERATORS, unlabelled="count", **kw)
    assert_frame_equal(got.select(labelled.columns), labelled, abs_tol=1e-12)
    for row in got.unique("window_start").iter_rows(named=True):
        inside = (pl.col("ts") >= row["window_start"]) & (pl.col("ts") < row["window_end"])
        assert row["n_unlabelled"] == extra.filter(inside).height
        assert row["n_labelled"] == df.filter(inside).height
        assert row["labelled_share"] == pytest.approx(row["n_labelled"] / both.filter(inside).height)
    with pytest.raises(af.errors.NullValueError, match="y_true"):
        af.from_labels(both).evaluate("f1", "macro", **kw)
    with pytest.raises(af.errors.NullValueError):
        af.from_labels(both).evaluate("f1", "macro")


def test_eager_lazy_streaming_and_hostile_names() -> None:
    df = _zoned(200, 6).with_columns(pl.col("ts").dt.replace_time_zone(None))
    # the time column named like a result column; a by column named like the internal bucket key
    hostile = df.rename({"ts": "window_start"}).with_columns(pl.lit("x").alias("__af_time_bucket"))
    kw = {"by": "__af_time_bucket", "time": "window_start", "every": "12h", "period": "1d", "offset": "-3h"}
    eager = af.from_labels(hostile).evaluate(MEASURES, OPERATORS, **kw)
    lazy = af.from_labels(hostile.lazy()).evaluate(MEASURES, OPERATORS, **kw)
    streaming = af.from_labels(hostile.lazy()).evaluate(MEASURES, OPERATORS, engine="streaming", **kw)
    assert eager.columns[:3] == ["__af_time_bucket", "window_start", "window_end"]
    assert_frame_equal(lazy, eager)
    assert_frame_equal(streaming, eager)
    plain = af.from_labels(df.with_columns(pl.lit("x").alias("__af_time_bucket"))).evaluate(
        MEASURES, OPERATORS, **{**kw, "time": "ts"}
    )
    assert_frame_equal(plain, eager)
    # quotes, blanks, unicode and result-like names as by-keys of the windows and of the monitor
    odd = df.with_columns(pl.lit("x").alias("it's ü n"), pl.lit(None, pl.String).alias("tp"))
    kw = {"by": ["it's ü n", "tp"], "time": "ts", "every": "1d"}
    got = af.from_labels(odd).evaluate("f1", "macro", **kw)
    assert got.columns[:4] == ["it's ü n", "tp", "window_start", "window_end"]
    assert (
        got["value"].to_list()
        == af.from_labels(df).evaluate("f1", "macro", time="ts", every="1d")["value"].to_list()
    )
    first = df["ts"].min()
    assert isinstance(first, dt.datetime)
    watch = af.monitor(
        af.from_labels(odd), "f1", "macro", **kw, reference=(first, first + dt.timedelta(days=4))
    )
    assert watch["tp"].null_count() == watch.height


@pytest.mark.parametrize(
    ("kw", "error", "match"),
    [
        ({"time": "ts", "every": "1mo"}, af.errors.OptionError, "calendar"),
        ({"time": "ts", "every": "2d", "period": "3d"}, af.errors.OptionError, "multiple"),
        ({"time": "ts", "every": "soon"}, af.errors.OptionError, "duration"),
        ({"time": "nope", "every": "1d"}, af.errors.ColumnNotFoundError, "nope"),
        ({"time": "y_pred", "every": "1d"}, af.errors.InvalidValueError, "date or a datetime"),
        ({"time": "ts"}, af.errors.OptionError, "every="),
        ({"time": "ts", "every": "1d", "by": "window_end"}, af.errors.OptionError, "window_end"),
        ({"time": "ts", "every": "1d", "unlabelled": "skip"}, af.errors.OptionError, "unlabelled"),
    ],
)
def test_bad_window_options_are_clear_errors(kw: dict[str, str], error: type[Exception], match: str) -> None:
    df = _zoned(20, 7).with_columns(pl.col("ts").dt.replace_time_zone(None), pl.lit(1).alias("window_end"))
    with pytest.raises(error, match=match):
        af.from_labels(df).evaluate("f1", "macro", **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("n_boot", [None, 5])
def test_a_row_without_a_time_is_a_clear_error(n_boot: int | None) -> None:
    df = pl.DataFrame(
        {"day": ["2024-01-01", None, "2024-01-02", "soon"], "y_true": [0, 1, 1, 0], "y_pred": [0, 1, 0, 0]}
    ).with_row_index("id")
    with pytest.raises(af.errors.InvalidValueError, match=r"'day' has 2 example\(s\) without a time"):
        af.from_labels(df, example="id").evaluate("f1", "macro", time="day", every="1d", n_boot=n_boot)
    ok = df.filter(pl.col("day").str.contains("2024"))
    got = af.from_labels(ok, example="id").evaluate("f1", "macro", time="day", every="1d")
    assert got["window_start"].to_list() == [dt.date(2024, 1, 1), dt.date(2024, 1, 2)]
