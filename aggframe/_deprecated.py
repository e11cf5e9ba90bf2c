"""Public names that changed, kept working for a release with a ``FutureWarning``.

``af.wide(report)`` was the wide-table function, and its name shadowed the subpackage
:mod:`aggframe.wide` (the one scan): ``import aggframe.wide.tnorms as t`` raised
``ImportError``. The function is :func:`aggframe.wide_table` now, and ``aggframe.wide`` is
the subpackage again; calling it still gives the wide table, with a ``FutureWarning``
naming the new function.
"""

from __future__ import annotations

import importlib
import types
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the function is imported by the call: `import aggframe` stays cheap
    from collections.abc import Sequence

    import polars as pl

__all__ = ["make_wide_callable"]


class _CallableWide(types.ModuleType):
    """The subpackage :mod:`aggframe.wide`, callable as the old ``af.wide`` function."""

    def __call__(
        self,
        report: pl.DataFrame | pl.LazyFrame,
        *,
        values: str | Sequence[str] = "value",
        by: str | Sequence[str] | None = None,
        separator: str = " ",
    ) -> pl.DataFrame:
        msg = (
            "af.wide(report, ...) is deprecated and will be removed in a later release: "
            "use af.wide_table(report, ...), the same function (aggframe.wide is the "
            "subpackage of the scan, `import aggframe.wide.tnorms` works again)"
        )
        warnings.warn(msg, FutureWarning, stacklevel=2)
        from aggframe.interop.layout import wide_table

        return wide_table(report, values=values, by=by, separator=separator)


def make_wide_callable() -> None:
    """Make the module object ``aggframe.wide`` callable (forwarding to :func:`wide_table`).

    Returns
    -------
    None
        The subpackage's class is changed in place; its attributes stay as they are.
    """
    module = importlib.import_module("aggframe.wide")  # its __init__ imports nothing: cheap
    if not isinstance(module, _CallableWide):
        module.__class__ = _CallableWide
