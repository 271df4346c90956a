"""What the tests of the semantic signal share: their skip mark and a hard prompt to cut."""

from __future__ import annotations

import pytest

from lorebook.recall import semantic

needs_model = pytest.mark.skipif(
    semantic.model_files() is None,
    reason="the semantic model is not installed (pip install 'lorebook[semantic]')",
)

PASTED = (
    'Traceback (most recent call last):\n  File "src/app/cli.py", line 88, in main\n'
    "app.net.errors.UploadError: upload failed after 3 retries: 504 Gateway Timeout; "
    "getUserName() returned None for https://example.test/a?b=c#frag and 7f3a9c"
)
"""A pasted traceback: paths, a URL, a camelCase call and a hash, words no piece holds whole."""
