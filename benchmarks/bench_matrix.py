"""Whole-matrix measures (aggframe.measures.matrix): cost against the number of classes, and against scikit-learn.

Run from the repository root::

    python benchmarks/bench_matrix.py

``scale``: the seven whole-matrix measures for 10 groups of 10^5 examples in all
(predictions near the truth in rank order) over universes of 10^3 .. 10^6 classes,
as a ratio to the 10^3 case. The confusion counts have 5.3e4 .. 1e5 rows; the time
follows them and the universe size (the weighted kappas join the ranks), never
``m^2`` (measured on 2 cores: ratios 1, 3.7, 9.8, 12.9 for m = 10^3 .. 10^6,
221 ms at 10^6 classes).

``sklearn``: one group, the seven measures from the confusion counts against
scikit-learn's four functions (``matthews_corrcoef``, ``cohen_kappa_score`` x 3,
``balanced_accuracy_score`` x 2, ``accuracy_score``) on the 10^5 label arrays, as a
ratio (not like for like: scikit-learn also counts, aggframe starts from counts that
the label form's one scan already made; that is the point of the kernel).
Nothing is asserted.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
from _timing import best
from sklearn.metrics import accuracy_score, balanced_accuracy_score, cohen_kappa_score, matthews_corrcoef

from aggframe.measures.matrix import MATRIX_MEASURES, matrix_values


def tables(
    m: int, n: int, groups: int, seed: int = 0
) -> tuple[pl.LazyFrame, pl.LazyFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, m, size=n)
    yp = np.clip(yt + rng.integers(-3, 4, size=n), 0, m - 1)
    g = rng.integers(0, groups, size=n)
    conf = (
        pl.DataFrame({"_g": g, "_yt": yt, "_yp": yp})
        .group_by("_g", "_yt", "_yp")
        .agg(pl.len().cast(pl.Int64).alias("n"))
    )
    classes = pl.DataFrame({"class": np.arange(m), "_rank": np.arange(m)})
    return conf.lazy(), classes.lazy(), yt, yp


def scale() -> None:
    base = None
    for m in (10**3, 10**4, 10**5, 10**6):
        conf, classes, _, _ = tables(m, 100_000, 10)
        t = best(
            lambda conf=conf, classes=classes: matrix_values(
                conf, classes, ["_g"], [], MATRIX_MEASURES
            ).collect()
        )
        base = base or t
        print(f"scale  m={m:>8}  {t * 1e3:8.1f} ms  ratio to m=10^3: {t / base:5.2f}")


def versus_sklearn() -> None:
    for m in (10, 100, 1000):
        conf, classes, yt, yp = tables(m, 100_000, 1)

        def ours(conf: pl.LazyFrame = conf, classes: pl.LazyFrame = classes) -> object:
            return matrix_values(conf, classes, [], [], MATRIX_MEASURES).collect()

        def theirs(yt: np.ndarray = yt, yp: np.ndarray = yp, m: int = m) -> object:
            labels = np.arange(m)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return (
                    matthews_corrcoef(yt, yp),
                    *(
                        cohen_kappa_score(yt, yp, labels=labels, weights=w)
                        for w in (None, "linear", "quadratic")
                    ),
                    balanced_accuracy_score(yt, yp),
                    balanced_accuracy_score(yt, yp, adjusted=True),
                    accuracy_score(yt, yp),
                )

        a, b = best(ours), best(theirs)
        print(
            f"sklearn m={m:>5}  aggframe (from counts) {a * 1e3:7.1f} ms  sklearn {b * 1e3:7.1f} ms  ratio {a / b:5.2f}"
        )


if __name__ == "__main__":
    scale()
    versus_sklearn()
