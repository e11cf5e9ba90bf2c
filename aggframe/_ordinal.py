"""Ordinal data, cost matrices, canonical coordinates and dominance between models.

Ordinal data
    ``m`` ordered classes become ``m - 1`` cumulative threshold indicators: the
    entry of threshold ``k`` is ``y > order[k]``. :func:`from_ordinal` builds them
    lazily (a cross join of the rows with the threshold list, in Polars), so every
    measure and operator applies to the thresholds as to any long-form data. The
    encoding is sparse: an entry where both the truth and the prediction are at or
    below the threshold is a true negative and is left out.

Cost matrices
    :func:`cost` is the expected cost ``sum_jk N[j, k] C[j, k]`` of the confusion
    matrix ``N`` (rows: true class, columns: predicted) under a cost matrix ``C``.
    With ``C[j, k] = |j - k|`` over the ordinal class indices the micro value is the
    mean absolute error, with ``(j - k)^2`` the mean squared error (Theorem 4):
    :func:`cost_matrix` builds both.

Canonical coordinates
    A confusion matrix has few free parameters once the class sizes are fixed
    (the reference's "degrees of freedom"): ``m (m - 1)`` for single-label data
    with ``m`` classes, spanned by the off-diagonal conditional rates
    ``R[j, k] = P(predicted k | true j)``; two per column for binary and multilabel
    data (recall and specificity). :func:`canonical_coordinates` lists them.

Dominance
    Model A dominates model B on the same examples when it is at least as good in
    every canonical coordinate (Section 7.11 of the companion paper, via its
    Proposition 3): then every measure that increases with ``tp``/``tn`` and
    decreases with ``fp``/``fn`` ranks A at least as high as B, per class and
    pooled. :func:`pareto_dominance` says, per group, whether A dominates B, B
    dominates A, they are equivalent or incomparable.

Where aggframe differs from aggmetrics 0.2.0 (each point is a test in
``tests/test_ordinal.py``): the micro cost is the expected cost per example
(aggmetrics' micro is the total, and its macro is that total divided by ``m``
whatever the errors are); a class without examples has undefined (null)
coordinates, not 0; multilabel coordinates are per-label recall and specificity
(``2m`` of them, as the degrees of freedom say), not rates of the label
co-occurrence matrix; an ordinal problem with ``m`` classes keeps the ``m (m - 1)``
degrees of freedom of its confusion matrix.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

import numpy as np
import polars as pl

from aggframe._columns import KEY_ALL, free_name, restore
from aggframe._columns import fmt_row as _fmt_row
from aggframe._grains import CLASS, CellTables, to_polars
from aggframe._predictions import (
    Predictions,
    _as_lazy,
    _is_frame,
    _label_frame,
    _listify,
    from_labels,
    from_long,
)
from aggframe._source import FRAME, origin_of, reading
from aggframe.exceptions import (
    ColumnNotFoundError,
    EmptyInputError,
    InvalidValueError,
    NullValueError,
    OptionError,
    ShapeError,
    UnknownClassError,
    UnknownNameError,
)

__all__ = [
    "COST_OPERATORS",
    "OrdinalPredictions",
    "canonical_coordinates",
    "cost",
    "cost_matrix",
    "degrees_of_freedom",
    "dominates",
    "from_ordinal",
    "pareto_dominance",
]

CostOperator = Literal["micro", "macro", "weighted", "exemplar", "total"]
COST_OPERATORS: tuple[CostOperator, ...] = ("micro", "macro", "weighted", "exemplar", "total")
CostKind = Literal["absolute", "squared", "zero_one"]
_COST_KINDS: tuple[CostKind, ...] = ("absolute", "squared", "zero_one")
Relation = Literal["A_dominates_B", "B_dominates_A", "equivalent", "incomparable"]

# private column names of the derived threshold frame
_RANK_TRUE = "__aggframe_rank_true__"
_RANK_PRED = "__aggframe_rank_pred__"
_K = "__aggframe_k__"
_GROUP = "__aggframe_group__"
_TOL = 1e-12  # rates closer than this are tied (as in aggmetrics)


@dataclass
class OrdinalPredictions(Predictions):
    """Ordinal predictions as ``m - 1`` cumulative thresholds (from :func:`from_ordinal`).

    A long-form :class:`Predictions` whose classes are the thresholds: class
    ``c`` stands for the indicator ``y > c``, so ``order[:-1]`` are the classes.
    ``labels`` is the same data as single-label predictions over the ``m``
    ordered classes; :func:`cost`, :func:`canonical_coordinates` and the
    dominance functions use it (the ``m x m`` confusion matrix, in ``order``).
    As on any multilabel data (and as in aggmetrics), ``accuracy()`` is the label
    accuracy over the thresholds; the share of exactly right classes is
    ``subset_accuracy()`` (or ``labels.accuracy()``).

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_ordinal([0, 1, 2, 2], [0, 2, 2, 1])
    >>> pr.subset_accuracy(), pr.labels.accuracy(), pr.accuracy()
    (0.5, 0.5, 0.75)
    """

    order: list[Any] = field(default_factory=list)
    labels: Predictions | None = field(default=None, repr=False)

    def _check_suite_data(self) -> None:
        # as the reference: suites parametrise multiclass, multilabel and binary data; the
        # m - 1 threshold columns of ordinal data are neither (their cells are constrained)
        msg = (
            "measure suites are not defined on ordinal predictions (the reference refuses them too: "
            "the m - 1 cumulative thresholds are not free multilabel columns); evaluate the "
            "single-label view instead: suite_rank(pr.labels, ...)"
        )
        raise OptionError(msg)


def _order_series(order: Sequence[Any], dtype: pl.DataType, column: str) -> pl.Series:
    try:
        return pl.Series(list(order)).cast(dtype, strict=True)
    except Exception as exc:
        msg = (
            f"column {column!r}: the order {list(order)[:5]!r} cannot be values of the column (dtype {dtype})"
        )
        raise OptionError(msg) from exc


def from_ordinal(
    data: Any,
    y_pred_values: Any = None,
    /,
    *,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    example: str | None = None,
    order: Sequence[Any] | None = None,
    n_classes: int | None = None,
    fold: str | None = None,
    repeat: str | None = None,
) -> OrdinalPredictions:
    """Ordinal predictions: ``m`` ordered classes as ``m - 1`` cumulative thresholds.

    ``from_ordinal(y_true_array, y_pred_array)`` or
    ``from_ordinal(frame, y_true="col", y_pred="col", order=[...])``. Threshold
    ``c`` (for every class but the last) is the binary question "is the class
    above ``c``?", asked of the truth and of the prediction; the result is a
    long-form :class:`Predictions` over the thresholds, so every measure,
    operator, ``by=`` column (any other column of the frame is carried through)
    and engine applies. Micro error rate times ``m - 1`` is the mean absolute
    error of the class indices, since an example that is ``d`` classes off is
    wrong on exactly ``d`` thresholds.

    Parameters
    ----------
    data, y_pred_values
        Two label arrays, or a frame (Polars, a path or anything Narwhals reads)
        with the columns ``y_true`` and ``y_pred``.
    y_true, y_pred, example, fold, repeat
        Column names, as in :func:`~aggframe.from_labels` (``example`` is
        optional; each row is its own example by default).
    order
        The classes from lowest to highest. Without it: ``0 .. n_classes - 1``,
        the categories of an ``Enum`` column in declared order, or for integer
        labels ``0 .. max`` (aggmetrics' rule; a class that never occurs is still
        a class, so distances stay distances between the integers).
    n_classes
        Shorthand for ``order=range(n_classes)``.

    Returns
    -------
    OrdinalPredictions
        With ``order`` and ``labels`` (the single-label view over the ``m`` classes).

    Raises
    ------
    UnknownClassError
        A label outside ``order``.
    NullValueError
        A null label.
    OptionError
        No way to know the order (non-integer labels without ``order=``), fewer
        than two classes, a repeated class in ``order``, or ``order`` and
        ``n_classes`` that disagree.

    Notes
    -----
    Construction runs **one** small aggregate query over the two label columns
    (null and unknown-label counts with one offending row; for integer labels
    without an order, the largest label). Evaluation then reads the source once,
    as usual.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_ordinal([0, 1, 2, 2, 1], [0, 2, 2, 0, 1])
    >>> pr.order, pr.cells("class").select("class", "tp", "fp", "fn", "tn").rows()
    ([0, 1, 2], [(0, 3.0, 0.0, 1.0, 1.0), (1, 1.0, 1.0, 1.0, 2.0)])
    >>> pr.compute("error_rate", "micro") * 2  # MAE of the class indices: (0+1+0+2+0)/5
    0.6
    """
    # -- input ---------------------------------------------------------------------
    if _is_frame(data):
        if y_pred_values is not None:
            msg = "with a frame, name the columns: from_ordinal(frame, y_true='col', y_pred='col')"
            raise OptionError(msg)
        native = _as_lazy(data, "data")
        origin = origin_of(native)
        lf = to_polars(native)
        schema = lf.collect_schema()
        roles = {
            "y_true": y_true,
            "y_pred": y_pred,
            "example": example,
            "fold": fold,
            "repeat": repeat,
        }
        missing = [(r, c) for r, c in roles.items() if c is not None and c not in schema]
        if missing:
            role, col = missing[0]
            msg = (
                f"column {col!r} (role {role!r}) is not in the frame; available columns: "
                f"{schema.names()}. Rename it or pass {role}=<column name>"
            )
            raise ColumnNotFoundError(msg)
    else:
        if y_pred_values is None:
            msg = "from_ordinal(y_true, y_pred) needs both arrays (or a frame with column names)"
            raise OptionError(msg)
        if any(c is not None for c in (example, fold, repeat)):
            msg = "example=, fold= and repeat= name columns of a frame; with arrays, pass a frame instead"
            raise OptionError(msg)
        y_true, y_pred = "y_true", "y_pred"
        lf = _label_frame(data, y_pred_values, y_true, y_pred).lazy()
        origin = FRAME
        schema = lf.collect_schema()

    # -- the order (options, no data) -------------------------------------------------
    if n_classes is not None:
        if isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral) or n_classes < 2:
            msg = f"Expected `n_classes` to be an integer >= 2, got {n_classes!r}"
            raise OptionError(msg)
        if order is not None and list(order) != list(range(int(n_classes))):
            msg = f"`n_classes={n_classes}` and `order` disagree; give one of them"
            raise OptionError(msg)
        order = list(range(int(n_classes)))
    dtypes = {c: schema[c] for c in (y_true, y_pred)}
    as_string = {c: isinstance(d, (pl.Enum, pl.Categorical)) for c, d in dtypes.items()}
    if order is None:
        enums = [d for d in dtypes.values() if isinstance(d, pl.Enum)]
        if enums:
            order = enums[0].categories.to_list()
    infer = order is None
    if infer and not all(d.is_integer() for d in dtypes.values()):
        msg = (
            f"the order of the classes is unknown: columns {y_true!r} and {y_pred!r} hold {dtypes[y_true]} "
            "labels; pass order=[lowest, ..., highest] (or n_classes=, or use an Enum column)"
        )
        raise OptionError(msg)
    if any(as_string.values()):
        other = [d for c, d in dtypes.items() if not as_string[c]]
        if any(d != pl.String for d in other):
            msg = (
                f"columns {y_true!r} and {y_pred!r} hold labels of different types "
                f"({dtypes[y_true]} and {dtypes[y_pred]}); cast them to one type first"
            )
            raise InvalidValueError(msg)
        label_dtype: pl.DataType = pl.String()
    elif dtypes[y_true] == dtypes[y_pred]:
        label_dtype = dtypes[y_true]
    elif dtypes[y_true].is_numeric() and dtypes[y_pred].is_numeric():
        label_dtype = pl.Float64() if (dtypes[y_true].is_float() or dtypes[y_pred].is_float()) else pl.Int64()
    else:
        msg = (
            f"columns {y_true!r} and {y_pred!r} hold labels of different types "
            f"({dtypes[y_true]} and {dtypes[y_pred]}); cast them to one type first"
        )
        raise InvalidValueError(msg)
    cols = {c: pl.col(c).cast(label_dtype) for c in (y_true, y_pred)}

    # -- data checks: ONE aggregate query ---------------------------------------------
    shown = [c for c in (example, fold, repeat, y_true, y_pred) if c is not None]
    row = pl.struct(_unique(shown))
    checks: dict[str, pl.Expr] = {"n_rows": pl.len()}
    order_series: pl.Series | None = None
    if not infer:
        assert order is not None
        order_series = _order_series(order, label_dtype, y_true)
    for role, c in (("y_true", y_true), ("y_pred", y_pred)):
        checks[f"n_null_{role}"] = cols[c].is_null().sum()
        checks[f"row_null_{role}"] = row.filter(cols[c].is_null()).first()
        if order_series is not None:
            bad = cols[c].is_not_null() & ~cols[c].is_in(order_series.implode())
            checks[f"n_unknown_{role}"] = bad.sum()
            checks[f"row_unknown_{role}"] = row.filter(bad).first()
        else:
            checks[f"min_{role}"] = cols[c].min()
            checks[f"max_{role}"] = cols[c].max()
    with reading(origin):
        found = lf.select(**checks).collect().row(0, named=True)
    if not found["n_rows"]:
        msg = "the ordinal labels are empty (no rows)"
        raise EmptyInputError(msg)
    for role, c in (("y_true", y_true), ("y_pred", y_pred)):
        if found[f"n_null_{role}"]:
            msg = (
                f"column {c!r} (role {role!r}): {found[f'n_null_{role}']} null label(s) "
                f"(e.g. row {_fmt_row(found[f'row_null_{role}'])}); every example needs a class"
            )
            raise NullValueError(msg)
        if found.get(f"n_unknown_{role}"):
            assert order is not None
            msg = (
                f"column {c!r} (role {role!r}): {found[f'n_unknown_{role}']} label(s) outside the order "
                f"(e.g. row {_fmt_row(found[f'row_unknown_{role}'])}); order: {list(order)[:10]!r}"
            )
            raise UnknownClassError(msg)
    if infer:
        low = min(found["min_y_true"], found["min_y_pred"])
        if low < 0:
            msg = (
                f"integer labels without an order are read as 0 .. max, but there is a label {low}; "
                "pass order=[lowest, ..., highest]"
            )
            raise InvalidValueError(msg)
        order = list(range(int(max(found["max_y_true"], found["max_y_pred"])) + 1))
        order_series = _order_series(order, label_dtype, y_true)
    assert order is not None
    assert order_series is not None
    order = list(order)
    if len(order) < 2:
        msg = f"ordinal evaluation needs at least two classes; the order is {order!r}"
        raise OptionError(msg)
    if order_series.n_unique() != len(order):
        msg = f"the order repeats a class: {order!r}"
        raise OptionError(msg)

    # -- the thresholds, lazily: one cross join, sparse -------------------------------
    m = len(order)
    threshold_values = order_series[: m - 1]
    if label_dtype == pl.String:
        # string classes become Enums, so results list them in the ordinal order
        enum = pl.Enum(order_series.to_list())
        cols = {c: e.cast(enum) for c, e in cols.items()}
        order_series = order_series.cast(enum)
        threshold_values = threshold_values.cast(pl.Enum(threshold_values.to_list()))
        rank_true, rank_pred = (cols[c].to_physical().cast(pl.Int64) for c in (y_true, y_pred))
    else:
        ranks = pl.Series(range(m), dtype=pl.Int64)
        rank_true, rank_pred = (
            cols[c].replace_strict(order_series, ranks, return_dtype=pl.Int64) for c in (y_true, y_pred)
        )
    names = schema.names()
    class_col = free_name("class", names)
    y_col, p_col = free_name("y", names), free_name("p", names)
    ex_col = example if example is not None else free_name("example", names)
    thresholds = pl.LazyFrame({_K: pl.Series(range(m - 1), dtype=pl.Int64), class_col: threshold_values})
    rows = lf if example is not None else lf.with_row_index(ex_col)
    rows = rows.with_columns(
        rank_true.alias(_RANK_TRUE),
        rank_pred.alias(_RANK_PRED),
    )
    long = (
        rows.join(thresholds, how="cross")
        # entries below both ranks are true negatives: left out (threshold 0 keeps every example)
        .filter((pl.col(_K) < pl.max_horizontal(_RANK_TRUE, _RANK_PRED)) | (pl.col(_K) == 0))
        .with_columns(
            (pl.col(_RANK_TRUE) > pl.col(_K)).cast(pl.Int8).alias(y_col),
            (pl.col(_RANK_PRED) > pl.col(_K)).cast(pl.Int8).alias(p_col),
        )
        .drop(_RANK_TRUE, _RANK_PRED, _K)
    )
    base = from_long(
        long,
        example=ex_col,
        class_=class_col,
        y=y_col,
        p=p_col,
        fold=fold,
        repeat=repeat,
        classes=threshold_values.to_list(),
    )
    labels = from_labels(
        lf.with_columns(cols[y_true], cols[y_pred]),
        y_true=y_true,
        y_pred=y_pred,
        example=example,
        fold=fold,
        repeat=repeat,
        classes=order_series.to_list(),
    )
    init = {f.name: getattr(base, f.name) for f in fields(base) if f.init}
    return OrdinalPredictions(**init, order=order_series.to_list(), labels=labels)


def _unique(items: Sequence[str]) -> list[str]:
    out: list[str] = []
    for it in items:
        if it not in out:
            out.append(it)
    return out


# ---------------------------------------------------------------------------
# Cost matrices


def cost_matrix(kind: str, m: int) -> np.ndarray:
    """A standard ``m x m`` cost matrix over ordered classes ``0 .. m-1``.

    ``"absolute"``: ``|j - k|`` (micro cost = mean absolute error);
    ``"squared"``: ``(j - k)^2`` (mean squared error); ``"zero_one"``: 1 off
    the diagonal (error rate, ``1 - accuracy``).

    Examples
    --------
    >>> import aggframe as af
    >>> af.cost_matrix("absolute", 3)
    array([[0., 1., 2.],
           [1., 0., 1.],
           [2., 1., 0.]])
    """
    key = str(kind).strip().lower().replace("-", "_")
    key = {"mae": "absolute", "mse": "squared", "0_1": "zero_one", "zero_one_loss": "zero_one"}.get(key, key)
    if key not in _COST_KINDS:
        msg = f"unknown cost matrix {kind!r}; valid kinds: {', '.join(_COST_KINDS)} (aliases mae, mse)"
        raise UnknownNameError(msg)
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 1:
        msg = f"Expected `m` (the number of classes) to be a positive integer, got {m!r}"
        raise OptionError(msg)
    idx = np.arange(int(m), dtype=float)
    diff = idx[:, None] - idx[None, :]
    if key == "absolute":
        return np.abs(diff)
    if key == "squared":
        return diff**2
    return (diff != 0).astype(float)


def _check_cost_matrix(C: Any, m: int, classes: Sequence[Any], *, zero_diagonal: bool) -> np.ndarray:
    try:
        M = np.asarray(C)
    except ValueError as exc:
        msg = f"the cost matrix is not an m x m array (ragged or nested input): {exc}"
        raise ShapeError(msg) from exc
    if M.shape != (m, m):
        msg = (
            f"the cost matrix has shape {M.shape}; expected ({m}, {m}): one row (true class) and one "
            f"column (predicted class) per class, in the order {list(classes)[:10]!r}"
        )
        raise ShapeError(msg)
    if not (np.issubdtype(M.dtype, np.number) or M.dtype == bool):
        msg = f"the cost matrix has dtype {M.dtype}; expected numbers"
        raise InvalidValueError(msg)
    M = M.astype(float)
    checks = ((~np.isfinite(M), "non-finite", "finite"), (M < 0, "negative", ">= 0"))
    for flagged, what, rule in checks:
        bad = np.argwhere(flagged)
        if bad.size:
            j, k = bad[0]
            msg = (
                f"the cost matrix has {len(bad)} {what} entr{'y' if len(bad) == 1 else 'ies'} "
                f"(e.g. C[{j}, {k}] = {M[j, k]:g}, true {classes[j]!r}, predicted {classes[k]!r}); "
                f"costs must be {rule}"
            )
            raise InvalidValueError(msg)
    diag = np.flatnonzero(np.diag(M) != 0)
    if zero_diagonal and diag.size:
        j = int(diag[0])
        msg = (
            f"the cost matrix has {diag.size} non-zero diagonal entr{'y' if diag.size == 1 else 'ies'} "
            f"(e.g. C[{j}, {j}] = {M[j, j]:g}, class {classes[j]!r}): a correct prediction usually costs "
            "nothing; pass zero_diagonal=False if it does"
        )
        raise InvalidValueError(msg)
    return M


def _single_label(pr: Any, what: str) -> tuple[Predictions, list[Any]]:
    """The single-label predictions behind ``pr`` and their class order."""
    if not isinstance(pr, Predictions):
        msg = f"{what}: expected an af.Predictions (from_labels, from_ordinal, ...), got {type(pr).__name__}"
        raise OptionError(msg)
    if isinstance(pr, OrdinalPredictions):
        assert pr.labels is not None
        return pr.labels, list(pr.order)
    _no_roles(pr, what)
    single = (pr.form == "labels" and pr.task == "multiclass") or (
        pr.form == "long" and pr._is_single_label()
    )
    if not single:
        msg = (
            f"{what} needs single-label predictions (one true and one predicted class per example: "
            "af.from_labels, af.from_ordinal or one-hot long data); these are multilabel, soft, binary "
            "(task='binary') or stored cells"
        )
        raise OptionError(msg)
    return pr, pr.cells("class")[CLASS].to_list()


def _no_roles(pr: Predictions, what: str) -> None:
    if pr._fold_keys() or pr.target is not None:
        msg = (
            f"{what} is computed on one confusion matrix per group; these predictions have fold or "
            "target roles: build them without those roles and pass the columns as by="
        )
        raise OptionError(msg)


def _cost_operators(operators: str | Sequence[str]) -> list[CostOperator]:
    out: list[CostOperator] = []
    for op in _listify(operators):
        key = str(op).strip().lower()
        key = {"samples": "exemplar", "example": "exemplar", "sum": "total"}.get(key, key)
        match = [o for o in COST_OPERATORS if o == key]
        if not match:
            msg = f"unknown cost operator {op!r}; valid operators: {', '.join(COST_OPERATORS)}"
            raise UnknownNameError(msg)
        if match[0] not in out:
            out.append(match[0])
    if not out:
        msg = "Expected at least one cost operator"
        raise OptionError(msg)
    return out


def _with_group(frame: pl.DataFrame, keys: list[str]) -> tuple[pl.DataFrame, list[str]]:
    if keys:
        return frame, keys
    return frame.with_columns(pl.lit(0).alias(_GROUP)), [_GROUP]


def cost(
    pr: Predictions,
    C: Any,
    operators: str | Sequence[str] = "micro",
    *,
    by: str | Sequence[str] | None = None,
    classes: Sequence[Any] | None = None,
    zero_diagonal: bool = True,
    name: str | None = None,
) -> pl.DataFrame:
    """Expected misclassification cost under a cost matrix ``C``, as a tidy frame.

    ``C[j, k]`` is the cost of predicting class ``k`` for an example of class
    ``j``. The confusion counts ``N[j, k]`` come from one grouped query;
    everything after is a group-by on them.

    Parameters
    ----------
    pr
        Single-label predictions (:func:`~aggframe.from_labels`, one-hot long
        data, or :func:`from_ordinal`, whose ``m``-class matrix is used).
    C
        An ``m x m`` array-like of finite, non-negative costs, rows and columns
        in the class order (``classes``, else the ordinal ``order``, else the
        sorted classes of ``pr.cells("class")``), or a kind of
        :func:`cost_matrix` (``"absolute"``, ``"squared"``, ``"zero_one"``).
    operators
        ``micro``: total cost / examples (the expected cost of an example; MAE
        and MSE with the absolute and squared matrices). ``macro``: the mean over
        true classes of each class's mean cost (macro-averaged MAE); a class
        without examples is undefined and left out. ``weighted``: the same,
        support-weighted (equal to micro). ``exemplar``: the mean cost per
        example (equal to micro on single-label data). ``total``: the total cost
        (aggmetrics' micro).
    by
        Group columns: one row per group and operator.
    classes
        The order of the rows and columns of ``C`` (all the classes).
    zero_diagonal
        Require ``C[j, j] = 0`` (default); ``False`` accepts a cost for correct
        predictions.
    name
        The ``measure`` column (default ``"cost"``, or the kind when ``C`` is one).

    Returns
    -------
    polars.DataFrame
        by..., measure, operator, value, n_entries, n_undefined (``n_entries``:
        1 for micro and total, classes for macro and weighted, examples for
        exemplar; ``n_undefined``: classes without examples).

    Raises
    ------
    ShapeError
        ``C`` is not ``m x m``.
    InvalidValueError
        Non-numeric, non-finite or negative costs, or a non-zero diagonal.
    UnknownClassError
        ``classes`` is not the set of classes of the predictions.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 0, 1, 2, 2, 2], [0, 2, 1, 1, 2, 2])
    >>> af.cost(pr, "absolute", ["micro", "macro", "total"]).select("operator", "value")
    shape: (3, 2)
    ┌──────────┬──────────┐
    │ operator ┆ value    │
    │ ---      ┆ ---      │
    │ str      ┆ f64      │
    ╞══════════╪══════════╡
    │ micro    ┆ 0.5      │
    │ macro    ┆ 0.444444 │
    │ total    ┆ 3.0      │
    └──────────┴──────────┘
    """
    base, order = _single_label(pr, "cost")
    if classes is not None:
        given = list(classes)
        if len(given) != len(order) or set(given) != set(order):
            extra = [c for c in given if c not in order]
            absent = [c for c in order if c not in given]
            msg = (
                f"`classes` must list every class of the predictions once; "
                f"unknown: {extra[:5]!r}, missing: {absent[:5]!r}, classes: {order[:10]!r}"
            )
            raise UnknownClassError(msg)
        order = given
    m = len(order)
    if isinstance(C, str):
        name = name or str(C)
        C = cost_matrix(C, m)
    if not isinstance(zero_diagonal, bool):
        msg = f"Expected `zero_diagonal` to be True or False, got {zero_diagonal!r}"
        raise OptionError(msg)
    M = _check_cost_matrix(C, m, order, zero_diagonal=zero_diagonal)
    ops = _cost_operators(operators)
    # the work runs on private key columns; the user's names come back at the end
    cells, keys, tables = _class_cells(base, _listify(by))
    counts, _ = base._confusion(_listify(by))
    dtype = cells[CLASS].dtype
    values = pl.Series(order).cast(dtype, strict=True)
    costs = pl.DataFrame(
        {
            "true": values.gather(np.repeat(np.arange(m), m)),
            "pred": values.gather(np.tile(np.arange(m), m)),
            "_cost": M.ravel(),
        }
    )
    cells, gkeys = _with_group(cells, keys)
    counts, _ = _with_group(counts, keys)
    weighted = counts.join(costs, on=["true", "pred"], how="left", nulls_equal=True).with_columns(
        (pl.col("n") * pl.col("_cost")).alias("_w")
    )
    per_true = weighted.group_by(*gkeys, "true").agg(pl.col("_w").sum(), pl.col("n").sum())
    per_class = (
        cells.select(*gkeys, CLASS)
        .join(per_true, left_on=[*gkeys, CLASS], right_on=[*gkeys, "true"], how="left", nulls_equal=True)
        .with_columns(pl.col("_w", "n").fill_null(0))
        .with_columns(pl.when(pl.col("n") > 0).then(pl.col("_w") / pl.col("n")).alias("_mean"))
    )
    g = per_class.group_by(gkeys, maintain_order=True).agg(
        pl.col("_w").sum().alias("_total"),
        pl.col("n").sum().alias("_n"),
        pl.col("_mean").mean().alias("_macro"),
        pl.len().alias("_m"),
        pl.col("_mean").is_null().sum().alias("_undefined"),
    )
    micro = pl.col("_total") / pl.col("_n")
    spec: dict[str, tuple[pl.Expr, pl.Expr, pl.Expr]] = {
        "micro": (micro, pl.lit(1), pl.lit(0)),
        "macro": (pl.col("_macro"), pl.col("_m"), pl.col("_undefined")),
        "weighted": (micro, pl.col("_m"), pl.col("_undefined")),
        "exemplar": (micro, pl.col("_n"), pl.lit(0)),
        "total": (pl.col("_total"), pl.lit(1), pl.lit(0)),
    }
    parts = [
        g.select(
            *gkeys,
            pl.lit(name or "cost").alias("measure"),
            pl.lit(op).alias("operator"),
            spec[op][0].cast(pl.Float64).fill_null(float("nan")).alias("value"),
            spec[op][1].cast(pl.Int64).alias("n_entries"),
            spec[op][2].cast(pl.Int64).alias("n_undefined"),
        )
        for op in ops
    ]
    out = pl.concat(parts)
    if keys:
        rank = {op: i for i, op in enumerate(ops)}
        out = out.sort(
            [*keys, pl.col("operator").replace_strict(rank, return_dtype=pl.Int64)],
            maintain_order=True,
            nulls_last=True,
        )
    out = out.drop(_GROUP, strict=False)
    return restore(out, base._result_names(tables, out.columns[len(keys) :], "cost"))


def _class_cells(base: Predictions, by: list[str]) -> tuple[pl.DataFrame, list[str], CellTables]:
    """The per-class cells with private key columns, those keys, and the tables."""
    tables = base._tables(by)
    keys = [k for k in tables.keys if k != KEY_ALL]
    return base._cell_frame(tables, "class").drop(KEY_ALL, strict=False), keys, tables


# ---------------------------------------------------------------------------
# Canonical coordinates, degrees of freedom, dominance


def _coordinate_kind(pr: Any, what: str) -> tuple[Literal["multiclass", "labelwise"], Predictions, list[Any]]:
    """``multiclass``: single-label, off-diagonal rates. ``labelwise``: per column recall and specificity."""
    if not isinstance(pr, Predictions):
        msg = f"{what}: expected an af.Predictions (from_labels, from_long, ...), got {type(pr).__name__}"
        raise OptionError(msg)
    if isinstance(pr, OrdinalPredictions):
        base, order = _single_label(pr, what)
        return "multiclass", base, order
    _no_roles(pr, what)
    single = pr.form != "cells" and (
        (pr.form == "labels" and pr.task == "multiclass") or (pr.form == "long" and pr._is_single_label())
    )
    if pr.form == "cells" and pr.task == "multiclass":
        msg = (
            f"{what} of single-label data needs the (true, predicted) pair counts; stored cells hold only "
            "per-class sums: use the original frame"
        )
        raise OptionError(msg)
    order = pr.cells("class")[CLASS].to_list()
    return ("multiclass" if single else "labelwise"), pr, order


def degrees_of_freedom(pr: Predictions) -> int:
    """Free parameters of the confusion matrix once the class sizes are fixed.

    ``m (m - 1)`` for single-label data with ``m`` classes (the off-diagonal
    conditional rates), ``2`` per column for binary and multilabel data
    (recall and specificity): the number of rows of
    :func:`canonical_coordinates` per group.

    Examples
    --------
    >>> import aggframe as af
    >>> af.degrees_of_freedom(af.from_labels([0, 1, 2], [0, 2, 2]))
    6
    >>> af.degrees_of_freedom(af.from_labels([0, 1, 1], [0, 1, 0], task="binary"))
    2
    """
    kind, _, order = _coordinate_kind(pr, "degrees_of_freedom")
    m = len(order)
    return m * (m - 1) if kind == "multiclass" else 2 * m


def canonical_coordinates(pr: Predictions, *, by: str | Sequence[str] | None = None) -> pl.DataFrame:
    """The canonical coordinates of the confusion matrix, per group, as a tidy frame.

    Single-label data with classes ``0 .. m-1``: the ``m (m - 1)`` off-diagonal
    conditional rates ``R[j, k] = N[j, k] / N[j, .]`` (``coordinate =
    "misclassification_rate"``, lower is better), row by row. Binary and
    multilabel data: ``recall`` and ``specificity`` of every column (higher is
    better). A coordinate whose class has no examples (no negatives, for
    specificity) is undefined: a null ``value``.

    Returns
    -------
    polars.DataFrame
        by..., class, pred (the predicted class of a rate; null for recall and
        specificity), coordinate, value, count (the numerator: ``N[j, k]``,
        ``tp`` or ``tn``), support (the denominator: ``N[j, .]``, ``tp + fn`` or
        ``fp + tn``), greater_is_better.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 0, 1, 1, 2, 2], [0, 1, 1, 1, 0, 2])
    >>> af.canonical_coordinates(pr).select("class", "pred", "value")
    shape: (6, 3)
    ┌───────┬──────┬───────┐
    │ class ┆ pred ┆ value │
    │ ---   ┆ ---  ┆ ---   │
    │ i64   ┆ i64  ┆ f64   │
    ╞═══════╪══════╪═══════╡
    │ 0     ┆ 1    ┆ 0.5   │
    │ 0     ┆ 2    ┆ 0.0   │
    │ 1     ┆ 0    ┆ 0.0   │
    │ 1     ┆ 2    ┆ 0.0   │
    │ 2     ┆ 0    ┆ 0.5   │
    │ 2     ┆ 1    ┆ 0.0   │
    └───────┴──────┴───────┘
    """
    kind, base, order = _coordinate_kind(pr, "canonical_coordinates")
    out, keys, tables = _coordinates(kind, base, order, _listify(by))
    return restore(out, base._result_names(tables, out.columns[len(keys) :], "canonical_coordinates"))


def _coordinates(
    kind: str, base: Predictions, order: list[Any], by: list[str]
) -> tuple[pl.DataFrame, list[str], CellTables]:
    """The coordinates with private key columns, those keys, and the tables."""
    cells, keys, tables = _class_cells(base, by)
    dtype = cells[CLASS].dtype
    rank = pl.DataFrame({CLASS: pl.Series(order).cast(dtype, strict=True), "_i": range(len(order))})
    cells = cells.join(rank, on=CLASS, how="left", nulls_equal=True)
    columns = [*keys, CLASS, "pred", "coordinate", "value", "count", "support", "greater_is_better"]
    if kind == "multiclass":
        counts, _ = base._confusion(by)
        true = cells.select(*keys, CLASS, "_i", (pl.col("tp") + pl.col("fn")).alias("support"))
        pred = cells.select(*keys, pl.col(CLASS).alias("pred"), pl.col("_i").alias("_k"))
        pairs = (
            true.join(pred, on=keys, how="inner", nulls_equal=True) if keys else true.join(pred, how="cross")
        )
        out = (
            pairs.filter(pl.col("_i") != pl.col("_k"))
            .join(counts.rename({"true": CLASS}), on=[*keys, CLASS, "pred"], how="left", nulls_equal=True)
            .with_columns(
                pl.col("n").fill_null(0).cast(pl.Float64).alias("count"),
                pl.lit("misclassification_rate").alias("coordinate"),
                pl.lit(False).alias("greater_is_better"),  # noqa: FBT003
            )
            .with_columns(
                pl.when(pl.col("support") > 0).then(pl.col("count") / pl.col("support")).alias("value")
            )
            .sort([*keys, "_i", "_k"], nulls_last=True)
        )
        return out.select(columns), keys, tables
    rates = [
        cells.select(
            *keys,
            CLASS,
            "_i",
            pl.lit(c).alias("_c"),
            pl.lit(name).alias("coordinate"),
            pl.col(hit).alias("count"),
            (pl.col(hit) + pl.col(miss)).alias("support"),
        )
        for c, (name, hit, miss) in enumerate((("recall", "tp", "fn"), ("specificity", "tn", "fp")))
    ]
    out = (
        pl.concat(rates)
        .with_columns(
            pl.lit(None, dtype=dtype).alias("pred"),
            pl.when(pl.col("support") > 0).then(pl.col("count") / pl.col("support")).alias("value"),
            pl.lit(True).alias("greater_is_better"),  # noqa: FBT003
        )
        .sort([*keys, "_i", "_c"], nulls_last=True)
    )
    return out.select(columns), keys, tables


def pareto_dominance(
    a: Predictions, b: Predictions, *, by: str | Sequence[str] | None = None
) -> pl.DataFrame:
    """Does model A dominate model B (or B A) on the same examples? One row per group.

    A dominates B when it is at least as good in every canonical coordinate
    (:func:`canonical_coordinates`) and better in one: then every measure that
    rises with ``tp`` and ``tn`` and falls with ``fp`` and ``fn`` (recall,
    precision, F-beta, MCC, ...) is at least as good for A, per class and
    pooled. Undefined coordinates (a class without examples) are ties. Rates
    closer than 1e-12 are ties.

    Returns
    -------
    polars.DataFrame
        by..., relation (``"A_dominates_B"``, ``"B_dominates_A"``,
        ``"equivalent"``: every coordinate tied, ``"incomparable"``: the ranking
        depends on the measure), a_better, b_better, equal (how many
        coordinates), n_coordinates.

    Raises
    ------
    ShapeError
        The two are not on the same examples: different classes, or a class
        with a different number of examples (or negatives) in a group.

    Notes
    -----
    Two single-label models are compared in their ``m (m - 1)`` rates; when
    either is multilabel (or binary), both are compared label by label (recall
    and specificity of every class), the coordinates they share.

    Examples
    --------
    >>> import aggframe as af
    >>> y = [0, 0, 1, 1, 2, 2]
    >>> a = af.from_labels(y, [0, 0, 1, 1, 2, 1])
    >>> b = af.from_labels(y, [0, 1, 1, 1, 2, 1])
    >>> af.pareto_dominance(a, b)
    shape: (1, 5)
    ┌───────────────┬──────────┬──────────┬───────┬───────────────┐
    │ relation      ┆ a_better ┆ b_better ┆ equal ┆ n_coordinates │
    │ ---           ┆ ---      ┆ ---      ┆ ---   ┆ ---           │
    │ str           ┆ i64      ┆ i64      ┆ i64   ┆ i64           │
    ╞═══════════════╪══════════╪══════════╪═══════╪═══════════════╡
    │ A_dominates_B ┆ 1        ┆ 0        ┆ 5     ┆ 6             │
    └───────────────┴──────────┴──────────┴───────┴───────────────┘
    """
    keys = _listify(by)
    ka, base_a, order_a = _coordinate_kind(a, "pareto_dominance (model A)")
    kb, base_b, order_b = _coordinate_kind(b, "pareto_dominance (model B)")
    # one single-label and one multilabel model share only the per-class coordinates
    kind = ka if ka == kb else "labelwise"
    if set(order_a) != set(order_b) or len(order_a) != len(order_b):
        only_a = [c for c in order_a if c not in order_b]
        only_b = [c for c in order_b if c not in order_a]
        msg = (
            f"models A and B have different classes: only in A {only_a[:5]!r}, only in B {only_b[:5]!r}; "
            "dominance compares predictions on the same examples and classes"
        )
        raise ShapeError(msg)
    ca, keys, tables = _coordinates(kind, base_a, order_a, keys)
    cb, _, _ = _coordinates(kind, base_b, order_a, _listify(by))
    names = dict(tables.names)
    on = [*keys, CLASS, "pred", "coordinate"]
    joined = ca.join(
        cb.select(*on, "value", "support", pl.lit(True).alias("_in_b")),  # noqa: FBT003
        on=on,
        how="full",
        suffix="_b",
        nulls_equal=True,
        coalesce=True,
        maintain_order="left_right",
    ).with_columns(pl.col("_in_b").fill_null(False))  # noqa: FBT003
    unmatched = joined.filter(pl.col("greater_is_better").is_null() | ~pl.col("_in_b"))
    if unmatched.height:
        r = unmatched.row(0, named=True)
        side = "B" if r["greater_is_better"] is None else "A"
        group = {k: r[k] for k in keys}
        msg = (
            f"models A and B do not share their groups and classes: class {r[CLASS]!r}"
            f"{f' in group {_fmt_row(group, names)}' if group else ''} appears only in model {side}"
        )
        raise ShapeError(msg)
    scale = pl.max_horizontal(pl.col("support").abs(), pl.col("support_b").abs(), pl.lit(1.0))
    differ = joined.filter((pl.col("support") - pl.col("support_b")).abs() > 1e-9 * scale)
    if differ.height:
        r = differ.row(0, named=True)
        group = {k: r[k] for k in keys}
        what = "negatives" if r["coordinate"] == "specificity" else "examples"
        msg = (
            f"models A and B are not on the same examples: class {r[CLASS]!r}"
            f"{f' in group {_fmt_row(group, names)}' if group else ''} has {r['support']:g} {what} under A "
            f"but {r['support_b']:g} under B ({differ.height} coordinate(s) differ)"
        )
        raise ShapeError(msg)
    diff = (pl.col("value") - pl.col("value_b")).fill_null(0.0)
    signed = pl.when(pl.col("greater_is_better")).then(diff).otherwise(-diff)
    scored = joined.with_columns((signed > _TOL).alias("_a"), (signed < -_TOL).alias("_b"))
    scored, gkeys = _with_group(scored, keys)
    out = scored.group_by(gkeys, maintain_order=True).agg(
        pl.col("_a").sum().cast(pl.Int64).alias("a_better"),
        pl.col("_b").sum().cast(pl.Int64).alias("b_better"),
        pl.len().cast(pl.Int64).alias("n_coordinates"),
    )
    relation = (
        pl.when((pl.col("a_better") > 0) & (pl.col("b_better") == 0))
        .then(pl.lit("A_dominates_B"))
        .when((pl.col("b_better") > 0) & (pl.col("a_better") == 0))
        .then(pl.lit("B_dominates_A"))
        .when((pl.col("a_better") == 0) & (pl.col("b_better") == 0))
        .then(pl.lit("equivalent"))
        .otherwise(pl.lit("incomparable"))
    )
    out = out.select(
        *keys,
        relation.alias("relation"),
        "a_better",
        "b_better",
        (pl.col("n_coordinates") - pl.col("a_better") - pl.col("b_better")).alias("equal"),
        "n_coordinates",
    )
    return restore(out, base_a._result_names(tables, out.columns[len(keys) :], "pareto_dominance"))


def dominates(a: Predictions, b: Predictions, *, strict: bool = False) -> bool:
    """Whether model A is at least as good as model B in every canonical coordinate.

    On the same examples (see :func:`pareto_dominance`, which raises otherwise).
    ``strict=True`` also needs A to be better in at least one coordinate.

    Examples
    --------
    >>> import aggframe as af
    >>> y = [0, 0, 1, 1]
    >>> a, b = af.from_labels(y, [0, 0, 1, 0]), af.from_labels(y, [0, 1, 1, 0])
    >>> af.dominates(a, b), af.dominates(b, a), af.dominates(a, a), af.dominates(a, a, strict=True)
    (True, False, True, False)
    """
    if not isinstance(strict, bool):
        msg = f"Expected `strict` to be True or False, got {strict!r}"
        raise OptionError(msg)
    row = pareto_dominance(a, b).row(0, named=True)
    return bool(row["b_better"] == 0 and (row["a_better"] > 0 or not strict))
