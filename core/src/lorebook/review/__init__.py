"""Review the proposed change to the knowledge base: one diff, and deciding on its parts.

:mod:`lorebook.review.changes` lists what git sees changed under ``.lorebook/`` since ``HEAD``
and renders it as one diff; :mod:`lorebook.review.verdicts` rejects changes (undoing them and
remembering the claims they brought) and accepts unreviewed notes.
"""
