"""What injection costs and whether it pays: ``lorebook stats``, its timing log and usage file.

Submodules are imported where they are needed: :mod:`lorebook.stats.timing` runs on the hook
fast path and :mod:`lorebook.stats.usage` is read by ranking, so neither pulls in the rest.
"""
