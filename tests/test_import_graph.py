"""The package's own import graph: no cycle, and no stage importing a later one.

The layers are the pipeline's stages, bottom up: a module may import its own
layer and the ones below, never one above (imports under ``TYPE_CHECKING`` are
for the checker only and are left out).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "aggframe"

#: The stages, bottom up; a module's layer is its subpackage (or the module itself at the top).
LAYERS = [
    ("aggframe.exceptions", "aggframe.ops", "aggframe._lazy", "aggframe._version"),
    ("aggframe._options", "aggframe._columns", "aggframe._progress"),
    ("aggframe.measures",),
    ("aggframe.wide",),
    ("aggframe.tables",),
    ("aggframe.operators",),
    ("aggframe.intake",),
    ("aggframe.facade",),
    ("aggframe.predictions",),
    ("aggframe.cells",),
    ("aggframe.analysis",),
    ("aggframe.constructors",),
    ("aggframe.decisions",),
    ("aggframe.interop",),
    ("aggframe",),
]


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> int:
    best = -1
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and p != "aggframe":
                best = i
    return best if best >= 0 else len(LAYERS) - 1


def _runtime_imports(tree: ast.AST) -> set[str]:
    """Modules of the package imported at run time (not under ``if TYPE_CHECKING:``)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("aggframe"):
            found.add(node.module)
            # `from aggframe.x import y` may import the submodule y
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("aggframe"))
    return found


def _graph() -> dict[str, set[str]]:
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    return {
        m: {i for i in _runtime_imports(ast.parse(p.read_text())) if i in modules} - {m}
        for m, p in modules.items()
    }


def test_no_import_cycle() -> None:
    graph = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if n.startswith(m + "."):
                continue  # a package importing its own submodules is not a cycle
            if state.get(n) == 1:
                cycle = [*stack[stack.index(n) :], n]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if state.get(n) is None:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if state.get(m) is None:
            visit(m)


def test_no_stage_imports_a_later_one() -> None:
    bad = [
        f"{m} (layer {_layer(m)}) imports {n} (layer {_layer(n)})"
        for m, targets in sorted(_graph().items())
        for n in sorted(targets)
        if _layer(n) > _layer(m)
    ]
    assert not bad, "\n".join(bad)


def test_the_rules_can_fail() -> None:
    # the layer map sees a back arrow and the walk a circle when there is one
    assert _layer("aggframe.predictions") > _layer("aggframe.intake.base")
    assert _layer("aggframe.wide.long") < _layer("aggframe.tables.long")
    tree = ast.parse(
        "from aggframe.predictions import Predictions\nif TYPE_CHECKING:\n    import aggframe.interop"
    )
    assert _runtime_imports(tree) == {"aggframe.predictions", "aggframe.predictions.Predictions"}
