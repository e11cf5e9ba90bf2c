"""Whole-matrix measures and the tidy confusion matrix (aggframe.measures.matrix, issue #15).

Differential against scikit-learn per group (each group filtered out of the data
and given to scikit-learn alone), with null keys among the groups, declared
universes bigger than the observed classes, universes per target, classes absent
from y_true and never predicted, one-class and tiny data.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    confusion_matrix,
    matthews_corrcoef,
)

from aggframe.exceptions import OptionError, UnknownNameError
from aggframe.measures.matrix import (
    MATRIX_MEASURES,
    confusion_matrix_frame,
    is_matrix_measure,
    matrix_values,
    resolve_matrix_measures,
)
from aggframe.measures.registry import get_measure, list_measures

REL, ABS = 1e-9, 1e-12
KAPPA_WEIGHTS = {"kappa": None, "kappa_linear": "linear", "kappa_quadratic": "quadratic"}


# ---------------------------------------------------------------------------
# Building the internal tables directly


def _dtype(values: Sequence[Any]) -> type[pl.DataType]:
    """A key column's dtype even when every value is null (as a typed key would be)."""
    return pl.Int64 if any(isinstance(v, int) for v in values) else pl.String


def tables(
    y_true: Sequence[Any],
    y_pred: Sequence[Any],
    keys: Mapping[str, Sequence[Any]],
    universe: Sequence[Any] | Mapping[Any, Sequence[Any]],
    ukey: str | None = None,
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.DataFrame]:
    """(conf, classes, rows) from label arrays and key columns.

    ``universe``: one list of classes in universe order, or (with ``ukey``) a
    mapping from each value of the ``ukey`` column to its classes.
    """
    rows = pl.DataFrame(
        [*(pl.Series(k, list(v), dtype=_dtype(v)) for k, v in keys.items()), pl.Series("_yt", list(y_true))]
    ).with_columns(pl.Series("_yp", list(y_pred)))
    conf = rows.group_by([*keys, "_yt", "_yp"]).agg(pl.len().cast(pl.Int64).alias("n")).lazy()
    dtype = rows.schema["_yt"]
    if ukey is None:
        assert not isinstance(universe, Mapping)
        classes = pl.DataFrame(
            {"class": pl.Series(list(universe), dtype=dtype), "_rank": list(range(len(universe)))}
        )
    else:
        assert isinstance(universe, Mapping)
        classes = pl.DataFrame(
            {
                ukey: pl.Series([u for u, cs in universe.items() for _ in cs], dtype=rows.schema[ukey]),
                "class": pl.Series([c for cs in universe.values() for c in cs], dtype=dtype),
                "_rank": [i for cs in universe.values() for i in range(len(cs))],
            }
        )
    return conf, classes.lazy(), rows


def group_rows(rows: pl.DataFrame, keys: Sequence[str]) -> list[tuple[dict[str, Any], pl.DataFrame]]:
    """Each group (null keys included) with its rows, by filtering."""
    if not keys:
        return [({}, rows)]
    out = []
    for key in rows.select(keys).unique().iter_rows(named=True):
        mask = pl.lit(True)
        for k, v in key.items():
            mask = mask & (pl.col(k).is_null() if v is None else pl.col(k) == v)
        out.append((key, rows.filter(mask)))
    return out


def pick(frame: pl.DataFrame, key: Mapping[str, Any]) -> pl.DataFrame:
    for k, v in key.items():
        frame = frame.filter(pl.col(k).is_null() if v is None else pl.col(k) == v)
    return frame


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)


def sklearn_values(yt: list[Any], yp: list[Any], labels: list[Any]) -> dict[str, tuple[float, list[type]]]:
    """scikit-learn's value of every matrix measure and the warning categories it raised."""
    calls: dict[str, Callable[[], Any]] = {
        "accuracy": lambda: accuracy_score(yt, yp),
        "mcc": lambda: matthews_corrcoef(yt, yp),
        "balanced_accuracy": lambda: balanced_accuracy_score(yt, yp),
        "balanced_accuracy_adjusted": lambda: balanced_accuracy_score(yt, yp, adjusted=True),
        **{
            name: partial(cohen_kappa_score, yt, yp, labels=labels, weights=w)
            for name, w in KAPPA_WEIGHTS.items()
        },
    }
    out = {}
    for name, call in calls.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = float(call())
        out[name] = (value, [w.category for w in caught])
    return out


def check_against_sklearn(
    ours: float | None, name: str, yt: list[Any], ref: tuple[float, list[type]]
) -> None:
    """Ours equals scikit-learn where defined; where ours is null, scikit-learn gives what the docs say."""
    value, caught = ref
    where = f"{name}: ours {ours}, scikit-learn {value}"
    if name == "mcc":
        # undefined iff a margin is concentrated; scikit-learn returns 0.0 there (convention "zero")
        if ours is None:
            assert value == 0.0, where
        else:
            assert close(ours, value), where
    elif name in KAPPA_WEIGHTS:
        # undefined: scikit-learn returns replace_undefined_by=nan and warns, and only then
        assert (ours is None) == math.isnan(value), where
        assert (ours is None) == (UndefinedMetricWarning in caught), where
        if ours is not None:
            assert close(ours, value), where
    elif name == "balanced_accuracy_adjusted":
        n_true_classes = len(set(yt))
        assert (ours is None) == (n_true_classes == 1), where
        if ours is None:
            # scikit-learn divides by 1 - 1/K = 0: NaN when every example is right, else -inf
            assert math.isnan(value) or value == -math.inf, where
        else:
            assert close(ours, value), where
    else:
        assert ours is not None, where
        assert close(ours, value), where


# ---------------------------------------------------------------------------
# Strategies


@st.composite
def labelled(draw: st.DrawFn) -> dict[str, Any]:
    """Label arrays, two key columns with nulls, and a declared universe in a shuffled order."""
    m = draw(st.integers(2, 12))
    extra = draw(st.integers(0, 3))  # declared, never observed
    as_str = draw(st.booleans())
    raw = draw(st.permutations(list(range(m + extra))))
    universe = [f"c{i}" for i in raw] if as_str else list(raw)
    observed = universe[:m]
    true_classes = draw(st.lists(st.sampled_from(observed), min_size=1, max_size=m, unique=True))
    pred_classes = draw(st.lists(st.sampled_from(observed), min_size=1, max_size=m, unique=True))
    n = draw(st.integers(1, 40))
    yt = draw(st.lists(st.sampled_from(true_classes), min_size=n, max_size=n))
    yp = draw(st.lists(st.sampled_from(pred_classes), min_size=n, max_size=n))
    g = draw(st.lists(st.sampled_from([None, "a", "b"]), min_size=n, max_size=n))
    h = draw(st.lists(st.sampled_from([None, 1]), min_size=n, max_size=n))
    return {"yt": yt, "yp": yp, "g": g, "h": h, "universe": universe}


KEYSETS = st.sampled_from([(), ("_g",), ("_g", "_h")])


# ---------------------------------------------------------------------------
# Measures against scikit-learn


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=40, deadline=None)
@given(data=labelled(), keys=KEYSETS)
def test_measures_match_sklearn_per_group(data: dict[str, Any], keys: tuple[str, ...]) -> None:
    key_cols = {"_g": data["g"], "_h": data["h"]}
    conf, classes, rows = tables(data["yt"], data["yp"], {k: key_cols[k] for k in keys}, data["universe"])
    got = matrix_values(conf, classes, list(keys), [], MATRIX_MEASURES).collect()
    groups = group_rows(rows, list(keys))
    assert got.height == len(groups) * len(MATRIX_MEASURES)
    for key, part in groups:
        yt, yp = part["_yt"].to_list(), part["_yp"].to_list()
        ours = dict(pick(got, key).select("measure", "value").iter_rows())
        assert list(ours) == list(MATRIX_MEASURES)
        refs = sklearn_values(yt, yp, data["universe"])
        for name in MATRIX_MEASURES:
            check_against_sklearn(ours[name], name, yt, refs[name])


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=25, deadline=None)
@given(data=labelled(), target=st.lists(st.sampled_from(["t1", "t2", None]), min_size=40, max_size=40))
def test_universe_per_target(data: dict[str, Any], target: list[Any]) -> None:
    """ukeys: each target has its own universe (a null target too), ranks from its own order."""
    n = len(data["yt"])
    universe = data["universe"]
    # t2 and the null target see the universe reversed, t1 as drawn; t1 also declares one more class
    extra = "zz" if isinstance(universe[0], str) else 10**6
    per_target = {"t1": [*universe, extra], "t2": universe[::-1], None: universe[::-1]}
    conf, classes, rows = tables(
        data["yt"], data["yp"], {"_t": target[:n], "_g": data["g"]}, per_target, "_t"
    )
    got = matrix_values(conf, classes, ["_t", "_g"], ["_t"], MATRIX_MEASURES).collect()
    for key, part in group_rows(rows, ["_t", "_g"]):
        yt, yp = part["_yt"].to_list(), part["_yp"].to_list()
        ours = dict(pick(got, key).select("measure", "value").iter_rows())
        refs = sklearn_values(yt, yp, per_target[key["_t"]])
        for name in MATRIX_MEASURES:
            check_against_sklearn(ours[name], name, yt, refs[name])


def test_output_order_and_schema() -> None:
    conf, classes, _ = tables(
        [0, 1, 1, 0, 2], [0, 1, 0, 0, 2], {"_g": [None, "b", "a", None, "a"]}, universe=[2, 0, 1]
    )
    got = matrix_values(conf, classes, ["_g"], [], ["kappa", "accuracy"]).collect()
    assert got.schema == pl.Schema({"_g": pl.String, "measure": pl.String, "value": pl.Float64})
    assert got["_g"].to_list() == ["a", "a", "b", "b", None, None]
    assert got["measure"].to_list() == ["kappa", "accuracy"] * 3


def test_zero_count_rows() -> None:
    """Explicit n = 0 pairs change nothing; a group whose counts are all 0 is undefined throughout."""
    conf, classes, _ = tables([0, 1, 2, 2], [0, 2, 2, 1], {"_g": ["a"] * 4}, [0, 1, 2, 3])
    padded = pl.concat(
        [
            conf,
            pl.LazyFrame(
                {"_g": ["a", "a", None], "_yt": [3, 1, 0], "_yp": [3, 0, 1], "n": [0, 0, 0]},
                schema=conf.collect_schema(),
            ),
        ]
    )
    got = matrix_values(padded, classes, ["_g"], [], MATRIX_MEASURES).collect()
    assert_frame_equal(
        got.filter(pl.col("_g") == "a"), matrix_values(conf, classes, ["_g"], [], MATRIX_MEASURES).collect()
    )
    assert got.filter(pl.col("_g").is_null())["value"].null_count() == len(MATRIX_MEASURES)
    cm = confusion_matrix_frame(padded, classes, ["_g"], [], "true").collect().filter(pl.col("_g").is_null())
    assert cm["count"].to_list() == [0] * 16
    assert cm["rate"].null_count() == 16


@settings(max_examples=25, deadline=None)
@given(data=labelled())
def test_eager_equals_streaming(data: dict[str, Any]) -> None:
    conf, classes, _ = tables(data["yt"], data["yp"], {"_g": data["g"]}, data["universe"])
    plan = matrix_values(conf, classes, ["_g"], [], MATRIX_MEASURES)
    assert_frame_equal(plan.collect(engine="in-memory"), plan.collect(engine="streaming"), abs_tol=1e-12)
    cm = confusion_matrix_frame(conf, classes, ["_g"], [], "true")
    assert_frame_equal(cm.collect(engine="in-memory"), cm.collect(engine="streaming"))


@settings(max_examples=30, deadline=None)
@given(data=labelled(), keys=KEYSETS)
def test_margins_from_the_class_cells_give_the_same_values(
    data: dict[str, Any], keys: tuple[str, ...]
) -> None:
    """``cells=``: the one-vs-rest class cells (every class of the universe, zeros included) hold the margins."""
    key_cols = {"_g": data["g"], "_h": data["h"]}
    conf, classes, rows = tables(data["yt"], data["yp"], {k: key_cols[k] for k in keys}, data["universe"])
    k = list(keys)
    universe = classes.select("class")
    groups = rows.lazy().select(k).unique() if k else pl.LazyFrame({"_x": [0]})
    grid = groups.join(universe, how="cross")
    t = conf.group_by(*k, pl.col("_yt").alias("class")).agg(pl.col("n").sum().alias("t"))
    p = conf.group_by(*k, pl.col("_yp").alias("class")).agg(pl.col("n").sum().alias("p"))
    d = (
        conf.filter(pl.col("_yt") == pl.col("_yp"))
        .group_by(*k, pl.col("_yt").alias("class"))
        .agg(pl.col("n").sum().alias("tp"))
    )
    size = (
        conf.group_by(k).agg(pl.col("n").sum().alias("_N"))
        if k
        else conf.select(pl.col("n").sum().alias("_N"))
    )
    on = [*k, "class"]
    joined = (
        grid.join(t, on=on, how="left", nulls_equal=True)
        .join(p, on=on, how="left", nulls_equal=True)
        .join(d, on=on, how="left", nulls_equal=True)
        .with_columns(pl.col("t", "p", "tp").fill_null(0))
    )
    joined = joined.join(size, on=k, how="left", nulls_equal=True) if k else joined.join(size, how="cross")
    cells = joined.select(
        *k,
        "class",
        "tp",
        (pl.col("p") - pl.col("tp")).alias("fp"),
        (pl.col("t") - pl.col("tp")).alias("fn"),
        (pl.col("_N") - pl.col("t") - pl.col("p") + pl.col("tp")).alias("tn"),
    )
    from_pairs = matrix_values(conf, classes, k, [], MATRIX_MEASURES).collect()
    from_cells = matrix_values(conf, classes, k, [], MATRIX_MEASURES, cells=cells).collect()
    assert_frame_equal(from_cells, from_pairs)  # exact: sums of the same integers
    unweighted = [m for m in MATRIX_MEASURES if m not in ("kappa_linear", "kappa_quadratic")]
    alone = matrix_values(None, classes, k, [], unweighted, cells=cells).collect()
    assert_frame_equal(alone, from_pairs.filter(pl.col("measure").is_in(unweighted)))
    with pytest.raises(OptionError, match="confusion counts"):
        matrix_values(None, classes, k, [], ["kappa_linear"], cells=cells)


# ---------------------------------------------------------------------------
# Two classes: the whole-matrix measure is the binary measure of the positive class


@settings(max_examples=40, deadline=None)
@given(
    yt=st.lists(st.sampled_from(["neg", "pos"]), min_size=1, max_size=30),
    yp=st.lists(st.sampled_from(["neg", "pos"]), min_size=30, max_size=30),
    g=st.lists(st.sampled_from([None, 1, 2]), min_size=30, max_size=30),
)
def test_two_classes_equal_binary_measures(yt: list[str], yp: list[str], g: list[Any]) -> None:
    n = len(yt)
    conf, classes, _ = tables(yt, yp[:n], {"_g": g[:n]}, ["neg", "pos"])
    ours = matrix_values(conf, classes, ["_g"], [], ["mcc", "kappa", "balanced_accuracy"]).collect()
    pos_t, pos_p = pl.col("_yt") == "pos", pl.col("_yp") == "pos"
    cells = (
        conf.group_by("_g")
        .agg(
            pl.col("n").filter(pos_t & pos_p).sum().alias("tp"),
            pl.col("n").filter(~pos_t & pos_p).sum().alias("fp"),
            pl.col("n").filter(pos_t & ~pos_p).sum().alias("fn"),
            pl.col("n").filter(~pos_t & ~pos_p).sum().alias("tn"),
        )
        .collect()
    )
    binary = cells.select(
        "_g",
        get_measure("mcc").expr().alias("mcc"),
        get_measure("kappa").expr().alias("kappa"),
        get_measure("balanced_accuracy").expr().alias("balanced_accuracy"),
        ((pl.col("tp") + pl.col("fn") > 0) & (pl.col("tn") + pl.col("fp") > 0)).alias("_both"),
    )
    for row in binary.iter_rows(named=True):
        mine = dict(pick(ours, {"_g": row["_g"]}).select("measure", "value").iter_rows())
        for name in ("mcc", "kappa"):
            a, b = mine[name], row[name]
            assert (a is None) == (b is None), (name, a, b)
            assert a is None or close(a, b), (name, a, b)
        if row["_both"]:  # with one true class, multiclass BA averages that class only
            assert close(mine["balanced_accuracy"], row["balanced_accuracy"])


# ---------------------------------------------------------------------------
# Confusion matrix against scikit-learn


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@settings(max_examples=40, deadline=None)
@given(data=labelled(), keys=KEYSETS, normalize=st.sampled_from([None, "true", "pred", "all"]))
def test_confusion_matrix_matches_sklearn(
    data: dict[str, Any], keys: tuple[str, ...], normalize: Any
) -> None:
    key_cols = {"_g": data["g"], "_h": data["h"]}
    universe = data["universe"]
    m = len(universe)
    conf, classes, rows = tables(data["yt"], data["yp"], {k: key_cols[k] for k in keys}, universe)
    got = confusion_matrix_frame(conf, classes, list(keys), [], normalize).collect()
    expected_cols = [*keys, "y_true", "y_pred", "count", *(["rate"] if normalize else [])]
    assert got.columns == expected_cols
    groups = group_rows(rows, list(keys))
    assert got.height == len(groups) * m * m
    if keys:
        assert_frame_equal(got.select(keys), got.select(keys).sort(list(keys), nulls_last=True))
    for key, part in groups:
        mine = pick(got, key)
        # every pair, in universe order (true major)
        assert mine["y_true"].to_list() == [c for c in universe for _ in universe]
        assert mine["y_pred"].to_list() == universe * m
        yt, yp = part["_yt"].to_list(), part["_yp"].to_list()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a single label: scikit-learn warns, we passed labels=
            ref = confusion_matrix(yt, yp, labels=universe, normalize=normalize)
        counts = confusion_matrix(yt, yp, labels=universe)
        np.testing.assert_array_equal(mine["count"].to_numpy().reshape(m, m), counts)
        if normalize:
            rate = mine["rate"].to_numpy().reshape(m, m).astype(float)
            den = {
                "true": counts.sum(1, keepdims=True),
                "pred": counts.sum(0, keepdims=True),
                "all": counts.sum(),
            }
            zero = np.broadcast_to(np.asarray(den[normalize]) == 0, (m, m))
            # null exactly where the normaliser is 0; scikit-learn has 0 there (convention "zero")
            np.testing.assert_array_equal(np.isnan(rate), zero)
            np.testing.assert_array_equal(ref[zero], 0.0)
            np.testing.assert_allclose(rate[~zero], ref[~zero], rtol=REL, atol=ABS)


def test_confusion_matrix_per_target_universe() -> None:
    conf, classes, _ = tables(
        ["a", "b", "x", "y"],
        ["a", "a", "y", "y"],
        {"_t": ["t1", "t1", None, None]},
        {"t1": ["b", "a"], None: ["x", "y", "z"]},
        "_t",
    )
    got = confusion_matrix_frame(conf, classes, ["_t"], ["_t"]).collect()
    assert got.height == 4 + 9
    t1 = got.filter(pl.col("_t") == "t1")
    assert t1.rows() == [("t1", "b", "b", 0), ("t1", "b", "a", 1), ("t1", "a", "b", 0), ("t1", "a", "a", 1)]
    rest = got.filter(pl.col("_t").is_null())
    np.testing.assert_array_equal(
        rest["count"].to_numpy().reshape(3, 3),
        confusion_matrix(["x", "y"], ["y", "y"], labels=["x", "y", "z"]),
    )


def test_normalize_option_is_checked() -> None:
    conf, classes, _ = tables([0], [0], {}, [0, 1])
    with pytest.raises(OptionError, match="normalize"):
        confusion_matrix_frame(conf, classes, [], [], "rows")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Names and refusals


def test_measure_names_and_aliases() -> None:
    assert resolve_matrix_measures(["MCC", "phi", "cohen_kappa", "qwk", "ba", "mcc"]) == (
        "mcc",
        "kappa",
        "kappa_quadratic",
        "balanced_accuracy",
    )
    assert resolve_matrix_measures(get_measure("kappa")) == ("kappa",)
    assert all(is_matrix_measure(m) for m in MATRIX_MEASURES)


@pytest.mark.parametrize("name", sorted(set(list_measures()) - set(MATRIX_MEASURES)))
def test_every_other_measure_is_refused(name: str) -> None:
    assert not is_matrix_measure(name)
    with pytest.raises(OptionError) as info:
        resolve_matrix_measures(["mcc", name])
    msg = str(info.value)
    assert repr(name) in msg
    assert "'macro'" in msg
    assert "'micro'" in msg
    assert all(m in msg for m in MATRIX_MEASURES)


def test_unknown_name() -> None:
    with pytest.raises(UnknownNameError, match="'mccc'"):
        resolve_matrix_measures("mccc")


def test_universe_keys_must_be_keys() -> None:
    conf, classes, _ = tables([0], [0], {"_g": ["a"]}, [0, 1])
    with pytest.raises(OptionError, match="universe keys"):
        matrix_values(conf, classes, ["_g"], ["_t"], ["mcc"])


# ---------------------------------------------------------------------------
# 10^4 classes: no m x m anywhere


def _direct(yt: np.ndarray, yp: np.ndarray, rank: np.ndarray) -> dict[str, float]:
    """Every measure from its definition in NumPy (exact integers for the weighted kappa sums)."""
    s = float(len(yt))
    c = float(np.sum(yt == yp))
    cls_t, t = np.unique(yt, return_counts=True)
    cls_p, p = np.unique(yp, return_counts=True)
    t, p = t.astype(float), p.astype(float)
    _, it, ip = np.intersect1d(cls_t, cls_p, return_indices=True)
    stp = float(np.sum(t[it] * p[ip]))
    correct = np.bincount(yt[yt == yp], minlength=int(rank.size))[cls_t].astype(float)
    ba = float(np.mean(correct / t))
    K = float(len(cls_t))
    out = {
        "accuracy": c / s,
        "mcc": (c * s - stp) / math.sqrt((s * s - np.sum(p * p)) * (s * s - np.sum(t * t))),
        "kappa": (c * s - stp) / (s * s - stp),
        "balanced_accuracy": ba,
        "balanced_accuracy_adjusted": (ba - 1 / K) / (1 - 1 / K),
    }
    # sum_jk w(j - k) t_j p_k in exact integers over the rank histograms, by other formulas than
    # aggframe's: raw moments for (j - k)^2, per-j cumulative sums for |j - k|
    T = np.bincount(rank[yt], minlength=rank.size)
    P = np.bincount(rank[yp], minlength=rank.size)
    j = np.arange(rank.size, dtype=np.int64)
    e_quad = P.sum() * (T @ j**2) - 2 * (T @ j) * (P @ j) + T.sum() * (P @ j**2)
    cum_p, cum_q = np.cumsum(P), np.cumsum(P * j)
    e_lin = T @ (j * cum_p - cum_q + (cum_q[-1] - cum_q) - j * (cum_p[-1] - cum_p))
    d_obs = rank[yt].astype(np.int64) - rank[yp]
    out["kappa_linear"] = 1.0 - int(np.abs(d_obs).sum()) * s / int(e_lin)
    out["kappa_quadratic"] = 1.0 - int((d_obs**2).sum()) * s / int(e_quad)
    return out


def test_ten_thousand_classes() -> None:
    rng = np.random.default_rng(15)
    m, n = 10_000, 6_000
    rank = rng.permutation(m + 2_000)  # class id -> rank; 2000 declared classes never occur
    yt = rng.integers(0, m, size=2 * n)
    # predictions near the truth in rank order, so the weighted kappas are far from 0
    by_rank = np.argsort(rank)
    yp = by_rank[np.clip(rank[yt] + rng.integers(-50, 51, size=2 * n), 0, m + 1_999)]
    g = np.repeat(np.array(["a", None], dtype=object), n)
    conf, classes, _ = tables(yt.tolist(), yp.tolist(), {"_g": g.tolist()}, by_rank.tolist())
    got = matrix_values(conf, classes, ["_g"], [], MATRIX_MEASURES).collect()
    for key, sl in (("a", slice(0, n)), (None, slice(n, 2 * n))):
        ours = dict(pick(got, {"_g": key}).select("measure", "value").iter_rows())
        ref = _direct(yt[sl], yp[sl], rank)
        for name in MATRIX_MEASURES:
            assert close(ours[name], ref[name]), (name, ours[name], ref[name])
