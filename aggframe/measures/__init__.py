"""Measures: binary confusion-count measures, their properties, the registry and whole-matrix measures.

Layers, bottom up (no module imports one above it): :mod:`~aggframe.measures.measure`
(the :class:`Measure` value), :mod:`~aggframe.measures.formulas` (the built-ins'
formulas), :mod:`~aggframe.measures.inference` (properties from a formula),
:mod:`~aggframe.measures.registry` (names, aliases, the user's measures),
:mod:`~aggframe.measures.verify` (inference held against the registry) and
:mod:`~aggframe.measures.matrix` (measures of the whole confusion matrix). The
public names are re-exported by :mod:`aggframe`.
"""
