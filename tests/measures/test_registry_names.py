"""Names a user's measure cannot take: they already mean another measure under some operator."""

from __future__ import annotations

import polars as pl
import pytest

import aggframe as af


@pytest.mark.parametrize(
    "name", ["accuracy", "balanced_accuracy_adjusted", "kappa_linear", "qwk", "f_1", "f3", "fbeta_0.5"]
)
def test_names_of_whole_matrix_and_f_beta_measures_are_refused(name: str) -> None:
    """register_measure("accuracy", ...) was accepted: the name meant the user's formula under macro
    and the built-in accuracy under multiclass (0.667 and 0.571 on one frame); "f3" made af.fbeta(3)
    return the user's measure."""
    with pytest.raises(af.errors.OptionError, match="cannot be registered"):
        af.register_measure(name, lambda tp, fp, fn, tn: tp / (tp + fp))
    assert af.fbeta(3).name == "f3"
    assert af.get_measure("f_1").name == "f1"


def test_a_boolean_formula_is_refused_when_registered() -> None:
    """A formula giving booleans (tp > fp) registered, then failed at every evaluation with Polars'
    "is_finite not supported for dtype bool"."""
    with pytest.raises(af.errors.OptionError, match="gives Boolean"):
        af.register_measure("more_hits", lambda tp, fp, fn, tn: tp > fp)
    af.register_measure("more_hits", lambda tp, fp, fn, tn: (tp > fp) * 1.0)
    try:
        frame = pl.DataFrame({"y_true": [0, 1, 1], "y_pred": [0, 1, 0]})
        assert af.from_labels(frame).evaluate("more_hits", "macro")["value"].item() == 0.5
    finally:
        af.unregister_measure("more_hits")
