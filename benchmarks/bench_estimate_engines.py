"""Estimation with renormalised probabilities (argmax) on DuckDB, against Polars and a bare DuckDB pass.

Run from the repository root: ``python benchmarks/bench_estimate_engines.py [n_examples]``. Wide
scores of 3 classes with a 20-value key, in a DuckDB table of an in-memory connection; the map
is fitted once (20,000 reference rows). Prints wall times and ratios of

- ``estimate(f1, macro)`` and ``expected_cells(by=g)`` on DuckDB (the map joined on the engine,
  renormalised by a window per example; ``expected_cells`` then runs the long form's wide step
  on DuckDB: two engine queries) and on a Polars frame of the same rows;
- a bare DuckDB query and a bare Polars pass over the same rows: the argmax of the three scores
  and the expected count of each (group, predicted class) cell with the raw scores (one pass,
  no calibration, no long form), the floor of what any estimate costs on each.

Timings are on a shared machine: the ratios are what count.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).parent))
from _timing import best

import aggframe as af

READ = {"y_true": "y_true", "scores": ["p_0", "p_1", "p_2"], "decision": "argmax"}
BARE = """
SELECT g, pred, count(*) AS n, sum(CASE pred WHEN 0 THEN p_0 WHEN 1 THEN p_1 ELSE p_2 END) AS tp
FROM (SELECT g, p_0, p_1, p_2,
             CASE WHEN p_0 >= p_1 AND p_0 >= p_2 THEN 0 WHEN p_1 >= p_2 THEN 1 ELSE 2 END AS pred
      FROM scores)
GROUP BY g, pred
"""


def frame(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet([2.0, 1.0, 0.5], size=n)
    y = (rng.uniform(size=n)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    return pl.DataFrame(
        {
            "y_true": np.minimum(y, 2),
            "p_0": p[:, 0],
            "p_1": p[:, 1],
            "p_2": p[:, 2],
            "g": rng.integers(0, 20, size=n),
        }
    )


def main() -> None:
    import duckdb

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300_000
    warnings.simplefilter("ignore")
    print(f"n_examples={n:,} (x 3 classes), 20 groups, argmax (shared machine: read the ratios)")
    data = frame(n, 1)
    cmap = af.fit_calibration(af.from_scores(frame(20_000, 2), **READ))  # type: ignore[arg-type]
    con = duckdb.connect()
    con.register("data_view", data.to_arrow())
    con.execute("CREATE TABLE scores AS SELECT * FROM data_view")
    con.unregister("data_view")

    def rel() -> af.Predictions:
        return af.from_scores(con.table("scores"), **READ)  # type: ignore[arg-type]

    def pol() -> af.Predictions:
        return af.from_scores(data, **READ)  # type: ignore[arg-type]

    t_bare = best(lambda: con.sql(BARE).fetchall())
    p = [pl.col(f"p_{c}") for c in range(3)]
    pred = pl.when((p[0] >= p[1]) & (p[0] >= p[2])).then(0).when(p[1] >= p[2]).then(1).otherwise(2)
    chosen = pl.when(pl.col("pred") == 0).then(p[0]).when(pl.col("pred") == 1).then(p[1]).otherwise(p[2])
    t_bare_pl = best(
        lambda: (
            data.lazy()
            .with_columns(pred.alias("pred"))
            .group_by("g", "pred")
            .agg(pl.len().alias("n"), chosen.sum().alias("tp"))
            .collect()
        )
    )
    t_est_duck = best(lambda: af.estimate(cmap, rel(), "f1", "macro", by="g"))
    t_est_pol = best(lambda: af.estimate(cmap, pol(), "f1", "macro", by="g"))
    t_cells_duck = best(lambda: af.expected_cells(cmap, rel(), by="g"))
    t_cells_pol = best(lambda: af.expected_cells(cmap, pol(), by="g"))
    rows = [
        ("estimate f1 macro, DuckDB", t_est_duck),
        ("estimate f1 macro, Polars", t_est_pol),
        ("expected_cells by=g, DuckDB", t_cells_duck),
        ("expected_cells by=g, Polars", t_cells_pol),
    ]
    print(f"{'':30} {'seconds':>8} {'/ bare same engine':>19} {'DuckDB / Polars':>16}")
    for i, (name, t) in enumerate(rows):
        floor = t_bare if "DuckDB" in name else t_bare_pl
        versus = f"{t / rows[i + 1][1]:16.2f}" if "DuckDB" in name else ""
        print(f"{name:30} {t:8.3f} {t / floor:19.1f} {versus}")
    print(f"{'bare DuckDB argmax group-by':30} {t_bare:8.3f}")
    print(f"{'bare Polars argmax group-by':30} {t_bare_pl:8.3f}")


if __name__ == "__main__":
    main()
