"""What one human sentence is: a teaching moment of some kind, or something to leave out.

Every rule is a phrase pattern over English prose, written for how people teach an agent,
not for any one transcript. A sentence is first checked for the reasons to leave it out,
then for teaching signals:

- **retraction** (*never mind*, *not approved*, *come back to it later*): undoes what came
  before in the session;
- **question**, **tentative or temporary** (*maybe*, *try*, *I think*, *for now*, *yet*),
  **meta** (about documenting or the knowledge base itself), **ephemeral** (ticket numbers,
  outage narrative): never a note;
- **teaching**: prohibition (*never*, *do not*, *avoid*, *instead*), convention (*always*,
  *every*, *must*, *treat X as*, *belongs in*, *owns*), gotcha (*careful*, *will fail*,
  *silently*), decision (*because*, *deliberately*, *rather than*), tooling (run or use a
  command), location (*lives in*, *is under* + a path), feature (*we are introducing*, *the
  ... feature that*), vocabulary (*is called*, *means*, *the named system*).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from lorebook.extract.terms import backticked, paths, proper_names
from lorebook.models.note import KIND_TYPES, NoteKind, NoteType

Status = Literal["teach", "neutral", "question", "tentative", "meta", "ephemeral", "retract"]

_I = re.IGNORECASE
_APOS = "['\u2019]"
_NT = "n" + _APOS + "?t"
"""*n't*, with a straight or a curly apostrophe, or none."""

RETRACTION = re.compile(
    r"\bnever ?mind\b|\bforget (?:it|that|this|about it)\b|\bscratch that\b|\bdisregard\b"
    r"|\bon second thought|\bunapproved\b|\bnot (?:been |yet )?approved\b"
    r"|\b(?:only|just) to see\b|\bwithout changing\b|\bcome back to\b|\bnot choosing\b"
    rf"|\bnot (?:yet )?(?:decided|settled|final|adopted)\b|\bhave{_NT} decided\b"
    r"|\bundecided\b|\bhold off\b|\bon hold\b|\bpark (?:it|this|that)\b"
    r"|\b(?:revert|undo) (?:it|this|that|everything|all)\b"
    r"|\bthrow (?:it|this|that) away\b|^drop (?:it|that|this)\b"
    r"|\babandon (?:it|this|that|the (?:idea|approach|plan|prototype|draft|change))\b"
    r"|\b(?:drop|remove|delete|discard|revert|scrap|undo) (?:the|this|that|my|our|these|those)"
    r" (?:draft|prototype|spike|experiment|attempt|changes?)\b"
    r"|\bjust (?:testing|an example|a test|exploring|curious)\b|\bhypothetical"
    r"|\bnot a real\b|\S\s+after all\b",
    _I,
)
_AUXILIARY = (
    rf"(?:should|could|can|ca|would|did|will|wo|is|are)(?:{_NT})?"
    r" (?:we|i|you|it|that|this|there|they)"
    rf"|(?:do|does)(?:{_NT})? (?:we|i|you|they)|does(?:{_NT})? it"
)
"""An auxiliary verb and its subject, opening a question ("Shouldn't we", "Do you")."""
QUESTION_START = re.compile(
    r"^(?:what (?:about|is|are|do|does|should|would|if)|how|why"
    rf"|where (?:is|are|do|does|should)|{_AUXILIARY})\b",
    _I,
)
_QUESTION_END = re.compile(r"\?[\s!?.\"')\]\u2019\u201d]*$")
TENTATIVE = re.compile(
    r"\b(?:maybe|might|perhaps|possibly|probably|not sure|unsure|what about|wonder"
    r"|for now|for the moment|at the moment|right now|today|later|this time|yet"
    r"|temporar(?:y|ily)|just this once|i guess|i suppose|would be nice|would like"
    r"|experiment(?:al|ing)?|if possible|let(?:'s| us) see|consider|explor(?:e|ing|ation)"
    r"|brainstorm(?:ing)?|pros and cons|trade-?offs?|next (?:sprint|week|time|release|quarter))\b"
    rf"|\bi (?:do not|do{_NT}) think\b|\bi think\b"
    r"|\bfor this (?:ticket|task|pr|branch|session|change|one)\b"
    r"|(?<!never )(?<!not )(?<!n't )(?<!n\u2019t )\b(?:try|trying|tried)\b",
    _I,
)
META = re.compile(
    r"\b(?:knowledge(?: base)?|curat(?:e|ed|es|ing|ion|or)|proposals?|extract(?:ed|ing|ion)?"
    r"|skills?|documenting|document (?:this|that|it)|descriptions?)\b|\bnotes?\b(?!\s+that\b)"
    r"|(?:^|\s)`?/[a-z][\w-]*`?(?=[\s.,]|$)",
    _I,
)
EPHEMERAL = re.compile(
    r"\b(?!(?:SHA|UTF|ISO|RFC|TLS|SSL|HTTP|PHP|ES|IPV|X)-)[A-Z][A-Z0-9]{1,9}-\d+\b"
    r"|\b(?:ticket|outage|incident|postmortem|yesterday|last (?:week|night|sprint)"
    r"|this (?:morning|week|sprint))\b",
)
CONFIRMATION = re.compile(
    r"^\s*(?:yes|yep|yeah|correct|right|exactly|good|great|agreed|indeed|precisely|perfect"
    rf"|that{_APOS}?s right|that is right|ok|okay)\b\s*[.!,;:]",
    _I,
)
LEADING_MARKERS = re.compile(
    r"^(?:(?:no|yes|yep|yeah|correct|right|exactly|good|great|ok|okay|agreed|indeed|also"
    r"|precisely|perfect|note|remember|important)\s*[.,!:;]\s*)+"
    rf"|^(?:here(?: is|{_APOS}s) (?:the|a|one|our) (?:\w+ )?(?:\w+ )?"
    r"(?:gotcha|rule|catch|thing|convention|trick|problem)\s*:\s*)"
    r"|^(?:the (?:\w+ )?(?:rule|convention|point|gotcha|catch|decision) (?:here )?is(?: that)?"
    r"\s*[:,]?\s*)"
    r"|^(?:(?:note|remember|keep in mind)(?: that)?\s*[:,]\s*|(?:note|remember) that\s+)"
    r"|^(?:as a rule|in general|going forward|from now on)\s*[:,]?\s*"
    rf"|^(?:we are|we{_APOS}re) introducing\s+",
    _I,
)

_IMPERATIVE_RE = re.compile(
    rf"^(?:please\s+)?(?:use|keep|store|put|prefer|run|avoid|never|always|do|do{_NT})\b", _I
)
_WE_POLICY = re.compile(
    r"\bwe (?:\w+ )?(?:use|keep|store|put|run|avoid|prefer|chose|decided|never|always|only"
    rf"|do not|do{_NT})\b",
    _I,
)
_TASK_VERB = re.compile(
    r"^(?:please\s+)?(?:run|rerun|re-run|check|fix|update|test|review|look|read|open|scan|grep"
    r"|search|go|start|finish|list|show|add|make|create|implement|write|build|change|rename"
    r"|remove|delete|move|refactor|translate|cover)\b",
    _I,
)
_COMMAND_LIKE = re.compile(
    r"^(?:\S+ \S|\.{0,2}/|[\w.-]+/(?:bin|scripts?)/|@[\w.-]+/"
    r"|(?:npm|npx|pnpm|yarn|bun|uv|uvx|pip|make|docker|ddev|drush|composer|pytest|cargo|go"
    r"|git|just|tox|nox|poetry|gradle|mvn|dotnet|php|node|deno)\b)"
)

_DONT = rf"(?:do not|do{_NT})\b"
_NOT_A_RULE = (
    r"(?! (?:forget|worry|bother|mind|need|have to|seem|appear|know|see|understand|care"
    r"|let me|let us)\b)"
)
"""*don't* that is not a prohibition: a reminder, a reassurance, a description."""

SIGNALS: tuple[tuple[NoteKind, re.Pattern[str]], ...] = (
    (
        "gotcha",
        re.compile(
            r"\bgotchas?\b|(?<!more )\bcareful\b|\bwatch out\b|\bbeware\b|\bpitfall|\bcaveat"
            r"|\bquirk|\bsilently\b|\bthe catch is\b|\bwill (?:\w+ )?(?:fail|break|hide|mask"
            r"|crash|lose|drop|corrupt|overwrite|skip|hang|leak|deadlock)\b"
            r"|\b(?:breaks|fails) (?:unless|whenever)\b"
            r"|\b(?:breaks|fails) (?:when|if) (?:you|we|anyone|someone|a|an)\b"
            rf"|\b(?:wo{_NT}|does not|does{_NT}) work\b",
            _I,
        ),
    ),
    (
        "decision",
        re.compile(
            r"\bdeliberate(?:ly)?\b|\bintentional(?:ly)?\b|\bon purpose\b"
            r"|\bby design\b|\bthe reason\b|\brather than\b|\binstead of\b"
            r"|\bwe (?:chose|decided|picked|settled on|went with|standardi[sz]ed on)\b",
            _I,
        ),
    ),
    (
        "prohibition",
        re.compile(
            rf"\bnever\b(?! ?mind)|(?<!\bi )\b{_DONT}{_NOT_A_RULE}|\bmust not\b|\bmust{_NT}\b"
            rf"|\bshould not\b|\bshould{_NT}\b|\bavoid\b|\bnot allowed\b|\bforbidden\b"
            r"|\bprohibit(?:ed|ion)?\b"
            r"|\binstead\b(?! of)",
            _I,
        ),
    ),
    (
        "convention",
        re.compile(
            r"\balways\b|\bmust\b(?! not)|\btreat(?:s|ed)?\b.{1,60}?\bas\b"
            r"|\bbelongs? (?:in|to|under)\b"
            r"|\bowns?\b|\bconventions?\b|\bpolicy\b|\binvariant\b|\bwe prefer\b|\bpreferred\b"
            r"|\bprefer\b.{1,60}?\b(?:over|to|rather than)\b"
            r"|\b(?:as a|our|durable|general|project|house) rule\b|\brule (?:is|of thumb)\b"
            r"|\b(?:the|this|that|same) rule (?:applies|holds)\b"
            r"|\bfrom now on\b|\bgoing forward\b|\bwhenever\b|\b(?:every|each) time\b"
            r"|\bafter (?:adding|changing|editing|updating|modifying|touching|renaming|moving"
            r"|deleting|removing|upgrading|installing|merging|pulling|rebasing|deploying)\b"
            r"|\bbefore (?:committing|pushing|merging|deploying|releasing|publishing|running)\b",
            _I,
        ),
    ),
    (
        "location",
        re.compile(
            r"\b(?:lives?|living|located|sits?|resides?|kept|stays?|rooted)"
            r" (?:in|at|under|inside|within)\b|\b(?:is|are) (?:under|inside|within)\b"
            r"|\bcan be found (?:in|at|under)\b",
            _I,
        ),
    ),
    (
        "feature",
        re.compile(
            r"\bintroduc(?:e|es|ing)\s+(?:a |an |the )?(?:new )?(?-i:[A-Z`\"\u201c])"
            r"|\b(?:feature|system|subsystem|component|service|pipeline)"
            r" (?:that|which|called|named)\b"
            r"|\bis (?:the|our) (?:new )?(?:\w+ )?(?:feature|subsystem|pipeline)\b",
            _I,
        ),
    ),
    (
        "vocabulary",
        re.compile(
            r"\b(?:is|are) called\b|\bwe call\b|\bwhat we call\b|\bstands? for\b|\brefers? to\b"
            r"|\bis (?:our|the) (?:\w+ )?(?:name|term|word) for\b|\bis short(?:hand)? for\b"
            r"|\b(?:i|we) mean\b(?!,)"
            r"|\bnamed system\b|(?<!\bThis )(?<!\bThat )(?<!\bwhich )(?<!\bIt )\bmeans\b",
            _I,
        ),
    ),
)
"""Teaching signals, by the kind of note they suggest."""

_REFERS_BACK = re.compile(
    r"^(?:that|this|it|these|those|the same|the (?:\w+ )?(?:rule|prohibition|convention|gotcha"
    r"|decision|policy|requirement))\b",
    _I,
)
_EVERY = re.compile(r"\bevery\b", _I)
_BECAUSE = re.compile(r"\bbecause\b", _I)
_TOOL_USE = re.compile(
    r"\b(?:use|uses|using|invoke|call|switch(?:ed)? to|(?:is |are )?run(?:s)?"
    r"(?: (?:with|through|via|using|in|inside|under))?"
    r"|(?:lint|test|build|format|check|deploy|install)(?:s|ed)? (?:with|through|via|using))"
    r"\s+(?:the )?`(?P<command>[^`]+)`",
    _I,
)
_DEFINITION = re.compile(
    r"^(?P<subject>[\"'\u201c`][^\"'\u201d`]{2,60}[\"'\u201d`]|(?-i:[A-Z][\w-]*(?: [A-Z][\w-]*)+))"
    r"\s+(?:=\s*\w|(?:is|are) (?:the|our|a|an) (?:[\w-]+ ){0,4}?(?:name|term|section|system"
    r"|subsystem|feature|service|module|component|entity|page|area|screen|product|tool|pipeline"
    r"|process|workflow|job|queue|api|endpoint|integration)s?\b)",
    _I,
)
MAP_KINDS: frozenset[str] = frozenset({"location", "feature", "vocabulary"})
PRECEDENCE: tuple[NoteKind, ...] = (
    "gotcha",
    "tooling",
    "decision",
    "prohibition",
    "convention",
    "location",
    "feature",
    "vocabulary",
)
"""When a sentence carries several signals, the first of these names its kind."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a sentence is: its status and, when it teaches, its kinds by precedence."""

    status: Status
    kinds: tuple[NoteKind, ...] = ()

    @property
    def type(self) -> NoteType:
        """``map`` when the sentence's first kind is a map kind, else ``practice``."""
        return "map" if self.kinds and KIND_TYPES[self.kinds[0]] == "map" else "practice"


def strip_markers(text: str) -> str:
    """Drop leading markers ("No.", "Correct.", "Here is the gotcha:", "The rule is that")."""
    previous = None
    while previous != text:
        previous, text = text, LEADING_MARKERS.sub("", text, count=1).lstrip()
    return text


def refers_back(sentence: str) -> bool:
    """True when a sentence opens by pointing at what was just said ("That rule also ...")."""
    return bool(_REFERS_BACK.match(strip_markers(sentence)))


def is_confirmation(text: str) -> bool:
    """True when a turn opens by agreeing with the agent ("Correct.", "Yes,", "Exactly.")."""
    return bool(CONFIRMATION.match(text))


def _names_something(text: str) -> bool:
    """True when the sentence names a code span, a path, a quoted term or a proper name."""
    return bool(
        backticked(text) or paths(text) or proper_names(text) or re.search(r"[\"\u201c]", text)
    )


def _extra_kinds(text: str) -> list[NoteKind]:
    """Signals that depend on more than one phrase: *every*, *because*, a tool, a definition."""
    kinds: list[NoteKind] = []
    if _defines_a_term(text):
        kinds.append("vocabulary")
    if _EVERY.search(text) and not _TASK_VERB.match(text):
        kinds.append("convention")
    if _BECAUSE.search(text) and (_WE_POLICY.search(text) or _IMPERATIVE_RE.match(text)):
        kinds.append("decision")
    if any(_COMMAND_LIKE.match(m.group("command")) for m in _TOOL_USE.finditer(text)):
        kinds.append("tooling")
    return kinds


def _defines_a_term(text: str) -> bool:
    """True for "Rivermark Discover is our personalised front-page section" and "X = Y".

    The subject must be a quoted term or a multi-word proper name opening the sentence, and
    the complement a kind of thing a project names (a section, a system, a module ...).
    """
    core = strip_markers(text)
    match = _DEFINITION.match(core)
    if not match:
        return False
    subject = match.group("subject")
    return subject[0] in "\"'\u201c`" or proper_names(subject) == [subject]


def teaching_kinds(text: str) -> tuple[NoteKind, ...]:
    """The kinds of teaching signal in ``text``, by precedence (empty when it teaches none).

    Map kinds (location, feature, vocabulary) count only when the sentence names something:
    a code span, a path, a quoted term or a proper name.
    """
    found = {kind for kind, pattern in SIGNALS if pattern.search(text)}
    found.update(_extra_kinds(text))
    if not _names_something(text):
        found -= MAP_KINDS
    return tuple(kind for kind in PRECEDENCE if kind in found)


def judge(text: str) -> Verdict:
    """Judge one sentence: why it is left out, or which kinds of teaching it carries."""
    core = strip_markers(text)
    if RETRACTION.search(text):
        return Verdict("retract")
    if _QUESTION_END.search(text) or QUESTION_START.match(core):
        return Verdict("question")
    if TENTATIVE.search(core):
        return Verdict("tentative")
    if META.search(core):
        return Verdict("meta")
    if EPHEMERAL.search(core):
        return Verdict("ephemeral")
    kinds = teaching_kinds(text)
    return Verdict("teach", kinds) if kinds else Verdict("neutral")
