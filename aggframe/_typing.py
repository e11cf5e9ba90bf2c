"""Option types shared by the public API (Literal aliases, as in polars' ``_typing``)."""

from __future__ import annotations

from typing import Literal

Operator = Literal["micro", "macro", "weighted", "exemplar"]
Convention = Literal["exclude", "zero", "one", "nan"]
Task = Literal["multiclass", "binary"]
TNormName = Literal["product", "godel", "minimum", "lukasiewicz", "hamacher"]

OPERATORS: tuple[Operator, ...] = ("micro", "macro", "weighted", "exemplar")
OPERATOR_ALIASES: dict[str, Operator] = {"samples": "exemplar", "example": "exemplar"}
CONVENTIONS: tuple[Convention, ...] = ("exclude", "zero", "one", "nan")
