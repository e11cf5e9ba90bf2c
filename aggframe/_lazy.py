"""A module imported on its first use: ``np.zeros(...)`` imports NumPy then, not at import.

``import aggframe`` and the command line's report need no NumPy (Polars computes the
report); the modules that call NumPy for arrays, samples or small matrices write::

    if TYPE_CHECKING:
        import numpy as np
    else:
        from aggframe._lazy import numpy as np

and the checker sees the real module while the first ``np.<name>`` at run time imports it.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

__all__ = ["loaded", "numpy"]


class LazyModule:
    """Stands for the module ``name`` and imports it on the first attribute access."""

    __slots__ = ("_module", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = importlib.import_module(self._name)
            self._module = module
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


numpy = LazyModule("numpy")


def loaded(name: str) -> bool:
    """Whether the module ``name`` is imported already (by anyone): a use worth less than its
    import (NumPy: ~0.1 s) can be made only then."""
    return name in sys.modules
