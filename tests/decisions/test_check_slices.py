"""Slice rules of checks (``slices = [columns]``): "no slice significantly worse"."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import aggframe as af
from aggframe.decisions.rules import RuleError, parse_rules
from aggframe.interop.cli import main

SEG = "the segment"  # a hostile column name: a space


def planted(*, bad: str | None = "b", n: int = 600, seed: int = 0) -> pl.DataFrame:
    """Three classes, 15% errors everywhere; in segment ``bad`` (None: nowhere) half the rows wrong."""
    rng = np.random.default_rng(seed)
    seg = rng.choice(["a", "b", "c"], n).astype(object)
    seg[rng.random(n) < 0.15] = None  # a null segment is a real slice
    region = rng.choice(["x", "y"], n)
    y = rng.integers(0, 3, n)
    wrong = rng.random(n) < 0.15
    if bad is not None:
        wrong |= (seg == bad) & (rng.random(n) < 0.5)
    pred = np.where(wrong, (y + 1) % 3, y)
    return pl.DataFrame({"y_true": y, "y_pred": pred, SEG: list(seg), "region": region})


def rule(**kw: Any) -> dict[str, Any]:
    return {"measure": "recall", "operator": "macro", "slices": [SEG, "region"], "n_boot": 60, **kw}


def test_a_planted_worse_slice_fails_the_rule_and_is_named() -> None:
    pr = af.from_labels(planted(bad="b"))
    rules = [
        {"measure": "f1", "min": 0.0},
        rule(min_examples=40),
        {"measure": "f1", "by": "region", "min": 0.0},
    ]
    got = af.check(pr, rules)
    assert not got.passed
    assert set(got.frame["rule"]) == {1, 2, 3}
    assert got.frame["rule"].is_sorted()
    fails = got.failures
    assert set(fails["rule"]) == {2}
    labels = fails["group_label"].to_list()
    assert f"{SEG}=b" in labels
    assert all(label.startswith(f"{SEG}=b") for label in labels), labels
    for row in fails.iter_rows(named=True):
        assert row["value"] < row["baseline"]
        assert row["compared"] <= 0.05
        assert re.fullmatch(
            rf"macro recall \d\.\d+ in slice {re.escape(row['group_label'])} vs \d\.\d+ elsewhere "
            r"\(p_adj (< 0\.001|0\.\d+), [\d,]+ examples\)",
            row["message"],
        ), row["message"]
    # the other rules are untouched by the slice rule between them
    assert got.frame.filter(pl.col("rule") == 3)["group_label"].to_list() == ["region=x", "region=y"]
    assert "macro recall: no slice of the segment, region significantly worse" in got.frame["name"].to_list()


def test_no_planted_effect_passes_with_one_row() -> None:
    got = af.check(af.from_labels(planted(bad=None, seed=3)), [rule(min_examples=40, n_boot=100)])
    assert got.passed
    assert got.frame.height == 1
    row = got.frame.row(0, named=True)
    assert row["status"] == "pass"
    assert row["group_label"] == "(all)"
    assert re.fullmatch(
        r"macro recall: no slice significantly worse among \d+ slices of the segment, region "
        r"\(smallest p_adj (0|1)\.\d+\)",
        row["message"],
    ), row["message"]
    assert row["compared"] > 0.05


def test_a_null_slice_can_be_the_worse_one() -> None:
    data = planted(bad=None, seed=1)
    all_wrong = pl.when(pl.col(SEG).is_null()).then((pl.col("y_true") + 1) % 3).otherwise("y_pred")
    got = af.check(af.from_labels(data.with_columns(all_wrong.alias("y_pred"))), [rule(slices=[SEG])])
    assert got.failures["group_label"].to_list() == [f"{SEG}=(null)"]
    assert got.failures["value"].to_list() == [0.0]


def test_severity_warn_does_not_fail_the_run() -> None:
    got = af.check(af.from_labels(planted(bad="b")), [rule(min_examples=40, severity="warn")])
    assert got.passed
    assert set(got.frame["status"]) == {"warn"}
    assert got.counts()["warn"] == got.frame.height >= 1


def test_too_few_examples_in_every_slice_is_skipped() -> None:
    got = af.check(af.from_labels(planted(bad="b")), [rule(min_examples=5000)])
    assert got.frame["status"].to_list() == ["skipped"]
    assert "min_examples 5,000" in got.frame["message"][0]


def test_a_rule_object_with_slices_round_trips() -> None:
    r = af.Rule("recall", "macro", slices=("region",), alpha=0.01, correction="bh", n_boot=40)
    (back,) = parse_rules([r.as_dict()])
    assert back == r
    assert back.max_depth is None
    assert back.label.endswith("no slice of region significantly worse")


@pytest.mark.parametrize(
    ("extra", "key", "words"),
    [
        ({"correction": "bonferroni"}, "correction", "expected one of 'holm', 'bh'"),
        ({"alpha": 0.0}, "alpha", "(0, 1)"),
        ({"alpha": 1.5}, "alpha", "(0, 1)"),
        ({"slices": []}, "slices", "empty"),
        ({"slices": ["region", "region"]}, "slices", "named twice"),
        ({"slices": [1]}, "slices", "list of column names"),
        ({"max_depth": 0}, "max_depth", ">= 1"),
        ({"min_examples": 0}, "min_examples", ">= 1"),
        ({"by": ["region"]}, "by", "takes no bound, by, where or baseline"),
        ({"where": "region = 'x'"}, "where", "takes no bound"),
        ({"min": 0.5}, "min", "takes no bound"),
        ({"max_drop": 0.1}, "max_drop", "takes no bound"),
    ],
)
def test_each_bad_key_is_named_with_its_rule(extra: dict[str, Any], key: str, words: str) -> None:
    spec = {**rule(), **extra}
    with pytest.raises(RuleError) as err:
        parse_rules([{"measure": "f1", "min": 0.1}, spec], source="gate.toml")
    assert str(err.value).startswith(f"gate.toml, rule 2: key {key!r}: ")
    assert words in str(err.value)


@pytest.mark.parametrize("key", ["max_depth", "alpha", "correction"])
def test_slice_options_without_slices_are_refused(key: str) -> None:
    value = {"max_depth": 2, "alpha": 0.05, "correction": "holm"}[key]
    with pytest.raises(RuleError, match=rf"rule 1: key '{key}': is an option of a slice rule"):
        parse_rules([{"measure": "f1", "min": 0.1, key: value}])


def test_slices_are_refused_in_a_monitor_rule() -> None:
    with pytest.raises(RuleError, match=r"rule 1: key 'slices': bounds a check"):
        parse_rules([{"measure": "f1", "slices": ["region"]}], kind="monitor")


def test_a_slice_column_that_is_missing_is_named_with_the_rule() -> None:
    with pytest.raises(af.AggframeError, match=r"rule 1: key 'slices': .*nope"):
        af.check(af.from_labels(planted()), [rule(slices=["nope"])])


TOML = f"""
[[rule]]
name = "f1 floor"
measure = "f1"
min = 0.5

[[rule]]
measure = "recall"
operator = "macro"
slices = ["{SEG}", "region"]
max_depth = 2
alpha = 0.05
correction = "holm"
min_examples = 40
n_boot = 60
severity = "{{severity}}"
"""


@pytest.mark.parametrize(("severity", "code"), [("error", 1), ("warn", 0)])
def test_a_toml_slice_rule_through_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], severity: str, code: int
) -> None:
    data, gate, junit = tmp_path / "p.parquet", tmp_path / "gate.toml", tmp_path / "c.xml"
    planted(bad="b").write_parquet(data)
    gate.write_text(TOML.format(severity=severity), encoding="utf-8")
    assert main(["check", str(gate), str(data), "--junit", str(junit)]) == code
    out, _ = capsys.readouterr()
    word = "FAIL" if code else "WARN"
    lines = [line for line in out.splitlines() if line.startswith(f"{word:9} rule 2: macro recall ")]
    assert any(f" in slice {SEG}=b vs " in line for line in lines), out
    assert "rule 1" not in out
    cases = ET.parse(junit).getroot().iter("testcase")
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    if code:
        assert f"{SEG}=b" in failed
        assert all(name and name.startswith(f"{SEG}=b") for name in failed)
    else:
        assert failed == []


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        ('slices = ["nope"]', "gate.toml, rule 1: key 'slices': by column 'nope' is not in the frame"),
        (
            'slices = ["region"]\nalpha = 2',
            "gate.toml, rule 1: key 'alpha': expected a level in (0, 1), got 2",
        ),
    ],
)
def test_a_bad_slice_rule_on_the_command_line_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], keys: str, words: str
) -> None:
    data, gate = tmp_path / "p.parquet", tmp_path / "gate.toml"
    planted().write_parquet(data)
    gate.write_text(f'[[rule]]\nmeasure = "f1"\noperator = "macro"\n{keys}\n', encoding="utf-8")
    assert main(["check", str(gate), str(data)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert words in err
    assert "Traceback" not in err
