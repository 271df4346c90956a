"""Validity: is what a note rests on still what its writer saw?

A note may declare, in ``lb_dependencies``, files (with the sha256 of their content) and
trees (a glob, with a digest over the sorted paths and hashes of every file it matches).
:mod:`lorebook.validity.record` stamps them when a note is written;
:mod:`lorebook.validity.check` re-checks them whenever a note is served, within a budget,
and says one of ``unchanged``, ``stale``, ``unknown`` or ``untracked``. The label acts:
a stale or unknown note is demoted and marked "recheck" wherever it is served.

This package imports nothing eagerly: :mod:`~lorebook.validity.check` and
:mod:`~lorebook.validity.fields` run on the hook fast path (standard library only).
"""
