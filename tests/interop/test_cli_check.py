"""``aggframe check RULES INPUT...``: exit codes 0/1/2, JUnit XML, JSON, failing rows, the HTML verdict."""

from __future__ import annotations

import importlib.util
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.interop.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PREDICTIONS = EXAMPLES / "predictions.parquet"
_HAS_PLOT = all(importlib.util.find_spec(m) for m in ("altair", "vl_convert", "great_tables"))

GATE = """
[[rule]]
name = "macro F1 floor"
measure = "f1"
operator = "macro"
by = ["model"]
min = {floor}

[[rule]]
measure = "recall"
operator = "macro"
by = ["model", "day"]
min = 0.9
severity = "warn"
"""


def rules(tmp_path: Path, floor: float = 0.7, text: str | None = None) -> str:
    path = tmp_path / "gate.toml"
    path.write_text(GATE.format(floor=floor) if text is None else text, encoding="utf-8")
    return str(path)


def test_exit_0_when_no_error_rule_fails_even_with_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", rules(tmp_path, floor=0.6), str(PREDICTIONS)]) == 0
    out, err = capsys.readouterr()
    assert "FAIL" not in out
    assert out.count("WARN") > 0
    assert "aggframe: check passed: 2 rules, 15 (rule, group) rows:" in err


def test_exit_1_and_every_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junit, js, fails = tmp_path / "c.xml", tmp_path / "c.json", tmp_path / "f.parquet"
    args = ["check", rules(tmp_path), str(PREDICTIONS), "--junit", str(junit), "--json", str(js)]
    assert main([*args, "--failures", str(fails), "-q"]) == 1
    out, err = capsys.readouterr()
    assert err == ""
    assert out.splitlines()[0] == "FAIL      rule 1: macro f1 0.652 < 0.7 for model=baseline (1,600 examples)"
    expected = af.check(af.from_labels(pl.scan_parquet(PREDICTIONS)), rules(tmp_path))
    # JUnit: one suite per rule, one case per group, the counts add up
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 2
    cases = root.findall("testsuite/testcase")
    assert len(cases) == expected.frame.height == int(root.get("tests", "-1"))
    assert sum(int(s.get("tests", "0")) for s in suites) == len(cases)
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == int(root.get("failures", "-1")) == expected.counts()["fail"] == 1
    assert failed[0].get("name") == "model=baseline"
    assert failed[0].get("classname") == "rule 1: macro F1 floor"
    assert failed[0].find("failure").get("message") == expected.failures["message"][0]  # type: ignore[union-attr]
    warned = [c for c in cases if c.find("system-out") is not None]
    assert len(warned) == expected.counts()["warn"]
    # JSON and the failing rows
    doc = json.loads(js.read_text(encoding="utf-8"))
    assert doc["passed"] is False
    assert doc["counts"] == expected.counts()
    written = pl.read_parquet(fails)
    assert_frame_equal(written, expected.frame.filter(pl.col("status").is_in(["fail", "warn"])))


@pytest.mark.skipif(not _HAS_PLOT, reason="the plot extra is not installed")
@pytest.mark.slow
def test_html_report_has_the_verdict_at_the_top(tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    assert main(["check", rules(tmp_path), str(PREDICTIONS), "--html", str(page), "-q"]) == 1
    text = page.read_text(encoding="utf-8")
    verdict = text.index('<section id="verdict">')
    assert verdict < text.index("<h2", verdict + 30)  # before every other section
    assert text.index("<h1") < verdict
    assert "Check FAILED" in text
    assert "macro f1 0.652 &lt; 0.7 for model=baseline (1,600 examples)" in text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[rule]]\nmeasure = "f1\n', "gate.toml: not valid TOML"),
        ('[[rule]]\nmeasure = "f1x"\nmin = 0.5\n', "gate.toml, rule 1: key 'measure': unknown measure 'f1x'"),
        ('[[rule]]\nmeasure = "f1"\nminn = 0.5\n', "gate.toml, rule 1: key 'minn': unknown key"),
        (
            '[[rule]]\nname = "x"\nmeasure = "f1"\nmin = "high"\n',
            "gate.toml, rule 1 ('x'): key 'min': expected a number, got 'high'",
        ),
        (
            '[[rule]]\nmeasure = "f1"\nby = "model"\nmax_drop = 0.1\n',
            "gate.toml, rule 1: a drop rule (max_drop / max_relative_drop) needs a baseline: a group (baseline = {model = 'lr'}), a path (baseline = 'cells/last-week'), or one for every rule: --baseline STORE_OR_FILE",
        ),
        (
            '[[rule]]\nmeasure = "f1"\nby = "nope"\nmin = 0.1\n',
            "rule 1: by column 'nope' is not in the frame",
        ),
    ],
)
def test_exit_2_on_bad_rules_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    assert main(["check", rules(tmp_path, text=text), str(PREDICTIONS)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1, err
    assert err.startswith("aggframe: usage error: ") or err.startswith("aggframe: input error: ")
    assert message in err
    assert "Traceback" not in err


def test_exit_2_on_bad_inputs_and_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gate = rules(tmp_path)
    cases = [
        (["check", gate, str(tmp_path / "missing.parquet")], "input error"),
        (["check", gate, str(PREDICTIONS), "--baseline", str(tmp_path / "nowhere")], "--baseline"),
        (["check", gate, str(PREDICTIONS), "--junit", str(tmp_path / "no" / "c.xml")], "does not exist"),
        (["check", gate, str(PREDICTIONS), "--json", gate], "would replace an input"),
        (["check", str(tmp_path / "none.toml"), str(PREDICTIONS)], "cannot read the rules file"),
        (["check", gate], "usage error"),
        (["check", gate, str(PREDICTIONS), "--by", "model"], "not from --by"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1, err
        assert message in err, (argv, err)


def test_baseline_store_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = pl.read_parquet(PREDICTIONS)
    store = tmp_path / "last"
    assert main(["cells", str(PREDICTIONS), "--by", "model,day", "-o", str(store), "-q"]) == 0
    gate = '[[rule]]\nmeasure = "f1"\noperator = "macro"\nby = "model"\nmax_drop = 0.0\n'
    # the same data as its baseline: no drop, exit 0
    assert main(["check", rules(tmp_path, text=gate), str(PREDICTIONS), "--baseline", str(store), "-q"]) == 0
    worse = frame.with_columns(y_pred=pl.when(pl.col("example") % 5 == 0).then(0).otherwise(pl.col("y_pred")))
    worse.write_parquet(tmp_path / "now.parquet")
    assert (
        main(["check", rules(tmp_path, text=gate), str(tmp_path / "now.parquet"), "--baseline", str(store)])
        == 1
    )
    out = capsys.readouterr().out
    assert out.count("FAIL") == 3
    assert "vs baseline" in out
