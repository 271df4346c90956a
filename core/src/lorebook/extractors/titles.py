"""A candidate's title and description, made from its main sentence.

:func:`rule_title` states the rule (:mod:`lorebook.extractors.statement`) after fixing the
typos that are certain (:mod:`lorebook.extractors.typos`); :func:`make_title` cuts the sentence
itself when no rule is stated.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from lorebook.extract.base import normalise
from lorebook.extractors.discourse import calm
from lorebook.extractors.signals import NT, strip_markers
from lorebook.extractors.statement import CONDITION, GIVEN, state_rule
from lorebook.extractors.terms import paths
from lorebook.extractors.typos import fix_typos
from lorebook.extractors.words import FUNCTION_WORDS, STATIVE, capital, without_dangling
from lorebook.models.session import LoggedTurn

MAX_TITLE_WORDS = 12


MAX_LEAD_IN = 5
"""A title skips a lead-in this short before a colon ("The seams are deliberate: ...")."""


MAX_DESCRIPTION = 240


_CLAUSE = re.compile(r"[,;:]\s|\s[\u2014\u2013-]\s")


_TRAILING = re.compile(r"[\s.,;:!]+$")


def make_title(sentence: str) -> str:
    """A title of at most ~12 words from a sentence, its leading markers and code ticks gone.

    A short lead-in before a colon is skipped; a long sentence is cut at its first clause
    boundary (its second when it opens on a condition: "When X, do Y") when that leaves 3 to
    12 words, else after 12 words, without a dangling function
    word ("... the approach that", "... into two rows and"), and marked cut with "…".
    """
    text = normalise(strip_markers(sentence))
    head, colon, tail = text.partition(": ")
    if colon and len(head.split(" ")) <= MAX_LEAD_IN and len(tail.split(" ")) >= 3:
        text = tail
    code_first = text.startswith("`")
    text = text.replace("`", "")
    words = text.split(" ")
    if len(words) > MAX_TITLE_WORDS:
        clauses = list(_CLAUSE.finditer(text))
        if CONDITION.match(text) or GIVEN.match(text):
            clauses = clauses[1:]  # "Whenever you create a list, ...": the rule is what follows
        head = text[: clauses[0].start()] if clauses else ""
        if clauses and 3 <= len(head.split(" ")) <= MAX_TITLE_WORDS:
            text = head
        else:
            kept = without_dangling(words[:MAX_TITLE_WORDS], keep=3)
            text = f"{_TRAILING.sub('', ' '.join(kept))} \u2026"
    text = _TRAILING.sub("", text)
    return text if code_first else capital(text)


def make_description(sentence: str) -> str:
    """A one-line description: the main sentence without its markers, cut at a word."""
    text = normalise(strip_markers(sentence))
    if len(text) > MAX_DESCRIPTION:
        text = text[:MAX_DESCRIPTION].rsplit(" ", 1)[0] + " …"
    return capital(text)


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
    (:func:`~lorebook.extractors.typos.fix_typos`), shouting and swearing taken out
    (:func:`~lorebook.extractors.discourse.calm`), a question at the agent's conduct read as
    the rule it carries (:func:`asked_conduct`), a suggestion put as a question read as what
    it suggests (:func:`asked_suggestion`), the discourse around the rule dropped
    and its phrasing made an imperative (:func:`~lorebook.extractors.statement.state_rule`);
    :func:`make_title` of the corrected sentence when no sentence states a rule.
    """
    known = words or Counter()
    fixed = calm(fix_typos(strip_markers(sentence), known))
    fixed = asked_conduct(fixed, known) or asked_suggestion(fixed, known) or fixed
    return placed(state_rule(fixed) or make_title(fixed), fixed)


_THERE = re.compile(
    r"\b(?:in )?there\b(?! (?:is|are|was|were|will|would|should|must|may|might|can|could|has|"
    r"have|had|seems?|appears?)\b)(?!['\u2019]s)",
    re.IGNORECASE,
)
"""*There* as a place ("do not add code there"), not the *there* of "there is"."""


def placed(title: str, sentence: str) -> str:
    """``title`` with a *there* it keeps turned into the one place its sentence names.

    "The old `src/billing` module only keeps the API shims, so do not add code there" is
    titled "Do not add code there" once the reason is dropped; the sentence names one path,
    so the title says "Do not add code in src/billing". With no path, or several, the title
    is left as it is.
    """
    there = _THERE.search(title)
    named = paths(sentence) if there else []
    if there is None or len(named) != 1 or named[0] in title:
        return title
    return f"{title[: there.start()]}in {named[0]}{title[there.end() :]}"


_WHY_DOING = re.compile(
    r"^why (?:are|were) you (?:still |even |now |always |again )?(?P<verb>[a-z]{3,}ing)\b"
    r"(?P<rest>[^?]*)\?+$",
    re.IGNORECASE,
)
_WHY_DID = re.compile(
    r"^why (?:did|do) you (?:still |even |now |always |again )?(?:(?:have|need) to )?"
    r"(?P<verb>[a-z]+)\b(?P<rest>[^?]*)\?+$",
    re.IGNORECASE,
)


def asked_conduct(sentence: str, known: Counter[str]) -> str:
    """The rule a question at the agent's conduct carries, or "".

    "Why are you checking IP at all before connecting?" asks the agent to stop: "Don't check
    IP at all before connecting". So do "why did you ...?" and "why do you (have to) ...?"
    about an action. The verb's plain form is the one the session's agent text uses
    (``known``): "checking" is "check", "making" "make", "running" "run"; a question whose
    verb is a verb of mind ("why do you think ...?") or whose plain form the agent never
    wrote is left as it is ("").
    """
    text = sentence.strip()
    doing = _WHY_DOING.match(text)
    if doing:
        verb = _plain(doing.group("verb").lower(), known)
        rest = doing.group("rest")
    else:
        did = _WHY_DID.match(text)
        if did is None or did.group("verb").lower() in STATIVE | FUNCTION_WORDS:
            return ""
        verb, rest = did.group("verb").lower(), did.group("rest")
    if not verb or verb in STATIVE:
        return ""
    return f"Don't {verb}{rest.rstrip()}"


_SUGGEST = re.compile(
    rf"^(?:ca{NT}|cannot|can|could(?:{NT})?|would(?:{NT})?|will|wo{NT}"
    rf"|why (?:not|do{NT} (?:you|we))(?= \w+ \w))(?: (?:you|we))? (?:just |simply |also )?"
    r"(?P<verb>[a-z]+)\b(?P<rest>[^?]*)\?+$",
    re.IGNORECASE,
)
_SHOULD_NOT = re.compile(
    rf"^(?:should{NT}|should not) (?P<subject>(?:the|this|that|these|those|our|it)\b[^?]*?)"
    r"\s+(?P<verb>be|go|live|stay|use|have)\b(?P<rest>[^?]*)\?+$",
    re.IGNORECASE,
)
_TAG = re.compile(
    rf",\s*(?:right|no|yes|correct|ok(?:ay)?|is{NT} it|do{NT} you think)\s*\?+$", re.I
)


def asked_suggestion(sentence: str, known: Counter[str]) -> str:
    """What a suggestion put as a question suggests, or "".

    "Can't we make the latest python a dependency?" suggests "Make the latest python a
    dependency"; so do "could you ...?", "why not ...?" (its verb one the session's agent
    text uses: ``known``; not a verb of mind, "can you think of ...?", nor one addressed to
    the person, "could you tell me ...?": those ask). "Shouldn't that be in docs?" says
    "That should be in docs"; "We can drop the comment, right?" says "We can drop the
    comment". Any other question is left as it is ("").
    """
    text = sentence.strip()
    tagged = _TAG.search(text)
    if tagged and not text.lower().startswith(("why", "how", "what", "where", "when", "which")):
        return text[: tagged.start()].rstrip()
    should = _SHOULD_NOT.match(text)
    if should:
        subject = should.group("subject")
        return f"{capital(subject)} should {should.group('verb')}{should.group('rest').rstrip()}"
    suggested = _SUGGEST.match(text)
    if suggested is None:
        return ""
    verb = suggested.group("verb").lower()
    rest = suggested.group("rest")
    if verb in STATIVE | FUNCTION_WORDS or not known.get(verb) or len(verb) < 3:
        return ""
    if re.match(r"\s+(?:me|us)\b", rest, re.IGNORECASE):
        return ""  # "could you tell me ...?", "can you show us ...?": asks the person something
    return f"{capital(verb)}{rest.rstrip()}"


def _plain(ing: str, known: Counter[str]) -> str:
    """The plain form of an ``-ing`` verb the agent's text uses ("making": "make"), or ""."""
    stem = ing[: -len("ing")]
    forms = [stem + "e", stem]
    if len(stem) > 2 and stem[-1] == stem[-2]:
        forms.append(stem[:-1])  # "running": "run"
    return next((form for form in forms if known.get(form)), "")
