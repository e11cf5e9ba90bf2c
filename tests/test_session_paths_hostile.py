"""The paths added on 2 December (third session), with a null group key and columns named like
internal ones: the class of input that broke the library before."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe._columns import key_label

HOSTILE = "tp"  # a cell's name
KEY = "__af_all"  # the stand-in key's name


def _by_hand(frame: pl.DataFrame, by: str, **kwargs: object) -> pl.DataFrame:
    """Each group evaluated alone (a null key is a group), stacked in the report's order."""
    rows = []
    for key in frame.get_column(by).unique().sort(nulls_last=True).to_list():
        part = frame.filter(pl.col(by).is_null() if key is None else pl.col(by) == key)
        rows.append(af.from_labels(part.drop(by), **kwargs).evaluate("f1", "macro").select("value"))
    return pl.concat(rows)


def test_targets_over_folds_with_a_null_key_and_hostile_names() -> None:
    frame = pl.DataFrame(
        {
            KEY: ["a", "a", None, None, "a", "a", None, None],
            "n": [0, 1, 2, 3, 0, 1, 2, 3],  # the example ids
            HOSTILE: ["t1"] * 4 + ["t2"] * 4,  # the target
            "y_true": [0, 1, 1, 0, 0, 1, 1, 1],
            "y_pred": [0, 1, 0, 0, 1, 1, 1, 0],
            "value_": [0, 0, 0, 0, 0, 0, 0, 0],  # the fold
        }
    )
    pr = af.from_labels(frame, example="n", target=HOSTILE, fold="value_")
    got = pr.evaluate("recall", "target", by=KEY)
    assert got[KEY].to_list() == ["a", None]
    missing = frame.filter(~((pl.col(HOSTILE) == "t2") & pl.col(KEY).is_null()))
    with pytest.raises(af.errors.InvalidValueError, match="the targets are not on the same examples"):
        af.from_labels(missing, example="n", target=HOSTILE, fold="value_").evaluate("recall", "target")


def test_diagnose_and_kind_per_group_with_a_null_key_and_hostile_names() -> None:
    frame = pl.DataFrame(
        {
            KEY: ["A"] * 4 + [None] * 4,
            "class": list(range(4)) * 2,  # the example ids, named like the class column
            "y_true": [0, 1, 2, 1] * 2,
            "y_pred": [0, 2, 2, 1, 1, 1, 2, 0],
        }
    )
    pr = af.from_labels(frame, example="class")
    found = af.diagnose(pr, "f1", by=KEY)
    assert set(found[KEY].to_list()) <= {"A", None}
    assert pr.extend.kind_by([KEY]) == "multiclass"


def test_accumulated_batches_with_a_null_key_and_hostile_names() -> None:
    first = pl.DataFrame({HOSTILE: [None, "x"], "y_true": [2**53, 2**53 + 1], "y_pred": [2**53, 2**53]})
    acc = af.Accumulator(by=HOSTILE)
    acc.update(first)
    acc.update(pl.DataFrame({HOSTILE: [None], "y_true": [0.5], "y_pred": [0.5]}))
    with pytest.raises(af.errors.InvalidValueError, match="beyond 2\\^53"):
        acc.evaluate("f1", "macro")
    ints = af.Accumulator(by=HOSTILE)
    for part in (first, first.with_columns(pl.col("y_true") - 2**53, pl.col("y_pred") - 2**53)):
        ints.update(part.with_columns(pl.col("y_true", "y_pred") % 3))
    whole = pl.concat(
        [first, first.with_columns(pl.col("y_true") - 2**53, pl.col("y_pred") - 2**53)]
    ).with_columns(pl.col("y_true", "y_pred") % 3)
    got = ints.evaluate("f1", "macro")
    assert_frame_equal(got.select("value"), _by_hand(whole, HOSTILE), abs_tol=1e-12)


def test_duckdb_enum_and_threshold_dict_with_a_null_key_and_hostile_names() -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    scores = pl.DataFrame(
        {
            KEY: ["g", "g", None, None],
            "n": [0, 0, 1, 1],
            "class": ["z", "a", "z", "a"],
            "score": [0.5, 0.5, 0.9, 0.2],
            "y": [1, 0, 0, 1],
        }
    )
    con.register("scores", scores.to_arrow())
    rel = con.sql(f"select \"{KEY}\", n, class::ENUM('z', 'a') as class, score, y from scores")
    polars = scores.with_columns(pl.col("class").cast(pl.Enum(["z", "a"])))
    for kwargs in ({"decision": "argmax"}, {"threshold": {"z": 0.4, "a": 0.6}}):
        want = af.from_scores(polars, example="n", **kwargs).evaluate("f1", "micro", by=KEY)
        got = af.from_scores(rel, example="n", **kwargs).evaluate("f1", "micro", by=KEY)
        assert_frame_equal(got.sort(KEY, nulls_last=True), want.sort(KEY, nulls_last=True))


def test_a_corrupt_source_on_the_new_intake_paths(tmp_path: Path) -> None:
    """A corrupt file read twice is refused as read twice before it is read; alone, as corrupt."""
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"garbage" * 10)
    with pytest.raises(af.errors.SourceError, match="read twice"):
        af.scan([bad, bad])
    with pytest.raises(af.errors.SourceError, match="not a readable Parquet file"):
        af.scan(bad)
    with pytest.raises(af.errors.SourceError):
        af.Accumulator().update(pl.scan_parquet(bad))
    masked = np.ma.masked_array(np.array([[1, 0]]), mask=[[1, 0]])
    with pytest.raises(af.errors.InvalidValueError, match="masked"):
        af.from_indicator(masked, np.array([[1, 0]]))


_ODD_KEYS = {
    "duration": pl.Series([dt.timedelta(days=1), None, dt.timedelta(seconds=90)] * 4),
    "bytes": pl.Series([b"\xff", None, b"ab"] * 4),
    "list": pl.Series([[1], None, [1, 2]] * 4),
    "array": pl.Series([[1, 2], None, [3, 4]] * 4, dtype=pl.Array(pl.Int64, 2)),
    "struct": pl.Series([{"a": 1}, None, {"a": None}] * 4),
}


@pytest.mark.parametrize("kind", list(_ODD_KEYS))
def test_keys_polars_does_not_cast_to_text(kind: str, tmp_path: Path) -> None:
    """A Duration, bytes (not UTF-8), List, Array or Struct key groups as any other in evaluate,
    but compare(summary=True), write_cells/Cells.write (the fingerprint), html_report and the
    charts cast the keys to text: raw Polars errors. Their labels are key_label's now."""
    frame = pl.DataFrame(
        {HOSTILE: _ODD_KEYS[kind], "y_true": [0, 1, 2] * 4, "y_pred": [0, 1, 1, 0, 2, 2, 1, 1, 0, 2, 0, 1]}
    )
    pr = af.from_labels(frame)
    report = pr.evaluate("f1", ["micro", "macro"], by=HOSTILE)
    assert report.height == 2 * 3  # the null key is a group
    store = pr.write_cells(tmp_path / "store", by=HOSTILE)
    assert_frame_equal(af.from_cells(store).evaluate("f1", ["micro", "macro"], by=HOSTILE), report)
    cells = af.Cells.read(pr.to_cells(by=HOSTILE).write(tmp_path / "cells"))
    assert_frame_equal(cells.evaluate("f1", ["micro", "macro"], by=HOSTILE), report)
    macro = pr.compare("f1", "macro", by=HOSTILE)
    label = key_label(pl.col(HOSTILE), macro.schema[HOSTILE])
    shown = dict(macro.select(label, "value").iter_rows())
    assert len(shown) == 3
    summary = pr.compare("f1", "macro", by=HOSTILE, summary=True).row(0, named=True)
    assert shown[summary["argmin"]] == summary["group_min"]
    assert shown[summary["argmax"]] == summary["group_max"]
    page = af.html_report(pr, "f1", ["micro", "macro"], by=HOSTILE)
    for value in report["value"]:
        assert f"{value:.4f}" in page
    af.plot.groups(report)


# ---------------------------------------------------------------------------
# The less-travelled paths with by=: each group (a null key is one) equals its rows alone,
# and eager = lazy = DuckDB. The by-columns are named like a cell and a private key.

_BY = [HOSTILE, "__af_by1"]


def _scores_frame(seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n, m = 24, 3
    example = np.repeat(np.arange(n), m)
    return pl.DataFrame(
        {
            HOSTILE: [[None, "a", "b"][e % 3] for e in example],
            "__af_by1": [[None, 1][(e // 3) % 2] for e in example],
            "n": example,  # the example ids, named like the profiles' count
            "class": np.tile(np.arange(m), n),
            "score": rng.random(n * m).round(2),  # ties
            "y": (np.tile(np.arange(m), n) == np.repeat(rng.integers(0, m, n), m)).astype(
                np.int64
            ),  # one-hot
        }
    )


def _alone(frame: pl.DataFrame, call: Any, build: Any) -> pl.DataFrame:
    """``call`` on each group's rows alone (null-aware), the group's keys put back in front."""
    parts = []
    for keys in frame.select(_BY).unique().rows():
        rows = frame.filter(
            *[pl.col(k).is_null() if v is None else pl.col(k) == v for k, v in zip(_BY, keys, strict=True)]
        )
        got = call(build(rows.drop(_BY)))
        parts.append(
            got.select(
                *[pl.lit(v, frame.schema[k]).alias(k) for k, v in zip(_BY, keys, strict=True)], pl.all()
            )
        )
    return pl.concat(parts)


_SCORE_PATHS: dict[str, Any] = {
    "curve": lambda pr, **by: pr.curve("roc", **by),
    "curve micro": lambda pr, **by: pr.curve("pr", "micro", **by),
    "curve macro": lambda pr, **by: pr.curve("roc", "macro", **by),
    "calibration": lambda pr, **by: pr.calibration(4, **by),
    "best_threshold": lambda pr, **by: pr.best_threshold("f1", "macro", **by),
    "auroc_bound": lambda pr, **by: pr.auroc_bound(**by),
    "measures on scores": lambda pr, **by: pr.evaluate(
        ["auroc", "average_precision", "log_loss", "brier", "f1"], ["micro", "macro", "weighted"], **by
    ),
    "multiclass": lambda pr, **by: pr.evaluate(["mcc", "kappa_quadratic", "log_loss"], "multiclass", **by),
    "bootstrap": lambda pr, **by: pr.evaluate(["f1", "mcc"], ["micro", "macro", "exemplar"], n_boot=8, **by),
}


@pytest.mark.parametrize("path", list(_SCORE_PATHS))
def test_score_paths_by_groups_with_a_null_key_and_hostile_names(path: str) -> None:
    frame = _scores_frame()
    call = _SCORE_PATHS[path]

    def build(source: Any) -> af.Predictions:
        return af.from_scores(source, example="n", decision="argmax", classes=[0, 1, 2])

    got = call(build(frame), by=_BY)
    assert_frame_equal(
        got, _alone(frame, call, build), check_row_order=False, check_dtypes=False, abs_tol=1e-12
    )
    assert_frame_equal(call(build(frame.lazy()), by=_BY), got, check_row_order=False)
    duckdb = pytest.importorskip("duckdb")
    relation = duckdb.connect().from_arrow(frame.to_arrow())
    assert_frame_equal(
        call(build(relation), by=_BY), got, check_row_order=False, check_dtypes=False, abs_tol=1e-12
    )


def test_binary_on_one_class_and_duckdb_enum_keys_with_a_null_key_hostile_names_and_a_broken_source(
    tmp_path: Path,
) -> None:
    """This session's paths: the binary operator on groups holding one class, and DuckDB ENUM
    by-keys, with a null key named like the stand-in key, truth and predictions named like cells."""
    from sklearn.metrics import f1_score

    frame = pl.DataFrame(
        {
            KEY: ["a", "a", None, None, "b", "b"],
            HOSTILE: [1, 1, 0, 0, 1, 0],
            "fn": [1, 0, 0, 1, 1, 0],
        }
    )
    got = af.from_labels(frame, y_true=HOSTILE, y_pred="fn", class_universe="group").evaluate(
        "f1", "binary", by=KEY, convention="zero"
    )
    for key, value in zip(got[KEY], got["value"], strict=True):
        part = frame.filter(pl.col(KEY).is_null() if key is None else pl.col(KEY) == key)
        assert value == pytest.approx(f1_score(part[HOSTILE], part["fn"], zero_division=0.0)), key
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "enum.parquet"
    frame.write_parquet(path)
    con = duckdb.connect()
    rel = con.sql(f"select \"{KEY}\"::ENUM('b', 'a') as \"{KEY}\", {HOSTILE}, fn from read_parquet('{path}')")
    enum = frame.with_columns(pl.col(KEY).cast(pl.Enum(["b", "a"])))
    pr = af.from_labels(rel, y_true=HOSTILE, y_pred="fn")
    want = af.from_labels(enum, y_true=HOSTILE, y_pred="fn").evaluate("f1", "macro", by=KEY)
    assert_frame_equal(pr.evaluate("f1", "macro", by=KEY), want)
    path.write_bytes(b"garbage" * 10)  # broken after the relation was made
    with pytest.raises(af.errors.SourceError):
        af.from_labels(rel, y_true=HOSTILE, y_pred="fn").evaluate("f1", "macro", by=KEY)
