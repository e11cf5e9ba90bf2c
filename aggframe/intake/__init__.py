"""Intake: one source per input form behind one protocol (:class:`~aggframe.intake.base.Source`).

:mod:`~aggframe.intake.long` (one row per (example, class)),
:mod:`~aggframe.intake.labels` (one row per example) and
:mod:`~aggframe.intake.stored` (cell stores), plus the derived forms
:mod:`~aggframe.intake.scores_long` (decisions from scores, long layout),
:mod:`~aggframe.intake.binary_scores` (the binary layout of scores; both built by
:mod:`~aggframe.intake.scores_source`) and :mod:`~aggframe.intake.ordinal`
(cumulative thresholds). Each knows its roles,
its grains and its checks; :mod:`~aggframe.intake.paths` checks and scans paths
(:mod:`~aggframe.intake.partitions` types the hive ``key=value`` folders of its paths),
:mod:`~aggframe.intake.read_errors` turns the engines' read errors into
:class:`~aggframe.exceptions.SourceError`, :mod:`~aggframe.intake.origin` records where a
frame came from, :mod:`~aggframe.intake.frame_input` takes any frame as a lazy one, and
:mod:`~aggframe.intake.fingerprint` records the files a cell store was written from;
:mod:`~aggframe.intake.input_checks` holds the option and column checks every form shares.
"""
