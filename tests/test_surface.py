"""The public surface (issue 34): a small, grouped ``__all__``; charts, t-norms, suites and error
classes in namespaces; the plumbing of ``Predictions`` under ``pr.extend``; one meaning per verb.
Every name that moved still works for a release, with a ``FutureWarning`` naming its new home,
and gives the very object of the new home; aggframe's own code, docs and examples use the new
names (warnings are errors in the suite, and a scan of the sources finds no old spelling)."""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe._columns import restore
from aggframe._deprecated import MOVED
from aggframe.facade.extend import MOVED_TO_EXTEND, PredictionsExtension

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = "value n 'q' é"


def _home(name: str) -> object:
    namespace, _, attr = MOVED[name].rpartition(".")
    return getattr(importlib.import_module(f"aggframe.{namespace}"), attr)


# -- __all__ ------------------------------------------------------------------------------------
def test_all_is_small_and_holds_no_moved_name() -> None:
    # 91 names before; the charts, t-norms, suites and error classes are in namespaces now
    assert len(af.__all__) <= 60, f"__all__ grew to {len(af.__all__)}: does the name belong in a namespace?"
    assert not set(MOVED) & set(af.__all__)
    assert not [n for n in af.__all__ if n.startswith("plot_")], "a chart belongs in af.plot"
    assert {"plot", "suites", "tnorms", "errors"} <= set(af.__all__)
    assert not set(MOVED) & set(dir(af)), "an old name is listed by dir(aggframe)"


def test_all_is_grouped_and_each_group_sorted() -> None:
    """``__all__`` is written in groups, each under a comment and sorted (ruff cannot check it)."""
    source = (ROOT / "aggframe" / "__init__.py").read_text(encoding="utf-8")
    body = source[source.index("__all__ = [") : source.index("]", source.index("__all__ = ["))]
    groups: list[list[str]] = []
    for line in body.splitlines()[1:]:
        if line.strip().startswith("#"):
            groups.append([])
        elif match := re.match(r'\s+"(\w+)",', line):
            groups[-1].append(match.group(1))
    assert len(groups) >= 6
    assert all(g for g in groups), "an empty group"
    for group in groups:
        names = [n for n in group if n != "__version__"]
        assert names == sorted(names), group
    assert sum(len(g) for g in groups) == len(af.__all__)


# -- names that moved into namespaces -----------------------------------------------------------
@pytest.mark.parametrize("name", sorted(MOVED))
def test_each_moved_name_warns_and_is_the_new_object(name: str) -> None:
    with pytest.warns(
        FutureWarning, match=rf"af\.{name} is deprecated.*use af\.{re.escape(MOVED[name])}"
    ) as seen:
        old = getattr(af, name)
    assert old is _home(name)
    assert seen[0].filename == __file__, "the warning names the caller's line"
    # not kept: every access warns
    with pytest.warns(FutureWarning):
        assert getattr(af, name) is old


def test_from_import_of_a_moved_name_warns() -> None:
    with pytest.warns(FutureWarning, match=r"af\.plot\.curve"):
        from aggframe import plot_curve  # type: ignore[attr-defined]
    assert plot_curve is af.plot.curve
    with pytest.warns(FutureWarning, match=r"af\.errors\.OptionError"):
        from aggframe import OptionError  # type: ignore[attr-defined]
    assert OptionError is af.errors.OptionError
    with pytest.raises(AttributeError, match="no attribute 'plot_nothing'"):
        _ = af.plot_nothing  # type: ignore[attr-defined]


def test_an_old_error_name_still_catches() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = af.UnknownNameError  # type: ignore[attr-defined]
    with pytest.raises(old, match="unknown measure"):
        af.from_labels([0, 1], [0, 1]).compute("nope", "micro")


def test_every_namespace_name_resolves_and_the_table_points_into_it() -> None:
    for ns in ("plot", "suites", "tnorms", "errors"):
        module = getattr(af, ns)
        assert module.__name__ == f"aggframe.{ns}"
        for name in module.__all__:
            assert getattr(module, name) is not None, (ns, name)
        assert sorted(dir(module)) == sorted(set(dir(module)))
    homes = {v.rpartition(".")[0] for v in MOVED.values()}
    assert homes == {"plot", "suites", "tnorms", "errors"}
    for name in MOVED:
        namespace, _, attr = MOVED[name].rpartition(".")
        assert attr in getattr(af, namespace).__all__, name


def test_the_namespaces_are_loaded_on_use_and_charts_import_no_altair() -> None:
    code = (
        "import json, sys, aggframe as af\n"
        "before = [m for m in ('aggframe.plot', 'aggframe.suites', 'aggframe.errors', 'altair') if m in sys.modules]\n"
        "af.plot.curve, af.errors.OptionError\n"
        "after = [m for m in ('aggframe.plot', 'aggframe.errors', 'altair', 'aggframe.decisions.checks') if m in sys.modules]\n"
        "print(json.dumps([before, after]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    before, after = json.loads(out.stdout)
    assert before == []
    assert after == ["aggframe.plot", "aggframe.errors"], "altair (or a later layer) imported by a name"


# -- Predictions: plumbing under pr.extend ------------------------------------------------------
def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


def test_predictions_holds_the_verbs_not_the_plumbing() -> None:
    public = _public(af.Predictions)
    assert not public & MOVED_TO_EXTEND
    assert "extend" in public
    assert len(public) <= 26, f"Predictions has {len(public)} public attributes: {sorted(public)}"
    plumbing = {n for n in _public(PredictionsExtension) if n != "source"}
    assert plumbing == MOVED_TO_EXTEND, "pr.extend and the table of moved names disagree"


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            HOSTILE: [None, None, "b", "b", "b", None],
            "y_true": [0, 1, 2, 2, 1, 0],
            "y_pred": [0, 2, 2, 1, 1, 1],
        }
    )


@pytest.mark.parametrize("name", sorted(MOVED_TO_EXTEND))
def test_each_moved_predictions_attribute_warns_and_forwards(name: str) -> None:
    pr = af.from_labels(_frame())
    with pytest.warns(FutureWarning, match=rf"Predictions\.{name} is deprecated.*pr\.extend\.{name}") as seen:
        old = getattr(pr, name)
    assert seen[0].filename == __file__
    new = getattr(pr.extend, name)
    if name == "kind_inferred":
        assert old is new is False
    else:
        assert old.__func__ is new.__func__ is getattr(PredictionsExtension, name)
        assert old.__self__._pr is pr


def test_a_moved_method_called_by_its_old_name_gives_the_same_tables() -> None:
    pr = af.from_labels(_frame())
    with pytest.warns(FutureWarning, match="pr.extend.cell_tables"):
        old = pr.cell_tables([HOSTILE])  # type: ignore[attr-defined]
    assert old is pr.extend.cell_tables([HOSTILE])  # kept: one scan


def test_unknown_attributes_are_still_attribute_errors() -> None:
    pr = af.from_labels([0, 1], [0, 1])
    with pytest.raises(AttributeError, match="no attribute 'cell_table'"):
        _ = pr.cell_table  # type: ignore[attr-defined]
    assert not hasattr(pr, "nothing")


def test_extend_builds_evaluate_with_null_keys_and_hostile_names() -> None:
    """An operator author's path: request, report, key names; it gives ``evaluate``'s frame,
    the null key a group of its own and the user's column name restored."""
    pr = af.from_labels(_frame())
    ext = pr.extend
    request = ext.request(["f1", "recall"], ["micro", "macro"], by=[HOSTILE])
    report, names = ext.report(request)
    assert set(names.values()) == {HOSTILE}
    got = restore(report, names).collect().drop("n_examples", strict=False)
    want = pr.evaluate(["f1", "recall"], ["micro", "macro"], by=HOSTILE).drop("n_examples", strict=False)
    assert_frame_equal(
        got.sort(HOSTILE, "measure", "operator", nulls_last=True),
        want.sort(HOSTILE, "measure", "operator", nulls_last=True),
        check_column_order=False,
    )
    tables = ext.cell_tables([HOSTILE])
    frame = restore(ext.cell_frame(tables, "class"), ext.key_names(tables, ["tp", "fp", "fn", "tn"], "t"))
    assert_frame_equal(frame, pr.cells("class", by=HOSTILE), check_column_order=False)
    assert frame[HOSTILE].null_count() == 3  # the null group's three classes
    counts, _ = ext.confusion_table([HOSTILE])
    assert counts["n"].sum() == 6
    assert ext.kind_by([HOSTILE]) == pr.kind == "multiclass"
    assert ext.with_pairs(tables, [HOSTILE]).pairs is not None
    with pytest.raises(af.errors.OptionError, match="collides with a column"):
        ext.key_names(tables, [HOSTILE], "t")


def test_extend_refuses_as_the_methods_did() -> None:
    soft = af.from_long(
        pl.DataFrame({"example": [0, 0], "class": [0, 1], "y": [0.2, 0.8], "p": [0.5, 0.5]}), tnorm="product"
    )
    with pytest.raises(af.errors.OptionError, match="crisp single-label"):
        soft.extend.check_single_label("the thing")
    with pytest.raises(af.errors.OptionError, match="crisp, unmasked"):
        soft.extend.check_suite_data()


# -- one meaning per verb -----------------------------------------------------------------------
def test_compute_is_a_number_and_evaluate_a_frame_everywhere() -> None:
    frame = _frame()
    acc = af.Accumulator()
    acc.update(frame)
    got = acc.evaluate("f1", "macro", by=None)
    assert isinstance(got, pl.DataFrame)
    with pytest.warns(FutureWarning, match=r"Accumulator\.evaluate"):
        old = acc.compute("f1", "macro", by=None)
    assert_frame_equal(old, got)
    pr = af.from_labels(frame)
    assert isinstance(pr.compute("f1", "macro"), float)
    assert pr.compute("f1", "macro") == pytest.approx(got["value"][0])
    assert isinstance(acc.cells().evaluate("f1", "macro"), pl.DataFrame)


# -- our own code uses the new names ------------------------------------------------------------
def _sources() -> list[Path]:
    skip = {
        ROOT / "tests" / "test_surface.py",
        ROOT / "tests" / "test_deprecations.py",
        ROOT / "CHANGELOG.md",
    }
    found = [
        *(ROOT / "aggframe").rglob("*.py"),
        *(ROOT / "tests").rglob("*.py"),
        *(ROOT / "examples").rglob("*.py"),
    ]
    found += [*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.py"), ROOT / "README.md"]
    found += [*(ROOT / "benchmarks").glob("*.py")]
    return [p for p in found if p not in skip and ".venv" not in p.parts]


def _old_spellings() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """``af.<moved name>`` and ``pr.<name moved to extend>`` in code; a name quoted in backticks
    (``af.plot_curve``, as in a deprecation note) is prose and left alone."""
    top = "|".join(sorted(MOVED, key=len, reverse=True))
    ext = "|".join(sorted(MOVED_TO_EXTEND, key=len, reverse=True))
    # also as a regular expression (r"af\.hamacher", in the command line's rewording of messages)
    return re.compile(rf"(?<!`)\b(?:af|aggframe)\\?\.({top})\b"), re.compile(rf"(?<!`)\bpr\\?\.({ext})\b")


def test_no_old_name_in_our_code_docs_or_examples() -> None:
    """A late branch (or a doc) that still spells ``af.plot_curve`` or ``pr.cell_tables`` fails here,
    naming the file and the line (outside the tests the call would only warn)."""
    old_top, old_pr = _old_spellings()
    hits = []
    for path in _sources():
        if path.name == "_deprecated.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if old_top.search(line) or old_pr.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    listing = "\n".join(hits)
    assert not hits, f"old names (see aggframe/_deprecated.py, aggframe/facade/extend.py):\n{listing}"


def test_the_scan_finds_an_old_name() -> None:
    # the scan above can fail: the same patterns find the old spellings in code, not in prose
    old_top, old_pr = _old_spellings()
    line = (
        "af.plot_curve(frame); pr.cell_tables(); aggframe.suite_rank; x = '``af.godel`` was'; r'af\\.godel'"
    )
    assert old_top.findall(line) == ["plot_curve", "suite_rank", "godel"]
    assert old_pr.findall(line) == ["cell_tables"]
    assert ast.parse(line)
