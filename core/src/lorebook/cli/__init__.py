"""The ``lorebook`` command line (typer), one module per command group."""


def main() -> None:
    """The ``lorebook`` console script (and ``python -m lorebook``).

    The cyclic garbage collector is paused while the command's modules are imported (some
    50,000 tracked objects, no garbage: its passes over them cost a command 10 to 15 ms), then
    what they made is frozen out of its reach (:func:`gc.freeze`), and it runs again: a
    command that then builds 10,000 objects of its own (``note add`` reading the index's
    rows) no longer walks the imports' too, some 20 ms less.
    """
    import gc

    gc.disable()
    from lorebook.cli.app import main as run

    run(collector_paused=True)
