"""Group comparisons (MetricFrame-like) and file inputs (paths, globs, hive partitions, CSV)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe._columns import group_label, key_label

EXAMPLES = Path(__file__).parent.parent.parent / "examples"
FRAME = pl.read_parquet(EXAMPLES / "predictions.parquet")


def test_compare_against_separate_evaluations() -> None:
    pr = af.from_labels(FRAME)
    out = pr.compare(
        ["f1", "mcc"], ["micro", "macro"], by="model", reference={"model": "baseline"}, columns="all"
    )
    overall = af.from_labels(FRAME).evaluate(["f1", "mcc"], ["micro", "macro"])
    for row in out.iter_rows(named=True):
        alone = af.from_labels(FRAME.filter(pl.col("model") == row["model"])).compute(
            row["measure"], row["operator"]
        )
        base = af.from_labels(FRAME.filter(pl.col("model") == "baseline")).compute(
            row["measure"], row["operator"]
        )
        ref = overall.filter(pl.col("measure") == row["measure"], pl.col("operator") == row["operator"])[
            "value"
        ].item()
        assert row["value"] == pytest.approx(alone)
        assert row["overall"] == pytest.approx(ref)
        assert row["difference_to_overall"] == pytest.approx(alone - ref)
        assert row["ratio_to_overall"] == pytest.approx(alone / ref)
        assert row["ratio_to_reference"] == pytest.approx(alone / base)
    summary = pr.compare(["f1", "mcc"], ["micro", "macro"], by="model", summary=True)
    for row in summary.iter_rows(named=True):
        values = out.filter(pl.col("measure") == row["measure"], pl.col("operator") == row["operator"])
        assert row["group_min"] == pytest.approx(values["value"].min())
        assert row["group_max"] == pytest.approx(values["value"].max())
        assert row["difference"] == pytest.approx(values["value"].max() - values["value"].min())
        assert row["ratio"] == pytest.approx(values["value"].min() / values["value"].max())
        assert row["argmax"] == values.sort("value")["model"][-1]


def test_compare_ratio_with_zero_is_null_and_errors() -> None:
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 1, 0, 0], "y_pred": [0, 0, 0, 0]})
    out = af.from_labels(df, task="binary").compare(
        "recall", "micro", by="g", reference={"g": "a"}, columns="all"
    )
    assert out.filter(pl.col("g") == "b")["ratio_to_reference"].to_list() == [None]
    with pytest.raises(af.errors.OptionError, match="not in the data"):
        af.from_labels(df).compare("f1", by="g", reference={"g": "z"})
    with pytest.raises(af.errors.OptionError, match="needs by="):
        af.from_labels(df).compare("f1", by=[])


#: keys that read alike under a naive rule: a null and the string "null", a real "(null)" and
#: "(all)", the separator inside a key, an empty string, a blank at an end, a quote in front
HOSTILE_KEYS = [None, "null", "(null)", "(all)", "a · b", "a", "", " a", '"a"']
#: their labels: a string as itself unless it could read as another key or a marker
HOSTILE_LABELS = ["(null)", "null", '"(null)"', '"(all)"', '"a · b"', "a", '""', '" a"', '"\\"a\\""']


def test_summary_labels_tell_every_group_apart() -> None:
    """compare(summary=True) labelled a null key and the string "null" alike ('null'), and joined
    two keys with "," whatever they held (("x,y", "z") and ("x", "y,z") both 'x,y,z'): argmin and
    argmax named two groups at once. One label per group now, the groups' own."""
    rng = np.random.default_rng(3)
    n = 400
    g = [HOSTILE_KEYS[i] for i in rng.integers(0, len(HOSTILE_KEYS), n)]
    h = [["x,y", "x", "y · z", None][i] for i in rng.integers(0, 4, n)]
    y = rng.integers(0, 3, n)
    frame = pl.DataFrame(
        {"g": g, "h": h, "y_true": y, "y_pred": np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))},
        schema_overrides={"g": pl.String, "h": pl.String},
    )
    pr = af.from_labels(frame)
    label = dict(zip(HOSTILE_KEYS, HOSTILE_LABELS, strict=True))
    other = {"x,y": "x,y", "x": "x", "y · z": '"y · z"', None: "(null)"}
    for by, name in (
        (["g"], lambda k: label[k[0]]),
        (["g", "h"], lambda k: f"{label[k[0]]} · {other[k[1]]}"),
    ):
        groups = pr.compare("f1", ["micro", "macro"], by=by)
        names = [name(k) for k in groups.select(by).rows()]
        assert len(set(names)) == groups.height // 2  # one label per group (two operators)
        summary = pr.compare("f1", ["micro", "macro"], by=by, summary=True)
        for row in summary.iter_rows(named=True):
            mine = groups.filter(pl.col("operator") == row["operator"])
            values = dict(zip([name(k) for k in mine.select(by).rows()], mine["value"], strict=True))
            assert values[row["argmin"]] == row["group_min"] == mine["value"].min()
            assert values[row["argmax"]] == row["group_max"] == mine["value"].max()


@given(
    st.lists(
        st.tuples(
            st.none() | st.text(alphabet='ab ·,()"\\\nnulal', max_size=6),
            st.none() | st.integers(-2, 2),
            st.booleans(),
        ),
        min_size=1,
        max_size=30,
    )
)
@settings(max_examples=200, deadline=None)
def test_group_labels_are_one_to_one(rows: list[tuple[str | None, int | None, bool]]) -> None:
    """The one rule behind every group label (key_label, joined by group_label): distinct groups,
    distinct labels, whatever the strings hold; a rolled-up key reads (all) and is no real key."""
    frame = pl.DataFrame(
        {"s": [r[0] for r in rows], "i": [r[1] for r in rows], "rolled": [r[2] for r in rows]},
        schema={"s": pl.String, "i": pl.Int64, "rolled": pl.Boolean},
    )
    labels = frame.select(
        group_label(
            [
                key_label(pl.col("s"), pl.String, rolled_up=pl.col("rolled")),
                key_label(pl.col("i"), pl.Int64),
            ]
        )
    ).to_series()
    groups = [(None if r[2] else r[0], r[2], r[1]) for r in rows]  # a rolled-up key has no value
    seen = dict(zip(labels, groups, strict=True))
    assert len(set(seen.values())) == len(set(groups))  # no two groups share a label
    assert all(seen[lab] == grp for lab, grp in zip(labels, groups, strict=True))
    for lab, (s, rolled, _) in zip(labels, groups, strict=True):
        if not rolled and s is not None and s.isalpha():
            assert lab.startswith(s + " · ")  # a plain string reads as itself


def test_paths_globs_hive_partitions_and_csv(tmp_path: Path) -> None:
    expected = af.from_labels(FRAME).evaluate(["f1", "mcc"], by="model")
    for model in FRAME["model"].unique().to_list():
        part = tmp_path / "hive" / f"model={model}"
        part.mkdir(parents=True)
        FRAME.filter(pl.col("model") == model).drop("model").write_parquet(part / "0.parquet")
    hive = af.from_labels(str(tmp_path / "hive")).evaluate(["f1", "mcc"], by="model")
    assert_frame_equal(hive, expected, abs_tol=1e-12)
    glob = af.from_labels(str(tmp_path / "hive" / "*" / "*.parquet")).evaluate(["f1", "mcc"])
    assert_frame_equal(glob, af.from_labels(FRAME).evaluate(["f1", "mcc"]), abs_tol=1e-12)
    FRAME.write_csv(tmp_path / "p.csv")
    assert_frame_equal(
        af.from_labels(tmp_path / "p.csv").evaluate(["f1", "mcc"], by="model"), expected, abs_tol=1e-12
    )
    with pytest.raises(af.errors.SourceError, match="not found"):
        af.from_labels(str(tmp_path / "nope.parquet"))
    with pytest.raises(af.errors.SourceError, match="unsupported"):
        af.from_labels([tmp_path / "p.csv", EXAMPLES / "predictions.parquet"])


def test_scan_is_lazy(tmp_path: Path) -> None:
    path = tmp_path / "x.parquet"
    pl.DataFrame({"y_true": np.arange(4) % 2, "y_pred": np.ones(4, dtype=int)}).write_parquet(path)
    assert isinstance(af.scan(path), pl.LazyFrame)
