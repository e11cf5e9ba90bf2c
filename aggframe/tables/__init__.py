"""Cell tables and their checks: the narrow step after the wide one (Polars, small tables).

:mod:`~aggframe.tables.cells` defines the common currency (:class:`CellTables`);
:mod:`~aggframe.tables.long` and :mod:`~aggframe.tables.labels` validate each
form's raw grains and fill the class universe; :mod:`~aggframe.tables.universe`
and :mod:`~aggframe.tables.errors` are their shared pieces.
"""
