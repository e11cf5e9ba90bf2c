"""af.check: rules -> one row per (rule, group) with a status; baselines, intervals, one scan."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.decisions.checks import _PRIVATE, RESULT_COLUMNS
from aggframe.decisions.rules import RULE_KEYS, parse_where, where_expression
from tests.strategies import distinct_names, label_frames

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def groups_frame(n_groups: int = 40, per: int = 60, *, bad: int | None = None, seed: int = 0) -> pl.DataFrame:
    """Label-form predictions of ``n_groups`` groups (column ``g``), about 90% right; group ``bad``
    about 40% right."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(n_groups), per)
    y = rng.integers(0, 3, g.size)
    right = rng.random(g.size) < np.where(g == bad, 0.4, 0.9)
    pred = np.where(right, y, (y + rng.integers(1, 3, g.size)) % 3)
    return pl.DataFrame({"g": g, "example": np.tile(np.arange(per), n_groups), "y_true": y, "y_pred": pred})


# ---------------------------------------------------------------------------
# the verdicts


def test_planted_failure_in_one_group_of_many_is_the_only_one() -> None:
    pr = af.from_labels(groups_frame(bad=17))
    result = af.check(pr, [{"measure": "f1", "operator": "macro", "by": "g", "min": 0.7}])
    assert result.frame.height == 40
    fails = result.failures
    assert fails["g"].to_list() == [17]
    assert set(result.frame["status"]) == {"pass", "fail"}
    assert not result.passed
    expected = pr.evaluate("f1", "macro", by="g").sort("g")
    assert_frame_equal(result.frame.sort("g").select("g", "value"), expected.select("g", "value"))
    assert fails["message"][0] == f"macro f1 {round(fails['value'][0], 3)} < 0.7 for g=17 (60 examples)"
    with pytest.raises(
        af.errors.CheckFailedError, match=r"1 check\(s\) failed: macro f1 0\.\d+ < 0\.7 for g=17"
    ):
        result.raise_for_status()


def test_the_result_columns_and_the_rule_keys_have_one_spelling() -> None:
    pr = af.from_labels(groups_frame(4))
    result = af.check(pr, af.Rule("recall", "micro", by=("g",), min=0.5))
    assert result.frame.columns == ["rule", "name", "g", *RESULT_COLUMNS[2:]]
    assert sorted(RULE_KEYS) == sorted(f for f in af.Rule.__dataclass_fields__ if f != "origin")
    assert result.passed
    result.raise_for_status()  # nothing to raise


def test_a_value_exactly_at_its_bound_passes_and_just_beyond_fails() -> None:
    # micro recall = accuracy = 3/4 exactly
    pr = af.from_labels([0, 1, 2, 1], [0, 1, 2, 2])
    rules = [
        {"measure": "recall", "min": 0.75},
        {"measure": "recall", "max": 0.75},
        {"measure": "recall", "min": 0.75, "max": 0.75},
        {"measure": "recall", "min": 0.7500001},
        {"measure": "recall", "max": 0.7499999},
    ]
    got = af.check(pr, rules).frame
    assert got["status"].to_list() == ["pass", "pass", "pass", "fail", "fail"]
    assert got["bound"].to_list() == [0.75, 0.75, 0.75, 0.7500001, 0.7499999]
    assert got["comparison"].to_list() == [">=", "<=", ">=", ">=", "<="]


def test_a_value_off_its_bound_by_float_rounding_is_on_it() -> None:
    """The same data summed in another order (another engine, a cell store) differs in the last
    bits: a drop of 1e-16 is no drop, a value 1e-15 under its bound is at it; 1e-9 is not rounding."""
    pr = af.from_labels([0, 1, 2, 1], [0, 1, 2, 2])  # micro recall 0.75
    rules = [
        {"measure": "recall", "min": 0.75 + 1e-15},
        {"measure": "recall", "max": 0.75 - 1e-15},
        {"measure": "recall", "min": 0.0, "max": 0.75 - 1e-15},
        {"measure": "recall", "min": 0.75 + 1e-9},
        {"measure": "recall", "max": 0.75 - 1e-9},
        {"measure": "recall", "min": 0.0, "max": 0.75 - 1e-9},
    ]
    assert af.check(pr, rules).frame["status"].to_list() == ["pass"] * 3 + ["fail"] * 3
    expected = pr.evaluate("recall", "micro")
    drop = [{"measure": "recall", "max_drop": 0.0}]
    for shift, status in ((1e-15, "pass"), (1e-9, "fail")):
        baseline = expected.with_columns(pl.col("value") + shift)
        got = af.check(pr, drop, baseline=baseline).frame
        assert got["status"].to_list() == [status], shift


def test_groups_below_min_examples_are_skipped_with_the_reason() -> None:
    frame = pl.concat(
        [groups_frame(3, 60), groups_frame(1, 5, bad=0).with_columns(g=pl.lit(99, dtype=pl.Int64))]
    )
    result = af.check(af.from_labels(frame), [{"measure": "f1", "by": "g", "min": 0.99, "min_examples": 10}])
    small = result.frame.filter(pl.col("g") == 99)
    assert small["status"].to_list() == ["skipped"]
    assert small["n_examples"].to_list() == [5]
    assert small["message"][0] == "micro f1 for g=99: skipped, 5 examples < min_examples 10"
    assert result.frame.filter(pl.col("g") != 99)["status"].to_list() == ["fail"] * 3


def test_an_undefined_value_has_its_own_status_never_a_pass() -> None:
    # binary recall of group b, which has no positives: undefined
    frame = pl.DataFrame(
        {"g": ["a"] * 4 + ["b"] * 4, "y_true": [1, 0, 1, 0, 0, 0, 0, 0], "y_pred": [1, 0, 0, 0, 1, 0, 0, 0]}
    )
    pr = af.from_labels(frame, task="binary")
    result = af.check(pr, [{"measure": "recall", "operator": "binary", "by": "g", "min": 0.4}])
    got = dict(zip(result.frame["g"], result.frame["status"], strict=True))
    assert got == {"a": "pass", "b": "undefined"}
    assert result.counts()["undefined"] == 1
    assert (
        result.frame.filter(pl.col("g") == "b")["message"][0]
        == "binary recall is undefined for g=b (4 examples)"
    )
    assert result.passed  # undefined does not fail the run, and it is not a pass either


HOSTILE = ["tp", "n", "__af_x", "a b", 'q"uote', "ünï", "grouping_id"]


@pytest.mark.parametrize("name", HOSTILE)
def test_null_keys_and_hostile_names_as_by_keys(name: str) -> None:
    frame = groups_frame(3, 30, bad=1).with_columns(
        pl.when(pl.col("g") == 2).then(None).otherwise(pl.col("g").cast(pl.String)).alias(name)
    )
    pr = af.from_labels(frame.drop("g"))
    result = af.check(pr, [{"measure": "f1", "operator": "macro", "by": name, "min": 0.7}])
    frame_out = result.frame.sort(name, nulls_last=True)
    assert frame_out[name].to_list() == ["0", "1", None]
    assert frame_out["status"].to_list() == ["pass", "fail", "pass"]
    assert frame_out["group_label"].to_list() == [f"{name}=0", f"{name}=1", f"{name}=(null)"]
    expected = pr.evaluate("f1", "macro", by=name).sort(name, nulls_last=True)
    assert frame_out["value"].to_list() == expected["value"].to_list()


@pytest.mark.parametrize("name", ["status", "value", "group_label", "__af_rule"])
def test_a_by_key_named_like_a_result_column_is_an_error(name: str) -> None:
    frame = groups_frame(2).rename({"g": name})
    with pytest.raises(af.errors.OptionError, match=f"by column '{name}' has the name of a"):
        af.check(af.from_labels(frame), [{"measure": "f1", "by": name, "min": 0.5}])


# ---------------------------------------------------------------------------
# where


def test_where_filters_like_the_filtered_frame() -> None:
    frame = groups_frame(6, 40, bad=2).with_columns(day=pl.col("example") % 4)
    pr = af.from_labels(frame)
    rules = [
        {"measure": "f1", "operator": "macro", "by": "g", "where": "day >= 2 AND g IN (1, 2, 3)", "min": 0.7},
        {"measure": "f1", "operator": "macro", "by": "g", "min": 0.7},
        {"measure": "accuracy", "operator": "multiclass", "where": "NOT day = 0", "min": 0.7},
    ]
    got = af.check(pr, rules).frame
    one = got.filter(pl.col("rule") == 1).sort("g")
    want = af.from_labels(frame.filter((pl.col("day") >= 2) & pl.col("g").is_in([1, 2, 3]))).evaluate(
        "f1", "macro", by="g"
    )
    assert one["g"].to_list() == [1, 2, 3]
    assert one["value"].to_list() == pytest.approx(want.sort("g")["value"].to_list(), abs=1e-12)
    assert one["n_examples"].to_list() == [20, 20, 20]
    assert got.filter(pl.col("rule") == 2).height == 6
    three = got.filter(pl.col("rule") == 3)
    assert three["value"][0] == pytest.approx(af.from_labels(frame.filter(pl.col("day") != 0)).accuracy())


def test_where_language() -> None:
    df = pl.DataFrame(
        {
            "a b": [1, 2, None],
            "s": ["x", "it's", None],
            "d": pl.Series(["2026-01-01", "2026-02-01", None]).str.to_date(),
        }
    )
    schema = dict(df.schema)

    def rows(text: str) -> list[bool]:
        import narwhals.stable.v1 as nw

        return nw.from_native(df).select(where_expression(text, schema).alias("w"))["w"].to_list()

    assert rows('"a b" BETWEEN 2 AND 3') == [False, True, False]
    assert rows("s = 'it''s' OR s IS NULL") == [False, True, True]
    assert rows("s <> 'x'") == [False, True, False]  # a comparison with null keeps no row
    assert rows("d >= '2026-01-15'") == [False, True, False]
    assert rows('NOT ("a b" IN (1) OR s IS NOT NULL)') == [False, False, False]
    for bad, message in [
        ("a >", "expected a value, got the end"),
        ("a = 1 b", "unexpected 'b'"),
        ("a = @", "cannot read '@'"),
        ("", "an empty where"),
    ]:
        with pytest.raises(af.errors.RuleError, match=message):
            parse_where(bad)
    with pytest.raises(
        af.errors.RuleError, match="column 's' holds String values, compared with the number 1"
    ):
        where_expression("s = 1", schema)
    with pytest.raises(af.errors.RuleError, match="column 'nope' is not in the input"):
        where_expression("nope = 1", schema)


# ---------------------------------------------------------------------------
# baselines


def two_models(seed: int = 1, n: int = 400, worse: float = 0.0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    parts = []
    for model, acc in (("a", 0.85), ("b", 0.85 - worse)):
        right = rng.random(n) < acc
        pred = np.where(right, y, (y + 1) % 3)
        parts.append(pl.DataFrame({"model": model, "example": np.arange(n), "y_true": y, "y_pred": pred}))
    return pl.concat(parts)


def test_baseline_another_model_by_key() -> None:
    pr = af.from_labels(two_models(worse=0.1), example="example")
    rule = {"measure": "f1", "operator": "macro", "by": "model", "baseline": {"model": "a"}, "max_drop": 0.02}
    got = af.check(pr, [rule]).frame.sort("model")
    values = pr.evaluate("f1", "macro", by="model").sort("model")["value"].to_list()
    assert got["baseline"].to_list() == [values[0], values[0]]
    assert got["difference"].to_list() == pytest.approx([0.0, values[1] - values[0]], abs=1e-12)
    assert got["status"].to_list() == ["pass", "fail"]
    assert got["message"][1].startswith(
        f"macro f1 {round(values[1], 3)} vs baseline {round(values[0], 3)}: drop "
    )
    rel = {**rule, "max_drop": None, "max_relative_drop": (values[0] - values[1]) / values[0] + 1e-9}
    assert af.check(pr, [rel]).frame["status"].to_list() == ["pass", "pass"]


def test_baseline_from_a_store_and_from_a_frame(tmp_path: Path) -> None:
    last = two_models(seed=3)
    store = af.from_labels(last, example="example").write_cells(tmp_path / "last", by=["model"])
    now = af.from_labels(two_models(seed=4, worse=0.15), example="example")
    rules = [{"measure": "accuracy", "operator": "multiclass", "by": "model", "max_drop": 0.05}]
    from_store = af.check(now, rules, baseline=store).frame.sort("model")
    before = af.from_cells(store).evaluate("accuracy", "multiclass", by="model").sort("model")
    assert from_store["baseline"].to_list() == before["value"].to_list()
    assert from_store["status"].to_list() == ["pass", "fail"]
    # the same from Predictions, a frame of expected values, and a Parquet file of them
    assert_frame_equal(af.check(now, rules, baseline=af.from_cells(store)).frame.sort("model"), from_store)
    assert_frame_equal(af.check(now, rules, baseline=before).frame.sort("model"), from_store)
    before.write_parquet(tmp_path / "expected.parquet")
    named = [{**rules[0], "baseline": str(tmp_path / "expected.parquet")}]
    assert_frame_equal(
        af.check(now, named).frame.sort("model"),
        from_store.with_columns(name=pl.lit(af.check(now, named).frame["name"][0])),
    )
    # a group the baseline lacks is skipped, with the reason
    partial = before.filter(pl.col("model") == "a")
    got = af.check(now, rules, baseline=partial).frame.sort("model")
    assert got["status"].to_list() == ["pass", "skipped"]
    assert "no baseline value for this group" in got["message"][1]


# ---------------------------------------------------------------------------
# intervals


def test_interval_rules_hold_evaluates_intervals() -> None:
    pr = af.from_labels(groups_frame(5, 80, bad=3), example="example")
    rules = [
        {"measure": "recall", "operator": "macro", "by": "g", "on": "ci_low", "n_boot": 60, "min": 0.8},
        {"measure": "recall", "operator": "macro", "by": "g", "on": "ci_high", "n_boot": 60, "max": 0.95},
    ]
    got = af.check(pr, rules).frame.sort("rule", "g")
    want = pr.evaluate("recall", "macro", by="g", n_boot=60, seed=0).sort("g")
    low, high = got.filter(pl.col("rule") == 1), got.filter(pl.col("rule") == 2)
    for part in (low, high):
        assert part["ci_low"].to_list() == pytest.approx(want["ci_low"].to_list(), abs=1e-12)
        assert part["ci_high"].to_list() == pytest.approx(want["ci_high"].to_list(), abs=1e-12)
        assert part["value"].to_list() == pytest.approx(want["value"].to_list(), abs=1e-12)
    assert low["compared"].to_list() == low["ci_low"].to_list()
    assert high["compared"].to_list() == high["ci_high"].to_list()
    assert low["status"].to_list() == ["pass" if v >= 0.8 else "fail" for v in want["ci_low"]]
    assert "fail" in low["status"].to_list()
    assert low.filter(pl.col("g") == 3)["message"][0].startswith("macro recall (ci low) ")


def test_paired_drop_rule_uses_compares_paired_interval() -> None:
    pr = af.from_labels(two_models(worse=0.04), example="example")
    rule = {
        "measure": "f1",
        "operator": "macro",
        "by": "model",
        "baseline": {"model": "a"},
        "max_drop": 0.0,
        "on": "ci_high",
        "n_boot": 80,
    }
    got = af.check(pr, [rule]).frame.filter(pl.col("model") == "b")
    want = pr.compare("f1", "macro", by="model", reference={"model": "a"}, n_boot=80).filter(
        pl.col("model") == "b"
    )
    assert got["compared"][0] == pytest.approx(want["difference_to_reference_ci_high"][0], abs=1e-12)
    excludes = (
        bool(want["difference_to_reference_excludes_zero"][0]) and want["difference_to_reference"][0] < 0
    )
    assert (got["status"][0] == "fail") == excludes


def many_pairs(n_pairs: int, n: int, worse: float, seed: int) -> pl.DataFrame:
    """``n_pairs`` independent pairs of models a and b (column ``pair``), each on its own examples."""
    return pl.concat(
        [
            two_models(seed=seed + p, n=n, worse=worse).with_columns(
                pair=pl.lit(p), example=pl.col("example") + p * n
            )
            for p in range(n_pairs)
        ]
    )


@pytest.mark.parametrize(("worse", "at_most", "at_least"), [(0.0, 5, 0), (0.2, 30, 26)])
def test_paired_drop_rule_error_rate_and_power(worse: float, at_most: int, at_least: int) -> None:
    """Seeded simulation: of 60 (30) independent pairs of equally good models, the rule 'b's drop from a
    whose paired interval excludes zero' fails about 2.5% (one side of a 95% interval: 1.5 expected,
    at most 5 allowed); a clearly worse b fails nearly always."""
    n_pairs = 60 if worse == 0 else 30
    rule = {
        "measure": "accuracy",
        "operator": "multiclass",
        "by": ["pair", "model"],
        "baseline": {"model": "a"},
        "max_drop": 0.0,
        "on": "ci_high",
        "n_boot": 100,
    }
    pr = af.from_labels(many_pairs(n_pairs, 120, worse, seed=100), example="example")
    got = af.check(pr, [rule], seed=3).frame.filter(pl.col("model") == "b")
    assert got.height == n_pairs
    fails = int((got["status"] == "fail").sum())
    assert at_least <= fails <= at_most


# ---------------------------------------------------------------------------
# one scan


def _collects(monkeypatch: pytest.MonkeyPatch, fn: Any) -> int:
    calls: list[int] = []
    real = pl.collect_all

    def counting(frames: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(frames))
        return real(frames, *args, **kwargs)

    monkeypatch.setattr(pl, "collect_all", counting)
    fn()
    monkeypatch.undo()
    return len(calls)


def test_200_rules_over_1000_groups_from_one_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = groups_frame(1000, 6, seed=5).with_columns(h=pl.col("g") % 7, day=pl.col("example") % 3)
    measures = ["f1", "recall", "precision", "jaccard", "mcc"]
    operators = ["micro", "macro", "weighted"]
    rules = []
    for i in range(200):
        rule: dict[str, Any] = {"measure": measures[i % 5], "operator": operators[(i // 5) % 3], "min": 0.5}
        rule["by"] = [["g"], ["g", "h"], ["h"], []][i % 4]
        if i % 10 == 9:
            rule["where"] = f"day <> {i % 3}"
        rules.append(rule)
    pr = af.from_labels(frame.lazy(), n_classes=3)
    result: list[af.CheckResult] = []
    scans = _collects(monkeypatch, lambda: result.append(af.check(pr, rules)))
    one = _collects(
        monkeypatch,
        lambda: af.from_labels(frame.lazy(), n_classes=3).evaluate("f1", "macro", by=["g", "h", "day"]),
    )
    assert scans == one == 1
    got = result[0].frame
    sizes = got.group_by("rule").len().sort("rule")["len"].to_list()
    assert sizes == [[1000, 1000, 7, 1][i % 4] for i in range(200)]
    # a rule's value is the value of its own evaluation
    for i in (0, 9, 13):
        r = rules[i]
        sub = (
            frame.filter(pl.Series([True] * frame.height))
            if "where" not in r
            else frame.filter(pl.col("day") != i % 3)
        )
        want = af.from_labels(sub, n_classes=3).evaluate(r["measure"], r["operator"], by=r["by"] or None)
        mine = got.filter(pl.col("rule") == i + 1)
        keys = r["by"]
        if keys:
            mine, want = mine.sort(keys), want.sort(keys)
        assert mine["value"].to_list() == pytest.approx(want["value"].fill_nan(None).to_list(), abs=1e-12)
        undefined = mine.filter(pl.col("value").is_null())["status"].unique().to_list()
        assert undefined in ([], ["undefined"])


# ---------------------------------------------------------------------------
# rules: the errors, each with its message


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (
            {"measure": "f1", "minimum": 0.9},
            "rule 1: key 'minimum': unknown key; a rule's keys are name, measure",
        ),
        ({"measure": "f1x", "min": 0.9}, "rule 1: key 'measure': unknown measure 'f1x'"),
        (
            {"measure": "f1", "operator": "multiclass", "min": 0.9},
            "'f1' is not a measure of the multiclass operator",
        ),
        ({"measure": "f1", "min": "0.9"}, "rule 1: key 'min': expected a number, got '0.9'"),
        ({"measure": "f1", "min": True}, "key 'min': expected a number, got True"),
        ({"measure": "f1"}, "no bound: give min, max, max_drop or max_relative_drop"),
        ({"measure": "f1", "min": 0.5, "max_drop": 0.1}, "not both"),
        ({"measure": "f1", "operator": "mikro", "min": 0.5}, "key 'operator'"),
        (
            {"measure": "f1", "min": 0.5, "on": "ci_low"},
            "key 'on': on = 'ci_low' is an end of a bootstrap interval: give n_boot",
        ),
        (
            {"measure": "f1", "min": 0.5, "severity": "fatal"},
            "key 'severity': expected one of 'error', 'warn', got 'fatal'",
        ),
        ({"measure": "f1", "min": 0.5, "n_boot": 1}, "key 'n_boot': expected an integer >= 2"),
        ({"measure": "f1", "max_drop": -1}, "key 'max_drop': expected a number >= 0"),
        ({"measure": "f1", "by": "g", "max_drop": 0.1, "baseline": {"model": "a"}}, "'model' is not in by"),
        (
            {"name": "floor", "measure": "f1", "min": 0.5, "where": "g = "},
            "rule 1 \\('floor'\\): key 'where': expected a value",
        ),
    ],
)
def test_bad_rules_name_the_rule_and_the_key(rule: dict[str, Any], message: str) -> None:
    with pytest.raises(af.errors.RuleError, match=message):
        af.check(af.from_labels([0, 1], [0, 1]), [rule])


def test_a_drop_rule_without_a_baseline_and_a_missing_baseline_group() -> None:
    pr = af.from_labels(two_models(), example="example")
    with pytest.raises(
        af.errors.RuleError, match=r"rule 1: a drop rule \(max_drop / max_relative_drop\) needs a baseline"
    ):
        af.check(pr, [{"measure": "f1", "by": "model", "max_drop": 0.1}])
    with pytest.raises(af.errors.RuleError, match=r"the baseline group \{'model': 'z'\} is not in the data"):
        af.check(pr, [{"measure": "f1", "by": "model", "max_drop": 0.1, "baseline": {"model": "z"}}])
    with pytest.raises(
        af.errors.RuleError, match=r"the baseline '.*nowhere' is neither a cell store .* it does not exist"
    ):
        af.check(pr, [{"measure": "f1", "by": "model", "max_drop": 0.1}], baseline="nowhere")
    with pytest.raises(af.errors.ColumnNotFoundError, match=r"rule 1: by column 'nope' is not in the frame"):
        af.check(pr, [{"measure": "f1", "by": "nope", "min": 0.1}])


def test_rules_file_toml(tmp_path: Path) -> None:
    path = tmp_path / "gate.toml"
    path.write_text('[[rule]]\nmeasure = "f1"\noperator = "macro"\nby = ["g"]\nmin = 0.7\n', encoding="utf-8")
    pr = af.from_labels(groups_frame(5, bad=1))
    from_file = af.check(pr, path).frame
    assert_frame_equal(
        from_file, af.check(pr, [{"measure": "f1", "operator": "macro", "by": ["g"], "min": 0.7}]).frame
    )
    path.write_text('[[rule]]\nmeasure = "f1"\nmin = 0.7\nbogus = 1\n', encoding="utf-8")
    with pytest.raises(af.errors.RuleError, match=r"gate\.toml, rule 1: key 'bogus': unknown key"):
        af.check(pr, path)
    path.write_text('[[rule]]\nmeasure = "f1\n', encoding="utf-8")
    with pytest.raises(af.errors.RuleError, match=r"gate\.toml: not valid TOML: .*line 2"):
        af.check(pr, path)
    path.write_text('[rules]\nmeasure = "f1"\n', encoding="utf-8")
    with pytest.raises(
        af.errors.RuleError,
        match="key 'rules': unknown top-level key; a rules file holds \\[\\[rule\\]\\] tables only",
    ):
        af.check(pr, path)
    with pytest.raises(af.errors.RuleError, match="cannot read the rules file"):
        af.check(pr, tmp_path / "missing.toml")


def test_json_round_trip_is_valid_json(tmp_path: Path) -> None:
    import json

    pr = af.from_labels(groups_frame(3, bad=0))
    result = af.check(pr, [{"measure": "mcc", "operator": "multiclass", "by": "g", "min": 0.5}])
    doc = json.loads(result.to_json(tmp_path / "c.json"))
    assert doc["passed"] is False
    assert doc["counts"] == {"pass": 2, "skipped": 0, "undefined": 0, "warn": 0, "fail": 1}
    assert [r["status"] for r in doc["results"]] == result.frame["status"].to_list()
    assert doc["rules"] == [{"rule": 1, "measure": "mcc", "operator": "multiclass", "by": ["g"], "min": 0.5}]
    assert math.isclose(doc["results"][0]["value"], result.frame["value"][0])


def test_measures_on_scores() -> None:
    rng = np.random.default_rng(2)
    n, m = 90, 4
    y = rng.integers(0, m, n)
    scores = rng.dirichlet(np.ones(m), n) + 0.6 * np.eye(m)[y]
    frame = pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), m),
            "class": np.tile(np.arange(m), n),
            "score": (scores / scores.sum(axis=1, keepdims=True)).ravel(),
            "y": np.eye(m, dtype=np.int64)[y].ravel(),
            "part": np.repeat(np.arange(n) % 2, m),
        }
    )
    pr = af.from_scores(frame, decision="argmax")
    rules = [
        {"measure": "auroc", "operator": "macro", "by": "part", "min": 0.7},
        {"measure": "f1", "operator": "macro", "by": "part", "min": 0.2},
    ]
    got = af.check(pr, rules).frame.sort("rule", "part")
    want = pr.evaluate(["auroc", "f1"], "macro", by="part").sort("measure", "part")
    assert got["value"].to_list() == pytest.approx(want["value"].to_list(), abs=1e-12)
    assert got["n_examples"].to_list() == [45, 45, 45, 45]


@settings(max_examples=20, deadline=None)
@given(
    case=label_frames(example=False, max_n=25),
    names=distinct_names(3, avoid=("y_true", "y_pred")),
    data=st.data(),
)
def test_property_hostile_null_keys_give_evaluates_values(
    case: Any, names: list[str], data: st.DataObject
) -> None:
    """Any by-keys (null groups, hostile names): each (rule, group) row holds evaluate's value, its
    status follows the bound, and a name checks refuse is refused with a clear error, never a crash."""
    mapping = dict(zip(case.by, names, strict=False))
    frame = case.frame.rename(mapping)
    by = [mapping[k] for k in case.by]
    bound = data.draw(st.sampled_from([0.0, 0.3, 0.5, 1.0]))
    rule = {"measure": "f1", "operator": "macro", "by": by, "min": bound}
    pr = af.from_labels(frame)
    evaluated = ("convention", "n_entries", "n_undefined")  # columns of the evaluation checks read
    refused = [
        c
        for c in by
        if c in RESULT_COLUMNS
        or c in evaluated
        or c in _PRIVATE
        or c.startswith("__af_in")
        or c == "*"
        or (c.startswith("^") and c.endswith("$"))  # a column pattern to Polars
    ]
    if refused:  # a by-key named like a column of the result or a private one: a clear error
        with pytest.raises(af.errors.OptionError, match=re.escape(repr(refused[0]))):
            af.check(pr, [rule])
        return
    got = af.check(pr, [rule]).frame
    want = pr.evaluate("f1", "macro", by=by)
    joined = got.join(want, on=by, how="inner", nulls_equal=True, suffix="_want")
    assert joined.height == got.height == want.height
    for value, expected, status in joined.select("value", "value_want", "status").iter_rows():
        if expected is None or math.isnan(expected):
            assert value is None
            assert status == "undefined"
        else:
            assert value == pytest.approx(expected, abs=1e-12)
            assert status == ("pass" if expected >= bound else "fail")
