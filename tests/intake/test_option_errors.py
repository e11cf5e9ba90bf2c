"""Bad names and options: unknown measures, operators, conventions, t-norms, grains, registrations."""

from __future__ import annotations

import re
from typing import Any

import pytest

import aggframe as af
from aggframe.errors import (
    OptionError,
    UnknownNameError,
)
from tests.builders import NAN, long_frame, seq

# ---------------------------------------------------------------------------
# Names and options


def test_unknown_measure_lists_valid_names() -> None:
    pr = af.from_long(long_frame())
    pattern = seq("unknown measure 'f1_scor'", "balanced_accuracy", "f1", "mcc", "specificity", "f<beta>")
    with pytest.raises(UnknownNameError, match=pattern):
        pr.evaluate(["f1", "f1_scor"])


def test_unknown_measure_in_compute_and_parts() -> None:
    pr = af.from_labels([0, 1, 1], [0, 1, 0])
    with pytest.raises(UnknownNameError, match=r"unknown measure 'nope'.*valid names: .*precision"):
        pr.compute("nope", "macro")
    with pytest.raises(UnknownNameError, match=r"unknown measure 'nope'.*valid names: .*precision"):
        pr.parts("nope")


def test_get_measure_of_a_wrong_type() -> None:
    with pytest.raises(UnknownNameError, match=r"Expected a measure name or an af\.Measure, got int"):
        af.get_measure(3)  # type: ignore[arg-type]


def test_evaluate_measure_of_a_wrong_type() -> None:
    with pytest.raises(UnknownNameError, match="got int"):
        af.from_labels([0, 1, 1], [0, 1, 0]).evaluate(3)  # type: ignore[arg-type]


def test_unknown_operator_lists_valid_names() -> None:
    pr = af.from_labels([0, 1, 1], [0, 1, 0])
    pattern = seq("unknown operator 'mikro'", "micro, macro, weighted, exemplar", "binary", "target")
    with pytest.raises(UnknownNameError, match=pattern):
        pr.evaluate("f1", ["macro", "mikro"])
    with pytest.raises(UnknownNameError, match=pattern):
        pr.compute("f1", "mikro")
    with pytest.raises(UnknownNameError, match=pattern):
        pr.parts("f1", "mikro")


def test_unknown_convention_lists_valid_names() -> None:
    pr = af.from_labels([0, 1, 1], [0, 1, 0])
    pattern = seq("unknown convention 'zeros'", "exclude, zero, one, nan")
    with pytest.raises(UnknownNameError, match=pattern):
        pr.evaluate("f1", convention=["zero", "zeros"])
    with pytest.raises(UnknownNameError, match=pattern):
        pr.compute("f1", "macro", convention="zeros")


def test_empty_convention_list() -> None:
    with pytest.raises(OptionError, match="at least one convention"):
        af.from_labels([0, 1, 1], [0, 1, 0]).evaluate("f1", convention=[])


@pytest.mark.parametrize("tnorm", ["prodct", "", 3])
def test_unknown_tnorm_lists_valid_names(tnorm: Any) -> None:
    pattern = seq(
        f"unknown t-norm {re.escape(repr(tnorm))}", "godel, hamacher, lukasiewicz, minimum, product"
    )
    with pytest.raises(UnknownNameError, match=pattern):
        af.from_long(long_frame(), tnorm=tnorm)


def test_hamacher_negative_gamma() -> None:
    with pytest.raises(OptionError, match=r"`gamma`.*>= 0.*-1"):
        af.tnorms.hamacher(-1)


def test_unknown_grain() -> None:
    with pytest.raises(UnknownNameError, match=r"unknown grain 'bogus'.*class, pooled, profiles"):
        af.from_labels([0, 1], [0, 1]).cells("bogus")  # type: ignore[arg-type]


@pytest.mark.parametrize("beta", [0, -1, -0.5, NAN, float("inf")], ids=["0", "-1", "-0.5", "nan", "inf"])
def test_fbeta_bad_beta(beta: float) -> None:
    with pytest.raises(OptionError, match=seq("`beta`", "positive finite", re.escape(repr(beta)))):
        af.fbeta(beta)


def test_fbeta_zero_by_name() -> None:
    with pytest.raises(OptionError, match=seq("`beta`", "positive", "0.0")):
        af.from_labels([0, 1, 1], [0, 1, 0]).compute("f0", "macro")


def test_fbeta_non_numeric_beta() -> None:
    with pytest.raises(OptionError, match="`beta`"):
        af.fbeta("x")  # type: ignore[arg-type]


def test_register_measure_formula_failing_on_expressions() -> None:
    def formula(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
        return tp.astype(float) / (tp + fp)  # ndarray.astype: fine on NumPy, no such Expr method

    name = "test_errors_astype_measure"
    try:
        pattern = seq(
            f"measure '{name}'", "NumPy arrays and on Polars expressions", "AttributeError", "astype"
        )
        with pytest.raises(OptionError, match=pattern):
            af.register_measure(name, formula)
        assert name not in af.list_measures()
    finally:
        if name in af.list_measures():
            af.unregister_measure(name)


def test_register_measure_formula_failing_on_arrays() -> None:
    name = "test_errors_float_measure"
    try:
        with pytest.raises(OptionError, match=seq(f"measure '{name}'", "failed with TypeError")):
            af.register_measure(name, lambda tp, fp, fn, tn: float(tp))
        assert name not in af.list_measures()
    finally:
        if name in af.list_measures():
            af.unregister_measure(name)


def test_register_measure_not_callable() -> None:
    with pytest.raises(OptionError, match=r"`formula` to be a callable.*str"):
        af.register_measure("test_errors_not_callable", "tp / (tp + fp)")  # type: ignore[arg-type]


def test_register_measure_taking_a_builtin_name() -> None:
    with pytest.raises(OptionError, match="'precision' is taken"):
        af.register_measure("precision", lambda tp, fp, fn, tn: tp)


def test_parts_micro_has_no_parts() -> None:
    pr = af.from_labels([0, 1, 1], [0, 1, 0])
    with pytest.raises(OptionError, match=r"micro operator pools all entries.*no parts"):
        pr.parts("f1", "micro")
    with pytest.raises(OptionError, match="no parts"):
        af.from_long(long_frame()).parts("f1", "MICRO")
