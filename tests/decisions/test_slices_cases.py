"""Slices: a planted slice is found first; options, null keys, hostile names, levels, empty slices."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import aggframe as af
from aggframe.exceptions import ColumnNotFoundError, OptionError, UnknownNameError


def _planted(n: int = 20_000, seed: int = 5, drop: float = 0.35) -> pl.DataFrame:
    """Binary labels; recall drops by ``drop`` on the 2% of rows with a = 0 and b = 0 (5 x 10 levels)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, n)
    b = rng.integers(0, 10, n)
    c = rng.integers(0, 3, n)
    y = rng.integers(0, 2, n)
    hit = np.where((a == 0) & (b == 0), 0.9 - drop, 0.9)
    p = np.where(y == 1, (rng.random(n) < hit).astype(int), (rng.random(n) < 0.1).astype(int))
    return pl.DataFrame({"example": np.arange(n), "a": a, "b": b, "c": c, "y_true": y, "y_pred": p})


@pytest.fixture(scope="module")
def planted_pr() -> af.Predictions:
    return af.from_labels(_planted(), example="example")


@pytest.fixture(scope="module")
def planted(planted_pr: af.Predictions) -> pl.DataFrame:
    return planted_pr.slices("recall", "binary", columns=["a", "b", "c"], min_examples=50, n_boot=60)


def test_planted_slice_is_found_first(planted: pl.DataFrame) -> None:
    first = planted.row(0, named=True)
    assert first["slice"] == "a=0 · b=0"
    assert first["significant"]
    assert first["worse"]
    assert first["ci_high"] < 0
    assert first["difference"] == pytest.approx(-0.35, abs=0.12)


def test_planted_slice_parents_and_refinements(planted_pr: af.Predictions, planted: pl.DataFrame) -> None:
    """As documented: refinements carry the same drop on fewer rows (wider intervals; one of them
    may by chance rank above the slice); a parent dilutes it by the slice's share of the parent;
    slices that do not hold it are not found."""
    first = planted.row(0, named=True)
    deeper = planted_pr.slices(
        "recall", "binary", columns=["a", "b", "c"], max_depth=3, min_examples=50, n_boot=60
    )
    rows = {r["slice"]: r for r in deeper.iter_rows(named=True)}
    assert deeper.row(0, named=True)["slice"].startswith("a=0 · b=0")
    # refinements (a=0 · b=0 · c=k): about the same difference, a wider interval
    for k in range(3):
        child = rows[f"a=0 · b=0 · c={k}"]
        assert child["difference"] == pytest.approx(first["difference"], abs=0.15)
        assert child["ci_high"] - child["ci_low"] > first["ci_high"] - first["ci_low"]
    # parents: the drop diluted (a = 0 holds 10 b's, one of them the slice)
    rows = {r["slice"]: r for r in planted.iter_rows(named=True)}
    parent_a, parent_b = rows["a=0"], rows["b=0"]
    assert abs(parent_a["difference"]) < abs(first["difference"]) / 3
    assert abs(parent_b["difference"]) < abs(first["difference"]) / 2
    # nothing else is found: every significant slice overlaps a=0 · b=0 (a is 0 or any, b is 0 or any)
    found = planted.filter("significant")
    assert found.height >= 3
    assert found.select(((pl.col("a").fill_null(0) == 0) & (pl.col("b").fill_null(0) == 0)).all()).item()


def test_bh_finds_at_least_what_holm_finds() -> None:
    pr = af.from_labels(_planted(n=8000, seed=2), example="example")
    options = {"columns": ["a", "b"], "min_examples": 40, "n_boot": 50}
    holm = pr.slices("recall", "binary", **options)
    bh = pr.slices("recall", "binary", correction="bh", **options)
    assert set(holm.filter("significant")["slice"]) <= set(bh.filter("significant")["slice"])
    assert holm.filter("significant").height >= 1
    # same p-values, the adjustment alone differs; BH's adjusted p-values are never larger
    joined = holm.join(bh, on="slice", suffix="_bh")
    np.testing.assert_allclose(joined["p_value"], joined["p_value_bh"], rtol=1e-9)
    assert (joined["p_adjusted_bh"] <= joined["p_adjusted"] + 1e-12).all()


def test_lower_is_better_measure_ranks_the_higher_error_first() -> None:
    df = _planted(n=8000, seed=3)
    pr = af.from_labels(df, example="example")
    assert not af.get_measure("fnr").greater_is_better
    out = pr.slices("fnr", "binary", columns=["a", "b"], min_examples=40, n_boot=50)
    first = out.row(0, named=True)
    assert first["slice"] == "a=0 · b=0"
    assert first["difference"] > 0
    assert first["worse"]


def test_null_keys_and_hostile_names() -> None:
    rng = np.random.default_rng(0)
    n = 3000
    key = rng.choice(np.array(["x", "(null)", "(all)", "", "a · b"], dtype=object), n).tolist()
    key = [None if i % 7 == 0 else k for i, k in enumerate(key)]
    y = rng.integers(0, 3, n)
    df = pl.DataFrame(
        {
            "__af_x": key,
            'we"ird name': rng.integers(0, 2, n),
            "n": pl.Series([None if i % 11 == 0 else i % 3 for i in range(n)], dtype=pl.Int64),
            "y_true": y,
            "y_pred": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)),
        }
    )
    pr = af.from_labels(df)
    out = pr.slices("f1", "macro", columns=["__af_x", 'we"ird name', "n"], min_examples=20, n_boot=20)
    assert out.columns[:3] == ["__af_x", 'we"ird name', "n"]
    labels = set(out["slice"])
    assert {"__af_x=(null)", '__af_x="(null)"', '__af_x="(all)"', '__af_x=""', '__af_x="a · b"'} <= labels
    assert '"we\\"ird name"=1' in labels
    assert "n=(null)" in labels
    assert len(labels) == out.height  # distinct slices, distinct labels
    null_slice = out.filter(pl.col("slice") == "__af_x=(null)").row(0, named=True)
    assert null_slice["n_examples"] == sum(k is None for k in key)


def test_one_level_column_has_no_complement() -> None:
    df = _planted(n=2000).with_columns(one=pl.lit("same"))
    out = af.from_labels(df).slices("recall", "binary", columns=["one", "a"], min_examples=20, n_boot=20)
    only = out.filter(pl.col("grouping_set") == "one").row(0, named=True)
    assert only["n_examples"] == 2000
    assert only["p_value"] is None
    assert not only["significant"]
    # one=same · a=k is the slice a=k: tested as such
    assert out.filter(pl.col("grouping_set") == "one,a")["p_value"].null_count() == 0


def test_many_levels_refused_before_the_bootstrap() -> None:
    df = _planted(n=20_000).with_columns(id=pl.int_range(pl.len()) % 10_000)
    pr = af.from_labels(df)
    with pytest.raises(OptionError, match=r"'id' has 10,000 distinct values, more than max_levels=200"):
        pr.slices("recall", "binary", columns=["a", "id"], n_boot=20)


def test_small_slices_are_left_out_with_their_refinements() -> None:
    df = _planted(n=2000)
    out = af.from_labels(df).slices("recall", "binary", columns=["a", "b"], min_examples=100, n_boot=20)
    assert out["n_examples"].min() >= 100  # type: ignore[operator]
    assert out.filter(pl.col("grouping_set") == "a,b").height == 0  # about 40 rows each: none left
    assert out.filter(pl.col("grouping_set") == "a").height == 5


def test_empty_and_all_undefined_slices() -> None:
    """No slice large enough: an empty frame with the columns; a slice where the measure is undefined: no p."""
    df = _planted(n=300)
    out = af.from_labels(df).slices("recall", "binary", columns=["a"], min_examples=1000, n_boot=10)
    assert out.height == 0
    assert out.columns[:3] == ["a", "grouping_set", "grouping_id"]
    # g = 1 has no positive: its recall is undefined, its p-value null and not counted
    df = pl.DataFrame({"g": [0, 1] * 100, "y_true": [1, 0, 0, 0] * 50, "y_pred": [1, 0] * 100})
    out = af.from_labels(df).slices("recall", "binary", columns="g", min_examples=10, n_boot=20)
    undefined = out.filter(pl.col("g") == 1).row(0, named=True)
    assert undefined["p_value"] is None
    assert undefined["p_adjusted"] is None
    assert not undefined["significant"]


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"columns": []}, OptionError, "needs columns="),
        ({"columns": ["a", "a"]}, OptionError, "twice"),
        ({"columns": ["nope"]}, ColumnNotFoundError, "nope"),
        ({"columns": ["a"], "max_depth": 0}, OptionError, "max_depth"),
        ({"columns": ["a"], "alpha": 1.5}, OptionError, "alpha"),
        ({"columns": ["a"], "correction": "bonferroni"}, OptionError, "'holm' or 'bh'"),
        ({"columns": ["a"], "min_examples": 0}, OptionError, "min_examples"),
        ({"columns": ["a"], "n_boot": 1}, OptionError, "n_boot"),
        ({"columns": ["a"], "n_boot": None}, OptionError, "n_boot="),
        ({"columns": ["a"], "convention": ["exclude", "zero"]}, OptionError, "one convention"),
        ({"columns": ["n_examples"]}, OptionError, "collides"),
    ],
)
def test_bad_options(options: dict[str, object], error: type[Exception], match: str) -> None:
    pr = af.from_labels(_planted(n=200))
    with pytest.raises(error, match=match):
        pr.slices("recall", "binary", **options)


def test_bad_measures() -> None:
    pr = af.from_labels(_planted(n=200))
    with pytest.raises(UnknownNameError):
        pr.slices("nope", columns="a")
    with pytest.raises(OptionError, match="one measure"):
        pr.slices(["recall", "f1"], columns="a")
    scores = af.from_scores(
        pl.DataFrame(
            {
                "example": [0, 0, 1, 1] * 25,
                "class": [0, 1] * 50,
                "score": [0.4, 0.6, 0.7, 0.3] * 25,
                "y": [0, 1] * 50,
            }
        ).with_columns(a=pl.col("example") % 2),
        example="example",
    )
    with pytest.raises(OptionError, match="micro, macro or weighted"):  # the operators with replicates
        scores.slices("auroc", "exemplar", columns="a")
    folds = af.from_labels(_planted(n=200).with_columns(f=pl.col("c")), fold="f")
    with pytest.raises(OptionError, match="fold"):
        folds.slices("recall", columns="a")
