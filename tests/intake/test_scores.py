"""from_scores: decisions against NumPy and aggmetrics, lazy = eager = streaming, bad input."""

from __future__ import annotations

import re
from typing import Any

import aggmetrics as am
import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.constructors import from_scores
from tests.strategies import OPERATORS

GRID = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]


@st.composite
def score_matrices(
    draw: st.DrawFn, *, values: list[float] = GRID, max_n: int = 20, max_m: int = 5
) -> tuple[np.ndarray, np.ndarray]:
    """(Y, S): crisp truth and scores on a coarse grid (so ties are frequent)."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(2, max_m))
    Y = np.array(draw(st.lists(st.sampled_from([0, 1]), min_size=n * m, max_size=n * m))).reshape(n, m)
    S = np.array(draw(st.lists(st.sampled_from(values), min_size=n * m, max_size=n * m))).reshape(n, m)
    return Y, S


def long_scores(Y: np.ndarray, S: np.ndarray) -> pl.DataFrame:
    n, m = S.shape
    ex, cl = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    return pl.DataFrame({"example": ex.ravel(), "class": cl.ravel(), "score": S.ravel(), "y": Y.ravel()})


def decided(pr: af.Predictions, shape: tuple[int, int]) -> np.ndarray:
    """The derived prediction column, back as an n x m matrix."""
    frame = pr.source.decisions().sort("example", "class")  # type: ignore[attr-defined]
    return frame["p"].to_numpy().reshape(shape)


def np_top_k(S: np.ndarray, k: int) -> np.ndarray:
    # stable sort of -S: equal scores keep column order, i.e. the smallest class first
    order = np.argsort(-S, axis=1, kind="stable")
    P = np.zeros_like(S, dtype=np.int8)
    np.put_along_axis(P, order[:, :k], 1, axis=1)
    return P


def np_argmax(S: np.ndarray) -> np.ndarray:
    P = np.zeros_like(S, dtype=np.int8)
    P[np.arange(S.shape[0]), S.argmax(axis=1)] = 1  # first maximum = smallest class
    return P


def assert_same_cells(pr: af.Predictions, Y: np.ndarray, P: np.ndarray) -> None:
    ref = af.from_indicator(Y, P)
    assert_frame_equal(pr.cells("class"), ref.cells("class"), check_dtypes=False)
    assert_frame_equal(pr.cells("profiles"), ref.cells("profiles"), check_dtypes=False)


# -- decisions against NumPy ------------------------------------------------------------


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(data=score_matrices(), t=st.sampled_from(GRID))
def test_threshold_matches_numpy(data: tuple[np.ndarray, np.ndarray], t: float) -> None:
    Y, S = data
    # the threshold reading stated: generated scores may sum to one per example (the softmax warning)
    pr = from_scores(long_scores(Y, S), threshold=t, decision="threshold")
    P = (t < S).astype(np.int8)
    assert (decided(pr, S.shape) == P).all()
    assert_same_cells(pr, Y, P)


@given(data=score_matrices(), ts=st.lists(st.sampled_from(GRID), min_size=5, max_size=5))
def test_threshold_per_class_matches_numpy(data: tuple[np.ndarray, np.ndarray], ts: list[float]) -> None:
    Y, S = data
    m = S.shape[1]
    pr = from_scores(long_scores(Y, S), threshold=dict(enumerate(ts[:m])), decision="threshold")
    P = (np.array(ts[:m])[None, :] < S).astype(np.int8)
    assert (decided(pr, S.shape) == P).all()


@given(data=score_matrices(values=[-30.0, -2.0, -0.5, 0.0, 0.5, 2.0, 30.0]), t=st.sampled_from(GRID))
def test_threshold_on_logits_matches_numpy(data: tuple[np.ndarray, np.ndarray], t: float) -> None:
    Y, S = data
    pr = from_scores(long_scores(Y, S), threshold=t, logits=True, decision="threshold")
    with np.errstate(divide="ignore"):
        P = (np.log(t / (1 - t)) < S if 0 < t < 1 else np.full(S.shape, t == 0)).astype(np.int8)
    assert (decided(pr, S.shape) == P).all()
    # away from the cut, the same as thresholding the sigmoid
    sig = 1 / (1 + np.exp(-S))
    away = np.abs(sig - t) > 1e-9
    assert (decided(pr, S.shape)[away] == (sig > t)[away]).all()


@given(data=score_matrices(values=[0.0, 0.25, 0.5, 1.0]))
def test_argmax_with_ties_matches_numpy(data: tuple[np.ndarray, np.ndarray]) -> None:
    Y, S = data
    pr = from_scores(long_scores(Y, S), decision="argmax")
    P = np_argmax(S)
    got = decided(pr, S.shape)
    assert (got.sum(axis=1) == 1).all()
    assert (got == P).all()
    assert_same_cells(pr, Y, P)


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(data=score_matrices(values=[0.0, 0.25, 0.5, 1.0]), k=st.integers(1, 5))
def test_top_k_with_ties_matches_numpy(data: tuple[np.ndarray, np.ndarray], k: int) -> None:
    Y, S = data
    k = min(k, S.shape[1])
    pr = from_scores(long_scores(Y, S), decision="top_k", k=k)
    P = np_top_k(S, k)
    got = decided(pr, S.shape)
    assert (got.sum(axis=1) == k).all()
    assert (got == P).all()
    assert_same_cells(pr, Y, P)


@given(data=score_matrices(values=[-3.0, -1.0, 0.0, 2.0, 7.5]))
def test_argmax_and_top_k_take_raw_scores(data: tuple[np.ndarray, np.ndarray]) -> None:
    # no probabilities needed: the same decisions with or without logits=True
    Y, S = data
    frame = long_scores(Y, S)
    for logits in (False, True):
        assert (decided(from_scores(frame, decision="argmax", logits=logits), S.shape) == np_argmax(S)).all()
        got = decided(from_scores(frame, decision="top_k", k=2, logits=logits), S.shape)
        assert (got == np_top_k(S, 2)).all()


def test_top_1_is_argmax_and_top_m_predicts_everything() -> None:
    rng = np.random.default_rng(3)
    S = rng.integers(0, 3, (40, 4)).astype(float)
    Y = rng.integers(0, 2, (40, 4))
    frame = long_scores(Y, S)
    assert (decided(from_scores(frame, decision="top_k", k=1), S.shape) == np_argmax(S)).all()
    assert (decided(from_scores(frame, decision="top_k", k=4), S.shape) == 1).all()


def _predicted(pr: af.Predictions) -> set[str]:
    out = pr.source.decisions()  # type: ignore[attr-defined]
    return set(out.filter(pl.col("p") == 1)["class"].cast(pl.String).to_list())


@pytest.mark.parametrize(
    ("dtype", "order"),
    [
        (pl.String, "abc"),  # lexicographic
        (pl.Categorical, "abc"),  # compared as strings, whatever the physical order (b, c, a here)
        (pl.Enum(["c", "b", "a"]), "cba"),  # declared order
    ],
)
def test_tie_rule_follows_the_class_sort_order(dtype: pl.DataType, order: str) -> None:
    frame = pl.DataFrame(
        {"example": [0, 0, 0], "class": ["b", "c", "a"], "score": [0.5, 0.5, 0.5], "y": [1, 0, 0]}
    ).with_columns(pl.col("class").cast(dtype))
    assert _predicted(from_scores(frame, decision="argmax")) == {order[0]}
    for k in (1, 2, 3):
        assert _predicted(from_scores(frame, decision="top_k", k=k)) == set(order[:k])


@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical, pl.Enum(["c", "b", "a"])])
def test_per_class_thresholds_on_named_classes(dtype: pl.DataType) -> None:
    frame = pl.DataFrame(
        {"example": [0, 0, 0, 1, 1, 1], "class": ["a", "b", "c"] * 2, "score": [0.3, 0.6, 0.9] * 2, "y": 0}
    ).with_columns(pl.col("class").cast(dtype))
    pr = from_scores(frame, threshold={"a": 0.2, "b": 0.7, "c": np.float32(0.85)})
    assert _predicted(pr) == {"a", "c"}
    with pytest.raises(af.errors.UnknownClassError, match="'d'"):
        from_scores(frame, threshold={"a": 0.2, "b": 0.7, "c": 0.5, "d": 0.5}, classes=["a", "b", "c"])


@pytest.mark.slow  # a long differential or property run: CI runs it, the quick loop does not
@given(data=score_matrices())
def test_keep_soft_equals_soft_indicator_matrices(data: tuple[np.ndarray, np.ndarray]) -> None:
    Y, S = data
    pr = from_scores(long_scores(Y, S), keep_soft="product")
    ref = af.from_indicator(Y, S, tnorm="product")
    assert_frame_equal(pr.cells("class"), ref.cells("class"), check_dtypes=False)
    got = pr.evaluate(["f1", "mcc"], OPERATORS, convention="zero")
    exp = ref.evaluate(["f1", "mcc"], OPERATORS, convention="zero")
    assert got["value"].to_list() == pytest.approx(exp["value"].to_list(), nan_ok=True)


def test_keep_soft_with_logits_keeps_the_sigmoid() -> None:
    rng = np.random.default_rng(4)
    S = rng.normal(0, 2, (30, 3))
    Y = rng.integers(0, 2, (30, 3))
    pr = from_scores(long_scores(Y, S), keep_soft="godel", logits=True)
    ref = af.from_indicator(Y, 1 / (1 + np.exp(-S)), tnorm="godel")
    assert_frame_equal(pr.cells("class"), ref.cells("class"), check_dtypes=False, abs_tol=1e-12)


# -- against aggmetrics' IndicatorMatrix with score matrices -------------------------------

SOFT_GRID = [0.05, 0.1, 0.3, 0.5, 0.7, 0.95]


def _compare_with_aggmetrics(pr: af.Predictions, im: am.IndicatorMatrix) -> None:
    assert np.allclose(pr.cells("class").select("tp", "fp", "fn", "tn").to_numpy(), im.per_class())
    out = pr.evaluate(["precision", "recall", "f1", "mcc", "jaccard"], OPERATORS)
    assert isinstance(out, pl.DataFrame)
    for row in out.iter_rows(named=True):
        try:
            ref = im.compute(row["measure"], row["operator"], convention="exclude")
        except ZeroDivisionError:
            # aggmetrics 0.2.0 crashes when the counted entries have no support
            # (weighted); aggframe's answer is tested in test_oracle
            assert row["operator"] == "weighted"
            continue
        assert row["value"] == pytest.approx(ref, nan_ok=True), row


@given(data=score_matrices(values=SOFT_GRID))
def test_argmax_matches_aggmetrics_multiclass(data: tuple[np.ndarray, np.ndarray]) -> None:
    _, S = data
    n, m = S.shape
    yt = np.arange(n) % m
    Y = np.eye(m, dtype=int)[yt]
    pr = from_scores(long_scores(Y, S), decision="argmax")
    _compare_with_aggmetrics(pr, am.IndicatorMatrix(yt, S, task="multiclass", n_classes=m))


@given(data=score_matrices(values=SOFT_GRID), t=st.sampled_from([0.2, 0.5, 0.75]))
def test_threshold_matches_aggmetrics_multilabel(data: tuple[np.ndarray, np.ndarray], t: float) -> None:
    Y, S = data
    pr = from_scores(long_scores(Y, S), threshold=t, decision="threshold")
    _compare_with_aggmetrics(pr, am.IndicatorMatrix(Y, S, task="multilabel", threshold=t))


# -- lazy = eager = streaming, groups, sparse, one extra read ---------------------------------


def _frame(seed: int = 0, n: int = 60, m: int = 4) -> tuple[np.ndarray, np.ndarray, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    S = rng.choice([0.1, 0.4, 0.6, 0.9], size=(n, m))
    Y = rng.integers(0, 2, (n, m))
    return Y, S, long_scores(Y, S)


@pytest.mark.parametrize(
    "options", [{}, {"decision": "argmax"}, {"decision": "top_k", "k": 2}, {"keep_soft": "product"}]
)
def test_lazy_equals_eager_equals_streaming(options: dict[str, Any]) -> None:
    _, _, frame = _frame()
    eager = from_scores(frame, **options).evaluate(["f1", "mcc"], OPERATORS)
    lazy_in = from_scores(frame.lazy(), **options).evaluate(["f1", "mcc"], OPERATORS)
    lazy_plan = from_scores(frame.lazy(), **options).evaluate(["f1", "mcc"], OPERATORS, lazy=True)
    streaming = from_scores(frame.lazy(), **options).evaluate(["f1", "mcc"], OPERATORS, engine="streaming")
    assert isinstance(lazy_plan, pl.LazyFrame)
    assert_frame_equal(eager, lazy_in)
    assert_frame_equal(eager, lazy_plan.collect())
    assert_frame_equal(eager, lazy_plan.collect(engine="streaming"))
    assert_frame_equal(eager, streaming)


def test_over_keeps_groups_apart() -> None:
    # two models score the same example ids: the windows must not mix them
    frames = []
    for model, seed in (("a", 1), ("b", 2)):
        _, _, f = _frame(seed)
        frames.append(f.with_columns(pl.lit(model).alias("model")))
    both = pl.concat(frames)
    got = from_scores(both.lazy(), decision="argmax", over="model").evaluate(["f1"], OPERATORS, by="model")
    for model, f in zip(("a", "b"), frames, strict=True):
        ref = from_scores(f, decision="argmax").evaluate(["f1"], OPERATORS)
        assert got.filter(pl.col("model") == model)["value"].to_list() == pytest.approx(
            ref["value"].to_list()
        )
    # without by=, one example would span both models: refused at the first evaluation (the check
    # rides on the per-example aggregation; a construction-time check cost a hash of every row)
    with pytest.raises(
        af.errors.DuplicateEntryError, match=r"480 rows repeat an \(example, class\) entry.*over="
    ):
        from_scores(both, decision="argmax").evaluate(["f1"], OPERATORS)
    with pytest.raises(af.errors.DuplicateEntryError, match="top_k decides per example"):
        from_scores(both, decision="top_k", k=2).evaluate(["f1"], OPERATORS)
    # a threshold decides entry by entry: no window, so by= alone keeps the models apart
    got = from_scores(both, threshold=0.5).evaluate(["f1"], OPERATORS, by="model")
    ref = from_scores(frames[0], threshold=0.5).evaluate(["f1"], OPERATORS)
    assert got.filter(pl.col("model") == "a")["value"].to_list() == pytest.approx(ref["value"].to_list())


def test_sparse_scores_with_a_universe() -> None:
    # absent entries are never predicted and count as observed true negatives
    frame = pl.DataFrame(
        {"example": [0, 0, 1, 2], "class": [0, 2, 1, 3], "score": [0.9, 0.3, 0.2, 0.6], "y": [1, 0, 1, 0]}
    )
    pr = from_scores(frame, decision="top_k", k=2, n_classes=4)
    Y = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]])
    P = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
    assert_same_cells(pr, Y, P)


def test_a_column_named_p_is_left_alone() -> None:
    _, S, frame = _frame()
    frame = frame.with_columns(pl.lit("unrelated").alias("p"))
    pr = from_scores(frame, decision="argmax")
    assert pr.source.long_roles is not None
    assert pr.source.long_roles.p != "p"
    assert (decided(pr, S.shape) == np_argmax(S)).all()


@pytest.mark.parametrize(("decision", "reads"), [("top_k", 3), ("argmax", 2), ("threshold", 2)])
def test_the_scores_are_read_once_for_the_checks(decision: str, reads: int) -> None:
    from polars.io.plugins import register_io_source

    _, _, frame = _frame()
    calls = [0]

    def source(with_columns, predicate, n_rows, batch_size):  # type: ignore[no-untyped-def]
        calls[0] += 1
        yield frame if with_columns is None else frame.select(with_columns)

    lf = register_io_source(source, schema=frame.schema)
    pr = from_scores(lf, decision=decision, k=2 if decision == "top_k" else None, threshold=0.5)
    assert calls[0] == 1  # one check query, whatever the number of checks
    pr.evaluate(["f1"], OPERATORS)
    # then the grains, one read each: per class and per example (argmax, threshold); top-k reads
    # the rows once more per best class after the first (k = 2 here: each pass sets the found aside)
    assert calls[0] == 1 + reads


# -- bad input ----------------------------------------------------------------------------


def _bad(score: list[float | None]) -> pl.DataFrame:
    n = len(score)
    return pl.DataFrame(
        {
            "example": [i // 2 for i in range(n)],
            "class": [i % 2 for i in range(n)],
            "score": score,
            "y": [0] * n,
        },
        schema_overrides={"score": pl.Float64},
    )


def test_scores_outside_unit_interval_need_logits() -> None:
    frame = _bad([0.2, 1.5, -0.1, 0.7])
    # the threshold decision needs probabilities: refused where it is made (the cell
    # measures, decisions(), the cell tables), not at construction
    pr = from_scores(frame)
    bad = r"column 'score': 2 score\(s\) outside \[0, 1\].*example=0, class=1.*a threshold decision"
    for decide in (
        lambda: pr.evaluate("f1"),
        pr.source.decisions,
        pr.extend.cell_tables,
        lambda: pr.evaluate(["auroc", "f1"]),
    ):
        with pytest.raises(af.errors.InvalidValueError, match=bad):
            decide()
    with pytest.raises(af.errors.InvalidValueError, match="outside"):
        from_scores(frame, keep_soft="product")
    from_scores(frame, logits=True)  # logits: any real score
    from_scores(frame, decision="argmax")  # argmax never needs probabilities
    from_scores(frame, decision="top_k", k=1)


@pytest.mark.parametrize("decision", ["threshold", "argmax", "top_k"])
def test_null_and_nan_scores(decision: str) -> None:
    k = 1 if decision == "top_k" else None
    with pytest.raises(
        af.errors.NullValueError, match=r"column 'score': 1 null score\(s\).*example=1, class=0"
    ):
        from_scores(_bad([0.2, 0.3, None, 0.1]), decision=decision, k=k)
    with pytest.raises(
        af.errors.NullValueError, match=r"column 'score': 2 NaN score\(s\).*example=0, class=1"
    ):
        from_scores(_bad([0.2, float("nan"), 0.1, float("nan")]), decision=decision, k=k, logits=True)


def test_k_out_of_range() -> None:
    frame = _bad([0.2, 0.3, 0.4, 0.1])
    with pytest.raises(
        af.errors.OptionError, match=r"k=3 is larger than the number of classes in column 'class' \(2\)"
    ):
        from_scores(frame, decision="top_k", k=3)
    with pytest.raises(
        af.errors.OptionError, match=r"k=5 is larger than the number of classes \(4 declared\)"
    ):
        from_scores(frame, decision="top_k", k=5, n_classes=4)
    from_scores(frame, decision="top_k", k=3, n_classes=4)  # the universe counts, not the data
    from_scores(frame, decision="top_k", k=np.int64(2))
    for bad in (0, -1):
        with pytest.raises(af.errors.OptionError, match=">= 1"):
            from_scores(frame, decision="top_k", k=bad)
    for bad_k in (None, 1.5, True):
        with pytest.raises(af.errors.OptionError, match="positive integer"):
            from_scores(frame, decision="top_k", k=bad_k)  # type: ignore[arg-type]
    with pytest.raises(af.errors.OptionError, match="top_k' only"):
        from_scores(frame, decision="argmax", k=1)


def test_thresholds_out_of_range_or_naming_unknown_classes() -> None:
    frame = _bad([0.2, 0.3, 0.4, 0.1])
    for t in (-0.1, 1.5, float("nan")):
        with pytest.raises(af.errors.OptionError, match=r"\[0, 1\]"):
            from_scores(frame, threshold=t)
    with pytest.raises(af.errors.OptionError, match="the threshold of class 1"):
        from_scores(frame, threshold={0: 0.5, 1: 2.0})
    with pytest.raises(
        af.errors.UnknownClassError, match=r"1 class\(es\) that never occur in the data \(e.g. 7\)"
    ):
        from_scores(frame, threshold={0: 0.5, 1: 0.5, 7: 0.5})
    with pytest.raises(af.errors.UnknownClassError, match=r"outside the declared universe \(e.g. 7\)"):
        from_scores(frame, threshold={0: 0.5, 1: 0.5, 7: 0.5}, n_classes=3)
    with pytest.raises(af.errors.UnknownClassError, match="cannot be values"):
        from_scores(frame, threshold={"zero": 0.5})
    with pytest.raises(
        af.errors.OptionError, match=r"column 'class': 2 row\(s\) of classes the threshold dict does not name"
    ):
        from_scores(frame, threshold={0: 0.5})
    with pytest.raises(af.errors.OptionError, match="empty"):
        from_scores(frame, threshold={})
    # classes named but absent from the data are fine when declared
    from_scores(frame, threshold={0: 0.5, 1: 0.5, 2: 0.1}, n_classes=3)


def test_option_errors() -> None:
    frame = _bad([0.2, 0.3, 0.4, 0.1])
    with pytest.raises(
        af.errors.UnknownNameError,
        match="unknown decision 'softmax'; valid decisions: threshold, argmax, top_k",
    ):
        from_scores(frame, decision="softmax")
    with pytest.raises(af.errors.UnknownNameError, match="t-norm"):
        from_scores(frame, keep_soft="max")
    with pytest.raises(af.errors.OptionError, match="keep_soft"):
        from_scores(frame, keep_soft="product", decision="argmax")
    with pytest.raises(af.errors.OptionError, match="threshold"):
        from_scores(frame, decision="argmax", threshold=0.3)
    with pytest.raises(af.errors.ColumnNotFoundError, match=re.escape("column 'prob' (role 'score')")):
        from_scores(frame, score="prob")
    with pytest.raises(af.errors.ColumnNotFoundError, match="'model'"):
        from_scores(frame, over="model")
    with pytest.raises(af.errors.InvalidValueError, match="dtype"):
        from_scores(frame.with_columns(pl.col("score").cast(pl.String)))
    with pytest.raises(af.errors.EmptyInputError):
        from_scores(frame.clear())
    assert from_scores(frame, decision="top-k", k=1).source.long_roles is not None  # spelling variants


def test_truth_is_still_checked_by_the_core() -> None:
    frame = _bad([0.2, 0.3, 0.4, 0.1]).with_columns(pl.Series("y", [0.0, 0.5, 1.0, 0.0]))
    with pytest.raises(af.errors.InvalidValueError, match="column 'y'"):
        from_scores(frame).compute("f1")


# ---------------------------------------------------------------------------
# An observation mask: the measures on scores read the observed entries only


@pytest.mark.parametrize("seed", range(4))
def test_masked_scores_match_sklearn_on_the_observed_entries(seed: int) -> None:
    """AUROC, AP, log loss and Brier (micro and macro), the ROC curve and the reliability counts
    of masked scores equal scikit-learn's on the observed entries, as the cell measures do.

    Regression: the measures on scores read every entry, unobserved ones included (AUROC 0.6 where
    scikit-learn on the observed entries has 0.75); the cell measures of the same object did not.
    """
    from sklearn.metrics import average_precision_score, brier_score_loss, log_loss, roc_auc_score, roc_curve

    rng = np.random.default_rng(seed)
    n, m = 40, 3
    frame = pl.DataFrame(
        {
            "example": np.repeat(np.arange(n), m),
            "class": np.tile(np.arange(m), n),
            "score": rng.random(n * m).round(2),
            "y": rng.integers(0, 2, n * m),
            "obs": (rng.random(n * m) < 0.7).astype(np.int64),
        }
    )
    pr = af.from_scores(frame, example="example", mask="obs", decision="threshold")
    kept = frame.filter(pl.col("obs") == 1)
    got = pr.evaluate(["auroc", "average_precision", "log_loss", "brier"], ["micro", "macro"])
    value = {(r["measure"], r["operator"]): r["value"] for r in got.iter_rows(named=True)}
    y, s = kept["y"].to_numpy(), kept["score"].to_numpy()
    assert value["auroc", "micro"] == pytest.approx(roc_auc_score(y, s))
    assert value["average_precision", "micro"] == pytest.approx(average_precision_score(y, s))
    assert value["log_loss", "micro"] == pytest.approx(log_loss(y, s, labels=[0, 1]))
    assert value["brier", "micro"] == pytest.approx(brier_score_loss(y, s))
    per_class = [kept.filter(pl.col("class") == c) for c in range(m)]
    macro = np.mean([roc_auc_score(c["y"], c["score"]) for c in per_class])
    assert value["auroc", "macro"] == pytest.approx(macro)
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    curve = pr.curve("roc", "micro")
    assert curve.height == len(np.unique(s)) + 1
    assert set(zip(curve["fpr"].round(12), curve["tpr"].round(12), strict=True)) == set(
        zip(fpr.round(12), tpr.round(12), strict=True)
    )
    assert pr.calibration(bins=5, operator="micro")["count"].sum() == kept.height
    # the cell measures of the same predictions read the same entries
    f1 = pr.compute("f1", "micro")
    decided = kept.with_columns(p=(pl.col("score") > 0.5).cast(pl.Int64))  # "above the threshold"
    tp = decided.filter((pl.col("y") == 1) & (pl.col("p") == 1)).height
    assert f1 == pytest.approx(2 * tp / (decided["y"].sum() + decided["p"].sum()))


@pytest.mark.parametrize(
    ("mask", "error", "text"),
    [
        ([1, 1, None, 1], af.errors.NullValueError, r"column 'obs': 1 null value"),
        ([1, 1, 0.5, 1], af.errors.InvalidValueError, r"column 'obs': 1 value\(s\) other than 0 and 1"),
        ([1, 2, 1, 1], af.errors.InvalidValueError, r"column 'obs': 1 value\(s\) other than 0 and 1"),
    ],
)
def test_a_mask_of_scores_is_checked(mask: list[Any], error: type[Exception], text: str) -> None:
    frame = pl.DataFrame(
        {"example": [0, 0, 1, 1], "class": [0, 1, 0, 1], "score": [0.9, 0.2, 0.4, 0.7], "y": [1, 0, 0, 1]}
    ).with_columns(obs=pl.Series(mask, strict=False))
    with pytest.raises(error, match=text):
        af.from_scores(frame, example="example", mask="obs", decision="threshold").evaluate("auroc", "micro")


@pytest.mark.parametrize("role", ["score", "y"])
def test_a_score_column_of_nothing_but_nulls(role: str) -> None:
    """A score or truth column of dtype Null is a NullValueError with its count (it was "has dtype
    Unknown; expected numbers")."""
    frame = pl.DataFrame(
        {"example": [1, 1, 2, 2], "class": [0, 1, 0, 1], "y": [1, 0, 0, 1], "score": [0.1, 0.9, 0.4, 0.6]}
    ).with_columns(pl.lit(None).alias(role))
    assert frame.schema[role] == pl.Null
    with pytest.raises(af.errors.NullValueError, match=rf"column '{role}': 4 null"):
        # a null truth is unlabelled (af.estimate reads it): refused when a measure reads it
        af.from_scores(frame, example="example", decision="argmax").evaluate("auroc", "macro")


def test_masked_scores_with_a_null_key_and_internal_names() -> None:
    """A mask column named like a cell (``tp``) and a null by-key: each group reads its observed entries."""
    from sklearn.metrics import roc_auc_score

    frame = pl.DataFrame(
        {
            "n": ["a"] * 6 + [None] * 6,
            "example": np.repeat(np.arange(6), 2),
            "class": np.tile([0, 1], 6),
            "score": [0.9, 0.2, 0.8, 0.3, 0.1, 0.7, 0.6, 0.4, 0.3, 0.8, 0.5, 0.5],
            "y": [1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0],
            "tp": [1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1],
        }
    )
    got = af.from_scores(frame, example="example", mask="tp", decision="threshold").evaluate(
        "auroc", "micro", by="n"
    )
    for key, value in zip(got["n"], got["value"], strict=True):
        kept = frame.filter(pl.col("n").eq_missing(key) & (pl.col("tp") == 1))
        assert value == pytest.approx(roc_auc_score(kept["y"], kept["score"]))
