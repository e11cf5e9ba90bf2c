"""Measures on scores (issue #14 kernels): differential tests against scikit-learn 1.9.

The kernels are internal (aggframe.wide.ranking: the Narwhals wide step; aggframe.operators.curves,
calibration and score_values: the Polars narrow step; aggframe.operators.scores.reduce_entries: the
reduction through the one convention resolution); these tests drive them directly: private column
names, keys with nulls, Polars eager/lazy/streaming and DuckDB. tests/operators/test_score_measures.py tests the public API.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

from aggframe.measures.registry import get_measure
from aggframe.operators import calibration as cal
from aggframe.operators import curves as cv
from aggframe.operators import score_values as sv
from aggframe.operators.scores import reduce_entries
from aggframe.wide.ranking import example_stats, score_counts, score_rows

duckdb = pytest.importorskip("duckdb")

# private names, as the intake will hand them over
K, E, C, S, Y = "__k", "__example", "__class", "__score", "__y"
TOL = {"abs_tol": 1e-12, "rel_tol": 1e-12}


def long_frame(Ys: np.ndarray, Ss: np.ndarray, keys: np.ndarray | None = None) -> pl.DataFrame:
    """Every (example, class) entry as a row; ``keys`` one value per example (may hold None)."""
    n, m = Ys.shape
    data: dict[str, Any] = {
        E: np.repeat(np.arange(n), m),
        C: np.tile(np.arange(m), n),
        S: Ss.ravel().astype(np.float64),
        Y: Ys.ravel().astype(np.int64),
    }
    frame = pl.DataFrame(data)
    if keys is not None:
        frame = frame.with_columns(
            pl.Series(K, list(np.repeat(np.asarray(keys, dtype=object), m)), dtype=pl.Int64)
        )
    return frame


def native(frame: pl.DataFrame, engine: str) -> Any:
    if engine == "eager":
        return frame
    if engine == "duckdb":
        return duckdb.from_arrow(frame.to_arrow())
    return frame.lazy()


def collect(lf: pl.LazyFrame, engine: str = "streaming") -> pl.DataFrame:
    return lf.collect(engine="in-memory" if engine == "in-memory" else "streaming")


def counts(
    frame: pl.DataFrame,
    keys: list[str],
    *,
    pooled: bool = False,
    bins: int | None = None,
    engine: str = "lazy",
) -> pl.LazyFrame:
    """The wide step on an engine; the result crosses to Polars, as in the library."""
    lf = nw.from_native(native(frame, engine))
    if not isinstance(lf, nw.LazyFrame):
        lf = lf.lazy()
    table = score_counts(lf, keys, score=S, y=Y, class_=None if pooled else C, bins=bins)
    return table.collect(backend="polars").to_native().lazy()


def stats(frame: pl.DataFrame, keys: list[str], engine: str = "lazy") -> pl.LazyFrame:
    lf = nw.from_native(native(frame, engine))
    if not isinstance(lf, nw.LazyFrame):
        lf = lf.lazy()
    return example_stats(lf, keys, example=E, score=S, y=Y).collect(backend="polars").to_native().lazy()


def quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """An oracle call whose scikit-learn warnings (undefined values) are expected."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ---------------------------------------------------------------------------
# data: heavy ties (scores on a 1- or 2-decimal grid), absent and full classes


def multilabel(seed: int, n: int = 60, m: int = 5, decimals: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    Ys = (rng.random((n, m)) < rng.uniform(0.15, 0.6, m)).astype(np.int64)
    Ys[:, 0] = 0  # a class without positives
    if m > 3:
        Ys[:, m - 1] = 1  # a class without negatives
    Ss = np.round(np.clip(0.35 * Ys + 0.65 * rng.random((n, m)), 0, 1), decimals)
    return Ys, Ss


def multiclass(seed: int, n: int = 80, m: int = 4, absent: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """One-hot truth and probability rows on a 1/20 grid that sum to one."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m - 1 if absent else m, n)
    counts_ = np.array(
        [rng.multinomial(20, rng.dirichlet(np.ones(m) + 2.0 * (np.arange(m) == t))) for t in y]
    )
    return np.eye(m, dtype=np.int64)[y], counts_ / 20.0


# ---------------------------------------------------------------------------
# per class and the averages, against scikit-learn


def entries(
    frame: pl.DataFrame, keys: list[str], measures: tuple[str, ...], **kw: Any
) -> dict[str, pl.LazyFrame]:
    return {
        "classes": sv.class_entries(counts(frame, keys), keys, C, measures, **kw),
        "pooled": sv.pooled_entries(counts(frame, keys, pooled=True), keys, measures, **kw),
    }


def values(table: pl.DataFrame, measure: str) -> dict[Any, float | None]:
    rows = table.filter(pl.col("measure") == measure)
    return dict(zip(rows[C].to_list(), rows["value"].to_list(), strict=True))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("decimals", [1, 2])
def test_per_class_ranking_equals_sklearn(seed: int, decimals: int) -> None:
    Ys, Ss = multilabel(seed, decimals=decimals)
    table = collect(sv.class_entries(counts(long_frame(Ys, Ss), []), [], C, ("auroc", "average_precision")))
    auroc, ap = values(table, "auroc"), values(table, "average_precision")
    for c in range(Ys.shape[1]):
        y, s = Ys[:, c], Ss[:, c]
        if 0 < y.sum() < len(y):
            assert auroc[c] == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
        else:
            assert auroc[c] is None
        if y.sum() > 0:
            assert ap[c] == pytest.approx(skm.average_precision_score(y, s), abs=1e-12)
        else:  # scikit-learn: 0 with a warning; here undefined (convention "zero" gives 0)
            assert ap[c] is None
            assert quiet(skm.average_precision_score, y, s) == 0.0
    support = table.filter(pl.col("measure") == "auroc").sort(C)["weight"].to_numpy()
    np.testing.assert_array_equal(support, Ys.sum(axis=0))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("average", ["micro", "macro", "weighted"])
def test_multilabel_averages_equal_sklearn(seed: int, average: str) -> None:
    """Undefined classes are excluded (scikit-learn raises on them: it is given the others)."""
    Ys, Ss = multilabel(seed, m=6)
    e = entries(long_frame(Ys, Ss), [], ("auroc", "average_precision"))
    out = collect(reduce_entries([], operators=[average], conventions=["exclude", "zero"], **e))
    both = (Ys.sum(0) > 0) & (Ys.sum(0) < len(Ys))
    cols = np.flatnonzero(both) if average != "micro" else np.arange(Ys.shape[1])
    got = {(r["measure"], r["convention"]): r["value"] for r in out.iter_rows(named=True)}
    expected = skm.roc_auc_score(Ys[:, cols], Ss[:, cols], average=average)
    assert got["auroc", "exclude"] == pytest.approx(expected, abs=1e-12)
    ap_cols = np.flatnonzero(Ys.sum(0) > 0) if average != "micro" else cols
    ap = skm.average_precision_score(Ys[:, ap_cols], Ss[:, ap_cols], average=average)
    assert got["average_precision", "exclude"] == pytest.approx(ap, abs=1e-12)
    # scikit-learn's own answer with every class: AP 0 for a class without positives
    sk_all = quiet(skm.average_precision_score, Ys, Ss, average=average)
    assert got["average_precision", "zero"] == pytest.approx(sk_all, abs=1e-12)
    n_undef = out.filter((pl.col("measure") == "auroc") & (pl.col("convention") == "exclude"))["n_undefined"]
    assert n_undef.item() == (0 if average == "micro" else int((~both).sum()))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("average", ["micro", "macro", "weighted"])
def test_multiclass_ovr_equals_sklearn(seed: int, average: str) -> None:
    Ys, Ps = multiclass(seed)
    y = Ys.argmax(1)
    e = entries(long_frame(Ys, Ps), [], ("auroc", "average_precision"))
    out = collect(reduce_entries([], operators=[average], **e))
    got = dict(zip(out["measure"], out["value"], strict=True))
    assert got["auroc"] == pytest.approx(
        skm.roc_auc_score(y, Ps, multi_class="ovr", average=average), abs=1e-12
    )
    assert got["average_precision"] == pytest.approx(
        skm.average_precision_score(y, Ps, average=average), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("decimals", [1, 2, None])
def test_one_sort_ranking_equals_sklearn_micro_and_per_class(seed: int, decimals: int | None) -> None:
    """ranking_entries (one sort, tie runs corrected) = the per-class and pooled tables' values."""
    Ys, Ss = multilabel(seed, n=120, m=5, decimals=decimals or 1)
    if decimals is None:
        Ss = np.random.default_rng(seed).random(Ss.shape)
        Ss[:10, 1] = Ss[:10, 2]  # ties across classes only
    frame, keys = long_frame(Ys, Ss, np.array([None, 1], dtype=object)[np.arange(len(Ys)) % 2]), [K]
    got = {name: collect(lf) for name, lf in sv.ranking_entries(counts(frame, keys), keys, C).items()}
    ranking = ("auroc", "average_precision")
    expected_classes = collect(sv.class_entries(counts(frame, keys), keys, C, ranking))
    expected_pooled = collect(sv.pooled_entries(counts(frame, keys, pooled=True), keys, ranking))
    assert_frame_equal(got["classes"], expected_classes, **TOL)
    assert_frame_equal(got["pooled"], expected_pooled, **TOL)
    for key, rows in ((None, np.arange(0, len(Ys), 2)), (1, np.arange(1, len(Ys), 2))):
        part = got["pooled"].filter(pl.col(K).is_null() if key is None else pl.col(K) == key)
        micro = dict(zip(part["measure"], part["value"], strict=True))
        y, sc = Ys[rows].ravel(), Ss[rows].ravel()
        assert micro["auroc"] == pytest.approx(skm.roc_auc_score(y, sc), abs=1e-12)
        assert micro["average_precision"] == pytest.approx(skm.average_precision_score(y, sc), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("decimals", [1, 2, None])
def test_rows_path_equals_counts_path(seed: int, decimals: int | None) -> None:
    """Rows with repeated (keys, class, score), no group-by: tie runs at both grains are corrected."""
    Ys, Ss = multilabel(seed, n=120, m=4, decimals=decimals or 1)
    if decimals is None:
        Ss = np.random.default_rng(seed).random(Ss.shape)
        Ss[:15, 1] = Ss[15:30, 1]  # repeated scores inside one class
        Ss[:10, 2] = Ss[:10, 3]  # and across classes
    frame = long_frame(Ys, Ss, np.array([None, 1, 2], dtype=object)[np.arange(len(Ys)) % 3])
    rows = score_rows(nw.from_native(frame.lazy()), [K], score=S, y=Y, class_=C).to_native()
    for unit_rows in (True, False):
        got = sv.ranking_entries(rows, [K], C, unit_rows=unit_rows)
        expected = sv.ranking_entries(counts(frame, [K]), [K], C)
        for name in ("classes", "pooled"):
            assert_frame_equal(collect(got[name]), collect(expected[name]), **TOL)


def test_pooled_counts_equal_the_pooled_wide_step() -> None:
    frame, *_ = _grouped_frame(4)
    for bins in (None, 7):
        got = collect(sv.pooled_counts(counts(frame, [K], bins=bins), [K]))
        expected = collect(counts(frame, [K], pooled=True, bins=bins))
        order = [K, "score"]
        assert_frame_equal(got.sort(order, nulls_last=True), expected.sort(order, nulls_last=True), **TOL)


def test_binary_label_form_is_one_class() -> None:
    """The label form of a binary task: one score column, the positive class only."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    s = np.round(np.clip(0.3 * y + 0.7 * rng.random(200), 0, 1), 2)
    e = entries(long_frame(y[:, None], s[:, None]), [], sv.CLASS_MEASURES)
    out = collect(reduce_entries([], operators=["micro", "macro"], **e))
    got = {(r["measure"], r["operator"]): r["value"] for r in out.iter_rows(named=True)}
    expected = {
        "auroc": skm.roc_auc_score(y, s),
        "average_precision": skm.average_precision_score(y, s),
        "log_loss": skm.log_loss(y, s),
        "brier": skm.brier_score_loss(y, s),
    }
    for measure, value in expected.items():
        for op in ("micro", "macro"):
            assert got[measure, op] == pytest.approx(value, rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------------------
# exemplar


@pytest.mark.parametrize("seed", range(4))
def test_exemplar_equals_sklearn_ranking(seed: int) -> None:
    Ys, Ss = multilabel(seed, m=4)
    Ys[:, 3] = (np.random.default_rng(seed).random(len(Ys)) < 0.5).astype(
        np.int64
    )  # some examples all-negative
    Ys[:5] = 1  # and some all-positive
    ex = sv.example_entries(stats(long_frame(Ys, Ss), []), [])
    out = collect(
        reduce_entries([], operators=["exemplar"], conventions=["exclude", "zero", "one"], examples=ex)
    )
    got = {(r["measure"], r["convention"]): r for r in out.iter_rows(named=True)}
    # an example without a positive has no AP: scikit-learn's LRAP scores it 1 (convention
    # one), its samples-AP 0 (zero); one with only positives has AP 1 in both (it was undefined)
    lrap = skm.label_ranking_average_precision_score(Ys, Ss)
    assert got["average_precision", "one"]["value"] == pytest.approx(lrap, abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "No positive class found in y_true"
        samples_ap = skm.average_precision_score(Ys, Ss, average="samples")
    assert got["average_precision", "zero"]["value"] == pytest.approx(samples_ap, abs=1e-12)
    positive = Ys.sum(1) > 0
    assert got["average_precision", "exclude"]["n_undefined"] == int((~positive).sum())
    ap = skm.average_precision_score(Ys[positive], Ss[positive], average="samples")
    assert got["average_precision", "exclude"]["value"] == pytest.approx(ap, abs=1e-12)
    # on the examples it accepts, samples-AUROC equals the exemplar value
    ranked = positive & (Ys.sum(1) < Ys.shape[1])
    assert got["auroc", "exclude"]["n_undefined"] == int((~ranked).sum())
    auc = skm.roc_auc_score(Ys[ranked], Ss[ranked], average="samples")
    assert got["auroc", "exclude"]["value"] == pytest.approx(auc, abs=1e-12)
    # losses: mean over examples of the mean entry loss (= micro on dense data)
    per_entry = -(Ys * np.log(np.clip(Ss, 1e-300, None)) + (1 - Ys) * np.log(np.clip(1 - Ss, 1e-300, None)))
    eps = np.finfo(float).eps
    per_entry = -(Ys * np.log(np.clip(Ss, eps, 1 - eps)) + (1 - Ys) * np.log(np.clip(1 - Ss, eps, 1 - eps)))
    assert got["log_loss", "exclude"]["value"] == pytest.approx(per_entry.mean(1).mean(), rel=1e-12)
    assert got["brier", "exclude"]["value"] == pytest.approx(((Ys - Ss) ** 2).mean(1).mean(), rel=1e-12)


# ---------------------------------------------------------------------------
# log loss and Brier


@pytest.mark.parametrize("seed", range(3))
def test_losses_per_class_micro_and_multiclass(seed: int) -> None:
    Ys, Ps = multiclass(seed, m=4, absent=True)
    Ps[0] = 0.0
    Ps[0, 1] = 1.0  # clipping at both ends
    frame = long_frame(Ys, Ps)
    e = entries(frame, [], ("log_loss", "brier"))
    table = collect(e["classes"])
    for c in range(Ys.shape[1]):
        ll = skm.log_loss(Ys[:, c], Ps[:, c], labels=[0, 1])
        br = skm.brier_score_loss(Ys[:, c], Ps[:, c], pos_label=1)
        assert values(table, "log_loss")[c] == pytest.approx(ll, rel=1e-12)
        assert values(table, "brier")[c] == pytest.approx(br, rel=1e-12)
    out = collect(reduce_entries([], operators=["micro", "macro"], **e))
    got = {(r["measure"], r["operator"]): r["value"] for r in out.iter_rows(named=True)}
    assert got["log_loss", "micro"] == pytest.approx(skm.log_loss(Ys.ravel(), Ps.ravel()), rel=1e-12)
    assert got["brier", "micro"] == pytest.approx(skm.brier_score_loss(Ys.ravel(), Ps.ravel()), rel=1e-12)
    per_class = [skm.log_loss(Ys[:, c], Ps[:, c], labels=[0, 1]) for c in range(Ys.shape[1])]
    assert got["log_loss", "macro"] == pytest.approx(np.mean(per_class), rel=1e-12)
    # the multiclass operator: scikit-learn's whole-distribution numbers
    y = Ys.argmax(1)
    m = Ys.shape[1]
    multi = collect(sv.multiclass_entries(counts(frame, []), [], C, n_classes=m))
    got_m = dict(zip(multi["measure"], multi["value"], strict=True))
    assert got_m["log_loss"] == pytest.approx(skm.log_loss(y, Ps, labels=list(range(m))), rel=1e-12)
    assert got_m["brier"] == pytest.approx(skm.brier_score_loss(y, Ps, labels=list(range(m))), rel=1e-12)


def test_multiclass_brier_two_classes_is_halved() -> None:
    Ys, Ps = multiclass(7, m=2)
    multi = collect(sv.multiclass_entries(counts(long_frame(Ys, Ps), []), [], C, n_classes=2))
    got = dict(zip(multi["measure"], multi["value"], strict=True))
    assert got["brier"] == pytest.approx(skm.brier_score_loss(Ys.argmax(1), Ps), rel=1e-12)
    assert got["log_loss"] == pytest.approx(skm.log_loss(Ys.argmax(1), Ps), rel=1e-12)


# ---------------------------------------------------------------------------
# curves


def _roc_frame(y: np.ndarray, s: np.ndarray) -> pl.DataFrame:
    fpr, tpr, thr = quiet(skm.roc_curve, y, s, drop_intermediate=False)
    return pl.DataFrame({"threshold": thr, "fpr": fpr, "tpr": tpr}).with_columns(
        pl.col("fpr", "tpr").fill_nan(None)
    )


def _pr_frame(y: np.ndarray, s: np.ndarray) -> pl.DataFrame:
    precision, recall, thr = quiet(skm.precision_recall_curve, y, s)
    frame = pl.DataFrame({"threshold": [*thr, np.inf], "precision": precision, "recall": recall})
    if y.sum() == 0:  # scikit-learn sets recall 1 (and 0 at the end); here it is undefined
        frame = frame.with_columns(pl.lit(None, dtype=pl.Float64).alias("recall"))
    return frame.sort("threshold", descending=True)


@pytest.mark.parametrize("seed", range(3))
def test_roc_and_pr_curves_equal_sklearn(seed: int) -> None:
    Ys, Ss = multilabel(seed, m=5, decimals=2)
    table = counts(long_frame(Ys, Ss), [])
    roc = collect(cv.roc_curve(table, [C]))
    pr = collect(cv.pr_curve(table, [C]))
    for c in range(Ys.shape[1]):
        got_roc = roc.filter(pl.col(C) == c).drop(C)
        assert_frame_equal(got_roc, _roc_frame(Ys[:, c], Ss[:, c]), **TOL)
        got_pr = pr.filter(pl.col(C) == c).drop(C)
        assert_frame_equal(got_pr, _pr_frame(Ys[:, c], Ss[:, c]), **TOL)
    pooled = counts(long_frame(Ys, Ss), [], pooled=True)
    assert_frame_equal(collect(cv.roc_curve(pooled, [])), _roc_frame(Ys.ravel(), Ss.ravel()), **TOL)
    assert_frame_equal(collect(cv.pr_curve(pooled, [])), _pr_frame(Ys.ravel(), Ss.ravel()), **TOL)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("grid", [None, 11])
def test_macro_roc_is_mean_of_interpolated_class_curves(seed: int, grid: int | None) -> None:
    """scikit-learn's ROC example: np.interp of every class's tpr at the union of the fpr values."""
    Ys, Ss = multilabel(seed, m=5, decimals=2)
    got = collect(cv.macro_roc_curve(counts(long_frame(Ys, Ss), []), [], C, grid=grid))
    curves = [
        skm.roc_curve(Ys[:, c], Ss[:, c], drop_intermediate=False)
        for c in range(Ys.shape[1])
        if 0 < Ys[:, c].sum() < len(Ys)
    ]
    xs = np.unique(np.concatenate([f for f, _, _ in curves])) if grid is None else np.linspace(0, 1, grid)
    mean_tpr = np.mean([np.interp(xs, f, t) for f, t, _ in curves], axis=0)
    expected = pl.DataFrame({"fpr": xs, "tpr": mean_tpr, "n_classes": len(curves)})
    assert_frame_equal(got, expected, check_dtypes=False, **TOL)


# ---------------------------------------------------------------------------
# calibration and ECE


def _ece_reference(y: np.ndarray, p: np.ndarray, bins: int, strategy: str) -> float:
    edges = (
        np.percentile(p, np.linspace(0, 1, bins + 1) * 100)
        if strategy == "quantile"
        else np.linspace(0, 1, bins + 1)
    )
    ids = np.searchsorted(edges[1:-1], p)
    total = np.bincount(ids, minlength=bins)
    true = np.bincount(ids, weights=y, minlength=bins)
    pred = np.bincount(ids, weights=p, minlength=bins)
    nz = total > 0
    return float(np.sum(total[nz] / len(p) * np.abs(true[nz] / total[nz] - pred[nz] / total[nz])))


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("bins", [1, 4, 10, 15])
def test_calibration_equals_calibration_curve(seed: int, strategy: str, bins: int) -> None:
    Ys, Ss = multilabel(seed, n=90, m=4, decimals=2)
    Ys[:5, 0] = 1  # calibration_curve needs no positives, but keep one class with a few
    frame = long_frame(Ys, Ss)
    table = collect(cal.calibration(counts(frame, []), [C], bins=bins, strategy=strategy))
    ece = collect(sv.class_entries(counts(frame, []), [], C, ("ece",), ece_bins=bins, ece_strategy=strategy))
    for c in range(Ys.shape[1]):
        prob_true, prob_pred = calibration_curve(Ys[:, c], Ss[:, c], n_bins=bins, strategy=strategy)
        rows = table.filter(pl.col(C) == c)
        np.testing.assert_allclose(rows["frequency"].to_numpy(), prob_true, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(rows["mean_score"].to_numpy(), prob_pred, rtol=1e-12, atol=1e-12)
        assert rows["count"].sum() == len(Ys)
        assert values(ece, "ece")[c] == pytest.approx(
            _ece_reference(Ys[:, c], Ss[:, c], bins, strategy), abs=1e-12
        )
    pooled = collect(cal.calibration(counts(frame, [], pooled=True), [], bins=bins, strategy=strategy))
    prob_true, prob_pred = calibration_curve(Ys.ravel(), Ss.ravel(), n_bins=bins, strategy=strategy)
    np.testing.assert_allclose(pooled["frequency"].to_numpy(), prob_true, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(pooled["mean_score"].to_numpy(), prob_pred, rtol=1e-12, atol=1e-12)


def test_quantile_edges_are_numpy_percentiles() -> None:
    rng = np.random.default_rng(11)
    p = np.round(rng.random(37) ** 2, 2)
    frame = long_frame(rng.integers(0, 2, (37, 1)), p[:, None])
    for bins in (2, 3, 7, 15, 40):
        table = collect(cal.calibration(counts(frame, []), [], bins=bins, strategy="quantile"))
        edges = np.percentile(p, np.linspace(0, 1, bins + 1) * 100)
        ids = table["bin"].to_numpy()
        np.testing.assert_array_equal(table["lower"].to_numpy(), edges[ids])  # bit for bit
        np.testing.assert_array_equal(table["upper"].to_numpy(), edges[ids + 1])


# ---------------------------------------------------------------------------
# best threshold


def _best_reference(y: np.ndarray, s: np.ndarray, measure: str) -> tuple[float, float | None]:
    m = get_measure(measure)
    best_t, best_v = None, None
    for t in [np.inf, *np.unique(s)[::-1]]:
        pred = s >= t
        v = m(
            np.sum(pred & (y == 1)),
            np.sum(pred & (y == 0)),
            np.sum(~pred & (y == 1)),
            np.sum(~pred & (y == 0)),
        )
        if np.isfinite(v) and (
            best_v is None or v > best_v
        ):  # strictly greater: the largest threshold wins ties
            best_t, best_v = t, float(v)
    return (np.nan if best_t is None else float(best_t)), best_v


@pytest.mark.parametrize("measure", ["f1", "mcc", "precision", "balanced_accuracy"])
def test_best_threshold_is_the_argmax(measure: str) -> None:
    Ys, Ss = multilabel(5, m=5)
    table = counts(long_frame(Ys, Ss), [])
    got = collect(cv.best_threshold(table, [C], get_measure(measure).expr()))
    for c in range(Ys.shape[1]):
        row = got.filter(pl.col(C) == c).row(0, named=True)
        t, v = _best_reference(Ys[:, c], Ss[:, c], measure)
        if v is None:
            assert row["value"] is None
            continue
        assert row["threshold"] == t
        assert row["value"] == pytest.approx(v, abs=1e-12)
        pred = Ss[:, c] >= t
        assert row["tp"] == int(np.sum(pred & (Ys[:, c] == 1)))
        assert row["fp"] == int(np.sum(pred & (Ys[:, c] == 0)))
    pooled = collect(
        cv.best_threshold(counts(long_frame(Ys, Ss), [], pooled=True), [], get_measure(measure).expr())
    )
    t, v = _best_reference(Ys.ravel(), Ss.ravel(), measure)
    assert pooled["threshold"].item() == t
    assert pooled["value"].item() == pytest.approx(v, abs=1e-12)


# ---------------------------------------------------------------------------
# groups with null keys = filtering; engines


def _grouped_frame(seed: int) -> tuple[pl.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    Ys, Ss = multilabel(seed, n=90, m=4)
    keys = np.array([None, 1, 2], dtype=object)[np.random.default_rng(seed).integers(0, 3, len(Ys))]
    return long_frame(Ys, Ss, keys), Ys, Ss, keys


def _everything(frame: pl.DataFrame, keys: list[str], engine: str = "lazy") -> dict[str, pl.LazyFrame]:
    per_class = counts(frame, keys, engine=engine)
    pooled = counts(frame, keys, pooled=True, engine=engine)
    e = {
        "classes": sv.class_entries(per_class, keys, C),
        "pooled": sv.pooled_entries(pooled, keys),
        "examples": sv.example_entries(stats(frame, keys, engine=engine), keys),
        "multiclass": sv.multiclass_entries(per_class, keys, C, n_classes=4),
    }
    ops = ["micro", "macro", "weighted", "exemplar", "multiclass"]
    rows = score_rows(nw.from_native(native(frame, engine)).lazy(), keys, score=S, y=Y, class_=C).to_native()
    if not isinstance(rows, pl.LazyFrame):  # DuckDB: the rows path is for Polars; read them over
        rows = rows.pl().lazy()
    fast = sv.ranking_entries(per_class, keys, C)
    from_rows = sv.ranking_entries(rows, keys, C, unit_rows=True)
    binned = counts(frame, keys, bins=8, engine=engine)
    return {
        "ranking_classes": fast["classes"],
        "ranking_pooled": fast["pooled"],
        "rows_classes": from_rows["classes"],
        "rows_pooled": from_rows["pooled"],
        "binned": sv.class_entries(binned, keys, C),
        "binned_bound": cv.auroc_bin_bound(binned, [*keys, C]),
        "values": reduce_entries(keys, operators=ops, conventions=["exclude", "zero", "one", "nan"], **e),
        "roc": cv.roc_curve(per_class, [*keys, C]),
        "pr": cv.pr_curve(pooled, keys),
        "macro_roc": cv.macro_roc_curve(per_class, keys, C),
        "calibration": cal.calibration(per_class, [*keys, C], bins=5, strategy="quantile"),
        "best": cv.best_threshold(per_class, [*keys, C], get_measure("f1").expr()),
    }


@pytest.mark.parametrize("seed", range(2))
def test_per_group_equals_filtering_with_null_keys(seed: int) -> None:
    frame, *_ = _grouped_frame(seed)
    grouped = {name: collect(lf) for name, lf in _everything(frame, [K]).items()}
    for key in (None, 1, 2):
        part = frame.filter(pl.col(K).is_null() if key is None else pl.col(K) == key).drop(K)
        alone = {name: collect(lf) for name, lf in _everything(part, []).items()}
        for name, expected in alone.items():
            got = grouped[name].filter(pl.col(K).is_null() if key is None else pl.col(K) == key).drop(K)
            assert_frame_equal(got, expected, **TOL)


@pytest.mark.parametrize("engine", ["eager", "duckdb"])
def test_engines_agree(engine: str) -> None:
    """Polars eager = lazy (streaming and in-memory) = DuckDB, null keys included."""
    frame, *_ = _grouped_frame(3)
    reference = {name: collect(lf, "in-memory") for name, lf in _everything(frame, [K]).items()}
    for name, lf in _everything(frame, [K], engine=engine).items():
        assert_frame_equal(collect(lf, "streaming"), reference[name], **TOL)


# ---------------------------------------------------------------------------
# bins=N


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("bins", [4, 10, 30])
def test_binned_is_exact_on_quantised_scores_and_bounded(seed: int, bins: int) -> None:
    rng = np.random.default_rng(seed)
    Ys = (rng.random((300, 3)) < 0.3).astype(np.int64)
    Ss = np.clip(0.25 * Ys + 0.75 * rng.random((300, 3)), 0, 1)
    Ss[0, 0], Ss[1, 1] = 0.0, 1.0
    frame = long_frame(Ys, Ss)
    binned = counts(frame, [], bins=bins)
    quantised = np.minimum(np.floor(Ss * bins), bins - 1) / bins
    exact_q = counts(long_frame(Ys, quantised), [])
    ranking = ("auroc", "average_precision")
    # the binned table is the exact table of the quantised scores
    assert_frame_equal(
        collect(sv.class_entries(binned, [], C, ranking)),
        collect(sv.class_entries(exact_q, [], C, ranking)),
        **TOL,
    )
    assert_frame_equal(collect(cv.roc_curve(binned, [C])), collect(cv.roc_curve(exact_q, [C])), **TOL)
    # losses are summed per cell from the rows: exact
    losses = ("log_loss", "brier")
    exact = counts(frame, [])
    assert_frame_equal(
        collect(sv.class_entries(binned, [], C, losses)),
        collect(sv.class_entries(exact, [], C, losses)),
        **TOL,
    )
    # the AUROC error is within the bound computed from the binned table
    got = values(collect(sv.class_entries(binned, [], C, ("auroc",))), "auroc")
    bound = collect(cv.auroc_bin_bound(binned, [C])).sort(C)["bound"].to_list()
    for c in range(3):
        err = abs(got[c] - skm.roc_auc_score(Ys[:, c], Ss[:, c]))
        assert err <= bound[c] + 1e-12


def test_binned_calibration_with_nested_edges_equals_exact() -> None:
    """Calibration bins whose edges are cell edges: binned = exact (scores off the edges)."""
    rng = np.random.default_rng(2)
    Ys = (rng.random((400, 2)) < 0.4).astype(np.int64)
    Ss = rng.random((400, 2)) * 0.999 + 0.0005
    frame = long_frame(Ys, Ss)
    got = collect(cal.calibration(counts(frame, [], bins=60), [C], bins=15))
    expected = collect(cal.calibration(counts(frame, []), [C], bins=15))
    assert_frame_equal(got, expected, **TOL)


# ---------------------------------------------------------------------------
# hypothesis: small random data with ties


@settings(max_examples=40, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 1), st.integers(0, 4), st.integers(0, 2), st.sampled_from([None, 0, 1])),
        min_size=1,
        max_size=40,
    ),
    unit_rows=st.booleans(),
)
def test_property_one_sort_ranking_with_ties(
    data: list[tuple[int, int, int, int | None]], unit_rows: bool
) -> None:
    """Rows (y, score on a 5-point grid, class, key): every class and pooled value is scikit-learn's."""
    frame = pl.DataFrame(
        {
            Y: [d[0] for d in data],
            S: [d[1] / 4 for d in data],
            C: [d[2] for d in data],
            K: [d[3] for d in data],
        },
        schema={Y: pl.Int64, S: pl.Float64, C: pl.Int64, K: pl.Int64},
    )
    rows = score_rows(nw.from_native(frame.lazy()), [K], score=S, y=Y, class_=C).to_native()
    table = rows if unit_rows else counts(frame, [K])
    got = {name: collect(lf) for name, lf in sv.ranking_entries(table, [K], C, unit_rows=unit_rows).items()}
    for name, group in (("classes", [K, C]), ("pooled", [K])):
        for row in got[name].iter_rows(named=True):
            mask = np.ones(frame.height, dtype=bool)
            for col in group:
                values_ = frame[col].to_list()
                mask &= np.array([v == row[col] for v in values_])
            yy, ss = frame[Y].to_numpy()[mask], frame[S].to_numpy()[mask]
            if row["measure"] == "auroc":
                expected = skm.roc_auc_score(yy, ss) if 0 < yy.sum() < len(yy) else None
            else:
                expected = skm.average_precision_score(yy, ss) if yy.sum() > 0 else None
            if expected is None:
                assert row["value"] is None
            else:
                assert row["value"] == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    data=st.lists(st.tuples(st.integers(0, 1), st.integers(0, 5)), min_size=1, max_size=30),
    keys=st.lists(st.sampled_from([None, 0, 1]), min_size=30, max_size=30),
)
def test_property_auroc_ap_per_group(data: list[tuple[int, int]], keys: list[int | None]) -> None:
    y = np.array([d[0] for d in data])
    s = np.array([d[1] for d in data]) / 5.0
    frame = long_frame(y[:, None], s[:, None], np.array(keys[: len(y)], dtype=object))
    table = collect(sv.class_entries(counts(frame, [K]), [K], C, ("auroc", "average_precision")))
    for row in table.iter_rows(named=True):
        key = row[K]
        mask = np.array([k == key for k in keys[: len(y)]])
        yy, ss = y[mask], s[mask]
        if row["measure"] == "auroc":
            expected = skm.roc_auc_score(yy, ss) if 0 < yy.sum() < len(yy) else None
        else:
            expected = skm.average_precision_score(yy, ss) if yy.sum() > 0 else None
        if expected is None:
            assert row["value"] is None
        else:
            assert row["value"] == pytest.approx(expected, abs=1e-12)
