"""Checks: rules (:mod:`aggframe.decisions.rules`) evaluated over predictions into verdicts.

Stages: parse the rules -> resolve their baselines -> one evaluation of every rule's
measure over the grouping sets of all rules (the cell tables of the union of their
``by`` columns are read in one scan and kept; each ``where`` is one more Boolean key, so a
filtered rule is a grouping set, not another scan; each ``n_boot`` adds the replicates) ->
one row per (rule, group) with the number compared, its bound and a status. A slice rule
(``slices = [columns]``) is not part of that scan: it runs its own slice search
(:mod:`aggframe.decisions.check_slices`), one row per significantly worse slice.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe._columns import PREFIX, REP, check_result_names, free_name, named, reads_as_pattern, restore
from aggframe._options import Engine, parse_bootstrap, parse_engine, unique_in_order
from aggframe.decisions.check_slices import check_slice_rule
from aggframe.decisions.rules import (
    Rule,
    RuleError,
    parse_rules,
    parse_where,
    where_columns,
    where_expression,
)
from aggframe.exceptions import AggframeError, ColumnNotFoundError, OptionError
from aggframe.measures.registry import SCORE_MEASURES
from aggframe.operators.grouping import GROUPING_COLUMN, GROUPING_ID

if TYPE_CHECKING:
    from aggframe.predictions import Predictions

__all__ = ["STATUSES", "CheckFailedError", "CheckResult", "check"]

#: The statuses of a (rule, group) row, from best to worst news.
STATUSES = ("pass", "skipped", "undefined", "warn", "fail")

#: The columns of :attr:`CheckResult.frame` beside the by-keys.
RESULT_COLUMNS = (
    "rule",
    "name",
    "group_label",
    "measure",
    "operator",
    "value",
    "ci_low",
    "ci_high",
    "baseline",
    "difference",
    "on",
    "compared",
    "comparison",
    "bound",
    "n_examples",
    "severity",
    "status",
    "message",
)

#: how a message names the baseline of the whole check (the command line says --baseline)
WHOLE_BASELINE = "check(..., baseline=...)"
_RULE = "__af_rule"
_GID = "__af_gid"
#: the private columns of the evaluation (a by-key of one of these names is refused)
_PRIVATE = (
    "__af_rule",
    "__af_gid",
    "__af_ref",
    "__af_where",
    "__af_boot",
    "__af_dlow",
    "__af_dhigh",
    "__af_ext",
    "__af_id",
    "__af_min",
    "__af_max",
    "__af_max_drop",
    "__af_max_rel",
    "__af_drop",
    "__af_paired",
    "__af_min_examples",
    REP,
)
_REF = "__af_ref"
_NAN = float("nan")


class CheckFailedError(AggframeError):
    """A check whose ``error`` rules failed (:meth:`CheckResult.raise_for_status`); the message lists them."""


@dataclass(frozen=True)
class CheckResult:
    """The verdicts of :func:`check`: one row per (rule, group) in :attr:`frame`.

    Attributes
    ----------
    frame
        ``rule`` (its number), ``name``, the by-keys of every rule (null where a rule
        does not group by a column), ``group`` (the keys as text), ``measure``,
        ``operator``, ``value``, ``ci_low``/``ci_high`` (with ``n_boot``), ``baseline``
        and ``difference`` (value - baseline, for drop rules), ``on``, ``compared``
        (the number held against the bound), ``comparison`` (``>=`` or ``<=``),
        ``bound``, ``n_examples``, ``severity``, ``status`` and ``message``. A slice
        rule's rows: the slice in ``group_label``, its value, its complement's as
        ``baseline``, ``on`` = ``p_adjusted`` (``compared``), ``comparison`` ``>`` and
        ``bound`` = ``alpha``.
    rules
        The parsed rules, in order (``rule`` numbers them from 1).
    """

    frame: pl.DataFrame
    rules: tuple[Rule, ...]

    @property
    def passed(self) -> bool:
        """Whether no ``error`` rule failed (warnings, skipped and undefined rows do not fail a run).

        Returns
        -------
        bool
            True when no row has status ``fail``.
        """
        return self.frame.filter(pl.col("status") == "fail").height == 0

    @property
    def failures(self) -> pl.DataFrame:
        """The rows whose status is ``fail``.

        Returns
        -------
        polars.DataFrame
            The rows of :attr:`frame` with status ``fail`` (``error`` rules only:
            a violated ``warn`` rule has status ``warn``).
        """
        return self.frame.filter(pl.col("status") == "fail")

    def counts(self) -> dict[str, int]:
        """How many (rule, group) rows have each status.

        Returns
        -------
        dict of str to int
            Every status (``pass``, ``skipped``, ``undefined``, ``warn``, ``fail``), in
            that order, with its count (0 included).
        """
        got = dict(self.frame.group_by("status").len().iter_rows())
        return {s: int(got.get(s, 0)) for s in STATUSES}

    def summary(self) -> str:
        """One line: the verdict and the count of each status.

        Returns
        -------
        str
            ``check passed: 2 rules, 4 (rule, group) rows: 4 pass, 0 skipped, ...``.
        """
        counts = self.counts()
        verdict = "passed" if self.passed else "FAILED"
        shown = ", ".join(f"{n} {s}" for s, n in counts.items())
        return f"check {verdict}: {len(self.rules)} rules, {self.frame.height} (rule, group) rows: {shown}"

    def raise_for_status(self) -> None:
        """Raise :class:`CheckFailedError` listing the failures when an ``error`` rule failed.

        Raises
        ------
        CheckFailedError
            Some ``error`` rule failed in some group (the first 20 failures are listed).
        """
        if self.passed:
            return
        fails = self.failures["message"].to_list()
        listed = "; ".join(fails[:20]) + (f"; and {len(fails) - 20} more" if len(fails) > 20 else "")
        msg = f"{len(fails)} check(s) failed: {listed}"
        raise CheckFailedError(msg)

    def to_dict(self) -> dict[str, Any]:
        """The verdict, the counts, the rules and every row, as JSON-ready values.

        Returns
        -------
        dict
            ``passed`` (bool), ``counts`` (:meth:`counts`), ``rules`` (each rule's keys
            as a rules file spells them, with its number) and ``results`` (the rows of
            :attr:`frame`; non-finite numbers as null, dates as ISO text).
        """
        rows = [{k: _json_value(v) for k, v in row.items()} for row in self.frame.iter_rows(named=True)]
        return {
            "passed": self.passed,
            "counts": self.counts(),
            "rules": [{"rule": i, **r.as_dict()} for i, r in enumerate(self.rules, 1)],
            "results": rows,
        }

    def to_json(self, path: str | Path | None = None) -> str:
        """:meth:`to_dict` as JSON text (written to ``path`` when given).

        Parameters
        ----------
        path
            A file to write the text to (with a final newline); None writes nothing.

        Returns
        -------
        str
            The JSON text (indented, UTF-8 characters kept).

        Raises
        ------
        OSError
            ``path`` cannot be written.
        """
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False, default=str)
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    def __repr__(self) -> str:
        return f"CheckResult({self.summary()})"


def _json_value(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return str(v)


def check(
    predictions: Predictions,
    rules: Any,
    *,
    baseline: Any = None,
    level: float = 0.95,
    seed: int = 0,
    engine: Engine = "auto",
) -> CheckResult:
    """Hold predictions against rules: one row per (rule, group) with a status.

    Parameters
    ----------
    predictions
        The :class:`~aggframe.Predictions` to check (any form; a cell store too).
    rules
        A list of dicts (keys :data:`~aggframe.decisions.rules.RULE_KEYS`) or
        :class:`~aggframe.Rule` objects, one of them, or the path of a TOML rules file.
    baseline
        The reference of drop rules that name none: :class:`~aggframe.Predictions`
        (last week's, e.g. ``af.from_cells(store)``), the path of a cell store or of a
        Parquet/CSV file of expected values, or a frame of expected values (the rule's
        by-columns, ``measure``, ``operator``, ``value``).
    level, seed
        The bootstrap interval's coverage and seed (rules with ``n_boot``).
    engine
        The Polars engine of the scan.

    Returns
    -------
    CheckResult
        ``.frame``, ``.passed``, ``.raise_for_status()``.

    Notes
    -----
    The rules with bounds are evaluated from one scan of the predictions. A slice rule
    (``slices = [columns]``: "no slice significantly worse") is not: it runs its own
    slice search (:func:`~aggframe.decisions.slices.slices`, a scan with bootstrap
    replicates) and has one ``fail``/``warn`` row per slice significantly worse than its
    complement, or one ``pass`` row.

    Raises
    ------
    RuleError
        A bad rule (unknown key, measure or operator; a bound that is not a number; a drop
        without a baseline), named by its number.
    ColumnNotFoundError
        A ``by`` or ``where`` column that the predictions do not have.

    Examples
    --------
    >>> import aggframe as af
    >>> pr = af.from_labels([0, 1, 2, 2, 1, 0] * 5, [0, 2, 2, 1, 1, 1] * 5)
    >>> result = af.check(pr, [{"measure": "f1", "operator": "macro", "min": 0.6}])
    >>> result.passed, result.frame["message"][0]
    (False, 'macro f1 0.522 < 0.6 (30 examples)')
    """
    parsed = parse_rules(rules)
    engine = parse_engine(engine)
    plain = [r for r in parsed if not r.slices]
    for r in parsed:
        if r.slices:  # refused before any scan (a store, a missing column)
            check_slice_rule(predictions, r)
    frame = None
    if plain:
        base = _baseline_values(plain, baseline, level=level, seed=seed, engine=engine)
        values, keys = rule_values(predictions, plain, level=level, seed=seed, engine=engine, paired=True)
        frame = _verdicts(values, keys, plain, base)
    if len(plain) < len(parsed):  # slice rules: each its own slice search (aggframe.decisions.check_slices)
        from aggframe.decisions.check_slices import slice_verdicts

        numbers = [i for i, r in enumerate(parsed, 1) if not r.slices]
        parts = (
            []
            if frame is None
            else [
                frame.with_columns(
                    pl.col("rule")
                    .cast(pl.Int64)
                    .replace_strict(list(range(1, len(plain) + 1)), numbers, return_dtype=pl.Int64)
                )
            ]
        )
        parts += [
            slice_verdicts(
                predictions,
                r,
                i,
                level=level,
                seed=seed,
                engine=engine,
                number_text=_fmt,
                count_text=_count,
            )
            for i, r in enumerate(parsed, 1)
            if r.slices
        ]
        frame = pl.concat(parts, how="diagonal_relaxed").sort("rule", maintain_order=True)
    assert frame is not None
    return CheckResult(frame=frame, rules=tuple(parsed))


# --- values -------------------------------------------------------------------------------------


def _check_columns(pr: Predictions, rules: Sequence[Rule]) -> None:
    for r in rules:
        try:
            pr.source.check_by(list(r.by))
        except AggframeError as exc:
            msg = f"{r.origin}: {exc}"
            raise type(exc)(msg) from None
        if r.where is not None:
            if pr.form == "cells":
                msg = (
                    f"{r.origin}: key 'where': a cell store keeps sums, not rows; group by the column "
                    "instead (by), or check the predictions themselves"
                )
                raise RuleError(msg)
            available = pr.source.columns()
            missing = sorted(where_columns(parse_where(r.where)) - set(available))
            if missing:
                msg = f"{r.origin}: key 'where': column {missing[0]!r} is not in the input; available columns: {available}"
                raise ColumnNotFoundError(msg)
            try:
                where_expression(r.where, pr.source.polars_schema())
            except RuleError as exc:
                msg = f"{r.origin}: key 'where': {exc}"
                raise RuleError(msg) from None


def _with_where(pr: Predictions, rules: Sequence[Rule]) -> tuple[Predictions, dict[str, str]]:
    """Predictions whose frame has one Boolean column per distinct ``where`` (and those names)."""
    texts = unique_in_order(r.where for r in rules if r.where is not None)
    if not texts:
        return pr, {}
    taken = set(pr.source.columns())
    names: dict[str, str] = {}
    for i, text in enumerate(texts):
        names[text] = free_name(f"where {i + 1}", taken)
        taken.add(names[text])
    schema = pr.source.polars_schema()
    frame = pr.source.frame.with_columns(*[where_expression(t, schema).alias(n) for t, n in names.items()])
    source = dataclasses.replace(pr.source, frame=frame)
    return dataclasses.replace(pr, source=source, _cache={}, _boot_cache={}), names


def _grouping_id(cols: Sequence[str], by_all: Sequence[str]) -> int:
    n = len(by_all)
    return sum(1 << (n - 1 - i) for i, c in enumerate(by_all) if c not in cols)


def _check_keys(rules: Sequence[Rule]) -> None:
    """Refuse by-columns named like a column of the result, a private column or a column pattern."""
    keys = unique_in_order(c for r in rules for c in r.by)
    clash = [k for k in keys if k in RESULT_COLUMNS]
    if clash:
        msg = (
            f"by column {clash[0]!r} has the name of a column of the check's result ({', '.join(RESULT_COLUMNS)}); "
            "rename it"
        )
        raise OptionError(msg)
    private = next((c for r in rules for c in r.by if c in _PRIVATE or c.startswith("__af_in")), None)
    if private is not None:
        msg = f"by column {private!r} has the name of a private column of checks; rename it"
        raise OptionError(msg)
    pattern = next((k for k in keys if reads_as_pattern(k)), None)
    if pattern is not None:  # Polars reads such a name as every column or a regex in joins and filters
        msg = f"by column {pattern!r} reads as a column pattern in checks; rename it (evaluate takes it)"
        raise OptionError(msg)


def rule_values(
    predictions: Predictions,
    rules: Sequence[Rule],
    *,
    level: float = 0.95,
    seed: int = 0,
    engine: Engine = "auto",
    paired: bool = False,
) -> tuple[pl.DataFrame, list[str]]:
    """Every rule's value per group (one scan, plus one per distinct ``n_boot``).

    Returns the rows ``_RULE``, the by-keys (the union of the rules' by-columns, null
    where a rule does not group by one), ``value``, ``ci_low``, ``ci_high``,
    ``n_examples``, and with ``paired`` the baseline (``_REF``) and the difference's
    interval of rules whose baseline is another group; and the by-key names.
    """
    _check_columns(predictions, rules)
    _check_keys(rules)
    pr, where_names = _with_where(predictions, rules)
    by_keys = unique_in_order(c for r in rules for c in r.by)
    by_all = [*by_keys, *where_names.values()]
    sets = [[*r.by, *([where_names[r.where]] if r.where is not None else [])] for r in rules]
    distinct = [list(s) for s in unique_in_order(tuple(sorted(s, key=by_all.index)) for s in sets)]
    marks = [c for c in by_all if c in (GROUPING_COLUMN, GROUPING_ID)]
    if marks and len(distinct) > 1:
        msg = (
            f"by column {marks[0]!r} has the name of a column of grouping sets, which rules of different "
            "by-columns are evaluated with; rename it"
        )
        raise OptionError(msg)
    if len(distinct) == 1:
        by_all, distinct = distinct[0], []
    table = pl.DataFrame(
        {
            _RULE: list(range(1, len(rules) + 1)),
            _GID: [_grouping_id(s, by_all) for s in sets],
            "measure": [r.measure for r in rules],
            "operator": [r.operator for r in rules],
            "__af_where": [where_names.get(r.where) if r.where is not None else None for r in rules],
            "__af_boot": [r.n_boot or 0 for r in rules],
        },
        schema_overrides={_GID: pl.Int64, "__af_where": pl.String},
    )
    parts = []
    counted: dict[int, pl.DataFrame] = {}
    gids = [_grouping_id(s, by_all) for s in sets]
    for n_boot in unique_in_order(r.n_boot or 0 for r in rules):
        family = [(r, g) for r, g in zip(rules, gids, strict=True) if (r.n_boot or 0) == n_boot]
        boot = parse_bootstrap(n_boot, level=level, seed=seed, cluster=None) if n_boot else None
        rows = []
        # each grouping set with only its own rules' measures: the cell tables are scanned once
        # (by every key) and each set is rolled up from them; a where's set evaluates its rules only
        for here, members in _set_families(family, by_all, distinct):
            gid = _grouping_id(here[0], by_all) if here else 0
            for measures, operators in _requests(members, count=boot is None):
                got_here = _evaluated(pr, measures, operators, by_all, here, boot=boot, engine=engine)
                if boot is None and "exemplar" in operators and gid not in counted:
                    counted[gid] = got_here.filter(
                        pl.col("operator") == "exemplar", pl.col("measure") == measures[0]
                    )
                rows.append(got_here)
        got = pl.concat(rows, how="diagonal_relaxed")
        rules_here = table.filter(pl.col("__af_boot") == n_boot).drop("__af_boot")
        parts.append(got.join(rules_here, on=[_GID, "measure", "operator"], how="inner", nulls_equal=True))
    joined = pl.concat(parts, how="diagonal_relaxed")
    for name in where_names.values():
        joined = joined.filter((pl.col("__af_where") != name).fill_null(value=True) | pl.col(name))
    joined = joined.drop("__af_where", "n_entries", *where_names.values())
    n_examples = _examples(pr, by_all, distinct, counted, engine)
    n_examples = n_examples.select(
        *[named(k) for k in by_all], _GID, pl.col("n_entries").cast(pl.Int64).alias("n_examples")
    )
    for name in where_names.values():  # the rows of a filter's groups (true), or not filtered (null)
        n_examples = n_examples.filter(pl.col(name).is_null() | pl.col(name))
    n_examples = n_examples.drop(*where_names.values())
    if paired:
        joined = _paired(joined, rules, by_keys)
    out = _summarize(joined, by_keys, level=level, paired=paired)
    out = out.join(n_examples, on=[_GID, *by_keys], how="left", nulls_equal=True).drop(_GID)
    return out.sort(_RULE, maintain_order=True), by_keys


#: the operators whose measures are the same 21 (one request takes them all at once)
_CELL_OPERATORS = ("micro", "macro", "weighted", "exemplar")


def _requests(rules: Sequence[Rule], *, count: bool) -> list[tuple[list[str], list[str]]]:
    """The (measures, operators) requests of some rules: one for the measures of the cells under
    the four cell operators (with ``count``, the exemplar operator too: its entries are the
    examples), one per other operator."""
    cell = [r for r in rules if r.operator in _CELL_OPERATORS and r.measure not in SCORE_MEASURES]
    out = []
    if cell:
        operators = unique_in_order(r.operator for r in cell)
        if count and "exemplar" not in operators:
            operators.append("exemplar")
        out.append((unique_in_order(r.measure for r in cell), operators))
    rest = [r for r in rules if r not in cell]
    for op in unique_in_order(r.operator for r in rest):
        out.append((unique_in_order(r.measure for r in rest if r.operator == op), [op]))
    return out


def _evaluated(
    pr: Predictions,
    measures: list[str],
    operators: list[str],
    by_all: list[str],
    sets: list[list[str]],
    *,
    boot: Any,
    engine: Engine,
) -> pl.DataFrame:
    """Measures under operators over every grouping set, per replicate (``REP``; -1 is the data)."""
    request = pr.extend.request(
        unique_in_order(measures),
        operators,
        by=by_all or None,
        grouping_sets=sets or None,
    )
    report, names = pr.extend.report(request, engine=engine, boot=boot)
    result = [c for c in report.collect_schema().names() if c not in names and not c.startswith(PREFIX)]
    check_result_names(names.values(), result, "check's evaluation")
    out: pl.DataFrame = restore(report, names).collect()
    if REP not in out.columns:
        out = out.with_columns(pl.lit(-1, dtype=pl.Int64).alias(REP))
    out = _marked(out, sets)
    keep = [*by_all, _GID, REP, "measure", "operator", "value", "n_entries"]
    return out.select(*[named(k) for k in keep]).with_columns(
        pl.col(_GID).cast(pl.Int64), pl.col(REP).cast(pl.Int64)
    )


def _marked(out: pl.DataFrame, sets: list[list[str]]) -> pl.DataFrame:
    """The grouping set of each row as ``_GID`` (SQL's GROUPING_ID; 0 without grouping sets)."""
    if sets:
        return out.rename({GROUPING_ID: _GID})
    return out.with_columns(pl.lit(0, dtype=pl.Int64).alias(_GID))


def _set_families(
    family: list[tuple[Rule, int]], by_all: list[str], distinct: list[list[str]]
) -> list[tuple[list[list[str]], list[Rule]]]:
    """The rules (with their grouping ids) by grouping set: ([set], its rules), or ([], all)
    when there is one set (no grouping sets)."""
    if not distinct:
        return [([], [r for r, _ in family])]
    out = []
    for s in distinct:
        gid = _grouping_id(s, by_all)
        members = [r for r, g in family if g == gid]
        if members:
            out.append(([s], members))
    return out


def _examples(
    pr: Predictions,
    by_all: list[str],
    distinct: list[list[str]],
    counted: dict[int, pl.DataFrame],
    engine: Engine,
) -> pl.DataFrame:
    """The examples of every group of every grouping set: counted by the exemplar operator where
    a set's rules asked for it, evaluated for the other sets."""
    wanted = distinct or [by_all]
    missing = [s for s in wanted if _grouping_id(s, by_all) not in counted]
    parts = [c.select(*[named(k) for k in by_all], _GID, "n_entries") for c in counted.values()]
    if missing:
        parts.append(_n_examples(pr, by_all, missing if distinct else [], engine))
    return pl.concat(parts, how="vertical_relaxed")


def _n_examples(pr: Predictions, by_all: list[str], sets: list[list[str]], engine: Engine) -> pl.DataFrame:
    """The examples of every group of every grouping set (the exemplar operator's entries)."""
    request = pr.extend.request(["precision"], ["exemplar"], by=by_all or None, grouping_sets=sets or None)
    report, names = pr.extend.report(request, engine=engine)
    out: pl.DataFrame = restore(report, names).collect()
    return _marked(out, sets).select(*[named(k) for k in by_all], pl.col(_GID).cast(pl.Int64), "n_entries")


def _paired(joined: pl.DataFrame, rules: Sequence[Rule], by_keys: list[str]) -> pl.DataFrame:
    """The value of the baseline group (``_REF``) beside each group's, replicate by replicate."""
    baselines = [(i, r.baseline) for i, r in enumerate(rules, 1) if isinstance(r.baseline, Mapping)]
    if not baselines:
        return joined.with_columns(pl.lit(None, dtype=pl.Float64).alias(_REF))
    refs = []
    for key_cols in unique_in_order(tuple(b) for _, b in baselines):
        ids = [i for i, b in baselines if tuple(b) == key_cols]
        matched = [c for c in by_keys if c not in key_cols]
        for i, b in baselines:
            if i not in ids:
                continue
            ref = joined.filter(pl.col(_RULE) == i, *[named(k).eq_missing(pl.lit(v)) for k, v in b.items()])
            if ref.height == 0:
                r = rules[i - 1]
                msg = f"{r.origin}: key 'baseline': the baseline group {dict(b)!r} is not in the data"
                raise RuleError(msg)
            refs.append((matched, ref.select(_RULE, REP, *matched, pl.col("value").alias(_REF))))
    out = joined.with_columns(pl.lit(None, dtype=pl.Float64).alias(_REF))
    for matched, ref in refs:
        rid = ref[_RULE][0]
        mine = (
            out.filter(pl.col(_RULE) == rid)
            .drop(_REF)
            .join(ref, on=[_RULE, REP, *matched], how="left", nulls_equal=True)
        )
        out = pl.concat([out.filter(pl.col(_RULE) != rid), mine.select(out.columns)])
    return out


def _summarize(joined: pl.DataFrame, by_keys: list[str], *, level: float, paired: bool) -> pl.DataFrame:
    """One row per (rule, group): the data's value, and the percentile intervals over the replicates."""
    alpha = (1.0 - level) / 2.0
    point = pl.col(REP) == -1

    def reps(e: pl.Expr) -> pl.Expr:
        return e.filter((pl.col(REP) >= 0) & e.is_not_null() & e.is_not_nan())

    if joined.filter(pl.col(REP) >= 0).height == 0:  # no replicates: a row per (rule, group) already
        nulls = ["ci_low", "ci_high", *(["__af_dlow", "__af_dhigh"] if paired else [])]
        cols = [_RULE, _GID, *by_keys, "measure", "operator", "value", *([_REF] if paired else [])]
        return joined.select(
            *[named(c) for c in cols], *[pl.lit(None, dtype=pl.Float64).alias(c) for c in nulls]
        )
    diff = pl.col("value") - pl.col(_REF)
    aggs = [
        pl.col("measure").first(),
        pl.col("operator").first(),
        pl.col("value").filter(point).first(),
        reps(pl.col("value")).quantile(alpha, interpolation="linear").alias("ci_low"),
        reps(pl.col("value")).quantile(1 - alpha, interpolation="linear").alias("ci_high"),
    ]
    if paired:
        aggs += [
            pl.col(_REF).filter(point).first(),
            reps(diff).quantile(alpha, interpolation="linear").alias("__af_dlow"),
            reps(diff).quantile(1 - alpha, interpolation="linear").alias("__af_dhigh"),
        ]
    return joined.group_by([_RULE, _GID, *[named(k) for k in by_keys]], maintain_order=True).agg(*aggs)


# --- baselines ----------------------------------------------------------------------------------


def _baseline_values(
    rules: Sequence[Rule], baseline: Any, *, level: float, seed: int, engine: Engine
) -> pl.DataFrame | None:
    """The baseline value (``_REF``) per (rule, by-keys) of drop rules whose baseline is not a group."""
    wanted = [(i, r) for i, r in enumerate(rules, 1) if r.is_drop and not isinstance(r.baseline, Mapping)]
    if not wanted:
        return None
    parts = []
    for ref in unique_in_order(r.baseline for _, r in wanted):
        group = [(i, r) for i, r in wanted if r.baseline == ref]
        source = ref if ref is not None else baseline
        if source is None:
            r = group[0][1]
            msg = (
                f"{r.origin}: a drop rule (max_drop / max_relative_drop) needs a baseline: a group "
                "(baseline = {model = 'lr'}), a path (baseline = 'cells/last-week'), or one for every rule: "
                f"{WHOLE_BASELINE}"
            )
            raise RuleError(msg)
        parts.append(_baseline_of(source, group, level=level, seed=seed, engine=engine))
    return pl.concat(parts, how="diagonal_relaxed")


def _baseline_of(
    source: Any, group: list[tuple[int, Rule]], *, level: float, seed: int, engine: Engine
) -> pl.DataFrame:
    from aggframe.predictions import Predictions

    expected: pl.DataFrame | None = None
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            from aggframe.constructors import from_cells

            source = from_cells(str(path))
        elif path.is_file() and path.suffix.lower() in (".parquet", ".csv"):
            try:
                expected = pl.read_parquet(path) if path.suffix.lower() == ".parquet" else pl.read_csv(path)
            except (pl.exceptions.PolarsError, OSError) as exc:
                msg = f"cannot read the baseline {str(path)!r}: {str(exc).splitlines()[0]}"
                raise RuleError(msg) from None
        else:
            msg = (
                f"the baseline {str(path)!r} is neither a cell store (a directory) nor a Parquet or CSV "
                "file of expected values" + ("" if path.exists() else ": it does not exist")
            )
            raise RuleError(msg)
    elif isinstance(source, pl.DataFrame):
        expected = source
    elif isinstance(source, pl.LazyFrame):
        expected = source.collect()
    if expected is not None:
        return _expected_values(expected, group)
    if not isinstance(source, Predictions):
        msg = f"a baseline is Predictions, a cell store path, or a frame of expected values; got {type(source).__name__}"
        raise OptionError(msg)
    rules = [
        dataclasses.replace(r, baseline=None, max_drop=None, max_relative_drop=None, min=0.0)
        for _, r in group
    ]
    values, keys = rule_values(source, rules, level=level, seed=seed, engine=engine)
    ids = pl.DataFrame({_RULE: list(range(1, len(group) + 1)), "__af_id": [i for i, _ in group]})
    return values.join(ids, on=_RULE, nulls_equal=True).select(
        pl.col("__af_id").alias(_RULE), *keys, pl.col("value").alias(_REF)
    )


def _expected_values(expected: pl.DataFrame, group: list[tuple[int, Rule]]) -> pl.DataFrame:
    need = ["measure", "operator", "value"]
    missing = [c for c in need if c not in expected.columns]
    if missing:
        msg = (
            f"a frame of expected values has the columns {need} and the rules' by-columns; "
            f"{missing[0]!r} is missing (columns: {expected.columns})"
        )
        raise ColumnNotFoundError(msg)
    parts = []
    for i, r in group:
        absent = [c for c in r.by if c not in expected.columns]
        if absent:
            msg = f"{r.origin}: the expected values have no by-column {absent[0]!r} (columns: {expected.columns})"
            raise ColumnNotFoundError(msg)
        rows = expected.filter(pl.col("measure") == r.measure, pl.col("operator") == r.operator)
        if "convention" in rows.columns:
            rows = rows.filter(pl.col("convention") == "exclude")
        if "grouping_set" in rows.columns:
            rows = rows.filter(pl.col("grouping_set") == ", ".join(r.by))
        dup = rows.select(*r.by).is_duplicated()
        if dup.any():
            msg = f"{r.origin}: the expected values hold several rows for one group of {list(r.by)}"
            raise OptionError(msg)
        parts.append(
            rows.select(
                pl.lit(i, dtype=pl.Int64).alias(_RULE), *r.by, pl.col("value").cast(pl.Float64).alias(_REF)
            )
        )
    return pl.concat(parts, how="diagonal_relaxed")


# --- verdicts -----------------------------------------------------------------------------------


def _verdicts(
    values: pl.DataFrame, keys: list[str], rules: Sequence[Rule], base: pl.DataFrame | None
) -> pl.DataFrame:
    if base is not None:
        cols = [c for c in base.columns if c != _REF]
        base = base.select(*cols, pl.col(_REF).alias("__af_ext"))
        for k in keys:
            if k not in base.columns:
                base = base.with_columns(pl.lit(None).alias(k))
        base = base.with_columns(pl.col(_RULE).cast(pl.Int64))
        try:
            values = values.join(base, on=[_RULE, *keys], how="left", nulls_equal=True)
        except pl.exceptions.PolarsError as exc:
            msg = f"the baseline's by-keys do not match the predictions' types: {str(exc).splitlines()[0]}"
            raise OptionError(msg) from None
        values = values.with_columns(pl.coalesce(_REF, "__af_ext").alias(_REF)).drop("__af_ext")
    params = pl.DataFrame(
        {
            _RULE: list(range(1, len(rules) + 1)),
            "name": [r.label for r in rules],
            "__af_min": [r.min for r in rules],
            "__af_max": [r.max for r in rules],
            "on": [r.on for r in rules],
            "__af_max_drop": [r.max_drop for r in rules],
            "__af_max_rel": [r.max_relative_drop for r in rules],
            "__af_drop": [r.is_drop for r in rules],
            "__af_paired": [isinstance(r.baseline, Mapping) for r in rules],
            "__af_min_examples": [r.min_examples for r in rules],
            "severity": [r.severity for r in rules],
            **{f"__af_in{j}": [k in r.by for r in rules] for j, k in enumerate(keys)},
        },
        schema_overrides={
            "__af_min": pl.Float64,
            "__af_max": pl.Float64,
            "__af_max_drop": pl.Float64,
            "__af_max_rel": pl.Float64,
            "__af_min_examples": pl.Int64,
        },
    )
    df = values.with_columns(pl.col(_RULE).cast(pl.Int64)).join(
        params, on=_RULE, how="left", nulls_equal=True
    )
    if "__af_dlow" not in df.columns:
        df = df.with_columns(pl.lit(None, dtype=pl.Float64).alias(c) for c in ("__af_dlow", "__af_dhigh"))
    on_col = pl.col("on")
    own = (
        pl.when(on_col == "ci_low")
        .then("ci_low")
        .when(on_col == "ci_high")
        .then("ci_high")
        .otherwise("value")
    )
    diff = pl.col("value") - pl.col(_REF)
    paired_ci = pl.col("__af_paired") & (on_col != "value")
    diff_on = (
        pl.when(paired_ci & (on_col == "ci_low"))
        .then(pl.col("__af_dlow"))
        .when(paired_ci)
        .then(pl.col("__af_dhigh"))
        .otherwise(own - pl.col(_REF))
    )
    allowed = pl.coalesce(pl.col("__af_max_drop"), pl.col("__af_max_rel") * pl.col(_REF).abs())
    df = df.with_columns(
        pl.when(pl.col("__af_drop")).then(pl.col(_REF)).alias("baseline"),
        pl.when(pl.col("__af_drop")).then(diff).alias("difference"),
        pl.when(pl.col("__af_drop")).then(diff_on).otherwise(own).alias("compared"),
        pl.when(pl.col("__af_drop") | pl.col("__af_min").is_not_null())
        .then(pl.lit(">="))
        .otherwise(pl.lit("<="))
        .alias("comparison"),
    )
    df = df.with_columns(
        pl.when(pl.col("__af_drop"))
        .then(-allowed)
        .when(pl.col("__af_min").is_not_null())
        .then(pl.col("__af_min"))
        .otherwise(pl.col("__af_max"))
        .alias("bound"),
        pl.col("compared").fill_nan(None),
    )
    # a value within the rounding of float sums of its bound is on it (the same data summed in
    # another order, on another engine or from a cell store, differs in the last bits)
    low = pl.col("compared") < pl.col("bound") - _rounding(pl.col("bound"))
    high = pl.col("compared") > pl.col("bound") + _rounding(pl.col("bound"))
    above_max = (pl.col("__af_min").is_not_null() & pl.col("__af_max").is_not_null()) & (
        pl.col("compared") > pl.col("__af_max") + _rounding(pl.col("__af_max"))
    )
    violated = pl.when(pl.col("comparison") == ">=").then(low | above_max).otherwise(high)
    df = df.with_columns(
        pl.when(above_max.fill_null(value=False))
        .then(pl.col("__af_max"))
        .otherwise(pl.col("bound"))
        .alias("bound"),
        pl.when(above_max.fill_null(value=False))
        .then(pl.lit("<="))
        .otherwise(pl.col("comparison"))
        .alias("comparison"),
    )
    status = (
        pl.when(pl.col("n_examples").fill_null(0) < pl.col("__af_min_examples").fill_null(0))
        .then(pl.lit("skipped"))
        .when(pl.col("__af_drop") & pl.col(_REF).is_null())
        .then(pl.lit("skipped"))
        .when(pl.col("compared").is_null() | (pl.col("__af_drop") & pl.col("bound").is_null()))
        .then(pl.lit("undefined"))
        .when(violated)
        .then(pl.when(pl.col("severity") == "error").then(pl.lit("fail")).otherwise(pl.lit("warn")))
        .otherwise(pl.lit("pass"))
    )
    df = df.with_columns(status.alias("status"), pl.col(_RULE).alias("rule"))
    df = df.with_columns(_groups(keys), pl.col("value").fill_nan(None))
    df = df.with_columns(_messages(df))
    return df.select("rule", "name", *keys, *[c for c in RESULT_COLUMNS if c not in ("rule", "name")])


#: a value this close to its bound (relative to the bound, at least 1.0) is on the bound
ROUNDING = 1e-12


def _rounding(bound: pl.Expr) -> pl.Expr:
    """How far (absolute) a value may pass ``bound`` by float rounding alone."""
    return pl.max_horizontal(pl.lit(1.0), bound.abs()) * ROUNDING


def _groups(keys: list[str]) -> pl.Expr:
    """The group as text, ``model=gnb, day=3`` (``(all)`` for a rule without by): the keys the rule
    groups by (``__af_in<j>``), a null key shown as ``(null)``."""
    parts = [
        pl.when(pl.col(f"__af_in{j}")).then(pl.lit(f"{k}=") + named(k).cast(pl.String).fill_null("(null)"))
        for j, k in enumerate(keys)
    ]
    if not parts:
        return pl.lit("(all)").alias("group_label")
    return pl.concat_str(parts, separator=", ", ignore_nulls=True).replace("", "(all)").alias("group_label")


def _fmt(e: pl.Expr) -> pl.Expr:
    """A number rounded to three decimals, ``undefined`` for null or NaN."""
    return pl.when(e.is_null() | e.is_nan()).then(pl.lit("undefined")).otherwise(e.round(3).cast(pl.String))


def _count(e: pl.Expr) -> pl.Expr:
    """A count with thousands separators (``1,797``)."""
    n = e.cast(pl.Int64)
    text = n.cast(pl.String)
    digits = text.str.len_chars()
    # the digits in groups of three from the right: pad to a multiple of three, split, strip the pad
    padded = text.str.zfill(((digits + 2) // 3) * 3)
    grouped = padded.str.extract_all(r"\d{3}").list.join(",").str.strip_chars_start("0,")
    return pl.when(n == 0).then(pl.lit("0")).otherwise(grouped)


def _messages(df: pl.DataFrame) -> pl.Series:
    """A sentence per row that a person reads: ``macro f1 0.849 < 0.9 for model=gnb (1,797 examples)``."""
    col = pl.col
    what = col("operator") + " " + col("measure")
    group = pl.when(col("group_label") == "(all)").then(pl.lit("")).otherwise(" for " + col("group_label"))
    count = (
        pl.when(col("n_examples").is_null())
        .then(pl.lit(""))
        .otherwise(" (" + _count(col("n_examples")) + " examples)")
    )
    on = (
        pl.when(col("on") == "value").then(pl.lit("")).otherwise(" (" + col("on").str.replace("_", " ") + ")")
    )
    bad = col("status").is_in(["fail", "warn"])
    drop = (
        what
        + " "
        + _fmt(col("value"))
        + " vs baseline "
        + _fmt(col("baseline"))
        + ": drop"
        + on
        + " "
        + _fmt(-col("compared"))
        + pl.when(bad).then(pl.lit(" > ")).otherwise(pl.lit(" <= "))
        + _fmt(-col("bound"))
        + " allowed"
        + group
        + count
    )
    shown = (
        pl.when(~bad)
        .then(col("comparison"))
        .when(col("comparison") == ">=")
        .then(pl.lit("<"))
        .otherwise(pl.lit(">"))
    )
    bound = (
        what
        + on
        + " "
        + _fmt(col("compared"))
        + " "
        + shown
        + " "
        + col("bound").cast(pl.String)
        + group
        + count
    )
    message = (
        pl.when((col("status") == "skipped") & col(_REF).is_null() & col("__af_drop"))
        .then(what + group + ": skipped, no baseline value for this group" + count)
        .when(col("status") == "skipped")
        .then(
            what
            + group
            + ": skipped, "
            + _count(col("n_examples").fill_null(0))
            + " examples < min_examples "
            + _count(col("__af_min_examples"))
        )
        .when(col("status") == "undefined")
        .then(what + " is undefined" + group + count)
        .when(col("__af_drop"))
        .then(drop)
        .otherwise(bound)
    )
    return df.select(message.alias("message")).to_series()
