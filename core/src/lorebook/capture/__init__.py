"""Capture: stage a session's normalised, redacted turns under ``.lorebook/_sessions/``."""
