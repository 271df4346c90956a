"""The hosts' own memories (Claude Code's auto memory, Codex memories) into team review.

:mod:`.hosts` reads each host's store as it lies on disk, :mod:`.ledger` remembers what
became of every entry, :mod:`.run` is ``lorebook harvest``: new and edited memories become
proposals through the same curation as captured sessions
(:mod:`lorebook.bootstrap.drafts`).
"""
