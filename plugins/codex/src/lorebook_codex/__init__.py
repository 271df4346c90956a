"""lorebook harness plugin for OpenAI Codex CLI."""

from __future__ import annotations

__version__ = "0.1.0"
