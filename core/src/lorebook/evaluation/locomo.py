r"""LoCoMo conversations as notes and queries, by the procedure of ``reference-bm25.json``.

A LoCoMo file is a JSON list of conversations. Each conversation is ranked on its own (a
question is asked of its conversation only), and the measures are averaged over every
scored question of the file:

- one note per dialog turn of every ``session_N`` list: ``"<speaker>: <text>"``, plus
  ``" [image: <blip_caption>]"`` when the turn has a caption; the id is the ``dia_id``
  (``Dn:m``);
- one query per QA item, skipping category 5 (adversarial) and questions whose evidence names
  no turn of the conversation; the expected ids are the evidence strings split on
  ``[;,\s]+``, keeping parts of the form ``Dn:m`` that exist;
- session level: a ranking of turns collapsed to its ``Dn`` prefixes in first-seen order
  (:func:`session_of`), against the distinct prefixes of the expected turns.

The data is read from disk where it is given; it is CC BY-NC and never copied into lorebook.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from lorebook.evaluation.corpus import Collection, EvalInputError, make_note, read_text
from lorebook.evaluation.queries import Query
from lorebook.recall.index import IndexedNote

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_TURN_ID = re.compile(r"^D\d+:\d+$")
ADVERSARIAL = 5


def session_of(turn_id: str) -> str:
    """The session a turn belongs to: ``D3:14`` -> ``D3``."""
    return turn_id.split(":", 1)[0]


def looks_like_locomo(path: Path) -> bool:
    """A ``.json`` file is read as LoCoMo (anything else given as ``--notes`` is a folder)."""
    return path.is_file() and path.suffix == ".json"


def load_locomo(path: Path) -> list[tuple[Collection, list[Query]]]:
    """Every conversation of the file: its turns as notes and its scored questions."""
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise EvalInputError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, list) or not data:
        raise EvalInputError(f"{path}: expected a JSON list of LoCoMo conversations")
    return [_conversation(item, f"{path}: [{at}]") for at, item in enumerate(data)]


def _conversation(item: Any, where: str) -> tuple[Collection, list[Query]]:
    if not isinstance(item, dict) or not isinstance(item.get("conversation"), dict):
        raise EvalInputError(f"{where}: field 'conversation': must be a mapping of sessions")
    if not isinstance(item.get("qa"), list):
        raise EvalInputError(f"{where}: field 'qa': must be a list of questions")
    name = str(item.get("sample_id") or where)
    notes = _turns(item["conversation"], name, where)
    ids = {n.id for n in notes}
    queries = [
        q for at, qa in enumerate(item["qa"]) if (q := _question(qa, ids, f"{name} qa[{at}]"))
    ]
    return Collection(notes, "locomo"), queries


def _turns(conversation: dict[str, Any], name: str, where: str) -> list[IndexedNote]:
    keys = sorted((int(m.group(1)), key) for key in conversation if (m := _SESSION_KEY.match(key)))
    notes = []
    for _, key in keys:
        turns = conversation[key]
        if not isinstance(turns, list):
            raise EvalInputError(f"{where}: field 'conversation.{key}': must be a list of turns")
        for turn in turns:
            if not isinstance(turn, dict) or not isinstance(turn.get("dia_id"), str):
                raise EvalInputError(f"{where}: field 'conversation.{key}': turn without dia_id")
            text = f"{turn.get('speaker', '')}: {turn.get('text', '')}"
            if turn.get("blip_caption"):
                text += f" [image: {turn['blip_caption']}]"
            notes.append(
                make_note(
                    turn["dia_id"],
                    f"{name}/{turn['dia_id']}",
                    title="",
                    description="",
                    body=text,
                    tags=(),
                )
            )
    return notes


def _question(qa: Any, ids: set[str], label: str) -> Query | None:
    if not isinstance(qa, dict) or not isinstance(qa.get("question"), str):
        raise EvalInputError(f"{label}: field 'question': must be a string")
    if qa.get("category") == ADVERSARIAL:
        return None
    gold: list[str] = []
    for evidence in qa.get("evidence") or []:
        for part in re.split(r"[;,\s]+", str(evidence)):
            if _TURN_ID.match(part) and part in ids and part not in gold:
                gold.append(part)
    if not gold:
        return None
    return Query(qa["question"], tuple(gold), "answerable", label)
