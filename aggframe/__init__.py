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
# and editors), ``"NAME": "aggframe.x.y",`` in ``_LAZY``, and ``"NAME",`` in ``__all__``
# (tests/test_lazy_init.py checks that the three agree and that every name resolves); a
# public module (``ops``, ``numpy``) goes in ``_MODULES`` too. ``import aggframe`` imports no
# module until a name of it is used: nothing may rely on an import's side effect (a method
# set on ``Predictions`` by a later layer has to import that layer on first access).

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from aggframe._deprecated import make_wide_callable
from aggframe.interop.namespace import AggframeNamespace  # registers frame.aggframe (imports only Polars)

if TYPE_CHECKING:
    from aggframe import ops
    from aggframe._progress import progress
    from aggframe.accumulate import Accumulator
    from aggframe.analysis.coordinates import (
        canonical_coordinates,
        degrees_of_freedom,
        dominates,
        pareto_dominance,
    )
    from aggframe.analysis.costs import cost, cost_matrix
    from aggframe.analysis.diagnostics import MeasureWarning, diagnose, uniform_error_deviation
    from aggframe.analysis.gap import micro_macro_gap
    from aggframe.analysis.parity import fold_aggregate, multioutput_aggregate
    from aggframe.analysis.suite_frames import (
        select_suite,
        select_suites,
        suite_jacobian,
        suite_rank,
        suite_ranks,
    )
    from aggframe.analysis.suites import SuiteInput, SuiteRank, SuiteSelection
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
    from aggframe.decisions.checks import CheckFailedError, CheckResult, check
    from aggframe.decisions.estimate import CalibrationMap, ShiftWarning, estimate, fit_calibration
    from aggframe.decisions.estimate_store import expected_cells
    from aggframe.decisions.monitor import monitor
    from aggframe.decisions.rules import Rule, RuleError
    from aggframe.decisions.slices import slices
    from aggframe.exceptions import (
        AggframeError,
        ColumnNotFoundError,
        DecisionWarning,
        DuplicateEntryError,
        EmptyInputError,
        InvalidValueError,
        NullValueError,
        OptionError,
        ShapeError,
        SourceError,
        SparseInputError,
        StoreError,
        UnknownClassError,
        UnknownNameError,
    )
    from aggframe.interop import numpy
    from aggframe.interop.charts.estimate import plot_estimate
    from aggframe.interop.charts.time import plot_monitor
    from aggframe.interop.html import html_report, write_html_report
    from aggframe.interop.layout import wide_table
    from aggframe.interop.plots import (
        plot_calibration,
        plot_classes,
        plot_conventions,
        plot_curve,
        plot_folds,
        plot_groups,
        plot_heatmap,
        plot_slices,
    )
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
    from aggframe.wide.tnorms import godel, hamacher, lukasiewicz, marginal_defect, product

#: public name -> the module it is imported from on first access (a module itself for ``ops``, ``numpy``)
_LAZY: dict[str, str] = {
    "ops": "aggframe.ops",
    "progress": "aggframe._progress",
    "Accumulator": "aggframe.accumulate",
    "canonical_coordinates": "aggframe.analysis.coordinates",
    "degrees_of_freedom": "aggframe.analysis.coordinates",
    "dominates": "aggframe.analysis.coordinates",
    "pareto_dominance": "aggframe.analysis.coordinates",
    "cost": "aggframe.analysis.costs",
    "cost_matrix": "aggframe.analysis.costs",
    "MeasureWarning": "aggframe.analysis.diagnostics",
    "diagnose": "aggframe.analysis.diagnostics",
    "uniform_error_deviation": "aggframe.analysis.diagnostics",
    "micro_macro_gap": "aggframe.analysis.gap",
    "fold_aggregate": "aggframe.analysis.parity",
    "multioutput_aggregate": "aggframe.analysis.parity",
    "select_suite": "aggframe.analysis.suite_frames",
    "select_suites": "aggframe.analysis.suite_frames",
    "suite_jacobian": "aggframe.analysis.suite_frames",
    "suite_rank": "aggframe.analysis.suite_frames",
    "suite_ranks": "aggframe.analysis.suite_frames",
    "SuiteInput": "aggframe.analysis.suites",
    "SuiteRank": "aggframe.analysis.suites",
    "SuiteSelection": "aggframe.analysis.suites",
    "from_cells": "aggframe.constructors",
    "from_indicator": "aggframe.constructors",
    "from_labels": "aggframe.constructors",
    "from_long": "aggframe.constructors",
    "from_ordinal": "aggframe.constructors",
    "from_scores": "aggframe.constructors",
    "scan": "aggframe.constructors",
    "CheckFailedError": "aggframe.decisions.checks",
    "CheckResult": "aggframe.decisions.checks",
    "check": "aggframe.decisions.checks",
    "monitor": "aggframe.decisions.monitor",
    "CalibrationMap": "aggframe.decisions.estimate",
    "ShiftWarning": "aggframe.decisions.estimate",
    "estimate": "aggframe.decisions.estimate",
    "fit_calibration": "aggframe.decisions.estimate",
    "expected_cells": "aggframe.decisions.estimate_store",
    "slices": "aggframe.decisions.slices",
    "Rule": "aggframe.decisions.rules",
    "RuleError": "aggframe.decisions.rules",
    "AggframeError": "aggframe.exceptions",
    "ColumnNotFoundError": "aggframe.exceptions",
    "DecisionWarning": "aggframe.exceptions",
    "DuplicateEntryError": "aggframe.exceptions",
    "EmptyInputError": "aggframe.exceptions",
    "InvalidValueError": "aggframe.exceptions",
    "NullValueError": "aggframe.exceptions",
    "OptionError": "aggframe.exceptions",
    "ShapeError": "aggframe.exceptions",
    "SourceError": "aggframe.exceptions",
    "SparseInputError": "aggframe.exceptions",
    "StoreError": "aggframe.exceptions",
    "UnknownClassError": "aggframe.exceptions",
    "UnknownNameError": "aggframe.exceptions",
    "Cells": "aggframe.cells",
    "numpy": "aggframe.interop.numpy",
    "plot_monitor": "aggframe.interop.charts.time",
    "plot_estimate": "aggframe.interop.charts.estimate",
    "html_report": "aggframe.interop.html",
    "write_html_report": "aggframe.interop.html",
    "wide_table": "aggframe.interop.layout",
    "plot_calibration": "aggframe.interop.plots",
    "plot_classes": "aggframe.interop.plots",
    "plot_conventions": "aggframe.interop.plots",
    "plot_curve": "aggframe.interop.plots",
    "plot_folds": "aggframe.interop.plots",
    "plot_groups": "aggframe.interop.plots",
    "plot_heatmap": "aggframe.interop.plots",
    "plot_slices": "aggframe.interop.plots",
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
    "godel": "aggframe.wide.tnorms",
    "hamacher": "aggframe.wide.tnorms",
    "lukasiewicz": "aggframe.wide.tnorms",
    "marginal_defect": "aggframe.wide.tnorms",
    "product": "aggframe.wide.tnorms",
}
_MODULES = frozenset({"ops", "numpy"})  # names that are modules, not attributes of one

make_wide_callable()  # af.wide(report) still works, with a FutureWarning: use af.wide_table


def __getattr__(name: str) -> Any:
    """Import a public name's module on first access, and keep the name (PEP 562)."""
    if name == "__version__":  # the version lives in pyproject.toml alone
        from aggframe._version import package_version

        value: Any = package_version()
    elif name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        value = module if name in _MODULES else getattr(module, name)
    else:
        msg = f"module 'aggframe' has no attribute {name!r}"
        raise AttributeError(msg)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names and every public name, loaded or not."""
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Accumulator",
    "AggframeError",
    "AggframeNamespace",
    "CalibrationMap",
    "Cells",
    "CheckFailedError",
    "CheckResult",
    "ColumnNotFoundError",
    "DecisionWarning",
    "DuplicateEntryError",
    "EmptyInputError",
    "InferredProperties",
    "InvalidValueError",
    "Measure",
    "MeasureWarning",
    "NullValueError",
    "OptionError",
    "OrdinalPredictions",
    "Predictions",
    "Rule",
    "RuleError",
    "ShapeError",
    "ShiftWarning",
    "SourceError",
    "SparseInputError",
    "StoreError",
    "SuiteInput",
    "SuiteRank",
    "SuiteSelection",
    "UnknownClassError",
    "UnknownNameError",
    "__version__",
    "canonical_coordinates",
    "check",
    "classification_report",
    "cost",
    "cost_matrix",
    "degrees_of_freedom",
    "diagnose",
    "dominates",
    "estimate",
    "expected_cells",
    "fbeta",
    "fit_calibration",
    "fold_aggregate",
    "from_cells",
    "from_indicator",
    "from_labels",
    "from_long",
    "from_ordinal",
    "from_scores",
    "get_measure",
    "godel",
    "hamacher",
    "html_report",
    "infer_properties",
    "list_measures",
    "log_mlflow",
    "lukasiewicz",
    "make_scorer",
    "marginal_defect",
    "micro_macro_gap",
    "monitor",
    "multioutput_aggregate",
    "numpy",
    "ops",
    "pareto_dominance",
    "plot_calibration",
    "plot_classes",
    "plot_conventions",
    "plot_curve",
    "plot_estimate",
    "plot_folds",
    "plot_groups",
    "plot_heatmap",
    "plot_monitor",
    "plot_slices",
    "product",
    "progress",
    "register_measure",
    "scan",
    "score",
    "select_suite",
    "select_suites",
    "slices",
    "suite_jacobian",
    "suite_rank",
    "suite_ranks",
    "uniform_error_deviation",
    "unregister_measure",
    "verify_inference",
    "wide_table",
    "write_html_report",
]
