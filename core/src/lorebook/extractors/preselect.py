"""What an LLM extractor is shown: every human turn typed as prose, with what it answers.

Recall comes first: a turn the model never sees is a teaching moment no model can find, and
on projects nobody here tuned on no cue told a teaching turn from the rest well enough (the
phrase cues kept 0 to 0.76 of the labelled teaching turns of seven projects). So every
human turn a person typed is kept, and the words are saved where nothing is taught:

- left out whole: slash commands and harness envelopes, turns made only of
  acknowledgements ("OK", "yes, go ahead", "1"), turns with no prose at all (pasted
  output), compaction summaries; a ``#`` memory line is always kept;
- within a kept turn, what was pasted (a code fence, a shell session and its output, a
  stack trace, a table, what "I get this error:" introduces) is replaced by one line
  saying how many lines were left out (:func:`lorebook.extractors.sentences.prose_lines`):
  the model reads what the person typed, at most :data:`HUMAN_WORDS` words of it (the
  first :data:`HEAD_WORDS` and the last ones of a longer turn);
- each kept turn goes with the agent turns it answers (those since the previous human
  turn), nearest first, up to about :data:`CONTEXT_WORDS` words: an agent turn is cut to
  its end (its last words and its last tool call, without the call's arguments), which is
  what the human was looking at when they typed.

``lorebook eval extraction --corpus benchmarks/corpus`` prints, per project, the share of
the teaching turns kept and the share of the session's words sent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lorebook.extractors.cues import TurnCues, read_turn
from lorebook.extractors.prompt import count_words
from lorebook.extractors.sentences import prose_lines
from lorebook.models.session import LoggedTurn

CONTEXT_WORDS = 40
HUMAN_WORDS = 250
HEAD_WORDS = 200
"""A kept human turn of more than :data:`HUMAN_WORDS` words is sent as its first
:data:`HEAD_WORDS` words and its last ones, up to that many."""
_WORD = re.compile(r"\S+")
"""Words of agent context sent before each selected human turn."""


def could_teach(cues: TurnCues) -> bool:
    """True when a human turn is typed prose a model should read (or a ``#`` memory line)."""
    if cues.slash or cues.bare or not cues.sentences:
        return cues.memory
    return True


def _typed(turn: LoggedTurn) -> LoggedTurn:
    """``turn`` with its pasted lines replaced by one line saying how many were left out."""
    lines = turn.text.splitlines()
    kept = {line for _, line, _, _ in prose_lines(turn.text)}
    out: list[str] = []
    left = 0
    for number, line in enumerate(lines):
        if number in kept or not line.strip():
            if left:
                out.append(f"[{left} pasted line{'s' if left > 1 else ''} left out]")
                left = 0
            out.append(line)
        else:
            left += 1
    if left:
        out.append(f"[{left} pasted line{'s' if left > 1 else ''} left out]")
    text = "\n".join(out)
    words = list(_WORD.finditer(text))
    if len(words) > HUMAN_WORDS:
        head, tail = words[HEAD_WORDS - 1].end(), words[HEAD_WORDS - HUMAN_WORDS].start()
        left_out = len(words) - HUMAN_WORDS
        text = f"{text[:head]} [… {left_out} words left out …] {text[tail:]}"
    return turn if text == turn.text else turn.model_copy(update={"text": text})


def _tail(turn: LoggedTurn, words: int) -> LoggedTurn:
    """``turn`` cut to its end: its last tool call, and the last ``words`` words of its text."""
    parts = turn.text.split()
    text = turn.text if len(parts) <= words else "… " + " ".join(parts[-words:])
    calls = [
        call.model_copy(update={"input": {}, "result_excerpt": call.result_excerpt or None})
        for call in turn.tool_calls[-1:]
    ]
    return turn.model_copy(update={"text": text, "tool_calls": calls})


def _context(turns: Sequence[LoggedTurn], position: int) -> list[LoggedTurn]:
    """The agent turns the human turn at ``position`` answers, within the word budget."""
    kept: list[LoggedTurn] = []
    budget = CONTEXT_WORDS
    for turn in reversed(turns[:position]):
        if turn.role in ("user", "summary") or budget <= 0:
            break
        if turn.role != "assistant":
            continue
        cut = _tail(turn, budget)
        budget -= count_words([cut])
        kept.append(cut)
    kept.reverse()
    return kept


def select_turns(turns: Sequence[LoggedTurn]) -> list[LoggedTurn]:
    """The turns to send, in order: each human turn that could teach, after its context.

    Args:
        turns: The turns of the request, in order.

    Returns:
        Turns of ``turns`` (agent turns cut to their end, human turns to what was typed),
        in their order.
    """
    chosen: dict[int, LoggedTurn] = {}
    for position, turn in enumerate(turns):
        if turn.role != "user":
            continue
        cues = read_turn(turns, position)
        if not could_teach(cues):
            continue
        for context in _context(turns, position):
            chosen.setdefault(context.index, context)
        chosen[turn.index] = turn if cues.memory else _typed(turn)
    return [chosen[index] for index in sorted(chosen)]
