"""Decisions on top of results: checks (rules -> verdicts), windows over time and alert bands,
slice search, and estimates before the labels arrive.

Each module here takes a :class:`~aggframe.Predictions` (or cells) and asks the one plan for
what it needs in one scan; none re-reads data or loops over groups in Python.
"""
