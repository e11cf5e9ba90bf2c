"""Measures on scores through the public API: evaluate, curve, calibration, best_threshold (issue #14).

Differential against scikit-learn 1.9 for every measure x operator on binary, multiclass and
multilabel data with ties and absent classes; per group against filtering (null keys, hostile
names); eager = lazy = streaming = DuckDB (Spark: tests/engines/test_spark.py); bins=N within its bound;
the default decision's warning; one collect for a mixed report.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

import aggframe as af
from tests.strategies import distinct_names, group_filter, key_columns, rename_columns

SCORE_MEASURES = ["auroc", "average_precision", "log_loss", "brier", "ece"]
EPS = float(np.finfo(float).eps)
TOL = 1e-12


def quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """An oracle call whose scikit-learn warnings (undefined values) are expected."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def long_scores(Y: np.ndarray, S: np.ndarray, **extra: Any) -> pl.DataFrame:
    n, m = S.shape
    return pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), m),
            "class": np.tile(np.arange(m), n),
            "score": S.ravel().astype(float),
            "y": Y.ravel().astype(np.int64),
            **{k: list(np.repeat(np.asarray(v, dtype=object), m)) for k, v in extra.items()},
        }
    )


def multilabel(seed: int, n: int = 70, m: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Multilabel truth with a class without positives and one without negatives; scores on a grid (ties)."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, m)) < rng.uniform(0.2, 0.6, m)).astype(np.int64)
    Y[:, 1] = 0
    Y[:, m - 1] = 1
    S = np.round(np.clip(0.35 * Y + 0.65 * rng.random((n, m)), 0, 1), 1)
    return Y, S


def multiclass(seed: int, n: int = 90, m: int = 4, absent: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """One-hot truth (the last class absent with ``absent``), probability rows on a 1/20 grid summing to one."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m - 1 if absent else m, n)
    counts = np.array([rng.multinomial(20, rng.dirichlet(np.ones(m) + 2.0 * (np.arange(m) == t))) for t in y])
    return np.eye(m, dtype=np.int64)[y], counts / 20.0


def values(out: pl.DataFrame) -> dict[tuple[str, str, str], float]:
    return {(r["measure"], r["operator"], r["convention"]): r["value"] for r in out.iter_rows(named=True)}


def ece_reference(y: np.ndarray, p: np.ndarray, bins: int = 15) -> float:
    edges = np.linspace(0, 1, bins + 1)
    ids = np.searchsorted(edges[1:-1], p)
    total = np.bincount(ids, minlength=bins)
    true = np.bincount(ids, weights=y, minlength=bins)
    pred = np.bincount(ids, weights=p, minlength=bins)
    nz = total > 0
    return float(np.sum(np.abs(true[nz] - pred[nz])) / len(p))


def entry_log_loss(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    q = np.clip(p, EPS, 1 - EPS)
    r = np.clip(1 - p, EPS, 1 - EPS)
    return -(y * np.log(q) + (1 - y) * np.log(r))


# ---------------------------------------------------------------------------
# every measure x operator against scikit-learn


@pytest.mark.parametrize("seed", range(3))
def test_multilabel_every_measure_and_operator(seed: int) -> None:
    Y, S = multilabel(seed)
    pr = af.from_scores(long_scores(Y, S), decision="threshold")
    out = pr.evaluate(SCORE_MEASURES, ["micro", "macro", "weighted"], convention=["exclude", "zero"])
    got = values(out)
    m = Y.shape[1]
    ranked = [c for c in range(m) if 0 < Y[:, c].sum() < len(Y)]
    positive = [c for c in range(m) if Y[:, c].sum() > 0]
    for average in ("macro", "weighted"):
        expected = skm.roc_auc_score(Y[:, ranked], S[:, ranked], average=average)
        assert got["auroc", average, "exclude"] == pytest.approx(expected, abs=TOL)
        ap = skm.average_precision_score(Y[:, positive], S[:, positive], average=average)
        assert got["average_precision", average, "exclude"] == pytest.approx(ap, abs=TOL)
        # scikit-learn's own answer with every class: AP 0 for a class without positives
        sk_all = quiet(skm.average_precision_score, Y, S, average=average)
        assert got["average_precision", average, "zero"] == pytest.approx(sk_all, abs=TOL)
    assert got["auroc", "micro", "exclude"] == pytest.approx(
        skm.roc_auc_score(Y, S, average="micro"), abs=TOL
    )
    ap_micro = skm.average_precision_score(Y, S, average="micro")
    assert got["average_precision", "micro", "exclude"] == pytest.approx(ap_micro, abs=TOL)
    per_class_ll = [skm.log_loss(Y[:, c], S[:, c], labels=[0, 1]) for c in range(m)]
    per_class_br = [skm.brier_score_loss(Y[:, c], S[:, c], pos_label=1) for c in range(m)]
    support = Y.sum(0)
    assert got["log_loss", "micro", "exclude"] == pytest.approx(skm.log_loss(Y.ravel(), S.ravel()), rel=TOL)
    assert got["log_loss", "macro", "exclude"] == pytest.approx(np.mean(per_class_ll), rel=TOL)
    assert got["log_loss", "weighted", "exclude"] == pytest.approx(np.average(per_class_ll, weights=support))
    assert got["brier", "micro", "exclude"] == pytest.approx(
        skm.brier_score_loss(Y.ravel(), S.ravel()), rel=TOL
    )
    assert got["brier", "macro", "exclude"] == pytest.approx(np.mean(per_class_br), rel=TOL)
    per_class_ece = [ece_reference(Y[:, c], S[:, c]) for c in range(m)]
    assert got["ece", "macro", "exclude"] == pytest.approx(np.mean(per_class_ece), abs=TOL)
    assert got["ece", "micro", "exclude"] == pytest.approx(ece_reference(Y.ravel(), S.ravel()), abs=TOL)
    # the undefined classes are counted
    rows = out.filter((pl.col("operator") == "macro") & (pl.col("convention") == "exclude"))
    n_undefined = dict(zip(rows["measure"], rows["n_undefined"], strict=True))
    assert n_undefined["auroc"] == m - len(ranked)
    assert n_undefined["average_precision"] == m - len(positive)
    assert n_undefined["log_loss"] == 0
    assert set(rows["n_entries"]) == {m}


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("absent", [False, True])
def test_multiclass_every_measure_and_operator(seed: int, absent: bool) -> None:
    Y, P = multiclass(seed, absent=absent)
    y, m = Y.argmax(1), Y.shape[1]
    pr = af.from_scores(long_scores(Y, P), decision="argmax")
    got = values(pr.evaluate(SCORE_MEASURES, ["micro", "macro", "weighted"]))
    ranked = [c for c in range(m) if 0 < Y[:, c].sum() < len(Y)]
    for average in ("macro", "weighted"):
        if not absent:  # scikit-learn's one-vs-rest multiclass form refuses an absent class
            ovr = skm.roc_auc_score(y, P, multi_class="ovr", average=average)
            assert got["auroc", average, "exclude"] == pytest.approx(ovr, abs=TOL)
        cols = skm.roc_auc_score(Y[:, ranked], P[:, ranked], average=average)
        assert got["auroc", average, "exclude"] == pytest.approx(cols, abs=TOL)
    assert got["auroc", "micro", "exclude"] == pytest.approx(
        skm.roc_auc_score(Y, P, average="micro"), abs=TOL
    )
    for average in ("micro", "macro", "weighted"):
        ap = quiet(skm.average_precision_score, Y, P, average=average)
        if absent and average == "macro":  # the absent class is undefined here, 0 in scikit-learn
            ap = skm.average_precision_score(Y[:, ranked], P[:, ranked], average=average)
        assert got["average_precision", average, "exclude"] == pytest.approx(ap, abs=TOL)
    # the multiclass operator: scikit-learn's whole-distribution losses
    multi = values(pr.evaluate(["log_loss", "brier"], "multiclass"))
    labels = list(range(m))
    assert multi["log_loss", "multiclass", "exclude"] == pytest.approx(
        skm.log_loss(y, P, labels=labels), rel=TOL
    )
    brier = skm.brier_score_loss(y, P, labels=labels)
    assert multi["brier", "multiclass", "exclude"] == pytest.approx(brier, rel=TOL)
    # and with the whole-matrix measures of the arg-max decisions, in one frame, in the order asked
    mixed = pr.evaluate(["log_loss", "mcc", "kappa_quadratic", "accuracy"], "multiclass", by=None)
    assert mixed["measure"].to_list() == ["log_loss", "mcc", "kappa_quadratic", "accuracy"]
    both = values(mixed)
    pred = P.argmax(1)
    assert both["log_loss", "multiclass", "exclude"] == pytest.approx(
        multi["log_loss", "multiclass", "exclude"], rel=TOL
    )
    assert both["mcc", "multiclass", "exclude"] == pytest.approx(skm.matthews_corrcoef(y, pred), abs=TOL)
    kappa = skm.cohen_kappa_score(y, pred, weights="quadratic", labels=labels)
    assert both["kappa_quadratic", "multiclass", "exclude"] == pytest.approx(kappa, abs=TOL)
    assert both["accuracy", "multiclass", "exclude"] == pytest.approx(skm.accuracy_score(y, pred), abs=TOL)


def test_binary_layout_is_the_positive_class() -> None:
    """``class_=None``: one row per example, the positive class's score, scikit-learn's binary numbers."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    s = np.round(np.clip(0.3 * y + 0.7 * rng.random(300), 0, 1), 2)
    pr = af.from_scores(pl.DataFrame({"truth": y, "p": s}), class_=None, y="truth", score="p")
    got = values(pr.evaluate([*SCORE_MEASURES, "f1"], ["micro", "macro", "weighted"]))
    expected = {
        "auroc": skm.roc_auc_score(y, s),
        "average_precision": skm.average_precision_score(y, s),
        "log_loss": skm.log_loss(y, s),
        "brier": skm.brier_score_loss(y, s),
        "ece": ece_reference(y, s),
        "f1": skm.f1_score(y, s > 0.5),
    }
    for measure, value in expected.items():
        for op in ("micro", "macro", "weighted"):
            assert got[measure, op, "exclude"] == pytest.approx(value, rel=TOL, abs=TOL), (measure, op)
    ex = pr.evaluate(["auroc", "average_precision", "log_loss"], "exemplar")
    # one entry per example: no AUROC (undefined); LRAP 1 on a positive entry, undefined on
    # a negative one (scikit-learn's LRAP of one label); and the entry's loss
    assert ex["n_undefined"].to_list() == [300, int((y == 0).sum()), 0]
    assert ex["value"][1] == 1.0
    lrap = skm.label_ranking_average_precision_score(y.reshape(-1, 1), s.reshape(-1, 1))
    ones = pr.evaluate("average_precision", "exemplar", convention="one")["value"].item()
    assert ones == pytest.approx(lrap, abs=TOL)
    assert ex["value"][2] == pytest.approx(entry_log_loss(y, s).mean(), rel=TOL)
    assert pr.form == "labels"
    assert pr.cells("class")["class"].to_list() == [1]


@pytest.mark.parametrize("seed", range(3))
def test_exemplar_is_label_ranking(seed: int) -> None:
    Y, S = multilabel(seed, m=4)
    Y[:, 3] = (np.random.default_rng(seed).random(len(Y)) < 0.5).astype(np.int64)
    pr = af.from_scores(long_scores(Y, S), decision="threshold")
    out = pr.evaluate(
        ["auroc", "average_precision", "log_loss", "brier"], "exemplar", convention=["exclude", "one"]
    )
    got = values(out)
    # LRAP: scikit-learn scores an example without a positive 1 (and one with only
    # positives 1, its value)
    lrap = skm.label_ranking_average_precision_score(Y, S)
    assert got["average_precision", "exemplar", "one"] == pytest.approx(lrap, abs=TOL)
    ok = (Y.sum(1) > 0) & (Y.sum(1) < Y.shape[1])
    auc = skm.roc_auc_score(Y[ok], S[ok], average="samples")
    assert got["auroc", "exemplar", "exclude"] == pytest.approx(auc, abs=TOL)
    assert got["log_loss", "exemplar", "exclude"] == pytest.approx(
        entry_log_loss(Y, S).mean(1).mean(), rel=TOL
    )
    assert got["brier", "exemplar", "exclude"] == pytest.approx(((Y - S) ** 2).mean(1).mean(), rel=TOL)
    n_undef = out.filter((pl.col("measure") == "auroc") & (pl.col("convention") == "exclude"))["n_undefined"]
    assert n_undef.item() == int((~ok).sum())


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=30, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 1), st.integers(0, 4), st.integers(0, 2)),
        min_size=3,
        max_size=40,
        unique_by=lambda t: t,
    ),
    conventions=st.sampled_from([["exclude"], ["zero", "one"], ["nan"]]),
)
def test_property_conventions_and_undefined_counts(
    data: list[tuple[int, int, int]], conventions: list[str]
) -> None:
    """Random long scores (each row its own example, ties on a 5-point grid): macro = the mean of the
    per-class scikit-learn values under the convention, with the undefined classes counted."""
    frame = pl.DataFrame(
        {
            "example": range(len(data)),
            "y": [d[0] for d in data],
            "score": [d[1] / 4 for d in data],
            "class": [d[2] for d in data],
        }
    )
    scores = af.from_scores(frame, decision="threshold", classes=[0, 1, 2])
    out = scores.evaluate(["auroc", "average_precision"], "macro", convention=conventions)
    for row in out.iter_rows(named=True):
        per_class = []
        for c in range(3):
            sub = frame.filter(pl.col("class") == c)
            yy, ss = sub["y"].to_numpy(), sub["score"].to_numpy()
            if row["measure"] == "auroc":
                defined = 0 < yy.sum() < len(yy)
                per_class.append(skm.roc_auc_score(yy, ss) if defined else None)
            else:
                per_class.append(skm.average_precision_score(yy, ss) if yy.sum() > 0 else None)
        undefined = sum(v is None for v in per_class)
        assert row["n_undefined"] == undefined
        assert row["n_entries"] == 3
        filled = {"zero": 0.0, "one": 1.0}.get(row["convention"])
        if row["convention"] == "nan" and undefined:
            assert math.isnan(row["value"])
            continue
        vals = [filled if v is None else v for v in per_class]
        vals = [v for v in vals if v is not None]
        if not vals:
            assert math.isnan(row["value"])
        else:
            assert row["value"] == pytest.approx(np.mean(vals), abs=TOL)


# ---------------------------------------------------------------------------
# mixed with the cell measures, one collect


def test_mixed_report_is_one_collect_in_the_order_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    Y, P = multiclass(1)
    pr = af.from_scores(long_scores(Y, P), decision="argmax")
    calls: list[int] = []
    real = pl.collect_all

    def counting(frames: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(frames))
        return real(frames, *args, **kwargs)

    monkeypatch.setattr(pl, "collect_all", counting)
    out = pr.evaluate(["auroc", "f1", "log_loss"], ["macro", "micro"], convention=["zero", "exclude"])
    assert len(calls) == 1  # the cell tables and the score grains, together
    monkeypatch.undo()
    assert out.select("measure", "operator", "convention").rows() == [
        (m, o, c)
        for m in ("auroc", "f1", "log_loss")
        for o in ("macro", "micro")
        for c in ("zero", "exclude")
    ]
    alone = af.from_scores(long_scores(Y, P), decision="argmax")
    expected = pl.concat(
        [
            alone.evaluate([m], ["macro", "micro"], convention=["zero", "exclude"])
            for m in ("auroc", "f1", "log_loss")
        ]
    )
    assert_frame_equal(out, expected)
    lazy = pr.evaluate(
        ["auroc", "f1", "log_loss"], ["macro", "micro"], convention=["zero", "exclude"], lazy=True
    )
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), out)


def test_score_measures_need_scores_and_valid_combinations() -> None:
    Y, P = multiclass(2)
    labels = af.from_labels(Y.argmax(1), P.argmax(1))
    with pytest.raises(af.errors.OptionError, match="from_scores"):
        labels.evaluate("auroc", "macro")
    pr = af.from_scores(long_scores(Y, P), decision="argmax")
    with pytest.raises(af.errors.OptionError, match="ece has no per-example value"):
        pr.evaluate("ece", "exemplar")
    # with other operators (the default ones, or README's report of every measure) ece's
    # exemplar row is left out, and the rest is the same as without it
    # (regression: pr.evaluate("ece") raised "drop 'exemplar' or 'ece'")
    default = pr.evaluate("ece")
    assert default["operator"].to_list() == ["micro", "macro", "weighted"]
    everything = pr.evaluate(["f1", "auroc", "ece"], ["micro", "macro", "weighted", "exemplar"])
    assert everything.height == 3 * 4 - 1
    assert_frame_equal(
        everything.filter(pl.col("measure") != "ece"),
        pr.evaluate(["f1", "auroc"], ["micro", "macro", "weighted", "exemplar"]),
        abs_tol=1e-12,
    )
    assert_frame_equal(everything.filter(pl.col("measure") == "ece"), default, abs_tol=1e-12)
    with pytest.raises(af.errors.OptionError, match="'f1' has no whole-matrix definition"):
        pr.evaluate(["f1", "log_loss"], "multiclass")
    with pytest.raises(af.errors.OptionError, match="multiclass operator"):
        pr.evaluate(["auroc"], "multiclass")
    with pytest.raises(af.errors.OptionError, match="binary"):
        pr.evaluate(["auroc"], "binary")
    with pytest.raises(af.errors.UnknownNameError, match="measure on scores"):
        af.get_measure("roc_auc")
    with pytest.raises(af.errors.OptionError, match="measure on scores"):
        af.register_measure("auroc", lambda tp, fp, fn, tn: tp / (tp + fn))
    assert pr.evaluate("ROC-AUC", "macro")["measure"].to_list() == ["auroc"]  # aliases, any spelling
    logits = pl.DataFrame({"example": [0, 0], "class": [0, 1], "score": [2.0, -1.0], "y": [1, 0]})
    raw = af.from_scores(logits, decision="argmax")
    assert raw.evaluate("auroc", "micro")["value"].item() == 1.0  # a ranking needs no probabilities
    with pytest.raises(
        af.errors.InvalidValueError, match=r"log_loss reads the scores as probabilities.*logits=True"
    ):
        raw.evaluate("log_loss", "micro")
    sig = af.from_scores(logits, decision="argmax", logits=True)
    p = 1 / (1 + np.exp(-np.array([2.0, -1.0])))
    assert sig.evaluate("log_loss", "micro")["value"].item() == pytest.approx(
        skm.log_loss([1, 0], p), rel=TOL
    )


def test_real_scores_without_a_decision_for_rankings_and_curves() -> None:
    """SVM margins: AUROC, AP and the curves take any real score, with the default (threshold) decision.

    Before, the default threshold decision refused the predictions when they were built,
    so the measures that need no probabilities could not be had without logits=True.
    """
    s = np.array([2.0, -1.0, 0.5, 3.0, -0.2, 0.1])
    y = np.array([1, 0, 0, 1, 1, 0])
    binary = af.from_scores(pl.DataFrame({"score": s, "y": y}), class_=None)
    assert binary.evaluate("auroc", "micro")["value"].item() == pytest.approx(
        skm.roc_auc_score(y, s), rel=TOL
    )
    assert binary.evaluate("average_precision", "micro")["value"].item() == pytest.approx(
        skm.average_precision_score(y, s), rel=TOL
    )
    assert_frame_equal(binary.curve("roc").select("threshold", "fpr", "tpr"), _roc(y, s), abs_tol=TOL)
    best = binary.best_threshold("f1")  # in the scores' units
    assert best["threshold"].item() in set(s.tolist())
    Y, S = np.array([[1, 0], [0, 1], [1, 0]]), np.array([[2.5, -1.0], [0.3, 4.0], [-2.0, -3.0]])
    long = af.from_scores(long_scores(Y, S))
    assert long.evaluate("auroc", "macro")["value"].item() == pytest.approx(
        skm.roc_auc_score(Y, S, average="macro"), rel=TOL
    )
    for pr in (binary, long):
        with pytest.raises(af.errors.InvalidValueError, match="a threshold decision needs probabilities"):
            pr.evaluate("f1")
        with pytest.raises(af.errors.InvalidValueError, match="log_loss reads the scores as probabilities"):
            pr.evaluate("log_loss", "micro")


def test_logits_rank_as_given_where_the_sigmoid_ties() -> None:
    """Above ~37 the sigmoid is 1.0 in float64: AUROC, AP, curves and thresholds read the logits themselves."""
    s = np.array([40.0, 45.0, 50.0, 55.0, -3.0, 1.0])
    y = np.array([0, 1, 0, 1, 0, 1])
    pr = af.from_scores(pl.DataFrame({"score": s, "y": y}), class_=None, logits=True)
    assert pr.evaluate("auroc", "micro")["value"].item() == pytest.approx(skm.roc_auc_score(y, s), rel=TOL)
    assert pr.evaluate("average_precision", "micro")["value"].item() == pytest.approx(
        skm.average_precision_score(y, s), rel=TOL
    )
    assert_frame_equal(pr.curve("roc").select("threshold", "fpr", "tpr"), _roc(y, s), abs_tol=TOL)
    assert pr.best_threshold("f1")["threshold"].item() == 1.0  # a logit: sigmoid(1.0) as a probability
    p = 1 / (1 + np.exp(-s))
    assert pr.evaluate("log_loss", "micro")["value"].item() == pytest.approx(skm.log_loss(y, p), rel=1e-9)
    assert pr.evaluate("brier", "micro")["value"].item() == pytest.approx(
        skm.brier_score_loss(y, p), rel=1e-9
    )
    # the long layout, per example (exemplar: label ranking and the per-example AUROC)
    Y = np.array([[0, 1, 1], [1, 0, 0]])
    S = np.array([[40.0, 45.0, 50.0], [38.0, 39.0, -1.0]])
    long = af.from_scores(long_scores(Y, S), decision="argmax", logits=True)
    got = long.evaluate(["auroc", "average_precision"], ["macro", "exemplar"])
    want = [
        skm.roc_auc_score(Y, S, average="macro"),
        skm.roc_auc_score(Y, S, average="samples"),
        skm.average_precision_score(Y, S, average="macro"),
        skm.label_ranking_average_precision_score(Y, S),
    ]
    assert got["value"].to_list() == pytest.approx(want, rel=TOL)
    # probabilities where they are read: calibration in probability units, bins of the sigmoid
    cal = pr.calibration(bins=2)
    probabilities = af.from_scores(pl.DataFrame({"score": p, "y": y}), class_=None)
    assert_frame_equal(cal, probabilities.calibration(bins=2))


# ---------------------------------------------------------------------------
# curves, calibration, thresholds


def _roc(y: np.ndarray, s: np.ndarray) -> pl.DataFrame:
    fpr, tpr, thr = quiet(skm.roc_curve, y, s, drop_intermediate=False)
    return pl.DataFrame({"threshold": thr, "fpr": fpr, "tpr": tpr}).with_columns(
        pl.col("fpr", "tpr").fill_nan(None)
    )


def _pr(y: np.ndarray, s: np.ndarray) -> pl.DataFrame:
    precision, recall, thr = quiet(skm.precision_recall_curve, y, s)
    frame = pl.DataFrame({"threshold": [*thr, np.inf], "precision": precision, "recall": recall})
    if y.sum() == 0:
        frame = frame.with_columns(pl.lit(None, dtype=pl.Float64).alias("recall"))
    return frame.sort("threshold", descending=True)


@pytest.mark.parametrize("seed", range(2))
def test_curves_equal_sklearn_per_class_and_micro(seed: int) -> None:
    Y, S = multilabel(seed)
    pr = af.from_scores(long_scores(Y, S), decision="threshold")
    roc, prc = pr.curve("roc"), pr.curve("pr")
    for c in range(Y.shape[1]):
        assert_frame_equal(
            roc.filter(pl.col("class") == c).drop("class"), _roc(Y[:, c], S[:, c]), abs_tol=TOL
        )
        assert_frame_equal(prc.filter(pl.col("class") == c).drop("class"), _pr(Y[:, c], S[:, c]), abs_tol=TOL)
    assert_frame_equal(pr.curve("roc", "micro"), _roc(Y.ravel(), S.ravel()), abs_tol=TOL)
    assert_frame_equal(pr.curve("precision-recall", "micro"), _pr(Y.ravel(), S.ravel()), abs_tol=TOL)


@pytest.mark.parametrize("seed", range(2))
def test_macro_curves(seed: int) -> None:
    """Macro ROC: scikit-learn's example (np.interp at the union of fpr); macro PR: step area = macro AP."""
    Y, S = multilabel(seed)
    pr = af.from_scores(long_scores(Y, S), decision="threshold")
    got = pr.curve("roc", "macro")
    curves = [
        skm.roc_curve(Y[:, c], S[:, c], drop_intermediate=False)
        for c in range(Y.shape[1])
        if 0 < Y[:, c].sum() < len(Y)
    ]
    xs = np.unique(np.concatenate([f for f, _, _ in curves]))
    mean_tpr = np.mean([np.interp(xs, f, t) for f, t, _ in curves], axis=0)
    assert_frame_equal(
        got,
        pl.DataFrame({"fpr": xs, "tpr": mean_tpr, "n_classes": len(curves)}),
        check_dtypes=False,
        abs_tol=TOL,
    )
    macro = pr.curve("pr", "macro")
    r, p = macro["recall"].to_numpy(), macro["precision"].to_numpy()
    area = float(np.sum(np.diff(r) * p[1:]))
    macro_ap = pr.evaluate("average_precision", "macro")["value"].item()
    assert area == pytest.approx(macro_ap, abs=1e-12)
    assert r[0] == 0.0
    assert r[-1] == 1.0


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("bins", [3, 10])
def test_calibration_equals_calibration_curve(strategy: str, bins: int) -> None:
    Y, S = multilabel(4)
    pr = af.from_scores(long_scores(Y, S), decision="threshold")
    table = pr.calibration(bins=bins, strategy=strategy)  # type: ignore[arg-type]
    for c in range(Y.shape[1]):
        prob_true, prob_pred = calibration_curve(Y[:, c], S[:, c], n_bins=bins, strategy=strategy)
        rows = table.filter(pl.col("class") == c)
        np.testing.assert_allclose(rows["frequency"].to_numpy(), prob_true, rtol=TOL, atol=TOL)
        np.testing.assert_allclose(rows["mean_score"].to_numpy(), prob_pred, rtol=TOL, atol=TOL)
        assert rows["count"].sum() == len(Y)
    pooled = pr.calibration(bins=bins, strategy=strategy, operator="micro")  # type: ignore[arg-type]
    prob_true, prob_pred = calibration_curve(Y.ravel(), S.ravel(), n_bins=bins, strategy=strategy)
    np.testing.assert_allclose(pooled["frequency"].to_numpy(), prob_true, rtol=TOL, atol=TOL)
    np.testing.assert_allclose(pooled["mean_score"].to_numpy(), prob_pred, rtol=TOL, atol=TOL)


def _best_reference(y: np.ndarray, s: np.ndarray, name: str) -> tuple[float, float | None]:
    m = af.get_measure(name)
    best_t, best_v = math.nan, None
    for t in [np.inf, *np.unique(s)[::-1]]:
        pred = s >= t
        v = m(
            np.sum(pred & (y == 1)),
            np.sum(pred & (y == 0)),
            np.sum(~pred & (y == 1)),
            np.sum(~pred & (y == 0)),
        )
        if np.isfinite(v) and (best_v is None or v > best_v):
            best_t, best_v = float(t), float(v)
    return best_t, best_v


@pytest.mark.parametrize("measure", ["f1", "mcc", "balanced_accuracy"])
def test_best_threshold_is_the_argmax(measure: str) -> None:
    Y, S = multilabel(5)
    pr = af.from_scores(long_scores(Y, S), decision="threshold")
    micro = pr.best_threshold(measure)
    t, v = _best_reference(Y.ravel(), S.ravel(), measure)
    assert micro["threshold"].item() == t
    assert micro["value"].item() == pytest.approx(v, abs=TOL)
    per_class = pr.best_threshold(measure, per_class=True)
    for c in range(Y.shape[1]):
        row = per_class.filter(pl.col("class") == c).row(0, named=True)
        t, v = _best_reference(Y[:, c], S[:, c], measure)
        if v is None:
            assert row["value"] is None
        else:
            assert (row["threshold"], row["value"]) == (t, pytest.approx(v, abs=TOL))
    # macro: one common threshold maximising the mean of the per-class values (undefined excluded)
    macro = pr.best_threshold(measure, "macro")
    m = af.get_measure(measure)
    best_t, best_v = math.nan, -math.inf
    for t in [np.inf, *np.unique(S)[::-1]]:
        pred = t <= S
        cells = [
            (pred & (Y == 1)).sum(0),
            (pred & (Y == 0)).sum(0),
            (~pred & (Y == 1)).sum(0),
            (~pred & (Y == 0)).sum(0),
        ]
        with np.errstate(all="ignore"):
            vals = np.asarray(m(*[np.asarray(x, dtype=float) for x in cells]))
        vals = vals[np.isfinite(vals)]
        if vals.size and vals.mean() > best_v + 1e-15:
            best_t, best_v = float(t), float(vals.mean())
    assert macro["threshold"].item() == best_t
    assert macro["value"].item() == pytest.approx(best_v, abs=TOL)


# ---------------------------------------------------------------------------
# bins=N: bounded memory, bounded error


@pytest.mark.parametrize("bins", [4, 20, 200])
def test_binned_auroc_within_its_bound_and_losses_exact(bins: int) -> None:
    rng = np.random.default_rng(bins)
    Y = (rng.random((400, 3)) < 0.3).astype(np.int64)
    S = np.clip(0.25 * Y + 0.75 * rng.random((400, 3)), 0, 1)
    frame = long_scores(Y, S)
    exact = af.from_scores(frame, decision="threshold")
    binned = af.from_scores(frame, decision="threshold", bins=bins)
    ex = values(exact.evaluate(SCORE_MEASURES, ["micro", "macro"]))
    bi = values(binned.evaluate(SCORE_MEASURES, ["micro", "macro"]))
    for key in ex:
        if key[0] in ("log_loss", "brier", "ece"):
            assert bi[key] == pytest.approx(ex[key], rel=1e-12, abs=1e-12), key
    per_class = binned.auroc_bound()
    binned_values = []
    for c in range(3):
        exact_c = skm.roc_auc_score(Y[:, c], S[:, c])
        quantised = np.minimum(np.floor(S[:, c] * bins), bins - 1) / bins
        binned_c = skm.roc_auc_score(Y[:, c], quantised)  # binned = exact on the quantised scores
        binned_values.append(binned_c)
        bound = per_class.filter(pl.col("class") == c)["bound"].item()
        assert abs(binned_c - exact_c) <= bound + 1e-12
    assert bi["auroc", "macro", "exclude"] == pytest.approx(np.mean(binned_values), abs=1e-12)
    micro_bound = binned.auroc_bound("micro")["bound"].item()
    assert abs(bi["auroc", "micro", "exclude"] - ex["auroc", "micro", "exclude"]) <= micro_bound + 1e-12
    assert exact.auroc_bound("micro")["bound"].item() == 0.0
    # the binned curves are the exact ones at the thresholds q / N
    quantised = np.minimum(np.floor(S * bins), bins - 1) / bins
    assert_frame_equal(
        binned.curve("roc"), af.from_scores(long_scores(Y, quantised), decision="threshold").curve("roc")
    )


def test_bins_need_probabilities() -> None:
    frame = pl.DataFrame({"example": [0, 0], "class": [0, 1], "score": [2.0, -1.0], "y": [1, 0]})
    with pytest.raises(af.errors.InvalidValueError, match="bins= quantises probabilities"):
        af.from_scores(frame, decision="argmax", bins=10)
    with pytest.raises(af.errors.OptionError, match="bins"):
        af.from_scores(frame, decision="argmax", bins=0)
    af.from_scores(frame, decision="argmax", bins=10, logits=True)


# ---------------------------------------------------------------------------
# the default decision


def test_softmax_scores_without_a_decision_warn() -> None:
    Y, P = multiclass(0)
    frame = long_scores(Y, P)
    with pytest.warns(af.errors.DecisionWarning, match="decision='argmax'"):
        af.from_scores(frame)
    assert issubclass(af.errors.DecisionWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        af.from_scores(frame, decision="threshold")  # stated: no warning
        af.from_scores(frame, threshold=0.4)
        af.from_scores(frame, decision="argmax")
        Y2, S2 = multilabel(0)
        af.from_scores(long_scores(Y2, S2))  # multilabel scores do not sum to one: no warning
    # what the warning is about: the default threshold reads softmax rows as multilabel
    f1_threshold = af.from_scores(frame, decision="threshold").compute("f1", "macro")
    f1_argmax = af.from_scores(frame, decision="argmax").compute("f1", "macro")
    assert f1_threshold != f1_argmax


# ---------------------------------------------------------------------------
# groups: null keys, hostile names, filtering


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=15, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_per_group_equals_filtering(data: st.DataObject, seed: int) -> None:
    n = 40
    keys = data.draw(key_columns(n, max_keys=2))
    Y, P = multiclass(seed, n=n, m=3)
    frame = long_scores(Y, P).with_columns(
        *[
            pl.Series(k, [s[int(e)] for e in np.repeat(np.arange(n), 3)], dtype=s.dtype)
            for k, s in keys.items()
        ]
    )
    by = list(keys)
    measures, ops = ["auroc", "average_precision", "log_loss", "ece", "f1"], ["micro", "macro", "weighted"]
    got = af.from_scores(frame, decision="argmax", classes=[0, 1, 2]).evaluate(measures, ops, by=by)
    exemplar = af.from_scores(frame, decision="argmax").evaluate(["auroc", "brier"], "exemplar", by=by)
    groups = frame.select(by).unique().rows()
    for group in groups:
        sub = frame.filter(group_filter(by, group))
        alone = af.from_scores(sub, decision="argmax", classes=[0, 1, 2]).evaluate(measures, ops)
        mine = got.filter(group_filter(by, group)).drop(by)
        assert_frame_equal(mine, alone, abs_tol=1e-12)
        ex = af.from_scores(sub, decision="argmax").evaluate(["auroc", "brier"], "exemplar")
        assert_frame_equal(exemplar.filter(group_filter(by, group)).drop(by), ex, abs_tol=1e-12)
    curves = af.from_scores(frame, decision="argmax").curve("roc", by=by)
    for group in groups:
        sub = frame.filter(group_filter(by, group))
        alone_curve = af.from_scores(sub, decision="argmax").curve("roc")
        assert_frame_equal(curves.filter(group_filter(by, group)).drop(by), alone_curve)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_any_names(data: st.DataObject) -> None:
    Y, P = multiclass(7, n=30, m=3)
    frame = long_scores(Y, P, g=np.arange(30) % 3)
    names = data.draw(distinct_names(5))
    mapping = dict(zip(["example", "class", "score", "y", "g"], names, strict=True))
    renamed = rename_columns(frame, mapping)
    roles = {
        "example": mapping["example"],
        "class_": mapping["class"],
        "score": mapping["score"],
        "y": mapping["y"],
    }
    measures = ["auroc", "average_precision", "log_loss", "f1"]
    pr = af.from_scores(renamed, **roles, decision="argmax")
    if mapping["g"] in ("measure", "operator", "convention", "value", "n_entries", "n_undefined"):
        with pytest.raises(af.errors.OptionError, match="collides"):
            pr.evaluate(measures, by=mapping["g"])
        return
    got = pr.evaluate(measures, ["micro", "macro"], by=mapping["g"])
    expected = af.from_scores(frame, decision="argmax").evaluate(measures, ["micro", "macro"], by="g")
    assert_frame_equal(got, expected.rename({"g": mapping["g"]}))
    if mapping["g"] in ("class", "threshold", "precision", "recall"):
        # a by-column named like a column of the curve's result is refused, named
        with pytest.raises(af.errors.OptionError, match="collides"):
            pr.curve("pr", by=mapping["g"])
        return
    curve = pr.curve("pr", by=mapping["g"])
    expected_curve = af.from_scores(frame, decision="argmax").curve("pr", by="g")
    assert_frame_equal(curve, expected_curve.rename({"g": mapping["g"]}))


@pytest.mark.slow
def test_grouping_sets_and_compare() -> None:
    Y, P = multiclass(3, n=60)
    frame = long_scores(Y, P, model=np.arange(60) % 2, day=np.where(np.arange(60) % 3 == 0, None, "d1"))
    pr = af.from_scores(frame, decision="argmax")
    out = pr.evaluate(["auroc", "f1"], "macro", by=["model", "day"], grouping_sets="rollup")
    overall = out.filter(pl.col("grouping_set") == "")
    assert_frame_equal(
        overall.drop("model", "day", "grouping_set", "grouping_id"),
        pr.evaluate(["auroc", "f1"], "macro"),
    )
    per_model = out.filter(pl.col("grouping_set") == "model").sort("model", "measure")
    for model in (0, 1):
        alone = af.from_scores(frame.filter(pl.col("model") == model), decision="argmax").evaluate(
            ["auroc", "f1"], "macro"
        )
        mine = per_model.filter(pl.col("model") == model)
        assert mine["value"].to_list() == pytest.approx(alone["value"].to_list(), abs=1e-12)
    cmp = pr.compare("auroc", "macro", by="model")
    assert set(cmp.columns) >= {"model", "value", "overall"}


# ---------------------------------------------------------------------------
# engines (Spark: tests/engines/test_spark.py), the fast argmax, broken sources


def _run_everything(pr: af.Predictions) -> dict[str, pl.DataFrame]:
    return {
        "report": pr.evaluate(
            [*SCORE_MEASURES, "f1", "mcc"],
            ["micro", "macro", "weighted"],
            by="g",
            convention=["exclude", "one"],
        ),
        "exemplar": pr.evaluate(["auroc", "average_precision", "log_loss", "f1"], "exemplar", by="g"),
        "multiclass": pr.evaluate(["log_loss", "brier"], "multiclass", by="g"),
        "roc": pr.curve("roc", by="g"),
        "pr_micro": pr.curve("pr", "micro", by="g"),
        "macro_roc": pr.curve("roc", "macro", by="g"),
        "calibration": pr.calibration(bins=5, by="g"),
        "quantile": pr.calibration(bins=4, strategy="quantile", operator="micro", by="g"),
        "best": pr.best_threshold("f1", by="g", per_class=True),
        "best_macro": pr.best_threshold("f1", "macro", by="g"),
    }


def _engine_frame() -> pl.DataFrame:
    Y, P = multiclass(11, n=60, m=3)
    return long_scores(Y, P, g=np.array([None, "a", "b"], dtype=object)[np.arange(60) % 3])


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("decision", ["argmax", "top_k"])
def test_eager_lazy_streaming_duckdb_agree(decision: str) -> None:
    duckdb = pytest.importorskip("duckdb")
    frame = _engine_frame()
    k = 2 if decision == "top_k" else None
    reference = _run_everything(af.from_scores(frame, decision=decision, k=k))
    for native in (frame.lazy(), duckdb.from_arrow(frame.to_arrow())):
        got = _run_everything(af.from_scores(native, decision=decision, k=k))
        for name, expected in reference.items():
            assert_frame_equal(got[name], expected, abs_tol=1e-12), name
    binned = _run_everything(af.from_scores(frame, decision=decision, k=k, bins=7))
    binned_duck = _run_everything(
        af.from_scores(duckdb.from_arrow(frame.to_arrow()), decision=decision, k=k, bins=7)
    )
    for name, expected in binned.items():
        assert_frame_equal(binned_duck[name], expected, abs_tol=1e-12)
    streaming = af.from_scores(frame.lazy(), decision=decision, k=k).evaluate(
        [*SCORE_MEASURES, "f1", "mcc"],
        ["micro", "macro", "weighted"],
        by="g",
        convention=["exclude", "one"],
        engine="streaming",
    )
    assert_frame_equal(streaming, reference["report"])


def test_fast_argmax_equals_the_window_path() -> None:
    """Polars' one-aggregation argmax = the window decision (DuckDB's, and Polars' under a mask)."""
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(5)
    S = rng.choice([0.1, 0.3, 0.3, 0.6], size=(50, 4))  # ties: the smallest class wins
    Y = (rng.random((50, 4)) < 0.4).astype(np.int64)  # multilabel truth
    frame = long_scores(Y, S, g=np.arange(50) % 2).with_columns(pl.lit(1).alias("observed"))
    measures = ["f1", "mcc", "precision", "recall"]
    fast = af.from_scores(frame, decision="argmax").evaluate(measures, by="g")
    masked = af.from_scores(frame, decision="argmax", mask="observed").evaluate(measures, by="g")
    duck = af.from_scores(duckdb.from_arrow(frame.to_arrow()), decision="argmax").evaluate(measures, by="g")
    assert_frame_equal(fast, masked)
    assert_frame_equal(fast, duck)
    string_classes = frame.with_columns(pl.col("class").cast(pl.String))
    assert_frame_equal(
        af.from_scores(string_classes, decision="argmax").cells("class", by="g").drop("class"),
        af.from_scores(frame, decision="argmax").cells("class", by="g").drop("class"),
    )


def test_broken_sources(tmp_path: Path) -> None:
    with pytest.raises(af.errors.SourceError, match="not found"):
        af.from_scores(str(tmp_path / "missing.parquet"), decision="argmax")
    path = tmp_path / "scores.parquet"
    long_scores(*multiclass(0, n=10)).write_parquet(path)
    pr = af.from_scores(str(path), decision="argmax")
    path.unlink()
    with pytest.raises(af.errors.SourceError, match="could not read"):
        pr.evaluate("auroc", "macro")
    with pytest.raises(af.errors.SourceError, match="could not read"):
        pr.curve("roc")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really parquet PAR1")
    with pytest.raises(af.errors.SourceError):
        af.from_scores(str(bad))


def test_bad_truth_and_nulls_are_named() -> None:
    frame = pl.DataFrame(
        {"example": [0, 0, 1, 1], "class": [0, 1, 0, 1], "score": [0.2, 0.8, 0.4, 0.6], "y": [1, 0, 2, 0]}
    )
    with pytest.raises(
        af.errors.InvalidValueError, match=r"column 'y': 1 value\(s\) other than 0 and 1.*example=1, class=0"
    ):
        af.from_scores(frame, decision="argmax")
    with pytest.raises(af.errors.NullValueError, match=r"column 'class': 1 null"):
        af.from_scores(
            frame.with_columns(pl.Series("class", [0, None, 0, 1]), pl.lit(0).alias("y")), decision="argmax"
        )
    with pytest.raises(af.errors.OptionError, match="class_=None reads the binary layout"):
        af.from_scores(frame, class_=None, decision="argmax")
    with pytest.raises(af.errors.OptionError, match="over="):
        af.from_scores(
            frame.with_columns(pl.lit(0).alias("y"), pl.lit("m").alias("model")),
            decision="argmax",
            over="model",
        ).evaluate("f1")


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@pytest.mark.parametrize("names", [("*", "a.b", "select", "'", 'g"x'), ("^x$", "NULL", "class", "y", " ")])
def test_duckdb_hostile_names_and_the_binary_layout(names: tuple[str, ...]) -> None:
    duckdb = pytest.importorskip("duckdb")
    frame = _engine_frame()
    mapping = dict(zip(["example", "class", "score", "y", "g"], names, strict=True))
    renamed = rename_columns(frame, mapping)
    roles = {
        "example": mapping["example"],
        "class_": mapping["class"],
        "score": mapping["score"],
        "y": mapping["y"],
    }
    measures = ["auroc", "average_precision", "log_loss", "f1"]
    expected = af.from_scores(renamed, **roles, decision="top_k", k=2).evaluate(measures, by=mapping["g"])
    duck = af.from_scores(duckdb.from_arrow(renamed.to_arrow()), **roles, decision="top_k", k=2)
    assert_frame_equal(duck.evaluate(measures, by=mapping["g"]), expected)
    # the binary layout: the first class's column as a binary task
    keep = [i for i, c in enumerate(renamed.columns) if c not in (mapping["example"], mapping["class"])]
    first_class = frame["class"] == 0  # by position: a name may be a pattern ("*", "^x$")
    binary = renamed.filter(first_class).select(pl.nth(keep))
    kwargs = {"class_": None, "score": mapping["score"], "y": mapping["y"]}
    expected_binary = af.from_scores(binary, **kwargs).evaluate([*measures, "brier"], by=mapping["g"])
    got_binary = af.from_scores(duckdb.from_arrow(binary.to_arrow()), **kwargs).evaluate(
        [*measures, "brier"], by=mapping["g"]
    )
    assert_frame_equal(got_binary, expected_binary)
    assert_frame_equal(
        af.from_scores(duckdb.from_arrow(binary.to_arrow()), **kwargs).curve("pr", by=mapping["g"]),
        af.from_scores(binary, **kwargs).curve("pr", by=mapping["g"]),
    )
