"""Monitoring over time: each window's value against a band drawn from reference windows.

:func:`monitor` evaluates the predictions per window (``evaluate(..., time=,
every=, period=)``, one scan), evaluates the reference the same way (a time
range of the same predictions, other predictions, a frame with the same roles,
or a cell store), and per (group, measure, operator, convention) draws a band
from the reference windows' values:

``sd`` (default)
    ``mean +- width * sd`` of the reference windows' values (``width=3``), the
    rule NannyML uses for performance: under a steady reference regime about
    0.3% of windows fall outside by chance if the values are near normal.
``quantile``
    the ``quantiles`` (default 0.005 and 0.995) of the reference windows'
    values: no normality assumption, but it needs many reference windows.

A window ``alert``\\ s when its value leaves the band. Trailing windows that
run past the data's last ``every`` slot hold fewer slots than the others
(status ``"partial"``): they are reported, not judged, and never make a band. Each window also carries
its sampling error ``se``: the bootstrap's standard deviation with ``n_boot``,
otherwise the binomial approximation ``sqrt(v (1 - v) / n)`` over the window's
``n_window`` examples (exact in form for accuracy-like proportions, a rough scale for
the other measures; shown beside the band, not used by it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

import narwhals as nw
import polars as pl

from aggframe._columns import check_result_names
from aggframe._options import BandRule, Engine, Severity, Unlabelled, listify
from aggframe.cells import Cells
from aggframe.constructors import from_cells
from aggframe.decisions.bands import band_options
from aggframe.decisions.rules import MONITOR_ONLY_KEYS, Rule, load_rules, parse_rules
from aggframe.exceptions import OptionError
from aggframe.facade.windows import WINDOW_COLUMNS, windowed_evaluate
from aggframe.intake.frame_input import is_frame
from aggframe.intake.stored import StoredSource

if TYPE_CHECKING:
    from aggframe.predictions import Predictions

__all__ = [
    "MONITOR_COLUMNS",
    "STATUSES",
    "load_monitor_rules",
    "monitor",
    "monitor_rules",
]

#: The columns :func:`monitor` adds after those of the windowed evaluation.
MONITOR_COLUMNS = (
    "se",
    "band_center",
    "band_low",
    "band_high",
    "n_reference",
    "in_reference",
    "status",
    "alert",
    "severity",
)
#: What ``status`` says of a window.
STATUSES = ("ok", "alert", "new group", "partial", "no band", "few labels", "undefined")


def _band_keys(out: pl.DataFrame, by: Sequence[str]) -> list[str]:
    """What a band is per: the key columns (those before ``measure``, the windows aside) and the
    spec columns; never a statistic (so a column evaluate adds later cannot split the bands)."""
    first = out.columns.index("measure") if "measure" in out.columns else len(out.columns)
    keys = [c for c in out.columns[:first] if c not in WINDOW_COLUMNS]
    spec = [c for c in ("measure", "operator", "convention", "pooling", "within") if c in out.columns]
    return [*dict.fromkeys([*by, *keys, *spec])]


def _reference(
    pr: Predictions, reference: Any, run: Any, current: pl.DataFrame
) -> tuple[pl.DataFrame, pl.Expr | None]:
    """The reference windows' values, and (for a time range) which current windows are reference ones."""
    if isinstance(reference, (tuple, list)) and len(reference) == 2:
        start, end = reference
        for bound in (start, end):
            if not isinstance(bound, (date, datetime)):
                msg = f"Expected reference=(start, end) as dates or datetimes, got {reference!r}"
                raise OptionError(msg)
        inside = (pl.col("window_start") >= pl.lit(start)) & (pl.col("window_end") <= pl.lit(end))
        if isinstance(current.schema["window_start"], pl.Datetime):
            zone = current.schema["window_start"].time_zone
            lo, hi = (pl.lit(b).cast(pl.Datetime("us", zone)) for b in (start, end))
            inside = (pl.col("window_start") >= lo) & (pl.col("window_end") <= hi)
        return current.filter(inside), inside
    if isinstance(reference, (str, Path)):
        return run(from_cells(reference)), None
    if isinstance(reference, Cells):
        return run(replace(pr, source=reference.source(), _cache={}, _boot_cache={})), None
    if hasattr(reference, "source") and hasattr(reference, "evaluate"):
        return run(reference), None
    if is_frame(reference):
        if isinstance(pr.source, StoredSource):
            msg = (
                "reference= as a frame needs predictions read from rows (stored cells have no roles to reuse)"
            )
            raise OptionError(msg)
        same_roles = replace(pr, source=replace(pr.source, frame=nw.from_native(_lazy(reference))), _cache={})
        return run(same_roles), None
    msg = (
        "Expected reference= to be a (start, end) time range, predictions, a frame with the same "
        f"columns, cells or a cell store path, got {type(reference).__name__}"
    )
    raise OptionError(msg)


def _lazy(frame: Any) -> Any:
    return frame.lazy() if isinstance(frame, pl.DataFrame) else frame


def monitor(  # noqa: PLR0913 -- the user's options, keyword-only
    pr: Predictions,
    measures: Any = None,
    operators: str | Sequence[str] | None = None,
    *,
    time: str,
    every: str,
    period: str | None = None,
    offset: str | None = None,
    reference: Any,
    by: str | Sequence[str] | None = None,
    convention: str | Sequence[str] = "exclude",
    band: BandRule = "sd",
    width: float = 3.0,
    quantiles: tuple[float, float] = (0.005, 0.995),
    min_reference_windows: int = 3,
    n_boot: int | None = None,
    seed: int = 0,
    unlabelled: Unlabelled | None = None,
    min_labelled_share: float = 0.5,
    severity: Severity = "error",
    engine: Engine = "auto",
) -> pl.DataFrame:
    """Each window's value, a band from the reference windows, its sampling error and an alert.

    Parameters
    ----------
    pr
        The predictions to watch (any form; stored cells need ``time`` among their keys).
    measures, operators
        As :meth:`~aggframe.Predictions.evaluate` (default: ``f1`` under ``macro``).
    time, every, period, offset
        The windows, as :meth:`~aggframe.Predictions.evaluate` takes them.
    reference
        Where the band comes from: a ``(start, end)`` time range of ``pr`` (the
        windows lying wholly inside it), other predictions or :class:`~aggframe.Cells`
        windowed the same way, a frame with the same columns as ``pr``'s, or
        the path of a cell store.
    by
        Group columns: one band per group (and measure, operator, convention).
    convention
        As :meth:`~aggframe.Predictions.evaluate`.
    band
        ``"sd"``: ``mean +- width * sd`` of the reference windows' values
        (NannyML's rule); ``"quantile"``: their ``quantiles``.
    width
        The band's half-width in standard deviations (``band="sd"``).
    quantiles
        The band's lower and upper quantiles (``band="quantile"``).
    min_reference_windows
        Fewer reference windows with a value than this give no band (status ``"no band"``).
    n_boot, seed
        Bootstrap each window (``se``, ``ci_low``, ``ci_high`` from the resamples).
    unlabelled
        ``"count"``: a null truth means not yet labelled (see :meth:`~aggframe.Predictions.evaluate`).
    min_labelled_share
        With ``unlabelled``: a window whose labelled share is below this gets
        status ``"few labels"`` and no alert.
    severity
        ``"error"`` or ``"warn"`` (the rule language's words): what an alert of this monitor is (the
        command line exits 1 on alerts of severity ``error``).
    engine
        Polars engine for the collects.

    Returns
    -------
    polars.DataFrame
        by..., window_start, window_end, measure, operator, convention, value,
        n_entries, n_undefined, [ci_low, ci_high, n_boot, level], [n_labelled,
        n_unlabelled, labelled_share], n_window (the window's examples), se, band_center,
        band_low, band_high, n_reference (reference windows behind the band),
        in_reference, status (one of :data:`STATUSES`), alert, severity.

    Raises
    ------
    OptionError
        On a bad option or reference.

    Examples
    --------
    >>> import datetime as dt
    >>> import polars as pl
    >>> import aggframe as af
    >>> days = [dt.date(2024, 1, 1) + dt.timedelta(days=d) for d in range(8) for _ in range(4)]
    >>> y = [0, 1, 1, 0] * 8
    >>> p = [0, 1, 1, 0] * 6 + [1, 0, 0, 1] * 2
    >>> pr = af.from_labels(pl.DataFrame({"day": days, "y": y, "p": p}), y_true="y", y_pred="p")
    >>> ref = (dt.date(2024, 1, 1), dt.date(2024, 1, 7))
    >>> out = af.monitor(pr, "accuracy", "multiclass", time="day", every="1d", reference=ref)
    >>> out.filter("alert").select("window_start", "value", "status")
    shape: (2, 3)
    ┌──────────────┬───────┬────────┐
    │ window_start ┆ value ┆ status │
    │ ---          ┆ ---   ┆ ---    │
    │ date         ┆ f64   ┆ str    │
    ╞══════════════╪═══════╪════════╡
    │ 2024-01-07   ┆ 0.0   ┆ alert  │
    │ 2024-01-08   ┆ 0.0   ┆ alert  │
    └──────────────┴───────┴────────┘
    """
    check_result_names(listify(by), [*MONITOR_COLUMNS, "n_window", "_complete", "_seen"], "monitor")
    _check_options(
        band,
        width,
        quantiles,
        min_windows=min_reference_windows,
        min_share=min_labelled_share,
        severity=severity,
    )
    keys = listify(by)
    measures = "f1" if measures is None else measures
    operators = "macro" if operators is None else operators
    options = {"by": keys, "convention": convention, "n_boot": n_boot, "seed": seed, "engine": engine}

    def run(p: Any, labels: Unlabelled | None = None) -> pl.DataFrame:
        window = {"time": time, "every": every, "period": period, "offset": offset}
        return windowed_evaluate(
            p, measures, operators, window, unlabelled=labels, options=dict(options), sizes=True
        )

    current = _complete(run(pr, unlabelled), every)
    ref, inside = _reference(pr, reference, lambda p: _complete(run(p, None), every), current)
    ref = ref.filter(pl.col("_complete"))
    rule: dict[str, Any] = {"band": band, "width": width, "quantiles": quantiles}
    rule |= {"min_windows": min_reference_windows, "min_share": min_labelled_share, "severity": severity}
    return _judge(current, ref, inside, by=keys, **rule)


def _complete(out: pl.DataFrame, every: str) -> pl.DataFrame:
    """``_complete``: whether a window ends by the end of the data's last bucket (a trailing window
    holds fewer buckets: its value is noisier than the band's windows, so it is not judged)."""
    last = pl.col("window_start").max().dt.offset_by(every)
    return out.with_columns((pl.col("window_end") <= last).alias("_complete"))


def _check_options(
    band: str,
    width: float,
    quantiles: tuple[float, float],
    *,
    min_windows: int,
    min_share: float,
    severity: str,
) -> None:
    """The band's options (checked where a monitoring rule's are: :mod:`aggframe.decisions.bands`)."""
    options = {"band": band, "width": width, "quantiles": quantiles}
    band_options(options | {"min_reference_windows": min_windows, "min_labelled_share": min_share})
    if severity not in get_args(Severity):
        msg = f"severity=: expected one of {', '.join(map(repr, get_args(Severity)))}, got {severity!r}"
        raise OptionError(msg)


def _judge(  # noqa: PLR0913 -- the monitor's band options
    current: pl.DataFrame,
    ref: pl.DataFrame,
    inside: pl.Expr | None,
    *,
    by: list[str],
    band: str,
    width: float,
    quantiles: tuple[float, float],
    min_windows: int,
    min_share: float,
    severity: str,
) -> pl.DataFrame:
    """Bands from the reference windows, joined to the current windows; status and alert."""
    keys = _band_keys(current, by)
    groups = ref.select(by).unique() if by else None
    v = pl.col("value")
    usable = ref.filter(v.is_not_null() & v.is_finite())
    lo_q, hi_q = quantiles
    stats = usable.group_by(keys).agg(
        v.mean().alias("band_center"),
        v.std(ddof=1).alias("_sd"),
        v.quantile(lo_q, interpolation="linear").alias("_qlo"),
        v.quantile(hi_q, interpolation="linear").alias("_qhi"),
        pl.len().cast(pl.Int64).alias("n_reference"),
    )
    if band == "sd":
        low, high = (
            pl.col("band_center") - width * pl.col("_sd"),
            pl.col("band_center") + width * pl.col("_sd"),
        )
    else:
        low, high = pl.col("_qlo"), pl.col("_qhi")
    stats = stats.with_columns(low.alias("band_low"), high.alias("band_high")).drop("_sd", "_qlo", "_qhi")
    out = current.join(stats, on=keys, how="left", nulls_equal=True, maintain_order="left")
    if groups is not None:
        seen = groups.with_columns(pl.lit(value=True).alias("_seen"))
        out = out.join(seen, on=by, how="left", nulls_equal=True, maintain_order="left")
    else:
        out = out.with_columns(pl.lit(not ref.is_empty()).alias("_seen"))
    n = pl.col("__af_n").cast(pl.Float64)
    approx = pl.when(n > 0).then((v * (1 - v) / n).clip(lower_bound=0).sqrt())
    se = pl.col("se") if "se" in out.columns else approx
    few = (
        pl.col("labelled_share").fill_null(0.0) < min_share
        if "labelled_share" in out.columns
        else pl.lit(value=False)
    )
    enough = pl.col("n_reference").fill_null(0) >= min_windows
    outside = (v < pl.col("band_low")) | (v > pl.col("band_high"))
    status = (
        pl.when(pl.col("_seen").is_null())
        .then(pl.lit("new group"))
        .when(~pl.col("_complete"))
        .then(pl.lit("partial"))
        .when(~enough)
        .then(pl.lit("no band"))
        .when(few)
        .then(pl.lit("few labels"))
        .when(v.is_null() | v.is_nan())
        .then(pl.lit("undefined"))
        .when(outside)
        .then(pl.lit("alert"))
        .otherwise(pl.lit("ok"))
    )
    out = out.with_columns(
        se.alias("se"),
        pl.col("n_reference").fill_null(0),
        (inside if inside is not None else pl.lit(value=False)).alias("in_reference"),
        status.alias("status"),
    )
    out = out.with_columns((pl.col("status") == "alert").alias("alert"), pl.lit(severity).alias("severity"))
    first = [c for c in out.columns if c not in MONITOR_COLUMNS and c not in ("_seen", "__af_n", "_complete")]
    return out.select(*first, pl.col("__af_n").alias("n_window"), *MONITOR_COLUMNS)


def load_monitor_rules(path: str | Path) -> list[Rule]:
    """The ``[[rule]]`` tables of a TOML file, read by the rule language of checks for monitoring.

    One parser reads both (:func:`aggframe.decisions.rules.load_rules` with
    ``kind="monitor"``): each rule names a ``measure`` and an ``operator`` (one each)
    and may give ``name``, ``by``, ``severity`` (``"error"``/``"warn"``), ``n_boot``
    and the band options of :func:`monitor` (``band``, ``width``, ``quantiles``,
    ``min_reference_windows``, ``min_labelled_share``). The bounds of checks
    (``min``, ``max_drop``, ...) and their ``where``/``min_examples`` do not apply:
    the band is the bound. An unknown key is an error naming it.

    Parameters
    ----------
    path
        The TOML file.

    Returns
    -------
    list of Rule
        The rules, in order.

    Raises
    ------
    RuleError
        A missing or malformed file, or a bad rule (the message names the file, the rule and the key).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "watch.toml"
    >>> _ = p.write_text('[[rule]]\\nmeasure = "f1"\\noperator = "macro"\\nby = ["model"]\\nwidth = 2.5\\n')
    >>> [(r.label, r.by, r.width) for r in load_monitor_rules(p)]
    [('f1 macro', ('model',), 2.5)]
    """
    return load_rules(path, kind="monitor")


def monitor_rules(pr: Predictions, rules: Any, **options: Any) -> pl.DataFrame:
    """:func:`monitor` for each rule, stacked with a ``rule`` column (the rule's label).

    Parameters
    ----------
    pr
        The predictions.
    rules
        Rules as :func:`aggframe.decisions.rules.parse_rules` takes them (dicts,
        :class:`~aggframe.decisions.rules.Rule` objects, a TOML path), read with
        ``kind="monitor"``.
    **options
        The options of :func:`monitor` that every rule shares (the windows, the reference, ...).

    Returns
    -------
    polars.DataFrame
        The tables of :func:`monitor`, one per rule, with ``rule`` first.

    Raises
    ------
    RuleError
        A bad rule.
    """
    tables = []
    for rule in parse_rules(rules, kind="monitor"):
        keys = rule.as_dict()
        own = {k: keys[k] for k in _MONITOR_OPTIONS if k in keys}
        if "quantiles" in own:
            own["quantiles"] = tuple(own["quantiles"])
        out = monitor(pr, rule.measure, rule.operator, **{**options, **own})
        tables.append(out.select(pl.lit(rule.label).alias("rule"), pl.all()))
    return pl.concat(tables, how="diagonal_relaxed")


#: The keys of a monitoring rule that are options of :func:`monitor`.
_MONITOR_OPTIONS = ("by", "severity", "n_boot", *MONITOR_ONLY_KEYS)
