"""aggframe's charts (the ``plot`` extra), one module per kind of chart.

``frames.py`` holds what every chart shares (the small chart frame with fixed field names,
labels of groups, the bootstrap intervals, the facets); ``groups.py`` draws one value per
group (``plot_groups``, ``plot_heatmap``); ``averages.py`` an average against what it is made
of (``plot_classes``, ``plot_conventions``, ``plot_folds``); ``scores.py`` the charts of
scores (``plot_curve``, ``plot_calibration``). :mod:`aggframe.interop.plots` gathers the
public functions.
"""
