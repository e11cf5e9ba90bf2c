"""aggframe: classification measures under any aggregation operator, on (lazy) Polars frames.

Predictions in long-format frames are reduced in one scan to tidy confusion-cell
tables (per class and per example), and every measure (precision, recall, F-beta,
MCC, kappa, ... and your own) under every operator (micro, macro, weighted,
exemplar) is a small group-by over those tables. Results are tidy frames.

>>> import aggframe as af
>>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
>>> round(pr.compute("f1", "macro"), 4), pr.accuracy()
(0.5222, 0.5)
"""

# Each public name is imported from its module on first access (PEP 562: ``__getattr__``
# below), so that ``import aggframe`` costs little more than ``import polars`` and a call
# loads only what it needs. To add a public name ``NAME`` defined in ``aggframe.x.y``, add
# three lines: ``from aggframe.x.y import NAME`` in the ``TYPE_CHECKING`` block (for mypy
# and editors), ``"NAME": "aggframe.x.y",`` in ``_LAZY``, and ``"NAME",`` in its group of
# ``__all__`` (sorted within the group; a chart, t-norm, suite function or error class goes in
# its namespace module instead: ``aggframe/plot.py``, ...)
# (tests/test_lazy_init.py checks that the three agree and that every name resolves); a
# public module (``plot``, ``errors``, ...) goes in ``_MODULES`` too. ``import aggframe`` imports
# no module until a name of it is used: nothing may rely on an import's side effect (a method
# set on ``Predictions`` by a later layer has to import that layer on first access).
#
# ``__all__`` is kept small and grouped: charts live in ``af.plot``, t-norms in ``af.tnorms``,
# measure suites in ``af.suites``, error classes (but the base ``AggframeError``) in
# ``af.errors``. A name that moved keeps working for a release through the table
# ``aggframe._deprecated.MOVED`` (one line per name), with a ``FutureWarning``.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from aggframe._deprecated import MOVED, make_wide_callable, moved
from aggframe.interop.namespace import AggframeNamespace  # registers frame.aggframe (imports only Polars)

if TYPE_CHECKING:
    from aggframe import errors, ops, plot, suites, tnorms
    from aggframe._progress import progress
    from aggframe.accumulate import Accumulator
    from aggframe.analysis.coordinates import canonical_coordinates, dominates, pareto_dominance
    from aggframe.analysis.costs import cost, cost_matrix
    from aggframe.analysis.diagnostics import diagnose, uniform_error_deviation
    from aggframe.analysis.gap import micro_macro_gap
    from aggframe.analysis.parity import fold_aggregate, multioutput_aggregate
    from aggframe.cells import Cells
    from aggframe.constructors import (
        from_cells,
        from_indicator,
        from_labels,
        from_long,
        from_ordinal,
        from_scores,
        scan,
    )
    from aggframe.decisions.checks import CheckResult, check
    from aggframe.decisions.estimate import CalibrationMap, estimate, fit_calibration
    from aggframe.decisions.estimate_store import expected_cells
    from aggframe.decisions.monitor import monitor
    from aggframe.decisions.rules import Rule
    from aggframe.decisions.slices import slices
    from aggframe.exceptions import AggframeError
    from aggframe.interop import numpy
    from aggframe.interop.html import html_report, write_html_report
    from aggframe.interop.layout import wide_table
    from aggframe.interop.sklearn import classification_report, make_scorer, score
    from aggframe.interop.tracking import log_mlflow
    from aggframe.measures.inference import InferredProperties
    from aggframe.measures.measure import Measure
    from aggframe.measures.registry import (
        fbeta,
        get_measure,
        list_measures,
        register_measure,
        unregister_measure,
    )
    from aggframe.measures.verify import infer_properties, verify_inference
    from aggframe.predictions import OrdinalPredictions, Predictions

#: public name -> the module it is imported from on first access (a module itself for ``ops``, ``numpy``)
_LAZY: dict[str, str] = {
    "errors": "aggframe.errors",
    "ops": "aggframe.ops",
    "plot": "aggframe.plot",
    "suites": "aggframe.suites",
    "tnorms": "aggframe.tnorms",
    "progress": "aggframe._progress",
    "Accumulator": "aggframe.accumulate",
    "canonical_coordinates": "aggframe.analysis.coordinates",
    "dominates": "aggframe.analysis.coordinates",
    "pareto_dominance": "aggframe.analysis.coordinates",
    "cost": "aggframe.analysis.costs",
    "cost_matrix": "aggframe.analysis.costs",
    "diagnose": "aggframe.analysis.diagnostics",
    "uniform_error_deviation": "aggframe.analysis.diagnostics",
    "micro_macro_gap": "aggframe.analysis.gap",
    "fold_aggregate": "aggframe.analysis.parity",
    "multioutput_aggregate": "aggframe.analysis.parity",
    "from_cells": "aggframe.constructors",
    "from_indicator": "aggframe.constructors",
    "from_labels": "aggframe.constructors",
    "from_long": "aggframe.constructors",
    "from_ordinal": "aggframe.constructors",
    "from_scores": "aggframe.constructors",
    "scan": "aggframe.constructors",
    "CheckResult": "aggframe.decisions.checks",
    "check": "aggframe.decisions.checks",
    "monitor": "aggframe.decisions.monitor",
    "CalibrationMap": "aggframe.decisions.estimate",
    "estimate": "aggframe.decisions.estimate",
    "fit_calibration": "aggframe.decisions.estimate",
    "expected_cells": "aggframe.decisions.estimate_store",
    "slices": "aggframe.decisions.slices",
    "Rule": "aggframe.decisions.rules",
    "AggframeError": "aggframe.exceptions",
    "Cells": "aggframe.cells",
    "numpy": "aggframe.interop.numpy",
    "html_report": "aggframe.interop.html",
    "write_html_report": "aggframe.interop.html",
    "wide_table": "aggframe.interop.layout",
    "classification_report": "aggframe.interop.sklearn",
    "make_scorer": "aggframe.interop.sklearn",
    "score": "aggframe.interop.sklearn",
    "log_mlflow": "aggframe.interop.tracking",
    "InferredProperties": "aggframe.measures.inference",
    "Measure": "aggframe.measures.measure",
    "fbeta": "aggframe.measures.registry",
    "get_measure": "aggframe.measures.registry",
    "list_measures": "aggframe.measures.registry",
    "register_measure": "aggframe.measures.registry",
    "unregister_measure": "aggframe.measures.registry",
    "infer_properties": "aggframe.measures.verify",
    "verify_inference": "aggframe.measures.verify",
    "OrdinalPredictions": "aggframe.predictions",
    "Predictions": "aggframe.predictions",
}
_MODULES = frozenset({"errors", "numpy", "ops", "plot", "suites", "tnorms"})  # modules, not attributes of one

make_wide_callable()  # af.wide(report) still works, with a FutureWarning: use af.wide_table


def __getattr__(name: str) -> Any:
    """Import a public name's module on first access, and keep the name (PEP 562)."""
    if name == "__version__":  # the version lives in pyproject.toml alone
        from aggframe._version import package_version

        value: Any = package_version()
    elif name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        value = module if name in _MODULES else getattr(module, name)
    elif name in MOVED:  # an old name, kept for a release: warns on every access (not kept)
        return moved(name)
    else:
        msg = f"module 'aggframe' has no attribute {name!r}"
        raise AttributeError(msg)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names and every public name, loaded or not."""
    return sorted(set(globals()) | set(__all__))


__all__ = [  # noqa: RUF022 - grouped by what a user is doing, each group sorted
    # build predictions
    "from_cells",
    "from_indicator",
    "from_labels",
    "from_long",
    "from_ordinal",
    "from_scores",
    "scan",
    # the values users hold
    "Accumulator",
    "Cells",
    "OrdinalPredictions",
    "Predictions",
    # measures (af.tnorms: t-norms for soft labels; af.ops: helpers to write measures)
    "InferredProperties",
    "Measure",
    "fbeta",
    "get_measure",
    "infer_properties",
    "list_measures",
    "register_measure",
    "unregister_measure",
    "verify_inference",
    # analyses of predictions (af.suites: measure suites)
    "canonical_coordinates",
    "cost",
    "cost_matrix",
    "diagnose",
    "dominates",
    "fold_aggregate",
    "micro_macro_gap",
    "multioutput_aggregate",
    "pareto_dominance",
    "uniform_error_deviation",
    # decisions: checks, monitoring, slices, estimates
    "CalibrationMap",
    "CheckResult",
    "Rule",
    "check",
    "estimate",
    "expected_cells",
    "fit_calibration",
    "monitor",
    "slices",
    # tables, reports and other libraries (af.plot: the charts; af.numpy: the NumPy bridge)
    "AggframeNamespace",
    "classification_report",
    "html_report",
    "log_mlflow",
    "make_scorer",
    "progress",
    "score",
    "wide_table",
    "write_html_report",
    # errors (af.errors: every error and warning class)
    "AggframeError",
    # namespaces
    "errors",
    "numpy",
    "ops",
    "plot",
    "suites",
    "tnorms",
    "__version__",
]
