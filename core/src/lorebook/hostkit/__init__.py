"""Building blocks for harness plugins: the parts every Claude-style host shares.

Each module is small and imports nothing heavy, so a third-party harness plugin can use it
without slowing its hook path:

* :mod:`lorebook.hostkit.jsonl`: read the complete lines of a JSONL transcript between two
  byte offsets, numbered by their line in the file (stable indexes across re-reads), and
  find where the last complete line ends.
* :mod:`lorebook.hostkit.hookfile`: merge lorebook's entries into a JSON hooks file of the
  shape ``{"hooks": {Event: [{"matcher"?, "hooks": [{"type": "command", ...}]}]}}``
  (Claude Code, Codex CLI and hosts that copied them): idempotent install, exact
  uninstall, and the per-event state for ``check``.
* :mod:`lorebook.hostkit.headless`: whether a headless run passes the prompt in argv or on
  stdin.
* :mod:`lorebook.hostkit.history`: the optional :class:`~lorebook.hostkit.history.SessionHistory`
  methods a harness adds when its host keeps session transcripts on disk, so that
  ``lorebook import`` recognises them and ``--from-harness`` finds a repository's past
  sessions (not for the hook path: it imports ``dataclasses`` and ``pathlib``).

This package imports none of its modules eagerly.
"""
