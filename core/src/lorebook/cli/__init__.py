"""The ``lorebook`` command line (typer), one module per command group."""
