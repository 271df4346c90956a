"""Did the agent use what was injected? A deterministic attribution with a confidence level.

For every injection recorded in a session log (:class:`~lorebook.models.session.LoggedInjection`)
and every note it carried, the *window* is the next :data:`WINDOW` assistant turns after it
(their text and their tool calls' arguments). Evidence the text of the human prompt before
the injection already holds never counts: echoing the user is not using the note.

Signals, strongest first:

=============  ==========  ===========================================================
signal         confidence  the window ...
=============  ==========  ===========================================================
``cited``      high        names the note's id or file (``<id>.md``), e.g. opens it
``quoted``     high        repeats :data:`QUOTE_WORDS` consecutive words of the note as
                           injected (words: lowercase letters and digits)
``obeyed``     high        runs a tool whose arguments hold one of the note's code spans
                           (backticked text, cut at a ``<placeholder>``) that its command
                           anchors do not forbid
``broke``      high        runs a shell command its command anchors forbid (prohibitions
                           and notes with ``lb_enforce``), without an allowed code span
``named``      medium      says one of the note's code spans in its own text
``paraphrased`` medium     says at least :data:`PARAPHRASE_WORDS` distinct content words of
                           the note's opening (and at least :data:`PARAPHRASE_SHARE` of them)
``touched``    low         edits or reads a file the note is anchored to, after a prompt or
                           session-start injection (a pre-tool injection was caused by that
                           file, so touching it then proves nothing)
=============  ==========  ===========================================================

A note counts as *used* after an injection when a high or medium signal other than
``broke`` is found; ``broke`` is reported on its own. An influence the agent never shows
in words or tool arguments is invisible here (as in seed 004's by-script measure, which
counted an id named in the next three assistant messages).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from lorebook.models.session import LoggedInjection, LoggedTurn, SessionLog
from lorebook.stats.injections import event_of, note_blocks

WINDOW = 3
"""Assistant turns after an injection that may show its use."""
QUOTE_WORDS = 6
"""Consecutive words of a note that make a quote."""
PARAPHRASE_WORDS = 4
PARAPHRASE_SHARE = 0.4
OPENING_WORDS = 60
"""Words of a note (title, description, start of the body) a paraphrase is measured on."""
SHELL_TOOLS = frozenset({"bash", "shell", "exec_command", "run_shell_command", "run_terminal_cmd"})
FILE_KEYS = ("file_path", "path", "notebook_path", "filePath")
HIGH = frozenset({"cited", "quoted", "obeyed", "broke"})
CONFIDENCE = {
    "cited": "high",
    "quoted": "high",
    "obeyed": "high",
    "broke": "high",
    "named": "medium",
    "paraphrased": "medium",
    "touched": "low",
}
_STOPWORD_TEXT = (
    "the and for are but not you your with this that from have has had was were will "
    "would should can could into onto over under than then them they their there here "
    "what when where which who why how all any each every some such only also just very "
    "more most other its use used using does did done our out about after before never "
    "always must may might been being lorebook note notes team keeps project read"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_WORD = re.compile(r"[a-z0-9]+")
_CODE_SPAN = re.compile(r"`([^`\n]{2,120})`")
_REF = re.compile(r"\(?[a-z]+; \.lorebook/nodes/\S+\)|\.lorebook/nodes/\S+")


@dataclass(frozen=True, slots=True)
class NoteFacts:
    """What attribution needs of a note beyond its injected text (from the note index)."""

    id: str
    kind: str = ""
    enforce: str = "none"
    commands: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    body: str = ""
    """The note's text, which the model reads when it opens a pointer's file."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """One signal that a note was (or was not) followed."""

    signal: str
    turn: int
    detail: str

    @property
    def confidence(self) -> str:
        """high, medium or low (see the module docstring)."""
        return CONFIDENCE[self.signal]


@dataclass(slots=True)
class NoteOutcome:
    """What followed one note of one injection."""

    note_id: str
    chars: int
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def used(self) -> bool:
        """A high or medium signal other than ``broke``."""
        return any(e.signal != "broke" and e.confidence != "low" for e in self.evidence)

    @property
    def broke(self) -> bool:
        """The agent ran what the note forbids."""
        return any(e.signal == "broke" for e in self.evidence)

    @property
    def confidence(self) -> str | None:
        """The strongest confidence among the positive signals (None: none found)."""
        levels = {e.confidence for e in self.evidence if e.signal != "broke"}
        return next((lv for lv in ("high", "medium", "low") if lv in levels), None)


@dataclass(slots=True)
class InjectionOutcome:
    """One recorded injection and what followed each of its notes."""

    index: int
    event: str
    chars: int
    timestamp: str | None
    duration_ms: int | None
    notes: list[NoteOutcome]


def words(text: str) -> list[str]:
    """Lowercase runs of letters and digits."""
    return _WORD.findall(text.casefold())


def _grams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def code_spans(text: str) -> list[str]:
    """Backticked spans of ``text``, each cut at a ``<placeholder>`` or ``{``; at least 3 chars."""
    found = []
    for span in _CODE_SPAN.findall(text):
        cut = re.split(r"[<{]", span, maxsplit=1)[0].strip()
        if len(cut) >= 3 and cut not in found:
            found.append(cut)
    return found


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _command(name: str, args: Mapping[str, object]) -> str | None:
    if name.casefold() not in SHELL_TOOLS:
        return None
    for key in ("command", "cmd"):
        value = args.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return " ".join(value)
    return None


def _matches(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


@dataclass(frozen=True, slots=True)
class _Window:
    """The assistant turns after one injection, and the human text before it."""

    prompt_words: frozenset[str]
    prompt_grams: frozenset[tuple[str, ...]]
    prompt_text: str
    turns: tuple[LoggedTurn, ...]


def window_after(turns: Sequence[LoggedTurn], index: int) -> _Window:
    """The next :data:`WINDOW` assistant turns after transcript position ``index``.

    Reads every turn: :class:`Windows` answers the same for many injections at once.
    """
    before = [t for t in turns if t.index < index and t.role == "user"]
    prompt = before[-1].text if before else ""
    after = tuple(t for t in turns if t.index > index and t.role == "assistant")[:WINDOW]
    return _window(prompt, after)


def _window(prompt: str, after: tuple[LoggedTurn, ...]) -> _Window:
    tokens = words(prompt)
    return _Window(frozenset(tokens), frozenset(_grams(tokens, QUOTE_WORDS)), prompt, after)


class Windows:
    """:func:`window_after` for every injection of a log, without a pass over every turn each.

    A staged log keeps its turns in transcript order, so the turns before a position are a
    prefix of the list: two binary searches find the prompt before an injection and the
    assistant turns after it. Turns out of order (a log written by hand) are each searched
    as :func:`window_after` does.
    """

    def __init__(self, turns: Sequence[LoggedTurn]) -> None:
        self.turns = turns
        self.keys = [t.index for t in turns]
        self.ordered = all(a <= b for a, b in zip(self.keys, self.keys[1:], strict=False))
        self.users = [i for i, t in enumerate(turns) if t.role == "user"]
        self.assistants = [i for i, t in enumerate(turns) if t.role == "assistant"]

    def after(self, index: int) -> _Window:
        """The window of an injection at transcript position ``index``."""
        if not self.ordered:
            return window_after(self.turns, index)
        below = bisect_left(self.keys, index)  # turns[:below] are those before ``index``
        last = bisect_left(self.users, below) - 1
        prompt = self.turns[self.users[last]].text if last >= 0 else ""
        first = bisect_left(self.assistants, bisect_right(self.keys, index))
        after = tuple(self.turns[i] for i in self.assistants[first : first + WINDOW])
        return _window(prompt, after)


def _said(turn: LoggedTurn) -> str:
    """The turn's own text and every string of its tool calls' arguments."""
    parts = [turn.text]
    for call in turn.tool_calls:
        parts.extend(_strings(call.input))
    return "\n".join(parts)


def _cited(note_id: str, window: _Window) -> Evidence | None:
    wanted = re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(note_id)}(?![A-Za-z0-9_-])")
    for turn in window.turns:
        if wanted.search(_said(turn)) and not wanted.search(window.prompt_text):
            return Evidence("cited", turn.index, note_id)
    return None


def _quoted(block: str, window: _Window) -> Evidence | None:
    grams = _grams(words(_REF.sub(" ", block)), QUOTE_WORDS) - window.prompt_grams
    for turn in window.turns:
        found = grams & _grams(words(_said(turn)), QUOTE_WORDS)
        if found:
            return Evidence("quoted", turn.index, " ".join(min(found)))
    return None


def _tool_evidence(block: str, facts: NoteFacts, window: _Window) -> Evidence | None:
    """``obeyed`` or ``broke``: what the window's tool calls did with the note's rule."""
    spans = code_spans(block)
    allowed = [s for s in spans if not any(_matches(p, s) for p in facts.commands)]
    allowed = [s for s in allowed if s not in window.prompt_text]
    enforced = facts.kind == "prohibition" or facts.enforce in ("warn", "ask", "deny")
    for turn in window.turns:
        for call in turn.tool_calls:
            args = " ".join(_strings(call.input))
            hit = next((s for s in allowed if s in args), None)
            if hit is not None:
                return Evidence("obeyed", turn.index, f"{call.name}: {hit}")
            command = _command(call.name, call.input)
            if enforced and command and any(_matches(p, command) for p in facts.commands):
                return Evidence("broke", turn.index, f"{call.name}: {command[:120]}")
    return None


def _named(block: str, window: _Window) -> Evidence | None:
    spans = [s for s in code_spans(block) if s not in window.prompt_text]
    for turn in window.turns:
        hit = next((s for s in spans if s in turn.text), None)
        if hit is not None:
            return Evidence("named", turn.index, hit)
    return None


def _paraphrased(block: str, window: _Window) -> Evidence | None:
    opening = words(_REF.sub(" ", block))[:OPENING_WORDS]
    content = {w for w in opening if len(w) >= 3 and w not in _STOPWORDS}
    content -= window.prompt_words
    if len(content) < PARAPHRASE_WORDS:
        return None
    for turn in window.turns:
        shared = content & set(words(turn.text))
        if len(shared) >= PARAPHRASE_WORDS and len(shared) >= PARAPHRASE_SHARE * len(content):
            return Evidence("paraphrased", turn.index, " ".join(sorted(shared)))
    return None


def _touched(facts: NoteFacts, window: _Window, event: str) -> Evidence | None:
    if event == "pre_tool" or not facts.files:
        return None
    for turn in window.turns:
        for call in turn.tool_calls:
            for key in FILE_KEYS:
                value = call.input.get(key)
                if isinstance(value, str) and any(
                    fnmatchcase(value.lstrip("./"), glob) for glob in facts.files
                ):
                    return Evidence("touched", turn.index, value)
    return None


def _is_pointer(block: str) -> bool:
    """A note injected as its one pointer line (``- title: description (read path)``)."""
    return block.lstrip().startswith("- ") and "\n" not in block.strip()


def evidence_for(block: str, facts: NoteFacts, window: _Window, event: str) -> list[Evidence]:
    """Every signal found for one note after one injection, strongest first."""
    found = [
        _cited(facts.id, window),
        _quoted(block, window),
        _tool_evidence(block, facts, window),
        _named(block, window),
        _paraphrased(block, window),
        _touched(facts, window, event),
    ]
    return [e for e in found if e is not None]


def attribute(log: SessionLog, facts: Mapping[str, NoteFacts]) -> list[InjectionOutcome]:
    """Attribute every lorebook injection of ``log`` (see the module docstring).

    ``facts`` gives each note's kind, enforcement and anchors; a note it lacks (deleted
    since) is judged on its injected text alone.
    """
    windows = Windows(log.turns)
    return [_outcome(injected, windows.after(injected.index), facts) for injected in log.injected]


def judge(
    injection: LoggedInjection,
    prompt: str,
    after: Sequence[LoggedTurn],
    facts: Mapping[str, NoteFacts],
) -> InjectionOutcome:
    """Attribute one injection, given the human prompt before it and the assistant turns after.

    ``after``: the first :data:`WINDOW` assistant turns after it (fewer while the session
    has not gone that far). :func:`attribute` does this for every injection of a whole log;
    the follow-up after capture (:mod:`lorebook.stats.tally`) for those of new records.
    """
    return _outcome(injection, _window(prompt, tuple(after[:WINDOW])), facts)


def _outcome(
    injection: LoggedInjection, window: _Window, facts: Mapping[str, NoteFacts]
) -> InjectionOutcome:
    event = event_of(injection.text, injection.host_event)
    notes = []
    for note_id, block in sorted(note_blocks(injection.text).items()):
        known = facts.get(note_id, NoteFacts(note_id))
        # A pointer (one line naming the file) is followed by reading the note: its text is
        # what a reply can quote or a command can obey.
        seen = f"{block}\n{known.body}" if _is_pointer(block) and known.body else block
        notes.append(NoteOutcome(note_id, len(block), evidence_for(seen, known, window, event)))
    return InjectionOutcome(
        injection.index,
        event,
        len(injection.text),
        injection.timestamp,
        injection.duration_ms,
        notes,
    )
