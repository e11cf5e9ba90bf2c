"""The weighted log loss and Brier draws under single-label truth: loss sums and class counts drawn jointly.

The weighted operator weighs each class's mean loss by the class's positives, and
under single-label truth both move with the one true class of each example: it adds
1 to the count ``P_c`` of its class and ``delta_c = l1 - l0`` to that class's loss
sum ``L_c``. So per group the vector ``(L_1 .. L_K, P_1 .. P_K)`` is a sum of
independent categorical vectors, one per example, with covariance

    Cov(L_c, L_d) = sum q_c delta_c (1[c = d] - q_d delta_d) ...

The scan has every second moment that one group-by over (group, class) can give,
exactly (:data:`~aggframe.decisions.estimate_cells.LOSSES`):

* the diagonal: ``V[L_c] = sum q (1 - q) delta^2`` (``llv``), ``V[P_c] = sum q (1 - q)``
  (``v``) and ``Cov(L_c, P_c) = sum q (1 - q) delta`` (``lla``);
* the row sums: ``Cov(L_c, sum_d L_d) = sum q delta (delta - M)`` (``llm``, ``M`` the
  example's ``sum q delta``), ``Cov(sum_c L_c, P_d) = sum q (delta - M)`` (``llb``), and
  ``Cov(., sum_d P_d) = 0`` (each example has one true class: the counts add up to the
  examples).

The pairs of classes (``K^2`` sums per group) are not in the scan. They are filled in
with the smallest structure that keeps every known sum: ``X_cd = y_c + y_d`` off the
diagonal of a symmetric block, ``r_c + s_d`` in the cross block, solved per group in
closed form. With three classes the symmetric blocks are exact (three unknowns, three
row sums), and the micro and macro variances (sums of whole rows) are exact whatever the
number of classes. The matrix is made positive semi-definite (negative eigenvalues set
to 0) and the draws are normal, through its symmetric square root (unique: the same sums
give the same draws on every engine). All in NumPy on the small per-(group, class) table,
vectorised over groups (``groups x 2K x 2K``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from aggframe.decisions.estimate_draws import positions

__all__ = ["joint_weighted"]


def _index(est: pl.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Each row's group and class position, and the numbers of groups and classes."""
    base, groups, classes = positions(est, keys)
    return base["_g"].to_numpy(), base["_c"].to_numpy(), groups.height, classes.height


def _symmetric(diag: np.ndarray, rows: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Per group a symmetric block (G x K x K) with the given diagonal and row sums over its present
    classes, its off-diagonal ``y_c + y_d``; absent classes: zero rows and columns."""
    k = present.sum(axis=1, keepdims=True).astype(float)
    off = np.where(present, rows - diag, 0.0)
    total = off.sum(axis=1, keepdims=True)
    half = np.divide(total, 2.0 * k - 2.0, out=np.zeros_like(total), where=k > 2)
    y = np.divide(off - half, k - 2.0, out=np.zeros_like(off), where=k > 2)
    # two classes: the one off-diagonal entry is both rows' sum (the mean of the two, equal when exact)
    y = np.where(k == 2, total / 4.0, y)
    block = y[:, :, None] + y[:, None, :]
    mask = present[:, :, None] & present[:, None, :]
    block = np.where(mask, block, 0.0)
    idx = np.arange(diag.shape[1])
    block[:, idx, idx] = np.where(present, diag, 0.0)
    return block


def _cross(diag: np.ndarray, rows: np.ndarray, cols: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Per group the block ``Cov(L_c, P_d)`` (G x K x K) with the given diagonal, row and column sums
    over its present classes, its off-diagonal ``r_c + s_d`` (``sum r = sum s``)."""
    k = present.sum(axis=1, keepdims=True).astype(float)
    o_row = np.where(present, rows - diag, 0.0)
    o_col = np.where(present, cols - diag, 0.0)
    half = np.divide(o_row.sum(axis=1, keepdims=True), 2.0 * k - 2.0, out=np.zeros_like(k), where=k > 1)
    det = k * (k - 2.0)
    a, b = o_row - half, o_col - half
    r = np.divide((k - 1.0) * a + b, det, out=np.zeros_like(a), where=k > 2)
    s = np.divide(a + (k - 1.0) * b, det, out=np.zeros_like(a), where=k > 2)
    block = r[:, :, None] + s[:, None, :]
    # two classes: each row's one off-diagonal entry is its row's sum
    two = np.broadcast_to(o_row[:, :, None], block.shape)
    block = np.where((k == 2)[:, :, None], two, block)
    mask = present[:, :, None] & present[:, None, :]
    block = np.where(mask, block, 0.0)
    idx = np.arange(diag.shape[1])
    block[:, idx, idx] = np.where(present, diag, 0.0)
    return block


def joint_weighted(
    est: pl.DataFrame, keys: Sequence[str], loss: str, n_draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Draws (``n_draws x rows`` each) of the class counts ``P_c`` and loss sums ``L_c`` of the rows of
    ``est`` (keys..., class, weight, ``loss``, ``{loss}v``, ``{loss}m``, ``{loss}a``, ``{loss}b``, v).

    ``weight`` is ``E[P_c] = sum q``, ``loss`` is ``E[L_c]``; the covariance is built by
    :func:`_symmetric` and :func:`_cross` from the scan's sums (see the module docstring).
    """
    g, c, n_g, n_c = _index(est, keys)

    def grid(column: str) -> np.ndarray:
        out = np.zeros((n_g, n_c))
        out[g, c] = est[column].to_numpy()
        return out

    present = np.zeros((n_g, n_c), dtype=bool)
    present[g, c] = True
    zero = np.zeros((n_g, n_c))
    var_l = np.maximum(grid(f"{loss}v"), 0.0)
    var_p = np.maximum(grid("v"), 0.0)
    cov_lp = grid(f"{loss}a")
    ll = _symmetric(var_l, grid(f"{loss}m"), present)
    pp = _symmetric(var_p, zero, present)  # the counts add up to the examples: rows sum to 0
    lp = _cross(cov_lp, zero, grid(f"{loss}b"), present)
    cov = np.concatenate(
        [np.concatenate([ll, lp], axis=2), np.concatenate([lp.transpose(0, 2, 1), pp], axis=2)], axis=1
    )
    values, vectors = np.linalg.eigh(cov)
    # the symmetric square root V sqrt(L) V^T: unique, so the draws do not depend on how eigh picks
    # the basis of a repeated eigenvalue (sums that differ in the last digit draw the same)
    root = (vectors * np.sqrt(np.maximum(values, 0.0))[:, None, :]) @ vectors.transpose(0, 2, 1)
    z = rng.standard_normal((n_draws, n_g, 2 * n_c))
    x = np.einsum("gij,dgj->dgi", root, z)  # draws x groups x (L..., P...)
    drawn_l = est[loss].to_numpy()[None, :] + x[:, g, c]
    drawn_p = est["weight"].to_numpy()[None, :] + x[:, g, n_c + c]
    return drawn_p, drawn_l
