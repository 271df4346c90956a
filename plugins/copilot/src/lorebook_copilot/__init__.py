"""lorebook harness plugin for GitHub Copilot CLI."""

from __future__ import annotations

__version__ = "0.1.0"
