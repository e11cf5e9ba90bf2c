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
from aggframe._diagnostics import MeasureWarning, diagnose
from aggframe._folds import fold_aggregate
from aggframe._gap import micro_macro_gap
from aggframe._html import html_report, write_html_report
from aggframe._inference import InferredProperties, infer_properties, verify_inference
from aggframe._measures import (
    Measure,
    fbeta,
    get_measure,
    list_measures,
    register_measure,
    unregister_measure,
)
from aggframe._namespace import AggframeNamespace  # registers frame.aggframe on Polars frames
from aggframe._ordinal import (
    OrdinalPredictions,
    canonical_coordinates,
    cost,
    cost_matrix,
    degrees_of_freedom,
    dominates,
    from_ordinal,
    pareto_dominance,
)
from aggframe._plots import plot_classes, plot_conventions, plot_folds, plot_groups, plot_heatmap
from aggframe._predictions import Predictions, from_cells, from_indicator, from_labels, from_long, scan
from aggframe._scores import from_scores
from aggframe._sklearn import classification_report, make_scorer, score
from aggframe._suite_frames import select_suite, suite_rank
from aggframe._suites import SuiteInput, SuiteRank, SuiteSelection, suite_jacobian
from aggframe._targets import multioutput_aggregate
from aggframe._tnorms import godel, hamacher, lukasiewicz, product
from aggframe._wide import wide
from aggframe.exceptions import (
    AggframeError,
    ColumnNotFoundError,
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

__version__ = "0.1.0"

__all__ = [
    "AggframeError",
    "AggframeNamespace",
    "ColumnNotFoundError",
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
    "ShapeError",
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
    "classification_report",
    "cost",
    "cost_matrix",
    "degrees_of_freedom",
    "diagnose",
    "dominates",
    "fbeta",
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
    "lukasiewicz",
    "make_scorer",
    "micro_macro_gap",
    "multioutput_aggregate",
    "ops",
    "pareto_dominance",
    "plot_classes",
    "plot_conventions",
    "plot_folds",
    "plot_groups",
    "plot_heatmap",
    "product",
    "register_measure",
    "scan",
    "score",
    "select_suite",
    "suite_jacobian",
    "suite_rank",
    "unregister_measure",
    "verify_inference",
    "wide",
    "write_html_report",
]
