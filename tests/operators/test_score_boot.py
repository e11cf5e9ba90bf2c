"""Bootstrap intervals of the measures on scores (``n_boot=`` with auroc, average_precision, losses, ece).

* every replicate is scikit-learn's ``roc_auc_score`` / ``average_precision_score`` /
  ``log_loss`` / ``brier_score_loss`` with ``sample_weight`` = that replicate's Poisson
  weights (the cell bootstrap's: :func:`~aggframe.wide.bootstrap.reference_weights`),
  per group, micro, macro and weighted, with tied scores, a null group key and hostile names;
* the intervals of f1 and auroc come from the same replicates (one report, one seed);
* paired in ``compare``: identical models have a zero-width difference, a better one is seen;
* a coverage simulation (a known data-generating process, seeded);
* what is refused says so (exemplar, multiclass, bins, cluster).
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
from scipy.stats import norm
from sklearn.metrics import average_precision_score, brier_score_loss, log_loss, roc_auc_score

import aggframe as af
from aggframe._columns import REP, restore
from aggframe._options import Bootstrap
from aggframe.exceptions import OptionError, SourceError
from aggframe.wide.bootstrap import reference_weights


def _scores(
    n: int, m: int, *, seed: int, models: tuple[Any, ...] = ("A",), ties: bool = True
) -> pl.DataFrame:
    """Long scores of ``n`` examples x ``m`` classes per model (the same examples in every model)."""
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, m, n)
    frames = []
    for i, model in enumerate(models):
        raw = rng.random((n, m)) + (0.8 - 0.2 * i) * np.eye(m)[yt]
        prob = raw / raw.sum(axis=1, keepdims=True)
        if ties:
            prob = np.round(prob, 1)  # many ties, within and across classes
        frames.append(
            pl.DataFrame(
                {
                    "model": pl.Series([model] * n * m, dtype=pl.String),
                    "example": np.repeat(np.arange(n) * 3 + 5, m),
                    "class": np.tile(np.arange(m), n),
                    "score": prob.ravel(),
                    "y": (np.eye(m)[yt]).ravel().astype(np.int64),
                }
            )
        )
    return pl.concat(frames)


def _replicates(
    pr: af.Predictions, measures: Any, operators: Any, boot: Bootstrap, **kw: Any
) -> pl.DataFrame:
    report, names = pr.extend.report(pr.extend.request(measures, operators, **kw), boot=boot)
    out: pl.DataFrame = restore(report.collect(), names)
    return out


def _oracle(name: str, y: np.ndarray, s: np.ndarray, w: np.ndarray, op: str) -> float:
    """scikit-learn's value of ``name`` on indicator ``y`` / scores ``s`` (examples x classes)."""
    if name == "auroc":
        return float(roc_auc_score(y, s, average=op, sample_weight=w))
    if name == "average_precision":
        return float(average_precision_score(y, s, average=op, sample_weight=w))
    fn = {
        "log_loss": lambda a, b, ww: log_loss(a, b, sample_weight=ww, labels=[0, 1]),
        "brier": lambda a, b, ww: brier_score_loss(a, b, sample_weight=ww),
    }[name]
    if op == "micro":
        return float(fn(y.ravel(), s.ravel(), np.repeat(w, y.shape[1])))
    values = np.array([fn(y[:, c], s[:, c], w) for c in range(y.shape[1])])
    if op == "macro":
        return float(values.mean())
    support = (y * w[:, None]).sum(axis=0)
    return float((values * support).sum() / support.sum())


@pytest.mark.parametrize("seed", [0, 3])
def test_replicates_are_sklearn_with_sample_weight(seed: int) -> None:
    """Replicates 0-4 of every measure and operator equal scikit-learn's with the replicate's weights."""
    frame = _scores(70, 3, seed=seed, models=("A", None))  # a null model is a group
    hostile = {"model": "__af_by0", "example": "tp", "class": "n", "score": "__af_x", "y": "y true"}
    frame = frame.rename(hostile)
    pr = af.from_scores(frame, example="tp", class_="n", score="__af_x", y="y true", decision="argmax")
    boot = Bootstrap(n_boot=5, seed=seed)
    measures = ["auroc", "average_precision", "log_loss", "brier"]
    ops = ["micro", "macro", "weighted"]
    got = _replicates(pr, measures, ops, boot, by="__af_by0")
    ids = frame.filter(pl.col("__af_by0") == "A", pl.col("n") == 0)["tp"].to_list()
    weights = np.array(reference_weights(ids, seed, 5), dtype=float)
    checked = 0
    for model in ("A", None):
        rows = frame.filter(pl.col("__af_by0").eq_missing(model)).sort("tp", "n")
        y = rows["y true"].to_numpy().reshape(-1, 3)
        s = rows["__af_x"].to_numpy().reshape(-1, 3)
        for b in range(-1, 5):
            w = np.ones(len(ids)) if b == -1 else weights[:, b]
            mine = got.filter(pl.col(REP) == b, pl.col("__af_by0").eq_missing(model))
            for name in measures:
                for op in ops:
                    value = mine.filter(pl.col("measure") == name, pl.col("operator") == op)["value"].item()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        want = _oracle(name, y, s, w, op)
                    assert value == pytest.approx(want, rel=1e-12, abs=1e-12), (model, b, name, op)
                    checked += 1
    assert checked == 2 * 6 * 4 * 3


def test_replicate_of_a_class_without_positives_is_undefined() -> None:
    """A replicate that weighs every positive of a class 0 has no AUROC there (null, not 0 or 0.5)."""
    frame = pl.DataFrame(
        {
            "example": [0, 0, 1, 1, 2, 2],
            "class": [0, 1] * 3,
            "score": [0.9, 0.1, 0.2, 0.8, 0.6, 0.4],
            "y": [1, 0, 0, 1, 0, 1],
        }
    )
    boot = Bootstrap(n_boot=40, seed=1)
    got = _replicates(af.from_scores(frame, decision="argmax"), "auroc", "macro", boot)
    weights = np.array(reference_weights([0, 1, 2], 1, 40))
    for b in range(40):
        w = weights[:, b]
        value = got.filter(pl.col(REP) == b)
        n_undefined = value["n_undefined"].item()
        # class 0: positive example 0; class 1: positives 1 and 2; negatives the others
        undefined = int(w[0] == 0 or w[1] + w[2] == 0) + int(w[1] + w[2] == 0 or w[0] == 0)
        assert n_undefined == undefined, (b, list(w))


def test_f1_and_auroc_share_the_replicates() -> None:
    """One evaluate with a cell measure and a score measure: the same resamples (replicate values of both
    match the weights of one seed), and the point values are the unweighted ones."""
    frame = _scores(80, 3, seed=2)
    pr = af.from_scores(frame, decision="argmax")
    out = pr.evaluate(["f1", "auroc"], "macro", n_boot=30, seed=7)
    plain = pr.evaluate(["f1", "auroc"], "macro")
    assert out["value"].to_list() == pytest.approx(plain["value"].to_list(), rel=1e-14)
    assert (out["ci_low"] <= out["value"]).all()
    assert (out["value"] <= out["ci_high"]).all()
    got = _replicates(pr, ["f1", "auroc"], "macro", Bootstrap(n_boot=30, seed=7))
    f1 = got.filter(pl.col("measure") == "f1", pl.col(REP) >= 0).sort(REP)["value"].to_numpy()
    au = got.filter(pl.col("measure") == "auroc", pl.col(REP) >= 0).sort(REP)["value"].to_numpy()
    # paired resamples: f1 and auroc move together over the replicates (independent ones would not)
    assert np.corrcoef(f1, au)[0, 1] > 0.3


def test_paired_compare_of_scores() -> None:
    """Two identical models: a difference of exactly 0 in every replicate; a better model: excluded zero."""
    frame = _scores(250, 3, seed=5, models=("A", "B"), ties=False)
    twin = frame.filter(pl.col("model") == "A").with_columns(model=pl.lit("A2"))
    pr = af.from_scores(pl.concat([frame, twin]), decision="argmax")
    d = "difference_to_reference"
    out = pr.compare(
        ["auroc", "average_precision", "f1"], "macro", by="model", reference={"model": "B"}, n_boot=40
    )
    a = out.filter(pl.col("model") == "A")
    assert (a[d] > 0).all()  # A's signal is stronger, on every measure
    assert a.filter(pl.col("measure") == "auroc")[f"{d}_excludes_zero"].item()
    assert a.filter(pl.col("measure") == "auroc")[f"{d}_ci_low"].item() > 0
    out_a = pr.compare(
        "auroc", ["micro", "macro", "weighted"], by="model", reference={"model": "A"}, n_boot=20
    )
    same = out_a.filter(pl.col("model") == "A2")
    assert same.height == 3
    assert (same[d] == 0.0).all()
    assert (same[f"{d}_ci_low"] == 0.0).all()
    assert (same[f"{d}_ci_high"] == 0.0).all()
    assert not same[f"{d}_excludes_zero"].any()


def test_eager_lazy_streaming_and_one_null_model() -> None:
    frame = _scores(60, 3, seed=4, models=(None,))
    want = af.from_scores(frame, decision="argmax").evaluate("auroc", "macro", by="model", n_boot=20)
    for data, kw in ((frame.lazy(), {}), (frame.lazy(), {"engine": "streaming"})):
        got = af.from_scores(data, decision="argmax").evaluate("auroc", "macro", by="model", n_boot=20, **kw)
        assert_frame_equal(got, want, rel_tol=1e-12)
    assert want["model"].to_list() == [None]


def test_binary_layout_rows_are_the_units() -> None:
    """One row per example (class_=None): a row's weight is the label form's (its position)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 90)
    s = np.round(np.clip(0.3 * y + rng.random(90) * 0.7, 0, 1), 2)
    frame = pl.DataFrame({"y": y, "score": s})
    got = _replicates(af.from_scores(frame, class_=None), "auroc", "micro", Bootstrap(n_boot=4, seed=2))
    weights = np.array(reference_weights(list(range(90)), 2, 4), dtype=float)
    for b in range(4):
        want = roc_auc_score(y, s, sample_weight=weights[:, b])
        assert got.filter(pl.col(REP) == b)["value"].item() == pytest.approx(want, rel=1e-12)


def test_refused_with_a_reason() -> None:
    frame = _scores(20, 3, seed=0)
    pr = af.from_scores(frame, decision="argmax")
    with pytest.raises(OptionError, match="exemplar"):
        pr.evaluate("auroc", "exemplar", n_boot=5)
    with pytest.raises(OptionError, match="multiclass"):
        pr.evaluate("log_loss", "multiclass", n_boot=5)
    with pytest.raises(OptionError, match="bins"):
        af.from_scores(frame, decision="argmax", bins=10).evaluate("auroc", "macro", n_boot=5)
    with pytest.raises(OptionError, match="cluster"):
        pr.evaluate("auroc", "macro", n_boot=5, cluster="model")


def test_auroc_interval_coverage() -> None:
    """The 90% percentile interval of AUROC covers the true AUROC at about the nominal rate.

    The process: scores of negatives ~ N(0, 1), of positives ~ N(1, 1) (true AUROC
    Phi(1 / sqrt(2)) = 0.7602), 150 examples with P(positive) = 0.4, the binary
    layout; 200 seeded data sets, 100 replicates each. Coverage over 200 data sets
    has a binomial sd of sqrt(0.9 * 0.1 / 200) = 0.021: the test accepts
    [0.84, 0.96] (about -2.8 and +2.8 sd around 0.9). Percentile intervals of an
    AUROC on 150 examples run slightly narrow (about 0.88 in longer runs), which
    this still accepts, while a broken interval (e.g. replicates that ignored
    the weights: zero width, coverage about 0; or an se off by 2x) fails.
    """
    truth = float(norm.cdf(1 / np.sqrt(2)))
    rng = np.random.default_rng(2026)
    reps, n = 200, 150
    frames = []
    for r in range(reps):
        y = (rng.random(n) < 0.4).astype(np.int64)
        frames.append(pl.DataFrame({"rep": r, "y": y, "score": rng.normal(0, 1, n) + y}))
    frame = pl.concat(frames)
    out = af.from_scores(frame, class_=None).evaluate(
        "auroc", "micro", by="rep", n_boot=100, level=0.9, seed=3
    )
    assert out.height == reps
    covered = ((out["ci_low"] <= truth) & (truth <= out["ci_high"])).mean()
    assert covered is not None
    assert 0.84 <= float(covered) <= 0.96, covered


def _engine_frame(engine: str, frame: pl.DataFrame, request: pytest.FixtureRequest) -> Any:
    if engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        return duckdb.connect().from_arrow(frame.to_arrow())
    return request.getfixturevalue("spark").createDataFrame(frame.to_arrow())


def _engine_scores() -> pl.DataFrame:
    """String example ids (hashed by each engine's own functions), a null model, ties."""
    frame = _scores(40, 3, seed=8, models=("A", None))
    return frame.with_columns(("id-" + pl.col("example").cast(pl.String)).alias("example"))


def _engine_eval(data: Any) -> pl.DataFrame:
    pr = af.from_scores(data, example="example", decision="argmax")
    return pr.evaluate(
        ["auroc", "average_precision", "log_loss", "f1"], ["micro", "macro"], by="model", n_boot=15
    )


@pytest.mark.engines
def test_duckdb_agrees() -> None:
    frame = _engine_scores()
    duckdb = pytest.importorskip("duckdb")
    got = _engine_eval(duckdb.connect().from_arrow(frame.to_arrow()))
    assert_frame_equal(got, _engine_eval(frame), rel_tol=1e-12, check_dtypes=False)


@pytest.mark.slow  # a JVM: tens of seconds (CI runs it; the quick loop leaves it out)
@pytest.mark.engines
def test_spark_agrees(request: pytest.FixtureRequest) -> None:
    frame = _engine_scores()
    got = _engine_eval(_engine_frame("spark", frame, request))
    assert_frame_equal(got, _engine_eval(frame), rel_tol=1e-12, check_dtypes=False)


def test_a_source_broken_after_construction_is_a_source_error(tmp_path: Path) -> None:
    path = tmp_path / "scores.parquet"
    _scores(30, 3, seed=1).write_parquet(path)
    pr = af.from_scores(pl.scan_parquet(path), example="example", decision="argmax")
    path.unlink()
    with pytest.raises(SourceError):
        pr.evaluate("auroc", "macro", n_boot=5)


@settings(max_examples=10, deadline=None)
@given(
    n=st.integers(2, 25),
    m=st.integers(2, 4),
    digits=st.integers(0, 2),
    seed=st.integers(0, 2**16),
)
def test_any_replicate_is_sklearn(n: int, m: int, digits: int, seed: int) -> None:
    """Property: on any small frame (heavy ties at 0 digits), replicates 0-2 of AUROC and AP (micro and
    per class, through macro) are scikit-learn's with the weights; undefined where it has no value."""
    rng = np.random.default_rng(seed)
    y = np.eye(m, dtype=np.int64)[rng.integers(0, m, n)]
    s = np.round(rng.random((n, m)), digits)
    frame = pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), m),
            "class": np.tile(np.arange(m), n),
            "score": s.ravel(),
            "y": y.ravel(),
        }
    )
    got = _replicates(
        af.from_scores(frame, decision="argmax"),
        ["auroc", "average_precision"],
        ["micro", "macro"],
        Bootstrap(3, seed=seed),
    )
    weights = np.array(reference_weights(list(range(n)), seed, 3), dtype=float)
    for b in range(3):
        w = weights[:, b]
        rows = got.filter(pl.col(REP) == b)
        for name, fn in (("auroc", roc_auc_score), ("average_precision", average_precision_score)):
            micro = rows.filter(pl.col("measure") == name, pl.col("operator") == "micro")["value"].item()
            yy, ss, ww = y.ravel(), s.ravel(), np.repeat(w, m)
            pos, neg = (ww * yy).sum(), (ww * (1 - yy)).sum()
            if pos == 0 or (name == "auroc" and neg == 0):
                assert micro is None or np.isnan(micro)
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert micro == pytest.approx(fn(yy, ss, sample_weight=ww), rel=1e-12, abs=1e-12)
            values = []
            for c in range(m):
                p, q = (w * y[:, c]).sum(), (w * (1 - y[:, c])).sum()
                if p > 0 and (name != "auroc" or q > 0):
                    values.append(fn(y[:, c], s[:, c], sample_weight=w))
            macro = rows.filter(pl.col("measure") == name, pl.col("operator") == "macro")["value"].item()
            if values:
                assert macro == pytest.approx(np.mean(values), rel=1e-12, abs=1e-12)
