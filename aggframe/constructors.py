"""The ways in: one constructor per input form, each building an intake source and a :class:`Predictions`.

Nothing is read at construction beyond the schema (and, for scores and ordinal
data, one small aggregate query of data checks); the first evaluation scans.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from aggframe._options import ClassUniverse, Decision, LabelTask, LongTask, TNormName
from aggframe.cells import Cells
from aggframe.exceptions import OptionError
from aggframe.intake.labels import label_source
from aggframe.intake.long import indicator_frame, long_source
from aggframe.intake.options import LabelOptions, LongOptions, OrdinalOptions, ScoreOptions, WideOptions
from aggframe.intake.ordinal import ordinal_sources
from aggframe.intake.paths import scan
from aggframe.intake.scores_source import scores_source
from aggframe.intake.scores_wide import WIDE_TOLERANCE, wide_scores
from aggframe.intake.stored import expand_stores, stored_source
from aggframe.predictions import OrdinalPredictions, Predictions
from aggframe.wide.tnorms import TNorm

__all__ = ["from_cells", "from_indicator", "from_labels", "from_long", "from_ordinal", "from_scores", "scan"]


def from_long(  # noqa: PLR0913 -- the user's options, keyword-only
    frame: Any,
    *,
    example: str = "example",
    class_: str = "class",
    y: str = "y",
    p: str = "p",
    mask: str | None = None,
    fold: str | None = None,
    repeat: str | None = None,
    target: str | None = None,
    n_classes: int | dict[Any, int] | None = None,
    classes: Sequence[Any] | dict[Any, Sequence[Any]] | None = None,
    tnorm: TNormName | TNorm | None = None,
    class_universe: ClassUniverse = "global",
    task: LongTask | None = None,
    examples: int | Any | None = None,
) -> Predictions:
    """Predictions in long (indicator) form: one row per (example, class).

    Parameters
    ----------
    frame
        A Polars DataFrame or LazyFrame (e.g. ``pl.scan_parquet(...)``), or any
        frame Narwhals supports: a lazy one (DuckDB, Spark) runs on its engine, an
        eager one (pandas, pyarrow) is read as Polars.
    example, class_, y, p, mask
        Role column names. ``y`` (truth) and ``p`` (prediction) hold 0/1,
        booleans, or soft values in [0, 1] (soft needs ``tnorm``); ``mask``
        (optional) is 1 for observed entries and 0 for unobserved ones.
    fold, repeat
        Cross-validation roles: the test fold of each row, and (repeated CV)
        the repetition. Each appearance of an example in a fold is its own
        example; the class universe is shared by all folds. See ``pooling`` in
        :meth:`Predictions.evaluate`.
    target
        Multi-output role: one block of classes per target, on the same
        examples. Targets may have different classes (give ``classes`` or
        ``n_classes`` as a dict per target; a plain list or int is one universe
        for every target). Enables the ``target`` operator.
    class_universe
        ``"global"`` (default): every class seen anywhere (or declared) is a
        class of every ``by`` group, so a class absent from a group is undefined
        there by the convention and counted in ``n_undefined``. ``"group"``: each
        group's classes are the ones seen in it (not with a declared universe).
    n_classes, classes
        The class universe (``classes`` = its values, ``n_classes`` = the values
        ``0 .. n-1``); an Enum class column gives it too. With a universe the
        frame may be *sparse*: absent (example, class) entries are observed true
        negatives (every example still needs at least one row). Without one, the
        frame must be dense.
    tnorm
        ``'product'``, ``'godel'`` (``'minimum'``), ``'lukasiewicz'``,
        ``af.tnorms.hamacher(gamma)`` or a callable ``T(a, b)`` on expressions:
        combines soft y and p into the four cells. The name ``'hamacher'`` is
        ``af.tnorms.hamacher()``, whose default ``gamma = 1`` is the product itself.
    task
        ``"multiclass"`` (single-label: each example has exactly one true and
        one predicted class, checked) or ``"multilabel"``. Without it the task is
        inferred from the data (one-hot data are read as single-label), so one
        extra label on one example would change standard accuracy, the suites'
        parametrisation and the degrees of freedom: state it when you know it.
        :attr:`Predictions.kind` says which task is used and
        ``pr.extend.kind_inferred`` whether it was inferred.
    examples
        Declare the examples, so that a sparse log that records only the
        entries with a 1 loses no example: declared examples without any row
        count as all-negative (every entry a true negative). A count (the
        number of examples; no ``by=``, folds or targets then), or a Polars
        frame with one row per example: the ``example`` column and every column
        the evaluation groups by (``by=``, ``fold``, ``repeat``). Every example
        with rows must be declared (checked). Not with targets or
        ``class_universe="group"``; as a frame, on Polars sources.

    Returns
    -------
    Predictions
        Lazy predictions: nothing is read until a result is asked for.

    Raises
    ------
    ColumnNotFoundError
        A role column is not in the frame.
    OptionError
        An option that does not apply or contradicts another (``examples=`` with targets, ...).
    SourceError
        A path that cannot be read (see :func:`scan`).
    AggframeError
        Bad data (nulls, values outside [0, 1], a sparse frame without a universe, duplicate
        entries), raised at the first evaluation, naming the column, the count and a row.

    Examples
    --------
    >>> import polars as pl, aggframe as af
    >>> df = pl.DataFrame({"example": [0, 0, 1, 1], "class": ["a", "b", "a", "b"],
    ...                    "y": [1, 0, 0, 1], "p": [1, 1, 0, 1]})
    >>> af.from_long(df).compute("precision", "micro")
    0.6666666666666666
    """
    return Predictions(
        long_source(
            frame,
            LongOptions(
                example=example,
                class_=class_,
                y=y,
                p=p,
                mask=mask,
                fold=fold,
                repeat=repeat,
                target=target,
                n_classes=n_classes,
                classes=classes,
                tnorm=tnorm,
                class_universe=class_universe,
                task=task,
                examples=examples,
                derived_from=None,
            ),
        )
    )


def from_labels(  # noqa: PLR0913 -- the user's options, keyword-only
    data: Any,
    y_pred_values: Any = None,
    /,
    *,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    example: str | None = None,
    fold: str | None = None,
    repeat: str | None = None,
    target: str | None = None,
    n_classes: int | dict[Any, int] | None = None,
    classes: Sequence[Any] | dict[Any, Sequence[Any]] | None = None,
    task: LabelTask | None = None,
    pos_label: Any = 1,
    class_universe: ClassUniverse = "global",
) -> Predictions:
    """Single-label predictions: one true and one predicted class per example.

    ``from_labels(y_true_array, y_pred_array)`` or
    ``from_labels(frame, y_true="col", y_pred="col", example="col")``.
    ``fold``/``repeat``/``target`` and ``class_universe`` are as in :func:`from_long`.

    Evaluated without building n x m rows: per group and class the numbers of
    true and of predicted labels and of right ones hold every per-class cell,
    and an example is right or wrong. They come from two group-bys of the rows
    (by true, by predicted label), or, when at most 128 classes are declared
    (``n_classes``, ``classes``, an Enum column), from one group-by of the
    (true, predicted) pairs. The encoding is one-hot over all classes,
    whatever their number: two classes are *not* silently turned into a binary
    task. ``task="binary"`` keeps the positive class ``pos_label`` only, as one
    column (aggmetrics' binary task).

    Parameters
    ----------
    data
        A frame (Polars eager or lazy, DuckDB, Spark, pandas, pyarrow), a path (Parquet,
        glob, hive directory, CSV), or the true labels as an array or sequence when
        ``y_pred_values`` is given.
    y_pred_values
        The predicted labels, when ``data`` holds the true labels as an array.
    y_true, y_pred
        The columns of the true and the predicted class (frames only).
    example
        The example id column: needed to pair models in :meth:`Predictions.compare` and for
        reproducible bootstrap replicates; ids are unique within each ``by`` group (checked).
    fold, repeat, target
        Cross-validation and multi-output roles, as in :func:`from_long`.
    n_classes, classes
        The class universe (``0 .. n-1``, or these values; a dict per target). Classes absent
        from the data still count; with at most 128 declared classes the margins come from one
        group-by of the (true, predicted) pairs.
    task
        ``"binary"`` keeps only ``pos_label`` as one column (aggmetrics' binary task);
        ``"multiclass"`` (the default reading) is one-hot over all classes.
    pos_label
        The positive class of ``task="binary"`` and of the ``binary`` operator.
    class_universe
        ``"global"`` (every class in every group) or ``"group"`` (each group's own classes).

    Returns
    -------
    Predictions
        Lazy predictions: nothing is read until a result is asked for.

    Raises
    ------
    ColumnNotFoundError
        ``y_true``, ``y_pred`` or a role column is not in the frame.
    InvalidValueError
        Label arrays of mixed types, or of numeric types no one type holds exactly.
    OptionError
        An option that does not apply (``pos_label`` not a class, a null class, ...).
    SourceError
        A path that cannot be read (see :func:`scan`).
    AggframeError
        Bad data (null labels, repeated examples) at the first evaluation, naming the
        column, the count and a row.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0])
    >>> round(pr.compute("precision", "macro"), 4), round(pr.compute("precision", "weighted"), 4)
    (0.7222, 0.7619)
    """
    return Predictions(
        label_source(
            data,
            y_pred_values,
            LabelOptions(
                y_true=y_true,
                y_pred=y_pred,
                example=example,
                fold=fold,
                repeat=repeat,
                target=target,
                n_classes=n_classes,
                classes=classes,
                task=task,
                pos_label=pos_label,
                class_universe=class_universe,
                derived_from=None,
            ),
        )
    )


def from_indicator(
    Y: Any,
    P: Any,
    *,
    mask: Any = None,
    tnorm: TNormName | TNorm | None = None,
    task: LongTask | None = None,
) -> Predictions:
    """Indicator matrices ``Y`` (truth) and ``P`` (predictions), n x m (1-D = one column).

    The NumPy bridge for people coming from aggmetrics or scikit-learn. The
    matrices are stored sparsely (entries with y = p = 0 that are observed are
    true negatives) with examples ``0 .. n-1`` and classes ``0 .. m-1``.
    ``task`` states whether the rows are single-label (``"multiclass"``, checked)
    or ``"multilabel"``; without it, it is inferred (see :func:`from_long`).

    Parameters
    ----------
    Y, P
        Truth and predictions, ``n x m`` arrays of 0/1, booleans or soft values in [0, 1]
        (soft needs ``tnorm``); a 1-D array is one column.
    mask
        Optional ``n x m`` 0/1 array: 1 for observed entries.
    tnorm
        Combines soft values into the cells, as in :func:`from_long`.
    task
        ``"multiclass"`` or ``"multilabel"``; inferred when not given.

    Returns
    -------
    Predictions
        Predictions in long form, examples ``0 .. n-1`` and classes ``0 .. m-1``.

    Raises
    ------
    ShapeError
        ``Y``, ``P`` and ``mask`` have different shapes, or more than two dimensions.
    InvalidValueError
        NaN, values outside [0, 1], or a mask other than 0/1.

    Examples
    --------
    >>> import numpy as np, aggframe as af
    >>> Y = np.array([[1, 0, 1], [0, 1, 0]]); P = np.array([[1, 0, 0], [0, 1, 1]])
    >>> af.from_indicator(Y, P).compute("f1", "exemplar")
    0.6666666666666666
    """
    frame, m = indicator_frame(Y, P, mask)
    return from_long(frame, mask="mask" if mask is not None else None, n_classes=m, tnorm=tnorm, task=task)


def from_cells(paths: Any) -> Predictions:
    """Predictions from cell tables: stores (:meth:`Predictions.write_cells`) or :class:`~aggframe.Cells` values.

    ``paths`` is one store directory or a list of them with the same layout (for
    example one per day): rows of the same group add up, so the result equals an
    evaluation of all their predictions together. Several stores are read into
    memory (they are small) and added as :class:`~aggframe.Cells` are: a class a
    store never saw counts its examples as true negatives (label form), as the
    rows together would. It may instead be an
    :class:`~aggframe.Cells` (from :meth:`Predictions.to_cells`, an
    :class:`~aggframe.Accumulator` or :meth:`Cells.read <aggframe.Cells.read>`) or a
    list of them, which are added with ``+`` (see :class:`~aggframe.Cells`). Any
    subset of the stored ``by`` columns can be evaluated; every operator,
    convention and grouping set works.

    Parameters
    ----------
    paths
        A store directory, a glob of stores (``"cells/*"``), a list of them, or
        :class:`~aggframe.Cells` values (one or a list).

    Returns
    -------
    Predictions
        Predictions on the stored cell tables: every method works, from the sums alone.

    Raises
    ------
    StoreError
        A path that is not a store, a store read twice, stores that share a source, or a
        table that is not the one written with the store.
    OptionError
        Stores or cells that do not add up (other by-columns, forms, tasks, ...), or store
        paths mixed with ``Cells`` values.

    Examples
    --------
    >>> import tempfile, aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1])
    >>> store = pr.write_cells(tempfile.mkdtemp())
    >>> round(af.from_cells(store).compute("f1", "macro"), 4)
    0.5222
    >>> round(af.from_cells(pr.to_cells()).compute("f1", "macro"), 4)
    0.5222
    """
    if isinstance(paths, Cells):
        return Predictions(paths.source())
    items = list(paths) if isinstance(paths, (list, tuple)) else None
    if items and any(isinstance(c, Cells) for c in items):
        if not all(isinstance(c, Cells) for c in items):
            msg = (
                "from_cells takes store paths or af.Cells values, not both; read the stores first: "
                "af.Cells.read(paths) + cells"
            )
            raise OptionError(msg)
        total = items[0]
        for cells in items[1:]:
            total = total + cells
        return Predictions(total.source())
    if len(expand_stores(paths)) > 1:
        # several stores: read and added as Cells are, so the classes a store did not see are
        # completed (label form) or refused (long form) as the rows together would be
        return Predictions(Cells.read(paths).source())
    return Predictions(stored_source(paths))


def from_scores(  # noqa: PLR0913 -- the user's options, keyword-only
    frame: Any,
    *,
    example: str | None = None,
    class_: str | None = "class",
    score: str = "score",
    y: str = "y",
    decision: Decision | None = None,
    threshold: float | Mapping[Any, float] = 0.5,
    k: int | None = None,
    logits: bool = False,
    n_classes: int | None = None,
    classes: Sequence[Any] | None = None,
    mask: str | None = None,
    keep_soft: TNormName | TNorm | None = None,
    over: str | Sequence[str] | None = None,
    bins: int | None = None,
    y_true: str | None = None,
    scores: str | Sequence[str] | Any | None = None,
    normalize: bool = False,
    tolerance: float = WIDE_TOLERANCE,
) -> Predictions:
    """Predictions with scores: the scores themselves, and decisions made from them.

    Two readings of one frame, in every evaluation's one plan: the **measures on
    scores** (``auroc``, ``average_precision``, ``log_loss``, ``brier``, ``ece``
    in :meth:`~Predictions.evaluate`, and :meth:`~Predictions.curve`,
    :meth:`~Predictions.calibration`, :meth:`~Predictions.best_threshold`) read
    the scores; every other measure reads the **decisions** (threshold, argmax
    or top-k), made lazily on the engine. Runs on Polars, DuckDB and Spark
    (the wide step is Narwhals).

    Parameters
    ----------
    frame
        A Polars DataFrame or LazyFrame, or any frame Narwhals supports (DuckDB,
        Spark run on their engine; pandas and pyarrow are read as Polars). The **long layout**: one row per (example, class) entry. The
        **binary layout** (``class_=None``): one row per example.
    example, class_, score, y
        Role columns: the example id (default ``"example"``), the class, the
        model's score for that class, and the truth (0/1 or booleans; soft only
        with ``keep_soft``). ``class_=None`` reads the binary layout: ``y`` the
        0/1 truth and ``score`` the positive class's score, a binary task with
        the positive class ``1`` as its one class (no example column).
    decision
        ``"threshold"`` (multilabel: ``score > threshold``, strictly),
        ``"argmax"`` (multiclass: exactly one class per example) or ``"top_k"``
        (the ``k`` best classes). Ties go to the smallest class in sort order
        (numbers ascending, strings lexicographically, ``Enum`` categories in
        declared order; ``Categorical`` as strings). Not stated (no
        ``decision``, ``threshold``, ``k`` or ``keep_soft``): a 0.5 threshold,
        and a :class:`~aggframe.errors.DecisionWarning` when the scores of every
        example sum to one over its classes (softmax probabilities, for which
        ``decision="argmax"`` is usually meant). ``threshold=0.5`` given
        explicitly is the default's value and warns too: state
        ``decision="threshold"`` to keep that reading without a warning.
    threshold
        A probability in [0, 1], or a dict ``{class: threshold}`` that names
        every class of the data (and only known classes). Threshold decision only.
    k
        The number of classes predicted per example, ``1 <= k <= number of
        classes`` (the declared universe, else the classes in the data). An
        example with fewer than ``k`` rows (a sparse frame) is predicted for all
        of them; absent entries are never predicted. Top-k decision only.
    logits
        The scores are logits (or any real-valued scores). A threshold then
        applies to ``sigmoid(score)`` (computed exactly as ``score > log(t / (1 -
        t))``); argmax and top-k use the raw scores; ``keep_soft`` keeps
        ``sigmoid(score)``. Log loss, Brier, ECE, ``calibration()`` and
        ``bins=`` read ``sigmoid(score)``; AUROC, AP, the curves and
        ``best_threshold()`` read the scores as given (the sigmoid would tie
        every logit above about 37), with thresholds in logits.
    n_classes, classes, mask
        As in :func:`~aggframe.from_long`. The mask does not change the
        decision: a masked entry can still be the argmax.
    keep_soft
        A t-norm name (``"product"``, ``"godel"``, ``"lukasiewicz"``;
        ``"hamacher"`` is the product, as in :func:`from_long`) or callable: keep
        the scores as soft predictions under that t-norm instead of deciding (no
        ``decision``/``k`` then).
    over
        Columns that, with ``example``, identify one example, when several
        groups (models, days, ...) reuse the same example ids. An example is
        identified by ``example`` within each ``by=`` group, so evaluations
        must group by these columns (checked).
    bins
        ``None`` (exact: every distinct score is a threshold) or ``N``: the
        measures on scores and the curves read the scores quantised to ``N``
        cells of [0, 1] (bounded memory on huge inputs). Cell ``q`` holds the
        scores in ``[q/N, (q+1)/N)`` and its threshold is ``q/N``: the curves
        are the exact curves sampled at those thresholds, log loss, Brier and
        ECE stay exact, and only pairs of entries in one cell lose their order,
        so ``|AUROC_binned - AUROC| <= sum_q pos_q neg_q / (2 P N)``
        (:meth:`~Predictions.auroc_bound`); the same pairs bound AP's error.
    y_true, scores
        The **wide layout** (scikit-learn's ``predict_proba``): one row per
        example, the true class in ``y_true`` and one probability per class in
        ``scores``: a list of columns, a Polars selector
        (``cs.starts_with("p_")``), a glob (``"p_*"``) or one List/Array column.
        Classes come from ``classes=`` (in column order), else from the column
        names without their longest common prefix ending at a separator
        (``p_0`` -> ``0``, cast to the dtype of ``y_true``), else (a List/Array
        column) ``0 .. m-1``. The decision defaults to ``"argmax"``; the long
        layout's roles (``class_``, ``score``, ``y``, ``mask``) do not apply,
        ``example`` is optional (a row number otherwise). The columns are
        unpivoted inside the plan, never materialised; see
        :mod:`aggframe.intake.scores_wide`.
    normalize, tolerance
        Wide layout: a row whose probabilities do not sum to 1 within
        ``tolerance`` (default ``1e-6``) is an error naming it;
        ``normalize=True`` divides each row by its sum instead.

    Returns
    -------
    Predictions
        Long-form predictions (``form == "long"``), or for the binary layout the
        label form of the binary task (``form == "labels"``).

    Raises
    ------
    NullValueError
        Null or NaN scores, null truth, null examples or classes.
    InvalidValueError
        Scores outside [0, 1] where probabilities are required (threshold,
        ``keep_soft`` or ``bins`` without ``logits``), a truth other than 0/1,
        or a non-numeric score column.
    OptionError
        ``k`` below 1 or above the number of classes, a threshold outside
        [0, 1], a threshold dict missing classes of the data, or options that
        do not go together.
    DuplicateEntryError
        At the first evaluation: argmax or top-k with an (example, class)
        entry repeated within a ``by`` group (several groups reuse the example
        ids: group by them, and name them in ``over=``).
    UnknownClassError
        A threshold dict naming classes outside the universe (or, without a
        declared universe, absent from the data).
    UnknownNameError
        An unknown decision or t-norm name.

    Notes
    -----
    The measures on scores read the entries present: in a sparse frame (a
    declared universe, absent entries) an absent entry has no score and takes
    no part in them (per example, the ranking is over the entries present); a
    class of the universe without any entry in a group is undefined there.

    Construction runs **one** small aggregate query over the scores for the
    data checks (bad-row counts; an offending row is fetched only to name it);
    evaluation then reads the source as its grains need. With Polars, argmax is
    one aggregation per example (no window); top-k ranks the entries of each
    example with a window.

    Examples
    --------
    >>> import polars as pl, aggframe as af
    >>> df = pl.DataFrame({"example": [0, 0, 0, 1, 1, 1], "class": [0, 1, 2] * 2,
    ...                    "score": [0.7, 0.2, 0.1, 0.4, 0.4, 0.2], "y": [1, 0, 0, 0, 1, 0]})
    >>> pr = af.from_scores(df, decision="argmax")  # the tie in example 1 goes to class 0
    >>> pr.accuracy()
    0.5
    >>> af.from_scores(df, decision="threshold", threshold=0.3).compute("precision", "micro")
    0.6666666666666666
    >>> pr.evaluate(["f1", "auroc"], ["micro", "macro"]).select("measure", "operator", "value")
    shape: (4, 3)
    ┌─────────┬──────────┬──────────┐
    │ measure ┆ operator ┆ value    │
    │ ---     ┆ ---      ┆ ---      │
    │ str     ┆ str      ┆ f64      │
    ╞═════════╪══════════╪══════════╡
    │ f1      ┆ micro    ┆ 0.5      │
    │ f1      ┆ macro    ┆ 0.333333 │
    │ auroc   ┆ micro    ┆ 0.9375   │
    │ auroc   ┆ macro    ┆ 1.0      │
    └─────────┴──────────┴──────────┘

    The wide layout (``predict_proba``: one column per class, argmax by default):

    >>> wide = pl.DataFrame({"y_true": [0, 1, 2, 1], "p_0": [0.7, 0.2, 0.1, 0.5],
    ...                      "p_1": [0.2, 0.5, 0.1, 0.3], "p_2": [0.1, 0.3, 0.8, 0.2]})
    >>> pr = af.from_scores(wide, y_true="y_true", scores="p_*")
    >>> pr.accuracy(), pr.compute("auroc", "macro")
    (0.75, 1.0)
    """
    options = ScoreOptions(
        example=example,
        class_=class_,
        score=score,
        y=y,
        decision=decision,
        threshold=threshold,
        k=k,
        logits=logits,
        n_classes=n_classes,
        classes=classes,
        mask=mask,
        keep_soft=keep_soft,
        over=over,
        bins=bins,
    )
    if scores is not None or y_true is not None:
        if scores is None or y_true is None:
            msg = f"the wide layout needs both y_true= and scores= (got {'y_true' if scores is None else 'scores'} only)"
            raise OptionError(msg)
        long_roles = {"class_": class_ != "class", "score": score != "score", "y": y != "y", "mask": mask}
        wide = WideOptions(
            y_true=y_true,
            scores=scores,
            classes=classes,
            example=example,
            normalize=normalize,
            tolerance=tolerance,
            logits=logits,
        )
        return _from_wide_scores(frame, wide, options, long_roles)
    if normalize or tolerance != WIDE_TOLERANCE:
        msg = "normalize= and tolerance= apply to the wide layout (scores=[...] and y_true=...)"
        raise OptionError(msg)
    return Predictions(scores_source(frame, options))


def _from_wide_scores(
    frame: Any, wide_options: WideOptions, options: ScoreOptions, long_roles: Mapping[str, Any]
) -> Predictions:
    """``from_scores`` on the wide layout: checked, unpivoted lazily, read as the long layout."""
    given = [name for name, on in long_roles.items() if on]
    if given:
        msg = (
            f"scores= reads the wide layout (one row per example, one column per class); {given[0]}= names a "
            "column of the long layout and does not apply to it"
        )
        raise OptionError(msg)
    wide = wide_scores(frame, wide_options)
    if options.n_classes is not None and options.n_classes != len(wide.classes):
        msg = f"n_classes={options.n_classes} but the scores name {len(wide.classes)} classes"
        raise OptionError(msg)
    threshold = options.threshold
    stated = (
        options.decision is not None
        or isinstance(threshold, Mapping)
        or threshold != 0.5
        or options.k is not None
        or options.keep_soft is not None
    )
    long_options = dataclasses.replace(
        options,
        example=wide.example,
        class_=wide.class_,
        score=wide.score,
        y=wide.y,
        decision=options.decision if stated else "argmax",
        n_classes=None,
        classes=wide.classes,
        mask=None,
    )
    pr = Predictions(scores_source(wide.frame, long_options))
    return _truth_named(pr, wide_options.y_true, len(wide.classes))


def _truth_named(pr: Predictions, y_true: str, n_classes: int) -> Predictions:
    """A null truth (unlabelled rows) in the user's terms: the truth column, rows (not entries)."""
    n = getattr(pr.source, "unlabelled", 0)
    if not n:
        return pr
    named = dataclasses.replace(pr.source, truth_column=y_true, unlabelled=n // max(n_classes, 1))  # type: ignore[call-arg]
    return Predictions(named)


def from_ordinal(  # noqa: PLR0913 -- the user's options, keyword-only
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
    base, labels, ordered = ordinal_sources(
        data,
        y_pred_values,
        OrdinalOptions(
            y_true=y_true,
            y_pred=y_pred,
            example=example,
            order=order,
            n_classes=n_classes,
            fold=fold,
            repeat=repeat,
        ),
    )
    return OrdinalPredictions(source=base, order=ordered, labels=Predictions(labels))
