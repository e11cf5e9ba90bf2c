"""``af.estimate`` against NannyML's CBPE (``nannyml==0.13.1``, the ``oracle`` extra) on the same rows.

Run from the repository root: ``python benchmarks/bench_estimate_nannyml.py [n_rows] [n_chunks]``
(default 1,000,000 rows in 10 chunks). Binary scores, truth ~ Bernoulli(score ** 3) (CBPE
calibrates), a reference of 20,000 labelled rows; F1, precision, recall and (when ``estimate``
has it) AUROC per chunk. Timed: fit and estimate together (``CBPE.fit`` + ``CBPE.estimate``
against ``af.estimate(reference, data)``, which fits its map on every call), estimate alone
(a fitted ``CBPE`` against ``af.estimate(fit_calibration(reference), data)``), and a bare Polars
pass (the thresholded cells per chunk, no calibration). Also the largest difference between the
two estimates (the scores are continuous, so the calibration maps differ slightly: see
"Differences from NannyML's CBPE" in docs/estimation.md). Timings are on a shared machine:
the ratios are what count.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).parent))
from _timing import best

import aggframe as af
from aggframe.exceptions import OptionError


def import_nannyml() -> ModuleType:
    """nannyml without telemetry and without the Spark session FLAML starts at import when pyspark is importable."""
    os.environ["NML_DISABLE_USAGE_LOGGING"] = "1"
    environ = dict(os.environ)
    hidden = {k: v for k, v in sys.modules.items() if k == "pyspark" or k.startswith("pyspark.")}
    names = {*hidden, "pyspark"}
    for name in names:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import nannyml
    finally:
        for name in names:
            del sys.modules[name]
        sys.modules.update(hidden)
        for key in set(os.environ) - set(environ):
            del os.environ[key]
        os.environ.update(environ)
    return nannyml


def binary(n: int, seed: int, n_chunks: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return pl.DataFrame(
        {
            "score": s,
            "y": (rng.uniform(size=n) < s**3).astype(np.int64),
            "y_pred": (s > 0.5).astype(np.int64),
            "chunk": np.arange(n) * n_chunks // n,
        }
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    n_chunks = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    nml = import_nannyml()
    t_import = time.perf_counter() - t0
    print(f"n_rows={n:,} in {n_chunks} chunks, reference 20,000 rows (shared machine: read the ratios)")
    print(f"import nannyml {t_import:.1f}s")

    ref = binary(20_000, 1, 1)
    data = binary(n, 2, n_chunks)
    ref_pd = ref.drop("chunk").to_pandas()
    data_pd = data.drop("y", "chunk").to_pandas()
    ref_af = af.from_scores(ref.drop("y_pred", "chunk"), class_=None)
    data_af = af.from_scores(data.drop("y_pred"), class_=None)
    measures = ["f1", "precision", "recall", "auroc"]
    try:
        af.estimate(
            ref_af, af.from_scores(ref.drop("y_pred", "chunk").head(100), class_=None), "auroc", "binary"
        )
    except OptionError:
        measures = measures[:3]  # this estimate does not estimate AUROC yet
    metrics = ["roc_auc" if m == "auroc" else m for m in measures]

    def cbpe() -> Any:
        est = nml.CBPE(
            problem_type="classification_binary",
            y_pred_proba="score",
            y_pred="y_pred",
            y_true="y",
            metrics=metrics,
            chunk_size=n // n_chunks,
        )
        return est.fit(ref_pd)

    fitted = cbpe()
    cmap = af.fit_calibration(ref_af)
    t_nm_all = best(lambda: cbpe().estimate(data_pd), reps=2)
    t_af_all = best(lambda: af.estimate(ref_af, data_af, measures, "binary", by="chunk"), reps=2)
    t_nm_est = best(lambda: fitted.estimate(data_pd), reps=2)
    t_af_est = best(lambda: af.estimate(cmap, data_af, measures, "binary", by="chunk"), reps=2)
    t_bare = best(
        lambda: (
            data.lazy()
            .group_by("chunk")
            .agg(
                ((pl.col("score") > 0.5) & (pl.col("y") == 1)).sum().alias("tp"),
                (pl.col("score") > 0.5).sum().alias("pp"),
                pl.col("y").sum().alias("pos"),
            )
            .collect()
        )
    )
    print(f"measures: {', '.join(measures)}")
    print(
        f"fit + estimate: CBPE {t_nm_all:.2f}s  af.estimate {t_af_all:.2f}s  CBPE/af {t_nm_all / t_af_all:.1f}x"
    )
    print(
        f"estimate only : CBPE {t_nm_est:.2f}s  af.estimate {t_af_est:.2f}s  CBPE/af {t_nm_est / t_af_est:.1f}x  "
        f"af/bare Polars {t_af_est / t_bare:.1f}x (bare {t_bare:.3f}s)"
    )
    res = fitted.estimate(data_pd).filter(period="analysis").to_df()
    out = af.estimate(cmap, data_af, measures, "binary", by="chunk").sort("chunk")
    for m, metric in zip(measures, metrics, strict=True):
        ours = out.filter(pl.col("kind") == "estimated", pl.col("measure") == m)["value"].to_numpy()
        diff = np.abs(ours - res[(metric, "value")].to_numpy()).max()
        print(f"  {m:9s} largest |af - CBPE| over chunks {diff:.1e}")


if __name__ == "__main__":
    main()
