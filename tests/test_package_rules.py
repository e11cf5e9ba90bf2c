"""Rules over the package's own source, so that a class of bug cannot come back.

A null group key is a group (SQL GROUP BY, Polars ``group_by``), and Polars joins
do not match null keys unless told to: every join on columns passes
``nulls_equal=True``. Narwhals joins have no such option, so they must not join
on keys at all: the rule below refuses any keyed join without it.
"""

from __future__ import annotations

import ast
import inspect
import re
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
    text = path.read_text()
    lines = text.splitlines()
    tree = ast.parse(text)
    bad = []
    for call in _keyed_joins(tree):
        kws = {k.arg: k.value for k in call.keywords}
        value = kws.get("nulls_equal")
        # a Narwhals join (no nulls_equal) may join on keys that can never be null, said on its line
        never_null = re.search(r"# keys never null: \S", lines[call.lineno - 1]) is not None
        if not (isinstance(value, ast.Constant) and value.value is True) and not never_null:
            bad.append(call.lineno)
    assert not bad, f"{path.name}: joins on keys without nulls_equal=True at lines {bad}"


def test_the_rule_sees_joins() -> None:
    # the rule must be able to fail: a keyed join without the flag is found
    tree = ast.parse("a.join(b, on=['k'], how='left')\na.join(b, how='cross')")
    assert len(_keyed_joins(tree)) == 1


def _documented_parameters(doc: str) -> set[str] | None:
    """The names a numpydoc ``Parameters`` section documents (``a, b`` lines name several), or None."""
    found = re.search(r"\nParameters\n-+\n(.*?)(?=\n\S[^\n]*\n-+\n|\Z)", doc, flags=re.S)
    if found is None:
        return None
    names: set[str] = set()
    for line in found.group(1).splitlines():
        if line and not line[0].isspace():
            names |= {n.split(":")[0].strip().lstrip("*") for n in line.split(",")}
    return names


def _public_callables() -> list[tuple[str, object]]:
    import aggframe as af

    out = [(n, getattr(af, n)) for n in af.__all__ if inspect.isfunction(getattr(af, n))]
    for cls in (af.Predictions, af.Accumulator, af.Cells):
        out += [
            (f"{cls.__name__}.{n}", f)
            for n, f in inspect.getmembers(cls, predicate=inspect.isfunction)
            if not n.startswith("_")
        ]
    return out


def test_parameters_sections_name_the_signature() -> None:
    """A documented function documents every parameter it takes and none it does not (curve,
    calibration and best_threshold took ``engine=`` unsaid)."""
    wrong = []
    for name, fn in _public_callables():
        documented = _documented_parameters(inspect.getdoc(fn) or "")
        if documented is None:
            continue
        taken = {p for p in inspect.signature(fn).parameters if p not in ("self", "kw", "kwargs")}
        if documented - {"kw", "kwargs"} != taken:
            wrong.append((name, sorted(taken - documented), sorted(documented - taken)))
    assert wrong == []
