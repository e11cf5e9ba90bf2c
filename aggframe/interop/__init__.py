"""Interop: scikit-learn, the command line, charts, the HTML report, wide tables, the Polars namespace.

Everything here stands on the public API (:class:`~aggframe.Predictions` and its
tidy results); nothing below imports it.
"""
