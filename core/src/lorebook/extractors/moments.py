"""The teaching moments of one human turn, for :mod:`lorebook.extractors.rules`.

A moment is the teaching of one note type in one turn. The phrase rules of
:mod:`lorebook.extractors.signals` find most (:func:`sentence_moments`); a turn with none may
still teach as a whole (:func:`turn_moment`), by a modal addressed to the agent or a tool named
for a kind of work (a turn in French, Japanese or Chinese:
:mod:`lorebook.extractors.languages`). Which turns a human typed, as opposed to envelopes,
templates and pasted documents, is :func:`human_turns`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lorebook.extractors.cues import HEDGE, ONE_OFF, PROHIBITIVE, read_turn
from lorebook.extractors.sentences import (
    Sentence,
    command_name,
    is_envelope,
    is_pasted_document,
    split_sentences,
    without_host_prompts,
)
from lorebook.extractors.signals import PRECEDENCE, Verdict, is_confirmation
from lorebook.extractors.teaching import main_sentence, teaches, turn_kind
from lorebook.extractors.terms import code_identifiers, merge_keys, paths, proper_names
from lorebook.models.note import KIND_TYPES, NoteKind, NoteType
from lorebook.models.session import LoggedTurn
from lorebook.recall.tokenize import tokenize

KNOWLEDGE_SKILL = re.compile(
    r"(?:^|[-_:/])(?:kk|lb|lorebook|kenkeep|memory|memories|remember|notes?|knowledge|kb"
    r"|curate|curation|extract|capture|learn)(?:$|[-_:])",
    re.IGNORECASE,
)
"""A slash command whose name says it records or curates project knowledge."""


ADDRESSED_MODAL = re.compile(
    r"\byou(?:['\u2019]ll| will)? (?:should(?:n['\u2019]?t| not)?|must(?:n['\u2019]?t| not)?"
    r"|need to|have to|ought to)\b",
    re.IGNORECASE,
)
"""A modal of obligation with the agent as its subject: "you should", "you'll need to"."""
RELATIVE_HEAD = re.compile(
    r"\b(?:all|any|every|each|the|some|what|whatever|everything|anything|something|those"
    r"|these)(?:\s+[\w-]+)?\s+$",
    re.IGNORECASE,
)
"""A noun phrase just before *you* ("all the data you need to create a plan", "any
questions you need to"): *you need to* is then a relative clause describing that thing,
not an obligation put to the agent."""


TOOL_FOR = re.compile(
    r"^(?:(?:please|also|and|then|so|but)[\s,]+)*use\s+"
    r"(?!(?:it|that|this|these|those|them|the same|your|my)\b)\S+"
    r".*?\b(?:for|to|when|whenever|if needed|as needed|instead of|rather than)\b",
    re.IGNORECASE,
)
"""An imperative *use* naming a tool and what it is for or when."""


KEEPS_THEM = re.compile(r"\bwithout (?:\w+ing) (?:them|it)\b", re.IGNORECASE)
"""An order saying what must be kept while it is done: "update them to 'done' without
deleting them" forbids the deleting, every time."""


FILE_MENTION = re.compile(r"(?<![\w/`])@([\w-]+(?:\.[\w-]+)*\.[A-Za-z0-9]{1,8})\b")
"""A file named with ``@`` in an editor's chat: ``@routes.py``, ``@base_page.html``."""


SLASH_COMMAND = re.compile(r"^\s*/[A-Za-z][\w:-]*(?=\s|$)")
"""A turn typed as a slash command: what follows the command is its argument (a compaction
summary the agent wrote, a path), not the person teaching."""


PROMPT_TEMPLATE = re.compile(
    r"^\s*<[A-Za-z][\w-]*\s+[\w-]+=[\"']|^\s*You are (?:a|an) \w+",
    re.MULTILINE,
)
"""A prompt someone pasted to set the agent up: a tagged activation block
(``<agent-activation CRITICAL="TRUE">``) or a role assigned ("You are a concerned parent")."""


@dataclass(slots=True)
class Moment:
    """The teaching of one note type in one turn."""

    turn: int
    type: NoteType
    kind: NoteKind
    quote: str
    main: str
    spans: list[str]
    keys: set[str]


def _runs(
    sentences: Sequence[Sentence], verdicts: Sequence[Verdict], kind_type: NoteType
) -> list[tuple[int, int]]:
    """Index ranges ``[first, last]`` of the runs teaching ``kind_type``, with context.

    A run holds teaching sentences of the type and plain sentences between them, within one
    paragraph; any other sentence ends it. At most one plain sentence on the same line is kept
    on either side, as context.
    """
    runs: list[tuple[int, int]] = []
    current: list[int] = []
    paragraphs = [sentence.paragraph for sentence in sentences] + [-1]
    for index, verdict in enumerate([*verdicts, Verdict("meta")]):
        fits = verdict.status == "neutral" or (
            verdict.status == "teach" and verdict.type == kind_type
        )
        if fits and (not current or paragraphs[current[-1]] == paragraphs[index]):
            current.append(index)
            continue
        teaching = [i for i in current if verdicts[i].status == "teach"]
        if teaching:
            first, last = teaching[0], teaching[-1]
            if first > current[0] and sentences[first - 1].line == sentences[first].line:
                first -= 1
            if last < current[-1] and sentences[last + 1].line == sentences[last].line:
                last += 1
            runs.append((first, last))
        current = [index] if fits else []
    return runs


def _score(sentence: Sentence, verdict: Verdict) -> int:
    """How well a sentence sums up its moment: its signals, plus one if it names something."""
    named = code_identifiers(sentence.text) or paths(sentence.text) or proper_names(sentence.text)
    return len(verdict.kinds) + (1 if named else 0)


def sentence_moments(
    turn: int, text: str, sentences: Sequence[Sentence], verdicts: Sequence[Verdict]
) -> list[Moment]:
    """The moments of one turn: one per note type it teaches.

    A map sentence and a practice sentence side by side in one paragraph say one rule two
    ways ("dns doesn't live in envs/. every zone ... is in global/dns/"): they are one
    moment, of the type of the sentence that states it best.
    """
    moments: list[Moment] = []
    found: dict[NoteType, tuple[list[tuple[int, int]], list[int]]] = {}
    for kind_type in ("practice", "map"):
        runs = _runs(sentences, verdicts, kind_type)
        if runs:
            found[kind_type] = (
                runs,
                [
                    i
                    for first, last in runs
                    for i in range(first, last + 1)
                    if verdicts[i].status == "teach"
                ],
            )
    if len(found) == 2 and _side_by_side(sentences, found["practice"][1], found["map"][1]):
        best = max(
            (i for _, teaching in found.values() for i in teaching),
            key=lambda i: (_score(sentences[i], verdicts[i]), -i),
        )
        kept = verdicts[best].type
        runs = _touching_joined(sorted(run for runs, _ in found.values() for run in runs))
        found = {kept: (runs, sorted(i for _, teaching in found.values() for i in teaching))}
    for kind_type, (runs, teaching) in found.items():
        main = max(teaching, key=lambda i: (_score(sentences[i], verdicts[i]), -i))
        spans = [text[sentences[first].start : sentences[last].end] for first, last in runs]
        quote = next(
            span for (first, last), span in zip(runs, spans, strict=True) if first <= main <= last
        )
        keys = _keys([sentences[i].text for i in teaching]) or _keys(spans)
        kind = _kind({k for i in teaching for k in verdicts[i].kinds}, kind_type)
        moments.append(Moment(turn, kind_type, kind, quote, sentences[main].text, spans, keys))
    return moments


def _touching_joined(runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted ``runs`` with those that overlap or follow each other made one."""
    joined: list[tuple[int, int]] = []
    for first, last in runs:
        if joined and first <= joined[-1][1] + 1:
            joined[-1] = (joined[-1][0], max(last, joined[-1][1]))
        else:
            joined.append((first, last))
    return joined


def _side_by_side(sentences: Sequence[Sentence], first: list[int], second: list[int]) -> bool:
    """Whether a sentence of ``first`` and one of ``second`` say one thing side by side.

    They follow each other in a paragraph and speak of the same thing: a word in common, a
    path's parts included ("dns" and ``global/dns/``). Two rules that merely follow each
    other share none.
    """
    return any(
        abs(i - j) == 1
        and sentences[i].paragraph == sentences[j].paragraph
        and set(tokenize(sentences[i].text)) & set(tokenize(sentences[j].text))
        for i in first
        for j in second
    )


def _keys(parts: Sequence[str]) -> set[str]:
    """What ``parts`` name: the keys moments are merged by.

    A moment is keyed by its teaching sentences, or by the context around them too when they
    name nothing: "also every default value is defined in src/defaults.rs" is about
    src/defaults.rs, not about the share/man the sentence before it names (an earlier rule's).
    """
    keys: set[str] = set()
    for part in parts:
        keys |= merge_keys(part)
    return keys


def _kind(kinds: set[NoteKind], kind_type: NoteType) -> NoteKind:
    """The moment's kind: the first, by precedence, of its sentences' kinds of its type."""
    return next(k for k in PRECEDENCE if k in kinds and KIND_TYPES[k] == kind_type)


def confirmation_text(
    text: str, sentences: Sequence[Sentence], verdicts: Sequence[Verdict]
) -> str | None:
    """The plain text of a confirming turn ("Yes. X stays Y."), or None if it is not one."""
    if not is_confirmation(text) or not sentences:
        return None
    if any(verdict.status != "neutral" for verdict in verdicts):
        return None
    return text[sentences[0].start : sentences[-1].end]


def human_turns(turns: Sequence[LoggedTurn]) -> list[tuple[int, str]]:
    """Positions and texts of the turns a human typed, until a knowledge skill is invoked.

    A text is the turn's with what the host wrote in the person's name blanked
    (:func:`~lorebook.extractors.sentences.without_host_prompts`).
    """
    typed: list[tuple[int, str]] = []
    for position, turn in enumerate(turns):
        if turn.role != "user":
            continue
        if is_envelope(turn.text):
            name = command_name(turn.text)
            if name and KNOWLEDGE_SKILL.search(name):
                break
            continue
        if SLASH_COMMAND.match(turn.text) or PROMPT_TEMPLATE.search(turn.text):
            continue
        text = without_host_prompts(turn.text)
        if text.strip() and not is_pasted_document(text):
            typed.append((position, text))
    return typed


def turn_moment(turns: Sequence[LoggedTurn], position: int, text: str) -> list[Moment]:
    """The moment of a turn that teaches as a whole (:mod:`lorebook.extractors.teaching`).

    Its quote is the sentence that carries the rule
    (:func:`lorebook.extractors.teaching.main_sentence`).
    """
    cues = read_turn(turns, position)
    if not teaches(cues):
        return []
    index = main_sentence(cues.sentences)
    if index is None:
        return []
    sentence = cues.sentences[index]
    kind = turn_kind(cues, sentence.text)
    quote = text[sentence.start : sentence.end]
    keys = merge_keys(quote)
    note_type: NoteType = "map" if KIND_TYPES[kind] == "map" else "practice"
    return [Moment(position, note_type, kind, quote, sentence.text, [quote], keys)]


def _addressed(body: str) -> bool:
    """A modal of obligation whose *you* is a clause's subject, not in a relative clause."""
    return any(
        not RELATIVE_HEAD.search(body[: match.start()]) for match in ADDRESSED_MODAL.finditer(body)
    )


def addressed_moment(position: int, text: str) -> list[Moment]:
    """A modal of obligation addressed to the agent: the person says what it must do.

    So does an order saying what must be kept while it is done (:data:`KEEPS_THEM`).

    "you should be using the English diary as primary", "you need to read them manually":
    the person tells the agent what it must do, in the second person; a question, a
    sentence bound to this moment ("you should now have ...") or one thinking aloud is
    left out, and so is a *you* that opens a relative clause after a noun phrase ("gather
    all the data you need to create a plan": :data:`RELATIVE_HEAD`). The first such
    sentence is the moment.
    """
    for sentence in split_sentences(text):
        body = sentence.text
        if body.rstrip().endswith("?") or not (_addressed(body) or KEEPS_THEM.search(body)):
            continue
        if ONE_OFF.search(body) or HEDGE.search(body):
            continue
        kind: NoteKind = "prohibition" if PROHIBITIVE.search(body) else "convention"
        quote = text[sentence.start : sentence.end]
        return [Moment(position, "practice", kind, quote, body, [quote], merge_keys(quote))]
    return []


def tool_moment(position: int, text: str) -> list[Moment]:
    """A tool named for a kind of work: "Use context7 for Playwright", "Use X if needed".

    An imperative *use* whose object is a name, not a pronoun ("use that as the
    description" is about this output), with what it is for or when (*for*, *to*, *when*,
    *if needed*, *as needed*, *instead of*): a choice of tool beyond this one step.
    """
    for sentence in split_sentences(text):
        body = sentence.text
        if body.rstrip().endswith("?") or not TOOL_FOR.match(body):
            continue
        quote = text[sentence.start : sentence.end]
        return [Moment(position, "practice", "tooling", quote, body, [quote], merge_keys(quote))]
    return []


def mentions_as_code(sentence: str) -> str:
    """``sentence`` with each file named with ``@`` (``@routes.py``) as a code span.

    An editor's chat names a file so; a sentence placing something in it then names what
    it places, as one naming a path does.
    """
    return FILE_MENTION.sub(lambda match: f"`{match.group(1)}`", sentence)
