"""The formulas of the built-in measures: plain arithmetic plus :mod:`aggframe.ops`.

Each is a function of the four cells that runs on Polars expressions and NumPy
arrays alike (:func:`aggframe.ops.ratio` makes a vanishing denominator undefined
on both). Their properties are declared beside their registration in
:mod:`aggframe.measures.registry`.
"""

from __future__ import annotations

from typing import Any

from aggframe.measures.measure import Formula
from aggframe.ops import ratio, sqrt


def recall(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tp, tp + fn)


def specificity(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tn, tn + fp)


def precision(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tp, tp + fp)


def npv(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tn, tn + fn)


def fpr(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(fp, fp + tn)


def fnr(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(fn, tp + fn)


def fdr(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(fp, tp + fp)


def for_(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(fn, fn + tn)


def jaccard(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tp, tp + fp + fn)


def label_accuracy(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tp + tn, tp + fp + fn + tn)


def error_rate(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(fp + fn, tp + fp + fn + tn)


def fbeta_formula(beta: float) -> Formula:
    b2 = beta * beta

    def formula(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
        return ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)

    return formula


def balanced_accuracy(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return 0.5 * (recall(tp, fp, fn, tn) + specificity(tp, fp, fn, tn))


def gmean(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return sqrt(recall(tp, fp, fn, tn) * specificity(tp, fp, fn, tn))


def informedness(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return recall(tp, fp, fn, tn) + specificity(tp, fp, fn, tn) - 1.0


def markedness(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return precision(tp, fp, fn, tn) + npv(tp, fp, fn, tn) - 1.0


def mcc(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return ratio(tp * tn - fp * fn, sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))


def kappa(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    n = tp + fp + fn + tn
    po = ratio(tp + tn, n)
    pe = ratio((tp + fn) * (tp + fp) + (tn + fp) * (tn + fn), n * n)
    return ratio(po - pe, 1.0 - pe)


def fowlkes_mallows(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    return sqrt(precision(tp, fp, fn, tn) * recall(tp, fp, fn, tn))
