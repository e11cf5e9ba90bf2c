"""The HTML report of a digits-sized run: 3 models x 1,797 examples x 10 classes with scores.

Run from the repository root: ``python benchmarks/bench_html.py [--profile] [--out FILE]``.

Builds scikit-learn's digits data with three fast models' 5-fold
``cross_val_predict(..., method="predict_proba")`` (issue 29's layout: one long frame, the
example ids repeating across models), then times ``af.html_report`` by model and prints the time,
the page size and a breakdown of the page by section (bytes) and of the time by stage. The
machine may be shared: the time moves with load; the goal is under 5 s and under 1 MB.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aggframe as af

MEASURES = ["f1", "precision", "recall", "mcc", "auroc", "average_precision", "log_loss"]
OPERATORS = ["micro", "macro", "weighted"]


def digits_scores() -> pl.DataFrame:
    """Long scores: model, example, class, y (0/1), score: 3 x 1,797 x 10 rows (kept in the
    temporary folder after the first run: the cross-validation takes a while on a shared machine)."""
    cache = Path(tempfile.gettempdir()) / "aggframe_bench_html_digits.parquet"
    if cache.exists():
        return pl.read_parquet(cache)
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    models = {
        "logreg": LogisticRegression(max_iter=300),
        "nb": GaussianNB(),
        "knn": KNeighborsClassifier(n_neighbors=7),
    }
    parts = []
    n, k = X.shape[0], 10
    for name, model in models.items():
        proba = cross_val_predict(model, X, y, cv=5, method="predict_proba")
        parts.append(
            pl.DataFrame(
                {
                    "model": [name] * (n * k),
                    "example": np.repeat(np.arange(n), k),
                    "class": np.tile(np.arange(k), n),
                    "y": (np.repeat(y, k) == np.tile(np.arange(k), n)).astype(np.int8),
                    "score": proba.ravel(),
                }
            )
        )
    out = pl.concat(parts)
    out.write_parquet(cache)
    return out


def sections(page: str) -> dict[str, int]:
    """Bytes of the page per <h2> section (the head and the title block as "(head)")."""
    cuts = [(m.start(), m.group(1)) for m in re.finditer(r"<h2[^>]*>(.*?)</h2>", page)]
    out: dict[str, int] = {}
    bounds = [(0, "(head)"), *cuts, (len(page), "")]
    for (start, name), (end, _) in itertools.pairwise(bounds):
        out[re.sub("<[^>]+>", "", name)] = len(page[start:end].encode())
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", action="store_true", help="print the top of a cProfile of one run")
    ap.add_argument("--out", default="", help="also write the page here")
    ap.add_argument("--charts", default="svg", choices=["svg", "vega"])
    args = ap.parse_args()
    t0 = time.perf_counter()
    frame = digits_scores()
    print(f"data: {frame.height:,} long rows, built in {time.perf_counter() - t0:.1f} s (sklearn CV)")

    def run() -> str:
        pr = af.from_scores(frame, example="example", class_="class", y="y", score="score", decision="argmax")
        return af.html_report(pr, MEASURES, OPERATORS, by="model", charts=args.charts)

    # a warm-up run (imports altair, great_tables, vl-convert once), then the timed one
    t0 = time.perf_counter()
    run()
    first = time.perf_counter() - t0
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        page = run()
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(45)
    t0 = time.perf_counter()
    page = run()
    took = time.perf_counter() - t0
    t0 = time.perf_counter()
    pl.concat([frame.group_by("model", "class").agg(pl.col("score").sort().cum_sum().last())])
    bare = time.perf_counter() - t0
    size = len(page.encode())
    print("(timings on a shared machine: they move with load)")
    print(
        f"html_report, {args.charts}: {took:.2f} s (first call, imports included: {first:.2f} s); goal < 5 s"
    )
    print(f"  bare Polars sort + cumulative sum per (model, class): {bare:.3f} s; ratio {took / bare:.0f}x")
    print(f"page size: {size / 1e6:.2f} MB; goal < 1 MB")
    for name, nbytes in sections(page).items():
        print(f"  {name:<28} {nbytes / 1e3:9.1f} kB")
    if "http://" in page or "https://" in page:
        refs = sorted(set(re.findall(r"https?://[^\s\"'<>]+", page)))[:5]
        print(f"  network references in the page: {refs}")
    if args.out:
        Path(args.out).write_text(page, encoding="utf-8")
        print(f"written to {args.out}")


if __name__ == "__main__":
    main()
