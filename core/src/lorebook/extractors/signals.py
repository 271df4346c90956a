"""What one human sentence is: a teaching moment of some kind, or something to leave out.

Every rule is a phrase pattern over English prose, written for how people teach an agent,
not for any one transcript. A sentence is first checked for the reasons to leave it out,
then for teaching signals:

- **retraction** (*never mind*, *not approved*, *come back to it later*): undoes what came
  before in the session;
- **question**, **tentative or temporary** (*maybe*, *try*, *I think*, *for now*, *yet*),
  **meta** (about documenting or the knowledge base itself), **ephemeral** (ticket numbers,
  outage narrative, a secret capture redacted): never a note;
- **teaching**: prohibition (*never*, *do not*, *avoid*, *instead*, *no need to*, "No X,
  only Y"), convention (*always*,
  *every*, *must*, *treat X as*, *belongs in*, *owns*), gotcha (*careful*, *will fail*,
  *silently*), decision (*because*, *deliberately*, *rather than*), tooling (run or use a
  command), location (*lives in*, *is under* + a path), feature (*we are introducing*, *the
  ... feature that*), vocabulary (*is called*, *means*, *the named system*, "*Rivermark
  Discover* is our ... section").

Map kinds count only in a sentence that names something (a code span, a path, a quoted
term, a multi-word proper name). Several signals need more than one phrase: *every* not in a
task request ("Run every test"), *because* with a policy ("we use X because", "Use X
because"), a tool verb right before a command in backticks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from lorebook.extractors.terms import backticked, paths, proper_names
from lorebook.extractors.tools import names_a_tool
from lorebook.models.note import KIND_TYPES, NoteKind, NoteType

Status = Literal[
    "teach", "neutral", "question", "tentative", "meta", "ephemeral", "retract", "printed"
]

_I = re.IGNORECASE
APOS = "['\u2019]"
"""An apostrophe as typed: straight or curly."""
NT = "n" + APOS + "?t"
"""*n't*, with a straight or a curly apostrophe, or none."""
LET_US = "let(?:" + APOS + "?s| us)"
"""*let's* (with a straight or a curly apostrophe, or none: "lets try") or *let us*."""


def _phrases(*phrases: str, tail: str = "") -> re.Pattern[str]:
    r"""One case-insensitive pattern for any of ``phrases``, each starting at a word boundary.

    Factoring the boundary out of the alternation keeps the search fast: most positions fail
    at ``\b`` before any phrase is tried. ``tail`` is appended as a further alternative.
    """
    return re.compile(r"\b(?:" + "|".join(phrases) + ")" + tail, _I)


RETRACTION = _phrases(
    r"never ?mind\b",
    r"forget (?:it|that|this|about it)\b",
    r"(?:^|(?<=[,.;:!?] )|(?<=\band )|(?<=\bjust )|(?<=\bplease )|(?<=\balso )|(?<=\bthen ))"
    r"forget (?:the|that|this|my|what) [^.;!?]{0,60}?\b"
    r"(?:rule|idea|thing|part|bit|request|instruction|said|asked|wrote)s?\b",
    r"scra(?:tch|p) (?:it|that|this)\b",
    r"disregard\b",
    r"on second thought",
    r"unapproved\b",
    r"not (?:been |yet )?approved\b",
    r"(?:only|just) to see\b",
    r"without changing\b",
    r"come back to\b",
    r"not choosing\b",
    r"not (?:yet )?(?:decided|settled|final|adopted)\b",
    rf"have{NT} decided\b",
    r"undecided\b",
    r"hold off\b",
    r"on hold\b",
    r"park (?:it|this|that)\b",
    r"(?:revert|undo) (?:it|this|that|everything|all)\b",
    r"throw (?:it|this|that) away\b",
    r"abandon (?:it|this|that|the (?:idea|approach|plan|prototype|draft|change))\b",
    r"(?:drop|remove|delete|discard|revert|scrap|undo) (?:the|this|that|my|our|these|those)"
    r" (?:draft|prototype|spike|experiment|attempt|branch|changes?|rule|idea)\b",
    rf"{LET_US} not\b",
    r"just (?:testing|an example|a test|exploring|curious)\b",
    r"hypothetical",
    r"not a real\b",
    r"after all\b(?<=\w after all)",
    tail=r"|^drop (?:it|that|this)\b",
)
_AUXILIARY = (
    rf"(?:should|could|can|ca|would|did|will|wo|is|are)(?:{NT})?"
    r" (?:we|i|you|it|that|this|there|they)"
    rf"|(?:do|does)(?:{NT})? (?:we|i|you|they)|does(?:{NT})? it"
)
"""An auxiliary verb and its subject, opening a question ("Shouldn't we", "Do you")."""
QUESTION_START = re.compile(
    rf"^(?:what about|how about|why|(?:(?:how|what|where|which|when|who) )?(?:{_AUXILIARY}))\b",
    _I,
)
"""A question without its question mark: "why ...", "how do we ...", "shouldn't we ..."."""
_QUESTION_END = re.compile(r"\?[\s!?.\"')\]\u2019\u201d]*$")
TENTATIVE = _phrases(
    r"(?:maybe|might|perhaps|possibly|probably|not sure|unsure|what about|wonder(?:ing)?"
    r"|contemplat(?:e|ing)|for now"
    r"|for the moment|at the moment|right now|today|later|this time|yet|temporar(?:y|ily)"
    r"|just this once|i guess|i suppose|would be nice|would like|experiment(?:al|ing)?"
    rf"|if possible|{LET_US} see|consider|explor(?:e|ing|ation)|brainstorm(?:ing)?"
    r"|pros and cons|trade-?offs?|next (?:sprint|week|time|release|quarter))\b",
    rf"i (?:do not|do{NT}) think\b",
    r"i think\b",
    r"for this (?:ticket|task|pr|branch|session|change|one)\b",
    # what lies outside the task at hand: "do not touch anything else" limits this task
    r"(?<!than )\b(?:anything|everything|nothing) else\b(?! than)",
    r"(?<!never )(?<!not )(?<!n't )(?<!n\u2019t )(?:try|trying|tried)\b",
)
META = _phrases(
    r"(?:knowledge(?: base)?|curat(?:e|ed|es|ing|ion|or)|proposals?|extract(?:ed|ing|ion)?"
    r"|skills?|documenting|document (?:this|that|it)|descriptions?)\b",
    r"(?<!release )notes?\b(?!\s+that\b)",
    tail=r"|(?:^|\s)`?/[a-z][\w-]*`?(?=[\s.,]|$)",
)
EPHEMERAL = re.compile(
    r"\b(?!(?:SHA|UTF|ISO|RFC|TLS|SSL|HTTP|PHP|ES|IPV|X)-)[A-Z][A-Z0-9]{1,9}-\d+\b"
    r"|\b(?:ticket|outage|incident|postmortem|yesterday|last (?:week|night|sprint)"
    r"|this (?:morning|week|sprint))\b|\[REDACTED\]",
)
"""Session history rather than knowledge: ticket ids, incident narrative, redacted secrets."""
CONFIRMATION = re.compile(
    r"^\s*(?:yes|yep|yeah|correct|right|exactly|good|great|agreed|indeed|precisely|perfect"
    rf"|that{APOS}?s right|that is right|ok|okay)\b\s*[.!,;:]",
    _I,
)
LEADING_MARKERS = re.compile(
    r"^(?:(?:no|yes|yep|yeah|correct|right|exactly|good|great|ok|okay|agreed|indeed|also"
    r"|precisely|perfect|note|remember|important)\s*[.,!:;]\s*)+"
    rf"|^(?:here(?: is|{APOS}s) (?:the|a|one|our) (?:\w+ )?(?:\w+ )?"
    r"(?:gotcha|rule|catch|thing|convention|trick|problem)\s*:\s*)"
    r"|^(?:the (?:\w+ )?(?:rule|convention|point|gotcha|catch|decision) (?:here )?is(?: that)?"
    r"\s*[:,]?\s*)"
    r"|^(?:(?:note|remember|keep in mind)(?: that)?\s*[:,]\s*|(?:note|remember) that\s+)"
    r"|^(?:[\w'\u2019]+ ){1,4}is that\s+"
    r"|^(?:as a rule|in general|going forward|from now on)\s*[:,]?\s*"
    rf"|^(?:we are|we{APOS}re) introducing\s+"
    r"|^(?:\\|[\u2014\u2013]+|-{2,}|={2,})(?=\s)\s*",  # a typed rule ("—— It should"), a break
    _I,
)

_IMPERATIVE_RE = re.compile(
    rf"^(?:please\s+)?(?:use|keep|store|put|prefer|run|avoid|never|always|do|do{NT})\b", _I
)
_WE_POLICY = re.compile(
    r"\bwe (?:\w+ )?(?:use|keep|store|put|run|avoid|prefer|chose|decided|never|always|only"
    rf"|do not|do{NT})\b",
    _I,
)
_TASK_VERB = re.compile(
    r"^(?:please\s+)?(?:run|rerun|re-run|check|fix|update|test|review|look|read|open|scan|grep"
    r"|search|go|start|finish|list|show|add|make|create|implement|write|build|change|rename"
    r"|remove|delete|move|refactor|translate|cover)\b",
    _I,
)
_DECIDED = (
    r"deliberate(?:ly)?\b",
    r"intentional(?:ly)?\b",
    r"on purpose\b",
    r"by design\b",
    r"the reason\b",
    r"we (?:chose|decided|picked|settled on|went with|standardi[sz]ed on)\b",
)
"""A decision said as one: on purpose, by design, for a reason, chosen by the team."""
_DECIDED_RE = _phrases(*_DECIDED)
_REPLACED = re.compile(
    r"\b(?:instead of|rather than)\s+(?:\w+ly\s+)?\w+ing\s+(?:it|them|this|that|these|those)\b",
    _I,
)
"""An alternative done to the thing shown, its object a pronoun ("instead of calling them
version 1", "instead of doing it one pattern at a time"): the behaviour this change
replaces, as a pronoun object is this output in a wish (``WANTS_THIS`` of the rules)."""
_ALTERNATIVE = (r"rather than\b", r"instead of\b")
"""A decision shown by the alternative it rules out."""
_BUILD_ORDER = re.compile(
    r"^(?:(?:please|also|and|then|now|so|ok(?:ay)?)[\s,]+)*"
    r"(?:implement|make(?! sure)|add|create|build|update|extend|modify|change)\s+"
    r"(?:(?:the|a|an|this|that|our|its|my|some|an?other|new)\s+|`)",
    _I,
)
"""An order to build or change a piece of the product ("implement a navigation stack so
that ...", "make the `git pr` command optionally take ...", "update the session start
command to ..."). The alternative it names ("... instead of a session name", "... instead
of back to the main menu") is the behaviour being replaced in this task, not a choice of
practice ruled out for good."""

_NOT_A_RULE = (
    r"(?! (?:forget|worry|bother|mind|need|have to|seem|appear|know|see|understand|care"
    r"|let me|let us)\b)"
)
"""*don't* that is not a prohibition: a reminder, a reassurance, a description."""

_DESCRIBED = "".join(
    rf"(?<!(?<!\bso )(?<!\bthat )\b{word} )"
    for word in ("they", "it", "he", "she", "these", "those", "which", "who", "things", "still")
)
"""Before *don't*, a subject it describes ("EXCEPT THEY DONT", "the cells still don't
change"): a statement of what is so, not an order. After *so* or *so that* it says what
must not happen ("move the tests so they don't enter the library")."""

_UNDER_CONDITION = (
    r"(?: (?:properly|correctly|reliably|well|at all))?"
    r" (?:with|when|if|unless|in|on|for|inside|under|without|across|behind|because|since"
    r"|after|before|until|through|over|from|against)\b"
)
"""After *doesn't work*: the condition it fails under ("`--fix` doesn't work with the
monorepo config", "won't work in CI because ..."), which makes it a gotcha. Without one
("Context does not work properly. Take a look at it and fix.") it reports the state of the
thing at hand: a bug report, not knowledge."""

SIGNALS: tuple[tuple[NoteKind, re.Pattern[str]], ...] = (
    (
        "gotcha",
        _phrases(
            r"gotchas?\b",
            r"(?<!more )careful\b",
            r"watch out\b",
            r"beware\b",
            r"pitfall",
            r"caveat",
            r"quirk",
            r"silently\b",
            r"the catch is\b",
            r"will (?:\w+ )?(?:fail|break|hide|mask|crash|lose|drop|corrupt|overwrite|skip|hang"
            r"|leak|deadlock)\b",
            r"(?:breaks|fails) (?:unless|whenever)\b",
            r"(?:breaks|fails) (?:when|if) (?:you|we|anyone|someone|a|an)\b",
            rf"(?:wo{NT}|does not|does{NT}) work{_UNDER_CONDITION}",
        ),
    ),
    ("decision", _phrases(*_DECIDED, *_ALTERNATIVE)),
    (
        "prohibition",
        _phrases(
            r"never\b(?! ?mind)",
            rf"(?<!\bi ){_DESCRIBED}(?:do not|do{NT})\b{_NOT_A_RULE}",
            rf"must(?: not|{NT})\b",
            rf"should(?: not|{NT})\b",
            r"avoid\b",
            r"not allowed\b",
            r"^no (?!(?:i|you|we|it|that|this|problem|worries|thanks|idea|way|one|the|no)\b)[\w-]+"
            r"(?: [\w-]+){0,3},? (?:only|just)\b(?! (?:no|nothing)\b)",
            r"(?:^|(?<=[,.;:!?(] )|(?<=\band )|(?<=\bbut )|(?<=\bso ))(?:there(?:'s| is) )?no need"
            r" to\b",
            r"(?:nobody|no one|no-one) (?!(?:knows|cares|noticed|asked|said|told|remembers"
            r"|understands|seems|thinks|wants|needs|reads)\b)",
            r"(?<!\b\d{3} )forbidden\b",
            r"prohibit(?:ed|ion)?\b",
            r"instead\b(?! of)",
        ),
    ),
    (
        "convention",
        _phrases(
            r"always\b",
            r"must\b(?! not)",
            r"treat(?:s|ed)?\b.{1,60}?\bas\b",
            r"belongs? (?:in|to|under)\b",
            r"owns?\b",
            r"conventions?\b",
            r"policy\b",
            r"invariant\b",
            r"we prefer\b",
            r"preferred\b",
            r"prefer\b.{1,60}?\b(?:over|to|rather than)\b",
            r"(?:as a|our|durable|general|project|house) rule\b",
            r"rule (?:is|of thumb)\b",
            r"(?:the|this|that|same) rule (?:applies|holds)\b",
            r"from now on\b",
            r"going forward\b",
            r"whenever\b",
            r"(?:every|each) time\b",
            r"after (?:adding|changing|editing|updating|modifying|touching|renaming|moving"
            r"|deleting|removing|upgrading|installing|merging|pulling|rebasing|deploying)\b",
            r"before (?:committing|pushing|merging|deploying|releasing|publishing|running)\b",
        ),
    ),
    (
        "location",
        _phrases(
            r"(?:lives?|living|located|sits?|resides?|kept|stays?|rooted)"
            r" (?:in|at|under|inside|within)\b",
            r"(?:is|are) (?:under|inside|within)\b",
            r"can be found (?:in|at|under)\b",
        ),
    ),
    (
        "feature",
        _phrases(
            r"introduc(?:e|es|ing)\s+(?:a |an |the )?(?:new )?(?-i:[A-Z`\"\u201c])",
            r"(?:feature|system|subsystem|component|service|pipeline)"
            r" (?:that|which|called|named)\b",
            r"is (?:the|our) (?:new )?(?:\w+ )?(?:feature|subsystem|pipeline)\b",
        ),
    ),
    (
        "vocabulary",
        _phrases(
            r"(?:is|are) called\b",
            r"we call\b",
            r"what we call\b",
            r"stands? for\b",
            r"refers? to\b",
            r"is (?:our|the) (?:\w+ )?(?:name|term|word) for\b",
            r"is short(?:hand)? for\b",
            r"(?:i|we) mean\b(?!,)",
            r"named system\b",
            r"(?<!\bthis )(?<!\bthat )(?<!\bwhich )(?<!\bit )means\b",
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
    text = strip_markers(text)
    if _defines_a_term(text):
        kinds.append("vocabulary")
    if _EVERY.search(text) and not _TASK_VERB.match(text):
        kinds.append("convention")
    if _BECAUSE.search(text) and (_WE_POLICY.search(text) or _IMPERATIVE_RE.match(text)):
        kinds.append("decision")
    if names_a_tool(text):
        kinds.append("tooling")
    return kinds


def _defines_a_term(text: str) -> bool:
    """True for "Rivermark Discover is our personalised front-page section" and "X = Y".

    The subject must be a quoted term or a multi-word proper name opening the sentence, and
    the complement a kind of thing a project names (a section, a system, a module ...).
    ``text`` has its leading markers stripped already.
    """
    match = _DEFINITION.match(text)
    if not match:
        return False
    subject = match.group("subject")
    return subject[0] in "\"'\u201c`" or proper_names(subject) == [subject]


def _specifies_a_change(text: str) -> bool:
    """True when the sentence's only decision is the behaviour a change replaces.

    "implement a navigation stack so that we can go back to where we were instead of back
    to the main menu" specifies the feature (an order to build, :data:`_BUILD_ORDER`); so
    does an alternative done to the thing shown ("instead of calling them version 1, ...",
    "... instead of doing it one pattern at a time": :data:`_REPLACED`). "use
    `@clack/prompts` instead of bun-promptx" and "we went with X rather than Y" still
    decide.
    """
    core = strip_markers(text)
    if _DECIDED_RE.search(core):
        return False
    return bool(_BUILD_ORDER.match(core) or _REPLACED.search(core))


_ALTERNATIVE_RE = _phrases(*_ALTERNATIVE)


def without_replaced_behaviour(text: str) -> str:
    """``text`` without the *instead of* / *rather than* of an order to build (if it is one).

    The turn-level cues (a preference, a contrast) read the sentence through this, so the
    behaviour a feature request replaces is not taken for an alternative ruled out.
    """
    if not _specifies_a_change(text):
        return text
    return _ALTERNATIVE_RE.sub(" ", text)


def teaching_kinds(text: str) -> tuple[NoteKind, ...]:
    """The kinds of teaching signal in ``text``, by precedence (empty when it teaches none).

    Map kinds (location, feature, vocabulary) count only when the sentence names something:
    a code span, a path, a quoted term or a proper name.
    """
    found = {kind for kind, pattern in SIGNALS if pattern.search(text)}
    found.update(_extra_kinds(text))
    if "decision" in found and _specifies_a_change(text):
        found.discard("decision")
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
