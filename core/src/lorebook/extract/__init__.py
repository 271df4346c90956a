"""Extraction: from a staged session log to candidate notes (proposals) with their quotes."""
