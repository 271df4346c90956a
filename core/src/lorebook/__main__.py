"""``python -m lorebook``: the same as the ``lorebook`` command."""

from lorebook.cli.app import main

main()
