"""The markdown knowledge base under ``.lorebook/``: layout, notes, indexes, lint."""
