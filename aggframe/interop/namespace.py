"""The ``aggframe`` namespace on Polars frames, registered when aggframe is imported.

``lf.aggframe.labels(...)`` is ``af.from_labels(lf, ...)`` and ``lf.aggframe.long(...)`` is
``af.from_long(lf, ...)``, on a ``LazyFrame`` and on a ``DataFrame``, so a pipeline stays in
one method chain::

    (
        pl.scan_parquet("predictions/*.parquet")
        .filter(pl.col("day") >= "2026-11-01")
        .aggframe.labels(y_true="y_true", y_pred="y_pred")
        .evaluate(["f1", "mcc"], ["micro", "macro"], by="model")
    )

The namespace holds no state: each call builds a new ``Predictions`` on the frame it hangs
from, with the options it is given (the keyword options of ``from_labels``/``from_long``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:  # imported by the calls: registering the namespace at `import aggframe` stays cheap
    from aggframe.predictions import Predictions

__all__ = ["AggframeNamespace"]


class AggframeNamespace:
    """``frame.aggframe``: build aggframe predictions from this frame.

    Examples
    --------
    >>> import polars as pl
    >>> import aggframe as af
    >>> frame = pl.DataFrame({"y_true": [0, 1, 2, 2, 1, 0], "y_pred": [0, 2, 2, 1, 1, 1]})
    >>> round(frame.lazy().aggframe.labels().compute("f1", "macro"), 4)
    0.5222
    """

    def __init__(self, frame: pl.LazyFrame | pl.DataFrame) -> None:
        self._frame = frame

    def labels(self, **options: Any) -> Predictions:
        """``af.from_labels(frame, **options)``: one row per example (``y_true``, ``y_pred``, ...).

        Parameters
        ----------
        **options
            The keyword options of :func:`~aggframe.from_labels`.

        Returns
        -------
        Predictions
            Predictions on this frame.

        Raises
        ------
        AggframeError
            What :func:`~aggframe.from_labels` raises.

        Examples
        --------
        >>> import polars as pl
        >>> import aggframe as af
        >>> frame = pl.DataFrame({"t": [0, 1, 1], "p": [0, 1, 0]})
        >>> frame.aggframe.labels(y_true="t", y_pred="p").accuracy()
        0.6666666666666666
        """
        from aggframe.constructors import from_labels

        return from_labels(self._frame, **options)

    def long(self, **options: Any) -> Predictions:
        """``af.from_long(frame, **options)``: one row per (example, class) (``example``, ``class``,
        ``y``, ``p``, ...).

        Parameters
        ----------
        **options
            The keyword options of :func:`~aggframe.from_long`.

        Returns
        -------
        Predictions
            Predictions on this frame.

        Raises
        ------
        AggframeError
            What :func:`~aggframe.from_long` raises.

        Examples
        --------
        >>> import polars as pl
        >>> import aggframe as af
        >>> frame = pl.DataFrame(
        ...     {"example": [0, 0, 1, 1], "class": ["a", "b", "a", "b"], "y": [1, 0, 0, 1], "p": [1, 0, 1, 1]}
        ... )
        >>> frame.lazy().aggframe.long().compute("precision", "micro")
        0.6666666666666666
        """
        from aggframe.constructors import from_long

        return from_long(self._frame, **options)


pl.api.register_lazyframe_namespace("aggframe")(AggframeNamespace)
pl.api.register_dataframe_namespace("aggframe")(AggframeNamespace)
