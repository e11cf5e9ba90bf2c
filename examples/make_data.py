"""Regenerate the example prediction sets shipped in ``examples/`` (seeded, small).

``predictions.parquet``: label form, 3 models x 4 days x 400 examples, 6 classes
(one rare), columns model, day, example, y_true, y_pred.
``multilabel.parquet``: long form, sparse (only entries with y or p set, plus
one row per example), 300 examples x 8 labels, columns example, class, y, p.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).parent


def labels(seed: int = 7) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    prior = np.array([0.35, 0.25, 0.2, 0.1, 0.08, 0.02])
    frames = []
    for model, skill in (("baseline", 0.55), ("gbm", 0.75), ("transformer", 0.85)):
        for day in range(1, 5):
            n = 400
            y = rng.choice(6, size=n, p=prior)
            right = rng.random(n) < skill
            noise = rng.choice(6, size=n, p=prior)
            p = np.where(right, y, noise)
            frames.append(
                pl.DataFrame(
                    {
                        "model": model,
                        "day": f"2026-11-{day:02d}",
                        "example": np.arange(n),
                        "y_true": y,
                        "y_pred": p,
                    }
                )
            )
    return pl.concat(frames)


def multilabel(seed: int = 11) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n, m = 300, 8
    rate = np.linspace(0.4, 0.03, m)
    Y = rng.random((n, m)) < rate
    flip = rng.random((n, m)) < 0.12
    P = Y ^ flip
    keep = Y | P
    keep[:, 0] = True
    ex, cl = np.nonzero(keep)
    return pl.DataFrame(
        {"example": ex, "class": cl, "y": Y[ex, cl].astype(np.int8), "p": P[ex, cl].astype(np.int8)}
    )


if __name__ == "__main__":
    labels().write_parquet(HERE / "predictions.parquet")
    multilabel().write_parquet(HERE / "multilabel.parquet")
    print("wrote", HERE / "predictions.parquet", HERE / "multilabel.parquet")
