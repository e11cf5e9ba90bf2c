"""Experiment trackers: a report and a check result logged to an MLflow run (the ``mlflow`` extra).

MLflow has no grouped metrics (its users log one run per group), so the per-group
values go in as a table artifact, and only the overall values (rows without a group)
as metrics; a check's verdict is a tag and its rows a second table; the HTML report,
with the verdict at its top, an artifact.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe.exceptions import OptionError

if TYPE_CHECKING:
    from aggframe.decisions.checks import CheckResult
    from aggframe.predictions import Predictions

__all__ = ["log_mlflow"]


def _mlflow() -> Any:
    try:
        import mlflow
    except ImportError:
        msg = "log_mlflow needs MLflow: pip install 'aggframe[mlflow]' (mlflow-skinny is enough)"
        raise OptionError(msg) from None
    return mlflow


def _metric_key(row: dict[str, Any], prefix: str) -> str:
    parts = [row["measure"], row["operator"]]
    for extra in ("convention", "pooling"):
        if row.get(extra) not in (None, "exclude", "pooled"):
            parts.append(str(row[extra]))
    return f"{prefix}{'_'.join(str(p) for p in parts)}"


def _overall(report: pl.DataFrame) -> pl.DataFrame:
    """The report's rows without a group: all of them without by-keys, else the overall grouping set."""
    if "grouping_set" in report.columns:
        return report.filter(pl.col("grouping_set") == "")
    stats = {"measure", "operator", "convention", "pooling", "value", "n_entries", "n_undefined", "ci_low"}
    stats |= {"ci_high", "se", "n_boot", "level", "support", "n_examples"}
    keys = [c for c in report.columns if c not in stats]
    return report if not keys else report.head(0)


def _table(frame: pl.DataFrame) -> dict[str, list[Any]]:
    """A frame as MLflow's table: columns of JSON-ready values (a float NaN as null)."""
    out = frame.with_columns(pl.col(pl.Float64, pl.Float32).fill_nan(None))
    return {
        c: [v if isinstance(v, (str, int, float, bool)) or v is None else str(v) for v in out[c]]
        for c in out.columns
    }


def log_mlflow(
    report: pl.DataFrame | None = None,
    *,
    check: CheckResult | None = None,
    predictions: Predictions | None = None,
    run_id: str | None = None,
    prefix: str = "",
) -> str:
    """Log a report and/or a check result to an MLflow run; the run's id.

    Per-group values: the table artifact ``aggframe/report.json`` (and
    ``aggframe/check.json`` for a check's rows). Overall values (rows without a
    group): metrics ``<prefix><measure>_<operator>`` (plus the convention or pooling
    when not the default). A check: the tag ``aggframe.check`` (``passed`` or
    ``failed``) and the metrics ``<prefix>check_failures`` and ``<prefix>check_warnings``.
    With ``predictions`` (and the ``plot`` extra), the HTML report of ``report`` (the
    check's verdict at its top) as the artifact ``aggframe/report.html``.

    Parameters
    ----------
    report
        A result of :meth:`~aggframe.Predictions.evaluate`.
    check
        A result of :func:`~aggframe.check`.
    predictions
        The predictions the report was evaluated from, for the HTML report.
    run_id
        The run to log to (default: the active run, else a new one, ended after logging).
    prefix
        Put in front of every metric's name.

    Returns
    -------
    str
        The run's id.

    Raises
    ------
    OptionError
        MLflow is not installed, or nothing is given to log.

    Examples
    --------
    >>> import tempfile, mlflow, aggframe as af  # doctest: +SKIP
    >>> mlflow.set_tracking_uri("file:" + tempfile.mkdtemp())  # doctest: +SKIP
    >>> pr = af.from_labels([0, 1, 1, 0], [0, 1, 0, 0])  # doctest: +SKIP
    >>> run = af.log_mlflow(pr.evaluate("f1", "macro"), check=af.check(pr, [{"measure": "f1", "min": 0.5}]))  # doctest: +SKIP
    """
    if report is None and check is None:
        msg = "log_mlflow needs a report or a check (or both)"
        raise OptionError(msg)
    mlflow = _mlflow()
    client = mlflow.MlflowClient()
    started = None
    if run_id is None:
        active = mlflow.active_run()
        if active is None:
            started = mlflow.start_run()
            active = started
        run_id = str(active.info.run_id)
    try:
        if report is not None:
            client.log_table(run_id, data=_table(report), artifact_file="aggframe/report.json")
            for row in _overall(report).iter_rows(named=True):
                value = row["value"]
                if value is not None and not math.isnan(value):  # MLflow stores no NaN worth reading
                    client.log_metric(run_id, _metric_key(row, prefix), float(value))
        if check is not None:
            client.log_table(run_id, data=_table(check.frame), artifact_file="aggframe/check.json")
            client.set_tag(run_id, "aggframe.check", "passed" if check.passed else "failed")
            counts = check.counts()
            client.log_metric(run_id, f"{prefix}check_failures", float(counts["fail"]))
            client.log_metric(run_id, f"{prefix}check_warnings", float(counts["warn"]))
        if predictions is not None and report is not None:
            _log_html(client, run_id, predictions, report, check)
    finally:
        if started is not None:
            mlflow.end_run()
    return run_id


def _log_html(
    client: Any, run_id: str, predictions: Predictions, report: pl.DataFrame, check: CheckResult | None
) -> None:
    from aggframe.interop.html import write_html_report
    from aggframe.interop.html_verdict import write_verdict

    keys = [
        c for c in predictions.source.columns() if c in report.columns and c not in ("measure", "operator")
    ]
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        write_html_report(page, predictions, report, by=keys or None)
        if check is not None:
            write_verdict(page, check)
        client.log_artifact(run_id, str(page), artifact_path="aggframe")
