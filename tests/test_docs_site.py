"""The documentation site builds strict and its pages render in headless Chromium.

The site is built once (``mkdocs build --strict``, as ``.ci/run`` does) into a temporary
directory; a few pages are loaded at 1400 px: each has its title and the navigation, no
horizontal overflow, no script error, no request beyond its own files, and the API
reference lists a documented function's parameters.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.interop._browser import find_chromium, open_page

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 1400

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="the docs extra is not installed"),
]

_PROBE = f"""({{
  title: document.title,
  h1: (document.querySelector("article h1") || {{}}).textContent || "",
  nav: Array.from(document.querySelectorAll("nav.md-nav--primary a.md-nav__link")).map((a) => a.textContent.trim()),
  overflow: document.documentElement.scrollWidth - {WIDTH},
  params: Array.from(document.querySelectorAll("#aggframe\\\\.from_labels ~ div table code, "
    + "[id='aggframe.from_labels'] + div table code")).map((c) => c.textContent.trim()),
  code_blocks: document.querySelectorAll("div.highlight pre").length,
  images: Array.from(document.images).map((i) => [i.getAttribute("src"), i.naturalWidth]),
}})"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def test_the_site_builds_with_every_page(site: Path) -> None:
    for page in [
        "index.html",
        "getting-started/index.html",
        "concepts/forms/index.html",
        "api/constructors/index.html",
    ]:
        assert (site / page).exists(), page
    assert (site / "assets" / "report-chart.png").exists()


needs_chromium = pytest.mark.skipif(find_chromium() is None, reason="no Chromium (tests/interop/_browser.py)")


@needs_chromium
@pytest.mark.parametrize(
    ("page", "heading"),
    [
        ("index.html", "aggframe"),
        ("concepts/operators/index.html", "Operators"),
        ("concepts/bad-input/index.html", "Bad input"),
        ("api/constructors/index.html", "Building predictions"),
    ],
)
def test_pages_render(site: Path, page: str, heading: str) -> None:
    got = open_page(site / page, width=WIDTH, ask=_PROBE)
    probed = got.probed
    assert heading in probed["title"], probed["title"]
    assert probed["h1"].startswith(heading), probed["h1"]
    assert {"Getting started", "Operators", "Building predictions"} <= set(probed["nav"]), probed["nav"]
    assert probed["overflow"] <= 0, f"{page} is {probed['overflow']} px wider than the window"
    assert not got.exceptions, got.exceptions
    assert not got.console_errors, got.console_errors
    outside = [u for u in got.requests if not u.startswith(("file://", "data:", "blob:"))]
    assert not outside, f"{page} asked the network for {outside}"
    if page == "index.html":
        assert probed["code_blocks"] >= 1
        drawn = [src for src, width in probed["images"] if width > 0]
        assert any(src.endswith("assets/report-chart.png") for src in drawn), probed["images"]
    if page.startswith("api/"):
        assert {"data", "y_true", "y_pred", "n_classes", "task", "class_universe"} <= set(probed["params"]), (
            probed["params"]
        )
    (Path(os.environ.get("AGGFRAME_SCREENSHOTS", site)) / (page.replace("/", "_") + ".png")).write_bytes(
        got.screenshot
    )
