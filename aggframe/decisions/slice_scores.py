"""Slices of a measure on scores (AUROC, average precision, log loss, Brier, ECE) against their complements.

The cell measures' complements subtract (the overall cells minus the slice's); a measure
on scores has no cells: a slice's complement needs its own weighted curve. So the score
rows (with the Poisson weights of :func:`~aggframe.operators.score_boot.replicate_rows`,
the ones ``evaluate(n_boot=)`` gives them, plus a weight of 1 for the data) are crossed
with the tested slices of each grouping set and marked in or out of the slice; the
replicate values are then one evaluation of :func:`~aggframe.operators.score_boot.replicate_values`
keyed by (slice, in/out): one plan, one sort of the crossed rows by (slice, in/out, score).

The cost is the crossing: ``score rows x tested slices`` rows, each with ``B + 1``
one-byte weights. It is bounded by :data:`MAX_SCORE_ROW_SLICES` (refused above it, with
what to change); the slices kept are those with at least ``min_examples`` examples in the
data, so a larger ``min_examples`` or a smaller ``max_depth`` lowers it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import narwhals as nw
import polars as pl

from aggframe._columns import PREFIX, REP, by_key
from aggframe.exceptions import OptionError
from aggframe.intake.read_errors import scanning
from aggframe.intake.scores_long import Scored
from aggframe.operators.grouping import GROUPING_COLUMN, GROUPING_ID
from aggframe.operators.score_boot import check_boot_request, replicate_values
from aggframe.wide.engines import to_polars
from aggframe.wide.ranking import ScoreFrame

if TYPE_CHECKING:
    from aggframe._options import Bootstrap, Engine
    from aggframe.operators.report import ReportRequest
    from aggframe.predictions import Predictions

__all__ = ["MAX_SCORE_ROW_SLICES", "SCORES_GREATER_IS_BETTER", "score_counts", "score_replicates"]

#: The most (score rows x tested slices) a slice search of a measure on scores crosses.
MAX_SCORE_ROW_SLICES = 50_000_000
#: The measures on scores where higher is better (the losses and ECE: lower).
SCORES_GREATER_IS_BETTER = ("auroc", "average_precision")

VALUE, COMP, N, NC = f"{PREFIX}value", f"{PREFIX}complement", f"{PREFIX}n", f"{PREFIX}nc"
_SID, _IN, _ROWS = f"{PREFIX}sl_id", f"{PREFIX}sl_in", f"{PREFIX}sl_rows"
_W = f"{PREFIX}sb_w"  # the weight columns of replicate_rows


def _scored(pr: Predictions, request: ReportRequest, boot: Bootstrap) -> tuple[Scored, ScoreFrame]:
    """The source with scores and its score frame of the slice columns, after the checks of the request."""
    measure = request.scores[0]
    source = pr.source
    if not isinstance(source, Scored):
        msg = (
            f"slices of {measure!r} need predictions that carry scores: build them with from_scores(frame, "
            f"score='<column>', ...) (these predictions are in the {source.form!r} form)"
        )
        raise OptionError(msg)
    if measure in ("log_loss", "brier", "ece"):
        source.check_probabilities(measure)
    sf = source.score_frame(list(request.by))
    check_boot_request(request.scores, list(request.operators), sf, cluster=boot.cluster)
    return source, sf


def score_counts(pr: Predictions, request: ReportRequest, boot: Bootstrap, *, engine: Engine) -> pl.LazyFrame:
    """Per group of the finest grouping (all slice columns): ``n_examples`` and ``n_rows`` (score rows), collected.

    One group-by over the scores (the predictions need no decision rule for this, as the
    measures on scores need none).
    """
    _, sf = _scored(pr, request, boot)
    keys = list(sf.row_keys)
    examples = nw.col(sf.example).n_unique() if sf.example is not None else nw.len()
    grouped = sf.frame.group_by(*keys, drop_null_keys=False).agg(
        examples.cast(nw.Int64).alias("n_examples"), nw.len().cast(nw.Int64).alias(_ROWS)
    )
    with scanning(pr.source.origin):
        return to_polars(grouped).collect(engine=engine).lazy()


def score_replicates(
    pr: Predictions,
    request: ReportRequest,
    boot: Bootstrap,
    counts: pl.LazyFrame,
    *,
    sets: list[list[int]],
    least: int,
) -> pl.LazyFrame:
    """Per slice and replicate (``-1`` the data): the slice's value, its complement's and their sizes.

    Columns as :func:`aggframe.decisions.slices._replicates`: by-keys, grouping marks,
    ``depth``, ``REP``, ``measure``, ``operator``, ``convention``, sizes, values.
    ``counts``: :func:`score_counts`.
    """
    measure = request.scores[0]
    op = request.operators[0]
    _, sf = _scored(pr, request, boot)
    by_keys = [by_key(i) for i in range(len(request.by))]
    lookup, rows_total = _tested_slices(counts, sets, by_keys, least)
    crossed = rows_total * lookup.height
    if crossed > MAX_SCORE_ROW_SLICES:
        msg = (
            f"slices of {measure!r} evaluate each slice's complement on its own rows: {rows_total:,} score "
            f"rows x {lookup.height:,} slices = {crossed:,}, more than {MAX_SCORE_ROW_SLICES:,}; raise "
            "min_examples, lower max_depth, use fewer columns or sample the rows"
        )
        raise OptionError(msg)
    b = boot.n_boot
    rows = pr._replicate_rows(sf, boot).with_columns(pl.lit(1, dtype=pl.UInt8).alias(f"{_W}{b}"))
    parts = []
    for s in sets:
        kept = [by_keys[i] for i in s]
        mine = lookup.filter(pl.col(GROUPING_COLUMN) == ",".join(str(i) for i in s))
        if mine.height == 0:
            continue
        keys = mine.select(_SID, *[pl.col(k).alias(f"{PREFIX}sl_k{j}") for j, k in enumerate(kept)])
        inside = pl.all_horizontal(
            [pl.col(k).eq_missing(pl.col(f"{PREFIX}sl_k{j}")) for j, k in enumerate(kept)]
        )
        parts.append(
            rows.join(keys.lazy(), how="cross")
            .with_columns(inside.alias(_IN))
            .drop(*by_keys, *[f"{PREFIX}sl_k{j}" for j in range(len(kept))])
        )
    if not parts:
        return _empty(lookup, by_keys)
    crossed_rows = pl.concat(parts, how="vertical_relaxed")
    keyed = replace(sf, row_keys=(_SID, _IN))
    values = replicate_values(
        keyed,
        crossed_rows,
        n_boot=b + 1,
        measures=[measure],
        operators=[op],
        conventions=request.conventions,
    ).with_columns(pl.when(pl.col(REP) == b).then(-1).otherwise(pl.col(REP)).cast(pl.Int64).alias(REP))
    on = [REP, _SID, "measure", "operator", "convention"]
    inner = values.filter(pl.col(_IN)).select(*on, pl.col("value").alias(VALUE))
    outer = values.filter(~pl.col(_IN)).select(*on, pl.col("value").alias(COMP))
    joined = inner.join(outer, on=on, how="left", nulls_equal=True).join(
        lookup.lazy(), on=_SID, how="inner", nulls_equal=True
    )
    return joined.select(*by_keys, GROUPING_COLUMN, GROUPING_ID, "depth", REP, *on[2:], N, NC, VALUE, COMP)


def _tested_slices(
    counts: pl.LazyFrame, sets: list[list[int]], by_keys: list[str], least: int
) -> tuple[pl.DataFrame, int]:
    """The slices with at least ``least`` examples, numbered: keys, marks, depth, sizes; and the score rows."""
    n = len(by_keys)
    dtypes = counts.collect_schema()
    frames = []
    for s in sets:
        kept = [by_keys[i] for i in s]
        rolled_id = sum(1 << (n - 1 - i) for i in range(n) if i not in s)
        frames.append(
            counts.group_by(kept)
            .agg(pl.col("n_examples").sum(), pl.col(_ROWS).sum())
            .filter(pl.col("n_examples") >= least)
            .select(
                *kept,
                *[pl.lit(None, dtype=dtypes[k]).alias(k) for k in by_keys if k not in kept],
                pl.lit(",".join(str(i) for i in s)).alias(GROUPING_COLUMN),
                pl.lit(rolled_id, dtype=pl.Int64).alias(GROUPING_ID),
                pl.lit(len(s), dtype=pl.Int64).alias("depth"),
                pl.col("n_examples").cast(pl.Float64).alias(N),
            )
            .select(*by_keys, GROUPING_COLUMN, GROUPING_ID, "depth", N)
        )
    got = pl.collect_all([*frames, counts.select(pl.col("n_examples").sum(), pl.col(_ROWS).sum())])
    total = int(got[-1]["n_examples"].item() or 0)
    rows = int(got[-1][_ROWS].item() or 0)
    lookup = pl.concat(got[:-1], how="vertical_relaxed")
    lookup = lookup.with_columns(
        (pl.lit(float(total)) - pl.col(N)).alias(NC), pl.int_range(pl.len(), dtype=pl.UInt32).alias(_SID)
    )
    return lookup, rows


def _empty(lookup: pl.DataFrame, by_keys: list[str]) -> pl.LazyFrame:
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        **{k: lookup.schema[k] for k in by_keys},
        GROUPING_COLUMN: pl.String,
        GROUPING_ID: pl.Int64,
        "depth": pl.Int64,
        REP: pl.Int64,
        "measure": pl.String,
        "operator": pl.String,
        "convention": pl.String,
        N: pl.Float64,
        NC: pl.Float64,
        VALUE: pl.Float64,
        COMP: pl.Float64,
    }
    return pl.LazyFrame(schema=schema)
