"""Rules over the package's own source, so that a class of bug cannot come back.

A null group key is a group (SQL GROUP BY, Polars ``group_by``), and Polars joins
do not match null keys unless told to: every join on columns passes
``nulls_equal=True``. Narwhals joins have no such option, so they must not join
on keys at all: the rule below refuses any keyed join without it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "aggframe"
SOURCES = sorted(PACKAGE.rglob("*.py"))


def _keyed_joins(tree: ast.AST) -> list[ast.Call]:
    calls = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != "join":
            continue
        kws = {k.arg: k.value for k in node.keywords}
        if "on" in kws or "left_on" in kws:
            calls.append(node)
    return calls


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_keyed_join_matches_null_keys(path: Path) -> None:
    tree = ast.parse(path.read_text())
    bad = []
    for call in _keyed_joins(tree):
        kws = {k.arg: k.value for k in call.keywords}
        value = kws.get("nulls_equal")
        if not (isinstance(value, ast.Constant) and value.value is True):
            bad.append(call.lineno)
    assert not bad, f"{path.name}: joins on keys without nulls_equal=True at lines {bad}"


def test_the_rule_sees_joins() -> None:
    # the rule must be able to fail: a keyed join without the flag is found
    tree = ast.parse("a.join(b, on=['k'], how='left')\na.join(b, how='cross')")
    assert len(_keyed_joins(tree)) == 1
