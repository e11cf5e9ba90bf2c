"""The command line for people: ``--html``, the progress display on a terminal, ``--quiet``, and
``--help`` with an example for every option.

Failures keep the house rule of tests/interop/test_cli_errors.py: one stderr line, exit code 2,
worded by kind, checked before anything is read.
"""

from __future__ import annotations

import argparse
import io
import re
import shlex
import threading
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import aggframe as af
from aggframe.interop import cli
from aggframe.interop.cli import main
from aggframe.predictions import Predictions
from tests.interop.test_cli_errors import FRAME, PREDICTIONS, _extra_fields, fails

CLEAR = "\r\x1b[K"
HTML_DEPS = all(
    __import__("importlib").util.find_spec(m) is not None for m in ("altair", "vl_convert", "great_tables")
)
needs_html = pytest.mark.skipif(not HTML_DEPS, reason="the plot extra is not installed")


class FakeTerminal(io.StringIO):
    """stderr as a terminal would be: isatty() is true."""

    def __init__(self, encoding: str = "utf-8") -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding

    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal() -> FakeTerminal:
    """A fake terminal; the test body makes it stderr (pytest's capture swaps sys.stderr when the
    test starts, after the fixtures are set up)."""
    return FakeTerminal()


@pytest.fixture
def slow_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scan takes 0.45 s more: long enough for the spinner to turn a few times."""
    original = Predictions._cell_tables

    def slow(self: Predictions, *args: Any, **kwargs: Any) -> Any:
        time.sleep(0.45)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Predictions, "_cell_tables", slow)


def test_the_table_labels_keys_as_everywhere(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The printed table showed a null key, the string "null" and a rolled-up key all as ``null``
    (three groups, one reading). Keys read as in the charts and the HTML report now; CSV keeps
    the values."""
    frame = pl.DataFrame(
        {"g": [None, "null", "(all)"] * 4, "y_true": [0, 1, 2, 0] * 3, "y_pred": [0, 1, 1, 2] * 3}
    )
    frame.write_parquet(tmp_path / "d.parquet")
    argv = ["report", str(tmp_path / "d.parquet"), "--by", "g", "--measures", "f1", "--operators", "macro"]
    assert main([*argv, "--grouping-sets", "rollup", "-q"]) == 0
    rows = [line.split("┆") for line in capsys.readouterr().out.splitlines() if "┆ f1 " in line]
    keys = [(r[0].strip("│ "), r[2].strip()) for r in rows]  # label, grouping_id
    assert sorted(keys) == sorted([('"(all)"', "0"), ("null", "0"), ("(null)", "0"), ("(all)", "1")])
    assert main([*argv, "--format", "csv", "-q"]) == 0
    assert pl.read_csv(io.StringIO(capsys.readouterr().out))["g"].to_list() == ["(all)", "null", None]


# ---------------------------------------------------------------------------
# --html


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@needs_html
def test_html_report_next_to_the_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    key = "model [v1.2] *"
    frame = FRAME.with_columns(
        pl.when(pl.col("day") == "2026-11-01").then(None).otherwise(pl.col("model")).alias(key)
    ).drop("model")
    frame.write_parquet(tmp_path / "in.parquet")
    out = tmp_path / "report.html"
    argv = ["report", str(tmp_path / "in.parquet"), "--by", key, "--measures", "f1,mcc", "--html", str(out)]
    assert main(argv) == 0
    stdout, err = capsys.readouterr()
    assert "f1" in stdout  # the table is printed as without --html
    assert len(err.splitlines()) == 1
    assert f"HTML report {str(out)!r}" in err  # quoted, as every path the command line names
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert "<code>aggframe report" in text
    assert "--html" in text
    assert "<h2>Diagnostics</h2>" in text
    assert "model [v1.2] *" in text
    assert ">(null)<" in text  # the null group is a group in the tables
    assert "https://" not in text


@needs_html
def test_html_with_output_file_and_stores(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = af.from_labels(FRAME).write_cells(tmp_path / "store", by=["model", "day"])
    argv = ["report", str(store), "--by", "model", "--measures", "f1", "--format", "csv"]
    assert main([*argv, "-o", str(tmp_path / "r.csv"), "--html", str(tmp_path / "r.html")]) == 0
    assert capsys.readouterr().out == ""
    assert pl.read_csv(tmp_path / "r.csv").height == 3 * 4  # models x operators
    assert "<h2>Results</h2>" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_html_errors_come_before_reading(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = _extra_fields(tmp_path)  # would fail only when read
    missing = tmp_path / "no" / "r.html"
    line = fails(capsys, ["report", broken, "--html", str(missing)], "output")
    assert f"--html {str(missing)!r}: the directory {str(missing.parent)!r} does not exist" in line
    line = fails(capsys, ["report", broken, "--html", str(tmp_path)], "output")
    assert "is a directory" in line
    same = str(tmp_path / "r.out")
    line = fails(capsys, ["report", broken, "-o", same, "--html", same], "usage")
    assert "same file" in line
    line = fails(capsys, ["cells", broken, "-o", str(tmp_path / "s"), "--html", "x.html"], "usage")
    assert "unrecognized arguments: --html" in line


def test_html_without_the_plot_extra_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing() -> None:
        msg = "aggframe's HTML report needs great_tables and vl-convert: pip install 'aggframe[plot]'"
        raise ImportError(msg)

    monkeypatch.setattr("aggframe.interop.html._deps", missing)
    line = fails(capsys, ["report", _extra_fields(tmp_path), "--html", str(tmp_path / "r.html")], "usage")
    assert "--html needs the plot extra" in line
    assert "pip install 'aggframe[plot]'" in line


@needs_html
def test_a_failed_html_write_is_an_output_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("aggframe.interop.html.write_html_report", full_disk)
    out = str(tmp_path / "r.html")
    line = fails(capsys, ["report", PREDICTIONS, "--measures", "f1", "--html", out], "output")
    assert f"could not write the HTML report {out!r}" in line
    assert "No space left" in line


# ---------------------------------------------------------------------------
# Progress and --quiet


def test_quiet_is_silent_on_success_not_on_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["report", PREDICTIONS, "--measures", "f1", "--operators", "macro", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "f1" in out
    assert err == ""
    assert main(["cells", PREDICTIONS, "-o", str(tmp_path / "s"), "-q"]) == 0
    assert capsys.readouterr().err == ""
    fails(capsys, ["report", str(tmp_path / "missing.parquet"), "--quiet"], "input")


def test_no_live_display_off_a_terminal(capsys: pytest.CaptureFixture[str], slow_scan: None) -> None:
    assert main(["report", PREDICTIONS, "--measures", "f1", "--operators", "macro"]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err
    assert "\x1b" not in err
    assert re.fullmatch(r"aggframe: scanning 1 input\(s\): a report of 1 row in \d+\.\ds\n", err)


def test_spinner_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
    terminal: FakeTerminal,
    slow_scan: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("sys.stderr", terminal)
    threads = threading.active_count()
    assert main(["report", PREDICTIONS, "--by", "model", "--measures", "f1", "--operators", "macro"]) == 0
    text = terminal.getvalue()
    frames = text.split(CLEAR)
    assert frames[0] == ""
    drawn = [f for f in frames[1:-1] if f]
    assert drawn[0].startswith("⠋ aggframe: scanning 1 input(s)... 0.")
    assert len(drawn) >= 4  # redrawn while the scan runs
    assert len({f[0] for f in drawn}) >= 3  # the spinner turns
    assert any("aggframe: evaluating... " in f for f in drawn)
    # the stages' times go up
    times = [float(re.search(r"(\d+\.\d)s$", f)[1]) for f in drawn]  # type: ignore[index]
    assert times == sorted(times)
    assert times[-1] >= 0.4
    # cleared at the end, then the one summary line
    assert re.fullmatch(r"aggframe: scanning 1 input\(s\): a report of 3 rows in \d+\.\ds\n", frames[-1])
    assert "baseline" in capsys.readouterr().out  # stdout is the table only
    assert threading.active_count() == threads  # the spinner's thread is gone


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
def test_spinner_names_the_store_roll_up(
    monkeypatch: pytest.MonkeyPatch, terminal: FakeTerminal, slow_scan: None, tmp_path: Path
) -> None:
    monkeypatch.setattr("sys.stderr", terminal)
    for day in ("2026-11-01", "2026-11-02"):
        af.from_labels(FRAME.filter(pl.col("day") == day)).write_cells(tmp_path / day, by=["model", "day"])
    stores = [str(tmp_path / "2026-11-01"), str(tmp_path / "2026-11-02")]
    assert main(["report", *stores, "--by", "model", "--measures", "f1", "--operators", "macro"]) == 0
    text = terminal.getvalue()
    assert "aggframe: reading and rolling up 2 cell store(s)... " in text
    assert text.endswith("\n")
    assert text.split(CLEAR)[-1].startswith("aggframe: scanning 2 input(s): a report of 3 rows in ")


def test_spinner_is_cleared_before_an_error(
    monkeypatch: pytest.MonkeyPatch, terminal: FakeTerminal, slow_scan: None
) -> None:
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["report", PREDICTIONS, "--fold", "nope"]) == 2
    last = terminal.getvalue().split(CLEAR)[-1]
    assert last.count("\n") == 1
    assert last.startswith("aggframe: input error: ")
    assert "(--fold)" in last


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
def test_quiet_on_a_terminal_and_an_ascii_terminal(monkeypatch: pytest.MonkeyPatch, slow_scan: None) -> None:
    fake = FakeTerminal()
    monkeypatch.setattr("sys.stderr", fake)
    assert main(["report", PREDICTIONS, "--measures", "f1", "--operators", "macro", "--quiet"]) == 0
    assert fake.getvalue() == ""
    plain = FakeTerminal(encoding="ascii")
    monkeypatch.setattr("sys.stderr", plain)
    assert main(["report", PREDICTIONS, "--measures", "f1", "--operators", "macro"]) == 0
    text = plain.getvalue()
    text.encode("ascii")  # nothing a plain terminal cannot show
    assert f"{CLEAR}| aggframe: scanning" in text


def test_cells_shows_progress_too(
    monkeypatch: pytest.MonkeyPatch, terminal: FakeTerminal, slow_scan: None, tmp_path: Path
) -> None:
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["cells", PREDICTIONS, "--by", "model", "-o", str(tmp_path / "s")]) == 0
    text = terminal.getvalue()
    assert "aggframe: scanning 1 input(s)... " in text
    assert "wrote cell store" in text.split(CLEAR)[-1]


# ---------------------------------------------------------------------------
# --help


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli._parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("command", ["report", "cells"])
def test_every_option_has_help_with_an_example(command: str) -> None:
    parser = _subparsers()[command]
    options = [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]
    assert len(options) > 20
    for action in options:
        name = "/".join(action.option_strings) or action.dest
        assert action.help, f"{command} {name} has no help text"
        assert "e.g." in action.help, f"{command} {name}: the help gives no example: {action.help!r}"


def test_option_help_names_every_value() -> None:
    """--pooling's help named the fold poolings only (repeat_pooled, repeat, ... were accepted
    unsaid), and --tnorm offered hamacher as a fourth t-norm: it is the product itself."""
    from aggframe._options import CONVENTIONS, POOLINGS

    helps = {a.dest: a.help or "" for a in _subparsers()["report"]._actions}
    for option, values in (("pooling", POOLINGS), ("convention", CONVENTIONS)):
        for value in values:
            assert re.search(rf"(?<![\w-]){value}(?!\w)", helps[option]), f"--{option} help lacks {value}"
    assert "hamacher (the Hamacher family at gamma = 1, which is the product itself)" in helps["tnorm"]


@pytest.mark.parametrize("command", ["report", "cells"])
def test_help_prints_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out
    assert f"aggframe {command} " in out.split("examples:")[1]
    assert "--quiet" in out


@pytest.mark.parametrize("command", ["report", "cells"])
def test_help_examples_on_the_shipped_data_run(
    command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A help example naming examples/ runs as written from the repository root (the multilabel
    one named a file of that name without the --n-classes its sparse rows need)."""
    root = Path(__file__).resolve().parents[2]
    epilog = _subparsers()[command].epilog or ""
    lines = [line.split("#")[0].strip() for line in epilog.splitlines() if "examples/" in line]
    assert lines
    monkeypatch.chdir(tmp_path)  # -o paths land here
    for line in lines:
        args = [str(root / a) if a.startswith("examples/") else a for a in shlex.split(line)[1:]]
        assert main([*args, "--quiet"]) == 0, f"{line}: {capsys.readouterr().err}"
    capsys.readouterr()


# ---------------------------------------------------------------------------
# --n-boot: bootstrap intervals in the table and in --html


@needs_html
def test_n_boot_intervals_in_the_table_and_the_html(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    key = "model [v1.2] *"
    frame = FRAME.with_columns(
        pl.when(pl.col("day") == "2026-11-01").then(None).otherwise(pl.col("model")).alias(key)
    ).drop("model")
    frame.write_parquet(tmp_path / "in.parquet")
    out = tmp_path / "report.html"
    argv = [
        "report",
        str(tmp_path / "in.parquet"),
        "--by",
        f"{key},day",
        "--measures",
        "f1",
        "--operators",
        "macro",
    ]
    boot = ["--n-boot", "20", "--seed", "4", "--level", "0.9", "--format", "csv"]
    assert main([*argv, *boot, "--html", str(out)]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode(), schema_overrides={key: pl.String, "day": pl.String})
    want = af.from_labels(frame).evaluate("f1", "macro", by=[key, "day"], n_boot=20, seed=4, level=0.9)
    assert got.columns == want.columns
    assert got.get_column("ci_low").to_list() == pytest.approx(want.get_column("ci_low").to_list())
    assert got.get_column(key).null_count() > 0  # the null key is a group
    text = out.read_text(encoding="utf-8")
    assert "Intervals: 90% percentile intervals over 20 bootstrap replicates, seed 4." in text
    row = want.row(0, named=True)
    assert f"{row['value']:.4f} [{row['ci_low']:.4f}, {row['ci_high']:.4f}]" in text
    assert "90% intervals" in text  # the charts
    assert "https://" not in text


def test_n_boot_options_are_checked_before_reading(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = _extra_fields(tmp_path)  # would fail only when read
    for flag, value in (("--level", "0.9"), ("--seed", "3"), ("--cluster", "user")):
        line = fails(capsys, ["report", broken, flag, value], "usage")
        assert f"{flag} applies with --n-boot B" in line
    line = fails(capsys, ["report", broken, "--n-boot", "10", "--level", "1.5"], "usage")
    assert "`--level`" in line
    assert "(0, 1)" in line
    fails(capsys, ["report", broken, "--n-boot", "0"], "usage")
    store = af.from_labels(FRAME).write_cells(tmp_path / "store", by="model")
    line = fails(capsys, ["report", str(store), "--n-boot", "10"], "usage")
    assert "cell stores keep sums only" in line


def test_n_boot_names_its_stage_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, terminal: FakeTerminal, slow_scan: None
) -> None:
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["report", PREDICTIONS, "--by", "model,day", "--measures", "f1", "--n-boot", "10"]) == 0
    assert "aggframe: evaluating 10 bootstrap replicates... " in terminal.getvalue()
