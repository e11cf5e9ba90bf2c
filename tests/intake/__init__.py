"""Intake: sources, role projection, options and the data checks of every input form."""
