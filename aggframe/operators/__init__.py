"""Operators: averages over cell tables, as group-bys.

:mod:`~aggframe.operators.reduce` is the one reduction (micro, macro, weighted,
exemplar) with the one resolution of undefined entries; per-class views and the
binary operator are in :mod:`~aggframe.operators.classes`; folds, targets and
grouping sets are sums and means of that reduction
(:mod:`~aggframe.operators.folds`, :mod:`~aggframe.operators.targets`,
:mod:`~aggframe.operators.grouping`); :mod:`~aggframe.operators.report` builds a
whole report from a frozen request. The measures on scores:
:mod:`~aggframe.operators.scores` reduces their entries under the operators;
:mod:`~aggframe.operators.score_values` (the entries), :mod:`~aggframe.operators.curves`
and :mod:`~aggframe.operators.calibration` read the per-score tables
(:mod:`~aggframe.operators.score_tables`).
"""
