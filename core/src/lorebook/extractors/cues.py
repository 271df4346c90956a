"""How a human turn reads: its mood, its polarity, its scope, and what it answers.

These are properties of how people address an agent, read from grammar rather than from
topic words: a sentence in the imperative or with a deontic modal (*should*, *must*, *need
to*) directs; a negated one prohibits; a yes/no question whose auxiliary is negated
(*shouldn't we*, *doesn't git have*) or that ends on a tag (*..., right?*) carries the rule
it asks about; a preference is stated in the first person (*I'd rather*, *I want*, *I
don't want*); emphasis is punctuation and capitals; a reason is a subordinate clause
(*because*, *since*, *so that*). The agent's turn before it says whether the human is
answering an action (a tool call) and whether that action was refused or interrupted.

:mod:`lorebook.extractors.preselect` reads these cues loosely (could this turn teach?);
:mod:`lorebook.extractors.rules` reads them strictly (does it?). Each function is a pure
function of its text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lorebook.extractors.sentences import (
    Sentence,
    is_envelope,
    split_sentences,
    without_host_prompts,
)
from lorebook.extractors.signals import APOS as _APOS, LET_US, without_replaced_behaviour
from lorebook.models.session import LoggedTurn

_I = re.IGNORECASE
_NEG = rf"(?:n{_APOS}?t|not)"
_AUX = r"(?:should|could|can|ca|would|wo|will|did|do|does|is|are|was|were|have|has|must|may)"
_SUBJECT = r"(?:we|i|you|it|that|this|there|they|git|the\s+\w+|\w+)"

NEGATIVE_QUESTION = re.compile(
    rf"^(?:\w+,?\s+){{0,3}}?(?:{_AUX}{_NEG}\s+{_SUBJECT}|{_AUX}\s+{_SUBJECT}\s+not"
    rf"|why\s+not|why\s+(?:are|is)\s+you|why\s+(?:don{_APOS}?t|didn{_APOS}?t)\b)",
    _I,
)
"""A yes/no question with a negated auxiliary ("shouldn't we", "doesn't git have"), or one
at what the agent is doing right now ("why are you trying to cd to my home?": stop it).
"Why did you ...?" and "why do you ...?" ask for a reason ("why do you show a background
task is running?"): no rule."""
TAG_QUESTION = re.compile(rf"[,.]\s*(?:right|correct|no|isn{_APOS}?t it|ok|yes)\s*\?+\s*$", _I)
"""A statement asking for agreement: "..., right?"."""
MODAL_QUESTION = re.compile(r"^(?:\w+,?\s+){0,2}?(?:should|must)\s+\S", _I)
"""A question about what ought to be ("should `x` be in tasks?")."""
ADVICE_ASKED = re.compile(
    r"^(?:\w+,?\s+){0,2}?(?:should|must)\s+(?:i|it|this|that|we|the|these|those|there|my|our)\b",
    _I,
)
"""A modal question about the person's own step ("Should I have a separate key for each
environment?"), ours ("Should we be using cursor?") or the thing at hand ("should the dns
entries have proxy mode disabled?"): it asks for advice. About a named thing ("should
`resolveRepoPath` be in tasks?"), what you ought to do, or naming the alternative it rules
out ("should I be creating a secret key for this instead?"), it carries a rule."""
POLITE_ORDER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|also|and|now|then|great|looks good|sounds good|yes|yep)[\s,.!]+)*"
    r"(?:can|could|would|will) you (?:please )?(?:update|add|change|make|write|create|set up"
    r"|adjust|record|put|move|rename|remove|keep|ensure|convert|turn)\b",
    _I,
)
"""An order put as a question: "Can you update the cursor rule to ...?", "could you please
add ...?". Not a request for information ("can you explain ...?", "can you check ...?")."""
BOTH_WAYS = re.compile(r"\bwhy or why not\b", _I)
"""Asking for the reasons for and against: not the rule-carrying "why not?"."""
INFO_QUESTION = re.compile(
    r"^(?:\w+,?\s+){0,2}?(?:what|how|where|which|when|who|explain|tell me|can you explain)\b", _I
)
"""A request for information: "what is", "how does", "explain"."""

DEONTIC = re.compile(
    r"\b(?:should(?:n['\u2019]?t| not)?|must(?:n['\u2019]?t| not)?|need(?:s)? to|have to|has to"
    r"|ought to|supposed to|(?:is|are) (?:not )?(?:allowed|meant) to|make sure|ensure)\b",
    _I,
)
"""Modal verbs of obligation and permission."""
_PARTICIPLE = (
    r"(?:\w+ly\s+)?(?:\w{2,}(?:ed|en|wn)|been|done|made|had|gone|seen|run|put|set|read|let"
    r"|kept|left|said|told|got|brought|built|bought|caught|taught|thought|sent|spent|found"
    r"|held|meant|lost|paid|stood|understood|begun|become|come|hit|cut|shut|split|spread)\b"
)
COUNTERFACTUAL = re.compile(
    rf"\b(?:should|shouldn{_APOS}?t|should not|must|could)(?: not)? (?:have|{_APOS}ve)"
    rf"\s+{_PARTICIPLE}",
    _I,
)
"""What ought to have happened and did not, a perfect infinitive: "you should have
addressed the warning". *Have* followed by a thing is possession, said of what is being
built ("it should have full menus for batch management"), not a counterfactual."""
POLAR_TO_AGENT = re.compile(r"^(?:\w+,?\s+){0,3}?(?:did|have|has|were|are|will)\s+(?:you|we)\b", _I)
"""A yes/no question about what the agent (or "we") did: "did you gather requirements?"."""
ACCUSING = re.compile(
    rf"\b(?:why|how|what) (?:(?:the \w+ )?(?:are|did|were|do) you|{_APOS}re you)\b"
    r"(?! (?:think|recommend|suggest|propose|advise|prefer|reckon|feel|see as|make of)\b)",
    _I,
)
"""A question at the agent's own conduct: "why are you ...", "how did you verify ...?!" (a
correction when it presses: :data:`PRESSED`). Not one asking for its opinion or advice
("What do you think?", "what do you recommend and why?"): that asks, it does not push
back."""
PRESSED = re.compile(
    rf"(?:\?!|!\?|\?\?)\s*$|\b(?:are|were) you\b|{_APOS}re you\b"
    r"|\b(?:keep|even|still|again|have to|need to|always)\b|\bthe (?:hell|heck|fuck)\b",
    _I,
)
"""What makes a question at the agent's conduct push back, not ask for a reason: it is
about what the agent is doing now ("why are you ..."), it presses ("?!", "??", "what the
hell did you ..."), or it finds the conduct persistent or needless ("why do you keep ...",
"why did you even ...", "why do you have to ..."). "Why did you get rid of the calls?" and
"how did you verify this?" alone ask."""
NAMES_NO_ACT = re.compile(
    r"^\W*(?:\w+\W+){0,2}?what (?:the \w+ )?(?:are|were|did|have) you"
    r"(?:\W+(?:and\W+)?(?:do|doing|done|here|now|there|again|even))+\W*$",
    _I,
)
"""An accusation that names no act ("What the fuck are you doing and doing?"): on its own
it states nothing to stop; with other sentences it is the correction they spell out."""
PROHIBITIVE = re.compile(
    rf"(?:^|[.!?;:,]\s+|\b(?:please|and|but|so|just)\s+)(?:do{_NEG}|don{_APOS}?t|never|stop|avoid"
    rf"|no more)\b|\b(?:never|shouldn{_APOS}?t|mustn{_APOS}?t|should not|must not"
    rf"|(?:you|we) (?:do{_NEG}|don{_APOS}?t) (?:need|want|have) to)\b",
    _I,
)
"""A prohibition: a negated imperative or a negated modal."""
PREFERENCE = re.compile(
    rf"\bi(?:{_APOS}d| would)? (?:rather|prefer)\b"
    rf"|\bi (?:do{_NEG} |don{_APOS}?t )?want\b|\bi(?:{_APOS}d| would) like\b(?! (?:it|this|that)\b)"
    rf"|\bi (?:will not|won{_APOS}?t|do{_NEG}|don{_APOS}?t) let you\b"
    rf"|\b(?:i|we) (?:do{_NEG}|don{_APOS}?t) need\b"
    rf"|\b(?:is|are) (?:preferred|preferable)\b|\b(?:instead of|rather than)\b"
    rf"|\bi(?:{_APOS}m| am) (?:\w+ ){{0,2}}"
    r"(?:afraid|worried|paranoid|nervous|uncomfortable|scared)\b"
    r"|\b(?:is|are) (?:\w+ )?(?:important|essential|crucial) to (?:me|us)\b"
    r"|\bmatters? (?:a lot |most )?to (?:me|us)\b",
    _I,
)
"""A preference in the first person ("I'd rather ...", "X is very important to me")."""
HABIT = re.compile(
    rf"\b(?:always|never|every ?time|whenever|in general|as a rule|from now on|going forward"
    rf"|(?:you|we) keep|again|still|each time|last time|by default|in this project"
    rf"|our (?:rule|convention|process)"
    rf"|we(?:{_APOS}re| are) using|we use)\b",
    _I,
)
"""Scope beyond the task: a habit, a standing rule, a repeated correction."""
QUANTIFIED = re.compile(
    r"(?:^|[.;:,\u2014]\s+|\b(?:and|so|but)\s+)(?:any|every|each|all)\s+"
    r"(?!(?:of|these|those|this|that|the|my|your|it|them)\b)\w+[^.;?!]{0,80}?"
    r"\b(?:has to|have to|must|should|needs? to)\b",
    _I,
)
"""A rule for every thing of a kind: a quantified subject under a modal of obligation ("any
buffer a DMA stream reads has to be declared with ...", "every migration must ..."), a scope
beyond the task as a habit is; not one for the things at hand ("all of these need to")."""
ONE_OFF = re.compile(
    rf"\b(?:go ahead|{LET_US} (?:do|go|move|get|try|continue|proceed)|proceed"
    r"|for now|this time|not yet|yet|(?<!from )now\b(?! on)|at the moment|in the meantime"
    r"|we(?: have)? agreed|(?:our|the) plan|(?:this|our) session)\b",
    _I,
)
"""Scope bound to the task at hand: its moment ("now", "for now", "not yet"), a go-ahead, or
the session's own plan ("we agreed", "our plan", "this session")."""
REQUEST = re.compile(
    rf"\bi(?:{_APOS}d| would)? (?:like|want) (?:to|for you to"
    r"|your (?:help|input|thoughts|take|advice|opinion|feedback|review))\b",
    _I,
)
"""A task asked for in the first person ("I'd like to publish it", "I want to use it on my
laptop"), or the agent's help asked for ("I'd like your help planning a new feature", "I'd
like for you to read through ..."): a request, not a preference, unless something gives it
a scope beyond the task. ("I'd like you to ..." is read as a request where the turn's rule is
chosen: ``ASKED_OF_AGENT`` of the rules.)"""
OBSERVATION = re.compile(
    rf"\bi(?:{_APOS}ve| have)? (?:saw|noticed|found|read|came across|stumbled|heard"
    r"|checked|looked)\b(?! (?:that )?you\b)",
    _I,
)
"""The human reporting what they found while exploring ("I saw there is ...", "I've checked
the README"): an observation, not a rule."""
GENUINE = re.compile(
    rf"^(?:if so|if not|if yes|if no|if that{_APOS}?s (?:the case|true|right|correct)"
    r"|if that is (?:the case|true|right|correct))\b",
    _I,
)
"""A sentence conditional on the answer to the question before it ("If so, I can ..."): the
question asks what the human does not know, so it carries no rule."""
PAST_EVENT_QUESTION = re.compile(
    rf"^(?:(?:\w+,|and|but|so|or|also|then)\s+){{0,2}}(?:did|was|were|had){_NEG}?\s+"
    r"(?!(?:you|we|i)\b)\w",
    _I,
)
"""A question about what happened ("Didn't this run in the hook?", "Was it cached?"), not
about what the agent did or what ought to be."""
NOUN_MEANS = re.compile(r"\b(?:a|the|are|is|by|no|any|all|some|as|of|other)\s+means\b", _I)
"""*means* as a noun ("a means to an end", "by all means"), not a definition."""
CONTRAST = re.compile(
    r",\s*(?:but\s+|and\s+)?not\s+(?:the\s+|a\s+|an\s+)?\w+|\b(?:specifically|instead|rather than"
    r"|only)\b",
    _I,
)
"""A choice stated against its alternative: "X, not Y", "instead", "only"."""
CODIFY = re.compile(
    r"\b(?:rules?|conventions?|guidelines?|guidance|policy|process|memory|CLAUDE\.md|AGENTS\.md)\b"
    r"|\.mdc\b",
    _I,
)
"""Talk about the project's written rules: asking to record or follow one."""
CITES = re.compile(
    r"\(see\b|\bsee <|<[a-z][a-z0-9]*(?:_[a-z0-9]+)+>"
    r"|\b(?:per|as in|according to|follow(?:ing)?) (?:the |our )?"
    r"(?:CLAUDE\.md|AGENTS\.md|rules?|guidelines?|conventions?|process|instructions)\b",
    _I,
)
"""Pointing the agent at the project's written instructions: "(see <git_workflow>!)"."""
AGENCY = re.compile(r"\b(?:yourself|your own)\b", _I)
"""Who is to act: "do it yourself"."""
HEDGE = re.compile(
    r"\b(?:maybe|perhaps|might|not sure|unsure|i wonder|wondering|contemplating|i guess"
    r"|i suppose|what do you think|or did i|did i misunderstand|if so)\b",
    _I,
)
"""Thinking aloud rather than teaching: "I'm not sure", "maybe", "what do you think"."""
REASON = re.compile(r"\b(?:because|since|so that|otherwise|the reason)\b|\s--\s", _I)
DEFINITION = re.compile(
    r"\b(?:means|(?<!am )(?<!was )i meant|by \S+ i mean|is called|stands for|refers to"
    r"|is (?:our|the) (?:\w+ )?(?:name|term|word) for|(?:is|are) represented by"
    r"|represented (?:in|by|as))\b",
    _I,
)
SELF_REPAIR = re.compile(
    r"\bi (?:mistakenly |accidentally |wrongly )?(?:said|wrote|typed|put)\b"
    r"|\b(?:mistakenly|by mistake|my (?:mistake|bad)|typo)\b"
    r"|^\W*(?:(?:no|not|nope|sorry|oh|ah|ok|okay|well|yes)\W+)*i meant\b",
    _I,
)
"""The person correcting their own words ("sorry I mistakenly said 'on' green red, I meant
...", "I meant: do uv pip install ...", "I meant LangChain/LangGraph."): *I meant* there
repairs an instruction, it does not define a term: no term stands before it. A definition
names the term first ("by memory I meant ...", "when I said X I meant Y"); "am I meant to"
(what is expected of someone) is no definition either (:data:`DEFINITION`)."""
_CAPS = re.compile(r"(?:\b(?P<before>[A-Za-z]+)\s+)?\b(?P<word>[A-Z]{2,})\b(?!-)")
_SHOUTED = frozenset(
    {"you", "me", "we", "us", "i", "it", "not", "no", "never", "always", "yet", "now", "so"}
    | {"do", "don", "dont", "stop", "wait", "must", "all", "this", "that", "is", "are", "be"}
)
"""Function words that, in capitals, can only be emphasis ("I want YOU to", "NOT yet")."""
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "our", "your", "my", "its", "their"})
_ACK = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|yep|yeah|sure|no|good|great|fine|cool|thanks?|thank you|thanx|thx"
    r"|please|pls|perfect|nice|right|correct|agreed|done|retry|continue|proceed|go(?: ahead)?"
    rf"|{LET_US}(?: go| do (?:it|that|this)| proceed| continue)?|do (?:it|that|this)"
    r"|try again|again|sounds good|looks good|lgtm|ship it|\d{1,2}|and|so|then|now|that|it)"
    r"[\s.,!:;)-]*)+$",
    _I,
)
"""A turn made only of acknowledgements and go-aheads ("OK", "yes, go ahead", "1")."""
REFUSAL = re.compile(
    r"(?:tell \w+ what to do differently|user rejected|interrupted by user|request interrupted"
    r"|rejected by (?:the )?user|declined|cancel(?:l)?ed by (?:the )?user)",
    _I,
)
"""How a harness records that the human refused or stopped the agent's action."""


@dataclass(frozen=True, slots=True)
class TurnCues:
    """What a human turn's prose says about it, and what it answers."""

    sentences: tuple[Sentence, ...]
    prose_words: int
    words: int
    slash: bool
    bare: bool
    memory: bool
    after_action: bool
    after_refusal: bool
    emphatic: bool
    rule_question: bool
    info_question: bool
    directive: bool
    preference: bool
    habit: bool
    one_off: bool
    reason: bool
    definition: bool
    contrast: bool
    codify: bool
    agency: bool
    counterfactual: bool
    cites: bool
    checks_agent: bool
    accuses: bool

    @property
    def pasted(self) -> bool:
        """Mostly pasted output: under a third of its words are prose."""
        return self.prose_words * 3 < self.words


EXCLAIMED_STATE = re.compile(
    r"^(?:(?:wow|great|nice|awesome|yay|cool|good|perfect|excellent|thanks|thank you)\b"
    r"|(?:we|it|that|this|these|those|they|everything|all)(?:'re|'s| is| are| was| were| now)\b"
    r"|\d+(?:/\d+)? (?:\w+ )?(?:now )?(?:pass|passing|work|working|left|fixed)\b)",
    _I,
)
"""An exclamation about how things stand ("We're getting closer!", "17/65 tests now pass!",
"Great!"): joy or relief; the emphasis, if any, is not on a rule."""


def emphatic(text: str) -> bool:
    """An exclamation, ``?!``, or a word in capitals used for emphasis, not as a name.

    A function word in capitals is emphasis; so is a longer word in capitals that no
    determiner introduces ("ULTRATHINK", not "the README").
    """
    if "!" in text:
        return True
    for match in _CAPS.finditer(text):
        word, before = match.group("word"), (match.group("before") or "").lower()
        if word.lower() in _SHOUTED or (len(word) >= 6 and before not in _DETERMINERS):
            return True
    return False


def rule_question(sentence: str) -> bool:
    """A question carrying a rule: negated auxiliary, a tag, or a modal of obligation.

    Without a question mark only a sentence that opens with the negated auxiliary counts
    ("doesn't git have `mv`"), so "I don't understand" is not a question. A modal question
    about the person's own step or the thing at hand asks for advice (:data:`ADVICE_ASKED`)
    unless it names the alternative it rules out. Asking for the reasons both ways ("why or
    why not?") is not "why not?".
    """
    sentence = BOTH_WAYS.sub(" ", sentence).strip()
    if re.search(r"\bwhy not\b", sentence, _I):
        return True
    if not sentence.rstrip().endswith("?"):
        return bool(re.match(rf"{_AUX}{_NEG}\s+{_SUBJECT}\b", sentence, _I))
    return bool(
        NEGATIVE_QUESTION.match(sentence)
        or TAG_QUESTION.search(sentence)
        or (MODAL_QUESTION.match(sentence) and not ADVICE_ASKED.match(sentence))
        or (MODAL_QUESTION.match(sentence) and CONTRAST.search(sentence))
    )


def habitual(sentence: str) -> bool:
    """A scope beyond the task: a habit or standing rule, or a rule for every thing of a kind."""
    return bool(HABIT.search(sentence) or QUANTIFIED.search(sentence))


def directive(sentence: str) -> bool:
    """A sentence that directs: a deontic modal or a prohibition.

    Statements only, and orders put politely as a question ("Can you update the rule to
    make sure that a task file is created each time ...?", :data:`POLITE_ORDER`): asking
    whether the agent can is asking it to.
    """
    if sentence.rstrip().endswith("?") and not POLITE_ORDER.match(sentence):
        return False
    if PROHIBITIVE.search(sentence):
        return True
    return any(not _embedded(sentence, m.start()) for m in DEONTIC.finditer(sentence))


_ASKED_BEFORE = re.compile(
    r"\b(?:what|whatever|whether|which(?! means| is why))\s+(?:[\w'-]+\s+){0,4}$", _I
)
"""A question word a few words before a modal: the modal is inside a question the sentence
asks or reports ("walk me through what we need to do", "tell me which of these files you
should change"), not an obligation it states. A *which* that opens a relative clause of
consequence ("..., which means you must ...") directs."""
_CLEFT = re.compile(r"\s(?:is|are|was)\s", _I)


def _embedded(sentence: str, at: int) -> bool:
    """The modal at offset ``at`` is in an embedded question, not a pseudo-cleft.

    "What you should do is run the tests first." states the obligation: its clause is the
    subject of "is".
    """
    return bool(_ASKED_BEFORE.search(sentence[max(0, at - 40) : at])) and not _CLEFT.search(
        sentence[at:]
    )


def _answered(turns: Sequence[LoggedTurn], position: int) -> list[LoggedTurn]:
    """The agent's turns between the previous human turn and the one at ``position``."""
    answered: list[LoggedTurn] = []
    for turn in reversed(turns[:position]):
        if turn.role in ("user", "summary"):
            break
        answered.append(turn)
    answered.reverse()
    return answered


def _refused(turns: Sequence[LoggedTurn]) -> bool:
    """True when the last action of these agent turns was refused or interrupted."""
    for turn in reversed(turns):
        for call in reversed(turn.tool_calls):
            return bool(REFUSAL.search(call.result_excerpt or ""))
        if REFUSAL.search(turn.text[-300:]):
            return True
    return False


def read_turn(turns: Sequence[LoggedTurn], position: int) -> TurnCues:
    """Read the human turn at ``position`` of ``turns`` with the agent turns it answers.

    What the host wrote in the person's name (:data:`~lorebook.extractors.sentences.HOST_PROMPTS`)
    is not read.
    """
    text = without_host_prompts(turns[position].text)
    sentences = tuple(split_sentences(text))
    prose = [s.text for s in sentences]
    plain = [without_replaced_behaviour(s) for s in prose]
    answered = _answered(turns, position)
    stripped = text.strip()
    return TurnCues(
        sentences=sentences,
        prose_words=sum(len(s.split()) for s in prose),
        words=len(text.split()),
        slash=stripped.startswith("/") or is_envelope(text),
        bare=bool(_ACK.match(stripped)),
        memory=stripped.startswith("#") and not stripped.startswith("##") and "\n" not in stripped,
        after_action=any(turn.tool_calls for turn in answered[-3:]),
        after_refusal=_refused(answered),
        emphatic=any(emphatic(s) for s in prose),
        rule_question=any(rule_question(s) for s in prose),
        info_question=bool(prose) and all(INFO_QUESTION.match(s) for s in prose),
        directive=any(directive(s) for s in prose),
        preference=any(PREFERENCE.search(s) for s in plain),
        habit=any(habitual(s) for s in prose),
        one_off=any(ONE_OFF.search(s) for s in prose),
        reason=any(REASON.search(s) for s in prose),
        definition=any(DEFINITION.search(s) and not SELF_REPAIR.search(s) for s in prose),
        contrast=any(CONTRAST.search(s) for s in plain),
        codify=any(CODIFY.search(s) for s in prose),
        agency=any(AGENCY.search(s) for s in prose),
        counterfactual=any(COUNTERFACTUAL.search(s) for s in prose),
        cites=any(CITES.search(s) for s in prose),
        checks_agent=any(s.endswith("?") and POLAR_TO_AGENT.match(s) for s in prose),
        accuses=any(
            s.endswith(("?", "?!", "!?"))
            and ACCUSING.search(s)
            and PRESSED.search(s)
            and (len(prose) > 1 or not NAMES_NO_ACT.match(s))
            for s in prose
        ),
    )
