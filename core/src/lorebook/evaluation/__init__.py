"""Measuring lorebook against baselines: ``lorebook eval``.

``retrieval`` runs the prompt hook's ranker (:mod:`lorebook.recall.serve`) on a note
collection and a query set, next to grep and plain BM25, and reports the same measures for
each. Modules: :mod:`~lorebook.evaluation.corpus` (note collections),
:mod:`~lorebook.evaluation.queries` (query sets), :mod:`~lorebook.evaluation.locomo`
(LoCoMo conversations), :mod:`~lorebook.evaluation.metrics`,
:mod:`~lorebook.evaluation.baselines`, :mod:`~lorebook.evaluation.retrieval` (the run) and
:mod:`~lorebook.evaluation.report` (table and JSON). ``extraction`` scores the extractor
on labelled sessions (:mod:`~lorebook.evaluation.extraction`).
"""
