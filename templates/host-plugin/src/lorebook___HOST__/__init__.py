"""lorebook harness plugin for __HOST_TITLE__."""
