"""The label form's wide step: one row per example, reduced to per-class margins per group.

Never an n x m expansion: per class tp, #true and #pred come from two group-bys
of the rows (by true and by predicted label) summed per (group, class), or, with
few classes, from one group-by by (true, predicted) label (:func:`label_grains`);
per example only whether it is right matters (:func:`label_row_cells`). Written
with Narwhals, on the projected frame (private names).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import narwhals as nw

from aggframe._columns import CELLS, CLASS
from aggframe._options import Bootstrap
from aggframe.wide.bootstrap import unit_hash, weight_columns
from aggframe.wide.engines import shared, shared_small
from aggframe.wide.keys import keyed, row_keys
from aggframe.wide.long import weighted_block

__all__ = [
    "PAIRS_UP_TO",
    "LabelRoles",
    "example_counts",
    "label_boot_grains",
    "label_grains",
    "label_row_cells",
]


@dataclass(frozen=True)
class LabelRoles:
    """Column names of the label form (one row per example)."""

    y_true: str = "y_true"
    y_pred: str = "y_pred"
    example: str | None = None


#: A class universe known before the scan with at most this many classes makes the
#: label form count the (y_true, y_pred) pairs, one group-by of the rows, and take
#: the margins from them (see :func:`label_grains`). At most 128^2 pairs per group:
#: 10M rows, 100 classes, one group: 0.83x the two group-bys; at 300 classes
#: (up to 9 * 10^4 pairs) 0.7-1.8x over runs, at 1,000 classes 3.5-4.5x
#: (benchmarks/NOTES_scan.md).
PAIRS_UP_TO = 128


def label_grains(
    lf: nw.LazyFrame[Any],
    roles: LabelRoles,
    keys: Sequence[str],
    *,
    pairs: bool = False,
    via_pairs: bool = False,
) -> dict[str, nw.LazyFrame[Any]]:
    """Raw grains of the label form: the per-class margins per group (and the confusion counts, asked).

    ``margins`` (keys, ``class``, ``_t``, ``_p``, ``tp``): per group and class the
    number of examples of that true class, of that predicted class, and of both.
    Its size is the (group, class) pairs that occur; no n x m expansion. Two plans:

    - ``via_pairs`` (a universe of at most :data:`PAIRS_UP_TO` classes known before
      the scan, or the pairs asked for): one group-by of the rows by (y_true,
      y_pred), at most m^2 pairs per group, then the margins from those counts.
      One pass over the rows instead of two: at 10^6 groups of 10 rows and 20
      classes it costs half the two group-bys below (benchmarks/bench_groups.py).
    - otherwise two group-bys of the rows, by the true and by the predicted
      label, stacked and summed per (group, class): each table bounded by the
      (group, class) pairs, whatever the number of classes (at 10^4 classes the
      pairs would be 10^6 and cost twice as much).

    With ``pairs=True``, also ``conf`` (keys, y_true, y_pred, n): the confusion
    counts, for what needs the whole matrix. With an example column,
    ``examples`` (keys, n_ids, dup_examples, null_example) checks that each
    example appears once per group, and ``rows`` are the projected rows.

    Each aggregation reads the source (as the long form's do): a scan shared by
    aggregations that consume it at different speeds is buffered by Polars'
    streaming engine, and that buffer grows with the input (10M label rows, 10^4
    classes: 0.30 GiB cached against 0.15 GiB read twice, in the same time).
    """
    k = list(keys)
    rk = row_keys(k)
    if roles.example is not None:
        lf = lf.select(*rk, roles.y_true, roles.y_pred, roles.example)
    out: dict[str, nw.LazyFrame[Any]] = {}
    if pairs or via_pairs:
        # read twice by the margins (and the pairs asked for): computed once (Polars would
        # otherwise push the margins' filter into a second scan)
        conf = shared_small(keyed(lf.group_by([*rk, roles.y_true, roles.y_pred]).agg(nw.len().alias("n")), k))
        if pairs:
            out["conf"] = conf
        out["margins"] = _pair_margins(conf, roles, k)
    else:
        out["margins"] = keyed(_margins(lf, roles, rk), k)
    if roles.example is not None:
        out["rows"] = keyed(lf, k)
        out["examples"] = example_counts(lf, roles.example, k)
    return out


def example_counts(lf: nw.LazyFrame[Any], example: str, keys: Sequence[str]) -> nw.LazyFrame[Any]:
    """Per group (keys, ``n_ids``, ``dup_examples``, ``null_example``): how the example ids repeat.

    One aggregation by the group keys (a distinct count, the rows and the null ids),
    never one by (keys, example): that one holds a state per example (10M rows, 1,000
    groups: 1.34x the pair counts alone against ~1.0x, benchmarks/bench_scan.py).
    ``dup_examples`` is the rows beyond the first of each id (a null id counts as
    one id, as each engine's distinct count does); which id repeats is asked of the
    source only when one does (:func:`~aggframe.tables.errors.first_group`). On Spark,
    which expands the rows for a distinct count, the count per (keys, example) stays.
    """
    rk = row_keys(keys)
    if lf.implementation in (nw.Implementation.PYSPARK, nw.Implementation.PYSPARK_CONNECT):
        # Spark expands every row for a distinct count beside other aggregates
        # (wide/engines.py): there, one count per (keys, example) and a sum of those
        ids = keyed(lf.group_by([*rk, example]).agg(nw.len().alias("_n")), keys)
        return ids.group_by(keys).agg(
            nw.len().alias("n_ids"),
            (nw.col("_n") - 1).sum().alias("dup_examples"),
            nw.when(nw.col(example).is_null()).then(nw.col("_n")).otherwise(0).sum().alias("null_example"),
        )
    aggs = (
        nw.col(example).n_unique().cast(nw.Int64).alias("n_ids"),
        nw.len().cast(nw.Int64).alias("_n"),
        nw.col(example).null_count().cast(nw.Int64).alias("null_example"),
    )
    counted = lf.group_by(rk).agg(*aggs) if rk else lf.select(*aggs)
    return keyed(counted, keys).select(
        *keys, "n_ids", (nw.col("_n") - nw.col("n_ids")).alias("dup_examples"), "null_example"
    )


def _margins(lf: nw.LazyFrame[Any], roles: LabelRoles, rk: list[str]) -> nw.LazyFrame[Any]:
    """Per (group, class): ``_t`` (#true), ``_p`` (#predicted), ``tp``, from two group-bys of the rows.

    By true label and by predicted label (the bare pass of issue #19), stacked
    and summed per (group, class). Streaming memory is the group-bys' state,
    bounded by the (group, class) pairs that occur; an unpivot of the rows would
    read as few bytes but hold them (measured on Polars 2.1 at 10M rows: 1.44 GiB
    against 0.75 GiB at 10^5 groups), and one group-by of the rows stacked twice
    costs more on every engine (on Spark a shuffle of twice the rows instead of
    partial aggregates).
    """
    zero = nw.lit(0, nw.Int64)
    right = (nw.col(roles.y_true) == nw.col(roles.y_pred)).cast(nw.Int64)
    trues = (
        lf.group_by([*rk, roles.y_true])
        .agg(nw.len().alias("_t"), right.sum().alias("tp"))
        .select(
            *rk,
            nw.col(roles.y_true).alias(CLASS),
            nw.col("_t").cast(nw.Int64),
            zero.alias("_p"),
            nw.col("tp").cast(nw.Int64),
        )
    )
    preds = (
        lf.group_by([*rk, roles.y_pred])
        .agg(nw.len().alias("_p"))
        .select(
            *rk,
            nw.col(roles.y_pred).alias(CLASS),
            zero.alias("_t"),
            nw.col("_p").cast(nw.Int64),
            zero.alias("tp"),
        )
    )
    stacked = nw.concat([trues, preds], how="vertical")
    return stacked.group_by([*rk, CLASS]).agg(nw.col("_t", "_p", "tp").sum())


def _pair_margins(conf: nw.LazyFrame[Any], roles: LabelRoles, keys: list[str]) -> nw.LazyFrame[Any]:
    """The margins of :func:`_margins` from the confusion counts ``conf`` (keys, y_true, y_pred, n).

    Each pair counts for its true class, and for its predicted class when that is
    another one (a right pair is both at once): the stack holds the pairs and the
    wrong ones again, never more.
    """
    zero = nw.lit(0, nw.Int64)
    n = nw.col("n").cast(nw.Int64)
    # a null label is never right: its pair counts for the null class on each side
    right = (nw.col(roles.y_true) == nw.col(roles.y_pred)).fill_null(value=False)
    on_diagonal = nw.when(right).then(n).otherwise(zero)
    trues = conf.select(
        *keys,
        nw.col(roles.y_true).alias(CLASS),
        n.alias("_t"),
        on_diagonal.alias("_p"),
        on_diagonal.alias("tp"),
    )
    preds = conf.filter(~right).select(
        *keys, nw.col(roles.y_pred).alias(CLASS), zero.alias("_t"), n.alias("_p"), zero.alias("tp")
    )
    stacked = nw.concat([trues, preds], how="vertical")
    return stacked.group_by([*keys, CLASS]).agg(nw.col("_t", "_p", "tp").sum())


def label_boot_grains(  # noqa: PLR0913 -- the scan's roles and options, keyword-only
    lf: nw.LazyFrame[Any],
    roles: LabelRoles,
    keys: Sequence[str],
    boot: Bootstrap,
    *,
    unit: str,
    what: str,
    target: str | None = None,
    task: str = "multiclass",
    pos_label: Any = None,
) -> dict[str, nw.LazyFrame[Any]]:
    """The replicate grains of the label form, wide (one column ``_w<b>`` per replicate).

    ``conf`` (keys, y_true, y_pred, _w0 ..): per confusion cell the sum of each
    replicate's weights of its examples, whose id is in ``unit`` (``what``: its
    user name). One aggregation of the rows: the weights are computed per row
    and summed, never exploded into rows x replicates. With a target, ``block``:
    the weighted block profiles (:func:`~aggframe.wide.long.weighted_block`).
    """
    k = list(keys)
    rk = row_keys(k)
    used = dict.fromkeys([*rk, roles.y_true, roles.y_pred, unit, *([roles.example] if target else [])])
    hashed = unit_hash(lf.select(*[c for c in used if c is not None]), unit, boot.seed, "_h", what=what)
    if target is not None:
        hashed = shared(hashed)
    rows, weights = weight_columns(hashed, "_h", boot)
    out = {
        "conf": keyed(
            rows.group_by([*rk, roles.y_true, roles.y_pred]).agg(nw.col(c).sum() for c in weights), k
        )
    }
    if target is not None:
        assert roles.example is not None
        cells = label_row_cells(hashed, roles.y_true, roles.y_pred, task=task, pos_label=pos_label)
        out["block"] = weighted_block(
            keyed(cells.select(*rk, roles.example, *CELLS, "_h"), k),
            [c for c in k if c != target],
            roles.example,
            boot,
        )
    return out


def label_row_cells(
    lf: nw.LazyFrame[Any], y_true: str, y_pred: str, *, task: str, pos_label: Any
) -> nw.LazyFrame[Any]:
    """Each row's cells in the label form (one row = one example), as columns tp, fp, fn, tn.

    ``task="binary"``: the positive class only, one indicator per cell. Otherwise
    one-hot over the ``m`` classes of the row's universe: tp = right, fp = fn =
    1 - right and tn = m - 2 + right, of which ``tn`` holds ``right - 2``: ``m``
    depends on the class universe, resolved later on the small tables, and the
    caller adds it (per row, or once per group to a sum over rows).
    """
    if task == "binary":
        t_pos, p_pos = nw.col(y_true) == nw.lit(pos_label), nw.col(y_pred) == nw.lit(pos_label)
        cells = (t_pos & p_pos, ~t_pos & p_pos, t_pos & ~p_pos, ~t_pos & ~p_pos)
        return lf.with_columns(*[c.cast(nw.Float64).alias(n) for c, n in zip(cells, CELLS, strict=True)])
    right = (nw.col(y_true) == nw.col(y_pred)).cast(nw.Float64)
    return lf.with_columns(
        right.alias("tp"), (1.0 - right).alias("fp"), (1.0 - right).alias("fn"), (right - 2.0).alias("tn")
    )
