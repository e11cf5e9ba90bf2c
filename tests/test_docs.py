"""Every code block of the documentation runs: the site's pages (``docs/**/*.md``) and README.md.

The ```python blocks of one page run in order in one namespace, in a fresh temporary
directory where ``examples/`` is the repository's examples folder (so
``pl.read_parquet("examples/predictions.parquet")`` works as written). The lines of a
```bash block that start with ``aggframe `` run as commands (in this process, through
``aggframe.interop.cli.main``) and must exit 0. Blocks fenced as ```text are output or
sketches and are not run. A failure names the page, the block and its first line.
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import aggframe as af
from aggframe.interop import cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted([*DOCS.rglob("*.md"), ROOT / "README.md"])
#: a line whose comment states its value: ``m.bayes_threshold()  # 1/3``, ``m.linear  # ((2.0, ...), ...): ...``
_STATED = re.compile(r"^(\S.*?)  # ([\d(\[-].*)$", flags=re.M)


@dataclass(frozen=True)
class Block:
    language: str
    code: str
    line: int  # of the opening fence, 1-based

    def where(self, page: Path, number: int) -> str:
        first = next((x for x in self.code.splitlines() if x.strip()), "")
        return f"{page.relative_to(ROOT)}, block {number} (line {self.line}): {first.strip()[:80]!r}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page, in order (indented fences, as in lists, too)."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in re.finditer(r"^([ \t]*)```([\w+-]*)[^\n]*\n(.*?)^\1```[ \t]*$", text, flags=re.S | re.M):
        indent, language, code = match.groups()
        if indent:
            code = "\n".join(x.removeprefix(indent) for x in code.splitlines()) + "\n"
        found.append(Block(language, code, text.count("\n", 0, match.start()) + 1))
    return found


def commands(code: str) -> list[list[str]]:
    """The ``aggframe ...`` command lines of a bash block (continuation lines joined), as argv."""
    lines = code.replace("\\\n", " ").splitlines()
    return [shlex.split(x, comments=True)[1:] for x in lines if x.startswith("aggframe ")]


def stated(code: str) -> list[tuple[str, object]]:
    """The lines of a block whose comment states the value (a Python literal or a fraction such as 1/3)."""
    found = []
    for line, comment in _STATED.findall(code):
        try:
            ast.parse(line.strip(), mode="eval")
        except SyntaxError:
            continue  # a statement (an assignment) whose comment explains it
        text = comment.split(":", maxsplit=1)[0].strip()
        if re.fullmatch(r"\d+\s*/\s*\d+", text):
            top, bottom = text.split("/")
            found.append((line.strip(), int(top) / int(bottom)))
            continue
        try:
            found.append((line.strip(), ast.literal_eval(text)))
        except (ValueError, SyntaxError):
            continue  # a comment that starts with a number but states no value ("2 rows ...")
    return found


def _runnable(page: Path) -> bool:
    return any(b.language == "python" or (b.language == "bash" and commands(b.code)) for b in blocks(page))


RUNNABLE = [p for p in PAGES if _runnable(p)]


def test_the_pages_have_code_to_run() -> None:
    assert (DOCS / "index.md").exists()
    names = {p.relative_to(ROOT).as_posix() for p in RUNNABLE}
    assert {"README.md", "docs/getting-started.md", "docs/concepts/forms.md"} <= names
    assert sum(len(blocks(p)) for p in RUNNABLE) >= 40


def test_stated_values_are_checked() -> None:
    """Lines such as ``m.bayes_threshold()  # 1/3`` are compared with what they print (below)."""
    lines = {
        line for p in RUNNABLE for b in blocks(p) if b.language == "python" for line, _ in stated(b.code)
    }
    assert {"m.bayes_threshold()", 'af.tnorms.marginal_defect("lukasiewicz")'} <= lines


def test_block_parsing() -> None:
    """Indented fences (inside a list) are found and dedented; continuation lines are one command."""
    assert commands("aggframe report a.parquet \\\n  --by model  # note\npip install x\n") == [
        ["report", "a.parquet", "--by", "model"]
    ]
    assert commands("python -m pytest\n") == []


@pytest.mark.parametrize("page", RUNNABLE, ids=[p.relative_to(ROOT).as_posix() for p in RUNNABLE])
def test_page_code_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    registered = set(af.list_measures())
    try:
        for number, block in enumerate(blocks(page), start=1):
            where = block.where(page, number)
            if block.language == "python":
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        exec(compile(block.code, f"{page.name}:block{number}", "exec"), namespace)
                except Exception as exc:
                    pytest.fail(f"{where} raised {type(exc).__name__}: {exc}")
                for line, want in stated(block.code):
                    got = eval(line, namespace)
                    assert np.allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float)), (
                        f"{where}: `{line}` is {got!r}, the page says {want!r}"
                    )
            elif block.language == "bash":
                for argv in commands(block.code):
                    err = io.StringIO()
                    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                        code = cli.main(argv)
                    assert code == 0, (
                        f"{where}: `aggframe {shlex.join(argv)}` exited {code}: {err.getvalue()}"
                    )
    finally:
        for name in set(af.list_measures()) - registered:  # leave the registry as it was
            af.unregister_measure(name)
        os.chdir(ROOT)
