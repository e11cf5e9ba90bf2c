"""The recipe docs/recipes/sklearn-cv.md runs end to end, as written.

Its ```python blocks run in order in one namespace, in a fresh directory; the
``aggframe ...`` lines of its ```bash blocks run through the command line's ``main``
and must exit 0. The page's own asserts check the numbers against scikit-learn and
the command line's CSV against the Python report; this test checks that the files
it promises were written.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from aggframe.interop.cli import main

PAGE = Path(__file__).resolve().parents[1] / "docs" / "recipes" / "sklearn-cv.md"


def _blocks() -> list[tuple[str, str]]:
    text = PAGE.read_text(encoding="utf-8")
    return [(m[1], m[2]) for m in re.finditer(r"^```(\w+)\n(.*?)^```$", text, flags=re.S | re.M)]


@pytest.mark.slow
def test_recipe_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__recipe__"}
    ran = {"python": 0, "bash": 0}
    for language, code in _blocks():
        if language == "python":
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, f"{PAGE.name}:python{ran['python']}", "exec"), namespace)
        elif language == "bash":
            for line in code.replace("\\\n", " ").splitlines():
                if line.startswith("aggframe "):
                    err = io.StringIO()
                    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                        code_ = main(shlex.split(line, comments=True)[1:])
                    assert code_ == 0, f"`{line}` exited {code_}: {err.getvalue()}"
        ran[language] = ran.get(language, 0) + 1
    assert ran["python"] >= 7
    assert ran["bash"] == 1
    assert (tmp_path / "report.html").stat().st_size > 10_000
    assert (tmp_path / "report.csv").stat().st_size > 500
    assert sorted(p.name for p in (tmp_path / "cv").iterdir()) == [
        "model=bayes",
        "model=logreg",
        "model=tree",
    ]
