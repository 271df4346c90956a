"""``lorebook rebalance``: keep every folder of ``nodes/`` small enough to read.

A feature built on the knowledge base and curation: :mod:`~lorebook.rebalance.plan` decides
(the hysteresis-gated trigger and its deterministic plan, on a simulated tree),
:mod:`~lorebook.rebalance.notesplit` splits over-large notes of several concepts,
:mod:`~lorebook.rebalance.proposal` checks a plan a curator proposes instead,
:mod:`~lorebook.rebalance.run` validates and applies a plan crash-safely, and
:mod:`~lorebook.rebalance.aftercurate` runs the trigger at the end of curation.
"""
