"""Small builders of bad input shared by the error tests (tests/intake, tests/tables)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

NAN = float("nan")

# ---------------------------------------------------------------------------
# Builders


def long_frame(**columns: Any) -> pl.DataFrame:
    """A dense, valid long frame: 3 examples (10, 11, 12) x 2 classes (a, b); columns override."""
    data: dict[str, Any] = {
        "example": [10, 10, 11, 11, 12, 12],
        "class": ["a", "b", "a", "b", "a", "b"],
        "y": [1.0, 0.0, 0.0, 1.0, 1.0, 0.0],
        "p": [1.0, 0.0, 1.0, 0.0, 0.0, 1.0],
    }
    data.update(columns)
    return pl.DataFrame(data)


def without_pairs(store: Path) -> Path:
    """A store as written without the confusion counts (an older version, or stored cells without
    them): no pairs.parquet, and none in meta.json's record of the tables."""
    (store / "pairs.parquet").unlink()
    meta = json.loads((store / "meta.json").read_text())
    meta["tables"].pop("pairs.parquet")
    (store / "meta.json").write_text(json.dumps(meta))
    return store


def label_frame(**columns: Any) -> pl.DataFrame:
    """A valid label frame: 4 examples (ids 1..4), classes 0/1; columns override."""
    data: dict[str, Any] = {"id": [1, 2, 3, 4], "y_true": [0, 1, 1, 0], "y_pred": [0, 1, 0, 0]}
    data.update(columns)
    return pl.DataFrame(data)


def indicator() -> tuple[np.ndarray, np.ndarray]:
    """Valid 3 x 2 indicator matrices (Y, P)."""
    Y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    P = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    return Y, P


def seq(*pieces: str) -> str:
    """A regex matching the given regex pieces in this order (anything in between)."""
    return ".*".join(pieces)


AVAILABLE_LONG = re.escape("available columns: ['example', 'class', 'y', 'p']")
AVAILABLE_LABELS = re.escape("available columns: ['id', 'y_true', 'y_pred']")
