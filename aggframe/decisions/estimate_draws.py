"""The interval of :func:`~aggframe.estimate`: parametric draws of the expected cells, not of the rows.

If the calibrated probabilities are right, the truth of each entry is a Bernoulli
draw with probability ``q``, so a cell such as ``tp = sum d y`` is a sum of
independent Bernoulli variables: a Poisson-binomial count with mean ``sum q d``
and variance ``sum q (1 - q) d``. Both sums come out of the scan
(:mod:`aggframe.decisions.estimate_cells`). The draws here are made on the small
cell table (one row per group and class), ``n_draws`` times, in NumPy:

* entries drawn independently (binary, multilabel: threshold decisions; top-k):
  per (group, class) ``tp ~ N(E[tp], V[tp])`` and ``fn ~ N(E[fn], V[fn])``
  (independent: disjoint entries), clipped to their range, and
  ``fp = PP - tp``, ``tn = PN - fn`` (the decisions ``PP = tp + fp`` and
  ``PN = fn + tn`` are known);
* single-label truth with one predicted class per example (argmax): the true
  classes of the examples predicted ``a`` are one categorical draw each, so
  their counts per true class ``b`` are a sum of categoricals. Per (group, ``a``)
  the count vector is drawn as a normal vector with the exact variances
  ``V_ab = sum q_b (1 - q_b)`` and the multinomial's correlations (counts of one
  row move against each other), then ``tp_a`` is its diagonal, ``fp_a = n_a - tp_a``
  and ``fn_b`` the sum of column ``b`` off the diagonal.

Every draw's measures come from the same report plan as the estimate; the
interval is the percentile range of the draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from aggframe._columns import CLASS_ROLE

__all__ = ["draw_cells", "per_draw", "positions"]

_CELL_NAMES = ("tp", "fp", "fn", "tn")


def draw_cells(
    expected: pl.DataFrame,
    rows: pl.DataFrame | None,
    keys: Sequence[str],
    *,
    n_draws: int,
    seed: int,
    kind: str,
) -> pl.DataFrame:
    """``n_draws`` draws of the cells per (group, class): keys..., ``kind`` (0 .. n_draws - 1), class, tp, fp, fn, tn.

    ``expected`` holds keys..., class, tp, fp, fn, tn, v_tp, v_fn (sorted);
    ``rows`` (single-label) holds keys..., pred, class, mu, v, n_pred: per
    (group, predicted class) the expected count and variance of each true class.
    """
    rng = np.random.default_rng(seed)
    if rows is None:
        return _independent(expected, keys, n_draws, rng, kind)
    return _confusion_rows(expected, rows, keys, n_draws=n_draws, rng=rng, kind=kind)


def per_draw(base: pl.DataFrame, n_draws: int, kind: str, drawn: Mapping[str, np.ndarray]) -> pl.DataFrame:
    """``base``'s rows repeated per draw (draw-major): the draw's number in ``kind`` and each drawn
    column (``n_draws x base.height`` values, or those values flat)."""
    reps = pl.concat([base] * n_draws) if n_draws > 1 else base
    draw = np.repeat(np.arange(n_draws, dtype=np.int64), base.height)
    return reps.with_columns(
        pl.Series(kind, draw), *[pl.Series(name, np.asarray(v).reshape(-1)) for name, v in drawn.items()]
    )


def _stack(base: pl.DataFrame, cells: dict[str, np.ndarray], n_draws: int, kind: str) -> pl.DataFrame:
    """The base rows repeated per draw with the drawn cells (draw-major)."""
    return per_draw(base, n_draws, kind, {c: cells[c] for c in _CELL_NAMES})


def _independent(
    expected: pl.DataFrame, keys: Sequence[str], n_draws: int, rng: np.random.Generator, kind: str
) -> pl.DataFrame:
    tp, fp, fn, tn = (expected[c].to_numpy().astype(float) for c in _CELL_NAMES)
    pp, pn = tp + fp, fn + tn
    z = rng.standard_normal((2, n_draws, expected.height))
    tp_d = np.clip(tp + np.sqrt(np.maximum(expected["v_tp"].to_numpy(), 0.0)) * z[0], 0.0, pp)
    fn_d = np.clip(fn + np.sqrt(np.maximum(expected["v_fn"].to_numpy(), 0.0)) * z[1], 0.0, pn)
    cells = {"tp": tp_d, "fp": pp - tp_d, "fn": fn_d, "tn": pn - fn_d}
    return _stack(expected.select(*keys, CLASS_ROLE), cells, n_draws, kind)


def positions(frame: pl.DataFrame, keys: Sequence[str]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Each row's group and class position (keys..., class, ``_j`` its row, ``_g``, ``_c``), and the
    groups (keys..., ``_g``) and classes (class, ``_c``) in the order they first appear."""
    base = frame.select(*keys, CLASS_ROLE).with_row_index("_j")
    groups = base.select(*keys).unique(maintain_order=True).with_row_index("_g")
    base = base.join(groups, on=list(keys), how="left", nulls_equal=True, maintain_order="left")
    classes = base.select(CLASS_ROLE).unique(maintain_order=True).with_row_index("_c")
    base = base.join(classes, on=CLASS_ROLE, how="left", nulls_equal=True, maintain_order="left")
    return base, groups, classes


def _confusion_rows(
    expected: pl.DataFrame,
    rows: pl.DataFrame,
    keys: Sequence[str],
    *,
    n_draws: int,
    rng: np.random.Generator,
    kind: str,
) -> pl.DataFrame:
    """Single-label: each (group, predicted class) row of the confusion matrix drawn as one vector."""
    base, groups, classes = positions(expected, keys)
    n_g, n_c = groups.height, classes.height
    r = rows.join(groups, on=list(keys), how="inner", nulls_equal=True)
    r = r.join(classes, on=CLASS_ROLE, how="inner", nulls_equal=True)
    r = r.join(classes.rename({CLASS_ROLE: "pred", "_c": "_a"}), on="pred", how="inner", nulls_equal=True)
    g, a, c = (r[x].to_numpy() for x in ("_g", "_a", "_c"))
    mu = np.zeros((n_g, n_c, n_c))
    var = np.zeros((n_g, n_c, n_c))
    mu[g, a, c] = r["mu"].to_numpy()
    var[g, a, c] = r["v"].to_numpy()
    size = mu.sum(axis=2, keepdims=True)  # examples predicted a in the group
    qbar = np.divide(mu, size, out=np.zeros_like(mu), where=size > 0)
    u = np.sqrt(np.clip(qbar, 0.0, 1.0))
    scale = np.sqrt(np.divide(var, 1.0 - qbar, out=np.zeros_like(var), where=qbar < 1.0))
    z = rng.standard_normal((n_draws, n_g, n_c, n_c))
    proj = (z * u).sum(axis=3, keepdims=True)
    x = np.clip(mu + scale * (z - u * proj), 0.0, size)  # draws x groups x pred x true
    diag = np.einsum("dgaa->dga", x)
    tp = diag
    fp = size[..., 0][None] - diag
    fn = x.sum(axis=2) - diag
    total = size[..., 0].sum(axis=1)[None, :, None]
    tn = total - tp - fp - fn
    gi, ci = base["_g"].to_numpy(), base["_c"].to_numpy()
    cells = {name: arr[:, gi, ci] for name, arr in zip(_CELL_NAMES, (tp, fp, fn, tn), strict=True)}
    return _stack(base.select(*keys, CLASS_ROLE), cells, n_draws, kind)
