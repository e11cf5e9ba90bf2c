"""Calibration maps saved to disk: beside stored expected cells, or alone (``aggframe estimate --map-out``).

A map folder (:func:`write_map`)::

    map.json        {"format": "aggframe-calibration/1", "method", "renormalize", "grid"}
    table.parquet   class, bin, q           (the lookup: classes x grid rows)
    ece.parquet     class, n, low, high, ece_raw, ece_calibrated

A store of expected cells (:func:`~aggframe.expected_cells` with ``store=``) keeps its
map in its ``calibration/`` folder; :func:`read_map` reads either. This module does not
import :mod:`aggframe.decisions.estimate` (which reads saved maps through it): the map
is passed in, and read back as its parts.
"""

from __future__ import annotations

import json
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from aggframe.exceptions import StoreError

if TYPE_CHECKING:
    from aggframe.decisions.estimate import CalibrationMap

__all__ = ["MAP_DIR", "MAP_FORMAT", "read_map", "write_map"]

#: The folder of a store of expected cells that holds its calibration map.
MAP_DIR = "calibration"
#: The format of a saved map (``map.json``).
MAP_FORMAT = "aggframe-calibration/1"
_METHODS = ("isotonic", "platt", "none")


def write_map(cmap: CalibrationMap, path: str | PathLike[str], *, grid: int, overwrite: bool = False) -> Path:
    """Write a calibration map (read on a grid of ``grid`` bins) to the folder ``path``.

    A map already there is replaced only with ``overwrite``; a file, or a folder
    holding anything else, is refused (a :class:`~aggframe.exceptions.StoreError`).
    """
    out = Path(path)
    if out.is_file():
        msg = f"cannot write a calibration map to {str(out)!r}: it is a file (a map is a folder)"
        raise StoreError(msg)
    if out.is_dir() and any(out.iterdir()):
        if not (out / "map.json").exists():
            msg = f"cannot write a calibration map into {str(out)!r}: the folder holds other files"
            raise StoreError(msg)
        if not overwrite:
            msg = f"{str(out)!r} holds a calibration map already; pass overwrite=True to replace it"
            raise StoreError(msg)
    out.mkdir(parents=True, exist_ok=True)
    cmap.table.write_parquet(out / "table.parquet")
    cmap.ece.write_parquet(out / "ece.parquet")
    info = {"format": MAP_FORMAT, "method": cmap.method, "renormalize": cmap.renormalize, "grid": grid}
    (out / "map.json").write_text(json.dumps(info, indent=1))
    return out


def _map_folder(path: Path) -> Path:
    if (path / MAP_DIR / "map.json").exists():
        return path / MAP_DIR
    if (path / "map.json").exists():
        return path
    if not path.exists():
        msg = f"no calibration map at {str(path)!r}: the path does not exist"
    else:
        msg = (
            f"no calibration map at {str(path)!r}: expected a folder with map.json (written by "
            f"--map-out) or a store of expected cells with a {MAP_DIR}/ folder (expected_cells(store=...))"
        )
    raise StoreError(msg)


def read_map(path: str | PathLike[str], *, grid: int) -> tuple[Any, pl.DataFrame, pl.DataFrame, bool]:
    """The parts of the map saved at ``path`` (a map folder, or a store of expected cells): the
    method, the lookup table, the calibration errors and whether it renormalises.

    A missing or broken map, or one of another grid, is a :class:`~aggframe.exceptions.StoreError`
    naming the path.
    """
    folder = _map_folder(Path(path))
    try:
        info = json.loads((folder / "map.json").read_text())
        table = pl.read_parquet(folder / "table.parquet")
        ece = pl.read_parquet(folder / "ece.parquet")
    except (OSError, ValueError, pl.exceptions.PolarsError) as exc:
        reason = " ".join(str(exc).split())[:200]
        msg = f"cannot read the calibration map at {str(folder)!r}: {reason}"
        raise StoreError(msg) from exc
    good = isinstance(info, dict) and info.get("format") == MAP_FORMAT and info.get("grid") == grid
    columns = {"class", "bin", "q"} <= set(table.columns) and {"class", "low", "high"} <= set(ece.columns)
    if not good or not columns or info.get("method") not in _METHODS:
        msg = f"{str(folder)!r} is not a calibration map of this version (format {MAP_FORMAT!r}, {grid} bins)"
        raise StoreError(msg)
    return info["method"], table, ece, bool(info.get("renormalize"))
