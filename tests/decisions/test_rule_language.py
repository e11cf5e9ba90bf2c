"""One rule language for checks and monitoring: one parser, one Rule type, kind-specific keys refused."""

from __future__ import annotations

import datetime as dt
import typing
from pathlib import Path

import polars as pl
import pytest

import aggframe as af
from aggframe import _options
from aggframe.decisions import monitor as monitor_module
from aggframe.decisions import rules
from aggframe.decisions.monitor import load_monitor_rules, monitor_rules
from aggframe.decisions.rules import CHECK_ONLY_KEYS, MONITOR_ONLY_KEYS, RULE_KEYS, RuleError, parse_rules


def _log() -> pl.DataFrame:
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=d) for d in range(8)]
    rows = [
        (day, model, y, (y + (1 if (i + d) % 5 == 0 else 0)) % 3)
        for d, day in enumerate(days)
        for model in ("a", None)
        for i, y in enumerate([0, 1, 2] * 10)
    ]
    return pl.DataFrame(rows, schema=["day", "model", "y_true", "y_pred"], orient="row")


def test_the_kind_specific_keys_partition_the_language() -> None:
    assert set(CHECK_ONLY_KEYS) | set(MONITOR_ONLY_KEYS) <= set(RULE_KEYS)
    assert not set(CHECK_ONLY_KEYS) & set(MONITOR_ONLY_KEYS)
    # one Severity, in _options, used by both
    assert typing.get_type_hints(af.Rule)["severity"] is _options.Severity
    assert monitor_module.Severity is _options.Severity
    assert rules.Severity is _options.Severity
    assert not hasattr(monitor_module, "MONITOR_RULE_KEYS")


@pytest.mark.parametrize("key", MONITOR_ONLY_KEYS)
def test_a_band_option_in_a_check_names_the_rule_and_key(key: str) -> None:
    value = {"band": "sd", "quantiles": [0.1, 0.9], "min_reference_windows": 3}.get(key, 0.5)
    with pytest.raises(
        RuleError, match=rf"gate, rule 2 \('x'\): key '{key}': is a band option of monitoring"
    ):
        parse_rules(
            [{"measure": "f1", "min": 0.1}, {"name": "x", "measure": "f1", "min": 0.1, key: value}],
            source="gate",
        )


@pytest.mark.parametrize("key", CHECK_ONLY_KEYS)
def test_a_check_bound_in_a_monitor_rule_names_the_rule_and_key(key: str, tmp_path: Path) -> None:
    value = {"where": "'day > 1'", "on": "'ci_low'", "baseline": "'b.parquet'", "min_examples": "5"}.get(
        key, "0.5"
    )
    path = tmp_path / "watch.toml"
    path.write_text(f'[[rule]]\nmeasure = "f1"\noperator = "macro"\n{key} = {value}\n')
    with pytest.raises(RuleError, match=rf"watch.toml, rule 1: key '{key}': bounds a check"):
        load_monitor_rules(path)


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ({"band": "mad"}, "key 'band': expected one of 'sd', 'quantile'"),
        ({"width": 0}, "key 'width': expected a number > 0"),
        ({"quantiles": [0.9, 0.1]}, "key 'quantiles': expected [low, high]"),
        ({"min_reference_windows": 1}, "key 'min_reference_windows': expected an integer >= 2"),
        ({"min_labelled_share": 1.5}, "key 'min_labelled_share': expected a share in [0, 1]"),
        ({"severity": "fatal"}, "key 'severity': expected one of 'error', 'warn'"),
        ({"measure": "f-one"}, "key 'measure'"),
    ],
)
def test_bad_band_options_are_refused_by_the_parser(spec: dict[str, object], needle: str) -> None:
    with pytest.raises(RuleError) as info:
        parse_rules([{"measure": "f1", "operator": "macro", **spec}], kind="monitor")
    assert needle in str(info.value)


def test_monitor_rules_take_dicts_and_rules_alike() -> None:
    pr = af.from_labels(_log())
    shared = {"time": "day", "every": "1d", "reference": (dt.date(2024, 1, 1), dt.date(2024, 1, 6))}
    spec = {
        "name": "acc",
        "measure": "recall",
        "operator": "micro",
        "by": ["model"],
        "band": "quantile",
        "quantiles": [0.0, 1.0],
        "min_reference_windows": 2,
        "severity": "warn",
    }
    from_dicts = monitor_rules(pr, [spec], **shared)
    from_rules = monitor_rules(pr, parse_rules([spec], kind="monitor"), **shared)
    direct = af.monitor(
        pr,
        "recall",
        "micro",
        by="model",
        band="quantile",
        quantiles=(0.0, 1.0),
        min_reference_windows=2,
        severity="warn",
        **shared,
    )
    assert from_dicts.equals(from_rules)
    assert from_dicts.drop("rule").equals(direct)
    assert from_dicts["rule"].unique().to_list() == ["acc"]
    assert from_dicts["model"].null_count() > 0  # the null group is a group of its own band
