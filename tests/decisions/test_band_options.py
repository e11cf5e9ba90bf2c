"""The band's options are checked in one place: monitor's keywords and a monitoring rule's keys
refuse the same values with the same words (:mod:`aggframe.decisions.bands`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import polars as pl
import pytest

import aggframe as af
from aggframe.decisions.rules import RuleError, parse_rules

DAY0 = dt.date(2024, 1, 1)

BAD = [
    ("band", "mad"),
    ("width", 0),
    ("width", -1.5),
    ("width", float("nan")),
    ("width", True),
    ("width", "3"),
    ("quantiles", (0.9, 0.1)),
    ("quantiles", (0.1,)),
    ("quantiles", (0.1, 1.5)),
    ("quantiles", ("a", "b")),
    ("quantiles", 0.5),
    ("min_reference_windows", 1),
    ("min_reference_windows", 2.5),
    ("min_reference_windows", False),
    ("min_labelled_share", 1.5),
    ("min_labelled_share", -0.1),
    ("min_labelled_share", "half"),
    ("severity", "fatal"),
]


def _pr() -> af.Predictions:
    days = [DAY0 + dt.timedelta(days=d) for d in range(6) for _ in range(4)]
    return af.from_labels(pl.DataFrame({"day": days, "y_true": [0, 1, 1, 0] * 6, "y_pred": [0, 1, 0, 0] * 6}))


def _keyword_error(key: str, value: Any) -> str:
    ref = (DAY0, DAY0 + dt.timedelta(days=3))
    with pytest.raises(af.errors.OptionError) as info:
        af.monitor(_pr(), "recall", "micro", time="day", every="1d", reference=ref, **{key: value})
    return str(info.value)


def _rule_error(key: str, value: Any) -> str:
    with pytest.raises(RuleError) as info:
        parse_rules([{"measure": "f1", "operator": "macro", key: value}], kind="monitor")
    return str(info.value)


@pytest.mark.parametrize(("key", "value"), BAD, ids=[f"{k}={v!r}" for k, v in BAD])
def test_a_bad_band_option_is_refused_in_the_same_words(key: str, value: Any) -> None:
    keyword, rule = _keyword_error(key, value), _rule_error(key, value)
    assert keyword.startswith(f"{key}=: expected ")
    assert rule.startswith(f"rule 1: key {key!r}: expected ")
    assert keyword.removeprefix(f"{key}=: ") == rule.removeprefix(f"rule 1: key {key!r}: ")
    parts = value if isinstance(value, tuple) else ()
    assert any(repr(v) in keyword or (isinstance(v, float) and f"{v:g}" in keyword) for v in (value, *parts))
