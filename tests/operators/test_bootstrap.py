"""The Poisson bootstrap in the plan (``n_boot=``): weights, replicate cells, intervals, pairing, engines.

* the weights: the hash is the same on Polars (eager, lazy, streaming), DuckDB and
  Spark as its plain-Python reference, and its weights behave as independent
  Poisson(1) draws (moments, frequencies, correlations across replicates and ids);
* the replicates: every replicate's values equal scikit-learn's with
  ``sample_weight`` = that replicate's weights (label form), the long form's equal
  the label form's on the same examples, exemplar values are weighted means;
  replicate ``-1`` is the unweighted report exactly;
* the intervals: percentiles and standard deviations of the replicate values; a
  coverage simulation where the truth is known; ``se`` shrinks as ``1/sqrt(n)``;
* pairing (identical models: a zero-width difference), clusters, folds and
  repeats, targets, grouping sets, null keys and hostile names, bad input.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import f1_score, precision_score, recall_score

import aggframe as af
from aggframe._columns import REP, restore
from aggframe._options import Bootstrap
from aggframe.exceptions import (
    ColumnNotFoundError,
    InvalidValueError,
    OptionError,
    SourceError,
)
from aggframe.wide.bootstrap import THRESHOLDS, reference_weights, unit_hash, weight_columns
from tests.strategies import distinct_names, label_frames, rename_columns

BOOT = ("ci_low", "ci_high", "se", "n_boot", "level")


def _labels(n: int, m: int = 3, *, seed: int = 0, acc: float = 0.7, ids: Any = None) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, m, n)
    yp = np.where(rng.random(n) < acc, yt, rng.integers(0, m, n))
    return pl.DataFrame({"example": np.arange(n) if ids is None else ids, "y_true": yt, "y_pred": yp})


def _replicates(
    pr: af.Predictions, measures: Any, operators: Any, boot: Bootstrap, **kw: Any
) -> pl.DataFrame:
    """The report over replicates (column REP: -1 is the data), the user's key names."""
    report, names = pr.extend.report(pr.extend.request(measures, operators, **kw), boot=boot)
    out: pl.DataFrame = restore(report.collect(), names)
    return out


# ---------------------------------------------------------------------------
# The weights


def _hash_frame(values: list[Any], dtype: pl.DataType) -> pl.DataFrame:
    return pl.DataFrame({"id": pl.Series(values, dtype=dtype)})


def _weights_on(frame: Any, boot: Bootstrap) -> list[tuple[int, ...]]:
    import narwhals as nw

    f = unit_hash(nw.from_native(frame).lazy(), "id", boot.seed, "_h", what="id")
    f, cols = weight_columns(f, "_h", boot)
    native = f.select(*cols).collect(backend="polars").to_native()
    return [tuple(int(v) for v in r) for r in native.rows()]


IDS: dict[str, tuple[list[Any], pl.DataType]] = {
    "int": ([-(2**63), -(2**32) - 1, -5, -1, 0, 1, 2, 3, 2**31, 2**32 + 7, 2**63 - 1, None], pl.Int64()),
    "int32": ([0, 1, -7, None, 2**31 - 1], pl.Int32()),
    "string": (["a", "ab", "ba", "", "é", "名前", "user_000123", "x" * 300, None, "'\"`"], pl.String()),
    "categorical": (["u", "v", None, "u"], pl.Categorical()),
    "bool": ([True, False, None], pl.Boolean()),
}


@pytest.mark.parametrize("kind", list(IDS))
@pytest.mark.parametrize("engine", ["eager", "lazy", "streaming", "duckdb"])
def test_hash_is_the_reference_on_every_engine(kind: str, engine: str) -> None:
    values, dtype = IDS[kind]
    boot = Bootstrap(n_boot=6, seed=11)
    frame = _hash_frame(values, dtype)
    python_ids = [None if v is None else (int(v) if isinstance(v, bool) else v) for v in values]
    expected = [tuple(r) for r in reference_weights(python_ids, 11, 6)]
    if engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        native: Any = (
            con.from_arrow(frame.with_columns(pl.col("id").cast(pl.String)).to_arrow())
            if kind == "categorical"
            else con.from_arrow(frame.to_arrow())
        )
    elif engine == "eager":
        native = frame
    else:
        native = frame.lazy()
    if engine == "streaming":
        import narwhals as nw

        f = unit_hash(nw.from_native(native), "id", 11, "_h", what="id")
        f, cols = weight_columns(f, "_h", boot)
        got = [
            tuple(int(v) for v in r) for r in nw.to_native(f).select(cols).collect(engine="streaming").rows()
        ]
    else:
        got = _weights_on(native, boot)
    assert got == expected


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
def test_weights_are_poisson_and_independent() -> None:
    """Moments, frequencies and correlations of 5 x 10^4 ids x 40 replicates (integer and string ids)."""
    n, b = 50_000, 40
    noise = 1 / np.sqrt(n)
    boot = Bootstrap(n_boot=b, seed=5)
    for ids in (pl.Series("id", range(n)), pl.Series("id", [f"doc-{i}" for i in range(n)])):
        w = np.array(_weights_on(pl.DataFrame(ids).lazy(), boot), dtype=float)
        assert abs(w.mean() - 1) < 0.005
        assert abs(w.var() - 1) < 0.01
        freq = np.bincount(w.astype(int).ravel(), minlength=5)[:5] / w.size
        pmf = np.exp(-1) / np.array([1, 1, 2, 6, 24])
        assert np.all(np.abs(freq - pmf) < 0.002), freq
        # 780 pairs of replicates: their correlations are noise (sd 1/sqrt(n)), none an outlier
        corr = np.corrcoef(w.T)[np.triu_indices(b, 1)]
        assert 0.8 < corr.std() / noise < 1.2
        assert np.max(np.abs(corr)) < 5 * noise
        # consecutive ids (the first hash was nearly linear: neighbours correlated at -0.43)
        neighbours = np.array([np.corrcoef(w[:-1, j], w[1:, j])[0, 1] for j in range(b)])
        assert 0.7 < neighbours.std() / noise < 1.3
        assert np.max(np.abs(neighbours)) < 5 * noise
    assert len(THRESHOLDS) == 12
    assert THRESHOLDS[0] == round(2**32 * np.exp(-1))


def test_seed_decides_the_replicates() -> None:
    pr = af.from_labels(_labels(300), example="example")
    a = pr.evaluate("f1", "macro", n_boot=20, seed=1)
    assert_frame_equal(
        a, af.from_labels(_labels(300), example="example").evaluate("f1", "macro", n_boot=20, seed=1)
    )
    b = pr.evaluate("f1", "macro", n_boot=20, seed=2)
    assert a["value"].to_list() == b["value"].to_list()
    assert a["ci_low"].to_list() != b["ci_low"].to_list()


def test_row_order_does_not_matter() -> None:
    frame = _labels(400, seed=3)
    pr = af.from_labels(frame, example="example")
    shuffled = af.from_labels(frame.sample(fraction=1.0, shuffle=True, seed=9), example="example")
    kw: dict[str, Any] = {"n_boot": 30, "seed": 4}
    assert_frame_equal(pr.evaluate(["f1", "mcc"], None, **kw), shuffled.evaluate(["f1", "mcc"], None, **kw))


# ---------------------------------------------------------------------------
# The replicates against oracles


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_replicates_are_sklearn_with_sample_weight(seed: int) -> None:
    """Every replicate of precision, recall, F1 (micro, macro, weighted) is scikit-learn's with the weights."""
    frame = _labels(60, m=4, seed=seed, ids=np.arange(1000, 1060) * 7)
    boot = Bootstrap(n_boot=15, seed=seed)
    pr = af.from_labels(frame, example="example")
    ops = ["micro", "macro", "weighted"]
    got = _replicates(pr, ["precision", "recall", "f1"], ops, boot)
    weights = np.array(reference_weights(frame["example"].to_list(), seed, 15), dtype=float)
    labels = sorted(set(frame["y_true"]) | set(frame["y_pred"]))
    oracle = {"precision": precision_score, "recall": recall_score, "f1": f1_score}
    yt, yp = frame["y_true"].to_numpy(), frame["y_pred"].to_numpy()
    for b in range(-1, 15):
        w = np.ones(len(frame)) if b == -1 else weights[:, b]
        rows = got.filter(pl.col(REP) == b)
        for name, fn in oracle.items():
            for op in ops:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = fn(yt, yp, labels=labels, average=op, sample_weight=w, zero_division=np.nan)
                value = rows.filter((pl.col("measure") == name) & (pl.col("operator") == op))["value"].item()
                if np.isnan(expected):
                    assert np.isnan(value)
                else:
                    assert value == pytest.approx(expected, abs=1e-12), (b, name, op)


def test_binary_operator_and_class_subsets_are_sklearn() -> None:
    """The binary operator (two classes) and a class subset (``labels=``) per replicate: scikit-learn."""
    boot = Bootstrap(n_boot=10, seed=4)
    two = _labels(80, m=2, seed=3)
    three = _labels(80, m=3, seed=5)
    yt2, yp2 = two["y_true"].to_numpy(), two["y_pred"].to_numpy()
    yt3, yp3 = three["y_true"].to_numpy(), three["y_pred"].to_numpy()
    w = np.array(reference_weights(list(range(80)), 4, 10), dtype=float)
    binary = _replicates(af.from_labels(two, example="example"), ["f1"], ["binary"], boot).sort(REP)
    subset = _replicates(
        af.from_labels(three, example="example"), ["recall"], ["macro"], boot, classes=[0, 2]
    )
    subset = subset.sort(REP)
    for b in range(10):
        expected = f1_score(
            yt2, yp2, average="binary", pos_label=1, sample_weight=w[:, b], zero_division=np.nan
        )
        assert binary["value"][b + 1] == pytest.approx(expected, abs=1e-12)
        expected = recall_score(
            yt3, yp3, labels=[0, 2], average="macro", sample_weight=w[:, b], zero_division=np.nan
        )
        assert subset["value"][b + 1] == pytest.approx(expected, abs=1e-12)


def test_replicate_minus_one_is_the_report() -> None:
    frame = _labels(200, seed=2).with_columns((pl.col("example") % 3).alias("g"))
    pr = af.from_labels(frame, example="example")
    point = pr.evaluate(None, None, by="g", convention=["exclude", "zero"])
    booted = pr.evaluate(None, None, by="g", convention=["exclude", "zero"], n_boot=10)
    assert_frame_equal(booted.drop(*BOOT), point)
    assert booted["n_boot"].max() == 10
    assert booted["level"].unique().to_list() == [0.95]


def test_long_form_replicates_are_the_label_forms() -> None:
    """One-hot long data and label data of the same examples: the same weights, the same replicates."""
    frame = _labels(80, m=3, seed=4, ids=[f"e{i}" for i in range(80)])
    labels = af.from_labels(frame, example="example")
    long = (
        frame.select(
            "example",
            pl.lit([0, 1, 2]).alias("class"),
        )
        .explode("class")
        .join(frame, on="example")
        .with_columns(
            (pl.col("y_true") == pl.col("class")).cast(pl.Int8).alias("y"),
            (pl.col("y_pred") == pl.col("class")).cast(pl.Int8).alias("p"),
        )
    )
    boot = Bootstrap(n_boot=12, seed=3)
    measures, ops = (
        ["f1", "mcc", "specificity", "balanced_accuracy"],
        ["micro", "macro", "weighted", "exemplar"],
    )
    a = _replicates(labels, measures, ops, boot).sort(REP, "measure", "operator")
    b = _replicates(af.from_long(long.drop("y_true", "y_pred")), measures, ops, boot).sort(
        REP, "measure", "operator"
    )
    assert_frame_equal(a.drop("n_entries"), b.drop("n_entries"), abs_tol=1e-12)


def test_multilabel_cells_and_exemplar_are_weighted() -> None:
    """Long multilabel data: each replicate's class cells are weighted sums, exemplar a weighted mean."""
    rng = np.random.default_rng(6)
    n, m, b = 40, 4, 10
    Y = (rng.random((n, m)) < 0.4).astype(int)
    P = np.where(rng.random((n, m)) < 0.75, Y, 1 - Y)
    pr = af.from_indicator(Y, P)
    boot = Bootstrap(n_boot=b, seed=8)
    tables = pr.extend.boot_tables(None, boot)
    w = np.array(reference_weights(list(range(n)), 8, b), dtype=float)
    classes = tables.classes.filter(pl.col(REP) >= 0).sort(REP, "class").collect()
    tp = (w.T @ (Y * P)).ravel()  # replicate-major, class-minor
    fn = (w.T @ (Y * (1 - P))).ravel()
    assert np.allclose(classes["tp"].to_numpy(), tp)
    assert np.allclose(classes["fn"].to_numpy(), fn)
    got = _replicates(pr, ["f1"], ["exemplar"], boot).filter(pl.col(REP) >= 0).sort(REP)
    tp_i, fp_i, fn_i = (Y * P).sum(1), ((1 - Y) * P).sum(1), (Y * (1 - P)).sum(1)
    den = 2 * tp_i + fp_i + fn_i
    defined = den > 0
    f1_i = np.where(defined, 2 * tp_i / np.where(defined, den, 1), 0.0)
    expected = (w[defined] * f1_i[defined, None]).sum(0) / w[defined].sum(0)
    assert np.allclose(got["value"].to_numpy(), expected)


def test_summary_is_percentiles_of_the_replicates() -> None:
    frame = _labels(150, seed=5).with_columns((pl.col("example") % 2).alias("g"))
    pr = af.from_labels(frame, example="example")
    boot = Bootstrap(n_boot=40, seed=2, level=0.9)
    reps = _replicates(pr, ["f1", "recall"], ["macro"], boot, by="g").filter(pl.col(REP) >= 0)
    out = pr.evaluate(["f1", "recall"], ["macro"], by="g", n_boot=40, seed=2, level=0.9)
    for row in out.iter_rows(named=True):
        v = reps.filter((pl.col("g") == row["g"]) & (pl.col("measure") == row["measure"]))["value"].to_numpy()
        assert row["ci_low"] == pytest.approx(np.quantile(v, 0.05), abs=1e-12)
        assert row["ci_high"] == pytest.approx(np.quantile(v, 0.95), abs=1e-12)
        assert row["se"] == pytest.approx(np.std(v, ddof=1), abs=1e-12)
        assert row["n_boot"] == 40
        assert row["level"] == 0.9


def test_undefined_replicates_are_left_out() -> None:
    """A rare class: precision of a class that some replicates never predict is undefined there."""
    frame = pl.DataFrame({"example": range(30), "y_true": [0] * 29 + [1], "y_pred": [0] * 29 + [1]})
    out = af.from_labels(frame, example="example").evaluate("precision", "macro", convention="nan", n_boot=50)
    row = out.row(0, named=True)
    assert 0 < row["n_boot"] < 50  # replicates without the rare example have an undefined class
    assert row["value"] == 1.0


# ---------------------------------------------------------------------------
# Coverage and width


def test_coverage_of_a_known_proportion() -> None:
    """200 simulated data sets of 150 examples, each right with probability 0.8: micro F1 (accuracy) and
    the recall of class 1 (true rate known); the 95% percentile intervals cover the truth ~95% of the time."""
    rng = np.random.default_rng(2024)
    sims, n = 200, 150
    yt = rng.integers(0, 2, (sims, n))
    right = rng.random((sims, n)) < 0.8
    yp = np.where(right, yt, 1 - yt)
    frame = pl.DataFrame(
        {
            "sim": np.repeat(np.arange(sims), n),
            "example": np.arange(sims * n),
            "y_true": yt.ravel(),
            "y_pred": yp.ravel(),
        }
    )
    out = af.from_labels(frame, example="example").evaluate(
        ["f1", "recall"], ["micro", "macro"], by="sim", n_boot=200, seed=7
    )
    for measure, op in (("f1", "micro"), ("recall", "macro")):
        rows = out.filter((pl.col("measure") == measure) & (pl.col("operator") == op))
        covered = ((rows["ci_low"] <= 0.8) & (rows["ci_high"] >= 0.8)).mean()
        assert 0.9 <= covered <= 0.99, (measure, op, covered)  # binomial sd of the rate: 0.015


def test_intervals_shrink_as_one_over_sqrt_n() -> None:
    small, large = _labels(500, seed=1), _labels(4000, seed=2)
    frame = pl.concat(
        [
            small.with_columns(pl.lit("n").alias("size")),
            large.with_columns(pl.lit("16n").alias("size"), pl.col("example") + 10_000),
        ]
    )
    out = af.from_labels(frame, example="example").evaluate(
        ["f1", "mcc"], ["micro", "macro"], by="size", n_boot=200
    )
    for (measure, op), rows in out.group_by("measure", "operator"):
        se = dict(zip(rows["size"], rows["se"], strict=True))
        width = dict(zip(rows["size"], rows["ci_high"] - rows["ci_low"], strict=True))
        # 8x the examples: se and width / sqrt(8) = 2.83 (se of an se from 200 replicates: 5%)
        assert 2.3 < se["n"] / se["16n"] < 3.4, (measure, op)
        assert 2.1 < width["n"] / width["16n"] < 3.6, (measure, op)


# ---------------------------------------------------------------------------
# Pairing and compare


def _models(n: int = 500) -> pl.DataFrame:
    rng = np.random.default_rng(12)
    yt = rng.integers(0, 3, n)
    noise = rng.random(n)
    a = np.where(noise < 0.75, yt, (yt + 1) % 3)
    b = np.where(noise < 0.80, yt, (yt + 2) % 3)  # right wherever A is, and on 5% more
    day = rng.integers(0, 2, n)
    return pl.concat(
        [
            pl.DataFrame({"model": m, "day": day, "example": np.arange(n), "y_true": yt, "y_pred": p})
            for m, p in (("A", a), ("B", b), ("A2", a))
        ]
    )


def test_identical_models_have_a_zero_width_difference() -> None:
    out = af.from_labels(_models(), example="example").compare(
        ["f1", "mcc"],
        ["micro", "macro", "exemplar"],
        by="model",
        reference={"model": "A"},
        n_boot=100,
        columns="all",
    )
    twin = out.filter(pl.col("model") == "A2")
    # exactly zero, not rounding: an interval of [-1e-16, -1e-17] would exclude zero
    for column in (
        "difference_to_reference",
        "difference_to_reference_ci_low",
        "difference_to_reference_ci_high",
    ):
        assert (twin[column] == 0.0).all(), twin[column]
    assert (twin["ratio_to_reference"] == 1.0).all()
    assert not twin["difference_to_reference_excludes_zero"].any()
    better = out.filter(pl.col("model") == "B")
    assert better["difference_to_reference_excludes_zero"].all()  # B is right on a superset: paired, it shows
    assert (better["difference_to_reference_ci_low"] > 0).all()


def test_identical_models_are_never_told_apart_by_rounding() -> None:
    """Many small groups, few replicates: rounding of the parallel sums never flags a twin.

    Regression: with n_boot=3 and 300 days, 18-24 of 600 intervals of two identical models were
    [-1e-16, -1e-17]-like and said the difference excluded zero.
    """
    rng = np.random.default_rng(0)
    n = 3000
    one = pl.DataFrame(
        {
            "example": np.arange(n),
            "y_true": rng.integers(0, 5, n),
            "y_pred": rng.integers(0, 5, n),
            "day": rng.integers(0, 300, n),
        }
    )
    both = pl.concat([one.with_columns(model=pl.lit("A")), one.with_columns(model=pl.lit("B"))])
    out = af.from_labels(both, example="example").compare(
        "mcc", ["macro", "weighted"], by=["model", "day"], reference={"model": "A"}, n_boot=3, seed=0
    )
    twin = out.filter(pl.col("model") == "B")
    assert twin.height == 600
    assert not twin["difference_to_reference_excludes_zero"].any()
    assert (
        twin["difference_to_reference_ci_high"] - twin["difference_to_reference_ci_low"]
    ).abs().max() == 0.0


def test_the_same_value_within_rounding() -> None:
    """compare's difference and ratio: rounding is the same value; NaN, null and inf are never."""
    from aggframe.operators.compare import difference, ratio

    nan, inf = float("nan"), float("inf")
    frame = pl.DataFrame(
        {
            "a": [0.5, nan, 1.0, nan, None, 0.0, inf, 0.5],
            "b": [0.5 + 1e-17, nan, nan, 1.0, 0.5, 0.0, inf, 0.25],
        }
    )
    got = frame.select(d=difference(pl.col("a"), pl.col("b")), r=ratio(pl.col("a"), pl.col("b")))
    assert got["d"].to_list()[0] == 0.0
    assert got["r"].to_list()[0] == 1.0
    assert all(np.isnan(got["d"].to_list()[i]) for i in (1, 2, 3, 6))
    assert got["d"].to_list()[4] is None
    assert got["d"].to_list()[5] == 0.0
    assert got["r"].to_list()[5] is None  # a zero reference: no ratio
    assert got["d"].to_list()[7] == 0.25
    assert got["r"].to_list()[7] == 2.0


def test_pairing_narrows_the_difference() -> None:
    """The same comparison with the examples of B renamed (no pairing): a wider interval."""
    paired = _models()
    unpaired = paired.with_columns(
        pl.when(pl.col("model") == "B")
        .then(pl.col("example") + 100_000)
        .otherwise(pl.col("example"))
        .alias("example")
    )
    kw: dict[str, Any] = {"by": "model", "reference": {"model": "A"}, "n_boot": 200, "columns": "all"}
    p = af.from_labels(paired, example="example").compare("f1", "micro", **kw).filter(pl.col("model") == "B")
    u = (
        af.from_labels(unpaired, example="example")
        .compare("f1", "micro", **kw)
        .filter(pl.col("model") == "B")
    )
    assert p["difference_to_reference"].item() == pytest.approx(u["difference_to_reference"].item())
    assert p["difference_to_reference_se"].item() < 0.6 * u["difference_to_reference_se"].item()


def test_compare_per_day_and_against_the_plain_compare() -> None:
    pr = af.from_labels(_models(), example="example")
    out = pr.compare("f1", "macro", by=["model", "day"], reference={"model": "A"}, n_boot=50, columns="all")
    assert out.height == 6
    ref = out.filter(pl.col("model") == "A")
    assert (ref["difference_to_reference"] == 0).all()  # each day against A on that day
    full = pr.compare("f1", "macro", by=["model", "day"], reference={"model": "A", "day": 0})
    plain = pr.compare("f1", "macro", by=["model", "day"], columns="all")
    assert_frame_equal(out.select(plain.columns), plain)
    day0 = out.filter(pl.col("day") == 0)
    assert day0["difference_to_reference"].to_list() == pytest.approx(
        full.filter(pl.col("day") == 0)["difference_to_reference"].to_list()
    )
    with pytest.raises(OptionError, match="not in the data"):
        pr.compare("f1", "macro", by="model", reference={"model": "Z"}, n_boot=5)
    with pytest.raises(OptionError, match="summary"):
        pr.compare("f1", "macro", by="model", summary=True, n_boot=5)
    with pytest.raises(OptionError, match="reference"):
        pr.compare("f1", "macro", by="model", reference={"day": 0}, n_boot=5)


# ---------------------------------------------------------------------------
# Engines


def _engine_frame(engine: str, frame: pl.DataFrame, request: pytest.FixtureRequest) -> Any:
    if engine == "eager":
        return frame
    if engine in ("lazy", "streaming"):
        return frame.lazy()
    if engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        return duckdb.connect().from_arrow(frame.to_arrow())
    return request.getfixturevalue("spark").createDataFrame(frame.to_arrow())


def _engine_cases() -> dict[str, tuple[pl.DataFrame, dict[str, Any], dict[str, Any]]]:
    models = _models(300).with_columns(
        pl.when(pl.col("example") % 7 == 0).then(None).otherwise(pl.col("day")).alias("day"),
        ("id-" + pl.col("example").cast(pl.String)).alias("example"),
        (pl.col("example") % 13).alias("user"),
    )
    rng = np.random.default_rng(2)
    Y, P = rng.integers(0, 2, (60, 3)), rng.integers(0, 2, (60, 3))
    long = pl.DataFrame(
        {
            "example": np.repeat(np.arange(60), 3),
            "class": np.tile(np.arange(3), 60),
            "y": Y.ravel(),
            "p": P.ravel(),
            "g": np.repeat(np.arange(60) % 2, 3),
        }
    ).filter((pl.col("y") + pl.col("p") > 0) | (pl.col("class") == 0))
    return {
        "labels": (
            models,
            {"form": "labels", "example": "example"},
            {"by": ["model", "day"], "cluster": "user"},
        ),
        "long": (long, {"form": "long", "n_classes": 3}, {"by": "g"}),
    }


def _evaluate_on(engine: str, case: str, request: pytest.FixtureRequest) -> pl.DataFrame:
    frame, build, kw = _engine_cases()[case]
    build = dict(build)
    native = _engine_frame(engine, frame, request)
    pr = (
        af.from_labels(native, **{k: v for k, v in build.items() if k != "form"})
        if build["form"] == "labels"
        else af.from_long(native, n_classes=build["n_classes"])
    )
    engine_kw = {"engine": "streaming"} if engine == "streaming" else {}
    return pr.evaluate(
        ["f1", "mcc", "precision"], None, convention=["exclude", "zero"], n_boot=12, seed=3, **kw, **engine_kw
    )


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("case", ["labels", "long"])
@pytest.mark.parametrize("engine", ["lazy", "streaming", "duckdb"])
def test_engines_agree(case: str, engine: str, request: pytest.FixtureRequest) -> None:
    expected = _evaluate_on("eager", case, request)
    got = _evaluate_on(engine, case, request)
    assert_frame_equal(got, expected, abs_tol=1e-12, rel_tol=0, check_dtypes=False)


@pytest.mark.slow  # a JVM: tens of seconds (CI runs it; the quick loop leaves it out)
@pytest.mark.engines
@pytest.mark.parametrize("case", ["labels", "long"])
def test_spark_agrees(case: str, request: pytest.FixtureRequest) -> None:
    expected = _evaluate_on("eager", case, request)
    got = _evaluate_on("spark", case, request)
    assert_frame_equal(
        got.sort(pl.all(), nulls_last=True),
        expected.sort(pl.all(), nulls_last=True),
        abs_tol=1e-12,
        rel_tol=0,
        check_dtypes=False,
    )


def test_lazy_plan_equals_the_collected() -> None:
    pr = af.from_labels(_models(200), example="example")
    kw: dict[str, Any] = {"by": "model", "n_boot": 20}
    assert_frame_equal(
        pr.evaluate("f1", "macro", lazy=True, **kw).collect(), pr.evaluate("f1", "macro", **kw)
    )


# ---------------------------------------------------------------------------
# Composition: folds, repeats, targets, grouping sets, clusters


def _cv(n: int = 120, repeats: int = 3, folds: int = 4) -> pl.DataFrame:
    rng = np.random.default_rng(21)
    yt = rng.integers(0, 3, n)
    parts = []
    for r in range(repeats):
        yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, 3, n))
        parts.append(
            pl.DataFrame(
                {
                    "repeat": r,
                    "fold": rng.permutation(np.arange(n) % folds),
                    "example": np.arange(n),
                    "y_true": yt,
                    "y_pred": yp,
                }
            )
        )
    return pl.concat(parts)


def test_repeat_poolings() -> None:
    frame = _cv()
    pr = af.from_labels(frame, example="example", fold="fold", repeat="repeat")
    out = pr.evaluate(
        ["f1", "mcc"],
        ["micro", "macro"],
        pooling=["repeat_pooled", "repeat", "repeat_min", "repeat_max", "repeat_std"],
    )
    for (measure, op), rows in out.group_by("measure", "operator"):
        per = [
            af.from_labels(frame.filter(pl.col("repeat") == r), example="example", classes=[0, 1, 2]).compute(
                measure, op
            )
            for r in range(3)
        ]
        got = dict(zip(rows["pooling"], rows["value"], strict=False))
        assert rows.filter(pl.col("pooling") == "repeat").sort("repeat")["value"].to_list() == pytest.approx(
            per
        )
        assert got["repeat_pooled"] == pytest.approx(np.mean(per))
        assert got["repeat_std"] == pytest.approx(np.std(per, ddof=1))
        assert got["repeat_min"] == pytest.approx(min(per))
        assert got["repeat_max"] == pytest.approx(max(per))
    one = af.from_labels(frame.filter(pl.col("repeat") == 0), example="example", fold="fold")
    with pytest.raises(OptionError, match="repeat"):
        one.evaluate("f1", "macro", pooling="repeat_pooled")


def test_folds_share_the_examples_weights() -> None:
    """Pooled folds of repeated CV: an example has one weight in every repeat (it is one example of the data)."""
    frame = _cv()
    boot = Bootstrap(n_boot=10, seed=1)
    folded = af.from_labels(frame, example="example", fold="fold", repeat="repeat")
    pooled = _replicates(folded, ["f1"], ["macro"], boot, pooling="pooled").sort(REP)
    # the same examples, each counted once per repeat: the same weighted cells as the union with repeated ids
    direct = _replicates(
        af.from_labels(frame.drop("fold"), example="example", fold="repeat"),
        ["f1"],
        ["macro"],
        boot,
        pooling="pooled",
    ).sort(REP)
    assert pooled["value"].to_list() == pytest.approx(direct["value"].to_list())
    out = folded.evaluate(
        ["f1"], ["macro"], pooling=["pooled", "averaged", "repeat_pooled", "fold"], n_boot=20
    )
    assert out.filter(pl.col("pooling") != "fold")["ci_low"].is_not_nan().all()
    assert out.filter(pl.col("pooling") == "fold").height == 12


def test_targets_and_grouping_sets() -> None:
    rng = np.random.default_rng(4)
    n = 100
    frame = pl.concat(
        [
            pl.DataFrame(
                {
                    "target": t,
                    "example": np.arange(n),
                    "g": np.arange(n) % 2,
                    "y_true": rng.integers(0, 3, n),
                    "y_pred": rng.integers(0, 3, n),
                }
            )
            for t in ("t0", "t1")
        ]
    )
    boot = Bootstrap(n_boot=8, seed=2)
    pr = af.from_labels(frame, example="example", target="target")
    both = _replicates(pr, ["f1"], ["target", "micro", "exemplar"], boot, within="macro").sort(
        REP, "operator"
    )
    per = [
        _replicates(
            af.from_labels(frame.filter(pl.col("target") == t), example="example"), ["f1"], ["macro"], boot
        ).sort(REP)
        for t in ("t0", "t1")
    ]
    mean = (per[0]["value"] + per[1]["value"]) / 2
    assert both.filter(pl.col("operator") == "target:macro")["value"].to_list() == pytest.approx(
        mean.to_list()
    )
    rolled = _replicates(
        af.from_labels(frame.filter(pl.col("target") == "t0"), example="example"),
        ["f1"],
        ["macro"],
        boot,
        by="g",
        grouping_sets="rollup",
    )
    overall = rolled.filter(pl.col("grouping_id") == 1).sort(REP)["value"].to_list()
    assert overall == pytest.approx(per[0]["value"].to_list())
    out = pr.evaluate(
        ["f1"], ["target", "exemplar"], within="macro", by="g", grouping_sets="rollup", n_boot=10
    )
    assert out.height == 6
    assert out["se"].is_not_nan().all()


def test_cluster_of_copies_is_the_example_bootstrap() -> None:
    """Each example twice under new ids, resampled by its original id: the original's replicates exactly."""
    frame = _labels(120, seed=8)
    twice = pl.concat([frame, frame]).with_columns(
        pl.col("example").alias("orig"), pl.int_range(240).alias("example")
    )
    kw: dict[str, Any] = {"n_boot": 30, "seed": 6}
    original = af.from_labels(frame, example="example").evaluate(["f1", "mcc"], ["micro", "macro"], **kw)
    clustered = af.from_labels(twice, example="example").evaluate(
        ["f1", "mcc"], ["micro", "macro"], cluster="orig", **kw
    )
    naive = af.from_labels(twice, example="example").evaluate(["f1", "mcc"], ["micro", "macro"], **kw)
    # (the copies are twice the examples: n_examples counts them)
    drop = ("n_entries", "n_examples")
    assert_frame_equal(clustered.drop(drop), original.drop(drop), abs_tol=1e-12)
    assert (naive["se"] < clustered["se"]).all()  # copies taken as independent: too narrow


def test_cluster_errors() -> None:
    long = pl.DataFrame(
        {
            "example": [0, 0, 1, 1],
            "class": [0, 1, 0, 1],
            "y": [1, 0, 0, 1],
            "p": [1, 0, 1, 1],
            "u": [1, 2, 3, 3],
        }
    )
    with pytest.raises(InvalidValueError, match="'u': 1 example"):
        af.from_long(long).evaluate("f1", "micro", n_boot=5, cluster="u")
    pr = af.from_labels(_labels(20), example="example")
    with pytest.raises(ColumnNotFoundError, match="'nope'"):
        pr.evaluate("f1", "micro", n_boot=5, cluster="nope")
    with pytest.raises(OptionError, match="role"):
        pr.evaluate("f1", "micro", n_boot=5, cluster="y_true")
    with pytest.raises(OptionError, match="n_boot"):
        pr.evaluate("f1", "micro", cluster="example")


def test_null_clusters_are_one_cluster() -> None:
    frame = _labels(60, seed=1).with_columns(
        pl.when(pl.col("example") < 30).then(None).otherwise(pl.col("example")).alias("c")
    )
    out = af.from_labels(frame, example="example").evaluate("f1", "micro", n_boot=40, cluster="c")
    assert out["se"].item() > 0


# ---------------------------------------------------------------------------
# Null keys, hostile names


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=15)
@given(case=label_frames(example=True, max_n=25), names=distinct_names(7), seed=st.integers(0, 3))
def test_null_keys_and_hostile_names(case: Any, names: list[str], seed: int) -> None:
    """By-keys with nulls, every column renamed to a hostile name: the canonical evaluation, renamed."""
    frame = case.frame.with_columns((pl.col("example") % 3).alias("cl"))
    measures, ops = ["f1", "precision"], ["micro", "macro", "exemplar"]
    kw: dict[str, Any] = {"n_boot": 6, "seed": seed}
    expected = af.from_labels(frame, example="example").evaluate(
        measures, ops, by=case.by, cluster="cl", **kw
    )
    mapping = dict(zip(frame.columns, names, strict=False))
    result_columns = {
        "measure",
        "operator",
        "convention",
        "value",
        "n_entries",
        "n_undefined",
        "n_examples",
        *BOOT,
    }
    if any(mapping[b] in result_columns for b in case.by):
        return  # refused (a key named like a result column): test_interval_columns_are_refused_as_keys
    pr = af.from_labels(
        rename_columns(frame, mapping),
        y_true=mapping["y_true"],
        y_pred=mapping["y_pred"],
        example=mapping["example"],
    )
    got = pr.evaluate(measures, ops, by=[mapping[b] for b in case.by], cluster=mapping["cl"], **kw)
    assert_frame_equal(got, rename_columns(expected, mapping))


def test_interval_columns_are_refused_as_keys() -> None:
    frame = _labels(20).with_columns(pl.lit(1).alias("ci_low"))
    with pytest.raises(OptionError, match="ci_low"):
        af.from_labels(frame, example="example").evaluate("f1", "micro", by="ci_low", n_boot=3)


# ---------------------------------------------------------------------------
# Bad input and what is not supported


def test_bad_options() -> None:
    pr = af.from_labels(_labels(20), example="example")
    for bad in (
        {"n_boot": 1},
        {"n_boot": True},
        {"n_boot": 2.5},
        {"n_boot": 5, "level": 1.0},
        {"n_boot": 5, "level": "x"},
        {"n_boot": 5, "seed": -1},
    ):
        with pytest.raises(OptionError):
            pr.evaluate("f1", "micro", **bad)


def test_unsupported_sources(tmp_path: Path) -> None:
    frame = _labels(30)
    with pytest.raises(OptionError, match="id"):
        af.from_labels(frame.with_columns(pl.col("example").cast(pl.Float64)), example="example").evaluate(
            "f1", "micro", n_boot=3
        )
    pr = af.from_labels(frame, example="example")
    pr.write_cells(tmp_path / "cells")
    with pytest.raises(OptionError, match="stored cells"):
        af.from_cells(tmp_path / "cells").evaluate("f1", "micro", n_boot=3)
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.connect().from_arrow(frame.drop("example").to_arrow())
    with pytest.raises(OptionError, match="example="):
        af.from_labels(rel).evaluate("f1", "micro", n_boot=3)
    long = pl.DataFrame({"example": [0, 1], "class": [0, 0], "y": [1, 0], "p": [1, 1]})
    with pytest.raises(OptionError, match="examples="):
        af.from_long(long, n_classes=2, examples=3).evaluate("f1", "micro", n_boot=3)


def test_declared_examples_are_weighted() -> None:
    """A sparse log with declared examples (some without any row) = the dense log of every entry."""
    rng = np.random.default_rng(9)
    n, m = 50, 3
    Y = (rng.random((n, m)) < 0.3).astype(int)
    P = np.where(rng.random((n, m)) < 0.8, Y, 1 - Y)
    dense = pl.DataFrame(
        {
            "g": np.repeat(np.arange(n) % 2, m),
            "example": np.repeat(np.arange(n), m),
            "class": np.tile(np.arange(m), n),
            "y": Y.ravel(),
            "p": P.ravel(),
        }
    )
    sparse = dense.filter((pl.col("y") + pl.col("p")) > 0)
    ids = dense.select("g", "example").unique()
    kw: dict[str, Any] = {"by": "g", "n_boot": 20, "seed": 2}
    ms, ops = ["f1", "recall", "specificity"], ["micro", "macro", "exemplar"]
    expected = af.from_long(dense, n_classes=m).evaluate(ms, ops, **kw)
    got = af.from_long(sparse, n_classes=m, examples=ids).evaluate(ms, ops, **kw)
    assert sparse.select("example").n_unique() < n  # some examples have no row at all
    assert_frame_equal(got, expected, abs_tol=1e-12)


def test_label_arrays_use_the_row_position() -> None:
    out = af.from_labels([0, 1, 2, 2, 1, 0] * 20, [0, 2, 2, 1, 1, 1] * 20).evaluate("f1", "macro", n_boot=30)
    assert out["ci_low"].item() < out["value"].item() < out["ci_high"].item()


def test_broken_source_fails_named(tmp_path: Path) -> None:
    path = tmp_path / "p.parquet"
    _labels(50).write_parquet(path)
    pr = af.from_labels(pl.scan_parquet(path), example="example")
    path.unlink()
    with pytest.raises(SourceError):
        pr.evaluate("f1", "micro", n_boot=3)


def test_scores_decisions_bootstrap_as_labels_and_refusals() -> None:
    """from_scores: the decisions' replicates are those of the same labels; scores and multiclass refuse n_boot."""
    rng = np.random.default_rng(7)
    n, m = 60, 3
    scores = rng.random((n, m)).round(3)
    y = rng.integers(0, m, n)
    frame = pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), m),
            "class": np.tile(np.arange(m), n),
            "score": scores.ravel(),
            "y": np.eye(m, dtype=np.int64)[y].ravel(),
        }
    )
    pr = af.from_scores(frame, decision="argmax")
    labels = af.from_labels(
        pl.DataFrame({"example": np.arange(n), "y_true": y, "y_pred": scores.argmax(1)}), example="example"
    )
    got = pr.evaluate(["f1", "recall"], ["micro", "macro"], n_boot=40, seed=3)
    expected = labels.evaluate(["f1", "recall"], ["micro", "macro"], n_boot=40, seed=3)
    assert_frame_equal(got, expected, abs_tol=1e-12)
    boot = pr.evaluate(["auroc"], "macro", n_boot=10)  # measures on scores bootstrap too (score_boot)
    assert boot.get_column("ci_low").is_not_null().all()
    with pytest.raises(af.errors.OptionError, match="weighted kappas read every confusion count"):
        labels.evaluate(["mcc", "kappa_quadratic"], "multiclass", n_boot=10)


@pytest.mark.parametrize("seed", [2, 5])
def test_multiclass_replicates_are_sklearn_with_sample_weight(seed: int) -> None:
    """The multiclass operator's margin measures per replicate: scikit-learn's with the replicate weights."""
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, cohen_kappa_score, matthews_corrcoef

    frame = _labels(80, m=4, seed=seed, acc=0.6, ids=np.arange(80) * 3 + 5)
    boot = Bootstrap(n_boot=12, seed=seed)
    pr = af.from_labels(frame, example="example")
    oracle = {
        "mcc": matthews_corrcoef,
        "kappa": cohen_kappa_score,
        "balanced_accuracy": balanced_accuracy_score,
        "accuracy": accuracy_score,
    }
    got = _replicates(pr, list(oracle), "multiclass", boot)
    weights = np.array(reference_weights(frame["example"].to_list(), seed, 12), dtype=float)
    yt, yp = frame["y_true"].to_numpy(), frame["y_pred"].to_numpy()
    for b in range(-1, 12):
        w = np.ones(len(frame)) if b == -1 else weights[:, b]
        rows = got.filter(pl.col(REP) == b)
        for name, fn in oracle.items():
            value = rows.filter(pl.col("measure") == name)["value"].item()
            assert value == pytest.approx(fn(yt, yp, sample_weight=w), abs=1e-12), (b, name)
    summary = pr.evaluate(list(oracle), "multiclass", n_boot=12, seed=seed)
    assert summary["n_boot"].to_list() == [12] * len(oracle)
    assert (summary["ci_low"] <= summary["ci_high"]).all()


def test_uint64_ids_above_int64_are_resampled() -> None:
    """UInt64 example ids above 2^63 - 1 were "could not read the frame: conversion from u64 to i64
    failed in column '__af_example'" (a raw ConversionException on DuckDB). Below that they hash as
    the same Int64 ids do, so two frames of either type pair their examples."""
    duckdb = pytest.importorskip("duckdb")
    labels = {"y_true": [0, 1, 1, 0, 1, 0, 1, 1], "y_pred": [0, 1, 0, 0, 1, 1, 1, 0]}
    big = pl.DataFrame({"example": pl.Series([2**63 + i for i in range(8)], dtype=pl.UInt64), **labels})
    polars = af.from_labels(big, example="example").evaluate("f1", "macro", n_boot=20, seed=1)
    on_duckdb = af.from_labels(duckdb.from_arrow(big.to_arrow()), example="example").evaluate(
        "f1", "macro", n_boot=20, seed=1
    )
    assert_frame_equal(on_duckdb, polars, abs_tol=1e-12)
    small = pl.DataFrame({"example": pl.Series(range(8), dtype=pl.UInt64), **labels})
    as_int = small.with_columns(pl.col("example").cast(pl.Int64))
    a = af.from_labels(small, example="example").evaluate("f1", "macro", n_boot=20, seed=1)
    b = af.from_labels(as_int, example="example").evaluate("f1", "macro", n_boot=20, seed=1)
    assert_frame_equal(a, b)
