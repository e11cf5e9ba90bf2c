"""The wide step: the one pass over the rows (Narwhals)."""
