"""``af.estimate``: calibration corrects miscalibrated scores, concept shift breaks it, realized values,
keys, names, engines, warnings and errors."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import aggframe as af
from aggframe.exceptions import OptionError, SourceError


def _binary(seed: int, n: int, truth: float = 3.0, **extra: object) -> pl.DataFrame:
    """Scores s ~ U(0, 1) with truth ~ Bernoulli(s ** truth): miscalibrated unless truth == 1."""
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < s**truth).astype(np.int64)
    return pl.DataFrame({"score": s, "y": y, **extra})


def _value(out: pl.DataFrame, kind: str, measure: str = "f1") -> float:
    return float(out.filter(pl.col("kind") == kind, pl.col("measure") == measure)["value"].item())


@pytest.fixture(scope="module")
def cubed() -> tuple[af.Predictions, af.Predictions]:
    """A reference and new data whose truth is Bernoulli(score ** 3), all labelled."""
    ref = af.from_scores(_binary(1, 4000), class_=None)
    data = af.from_scores(_binary(2, 4000, lab=[True] * 4000), class_=None)
    return ref, data


def test_isotonic_and_platt_correct_miscalibrated_scores(
    cubed: tuple[af.Predictions, af.Predictions],
) -> None:
    ref, data = cubed
    raw = af.estimate(ref, data, ["f1", "precision"], "binary", calibration="none", labelled="lab")
    iso = af.estimate(ref, data, ["f1", "precision"], "binary", calibration="isotonic", labelled="lab")
    for m in ("f1", "precision"):
        realized = _value(iso, "realized", m)
        assert realized == _value(raw, "realized", m)
        assert abs(_value(iso, "estimated", m) - realized) < 0.03, m
        assert abs(_value(raw, "estimated", m) - realized) > 0.1, m  # read as they are, the scores mislead
    # the reference's calibration error is large before the map and small after it
    ece = af.fit_calibration(ref).ece.row(0, named=True)
    assert ece["ece_raw"] > 0.15
    assert ece["ece_calibrated"] < 0.02
    platt = af.fit_calibration(ref, calibration="platt")
    assert platt.ece["ece_calibrated"].item() < ece["ece_raw"]


def test_concept_shift_makes_the_estimate_wrong() -> None:
    # the reference's truth follows the scores; in the new data the same scores mean less
    ref = af.from_scores(_binary(3, 4000, truth=1.0), class_=None)
    shifted = af.from_scores(_binary(4, 4000, truth=4.0, lab=[True] * 4000), class_=None)
    out = af.estimate(ref, shifted, "precision", "binary", labelled="lab")
    assert _value(out, "estimated", "precision") - _value(out, "realized", "precision") > 0.2


def test_realized_values_are_evaluate_on_the_labelled_rows() -> None:
    frame = _binary(5, 600, truth=1.0, lab=np.arange(600) % 3 == 0, g=["x", None, "y"] * 200)
    ref = af.from_scores(_binary(6, 2000, truth=1.0), class_=None)
    data = af.from_scores(frame, class_=None)
    out = af.estimate(ref, data, ["f1", "recall"], "binary", by="g", labelled="lab")
    labelled = af.from_scores(frame.filter(pl.col("lab")), class_=None)
    expected = labelled.evaluate(["f1", "recall"], "binary", by="g").select("g", "measure", "value")
    realized = out.filter(pl.col("kind") == "realized").select("g", "measure", "value")
    assert_frame_equal(realized, expected, check_row_order=False)
    shares = out.group_by("g").agg(pl.col("labelled_share").first(), pl.col("n_examples").first())
    counts = frame.group_by("g").agg(
        pl.col("lab").mean().alias("labelled_share"), pl.len().cast(pl.Int64).alias("n")
    )
    joined = shares.join(counts, on="g", nulls_equal=True)
    assert joined.height == 3  # the null key is a group
    assert (joined["labelled_share"] == joined["labelled_share_right"]).all()
    assert (joined["n_examples"] == joined["n"]).all()
    # without `labelled`, a row is labelled when its truth is not null
    assert set(af.estimate(ref, data, "f1", "binary")["kind"]) == {"estimated", "realized"}


def test_multiclass_wide_estimate_matches_realized() -> None:
    rng = np.random.default_rng(7)

    def frame(n: int) -> pl.DataFrame:
        p = rng.dirichlet([2.0, 1.0, 1.0], size=n)
        y = (rng.uniform(size=n)[:, None] > p.cumsum(axis=1)).sum(axis=1)
        return pl.DataFrame(
            {"y_true": np.array(["a", "b", "c"])[y], "p_a": p[:, 0], "p_b": p[:, 1], "p_c": p[:, 2]}
        )

    read = {"y_true": "y_true", "scores": ["p_a", "p_b", "p_c"], "decision": "argmax"}
    ref = af.from_scores(frame(3000), **read)
    data = af.from_scores(frame(3000).with_columns(lab=pl.lit(True)), **read)
    out = af.estimate(ref, data, ["f1", "recall"], ["macro", "micro"], labelled="lab")
    for m, op in (("f1", "macro"), ("recall", "micro")):
        rows = out.filter(pl.col("measure") == m, pl.col("operator") == op)
        est = rows.filter(pl.col("kind") == "estimated")["value"].item()
        real = rows.filter(pl.col("kind") == "realized")["value"].item()
        assert abs(est - real) < 0.04, (m, op, est, real)


@pytest.mark.parametrize("name", ["p", "tp", "n", "__af_x", "a b", 'q"uote', "ünï", "draw", "k0", "example"])
def test_hostile_and_null_keys(name: str) -> None:
    frame = _binary(8, 300, truth=1.0, lab=[True, False] * 150).with_columns(
        pl.Series(name, ["u", None, "v"] * 100)
    )
    ref = af.from_scores(_binary(9, 1000, truth=1.0), class_=None)
    out = af.estimate(
        ref, af.from_scores(frame, class_=None), "f1", "binary", by=name, labelled="lab", n_draws=5
    )
    assert out.columns[0] == name
    assert out.filter(pl.col("kind") == "estimated").height == 3
    assert out[name].null_count() == 2  # estimated and realized of the null group
    assert out.filter(pl.col("kind") == "estimated")["ci_low"].null_count() == 0


def test_a_key_named_like_a_result_column_is_refused() -> None:
    data = af.from_scores(_binary(10, 50, truth=1.0, kind=["a"] * 50), class_=None)
    with pytest.raises(OptionError, match="'kind' collides"):
        af.estimate(data, data, "f1", "binary", by="kind")


def test_eager_lazy_streaming_agree(tmp_path: Path) -> None:
    frame = _binary(11, 500, truth=1.0, lab=np.arange(500) % 2 == 0, g=["a", "b"] * 250)
    ref = af.from_scores(_binary(12, 1500, truth=1.0), class_=None)
    path = tmp_path / "data.parquet"
    frame.write_parquet(path)
    kwargs = {"by": "g", "labelled": "lab", "n_draws": 20}
    eager = af.estimate(ref, af.from_scores(frame, class_=None), "f1", "binary", **kwargs)  # type: ignore[arg-type]
    lazy = af.estimate(ref, af.from_scores(pl.scan_parquet(path), class_=None), "f1", "binary", **kwargs)  # type: ignore[arg-type]
    streaming = af.estimate(
        ref,
        af.from_scores(pl.scan_parquet(path), class_=None),
        "f1",
        "binary",
        engine="streaming",
        **kwargs,  # type: ignore[arg-type]
    )
    assert_frame_equal(eager, lazy)
    assert_frame_equal(eager, streaming)


def test_a_fitted_map_is_reused() -> None:
    ref = af.from_scores(_binary(13, 2000), class_=None)
    data = af.from_scores(_binary(14, 500), class_=None)
    cmap = af.fit_calibration(ref, calibration="platt")
    assert_frame_equal(
        af.estimate(cmap, data, "f1", "binary"), af.estimate(ref, data, "f1", "binary", calibration="platt")
    )


def test_scores_outside_the_reference_warn_per_group() -> None:
    ref = af.from_scores(pl.DataFrame({"score": np.linspace(0.2, 0.8, 200), "y": [0, 1] * 100}), class_=None)
    data = pl.DataFrame(
        {"score": [0.3, 0.5, 0.7, 0.95, 0.99, 0.9], "y": [0] * 6, "g": ["in"] * 3 + [None] * 3}
    )
    # the null group's scores are also far from the reference's in distribution: both warnings
    outside = r"1 group\(s\).*outside the reference's range.*g=None: 3 of 3 entries"
    with (
        pytest.warns(af.errors.ShiftWarning, match="distribution far"),
        pytest.warns(af.errors.ShiftWarning, match=outside),
    ):
        af.estimate(ref, af.from_scores(data, class_=None), "f1", "binary", by="g")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        af.estimate(ref, af.from_scores(data.head(3), class_=None), "f1", "binary", by="g")


def test_broken_source_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "data.parquet"
    _binary(15, 100).write_parquet(path)
    data = af.from_scores(pl.scan_parquet(path), class_=None)
    ref = af.from_scores(_binary(16, 100), class_=None)
    path.write_bytes(b"not a parquet file")
    # the same error as evaluate's on the broken source (a SourceError, no engine traceback)
    with pytest.raises(SourceError, match="could not read"):
        af.estimate(ref, data, "f1", "binary")
    with pytest.raises(SourceError, match="could not read"):
        af.estimate(data, ref, "f1", "binary")  # a broken reference too


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"calibration": "beta"}, "calibration"),
        ({"n_draws": -1}, "n_draws"),
        ({"level": 1.5}, "level"),
        ({"seed": "x"}, "seed"),
        ({"labelled": 3}, "labelled"),
    ],
)
def test_bad_options(kwargs: dict[str, object], match: str) -> None:
    data = af.from_scores(_binary(17, 50), class_=None)
    with pytest.raises(OptionError, match=match):
        af.estimate(data, data, "f1", "binary", **kwargs)  # type: ignore[arg-type]


def test_unsupported_measures_and_label_predictions_are_refused() -> None:
    data = af.from_scores(_binary(18, 50), class_=None)
    with pytest.raises(OptionError, match="does not estimate the measure on scores 'average_precision'"):
        af.estimate(data, data, "average_precision", "binary")
    with pytest.raises(OptionError, match="operator 'exemplar' does not apply"):
        af.estimate(data, data, "auroc", "exemplar")
    labels = af.from_labels(pl.DataFrame({"y_true": [0, 1], "y_pred": [1, 1]}))
    with pytest.raises(OptionError, match="predictions with scores"):
        af.estimate(labels, data, "f1", "binary")  # type: ignore[arg-type]


def test_multilabel_long_layout_is_not_renormalised() -> None:
    # long layout, threshold decision: each (example, class) entry is its own Bernoulli(score)
    rng = np.random.default_rng(19)

    def frame(n: int) -> pl.DataFrame:
        s = rng.uniform(size=(n, 3))
        y = (rng.uniform(size=s.shape) < s).astype(np.int64)
        return pl.DataFrame(
            {
                "example": np.repeat(np.arange(n), 3),
                "class": np.tile(["x", "y", "z"], n),
                "score": s.ravel(),
                "y": y.ravel(),
                "lab": True,
            }
        )

    ref = af.from_scores(frame(2000))
    cmap = af.fit_calibration(ref)
    assert not cmap.renormalize
    assert cmap.ece.height == 3
    out = af.estimate(
        cmap, af.from_scores(frame(2000)), ["f1", "precision"], ["micro", "macro"], labelled="lab"
    )
    wide = out.pivot(on="kind", index=["measure", "operator"], values="value")
    assert ((wide["estimated"] - wide["realized"]).abs() < 0.03).all(), wide
    argmax = af.fit_calibration(af.from_scores(frame(50), decision="argmax"))
    assert argmax.renormalize
