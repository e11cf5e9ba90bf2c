"""Analyses on evaluated predictions: diagnostics, the micro-macro gap, suites, costs, coordinates, parity.

Each takes :class:`~aggframe.Predictions` and uses its accessors (cell tables,
reports, confusion counts with private keys); the user's names come back at the
end. :mod:`~aggframe.analysis.suites` and :mod:`~aggframe.analysis.jacobian` are
NumPy only and see one small count table at a time.
"""
