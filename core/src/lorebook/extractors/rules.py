"""The built-in deterministic extractor: teaching moments, found by phrase rules. No model.

It reads what the human typed (turns with role ``user``) and looks for the moments an agent
was taught something that outlives the session: a correction that generalises, a rule or
preference, a reason, a name, a place. :mod:`lorebook.extractors.signals` judges each sentence;
this module turns the teaching sentences of a session into candidate notes:

1. Turns that are not typed prose are skipped: slash-command envelopes, a turn typed as a
   slash command (``/compact <summary>``), a prompt template pasted to set the agent up
   (a tagged activation block, "You are a ..."), expanded skill documents, pasted markdown.
   Once the human invokes a knowledge-base skill (``/kk-add``,
   ``/lorebook-...``, a ``note``, ``memory`` or ``curate`` command), the rest of the session
   is that skill's dialogue and is skipped too: the skill records what it is told.
2. A retracting sentence (*never mind*, *unapproved*, *come back to it later*) takes back
   only what it retracts: the candidates that share a name with it (a code span, a path, a
   proper name), or, when it names nothing, what the human turn just before it taught. A
   question never retracts ("did you revert that change?" asks; it does not undo).
3. The teaching sentences of one turn make one moment per note type (``practice`` or
   ``map``); a moment's span runs from its first to its last teaching sentence within one
   paragraph, with at most one plain sentence of context on either side (on the same line),
   and never across a sentence left out.
4. A later moment of the same type that states the rule of an earlier one again (the
   same content words, the same polarity) joins it, however far back. A later moment of
   the same type that shares a code identifier, a path or a multi-word
   proper name with one of the last few human turns' joins the earliest such group; so
   does a confirming turn ("Correct.", "Yes.") that restates the subject. One group is one
   candidate.
5. A turn with no teaching sentence may still teach as a whole: a correction right after
   a refused action, a rule-carrying question, a preference
   (:mod:`lorebook.extractors.teaching`); its main sentence is its quote. A French turn is
   read by the grammar of obligation and preference (*il faut*, *on doit*, *ne doivent
   pas*, *jamais*, *inutile de*, *je préfère*), its questions left out.
6. Precision first: a moment is not proposed when its turn is mostly pasted, when its
   sentence is quoted after a line that introduces a report ("Fix this bug..."), when it
   is a question whose asking carries no rule, or when it is only chat
   (:func:`lorebook.extractors.refusal.refusal_reason`).

The quote is a verbatim span of the group's first turn, so :func:`quote_in_session` holds.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from lorebook.extract.base import ExtractionRequest, normalise, quote_in_session
from lorebook.extractors.cues import PROHIBITIVE, read_turn
from lorebook.extractors.languages import chinese_moment, french_moment, japanese_moment
from lorebook.extractors.moments import (
    Moment,
    addressed_moment,
    confirmation_text,
    human_turns,
    mentions_as_code,
    sentence_moments,
    tool_moment,
    turn_moment,
)
from lorebook.extractors.pasted import printed
from lorebook.extractors.refusal import refusal_reason
from lorebook.extractors.scorer import gate, shipped
from lorebook.extractors.sentences import split_sentences
from lorebook.extractors.signals import (
    Verdict,
    is_confirmation,
    judge,
    refers_back,
    strip_markers,
)
from lorebook.extractors.terms import (
    as_tag,
    backticked,
    code_identifiers,
    file_anchor,
    merge_keys,
    proper_names,
)
from lorebook.extractors.titles import make_description, rule_title, vocabulary
from lorebook.extractors.words import capital
from lorebook.models.note import Anchors, NoteKind, NoteType
from lorebook.models.session import LoggedTurn, Proposal

MERGE_WINDOW = 3
"""Human turns back within which two moments sharing a name are one piece of knowledge."""


MAX_TAGS = 8


@dataclass(frozen=True, slots=True)
class Candidate:
    """A candidate note found in a session, before it becomes a :class:`Proposal`.

    Attributes:
        turn: Position (in the turns given) of the turn the quote comes from.
        type: ``practice`` or ``map``.
        kind: The note kind its main sentence signals.
        quote: A verbatim span of ``turns[turn].text``.
        main: The sentence the title and description are made from.
        body: The teaching spans and the confirmations merged into it, in turn order.
        turns: Positions of every turn that contributed, ascending.
        tags: Valid tags from the identifiers and proper names it mentions.
        files: File anchors: the repository-relative paths the human wrote, as globs.
    """

    turn: int
    type: NoteType
    kind: NoteKind
    quote: str
    main: str
    body: tuple[str, ...]
    turns: tuple[int, ...]
    tags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()


@dataclass(slots=True)
class _Group:
    """Moments (and confirmations) about one subject, merged into one candidate."""

    moments: list[Moment]
    keys: set[str]
    extra: list[tuple[int, str]] = field(default_factory=list)


def _join(groups: list[_Group], moment: Moment, *, follow_up: bool, near: set[int]) -> None:
    """Add a moment to the earliest near group of its type sharing a key, or start a group.

    A group is near when its latest moment is in one of the human turns ``near`` holds
    (the last :data:`MERGE_WINDOW`): a long session mentions the same tool in many
    unrelated rules, and only a rule taught again right away is the same rule. A follow-up
    that names nothing (a confirming turn, or one that opens with "That", "This", "It",
    "The rule") joins the latest group of its type instead, when that group is near: it
    restates or extends what was just taught ("this is great, thank you!" forty turns later
    opens a new subject).
    """
    same = [group for group in groups if group.moments[0].type == moment.type]
    chosen = next((g for g in same if g.keys & moment.keys and g.moments[-1].turn in near), None)
    if chosen is None:
        chosen = next((g for g in same if _said_again(g, moment)), None)
    if (
        chosen is None
        and follow_up
        and not moment.keys
        and same
        and same[-1].moments[-1].turn in near
    ):
        chosen = same[-1]
    if chosen is None:
        groups.append(_Group([moment], set(moment.keys)))
        return
    chosen.moments.append(moment)
    chosen.keys |= moment.keys


_FUNCTION_WORDS = frozenset(
    re.findall(
        r"\S+",
        "a an the and or but so to of in on at by for with from as is are be been was were it"
        " its this that these those we you i me my our your us they them please again also"
        " just do does did don't dont not no never always must should shall will would can"
        " could may remember once more still ever all any every",
    )
)
"""Words that carry the grammar of a sentence, not its subject: left out when two rules are
compared, so "Again: never commit to main!" is "Never commit to main." said again."""


_WORD = re.compile(r"[a-z0-9_][a-z0-9_.'-]*[a-z0-9_]|[a-z0-9]", re.IGNORECASE)


SAID_AGAIN = 0.8
"""Share of the shorter sentence's content words the other must hold to be the same rule."""


def _content(sentence: str) -> frozenset[str]:
    """The content words of a sentence, lower-cased: what a rule is about and what it asks."""
    words = {word.lower().strip(".'") for word in _WORD.findall(strip_markers(sentence))}
    return frozenset(word for word in words if word and word not in _FUNCTION_WORDS)


def _said_again(group: _Group, moment: Moment) -> bool:
    """True when the moment states the rule of one of the group's moments again.

    Said again: one sentence's content words (three or more) are, for the most part
    (:data:`SAID_AGAIN`), the other's, with the same polarity (both prohibit or neither
    does). A rule repeated later in a session, however far from the first time, is one
    proposal with both turns as its evidence.
    """
    words = _content(moment.main)
    negative = bool(PROHIBITIVE.search(moment.main))
    for earlier in group.moments:
        if bool(PROHIBITIVE.search(earlier.main)) != negative:
            continue
        other = _content(earlier.main)
        shorter = min(len(words), len(other))
        if shorter >= 3 and len(words & other) >= SAID_AGAIN * shorter:
            return True
    return False


def _attach(groups: list[_Group], turn: int, text: str) -> None:
    """Attach a confirmation to the earliest group it shares a key with, if any."""
    keys = merge_keys(text)
    for group in groups:
        if group.keys & keys:
            group.extra.append((turn, text))
            return


WITHDRAWS = re.compile(
    r"\b(?:never ?mind|forget|scra(?:tch|p)|disregard|on second thought|revert|undo|abandon)\b",
    re.IGNORECASE,
)
"""A retraction that takes back what was said before it ("scrap it, forget the rule"), not
one that marks its own sentence as a trial ("just testing that you can read this")."""
_QUOTED = re.compile(r'"([^"]{3,80})"|\u201c([^\u201d]{3,80})\u201d')
"""Words put in double quotes: a retraction quoting what it takes back."""


def _withdraw(groups: list[_Group], retraction: str, previous: int | None) -> None:
    """Drop the groups a retracting sentence takes back, and only those.

    A retraction that names something takes back the groups sharing it, and one that
    quotes the person's words ('forget the "every new enemy" thing') the groups whose quote
    holds them; one that names nothing ("never mind", "forget it") takes back what the human
    turn just before it taught, if it taught anything. (It used to clear every candidate of
    the session: a 712-prompt day ending "forget it, you don't remember" proposed nothing.)
    """
    keys = merge_keys(retraction)
    quoted = [normalise(m[1] or m[2]).lower() for m in _QUOTED.finditer(retraction)]
    if keys or quoted:
        groups[:] = [
            group
            for group in groups
            if not group.keys & keys
            and not any(q in normalise(m.quote).lower() for q in quoted for m in group.moments)
        ]
    elif previous is not None:
        groups[:] = [group for group in groups if group.moments[-1].turn != previous]


def _groups(turns: Sequence[LoggedTurn]) -> list[_Group]:
    """Group the teaching moments of a session, applying retractions as they come."""
    groups: list[_Group] = []
    seen: list[int] = []
    for position, text in human_turns(turns):
        seen.append(position)
        near = set(seen[-MERGE_WINDOW - 1 :])
        sentences = split_sentences(text)
        verdicts = [
            Verdict("printed") if printed(text, s.start, s.end) else judge(mentions_as_code(s.text))
            for s in sentences
        ]
        retracted = [
            i
            for i, verdict in enumerate(verdicts)
            if verdict.status == "retract" and not sentences[i].text.endswith("?")
        ]
        taken_back = 0  # where a withdrawal in this turn ends: nothing before it is taught
        if retracted:
            cut, end = retracted[-1] + 1, sentences[retracted[-1]].end
            before = seen[-2] if len(seen) > 1 else None
            if WITHDRAWS.search(sentences[retracted[-1]].text):
                taken_back = end
            _withdraw(groups, text[:end], before)
            sentences, verdicts = sentences[cut:], verdicts[cut:]
        moments = sentence_moments(position, text, sentences, verdicts)
        if not moments:
            moments = turn_moment(turns, position, text)
        if not moments:
            moments = addressed_moment(position, text)
        if not moments:
            moments = tool_moment(position, text)
        if not moments:
            moments = french_moment(position, text)
        if not moments:
            moments = japanese_moment(position, text)
        if not moments:
            moments = chinese_moment(position, text)
        if moments:
            cues = read_turn(turns, position)
            moments = [
                m
                for m in moments
                if (at := text.find(m.quote)) >= taken_back
                and refusal_reason(cues, m.main, text, max(at, 0)) is None
            ]
        follow_up = is_confirmation(text) or bool(sentences and refers_back(sentences[0].text))
        for moment in moments:
            _join(groups, moment, follow_up=follow_up, near=near)
        confirmation = None if moments else confirmation_text(text, sentences, verdicts)
        if confirmation is not None:
            _attach(groups, position, confirmation)
    return groups


def _terms(parts: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Tags and file anchors from the identifiers, paths and names the parts mention.

    A code span of more than two words is a command or a line of code, not a name: its
    identifiers are tags, the span is not.
    """
    text = "\n".join(parts)
    tags: list[str] = []
    names = [term for term in code_identifiers(text) if len(term.split()) <= 2]
    for term in [*names, *proper_names(text)]:
        tag = as_tag(term)
        if tag and tag not in tags:
            tags.append(tag)
    files: list[str] = []
    for term in backticked(text):
        anchor = file_anchor(term)
        if anchor and anchor not in files:
            files.append(anchor)
    return tuple(tags[:MAX_TAGS]), tuple(files)


def _candidate(group: _Group) -> Candidate:
    """One group as a candidate: quote and title from its first moment."""
    first = group.moments[0]
    entries = [(m.turn, span) for m in group.moments for span in m.spans] + group.extra
    entries.sort(key=lambda entry: entry[0])
    body = tuple(dict.fromkeys(capital(strip_markers(normalise(span))) for _, span in entries))
    body = tuple(part for part in body if part)
    tags, files = _terms(body)
    turns = tuple(sorted({turn for turn, _ in entries}))
    return Candidate(
        first.turn, first.type, first.kind, first.quote, first.main, body, turns, tags, files
    )


def find_teaching_moments(turns: Sequence[LoggedTurn], *, gated: bool = True) -> list[Candidate]:
    """Find the teaching moments of a session's turns, one candidate per subject.

    Args:
        turns: The turns to read, in order (only those with role ``user`` are judged).
        gated: Keep only the candidates the learned gate keeps
            (:func:`lorebook.extractors.scorer.gate` with the shipped scorer).

    Returns:
        The candidates, ordered by the turn their quote comes from.
    """
    candidates = [_candidate(group) for group in _groups(turns)]
    candidates.sort(key=lambda candidate: (candidate.turn, candidate.type))
    return gate(turns, candidates, shipped()) if gated else candidates


_ANAPHOR = re.compile(
    r"^(?:they|it|these|those|(?:this|that)(?= (?:is|was|should|must|needs?|has|means|will|can"
    r"|would)\b|'s\b))\b",
    re.IGNORECASE,
)
"""A sentence whose subject is a pronoun standing for something the sentence before named."""


def _with_antecedent(candidate: Candidate) -> str:
    """The main sentence, with the sentence before it when it opens with a pronoun.

    "They must remain." says nothing on its own; "You are deleting coinflip and randomLayer.
    They must remain." says what must remain. Only the sentence just before it in its
    paragraph.
    """
    main = candidate.main
    if not _ANAPHOR.match(main):
        return main
    for part in candidate.body:
        sentences = split_sentences(part)
        for before, sentence in pairwise(sentences):
            if sentence.text == main and before.paragraph == sentence.paragraph:
                return f"{before.text} {main}"
    return main


def to_proposal(
    candidate: Candidate,
    turns: Sequence[LoggedTurn],
    *,
    session: str,
    harness: str,
    number: int,
    words: Counter[str] | None = None,
) -> Proposal:
    """Build the :class:`Proposal` for one candidate (``id`` is ``<session>:<number>``).

    ``words`` is the session's :func:`vocabulary` (None: the one of ``turns``).
    """
    return Proposal(
        id=f"{session}:{number}",
        origin=f"{harness}:{session}:{turns[candidate.turn].index}",
        type=candidate.type,
        kind=candidate.kind,
        title=rule_title(candidate.main, vocabulary(turns) if words is None else words),
        description=make_description(_with_antecedent(candidate)),
        body="\n\n".join(candidate.body),
        tags=list(candidate.tags),
        anchors=Anchors(files=list(candidate.files)),
        quote=candidate.quote,
        extractor=RulesExtractor.name,
    )


class RulesExtractor:
    """The ``rules`` extractor: teaching moments by phrase rules, offline and deterministic.

    Proposal numbers continue after the proposals the log already holds, so a grown
    session's new proposals never reuse an id. A proposal whose quote is not in the log
    (the turns given are not the log's) is left out.
    """

    name = "rules"

    async def extract(self, request: ExtractionRequest) -> list[Proposal]:
        """Return one proposal per teaching moment of ``request.turns``."""
        log = request.log
        start = len(log.proposals)
        proposals: list[Proposal] = []
        words = vocabulary(log.turns)
        for candidate in find_teaching_moments(request.turns):
            proposal = to_proposal(
                candidate,
                request.turns,
                session=log.session_id,
                harness=log.harness,
                number=start + len(proposals) + 1,
                words=words,
            )
            if quote_in_session(proposal.quote, log):
                proposals.append(proposal)
        return proposals
