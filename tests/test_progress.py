"""``af.progress()``: opt-in progress of the long calls, on stderr only.

Never a character when not asked; when asked, lines on stderr (a live line on a
terminal), the same results, the same errors, and nothing for ``lazy=True``.
"""

from __future__ import annotations

import io
import re
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe._progress import Spinner, stage, tracked
from tests.strategies import HOSTILE_NAMES, RESULT_NAMES

KEY = 'team.a [0] "x"'
CLEAR = "\r\x1b[K"


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal."""

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def isatty(self) -> bool:
        return True


def _frame(n: int = 600, key: str = KEY) -> pl.DataFrame:
    rng = np.random.default_rng(7)
    team = [
        None if r < 0.3 else t for t, r in zip(rng.choice(["a", "b"], n).tolist(), rng.random(n), strict=True)
    ]
    y = rng.integers(0, 3, n)
    return pl.DataFrame(
        {
            key: team,
            "ex": np.arange(n),
            "y_true": y,
            "y_pred": np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n)),
        },
        schema_overrides={key: pl.String},
    )


def _calls(tmp: Path, key: str = KEY) -> dict[str, Any]:
    """Every long call on fresh predictions (no cached scan), by name."""

    def pr() -> af.Predictions:
        return af.from_labels(_frame(key=key), example="ex")

    store = tmp / "store"
    return {
        "evaluate": lambda: pr().evaluate(["f1", "mcc"], ["micro", "macro"], by=key),
        "evaluate n_boot": lambda: pr().evaluate("f1", "macro", by=key, n_boot=20, seed=1),
        "compare": lambda: pr().compare("f1", "macro", by=key),
        "compare n_boot": lambda: pr().compare(
            "f1", "macro", by=key, n_boot=20, reference={key: "a"}, columns="all"
        ),
        "to_cells": lambda: pr().to_cells(by=key).table("pooled"),
        "write_cells": lambda: af.from_cells(pr().write_cells(store, by=key, overwrite=True)).evaluate(
            "f1", "macro", by=key
        ),
        "Cells.read": lambda: af.Cells.read(store).evaluate("f1", "macro", by=key),
    }


def test_silent_unless_asked_and_the_same_results(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    calls = _calls(tmp_path)
    plain = {name: call() for name, call in calls.items()}
    assert capfd.readouterr() == ("", "")  # not asked: not a character, on either stream
    with af.progress():
        shown = {name: call() for name, call in calls.items()}
    out, err = capfd.readouterr()
    assert out == ""  # stderr only
    for name in calls:
        assert_frame_equal(shown[name], plain[name])
    lines = err.splitlines()
    assert "\r" not in err  # captured stderr is not a terminal: one line per stage, no redraws
    for call in ("evaluate", "compare", "to_cells", "write_cells", "Cells.evaluate", "Cells.read"):
        assert any(re.fullmatch(rf"aggframe: {re.escape(call)}: done in \d+\.\ds", line) for line in lines), (
            call
        )
    assert "aggframe: evaluate: scanning the frame..." in lines
    assert "aggframe: evaluate: scanning the frame for 20 bootstrap replicates..." in lines
    assert "aggframe: compare: scanning the frame for 20 bootstrap replicates..." in lines
    assert "aggframe: evaluate: evaluating..." in lines
    assert any(
        re.fullmatch(r"aggframe: evaluate: reading and rolling up cell store '.*store'\.\.\.", x)
        for x in lines
    )
    assert "aggframe: Cells.read: reading and rolling up 1 cell store(s)..." in lines
    # after the block: silent again
    calls["evaluate"]()
    assert capfd.readouterr() == ("", "")


def test_lazy_runs_nothing_and_shows_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    pr = af.from_labels(_frame(), example="ex")
    with af.progress():
        plan = pr.evaluate("f1", "macro", by=KEY, lazy=True)
        boot = pr.evaluate("f1", "macro", by=KEY, n_boot=10, lazy=True)
    assert isinstance(plan, pl.LazyFrame)
    assert isinstance(boot, pl.LazyFrame)
    assert capfd.readouterr() == ("", "")
    assert_frame_equal(plan.collect(), pr.evaluate("f1", "macro", by=KEY))
    assert_frame_equal(boot.collect(), pr.evaluate("f1", "macro", by=KEY, n_boot=10))


_TAKEN = {
    "y_true",
    "y_pred",
    "ex",
    "ci_low",
    "ci_high",
    "se",
    "n_boot",
    "level",
    *(c for cols in RESULT_NAMES.values() for c in cols),
}
_TAKEN |= {
    f"{c}{end}"
    for c in ("value", "difference_to_overall", "ratio_to_overall")
    for end in ("_ci_low", "_ci_high", "_se")
}


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("name", [n for n in HOSTILE_NAMES if n not in _TAKEN][::9])
def test_hostile_key_names_and_null_keys(name: str, tmp_path: Path) -> None:
    log = io.StringIO()
    calls = _calls(tmp_path, key=name)
    for which in ("evaluate n_boot", "compare"):
        plain = calls[which]()
        with af.progress(stream=log):
            assert_frame_equal(calls[which](), plain)
        assert plain.get_column(name).null_count() > 0  # the null key is a group
    assert log.getvalue().count("done in") == 2


def test_errors_raise_the_same_and_stop_the_display(tmp_path: Path) -> None:
    bad = tmp_path / "extra.csv"
    bad.write_text("y_true,y_pred\n0,0\n1,1,9\n")  # fails only when read
    nulls = pl.DataFrame({"y_true": [0, None, 1], "y_pred": [0, 1, 1]})  # fails in the plan's checks
    for build in (lambda: af.from_labels(af.scan(str(bad))), lambda: af.from_labels(nulls)):
        with pytest.raises(af.AggframeError) as plain:
            build().evaluate("f1", "macro")
        for stream, live in ((io.StringIO(), False), (FakeTerminal(), None)):
            threads = threading.active_count()
            with pytest.raises(af.AggframeError) as shown, af.progress(stream=stream, live=live):
                build().evaluate("f1", "macro")
            assert type(shown.value) is type(plain.value)
            assert str(shown.value) == str(plain.value)
            text = stream.getvalue()
            assert re.search(r"aggframe: evaluate: failed after \d+\.\ds\n$", text)
            if live is None:  # the live line was cleared before the last line
                assert text.split(CLEAR)[-1].startswith("aggframe: evaluate: failed after")
            assert threading.active_count() == threads  # the spinner's thread is gone


def test_live_line_on_a_terminal(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stderr", terminal)  # the default stream is stderr as it is at the call
    pr = af.from_labels(_frame(), example="ex")

    @tracked("slow call")
    def slow() -> pl.DataFrame:
        with stage("scanning slowly"):
            time.sleep(0.35)
        return pr.evaluate("f1", "macro", by=KEY, n_boot=10)

    threads = threading.active_count()
    with af.progress(interval=0.05):
        slow()
    text = terminal.getvalue()
    frames = text.split(CLEAR)
    drawn = [f for f in frames[1:-1] if f]
    assert drawn[0].startswith("⠋ aggframe: slow call... 0.")
    assert len({f[0] for f in drawn}) >= 3  # the spinner turns
    assert any(
        f.startswith(tuple(Spinner.FRAMES)) and "aggframe: slow call: scanning slowly... " in f for f in drawn
    )
    assert any("aggframe: slow call: scanning the frame for 10 bootstrap replicates... " in f for f in drawn)
    times = [float(re.search(r"(\d+\.\d)s$", f)[1]) for f in drawn]  # type: ignore[index]
    assert times == sorted(times)  # one clock for the whole call
    assert re.fullmatch(r"aggframe: slow call: done in \d+\.\ds\n", frames[-1])  # cleared, then one line
    assert threading.active_count() == threads
    assert capsys.readouterr().out == ""


def test_enabled_false_and_nesting(capfd: pytest.CaptureFixture[str]) -> None:
    pr = af.from_labels(_frame(), example="ex")
    with af.progress(), af.progress(enabled=False):
        pr.evaluate("f1", "macro")
    assert capfd.readouterr() == ("", "")
    log = io.StringIO()

    @tracked("outer")
    def outer() -> None:
        pr.evaluate("f1", "micro", by=KEY)
        pr.compare("f1", "micro", by=KEY)

    with af.progress(stream=log):
        outer()
    lines = log.getvalue().splitlines()
    assert lines[-1].startswith("aggframe: outer: done in ")
    assert sum("done in" in line for line in lines) == 1  # one line per outermost call
    assert "aggframe: outer: scanning the frame..." in lines


def test_other_threads_are_not_shown(capfd: pytest.CaptureFixture[str]) -> None:
    pr = af.from_labels(_frame(), example="ex")
    with af.progress():
        worker = threading.Thread(target=lambda: pr.evaluate("f1", "macro"))
        worker.start()
        worker.join()
    assert capfd.readouterr() == ("", "")
