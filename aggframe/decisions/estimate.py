"""Performance before the labels arrive: expected confusion cells from calibrated scores.

:func:`estimate` fits one calibration map per class on a labelled *reference*
(isotonic by pool-adjacent-violators, or Platt's logistic fit, one-vs-rest;
renormalised over the classes of an example when the decision is argmax or
top-k, where the truth is single-label), applies it to the scores of ``data``
as a lookup (a join on a score bin: one scan), and reads the calibrated
probability ``q`` of each (example, class) entry as a soft truth beside the
crisp decision ``d``. The product t-norm then gives the expected cells

    E[tp] = sum q d,  E[fp] = sum (1 - q) d,  E[fn] = sum q (1 - d),  E[tn] = sum (1 - q)(1 - d),

and every cell measure, operator and group follows from the long form's
machinery (:func:`~aggframe.from_long` with ``tnorm="product"``), in one plan.

The interval (``n_draws > 0``) is the range where the *realized* value should
fall if the calibrated probabilities are right: the truth of every entry is
drawn ``n_draws`` times from ``q`` (a categorical draw over the classes of an
example when single-label, independent Bernoulli draws otherwise), seeded by a
hash of the example, class and draw, and the measure of each draw is computed
in the same plan; the interval is the percentile range of the draws. It is
conditional on the scores: it covers the sampling noise of the truth, not an
error of the calibration map nor a concept shift.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, get_args

import narwhals as nw
import numpy as np
import polars as pl

from aggframe._columns import CLASS_ROLE, EXAMPLE, PREFIX, Y_PRED, Y_TRUE, P, Y, check_result_names
from aggframe._options import Calibration, Engine, ReportOperator, listify, parse_engine
from aggframe.exceptions import DecisionWarning, InvalidValueError, OptionError
from aggframe.intake.read_errors import reading
from aggframe.intake.scores_long import SCORE

if TYPE_CHECKING:
    from aggframe.predictions import Predictions

__all__ = ["CalibrationMap", "ShiftWarning", "estimate", "fit_calibration"]

#: Scores are read on this grid (a bin of width 1/GRID) for the isotonic fit and its lookup.
GRID = 1000
#: The share of a group's entries outside the reference's score range above which it is flagged.
OUTSIDE_SHARE = 0.05
#: Bins of the expected calibration error.
ECE_BINS = 10

#: The result's columns after the by-columns.
RESULT = ("kind", "measure", "operator", "value", "ci_low", "ci_high", "n_examples", "labelled_share")

_SCORE = f"{PREFIX}est_s"
_BIN = f"{PREFIX}est_bin"
_Q = f"{PREFIX}est_q"
_LAB = f"{PREFIX}est_lab"
_DRAW = f"{PREFIX}est_draw"


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
        ``ece_raw`` and ``ece_calibrated`` (its expected calibration error on ten equal-width
        bins, before the map and after it, in-sample).
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
    ['class', 'n', 'low', 'high', 'ece_raw', 'ece_calibrated']
    """

    method: Calibration
    table: pl.DataFrame
    ece: pl.DataFrame
    renormalize: bool


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
    if isinstance(source, ScoreSource) and (source.tnorm is not None or source.long_roles.mask is not None):
        msg = f"`{what}`: estimation needs crisp decisions without a mask (keep_soft= and mask= do not apply)"
        raise OptionError(msg)
    return source


def _entries(
    source: Any, by: Sequence[str], extra: dict[str, str] | None = None
) -> tuple[pl.LazyFrame, list[str]]:
    """The source's entries in Polars: by-keys, example, class, probability, decision, truth (private names)."""
    from aggframe.intake.binary_scores import BinaryScoreSource

    binary = isinstance(source, BinaryScoreSource)
    proj = source.project(list(by), extra)
    native = nw.to_native(proj.frame)
    if not isinstance(native, pl.LazyFrame):
        msg = "estimate runs on Polars sources (eager or lazy frames, files); DuckDB and Spark are not supported yet"
        raise OptionError(msg)
    prob = pl.col(SCORE).cast(pl.Float64)
    if source.logits:
        prob = 1.0 / (1.0 + (-prob).exp())
    extras = list(extra or {})
    if binary:
        lf = native.with_row_index(EXAMPLE).select(
            *proj.by_keys,
            pl.col(EXAMPLE).cast(pl.Int64),
            pl.lit(1, pl.Int64).alias(CLASS_ROLE),
            prob.alias(_SCORE),
            pl.col(Y_PRED).cast(pl.Float64).alias(P),
            pl.col(Y_TRUE).cast(pl.Float64).alias(Y),
            *extras,
        )
    else:
        lf = native.select(
            *proj.by_keys,
            EXAMPLE,
            CLASS_ROLE,
            prob.alias(_SCORE),
            pl.col(P).cast(pl.Float64),
            pl.col(Y).cast(pl.Float64),
            *extras,
        )
    return lf, list(proj.by_keys)


def _binned(score: pl.Expr) -> pl.Expr:
    return (score.clip(0.0, 1.0) * GRID).floor().cast(pl.Int64).clip(0, GRID - 1)


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
    lf, _ = _entries(source, [])
    with reading(source.origin):
        stats = (
            lf.group_by(CLASS_ROLE, _binned(pl.col(_SCORE)).alias(_BIN))
            .agg(
                pl.len().cast(pl.Float64).alias("n"),
                pl.col(Y).sum().alias("pos"),
                pl.col(_SCORE).sum().alias("s_sum"),
                pl.col(_SCORE).min().alias("lo"),
                pl.col(_SCORE).max().alias("hi"),
            )
            .sort(CLASS_ROLE, _BIN)
            .collect()
        )
    if stats.height == 0:
        msg = "`reference` has no rows to calibrate on"
        raise InvalidValueError(msg)
    grid = (np.arange(GRID) + 0.5) / GRID
    tables, eces = [], []
    for (cls,), part in stats.partition_by(CLASS_ROLE, as_dict=True, maintain_order=True).items():
        n = part["n"].to_numpy()
        pos = part["pos"].to_numpy()
        s_sum = part["s_sum"].to_numpy()
        mean_s = s_sum / n
        if calibration == "isotonic":
            fitted = _pav(pos / n, n)
            q_grid = np.interp(grid, mean_s, fitted)
            q_bins = fitted
        elif calibration == "platt":
            eps = 1e-12
            a, b = _platt(np.log((mean_s + eps) / (1.0 - mean_s + eps)), pos, n)
            logit = np.log(grid / (1.0 - grid))
            q_grid = 1.0 / (1.0 + np.exp(-(a * logit + b)))
            q_bins = 1.0 / (1.0 + np.exp(-(a * np.log((mean_s + eps) / (1.0 - mean_s + eps)) + b)))
        else:
            q_grid = grid
            q_bins = mean_s
        # the bins seen in the reference keep their fitted value (no interpolation error there)
        q_grid[part[_BIN].to_numpy()] = q_bins
        tables.append(pl.DataFrame({"class": pl.Series([cls] * GRID), "bin": np.arange(GRID), "q": q_grid}))
        eces.append(
            {
                "class": cls,
                "n": int(n.sum()),
                "low": float(part["lo"].min()),  # type: ignore[arg-type]
                "high": float(part["hi"].max()),  # type: ignore[arg-type]
                "ece_raw": _ece(s_sum, pos, n, mean_s),
                "ece_calibrated": _ece(q_bins * n, pos, n, mean_s),
            }
        )
    table = pl.concat(tables).with_columns(pl.col("bin").cast(pl.Int64))
    return CalibrationMap(calibration, table, pl.DataFrame(eces), bool(renormalize))


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


def _uniform(cols: Sequence[str], seed: int) -> pl.Expr:
    return pl.struct(*cols).hash(seed).cast(pl.Float64) / 2.0**64


def estimate(
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
    """Estimated cell measures of predictions whose truth is missing, from scores calibrated on a reference.

    Parameters
    ----------
    reference
        Labelled predictions with scores (:func:`~aggframe.from_scores`, any layout), or a
        map already fitted on them (:func:`fit_calibration`).
    data
        Predictions with scores read with the same options as the reference. Rows whose
        truth is not known carry any valid truth value and are marked by ``labelled``.
    measures, operators
        Cell measures (``f1``, ``precision``, ``recall``, ...) and operators (``micro``,
        ``macro``, ``weighted``, ``exemplar``, ``binary``), as in :meth:`~aggframe.Predictions.evaluate`.
    by
        Columns of ``data`` to group by (a null key is its own group).
    calibration
        ``"isotonic"``, ``"platt"`` or ``"none"`` (see :func:`fit_calibration`); ignored
        when ``reference`` is a fitted map.
    labelled
        A 0/1 or boolean column of ``data``: 1 where the truth is real. Those rows also give the
        realized values (``kind="realized"``). ``None``: no truth is known.
    n_draws
        Draws of the truth from the calibrated probabilities for the interval (0: none).
    level
        The interval's level.
    seed
        The seed of the draws.
    engine
        The Polars engine of the evaluation (``"auto"``, ``"in-memory"``, ``"streaming"``).
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
        Bad options, a measure on scores, or a source that is not predictions with scores.

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
    >>> new = af.from_scores(pl.DataFrame({"y": [0, 0, 0], "score": [0.2, 0.5, 0.85]}), class_=None)
    >>> af.estimate(ref, new, "recall", "binary")["value"].round(3).to_list()
    [0.579]
    """
    from aggframe.constructors import from_long
    from aggframe.measures.registry import is_score_measure
    from aggframe.predictions import Predictions

    if time is not None or every is not None or period is not None or offset is not None:
        from aggframe.decisions.estimate_time import windowed_estimate

        window = {"time": time, "every": every, "period": period, "offset": offset}
        options: dict[str, Any] = {"calibration": calibration, "labelled": labelled, "n_draws": n_draws}
        options |= {"by": by, "level": level, "seed": seed, "engine": engine}
        return windowed_estimate(
            estimate, reference, data, measures, operators, window=window, options=options
        )
    by_cols = listify(by)
    check_result_names(by_cols, RESULT, "estimate")
    engine = parse_engine(engine)
    n_draws, level, seed = _check_draws(n_draws, level, seed)
    for m in listify(measures):
        if isinstance(m, str) and is_score_measure(m):
            msg = f"measure {m!r} reads scores; estimate computes cell measures only (f1, precision, recall, ...)"
            raise OptionError(msg)
    cmap = (
        reference
        if isinstance(reference, CalibrationMap)
        else fit_calibration(reference, calibration=calibration)
    )
    source = _check_source(data, "data")
    extra = None
    if labelled is not None:
        if not isinstance(labelled, str):
            msg = f"Expected `labelled` to name a column, got {labelled!r}"
            raise OptionError(msg)
        extra = {_LAB: labelled}
    lf, keys = _entries(source, by_cols, extra)
    names = {k: by_cols[i] for i, k in enumerate(keys)}

    lab = pl.col(_LAB).cast(pl.Float64).fill_null(0.0) if labelled is not None else pl.lit(0.0)
    table = cmap.table.lazy().select(
        pl.col("class").alias(CLASS_ROLE), pl.col("bin").alias(_BIN), pl.col("q").alias(_Q)
    )
    table = table.with_columns(pl.col(CLASS_ROLE).cast(lf.collect_schema()[CLASS_ROLE]))
    rows = lf.with_columns(_binned(pl.col(_SCORE)).alias(_BIN), lab.alias(_LAB))
    if cmap.method == "none":
        rows = rows.with_columns(pl.lit(None, pl.Float64).alias(_Q))  # the scores as they are
    else:
        rows = rows.join(table, on=[CLASS_ROLE, _BIN], how="left", nulls_equal=True)
    q = pl.col(_Q).fill_null(pl.col(_SCORE))  # a class the reference never saw: the score as is
    per_example = [*keys, EXAMPLE]
    if cmap.renormalize:
        total = q.sum().over(per_example)
        q = pl.when(total > 0).then(q / total).otherwise(q)
    rows = rows.with_columns(q.clip(0.0, 1.0).alias(_Q))

    # -- the shift check: scores outside the reference's range, per group ----------------------
    ranges = cmap.ece.lazy().select(pl.col("class").alias(CLASS_ROLE), "low", "high")
    ranges = ranges.with_columns(pl.col(CLASS_ROLE).cast(lf.collect_schema()[CLASS_ROLE]))

    kind_col = "draw"  # the long frame's columns: example, class, y, p, k0.. (the by-keys), draw
    parts = [
        rows.select(*keys, EXAMPLE, CLASS_ROLE, pl.col(_Q).alias(Y), P, pl.lit(-1, pl.Int64).alias(kind_col)),
        rows.filter(pl.col(_LAB) == 1.0).select(
            *keys, EXAMPLE, CLASS_ROLE, Y, P, pl.lit(-2, pl.Int64).alias(kind_col)
        ),
    ]
    if n_draws:
        draws = rows.join(pl.LazyFrame({_DRAW: np.arange(n_draws, dtype=np.int64)}), how="cross")
        if cmap.renormalize:
            u = _uniform([*per_example, _DRAW], seed)
            cum = pl.col(_Q).cum_sum().over([*per_example, _DRAW], order_by=CLASS_ROLE)
            drawn = ((cum - pl.col(_Q) < u) & (u <= cum)).cast(pl.Float64)
        else:
            drawn = (_uniform([*per_example, CLASS_ROLE, _DRAW], seed) < pl.col(_Q)).cast(pl.Float64)
        parts.append(
            draws.select(*keys, EXAMPLE, CLASS_ROLE, drawn.alias(Y), P, pl.col(_DRAW).alias(kind_col))
        )
    frame = pl.concat(parts, how="vertical_relaxed")
    private = {k: f"k{i}" for i, k in enumerate(keys)}
    long = frame.rename({**private, EXAMPLE: "example", CLASS_ROLE: "class", Y: "y", P: "p"})
    # the long frame is derived from `data`: a read error names data's source
    pr = Predictions(
        replace(from_long(long, tnorm="product", task="multilabel").source, origin=source.origin)
    )
    with reading(source.origin):
        res = pr.evaluate(measures, operators, by=[*private.values(), kind_col], engine=engine)
        checks, shares = pl.collect_all(
            [
                rows.join(ranges, on=CLASS_ROLE, how="left", nulls_equal=True)
                .group_by(keys)
                .agg(
                    ((pl.col(_SCORE) < pl.col("low")) | (pl.col(_SCORE) > pl.col("high")))
                    .sum()
                    .alias("outside"),
                    pl.len().alias("entries"),
                ),
                rows.group_by(per_example)
                .agg(pl.col(_LAB).max())
                .group_by(keys)
                .agg(
                    pl.len().cast(pl.Int64).alias("n_examples"), pl.col(_LAB).mean().alias("labelled_share")
                ),
            ],
            engine=engine,
        )
    flagged = checks.filter(pl.col("outside") > OUTSIDE_SHARE * pl.col("entries"))
    if flagged.height:
        first = flagged.row(0, named=True)
        where = ", ".join(f"{names[k]}={first[k]!r}" for k in keys) or "the data"
        warnings.warn(
            f"{flagged.height} group(s) of `data` have scores outside the reference's range "
            f"(e.g. {where}: {first['outside']} of {first['entries']} entries); the calibration map "
            "is extrapolated there and the estimate may be off",
            ShiftWarning,
            stacklevel=2,
        )
    out_keys = list(private.values())
    value_cols = ["measure", "operator", "value"]
    point = res.filter(pl.col(kind_col) < 0).select(
        *out_keys,
        pl.when(pl.col(kind_col) == -1).then(pl.lit("estimated")).otherwise(pl.lit("realized")).alias("kind"),
        *value_cols,
    )
    if n_draws:
        alpha = (1.0 - level) / 2.0
        ci = (
            res.filter(pl.col(kind_col) >= 0)
            .group_by(*out_keys, "measure", "operator")
            .agg(
                pl.col("value").quantile(alpha, interpolation="linear").alias("ci_low"),
                pl.col("value").quantile(1.0 - alpha, interpolation="linear").alias("ci_high"),
            )
            .with_columns(pl.lit("estimated").alias("kind"))
        )
        point = point.join(ci, on=[*out_keys, "kind", "measure", "operator"], how="left", nulls_equal=True)
    else:
        point = point.with_columns(
            pl.lit(None, pl.Float64).alias("ci_low"), pl.lit(None, pl.Float64).alias("ci_high")
        )
    shares = shares.rename(private)
    if out_keys:
        point = point.join(shares, on=out_keys, how="left", nulls_equal=True)
    else:
        point = point.join(shares, how="cross")
    point = point.sort([*out_keys, "kind", "measure", "operator"], nulls_last=False, maintain_order=True)
    point = point.rename({v: names[k] for k, v in private.items()})
    return point
