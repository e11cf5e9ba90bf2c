"""Where predictions came from: :class:`Origin` (files, cell stores or a frame).

An origin describes the source in messages and is what a cell store records as its
coverage. :func:`~aggframe.intake.paths.scan` remembers the origin of each frame it
makes (by the frame's identity, for as long as the frame lives); :func:`origin_of`
finds it again, and :func:`keep_origin` carries it to a frame derived from it.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

import narwhals as nw
import polars as pl

__all__ = [
    "FRAME",
    "Origin",
    "keep_origin",
    "origin_of",
    "remember_origin",
]


@dataclass(frozen=True)
class Origin:
    """Where predictions came from, for messages and for the coverage record of a cell store.

    ``kind`` is ``"files"`` (``inputs`` as given, ``files`` the files they expand to),
    ``"stores"`` (``files`` the store directories, ``stores`` their ``meta.json``) or
    ``"frame"`` (an in-memory or engine frame: nothing known about its rows).
    """

    kind: Literal["files", "stores", "frame"]
    inputs: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    stores: tuple[dict[str, Any], ...] = ()
    #: constant key columns added to every row (``aggframe cells --with day=...``): part of what
    #: the rows are, as a hive folder is (the same CSV bytes under two days are two days)
    constants: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        if self.kind == "frame":
            return "the frame"
        shown = ", ".join(repr(p) for p in self.inputs[:3])
        more = f" and {len(self.inputs) - 3} more" if len(self.inputs) > 3 else ""
        if self.kind == "stores":
            return f"cell store{'s' if len(self.inputs) > 1 else ''} {shown}{more}"
        count = f" ({len(self.files)} files)" if len(self.files) != len(self.inputs) else ""
        return f"{shown}{more}{count}"


FRAME = Origin("frame")

# scan() results -> their Origin, by object identity (the frame is kept alive by the caller)
_ORIGINS: dict[int, tuple[Any, Origin]] = {}


def remember_origin(lf: pl.LazyFrame, origin: Origin) -> None:
    """Remember ``origin`` as the :class:`Origin` of ``lf``, for as long as ``lf`` lives."""
    key = id(lf)
    _ORIGINS[key] = (weakref.ref(lf, lambda _: _ORIGINS.pop(key, None)), origin)


def keep_origin(
    derived: pl.LazyFrame, frame: Any, constants: Mapping[str, str] | None = None
) -> pl.LazyFrame:
    """``derived`` (e.g. ``frame`` with columns added) remembered with the :class:`Origin` of ``frame``
    (and the ``constants`` it added to every row, which the files' fingerprints then include)."""
    origin = origin_of(frame)
    if origin.kind != "frame":
        more = tuple((k, str(v)) for k, v in (constants or {}).items())
        remember_origin(derived, replace(origin, constants=origin.constants + more) if more else origin)
    return derived


def origin_of(frame: Any) -> Origin:
    """The :class:`Origin` of a frame made by :func:`scan` (Polars or Narwhals-wrapped), else ``FRAME``."""
    native = nw.to_native(frame, pass_through=True)
    entry = _ORIGINS.get(id(native))
    if entry is not None and entry[0]() is native:
        return entry[1]
    return FRAME
