"""The time options of ``aggframe report`` and ``aggframe monitor``: windows over time (see docs/time.md)."""

from __future__ import annotations

import argparse
from typing import Any

from aggframe.interop.cli_output import _UsageError

__all__ = ["add_time_options", "time_options"]


def add_time_options(p: argparse.ArgumentParser) -> None:
    """``--time``, ``--every``, ``--period``, ``--offset``, ``--unlabelled`` (windows over time)."""
    p.add_argument(
        "--time", metavar="COL", default=None, help="date or datetime column of the windows, e.g. day"
    )
    p.add_argument("--every", metavar="DUR", default=None, help="how often a window starts, e.g. 1d or 12h")
    p.add_argument("--period", metavar="DUR", default=None, help="window length (default: --every), e.g. 7d")
    p.add_argument("--offset", metavar="DUR", default=None, help="shift of the window starts, e.g. 6h")
    p.add_argument(
        "--unlabelled",
        action="store_const",
        const="count",
        default=None,
        help="a missing truth means not labelled yet: count such rows per window and leave them out "
        "(columns n_labelled, n_unlabelled, labelled_share), e.g. --time day --every 1d --unlabelled",
    )


def time_options(args: argparse.Namespace) -> dict[str, Any]:
    """The windows' keyword arguments of ``evaluate`` from the parsed flags (empty without ``--time``)."""
    names = ("time", "every", "period", "offset", "unlabelled")
    given = {n: getattr(args, n, None) for n in names if getattr(args, n, None) is not None}
    if given and "time" not in given:
        msg = "--every, --period, --offset and --unlabelled need --time COLUMN (the windows' time)"
        raise _UsageError(msg)
    if given and "every" not in given:
        msg = "--time needs --every (how often a window starts, e.g. --every 1d)"
        raise _UsageError(msg)
    return given
