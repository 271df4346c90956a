"""The hosts' own memories (Claude Code's auto memory, Codex memories) into team review.

Each host's plugin reads its store as it lies on disk (:mod:`lorebook.hostkit.memory`);
:mod:`.hosts` finds the installed hosts that keep one, :mod:`.ledger` remembers what
became of every entry, :mod:`.run` is ``lorebook harvest``: new and edited memories become
proposals through the same curation as captured sessions
(:mod:`lorebook.bootstrap.drafts`).
"""
