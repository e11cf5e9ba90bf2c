"""The command line over time: ``aggframe report --time ...`` and ``aggframe monitor`` (exit 1 on alerts of severity error)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.interop.cli import main
from tests.test_monitor import DAY0, _log


@pytest.fixture(scope="module")
def log_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("time") / "log.parquet"
    _log(0, days=50, per_day=150).write_parquet(path)
    return path


def test_monitor_exits_1_on_an_alert_of_severity_error(
    log_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.csv"
    args = [
        "monitor",
        str(log_file),
        "--time",
        "day",
        "--every",
        "1d",
        "--period",
        "2d",
        "--by",
        "model",
        "--measures",
        "recall",
        "--operators",
        "micro",
        "--reference",
        "2024-01-01..2024-01-31",
        "-o",
        str(out),
    ]
    assert main(args) == 1
    table = pl.read_csv(out, try_parse_dates=True)
    pr = af.from_labels(pl.read_parquet(log_file))
    ref = (DAY0, DAY0 + dt.timedelta(days=30))
    want = af.monitor(pr, "recall", "micro", by="model", time="day", every="1d", period="2d", reference=ref)
    assert table["alert"].to_list() == want["alert"].to_list()
    assert table.filter("alert")["model"].unique().to_list() == ["a"]
    assert main([*args[:-2], "--severity", "warn", "-o", str(out)]) == 0


def test_report_with_time_writes_the_windows(log_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.parquet"
    code = main(
        [
            "report",
            str(log_file),
            "--time",
            "day",
            "--every",
            "1d",
            "--period",
            "7d",
            "--by",
            "model",
            "--measures",
            "f1",
            "--operators",
            "macro",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    got = pl.read_parquet(out)
    want = af.from_labels(pl.read_parquet(log_file)).evaluate(
        "f1", "macro", by="model", time="day", every="1d", period="7d"
    )
    assert_frame_equal(got.sort(pl.all()), want.sort(pl.all()), abs_tol=1e-12)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["report", "{f}", "--every", "1d"], "--time"),
        (["report", "{f}", "--time", "day"], "--every"),
        (["monitor", "{f}", "--time", "day", "--every", "1d", "--reference", "2024-01-01..soon"], "ISO"),
        (
            ["monitor", "{f}", "--time", "day", "--every", "1mo", "--reference", "2024-01-01..2024-01-05"],
            "calendar",
        ),
        (
            ["monitor", "{f}", "--time", "nope", "--every", "1d", "--reference", "2024-01-01..2024-01-05"],
            "nope",
        ),
    ],
)
def test_bad_time_options_are_one_line_and_exit_2(
    log_file: Path, args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([a.replace("{f}", str(log_file)) for a in args]) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_monitor_rules_from_toml(log_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "watch.toml"
    base = ["monitor", str(log_file), "--time", "day", "--every", "1d", "--period", "2d"]
    base += ["--reference", "2024-01-01..2024-01-31", "--rules", str(rules), "-o", str(tmp_path / "m.csv")]
    rules.write_text(
        '[[rule]]\nname = "recall per model"\nmeasure = "recall"\noperator = "micro"\nby = ["model"]\n'
        'severity = "warn"\n\n[[rule]]\nmeasure = "f1"\noperator = "macro"\nwidth = 50.0\n'
    )
    assert main(base) == 0  # model a's drop alerts under the warn rule; the pooled f1 rule holds
    table = pl.read_csv(tmp_path / "m.csv")
    assert set(table["rule"]) == {"recall per model", "f1 macro"}
    assert table.filter(pl.col("alert"))["rule"].unique().to_list() == ["recall per model"]
    rules.write_text('[[rule]]\nmeasure = "recall"\noperator = "micro"\nby = ["model"]\n')
    assert main(base) == 1
    rules.write_text('[[rule]]\nmeasure = "recall"\noperator = "micro"\nmin = 0.5\n')
    assert main(base) == 2
    assert "band" in capsys.readouterr().err
    rules.write_text('[[rule]]\nmeasure = "recall"\noperator = "micro"\nwidht = 2\n')
    assert main(base) == 2
    assert "widht" in capsys.readouterr().err
    assert main([*base, "--measures", "f1"]) == 2
    assert "--measures" in capsys.readouterr().err
