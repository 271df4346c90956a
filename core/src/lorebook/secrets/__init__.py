"""The secret scanner: detect-secrets and lorebook's own rules, nothing else of lorebook's.

:mod:`lorebook.secrets.redact` is its entry point (``redact_many``, ``find_secrets``,
``text_secrets``); capture redacts session text with it, curation and recall refuse what it
flags. It sits in the lowest layer so that every stage may use it.
"""
