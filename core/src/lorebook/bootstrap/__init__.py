"""Knowledge a repository already has written down, drafted into notes through curation.

:mod:`.documents` finds and reads the documents, :mod:`.sections` cuts them into one draft
per rule or section, :mod:`.drafts` stages drafts as session logs and curates them (harvest
uses it too), :mod:`.state` remembers each document's hash and progress, :mod:`.run` is the
command, :mod:`.extractor` the optional pass through an extractor provider.
"""
