"""``python -m lorebook``: the same as the ``lorebook`` command."""

from lorebook.cli import main

main()
