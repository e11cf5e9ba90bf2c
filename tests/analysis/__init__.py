"""Analyses: diagnostics, measure suites."""
