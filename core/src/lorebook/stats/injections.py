"""Reading lorebook's own injected text back: which event wrote it, which notes it carried.

Every surface that injects opens with a fixed header (``lorebook: notes the team keeps for
this project ...`` for prompt and tool events, ``lorebook: this project's notes that may
bear on this ...`` (earlier versions said ``more of`` them) or ``lorebook: notes no person
has reviewed yet ...`` for pointers alone, the ``lorebook status:`` line of the session
start catalog, the ``lorebook resume:`` brief, the ``lorebook: a project rule forbids``
reason of a denied command), and every note it renders names its file,
``.lorebook/nodes/<path>.md``, whose stem is the note's id. So the text alone says what was
injected, whatever the host; ``tests/core/test_stats_units.py`` keeps this module in step
with what the hooks really write.
"""

from __future__ import annotations

import re

_NOTE_REF = re.compile(r"\.lorebook/nodes/((?:[A-Za-z0-9_.-]+/)*([A-Za-z0-9_.-]+)\.md)")
_NOTES_HEADER = "lorebook: notes the team keeps for this project"
_ERROR_HEADER = _NOTES_HEADER + " about this error:"
_TOOL_HEADER = _NOTES_HEADER + " about "
_RULE_HEADER = "lorebook: a project rule forbids this command"
_POINTER_HEADERS = (
    "lorebook: this project's notes that may bear on this",
    "lorebook: more of this project's notes that may bear on this",
    "lorebook: notes no person has reviewed yet",
)
"""What a block of pointers alone opens with (a prompt no note answered for certain, or
notes nobody reviewed): :data:`lorebook.inject.render.POINTER_HEADER` (and its ``more of``
wording, which pointers alone had before), and
:data:`lorebook.inject.served.UNREVIEWED_HEADER`."""
_STATUS_LINE = re.compile(r"^lorebook status: ", re.M)
_RESUME_LINE = re.compile(r"^lorebook resume: ", re.M)
_HOST_EVENTS = {
    "sessionstart": "session_start",
    "userpromptsubmit": "prompt",
    "userpromptsubmitted": "prompt",
    "pretooluse": "pre_tool",
    "posttooluse": "post_tool",
}


def is_lorebook_text(text: str) -> bool:
    """True when ``text`` is something lorebook's hooks injected."""
    head = text.lstrip()
    return (
        head.startswith((_NOTES_HEADER, _RULE_HEADER, *_POINTER_HEADERS))
        or _STATUS_LINE.search(text) is not None
        or _RESUME_LINE.search(text) is not None
    )


def event_of(text: str, host_event: str | None = None) -> str:
    """The lifecycle point that injected ``text``: session_start, prompt, pre_tool, post_tool.

    Read from lorebook's own header first; the host's event name (``PreToolUse:Bash``) only
    decides when the text has none of them. ``other`` when neither says.
    """
    head = text.lstrip()
    if head.startswith(_ERROR_HEADER):
        return "post_tool"
    if head.startswith((_TOOL_HEADER, _RULE_HEADER)):
        return "pre_tool"
    if head.startswith(_NOTES_HEADER):
        return "prompt"
    if _STATUS_LINE.search(text) or _RESUME_LINE.search(text):
        return "session_start"
    name = (host_event or "").split(":")[0].casefold()
    if head.startswith(_POINTER_HEADERS):  # pointers alone: a prompt's, unless the host says
        return _HOST_EVENTS.get(name, "prompt")
    return _HOST_EVENTS.get(name, "other")


def note_blocks(text: str) -> dict[str, str]:
    """Map note id -> the text of that note as it was injected (whole, or its pointer line).

    A rendered note starts at its heading or pointer line (which names its file) and runs to
    the next one; a whole note's body may hold blank lines, so blank lines do not end it. A
    deny or ask reason names the file last, ``(see .lorebook/nodes/...)``: its block is the
    text since the previous block. A note named twice keeps both blocks, joined.
    """
    blocks: dict[str, list[str]] = {}
    current: str | None = None
    pending: list[str] = []
    for line in text.splitlines():
        match = _NOTE_REF.search(line)
        if match and line.lstrip().startswith("(see "):
            blocks.setdefault(match.group(2), []).extend([*pending, line])
            current, pending = None, []
            continue
        if match and line.lstrip().startswith(("### ", "- ")):
            current = match.group(2)
            blocks.setdefault(current, [])
        if current is not None:
            blocks[current].append(line)
        else:
            pending.append(line)
    return {note: "\n".join(lines).strip() for note, lines in blocks.items()}


def note_paths(text: str) -> dict[str, str]:
    """Map note id -> its path under ``nodes/`` for every note file ``text`` names."""
    return {m.group(2): m.group(1) for m in _NOTE_REF.finditer(text)}
