"""The wide step: input frame -> raw cell grains, in one scan, with Narwhals.

The long form's wide step (the label form's is :mod:`~aggframe.wide.labels`).
Written with the Narwhals lazy API so the same code runs on every engine
Narwhals drives (Polars, DuckDB, Spark); what one engine does natively is in
:mod:`~aggframe.wide.engines`. It receives the *projected* frame (role and key
columns under private names, :mod:`aggframe._columns`), and everything it
returns is small: group-by sums keyed by the keys plus class, plus cell
profiles, plus the counts the validation needs. The narrow steps (universe,
sparse fill, checks) run in Polars on those small tables (:mod:`aggframe.tables`).

The cells are defined here and nowhere else::

    TP = T(y, p) m    FP = T(1 - y, p) m    FN = T(y, 1 - p) m    TN = T(1 - y, 1 - p) m

with ``T`` the product (crisp data) or another t-norm, and ``m`` the observation
mask (1 when absent). On crisp data the four sums follow from three,
``sum(m y p)``, ``sum(m y)`` and ``sum(m p)``, plus ``sum(m)``, which is what the
aggregations compute then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import narwhals as nw
import polars as pl

from aggframe._columns import CELLS
from aggframe._options import Bootstrap
from aggframe.wide.bootstrap import unit_hash, weight_columns
from aggframe.wide.engines import DistinctCheck, distinct_classes, lookup_declared, shared, shared_small
from aggframe.wide.keys import keyed, row_keys
from aggframe.wide.tnorms import TNorm

__all__ = [
    "BAD_VALUES",
    "LongRoles",
    "block_grain",
    "class_refused",
    "integer_range",
    "invalid_values",
    "long_boot_grains",
    "long_grains",
    "profiles_and_groups",
    "weighted_block",
    "weighted_profiles",
]


@dataclass(frozen=True)
class LongRoles:
    """Column names of the long (indicator) form."""

    example: str = "example"
    class_: str = "class"
    y: str = "y"
    p: str = "p"
    mask: str | None = None


#: The per-group count of rows with a refused value or class (:func:`invalid_values`, :func:`class_refused`).
BAD_VALUES = "bad_values"


def invalid_values(values: Mapping[str, Any], example: Any, *, soft: bool, integers: bool = False) -> Any:
    """Whether a row holds a value the checks refuse: one flag (Narwhals or Polars expressions alike).

    A null example or role value, a value outside [0, 1] or NaN, or a value
    strictly between 0 and 1 where none may be (``y`` and ``p`` without a
    t-norm, a mask always). ``values`` maps the roles (``y``, ``p``, ``mask``)
    to their values as floats. Summed per class, it is the validation's only
    aggregate; which check fails, and for how many rows, is counted on the source
    when the sum is not zero (:func:`~aggframe.tables.long.value_stats`). ``integers``:
    the values are the integer columns themselves (crisp, no cast): 0 and 1 by a range test.
    """
    flag = example.is_null()
    for role, x in values.items():
        if integers:
            ok = x.is_between(0, 1)
        else:
            ok = x.is_between(0.0, 1.0) if soft and role != "mask" else x.is_in([0.0, 1.0])
        # a null value makes ``ok`` null: ``is_null`` decides it (True | null is True)
        flag = flag | x.is_null() | ~ok
    return flag


def class_refused(
    class_: str, universe: Sequence[Any] | Mapping[Any, Sequence[Any]] | None, target: str | None
) -> Any:
    """Whether a row's class is refused: null, or (a declared universe) not one of its classes.

    ``universe`` is the declared classes (one list, or per target value a list:
    then the row's target picks its list, and a target without one refuses its
    classes). Added to the flag of refused values (:func:`invalid_values`), so the
    classes are checked where the rows are, and no check reads the (group, class)
    pairs: which failure it was is counted on the source when the flag is raised.
    """
    column = nw.col(class_)
    if universe is None:
        return column.is_null()
    if isinstance(universe, Mapping):
        assert target is not None
        inside: Any = nw.lit(value=False)
        for t, values in universe.items():
            inside = inside | ((nw.col(target) == t) & _member(column, values)).fill_null(value=False)
    else:
        inside = _member(column, universe)
    return column.is_null() | ~inside.fill_null(value=False)


def _member(column: Any, values: Sequence[Any]) -> Any:
    """Whether ``column`` is one of ``values``: a range test when they are consecutive integers
    (``n_classes=m``: 0 .. m - 1; a set lookup per row costs several times more)."""
    bounds = integer_range(values)
    if bounds is not None and bounds[1] - bounds[0] + 1 == len(set(values)):
        return column.is_between(bounds[0], bounds[1])
    return column.is_in(list(values))


def long_grains(  # noqa: PLR0913 -- the scan's roles and options, keyword-only
    lf: nw.LazyFrame[Any],
    roles: LongRoles,
    keys: Sequence[str],
    *,
    tnorm: TNorm | None,
    n_classes: int | dict[Any, int] | None,
    target: str | None = None,
    examples: pl.LazyFrame | None = None,
    universe: Sequence[Any] | Mapping[Any, Sequence[Any]] | None = None,
) -> dict[str, nw.LazyFrame[Any]]:
    """Raw grains of the long form.

    Returns lazy frames:

    ``class``
        keys, class, tp, fp, fn, tn, rows (entries present).
    ``profiles``
        keys, tp, fp, fn, tn, n: how many examples have each per-example cell
        profile (the exemplar operator's sufficient statistic). When
        ``n_classes`` is known, absent entries are filled in as true negatives.
    ``groups``
        keys, n_examples, dup_entries, ``bad_values`` (how many rows hold a value
        or a class the checks refuse: :func:`invalid_values`, :func:`class_refused`
        against the declared ``universe``; on the Polars bit words, which carry the
        flag, both are the count of suspect rows, which the validation recounts
        exactly on the source), min_rows (an undeclared universe) (and
        with ``examples``, the declared examples (keys, example) of a Polars source:
        ``undeclared``, how many examples with rows are not among them).
    """
    k = list(keys)
    rk = row_keys(k)
    # The per-class and the per-example aggregations each read the input (two reads,
    # never a buffer): a shared sub-plan whose consumers run at different speeds is
    # buffered by Polars' streaming engine, and that buffer grows with the input
    # (measured at 10^8 rows: 1.99 GiB cached against 1.40 GiB read twice). The
    # per-example hash table is the only state that grows, with the number of examples.
    used = [
        *rk,
        roles.example,
        roles.class_,
        roles.y,
        roles.p,
        *([roles.mask] if roles.mask is not None else []),
    ]
    lf = lf.select(*dict.fromkeys(used))
    declared = max(n_classes.values(), default=None) if isinstance(n_classes, dict) else n_classes
    distinct = distinct_classes(lf, roles.class_, declared, integer_range(universe))
    y = nw.col(roles.y).cast(nw.Float64)
    p = nw.col(roles.p).cast(nw.Float64)
    m = nw.col(roles.mask).cast(nw.Float64) if roles.mask is not None else None
    # Validation rides on the per-example aggregation as one count: the rows with a value
    # or a class the checks refuse (invalid_values, class_refused), summed per group with
    # the profiles. Which check fails, and how many rows it flags, is counted on the
    # source only when that count is not zero (tables.long._check_groups): nine aggregates
    # per class (null counts, min, max and sum of x - x^2 per role) cost about as much as
    # the cell sums themselves, and a check over the (group, class) pairs holds them all
    # at once (~5% of a report at 10^4 groups x 10k labels).
    ints = tnorm is None and m is None and _integer_roles(lf, roles)
    if ints:
        y, p = nw.col(roles.y), nw.col(roles.p)
    validated = {"y": y, "p": p, **({"mask": m} if m is not None else {})}
    flag = invalid_values(
        validated, nw.col(roles.example), soft=tnorm is not None, integers=ints
    ) | class_refused(roles.class_, universe, target)
    lf, check_rows, check_aggs = _row_checks(lf, roles, distinct, flag, ints=ints, universe=universe)
    folded = not check_aggs
    if tnorm is None:
        # Crisp (soft values are rejected by validation): three weighted sums give all
        # four cells, exactly. Soft values take the general path even under the
        # product, where the subtractions would leave rounding residue (1e-17
        # instead of 0, which a square root turns into 1e-9).
        # without a mask, the values themselves (integers stay integers: ``ints``)
        yw, pw = (y, p) if m is None else (m * y, m * p)
        # a declared universe refuses any other class: a valid example has at most n_classes rows
        pack = folded and ints and universe is not None and isinstance(n_classes, int) and n_classes < _FIELD
        rows = lf.select(
            *rk,
            nw.col(roles.example),
            nw.col(roles.class_),
            *[nw.col(c) for c in distinct.columns],
            (yw * p).alias("_syp"),
            yw.alias("_sy"),
            pw.alias("_sp"),
            *([m.alias("_sw")] if m is not None else []),
            *([_packed(y, p)] if pack else []),
            *check_rows,
        )
        # without a mask the weight total is the row count, which the group-bys count anyway
        # (one count: a second len() is a second aggregation)
        sums = [
            *(nw.col(c).sum() for c in ("_syp", "_sy", "_sp")),
            *([nw.col("_sw").sum()] if m is not None else []),
        ]
        total = nw.col("_sw") if m is not None else nw.col("rows").cast(nw.Float64)
        example_sums, unpack = ([nw.col(_PACKED).sum()], _unpacked) if pack else (sums, _same)

        def cells(frame: nw.LazyFrame[Any]) -> nw.LazyFrame[Any]:
            syp, sy, sp = (nw.col(c).cast(nw.Float64) for c in ("_syp", "_sy", "_sp"))
            return frame.with_columns(
                syp.alias("tp"),
                (sp - syp).alias("fp"),
                (sy - syp).alias("fn"),
                (total - sy - sp + syp).alias("tn"),
            ).drop("_syp", "_sy", "_sp", *(["_sw"] if m is not None else []))

    else:
        w = m if m is not None else nw.lit(1.0)
        one_y, one_p = 1.0 - y, 1.0 - p
        rows = lf.select(
            *rk,
            nw.col(roles.example),
            nw.col(roles.class_),
            *[nw.col(c) for c in distinct.columns],
            (tnorm(y, p) * w).alias("tp"),
            (tnorm(one_y, p) * w).alias("fp"),
            (tnorm(y, one_p) * w).alias("fn"),
            (tnorm(one_y, one_p) * w).alias("tn"),
            *check_rows,
        )
        sums = [nw.col(c).sum() for c in CELLS]
        example_sums, unpack, cells = sums, _same, _same

    per_class = keyed(cells(rows.group_by([*rk, roles.class_]).agg(*sums, nw.len().alias("rows"))), k)
    per_example = keyed(
        cells(
            unpack(
                rows.group_by([*rk, roles.example]).agg(
                    *example_sums, nw.len().alias("rows"), *distinct.aggs, *check_aggs
                )
            )
        ),
        k,
    )
    per_example = _absent_negatives(distinct.finish(per_example), n_classes, target)
    checked = per_example.with_columns((nw.col("rows") - nw.col("n_cls")).alias("_dup"))
    flags = {"_dup": "dup_entries"} if folded else {"_dup": "dup_entries", "_bad": BAD_VALUES}
    if examples is not None:
        # each example with rows is looked up among the declared ones (one join per
        # example, not per row, on the per-example table's one consumer)
        checked = lookup_declared(checked, examples, rk, roles.example, "_undeclared")
        flags["_undeclared"] = "undeclared"
    profiles, groups = profiles_and_groups(checked, k, flags, min_rows=n_classes is None)
    if folded:
        # a suspicion of either kind: the validation counts duplicates and refused values
        # exactly on the source (tables.long._check_groups), so each error is the one it was
        groups = groups.with_columns(nw.col("dup_entries").alias(BAD_VALUES))
    return {"class": per_class, "profiles": profiles, "groups": groups, "examples": per_example}


#: the per-example cell sums packed in one Int64 sum (:func:`_packed`): a field's width, its
#: modulus, and the column's name
_BITS_PER_FIELD = 21
_FIELD = 2**_BITS_PER_FIELD
_PACKED = "_cells"


def _packed(y: Any, p: Any) -> Any:
    """``y + p 2^21 + y p 2^42`` per row (integer ``y`` and ``p``), whose sum per example holds
    ``sum(y)``, ``sum(p)`` and ``sum(y p)`` in three 21-bit fields: one sum for three.

    Used where an error is certain unless every example has at most ``n_classes < 2^21``
    rows (a declared universe, and the duplicate check's bit words carrying the flag of
    refused values): an example without a repeated or refused entry holds distinct
    declared classes, so each field is at most ``n_classes`` and never carries into the
    next; an example with more rows has a repeat or a refused row, which the validation
    raises before any cell is read (benchmarks/NOTES_scan.md: ~4% of the bare pass at
    10^9 rows).
    """
    y64, p64 = y.cast(nw.Int64), p.cast(nw.Int64)
    return (y64 + p64 * _FIELD + (y64 * p64) * _FIELD**2).alias(_PACKED)


def _unpacked(frame: nw.LazyFrame[Any]) -> nw.LazyFrame[Any]:
    """The three cell sums (``_sy``, ``_sp``, ``_syp``) from the packed one (:func:`_packed`)."""
    packed = nw.col(_PACKED)
    return frame.with_columns(
        (packed % _FIELD).alias("_sy"),
        ((packed // _FIELD) % _FIELD).alias("_sp"),
        (packed // _FIELD**2).alias("_syp"),
    ).drop(_PACKED)


def _same(frame: nw.LazyFrame[Any]) -> nw.LazyFrame[Any]:
    return frame


def _row_checks(
    lf: nw.LazyFrame[Any],
    roles: LongRoles,
    distinct: DistinctCheck,
    flag: Any,
    *,
    ints: bool,
    universe: Sequence[Any] | Mapping[Any, Sequence[Any]] | None,
) -> tuple[nw.LazyFrame[Any], list[Any], list[Any]]:
    """The rows with the duplicate check's columns, and the flag's row column and aggregate.

    Where the check's bit words can carry the flag (:attr:`DistinctCheck.fold`), a
    refused row sets no bit and the flag has neither a column nor an aggregate (both
    lists empty): its example's count falls short of its rows, a suspicion that the
    validation resolves on the source. Integer roles on Polars are then accepted by
    one native expression (:func:`_accepted_integers`; the flag's chain of null and
    range tests costs ~8% of the bare pass at 10^9 rows, benchmarks/NOTES_scan.md).
    """
    if distinct.fold is None:
        return distinct.rows(lf), [flag.cast(nw.Int64).alias("_bad")], [nw.col("_bad").sum()]
    accepted = _accepted_integers(lf, roles, universe) if ints else None
    if accepted is None:
        return distinct.fold(lf.with_columns(flag.alias("_bad")), ~pl.col("_bad"), ["_bad"]), [], []
    return distinct.fold(lf, accepted, []), [], []


def _accepted_integers(
    lf: nw.LazyFrame[Any], roles: LongRoles, universe: Sequence[Any] | Mapping[Any, Sequence[Any]] | None
) -> pl.Expr | None:
    """Whether a row of integer ``y`` and ``p`` is accepted, as one Polars expression (false or
    null where :func:`invalid_values` or :func:`class_refused` flags it), or None (a universe
    per target: the flag is used). Both values in {0, 1} is ``y | p`` in [0, 1] when they share
    a dtype (a negative value has the sign bit, anything above 1 another bit)."""
    if isinstance(universe, Mapping):
        return None
    schema = lf.collect_schema()
    y, p, c = pl.col(roles.y), pl.col(roles.p), pl.col(roles.class_)
    values = (
        (y | p).is_between(0, 1)
        if schema[roles.y] == schema[roles.p]
        else y.is_between(0, 1) & p.is_between(0, 1)
    )
    if universe is None:
        known = c.is_not_null()
    else:
        bounds = integer_range(universe)
        consecutive = bounds is not None and bounds[1] - bounds[0] + 1 == len(set(universe))
        known = c.is_between(*bounds) if bounds is not None and consecutive else c.is_in(list(universe))
    return values & known & pl.col(roles.example).is_not_null()


def _absent_negatives(
    per_example: nw.LazyFrame[Any], n_classes: int | dict[Any, int] | None, target: str | None
) -> nw.LazyFrame[Any]:
    """Per-example cells with the absent (example, class) entries of a declared universe counted
    as observed true negatives (``n_classes`` classes less the example's ``rows``; with one
    universe per target, m_t classes for the rows of target t)."""
    if isinstance(n_classes, dict):
        m_t: Any = nw.lit(None)
        assert target is not None
        for t, size in n_classes.items():
            m_t = nw.when(nw.col(target) == t).then(nw.lit(size)).otherwise(m_t)
        return per_example.with_columns((nw.col("tn") + (m_t - nw.col("rows"))).alias("tn"))
    if n_classes is not None:
        return per_example.with_columns((nw.col("tn") + (nw.lit(n_classes) - nw.col("rows"))).alias("tn"))
    return per_example


def _integer_roles(lf: nw.LazyFrame[Any], roles: LongRoles) -> bool:
    """Whether ``y`` and ``p`` are integer columns of a Polars frame: their crisp sums are then
    taken as integers, without a cast per row (10^9 rows, 10^7 examples: see
    benchmarks/NOTES_scan.md); a value other than 0 and 1 is refused by the flag anyway."""
    if not isinstance(nw.to_native(lf), pl.LazyFrame):
        return False
    schema = lf.collect_schema()
    return bool(schema[roles.y].is_integer() and schema[roles.p].is_integer())


def integer_range(universe: Sequence[Any] | Mapping[Any, Sequence[Any]] | None) -> tuple[int, int] | None:
    """The least and greatest declared class when every declared class is an integer (else None)."""
    if universe is None:
        return None
    lists = universe.values() if isinstance(universe, Mapping) else [universe]
    values = [v for listed in lists for v in listed]
    if not values or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return None
    return min(values), max(values)


def profiles_and_groups(
    per_example: nw.LazyFrame[Any], keys: Sequence[str], flags: Mapping[str, str], *, min_rows: bool
) -> tuple[nw.LazyFrame[Any], nw.LazyFrame[Any]]:
    """Per-example cells -> the cell profiles and the validation's per-group counts, in one group-by.

    ``per_example`` holds keys, tp, fp, fn, tn, ``rows`` (the example's entries)
    and the per-example counts ``flags`` (column -> its per-group total's name).
    The profiles (keys, cells, n) are grouped by the cells only: the flags (and,
    with ``min_rows``, the least row count, which the check of an undeclared
    universe reads) are aggregated alongside, not keys, so the one group-by over
    the examples has as few keys as the profiles themselves. The groups table
    (keys, n_examples, [min_rows,] the flag totals) sums the small profiles,
    which every engine computes once (:func:`~aggframe.wide.engines.shared_small`).
    """
    k = list(keys)
    least = [nw.col("rows").min().alias("min_rows")] if min_rows else []
    # the stand-in key (no by columns) is added to the small result, not grouped by
    checked = shared_small(
        keyed(
            per_example.group_by([*row_keys(k), *CELLS]).agg(
                nw.len().alias("n"), *least, *[nw.col(flag).sum().alias(name) for flag, name in flags.items()]
            ),
            k,
        )
    )
    profiles = checked.select(*k, *CELLS, "n")
    groups = checked.group_by(k).agg(
        nw.col("n").sum().alias("n_examples"),
        *([nw.col("min_rows").min()] if min_rows else []),
        *[nw.col(name).sum() for name in flags.values()],
    )
    return profiles, groups


def block_grain(
    per_row: nw.LazyFrame[Any], keys: Sequence[str], example: str
) -> tuple[nw.LazyFrame[Any], nw.LazyFrame[Any]]:
    """Per-example cells summed over the targets (the block matrix), reduced to profiles here.

    ``per_row`` holds one row per (keys..., target, example) with its cells;
    ``keys`` are the block keys (without the target). Returns the profiles
    (keys, tp, fp, fn, tn, ``_n_targets``: how many targets the examples have a
    row in, n) and the per-example sums, read only for an error message. Whether
    an example lacks a target is decided on the small profiles, against the
    group's number of targets (no join on the keys here: engines other than
    Polars cannot join null keys as equal). Per-example values never leave the engine.
    """
    k = list(keys)
    summed = per_row.group_by([*k, example]).agg(
        *[nw.col(c).cast(nw.Float64).sum() for c in CELLS], nw.len().alias("_n_targets")
    )
    profiles = summed.group_by([*k, *CELLS, "_n_targets"]).agg(nw.len().alias("n"))
    return profiles, summed


# -- the bootstrap's replicate grains (aggframe.wide.bootstrap) ----------------------------------


def long_boot_grains(  # noqa: PLR0913 -- the scan's roles and options, keyword-only
    lf: nw.LazyFrame[Any],
    roles: LongRoles,
    keys: Sequence[str],
    boot: Bootstrap,
    *,
    unit: str,
    what: str,
    tnorm: TNorm | None,
    n_classes: int | dict[Any, int] | None,
    target: str | None = None,
) -> dict[str, nw.LazyFrame[Any]]:
    """The replicate grains of the long form, wide (one column per replicate and sum).

    ``class``: crisp data, (keys, class, ``_cat``, _w0 ..): per class and kind of
    entry (``_cat`` = 2 y + p, 4 for a masked entry) the sum of each replicate's
    weights; soft data, (keys, class, _tp0 .. _tn<B-1>, _w0 ..): the weighted cells
    and the weighted number of entries. ``profiles``: (keys, tp, fp, fn, tn,
    _w0 .., _split): per example profile the sum of each replicate's weights, and
    how many examples of it span several units (a cluster that varies within an
    example). With a target, ``block``: the block matrix's profiles, weighted.
    The unit ids are in ``unit`` (``what``: its user name). The rows are read
    twice, as for the unweighted grains (:func:`long_grains`), never buffered.
    """
    k = list(keys)
    rk = row_keys(k)
    used = [*rk, roles.example, roles.class_, roles.y, roles.p, *([roles.mask] if roles.mask else []), unit]
    y = nw.col(roles.y).cast(nw.Float64)
    p = nw.col(roles.p).cast(nw.Float64)
    m = nw.col(roles.mask).cast(nw.Float64) if roles.mask is not None else None
    if tnorm is None:
        w = m if m is not None else nw.lit(1.0)
        cells = [
            (w * y * p).alias("tp"),
            (w * (1.0 - y) * p).alias("fp"),
            (w * y * (1.0 - p)).alias("fn"),
            (w * (1.0 - y) * (1.0 - p)).alias("tn"),
        ]
    else:
        w = m if m is not None else nw.lit(1.0)
        one_y, one_p = 1.0 - y, 1.0 - p
        cells = [
            (tnorm(y, p) * w).alias("tp"),
            (tnorm(one_y, p) * w).alias("fp"),
            (tnorm(y, one_p) * w).alias("fn"),
            (tnorm(one_y, one_p) * w).alias("tn"),
        ]

    def rows() -> nw.LazyFrame[Any]:
        frame = lf.select(*dict.fromkeys(used))
        return unit_hash(frame, unit, boot.seed, "_h", what=what)

    if tnorm is None:
        kind = (2.0 * y + p).cast(nw.Int64)
        if m is not None:
            kind = nw.when(m == 0).then(nw.lit(4, dtype=nw.Int64)).otherwise(kind)
        crisp, weights = weight_columns(rows().with_columns(kind.alias("_cat")), "_h", boot)
        per_class = crisp.group_by([*rk, roles.class_, "_cat"]).agg(nw.col(c).sum() for c in weights)
    else:
        soft, weights = weight_columns(rows().with_columns(*cells), "_h", boot)
        soft = soft.with_columns(
            (nw.col(wb) * nw.col(c)).alias(f"_{c}{b}") for b, wb in enumerate(weights) for c in CELLS
        )
        per_class = soft.group_by([*rk, roles.class_]).agg(
            *[nw.col(f"_{c}{b}").sum() for b in range(boot.n_boot) for c in CELLS],
            *[nw.col(c).sum() for c in weights],
        )
    per_example = (
        rows()
        .with_columns(*cells)
        .group_by([*rk, roles.example])
        .agg(
            *[nw.col(c).sum() for c in CELLS],
            nw.len().alias("rows"),
            nw.col("_h").min().alias("_h"),
            nw.col("_h").max().alias("_hmax"),
        )
    )
    per_example = keyed(per_example, k)
    per_example = _absent_negatives(per_example, n_classes, target)
    if target is not None:
        per_example = shared(per_example)
    out = {"class": keyed(per_class, k), "profiles": weighted_profiles(per_example, k, boot)}
    if target is not None:
        out["block"] = weighted_block(per_example, [c for c in k if c != target], roles.example, boot)
    return out


def weighted_profiles(
    per_example: nw.LazyFrame[Any], keys: Sequence[str], boot: Bootstrap
) -> nw.LazyFrame[Any]:
    """Per-example cells (keys, example, tp, fp, fn, tn, ``_h``, ``_hmax``: the unit hashes, least and
    greatest) -> per profile the sum of each replicate's weights, and ``_split``: how many of its
    examples span several units."""
    frame, weights = weight_columns(per_example, "_h", boot)
    frame = frame.with_columns((nw.col("_h") != nw.col("_hmax")).cast(nw.Int64).alias("_split"))
    return frame.group_by([*keys, *CELLS]).agg(*[nw.col(c).sum() for c in weights], nw.col("_split").sum())


def weighted_block(
    per_row: nw.LazyFrame[Any], keys: Sequence[str], example: str, boot: Bootstrap
) -> nw.LazyFrame[Any]:
    """The block matrix's profiles, weighted: ``per_row`` holds (keys, target, example, cells, ``_h``
    [, ``_hmax``]); the cells are summed per example over its targets (``keys`` leave the target out)."""
    k = list(keys)
    hmax = "_hmax" if "_hmax" in per_row.collect_schema().names() else "_h"
    summed = per_row.group_by([*k, example]).agg(
        *[nw.col(c).cast(nw.Float64).sum() for c in CELLS],
        nw.col("_h").min().alias("_h"),
        nw.col(hmax).max().alias("_hmax"),
    )
    return weighted_profiles(summed, k, boot)
