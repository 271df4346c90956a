"""lorebook harness plugin for Cursor."""

from __future__ import annotations

__version__ = "0.1.0"
