"""The wide step: the one pass over the user's rows, written with Narwhals.

It receives the projected frame of an intake source (role and key columns under
private names) and returns small lazy aggregates: per-class sums, per-example
cell profiles and the counts the checks need. :mod:`~aggframe.wide.long` and
:mod:`~aggframe.wide.labels` are the two forms' grains; the cells are defined in
:mod:`~aggframe.wide.long` (with the t-norms of :mod:`~aggframe.wide.tnorms`) and
:func:`~aggframe.wide.labels.label_row_cells`; engine-specific pieces are in
:mod:`~aggframe.wide.engines`.
"""
