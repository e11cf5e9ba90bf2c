"""af.log_mlflow: a report and a check logged to a local MLflow file store (nothing leaves the machine)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import aggframe as af

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def mlflow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    module = pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"file:{tmp_path / 'runs'}")
    monkeypatch.setenv("MLFLOW_ENABLE_ASYNC_LOGGING", "false")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # the local file store: no database, no server
    module.set_tracking_uri(f"file:{tmp_path / 'runs'}")
    yield module
    module.set_tracking_uri(None)


@pytest.mark.slow
def test_report_and_check_logged_to_a_run(mlflow: Any, tmp_path: Path) -> None:
    pr = af.from_labels(pl.read_parquet(EXAMPLES / "predictions.parquet"))
    report = pr.evaluate(["f1", "recall"], ["macro", "micro"], by="model", grouping_sets=[["model"], []])
    result = af.check(pr, [{"measure": "f1", "operator": "macro", "by": "model", "min": 0.7}])
    plot = all(importlib.util.find_spec(m) for m in ("altair", "vl_convert", "great_tables"))
    run_id = af.log_mlflow(report, check=result, predictions=pr if plot else None)
    run = mlflow.MlflowClient().get_run(run_id)
    overall = report.filter(pl.col("grouping_set") == "")
    want = {f"{m}_{o}": v for m, o, v in overall.select("measure", "operator", "value").iter_rows()}
    want |= {"check_failures": 1.0, "check_warnings": 0.0}
    assert run.data.metrics == pytest.approx(want, abs=1e-12)
    assert run.data.tags["aggframe.check"] == "failed"
    local = Path(mlflow.artifacts.download_artifacts(run_id=run_id, dst_path=str(tmp_path / "got")))
    table = json.loads((local / "aggframe" / "report.json").read_text(encoding="utf-8"))
    assert table["columns"][:3] == ["model", "grouping_set", "grouping_id"]
    assert len(table["data"]) == report.height
    rows = json.loads((local / "aggframe" / "check.json").read_text(encoding="utf-8"))
    status = rows["columns"].index("status")
    assert [r[status] for r in rows["data"]] == result.frame["status"].to_list()
    if plot:
        page = (local / "aggframe" / "report.html").read_text(encoding="utf-8")
        assert page.index('<section id="verdict">') < page.index(
            "<h2", page.index('<section id="verdict">') + 30
        )


def test_an_active_run_and_nothing_to_log(mlflow: Any) -> None:
    pr = af.from_labels([0, 1, 1, 0], [0, 1, 0, 0])
    with mlflow.start_run() as run:
        got = af.log_mlflow(check=af.check(pr, [{"measure": "recall", "min": 0.5}]), prefix="val_")
    assert got == run.info.run_id
    data = mlflow.MlflowClient().get_run(got).data
    assert data.tags["aggframe.check"] == "passed"
    assert data.metrics == {"val_check_failures": 0.0, "val_check_warnings": 0.0}
    with pytest.raises(af.errors.OptionError, match="log_mlflow needs a report or a check"):
        af.log_mlflow()
