"""``af.estimate`` against NannyML's CBPE (``nannyml==0.13.1``, the ``oracle`` extra), live, per chunk.

CBPE and ``af.estimate`` compute the same thing where their methods meet: a calibration map
fitted on the labelled reference (isotonic, one-vs-rest, renormalised for multiclass), the
expected confusion cells of each chunk as sums of calibrated probabilities, F1, precision and
recall as ratios of those expected cells (not expectations of ratios), and AUROC as the area
under the expected ROC curve. The data are built so that the two calibration maps are the same
map: scores recorded at the centres of aggframe's 1/1000 score bins, so that scikit-learn's
isotonic fit on the raw scores (equal scores pooled) and aggframe's fit on the bins pool the
same entries. Agreement is then to rounding (``EXACT``). Where the methods differ (CBPE
skipping calibration for scores it judges calibrated, binning of continuous scores), the
differences are documented in ``docs/estimation.md`` ("Differences from NannyML's CBPE") and
their sizes pinned here. ``benchmarks/bench_estimate_nannyml.py`` times the two.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np
import polars as pl
import pytest

import aggframe as af

if sys.version_info >= (3, 13):  # pragma: no cover - the oracle extra is marked python_version < '3.13'
    pytest.skip("nannyml 0.13.1 supports Python < 3.13 only", allow_module_level=True)

#: The same map and the same sums: only the order of floating-point additions differs.
EXACT = 1e-12
#: CBPE's ``estimate_roc_auc`` rounds its cumulative expected counts to 5 decimals: the rates are
#: off by at most 1e-5 / (expected positives or negatives) (hundreds here), the area by less than 1e-6.
AUROC_ROUNDING = 1e-6
#: The chunk column of ``af.estimate``: a name that collides with nothing but still needs quoting.
CHUNK = 'n "chunk" é'
MEASURES = ("f1", "precision", "recall")


def _import_nannyml() -> ModuleType:
    """Import nannyml without side effects on this process (telemetry, a Spark session, env, warnings).

    - ``NML_DISABLE_USAGE_LOGGING``: nannyml sends usage events to Segment unless it is set.
    - FLAML (imported by nannyml for its domain classifier, not used by CBPE) asks pyspark.pandas
      for an option at import, which starts a local Spark session whenever pyspark is importable
      (a JVM, ~10 s, on the host's address unless ``SPARK_LOCAL_IP`` says otherwise); pyspark is
      hidden during the import.
    - FLAML also sets ``PYARROW_IGNORE_TIMEZONE``: the environment is restored afterwards.
    """
    os.environ["NML_DISABLE_USAGE_LOGGING"] = "1"
    environ = dict(os.environ)
    hidden = {k: v for k, v in sys.modules.items() if k == "pyspark" or k.startswith("pyspark.")}
    names = {*hidden, "pyspark"}
    for name in names:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import nannyml
    finally:
        for name in names:
            del sys.modules[name]
        sys.modules.update(hidden)
        for key in set(os.environ) - set(environ):
            del os.environ[key]
        os.environ.update(environ)
    return nannyml


@pytest.fixture(scope="module")
def nml() -> Iterator[Any]:
    """nannyml, with a recorder in place of its usage logger (any event recorded fails a test)."""
    module = _import_nannyml()
    assert module.__version__ == "0.13.1"
    from nannyml import usage_logging

    events: list[Any] = []
    logger = usage_logging.DEFAULT_USAGE_LOGGER
    logger._log = lambda event, metadata: events.append(event)  # type: ignore[method-assign]
    module.recorded_usage_events = events
    yield module
    del logger._log


def _cbpe(nml: Any, reference: Any, analysis: Any, **options: Any) -> tuple[Any, pl.DataFrame]:
    """Fit CBPE on the reference, estimate the analysis: (the estimator, one row per chunk and metric)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas and scikit-learn deprecations inside nannyml
        cbpe = nml.CBPE(**options)
        cbpe.fit(reference)
        res = cbpe.estimate(analysis).filter(period="analysis").to_df()
    rows = []
    for metric in options["metrics"]:
        for i in range(len(res)):
            rows.append(
                {
                    "chunk": str(res[("chunk", "key")].iloc[i]),
                    "chunk_index": int(res[("chunk", "chunk_index")].iloc[i]),
                    "measure": "auroc" if metric == "roc_auc" else metric,
                    "cbpe": float(res[(metric, "value")].iloc[i]),
                    "cbpe_realized": float(res[(metric, "realized")].iloc[i]),
                }
            )
    return cbpe, pl.DataFrame(rows)


def _on_grid(s: np.ndarray) -> np.ndarray:
    """Scores at the centres of aggframe's 1/1000 calibration bins (one score per bin)."""
    return (np.floor(s * 1000) + 0.5) / 1000


def _binary(seed: int, n: int, power: float) -> pl.DataFrame:
    """Binary scores on the grid, truth ~ Bernoulli(score ** power): miscalibrated unless power == 1."""
    rng = np.random.default_rng(seed)
    s = _on_grid(rng.uniform(size=n))
    y = (rng.uniform(size=n) < s**power).astype(np.int64)
    return pl.DataFrame({"score": s, "y": y, "y_pred": (s > 0.5).astype(np.int64)})


def _analysis(frame: pl.DataFrame, chunk_size: int) -> pl.DataFrame:
    """Chunks of ``chunk_size`` rows (the first one a null key), a third of the rows labelled."""
    index = pl.int_range(pl.len())
    chunk = index // chunk_size
    return frame.with_columns(
        pl.when(chunk > 0).then(chunk).alias(CHUNK), (index % 3 == 0).alias("labelled"), chunk.alias("idx")
    )


def _cbpe_binary_frames(reference: pl.DataFrame, analysis: pl.DataFrame) -> tuple[Any, Any]:
    """pandas frames for CBPE: the analysis' truth is NaN where it is not labelled."""
    ana = analysis.select(
        "score", "y_pred", pl.when(pl.col("labelled")).then(pl.col("y").cast(pl.Float64)).alias("y")
    ).with_columns(pl.col("y").fill_null(float("nan")))
    return reference.to_pandas(), ana.to_pandas()


def _af_binary(
    reference: pl.DataFrame, analysis: pl.DataFrame, measures: Any, **options: Any
) -> pl.DataFrame:
    ref = af.from_scores(reference.drop("y_pred"), class_=None)
    data = af.from_scores(analysis.drop("y_pred", "idx"), class_=None)
    out = af.estimate(ref, data, measures, "binary", by=CHUNK, **options)
    index = analysis.group_by(CHUNK).agg(pl.col("idx").first().alias("chunk_index"))
    return out.join(index, on=CHUNK, how="left", nulls_equal=True)


def _compared(af_out: pl.DataFrame, cbpe: pl.DataFrame, kind: str = "estimated") -> pl.DataFrame:
    joined = af_out.filter(pl.col("kind") == kind).join(cbpe, on=["chunk_index", "measure"], how="inner")
    assert joined.height == af_out.filter(pl.col("kind") == kind).height  # every chunk has its CBPE value
    theirs = pl.col("cbpe_realized" if kind == "realized" else "cbpe")
    # CBPE logs a failing metric and returns NaN: a NaN on either side fails here
    assert joined.select(pl.col("value").is_finite().all() & theirs.is_finite().all()).item(), joined
    return joined.with_columns((pl.col("value") - theirs).abs().alias("diff"))


@pytest.fixture(scope="module")
def miscalibrated(nml: Any) -> tuple[pl.DataFrame, pl.DataFrame, Any, pl.DataFrame]:
    """Scores whose truth is Bernoulli(score ** 3): CBPE calibrates (its own test says so)."""
    reference = _binary(1, 5000, 3.0)
    analysis = _analysis(_binary(2, 4000, 3.0), 1000)
    ref_pd, ana_pd = _cbpe_binary_frames(reference, analysis)
    cbpe, res = _cbpe(
        nml,
        ref_pd,
        ana_pd,
        problem_type="classification_binary",
        y_pred_proba="score",
        y_pred="y_pred",
        y_true="y",
        metrics=["roc_auc", "f1", "precision", "recall"],
        chunk_size=1000,
    )
    return reference, analysis, cbpe, res


def test_binary_f1_precision_recall_agree_with_cbpe(
    miscalibrated: tuple[pl.DataFrame, pl.DataFrame, Any, pl.DataFrame],
) -> None:
    reference, analysis, cbpe, res = miscalibrated
    assert cbpe.needs_calibration  # otherwise CBPE reads the raw scores (compared in the next tests)
    out = _af_binary(reference, analysis, list(MEASURES), labelled="labelled")
    cmp = _compared(out, res)
    assert cmp.height == 4 * len(MEASURES)
    assert cmp["diff"].max() < EXACT, cmp
    # the calibration matters: read as they are, the scores give other estimates
    raw = _compared(_af_binary(reference, analysis, list(MEASURES), calibration="none"), res)
    assert raw["diff"].max() > 0.1
    # the realized values of the labelled third: CBPE drops the NaN truth, aggframe reads `labelled`
    realized = _compared(out, res, "realized")
    assert realized.height == 4 * len(MEASURES)
    assert realized["diff"].max() < EXACT, realized


def test_binary_auroc_agrees_with_cbpe(
    miscalibrated: tuple[pl.DataFrame, pl.DataFrame, Any, pl.DataFrame],
) -> None:
    # CBPE's expected ROC: rows in descending raw score, cumulative sums of the calibrated
    # probabilities; aggframe's: the same sums per score bin. One score per bin and one
    # calibrated value per score: the same curve.
    reference, analysis, _, res = miscalibrated
    out = _af_binary(reference, analysis, "auroc")
    cmp = _compared(out, res)
    assert cmp.height == 4
    assert cmp["cbpe"].is_between(0.5, 1.0).all()
    assert cmp["diff"].max() < AUROC_ROUNDING, cmp


def test_cbpe_skips_calibration_of_calibrated_scores(nml: Any) -> None:
    # truth ~ Bernoulli(score): CBPE's check (10 shuffled splits, ECE before and after an isotonic
    # fit) finds no gain on this reference and reads the raw scores; aggframe always calibrates
    reference = _binary(14, 5000, 1.0)
    analysis = _analysis(_binary(15, 4000, 1.0), 1000)
    ref_pd, ana_pd = _cbpe_binary_frames(reference, analysis)
    cbpe, res = _cbpe(
        nml,
        ref_pd,
        ana_pd,
        problem_type="classification_binary",
        y_pred_proba="score",
        y_pred="y_pred",
        y_true="y",
        metrics=list(MEASURES),
        chunk_size=1000,
    )
    assert not cbpe.needs_calibration
    raw = _compared(_af_binary(reference, analysis, list(MEASURES), calibration="none"), res)
    assert raw["diff"].max() < EXACT, raw
    # the documented difference: aggframe's isotonic map moves the estimates by up to about 1e-2
    iso = _compared(_af_binary(reference, analysis, list(MEASURES)), res)
    assert 1e-3 < iso["diff"].max() < 0.05, iso


def test_continuous_scores_differ_by_the_binning_of_the_map(nml: Any) -> None:
    # off the grid, scikit-learn's isotonic map (linear between its fitted points) and
    # aggframe's (one value per 1/1000 bin) differ a little: the documented size, below 1e-3
    rng = np.random.default_rng(7)
    s = rng.uniform(size=9000)
    frame = pl.DataFrame(
        {
            "score": s,
            "y": (rng.uniform(size=9000) < s**3).astype(np.int64),
            "y_pred": (s > 0.5).astype(np.int64),
        }
    )
    reference, analysis = frame.head(5000), _analysis(frame.tail(4000), 1000)
    ref_pd, ana_pd = _cbpe_binary_frames(reference, analysis)
    cbpe, res = _cbpe(
        nml,
        ref_pd,
        ana_pd,
        problem_type="classification_binary",
        y_pred_proba="score",
        y_pred="y_pred",
        y_true="y",
        metrics=list(MEASURES),
        chunk_size=1000,
    )
    assert cbpe.needs_calibration
    cmp = _compared(_af_binary(reference, analysis, list(MEASURES)), res)
    assert cmp.height == 4 * len(MEASURES)
    assert 1e-6 < cmp["diff"].max() < 1e-3, cmp


K = 3


def _multiclass(seed: int, n: int, temperature: float, start: str, *, grid: bool) -> pl.DataFrame:
    """Wide scores softmax(temperature * logits), truth ~ softmax(logits), rows over days."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, K)) * 1.5 + np.array([0.5, 0.0, -0.3])
    truth_p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    scaled = np.exp(logits * temperature)
    s = scaled / scaled.sum(axis=1, keepdims=True)
    if grid:
        s = _on_grid(s)  # no longer sums to one: the long layout reads it
    y = (rng.uniform(size=n)[:, None] > truth_p.cumsum(axis=1)).sum(axis=1)
    seconds = np.sort(rng.integers(0, 4 * 86_400, size=n))  # four days from `start`
    frame = pl.DataFrame({f"p_{c}": s[:, c] for c in range(K)}).with_columns(
        y=pl.Series(y),
        y_pred=pl.Series(s.argmax(axis=1)),
        ts=pl.Series(np.datetime64(start, "us") + seconds.astype("m8[s]")),
    )
    ties = (s == s.max(axis=1, keepdims=True)).sum(axis=1) > 1  # argmax ties: no reading to compare
    return frame.filter(pl.Series(~ties)).with_columns(pl.col("ts").dt.date().alias(CHUNK))


def _long(frame: pl.DataFrame) -> pl.DataFrame:
    return (
        frame.with_row_index("example")
        .unpivot(
            index=["example", "y", CHUNK],
            on=[f"p_{c}" for c in range(K)],
            variable_name="class",
            value_name="score",
        )
        .with_columns(pl.col("class").str.slice(2).cast(pl.Int64))
        .with_columns(y=(pl.col("y") == pl.col("class")).cast(pl.Int64))
    )


def _cbpe_multiclass(nml: Any, reference: pl.DataFrame, analysis: pl.DataFrame, **options: Any) -> Any:
    return _cbpe(
        nml,
        reference.drop(CHUNK).to_pandas(),
        analysis.drop(CHUNK, "y").to_pandas(),
        problem_type="classification_multiclass",
        y_pred_proba={c: f"p_{c}" for c in range(K)},
        y_pred="y_pred",
        y_true="y",
        timestamp_column_name="ts",
        chunk_period="D",
        **options,
    )


def _by_day(af_out: pl.DataFrame, cbpe: pl.DataFrame) -> pl.DataFrame:
    af_out = af_out.filter(pl.col("kind") == "estimated")
    joined = af_out.with_columns(pl.col(CHUNK).cast(pl.String).alias("chunk")).join(
        cbpe, on=["chunk", "measure"], how="inner"
    )
    assert joined.height == af_out.height
    assert joined.select(pl.col("value", "cbpe").is_finite().all()).to_numpy().all(), joined
    return joined.with_columns((pl.col("value") - pl.col("cbpe")).abs().alias("diff"))


def test_multiclass_macro_f1_precision_recall_agree_with_cbpe(nml: Any) -> None:
    # overconfident scores (temperature 2): CBPE calibrates every class one-vs-rest, then
    # divides by the row's sum, as aggframe does with the argmax decision
    reference = _multiclass(3, 6000, 2.0, "2026-01-01", grid=True)
    analysis = _multiclass(4, 4000, 2.0, "2026-02-01", grid=True)
    cbpe, res = _cbpe_multiclass(nml, reference, analysis, metrics=list(MEASURES))
    assert {type(c).__name__ for c in cbpe._calibrators.values()} == {"IsotonicCalibrator"}
    ref = af.from_scores(_long(reference), decision="argmax")
    data = af.from_scores(_long(analysis), decision="argmax")
    out = af.estimate(ref, data, list(MEASURES), "macro", by=CHUNK)
    cmp = _by_day(out, res)
    assert cmp.height == 4 * len(MEASURES)
    assert cmp["diff"].max() < EXACT, cmp


#: Multiclass AUROC from raw softmax scores: CBPE takes every row as a threshold, aggframe every
#: score bin; within a bin the probabilities differ by at most 1/1000, so the curves differ by
#: the chords within bins (measured: below 1e-6 at these sizes).
MULTICLASS_AUROC = 1e-5


def test_multiclass_macro_auroc_agrees_with_cbpe(nml: Any) -> None:
    # softmax scores read as they are on both sides (CBPE with its no-op calibrator): the macro
    # AUROC is the mean over classes of the one-vs-rest expected AUROC, on both sides
    from nannyml.calibration import NoopCalibrator

    reference = _multiclass(5, 3000, 1.0, "2026-01-01", grid=False)
    analysis = _multiclass(6, 3000, 1.0, "2026-02-01", grid=False)
    _, res = _cbpe_multiclass(
        nml, reference, analysis, metrics=["roc_auc", *MEASURES], calibrator=NoopCalibrator()
    )
    read = {"y_true": "y", "scores": [f"p_{c}" for c in range(K)], "decision": "argmax"}
    ref = af.from_scores(reference, **read)
    data = af.from_scores(analysis, **read)
    cells = _by_day(af.estimate(ref, data, list(MEASURES), "macro", by=CHUNK, calibration="none"), res)
    assert cells["diff"].max() < EXACT, cells
    out = af.estimate(ref, data, "auroc", "macro", by=CHUNK, calibration="none")
    cmp = _by_day(out, res)
    assert cmp.height == 4
    assert cmp["diff"].max() < MULTICLASS_AUROC, cmp


def test_nannyml_ran_without_telemetry_or_spark(
    nml: Any, miscalibrated: tuple[pl.DataFrame, pl.DataFrame, Any, pl.DataFrame]
) -> None:
    # CBPE's fit and estimate are decorated to send usage events; the variable turns them off
    assert miscalibrated[3].height > 0
    assert nml.recorded_usage_events == []
    # FLAML saw no pyspark at import, so it started no Spark session
    flaml_spark = sys.modules["flaml.automl.spark"]
    assert flaml_spark.ERROR is not None
    assert flaml_spark.spark is None
