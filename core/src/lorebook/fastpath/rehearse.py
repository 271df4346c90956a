"""The rehearsal a spare child of the warm hook process runs before its event."""

from __future__ import annotations

from lorebook.inject.choose import choose
from lorebook.recall.stores import close_views, open_views

REHEARSAL_PROMPT = (
    "why does the session start hook fail on the staging deploy?\n"
    'File "src/app/cli.py", line 88, in main: UploadError: upload_bundle() timed out'
)
"""What :func:`rehearse` asks: words, identifiers and a traceback line, as users paste."""


def rehearse(kb_root: str) -> None:
    """Rank :data:`REHEARSAL_PROMPT` against the knowledge base once, answering nothing.

    Each spare child of the warm hook process (:class:`lorebook.fastpath.child.Spare`) runs it
    before it waits for its event: Python specialises a function's bytecode as it runs it
    (3.11 on), and the first run in a forked child copies every page it writes, so a spare
    that has rehearsed answers its event some 3 ms sooner. (The warm process itself does
    not: at 100,000 notes what it read would double its memory.)
    Keeps nothing of what it read. Writes nothing a prompt would not (the validity stat
    cache, when a matching note has dependencies); no session state, timing line or usage
    record. Raises what opening the stores raises (the caller ignores it).
    """
    from lorebook.hookconfig import load_hook_config

    views = open_views(kb_root, [])
    try:
        if views:
            choose(views[0].index, REHEARSAL_PROMPT, load_hook_config(kb_root), stores=views)
    finally:
        close_views(views)
