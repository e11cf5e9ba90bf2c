"""aggframe's version, read from the installed package's metadata (the version lives in pyproject.toml alone)."""

from __future__ import annotations

__all__ = ["package_version"]


def package_version() -> str:
    """aggframe's version, from the installed metadata (the version lives in pyproject.toml alone)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("aggframe")
    except PackageNotFoundError:  # pragma: no cover (a source tree that was never installed)
        return "0+unknown"
