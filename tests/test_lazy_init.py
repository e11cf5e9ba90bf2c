"""``aggframe/__init__.py`` imports each public name on first access (PEP 562, issue 35): every
name of ``__all__`` resolves, ``dir(aggframe)`` lists them, and the three places a name is
written (the ``TYPE_CHECKING`` imports that mypy and editors read, ``_LAZY``, ``__all__``)
agree, so a name added to one and forgotten in another fails here."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

import aggframe as af

INIT = Path(af.__file__)
#: the public names that are modules (namespaces), and the module each is
NAMESPACES = {
    "errors": "aggframe.errors",
    "numpy": "aggframe.interop.numpy",
    "ops": "aggframe.ops",
    "plot": "aggframe.plot",
    "suites": "aggframe.suites",
    "tnorms": "aggframe.tnorms",
}


def _declared() -> tuple[set[str], set[str], set[str]]:
    """Names imported under ``TYPE_CHECKING``, names imported at run time, and ``_LAZY``'s keys."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    checking: set[str] = set()
    eager: set[str] = set()
    lazy: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                if isinstance(sub, ast.ImportFrom):
                    checking |= {a.asname or a.name for a in sub.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("aggframe"):
            eager |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == "_LAZY":
            assert isinstance(node.value, ast.Dict)
            lazy = {ast.literal_eval(k) for k in node.value.keys if k is not None}
    return checking, eager, lazy


def test_the_three_lists_of_names_agree() -> None:
    checking, eager, lazy = _declared()
    public = set(af.__all__) - {"__version__"}
    assert lazy == checking, "a name in _LAZY has no TYPE_CHECKING import, or the reverse"
    assert public == lazy | (eager & public), "a public name missing from _LAZY or from __all__"
    assert not lazy & eager, "a name both imported at run time and lazily"
    assert len(af.__all__) == len(set(af.__all__))


def test_every_public_name_resolves_and_is_listed() -> None:
    listed = dir(af)
    for name in af.__all__:
        assert name in listed, name
        value = getattr(af, name)
        assert value is not None, name
        if name in NAMESPACES:
            assert isinstance(value, types.ModuleType)
            assert value.__name__ == NAMESPACES[name]
        elif name == "__version__":
            assert isinstance(value, str)
            assert value
        else:
            assert not isinstance(value, types.ModuleType), name
            assert getattr(value, "__name__", name) == name, name
    # a name resolved once is kept: the second access is the same object
    assert af.from_labels is af.from_labels


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'from_label'"):
        _ = af.from_label  # type: ignore[attr-defined]
    assert not hasattr(af, "no_such_name")


def test_import_loads_no_engine_module_until_a_call_needs_it() -> None:
    # in a fresh interpreter: the namespace on Polars frames works, and only then is the
    # engine (constructors, predictions, narwhals) imported
    code = (
        "import json, sys, polars as pl, aggframe as af\n"
        "before = [m for m in ('aggframe.predictions', 'aggframe.constructors', 'narwhals') if m in sys.modules]\n"
        "v = pl.DataFrame({'y_true': [0, 1, 1], 'y_pred': [0, 1, 0]}).aggframe.labels().accuracy()\n"
        "after = 'aggframe.predictions' in sys.modules\n"
        "print(json.dumps([before, v, after, af.wide.__name__, callable(af.wide)]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(out.stdout) == [[], 2 / 3, True, "aggframe.wide", True]


def test_the_quick_start_report_loads_no_numpy() -> None:
    # the command line's report needs Polars (and narwhals), not NumPy nor the rules of `check`
    data = Path(__file__).resolve().parent.parent / "examples" / "predictions.parquet"
    code = (
        "import contextlib, io, json, sys\n"
        "from aggframe.interop.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    code = main(['report', {str(data)!r}, '--by', 'model', '--measures', 'f1,mcc', '--quiet'])\n"
        "heavy = ('numpy', 'aggframe.decisions.rules', 'aggframe.decisions.monitor')\n"
        "print(json.dumps([code, 'f1' in out.getvalue(), [m for m in heavy if m in sys.modules]]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(out.stdout) == [0, True, []]
