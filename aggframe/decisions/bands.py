"""The reference band's options, checked in one place for :func:`~aggframe.monitor` and its rules.

A band is set by ``band`` (``"sd"`` or ``"quantile"``), ``width`` (how many standard errors),
``quantiles`` (the band's two reference quantiles), ``min_reference_windows`` (the fewest
reference windows a band is drawn from) and ``min_labelled_share`` (the share of labelled
examples below which a window is not judged). :func:`band_options` checks them and returns
them normalised; the caller says how a bad one is reported (``monitor`` raises an
:class:`~aggframe.errors.OptionError` ``"<key>=: <problem>"``, a monitoring rule a
:class:`~aggframe.errors.RuleError` ``"rule N: key '<key>': <problem>"``), so both say the same problem
in the same words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, get_args

from aggframe._options import BandRule
from aggframe.exceptions import OptionError

__all__ = ["BAND_KEYS", "band_options", "option_failure"]

#: The band's options, in the order they are checked.
BAND_KEYS = ("band", "width", "quantiles", "min_reference_windows", "min_labelled_share")

#: A failure of one option: the key and the problem (``expected ..., got ...``) to an exception.
Failure = Callable[[str, str], Exception]


def option_failure(key: str, problem: str) -> OptionError:
    """How a keyword option reports a bad band value: ``width=: expected a number > 0, got 0``."""
    return OptionError(f"{key}=: {problem}")


def band_options(values: Mapping[str, Any], fail: Failure = option_failure) -> dict[str, Any]:
    """The band's options among ``values`` (a None value is left out: the default), checked.

    ``quantiles`` comes back as a tuple of two floats, the numbers as floats, the count as int.
    """
    out: dict[str, Any] = {}
    for key in BAND_KEYS:
        value = values.get(key)
        if value is not None:
            out[key] = _CHECKS[key](key, value, fail)
    return out


def _number(key: str, value: Any, fail: Failure) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise fail(key, f"expected a number, got {value!r}")
    return float(value)


def _band(key: str, value: Any, fail: Failure) -> str:
    options = get_args(BandRule)
    if value not in options:
        raise fail(key, f"expected one of {', '.join(map(repr, options))}, got {value!r}")
    return str(value)


def _width(key: str, value: Any, fail: Failure) -> float:
    width = _number(key, value, fail)
    if width <= 0:
        raise fail(key, f"expected a number > 0, got {value!r}")
    return width


def _quantiles(key: str, value: Any, fail: Failure) -> tuple[float, float]:
    pair = tuple(_number(key, v, fail) for v in value) if isinstance(value, (list, tuple)) else ()
    if len(pair) != 2 or not 0 <= pair[0] < pair[1] <= 1:
        raise fail(key, f"expected [low, high] with 0 <= low < high <= 1, got {value!r}")
    return pair[0], pair[1]


def _windows(key: str, value: Any, fail: Failure) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 2:
        raise fail(key, f"expected an integer >= 2, got {value!r}")
    return value


def _share(key: str, value: Any, fail: Failure) -> float:
    share = _number(key, value, fail)
    if not 0 <= share <= 1:
        raise fail(key, f"expected a share in [0, 1], got {share:g}")
    return share


_CHECKS: dict[str, Callable[[str, Any, Failure], Any]] = {
    "band": _band,
    "width": _width,
    "quantiles": _quantiles,
    "min_reference_windows": _windows,
    "min_labelled_share": _share,
}
