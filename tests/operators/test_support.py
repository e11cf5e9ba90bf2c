"""The count behind each number (issue #29): ``n_examples`` on every evaluate row, support per class.

``n_examples`` is the number of examples the row's cells count: the group's rows in the
label form, its distinct examples in the long form (masked or sparse entries included: an
example with any row), the block matrix's examples with targets, the appearances over
folds and repeats. Per class, ``support`` is the true examples of the class, as
scikit-learn's ``classification_report`` gives it.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import polars as pl
import polars.selectors as cs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import classification_report as sk_report

import aggframe as af
from tests.engines.test_engines import _counting_source
from tests.strategies import RESULT_NAMES, hostile_names

FEW = settings(max_examples=8, deadline=None)
FRAME = pl.read_parquet("examples/predictions.parquet").filter(pl.col("day") == pl.col("day").min())
BAD_KEYS = (
    *RESULT_NAMES["evaluate"],
    *RESULT_NAMES["per_class"],
    "y_true",
    "y_pred",
    "grouping_set",
    "grouping_id",
)


def _counts(frame: pl.DataFrame, by: str) -> dict[Any, int]:
    return dict(frame.group_by(cs.by_name(by), maintain_order=True).len().rows())


def _examples(out: pl.DataFrame, by: str) -> dict[Any, int]:
    """One n_examples per group (asserting every row of the group has the same)."""
    sizes = out.group_by(cs.by_name(by), maintain_order=True).agg(pl.col("n_examples").unique())
    assert (sizes["n_examples"].list.len() == 1).all()
    return {k: v[0] for k, v in sizes.rows()}


@FEW
@given(
    data=st.data(),
    by=hostile_names().filter(lambda b: b not in BAD_KEYS),
    n=st.integers(1, 30),
    lazy=st.booleans(),
)
def test_label_form_counts_the_groups_rows(data: st.DataObject, by: str, n: int, lazy: bool) -> None:
    draw = data.draw
    frame = pl.DataFrame(
        {
            by: draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n), label="g"),
            "y_true": draw(st.lists(st.integers(0, 3), min_size=n, max_size=n), label="yt"),
            "y_pred": draw(st.lists(st.integers(0, 3), min_size=n, max_size=n), label="yp"),
        },
        schema={by: pl.String, "y_true": pl.Int64, "y_pred": pl.Int64},
    )
    pr = af.from_labels(frame)
    out = pr.evaluate(["f1", "mcc"], ["micro", "macro", "exemplar"], by=by, lazy=lazy)
    out = out.collect() if isinstance(out, pl.LazyFrame) else out
    assert out.columns[-1] == "n_examples"
    assert out.schema["n_examples"] == pl.Int64
    assert _examples(out, by) == _counts(frame, by)
    # the overall row of a grouping set counts every row
    rolled = pr.evaluate(["f1", "accuracy"], ["macro", "multiclass"], by=by, grouping_sets="rollup")
    assert set(rolled.filter(pl.col("grouping_id") == 1)["n_examples"]) == {n}
    sub = rolled.filter(pl.col("grouping_id") == 0).drop("grouping_set", "grouping_id")
    assert _examples(sub, by) == _counts(frame, by)
    # per class: the support is scikit-learn's
    per = pr.per_class("recall", by=by)
    for key, rows in frame.group_by(cs.by_name(by)):
        mine = per.filter(cs.by_name(by).as_expr().eq_missing(pl.lit(key[0], dtype=pl.String)))
        ref = sk_report(
            rows["y_true"], rows["y_pred"], labels=mine["class"].to_list(), output_dict=True, zero_division=0
        )
        assert mine["support"].to_list() == [ref[str(c)]["support"] for c in mine["class"]]


def test_support_equals_classification_report() -> None:
    frame = FRAME.filter(pl.col("model") == "gbm")
    yt, yp = frame["y_true"].to_list(), frame["y_pred"].to_list()
    ref = sk_report(yt, yp, output_dict=True)
    mine = af.classification_report(yt, yp)
    supports = dict(zip(mine["class"].cast(pl.String), mine["support"], strict=True))
    for label, row in ref.items():
        if isinstance(row, dict) and label not in ("macro avg", "weighted avg"):
            assert supports[label] == row["support"], label
    parts = af.from_labels(frame).parts("f1", "macro")
    assert parts["support"].to_list() == [ref[str(c)]["support"] for c in parts["class"]]
    # the report's n_examples is the report's total support
    total = af.from_labels(frame).evaluate("f1", "macro")["n_examples"].item()
    assert total == ref["macro avg"]["support"] == frame.height


def test_long_form_counts_distinct_examples_masked_and_sparse_included() -> None:
    rows = {
        # example 1: two classes; example 2: one entry masked; example 3: every entry masked;
        # example 4 in group a, example 5 in group b (null)
        "ex": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
        "cls": [0, 1, 0, 1, 0, 1, 0, 1, 0, 1],
        "y": [1, 0, 0, 1, 1, 0, 0, 1, 0, 1],
        "p": [1, 0, 1, 1, 0, 0, 0, 0, 0, 1],
        "m": [1, 1, 1, 0, 0, 0, 1, 1, 1, 1],
        "g": ["a", "a", "a", "a", "a", "a", "a", "a", None, None],
    }
    frame = pl.DataFrame(rows)
    pr = af.from_long(frame, example="ex", class_="cls", y="y", p="p", mask="m", classes=[0, 1])
    out = pr.evaluate(["f1"], ["micro", "exemplar"], by="g")
    assert _examples(out, "g") == {"a": 4, None: 1}
    # the exemplar operator's entries are those examples
    assert out.filter(pl.col("operator") == "exemplar")["n_entries"].to_list() == [4, 1]
    soft = af.from_long(frame.drop("m"), example="ex", class_="cls", y="y", p="p", tnorm="product")
    assert _examples(soft.evaluate("f1", "micro", by="g"), "g") == {"a": 4, None: 1}
    # sparse: the entries with y = p = 0 left out; an example with any row counts
    sparse = frame.drop("m").filter((pl.col("y") == 1) | (pl.col("p") == 1))
    assert sparse.height < frame.height
    pr = af.from_long(sparse, example="ex", class_="cls", y="y", p="p", classes=[0, 1])
    assert _examples(pr.evaluate("f1", "micro", by="g"), "g") == {"a": 4, None: 1}


def test_folds_targets_scores_bootstrap_and_stores() -> None:
    folded = FRAME.with_columns((pl.col("example") % 4).alias("fold"))
    pr = af.from_labels(folded, fold="fold")
    out = pr.evaluate(
        ["f1", "accuracy"], ["macro", "multiclass"], by="model", pooling=["pooled", "averaged", "fold", "max"]
    )
    per_fold = out.filter(pl.col("pooling") == "fold").unique(["model", "fold", "n_examples"])
    assert per_fold.height == folded.select("model", "fold").n_unique()  # one count per fold
    want = dict(((m, f), k) for m, f, k in folded.group_by("model", "fold").len().rows())
    assert all(want[(m, f)] == k for m, f, k in per_fold.select("model", "fold", "n_examples").rows())
    for pooling in ("pooled", "averaged", "max"):
        assert _examples(out.filter(pl.col("pooling") == pooling), "model") == _counts(folded, "model")

    # two targets on the same examples: the block matrix's examples count once
    two = pl.concat([FRAME.with_columns(pl.lit(t).alias("task")) for t in ("x", "y")])
    pr = af.from_labels(two, target="task", example="example")
    out = pr.evaluate(["f1", "accuracy"], ["micro", "target"], within=["macro", "multiclass"], by="model")
    assert _examples(out, "model") == _counts(FRAME, "model")

    # scores: the distinct examples of each group, with and without cell measures
    rng = np.random.default_rng(0)
    n, m = 40, 3
    probs = rng.dirichlet(np.ones(m), n)
    y = rng.integers(0, m, n)
    g = rng.choice(["u", "v"], n).tolist()
    long = pl.DataFrame(
        [(i, c, float(probs[i, c]), int(y[i] == c), g[i]) for i in range(n) for c in range(m)],
        schema=["ex", "cls", "s", "y", "g"],
        orient="row",
    )
    scored = af.from_scores(long, example="ex", class_="cls", score="s", y="y", decision="argmax")
    want = dict(long.group_by("g").agg(pl.col("ex").n_unique()).rows())
    for measures in (["auroc", "log_loss"], ["auroc", "f1"]):
        assert _examples(scored.evaluate(measures, ["micro", "macro"], by="g"), "g") == want
    rolled = scored.evaluate(["auroc", "f1"], ["macro"], by="g", grouping_sets="rollup")
    assert set(rolled.filter(pl.col("grouping_id") == 1)["n_examples"]) == {n}

    # the bootstrap keeps the data's count; a cell store keeps it too
    pr = af.from_labels(FRAME, example="example")
    boot = pr.evaluate(["f1"], ["macro"], by="model", n_boot=20)
    assert _examples(boot, "model") == _counts(FRAME, "model")
    assert boot.columns.index("n_examples") < boot.columns.index("ci_low")
    cells = af.from_labels(FRAME).to_cells(by="model")
    assert _examples(cells.evaluate("f1", "macro", by="model"), "model") == _counts(FRAME, "model")


def test_one_read_and_the_by_name_n_examples_refused() -> None:
    def scans(**options: Any) -> int:
        pr = af.from_labels(pl.scan_parquet("examples/predictions.parquet"))
        plan = pr.evaluate(["f1", "mcc"], ["micro", "macro"], by=["model", "day"], lazy=True, **options)
        return len(re.findall(r"SCAN \[", plan.explain()))

    # as many reads as before the column (the label form's two grains), grouping sets too
    assert scans() == scans(grouping_sets="rollup") == 2
    lf, calls = _counting_source(FRAME)
    af.from_labels(lf).evaluate(["f1", "accuracy"], ["macro", "multiclass"], by="model")
    assert calls[0] == 2
    with pytest.raises(af.errors.OptionError, match="'n_examples' collides"):
        af.from_labels(FRAME.rename({"model": "n_examples"})).evaluate("f1", by="n_examples")


def test_wide_and_html_tables_carry_n_examples() -> None:
    pr = af.from_labels(FRAME)
    report = pr.evaluate(["f1", "mcc"], ["micro", "macro"], by="model", convention=["exclude", "zero"])
    table = af.wide_table(report)
    assert table.columns[:2] == ["model", "n_examples"]
    assert dict(table.select("model", "n_examples").rows()) == _counts(FRAME, "model")
    assert af.wide_table(report, by=["model", "measure"]).columns[:3] == ["model", "measure", "n_examples"]
    # the HTML report's results table is this wide table of the labelled groups
    great_tables = pytest.importorskip("great_tables")
    from aggframe.interop.html import _grouped
    from aggframe.interop.html_tables import gt_table

    results, label = _grouped(report, ["model"], ["measure"])
    assert results.columns[:3] == [label, "measure", "n_examples"]
    assert "n_examples" in gt_table(great_tables, results, table_id="t", group=label)
    assert_frame_equal(af.wide_table(report.drop("n_examples")), table.drop("n_examples"))
    # with intervals (several value columns) too
    boot = pr.evaluate(["f1"], ["macro"], by="model", n_boot=10)
    results, label = _grouped(boot, ["model"], ["measure"], ["value", "ci_low", "ci_high"])
    assert results.columns[:3] == [label, "measure", "n_examples"]
