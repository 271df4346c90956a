"""Why a teaching moment the rules extractor found is not proposed: precision first.

:func:`refusal_reason` reads the grammar of the turn, not its topic: pasted or quoted text, the
session's own mechanics, a sentence bound to this point of the exchange, a status report, the
thing being built, thinking aloud, a task asked of the agent, a question whose asking carries
no rule, chat. :mod:`lorebook.extractors.rules` drops every moment it gives a reason for.
"""

from __future__ import annotations

import re

from lorebook.extractors.cues import (
    CONTRAST,
    COUNTERFACTUAL,
    HABIT,
    POLAR_TO_AGENT,
    POLITE_ORDER,
    PREFERENCE,
    PROHIBITIVE,
    TurnCues,
    directive,
    emphatic,
    rule_question,
)
from lorebook.extractors.pasted import log_like, printed, terminal_copy, typed_first
from lorebook.extractors.sentences import split_sentences
from lorebook.extractors.signals import QUESTION_START

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
    r"|\b(?:low|out) (?:on|of) context\b|\bcontext (?:window|was cleared)\b"
    r"|\bask(?:s|ed|ing)?(?: me)?(?: for)? (?:permission|approval|confirmation)\b"
    r"|\bask(?:s|ed|ing)?(?: me)? before (?:every|each|running|you run)\b"
    r"|\b(?:permission|approval) prompts?\b|\ballow(?:list| rules?)\b",
    re.IGNORECASE,
)
"""The session's own mechanics: a slash command named in prose ("first we need to
/compact"), compacting, the context running out, the host asking for approval ("why do
you stop and ask before every single `npm test`?": an allow rule in the host's settings
answers it). Bound to this session and its host, never a rule of the project."""


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
    r"|(?<![-\w])there\b(?![-\w'\u2019]|\s+(?:is|are|was|were|will|would|should|must|may|might"
    r"|can|could|has|have|had|seems?|isn|aren|wasn)\b)"
    r"|\bthen[.!]*$|\b(?:today|tonight|yesterday|this (?:morning|afternoon|evening|week))\b"
    r"|^(?:\w+,?\s+)?instead of (?:that|this|those|these)\b",
    re.IGNORECASE,
)
"""Words that point at this point of the exchange: *here* (this place in the flow, not
"here is/are ..."), *there* (the place just shown: "I don't want any wrong `gryad` aliases
there, remove them"; not the existential "there is/are ...", even across a line break), a
closing *either* (one more item of a one-off list), *then* opening or closing the sentence
(a consequence of what was just said), a day named from today ("Today is July 8th"), an
alternative to what was just shown ("instead of that, let's make ..."): "we don't need to
save the result here", "don't use a winget staging directory either", "okay then I don't
want the long path ellipsization then"."""


ALWAYS = re.compile(
    r"\b(?:always|never|every ?time|whenever|in general|as a rule|from now on|going forward"
    r"|by default|we use|in (?:this|our) (?:repo|repository|project|codebase|code ?base))\b",
    re.IGNORECASE,
)
"""What makes a sentence a habit: said of every time, or of the whole project, its *here*
is the project, not this moment ("We always run the tests with `uv run pytest` here, never
with bare pytest"; "dont use npm here, use pnpm in this repo")."""


NAMED_PLACE = re.compile(
    r"[\w.-]*/[\w./-]*\w|\b\w+\.(?:py|ts|tsx|js|jsx|md|mdc|json|ya?ml|toml|rs|go|sh)\b"
    r"|\b(?:folder|directory|dir|module|package|file|repo(?:sitory)?|branch|table)s?\b",
    re.IGNORECASE,
)
"""A place a sentence names: a path (``src/billing``), a file name, or a word for one."""


def _points_at_now(sentence: str) -> bool:
    """The sentence points at this point of the exchange (:data:`DEIXIS`), not a habit.

    A *there* after a place the sentence names (:data:`NAMED_PLACE`) points back at it:
    "The old `src/billing` module only keeps the API shims, so do not add code there".
    """
    found = list(DEIXIS.finditer(sentence))
    if found and all(m.group(0).casefold() in ("here", "there") for m in found):
        return not ALWAYS.search(sentence) and not all(
            m.group(0).casefold() == "there" and NAMED_PLACE.search(sentence[: m.start()])
            for m in found
        )
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
    r"\bi(?:['\u2019]d| would)? (?:do ?n['\u2019]?t |do not )?(?:want|need|like)\b[^.!?:]*?"
    r"\b(?:this|these|that|those|like so|as follows|the following)\b[^.!?:]*:\s*$",
    re.IGNORECASE,
)
"""A wish about the text the sentence introduces: it ends with a colon and points at what
follows (*this*, *like so*, *as follows*: "I dont need to know this message in the output:",
"I'd like the engines function to work like so:"), so it is about that text, as
:data:`WANTS_THIS` is about the thing just shown."""


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
    r"|\bstill (?:an? |some |the same )?(?:errors?|bugs?|issues?|problems?|failures?"
    r"|warnings?|exceptions?)\b"
    r"|\bi (?:can['\u2019]?t|cannot|am unable to)\b",
    re.IGNORECASE,
)
"""A report that the work is not right yet ("still doesn't work", "this still isn't right",
"X still has a function which will fail", "there is still an error in the logs", "I cannot
click on it"): the state of this task, not a rule."""


CHECKS_ME = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|but|also|now)[\s,]+)*(?:did|have|am|was) i\b[^?]*\?+\s*$",
    re.IGNORECASE,
)
"""The person asking the agent to check what they themselves did ("did i do this right?",
"Did I get that right?", "have I run an /export since the last compact event?"): the
turn reports the person's own steps for the agent to judge, so the teaching runs the other
way and its statements ("the only differences is that X instead of Y") are not rules."""


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


ASKED_OF_AGENT = re.compile(
    r"^(?:(?:\w+,?\s+){0,3}?(?:that\s+))?i(?:['\u2019]d| would)? (?:like|want|need) you to\b",
    re.IGNORECASE,
)
"""A task asked of the agent in the first person ("I'd like you to build some tests"):
a one-off request unless something gives it a scope beyond the task."""


_MODAL = r"(?:should(?:n['\u2019]?t| not)?|must(?:n['\u2019]?t| not)?|needs? to|has to)\b"


THING_BUILT = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|but|so|then)\s+|^when [^,]*?\s)"
    rf"(?:it|this(?: part| one)?|that(?: part| one)?|these|those)\s+{_MODAL}"
    rf"|^(?:it|this|that)\b[^,.;:]*?\b(?:and|but)\s+{_MODAL}",
    re.IGNORECASE,
)
"""A modal whose subject is *it*, *this (part)* or *these*: the thing being discussed or built
in this task ("the history input currently replaces the prompt ..., it shouldn't", "it should
support multiple task backends", "this part should refer to versions", "implement simple
functions ... These should have extensive docstrings"). It specifies that
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


FRENCH_PUSHES_BACK = re.compile(
    r"\bpourquoi (?:tu|vous)\b.*\?|\bencore\b.*(?:[?!]{2,})", re.IGNORECASE
)
"""A French correction of what the agent did: a question at its conduct ("pourquoi tu m'en
parles alors ??") or an exasperated *encore* ("il est encore référencé ???!")."""


def refusal_reason(cues: TurnCues, main: str, text: str = "", at: int = 0) -> str | None:
    """Why a moment whose main sentence is ``main`` is not proposed, or None if it may be.

    Precision comes first: a proposal a person has to reject costs more than a rule the
    LLM extractor would find. The reasons are the grammar of the turn, not its topic:

    - ``pasted``: under a third of the turn's words are typed prose, the turn opens with a
      shell prompt, or it reads as a program's log, whatever its language, and the sentence
      is not the first line the person typed above it (:mod:`lorebook.extractors.pasted`);
    - ``pasted`` too: the sentence's first line is a line of source code (:data:`CODE_LINE`),
      so the rest was copied with it, or it is a console's message
      (:func:`~lorebook.extractors.pasted.printed`);
    - ``quoted``: the sentence (at offset ``at`` of the turn's ``text``) comes after a line
      that introduces something to read ("Fix this bug...", "I get this error:", "the
      following work:", "the entry is pasted below") and a blank line: it is the quoted
      report, not the person's words;
    - ``checks me``: the turn asks whether the person did right (:data:`CHECKS_ME`);
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
    if any(CHECKS_ME.match(s.text.strip()) for s in cues.sentences):
        return "checks me"
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
    if cues.pasted or (log_like(text) and not typed_first(text, at)) or terminal_copy(text, at):
        return "pasted"
    intro = QUOTE_INTRO.search(text)
    if intro is not None and at >= intro.end():
        return "quoted"
    if CODE_LINE.match(main):
        return "pasted"
    start = text.find(main.split("\n", 1)[0], at)
    return "pasted" if printed(text, at if start < 0 else start) else None


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
    """The sentence opens as a question, whatever it ends on and whatever leads it in.

    A discourse marker or a condition may come first: "If you have to use the Add Series
    page, will you be able to use the existing setup." asks.

    "For example, would it make sense to say, in the phase II rule, that the AI should wear
    the hats of:" asks; its question mark comes after the list it introduces.
    """
    opening = DISCOURSE_MARKER.sub("", sentence, count=1)
    return bool(
        QUESTION_START.match(opening)
        or QUESTION_START.match(_LEADING_CONDITION.sub("", opening, count=1))
    )


_LEADING_CONDITION = re.compile(r"^(?:if|when|once|before|after|since)\b[^,;.?!]{1,120},\s*", re.I)
"""A condition opening a sentence: what follows it is its main clause ("If you have to use
the Add Series page, will you be able to ...": a question, with or without its mark)."""


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
