"""Public names that changed, kept working for a release with a ``FutureWarning``.

Top-level names that moved into a namespace (``af.plot_curve`` is ``af.plot.curve``): the
table :data:`MOVED`, old name -> new home under ``aggframe``, is all there is to it. The
package's ``__getattr__`` resolves an old name through :func:`moved`, which warns and
returns the very object of the new home; the old names are not in ``__all__`` nor in
``dir(aggframe)``. To move one more name: delete it from ``aggframe/__init__.py`` (its
``TYPE_CHECKING`` import, ``_LAZY`` and ``__all__``), add it to the namespace module
(``aggframe/plot.py``, ...), and add one line here.

``af.wide(report)`` was the wide-table function, and its name shadowed the subpackage
:mod:`aggframe.wide` (the one scan): ``import aggframe.wide.tnorms as t`` raised
``ImportError``. The function is :func:`aggframe.wide_table` now, and ``aggframe.wide`` is
the subpackage again; calling it still gives the wide table, with a ``FutureWarning``
naming the new function.
"""

from __future__ import annotations

import importlib
import types
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the function is imported by the call: `import aggframe` stays cheap
    from collections.abc import Sequence

    import polars as pl

__all__ = ["MOVED", "make_wide_callable", "moved"]

#: Old top-level name -> its new home, ``"<namespace>.<name>"`` under ``aggframe``. Each old
#: name still resolves (to the same object) with a ``FutureWarning``, for one release.
MOVED: dict[str, str] = {
    # charts: af.plot
    "plot_calibration": "plot.calibration",
    "plot_classes": "plot.classes",
    "plot_conventions": "plot.conventions",
    "plot_curve": "plot.curve",
    "plot_folds": "plot.folds",
    "plot_groups": "plot.groups",
    "plot_heatmap": "plot.heatmap",
    "plot_monitor": "plot.monitor",
    "plot_slices": "plot.slices",
    # t-norms for soft labels: af.tnorms
    "godel": "tnorms.godel",
    "hamacher": "tnorms.hamacher",
    "lukasiewicz": "tnorms.lukasiewicz",
    "marginal_defect": "tnorms.marginal_defect",
    "product": "tnorms.product",
    # measure suites: af.suites
    "SuiteInput": "suites.SuiteInput",
    "SuiteRank": "suites.SuiteRank",
    "SuiteSelection": "suites.SuiteSelection",
    "degrees_of_freedom": "suites.degrees_of_freedom",
    "select_suite": "suites.select_suite",
    "select_suites": "suites.select_suites",
    "suite_jacobian": "suites.suite_jacobian",
    "suite_rank": "suites.suite_rank",
    "suite_ranks": "suites.suite_ranks",
    # errors and warnings: af.errors (af.AggframeError, the base class, stays)
    "CheckFailedError": "errors.CheckFailedError",
    "ColumnNotFoundError": "errors.ColumnNotFoundError",
    "DecisionWarning": "errors.DecisionWarning",
    "DuplicateEntryError": "errors.DuplicateEntryError",
    "EmptyInputError": "errors.EmptyInputError",
    "InvalidValueError": "errors.InvalidValueError",
    "MeasureWarning": "errors.MeasureWarning",
    "NullValueError": "errors.NullValueError",
    "OptionError": "errors.OptionError",
    "RuleError": "errors.RuleError",
    "ShapeError": "errors.ShapeError",
    "ShiftWarning": "errors.ShiftWarning",
    "SourceError": "errors.SourceError",
    "SparseInputError": "errors.SparseInputError",
    "StoreError": "errors.StoreError",
    "UnknownClassError": "errors.UnknownClassError",
    "UnknownNameError": "errors.UnknownNameError",
}


def moved(name: str) -> Any:
    """The object an old top-level name stands for, with a ``FutureWarning`` naming its new home.

    Parameters
    ----------
    name
        A key of :data:`MOVED`.

    Returns
    -------
    Any
        The object at the new home (``moved("plot_curve") is aggframe.plot.curve``).

    Raises
    ------
    KeyError
        A name that never moved.
    """
    home = MOVED[name]
    namespace, _, attr = home.rpartition(".")
    value = getattr(importlib.import_module(f"aggframe.{namespace}"), attr)
    msg = (
        f"af.{name} is deprecated and will be removed in a later release: use af.{home} "
        f"(the same {'class' if isinstance(value, type) else 'function'})"
    )
    warnings.warn(msg, FutureWarning, stacklevel=3)  # the caller of the package's __getattr__
    return value


class _CallableWide(types.ModuleType):
    """The subpackage :mod:`aggframe.wide`, callable as the old ``af.wide`` function."""

    def __call__(
        self,
        report: pl.DataFrame | pl.LazyFrame,
        *,
        values: str | Sequence[str] = "value",
        by: str | Sequence[str] | None = None,
        separator: str = " ",
    ) -> pl.DataFrame:
        msg = (
            "af.wide(report, ...) is deprecated and will be removed in a later release: "
            "use af.wide_table(report, ...), the same function (aggframe.wide is the "
            "subpackage of the scan, `import aggframe.wide.tnorms` works again)"
        )
        warnings.warn(msg, FutureWarning, stacklevel=2)
        from aggframe.interop.layout import wide_table

        return wide_table(report, values=values, by=by, separator=separator)


def make_wide_callable() -> None:
    """Make the module object ``aggframe.wide`` callable (forwarding to :func:`wide_table`).

    Returns
    -------
    None
        The subpackage's class is changed in place; its attributes stay as they are.
    """
    module = importlib.import_module("aggframe.wide")  # its __init__ imports nothing: cheap
    if not isinstance(module, _CallableWide):
        module.__class__ = _CallableWide
