"""Charts of aggframe's results, as ``af.plot.<name>`` (Altair, the optional ``plot`` extra).

One function per chart; each takes the tidy frames aggframe returns and gives an Altair
chart, drawn only when displayed or saved. ``import aggframe`` does not import this
module; ``af.plot`` does (and Altair is imported by the first chart drawn).

=====================  ========================================================================
:func:`classes`        per-class values of one measure, with micro/macro/weighted lines
:func:`conventions`    the band undefined entries span: exclude vs zero vs one
:func:`groups`         small multiples: one panel per measure, one row per group
:func:`heatmap`        one measure x operator over two group columns (model x day)
:func:`folds`          pooled vs averaged folds, with the per-fold values and their spread
:func:`curve`          ROC or precision-recall curves (the tidy frames of ``pr.curve``)
:func:`calibration`    reliability diagrams (the tidy tables of ``pr.calibration``)
:func:`slices`         the slices of :func:`~aggframe.slices` against their complements
:func:`monitor`        the values of :func:`~aggframe.monitor` over time, with their bands
:func:`estimate`       estimated (dashed, with its band) and realized values of :func:`~aggframe.estimate` over time
=====================  ========================================================================

These were ``af.plot_<name>`` (``af.plot_curve`` is ``af.plot.curve``): the old names still
work for this release, with a ``FutureWarning`` (:data:`aggframe._deprecated.MOVED`).

Examples
--------
>>> import aggframe as af
>>> af.plot.__all__[:4]
['calibration', 'classes', 'conventions', 'curve']
"""

from __future__ import annotations

from aggframe.interop.charts.estimate import plot_estimate as estimate
from aggframe.interop.charts.time import plot_monitor as monitor
from aggframe.interop.plots import plot_calibration as calibration
from aggframe.interop.plots import plot_classes as classes
from aggframe.interop.plots import plot_conventions as conventions
from aggframe.interop.plots import plot_curve as curve
from aggframe.interop.plots import plot_folds as folds
from aggframe.interop.plots import plot_groups as groups
from aggframe.interop.plots import plot_heatmap as heatmap
from aggframe.interop.plots import plot_slices as slices

__all__ = [
    "calibration",
    "classes",
    "conventions",
    "curve",
    "estimate",
    "folds",
    "groups",
    "heatmap",
    "monitor",
    "slices",
]
