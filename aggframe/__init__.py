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

from __future__ import annotations

from aggframe import ops
from aggframe._deprecated import make_wide_callable
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
from aggframe.intake.cells_value import Cells
from aggframe.intake.source import package_version
from aggframe.interop import numpy
from aggframe.interop.charts.time import plot_monitor
from aggframe.interop.html import html_report, write_html_report
from aggframe.interop.layout import wide_table
from aggframe.interop.namespace import AggframeNamespace  # registers frame.aggframe on Polars frames
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

make_wide_callable()  # af.wide(report) still works, with a FutureWarning: use af.wide_table

__version__ = package_version()  # the version lives in pyproject.toml alone

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
