"""lorebook harness plugin for Cursor (not supported yet)."""

from __future__ import annotations

__version__ = "0.1.0"
