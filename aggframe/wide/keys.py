"""The key columns of the wide step's aggregations (all private: :mod:`aggframe._columns`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import narwhals as nw

from aggframe._columns import KEY_ALL

__all__ = ["keyed", "row_keys"]


def row_keys(keys: Sequence[str]) -> list[str]:
    return [k for k in keys if k != KEY_ALL]


def keyed(lf: nw.LazyFrame[Any], keys: Sequence[str]) -> nw.LazyFrame[Any]:
    """Add the stand-in key to an aggregate when there are no by columns."""
    return lf.with_columns(nw.lit(0).alias(KEY_ALL)) if KEY_ALL in keys else lf
