"""Performance before the labels arrive: expected confusion cells from calibrated scores.

:func:`estimate` fits one calibration map per class on a labelled *reference*
(:func:`fit_calibration`: isotonic by pool-adjacent-violators, or Platt's
logistic fit, one-vs-rest, on scores binned to a grid of 1/1000; renormalised
over the classes of an example when the decision is argmax or top-k, where the
truth is single-label), applies it to the scores of ``data`` as a lookup, and
reads the calibrated probability ``q`` of each (example, class) entry as the
chance that it is true. The expected cells

    E[tp] = sum q d,  E[fp] = sum (1 - q) d,  E[fn] = sum q (1 - d),  E[tn] = sum (1 - q)(1 - d)

are sums of one group-by over (by-keys, class), with the realized cells of the
labelled rows (truth not null) in the same aggregation
(:mod:`~aggframe.decisions.estimate_cells`); every cell measure and operator
follows from the report builder on those tables
(:mod:`~aggframe.decisions.estimate_report`); AUROC, log loss and Brier from the
same scan (:mod:`~aggframe.decisions.estimate_scores`). The interval
(``n_draws > 0``) draws the cells, not the rows
(:mod:`~aggframe.decisions.estimate_draws`): it is conditional on the scores and
the map, and covers the sampling noise of the truth, not an error of the map nor
a concept shift. Maps are stored as one Parquet file
(:mod:`~aggframe.decisions.estimate_mapfile`).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

import narwhals as nw
import numpy as np
import polars as pl

from aggframe._columns import CLASS_ROLE, EXAMPLE, KEY_ALL, check_result_names
from aggframe._options import Calibration, Engine, ReportOperator, listify, parse_engine
from aggframe.decisions.estimate_cells import (
    BIN,
    GRID,
    BinTable,
    D,
    Entries,
    Losses,
    S,
    T,
    bin_table,
    binned,
    check_labelled,
    entries,
)
from aggframe.decisions.estimate_engines import engine_table
from aggframe.decisions.estimate_exemplar import exemplar_tables
from aggframe.decisions.estimate_mapfile import read_map, write_map
from aggframe.decisions.estimate_report import (
    ESTIMATED,
    KIND,
    cell_report,
    cell_tables,
    intervals,
)
from aggframe.decisions.estimate_scores import check_score_request, score_report
from aggframe.exceptions import DecisionWarning, InvalidValueError, OptionError
from aggframe.intake.read_errors import reading
from aggframe.operators.report import ReportRequest
from aggframe.wide.engines import collect_polars

if TYPE_CHECKING:
    from aggframe.predictions import Predictions

__all__ = ["CalibrationMap", "ShiftWarning", "estimate", "fit_calibration"]

#: The share of a group's entries outside the reference's score range above which it is flagged.
OUTSIDE_SHARE = 0.05
#: A group's mean score of a class this many reference standard deviations from the reference's
#: mean (a medium effect), and at least SHIFT_Z standard errors of the group's mean from it, is flagged.
SHIFT_EFFECT = 0.5
SHIFT_Z = 4.0
#: Bins of the expected calibration error.
ECE_BINS = 10

#: The result's columns after the by-columns.
RESULT = ("kind", "measure", "operator", "value", "ci_low", "ci_high", "n_examples", "labelled_share")


class ShiftWarning(DecisionWarning):
    """A group of the estimated data has scores outside the range seen in the reference."""


@dataclass(frozen=True)
class CalibrationMap:
    """Per-class calibration maps fitted on a reference (:func:`fit_calibration` makes them).

    Parameters
    ----------
    method
        The calibration that made the map: ``"isotonic"``, ``"platt"`` or ``"none"``.
    table
        One row per (class, score bin): ``class``, ``bin`` (``0 .. 999``: the score ``s``
        in ``[bin/1000, (bin+1)/1000)``) and ``q``, the calibrated probability.
    ece
        Per class: ``n`` (the reference's entries), ``low`` and ``high`` (its score range),
        ``mean`` and ``sd`` (its scores' mean and standard deviation: the distribution check of
        :func:`estimate`), ``ece_raw`` and ``ece_calibrated`` (its expected calibration error on
        ten equal-width bins, before the map and after it, in-sample).
    renormalize
        Whether :func:`estimate` divides the calibrated probabilities of an example by their sum.

    Raises
    ------
    Nothing
        A plain record; :func:`fit_calibration` checks its input.

    Examples
    --------
    >>> import polars as pl
    >>> import aggframe as af
    >>> ref = af.from_scores(pl.DataFrame({"y": [0, 1, 1], "score": [0.2, 0.5, 0.8]}), class_=None)
    >>> af.fit_calibration(ref).ece.columns
    ['class', 'n', 'low', 'high', 'mean', 'sd', 'ece_raw', 'ece_calibrated']
    """

    method: Calibration
    table: pl.DataFrame
    ece: pl.DataFrame
    renormalize: bool

    def write(self, path: str | PathLike[str], *, overwrite: bool = False) -> Path:
        """Write the map to one Parquet file, so that a later estimate uses the same map (:meth:`read`).

        The file holds one row per (class, bin) with ``q`` and the class's
        calibration error columns; the method, ``renormalize`` and the grid are in
        its key-value metadata (key ``aggframe``).

        Parameters
        ----------
        path
            The file to write (its folder must exist).
        overwrite
            Replace an existing file.

        Returns
        -------
        Path
            The file written.

        Raises
        ------
        StoreError
            ``path`` exists (without ``overwrite``) or is a folder.

        Examples
        --------
        >>> import tempfile, pathlib, polars as pl, aggframe as af
        >>> ref = af.from_scores(pl.DataFrame({"y": [0, 0, 1, 1], "score": [0.1, 0.6, 0.4, 0.9]}), class_=None)
        >>> path = af.fit_calibration(ref).write(pathlib.Path(tempfile.mkdtemp()) / "map.parquet")
        >>> af.CalibrationMap.read(path).method
        'isotonic'
        """
        return write_map(self, path, overwrite=overwrite)

    @classmethod
    def read(cls, path: str | PathLike[str]) -> CalibrationMap:
        """Read a map written by :meth:`write`.

        Parameters
        ----------
        path
            The Parquet file of the map.

        Returns
        -------
        CalibrationMap
            The same map (table, calibration errors, method, ``renormalize``).

        Raises
        ------
        StoreError
            A missing file, a file that is not Parquet, or a Parquet file that is not a map.

        Examples
        --------
        >>> import tempfile, pathlib, polars as pl, aggframe as af
        >>> ref = af.from_scores(pl.DataFrame({"y": [0, 1, 1], "score": [0.2, 0.5, 0.8]}), class_=None)
        >>> cmap = af.fit_calibration(ref, calibration="platt")
        >>> back = af.CalibrationMap.read(cmap.write(pathlib.Path(tempfile.mkdtemp()) / "m.parquet"))
        >>> back.table.equals(cmap.table)
        True
        """
        method, table, ece, renormalize = read_map(path)
        return cls(method, table, ece, renormalize)


def _pav(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted isotonic (non-decreasing) regression of ``y`` (already in score order)."""
    means: list[float] = []
    weights: list[float] = []
    sizes: list[int] = []
    for yi, wi in zip(y.tolist(), w.tolist(), strict=True):
        means.append(yi)
        weights.append(wi)
        sizes.append(1)
        while len(means) > 1 and means[-2] >= means[-1]:
            m2, w2, n2 = means.pop(), weights.pop(), sizes.pop()
            total = weights[-1] + w2
            means[-1] = (means[-1] * weights[-1] + m2 * w2) / total if total > 0 else m2
            weights[-1] = total
            sizes[-1] += n2
    return np.repeat(np.asarray(means), np.asarray(sizes))


def _platt(x: np.ndarray, pos: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    """Logistic fit ``q = sigmoid(a x + b)`` by Newton's method on binned counts (Platt's targets)."""
    n_pos, n_neg = pos.sum(), (n - pos).sum()
    hi, lo = (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0)  # Platt's smoothed targets
    t = (pos * hi + (n - pos) * lo) / np.maximum(n, 1.0)
    a, b = 1.0, 0.0
    for _ in range(50):
        z = np.clip(a * x + b, -35.0, 35.0)
        p = 1.0 / (1.0 + np.exp(-z))
        g = n * (p - t)
        h = n * p * (1.0 - p) + 1e-12
        grad = np.array([(g * x).sum(), g.sum()])
        hess = np.array([[(h * x * x).sum(), (h * x).sum()], [(h * x).sum(), h.sum()]]) + 1e-9 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        a, b = a - step[0], b - step[1]
        if np.abs(step).max() < 1e-10:
            break
    return float(a), float(b)


def _ece(score_sum: np.ndarray, pos: np.ndarray, n: np.ndarray, mean_score: np.ndarray) -> float:
    """Expected calibration error on ``ECE_BINS`` equal-width bins of the (binned) scores."""
    edges = np.minimum((mean_score * ECE_BINS).astype(int), ECE_BINS - 1)
    total = n.sum()
    if total == 0:
        return float("nan")
    err = 0.0
    for b in np.unique(edges):
        sel = edges == b
        nb = n[sel].sum()
        if nb > 0:
            err += abs(score_sum[sel].sum() - pos[sel].sum())
    return float(err / total)


def _check_source(pr: Any, what: str) -> Any:
    from aggframe.intake.binary_scores import BinaryScoreSource
    from aggframe.intake.scores_long import ScoreSource

    source = getattr(pr, "source", None)
    if not isinstance(source, ScoreSource | BinaryScoreSource):
        msg = f"`{what}` must be predictions with scores (af.from_scores(...)), got {type(pr).__name__}"
        raise OptionError(msg)
    if what == "reference":
        source.check_truth()  # the reference is labelled: a null truth there is an error
    if isinstance(source, ScoreSource) and (source.tnorm is not None or source.long_roles.mask is not None):
        msg = f"`{what}`: estimation needs crisp decisions without a mask (keep_soft= and mask= do not apply)"
        raise OptionError(msg)
    return source


def fit_calibration(
    reference: Predictions,
    *,
    calibration: Calibration = "isotonic",
    renormalize: bool | None = None,
) -> CalibrationMap:
    """Fit per-class calibration maps on labelled predictions with scores.

    Parameters
    ----------
    reference
        Labelled predictions with scores (:func:`~aggframe.from_scores`, any layout).
    calibration
        ``"isotonic"`` (pool-adjacent-violators on the scores binned to a grid of
        1/1000), ``"platt"`` (a logistic fit on the logit of the score) or ``"none"``
        (the scores are read as calibrated probabilities).
    renormalize
        Whether the calibrated probabilities of an example are divided by their sum
        (single-label truth). ``None``: when the decision is argmax or top-k.

    Returns
    -------
    CalibrationMap
        The lookup table and the reference's calibration error per class.

    Raises
    ------
    OptionError
        An unknown method, or a reference that is not predictions with scores.

    Examples
    --------
    >>> import polars as pl
    >>> import aggframe as af
    >>> ref = af.from_scores(pl.DataFrame({"y": [0, 0, 1, 1], "score": [0.1, 0.6, 0.4, 0.9]}), class_=None)
    >>> af.fit_calibration(ref).table.filter(pl.col("bin").is_in([100, 900]))["q"].to_list()
    [0.0, 1.0]
    """
    if calibration not in get_args(Calibration):
        msg = f"Expected `calibration` to be one of {list(get_args(Calibration))}, got {calibration!r}"
        raise OptionError(msg)
    source = _check_source(reference, "reference")
    if renormalize is None:
        renormalize = getattr(source, "decision", "threshold") in ("argmax", "top_k")
    stats = _reference_bins(source)
    tables, eces = [], []
    for (cls,), part in stats.partition_by(CLASS_ROLE, as_dict=True, maintain_order=True).items():
        q_grid, q_bins = _fit_class(part, calibration)
        tables.append(pl.DataFrame({"class": pl.Series([cls] * GRID), "bin": np.arange(GRID), "q": q_grid}))
        eces.append(_class_ece(cls, part, q_bins))
    table = pl.concat(tables).with_columns(pl.col("bin").cast(pl.Int64))
    return CalibrationMap(calibration, table, pl.DataFrame(eces), bool(renormalize))


def _reference_bins(source: Any) -> pl.DataFrame:
    """Per (class, score bin) of the labelled reference: n, positives, score sum and range (one scan, any engine)."""
    ent = entries(source, [], None)
    s, t = nw.col(S), nw.col(T)
    agg = (
        ent.frame.with_columns(binned(s).alias(BIN))
        .group_by(CLASS_ROLE, BIN, drop_null_keys=False)
        .agg(
            nw.len().cast(nw.Float64).alias("n"),
            t.sum().alias("pos"),
            s.sum().alias("s_sum"),
            (s * s).sum().alias("s2_sum"),
            s.min().alias("lo"),
            s.max().alias("hi"),
        )
    )
    with reading(source.origin):
        stats = collect_polars(agg).sort(CLASS_ROLE, BIN)
    if stats.height == 0:
        msg = "`reference` has no rows to calibrate on"
        raise InvalidValueError(msg)
    return stats


def _fit_class(part: pl.DataFrame, calibration: str) -> tuple[np.ndarray, np.ndarray]:
    """One class's map on the grid and at the bins the reference saw."""
    n, pos, s_sum = (part[c].to_numpy() for c in ("n", "pos", "s_sum"))
    mean_s = s_sum / n
    grid = (np.arange(GRID) + 0.5) / GRID
    if calibration == "isotonic":
        q_bins = _pav(pos / n, n)
        q_grid = np.interp(grid, mean_s, q_bins)
    elif calibration == "platt":
        eps = 1e-12
        logit_bins = np.log((mean_s + eps) / (1.0 - mean_s + eps))
        a, b = _platt(logit_bins, pos, n)
        q_grid = 1.0 / (1.0 + np.exp(-(a * np.log(grid / (1.0 - grid)) + b)))
        q_bins = 1.0 / (1.0 + np.exp(-(a * logit_bins + b)))
    else:
        q_grid, q_bins = grid.copy(), mean_s
    # the bins seen in the reference keep their fitted value (no interpolation error there)
    q_grid[part[BIN].to_numpy()] = q_bins
    return q_grid, q_bins


def _class_ece(cls: Any, part: pl.DataFrame, q_bins: np.ndarray) -> dict[str, Any]:
    n, pos, s_sum = (part[c].to_numpy() for c in ("n", "pos", "s_sum"))
    mean_s = s_sum / n
    mean = float(s_sum.sum() / n.sum())
    var = float(part["s2_sum"].to_numpy().sum() / n.sum()) - mean * mean
    return {
        "class": cls,
        "n": int(n.sum()),
        "low": float(part["lo"].min()),  # type: ignore[arg-type]
        "high": float(part["hi"].max()),  # type: ignore[arg-type]
        "mean": mean,
        "sd": max(var, 0.0) ** 0.5,
        "ece_raw": _ece(s_sum, pos, n, mean_s),
        "ece_calibrated": _ece(q_bins * n, pos, n, mean_s),
    }


def _check_draws(n_draws: Any, level: Any, seed: Any) -> tuple[int, float, int]:
    if isinstance(n_draws, bool) or not isinstance(n_draws, numbers.Integral) or n_draws < 0:
        msg = f"Expected `n_draws` to be a non-negative integer, got {n_draws!r}"
        raise OptionError(msg)
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0.0 < float(level) < 1.0:
        msg = f"Expected `level` to be a number in (0, 1), got {level!r}"
        raise OptionError(msg)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        msg = f"Expected `seed` to be a non-negative integer, got {seed!r}"
        raise OptionError(msg)
    return int(n_draws), float(level), int(seed)


def estimate(  # noqa: PLR0913 -- the user's options, keyword-only
    reference: Predictions | CalibrationMap,
    data: Predictions,
    measures: str | Sequence[str] = "f1",
    operators: ReportOperator | Sequence[ReportOperator] = "micro",
    *,
    by: str | Sequence[str] | None = None,
    calibration: Calibration = "isotonic",
    labelled: str | None = None,
    n_draws: int = 0,
    level: float = 0.95,
    seed: int = 0,
    engine: Engine = "auto",
    time: str | None = None,
    every: str | None = None,
    period: str | None = None,
    offset: str | None = None,
) -> pl.DataFrame:
    """Estimated measures of predictions whose truth is missing, from scores calibrated on a reference.

    The expected confusion cells (``E[tp] = sum q d``, ...: ``q`` the calibrated
    probability of an entry, ``d`` its decision) come from one group-by of ``data``
    over (by-keys, class), with the realized cells of its labelled rows in the same
    aggregation; every measure and operator is then computed on those small tables
    (see the page "Performance before the labels arrive").

    Parameters
    ----------
    reference
        Labelled predictions with scores (:func:`~aggframe.from_scores`, any layout), or a
        map already fitted on them (:func:`fit_calibration`, :meth:`CalibrationMap.read`).
    data
        Predictions with scores read with the same options as the reference (Polars,
        DuckDB or Spark). A row whose truth is null is unlabelled.
    measures, operators
        Cell measures (``f1``, ``precision``, ``recall``, ...) and ``auroc``, ``log_loss``,
        ``brier``; operators ``micro``, ``macro``, ``weighted``, ``binary`` and (cell
        measures) ``exemplar``, as in :meth:`~aggframe.Predictions.evaluate`.
    by
        Columns of ``data`` to group by (a null key is its own group).
    calibration
        ``"isotonic"``, ``"platt"`` or ``"none"`` (see :func:`fit_calibration`); ignored
        when ``reference`` is a fitted map.
    labelled
        Optional 0/1 or boolean column of ``data``: a row is labelled where it is 1 and its
        truth is not null. ``None``: a row is labelled when its truth is not null. The
        labelled rows also give the realized values (``kind="realized"``).
    n_draws
        Parametric draws of the cells (normal approximations of their Poisson-binomial
        counts, per group; binomial positives per score bin for AUROC; for ``exemplar`` the
        examples' profile counts, and under multilabel truth every entry's truth, Polars only:
        :mod:`aggframe.decisions.estimate_exemplar`) for the interval (0: none).
    level
        The interval's level.
    seed
        The seed of the draws.
    engine
        The Polars engine of the scan (``"auto"``, ``"in-memory"``, ``"streaming"``).
    time, every, period, offset
        Windows over time, as in :meth:`~aggframe.Predictions.evaluate`: a date or datetime
        column of ``data``, how often a window starts (``"1d"``, ``"1w"``), its length (a
        multiple of ``every``) and the shift of the starts (:mod:`aggframe.decisions.estimate_time`).

    Returns
    -------
    polars.DataFrame
        The by-columns (then ``window_start`` and ``window_end`` with windows), ``kind``
        (``"estimated"`` or ``"realized"``), ``measure``, ``operator``, ``value``, ``ci_low``,
        ``ci_high`` (null without draws and for realized rows),
        ``n_examples`` (examples of the group) and ``labelled_share``.

    Raises
    ------
    OptionError
        Bad options, a measure or operator that is not estimated, a source that is not
        predictions with scores, or ``exemplar`` with ``n_draws`` under multilabel truth on
        DuckDB or Spark.
    InvalidValueError
        A ``labelled`` column holding values other than 0 and 1.
    NullValueError
        A reference with a null truth.

    Warns
    -----
    ShiftWarning
        In a group of ``data``, more than 5% of the entries have scores outside the
        reference's range for their class (the map is extrapolated there).

    Examples
    --------
    >>> import polars as pl
    >>> import aggframe as af
    >>> ref = af.from_scores(pl.DataFrame({"y": [0, 0, 1, 1], "score": [0.1, 0.6, 0.4, 0.9]}), class_=None)
    >>> new = af.from_scores(pl.DataFrame({"y": [None, None, None], "score": [0.2, 0.5, 0.85]}), class_=None)
    >>> af.estimate(ref, new, ["recall", "auroc"], "binary")["value"].round(3).to_list()
    [0.834, 0.579]
    """
    if time is not None or every is not None or period is not None or offset is not None:
        from aggframe.decisions.estimate_time import windowed_estimate

        window = {"time": time, "every": every, "period": period, "offset": offset}
        options: dict[str, Any] = {"calibration": calibration, "labelled": labelled, "n_draws": n_draws}
        options |= {"by": by, "level": level, "seed": seed, "engine": engine}
        return windowed_estimate(_run, reference, data, measures, operators, window=window, options=options)
    options = {"by": by, "calibration": calibration, "labelled": labelled, "n_draws": n_draws}
    options |= {"level": level, "seed": seed, "engine": engine}
    return _run(reference, data, measures, operators, options)


#: Sums the small tables of a scan keyed by time slot into windows of several slots
#: (:mod:`aggframe.decisions.estimate_time`): (bin table, sizes) -> the same keyed by window.
Roll = Callable[[BinTable, pl.DataFrame], tuple[BinTable, pl.DataFrame]]


def _run(
    reference: Predictions | CalibrationMap,
    data: Predictions,
    measures: str | Sequence[str],
    operators: ReportOperator | Sequence[ReportOperator],
    options: dict[str, Any],
    *,
    roll: Roll | None = None,
) -> pl.DataFrame:
    """:func:`estimate` without windows (``options``: its keyword arguments); ``roll`` sums the scan's
    small tables into windows before the report (rolling windows of point estimates)."""
    by, calibration, labelled = options["by"], options["calibration"], options["labelled"]
    n_draws, level, seed, engine = options["n_draws"], options["level"], options["seed"], options["engine"]
    by_cols = listify(by)
    check_result_names(by_cols, RESULT, "estimate")
    engine = parse_engine(engine)
    n_draws, level, seed = _check_draws(n_draws, level, seed)
    if labelled is not None and not isinstance(labelled, str):
        msg = f"Expected `labelled` to name a column, got {labelled!r}"
        raise OptionError(msg)
    source = _check_source(data, "data")
    request = ReportRequest.parse(
        measures, operators, pos_label=source.pos_label, has_folds=False, has_target=False
    )
    if calibration not in get_args(Calibration):
        msg = f"Expected `calibration` to be one of {list(get_args(Calibration))}, got {calibration!r}"
        raise OptionError(msg)
    cmap = (
        reference
        if isinstance(reference, CalibrationMap)
        else fit_calibration(reference, calibration=calibration)
    )
    ent = entries(source, by_cols, labelled)
    check_labelled(ent, labelled, source.origin)
    check_score_request(request.scores, request.operators)
    losses: Losses = bool({"log_loss", "brier"} & set(request.scores))
    if losses and n_draws:
        losses = "interval"  # the example's moments too (a window per example, single-label)
    pred = bool(n_draws) and cmap.renormalize and getattr(source, "decision", None) == "argmax"
    ranking = "auroc" in request.scores
    if cmap.renormalize and not ent.binary and not isinstance(nw.to_native(ent.frame), pl.LazyFrame):
        # DuckDB, Spark: the map joined on the engine, renormalised by a window per example
        bt = engine_table(ent, cmap, source.origin, losses=losses, pred=pred)
    else:
        bt = bin_table(ent, cmap, source.origin, engine=engine, losses=losses, ranking=ranking, pred=pred)
    sizes = _sizes(bt, ent, source)
    if roll is not None:
        bt, sizes = roll(bt, sizes)
    _warn_outside(bt, dict(zip(ent.keys, by_cols, strict=False)))
    _warn_distribution(bt, cmap, dict(zip(ent.keys, by_cols, strict=False)))
    out = _report(
        bt,
        ent,
        sizes,
        request,
        cmap=cmap,
        source=source,
        n_draws=n_draws,
        level=level,
        seed=seed,
        engine=engine,
    )
    return _finish(out, sizes, ent.keys, by_cols)


def _sizes(bt: BinTable, ent: Entries, source: Any) -> pl.DataFrame:
    """Per group: n_examples and n_labelled (keys..., n_examples, n_labelled)."""
    n, lab = pl.col("n"), pl.col(T).is_not_null()
    if ent.binary or getattr(source, "decision", "threshold") in ("argmax", "top_k"):
        # one row per example (binary) or k predicted entries per example (argmax, top-k)
        per = 1.0 if ent.binary else float(source._k())
        w = n if ent.binary else n * pl.col(D) / per
        return bt.frame.group_by(ent.keys).agg(
            w.sum().round(0).cast(pl.Int64).alias("n_examples"),
            (w * lab).sum().round(0).cast(pl.Int64).alias("n_labelled"),
        )
    per_example = ent.frame.group_by([*ent.keys, EXAMPLE], drop_null_keys=False).agg(
        nw.col(T).is_null().cast(nw.Int64).max().alias("_u")
    )
    counted = per_example.group_by(ent.keys, drop_null_keys=False).agg(
        nw.len().cast(nw.Int64).alias("n_examples"),
        (1 - nw.col("_u")).sum().cast(nw.Int64).alias("n_labelled"),
    )
    with reading(source.origin):
        return collect_polars(counted)


def _warn_distribution(bt: BinTable, cmap: CalibrationMap, names: dict[str, str]) -> None:
    """Warn for each group whose mean score of a class is far from the reference's (a shifted distribution).

    Far: at least :data:`SHIFT_EFFECT` reference standard deviations away (an effect size,
    whatever the group's size) and at least :data:`SHIFT_Z` standard errors of the group's
    mean (not the noise of a small group).
    """
    dtype = bt.frame.schema[CLASS_ROLE]
    ref = cmap.ece.select(
        pl.col("class").cast(dtype).alias(CLASS_ROLE), pl.col("mean").alias("_m"), pl.col("sd").alias("_sd")
    )
    per = bt.frame.group_by([*bt.keys, CLASS_ROLE]).agg(pl.col("n", "s1").sum())
    per = per.join(ref, on=CLASS_ROLE, how="inner", nulls_equal=True).filter(pl.col("n") > 0)
    gap = (pl.col("s1") / pl.col("n") - pl.col("_m")).abs()
    far = (
        pl.when(pl.col("_sd") > 0)
        .then(gap / pl.col("_sd"))
        .otherwise(pl.when(gap > 1e-12).then(float("inf")))
    )
    per = per.with_columns(gap.alias("_gap"), far.fill_null(0.0).alias("_effect"))
    flagged = per.filter(
        (pl.col("_effect") >= SHIFT_EFFECT) & (pl.col("_effect") * pl.col("n").sqrt() >= SHIFT_Z)
    ).sort([*bt.keys, CLASS_ROLE], nulls_last=True)
    if flagged.height == 0:
        return
    first = flagged.row(0, named=True)
    where = ", ".join(f"{names[k]}={first[k]!r}" for k in bt.keys if k in names) or "the data"
    groups = flagged.select(bt.keys).unique().height
    warnings.warn(
        f"{groups} group(s) of `data` have a score distribution far from the reference's (e.g. {where}, "
        f"class {first[CLASS_ROLE]!r}: mean score {first['s1'] / first['n']:.3g} against {first['_m']:.3g} "
        f"in the reference, {first['_effect']:.2g} of its standard deviations); the estimate holds only if "
        "the calibration does (no concept shift)",
        ShiftWarning,
        stacklevel=3,
    )


def _warn_outside(bt: BinTable, names: dict[str, str]) -> None:
    """Warn for each group with more than OUTSIDE_SHARE of its entries outside the reference's range of their class."""
    checks = bt.frame.group_by(bt.keys).agg(
        pl.col("out").sum().cast(pl.Int64).alias("outside"), pl.col("n").sum().cast(pl.Int64).alias("entries")
    )
    flagged = checks.filter(pl.col("outside") > OUTSIDE_SHARE * pl.col("entries")).sort(
        bt.keys, nulls_last=True
    )
    if flagged.height:
        first = flagged.row(0, named=True)
        where = ", ".join(f"{names[k]}={first[k]!r}" for k in bt.keys if k in names) or "the data"
        warnings.warn(
            f"{flagged.height} group(s) of `data` have scores outside the reference's range "
            f"(e.g. {where}: {first['outside']} of {first['entries']} entries); the calibration map "
            "is extrapolated there and the estimate may be off",
            ShiftWarning,
            stacklevel=3,
        )


def _report(
    bt: BinTable,
    ent: Entries,
    sizes: pl.DataFrame,
    request: ReportRequest,
    *,
    cmap: CalibrationMap,
    source: Any,
    **opts: Any,
) -> pl.DataFrame:
    """The point values and intervals of every measure x operator: keys..., kind, measure, operator, value, ci."""
    engine = opts["engine"]
    profiles = None
    if "exemplar" in request.operators:
        n_classes = bt.frame[CLASS_ROLE].n_unique()
        profiles = exemplar_tables(
            ent,
            cmap,
            source.origin,
            n_classes=n_classes,
            n_draws=opts["n_draws"],
            seed=opts["seed"],
            engine=engine,
        )
    parts = []
    if request.measures or request.matrix_measures:
        tables = cell_tables(bt, sizes, n_draws=opts["n_draws"], seed=opts["seed"], profiles=profiles)
        with reading(source.origin):
            parts.append(cell_report(tables, request, source.class_dtype(), engine))
    if request.scores:
        with reading(source.origin):
            dtype = source.class_dtype()
        parts.append(
            score_report(
                bt,
                request,
                n_draws=opts["n_draws"],
                seed=opts["seed"],
                pos_label=source.pos_label,
                class_dtype=dtype,
                single_label=cmap.renormalize and not ent.binary,
            )
        )
    res = pl.concat(parts, how="vertical_relaxed")
    point = res.filter(pl.col(KIND) < 0)
    if opts["n_draws"]:
        ci = intervals(res, ent.keys, opts["level"])
        point = point.join(ci, on=[*ent.keys, "measure", "operator"], how="left", nulls_equal=True)
        point = point.with_columns(
            pl.when(pl.col(KIND) == ESTIMATED).then(pl.col(c)).alias(c) for c in ("ci_low", "ci_high")
        )
    else:
        point = point.with_columns(
            pl.lit(None, pl.Float64).alias("ci_low"), pl.lit(None, pl.Float64).alias("ci_high")
        )
    return point


def _finish(out: pl.DataFrame, sizes: pl.DataFrame, keys: list[str], by_cols: list[str]) -> pl.DataFrame:
    """The tidy result in the user's names: by..., kind, measure, operator, value, ci_low, ci_high, n_examples, labelled_share."""
    share = pl.when(pl.col("n_examples") > 0).then(pl.col("n_labelled") / pl.col("n_examples"))
    sized = sizes.select(*keys, "n_examples", share.alias("labelled_share"))
    kind = pl.when(pl.col(KIND) == ESTIMATED).then(pl.lit("estimated")).otherwise(pl.lit("realized"))
    joined = out.join(sized, on=keys, how="left", nulls_equal=True).with_columns(kind.alias("kind"))
    joined = joined.sort([*keys, "kind", "measure", "operator"], nulls_last=False, maintain_order=True)
    result = joined.select(*keys, *RESULT).rename(dict(zip(keys, by_cols, strict=False)))
    return result.drop(KEY_ALL) if KEY_ALL in result.columns else result
