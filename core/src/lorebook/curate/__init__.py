"""Curation: pending proposals become one batch of actions, validated, applied crash-safely.

Actions are add / modify / contradict / drop; contradictions become conflict files for a
person to decide.

Modules: :mod:`~lorebook.curate.text` (how alike two claims are, and whether they
contradict), :mod:`~lorebook.curate.rules` (the deterministic curator),
:mod:`~lorebook.curators.llm` (the LLM curators), :mod:`~lorebook.curate.validate` (the whole
batch checked before the first write), :mod:`~lorebook.curate.run` (the pipeline and its
journal), :mod:`~lorebook.curate.conflicts` (conflict files, listed and resolved).
"""
