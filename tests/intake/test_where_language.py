"""One where language: ``--where`` (Polars) and rules' ``where`` (Narwhals) parse and compile the same way."""

from __future__ import annotations

import datetime as dt

import narwhals.stable.v1 as nw
import polars as pl
import pytest

import aggframe as af
from aggframe.decisions.rules import where_expression as rule_where
from aggframe.intake.where import parse_where, where_expression

FRAME = pl.DataFrame(
    {
        "value": [1, 2, None, 4, 5],
        "my col": ["a", "it's", None, "b", "a"],
        "__af_x": [True, False, True, None, False],
        "day": [dt.date(2024, 1, d) for d in (1, 2, 3, 4, 5)],
        "ünï": [0.5, 1.5, 2.5, None, 4.5],
    }
)

TEXTS = [
    "value >= 2 AND \"my col\" <> 'b'",
    "\"my col\" IN ('a', 'it''s') OR value IS NULL",
    "NOT (value BETWEEN 2 AND 4) AND day >= '2024-01-02'",
    "\"my col\" NOT IN ('a') AND __af_x",
    'ünï < 3 OR "my col" IS NULL',
    "day = '2024-01-05' OR (value = 1 AND NOT __af_x = FALSE)",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_command_line_and_rules_keep_the_same_rows(text: str) -> None:
    lazy = FRAME.lazy().filter(parse_where(text, FRAME.schema, what="--where")).collect()
    native = nw.from_native(FRAME)
    by_rules = native.filter(rule_where(text, FRAME.schema)).to_native()
    by_intake = native.filter(where_expression(text, FRAME.schema)).to_native()
    assert lazy.equals(by_rules)
    assert lazy.equals(by_intake)
    # the null row of a compared column is kept only when the text asks for it
    assert lazy.height < FRAME.height


def test_an_oracle_row_by_row() -> None:
    """A hand-written Python reading of two texts, row by row (SQL: a comparison with null is not true)."""
    got = FRAME.filter(parse_where(TEXTS[0], FRAME.schema))["value"].to_list()
    want = [
        r["value"]
        for r in FRAME.iter_rows(named=True)
        if r["value"] is not None and r["my col"] is not None and r["value"] >= 2 and r["my col"] != "b"
    ]
    assert got == want
    got = FRAME.filter(parse_where(TEXTS[2], FRAME.schema))["value"].to_list()
    want = [
        r["value"]
        for r in FRAME.iter_rows(named=True)
        if r["value"] is not None and not 2 <= r["value"] <= 4 and r["day"] >= dt.date(2024, 1, 2)
    ]
    assert got == want


@pytest.mark.parametrize(
    ("text", "error", "needle"),
    [
        ("value = ", af.errors.OptionError, "--where 'value = ' is not a SQL expression: expected a value"),
        ("nope = 1", af.errors.ColumnNotFoundError, "--where 'nope = 1' names column 'nope'"),
        ('"my col"', af.errors.OptionError, "gives String values, not true/false"),
        ("value = 'x'", af.errors.OptionError, "compared with the text 'x'"),
        ("day > '2024-13-01'", af.errors.OptionError, "which is not an ISO date"),
        ("value AND __af_x", af.errors.OptionError, "gives Int64 values"),
    ],
)
def test_errors_are_the_same_language(text: str, error: type[Exception], needle: str) -> None:
    with pytest.raises(error) as info:
        parse_where(text, FRAME.schema, what="--where")
    assert needle in str(info.value)
    with pytest.raises(af.errors.RuleError):  # the rules' reading refuses it too, as a rule error
        rule_where(text, FRAME.schema)
