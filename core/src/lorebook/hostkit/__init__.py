"""Building blocks for harness plugins: what two host plugins would otherwise each write.

Hook path (standard library and ``lorebook.events`` only, not ``typing`` at run time):

* :mod:`lorebook.hostkit.payload`: read a payload field by field, with errors naming the
  event and field; encode an answer; the reason of an ask a host cannot ask.
* :mod:`lorebook.hostkit.hookspecific`: ``parse_event`` and ``render`` for hosts whose
  payloads and answers have the matcher-group shape (snake_case fields,
  ``hookSpecificOutput``).
* :mod:`lorebook.hostkit.jsonl`: the complete lines and records of a JSONL transcript
  between two byte offsets, and the transcript read loop.
* :mod:`lorebook.hostkit.once`: answers given once per session id and content.
* :mod:`lorebook.hostkit.loaded`: the parts of an event module's ``loaded_files`` (the
  files a host loads by itself) hosts share.

Install, check and transcripts (not for the hook path):

* :mod:`lorebook.hostkit.harnesses`: the harness methods that only hand over, the install
  reports and check items, a lazy factory for ``HarnessSpec``.
* :mod:`lorebook.hostkit.hookfile`: lorebook's entries in a JSON hooks file of matcher
  groups (``{"hooks": {Event: [{"matcher"?, "hooks": [{"type": "command", ...}]}]}}``).
* :mod:`lorebook.hostkit.flathooks`: lorebook's entries in a versioned flat hooks file
  (``{"version": 1, "hooks": {event: [entry]}}``).
* :mod:`lorebook.hostkit.managed`: a whole file lorebook owns, with a marker.
* :mod:`lorebook.hostkit.headless`: whether a headless run passes the prompt in argv or on
  stdin.
* :mod:`lorebook.hostkit.history`: the optional :class:`~lorebook.hostkit.history.SessionHistory`
  methods for a host that keeps session transcripts on disk.
* :mod:`lorebook.hostkit.memory`: the optional :class:`~lorebook.hostkit.memory.HostMemory`
  methods for a host that keeps its own memory of a repository on disk, and the helpers
  its reader shares.

This package imports none of its modules eagerly.
"""
