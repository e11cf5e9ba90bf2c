"""The interval of ``af.estimate`` for the ``exemplar`` operator: seeded coverage, bias, engines, names.

As in ``test_estimate_coverage.py``, the truth is drawn from known calibrated
probabilities (the scores, read with ``calibration="none"``), ``RUNS`` independent
data sets are the groups of one ``by="run"`` call, the share of groups whose realized
value falls in the 95% interval must lie within three binomial standard deviations of
0.95, and the mean error of the estimate within three standard errors of 0. An
interval half as wide covers about 68% of the groups here and fails
(``test_a_half_wide_interval_fails_the_band``).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.decisions.estimate_cells import entries
from aggframe.decisions.estimate_exemplar import EXACT_CLASSES, exemplar_tables
from aggframe.decisions.estimate_report import ESTIMATED, KIND, REALIZED
from tests.decisions.estimate_data import binary_runs, multiclass_runs, multilabel_runs

RUNS = 400
LEVEL = 0.95


MULTICLASS = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}


def _estimate(data: af.Predictions, measures: list[str], draws: int = 200, **kw: object) -> pl.DataFrame:
    return af.estimate(
        data, data, measures, "exemplar", by="run", calibration="none", n_draws=draws, level=LEVEL, **kw
    )


def _coverage(out: pl.DataFrame, measure: str, *, shrink: float = 1.0) -> tuple[float, float, float]:
    """The share of groups covered (the interval scaled about its middle by ``shrink``), mean error, its SE."""
    rows = out.filter(pl.col("measure") == measure)
    est = rows.filter(pl.col("kind") == "estimated").sort("run")
    real = rows.filter(pl.col("kind") == "realized").sort("run")
    assert est.height == real.height == RUNS
    lo, hi = est["ci_low"].to_numpy(), est["ci_high"].to_numpy()
    mid, half = (lo + hi) / 2.0, (hi - lo) / 2.0 * shrink
    value = real["value"].to_numpy()
    inside = (mid - half <= value) & (value <= mid + half)
    err = est["value"].to_numpy() - value
    return float(inside.mean()), float(err.mean()), float(err.std(ddof=1) / math.sqrt(RUNS))


def _check(out: pl.DataFrame, measure: str, *, bias: bool = True) -> None:
    covered, mean_err, se = _coverage(out, measure)
    sd = math.sqrt(LEVEL * (1 - LEVEL) / RUNS)
    assert abs(covered - LEVEL) < 3 * sd, (measure, covered)
    if bias:
        assert abs(mean_err) < 3 * se, (measure, mean_err, se)


def test_binary_exemplar_is_unbiased_and_covers() -> None:
    data = af.from_scores(binary_runs(np.random.default_rng(11), 150, RUNS), class_=None)
    out = _estimate(data, ["f1", "precision", "recall"])
    band = 3 * math.sqrt(LEVEL * (1 - LEVEL) / RUNS)
    for m in ("f1", "precision", "recall"):
        _check(out, m)
        # the band can fail: an interval half as wide covers far too few groups
        assert _coverage(out, m, shrink=0.5)[0] < LEVEL - band


def test_multiclass_exemplar_is_unbiased_and_covers() -> None:
    frame = multiclass_runs(np.random.default_rng(12), 100, RUNS)
    out = _estimate(af.from_scores(frame, **MULTICLASS), ["f1"])  # type: ignore[arg-type]
    _check(out, "f1")
    # top-2: a hit is (1, 1, 0, 1), a miss (0, 2, 1, 0): f1 and jaccard differ
    top2 = af.from_scores(frame, **{**MULTICLASS, "decision": "top_k", "k": 2})  # type: ignore[arg-type]
    out = _estimate(top2, ["f1", "jaccard"])
    for m in ("f1", "jaccard"):
        _check(out, m)


def test_multilabel_exemplar_is_unbiased_and_covers() -> None:
    data = af.from_scores(multilabel_runs(np.random.default_rng(13), 60, RUNS))
    out = _estimate(data, ["f1", "recall"], draws=200)
    for m in ("f1", "recall"):
        _check(out, m)


# -- the estimate is the measure of the expected profile counts, exactly --------------------------


def _measure(name: str, tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """precision, recall, f1, jaccard of profiles (NaN where undefined)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        num = {"precision": tp, "recall": tp, "f1": 2 * tp, "jaccard": tp}[name]
        den = {"precision": tp + fp, "recall": tp + fn, "f1": 2 * tp + fp + fn, "jaccard": tp + fp + fn}[name]
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _expected_exemplar(profiles: list[tuple[float, tuple[int, int, int]]], name: str) -> float:
    """sum_p mu_p M_p / sum_p mu_p over the defined profiles (the exclude convention)."""
    w = np.array([p for p, _ in profiles])
    tp, fp, fn = (np.array([c[i] for _, c in profiles], dtype=float) for i in range(3))
    v = _measure(name, tp, fp, fn)
    ok = ~np.isnan(v)
    return float((w[ok] * v[ok]).sum() / w[ok].sum())


def _assert_estimated_exemplar(
    data: af.Predictions, profiles: list[tuple[float, tuple[int, int, int]]]
) -> None:
    """``estimate``'s exemplar of four measures equals the expectation over the enumerated profiles."""
    measures = ["precision", "recall", "f1", "jaccard"]
    out = af.estimate(data, data, measures, "exemplar", calibration="none")
    for m in measures:
        got = out.filter(pl.col("kind") == "estimated", pl.col("measure") == m)["value"].item()
        assert got == pytest.approx(_expected_exemplar(profiles, m), abs=1e-9), m


def test_multilabel_estimate_is_the_expected_profile_counts_by_enumeration() -> None:
    rng = np.random.default_rng(5)
    n, c = 40, 4
    q = rng.uniform(size=(n, c))
    q[0] = [0.0, 1.0, 0.25, 0.75]  # certain entries
    frame = pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), c),
            "class": np.tile(np.arange(c), n),
            "score": q.ravel(),
            "y": np.zeros(n * c, dtype=np.int64),
        }
    )
    data = af.from_scores(frame)  # the decision: score >= 0.5
    d = q >= 0.5
    profiles = []
    for i in range(n):  # every truth of every example, with its probability
        for bits in range(2**c):
            y = np.array([(bits >> j) & 1 for j in range(c)], dtype=bool)
            p = float(np.prod(np.where(y, q[i], 1 - q[i])))
            profiles.append((p, (int((y & d[i]).sum()), int((~y & d[i]).sum()), int((y & ~d[i]).sum()))))
    _assert_estimated_exemplar(data, profiles)


def test_single_label_estimate_is_the_expected_profile_counts_by_enumeration() -> None:
    rng = np.random.default_rng(6)
    n = 50
    p = rng.dirichlet([1.0, 1.0, 1.0, 1.0], size=n)
    frame = pl.DataFrame({"y_true": np.zeros(n, dtype=np.int64), **{f"p_{j}": p[:, j] for j in range(4)}})
    read = {"y_true": "y_true", "scores": [f"p_{j}" for j in range(4)], "decision": "top_k", "k": 2}
    data = af.from_scores(frame, **read)  # type: ignore[arg-type]
    top = np.argsort(-p, axis=1)[:, :2]
    profiles = []
    for i in range(n):  # the one true class of each example, with its probability
        for true in range(4):
            hit = int(true in top[i])
            profiles.append((float(p[i, true]), (hit, 2 - hit, 1 - hit)))
    _assert_estimated_exemplar(data, profiles)


def test_many_classes_fall_back_to_the_examples_expected_cells_and_still_draw() -> None:
    rng = np.random.default_rng(14)
    n, c = 30, EXACT_CLASSES + 1
    q = rng.uniform(size=(n, c))
    frame = pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), c),
            "class": np.tile(np.arange(c), n),
            "score": q.ravel(),
            "y": (rng.uniform(size=n * c) < q.ravel()).astype(np.int64),
        }
    )
    data = af.from_scores(frame)
    out = af.estimate(data, data, "precision", "exemplar", calibration="none", n_draws=20)
    est = out.filter(pl.col("kind") == "estimated").row(0, named=True)
    d = q >= 0.5
    with np.errstate(invalid="ignore"):
        soft = (q * d).sum(axis=1) / d.sum(axis=1)  # each example's expected cells
    assert est["value"] == pytest.approx(np.nanmean(soft), abs=1e-9)
    assert est["ci_low"] <= est["ci_high"]
    real = out.filter(pl.col("kind") == "realized")["value"].item()
    assert real == pytest.approx(data.compute("precision", "exemplar"))


# -- seeds, engines, names ---------------------------------------------------------------------


def _small_multilabel(example: str = "example", by: str = "g") -> pl.DataFrame:
    frame = multilabel_runs(np.random.default_rng(7), 40, 3).rename({"example": example})
    keys = pl.Series(by, ["a", None, "b"]).gather(pl.Series(np.arange(frame.height) // 3 % 3))
    return frame.with_columns(keys).with_columns(
        pl.when(pl.col(example) % 4 == 0).then(pl.col("y")).alias("y")  # some examples labelled
    )


def _none_map(frame: pl.DataFrame, **read: object) -> af.CalibrationMap:
    """A map that reads the scores as they are (the reference only has to be labelled)."""
    labelled = frame.with_columns(pl.col(read.get("y_true", "y")).fill_null(0))  # type: ignore[arg-type]
    return af.fit_calibration(af.from_scores(labelled, **read), calibration="none")  # type: ignore[arg-type]


def test_the_draws_are_seeded() -> None:
    frame = _small_multilabel()
    data = af.from_scores(frame)
    runs = [
        af.estimate(
            _none_map(frame), data, "f1", "exemplar", by="g", n_draws=30, seed=seed, calibration="none"
        )
        for seed in (1, 1, 2)
    ]
    assert_frame_equal(runs[0], runs[1])
    assert not runs[0]["ci_low"].equals(runs[2]["ci_low"])


@pytest.mark.parametrize("form", ["binary", "single", "multilabel"])
def test_eager_lazy_streaming_null_keys_and_hostile_names_agree(form: str) -> None:
    """A null key is a group; names like the module's own private columns; every Polars engine alike."""
    by = "_k"  # a private column name of the per-example tables
    if form == "multilabel":
        frame, read = _small_multilabel(example="__af_est_h", by=by), {"example": "__af_est_h"}
    elif form == "single":
        rng = np.random.default_rng(8)
        p = rng.dirichlet([1.0, 1.0, 1.0], size=120)
        frame = pl.DataFrame(
            {"y_true": rng.integers(0, 3, size=120), "p_0": p[:, 0], "p_1": p[:, 1], "p_2": p[:, 2]}
        )
        frame = frame.with_columns(pl.Series(by, ["x", None] * 60))
        read = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
    else:
        frame = binary_runs(np.random.default_rng(9), 60, 2).with_columns(
            pl.Series(by, [None, "tp"] * 60), pl.Series("n", np.arange(120))
        )
        read = {"class_": None}
    cmap = _none_map(frame, **read)
    outs = [
        af.estimate(
            cmap,
            af.from_scores(src, **read),  # type: ignore[arg-type]
            ["f1", "precision"],
            ["exemplar", "micro"],
            by=by,
            n_draws=20,
            seed=4,
            calibration="none",
            engine=engine,
        )
        for src, engine in ((frame, "in-memory"), (frame.lazy(), "in-memory"), (frame.lazy(), "streaming"))
    ]
    assert outs[0][by].null_count() > 0  # the null group is reported
    exemplar = outs[0].filter(pl.col("operator") == "exemplar", pl.col("kind") == "estimated")
    assert exemplar["ci_low"].null_count() == 0
    assert (exemplar["ci_low"] <= exemplar["ci_high"]).all()
    for other in outs[1:]:
        assert_frame_equal(outs[0], other, abs_tol=1e-12)


@pytest.mark.engines
def test_duckdb_exemplar_equals_polars_and_draws_multilabel_truth() -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    frame = _small_multilabel()
    ml, cmap = af.from_scores(frame), _none_map(frame)
    rel = af.from_scores(con.from_arrow(frame.to_arrow()))
    # the exact multilabel estimate runs on the engine too
    assert_frame_equal(
        af.estimate(cmap, ml, ["f1", "recall"], "exemplar", by="g"),
        af.estimate(cmap, rel, ["f1", "recall"], "exemplar", by="g"),
        abs_tol=1e-9,
        check_dtypes=False,
    )
    # multilabel draws run on the engine with its own hash: other draws, the same distribution
    # (test_estimate_exemplar_engines.py); the null group gets its interval too
    drawn = af.estimate(cmap, rel, "f1", "exemplar", by="g", n_draws=10).filter(pl.col("kind") == "estimated")
    assert drawn["g"].null_count() > 0
    assert drawn["ci_low"].null_count() == 0
    assert (drawn["ci_low"] <= drawn["ci_high"]).all()
    # binary and single-label draws are made from small tables: the same on DuckDB
    mc = multiclass_runs(np.random.default_rng(10), 30, 4).with_columns(
        pl.when(pl.col("run") == 0).then(None).otherwise(pl.col("run")).alias("run")
    )
    for src, read in ((binary_runs(np.random.default_rng(3), 50, 3), {"class_": None}), (mc, MULTICLASS)):
        got = [
            af.estimate(
                af.from_scores(src, **read),  # type: ignore[arg-type]
                af.from_scores(s, **read),  # type: ignore[arg-type]
                ["f1", "jaccard"],
                "exemplar",
                by="run",
                n_draws=15,
                seed=2,
                calibration="none",
            )
            for s in (src, con.from_arrow(src.to_arrow()))
        ]
        assert got[0]["ci_low"].null_count() < got[0].height
        assert_frame_equal(got[0], got[1], abs_tol=1e-9, check_dtypes=False)


@pytest.mark.slow
@pytest.mark.engines
def test_spark_multilabel_exemplar_equals_polars(spark: object) -> None:
    """The exact multilabel profiles as one Spark query (the rest of estimate's Spark path is tested elsewhere)."""
    frame = _small_multilabel()
    sdf = spark.createDataFrame(frame.to_pandas())  # type: ignore[attr-defined]
    cmap = _none_map(frame)

    def profiles(src: object) -> pl.DataFrame:
        source = af.from_scores(src).source  # type: ignore[arg-type]
        ent = entries(source, ["g"], None)
        got = exemplar_tables(ent, cmap, source.origin, n_classes=3, n_draws=0, seed=0, engine="auto")
        assert isinstance(got, pl.DataFrame)
        return got.sort(pl.all(), nulls_last=True)

    polars_profiles = profiles(frame)
    assert set(polars_profiles[KIND]) == {ESTIMATED, REALIZED}
    assert_frame_equal(polars_profiles, profiles(sdf), abs_tol=1e-9, check_dtypes=False)
    # the draws on Spark (xxhash64: other draws than Polars'): every example once per draw, with
    # its own predicted classes k and entries C; only its drawn tp and fn differ
    source = af.from_scores(sdf).source  # type: ignore[arg-type]
    got = exemplar_tables(
        entries(source, ["g"], None), cmap, source.origin, n_classes=3, n_draws=8, seed=1, engine="auto"
    )
    assert isinstance(got, pl.DataFrame)
    drawn = got.filter(pl.col(KIND) >= 0)
    assert sorted(set(drawn[KIND])) == list(range(8))
    marginal = [
        polars_profiles.columns[0],  # the group's key (private name)
        KIND,
        (pl.col("tp") + pl.col("fp")).alias("k"),
        pl.sum_horizontal("tp", "fp", "fn", "tn").alias("c"),
    ]
    per_draw = drawn.group_by(marginal).agg(pl.col("n").sum()).sort(pl.all(), nulls_last=True)
    one = (
        polars_profiles.filter(pl.col(KIND) == ESTIMATED)
        .group_by(marginal[0], *marginal[2:])
        .agg(pl.col("n").sum())
    )
    want = pl.concat([one.with_columns(pl.lit(j, pl.Int64).alias(KIND)) for j in range(8)]).select(
        per_draw.columns
    )
    assert_frame_equal(per_draw, want.sort(pl.all(), nulls_last=True), abs_tol=1e-9, check_dtypes=False)
    assert drawn.select(pl.col("tp", "fp", "fn", "tn").min()).row(0) >= (0.0, 0.0, 0.0, 0.0)
