"""Measures: the registry, inference of properties, the whole-matrix kernel, the reference's theorems."""
