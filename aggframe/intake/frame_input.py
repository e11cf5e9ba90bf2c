"""A frame as input: is this a frame, and the frame (or paths, scanned) as a Narwhals LazyFrame.

:func:`as_lazy` resolves the schema now (a corrupt or vanished file fails at
construction, named) and refuses two columns of one name, which some engines hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import narwhals as nw
import polars as pl

from aggframe._columns import first_repeat
from aggframe.exceptions import InvalidValueError, OptionError
from aggframe.intake.origin import origin_of
from aggframe.intake.paths import scan
from aggframe.intake.read_errors import reading

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = [
    "as_lazy",
    "is_frame",
    "refuse_repeated_names",
]


def as_lazy(frame: Any, what: str) -> nw.LazyFrame[Any]:
    """A frame (or paths, scanned) as a Narwhals LazyFrame; a Polars schema is resolved now."""
    if isinstance(frame, (str, Path)) or (
        isinstance(frame, (list, tuple)) and frame and all(isinstance(f, (str, Path)) for f in frame)
    ):
        frame = scan(frame)
    try:
        obj = nw.from_native(frame)
    except nw.exceptions.DuplicateError as exc:
        # a pandas frame with two columns of one name (Narwhals refuses it before we look)
        refuse_repeated_names([str(c) for c in getattr(frame, "columns", [])], "frame")
        msg = "the frame has two columns of one name; rename one of them first"  # names not at hand
        raise InvalidValueError(msg) from exc
    except TypeError as exc:
        msg = f"Expected `{what}` to be a DataFrame or LazyFrame (Polars, or any Narwhals-supported), got {type(frame).__name__}"
        raise OptionError(msg) from exc
    native = nw.to_native(obj)
    _check_unique_names(obj, native)
    # resolving the schema reads a footer (Polars) or asks the engine (Spark Connect resolves
    # its paths here): a corrupt or vanished file fails now, named
    if isinstance(native, pl.LazyFrame):
        with reading(origin_of(native)):
            native.collect_schema()
    else:
        with reading(None):
            obj.collect_schema()
    if isinstance(obj, nw.DataFrame):
        # an eager frame is in memory already: read as Polars (pandas and pyarrow frames lack
        # aggregations the grains use, or compute some of them wrongly under Narwhals: the
        # class of a one-hot row by when/then/max came out as the last class), one copy
        polars_frame: pl.DataFrame = native if isinstance(native, pl.DataFrame) else obj.to_polars()
        return nw.from_native(polars_frame.lazy())
    lazy: nw.LazyFrame[Any] = obj
    return lazy


def _check_unique_names(obj: Any, native: Any) -> None:
    """Two columns of one name (a DuckDB relation, a Spark or pandas frame may hold them): which
    one a role reads would be the engine's choice. Refused by name."""
    if isinstance(native, (pl.DataFrame, pl.LazyFrame)):
        return  # Polars holds no two columns of one name
    with reading(None):
        names = list(obj.columns)
    refuse_repeated_names(names, "frame")


def refuse_repeated_names(names: Sequence[str], what: str) -> None:
    """An InvalidValueError naming the first column name ``names`` repeat (``what``: the frame, the batch)."""
    repeated = first_repeat(names)
    if repeated is not None:
        msg = f"the {what} has two columns named {repeated!r}; rename one of them first"
        raise InvalidValueError(msg)


def is_frame(obj: Any) -> bool:
    if isinstance(obj, (pl.DataFrame, pl.LazyFrame, str, Path)):
        return True
    # a list of strings is a list of labels here; several files: a list of Paths, or af.scan(...)
    if isinstance(obj, (list, tuple)) and obj and all(isinstance(f, Path) for f in obj):
        return True
    try:
        nw.from_native(obj)
    except nw.exceptions.DuplicateError:
        return True  # a frame (with two columns of one name: as_lazy says so)
    except TypeError:
        return False
    return not isinstance(obj, (list, tuple, np.ndarray))
