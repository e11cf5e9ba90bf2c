"""scikit-learn interop: one-shot scores, scorers for model selection, a tidy report.

:func:`score` takes label arrays (or multilabel indicator matrices) and returns
one float, :func:`make_scorer` wraps it for ``cross_val_score`` and
``GridSearchCV`` (negated for lower-is-better measures, as scikit-learn expects),
and :func:`classification_report` gives scikit-learn's report as a tidy frame.
None of them needs scikit-learn itself.

The naming trap: scikit-learn's ``matthews_corrcoef``, ``cohen_kappa_score`` and
``balanced_accuracy_score`` on more than two classes are functions of the whole
``m x m`` confusion matrix (operator ``multiclass``), not the one-vs-rest cells
that ``micro`` and ``macro`` average: ``mcc`` under ``micro`` is another number.

Equivalence with ``sklearn.metrics`` (each row is a test in ``tests/interop/test_sklearn.py``)
---------------------------------------------------------------------------------------

==============================================  ==============================================
scikit-learn                                    aggframe (measure, operator, convention)
==============================================  ==============================================
``precision_score`` / ``recall_score`` /        ``"precision"`` / ``"recall"`` / ``"f1"`` /
``f1_score`` / ``fbeta_score(beta=b)`` /        ``f"f{b}"`` / ``"jaccard"``, under the
``jaccard_score``                               operator of ``average``:
``average="micro"``                             ``"micro"``
``average="macro"``                             ``"macro"``
``average="weighted"``                          ``"weighted"``
``average="samples"`` (multilabel)              ``"exemplar"`` (alias ``"samples"``)
``average="binary", pos_label=p``               ``"binary"``, ``pos_label=p`` (at most two
                                                classes, else an error), or ``task="binary"``
``average=None``                                ``Predictions.per_class(measure)`` (or
                                                ``parts``), the class rows of
                                                :func:`classification_report`
``labels=[...]``                                ``labels=[...]`` (micro, macro, weighted;
                                                not ``"exemplar"``: slice the columns; not
                                                ``task="binary"``). Matched exactly: a value
                                                the class column cannot hold (``1.5`` on
                                                integer classes) is refused, never cast
``zero_division=0`` (and ``"warn"``)            ``convention="zero"``
``zero_division=1``                             ``convention="one"``
``zero_division=np.nan``                        ``convention="exclude"``: undefined entries
                                                are left out (NaN if none is defined)
(no equivalent)                                 ``convention="nan"``: one undefined entry
                                                makes the average NaN
``matthews_corrcoef``                           ``"mcc"``, ``"multiclass"``, ``"zero"``
                                                (scikit-learn returns 0 where undefined)
``cohen_kappa_score``                           ``"kappa"``, ``"multiclass"``, ``"exclude"``
                                                (NaN where undefined, its default
                                                ``replace_undefined_by=np.nan``; ``"zero"``
                                                / ``"one"`` for ``0.0`` / ``1.0``)
``cohen_kappa_score(weights="linear")``         ``"kappa_linear"``, ``"multiclass"``
``cohen_kappa_score(weights="quadratic")``      ``"kappa_quadratic"``, ``"multiclass"``
                                                (classes rank in universe order, as
                                                ``labels=`` the universe)
``balanced_accuracy_score``                     ``"balanced_accuracy"``, ``"multiclass"``
                                                (= ``"recall"``, ``"macro"``, ``"exclude"``)
``balanced_accuracy_score(adjusted=True)``      ``"balanced_accuracy_adjusted"``,
                                                ``"multiclass"``
``accuracy_score`` (labels)                     ``"accuracy"``, ``"multiclass"``
                                                (= ``Predictions.accuracy()``)
``accuracy_score`` (indicator matrices)         ``Predictions.subset_accuracy()``
``hamming_loss`` (indicator matrices)           ``"hamming_loss"``, ``"micro"``
``hamming_loss`` (labels)                       ``1 - accuracy`` (``"accuracy"``,
                                                ``"multiclass"``); not ``"hamming_loss"``,
                                                which counts one-hot cells
``confusion_matrix(normalize=)``                ``Predictions.confusion_matrix(normalize=)``
                                                (tidy; ``rate`` null where scikit-learn
                                                gives 0: ``convention="zero"`` semantics);
                                                no ``labels=``: rates are within all classes
``classification_report``                       :func:`classification_report`
``fowlkes_mallows_score``                       none: a clustering index, over the pairs of
                                                examples, blind to which predicted class is
                                                which; ``"fowlkes_mallows"`` is another number,
                                                ``sqrt(precision * recall)`` of the cells
``roc_auc_score(y, P, multi_class="ovr",``      ``"auroc"``, ``a``, on :func:`~aggframe.from_scores`
``average=a)`` (macro, weighted)                (one-vs-rest per class)
``roc_auc_score(Y, P, average="micro")``        ``"auroc"``, ``"micro"`` (``"samples"``: ``"exemplar"``)
binary ``roc_auc_score(y, s)``,                 ``"auroc"``, ``"average_precision"``,
``average_precision_score``, ``log_loss``,      ``"log_loss"``, ``"brier"`` on
``brier_score_loss``                            ``from_scores(frame, class_=None)``
``average_precision_score(Y, P, average=a)``    ``"average_precision"``, ``a``
``label_ranking_average_precision_score``       ``"average_precision"``, ``"exemplar"``, ``"one"``
``log_loss(y, P)``, ``brier_score_loss(y, P)``  ``"log_loss"``, ``"brier"``, ``"multiclass"``
``roc_curve`` (``drop_intermediate=False``),    ``Predictions.curve("roc")``, ``curve("pr")``
``precision_recall_curve``                      (one class's rows)
``calibration_curve``                           ``Predictions.calibration(bins=, strategy=)``
==============================================  ==============================================

On two classes (one-hot, ``task=None``) ``"mcc"`` under ``"multiclass"`` equals the
binary ``mcc`` of either class (``task="binary"``, ``"micro"``); so does ``"kappa"``.

Two differences of defaults: scikit-learn's ``average`` defaults to ``"binary"``,
these functions' ``operator`` to ``"macro"``; and scikit-learn infers a binary
task from two labels, aggframe never does (name ``task="binary"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from aggframe._options import Convention, ReportOperator, listify, parse_convention, parse_report_operator
from aggframe.constructors import from_indicator, from_labels
from aggframe.exceptions import OptionError, ShapeError, UnknownNameError
from aggframe.measures.matrix import is_matrix_measure, resolve_matrix_measures
from aggframe.measures.measure import Measure, MeasureLike
from aggframe.measures.registry import get_measure
from aggframe.operators.classes import check_binary_subset, class_list, exact_classes
from aggframe.operators.reduce import resolve_entry
from aggframe.operators.report import ReportRequest
from aggframe.predictions import Predictions

__all__ = ["Scorer", "classification_report", "make_scorer", "score"]

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
    """Label arrays -> label form; 2-D indicator matrices -> long form.

    An ``n x 1`` array (a column vector, a one-column frame) is a label array, as
    in scikit-learn (``column_or_1d``): not a one-class indicator matrix.
    """
    try:
        y_true, y_pred = _column_or_1d(y_true), _column_or_1d(y_pred)
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


def _column_or_1d(y: Any) -> Any:
    """A 2-D array of one column as its 1-D labels (scikit-learn's ``column_or_1d``); anything else as is."""
    if np.ndim(y) != 2 or np.shape(y)[1] != 1:
        return y
    dense = y.toarray() if hasattr(y, "toarray") else np.asarray(y)  # scipy.sparse, frames, lists
    return np.asarray(dense).reshape(-1)


def _as_list(labels: Sequence[Any] | None) -> list[Any] | None:
    """``labels=`` as a list of classes (an OptionError for one value, e.g. ``labels=5``)."""
    return class_list(labels)


def _one(option: str, value: Any, example: str) -> None:
    """These functions return one number: an option that names one thing takes no list."""
    if not isinstance(value, str):
        msg = (
            f"{option}= takes one name here (these functions return one number), got "
            f"{type(value).__name__}: {value!r}; e.g. {option}={example!r} (for several, use "
            "Predictions.evaluate or classification_report)"
        )
        raise OptionError(msg)


def _one_measure(measure: Any) -> None:
    if not isinstance(measure, (str, Measure)):
        msg = (
            f"measure= takes one measure here (these functions return one number), got "
            f"{type(measure).__name__}: {measure!r}; e.g. measure='f1' (for several, use "
            "Predictions.evaluate or classification_report)"
        )
        raise OptionError(msg)


def _check_options(
    pr: Predictions | None,
    operators: Sequence[str],
    *,
    labels: list[Any] | None,
    task: str | None,
    pos_label: Any,
) -> None:
    """What the evaluation would otherwise read wrongly: a subset of a binary task, a cast pos_label."""
    check_binary_subset(binary=task == "binary" or (pr is not None and pr.source.binary), classes=labels)
    if pr is None or task == "binary":  # task="binary" checks pos_label against the labels itself
        return
    if any(parse_report_operator(o) == "binary" for o in operators):
        # the binary operator's positive class, matched exactly (1.5 is not class 1)
        exact_classes([pos_label], pr.source.class_dtype(), option="pos_label")


def score(  # noqa: PLR0913 -- the user's options, keyword-only
    y_true: Any,
    y_pred: Any,
    measure: MeasureLike,
    operator: ReportOperator = "macro",
    *,
    convention: Convention = "zero",
    labels: Sequence[Any] | None = None,
    n_classes: int | None = None,
    task: str | None = None,
    pos_label: Any = 1,
) -> float:
    """One measure under one operator, from label arrays: scikit-learn style.

    Parameters
    ----------
    y_true, y_pred
        1-D label arrays (via :func:`~aggframe.from_labels`; an ``n x 1`` column
        too, as in scikit-learn), or 2-D multilabel indicator matrices with two
        or more columns (via :func:`~aggframe.from_indicator`).
    measure
        A measure name, alias or :class:`~aggframe.Measure`; under
        ``"multiclass"`` one of ``mcc``, ``kappa``, ``kappa_linear``,
        ``kappa_quadratic``, ``balanced_accuracy``, ``balanced_accuracy_adjusted``,
        ``accuracy``.
    operator
        ``"micro"``, ``"macro"`` (default), ``"weighted"``, ``"exemplar"``
        (``"samples"``), ``"binary"`` (the class ``pos_label`` only; exactly
        two classes, else an :class:`~aggframe.errors.OptionError`) or ``"multiclass"``
        (the whole confusion matrix of label arrays: scikit-learn's
        ``matthews_corrcoef``, ``cohen_kappa_score``, ``balanced_accuracy_score``).
    convention
        ``"zero"`` (default, scikit-learn's ``zero_division=0``), ``"one"``,
        ``"exclude"`` (``zero_division=np.nan``) or ``"nan"``: one name, as
        ``measure`` and ``operator`` are (a list is an :class:`~aggframe.errors.OptionError`).
    labels
        Average over these classes only (scikit-learn's ``labels``): a list. A
        class absent from the data counts as one nobody is or predicts; a value
        the class column cannot hold (``1.5`` or ``'1'`` on integer classes) is
        an :class:`~aggframe.errors.OptionError`, never cast to another class. Not with
        ``task="binary"`` (it keeps ``pos_label`` only) nor ``"exemplar"``.
    n_classes, task, pos_label
        As in :func:`~aggframe.from_labels` (label arrays only). ``pos_label`` is
        matched exactly too.

    Returns
    -------
    float
        NaN when undefined under the convention.

    Raises
    ------
    OptionError
        Several measures, operators or conventions (one number takes one name), or an
        option that does not apply (``"binary"`` on more than two classes, ...).
    InvalidValueError
        Label arrays of mixed types.
    ShapeError
        Arrays of different lengths.

    Examples
    --------
    >>> from aggframe.interop.sklearn import score
    >>> round(score([0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0], "precision", "weighted"), 4)
    0.7619
    >>> score([0, 1, 1, 0], [0, 1, 0, 0], "recall", task="binary")
    0.5
    >>> round(score([0, 1, 2, 2], [0, 2, 2, 1], "kappa_quadratic", "multiclass"), 4)
    0.6364
    """
    _one_measure(measure)
    _one("operator", operator, "macro")
    _one("convention", convention, "zero")
    subset = _as_list(labels)
    _check_options(None, [operator], labels=subset, task=task, pos_label=pos_label)
    pr = _predictions(y_true, y_pred, n_classes=n_classes, task=task, pos_label=pos_label)
    _check_options(pr, [operator], labels=subset, task=task, pos_label=pos_label)
    out = pr.evaluate([measure], [operator], convention=convention, labels=subset)
    assert isinstance(out, pl.DataFrame)
    return float(out["value"][0])


@dataclass(frozen=True)
class Scorer:
    """A scorer for scikit-learn's model selection: ``scorer(estimator, X, y) -> float``.

    Calls ``estimator.predict(X)`` and :func:`score`, negated for lower-is-better
    measures (``sign`` -1). A plain callable: it needs no scikit-learn tags on the
    estimator (an object with ``predict`` is enough) and is picklable when the
    measure is a name. Build it with :func:`make_scorer`.
    """

    measure: MeasureLike
    operator: ReportOperator
    convention: Convention
    sign: int
    options: tuple[tuple[str, Any], ...] = ()

    def __call__(self, estimator: Any, X: Any, y_true: Any, sample_weight: Any = None) -> float:
        if sample_weight is not None:
            msg = "aggframe scorers count examples; they take no sample_weight"
            raise OptionError(msg)
        value = score(
            y_true,
            estimator.predict(X),
            self.measure,
            self.operator,
            convention=self.convention,
            **dict(self.options),
        )
        return self.sign * value

    def __repr__(self) -> str:
        name = self.measure if isinstance(self.measure, str) else self.measure.name
        extra = "".join(f", {k}={v!r}" for k, v in self.options)
        return f"make_scorer({name!r}, {self.operator!r}, convention={self.convention!r}{extra})"


def make_scorer(
    measure: MeasureLike, operator: ReportOperator = "macro", *, convention: Convention = "zero", **kw: Any
) -> Scorer:
    """A scorer for ``cross_val_score``, ``GridSearchCV`` and friends.

    A :class:`Scorer` around :func:`score` on the estimator's ``predict``
    output, with ``greater_is_better`` taken from the measure: lower-is-better
    measures (``error_rate``, ``fpr``, ``fnr``, ``fdr``, ``for``) are negated,
    so larger is always better for model selection, as scikit-learn's ``neg_*``
    scorers are. It calls ``predict`` only and reads no estimator tags, so any
    object with ``predict`` works (``sklearn.metrics.make_scorer`` needs
    ``__sklearn_tags__`` since scikit-learn 1.6).

    Parameters
    ----------
    measure, operator, convention
        As in :func:`score` (``operator="multiclass"`` included); checked here,
        not at the first fold.
    **kw
        ``labels``, ``n_classes``, ``task``, ``pos_label``: passed to :func:`score`
        (``labels`` and ``pos_label`` checked here too).

    Returns
    -------
    Scorer
        Callable ``scorer(estimator, X, y)``; picklable when ``measure`` is a
        name (so it works with ``n_jobs``).

    Raises
    ------
    OptionError
        An unknown keyword, a list where one name is due, ``labels`` that are no
        list of classes (or with ``task="binary"``), or a measure the operator
        does not define.

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
    >>> make_scorer("mcc", "multiclass")(clf, X, y)
    0.0
    """
    unknown = sorted(set(kw) - set(_SCORER_OPTIONS))
    if unknown:
        msg = f"unknown keyword(s) {unknown} for make_scorer; valid: {', '.join(_SCORER_OPTIONS)}"
        raise OptionError(msg)
    _one("operator", operator, "macro")
    _one("convention", convention, "zero")
    _one_measure(measure)
    request = ReportRequest.parse(
        [measure],
        [operator],
        convention=convention,
        classes=_as_list(kw.get("labels")),
        pos_label=kw.get("pos_label", 1),
        has_folds=False,
        has_target=False,
        binary_task=kw.get("task") == "binary",
    )
    # the whole-matrix measures are all greater-is-better; a cell measure says for itself
    better = request.measures[0].greater_is_better if request.measures else True
    return Scorer(
        measure=measure if isinstance(measure, str) else get_measure(measure),
        operator=request.operators[0],
        convention=request.conventions[0],
        sign=1 if better is not False else -1,
        options=tuple(sorted(kw.items())),
    )


_REPORT_COLUMNS = ("class", "operator", "support")


def classification_report(  # noqa: PLR0913 -- the user's options, keyword-only
    y_true: Any,
    y_pred: Any = None,
    *,
    measures: Sequence[MeasureLike] = ("precision", "recall", "f1"),
    operators: Sequence[str] = ("micro", "macro", "weighted"),
    convention: Convention = "zero",
    labels: Sequence[Any] | None = None,
    n_classes: int | None = None,
    task: str | None = None,
    pos_label: Any = None,
) -> pl.DataFrame:
    """scikit-learn's ``classification_report`` as a tidy frame.

    One row per class (``operator`` null) with its values and support (from
    :meth:`Predictions.per_class`), then one row per operator (``class`` null)
    with the averages (from :meth:`Predictions.evaluate`) and the total support.
    scikit-learn's ``accuracy`` row is the ``micro`` row (on single-label data
    micro precision, recall and F1 all equal accuracy), or the ``multiclass``
    row of the measure ``accuracy``.

    Parameters
    ----------
    y_true, y_pred
        Label arrays or multilabel indicator matrices, as in :func:`score`; or
        a :class:`~aggframe.Predictions` alone (then no ``y_pred``, ``n_classes``,
        ``task`` or ``pos_label``: they were given when it was built).
    measures
        Measure names or objects (or one of them); one column each (named by the measure's
        canonical name). A column is null in the rows whose operator does not
        define its measure: ``precision`` in the ``multiclass`` row,
        ``kappa_quadratic`` per class and under the cell operators.
    operators
        The averages to report, or one of them (``multiclass`` included: the
        whole-matrix value of the measures that have one).
    convention
        How undefined entries are resolved, in the averages and in the
        per-class rows: ``"zero"`` (0), ``"one"`` (1), ``"nan"`` (NaN) or
        ``"exclude"`` (left out of the averages, null per class).
    labels
        Report these classes, in this order, and average over them; classes
        absent from the data get rows with support 0 (a class nobody is or
        predicts). Matched exactly, as in :func:`score`. Not with
        ``multiclass``, ``exemplar`` or ``task="binary"``.
    n_classes, task, pos_label
        As in :func:`~aggframe.from_labels` (label arrays only).

    Returns
    -------
    polars.DataFrame
        ``class``, ``operator``, one column per measure, ``support``.

    Raises
    ------
    OptionError
        An option that does not apply, or ``y_pred`` given with predictions.
    InvalidValueError
        Label arrays of mixed types.
    ShapeError
        Arrays of different lengths.

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
    for option, value, default in (("measures", measures, "precision"), ("operators", operators, "micro")):
        if value is None:
            msg = (
                f"{option}=None: give a list, e.g. {option}=[{default!r}, ...] (leave it out for the default)"
            )
            raise OptionError(msg)
    measures = listify(measures, scalar=(str, Measure))
    ops = list(listify(operators))
    subset = _as_list(labels)
    _check_options(None, ops, labels=subset, task=task, pos_label=pos_label)
    pr = _report_predictions(y_true, y_pred, n_classes=n_classes, task=task, pos_label=pos_label)
    _check_options(pr, ops, labels=subset, task=task, pos_label=pr.source.pos_label)
    whole = [o for o in ops if parse_report_operator(o) == "multiclass"]
    cell_ops = [o for o in ops if o not in whole]
    columns = _report_columns(measures, whole=bool(whole))
    names = list(columns)
    cell_meas = [c for c, _ in columns.values() if c is not None]
    rows = _class_rows(pr, columns, subset, conv)
    class_dtype, total = rows.schema["class"], int(rows["support"].sum())
    parts = [rows]
    if cell_ops:
        averages = pr.evaluate(cell_meas, cell_ops, convention=conv, labels=subset)
        parts.append(
            _average_rows(
                averages, {n: c.name for n, (c, _) in columns.items() if c}, names, class_dtype, total
            )
        )
    if whole:
        matrix_names = {n: str(mx) for n, (_, mx) in columns.items() if mx is not None}
        if subset is not None:
            msg = "labels= restricts the class columns; the multiclass row takes the whole confusion matrix"
            raise OptionError(msg)
        averages = pr.evaluate(list(dict.fromkeys(matrix_names.values())), ["multiclass"], convention=conv)
        parts.append(_average_rows(averages, matrix_names, names, class_dtype, total))
    out = pl.concat(parts, how="vertical")
    if whole and cell_ops:  # the operators in the order asked for, after the classes
        rank = {op: i for i, op in enumerate(dict.fromkeys(parse_report_operator(o) for o in ops))}
        order = pl.col("operator").replace_strict(rank, default=None, return_dtype=pl.Int64)
        out = out.with_row_index("_r").sort(order, "_r", nulls_last=False).drop("_r")
    return out


def _report_predictions(
    y_true: Any, y_pred: Any, *, n_classes: int | None, task: Any, pos_label: Any
) -> Predictions:
    """The predictions of :func:`classification_report`: given, or built from two arrays."""
    if isinstance(y_true, Predictions):
        given = {"y_pred": y_pred, "n_classes": n_classes, "task": task, "pos_label": pos_label}
        extra = [k for k, v in given.items() if v is not None]
        if extra:
            msg = (
                f"classification_report(predictions) takes no {', '.join(extra)}: the predictions were "
                "built with them"
            )
            raise OptionError(msg)
        return y_true
    if y_pred is None:
        msg = "classification_report(y_true, y_pred) needs both arrays, or one af.Predictions"
        raise OptionError(msg)
    return _predictions(
        y_true, y_pred, n_classes=n_classes, task=task, pos_label=1 if pos_label is None else pos_label
    )


def _report_columns(
    measures: Sequence[MeasureLike], *, whole: bool
) -> dict[str, tuple[Measure | None, str | None]]:
    """Each measure's column: its canonical name, its per-class (registered) form, its whole-matrix form."""
    columns: dict[str, tuple[Measure | None, str | None]] = {}
    for m in measures:
        cell = _registered(m)
        matrix = resolve_matrix_measures(m)[0] if whole and is_matrix_measure(m) else None
        if cell is None and matrix is None:
            msg = (
                f"measure {m!r} is defined on the whole confusion matrix only: report it with "
                "operators=[..., 'multiclass']"
            )
            raise OptionError(msg)
        name = cell.name if cell is not None else str(matrix)
        columns.setdefault(name, (cell, matrix))
    if not columns:
        msg = "Expected at least one measure"
        raise OptionError(msg)
    if any(name in _REPORT_COLUMNS for name in columns):
        msg = "a measure named 'class', 'operator' or 'support' would collide with the report's columns"
        raise OptionError(msg)
    if whole and not any(mx is not None for _, mx in columns.values()):
        msg = (
            f"none of the measures {list(columns)} has a whole-matrix definition, so the multiclass row would be "
            "empty; add e.g. 'mcc', 'kappa' or 'balanced_accuracy', or drop 'multiclass'"
        )
        raise OptionError(msg)
    return columns


def _class_rows(
    pr: Predictions,
    columns: dict[str, tuple[Measure | None, str | None]],
    subset: list[Any] | None,
    conv: Any,
) -> pl.DataFrame:
    """One row per class (in the order of ``labels=`` when given): each measure's value, the support."""
    names = list(columns)
    cell_meas = [c for c, _ in columns.values() if c is not None]
    table = pr.per_class(cell_meas, labels=subset) if cell_meas else pr.per_class(["recall"])
    class_dtype = table.schema["class"]
    per_class = table.with_columns(resolve_entry(pl.col("value"), conv)).pivot(
        on="measure", index=["class", "support"], values="value", aggregate_function=None
    )
    if subset is not None:
        # in the order asked for (per_class sorts by class)
        wanted = pl.DataFrame({"class": exact_classes(subset, class_dtype)})
        per_class = wanted.join(per_class, on="class", how="left", maintain_order="left", nulls_equal=True)
    null = pl.lit(None, dtype=pl.Float64)
    return per_class.select(
        "class",
        pl.lit(None, dtype=pl.String).alias("operator"),
        *[(pl.col(n).cast(pl.Float64) if columns[n][0] is not None else null).alias(n) for n in names],
        pl.col("support").cast(pl.Int64),
    )


def _registered(measure: MeasureLike) -> Measure | None:
    """The registered (per-class) measure of a name, or None for a whole-matrix-only name."""
    try:
        return get_measure(measure)
    except UnknownNameError:
        if is_matrix_measure(measure):
            return None
        raise


def _average_rows(
    averages: pl.DataFrame, source: dict[str, str], names: list[str], class_dtype: pl.DataType, total: int
) -> pl.DataFrame:
    """One row per operator: the column of each report measure from its evaluated name (null if none)."""
    wide = averages.pivot(on="measure", index="operator", values="value", aggregate_function=None)
    return wide.select(
        pl.lit(None, dtype=class_dtype).alias("class"),
        pl.col("operator"),
        *[
            (pl.col(source[n]).cast(pl.Float64) if n in source else pl.lit(None, dtype=pl.Float64)).alias(n)
            for n in names
        ],
        pl.lit(total, dtype=pl.Int64).alias("support"),
    )
