"""``af.expected_cells`` carries the exact expected profiles: its ``exemplar`` is ``af.estimate``'s.

The exemplar estimate is the measure of the expected count of each crisp per-example
profile (:mod:`aggframe.decisions.estimate_exemplar`), not of each example's expected
cells. The cells of ``expected_cells`` hold those counts (fractional ``n``), so that
``cells.evaluate(m, "exemplar", by=...)`` equals ``estimate``'s ``estimated`` value for
binary, argmax, top-k and multilabel truth (one-vs-rest on the wide layout and the long
form), on Polars and DuckDB, stored and read back, and the cells of two periods added
(``a + b``, stores read together) give the estimate over both: the counts add up.
Null keys are groups; the by-names are hostile (``n``, a profile table's column; quotes,
a space and unicode).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.decisions.estimate import _check_source
from aggframe.decisions.estimate_cells import entries, with_q
from aggframe.decisions.estimate_exemplar import EXACT_CLASSES
from tests.decisions.estimate_data import wide_columns

BY = ["n", "a b'\"é"]
#: measures that are not linear in an example's cells (the plug-in of the expected cells differs)
MEASURES = ["f1", "precision", "recall", "specificity", "jaccard", "mcc"]
OPS: list[Any] = ["exemplar", "micro"]


def _keys(rng: np.random.Generator, n: int) -> dict[str, pl.Series]:
    return {
        BY[0]: pl.Series([(1, None, 2)[i] for i in rng.integers(0, 3, size=n)], dtype=pl.Int64),
        BY[1]: pl.Series([("x", None)[i] for i in rng.integers(0, 2, size=n)], dtype=pl.String),
    }


def _binary(seed: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return pl.DataFrame({"score": s, "y": (rng.uniform(size=n) < s**2).astype(np.int64), **_keys(rng, n)})


def _wide(seed: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame({**wide_columns(rng, n), **_keys(rng, n)})


def _long(seed: int, n: int, classes: int = 4) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.beta(1.5, 2.0, size=(n, classes))
    keys = {k: v.gather(np.repeat(np.arange(n), classes)) for k, v in _keys(rng, n).items()}
    return pl.DataFrame(
        {
            "example": np.repeat(np.arange(seed * 100_000, seed * 100_000 + n), classes),
            "class": np.tile([f"c{i}" for i in range(classes)], n),
            "score": s.ravel(),
            "y": (rng.uniform(size=s.shape) < s).astype(np.int64).ravel(),
            **keys,
        }
    )


WIDE = {"y_true": "y_true", "scores": ["p_a", "p_b", "p_c"]}
LAYOUTS: dict[str, tuple[Callable[[int, int], pl.DataFrame], dict[str, Any]]] = {
    "binary": (_binary, {"class_": None}),
    "argmax": (_wide, {**WIDE, "decision": "argmax"}),
    "top_k": (_wide, {**WIDE, "decision": "top_k", "k": 2}),
    "threshold": (_wide, {**WIDE, "decision": "threshold"}),  # one-vs-rest: multilabel truth
    "multilabel": (_long, {}),
}


def _source(frame: pl.DataFrame, engine: str) -> Any:
    if engine == "polars":
        return frame
    duckdb = pytest.importorskip("duckdb")
    return duckdb.connect().from_arrow(frame.to_arrow())


def _report(cells: af.Cells, by: list[str]) -> pl.DataFrame:
    out = cells.evaluate(MEASURES, OPS, by=by or None)
    return out.select(*by, "measure", "operator", "value").sort([*by, "measure", "operator"], nulls_last=True)


def _estimated(cmap: af.CalibrationMap, data: af.Predictions, by: list[str]) -> pl.DataFrame:
    out = af.estimate(cmap, data, MEASURES, OPS, by=by or None).filter(pl.col("kind") == "estimated")
    return out.select(*by, "measure", "operator", "value").sort([*by, "measure", "operator"], nulls_last=True)


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_stored_exemplar_is_the_estimate_and_two_periods_add_up(
    layout: str, engine: str, tmp_path: Path
) -> None:
    make, read = LAYOUTS[layout]
    cmap = af.fit_calibration(af.from_scores(make(1, 900), **read))
    a, b = make(2, 240), make(3, 180)
    cells = af.expected_cells(cmap, af.from_scores(_source(a, engine), **read), by=BY, store=tmp_path / "a")
    data_a = af.from_scores(a, **read)
    want = _estimated(cmap, data_a, BY)
    assert want[BY[0]].null_count() > 0
    assert want[BY[1]].null_count() > 0  # a null key is a group
    assert_frame_equal(_report(cells, BY), want, abs_tol=1e-9)
    assert_frame_equal(_report(af.Cells.read(tmp_path / "a"), BY), want, abs_tol=1e-9)
    for by in ([BY[1]], []):  # rolled up: the expected counts of the coarser groups
        assert_frame_equal(_report(cells, by), _estimated(cmap, data_a, by), abs_tol=1e-9)
    # next period with the stored map; the two periods' cells added, and their stores read together
    later = af.expected_cells(
        tmp_path / "a", af.from_scores(_source(b, engine), **read), by=BY, store=tmp_path / "b"
    )
    both = _estimated(cmap, af.from_scores(pl.concat([a, b]), **read), BY)
    assert_frame_equal(_report(cells + later, BY), both, abs_tol=1e-9)
    assert_frame_equal(_report(af.Cells.read([tmp_path / "a", tmp_path / "b"]), BY), both, abs_tol=1e-9)


@pytest.mark.parametrize("layout", ["binary", "argmax", "threshold", "multilabel"])
def test_the_profiles_are_expected_counts_of_crisp_profiles(layout: str) -> None:
    """Few profiles per group, crisp cells, fractional counts that sum to the group's examples;
    the old plug-in (each example's expected cells as its profile) gives another exemplar value."""
    make, read = LAYOUTS[layout]
    cmap = af.fit_calibration(af.from_scores(make(4, 900), **read))
    data = af.from_scores(make(5, 300), **read)
    cells = af.expected_cells(cmap, data, by=BY)
    keys = list(cells.keys)  # private key names (the user's "n" is a column of the profiles)
    prof = cells.profile_table
    assert prof.schema["n"] == pl.Float64
    cell = pl.col("tp", "fp", "fn", "tn")
    assert prof.select((cell.round() == cell).all()).row(0) == (True,) * 4
    # bounded by the possible profiles (tp, fn of an example of C entries, k predicted), not the examples
    c = {"binary": 1, "multilabel": 4}.get(layout, 3)
    possible = sum((k + 1) * (c - k + 1) for k in range(c + 1))
    assert prof.height <= prof.select(keys).n_unique() * possible
    sizes = prof.group_by(keys).agg(pl.col("n").sum())
    assert cells.group_table is not None
    joined = sizes.join(cells.group_table, on=keys, how="full", nulls_equal=True)
    assert joined.height == cells.group_table.height == sizes.height
    np.testing.assert_allclose(joined["n"].to_numpy(), joined["n_examples"].to_numpy(), rtol=1e-9)
    # the plug-in of each example's expected cells is another (biased) value: the test above can fail
    plugin = replace(cells, profile_table=_plugin_profiles(cmap, data, cells))
    got, old = (c.evaluate(["f1", "jaccard"], "exemplar")["value"].to_numpy() for c in (cells, plugin))
    assert np.abs(got - old).max() > 1e-4


def _plugin_profiles(cmap: af.CalibrationMap, data: af.Predictions, cells: af.Cells) -> pl.DataFrame:
    """Each example's expected cells as its profile (what ``expected_cells`` kept before)."""
    ent = entries(_check_source(data, "data"), BY, None)
    lf = with_q(ent, cmap)
    q, d = pl.col("__af_est_q"), pl.col("__af_est_d")
    if ent.binary:
        lf = lf.with_row_index("__af_example")
    per = (
        lf.group_by([*ent.keys, "__af_example"])
        .agg(
            (q * d).sum().alias("tp"),
            ((1 - q) * d).sum().alias("fp"),
            (q * (1 - d)).sum().alias("fn"),
            ((1 - q) * (1 - d)).sum().alias("tn"),
        )
        .group_by([*ent.keys, "tp", "fp", "fn", "tn"])
        .agg(pl.len().cast(pl.Float64).alias("n"))
        .collect()
    )
    table = cells.profile_table
    return per.rename(dict(zip(ent.keys, cells.keys, strict=True))).select(
        *[pl.col(k).cast(table.schema[k]) for k in cells.keys], "tp", "fp", "fn", "tn", "n"
    )


def test_above_the_exact_classes_the_estimates_fallback_is_kept() -> None:
    """More than EXACT_CLASSES classes: the estimate's exemplar is the measure of each example's
    expected cells, and so are the cells' (integer counts); they still add up."""
    classes = EXACT_CLASSES + 1
    cmap = af.fit_calibration(af.from_scores(_long(6, 200, classes)))
    a, b = _long(7, 40, classes), _long(8, 30, classes)
    cells = af.expected_cells(cmap, af.from_scores(a), by=BY) + af.expected_cells(
        cmap, af.from_scores(b), by=BY
    )
    assert cells.profile_table.schema["n"] == pl.Int64
    assert_frame_equal(
        _report(cells, BY), _estimated(cmap, af.from_scores(pl.concat([a, b])), BY), abs_tol=1e-9
    )
