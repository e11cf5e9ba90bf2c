"""The rule language of checks and of monitoring: what a rule says, parsed and validated.

A rule names a measure under an operator, optional ``by`` columns and a ``where``
filter, and one bound: an absolute ``min``/``max`` on the value (or on an end of its
bootstrap interval, ``on="ci_low"``/``"ci_high"`` with ``n_boot``), or a largest
``max_drop``/``max_relative_drop`` against a ``baseline``. ``min_examples`` skips
small groups and ``severity`` says whether a violation fails the run (``error``)
or warns. A rule with ``slices`` (columns) instead of a bound is "no slice
significantly worse" (with ``max_depth``, ``alpha``, ``correction``; see
:mod:`aggframe.decisions.check_slices`). The keys have one spelling everywhere (:data:`RULE_KEYS`): TOML
(``[[rule]]`` tables), Python dicts, :class:`Rule` fields and the docs; an unknown
key is an error naming it, so that a typo never disables a rule.

Monitoring (:func:`~aggframe.monitor`, ``aggframe monitor --rules``) reads the same
language with ``kind="monitor"``: a band (``band``, ``width``, ``quantiles``,
``min_reference_windows``, ``min_labelled_share``) is its bound, so the keys of
:data:`CHECK_ONLY_KEYS` are errors there, and those of :data:`MONITOR_ONLY_KEYS`
are errors in a check.

This module knows nothing of how rules are evaluated (:mod:`aggframe.decisions.checks`
does that): it parses and validates, and compiles a ``where`` text to a Narwhals
expression (:func:`where_expression`) that runs on every engine.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, cast, get_args

import narwhals.stable.v1 as nw

from aggframe._options import BandRule, RuleKind, Severity, SliceCorrection, parse_report_operator
from aggframe.decisions.bands import BAND_KEYS, band_options
from aggframe.exceptions import AggframeError, OptionError
from aggframe.intake.where import Node, where_columns, where_tree
from aggframe.intake.where import where_expression as _where_expression
from aggframe.measures.matrix import MATRIX_MEASURES
from aggframe.measures.matrix import _canonical as matrix_canonical
from aggframe.measures.registry import SCORE_MEASURES, get_measure

__all__ = [
    "CHECK_ONLY_KEYS",
    "MONITOR_ONLY_KEYS",
    "RULE_KEYS",
    "SLICE_KEYS",
    "On",
    "Rule",
    "RuleError",
    "load_rules",
    "parse_rules",
    "parse_where",
    "where_columns",
    "where_expression",
]

#: Which number a bound applies to: the value, or an end of its bootstrap interval.
On = Literal["value", "ci_low", "ci_high"]

#: Every key a rule may have, in one spelling (TOML, Python dicts, the docs).
RULE_KEYS = (
    "name",
    "measure",
    "operator",
    "by",
    "where",
    "min",
    "max",
    "on",
    "max_drop",
    "max_relative_drop",
    "baseline",
    "min_examples",
    "severity",
    "n_boot",
    "band",
    "width",
    "quantiles",
    "min_reference_windows",
    "min_labelled_share",
    "slices",
    "max_depth",
    "alpha",
    "correction",
)
#: Keys of a check's bound and filter: an error in a monitoring rule (its bound is its band).
CHECK_ONLY_KEYS = (
    "where",
    "min",
    "max",
    "on",
    "max_drop",
    "max_relative_drop",
    "baseline",
    "min_examples",
    "slices",
    "max_depth",
    "alpha",
    "correction",
)
#: The keys of a slice rule ("no slice significantly worse"), beside name, measure and operator.
SLICE_KEYS = ("slices", "max_depth", "alpha", "correction", "min_examples", "n_boot", "severity")
#: Defaults of a slice rule's search (those of :func:`~aggframe.decisions.slices.slices`).
SLICE_DEFAULTS: dict[str, Any] = {
    "max_depth": 2,
    "alpha": 0.05,
    "correction": "holm",
    "min_examples": 30,
    "n_boot": 200,
}
#: The band's options: an error in a check's rule.
MONITOR_ONLY_KEYS = BAND_KEYS


class RuleError(OptionError):
    """A rule (or a rules file) that cannot be read: the message names the file, the rule and the key."""


@dataclass(frozen=True)
class Rule:
    """One check: ``measure`` under ``operator`` per ``by`` group, against one bound.

    Parameters
    ----------
    measure
        A measure name or alias that :meth:`~aggframe.Predictions.evaluate` takes
        (measures on scores included).
    operator
        ``micro`` (default), ``macro``, ``weighted``, ``exemplar``, ``binary``,
        ``multiclass`` or ``target``.
    name
        A name for reports (default: ``"<operator> <measure> <bound>"``).
    by
        Group columns: the rule holds in every group.
    where
        A SQL boolean expression over the input's columns (``day >= 3 AND model <> 'x'``).
    min, max
        Absolute bounds on the number the rule looks at.
    on
        ``value`` (default), ``ci_low`` or ``ci_high`` (needs ``n_boot``).
    max_drop, max_relative_drop
        Largest allowed drop below the baseline (absolute, or as a share of it).
    baseline
        The reference of a drop: ``{"model": "lr"}`` (another group of the same
        input, matched on the other by-columns), or a path (a cell store, or a
        Parquet/CSV file of expected values), or None (the baseline given to
        :func:`~aggframe.check`).
    min_examples
        Groups with fewer examples are ``skipped``.
    severity
        ``error`` (default) or ``warn``.
    n_boot
        Bootstrap replicates for the interval (``on``) or the paired difference
        (monitoring: for each window's standard error).
    band, width, quantiles, min_reference_windows, min_labelled_share
        Monitoring only: the band's options of :func:`~aggframe.monitor` (None: its
        default). A check's rule may not set them.
    slices
        Slice columns: the rule is "no slice significantly worse" (a slice is one value
        of each of up to ``max_depth`` of these columns, held against the rest of the
        data by :func:`~aggframe.decisions.slices.slices`); it takes no bound, ``by``,
        ``where`` or ``baseline``, and fails once per significantly worse slice.
    max_depth, alpha, correction
        A slice rule's search (defaults 2, 0.05 and ``holm``); ``min_examples`` and
        ``n_boot`` default to 30 and 200 there.

    Raises
    ------
    RuleError
        Not at construction: :func:`~aggframe.check` (and :func:`parse_rules`) validate
        every rule they are given and raise it for an unknown measure or operator, a
        missing or contradictory bound, or a value of the wrong type.

    Examples
    --------
    >>> from aggframe.decisions.rules import Rule
    >>> Rule("f1", "macro", by=("model",), min=0.9).label
    'macro f1 >= 0.9'
    """

    measure: str
    operator: str = "micro"
    name: str | None = None
    by: tuple[str, ...] = ()
    where: str | None = None
    min: float | None = None
    max: float | None = None
    on: On = "value"
    max_drop: float | None = None
    max_relative_drop: float | None = None
    baseline: str | Mapping[str, Any] | None = None
    min_examples: int | None = None
    severity: Severity = "error"
    n_boot: int | None = None
    band: BandRule | None = None
    width: float | None = None
    quantiles: tuple[float, float] | None = None
    min_reference_windows: int | None = None
    min_labelled_share: float | None = None
    slices: tuple[str, ...] = ()
    max_depth: int | None = None
    alpha: float | None = None
    correction: SliceCorrection | None = None
    #: where the rule came from, for messages (``gate.toml, rule 2``)
    origin: str = field(default="", compare=False)

    @property
    def label(self) -> str:
        """The rule's name, or a description of it.

        Returns
        -------
        str
            ``name`` when given, else ``"<operator> <measure> <bounds>[ where <filter>]"``
            (a monitoring rule, which has no bounds: ``"<measure> <operator>"``).
        """
        if self.name is not None:
            return self.name
        if self.slices:
            return f"{self.operator} {self.measure}: no slice of {', '.join(self.slices)} significantly worse"
        bounds = []
        if self.min is not None:
            bounds.append(f">= {self.min:g}")
        if self.max is not None:
            bounds.append(f"<= {self.max:g}")
        if self.max_drop is not None:
            bounds.append(f"drop <= {self.max_drop:g}")
        if self.max_relative_drop is not None:
            bounds.append(f"relative drop <= {self.max_relative_drop:g}")
        if not bounds:
            return f"{self.measure} {self.operator}"
        where = f" where {self.where}" if self.where else ""
        return f"{self.operator} {self.measure} {' and '.join(bounds)}{where}"

    @property
    def is_drop(self) -> bool:
        """Whether the rule compares with a baseline.

        Returns
        -------
        bool
            True when ``max_drop`` or ``max_relative_drop`` is set.
        """
        return self.max_drop is not None or self.max_relative_drop is not None

    def as_dict(self) -> dict[str, Any]:
        """The rule's keys (those set), as a rules file spells them.

        Returns
        -------
        dict
            Key -> value for every key that is set and not at its default (tuples
            as lists), ready for TOML or JSON; ``parse_rule`` reads it back.
        """
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if (
                f.name == "origin"
                or v is None
                or v == ()
                or (f.name, v) in (("on", "value"), ("severity", "error"))
            ):
                continue
            out[f.name] = list(v) if isinstance(v, tuple) else (dict(v) if isinstance(v, Mapping) else v)
        return out


def _fail(origin: str, key: str | None, what: str) -> RuleError:
    where = f"{origin}: " if origin else ""
    named = f"key {key!r}: " if key else ""
    return RuleError(f"{where}{named}{what}")


def _number(origin: str, key: str, value: Any, *, nonnegative: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise _fail(origin, key, f"expected a number, got {value!r}")
    if nonnegative and value < 0:
        raise _fail(origin, key, f"expected a number >= 0, got {value!r}")
    return float(value)


def _count(origin: str, key: str, value: Any, *, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise _fail(origin, key, f"expected an integer >= {least}, got {value!r}")
    return value


def _choice(origin: str, key: str, value: Any, options: Sequence[str]) -> str:
    if value not in options:
        raise _fail(origin, key, f"expected one of {', '.join(map(repr, options))}, got {value!r}")
    return cast("str", value)


def _measure(origin: str, value: Any, operator: str) -> str:
    if not isinstance(value, str) or not value:
        raise _fail(origin, "measure", f"expected a measure name, got {value!r}")
    if value.lower() in SCORE_MEASURES:
        return value.lower()
    if operator == "multiclass":
        canon = matrix_canonical(value)
        if canon is None:
            raise _fail(
                origin,
                "measure",
                f"{value!r} is not a measure of the multiclass operator; those are {', '.join(MATRIX_MEASURES)}",
            )
        return canon
    try:
        return get_measure(value).name
    except AggframeError as exc:
        raise _fail(origin, "measure", str(exc)) from None


def _by(origin: str, value: Any) -> tuple[str, ...]:
    cols = [value] if isinstance(value, str) else value
    if not isinstance(cols, (list, tuple)) or not all(isinstance(c, str) for c in cols):
        raise _fail(origin, "by", f"expected a column name or a list of them, got {value!r}")
    if len(set(cols)) != len(cols):
        raise _fail(origin, "by", f"a column is named twice: {list(cols)!r}")
    return tuple(cols)


def _baseline(origin: str, value: Any, by: tuple[str, ...]) -> str | dict[str, Any] | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Mapping) and value:
        outside = [k for k in value if k not in by]
        if outside:
            raise _fail(
                origin,
                "baseline",
                f"a baseline group names by-columns of the rule; {outside[0]!r} is not in by={list(by)!r}",
            )
        return dict(value)
    raise _fail(origin, "baseline", f"expected a group like {{model = 'lr'}} or a path, got {value!r}")


def _band_options(origin: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    """The band's options of a monitoring rule, checked (None: monitor's default)."""
    return band_options(spec, lambda key, problem: _fail(origin, key, problem))


def _slice_rule(origin: str, spec: Mapping[str, Any], measure: str, operator: str, name: Any) -> Rule:
    """A rule with ``slices``: "no slice significantly worse" (its own keys only)."""
    other = [k for k in spec if k not in (*SLICE_KEYS, "name", "measure", "operator")]
    if other:
        raise _fail(
            origin,
            other[0],
            "a slice rule (slices = [...]) takes no bound, by, where or baseline: it fails on each slice "
            f"significantly worse than the rest; its keys are name, measure, operator, {', '.join(SLICE_KEYS)}",
        )
    cols = spec["slices"]
    cols = [cols] if isinstance(cols, str) else cols
    if not isinstance(cols, (list, tuple)) or not all(isinstance(c, str) and c for c in cols):
        raise _fail(origin, "slices", f"expected a list of column names, got {spec['slices']!r}")
    if not cols:
        raise _fail(origin, "slices", "empty: name at least one column to slice by")
    if len(set(cols)) != len(cols):
        raise _fail(origin, "slices", f"a column is named twice: {list(cols)!r}")
    opts: dict[str, Any] = {}
    if spec.get("max_depth") is not None:
        opts["max_depth"] = _count(origin, "max_depth", spec["max_depth"], least=1)
    if spec.get("alpha") is not None:
        alpha = _number(origin, "alpha", spec["alpha"])
        if not 0 < alpha < 1:
            raise _fail(origin, "alpha", f"expected a level in (0, 1), got {spec['alpha']!r}")
        opts["alpha"] = alpha
    if spec.get("correction") is not None:
        opts["correction"] = _choice(origin, "correction", spec["correction"], get_args(SliceCorrection))
    if spec.get("min_examples") is not None:
        opts["min_examples"] = _count(origin, "min_examples", spec["min_examples"], least=1)
    if spec.get("n_boot") is not None:
        opts["n_boot"] = _count(origin, "n_boot", spec["n_boot"], least=2)
    severity = _choice(origin, "severity", spec.get("severity", "error"), get_args(Severity))
    return Rule(
        measure=measure,
        operator=operator,
        name=name,
        severity=cast("Severity", severity),
        slices=tuple(cols),
        origin=origin,
        **opts,
    )


def parse_rule(spec: Mapping[str, Any] | Rule, origin: str = "", *, kind: RuleKind = "check") -> Rule:
    """One rule from a dict of :data:`RULE_KEYS` (or a :class:`Rule`, validated again).

    Parameters
    ----------
    spec
        The rule's keys, or a :class:`Rule`.
    origin
        Where the rule comes from, for messages (``gate.toml, rule 2``).
    kind
        ``check`` (a bound is required; the band's keys are errors) or ``monitor``
        (the band is the bound; the keys of :data:`CHECK_ONLY_KEYS` are errors).

    Returns
    -------
    Rule
        The rule, with its measure's canonical name and operator.

    Raises
    ------
    RuleError
        An unknown key, a key of the other kind, a missing measure or bound, a value of the
        wrong type (the message names the origin, the rule and the key).
    """
    if isinstance(spec, Rule):
        origin = spec.origin or origin
        spec = spec.as_dict()
    if not isinstance(spec, Mapping):
        raise _fail(origin, None, f"expected a table of keys ({', '.join(RULE_KEYS)}), got {spec!r}")
    name = spec.get("name")
    if name is not None and not isinstance(name, str):
        raise _fail(origin, "name", f"expected text, got {name!r}")
    origin = f"{origin} ({name!r})" if name and origin else origin or (repr(name) if name else "")
    _check_keys(origin, spec, kind)
    operator = spec.get("operator", "micro")
    try:
        operator = parse_report_operator(operator)
    except AggframeError as exc:
        raise _fail(origin, "operator", str(exc)) from None
    measure = _measure(origin, spec["measure"], operator)
    if "slices" in spec:
        return _slice_rule(origin, spec, measure, operator, name)
    lone = next((k for k in ("max_depth", "alpha", "correction") if k in spec), None)
    if lone is not None:
        raise _fail(origin, lone, "is an option of a slice rule: give slices = [columns] too")
    by = _by(origin, spec.get("by", ()))
    bounds, drops = _bounds(origin, spec, kind)
    baseline = _baseline(origin, spec.get("baseline"), by)
    if baseline is not None and not drops:
        raise _fail(origin, "baseline", "a baseline needs max_drop or max_relative_drop")
    on = _choice(origin, "on", spec.get("on", "value"), ("value", "ci_low", "ci_high"))
    n_boot = None if spec.get("n_boot") is None else _count(origin, "n_boot", spec["n_boot"], least=2)
    if on != "value" and n_boot is None:
        raise _fail(origin, "on", f"on = {on!r} is an end of a bootstrap interval: give n_boot (e.g. 200)")
    min_examples = (
        None
        if spec.get("min_examples") is None
        else _count(origin, "min_examples", spec["min_examples"], least=0)
    )
    severity = _choice(origin, "severity", spec.get("severity", "error"), get_args(Severity))
    return Rule(
        measure=measure,
        operator=operator,
        name=name,
        by=by,
        where=_where(origin, spec.get("where")),
        min=bounds.get("min"),
        max=bounds.get("max"),
        on=cast("On", on),
        max_drop=drops.get("max_drop"),
        max_relative_drop=drops.get("max_relative_drop"),
        baseline=baseline,
        min_examples=min_examples,
        severity=cast("Severity", severity),
        n_boot=n_boot,
        **_band_options(origin, spec),
        origin=origin,
    )


def _check_keys(origin: str, spec: Mapping[str, Any], kind: RuleKind) -> None:
    """Every key known and of the rule's kind; a measure named."""
    unknown = [k for k in spec if k not in RULE_KEYS]
    if unknown:
        raise _fail(origin, str(unknown[0]), f"unknown key; a rule's keys are {', '.join(RULE_KEYS)}")
    other = [k for k in spec if k in (CHECK_ONLY_KEYS if kind == "monitor" else MONITOR_ONLY_KEYS)]
    if other and kind == "monitor":
        raise _fail(
            origin,
            other[0],
            "bounds a check; a monitor's bound is its band (band, width, quantiles, "
            "min_reference_windows, min_labelled_share)",
        )
    if other:
        raise _fail(
            origin,
            other[0],
            "is a band option of monitoring; a check's bound is min, max, max_drop or max_relative_drop",
        )
    if "measure" not in spec:
        raise _fail(origin, "measure", "missing: every rule names a measure")


def _where(origin: str, where: Any) -> str | None:
    """A rule's ``where`` filter, parsed to check it (kept as text)."""
    if where is None:
        return None
    if not isinstance(where, str):
        raise _fail(origin, "where", f"expected a SQL boolean expression as text, got {where!r}")
    try:
        parse_where(where)
    except RuleError as exc:
        raise _fail(origin, "where", str(exc)) from None
    return where


def _bounds(
    origin: str, spec: Mapping[str, Any], kind: RuleKind
) -> tuple[dict[str, float], dict[str, float]]:
    """A rule's absolute bounds (min, max) and its drops (max_drop, max_relative_drop)."""
    bounds = {k: _number(origin, k, spec[k]) for k in ("min", "max") if spec.get(k) is not None}
    drops = {
        k: _number(origin, k, spec[k], nonnegative=True)
        for k in ("max_drop", "max_relative_drop")
        if spec.get(k) is not None
    }
    if not bounds and not drops and kind == "check":
        raise _fail(origin, None, "no bound: give min, max, max_drop or max_relative_drop")
    if bounds and drops:
        raise _fail(
            origin, None, "give absolute bounds (min, max) or drops (max_drop, max_relative_drop), not both"
        )
    if "min" in bounds and "max" in bounds and bounds["min"] > bounds["max"]:
        raise _fail(origin, "min", f"min {bounds['min']:g} is above max {bounds['max']:g}")
    return bounds, drops


def parse_rules(rules: Any, *, source: str = "", kind: RuleKind = "check") -> list[Rule]:
    """Rules from a list of dicts or :class:`Rule` objects, a TOML document's dict, or a path.

    Parameters
    ----------
    rules
        A list of dicts or :class:`Rule` objects, one of them, a TOML document's dict
        (``{"rule": [...]}``), or the path of a TOML file.
    source
        Where the rules come from, for messages.
    kind
        ``check`` or ``monitor`` (see :func:`parse_rule`).

    Returns
    -------
    list of Rule
        The rules, in order.

    Raises
    ------
    RuleError
        No rules, or a bad rule (the message names the source, the rule and the key).

    Examples
    --------
    >>> from aggframe.decisions.rules import parse_rules
    >>> [r.label for r in parse_rules([{"measure": "f1", "operator": "macro", "min": 0.9}])]
    ['macro f1 >= 0.9']
    >>> parse_rules([{"measure": "f1", "minimum": 0.9}])
    Traceback (most recent call last):
    ...
    aggframe.decisions.rules.RuleError: rule 1: key 'minimum': unknown key; a rule's keys are name, measure, operator, by, where, min, max, on, max_drop, max_relative_drop, baseline, min_examples, severity, n_boot, band, width, quantiles, min_reference_windows, min_labelled_share, slices, max_depth, alpha, correction
    """
    if isinstance(rules, (str, Path)):
        return load_rules(rules, kind=kind)
    if isinstance(rules, Rule) or (isinstance(rules, Mapping) and "measure" in rules):
        rules = [rules]
    if isinstance(rules, Mapping):
        extra = [k for k in rules if k != "rule"]
        if extra:
            raise _fail(
                source, str(extra[0]), "unknown top-level key; a rules file holds [[rule]] tables only"
            )
        if "rule" not in rules:
            raise _fail(source, None, "no [[rule]] tables")
        rules = rules["rule"]
    if not isinstance(rules, (list, tuple)):
        raise _fail(source, "rule", f"expected a list of rules ([[rule]] tables), got {rules!r}")
    if not rules:
        raise _fail(source, None, "no rules")
    prefix = f"{source}, " if source else ""
    return [parse_rule(r, f"{prefix}rule {i}", kind=kind) for i, r in enumerate(rules, 1)]


def load_rules(path: str | Path, *, kind: RuleKind = "check") -> list[Rule]:
    """The rules of a TOML file (an array of tables ``[[rule]]``); a string baseline path is
    read relative to the file.

    Parameters
    ----------
    path
        The TOML file.
    kind
        ``check`` or ``monitor`` (see :func:`parse_rule`).

    Returns
    -------
    list of Rule
        The rules, in order.

    Raises
    ------
    RuleError
        A missing or malformed file, or a bad rule (the message names the file, the rule and the key).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        msg = f"cannot read the rules file {str(p)!r}: {exc.strerror if isinstance(exc, OSError) else exc}"
        raise RuleError(msg) from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = f"{p}: not valid TOML: {exc}"
        raise RuleError(msg) from None
    rules = parse_rules(doc, source=str(p), kind=kind)
    return [
        replace(r, baseline=str(p.parent / r.baseline))
        if isinstance(r.baseline, str) and not Path(r.baseline).is_absolute()
        else r
        for r in rules
    ]


# --- where: the one row-filter language (aggframe.intake.where), with the errors of rules --------


def parse_where(text: str) -> Node:
    """The syntax tree of a ``where`` text (:func:`aggframe.intake.where.where_tree`, the grammar of
    ``--where`` too): comparisons (``= == != <> < <= > >=``), ``IN (...)``, ``BETWEEN a AND b``,
    ``IS [NOT] NULL``, ``AND``, ``OR``, ``NOT``, parentheses; columns bare or in double quotes
    (``"my col"``), text in single quotes, numbers, ``TRUE``/``FALSE``.

    Parameters
    ----------
    text
        A SQL boolean expression.

    Returns
    -------
    Node
        The syntax tree.

    Raises
    ------
    RuleError
        Text that is not such an expression (the message quotes where it stopped).

    Examples
    --------
    >>> parse_where("day >= 3 AND \\"the model\\" IN ('a', 'b')")
    ('and', ('cmp', '>=', ('col', 'day'), ('lit', 3)), ('in', ('col', 'the model'), ('a', 'b')))
    """
    try:
        return where_tree(text)
    except AggframeError as exc:
        raise RuleError(str(exc)) from None


def where_expression(text: str, schema: Mapping[str, Any] | None = None) -> nw.Expr:
    """A ``where`` text as a Narwhals boolean expression
    (:func:`aggframe.intake.where.where_expression`) that raises :class:`RuleError`.

    Parameters
    ----------
    text
        A SQL boolean expression.
    schema
        Column -> Polars dtype, to check the columns and the literals' types against.

    Returns
    -------
    narwhals.Expr
        True where the row is kept (never null).

    Raises
    ------
    RuleError
        A column that is not in ``schema``, a literal of another type than its column, or
        text that does not parse.

    Examples
    --------
    >>> import polars as pl, narwhals.stable.v1 as nw
    >>> df = nw.from_native(pl.DataFrame({"day": [1, 3, None]}))
    >>> df.select(where_expression("day >= 3 OR day IS NULL").alias("w"))["w"].to_list()
    [False, True, True]
    """
    try:
        return _where_expression(text, schema)
    except AggframeError as exc:
        raise RuleError(str(exc)) from None
