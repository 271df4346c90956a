"""What an LLM extractor is shown: every human turn that could teach, with what it answers.

Recall comes first: a turn the model never sees is a teaching moment no model can find. So
the choice does not depend on what the deterministic extractor proposes; it reads each
human turn's cues (:mod:`lorebook.extract.cues`) and keeps every turn that

- answers an agent action that was refused or interrupted (a correction, very often);
- is emphatic, states a preference, directs (a modal or a prohibition), asks a question
  that carries a rule, states a habit, a reason or a choice against its alternative
  ("X, not Y"), defines a term, talks about or points at the project's written rules, says
  who is to act ("do it yourself"), says what the agent should have done, or questions
  what it did ("did you gather the requirements?", "why are you ...?");
- is a ``#`` memory line;

and leaves out what cannot teach: slash commands and harness envelopes, turns made only
of acknowledgements ("OK", "yes, go ahead", "1"), pasted output with little prose around
it, compaction summaries, and plain requests for information ("what is X?").

Each kept human turn goes with the agent turns it answers (those since the previous human
turn), nearest first, up to about :data:`CONTEXT_WORDS` words: an agent turn is cut to its
end (its last words and its last tool call, without the call's arguments), which is what
the human was looking at when they typed.
"""

from __future__ import annotations

from collections.abc import Sequence

from lorebook.extract.cues import TurnCues, read_turn
from lorebook.extract.prompt import count_words
from lorebook.models.session import LoggedTurn

CONTEXT_WORDS = 80
"""Words of agent context sent before each selected human turn."""


def could_teach(cues: TurnCues) -> bool:
    """True when a human turn, read by its cues, might teach the agent something."""
    if cues.slash or cues.bare or not cues.sentences or cues.pasted:
        return cues.memory
    if cues.memory or cues.after_refusal:
        return True
    if cues.info_question and not (cues.emphatic or cues.rule_question or cues.preference):
        return False
    return (
        cues.emphatic
        or cues.rule_question
        or cues.directive
        or cues.preference
        or cues.habit
        or cues.reason
        or cues.definition
        or cues.contrast
        or cues.codify
        or cues.cites
        or cues.agency
        or cues.counterfactual
        or cues.checks_agent
        or cues.accuses
    )


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
        Turns of ``turns`` (agent turns possibly cut to their end), in their order.
    """
    chosen: dict[int, LoggedTurn] = {}
    for position, turn in enumerate(turns):
        if turn.role != "user" or not could_teach(read_turn(turns, position)):
            continue
        for context in _context(turns, position):
            chosen.setdefault(context.index, context)
        chosen[turn.index] = turn
    return [chosen[index] for index in sorted(chosen)]
