"""Charts of aggframe's tidy results, with Altair (the optional ``plot`` extra).

One function per chart, each taking the tidy frames aggframe returns (``evaluate``,
``per_class``, ``compare``) and returning an Altair chart object: nothing is drawn or
kept anywhere until you display or save it (``chart.save("f1.svg")`` or ``.png``
renders offline through vl-convert).

========================  ==================================================================
:func:`plot_classes`      per-class values of one measure, with micro/macro/weighted lines
:func:`plot_conventions`  the band undefined entries span: exclude vs zero vs one
:func:`plot_groups`       small multiples: one panel per measure, one row per group
:func:`plot_heatmap`      one measure x operator over two group columns (model x day)
:func:`plot_folds`        pooled vs averaged folds, with the per-fold values and their spread
:func:`plot_curve`        ROC or precision-recall curves (the tidy frames of ``curve``)
:func:`plot_calibration`  reliability diagrams (the tidy tables of ``calibration``)
:func:`plot_slices`       the slices of :func:`~aggframe.slices` against their complements
========================  ==================================================================

A frame evaluated with ``n_boot=`` (columns ``ci_low``, ``ci_high``) gets its bootstrap
intervals drawn: error bars in :func:`plot_groups`, ``[low, high]`` in each cell of
:func:`plot_heatmap`, a band around each reference line of :func:`plot_classes`; with
``value="difference_to_reference"`` (a ``compare`` column) the paired differences are drawn
against zero. Without those columns the charts are unchanged.

Column names of your data never become Vega-Lite field names: the charts are built on a
small frame with fixed internal names, and your names appear only as titles and
labels. A group column may therefore be called anything (``"a.b [0]"``). Each group is
labelled as everywhere in aggframe (:func:`~aggframe._columns.key_label`): a string key as
itself, a null key ``(null)`` (:data:`NULL_LABEL`), a rolled-up key of a grouping-set report
``(all)``, a key that could read as another quoted (``"(null)"``, ``"a · b"``); the keys of a
group are joined with `` · ``, and two groups never share a label.

The charts live in :mod:`aggframe.interop.charts`, one module per kind (``groups.py``,
``averages.py``, ``scores.py``, on the shared ``frames.py``); this module gathers them.
"""

from __future__ import annotations

from aggframe.interop.charts.averages import plot_classes, plot_conventions, plot_folds
from aggframe.interop.charts.frames import NULL_LABEL
from aggframe.interop.charts.groups import plot_groups, plot_heatmap
from aggframe.interop.charts.scores import plot_calibration, plot_curve
from aggframe.interop.charts.slices import plot_slices

__all__ = [
    "NULL_LABEL",
    "plot_calibration",
    "plot_classes",
    "plot_conventions",
    "plot_curve",
    "plot_folds",
    "plot_groups",
    "plot_heatmap",
    "plot_slices",
]
