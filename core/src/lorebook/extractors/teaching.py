"""Whether a whole human turn teaches, read from its cues, and which sentence says what.

The sentence rules of :mod:`lorebook.extractors.signals` find rules written as rules ("Never
call the gateway from a unit test."). People at a terminal teach more often in passing: an
emphatic line typed right after refusing the agent's action, a question whose answer is the
rule ("doesn't git have `mv`?"), a preference ("I'd rather exclude the diary folder"), a
restated rule the agent just broke. This module reads a turn's cues
(:mod:`lorebook.extractors.cues`) and decides, by mechanism rather than by topic:

- a **correction**: the agent's action was refused or interrupted and the human pushes
  back (emphasis, a directive, a rule-carrying question, a choice against an alternative,
  a repeated failing: "you keep", "again", a check on what it did: "did you ...?"); or,
  after any turn, what the agent should have done ("you should have ...") or a question at
  its conduct ("why are you ...?", "how did you verify ...?");
- a **correction** too: pointing the agent at the project's written instructions ("see
  <git_workflow>!") after an action, with emphasis, or about a repeated failing;
- a **rule**: a directive (modal or prohibition) with a scope beyond the task (a habit, a
  reason, a contrast), or emphatic; an emphatic statement of a standing practice ("we're
  using BDD lingo!");
- a **rule-carrying question** answering an agent's action;
- a **preference** in the first person, or a **definition** of what a term means.

A turn whose main sentence is bound to the task teaches nothing:

- its scope is this task's moment or plan ("now", "not yet", "for now", "go ahead", "we
  agreed", "our plan", "this session"), unless the turn also states a habit ("last time",
  "again", "always");
- it thinks aloud ("maybe", "I'm not sure", "what do you think", in the main sentence or in
  two of them);
- it reports what the human found while exploring ("I saw there is ...", "I've checked the
  README"), not what the agent did ("I noticed you ...");
- it asks what the human does not know: a question about what happened ("didn't this run
  in the hook?"), or one the next sentence depends on ("..., right? If so, I'll ...").

A task asked for in the first person ("I'd like to publish it", "I want to use it on my
laptop") is a request, not a preference, unless the turn gives it a scope (a habit, "X,
not Y"); *means* as a noun ("a means to an end") and a definition put as a question define
nothing. A plain request for information, an acknowledgement, a slash command or pasted
output never teaches.
"""

from __future__ import annotations

from collections.abc import Sequence

from lorebook.extractors import cues as c
from lorebook.extractors.cues import TurnCues
from lorebook.extractors.sentences import Sentence
from lorebook.extractors.signals import judge, without_replaced_behaviour
from lorebook.models.note import NoteKind


def _correction(cues: TurnCues) -> bool:
    """Pushing back on what the agent just did, or saying what it should have done."""
    if cues.counterfactual or cues.accuses:
        return True
    if cues.cites and (cues.after_action or cues.habit or cues.emphatic):
        return True
    pushback = cues.emphatic or cues.rule_question or cues.contrast or cues.habit
    checks = cues.checks_agent or cues.directive
    return cues.after_refusal and (pushback or checks)


def _rule(cues: TurnCues) -> bool:
    scoped = cues.habit or cues.reason or cues.contrast or cues.emphatic or cues.codify
    return (cues.directive and scoped) or (cues.emphatic and cues.habit)


def prefers(sentence: str) -> bool:
    """A preference in the first person, not a task asked for ("I'd like to publish it")."""
    return bool(c.PREFERENCE.search(c.REQUEST.sub(" ", without_replaced_behaviour(sentence))))


def defines(sentence: str) -> bool:
    """A statement of what a term means ("by X I mean Y").

    Not *means* as a noun, a question, or the person repairing their own words ("I
    mistakenly said X, I meant Y": :data:`lorebook.extractors.cues.SELF_REPAIR`).
    """
    if sentence.rstrip().endswith("?") or c.SELF_REPAIR.search(sentence):
        return False
    return bool(c.DEFINITION.search(c.NOUN_MEANS.sub(" ", sentence)))


def _bound_to_task(cues: TurnCues, index: int) -> bool:
    """The main sentence is tied to this task, thinks aloud, or asks what it does not know.

    Bound: a one-off scope ("now", "not yet", "we agreed", "our plan") without a habit; a
    hedge in it or in two sentences; a report of what the human found while exploring ("I
    saw there is ..."); a question about what happened ("didn't this run in the hook?"); a
    question the next sentence is conditional on ("..., right? If so, I'll run it").
    """
    sentences = cues.sentences
    main = sentences[index].text
    if c.ONE_OFF.search(main) and not cues.habit:
        return True
    if c.HEDGE.search(main) or sum(bool(c.HEDGE.search(s.text)) for s in sentences) > 1:
        return True
    if c.OBSERVATION.search(main) and not (cues.emphatic or c.directive(main)):
        return True
    if not main.rstrip().endswith("?"):
        return False
    if c.PAST_EVENT_QUESTION.match(main) and not (c.DEONTIC.search(main) or cues.accuses):
        return True
    following = sentences[index + 1].text if index + 1 < len(sentences) else ""
    return bool(c.GENUINE.match(following))


def teaches(cues: TurnCues) -> bool:
    """True when the turn, read as a whole, teaches something that outlives the task."""
    if cues.slash or cues.bare or cues.pasted or not cues.sentences:
        return cues.memory
    if cues.memory:
        return True
    if cues.info_question and not (cues.rule_question or cues.emphatic or cues.accuses):
        return False
    index = main_sentence(cues.sentences)
    if index is None or _bound_to_task(cues, index):
        return False
    scoped = cues.habit or cues.contrast
    return (
        _correction(cues)
        or _rule(cues)
        or (cues.rule_question and cues.after_action)
        or any(prefers(s.text) for s in cues.sentences)
        or (scoped and cues.preference)
        or any(defines(s.text) for s in cues.sentences)
    )


def _weight(sentence: str) -> int:
    """How much of the rule one sentence carries: its cues, counted."""
    return sum(
        (
            2 * bool(c.PROHIBITIVE.search(sentence)),
            2 * c.directive(sentence),
            2 * c.rule_question(sentence),
            2 * prefers(sentence),
            2 * bool(c.COUNTERFACTUAL.search(sentence)),
            bool(c.ACCUSING.search(sentence)),
            c.habitual(sentence),
            bool(c.CONTRAST.search(sentence)),
            defines(sentence),
            c.emphatic(sentence) and not c.EXCLAIMED_STATE.match(sentence),
            -2 * bool(c.INFO_QUESTION.match(sentence)),
        )
    )


def main_sentence(sentences: Sequence[Sentence]) -> int | None:
    """Index of the sentence that carries the turn's rule (the first of the heaviest).

    A sentence about the knowledge base itself with no directive in it, session history or
    a retraction is never the one; None when no sentence is left.
    """
    allowed = [i for i, sentence in enumerate(sentences) if _may_carry(sentence.text)]
    if not allowed:
        return None
    weights = {i: _weight(sentences[i].text) for i in allowed}
    return max(allowed, key=lambda i: (weights[i], -i))


def _may_carry(sentence: str) -> bool:
    status = judge(sentence).status
    if status == "meta":
        return c.directive(sentence)
    return status not in ("ephemeral", "retract")


def turn_kind(cues: TurnCues, sentence: str) -> NoteKind:
    """The note kind a teaching turn suggests, from its main sentence and its cues."""
    if c.PROHIBITIVE.search(sentence):
        return "prohibition"
    if defines(sentence) or (cues.definition and not cues.directive):
        return "vocabulary"
    if "`" in sentence and (c.CONTRAST.search(sentence) or c.PREFERENCE.search(sentence)):
        return "tooling"
    if cues.reason and not cues.directive:
        return "decision"
    return "convention"
