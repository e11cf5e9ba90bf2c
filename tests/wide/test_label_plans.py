"""The label form's two plans for the margins give the same cell tables and reports (issue #19).

With a class universe of at most ``PAIRS_UP_TO`` classes known before the scan, the
margins come from one group-by of the rows by (y_true, y_pred); otherwise from two
group-bys, by true and by predicted label. The oracle of each plan is the other one:
the same frames (null keys, hostile key names, null labels for the checks, targets,
folds) give the same margins, cell tables, report and errors either way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import duckdb
import narwhals as nw
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.intake import labels as label_intake
from aggframe.wide.labels import LabelRoles, label_grains
from tests.strategies import (
    CONVENTIONS,
    OPERATORS,
    RESULT_NAMES,
    LabelCase,
    distinct_names,
    label_frames,
    rename_columns,
)

MEASURES = ["f1", "precision", "recall", "mcc", "specificity"]


@contextmanager
def margins_plan() -> Iterator[None]:
    """Every universe counts as large: the two group-bys, whatever the number of classes."""
    saved = label_intake.PAIRS_UP_TO
    label_intake.PAIRS_UP_TO = 0
    try:
        yield
    finally:
        label_intake.PAIRS_UP_TO = saved


def _sorted(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(pl.all(), nulls_last=True)


def test_the_universe_size_picks_the_plan() -> None:
    frame = pl.DataFrame({"y_true": [0, 1, 2], "y_pred": [0, 2, 2]})
    assert af.from_labels(frame, n_classes=3).source._few_classes()
    assert af.from_labels(frame, classes=[0, 1, 2, 5]).source._few_classes()
    assert not af.from_labels(frame).source._few_classes()  # unknown before the scan
    assert af.from_labels(frame, n_classes=label_intake.PAIRS_UP_TO).source._few_classes()
    assert not af.from_labels(frame, n_classes=label_intake.PAIRS_UP_TO + 1).source._few_classes()
    enum = frame.with_columns(pl.col("y_true", "y_pred").cast(pl.String).cast(pl.Enum(["0", "1", "2"])))
    assert af.from_labels(enum).source._few_classes()
    with margins_plan():
        assert not af.from_labels(frame, n_classes=3).source._few_classes()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=label_frames(max_n=25, max_m=4),
    nulls=st.lists(st.sampled_from(["none", "true", "pred", "both"]), min_size=1, max_size=4),
    engine=st.sampled_from(["polars", "duckdb"]),
)
def test_both_plans_count_the_same_margins(case: LabelCase, nulls: list[str], engine: str) -> None:
    # null labels too: the margins carry them (the checks read the null class's counts)
    frame = case.frame
    for i, where in enumerate(nulls[: frame.height]):
        yt = None if where in ("true", "both") else frame["y_true"][i]
        yp = None if where in ("pred", "both") else frame["y_pred"][i]
        frame = frame.with_columns(
            pl.when(pl.int_range(pl.len()) == i).then(pl.lit(yt)).otherwise(pl.col("y_true")).alias("y_true"),
            pl.when(pl.int_range(pl.len()) == i).then(pl.lit(yp)).otherwise(pl.col("y_pred")).alias("y_pred"),
        )
    native = frame.lazy() if engine == "polars" else duckdb.from_arrow(frame.to_arrow())
    lf = nw.from_native(native)
    got = {}
    for via_pairs in (False, True):
        raw = label_grains(lf, LabelRoles(), case.by, via_pairs=via_pairs)
        margins = raw["margins"].collect(backend="polars").to_native()
        got[via_pairs] = _sorted(
            margins.select(*case.by, "class", "_t", "_p", "tp").cast(
                {"_t": pl.Int64, "_p": pl.Int64, "tp": pl.Int64}
            )
        )
    assert_frame_equal(got[True], got[False])


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=label_frames(max_n=30, max_m=4), data=st.data())
def test_both_plans_give_the_same_report(case: LabelCase, data: st.DataObject) -> None:
    # hostile key names: the plans' helper columns never meet the user's
    taken = [*RESULT_NAMES["evaluate"], *RESULT_NAMES["cells_class"], "y_true", "y_pred", "example"]
    names = data.draw(distinct_names(len(case.by), avoid=taken))
    mapping = dict(zip(case.by, names, strict=True))
    frame = rename_columns(case.frame, mapping)
    by = [mapping[k] for k in case.by]
    roles = {k: v for k, v in case.roles().items() if v is not None}
    options = {"measures": MEASURES, "operators": list(OPERATORS), "by": by, "convention": list(CONVENTIONS)}
    pairs = af.from_labels(frame, **roles, classes=case.classes)
    with margins_plan():
        margins = af.from_labels(frame, **roles, classes=case.classes)
        expected = margins.evaluate(**options)
        expected_cells = margins.cells("class", by=by)
    assert_frame_equal(pairs.evaluate(**options), expected, abs_tol=1e-12)
    assert_frame_equal(pairs.cells("class", by=by), expected_cells)
    lazy = pairs.evaluate(**options, lazy=True).collect(engine="streaming")
    assert_frame_equal(lazy, expected, abs_tol=1e-12)


@pytest.mark.parametrize("few", [False, True])
def test_the_checks_read_either_plan(few: bool) -> None:
    frame = pl.DataFrame({"g": [None, None, 1], "y_true": [0, None, 1], "y_pred": [1, 1, None]})
    with (
        margins_plan() if not few else _nothing(),
        pytest.raises(af.errors.NullValueError, match="'y_true': 1 null"),
    ):
        af.from_labels(frame, classes=[0, 1]).evaluate("f1", by="g")
    outside = pl.DataFrame({"g": [None, 2], "y_true": [0, 7], "y_pred": [1, 1]})
    with margins_plan() if not few else _nothing(), pytest.raises(af.errors.UnknownClassError, match="1 row"):
        af.from_labels(outside, classes=[0, 1]).evaluate("f1", by="g")


@contextmanager
def _nothing() -> Iterator[None]:
    yield
