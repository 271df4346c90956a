"""The built-in deterministic extractor: teaching moments, found by phrase rules. No model.

It reads what the human typed (turns with role ``user``) and looks for the moments an agent
was taught something that outlives the session: a correction that generalises, a rule or
preference, a reason, a name, a place. :mod:`lorebook.extract.signals` judges each sentence;
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
   (:mod:`lorebook.extract.teaching`); its main sentence is its quote. A French turn is
   read by the grammar of obligation and preference (*il faut*, *on doit*, *ne doivent
   pas*, *jamais*, *inutile de*, *je préfère*), its questions left out.
6. Precision first: a moment is not proposed when its turn is mostly pasted, when its
   sentence is quoted after a line that introduces a report ("Fix this bug..."), when it
   is a question whose asking carries no rule, or when it is only chat
   (:func:`refusal_reason`).

The quote is a verbatim span of the group's first turn, so :func:`quote_in_session` holds.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from lorebook.extract.base import ExtractionRequest, normalise, quote_in_session
from lorebook.extract.cues import (
    CONTRAST,
    COUNTERFACTUAL,
    HABIT,
    HEDGE,
    ONE_OFF,
    POLAR_TO_AGENT,
    POLITE_ORDER,
    PREFERENCE,
    PROHIBITIVE,
    TurnCues,
    directive,
    emphatic,
    read_turn,
    rule_question,
)
from lorebook.extract.sentences import (
    Sentence,
    command_name,
    is_envelope,
    is_pasted_document,
    split_sentences,
)
from lorebook.extract.signals import (
    PRECEDENCE,
    QUESTION_START,
    Verdict,
    is_confirmation,
    judge,
    refers_back,
    strip_markers,
)
from lorebook.extract.statement import fix_typos, state_rule
from lorebook.extract.teaching import main_sentence, teaches, turn_kind
from lorebook.extract.terms import (
    as_tag,
    backticked,
    code_identifiers,
    file_anchor,
    merge_keys,
    paths,
    proper_names,
)
from lorebook.models.note import KIND_TYPES, Anchors, NoteKind, NoteType
from lorebook.models.session import LoggedTurn, Proposal

KNOWLEDGE_SKILL = re.compile(
    r"(?:^|[-_:/])(?:kk|lb|lorebook|kenkeep|memory|memories|remember|notes?|knowledge|kb"
    r"|curate|curation|extract|capture|learn)(?:$|[-_:])",
    re.IGNORECASE,
)
"""A slash command whose name says it records or curates project knowledge."""

_ACK_WORD = (
    r"(?:ok(?:ay)?|yes|yeah|yep|great|good|perfect|nice|cool|thanks?|thank you|sorry|wow|hi"
    r"|hello|hey|alright|excellent|awesome|amazing|lovely|fine|sure|ah|oh|hmm|well|indeed"
    r"|(?:great|good|nice|excellent|awesome) (?:work|job|progress|stuff)|well done"
    r"|my apologies|apologies)"
)
CHAT = re.compile(
    rf"^(?:{_ACK_WORD}[\s,.!]*)+$"
    r"|^(?:(?:ok(?:ay)?|yes|great|good|perfect)[\s,.!]+)?(?:this|that|it|everything)(?: all)?"
    r" (?:looks?|seems?|works?|worked|is working)(?: \w+)?(?: now)?[\s,.!]*$",
    re.IGNORECASE,
)
"""A sentence that is only an acknowledgement, praise, thanks or an apology: chat."""
QUOTE_INTRO = re.compile(
    r"\b(?:this|these|following|below|errors?|bugs?|output|logs?|messages?|says|shows"
    r"|get|got|getting|see|seeing)\b(?:[ \t]+[\w-]+){0,2}[ \t]*(?::|\.\.\.|\u2026)"
    r"[ \t\\]*\r?\n[ \t\\]*\r?\n"
    r"|\b(?:(?:pasted|copied|quoted|is|are) below|the following)\b[^\n]*\n"
    r"(?:[^\n]*\S[^\n]*\n)??"
    r"[ \t\\]*\r?\n"
    r"|^[ \t]*(?:-{3,}|={3,}|#{3,}|\*{3,})[ \t]*[\w][\w .:/-]*?[ \t]*(?:-{3,}|={3,}|#{3,}|\*{3,})"
    r"[ \t]*\r?\n",
    re.IGNORECASE | re.MULTILINE,
)
"""A line introducing what follows as something to read, then a blank line (a console copy
may show it as a lone backslash), or a banner naming it ("---- Build Logs ----"): what comes
after it is the report the person pasted ("Fix this bug...", "I get this error:", "the entry
is pasted below ...")."""
SESSION_MECHANICS = re.compile(
    r"(?<![\w/.])/[a-z][\w-]*\b(?!/)|\bcompact(?:ed|ing)?\b"
    r"|\b(?:low|out) (?:on|of) context\b|\bcontext (?:window|was cleared)\b",
    re.IGNORECASE,
)
"""The session's own mechanics: a slash command named in prose ("first we need to
/compact"), compacting, the context running out. Bound to this session, never a rule."""
INDIRECT_QUESTION = re.compile(
    r"^(?:(?:ok(?:ay)?|so|now|also|and|please|can you|could you)[\s,]+)*"
    r"(?:check|see|find out|look|search|verify|tell me|let me know|cherche|v\u00e9rifie"
    r"|regarde|dis-moi)\b[^.!?]*?\b(?:if|whether|si)\b",
    re.IGNORECASE,
)
"""A question put as an order to look something up: "check if there are any names ...",
"cherche si ... existe": it asks; it teaches nothing."""
EMBEDDED_QUESTION = re.compile(
    r"\bhow (?:can|do|should|would) (?:i|we)\b"
    r"|\bhelp me (?:to )?(?:figure out|understand|find|work out|see)\b",
    re.IGNORECASE,
)
"""A question run into a statement ("I'm using X how can I get it to ...", "help me figure
out how to get X to work")."""
DEIXIS = re.compile(
    r"(?<![-\w])here\b(?![-\w]| (?:is|are)\b)|\beither[.!]*$|^(?:ok(?:ay)?,? )?then\b"
    r"|\bthen[.!]*$|\b(?:today|tonight|yesterday|this (?:morning|afternoon|evening|week))\b"
    r"|^(?:\w+,?\s+)?instead of (?:that|this|those|these)\b",
    re.IGNORECASE,
)
"""Words that point at this point of the exchange: *here* (this place in the flow, not
"here is/are ..."), a closing *either* (one more item of a one-off list), *then* opening or
closing the sentence (a consequence of what was just said), a day named from today
("Today is July 8th"), an alternative to what was just shown ("instead of that, let's
make ..."): "we don't need to save the
result here", "don't use a winget staging directory either", "okay then I don't want the
long path ellipsization then"."""
ALWAYS = re.compile(
    r"\b(?:always|never|every ?time|whenever|in general|as a rule|from now on|going forward"
    r"|by default|we use)\b",
    re.IGNORECASE,
)
"""What makes a sentence a habit: said of every time, its *here* is the project, not this
moment ("We always run the tests with `uv run pytest` here, never with bare pytest")."""


def _points_at_now(sentence: str) -> bool:
    """The sentence points at this point of the exchange (:data:`DEIXIS`), not a habit."""
    found = [m.group(0).casefold() for m in DEIXIS.finditer(sentence)]
    if found and all(word == "here" for word in found) and ALWAYS.search(sentence):
        return False
    return bool(found)


WANTS_THIS = re.compile(
    r"^(?:\w+,?\s+){0,2}?i(?:['\u2019]d| would)? (?:want|need|like)"
    r" (?:it|this|that|these|those|them)\b"
    r"|^(?:\w+,?\s+){0,2}?i mean(?:t)? (?:the|that|this|these|those) [^,.;]*?\byou\b",
    re.IGNORECASE,
)
"""A wish about the thing just shown ("I need it for every block", "I want it to open the
file"): its object is a pronoun, so it is about this output, not a standing rule. So is
saying which of the agent's doings one meant ("i mean the functions you removed in
spinner.js"), not what a term means ("I meant the linter runs in the commit hook")."""
ABOUT_THE_PASTE = re.compile(
    r"\bi (?:do ?n['\u2019]?t |do not )?(?:want|need|like)\b[^.!?:]*?"
    r"\b(?:this|these|that|those)\b[^.!?:]*:\s*$",
    re.IGNORECASE,
)
"""A wish about the text the sentence introduces: it ends with a colon and points at what
follows with *this* ("I dont need to know this message in the output:"), so it is about
that pasted text, as :data:`WANTS_THIS` is about the thing just shown."""
CODE_LINE = re.compile(
    r"^\s*(?:(?:else\s+)?if\b|else\b|for(?:each)?\b|while\b|switch\b|return\b|var\b|let\b"
    r"|const\b|def\b|class\b|public\b|private\b|protected\b|static\b|function\b)"
    r"[^\n]*\n",
)
"""A sentence whose first line is a line of source code ("else if (showWhitespace)"): what
follows it in the same sentence was copied with it from an editor, an analyser's message
under the line it flags ("Change this condition so that it does not always evaluate to
'True'"), not the person's words."""
EXPECTED = re.compile(
    r"\b(?:should|must) (?:now |already |still )?be (?:ready|working|fine|done|fixed|there|set"
    r"|available|good|ok(?:ay)?|visible|live|up|running|in place|configured)\b",
    re.IGNORECASE,
)
"""*Should* of expectation, not obligation: "`VERCEL_TOKEN` should be ready for you to use",
"it should be working now": the state of this task."""
DISCOURSE_MARKER = re.compile(
    r"^(?:for example|for instance|so|also|and|but|ok(?:ay)?|now|then|well|hmm+|i mean)"
    r"[\s,]+",
    re.IGNORECASE,
)
"""A word opening a sentence that links it to the one before ("For example, would it ...")."""
BARE_TAG = re.compile(r"^(?:right|correct|no|ok(?:ay)?|yes|isn['\u2019]?t it)\s*\?+$", re.I)
"""A tag question on its own ("... right?"): it asks about the sentence it follows."""
EVIDENTIAL = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|but|hmm+|well|also)[\s,.]+)*"
    r"(?:it (?:looks|seems|appears)|looks|seems|apparently)\b(?! (?:good|great|fine|right)\b)",
    re.IGNORECASE,
)
"""A report of what the person sees happening ("ok it looks like railway is creating a
deploy each time a variable is set..."): its *each time* describes the behaviour observed,
not a habit asked for."""
STILL_WRONG = re.compile(
    r"\bstill (?:doesn['\u2019]?t|does not|isn['\u2019]?t|is not|has|fails?|not)\b"
    r"|\bi (?:can['\u2019]?t|cannot|am unable to)\b",
    re.IGNORECASE,
)
"""A report that the work is not right yet ("still doesn't work", "this still isn't right",
"X still has a function which will fail", "I cannot click on it"): the state of this task,
not a rule."""
ADDRESSED_MODAL = re.compile(
    r"\byou(?:['\u2019]ll| will)? (?:should(?:n['\u2019]?t| not)?|must(?:n['\u2019]?t| not)?"
    r"|need to|have to|ought to)\b",
    re.IGNORECASE,
)
"""A modal of obligation with the agent as its subject: "you should", "you'll need to"."""
TOOL_FOR = re.compile(
    r"^(?:(?:please|also|and|then|so|but)[\s,]+)*use\s+"
    r"(?!(?:it|that|this|these|those|them|the same|your|my)\b)\S+"
    r".*?\b(?:for|to|when|whenever|if needed|as needed|instead of|rather than)\b",
    re.IGNORECASE,
)
"""An imperative *use* naming a tool and what it is for or when."""
THINKING_ALOUD = re.compile(
    r"^(?:\w+,?\s+){0,3}?i(?:['\u2019]m| am) (?:looking for|trying to (?:find|understand"
    r"|figure)|theori[sz]ing|speculating|guessing)\b"
    r"|[,;]\s*i(?:['\u2019]m| am) (?:just )?(?:theori[sz]ing|speculating|guessing)\b"
    r"|^(?:\w+,?\s+){0,3}?i (?:no longer|don['\u2019]?t|do not|can['\u2019]?t|cannot)"
    r" (?:recall|remember)\b",
    re.IGNORECASE,
)
"""The person thinking aloud or looking for an answer, as the sentence's clause: "I'm
looking for a word", "I no longer recall why ...", "I'm not saying ..., I'm theorizing"."""
KEEPS_THEM = re.compile(r"\bwithout (?:\w+ing) (?:them|it)\b", re.IGNORECASE)
"""An order saying what must be kept while it is done: "update them to 'done' without
deleting them" forbids the deleting, every time."""
ASKED_OF_AGENT = re.compile(
    r"^(?:(?:\w+,?\s+){0,3}?(?:that\s+))?i(?:['\u2019]d| would)? (?:like|want|need) you to\b",
    re.IGNORECASE,
)
"""A task asked of the agent in the first person ("I'd like you to build some tests"):
a one-off request unless something gives it a scope beyond the task."""
_MODAL = r"(?:should(?:n['\u2019]?t| not)?|must(?:n['\u2019]?t| not)?|needs? to|has to)\b"
THING_BUILT = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|but|so|then)\s+|^when [^,]*?\s)"
    rf"(?:it|this(?: part| one)?|that(?: part| one)?)\s+{_MODAL}"
    rf"|^(?:it|this|that)\b[^,.;:]*?\b(?:and|but)\s+{_MODAL}",
    re.IGNORECASE,
)
"""A modal whose subject is *it* or *this (part)*: the thing being discussed or built in
this task ("the history input currently replaces the prompt ..., it shouldn't", "it should
support multiple task backends", "this part should refer to versions"). It specifies that
thing, not a rule the agent keeps, as a pronoun object does in :data:`WANTS_THIS`. So does
a modal sharing that subject in a coordinated clause ("this is not an actual task and
shouldnt be output")."""
NEGATED_ORDER = re.compile(
    r"(?:^|[.!?;:,]\s+|\b(?:please|and|but|so|just)\s+)"
    r"(?:do ?n['\u2019]?t|do not|never|stop|avoid)\b",
    re.IGNORECASE,
)
"""An order to the agent not to do something ("please don't delete anything")."""
GENERIC_CONDITION = re.compile(
    r"\b(?:when|whenever|if|once)\b[^.;]*?\b(?:a|an|any)\s+\w", re.IGNORECASE
)
"""A condition on any thing of a kind ("When I convert an excel file that has a cell with a
negative number, it should be displayed in brackets"): the pronoun after it stands for
every such thing, so the sentence states a general rule."""
AS_BEFORE = re.compile(r"\b(?:as (?:before|usual|always)|like (?:we did )?before)\b", re.I)
"""A request repeating how things were done before: a habit, so a rule."""
SENTENCE_WORDS = 40
"""A main "sentence" of more words is several run together (pasted lists, no full stops):
one of them naming the session's mechanics does not bind the rest to the session."""
FRENCH_DIRECTS = re.compile(
    r"\b(?:il (?:faut|faudrait|ne faut)|(?:on|tu|vous|il|elle|ils|elles|qui|ce|cela|[çc]a)"
    r" (?:ne )?(?:doi[st]|doivent|devrai[st]|devraient|devez|dois)|toujours)\b",
    re.IGNORECASE,
)
"""Obligation in French: *il faut*, *on doit*, *ne doivent pas*, *toujours*."""
FRENCH_PROHIBITS = re.compile(
    r"\b(?:jamais|inutile de|[ée]vite[rz]?|pas besoin de|ne (?:doi[st]|doivent|faut) pas"
    r"|il ne faut)\b",
    re.IGNORECASE,
)
"""A prohibition in French: *jamais*, *inutile de*, *évite*, *ne doivent pas*."""
FRENCH_PREFERS = re.compile(
    r"\b(?:je pr[ée]f[èe]re|plut[ôo]t (?:que|de)|au lieu de|j['\u2019]aime pas"
    r"|je n['\u2019]aime pas"
    r"|je (?:voudrais|pr[ée]f[ée]rerais|souhaiterais) (?:un|une|des|ne pas))\b",
    re.IGNORECASE,
)
"""A preference in French: *je préfère*, *plutôt que*, *au lieu de*, *je n'aime pas*, and a
wish in the conditional for a thing or a state (*je voudrais un nombre de fichiers
minimal*, *je voudrais ne pas avoir à ...*), not for a task (*je voudrais sécuriser ...*)."""
FRENCH_PUSHES_BACK = re.compile(
    r"\bpourquoi (?:tu|vous)\b.*\?|\bencore\b.*(?:[?!]{2,})", re.IGNORECASE
)
"""A French correction of what the agent did: a question at its conduct ("pourquoi tu m'en
parles alors ??") or an exasperated *encore* ("il est encore référencé ???!")."""
JAPANESE_RULE = re.compile(
    r"(?<!正)常に|必ず|絶対|やめて|べき|留意|しろよ|なんで[^。\uff1f?]*ない|違うって"
    r"|(?:方|ほう)がいい(?:よ|のでは)"
)
"""Japanese obligation and correction: always, without fail, ought to, had better, stop,
keep in mind, a blunt imperative, "why don't you", "that's wrong"."""
FRENCH_ASKS = re.compile(
    r"\b(?:(?:voudrais|veux|aimerais|souhaite|souhaiterais) savoir|dis[- ]moi"
    r"|(?:re)?cherche[rsz]? si|v[ée]rifie[rsz]? si|regarde[rsz]? si"
    r"|c['\u2019]est quoi|est-ce que)\b",
    re.IGNORECASE,
)
"""A French sentence that asks: a wish to know, a look-up, "est-ce que"."""
FILE_MENTION = re.compile(r"(?<![\w/`])@([\w-]+(?:\.[\w-]+)*\.[A-Za-z0-9]{1,8})\b")
"""A file named with ``@`` in an editor's chat: ``@routes.py``, ``@base_page.html``."""
LOG_LINE = re.compile(
    r"^\s*(?:[^\s:]{1,30}:\s+\S|\[[^\]\s]{1,20}\]|.*(?:\x1b)?\[\d+(?:;\d+)*m"
    r"|.*[\u2500-\u257f]|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2})"
)
"""A line a program printed: ``label: value``, a ``[TAG]`` prefix, a terminal colour code,
a table or a panel drawn with box-drawing characters, a timestamp opening it (a CI runner's
or a container's log: ``2025-10-02T19:23:50.0535462Z ##[endgroup]``)."""
SHELL_PROMPT = re.compile(
    r"^\s*(?:\([\w.-]+\)\s+)?[\w.-]+@[\w.-]+(?:[ :][^\s$%#>]+)?\s?[$%#>] \S|^\s*\$ \S"
)
"""A shell prompt opening a line: ``$ cmd``, ``user@host:~/dir$ cmd``,
``(venv) user@host dir % cmd``."""
LOG_LINES = 4
"""A turn of at least this many lines, half of them :data:`LOG_LINE`, is a pasted log."""


def _typed_first(text: str, at: int) -> bool:
    """True when offset ``at`` is on the turn's first line, typed before what was pasted."""
    first = text.lstrip()
    head = first.split("\n", 1)[0]
    start = len(text) - len(first)
    return start <= at < start + len(head) and not LOG_LINE.match(head)


def terminal_copy(text: str) -> bool:
    """True when the turn opens with a shell prompt line: a terminal session pasted whole.

    A line typed below such a copy is read as part of it (a known loss: the LLM
    extractor's pre-selection still sends it).
    """
    head = text.lstrip().split("\n", 1)[0]
    return bool(SHELL_PROMPT.match(head))


def log_like(text: str) -> bool:
    """True when the turn is a program's log: four lines or more, half of them log lines.

    Typed prose wraps into sentences; a log is lines of ``label: value``, ``[DEBUG]``
    prefixes and colour codes, in any language ("動画情報取得完了: Never Gonna Give You Up"
    is a download log, not a prohibition).
    """
    lines = [line for line in text.splitlines() if line.strip()]
    logged = sum(bool(LOG_LINE.match(line)) for line in lines)
    return len(lines) >= LOG_LINES and logged * 2 >= len(lines)


SLASH_COMMAND = re.compile(r"^\s*/[A-Za-z][\w:-]*(?=\s|$)")
"""A turn typed as a slash command: what follows the command is its argument (a compaction
summary the agent wrote, a path), not the person teaching."""
PROMPT_TEMPLATE = re.compile(
    r"^\s*<[A-Za-z][\w-]*\s+[\w-]+=[\"']|^\s*You are (?:a|an) \w+",
    re.MULTILINE,
)
"""A prompt someone pasted to set the agent up: a tagged activation block
(``<agent-activation CRITICAL="TRUE">``) or a role assigned ("You are a concerned parent")."""

MERGE_WINDOW = 3
"""Human turns back within which two moments sharing a name are one piece of knowledge."""
MAX_TITLE_WORDS = 12
MAX_LEAD_IN = 5
"""A title skips a lead-in this short before a colon ("The seams are deliberate: ...")."""
MAX_DESCRIPTION = 240
MAX_TAGS = 8
_CLAUSE = re.compile(r"[,;:]\s|\s[\u2014\u2013-]\s")
_TRAILING = re.compile(r"[\s.,;:!]+$")


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
class _Moment:
    """The teaching of one note type in one turn."""

    turn: int
    type: NoteType
    kind: NoteKind
    quote: str
    main: str
    spans: list[str]
    keys: set[str]


@dataclass(slots=True)
class _Group:
    """Moments (and confirmations) about one subject, merged into one candidate."""

    moments: list[_Moment]
    keys: set[str]
    extra: list[tuple[int, str]] = field(default_factory=list)


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


def _moments(
    turn: int, text: str, sentences: Sequence[Sentence], verdicts: Sequence[Verdict]
) -> list[_Moment]:
    """The moments of one turn: one per note type it teaches."""
    moments: list[_Moment] = []
    for kind_type in ("practice", "map"):
        runs = _runs(sentences, verdicts, kind_type)
        if not runs:
            continue
        teaching = [
            i
            for first, last in runs
            for i in range(first, last + 1)
            if verdicts[i].status == "teach"
        ]
        main = max(teaching, key=lambda i: (_score(sentences[i], verdicts[i]), -i))
        spans = [text[sentences[first].start : sentences[last].end] for first, last in runs]
        quote = next(
            span for (first, last), span in zip(runs, spans, strict=True) if first <= main <= last
        )
        keys: set[str] = set()
        for span in spans:
            keys |= merge_keys(span)
        kind = _kind({k for i in teaching for k in verdicts[i].kinds}, kind_type)
        moments.append(_Moment(turn, kind_type, kind, quote, sentences[main].text, spans, keys))
    return moments


def _kind(kinds: set[NoteKind], kind_type: NoteType) -> NoteKind:
    """The moment's kind: the first, by precedence, of its sentences' kinds of its type."""
    return next(k for k in PRECEDENCE if k in kinds and KIND_TYPES[k] == kind_type)


def _confirmation(
    text: str, sentences: Sequence[Sentence], verdicts: Sequence[Verdict]
) -> str | None:
    """The plain text of a confirming turn ("Yes. X stays Y."), or None if it is not one."""
    if not is_confirmation(text) or not sentences:
        return None
    if any(verdict.status != "neutral" for verdict in verdicts):
        return None
    return text[sentences[0].start : sentences[-1].end]


def _join(groups: list[_Group], moment: _Moment, *, follow_up: bool, near: set[int]) -> None:
    """Add a moment to the earliest near group of its type sharing a key, or start a group.

    A group is near when its latest moment is in one of the human turns ``near`` holds
    (the last :data:`MERGE_WINDOW`): a long session mentions the same tool in many
    unrelated rules, and only a rule taught again right away is the same rule. A follow-up
    that names nothing (a confirming turn, or one that opens with "That", "This", "It",
    "The rule") joins the latest group of its type instead: it restates or extends what was
    just taught.
    """
    same = [group for group in groups if group.moments[0].type == moment.type]
    chosen = next((g for g in same if g.keys & moment.keys and g.moments[-1].turn in near), None)
    if chosen is None:
        chosen = next((g for g in same if _said_again(g, moment)), None)
    if chosen is None and follow_up and not moment.keys and same:
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


def _said_again(group: _Group, moment: _Moment) -> bool:
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


def _human_turns(turns: Sequence[LoggedTurn]) -> list[tuple[int, str]]:
    """Positions and texts of the turns a human typed, until a knowledge skill is invoked."""
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
        if not is_pasted_document(turn.text):
            typed.append((position, turn.text))
    return typed


def _turn_moment(turns: Sequence[LoggedTurn], position: int, text: str) -> list[_Moment]:
    """The moment of a turn that teaches as a whole (:mod:`lorebook.extract.teaching`).

    Its quote is the sentence that carries the rule
    (:func:`lorebook.extract.teaching.main_sentence`).
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
    return [_Moment(position, note_type, kind, quote, sentence.text, [quote], keys)]


def refusal_reason(cues: TurnCues, main: str, text: str = "", at: int = 0) -> str | None:
    """Why a moment whose main sentence is ``main`` is not proposed, or None if it may be.

    Precision comes first: a proposal a person has to reject costs more than a rule the
    LLM extractor would find. The reasons are the grammar of the turn, not its topic:

    - ``pasted``: under a third of the turn's words are typed prose, the turn opens with a
      shell prompt (:func:`terminal_copy`), or it reads as a program's log
      (:func:`log_like`), whatever its language, and the sentence is not the first line
      the person typed above it;
    - ``pasted`` too: the sentence's first line is a line of source code (:data:`CODE_LINE`),
      so the rest was copied with it;
    - ``quoted``: the sentence (at offset ``at`` of the turn's ``text``) comes after a line
      that introduces something to read ("Fix this bug...", "I get this error:", "the
      following work:", "the entry is pasted below") and a blank line: it is the quoted
      report, not the person's words;
    - ``session``: it is about the session's own mechanics (``/compact``, the context);
    - ``here and now``: it points at this point of the exchange (:data:`DEIXIS`), or
      wishes something of the thing just shown (:data:`WANTS_THIS`) or of the text it
      introduces (:data:`ABOUT_THE_PASTE`);
    - ``status``: it reports that the work is not right yet (:data:`STILL_WRONG`), what the
      person sees happening (:data:`EVIDENTIAL`) or expects to be so (:data:`EXPECTED`);
    - ``thing built``: its modal's subject is *it* or *this (part)*, the thing this task
      discusses or builds (:data:`THING_BUILT`), and nothing makes it general;
    - ``thinking aloud``: the person looks for an answer or thinks aloud
      (:data:`THINKING_ALOUD`);
    - ``request``: a task asked of the agent in the first person ("I'd like you to ...")
      with no habit, emphasis or prohibition giving it a scope beyond the task;
    - ``question``: the main sentence asks ("check if ...", "... how can I ..." ask too, and
      so does a sentence trailing off into such a question: :func:`_question_after`),
      and its asking
      carries no rule (no negated auxiliary or tag, no question about what the agent
      did, no emphasis, no preference or alternative ruled out: "can we use X instead of
      Y?" carries one, "still no summary?" and "is there a command-line-only solution?"
      do not);
    - ``chat``: the main sentence is only an acknowledgement, praise, thanks or apology.
    """
    if cues.memory:
        return None
    copied = _copied(cues, main, text, at)
    if copied is not None:
        return copied
    sentence = main.strip()
    if SESSION_MECHANICS.search(sentence) and len(sentence.split()) <= SENTENCE_WORDS:
        return "session"
    if INDIRECT_QUESTION.match(sentence) or EMBEDDED_QUESTION.search(sentence):
        return "question"
    if _points_at_now(sentence) or WANTS_THIS.match(sentence) or ABOUT_THE_PASTE.search(sentence):
        return "here and now"
    if STILL_WRONG.search(sentence) or EVIDENTIAL.match(sentence) or EXPECTED.search(sentence):
        return "status"
    if _trails_into_a_question(cues, sentence, text, at + len(main)):
        return "question"
    if _specifies_the_thing_built(sentence):
        return "thing built"
    if THINKING_ALOUD.search(sentence):
        return "thinking aloud"
    if ASKED_OF_AGENT.search(sentence) and not (
        HABIT.search(sentence)
        or AS_BEFORE.search(sentence)
        or emphatic(sentence)
        or PROHIBITIVE.search(sentence)
    ):
        return "request"
    if sentence.endswith("?") and _asks_without_rule(sentence, cues):
        return "question"
    if _opens_as_a_question(sentence) and _asks_without_rule(f"{sentence}?", cues):
        return "question"
    if CHAT.match(sentence):
        return "chat"
    return None


def _copied(cues: TurnCues, main: str, text: str, at: int) -> str | None:
    """``pasted`` or ``quoted`` when the main sentence is not the person's own words."""
    if cues.pasted or (log_like(text) and not _typed_first(text, at)) or terminal_copy(text):
        return "pasted"
    intro = QUOTE_INTRO.search(text)
    if intro is not None and at >= intro.end():
        return "quoted"
    if CODE_LINE.match(main):
        return "pasted"
    return None


def _trails_into_a_question(cues: TurnCues, sentence: str, text: str, end: int) -> bool:
    """The sentence trails off (an ellipsis) into a question whose asking carries no rule.

    A bare tag after it ("... right?") asks about it, so the two are read together.
    """
    if not sentence.endswith(("...", "\u2026")):
        return False
    following = _question_after(text, end)
    if following is None:
        return False
    if BARE_TAG.match(following):
        following = f"{sentence} {following}"
    return _asks_without_rule(following, cues)


def _opens_as_a_question(sentence: str) -> bool:
    """The sentence opens as a question, after a discourse marker or not, whatever it ends on.

    "For example, would it make sense to say, in the phase II rule, that the AI should wear
    the hats of:" asks; its question mark comes after the list it introduces.
    """
    return bool(QUESTION_START.match(DISCOURSE_MARKER.sub("", sentence, count=1)))


def _question_after(text: str, end: int) -> str | None:
    """The sentence after offset ``end`` of ``text`` if it is a question, else None.

    A sentence trailing off in an ellipsis is continued by the next ("Rather than creating
    another project for staging... could we just use a single one?"): when that one asks,
    the whole asks.
    """
    following = split_sentences(text[end:])
    if following and following[0].text.rstrip().endswith("?"):
        return following[0].text.strip()
    return None


def _asks_without_rule(sentence: str, cues: TurnCues) -> bool:
    """A question whose asking carries no rule (see ``question`` in :func:`refusal_reason`)."""
    return not (
        rule_question(sentence)
        or (POLITE_ORDER.match(sentence) and directive(sentence))
        or cues.accuses
        or emphatic(sentence)
        or POLAR_TO_AGENT.match(sentence)
        or FRENCH_PUSHES_BACK.search(sentence)
        or PREFERENCE.search(sentence)
    )


def _specifies_the_thing_built(sentence: str) -> bool:
    """True when a modal's subject is *it* / *this* and nothing makes the sentence general.

    Left general: a habit (*always*, *never*, *whenever* ...), a contrast ("it should call
    the domain methods, not the cli commands"), an order not to do something ("don't delete
    anything, it should be archived not deleted"), a condition on any thing of a kind
    (:data:`GENERIC_CONDITION`), or a "sentence" of many run together. Nor is what ought to
    have been ("it should have been 'Lisi'"): that corrects what the agent did.
    """
    found = THING_BUILT.search(sentence)
    if found is None or len(sentence.split()) > SENTENCE_WORDS:
        return False
    if ALWAYS.search(sentence) or CONTRAST.search(sentence) or NEGATED_ORDER.search(sentence):
        return False
    if COUNTERFACTUAL.search(sentence):
        return False
    return not GENERIC_CONDITION.search(sentence[: found.end()])


def _addressed_moment(position: int, text: str) -> list[_Moment]:
    """A modal of obligation addressed to the agent: the person says what it must do.

    So does an order saying what must be kept while it is done (:data:`KEEPS_THEM`).

    "you should be using the English diary as primary", "you need to read them manually":
    the person tells the agent what it must do, in the second person; a question, a
    sentence bound to this moment ("you should now have ...") or one thinking aloud is
    left out. The first such sentence is the moment.
    """
    for sentence in split_sentences(text):
        body = sentence.text
        if body.rstrip().endswith("?") or not (
            ADDRESSED_MODAL.search(body) or KEEPS_THEM.search(body)
        ):
            continue
        if ONE_OFF.search(body) or HEDGE.search(body):
            continue
        kind: NoteKind = "prohibition" if PROHIBITIVE.search(body) else "convention"
        quote = text[sentence.start : sentence.end]
        return [_Moment(position, "practice", kind, quote, body, [quote], merge_keys(quote))]
    return []


def _tool_moment(position: int, text: str) -> list[_Moment]:
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
        return [_Moment(position, "practice", "tooling", quote, body, [quote], merge_keys(quote))]
    return []


def _french_moment(position: int, text: str) -> list[_Moment]:
    """A French turn's rule, read from the grammar of obligation and preference.

    The phrase rules of :mod:`lorebook.extract.signals` read English. A French sentence
    directs with *il faut* / *il faudrait*, *devoir* (*on doit*, *ne doivent pas*),
    *toujours* / *jamais*, *inutile de*, *éviter*, and states a preference with *je
    préfère*, *plutôt que*, *au lieu de*; a question, a look-up ("dis-moi si") or a wish to
    know ("je voudrais savoir") asks instead, unless it pushes back on what the agent did
    (:data:`FRENCH_PUSHES_BACK`). The first such sentence is the moment.
    """
    for sentence in split_sentences(text):
        body = sentence.text
        if FRENCH_PUSHES_BACK.search(body):
            quote = text[sentence.start : sentence.end]
            return [
                _Moment(position, "practice", "convention", quote, body, [quote], merge_keys(quote))
            ]
        if body.rstrip().endswith("?") or FRENCH_ASKS.search(body):
            continue
        prohibits = FRENCH_PROHIBITS.search(body)
        if not (prohibits or FRENCH_DIRECTS.search(body) or FRENCH_PREFERS.search(body)):
            continue
        kind: NoteKind = "prohibition" if prohibits else "convention"
        quote = text[sentence.start : sentence.end]
        main = _clause(
            body, prohibits or FRENCH_DIRECTS.search(body) or FRENCH_PREFERS.search(body)
        )
        return [_Moment(position, "practice", kind, quote, main, [quote], merge_keys(quote))]
    return []


def _clause(sentence: str, cue: re.Match[str] | None) -> str:
    """The clause of ``sentence`` holding ``cue``: the rule without what leads up to it.

    "Pareil pour le CR quotidien, les blocs ... ne doivent pas être affichés" states
    "les blocs ... ne doivent pas être affichés".
    """
    if cue is None:
        return sentence
    start = max(sentence.rfind(mark, 0, cue.start()) for mark in (", ", " : ", "; "))
    clause = sentence[start + 2 :].strip(" :") if start >= 0 else sentence
    return clause if len(clause.split()) >= 3 else sentence


def _japanese_moment(position: int, text: str) -> list[_Moment]:
    """A Japanese turn's rule, read from the grammar of obligation and correction.

    A Japanese request (*〜して*, *〜してください*) is shaped the same whether it asks for
    this task or for always, so only what says more is read: *常に* / *必ず* / *絶対*
    (always, without fail), *〜べき* (ought to), *〜方がいいよ* (you had better),
    *やめて* (stop doing it), *留意して* (keep in mind), a blunt imperative with *よ*
    (*〜しろよ*), *なんで〜ない* (why don't you: a correction) and *違うって* (that's
    wrong). The first line holding one is the moment.
    """
    for sentence in split_sentences(text):
        body = sentence.text
        cue = JAPANESE_RULE.search(body)
        if cue is None:
            continue
        kind: NoteKind = "prohibition" if cue.group(0) == "やめて" else "convention"
        quote = text[sentence.start : sentence.end]
        return [_Moment(position, "practice", kind, quote, body, [quote], merge_keys(quote))]
    return []


def _withdraw(groups: list[_Group], retraction: str, previous: int | None) -> None:
    """Drop the groups a retracting sentence takes back, and only those.

    A retraction that names something takes back the groups sharing it; one that names
    nothing ("never mind", "forget it") takes back what the human turn just before it
    taught, if it taught anything. (It used to clear every candidate of the session: a
    712-prompt day ending "forget it, you don't remember" proposed nothing.)
    """
    keys = merge_keys(retraction)
    if keys:
        groups[:] = [group for group in groups if not group.keys & keys]
    elif previous is not None:
        groups[:] = [group for group in groups if group.moments[-1].turn != previous]


def _mentions_as_code(sentence: str) -> str:
    """``sentence`` with each file named with ``@`` (``@routes.py``) as a code span.

    An editor's chat names a file so; a sentence placing something in it then names what
    it places, as one naming a path does.
    """
    return FILE_MENTION.sub(lambda match: f"`{match.group(1)}`", sentence)


def _groups(turns: Sequence[LoggedTurn]) -> list[_Group]:
    """Group the teaching moments of a session, applying retractions as they come."""
    groups: list[_Group] = []
    seen: list[int] = []
    for position, text in _human_turns(turns):
        seen.append(position)
        near = set(seen[-MERGE_WINDOW - 1 :])
        sentences = split_sentences(text)
        verdicts = [judge(_mentions_as_code(sentence.text)) for sentence in sentences]
        retracted = [
            i
            for i, verdict in enumerate(verdicts)
            if verdict.status == "retract" and not sentences[i].text.endswith("?")
        ]
        if retracted:
            cut = retracted[-1] + 1
            before = seen[-2] if len(seen) > 1 else None
            _withdraw(groups, text[: sentences[retracted[-1]].end], before)
            sentences, verdicts = sentences[cut:], verdicts[cut:]
        moments = _moments(position, text, sentences, verdicts)
        if not moments:
            moments = _turn_moment(turns, position, text)
        if not moments:
            moments = _addressed_moment(position, text)
        if not moments:
            moments = _tool_moment(position, text)
        if not moments:
            moments = _french_moment(position, text)
        if not moments:
            moments = _japanese_moment(position, text)
        if moments:
            cues = read_turn(turns, position)
            moments = [
                m
                for m in moments
                if refusal_reason(cues, m.main, text, max(text.find(m.quote), 0)) is None
            ]
        follow_up = is_confirmation(text) or bool(sentences and refers_back(sentences[0].text))
        for moment in moments:
            _join(groups, moment, follow_up=follow_up, near=near)
        confirmation = None if moments else _confirmation(text, sentences, verdicts)
        if confirmation is not None:
            _attach(groups, position, confirmation)
    return groups


def _terms(parts: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Tags and file anchors from the identifiers, paths and names the parts mention."""
    text = "\n".join(parts)
    tags: list[str] = []
    for term in [*code_identifiers(text), *proper_names(text)]:
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
    body = tuple(dict.fromkeys(_capital(strip_markers(normalise(span))) for _, span in entries))
    body = tuple(part for part in body if part)
    tags, files = _terms(body)
    turns = tuple(sorted({turn for turn, _ in entries}))
    return Candidate(
        first.turn, first.type, first.kind, first.quote, first.main, body, turns, tags, files
    )


def find_teaching_moments(turns: Sequence[LoggedTurn]) -> list[Candidate]:
    """Find the teaching moments of a session's turns, one candidate per subject.

    Args:
        turns: The turns to read, in order (only those with role ``user`` are judged).

    Returns:
        The candidates, ordered by the turn their quote comes from.
    """
    candidates = [_candidate(group) for group in _groups(turns)]
    return sorted(candidates, key=lambda candidate: (candidate.turn, candidate.type))


def _capital(text: str) -> str:
    """``text`` with its first character upper-cased."""
    return text[:1].upper() + text[1:]


def make_title(sentence: str) -> str:
    """A title of at most ~12 words from a sentence, its leading markers and code ticks gone.

    A short lead-in before a colon is skipped; a long sentence is cut at its first clause
    boundary when that leaves 3 to 12 words, else after 12 words.
    """
    text = normalise(strip_markers(sentence))
    head, colon, tail = text.partition(": ")
    if colon and len(head.split(" ")) <= MAX_LEAD_IN and len(tail.split(" ")) >= 3:
        text = tail
    code_first = text.startswith("`")
    text = text.replace("`", "")
    words = text.split(" ")
    if len(words) > MAX_TITLE_WORDS:
        clause = _CLAUSE.search(text)
        head = text[: clause.start()] if clause else ""
        if clause and 3 <= len(head.split(" ")) <= MAX_TITLE_WORDS:
            text = head
        else:
            text = " ".join(words[:MAX_TITLE_WORDS])
    text = _TRAILING.sub("", text)
    return text if code_first else _capital(text)


def make_description(sentence: str) -> str:
    """A one-line description: the main sentence without its markers, cut at a word."""
    text = normalise(strip_markers(sentence))
    if len(text) > MAX_DESCRIPTION:
        text = text[:MAX_DESCRIPTION].rsplit(" ", 1)[0] + " …"
    return _capital(text)


def vocabulary(turns: Sequence[LoggedTurn]) -> Counter[str]:
    """How often each word occurs in the agent's text: what :func:`fix_typos` corrects toward."""
    return Counter(
        word.lower()
        for turn in turns
        if turn.role == "assistant"
        for word in re.findall(r"[A-Za-z][A-Za-z']+", turn.text)
    )


def rule_title(sentence: str, words: Counter[str] | None = None) -> str:
    """The rule a sentence teaches, as a title.

    Typos the person made are fixed where certain
    (:func:`~lorebook.extract.statement.fix_typos`), the discourse around the rule dropped
    and its phrasing made an imperative (:func:`~lorebook.extract.statement.state_rule`);
    :func:`make_title` of the corrected sentence when no sentence states a rule.
    """
    fixed = fix_typos(strip_markers(sentence), words or Counter())
    return state_rule(fixed) or make_title(fixed)


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
        description=make_description(candidate.main),
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
