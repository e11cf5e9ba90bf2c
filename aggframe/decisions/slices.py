"""Slice search: where is the model worse, with a multiple-comparison correction.

A *slice* is a combination of up to ``max_depth`` of the slice columns, one value each (a
null a value like any other): ``region = "north"``, ``region = "north" · device = (null)``.
Each slice with at least ``min_examples`` examples is compared with its *complement* (the
rest of the data), and the differences are tested together with Holm's or
Benjamini-Hochberg's correction.

How it is computed (one scan, whatever ``max_depth``):

1. the bootstrap cell tables of the finest grouping (all slice columns), as
   ``evaluate(by=columns, n_boot=B)`` makes them: the data (replicate ``-1``) and ``B``
   Poisson-weighted replicates, from the same reads of the input (:meth:`boot_tables`);
2. every grouping set of up to ``max_depth`` columns is a roll-up of those small tables
   (:func:`~aggframe.tables.cells.rollup_tables`), and the overall tables one more;
3. the complement's tables are the overall tables minus the slice's (cells add up): per
   class for micro, macro, weighted and the whole-matrix margins, per-example profile
   counts for exemplar; so the complement costs one join per slice table, no scan;
4. the report builder evaluates the measure on the slices and on their complements, per
   replicate; the difference slice - complement per replicate gives its standard error
   and percentile interval, and a normal-approximation p-value ``2 (1 - Phi(|d| / se))``;
5. Holm or Benjamini-Hochberg over the tested slices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import combinations
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, cast, get_args

import polars as pl

from aggframe._columns import CELLS, CLASS, KEY_ALL, REP, by_key, check_result_names, key_label
from aggframe._options import (
    Engine,
    SliceCorrection,
    listify,
    parse_bootstrap,
    parse_engine,
    parse_report_operator,
)
from aggframe.decisions.slice_columns import SLICE_COLUMNS
from aggframe.decisions.slice_scores import (
    COMP,
    NC,
    SCORES_GREATER_IS_BETTER,
    VALUE,
    N,
    score_counts,
    score_replicates,
)
from aggframe.exceptions import OptionError
from aggframe.intake.read_errors import scanning
from aggframe.measures.matrix import is_matrix_measure
from aggframe.measures.registry import get_measure, is_score_measure
from aggframe.operators.grouping import GROUPING_COLUMN, GROUPING_ID
from aggframe.operators.report import ReportRequest, build_report
from aggframe.operators.score_boot import BOOT_SCORE_OPERATORS
from aggframe.tables.cells import GROUP_COLUMNS, CellTables, rollup_tables

if TYPE_CHECKING:
    from aggframe.predictions import Predictions

__all__ = ["SLICE_COLUMNS", "adjusted_p", "slices"]

_VALUE, _COMP, _N, _NC = VALUE, COMP, N, NC
_NAN = float("nan")


def slices(  # noqa: PLR0913 -- the user's options, keyword-only
    pr: Predictions,
    measure: Any,
    operator: str = "micro",
    *,
    columns: str | Sequence[str],
    max_depth: int = 2,
    min_examples: int = 30,
    alpha: float = 0.05,
    correction: SliceCorrection = "holm",
    n_boot: int = 200,
    level: float = 0.95,
    seed: int = 0,
    cluster: str | None = None,
    convention: str = "exclude",
    max_levels: int = 200,
    engine: Engine = "auto",
) -> pl.DataFrame:
    """Every slice of the ``columns`` (up to ``max_depth`` of them, one value each) against its complement.

    A slice is compared with the rest of the data, not with the overall value: the
    overall contains the slice, so its difference to the slice is shrunk by the slice's
    share, and the two would not be disjoint samples. The difference ``value -
    complement`` of each slice with at least ``min_examples`` examples (and a complement
    as large) gets a bootstrap standard error and interval (the same Poisson replicates
    as ``evaluate(n_boot=)``, from one scan), a two-sided normal-approximation p-value,
    and a p-value adjusted for the number of slices tested (Holm by default: the chance
    of *any* false finding stays under ``alpha``; ``"bh"``: the expected share of false
    findings does). See ``docs/slices.md``.

    Parameters
    ----------
    pr
        The predictions.
    measure
        One measure of the cells (a name or a :class:`Measure`), as :meth:`Predictions.evaluate`
        takes it; a whole-matrix measure with ``operator="multiclass"``; or a measure on
        scores (``auroc``, ``average_precision``, ``log_loss``, ``brier``, ``ece``; micro,
        macro or weighted) of :func:`~aggframe.from_scores` predictions: each slice's
        complement is evaluated on its own rows (:mod:`aggframe.decisions.slice_scores`;
        at most 50,000,000 score rows x tested slices).
    operator
        ``micro`` (default), ``macro``, ``weighted``, ``exemplar``, ``binary`` or ``multiclass``.
    columns
        The slice columns (at least one; each at most ``max_levels`` distinct values).
    max_depth
        The most columns a slice combines (default 2).
    min_examples
        The fewest examples a slice (and its complement) needs to be tested (default 30);
        a smaller slice is left out, and so are its refinements (they are smaller still).
    alpha
        The error rate controlled (default 0.05): ``significant`` is ``p_adjusted <= alpha``.
    correction
        ``"holm"`` (default; family-wise error) or ``"bh"`` (Benjamini-Hochberg; false
        discovery rate).
    n_boot, level, seed, cluster
        The bootstrap, as in :meth:`Predictions.evaluate` (default 200 replicates).
    convention
        How undefined per-class/per-example entries are resolved, as in ``evaluate``.
    max_levels
        The most distinct values a slice column may have (default 200): a column with more
        (an id, a timestamp) is refused before the bootstrap reads the data.
    engine
        Polars engine of the scan.

    Returns
    -------
    polars.DataFrame
        One row per tested slice, worst first (significantly worse slices first, then by
        how much worse, in the measure's direction): the slice columns (a column not in
        the slice is null, told from a real null by ``grouping_id``, SQL's GROUPING_ID:
        bit ``n - 1 - i`` set when the ``i``-th column is "any value"), ``grouping_set``
        (the columns of the slice, comma-separated), ``slice`` (its label:
        ``column=value`` joined with `` · ``, a null key ``(null)``), ``depth``,
        ``measure``, ``operator``, ``convention``, ``n_examples``, ``value``,
        ``complement``, ``difference`` (value - complement), ``ci_low``, ``ci_high``
        (its percentile interval at ``level``), ``se``, ``p_value``, ``p_adjusted``,
        ``significant``, ``worse`` (the slice is worse than its complement) and ``n_boot``
        (the replicates in which the difference is defined). ``p_value`` is null where the
        difference or its spread is undefined; such slices are not counted in the
        correction and are never significant.

    Raises
    ------
    OptionError
        A bad option, a column with more than ``max_levels`` values, predictions with a
        fold or target column, a measure on scores under another operator, without scores,
        or over the bound on score rows x slices.
    ColumnNotFoundError
        A slice column that is not in the data.

    Examples
    --------
    >>> import polars as pl, aggframe as af
    >>> n = 4000
    >>> df = pl.DataFrame({"g": [i % 4 for i in range(n)], "y_true": [(i // 4) % 2 for i in range(n)]})
    >>> missed = (pl.col("g") == 3) & (pl.int_range(n) % 40 < 8)  # g = 3 misses a fifth of its positives
    >>> df = df.with_columns(y_pred=pl.when(missed).then(0).otherwise(pl.col("y_true")))
    >>> got = af.slices(af.from_labels(df), "recall", "binary", columns="g", n_boot=100)
    >>> got.select("slice", "value", "complement", "significant", "worse").head(2)
    shape: (2, 5)
    ┌───────┬───────┬────────────┬─────────────┬───────┐
    │ slice ┆ value ┆ complement ┆ significant ┆ worse │
    │ ---   ┆ ---   ┆ ---        ┆ ---         ┆ ---   │
    │ str   ┆ f64   ┆ f64        ┆ bool        ┆ bool  │
    ╞═══════╪═══════╪════════════╪═════════════╪═══════╡
    │ g=3   ┆ 0.8   ┆ 1.0        ┆ true        ┆ true  │
    │ g=2   ┆ 1.0   ┆ 0.933333   ┆ true        ┆ false │
    └───────┴───────┴────────────┴─────────────┴───────┘

    The verdict of a check, "no slice significantly worse":

    >>> got.filter("significant", "worse")["slice"].to_list()
    ['g=3']
    """
    cols = _columns(columns)
    depth = _int("max_depth", max_depth, 1)
    least = _int("min_examples", min_examples, 1)
    most = _int("max_levels", max_levels, 1)
    alpha = _probability("alpha", alpha)
    corr = _correction(correction)
    engine = parse_engine(engine)
    if n_boot is None:
        msg = "slices needs n_boot= (the bootstrap replicates its intervals and p-values come from), e.g. 200"
        raise OptionError(msg)
    boot = parse_bootstrap(n_boot, level=level, seed=seed, cluster=cluster)
    assert boot is not None
    op = parse_report_operator(operator)
    _check_measure(measure, op)
    if op == "target" or pr.source.target is not None or pr.source.fold_keys():
        msg = (
            "slices compare slices of one set of predictions: predictions with a target or fold column "
            "(and the target operator) are not supported, because a fold or target value is not a slice "
            "value (each fold or target is its own set of predictions, and the replicates of its "
            "complement would mix them); filter to one fold or target, or evaluate each separately"
        )
        raise OptionError(msg)
    request = pr.extend.request([measure], [op], by=cols, convention=convention)
    if len(request.measures) + len(request.matrix_measures) + len(request.scores) != 1:
        msg = f"slices takes one measure, got {measure!r} (which names several); pass one of them"
        raise OptionError(msg)
    if len(request.conventions) != 1:
        msg = f"slices takes one convention, got {convention!r}; call it once per convention"
        raise OptionError(msg)
    names = {by_key(i): c for i, c in enumerate(cols)}
    check_result_names(names.values(), [GROUPING_COLUMN, GROUPING_ID, *SLICE_COLUMNS], "slices")
    sets = [list(s) for r in range(1, min(depth, len(cols)) + 1) for s in combinations(range(len(cols)), r)]
    if request.scores:
        counts = score_counts(pr, request, boot, engine=engine)
        _check_levels(counts, cols, most)
        replicates = score_replicates(pr, request, boot, counts, sets=sets, least=least)
        with scanning(pr.source.origin, f" for {boot.n_boot} bootstrap replicates of {request.scores[0]}"):
            summary = _summarize(replicates, len(cols), boot.level).collect(engine=engine)
        greater = request.scores[0] in SCORES_GREATER_IS_BETTER
    else:
        base = pr.extend.cell_tables(cols, engine=engine)
        assert base.groups is not None
        _check_levels(base.groups, cols, most)
        tables = pr.extend.boot_tables(cols, boot, engine=engine)
        class_dtype = pr.source.class_dtype() if op == "binary" else None
        replicates = _replicates(
            tables, request, sets=sets, n_cols=len(cols), least=least, class_dtype=class_dtype, engine=engine
        )
        summary = _summarize(replicates, len(cols), boot.level).collect()
        greater = _greater_is_better(request)
    out = _tested(summary, alpha=alpha, correction=corr, greater=greater, least=least)
    out = _labelled(out, cols)
    return out.rename(names)


def _columns(columns: Any) -> list[str]:
    cols = listify(columns)
    if not cols or not all(isinstance(c, str) for c in cols):
        msg = f"slices needs columns= (the slice columns, e.g. ['region', 'device']), got {columns!r}"
        raise OptionError(msg)
    twice = [c for c in cols if cols.count(c) > 1]
    if twice:
        msg = f"columns names {twice[0]!r} twice"
        raise OptionError(msg)
    return cols


def _int(name: str, value: Any, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < least:
        msg = f"Expected `{name}` to be an integer >= {least}, got {value!r}"
        raise OptionError(msg)
    return int(value)


def _probability(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < float(value) < 1:
        msg = f"Expected `{name}` to be a number in (0, 1) (e.g. 0.05), got {value!r}"
        raise OptionError(msg)
    return float(value)


def _correction(value: Any) -> SliceCorrection:
    text = str(value).strip().lower() if isinstance(value, str) else value
    if text not in get_args(SliceCorrection):
        msg = f"Expected `correction` to be 'holm' or 'bh' (Benjamini-Hochberg), got {value!r}"
        raise OptionError(msg)
    return cast("SliceCorrection", text)


def _check_measure(measure: Any, op: str) -> None:
    if isinstance(measure, (list, tuple, set)):
        msg = f"slices takes one measure, got {measure!r}; call it once per measure"
        raise OptionError(msg)
    if isinstance(measure, str) and is_score_measure(measure):
        if op not in BOOT_SCORE_OPERATORS:
            msg = (
                f"slices of a measure on scores ({measure!r}) take the micro, macro or weighted operator "
                f"(their bootstrap replicates), got {op!r}"
            )
            raise OptionError(msg)
        return
    if op != "multiclass" and isinstance(measure, str) and not is_matrix_measure(measure):
        get_measure(measure)  # an unknown name: its own error, with the names known


def _check_levels(table: pl.LazyFrame, cols: list[str], most: int) -> None:
    """Refuse a column with more than ``most`` distinct values (read off the groups of the finest grouping)."""
    counts = table.select([pl.col(by_key(i)).n_unique().alias(c) for i, c in enumerate(cols)]).collect()
    for c in cols:
        n = int(counts[c][0])
        if n > most:
            msg = (
                f"slice column {c!r} has {n:,} distinct values, more than max_levels={most}: its slices "
                "would be tiny and each one more test for the correction; bin or group the column first "
                "(or raise max_levels)"
            )
            raise OptionError(msg)


def _replicates(
    tables: CellTables,
    request: ReportRequest,
    *,
    sets: list[list[int]],
    n_cols: int,
    least: int,
    class_dtype: pl.DataType | None,
    engine: Engine,
) -> pl.LazyFrame:
    """Per slice, replicate: the slice's value, its complement's, and their sizes.

    The roll-ups of the (small, kept) bootstrap cell tables to each grouping set and to the
    overall are collected together first: the slices' values, their complements and their
    sizes all read them, and a lazy plan would roll them up again for each reader.
    """
    by_keys = [by_key(i) for i in range(n_cols)]
    dtypes = tables.classes.collect_schema()
    exemplar = any(op == "exemplar" for op in request.operators)
    overall, pieces = _rolled_up(tables, sets, by_keys, least, engine, profiles=exemplar)
    parts = []
    for s, part in zip(sets, pieces, strict=True):
        kept = [by_keys[i] for i in s]
        comp = _complement(part, overall, kept)
        keys = [*kept, REP]
        value = _values(part, request, class_dtype, keys, _VALUE)
        other = _values(comp, request, class_dtype, keys, _COMP)
        assert part.groups is not None
        assert comp.groups is not None
        sizes = part.groups.select(*keys, pl.col("n_examples").cast(pl.Float64).alias(_N)).join(
            comp.groups.select(*keys, pl.col("n_examples").cast(pl.Float64).alias(_NC)),
            on=keys,
            how="inner",
            nulls_equal=True,
        )
        rolled = sum(1 << (n_cols - 1 - i) for i in range(n_cols) if i not in s)
        joined = (
            value.join(other, on=[*keys, "measure", "operator", "convention"], how="inner", nulls_equal=True)
            .join(sizes, on=keys, how="inner", nulls_equal=True)
            .with_columns(
                *[pl.lit(None, dtype=dtypes[k]).alias(k) for k in by_keys if k not in kept],
                pl.lit(",".join(str(i) for i in s)).alias(GROUPING_COLUMN),
                pl.lit(rolled, dtype=pl.Int64).alias(GROUPING_ID),
                pl.lit(len(s), dtype=pl.Int64).alias("depth"),
            )
        )
        parts.append(
            joined.select(
                *by_keys,
                GROUPING_COLUMN,
                GROUPING_ID,
                "depth",
                REP,
                "measure",
                "operator",
                "convention",
                _N,
                _NC,
                _VALUE,
                _COMP,
            )
        )
    return pl.concat(parts, how="vertical_relaxed")


def _rolled_up(
    tables: CellTables,
    sets: list[list[int]],
    by_keys: list[str],
    least: int,
    engine: Engine,
    *,
    profiles: bool,
) -> tuple[CellTables, list[CellTables]]:
    """The overall tables and each grouping set's (its small slices pruned), in two collects.

    The deepest sets are rolled up from the finest tables; each shallower set, and the
    overall, from the smallest deepest set that holds its columns (a few rows, not the
    finest tables' many): cells add up, so the result is the same.
    """
    deepest = max(len(s) for s in sets)
    top = [s for s in sets if len(s) == deepest]
    first = _materialized(
        [rollup_tables(tables, by_keys, [by_keys[i] for i in s]) for s in top], engine, profiles=profiles
    )
    sizes = [t.classes.select(pl.len()).collect().item() for t in first]
    made = {tuple(s): t for s, t in zip(top, first, strict=True)}

    def source(s: list[int]) -> CellTables:
        holders = [(n, t) for u, t, n in zip(top, first, sizes, strict=True) if set(s) <= set(u)]
        return min(holders, key=lambda h: h[0])[1]

    items = [rollup_tables(source([]), by_keys, [])]
    for s in sets:
        kept = [by_keys[i] for i in s]
        rolled = made[tuple(s)] if tuple(s) in made else rollup_tables(source(s), by_keys, kept)
        items.append(_pruned(rolled, kept, least))
    overall, *pieces = _materialized(items, engine, profiles=profiles)
    return overall, pieces


def _materialized(items: list[CellTables], engine: Engine, *, profiles: bool) -> list[CellTables]:
    """The tables' ``classes``, ``groups`` and (``profiles``: for exemplar) ``profiles``, collected in one go.

    Without ``profiles`` the per-example profile tables (the largest roll-ups, read by the
    exemplar operator alone) are left lazy and never computed.
    """
    frames: list[pl.LazyFrame] = []
    for t in items:
        assert t.groups is not None
        frames += [t.classes, t.groups, *([t.profiles] if profiles else [])]
    got = pl.collect_all(frames, engine=engine)
    k = 3 if profiles else 2
    return [
        replace(
            t,
            classes=got[k * i].lazy(),
            groups=got[k * i + 1].lazy(),
            profiles=got[k * i + 2].lazy() if profiles else t.profiles,
            pairs=None,
        )
        for i, t in enumerate(items)
    ]


def _pruned(tables: CellTables, keys: list[str], least: int) -> CellTables:
    """The slices with at least ``least`` examples in the data (replicate ``-1``), all replicates of them.

    A refinement of a slice has no more examples than the slice, so a slice left out here
    leaves out all its refinements too (they fail the same test at the finer grouping set).
    """
    assert tables.groups is not None
    kept = tables.groups.filter((pl.col(REP) == -1) & (pl.col("n_examples") >= least)).select(keys)

    def keep(lf: pl.LazyFrame) -> pl.LazyFrame:
        return lf.join(kept, on=keys, how="semi", nulls_equal=True)

    return replace(
        tables,
        classes=keep(tables.classes),
        groups=keep(tables.groups),
        profiles=keep(tables.profiles),
        pairs=None if tables.pairs is None else keep(tables.pairs),
    )


def _complement(part: CellTables, overall: CellTables, kept: list[str]) -> CellTables:
    """The cell tables of each slice's complement: the overall tables minus the slice's (cells add up).

    Every class of the overall ``classes`` table gets a row per slice: ``tp``, ``fp``,
    ``fn`` subtract (zero where the class is absent from the slice) and ``tn``
    subtracts the slice's ``tn``, or its ``n_examples`` where the class is absent there
    (an absent class is a true negative of every example). A class absent overall is
    absent from the complement too, so the complement keeps the overall universe and
    ``n_absent``. Per-example profiles subtract their counts.
    """
    assert part.groups is not None
    assert overall.groups is not None
    keys = [*kept, REP]
    slices_ = part.groups.select(*keys, pl.col("n_examples").cast(pl.Float64).alias("_ns"))
    o_classes = overall.classes.drop(KEY_ALL, strict=False)
    s_classes = part.classes.select(*keys, CLASS, *[pl.col(c).alias(f"_s{c}") for c in CELLS])
    classes = (
        slices_.join(o_classes, on=REP, how="inner", nulls_equal=True)
        .join(s_classes, on=[*keys, CLASS], how="left", nulls_equal=True)
        .select(
            *keys,
            CLASS,
            *[(pl.col(c) - pl.col(f"_s{c}").fill_null(0.0)).alias(c) for c in ("tp", "fp", "fn")],
            (pl.col("tn") - pl.col("_stn").fill_null(pl.col("_ns"))).alias("tn"),
        )
    )
    o_groups = overall.groups.drop(KEY_ALL, strict=False)
    groups = (
        part.groups.join(o_groups, on=REP, how="inner", suffix="_o", nulls_equal=True)
        .with_columns(
            (pl.col("n_examples_o").cast(pl.Float64) - pl.col("n_examples").cast(pl.Float64)).alias(
                "n_examples"
            ),
            pl.col("n_classes_o").alias("n_classes"),
            pl.col("n_absent_o").alias("n_absent"),
            *[(pl.col(f"{c}_o") - pl.col(c)).alias(c) for c in CELLS],
        )
        .select(*keys, *GROUP_COLUMNS)
    )
    o_profiles = overall.profiles.drop(KEY_ALL, strict=False)
    s_profiles = part.profiles.select(*keys, *CELLS, pl.col("n").alias("_sn"))
    profiles = (
        slices_.join(o_profiles, on=REP, how="inner", nulls_equal=True)
        .join(s_profiles, on=[*keys, *CELLS], how="left", nulls_equal=True)
        .with_columns((pl.col("n") - pl.col("_sn").fill_null(0.0)).alias("n"))
        .filter(pl.col("n") > 0)
        .select(*keys, *CELLS, "n")
    )
    return replace(
        part,
        classes=classes,
        groups=groups,
        profiles=profiles,
        universe=overall.universe,
        universe_keys=overall.universe_keys,
        pairs=None,
        keys=tuple(keys),
    )


def _values(
    tables: CellTables,
    request: ReportRequest,
    class_dtype: pl.DataType | None,
    keys: list[str],
    name: str,
) -> pl.LazyFrame:
    report = build_report(tables, request, folds=(), class_dtype=class_dtype)
    return report.select(*keys, "measure", "operator", "convention", pl.col("value").alias(name))


def _defined(column: str) -> pl.Expr:
    v = pl.col(column)
    return v.filter((pl.col(REP) >= 0) & v.is_not_null() & v.is_not_nan())


def _summarize(replicates: pl.LazyFrame, n_cols: int, level: float) -> pl.LazyFrame:
    """Per slice: the values of the data, and the spread and interval of the difference over the replicates."""
    stat = [
        *[by_key(i) for i in range(n_cols)],
        GROUPING_COLUMN,
        GROUPING_ID,
        "depth",
        "measure",
        "operator",
        "convention",
    ]
    point = pl.col(REP) == -1
    tail = (1.0 - level) / 2.0
    d = replicates.with_columns((pl.col(_VALUE) - pl.col(_COMP)).alias("difference"))
    reps = _defined("difference")
    return (
        d.group_by(stat)
        .agg(
            pl.col(_N).filter(point).first().cast(pl.Int64).alias("n_examples"),
            pl.col(_VALUE).filter(point).first().alias("value"),
            pl.col(_COMP).filter(point).first().alias("complement"),
            pl.col("difference").filter(point).first().alias("difference"),
            reps.quantile(tail, interpolation="linear").cast(pl.Float64).alias("ci_low"),
            reps.quantile(1.0 - tail, interpolation="linear").cast(pl.Float64).alias("ci_high"),
            reps.std(ddof=1).cast(pl.Float64).alias("_se_boot"),
            _defined(_COMP).std(ddof=1).cast(pl.Float64).alias("_sd_comp"),
            reps.len().cast(pl.Int64).alias("n_boot"),
            pl.col(_NC).filter(point).first().alias(_NC),
        )
        .with_columns(_standard_error().alias("se"))
    )


def _standard_error() -> pl.Expr:
    """The larger of the difference's bootstrap spread and its spread were the slice drawn like its complement.

    The bootstrap spread of a small slice is estimated from the slice itself and moves
    with its value (a recall near 1 has a small spread: the Wald test's flaw), which
    makes the normal p-values too small in the far tail that the correction uses. Under
    the null the slice is drawn like its complement, whose spread is estimated from many
    more examples; a value's variance scales as one over the number of examples, so the
    slice's would be ``sd_c^2 * n_c / n_s`` and the difference's ``sd_c^2 (1 + n_c / n_s)``
    (the score test's null variance, for any measure). The larger of the two keeps the
    error rate under the null and the slice's own spread where it really is larger.
    """
    null = (pl.col("_sd_comp").pow(2) * (1.0 + pl.col(_NC) / pl.col("n_examples").cast(pl.Float64))).sqrt()
    boot = pl.col("_se_boot")
    return (
        pl.when(boot.is_nan() | boot.is_null())
        .then(boot)
        .when(null.is_nan() | null.is_null())
        .then(boot)
        .otherwise(pl.max_horizontal(boot, null))
    )


def _erfc(x: pl.Expr) -> pl.Expr:
    """The complementary error function of ``x >= 0`` (Numerical Recipes' ``erfcc``: relative error < 1.2e-7).

    Relative, not absolute: a p-value of 1e-12 is as accurate as one of 0.3, which the
    correction needs (Holm compares the smallest p-value with ``alpha / m``).
    """
    t = 1.0 / (1.0 + 0.5 * x)
    coefficients = (
        -1.26551223,
        1.00002368,
        0.37409196,
        0.09678418,
        -0.18628806,
        0.27886807,
        -1.13520398,
        1.48851587,
        -0.82215223,
        0.17087277,
    )
    poly = pl.lit(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        poly = poly * t + c
    return t * (-(x * x) + poly).exp()


def _tested(
    summary: pl.DataFrame, *, alpha: float, correction: SliceCorrection, greater: bool, least: int
) -> pl.DataFrame:
    """p-values (two-sided, normal approximation), adjusted p-values, ``significant``, ``worse``, worst first."""
    z = pl.col("difference").abs() / pl.col("se")
    testable = (
        pl.col("difference").is_not_nan()
        & pl.col("se").is_not_null()
        & pl.col("se").is_not_nan()
        & (pl.col("n_boot") >= 2)
        & (pl.col(_NC) >= least)  # a slice of (nearly) all the data has no complement to compare with
    )
    p = (
        pl.when(testable & (pl.col("se") > 0))
        .then(_erfc(z / 2.0**0.5).clip(0.0, 1.0))
        # no spread over the replicates: equal values are no evidence, unequal ones certain
        .when(testable)
        .then(pl.when(pl.col("difference") == 0).then(1.0).otherwise(0.0))
        .otherwise(None)
    )
    out = summary.with_columns(p.alias("p_value")).with_columns(
        adjusted_p(pl.col("p_value"), correction).alias("p_adjusted")
    )
    sign = 1.0 if greater else -1.0
    badness = (-sign * pl.col("difference")).fill_nan(None)
    both = out.with_columns(
        (pl.col("p_adjusted") <= alpha).fill_null(value=False).alias("significant"),
        (badness > 0).fill_null(value=False).alias("worse"),
        # how much worse at least: the end of the difference's interval nearest to "not worse"
        (-pl.col("ci_high") if greater else pl.col("ci_low")).fill_nan(None).alias("_bad"),
    )
    return both


def adjusted_p(p: pl.Expr, correction: SliceCorrection) -> pl.Expr:
    """The p-values ``p`` adjusted for their number (the non-null ones), as an expression (``.over()`` works).

    Holm's step-down: the ``i``-th smallest of ``m`` p-values times ``m - i + 1``, made
    non-decreasing (running maximum), at most 1; reject where ``<= alpha`` controls the
    chance of any false rejection at ``alpha`` under any dependence between the tests.
    Benjamini-Hochberg's step-up: the ``i``-th smallest times ``m / i``, made
    non-decreasing from the top (running minimum from the largest), at most 1; it
    controls the expected share of false rejections among the rejections (under
    independence or positive dependence, PRDS). A null p-value stays null and is not counted.
    """
    m = p.count()
    rank = p.rank("ordinal")
    if correction == "holm":
        scaled = ((m - rank + 1).cast(pl.Float64) * p).clip(upper_bound=1.0)
        return scaled.sort_by(p, nulls_last=True).cum_max().gather(rank - 1)
    scaled = (p * m.cast(pl.Float64) / rank.cast(pl.Float64)).clip(upper_bound=1.0)
    return scaled.sort_by(p, nulls_last=True).cum_min(reverse=True).gather(rank - 1)


def _greater_is_better(request: ReportRequest) -> bool:
    if request.measures:
        return bool(request.measures[0].greater_is_better)
    return True  # the whole-matrix measures (mcc, kappa, balanced accuracy, accuracy): higher is better


def _labelled(out: pl.DataFrame, cols: list[str]) -> pl.DataFrame:
    """The slice label (``column=value`` joined with `` · ``) and the result's column order."""
    by_keys = [by_key(i) for i in range(len(cols))]
    n = len(cols)
    parts = []
    for i, (k, c) in enumerate(zip(by_keys, cols, strict=True)):
        rolled = (pl.col(GROUPING_ID) & (1 << (n - 1 - i))) != 0
        label = pl.lit(f"{_name_label(c)}=") + key_label(pl.col(k), out.schema[k])
        parts.append(pl.when(rolled).then(None).otherwise(label))
    label = pl.concat_str(parts, separator=" · ", ignore_nulls=True) if parts else pl.lit("")
    named_sets = (
        pl.col(GROUPING_COLUMN)
        .str.split(",")
        .list.eval(pl.element().cast(pl.Int64).replace_strict(list(range(n)), cols, return_dtype=pl.String))
        .list.join(",")
    )
    out = out.with_columns(label.alias("slice"), named_sets.alias(GROUPING_COLUMN)).sort(
        [pl.col("significant") & pl.col("worse"), "_bad", "p_value", "depth", "slice"],
        descending=[True, True, False, False, False],
        nulls_last=True,
    )
    return out.select(*by_keys, GROUPING_COLUMN, GROUPING_ID, *SLICE_COLUMNS)


def _name_label(column: str) -> str:
    """A column's name in a slice label (quoted as JSON where it could be misread: ``=``, `` · ``, blanks)."""
    ambiguous = (
        column == "" or column != column.strip() or any(ch in column for ch in '="·') or "\n" in column
    )
    if ambiguous:
        import json

        return json.dumps(column, ensure_ascii=False)
    return column


def _slices_method(self: Predictions, measure: Any, operator: str = "micro", **options: Any) -> pl.DataFrame:
    """Every slice of ``columns=`` against its complement, worst first: :func:`aggframe.slices`.

    Parameters
    ----------
    measure, operator
        The measure and operator, as in :meth:`evaluate`.
    **options
        The keyword options of :func:`aggframe.slices` (``columns``, ``max_depth``,
        ``min_examples``, ``alpha``, ``correction``, ``n_boot``, ...).

    Returns
    -------
    pl.DataFrame
        One row per slice, worst first (the columns of :func:`aggframe.slices`).

    Raises
    ------
    OptionError
        A bad option, a measure or operator slices do not take, a column with too many values.
    ColumnNotFoundError
        A slice column that is not in the data.

    Examples
    --------
    >>> import aggframe as af
    >>> import polars as pl
    >>> df = pl.DataFrame({"g": [0, 1] * 100, "y_true": [0, 1, 1, 0] * 50, "y_pred": [0, 1] * 100})
    >>> got = af.from_labels(df).slices("recall", "binary", columns="g", n_boot=50)
    >>> got.select("slice", "value", "worse").rows()
    [('g=0', 0.0, True), ('g=1', 1.0, False)]
    """
    return slices(self, measure, operator, **options)


def _register() -> None:
    from aggframe.predictions import Predictions

    Predictions.slices = _slices_method


_register()
