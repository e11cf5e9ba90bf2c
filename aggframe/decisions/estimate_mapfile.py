"""Calibration maps on disk: one Parquet file (:meth:`~aggframe.CalibrationMap.write` and ``read``).

The file holds one row per (class, bin): ``class``, ``bin``, ``q`` and the class's
calibration error columns (``n``, ``low``, ``high``, ``ece_raw``,
``ece_calibrated``, repeated on its rows), so the class column keeps its type.
The key ``aggframe`` of the file's key-value metadata holds
``{"format": "aggframe-calibration-map/1", "method", "renormalize", "grid"}``.
This module does not import :mod:`aggframe.decisions.estimate`: it writes a map's
parts and reads them back.
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

__all__ = ["MAP_FORMAT", "read_map", "write_map"]

#: The ``format`` of a map file's metadata.
MAP_FORMAT = "aggframe-calibration-map/1"
_KEY = "aggframe"
_ECE = ("n", "low", "high", "mean", "sd", "ece_raw", "ece_calibrated")
_METHODS = ("isotonic", "platt", "none")


def write_map(cmap: CalibrationMap, path: str | PathLike[str], *, overwrite: bool = False) -> Path:
    """Write ``cmap`` to the Parquet file ``path`` (refused if it exists, unless ``overwrite``)."""
    from aggframe.decisions.estimate_cells import GRID

    out = Path(path)
    if out.is_dir():
        msg = f"cannot write a calibration map to {str(out)!r}: it is a folder (a map is one Parquet file)"
        raise StoreError(msg)
    if out.exists() and not overwrite:
        msg = f"cannot write a calibration map to {str(out)!r}: the file exists (pass overwrite=True to replace it)"
        raise StoreError(msg)
    rows = cmap.table.join(cmap.ece, on="class", how="left", nulls_equal=True, maintain_order="left")
    meta = {"format": MAP_FORMAT, "method": cmap.method, "renormalize": cmap.renormalize, "grid": GRID}
    rows.select("class", "bin", "q", *_ECE).write_parquet(out, metadata={_KEY: json.dumps(meta)})
    return out


def read_map(path: str | PathLike[str]) -> tuple[Any, pl.DataFrame, pl.DataFrame, bool]:
    """The parts of the map in ``path``: method, table, ece, renormalize (a clear StoreError otherwise)."""
    from aggframe.decisions.estimate_cells import GRID

    where = Path(path)
    if not where.is_file():
        msg = f"no calibration map at {str(where)!r}: no such file (write one with CalibrationMap.write)"
        raise StoreError(msg)
    try:
        meta_raw = pl.read_parquet_metadata(where).get(_KEY)
        rows = pl.read_parquet(where)
    except (OSError, pl.exceptions.PolarsError) as exc:
        msg = f"cannot read the calibration map {str(where)!r}: not a Parquet file ({type(exc).__name__})"
        raise StoreError(msg) from exc
    meta = _meta(meta_raw, where)
    missing = [c for c in ("class", "bin", "q", *_ECE) if c not in rows.columns]
    if missing or meta.get("grid") != GRID or meta.get("method") not in _METHODS:
        msg = (
            f"the calibration map {str(where)!r} is not one this version reads "
            f"(missing columns {missing}, grid {meta.get('grid')!r}, method {meta.get('method')!r})"
        )
        raise StoreError(msg)
    per_class = rows.group_by("class", maintain_order=True).len()
    if rows.height != GRID * per_class.height or (per_class["len"] != GRID).any():
        msg = f"the calibration map {str(where)!r} is incomplete: {rows.height} rows for {per_class.height} class(es) of {GRID} bins"
        raise StoreError(msg)
    table = rows.select("class", pl.col("bin").cast(pl.Int64), pl.col("q").cast(pl.Float64))
    ece = rows.select("class", *_ECE).unique("class", maintain_order=True)
    return meta["method"], table, ece, bool(meta.get("renormalize"))


def _meta(raw: str | None, where: Path) -> dict[str, Any]:
    if raw is None:
        msg = f"{str(where)!r} is a Parquet file but not a calibration map (no '{_KEY}' metadata)"
        raise StoreError(msg)
    try:
        meta = json.loads(raw)
    except json.JSONDecodeError as exc:
        msg = f"the calibration map {str(where)!r} has broken metadata ({exc.msg})"
        raise StoreError(msg) from exc
    if not isinstance(meta, dict) or meta.get("format") != MAP_FORMAT:
        shown = meta.get("format") if isinstance(meta, dict) else meta
        msg = f"{str(where)!r} is not a calibration map of format {MAP_FORMAT!r} (format: {shown!r})"
        raise StoreError(msg)
    return meta
