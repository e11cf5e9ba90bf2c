"""Interop: scikit-learn, the command line, HTML, charts, the Polars namespace, the NumPy bridge, reprs."""
