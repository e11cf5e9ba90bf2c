"""The parts of the :class:`~aggframe.Predictions` façade, one capability per module.

``base.py`` holds the source and the cell tables of each grouping read (the
accessors everything else builds on); ``scores.py`` the measures on scores,
curves and calibration; ``report.py`` the report request, the report and
``compare``; ``parts.py`` the per-class and per-entry values; ``matrix.py`` the
confusion matrix and accuracies; ``stores.py`` cell stores (:mod:`aggframe.cells`: in memory).
:mod:`aggframe.predictions` composes them into :class:`~aggframe.Predictions`.
"""
