"""Label arrays of mixed Python types: an object array read as one Polars series, or refused by name."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe.exceptions import InvalidValueError

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: the report needs no NumPy (issue 35)
    from aggframe._lazy import numpy as np

__all__ = [
    "mixed_label_message",
    "object_labels",
]


def mixed_label_message(values: Sequence[Any], name: str) -> str:
    """The message for an object array whose labels are of several Python types."""
    kinds = Counter(type(v).__name__ for v in values if v is not None)
    example = {}
    for v in values:
        if v is not None and type(v).__name__ not in example:
            example[type(v).__name__] = v
    parts = [f"{n} {kind} (e.g. {example[kind]!r})" for kind, n in kinds.most_common()]
    return (
        f"{name} mixes label types: {', '.join(parts)}; give labels of one type "
        "(all integers or all strings), e.g. convert with np.asarray(labels).astype(str)"
    )


def object_labels(values: np.ndarray, name: str) -> pl.Series:
    """``values`` (an object array) as a Series, or an InvalidValueError naming the label types."""
    items = values.tolist()
    try:
        return pl.Series(items)
    except (TypeError, pl.exceptions.PolarsError) as exc:
        msg = mixed_label_message(items, name)
        raise InvalidValueError(msg) from exc
