"""The LLM curators' rebalance plan: the request sent and how the answer is read.

When ``rebalance.planner`` names ``http`` or ``headless`` and the deterministic trigger
finds work, the curator sends one request: the limits, the folders with their metrics
(notes, index.md length, why the trigger acts on them), the notes of the folders it acts on
(id, folder, kind, title, tags, body length, ``## `` headings of a note long enough to
split) and the deterministic plan as a draft in the answer's own format. The model answers
one JSON object ``{"moves": [...], "splits": [...], "folders": {...}, "reasons": [...]}``,
read into a :class:`~lorebook.models.rebalance.PlanProposal`; the rebalance then validates
it against the simulated tree exactly like its own plan (:mod:`lorebook.rebalance.proposal`)
and sets it aside, with one warning, when it fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pydantic import ValidationError

from lorebook.curate.base import CurationError
from lorebook.models.rebalance import MAX_SUMMARY_CHARS, PlanProposal

if TYPE_CHECKING:
    from lorebook.models.rebalance import RebalanceRequest

MAX_PLAN_NOTES = 600
"""The most notes listed in one request (those of the folders the trigger acts on first)."""

PLAN_PROMPT = f"""\
You organise the folders of a software project's knowledge base: markdown notes under \
nodes/, one file per note, filed in a folder of its kind (convention/, gotcha/, ...). A \
folder whose index.md lists too many notes is no longer navigable. You receive the limits, \
every folder with its metrics ("over" says why a folder must change), the notes of those \
folders, and a draft plan written by a deterministic planner. Return the plan you judge \
right: group notes by topic, into subfolders named after the topic. Start from the draft \
and change what groups notes badly.

Answer with one JSON object and nothing else: {{"moves": [{{"id": <note id>, "to": \
<folder>}}], "splits": [{{"id": <note id>, "parts": [{{"sections": [<## heading>, ...], \
"folder": <folder or null>}}]}}], "folders": {{<folder>: <one-line summary>}}, "reasons": \
[<one line each>]}}. Rules, all checked:
- a note stays within its top folder (a note at the top of nodes/ goes to its kind's \
folder); folder names are lower case words joined by "-", one level below the folder split;
- afterwards no folder holds more than max_notes notes directly or an index.md over \
max_index_chars, and no subfolder below the top level holds fewer than min_notes;
- a pinned note never moves nor splits;
- split only a note listed with "sections" (its body passes split_note_chars); every one \
of its sections goes to exactly one part, two parts or more, as the draft does when it \
splits one; a note the draft splits must be split;
- every folder the plan creates gets a summary of at most {MAX_SUMMARY_CHARS} characters.
"""


def plan_message(request: RebalanceRequest) -> str:
    """The request's content: limits, folders, the notes that matter, and the draft, as JSON."""
    acting = {f.folder for f in request.folders if f.over}
    named = {m.id for m in request.draft.moves} | {s.id for s in request.draft.splits}
    ranked = sorted(
        request.notes,
        key=lambda n: (n.folder not in acting and n.id not in named, n.folder, n.id),
    )
    shown = [n for n in ranked if n.folder in acting or n.id in named][:MAX_PLAN_NOTES]
    payload = {
        "limits": request.limits,
        "folders": [f.model_dump(exclude_none=True) for f in request.folders],
        "notes": [n.model_dump(exclude_defaults=True) for n in shown],
        "notes_not_listed": len(request.notes) - len(shown),
        "draft": request.draft.model_dump(),
    }
    return json.dumps(payload, indent=1, ensure_ascii=False)


def _objects(text: str) -> Iterator[object]:
    """Every JSON value that starts at a ``{`` of ``text`` (prose and fences around it)."""
    decoder = json.JSONDecoder()
    at = text.find("{")
    while at != -1:
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError:
            at = text.find("{", at + 1)
            continue
        yield value
        at = text.find("{", end)


def parse_plan(text: str, *, source: str) -> PlanProposal:
    """Find the plan object in an answer and validate it.

    Raises:
        CurationError: the answer holds no such object, or it is not a valid plan (naming
            the first field that is wrong).
    """
    for value in _objects(text):
        if isinstance(value, dict) and ("moves" in value or "splits" in value):
            try:
                return PlanProposal.model_validate(value)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(part) for part in first["loc"]) or "the plan"
                raise CurationError(
                    f"{source} answered a plan whose {where} is wrong: {first['msg']}"
                ) from None
    excerpt = " ".join(text.split())[:200]
    raise CurationError(
        f"{source} answered without a JSON object holding 'moves' and 'splits': {excerpt!r}"
    )


__all__ = ["MAX_PLAN_NOTES", "PLAN_PROMPT", "parse_plan", "plan_message"]
