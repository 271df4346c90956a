"""Make note text safe to put in a model's context.

A note is text anyone with a pull request can write. Before it is injected, characters a
reader cannot see are removed (zero-width characters, bidirectional overrides and
isolates, Unicode tag characters, soft hyphens: they hide or reorder instructions), and
text that imitates a host's own markup (``<system-reminder>``, ``<user-prompt-submit-hook>``,
``<command-name>``, a role or tool-call tag) is neutralised: its angle brackets become
single guillemets (U+2039, U+203A), so the model reads it as quoted text, not as a
message from the host. Standard library only (the hook path).
"""

from __future__ import annotations

import re

_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f]"
)
"""Zero-width, joiner, direction marks, embeddings, overrides, isolates, invisible
operators, variation selectors, BOM, interlinear annotation and tag characters."""

OPEN, CLOSE = "\u2039", "\u203a"
_HOST_TAG = re.compile(
    r"<\s*/?\s*(?P<name>system[-_ ]?reminder|system|developer|user|assistant|human|"
    r"user[-_]prompt[-_]submit[-_]hook|[a-z]+[-_]hook|hook[-_][a-z_-]+|command[-_][a-z-]+|"
    r"local[-_]command[-_][a-z-]+|tool[-_](?:use|result|call)s?|function[-_]?(?:calls|results)|"
    r"invoke|parameter|environment[-_]context|user[-_]instructions|instructions|"
    r"important|antml:[a-z_-]+|thinking|context|lorebook[-_a-z]*)\b[^<>]{0,200}>",
    re.IGNORECASE,
)


def sanitize(text: str) -> str:
    """Remove invisible and bidirectional controls; neutralise host-markup imitations."""
    text = _INVISIBLE.sub("", text)
    return _HOST_TAG.sub(lambda m: OPEN + m.group()[1:-1] + CLOSE, text)
