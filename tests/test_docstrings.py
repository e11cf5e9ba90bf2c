"""Every public callable is documented: numpydoc Parameters, Returns and Raises sections.

"Public" is every callable in ``aggframe.__all__`` and the public methods and properties of
the public classes (``Predictions``, ``Cells``, ``Accumulator``, ``Measure``, ...). A function
or method that takes arguments needs ``Parameters`` and ``Raises``; one that returns a value
needs ``Returns`` (or ``Yields``); a property needs ``Returns``. The test lists every missing
section at once. Every public name is also on a page of the API reference (``docs/api/``).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aggframe as af
from aggframe.facade.extend import PredictionsExtension

ROOT = Path(__file__).resolve().parents[1]

#: Classes a user never constructs: a function builds them (``from_*`` a ``Predictions``,
#: ``to_cells`` a ``Cells``, ``infer_properties`` an ``InferredProperties``, the suites their
#: results; Polars the ``frame.aggframe`` namespace). Their methods are checked; their
#: constructor's parameters are internal.
BUILT_BY_FUNCTIONS = {
    "AggframeNamespace",
    "PredictionsExtension",
    "Cells",
    "CheckResult",
    "InferredProperties",
    "OrdinalPredictions",
    "Predictions",
    "SuiteRank",
    "SuiteSelection",
}

#: The namespaces whose names are public too (``af.plot.curve``, ``af.errors.OptionError``, ...).
NAMESPACES = ("plot", "suites", "tnorms", "errors")

_SECTION = re.compile(r"^(Parameters|Returns|Yields|Raises|Examples)\n-{3,}$", flags=re.M)


def _sections(obj: Any) -> set[str]:
    return set(_SECTION.findall(inspect.getdoc(obj) or ""))


def public_callables() -> Iterator[tuple[str, Any]]:
    """(qualified name, object) of every public callable, each function object once."""
    seen: set[int] = set()
    # base classes before subclasses, so an inherited method is named after its first owner
    named = {n: getattr(af, n) for n in af.__all__}
    named |= {f"{ns}.{n}": getattr(getattr(af, ns), n) for ns in NAMESPACES for n in getattr(af, ns).__all__}
    named["PredictionsExtension"] = PredictionsExtension  # pr.extend: documented for operator authors
    order = sorted(named, key=lambda n: (len(getattr(named[n], "__mro__", ())), n))
    for name in order:
        obj = named[name]
        if inspect.ismodule(obj) or not callable(obj):
            continue
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            continue  # the errors are documented by their class docstring alone
        if name.rpartition(".")[2] not in BUILT_BY_FUNCTIONS:
            yield name, obj
        if not inspect.isclass(obj):
            continue
        for attr in sorted(dir(obj)):
            if attr.startswith("_"):
                continue
            raw = inspect.getattr_static(obj, attr)
            if isinstance(raw, staticmethod | classmethod):
                raw = raw.__func__
            if not (inspect.isfunction(raw) or isinstance(raw, property)):
                continue
            target = raw.fget if isinstance(raw, property) else raw
            if id(target) in seen or getattr(target, "__module__", "").split(".")[0] != "aggframe":
                continue
            seen.add(id(target))
            yield f"{name}.{attr}", raw


def missing_sections(obj: Any) -> list[str]:
    """The numpydoc sections ``obj`` needs and lacks."""
    have = _sections(obj.fget if isinstance(obj, property) else obj)
    need = set()
    if isinstance(obj, property):
        need.add("Returns")
    else:
        try:
            signature: inspect.Signature | None = inspect.signature(obj)
        except (TypeError, ValueError):
            signature = None
        params = [p for p in (signature.parameters if signature else {}) if p not in ("self", "cls")]
        if params:
            need |= {"Parameters", "Raises"}
        returns = signature.return_annotation if signature else None
        if not inspect.isclass(obj) and returns not in (None, "None", inspect.Signature.empty):
            need.add("Yields" if "Yields" in have else "Returns")
    return sorted(need - have)


def test_every_public_callable_has_parameters_returns_raises() -> None:
    missing = {name: gaps for name, obj in public_callables() if (gaps := missing_sections(obj))}
    listing = "\n".join(f"  {name}: {', '.join(gaps)}" for name, gaps in sorted(missing.items()))
    assert not missing, f"{len(missing)} public callable(s) lack numpydoc sections:\n{listing}"


def test_the_check_sees_the_classes_methods() -> None:
    names = {name for name, _ in public_callables()}
    assert {"from_labels", "Predictions.evaluate", "Cells.evaluate", "Accumulator.update"} <= names
    assert "Measure.linear" in names or "Measure.bayes_threshold" in names


def test_missing_sections_are_found() -> None:
    def bare(x: int) -> int:
        """No sections."""
        return x

    def full(x: int) -> int:
        """All of them.

        Parameters
        ----------
        x
            A number.

        Returns
        -------
        int
            The number.

        Raises
        ------
        ValueError
            Never.
        """
        return x

    check: Callable[[Any], list[str]] = missing_sections
    assert check(bare) == ["Parameters", "Raises", "Returns"]
    assert check(full) == []


def test_every_public_name_is_in_the_api_reference() -> None:
    pages = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "api").glob("*.md"))
    listed = set(re.findall(r"^::: aggframe\.([\w.]+)", pages, flags=re.M))
    public = set(af.__all__) | {f"{ns}.{n}" for ns in NAMESPACES for n in getattr(af, ns).__all__}
    public |= {"facade.extend.PredictionsExtension"}
    documented_elsewhere = {"__version__", "numpy", "ops", "errors.AggframeError"}  # af.AggframeError
    missing = sorted(public - listed - documented_elsewhere)
    assert not missing, f"public names with no API reference entry (docs/api/*.md): {missing}"


def test_option_types_are_literals_in_the_signatures() -> None:
    """Editors complete the options: their types are the Literal aliases of ``aggframe._options``."""
    expected = {
        (af.Predictions.evaluate, "operators"): "ReportOperator",
        (af.Predictions.evaluate, "convention"): "Convention",
        (af.Predictions.evaluate, "pooling"): "Pooling",
        (af.Predictions.evaluate, "within"): "Within",
        (af.Predictions.evaluate, "engine"): "Engine",
        (af.Predictions.compute, "operator"): "ReportOperator",
        (af.Predictions.compute, "convention"): "Convention",
        (af.Predictions.compare, "operators"): "ReportOperator",
        (af.Predictions.parts, "operator"): "ReportOperator",
        (af.Cells.evaluate, "operators"): "ReportOperator",
        (af.Cells.evaluate, "convention"): "Convention",
        (af.from_scores, "decision"): "Decision",
        (af.from_labels, "task"): "LabelTask",
        (af.from_long, "tnorm"): "TNormName",
        (af.score, "operator"): "ReportOperator",
        (af.make_scorer, "convention"): "Convention",
        (af.fold_aggregate, "pooling"): "Pooling",
        (af.multioutput_aggregate, "within"): "Within",
    }
    wrong = {
        f"{fn.__qualname__}({name})": annotation
        for (fn, name), alias in expected.items()
        if alias not in (annotation := str(inspect.signature(fn).parameters[name].annotation))
    }
    assert not wrong, f"option parameters typed without their Literal alias: {wrong}"
