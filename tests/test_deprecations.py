"""Public names that changed keep working for a release, with a FutureWarning naming the new one."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af


def test_the_wide_subpackage_is_importable_and_not_shadowed() -> None:
    """`import aggframe.wide.tnorms` and `aggframe.wide.tnorms` work (the function shadowed them)."""
    code = "import aggframe.wide.tnorms as t; import aggframe; assert aggframe.wide.tnorms is t; print(t.product)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    from aggframe.wide import tnorms

    assert af.wide.tnorms is tnorms
    assert "wide_table" in af.__all__
    assert "wide" not in af.__all__


def test_af_wide_still_works_with_a_future_warning() -> None:
    report = af.from_labels([0, 1, 2, 2], [0, 1, 1, 2]).evaluate(["f1", "recall"], ["micro", "macro"])
    with pytest.warns(FutureWarning, match=r"af\.wide_table"):
        old = af.wide(report, by="measure")
    assert_frame_equal(old, af.wide_table(report, by="measure"))
    assert isinstance(old, pl.DataFrame)
    assert old.columns == ["measure", "n_examples", "micro", "macro"]
