"""Knowledge a repository already has written down, distilled into notes through curation.

:mod:`.documents` finds and reads the documents, :mod:`.sections` cuts them into sections,
:mod:`.blocks` reads a section's paragraphs and list items, :mod:`.statements` (with the
vocabulary of :mod:`.grammar`) says what one sentence states, :mod:`.distil` finds the rules
of a section and titles them, :mod:`.drafting` makes them drafts, :mod:`.duplicates` finds
a rule said again in another place, :mod:`.drafts` stages drafts as session logs and
curates them (harvest uses it too), :mod:`.state` remembers each document's hash and
progress, :mod:`.run` is the command, :mod:`.preview` the same run writing nothing
(``--dry-run``), :mod:`.extractor` the optional pass through an extractor provider.
"""
