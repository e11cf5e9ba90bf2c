"""One evaluate call for the cell operators and the whole-matrix measures together (issue #29).

A request that names cell operators (micro, macro, ...) and ``multiclass`` computes every
pair that is defined, in one plan, and lists each undefined pair as a row (value null,
``n_entries`` 0); a name that is no measure, or a measure no operator asked for defines, is
an error. The unknown-name errors list every valid name, grouped, with a suggestion.
"""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import numpy as np
import polars as pl
import polars.selectors as cs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import balanced_accuracy_score, f1_score, matthews_corrcoef

import aggframe as af
from tests.engines.test_engines import _counting_source
from tests.measures.test_matrix import check_against_sklearn, sklearn_values
from tests.strategies import RESULT_NAMES, hostile_names

FEW = settings(max_examples=8, deadline=None)
FRAME = pl.read_parquet("examples/predictions.parquet").filter(pl.col("day") == pl.col("day").min())

MEASURES = ["f1", "mcc", "accuracy", "kappa", "balanced_accuracy"]
CELL_OPS = ["micro", "macro"]
#: (measure, operator) pairs without a definition among MEASURES x [*CELL_OPS, "multiclass"]
UNDEFINED = {("f1", "multiclass"), ("accuracy", "micro"), ("accuracy", "macro")}


def _separate(pr: af.Predictions, **options: Any) -> pl.DataFrame:
    """The two calls users ran before: the cell operators, then multiclass, concatenated."""
    cells = pr.evaluate([m for m in MEASURES if m != "accuracy"], CELL_OPS, **options)
    whole = pr.evaluate([m for m in MEASURES if m != "f1"], "multiclass", **options)
    return pl.concat([cells, whole])


def _defined(out: pl.DataFrame) -> pl.DataFrame:
    return out.filter(pl.col("n_entries") > 0)


def _sorted(df: pl.DataFrame) -> pl.DataFrame:
    return df.sort(pl.all(), nulls_last=True)


def test_one_call_equals_the_two_calls_and_lists_the_undefined_pairs() -> None:
    pr = af.from_labels(
        FRAME.with_columns(pl.when(pl.col("model") == "gbm").then(None).otherwise("model").alias("model"))
    )
    out = pr.evaluate(MEASURES, [*CELL_OPS, "multiclass"], by="model", convention=["exclude", "zero"])
    assert_frame_equal(
        _sorted(_defined(out)), _sorted(_separate(pr, by="model", convention=["exclude", "zero"]))
    )
    # every pair asked is a row: the grid is complete, in the order asked
    groups = out["model"].n_unique()
    assert out.height == groups * len(MEASURES) * 3 * 2
    missing = out.filter(pl.col("n_entries") == 0)
    assert set(missing.select("measure", "operator").unique().rows()) == UNDEFINED
    assert missing["value"].null_count() == missing.height  # null: not defined; NaN: undefined here
    assert out.filter(pl.col("n_entries") > 0)["value"].null_count() == 0
    first = out.filter(pl.col("model").is_null()).select("measure", "operator").unique(maintain_order=True)
    assert first.rows()[:3] == [("f1", "micro"), ("f1", "macro"), ("f1", "multiclass")]


@FEW
@given(
    data=st.data(),
    by=hostile_names().filter(lambda b: b not in (*RESULT_NAMES["evaluate"], "y_true", "y_pred")),
    n=st.integers(1, 25),
)
def test_same_frame_as_sklearn(data: st.DataObject, by: str, n: int) -> None:
    classes = [0, 1, 2, 3]
    yt = data.draw(st.lists(st.sampled_from(classes), min_size=n, max_size=n), label="y_true")
    yp = data.draw(st.lists(st.sampled_from(classes), min_size=n, max_size=n), label="y_pred")
    g = data.draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n), label="g")
    frame = pl.DataFrame(
        {by: g, "y_true": yt, "y_pred": yp}, schema={by: pl.String, "y_true": pl.Int64, "y_pred": pl.Int64}
    )
    pr = af.from_labels(frame, classes=classes)
    matrix = ["accuracy", "mcc", "kappa", "kappa_quadratic", "balanced_accuracy"]
    out = pr.evaluate(["f1", *matrix], ["macro", "multiclass"], by=by, convention=["nan", "zero"])
    for key in frame[by].unique().to_list():
        rows = frame.filter(cs.by_name(by).as_expr().eq_missing(pl.lit(key, dtype=pl.String)))
        t, p = rows["y_true"].to_list(), rows["y_pred"].to_list()
        mine = out.filter(cs.by_name(by).as_expr().eq_missing(pl.lit(key, dtype=pl.String)))

        def value(measure: str, operator: str, convention: str, mine: pl.DataFrame = mine) -> float | None:
            got = mine.filter(
                (pl.col("measure") == measure)
                & (pl.col("operator") == operator)
                & (pl.col("convention") == convention)
            )
            assert got.height == 1
            v = got["value"][0]
            return None if v is None or math.isnan(v) else float(v)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f1 = f1_score(t, p, labels=classes, average="macro", zero_division=0)
        assert value("f1", "macro", "zero") == pytest.approx(f1, abs=1e-12)
        assert value("f1", "multiclass", "zero") is None  # listed, not computed
        assert value("accuracy", "macro", "nan") is None
        ref = sklearn_values(t, p, classes)
        for name in matrix:
            check_against_sklearn(value(name, "multiclass", "nan"), name, t, ref[name])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ba = balanced_accuracy_score(t, p)
            mcc = float(matthews_corrcoef(t, p))
        # scikit-learn's mcc is 0 where undefined: convention zero
        assert value("mcc", "multiclass", "zero") == pytest.approx(mcc, abs=1e-12)
        assert value("balanced_accuracy", "multiclass", "zero") == pytest.approx(ba, abs=1e-12)


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_lazy_and_streaming_are_one_plan_and_one_read(engine: str) -> None:
    # the mixed call reads the input as often as the multiclass call alone (the margins' reads)
    def reads(measures: list[str], operators: list[str], *, lazy: bool) -> tuple[int, pl.DataFrame]:
        lf, calls = _counting_source(FRAME)
        out = af.from_labels(lf).evaluate(measures, operators, by="model", lazy=lazy, engine=engine)
        if lazy:
            assert isinstance(out, pl.LazyFrame)
            out = out.collect(engine=engine)
        return calls[0], out

    alone, _ = reads(["mcc", "accuracy"], ["multiclass"], lazy=False)
    eager_reads, eager = reads(MEASURES, [*CELL_OPS, "multiclass"], lazy=False)
    lazy_reads, lazy = reads(MEASURES, [*CELL_OPS, "multiclass"], lazy=True)
    assert eager_reads == lazy_reads == alone
    assert_frame_equal(eager, lazy)
    # the plan: as many scans as one operator's report over the same file
    path = "examples/predictions.parquet"

    def scans(measures: list[str], operators: list[str]) -> int:
        plan = af.from_labels(pl.scan_parquet(path)).evaluate(measures, operators, by="model", lazy=True)
        return len(re.findall(r"SCAN \[", plan.explain()))

    assert scans(MEASURES, [*CELL_OPS, "multiclass"]) == scans(["mcc"], ["multiclass"])


def test_bootstrap_folds_targets_and_grouping_sets() -> None:
    pr = af.from_labels(FRAME, example="example")
    boot = {"n_boot": 30, "seed": 3}
    out = pr.evaluate(MEASURES, [*CELL_OPS, "multiclass"], by="model", **boot)
    assert_frame_equal(_sorted(_defined(out)), _sorted(_separate(pr, by="model", **boot)))
    assert out.filter(pl.col("n_entries") == 0)["value"].null_count() == len(UNDEFINED) * 3

    folded = FRAME.with_columns((pl.col("example") % 3).alias("fold"))
    pr = af.from_labels(folded, fold="fold")
    poolings = ["pooled", "averaged", "fold", "std"]
    out = pr.evaluate(MEASURES, [*CELL_OPS, "multiclass"], by="model", pooling=poolings)
    assert_frame_equal(_sorted(_defined(out)), _sorted(_separate(pr, by="model", pooling=poolings)))

    sets = {"by": ["model"], "grouping_sets": "rollup"}
    pr = af.from_labels(FRAME)
    out = pr.evaluate(MEASURES, [*CELL_OPS, "multiclass"], **sets)
    assert_frame_equal(_sorted(_defined(out)), _sorted(_separate(pr, **sets)))

    two = pl.concat([FRAME.with_columns(pl.lit(t).alias("task")) for t in ("x", "y")])
    pr = af.from_labels(two, target="task", example="example")
    out = pr.evaluate(["f1", "accuracy"], ["micro", "target"], within=["macro", "multiclass"], by="model")
    cell = pr.evaluate(["f1"], ["micro", "target"], within=["macro"], by="model")
    whole = pr.evaluate(["accuracy"], ["target"], within=["multiclass"], by="model")
    assert_frame_equal(_sorted(_defined(out)), _sorted(pl.concat([cell, whole])))
    assert set(out.filter(pl.col("n_entries") == 0).select("measure", "operator").rows()) == {
        ("f1", "target:multiclass"),
        ("accuracy", "micro"),
        ("accuracy", "target:macro"),
    }


def test_compare_wide_and_cells_take_the_mix() -> None:
    pr = af.from_labels(FRAME)
    out = pr.compare(["f1", "accuracy"], ["macro", "multiclass"], by="model")
    got = out.filter(pl.col("measure") == "accuracy", pl.col("operator") == "multiclass")
    alone = pr.compare("accuracy", "multiclass", by="model")
    assert got["value"].to_list() == alone["value"].to_list()
    assert got["overall"].to_list() == alone["overall"].to_list()
    table = af.wide_table(pr.evaluate(["f1", "accuracy"], ["macro", "multiclass"], by="model"))
    assert table.columns == [
        "model",
        "n_examples",
        "f1 macro",
        "f1 multiclass",
        "accuracy macro",
        "accuracy multiclass",
    ]
    assert table["f1 multiclass"].null_count() == table.height
    cells = pr.to_cells()
    assert_frame_equal(
        cells.evaluate(MEASURES, [*CELL_OPS, "multiclass"]).drop("n_examples", strict=False),
        pr.evaluate(MEASURES, [*CELL_OPS, "multiclass"]).drop("n_examples"),
    )


def test_errors_still_name_the_mistake() -> None:
    pr = af.from_labels([0, 1, 2, 2], [0, 2, 2, 1])
    with pytest.raises(af.errors.UnknownNameError, match=r"did you mean 'precision'\?"):
        pr.evaluate(["f1", "precison", "accuracy"], ["macro", "multiclass"])
    # no measure for one of the operators asked: each kind of operator must get one
    with pytest.raises(af.errors.OptionError, match="no whole-matrix definition"):
        pr.evaluate(["f1", "precision"], ["macro", "multiclass"])
    with pytest.raises(af.errors.OptionError, match="whole confusion matrix only"):
        pr.evaluate(["accuracy", "kappa_linear"], ["macro", "multiclass"])
    # one kind alone keeps the strict rule
    with pytest.raises(af.errors.OptionError, match="no whole-matrix definition"):
        pr.evaluate(["f1", "accuracy"], ["multiclass"])


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"measures": "precison"}, "did you mean 'precision'?"),
        ({"measures": "aurco"}, "did you mean 'auroc'?"),
        ({"measures": "acuracy", "operators": "multiclass"}, "did you mean 'accuracy'?"),
        ({"operators": "macor"}, "did you mean 'macro'?"),
        ({"convention": "exlcude"}, "did you mean 'exclude'?"),
    ],
)
def test_unknown_names_suggest_and_list_every_valid_name(options: dict[str, Any], expected: str) -> None:
    pr = af.from_labels([0, 1, 2, 2], [0, 2, 2, 1])
    with pytest.raises(af.errors.UnknownNameError) as info:
        pr.evaluate(**options)
    text = str(info.value)
    assert expected in text
    if "measures" in options:
        groups = re.findall(r"(measures of the cells|whole-matrix measures|measures on scores)", text)
        assert groups == ["measures of the cells", "whole-matrix measures", "measures on scores"]
        for name in [
            *af.list_measures(),
            "accuracy",
            "kappa_quadratic",
            "auroc",
            "average_precision",
            "log_loss",
            "brier",
            "ece",
        ]:
            assert re.search(rf"\b{re.escape(name)}\b", text), name


def test_unknown_name_without_a_close_one_has_no_suggestion() -> None:
    with pytest.raises(af.errors.UnknownNameError) as info:
        af.get_measure("zzzz")
    assert "did you mean" not in str(info.value)


def test_command_line_takes_the_mix(tmp_path: Any) -> None:
    from aggframe.interop.cli import main

    out = tmp_path / "r.csv"
    code = main(
        [
            "report",
            "examples/predictions.parquet",
            "--by",
            "model",
            "--measures",
            "f1,mcc,accuracy",
            "--operators",
            "micro,macro,multiclass",
            "--format",
            "csv",
            "-o",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    got = pl.read_csv(out)
    pr = af.from_labels(pl.read_parquet("examples/predictions.parquet"))
    want = pr.evaluate(["f1", "mcc", "accuracy"], ["micro", "macro", "multiclass"], by="model")
    assert (
        got.select("model", "measure", "operator", "n_examples").rows()
        == want.select("model", "measure", "operator", "n_examples").rows()
    )
    assert np.allclose(got["value"].to_numpy(), want["value"].to_numpy(), equal_nan=True)


def test_command_line_unknown_measure_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from aggframe.interop.cli import main

    assert main(["report", "examples/predictions.parquet", "--measures", "precison", "--quiet"]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "did you mean 'precision'?" in lines[0]
    assert "auroc" in lines[0]
    assert "accuracy" in lines[0]
    assert "Traceback" not in err
    assert "af." not in lines[0]
    assert "from_scores(" not in lines[0]


def test_measures_on_scores_join_the_mix() -> None:
    from sklearn.metrics import accuracy_score, log_loss, roc_auc_score

    rng = np.random.default_rng(4)
    n, m = 60, 3
    probs = rng.dirichlet(np.ones(m), n)
    y = rng.integers(0, m, n)
    long = pl.DataFrame(
        [(i, c, float(probs[i, c]), int(y[i] == c)) for i in range(n) for c in range(m)],
        schema=["ex", "cls", "s", "y"],
        orient="row",
    )
    pr = af.from_scores(long, example="ex", class_="cls", score="s", y="y", decision="argmax")
    out = pr.evaluate(["auroc", "log_loss", "f1", "accuracy"], ["macro", "multiclass"])
    got = {(r["measure"], r["operator"]): r["value"] for r in out.iter_rows(named=True)}
    assert got["auroc", "macro"] == pytest.approx(roc_auc_score(y, probs, multi_class="ovr"), abs=1e-12)
    assert got["log_loss", "multiclass"] == pytest.approx(log_loss(y, probs), abs=1e-12)
    assert got["accuracy", "multiclass"] == pytest.approx(accuracy_score(y, probs.argmax(1)), abs=1e-12)
    listed = {k for k, v in got.items() if v is None}
    assert listed == {("auroc", "multiclass"), ("f1", "multiclass"), ("accuracy", "macro")}
    assert set(out.filter(pl.col("value").is_null())["n_entries"]) == {0}
    # multiclass with nothing to compute is still refused
    with pytest.raises(af.errors.OptionError, match="no value for 'auroc'"):
        pr.evaluate(["auroc"], ["macro", "multiclass"])
