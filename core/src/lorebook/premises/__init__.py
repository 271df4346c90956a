"""Premises with proofs: facts and rules under ``.lorebook/premises/``, reviewed in git.

:mod:`~lorebook.premises.model` parses the syntax, :mod:`~lorebook.premises.store` reads and
writes the files (one source per file, one folder per context, every change logged with its
payload), :mod:`~lorebook.premises.kernel` derives supported, refuted, conflict or unknown
with the proof and its sources, and :mod:`~lorebook.premises.conflicts` turns two notes whose
premises contradict each other into a conflict file at the end of curation. The commands are
``lorebook premise record|retract|ask|list``; the MCP server offers ``premise_ask`` and
``premise_record``.
"""
