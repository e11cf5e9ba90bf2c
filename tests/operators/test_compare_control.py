"""``compare(..., control=[...])``: groups against the overall of their own control level.

The oracle: for each level of the control columns (nulls are a level), the rows of
that level alone, compared by the other by-columns, give the same rows, the same
overall and the same summary (fairlearn's ``control_features``). A differential test
against fairlearn's MetricFrame runs where fairlearn is installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.operators.compare import SUMMARY_COLUMNS
from tests.strategies import (
    HOSTILE_NAMES,
    RESULT_NAMES,
    ROLE_DEFAULTS,
    LabelCase,
    distinct_names,
    group_filter,
    label_frames,
    rename_columns,
)
from tests.test_null_keys import assert_groups_equal

SETTINGS = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
FRAME = pl.read_parquet(Path(__file__).parent.parent.parent / "examples" / "predictions.parquet")
MEASURES = ["recall", "f1", "mcc"]
OPERATORS = ["micro", "macro"]
CONVENTIONS = ["exclude", "zero"]
KW: dict[str, Any] = {
    "measures": MEASURES,
    "operators": OPERATORS,
    "convention": CONVENTIONS,
    "columns": "all",  # the columns of the lean default and the others
}
STAT = ["measure", "operator", "convention"]
COMPARED = ["value", "n_entries", "n_undefined", "overall", "difference_to_overall", "ratio_to_overall"]


def _levels(frame: pl.DataFrame, control: list[str]) -> list[tuple[Any, ...]]:
    return frame.select(control).unique().rows()


def _with_level(
    df: pl.DataFrame, frame: pl.DataFrame, control: list[str], level: tuple[Any, ...]
) -> pl.DataFrame:
    lits = [pl.lit(v, dtype=frame.schema[c]).alias(c) for c, v in zip(control, level, strict=True)]
    return df.select(*lits, pl.all())


def _per_level(case: LabelCase, control: list[str], rest: list[str], **kwargs: Any) -> pl.DataFrame:
    """compare(by=rest) on each control level alone (the global universe declared), stacked."""
    parts = []
    for level in _levels(case.frame, control):
        sub = case.frame.filter(group_filter(control, level))
        got = af.from_labels(sub, **case.roles(), **case.universe()).compare(**KW, by=rest, **kwargs)
        parts.append(_with_level(got, case.frame, control, level))
    return pl.concat(parts, how="vertical_relaxed")


# ---------------------------------------------------------------------------
# The oracle: each control level alone


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@SETTINGS
@given(case=label_frames(min_keys=2, max_keys=3, max_n=20, max_m=3), data=st.data())
def test_control_equals_each_level_alone(case: LabelCase, data: st.DataObject) -> None:
    n_control = data.draw(st.integers(1, len(case.by) - 1), label="n_control")
    control = data.draw(st.permutations(case.by), label="order")[:n_control]
    rest = [k for k in case.by if k not in control]
    pr = af.from_labels(case.frame, **case.roles())
    got = pr.compare(**KW, by=case.by, control=control)
    assert got.columns[: len(case.by)] == case.by
    expected = _per_level(case, control, rest)
    cols = [*case.by, *STAT, *COMPARED]
    assert_groups_equal(got.select(cols), expected.select(cols), case.by, check_dtypes=False)
    # the summary: one row per control level, as each level's own summary
    summary = pr.compare(**KW, by=case.by, control=control, summary=True)
    assert summary.columns[: len(control)] == control
    expected = _per_level(case, control, rest, summary=True)
    assert_groups_equal(summary, expected.select(summary.columns), control, check_dtypes=False)


@pytest.mark.slow
@SETTINGS
@given(case=label_frames(min_keys=2, max_keys=2, max_n=20, max_m=3), data=st.data())
def test_control_with_hostile_names(case: LabelCase, data: st.DataObject) -> None:
    reserved = {*RESULT_NAMES["compare"], "reference", "difference_to_reference", "ratio_to_reference"}
    # the summary's own columns are refused by design
    reserved |= {"grouping_set", "grouping_id", *SUMMARY_COLUMNS}
    names = data.draw(distinct_names(2, avoid=[*ROLE_DEFAULTS, *reserved], pool=HOSTILE_NAMES), label="names")
    mapping = dict(zip(case.by, names, strict=True))
    frame = rename_columns(case.frame, mapping)
    pr = af.from_labels(frame, **case.roles())
    got = pr.compare(**KW, by=names, control=names[0])
    expected = af.from_labels(case.frame, **case.roles()).compare(**KW, by=case.by, control=case.by[0])
    assert got.columns == [mapping.get(c, c) for c in expected.columns]
    assert_groups_equal(got.rename({v: k for k, v in mapping.items()}), expected, case.by)
    summary = pr.compare(**KW, by=names, control=[names[0]], summary=True)
    assert summary.columns[0] == names[0]


# ---------------------------------------------------------------------------
# Against filtering, on the example log (model x day)


@pytest.mark.slow
def test_each_day_against_its_own_model() -> None:
    pr = af.from_labels(FRAME)
    got = pr.compare(["f1", "mcc"], ["micro", "macro"], by=["model", "day"], control="model", columns="all")
    assert got.height == 12 * 4
    for row in got.iter_rows(named=True):
        model = FRAME.filter(pl.col("model") == row["model"])
        alone = af.from_labels(model.filter(pl.col("day") == row["day"])).compute(
            row["measure"], row["operator"]
        )
        own = af.from_labels(model).compute(row["measure"], row["operator"])
        assert row["value"] == pytest.approx(alone)
        assert row["overall"] == pytest.approx(own)
        assert row["difference_to_overall"] == pytest.approx(alone - own)
        assert row["ratio_to_overall"] == pytest.approx(alone / own)
    # not the all-models overall
    plain = pr.compare(["f1"], ["macro"], by=["model", "day"])
    assert plain["overall"].n_unique() == 1
    assert got.filter(pl.col("measure") == "f1", pl.col("operator") == "macro")["overall"].n_unique() == 3


def test_a_control_column_not_in_by_comes_first() -> None:
    pr = af.from_labels(FRAME)
    got = pr.compare("f1", "macro", by="day", control="model")
    same = pr.compare("f1", "macro", by=["model", "day"], control="model")
    # the same rows; the numbers to the last bits (the streaming engine sums in no fixed order)
    assert_frame_equal(got, same, check_exact=False, rel_tol=1e-12, abs_tol=1e-15)


def test_summary_per_control_level() -> None:
    pr = af.from_labels(FRAME)
    summary = pr.compare("f1", "macro", by=["model", "day"], control="model", summary=True)
    assert summary.columns[:4] == ["model", "measure", "operator", "convention"]
    assert summary.height == 3
    for row in summary.iter_rows(named=True):
        rows = FRAME.filter(pl.col("model") == row["model"])
        alone = af.from_labels(rows).compare("f1", "macro", by="day", summary=True).row(0, named=True)
        assert row["group_min"] == pytest.approx(alone["group_min"])
        assert row["argmax"] == alone["argmax"]  # labelled by the compared column only
        assert row["overall"] == pytest.approx(alone["overall"])
        assert row["n_groups"] == 4


def test_reference_within_each_level_and_null_control_keys() -> None:
    df = pl.DataFrame(
        {
            "m": [None, None, None, None, "x", "x", "x"],
            "s": ["a", "a", "b", None, "a", None, None],
            "y_true": [0, 1, 1, 0, 1, 0, 1],
            "y_pred": [0, 1, 0, 0, 1, 1, 1],
        }
    )
    got = af.from_labels(df).compare(
        "recall", "micro", by=["m", "s"], control="m", reference={"s": None}, columns="all"
    )
    rows = {(r["m"], r["s"]): r for r in got.iter_rows(named=True)}
    # the null model is a level of its own: its overall is its 4 rows (3 of 4 right)
    assert rows[(None, "a")]["overall"] == pytest.approx(0.75)
    assert rows[(None, "a")]["value"] == pytest.approx(1.0)
    assert rows[(None, "b")]["value"] == pytest.approx(0.0)
    assert rows[("x", "a")]["overall"] == pytest.approx(2 / 3)
    # the reference (s null) is taken within each level: the null model's null segment is 1 row, right
    assert rows[(None, "b")]["reference"] == pytest.approx(1.0)
    assert rows[("x", "a")]["reference"] == pytest.approx(0.5)
    # a level without the reference group has a null reference
    only = af.from_labels(df).compare("recall", "micro", by=["m", "s"], control="m", reference={"s": "b"})
    assert only.filter(pl.col("m") == "x")["reference"].null_count() == 2
    summary = af.from_labels(df).compare("recall", "micro", by=["m", "s"], control="m", summary=True)
    assert summary.sort("m", nulls_last=True)["argmin"].to_list() == ["(null)", "b"]  # x, then the null model


def test_control_errors() -> None:
    pr = af.from_labels(FRAME)
    with pytest.raises(af.errors.OptionError, match="nothing is left to compare"):
        pr.compare("f1", by="model", control="model")
    with pytest.raises(af.errors.OptionError, match="repeat"):
        pr.compare("f1", by="day", control=["model", "model"])
    with pytest.raises(af.errors.OptionError, match="compared by column"):
        pr.compare("f1", by=["model", "day"], control="model", reference={"model": "gbm", "day": "x"})
    with pytest.raises(af.errors.OptionError, match="not in the data"):
        pr.compare("f1", by=["model", "day"], control="model", reference={"day": "never"})
    with pytest.raises(af.errors.ColumnNotFoundError, match="nope"):
        pr.compare("f1", by="day", control="nope")
    with pytest.raises(af.errors.OptionError, match="collides"):
        af.from_labels(FRAME.rename({"model": "overall"})).compare("f1", by="day", control="overall")
    with pytest.raises(af.errors.OptionError, match="collides"):
        af.from_labels(FRAME.rename({"model": "ratio"})).compare(
            "f1", by="day", control="ratio", summary=True
        )


def test_broken_source_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "bad.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(af.errors.SourceError):
        af.from_labels(str(tmp_path / "bad.parquet")).compare("f1", by="model", control="day")


# ---------------------------------------------------------------------------
# fairlearn's MetricFrame with control_features (where fairlearn is installed)


def test_matches_fairlearn_control_features() -> None:
    fairlearn = pytest.importorskip("fairlearn.metrics")
    from sklearn.metrics import f1_score, recall_score

    pdf = FRAME.to_pandas()
    metrics = {
        "recall": lambda t, p: recall_score(t, p, average="macro", zero_division=0),
        "f1": lambda t, p: f1_score(t, p, average="micro"),
    }
    mf = fairlearn.MetricFrame(
        metrics=metrics,
        y_true=pdf["y_true"],
        y_pred=pdf["y_pred"],
        sensitive_features=pdf[["day"]],
        control_features=pdf[["model"]],
    )
    pr = af.from_labels(FRAME)
    for name, op in (("recall", "macro"), ("f1", "micro")):
        got = pr.compare(name, op, by="day", control="model", convention="zero")
        for row in got.iter_rows(named=True):
            assert row["value"] == pytest.approx(mf.by_group[name][(row["model"], row["day"])])
            assert row["overall"] == pytest.approx(mf.overall[name][row["model"]])
        summary = pr.compare(name, op, by="day", control="model", convention="zero", summary=True)
        between = mf.difference(method="between_groups")[name]
        to_overall = mf.difference(method="to_overall")[name]
        ratio = mf.ratio(method="between_groups")[name]
        for row in summary.iter_rows(named=True):
            assert row["group_min"] == pytest.approx(mf.group_min()[name][row["model"]])
            assert row["group_max"] == pytest.approx(mf.group_max()[name][row["model"]])
            assert row["difference"] == pytest.approx(between[row["model"]])
            assert row["ratio"] == pytest.approx(ratio[row["model"]])
            own = got.filter(pl.col("model") == row["model"])["difference_to_overall"].abs().max()
            assert own == pytest.approx(to_overall[row["model"]])
