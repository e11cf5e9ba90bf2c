"""scikit-learn interop: one-shot scores, scorers for model selection, a tidy report.

:func:`score` takes label arrays (or multilabel indicator matrices) and returns
one float, :func:`make_scorer` wraps it for ``cross_val_score`` and
``GridSearchCV`` (negated for lower-is-better measures, as scikit-learn expects),
and :func:`classification_report` gives scikit-learn's report as a tidy frame.
scikit-learn itself is needed by :func:`make_scorer` only.

Equivalence with ``sklearn.metrics`` (each row is a test in ``tests/test_sklearn.py``)
---------------------------------------------------------------------------------------

=========================================  =================================================
scikit-learn                               aggframe
=========================================  =================================================
``average="micro"``                        ``operator="micro"``
``average="macro"``                        ``operator="macro"``
``average="weighted"``                     ``operator="weighted"``
``average="samples"`` (multilabel)         ``operator="exemplar"`` (alias ``"samples"``)
``average="binary", pos_label=p``          ``operator="binary"``, ``pos_label=p`` (exactly two
                                           classes, else an error), or ``task="binary"``
``average=None``                           ``Predictions.per_class(measure)`` (or ``parts``),
                                           the per-class rows of :func:`classification_report`
``labels=[...]``                           ``labels=[...]``
``zero_division=0`` (and ``"warn"``)       ``convention="zero"``
``zero_division=1``                        ``convention="one"``
``zero_division=np.nan``                   ``convention="exclude"``: undefined entries are
                                           left out of the average (NaN if none is defined)
(no equivalent)                            ``convention="nan"``: one undefined entry makes
                                           the average NaN
=========================================  =================================================

Measures: ``precision_score`` = ``"precision"``, ``recall_score`` = ``"recall"``,
``f1_score`` = ``"f1"``, ``fbeta_score(beta=b)`` = ``f"f{b}"``, ``jaccard_score`` =
``"jaccard"``; on binary labels (``task="binary"``) ``matthews_corrcoef`` = ``"mcc"``
and ``cohen_kappa_score`` = ``"kappa"``; ``hamming_loss`` (multilabel) =
``"hamming_loss"`` under ``"micro"``; ``balanced_accuracy_score`` = ``"recall"``
under ``"macro"`` with ``convention="exclude"`` (scikit-learn averages over the
classes present in ``y_true``).

Two differences of defaults: scikit-learn's ``average`` defaults to ``"binary"``,
these functions' ``operator`` to ``"macro"``; and scikit-learn infers a binary
task from two labels, aggframe never does (name ``task="binary"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from aggframe._options import parse_convention, parse_operator
from aggframe.constructors import from_indicator, from_labels
from aggframe.exceptions import OptionError, ShapeError
from aggframe.measures.measure import Measure
from aggframe.measures.registry import get_measure
from aggframe.operators.reduce import resolve_entry
from aggframe.predictions import Predictions

__all__ = ["classification_report", "make_scorer", "score"]

MeasureLike = str | Measure
_SCORER_OPTIONS = ("labels", "n_classes", "task", "pos_label")


def _predictions(
    y_true: Any,
    y_pred: Any,
    *,
    n_classes: int | None,
    task: str | None,
    pos_label: Any,
    classes: Sequence[Any] | None = None,
) -> Predictions:
    """Label arrays -> label form; 2-D indicator matrices -> long form."""
    try:
        ndim_t, ndim_p = np.ndim(y_true), np.ndim(y_pred)
    except ValueError as exc:
        msg = f"y_true and y_pred must be label arrays or indicator matrices: {exc}"
        raise ShapeError(msg) from exc
    if ndim_t == 2 or ndim_p == 2:
        if ndim_t != ndim_p:
            msg = f"y_true is {ndim_t}-D but y_pred is {ndim_p}-D; give two label arrays or two indicator matrices"
            raise ShapeError(msg)
        if task is not None or n_classes is not None or classes is not None:
            msg = "task, n_classes and classes apply to label arrays; indicator matrices fix them by their columns"
            raise OptionError(msg)
        return from_indicator(y_true, y_pred)
    # arrays, not lists: a list of strings would read as a list of file paths
    return from_labels(
        np.asarray(y_true),
        np.asarray(y_pred),
        n_classes=n_classes,
        classes=classes,
        task=task,  # type: ignore[arg-type]
        pos_label=pos_label,
    )


def _as_list(labels: Sequence[Any] | None) -> list[Any] | None:
    return None if labels is None else list(labels)


def score(
    y_true: Any,
    y_pred: Any,
    measure: MeasureLike,
    operator: str = "macro",
    *,
    convention: str = "zero",
    labels: Sequence[Any] | None = None,
    n_classes: int | None = None,
    task: str | None = None,
    pos_label: Any = 1,
) -> float:
    """One measure under one operator, from label arrays: scikit-learn style.

    Parameters
    ----------
    y_true, y_pred
        1-D label arrays (via :func:`~aggframe.from_labels`), or 2-D multilabel
        indicator matrices (via :func:`~aggframe.from_indicator`).
    measure
        A measure name, alias or :class:`~aggframe.Measure`.
    operator
        ``"micro"``, ``"macro"`` (default), ``"weighted"``, ``"exemplar"``
        (``"samples"``), or ``"binary"`` (the class ``pos_label`` only; exactly
        two classes, else an :class:`~aggframe.OptionError`).
    convention
        ``"zero"`` (default, scikit-learn's ``zero_division=0``), ``"one"``,
        ``"exclude"`` (``zero_division=np.nan``) or ``"nan"``.
    labels
        Average over these classes only (scikit-learn's ``labels``).
    n_classes, task, pos_label
        As in :func:`~aggframe.from_labels` (label arrays only).

    Returns
    -------
    float
        NaN when undefined under the convention.

    Examples
    --------
    >>> from aggframe.interop.sklearn import score
    >>> round(score([0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0], "precision", "weighted"), 4)
    0.7619
    >>> score([0, 1, 1, 0], [0, 1, 0, 0], "recall", task="binary")
    0.5
    """
    pr = _predictions(y_true, y_pred, n_classes=n_classes, task=task, pos_label=pos_label)
    out = pr.evaluate([measure], [operator], convention=convention, labels=_as_list(labels))
    assert isinstance(out, pl.DataFrame)
    return float(out["value"][0])


def make_scorer(measure: MeasureLike, operator: str = "macro", *, convention: str = "zero", **kw: Any) -> Any:
    """A scikit-learn scorer for ``cross_val_score``, ``GridSearchCV`` and friends.

    Built with ``sklearn.metrics.make_scorer`` around :func:`score` on the
    estimator's ``predict`` output, with ``greater_is_better`` taken from the
    measure: lower-is-better measures (``error_rate``, ``fpr``, ``fnr``,
    ``fdr``, ``for``) are negated, so larger is always better for model
    selection, as scikit-learn's ``neg_*`` scorers are.

    Parameters
    ----------
    measure, operator, convention
        As in :func:`score`; checked here, not at the first fold.
    **kw
        ``labels``, ``n_classes``, ``task``, ``pos_label``: passed to :func:`score`.

    Returns
    -------
    sklearn scorer
        Callable ``scorer(estimator, X, y)``; picklable when ``measure`` is a
        name (so it works with ``n_jobs``).

    Raises
    ------
    OptionError
        scikit-learn is not installed, or an unknown keyword.

    Examples
    --------
    >>> from sklearn.dummy import DummyClassifier
    >>> from aggframe.interop.sklearn import make_scorer
    >>> X, y = [[0]] * 4, [0, 0, 1, 2]
    >>> clf = DummyClassifier(strategy="most_frequent").fit(X, y)
    >>> make_scorer("recall", "macro")(clf, X, y)
    0.3333333333333333
    >>> make_scorer("fpr", "macro")(clf, X, y)  # lower is better: negated
    -0.3333333333333333
    """
    try:
        from sklearn.metrics import make_scorer as sk_make_scorer
    except ImportError as exc:
        msg = "make_scorer needs scikit-learn, an optional dependency: pip install scikit-learn"
        raise OptionError(msg) from exc
    meas = get_measure(measure)
    if str(operator).strip().lower() != "binary":
        parse_operator(operator)
    parse_convention(convention)
    unknown = sorted(set(kw) - set(_SCORER_OPTIONS))
    if unknown:
        msg = f"unknown keyword(s) {unknown} for make_scorer; valid: {', '.join(_SCORER_OPTIONS)}"
        raise OptionError(msg)
    return sk_make_scorer(
        score,
        greater_is_better=meas.greater_is_better,
        measure=measure if isinstance(measure, str) else meas,
        operator=operator,
        convention=convention,
        **kw,
    )


def classification_report(
    y_true: Any,
    y_pred: Any,
    *,
    measures: Sequence[MeasureLike] = ("precision", "recall", "f1"),
    operators: Sequence[str] = ("micro", "macro", "weighted"),
    convention: str = "zero",
    labels: Sequence[Any] | None = None,
    n_classes: int | None = None,
    task: str | None = None,
    pos_label: Any = 1,
) -> pl.DataFrame:
    """scikit-learn's ``classification_report`` as a tidy frame.

    One row per class (``operator`` null) with its values and support (from
    :meth:`Predictions.per_class`), then one row per operator (``class`` null)
    with the averages (from :meth:`Predictions.evaluate`) and the total support.
    scikit-learn's ``accuracy`` row is the ``micro`` row (on single-label data
    micro precision, recall and F1 all equal accuracy).

    Parameters
    ----------
    y_true, y_pred
        Label arrays or multilabel indicator matrices, as in :func:`score`.
    measures
        Measure names or objects; one column each (named by the measure's
        canonical name).
    operators
        The averages to report.
    convention
        How undefined entries are resolved, in the averages and in the
        per-class rows: ``"zero"`` (0), ``"one"`` (1), ``"nan"`` (NaN) or
        ``"exclude"`` (left out of the averages, null per class).
    labels
        Report these classes, in this order, and average over them; classes
        absent from the data get rows with support 0 (a class nobody is or
        predicts).
    n_classes, task, pos_label
        As in :func:`~aggframe.from_labels`.

    Returns
    -------
    polars.DataFrame
        ``class``, ``operator``, one column per measure, ``support``.

    Examples
    --------
    >>> from aggframe.interop.sklearn import classification_report
    >>> classification_report([0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0])
    shape: (6, 6)
    ┌───────┬──────────┬───────────┬──────────┬──────────┬─────────┐
    │ class ┆ operator ┆ precision ┆ recall   ┆ f1       ┆ support │
    │ ---   ┆ ---      ┆ ---       ┆ ---      ┆ ---      ┆ ---     │
    │ i64   ┆ str      ┆ f64       ┆ f64      ┆ f64      ┆ i64     │
    ╞═══════╪══════════╪═══════════╪══════════╪══════════╪═════════╡
    │ 0     ┆ null     ┆ 0.5       ┆ 0.5      ┆ 0.5      ┆ 2       │
    │ 1     ┆ null     ┆ 0.666667  ┆ 1.0      ┆ 0.8      ┆ 2       │
    │ 2     ┆ null     ┆ 1.0       ┆ 0.666667 ┆ 0.8      ┆ 3       │
    │ null  ┆ micro    ┆ 0.714286  ┆ 0.714286 ┆ 0.714286 ┆ 7       │
    │ null  ┆ macro    ┆ 0.722222  ┆ 0.722222 ┆ 0.7      ┆ 7       │
    │ null  ┆ weighted ┆ 0.761905  ┆ 0.714286 ┆ 0.714286 ┆ 7       │
    └───────┴──────────┴───────────┴──────────┴──────────┴─────────┘
    """
    conv = parse_convention(convention)
    meas: list[Measure] = []
    for m in measures:
        got = get_measure(m)
        if got.name not in [x.name for x in meas]:
            meas.append(got)
    if not meas:
        msg = "Expected at least one measure"
        raise OptionError(msg)
    if any(m.name in ("class", "operator", "support") for m in meas):
        msg = "a measure named 'class', 'operator' or 'support' would collide with the report's columns"
        raise OptionError(msg)
    pr = _predictions(y_true, y_pred, n_classes=n_classes, task=task, pos_label=pos_label)
    table = pr.per_class(meas, labels=_as_list(labels))
    class_dtype = table.schema["class"]
    names = [m.name for m in meas]
    per_class = table.with_columns(resolve_entry(pl.col("value"), conv)).pivot(
        on="measure", index=["class", "support"], values="value", aggregate_function=None
    )
    if labels is not None:
        # in the order asked for (per_class sorts by class)
        wanted = pl.DataFrame({"class": pl.Series(list(labels)).cast(class_dtype)})
        per_class = wanted.join(per_class, on="class", how="left", maintain_order="left", nulls_equal=True)
    rows = per_class.select(
        "class",
        pl.lit(None, dtype=pl.String).alias("operator"),
        *[pl.col(n).cast(pl.Float64) for n in names],
        pl.col("support").cast(pl.Int64),
    )

    averages = pr.evaluate(meas, list(operators), convention=conv, labels=_as_list(labels))
    assert isinstance(averages, pl.DataFrame)
    wide = averages.pivot(on="measure", index="operator", values="value", aggregate_function=None)
    total = int(rows["support"].sum())
    avg_rows = wide.select(
        pl.lit(None, dtype=class_dtype).alias("class"),
        pl.col("operator"),
        *[pl.col(n).cast(pl.Float64) for n in names],
        pl.lit(total, dtype=pl.Int64).alias("support"),
    )
    return pl.concat([rows, avg_rows], how="vertical")
