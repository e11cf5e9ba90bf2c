"""Measures on scores under the operators, per group: the glue between the score grains and the report.

Three steps, each small:

:func:`score_grains`
    The wide step's aggregates of one :class:`~aggframe.wide.ranking.ScoreFrame`
    (one grouping), as lazy Polars frames: AUROC and AP per class and pooled
    (:func:`~aggframe.operators.score_values.ranking_entries`, on the rows of a Polars
    source in exact mode, else on the per-score counts of the engine), the loss
    sums and the uniform calibration sums per class, the per-example sums.
    Every frame that reads the source is here, so a report collects them
    together with the cell tables (one collect).
:func:`score_entries`
    Per-class, pooled, per-example and whole-distribution entries of every
    measure (:class:`ScoreEntries`), with the class universe filled in: a class
    of the universe without entries in a group is an undefined entry there.
:func:`reduce_entries`
    Entries -> tidy values through the package's one convention resolution
    (:func:`~aggframe.operators.reduce.resolve_mean`).

Operators
---------
==============  ============================================================
``micro``       the pooled (flattened) entries: one value per group
``macro``       the mean over classes of the one-vs-rest value
``weighted``    the same, weighted by each class's positives (support)
``exemplar``    the mean over examples of the per-example value (AUROC and AP
                of the example's ranking of its classes: LRAP; the losses
                of its entries); ``ece`` has none
``multiclass``  ``log_loss`` and ``brier`` only: scikit-learn's
                whole-distribution ``log_loss(y, P)`` and ``brier_score_loss(y, P)``
==============  ============================================================

The semantics of each value (ties, undefined cases, clipping) are those of
:mod:`aggframe.operators.score_values`, which gives the entries; the curves and
the reliability table are :mod:`aggframe.operators.curves` and
:mod:`aggframe.operators.calibration`. ``ece`` here uses 15 uniform bins
(:data:`ECE_BINS`, scikit-learn's ``calibration_curve`` edges), assigned on the
engine so that it is exact in every mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import narwhals as nw
import polars as pl

from aggframe._columns import CLASS, KEY_ALL, RESULT_COLUMNS, by_key
from aggframe._options import Convention, CurveKind, Strategy
from aggframe.exceptions import OptionError
from aggframe.measures.measure import Measure
from aggframe.operators import calibration as cal
from aggframe.operators import curves as cv
from aggframe.operators import score_values as sv
from aggframe.operators.grouping import GROUPING_COLUMN, GROUPING_ID
from aggframe.operators.reduce import resolve_mean
from aggframe.wide.engines import to_polars, to_polars_all
from aggframe.wide.ranking import (
    EXAMPLE_MEASURES,
    POS,
    SUM_COLUMNS,
    ScoreFrame,
    calibration_sums,
    example_stats,
    loss_sums,
    row_example_stats,
    score_counts,
    score_rows,
)

__all__ = [
    "ECE_BINS",
    "SCORE_OPERATORS",
    "ScoreEntries",
    "best_threshold_frame",
    "bound_frame",
    "calibration_frame",
    "check_score_request",
    "curve_frame",
    "merged_report",
    "mixed_score_request",
    "reduce_entries",
    "regrouped",
    "report_rows",
    "score_entries",
    "score_grains",
    "score_report",
    "undefined_rows",
]

#: The operators of measures on scores.
SCORE_OPERATORS = ("micro", "macro", "weighted", "exemplar", "multiclass")
#: Uniform bins of the ``ece`` measure (as ``calibration_curve``'s default ``n_bins=5``
#: is coarse, the common 15 of the calibration literature).
ECE_BINS = 15
_RANKING = ("auroc", "average_precision")
_LOSSES = ("log_loss", "brier")


def check_score_request(measures: Sequence[str], operators: Sequence[str]) -> None:
    """Refuse requests without a value: ``ece`` per example only, ``multiclass`` of a ranking or ``ece``.

    ``ece`` with ``exemplar`` and other operators is no error: its exemplar row is left out.
    """
    for op in operators:
        if op not in SCORE_OPERATORS:
            msg = (
                f"operator {op!r} does not apply to measures on scores ({', '.join(measures)}); "
                f"their operators: {', '.join(SCORE_OPERATORS)}"
            )
            raise OptionError(msg)
    if "ece" in measures and set(operators) <= {"exemplar"}:
        # with other operators the report leaves ece's exemplar row out (the default
        # operators, or a report of many measures, need not be split for it)
        msg = "ece has no per-example value (a calibration needs many entries): evaluate it with micro, macro or weighted"
        raise OptionError(msg)
    if "multiclass" in operators:
        other = [m for m in measures if m not in _LOSSES]
        if other:
            msg = (
                f"the multiclass operator is the whole-distribution log_loss and brier; it has no value "
                f"for {other[0]!r}: evaluate them separately"
            )
            raise OptionError(msg)


def mixed_score_request(measures: Sequence[str], operators: Sequence[str], *, whole_matrix: bool) -> bool:
    """Whether ``multiclass`` comes with other operators and has a measure to compute (a loss on
    scores, or a whole-matrix measure of the cells, ``whole_matrix``): then the measures on scores
    it does not define are listed (:func:`undefined_rows`), not refused."""
    has_whole = whole_matrix or bool(set(measures) & set(_LOSSES))
    return "multiclass" in operators and len(set(operators)) > 1 and has_whole


def undefined_rows(rows: pl.LazyFrame, measures: Sequence[str], conventions: Sequence[str]) -> pl.LazyFrame:
    """Rows for the measures on scores without a ``multiclass`` value (every one but the losses),
    on the groups of ``rows``: value null, ``n_entries`` 0 (as the report lists a cell measure
    under ``multiclass``)."""
    missing = [m for m in measures if m not in _LOSSES]
    spec = pl.LazyFrame(
        {
            "measure": [m for m in missing for _ in conventions],
            "operator": ["multiclass"] * (len(missing) * len(conventions)),
            "convention": [c for _ in missing for c in conventions],
        },
        schema={"measure": pl.String, "operator": pl.String, "convention": pl.String},
    )
    result = ("measure", "operator", "convention", "value", "n_entries", "n_undefined")
    schema = rows.collect_schema()
    columns = schema.names()
    # the bootstrap's statistics (n_boot=) are the rows' own, null on a listed pair
    stats = [c for c in ("ci_low", "ci_high", "se", "n_boot", "level") if c in columns]
    groups = rows.select(c for c in columns if c not in result and c not in stats).unique(maintain_order=True)
    out = groups.join(spec, how="cross").with_columns(
        pl.lit(None, dtype=pl.Float64).alias("value"),
        pl.lit(0, dtype=pl.Int64).alias("n_entries"),
        pl.lit(0, dtype=pl.Int64).alias("n_undefined"),
        *(pl.lit(None, dtype=schema[c]).alias(c) for c in stats),
    )
    return out.select(columns)


# ---------------------------------------------------------------------------
# grains: everything that reads the source


def _keyed(lf: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    return lf.with_columns(pl.lit(0).alias(KEY_ALL)) if KEY_ALL in keys else lf


def score_grains(
    sf: ScoreFrame, measures: Sequence[str], operators: Sequence[str]
) -> dict[str, pl.LazyFrame]:
    """The aggregates of the rows that ``measures`` x ``operators`` need, as lazy Polars frames.

    Keys: ``ranking_classes`` / ``ranking_pooled`` (AUROC and AP entries),
    ``losses`` (per class: ``n``, ``pos`` and the loss sums), ``calibration``
    (per class and uniform bin: ``n``, ``pos``, ``s_sum``) and ``stats`` (the
    per-example sums, :func:`~aggframe.wide.ranking.example_stats`). Frames of
    other engines cross to Polars in one engine query.
    """
    rk, c = list(sf.row_keys), sf.class_
    per_entry = bool({"micro", "macro", "weighted"} & set(operators))
    engine: dict[str, object] = {}
    polars: dict[str, pl.LazyFrame] = {}
    if per_entry and set(_RANKING) & set(measures):
        if sf.polars and sf.bins is None:
            rows = score_rows(sf.frame, rk, score=sf.score, y=sf.y, class_=c).to_native()
            ranked = sv.ranking_entries(rows, rk, c, unit_rows=True)
            polars["ranking_classes"], polars["ranking_pooled"] = ranked["classes"], ranked["pooled"]
        else:
            engine["counts"] = score_counts(
                sf.frame, rk, score=sf.score, y=sf.y, class_=c, bins=sf.bins, logits=sf.logits
            )
    if (per_entry or "multiclass" in operators) and set(_LOSSES) & set(measures):
        engine["losses"] = loss_sums(sf.frame, rk, score=sf.score, y=sf.y, class_=c, logits=sf.logits)
    if per_entry and "ece" in measures:
        engine["calibration"] = calibration_sums(
            sf.frame, rk, score=sf.score, y=sf.y, bins=ECE_BINS, class_=c, logits=sf.logits
        )
    if "exemplar" in operators and set(EXAMPLE_MEASURES) & set(measures):  # ece has no per-example value
        if sf.example is None:
            engine["stats"] = row_example_stats(sf.frame, rk, score=sf.score, y=sf.y, logits=sf.logits)
        else:
            engine["stats"] = example_stats(
                sf.frame, rk, example=sf.example, score=sf.score, y=sf.y, logits=sf.logits
            )
    engine["examples"] = _example_counts(sf)
    names = list(engine)
    crossed = dict(zip(names, to_polars_all([engine[n] for n in names]), strict=True))  # type: ignore[misc]
    if "counts" in crossed:
        ranked = sv.ranking_entries(crossed.pop("counts"), rk, c)
        polars["ranking_classes"], polars["ranking_pooled"] = ranked["classes"], ranked["pooled"]
    return {**polars, **crossed}


def _example_counts(sf: ScoreFrame) -> nw.LazyFrame[Any]:
    """Each group's number of examples (``n_examples`` of its rows): distinct examples, or rows
    (the binary layout: a row is an example). One more aggregate of the same read."""
    count = (nw.col(sf.example).n_unique() if sf.example is not None else nw.len()).cast(nw.Int64)
    rk = list(sf.row_keys)
    if not rk:
        return sf.frame.select(count.alias("n_examples"))
    return sf.frame.group_by(rk).agg(count.alias("n_examples"))


# ---------------------------------------------------------------------------
# entries


@dataclass(frozen=True)
class ScoreEntries:
    """The entries of every operator, keyed by the grouping's row keys (tidy, lazy).

    ``classes``: keys..., class, measure, value, weight (value null where
    undefined; every class of the universe). ``pooled`` and ``multiclass``:
    keys..., measure, value. ``examples``: keys..., measure, value, n (the
    multiplicity: defined values as their mean, undefined ones as one null row).
    """

    keys: tuple[str, ...]
    classes: pl.LazyFrame | None = None
    pooled: pl.LazyFrame | None = None
    examples: pl.LazyFrame | None = None
    multiclass: pl.LazyFrame | None = None


def _tidy(frame: pl.LazyFrame, index: Sequence[str], measures: Sequence[str]) -> pl.LazyFrame:
    return frame.unpivot(on=list(measures), index=list(index), variable_name="measure", value_name="value")


def _loss_values(sums: pl.LazyFrame) -> list[pl.Expr]:
    n = pl.col("n").cast(pl.Float64)
    return [
        ((pl.col("lp_sum") + pl.col("ln_sum")) / n).alias("log_loss"),
        ((pl.col("bp_sum") + pl.col("bn_sum")) / n).alias("brier"),
    ]


def _ece(frame: pl.LazyFrame, group: list[str]) -> pl.LazyFrame:
    """``sum_b (n_b / n) |pos_b / n_b - s_b / n_b| = sum_b |pos_b - s_b| / n`` per group."""
    gap = (pl.col(POS).cast(pl.Float64) - pl.col("s_sum")).abs()
    return frame.group_by(group).agg(
        (gap.sum() / pl.col("n").sum().cast(pl.Float64)).alias("ece"),
        pl.col(POS).sum().cast(pl.Float64).alias("weight"),
    )


def score_entries(
    sf: ScoreFrame, grains: dict[str, pl.LazyFrame], measures: Sequence[str], operators: Sequence[str]
) -> ScoreEntries:
    """The entries of ``measures`` under ``operators`` from the collected (or lazy) grains."""
    rk, c = list(sf.row_keys), sf.class_
    kc = [*rk, c]
    ranking = [m for m in measures if m in _RANKING]
    losses = [m for m in measures if m in _LOSSES]
    class_parts: list[pl.LazyFrame] = []
    pooled_parts: list[pl.LazyFrame] = []
    if ranking and "ranking_classes" in grains:
        class_parts.append(grains["ranking_classes"].filter(pl.col("measure").is_in(ranking)))
        pooled_parts.append(grains["ranking_pooled"].filter(pl.col("measure").is_in(ranking)))
    if losses and "losses" in grains:
        sums = grains["losses"]
        per_class = sums.select(*kc, *_loss_values(sums), pl.col("pos").cast(pl.Float64).alias("weight"))
        class_parts.append(_tidy(per_class, [*kc, "weight"], losses))
        summed = sums.group_by(rk or pl.lit(0).alias("_all")).agg(pl.col("n", *SUM_COLUMNS[1:]).sum())
        pooled_parts.append(_tidy(summed.select(*rk, *_loss_values(summed)), rk, losses))
    if "ece" in measures and "calibration" in grains:
        bins = grains["calibration"]
        class_parts.append(_tidy(_ece(bins, kc), [*kc, "weight"], ["ece"]))
        merged = bins.group_by([*rk, "bin"]).agg(pl.col("n", POS, "s_sum").sum())
        pooled_ece = _ece(merged, rk) if rk else _ece(merged.with_columns(pl.lit(0).alias("_all")), ["_all"])
        pooled_parts.append(_tidy(pooled_ece.select(*rk, "ece"), rk, ["ece"]))

    def stacked(parts: list[pl.LazyFrame], columns: list[str]) -> pl.LazyFrame | None:
        if not parts:
            return None
        out = pl.concat([p.select(columns) for p in parts], how="vertical_relaxed")
        return out.with_columns(pl.col("value").cast(pl.Float64))

    stacked_classes = stacked(class_parts, [*kc, "measure", "value", "weight"])
    classes = None if stacked_classes is None else _complete(stacked_classes, sf, measures)
    pooled = stacked(pooled_parts, [*rk, "measure", "value"])
    examples = None
    if "stats" in grains:
        wanted = [m for m in measures if m in EXAMPLE_MEASURES]
        examples = sv.example_entries(grains["stats"], rk, wanted)
    multiclass = None
    if "multiclass" in operators and losses and "losses" in grains:
        multiclass = _multiclass(grains["losses"], sf, losses)
    return ScoreEntries(
        keys=tuple(rk), classes=classes, pooled=pooled, examples=examples, multiclass=multiclass
    )


def _complete(classes: pl.LazyFrame, sf: ScoreFrame, measures: Sequence[str]) -> pl.LazyFrame:
    """Every group x every class of the universe x every measure; a missing entry is undefined.

    The universe is the declared one, else every class seen in the entries (the
    global universe, as for the confusion-cell measures).
    """
    rk, c = list(sf.row_keys), sf.class_
    present = classes.select(c).unique()
    universe = present if sf.universe is None else sf.universe.select(pl.col(CLASS).alias(c))
    grid = universe.join(
        pl.LazyFrame({"measure": list(measures)}, schema={"measure": pl.String}), how="cross"
    )
    if rk:
        grid = classes.select(rk).unique().join(grid, how="cross")
    dtypes = classes.collect_schema()
    grid = grid.with_columns(pl.col(c).cast(dtypes[c]))
    measured = classes.select("measure").unique()
    out = grid.join(measured, on="measure", how="semi", nulls_equal=True).join(
        classes, on=[*rk, c, "measure"], how="left", nulls_equal=True
    )
    return out.with_columns(pl.col("weight").fill_null(0.0))


def _multiclass(sums: pl.LazyFrame, sf: ScoreFrame, losses: Sequence[str]) -> pl.LazyFrame:
    """scikit-learn's whole-distribution losses per group (as :func:`~aggframe.operators.score_values.multiclass_entries`).

    The examples of a group are its largest class's entry count (every example
    has an entry for every class: dense scores); Brier is halved below three
    classes (the declared universe, else the classes seen).
    """
    rk = list(sf.row_keys)
    group: list[str | pl.Expr] = [*rk] if rk else [pl.lit(0).alias("_all")]
    per = sums.group_by(group).agg(
        pl.col("lp_sum").sum().alias("_ll"),
        (pl.col("bp_sum") + pl.col("bn_sum")).sum().alias("_br"),
        pl.col("n").max().cast(pl.Float64).alias("_n"),
    )
    if sf.n_classes is not None:
        per = per.with_columns(pl.lit(sf.n_classes, dtype=pl.Int64).alias("_m"))
    else:
        per = per.join(sums.select(pl.col(sf.class_).n_unique().cast(pl.Int64).alias("_m")), how="cross")
    scale = pl.when(pl.col("_m") < 3).then(0.5).otherwise(1.0)
    values = per.select(
        *rk,
        (pl.col("_ll") / pl.col("_n")).alias("log_loss"),
        (scale * pl.col("_br") / pl.col("_n")).alias("brier"),
    )
    return _tidy(values, rk, losses)


# ---------------------------------------------------------------------------
# the one reduction


def reduce_entries(
    keys: Sequence[str],
    *,
    operators: Sequence[str],
    conventions: Sequence[str] = ("exclude",),
    classes: pl.LazyFrame | None = None,
    pooled: pl.LazyFrame | None = None,
    examples: pl.LazyFrame | None = None,
    multiclass: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """Entries -> tidy values under operators and conventions, through :func:`~aggframe.operators.reduce.resolve_mean`.

    ``micro`` reads ``pooled`` (one entry per keys and measure), ``macro`` and
    ``weighted`` read ``classes`` (uniform weights, or ``weight``: the
    positives), ``exemplar`` reads ``examples`` (multiplicity ``n``),
    ``multiclass`` reads ``multiclass``. The conventions resolve undefined
    (null) entries as everywhere in the package: ``exclude``, ``zero``, ``one``,
    ``nan``; a zero weight total falls back to the uniform mean; no entry gives NaN.

    Returns ``keys..., measure, operator, convention, value, n_entries, n_undefined``,
    sorted by those columns (the report sorts again, in the order asked).

    Examples
    --------
    >>> import polars as pl
    >>> classes = pl.LazyFrame(
    ...     {"class": [0, 1, 2], "measure": "auroc", "value": [0.8, None, 0.6], "weight": [3.0, 0.0, 1.0]}
    ... )
    >>> out = reduce_entries([], operators=["macro", "weighted"], conventions=["exclude", "zero"], classes=classes)
    >>> out.sort("operator", "convention").select("operator", "convention", "value", "n_undefined").collect()
    shape: (4, 4)
    ┌──────────┬────────────┬──────────┬─────────────┐
    │ operator ┆ convention ┆ value    ┆ n_undefined │
    │ ---      ┆ ---        ┆ ---      ┆ ---         │
    │ str      ┆ str        ┆ f64      ┆ i64         │
    ╞══════════╪════════════╪══════════╪═════════════╡
    │ macro    ┆ exclude    ┆ 0.7      ┆ 1           │
    │ macro    ┆ zero       ┆ 0.466667 ┆ 1           │
    │ weighted ┆ exclude    ┆ 0.75     ┆ 1           │
    │ weighted ┆ zero       ┆ 0.75     ┆ 1           │
    └──────────┴────────────┴──────────┴─────────────┘
    """
    k = list(keys)
    one = pl.lit(1.0, dtype=pl.Float64)
    sources: dict[str, tuple[pl.LazyFrame | None, pl.Expr, pl.Expr]] = {
        "micro": (pooled, one, one),
        "macro": (classes, one, one),
        "weighted": (classes, one, pl.col("weight").cast(pl.Float64)),
        "exemplar": (examples, pl.col("n").cast(pl.Float64), one),
        "multiclass": (multiclass, one, one),
    }
    stacked = []
    for op in operators:
        frame, n, w = sources[op]
        if frame is None:
            msg = f"operator {op!r} needs its entry table"
            raise ValueError(msg)
        stacked.append(
            frame.select(
                *k,
                "measure",
                pl.col("value").cast(pl.Float64),
                n.alias("_n"),
                w.alias("_w"),
                pl.lit(op).alias("operator"),
            )
        )
    v, nn = pl.col("value"), pl.col("_n")
    ww = nn * pl.col("_w")
    defined = v.is_not_null()
    sums = (
        pl.concat(stacked, how="vertical_relaxed")
        .group_by([*k, "measure", "operator"])
        .agg(
            nn.sum().alias("n_tot"),
            pl.when(defined).then(nn).otherwise(0.0).sum().alias("n_def"),
            pl.when(defined).then(v * nn).otherwise(0.0).sum().alias("sv_n"),
            ww.sum().alias("w_tot"),
            pl.when(defined).then(ww).otherwise(0.0).sum().alias("w_def"),
            pl.when(defined).then(v * ww).otherwise(0.0).sum().alias("sv_w"),
        )
    )
    convs = pl.LazyFrame({"convention": list(conventions)})
    out = sums.join(convs, how="cross").select(
        *k,
        "measure",
        "operator",
        "convention",
        resolve_mean(pl.col("convention")).cast(pl.Float64).alias("value"),
        pl.col("n_tot").round().cast(pl.Int64).alias("n_entries"),
        (pl.col("n_tot") - pl.col("n_def")).round().cast(pl.Int64).alias("n_undefined"),
    )
    return out.sort([*k, "measure", "operator", "convention"], nulls_last=True)


def report_rows(
    sf: ScoreFrame,
    grains: dict[str, pl.LazyFrame],
    measures: Sequence[str],
    operators: Sequence[str],
    conventions: Sequence[Convention],
) -> pl.LazyFrame:
    """Tidy report rows of the measures on scores of one grouping (row keys; unsorted)."""
    entries = score_entries(sf, grains, measures, operators)
    # ece alone has no per-example entries: no exemplar rows then (checked: other operators are asked)
    ops = [op for op in operators if op != "exemplar" or entries.examples is not None]
    return reduce_entries(
        entries.keys,
        operators=ops,
        conventions=conventions,
        classes=entries.classes,
        pooled=entries.pooled,
        examples=entries.examples,
        multiclass=entries.multiclass,
    )


# ---------------------------------------------------------------------------
# curves, calibration, thresholds: per-score tables of one grouping


def _counts(sf: ScoreFrame, *, pooled: bool) -> pl.LazyFrame:
    """The per-score counts (exact, or quantised with ``bins``), per class or pooled, in Polars."""
    table = score_counts(
        sf.frame,
        list(sf.row_keys),
        score=sf.score,
        y=sf.y,
        class_=None if pooled else sf.class_,
        bins=sf.bins,
        logits=sf.logits,
    )
    return to_polars(table)


def curve_frame(sf: ScoreFrame, kind: CurveKind, operator: str | None) -> pl.LazyFrame:
    """ROC or precision-recall points per group (row keys; the class column ``class``)."""
    rk, c = list(sf.row_keys), sf.class_
    if operator == "micro":
        counts = _counts(sf, pooled=True)
        return cv.roc_curve(counts, rk) if kind == "roc" else cv.pr_curve(counts, rk)
    counts = _counts(sf, pooled=False)
    if operator == "macro":
        if kind == "roc":
            return cv.macro_roc_curve(counts, rk, c)
        return cv.macro_pr_curve(counts, rk, c)
    out = cv.roc_curve(counts, [*rk, c]) if kind == "roc" else cv.pr_curve(counts, [*rk, c])
    return out.rename({c: CLASS})


def calibration_frame(sf: ScoreFrame, *, bins: int, strategy: Strategy, operator: str | None) -> pl.LazyFrame:
    """The reliability table per group (and class unless ``operator="micro"``), in probability units."""
    sf = sf.probabilities()
    rk, c = list(sf.row_keys), sf.class_
    if operator == "micro":
        return cal.calibration(_counts(sf, pooled=True), rk, bins=bins, strategy=strategy)
    out = cal.calibration(_counts(sf, pooled=False), [*rk, c], bins=bins, strategy=strategy)
    return out.rename({c: CLASS})


def bound_frame(sf: ScoreFrame, *, operator: str | None) -> pl.LazyFrame:
    """The bound on ``|AUROC_binned - AUROC|`` per group (and class unless ``operator="micro"``)."""
    rk, c = list(sf.row_keys), sf.class_
    if operator == "micro":
        return cv.auroc_bin_bound(_counts(sf, pooled=True), rk)
    return cv.auroc_bin_bound(_counts(sf, pooled=False), [*rk, c]).rename({c: CLASS})


def best_threshold_frame(
    sf: ScoreFrame,
    measure: Measure,
    *,
    operator: str,
    per_class: bool,
    convention: Convention,
) -> pl.LazyFrame:
    """The threshold maximising ``measure`` per group (and class with ``per_class``), and its value.

    ``micro``: the cells of the pooled entries at each threshold; ``macro`` /
    ``weighted``: the mean over classes of the per-class values at one common
    threshold (undefined class values resolved by ``convention``); with
    ``per_class`` each class its own threshold. Ties: the largest threshold.
    Thresholds are in the scores' units (with logits, logits), as the curves'.
    """
    rk, c = list(sf.row_keys), sf.class_
    expr = measure.expr()
    if per_class:
        out = cv.best_threshold(_counts(sf, pooled=False), [*rk, c], expr)
        return out.rename({c: CLASS})
    if operator == "micro":
        return cv.best_threshold(_counts(sf, pooled=True), rk, expr)
    return cv.best_common_threshold(
        _counts(sf, pooled=False), rk, c, expr, operator=operator, convention=convention
    )


# ---------------------------------------------------------------------------
# the report: grouping sets and the merge with the cell measures' rows


def regrouped(sf: ScoreFrame, keep: Sequence[str], by: Sequence[str]) -> ScoreFrame:
    """A score frame projected for the by-columns ``keep`` (a grouping set), keyed as the full ``by`` keys.

    The projection names the ``i``-th column of ``keep`` ``by_key(i)``; the
    report names it after its place in ``by``.
    """
    current = list(sf.row_keys)
    target = [by_key(list(by).index(c)) for c in keep]
    renames = {a: b for a, b in zip(current, target, strict=True) if a != b}
    frame = sf.frame.rename(renames) if renames else sf.frame
    names = {renames.get(k, k): v for k, v in sf.names.items()}
    keys = tuple(renames.get(k, k) for k in sf.keys)
    return replace(sf, frame=frame, keys=keys, row_keys=tuple(target), names=names)


def score_report(
    parts: Sequence[tuple[tuple[str, ...] | None, ScoreFrame, dict[str, pl.LazyFrame]]],
    *,
    by: Sequence[str],
    measures: Sequence[str],
    operators: Sequence[str],
    conventions: Sequence[Convention],
) -> pl.LazyFrame:
    """The tidy rows of the measures on scores, per grouping set (``keep``) or for the one grouping (``None``).

    Keys are the private by-keys; with grouping sets a rolled-up key is null and
    the rows carry ``grouping_set`` and ``grouping_id`` as the cell measures' do.
    """
    by_keys = [by_key(i) for i in range(len(by))]
    out = []
    for keep, sf, grains in parts:
        rows = report_rows(sf, grains, measures, operators, conventions)
        sizes, rk = grains["examples"], list(sf.row_keys)
        if rk:
            rows = rows.join(sizes, on=rk, how="left", nulls_equal=True, maintain_order="left")
        else:
            rows = rows.join(sizes, how="cross", maintain_order="left")
        if keep is None:
            out.append(rows)
            continue
        rolled = sum(1 << (len(by) - 1 - i) for i, c in enumerate(by) if c not in keep)
        out.append(
            rows.with_columns(
                *[pl.lit(None).alias(k) for k in by_keys if k not in sf.row_keys],
                pl.lit(",".join(keep)).alias(GROUPING_COLUMN),
                pl.lit(rolled, dtype=pl.Int64).alias(GROUPING_ID),
            )
        )
    marks = [GROUPING_COLUMN, GROUPING_ID] if parts and parts[0][0] is not None else []
    columns = [*by_keys, *marks, *RESULT_COLUMNS, "n_examples"]
    return pl.concat([p.select(columns) for p in out], how="vertical_relaxed")


def merged_report(
    cells: pl.LazyFrame | None,
    scores: pl.LazyFrame,
    *,
    by: Sequence[str],
    order: Sequence[str],
    operators: Sequence[str],
    conventions: Sequence[str],
    sets: Sequence[Sequence[str]] | None,
) -> pl.LazyFrame:
    """The rows of the cell measures and of the measures on scores as one report, in the asked order.

    Sorted by grouping set (in the order given), the keys (nulls last), then
    the measures, operators and conventions in the order asked.
    """
    by_keys = [by_key(i) for i in range(len(by))]
    parts = [scores] if cells is None else [cells, scores]
    columns = scores.collect_schema().names()
    both = pl.concat([p.select(columns) for p in parts], how="vertical_relaxed")
    rank = {
        "measure": {m: i for i, m in enumerate(order)},
        "operator": {o: i for i, o in enumerate(operators)},
        "convention": {c: i for i, c in enumerate(conventions)},
    }
    keys: list[pl.Expr | str] = []
    if sets is not None:
        set_rank = {",".join(s): i for i, s in enumerate(sets)}
        keys.append(pl.col(GROUPING_COLUMN).replace_strict(set_rank, return_dtype=pl.Int64))
    keys += by_keys
    keys += [pl.col(c).replace_strict(r, default=len(r), return_dtype=pl.Int64) for c, r in rank.items()]
    return both.sort(keys, nulls_last=True, maintain_order=True)
