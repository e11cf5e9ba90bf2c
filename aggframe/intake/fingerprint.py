"""Fingerprints of files: what a cell store records of the files it was written from.

A fingerprint reads at most 128 KiB of a file, whatever its size: the first and
last 64 KiB, with its size and the ``key=value`` folders of its path (the same
bytes under two partitions are two partitions' rows).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aggframe.intake.origin import Origin
from aggframe.intake.partitions import hive_pairs

__all__ = [
    "content_fingerprint",
    "file_records",
]

#: The bytes a fingerprint reads at each end of a file (the whole file when it is smaller than two).
_FINGERPRINT_SPAN = 65536


def _fingerprint(path: Path, size: int, constants: Sequence[tuple[str, str]] = ()) -> str:
    """A cheap content fingerprint: the first and last 64 KiB of the file (all of a small one), its
    size, and the ``key=value`` folders of its path.

    The footer alone is not enough: two small Parquet files of one schema, size and
    column statistics have the same footer and different rows. The folders are part of
    the rows a hive scan reads (the same bytes under ``day=1/`` and ``day=2/`` are two
    days), so a copy is recognised within one partition, not across partitions.
    """
    return content_fingerprint(
        path, size, [f"/{key}={value}" for key, value in (*hive_pairs(path), *constants)]
    )


def content_fingerprint(path: Path, size: int, context: Sequence[str] = ()) -> str:
    """sha256 of the size, the ``context`` strings, and the first and last 64 KiB of the file
    (all of a small one): at most 128 KiB read, whatever the file's size."""
    digest = hashlib.sha256(str(size).encode())
    for part in context:
        digest.update(part.encode())
    with path.open("rb") as fh:
        digest.update(fh.read(_FINGERPRINT_SPAN))
        if size > _FINGERPRINT_SPAN:
            fh.seek(max(_FINGERPRINT_SPAN, size - _FINGERPRINT_SPAN))
            digest.update(fh.read())
    return digest.hexdigest()


def file_records(origin: Origin) -> list[dict[str, Any]]:
    """Path, size, mtime and a content fingerprint of each file of a ``files`` origin."""
    out: list[dict[str, Any]] = []
    for name in origin.files:
        path = Path(name)
        try:
            stat = path.stat()
        except OSError:
            out.append({"path": name})  # a URI, or a file gone since: its name is all there is
            continue
        out.append(
            {
                "path": str(path),
                "size": stat.st_size,
                "mtime_ns": stat.st_mtime_ns,
                "fingerprint": _fingerprint(path, stat.st_size, origin.constants),
            }
        )
    return out
