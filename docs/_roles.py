"""A griffe extension for the API reference: Sphinx roles in docstrings read as code.

The package's docstrings cite other objects as ``:func:`from_long``` or
``:class:`~aggframe.Cells```, which Markdown would print with the role and the tilde.
This turns each into inline code of the name (``from_long``, ``Cells``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|attr|mod|data|obj|exc):`~?([^`<]*?)(?:\s*<([^>]+)>)?`")


def _plain(match: re.Match[str]) -> str:
    """``:func:`~a.b``` -> ``b``; ``:meth:`text <a.b>``` -> ``text``; ``:func:`a.b``` -> ``a.b``."""
    shown, target = match.group(1).strip(), match.group(2)
    name = shown or (target or "")
    if match.group(0).startswith(":") and "`~" in match.group(0):
        name = name.rsplit(".", 1)[-1]
    return f"`{name}`"


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx cross-reference roles as inline code when a docstring is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(_plain, obj.docstring.value)
