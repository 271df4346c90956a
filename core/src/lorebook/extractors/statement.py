"""A note states the rule: a short title in the person's meaning, an id without typos or filler.

People teach an agent in passing: "Sorry for interrupting, but we never commit straight to
main." The quote keeps those words as evidence; the title is the rule ("Never commit straight
to main"). Three functions, each a pure function of its text, explain what they do by grammar
rather than by topic words:

- :func:`~lorebook.extractors.typos.fix_typos` corrects a word only when the correction is
  certain: the word is not in the vocabulary the caller passes (the words of the session's
  agent text and the project), it is neither code nor a name, and exactly one vocabulary word
  seen at least twice is one slip of the fingers away.
- :func:`state_rule` (this module) drops the discourse around a rule (apologies, "ok so",
  "I think", "please", thanks, emoji: :mod:`lorebook.extractors.discourse`), picks the
  sentence that carries it, turns "you should"/"we don't"/"I prefer" into an imperative, and
  cuts it at a clause. It returns "" when no sentence states a rule ("I disagree.", "Stop
  there.") so the caller can refuse the note.
- :func:`~lorebook.extractors.words.rule_slug_words` keeps the content words of a title for
  an id or file name.

The extractor composes them: ``title = state_rule(fix_typos(quote, vocabulary))`` and
``slugify(rule_slug_words(title))``. They read English; a turn in another language is not
judged (see :func:`state_rule`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lorebook.extractors.asked import ASKS, question_rule, untagged
from lorebook.extractors.discourse import CODE_SPAN, TRAIL, strip_discourse, tidy_sentence
from lorebook.extractors.sentences import split_sentences
from lorebook.extractors.signals import LET_US
from lorebook.extractors.wishes import wish_rule
from lorebook.extractors.words import (
    DANGLING,
    FUNCTION_WORDS,
    IRREGULAR_PAST,
    NEGATIONS,
    STATIVE,
    ascii_words,
    capital,
    content_words,
    without_dangling,
    word_set,
)

MAX_RULE = 80
"""A stated rule is cut at a word boundary to at most this many characters."""


MAX_READ = 400
"""A clause is read from at most this many characters: its title is far shorter."""


_I = re.IGNORECASE
_DASH = r"\s(?:--|[\u2014\u2013-])"


_PERSONS = word_set("i we you i'm we're you're i've we've you've i'd we'd you'd i'll we'll you'll")


_MODAL_SUBJECT = re.compile(
    r"^(?:you|we)(?:'ll\s+|'ve\s+|\s+will\s+|\s+)(?:should|must|need to|have to|ought to"
    r"|got to|are (?:supposed|expected|required) to)(?P<neg>n't|\s+not)?"
    r"\s+(?P<rest>(?!have\s|be (?:able|\w+ing)\b)\S.*)$",
    _I,
)


_ARE_TO = re.compile(r"^(?:you|we)(?:'re| are) (?P<neg>not )?to (?P<rest>(?!be\b)\S.*)$", _I)
"""An order put as "you are to ...": "you are to write it down", "we're not to touch it"."""


_USING = re.compile(r"^we(?:'re| are) using\s+(?P<rest>.+)$", _I)


_PLAIN_SUBJECT = re.compile(
    r"^(?:you|we)\s+(?P<adv>(?:always|never|usually|generally|only|normally)\s+)?"
    r"(?P<neg>(?:don't|do not)\s+)?(?P<verb>[a-z]+)\b(?P<rest>.*)$",
    _I,
)


_LETS = re.compile(rf"^{LET_US} (?P<rest>.+)$", _I)
_WANTS = re.compile(r"^(?:I|we)(?: (?:don't |do not )?(?:want|like)|'d like| would like)\b", _I)


_REQUEST = re.compile(r"^(?:I|we)(?:'d| would)? (?:like|want|need) to\b|^I(?:'m| am) using\b", _I)


_MODALS = word_set("should must shall can cannot")


_DIRECTIVE = re.compile(
    r"^(?:always|never|don't|do not|avoid|prefer|make sure|ensure|stop)\b"
    r"|\b(?:should|shouldn't|must|mustn't|need(?:s)? to|ha(?:ve|s) to|ought to|are not allowed"
    r"|is not allowed|never|can't|cannot|don't need to|no more)\b",
    _I,
)


_DEFINITION = re.compile(
    r"(?<!\ba )(?<!\bby )\bmeans\b|\b(?:is|are) called\b|\bstands for\b|\brefers to\b"
    r"|\bis short for\b|\b(?:is|are) (?:our|the) (?:\w+ )?(?:name|term|word)s? for\b",
    _I,
)


_SCOPE = re.compile(
    r"\b(?:always|never|every ?time|whenever|each time|by default|from now on|going forward"
    r"|in (?:the )?future|in all cases|in this (?:project|repo|repository|codebase))\b",
    _I,
)


_CONTRAST = re.compile(r"\b(?:instead|rather than)\b|,\s*(?:but\s+)?not\b|\bprefer\b.*\bover\b", _I)


_REASON = re.compile(r"\s(?:because|since|so that|otherwise)\b", _I)


_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|might|not sure|i wonder|looks like|seems?"
    r"|(?:it|this|that|there|they) (?:may|could))\b",
    _I,
)


_EXAMPLE = re.compile(r"^(?:for (?:example|instance)|e\.?g\.?|i\.?e\.?)(?!\w)", _I)


_TASK_BOUND = re.compile(
    r"(?<!from )(?<!right )\bnow\b(?! on)|\b(?:right now|for now|for the moment|at the moment"
    r"|this time|this one|that one|not yet|today|this session|go ahead|last step"
    r"|next (?:task|step|phase|thing))\b",
    _I,
)


_NOT_A_RULE = re.compile(
    r"^(?:your?|which|looks|sounds|seems|if (?:so|not)|here (?:is|are)|(?:that|it) was"
    r"|tell me|show me|explain|describe|let me know)\b"
    r"|^(?:this|that|it|these|those)(?:'s| is| was| looks?| looked| seems?| works?| worked)\b"
    r".{0,20}\b(?:great|good|fine|perfect|nice|better|awesome|excellent|helpful|correct|right)\b"
    r"|^[^,]{1,40} (?:is|are|looks?|sounds?) (?:correct|right|fine|good|great|perfect)$",
    _I,
)


_PASTED = re.compile(r"\b[A-Z]\w*(?:Error|Exception):|\bTraceback\b")


_LEADS_RULE = re.compile(
    r"^(?:(?:always|never)\s+(?!(?:a|an|the|on|in|at|to|from|by|for|as|via|into)\b)"
    r"|(?:don't|do not|avoid|prefer|make sure|ensure)\s+)(?!\w+ed\b)",
    _I,
)
"""A clause opening with a rule's word; "never a float field", with no verb, is the contrast
of the clause before it ("an amount_minor pair, never a float field"), not a rule."""


_SUBJECT_RULE = re.compile(
    r"^(?:I|we|you|let's)\b|^(?:(?!that |which |who )[\w'.-]+\s+){1,4}?"
    r"(?:should|must|shouldn't|mustn't|needs? to|ha(?:s|ve) to|can't|cannot)\b",
    _I,
)


_NAMED = re.compile(
    r"^(?:(?i:a|an|the|this|that|these|those|some|any|each|every|no)\s|(?!I\s)[A-Z]\w*\s+[A-Z])"
)
"""A clause opening with a noun phrase (a determiner, or two capitalised words): it needs a verb."""


_FINITE = re.compile(
    r"\b(?:is|are|was|were|be|has|have|had|do|does|did|can|could|should|must|will|would|may"
    r"|might|need|needs)\b|'s\b|'re\b|n't\b|\b\w+(?:s|ed)\b(?!$)",
    _I,
)


CONDITION = re.compile(
    r"^(?:if|when|whenever|unless|once|before|after|until|where|(?:as|so) long as"
    r"|every time|each time|in case)\b",
    _I,
)
"""A sentence opening on the condition its rule holds under ("Whenever you create a list,
..."): the condition stays with the rule."""


_FINITE_LEAD = re.compile(
    r"\b(?:should|must|is|are|was|were|has|have|had|will|would|can|could|does|do|did)\b", _I
)


GIVEN = re.compile(
    r"^(?:since|because|as|given that|although|though|while|whereas|considering)\b", _I
)
"""A sentence opening on what it takes as given ("Since we deploy on Fridays, ..."): the
rule is what follows."""


_SETTING = re.compile(
    r"^(?:in|for|with|without|on|at|as|during|regarding|generally|unlike|like|besides|except"
    r"|despite|to|\w+ing)\b",
    _I,
)


@dataclass(frozen=True, slots=True)
class _Reading:
    """A clause read as a rule: the title it gives and how much of a rule that title carries."""

    title: str
    weight: int


def _past(word: str) -> bool:
    """True for a past-tense or participle form: "tried", "ran", "was"."""
    return word.endswith("ed") or word in IRREGULAR_PAST


def _plain_person(text: str) -> tuple[str, int] | None:
    """An imperative of "we don't use X", "you always run Y"; None for a report."""
    plain = _PLAIN_SUBJECT.match(text)
    if plain is None:
        return None  # "we're done", "you've broken it"
    verb, rest = plain.group("verb").lower(), plain.group("rest")
    if rest.startswith("'"):
        return (text, 3) if _DIRECTIVE.search(text) else None  # "we won't", "you can't"
    if verb in _MODALS or (plain.group("neg") and verb in STATIVE):
        if _DIRECTIVE.search(text):
            return text, 3  # "you can't", "we don't need to"
        return (text, 1) if re.match(r"you can \w", text, _I) else None  # a permission
    if verb in FUNCTION_WORDS or verb in STATIVE or _past(verb) or verb.endswith("ing"):
        return None  # "you are deleting", "we had", "you know"
    if verb == "keep" and re.match(r"\s+\w+ing\b", rest):
        return None  # "you keep running ahead": a complaint
    lead = (plain.group("adv") or "") + ("Don't " if plain.group("neg") else "")
    return lead + plain.group("verb") + rest, 3


def _person_rule(text: str) -> tuple[str, int] | None:
    """A clause whose subject is "I", "we" or "you" as an imperative, and its least weight.

    None for a report of what someone did, thinks or feels ("I disagree", "you said ...",
    "we had difficulty ..."); any other clause comes back unchanged, with weight 1.
    """
    wished = wish_rule(text)
    if wished is not None:
        return wished, 3
    match = _MODAL_SUBJECT.match(text) or _ARE_TO.match(text)
    if match:
        return ("Don't " if match.group("neg") else "") + match.group("rest"), 3
    using = _USING.match(text)
    if using:
        return "use " + using.group("rest"), 3
    lets = _LETS.match(text)
    if lets:
        return lets.group("rest"), 0  # the next step of the task, unless it says more
    if text.split(" ", 1)[0].lower() not in _PERSONS:
        return text, 1
    if _WANTS.match(text) or _REQUEST.match(text):
        return text, 1 if _REQUEST.match(text) else 2
    return None if text[:1] in "Ii" else _plain_person(text)


def _framed_rule(text: str) -> tuple[str, int] | None:
    """The rule of a clause, a leading condition kept, a leading reason or setting moved.

    "If X, you should Y" gives "If X, Y"; "Since X, we use Y" gives "Use Y"; "In CI, we use
    Y" gives "Use Y in CI". None when the clause states no rule.
    """
    masked = re.sub(r"\([^()]*\)|`[^`]*`", lambda m: "x" * len(m.group(0)), text)
    comma = masked.find(", ")
    lead, main = text[: max(comma, 0)], text[comma + 2 :]
    setting = _SETTING.match(lead) and not _FINITE_LEAD.search(lead)  # not "Resolving is"
    framed = CONDITION.match(lead) or GIVEN.match(lead) or setting
    if comma < 0 or len(lead.split()) > 12 or not framed:
        return _person_rule(text)
    stated = _framed_rule(main)
    if stated is None:
        return None
    rule, weight = stated
    if CONDITION.match(lead):
        if weight >= 3:
            return f"{lead}, {rule}", weight
        return text, 3 if _DIRECTIVE.search(main) else 1  # "If X, the files should Y"
    if setting and len(lead.split()) <= 4:
        return f"{rule} {lead[:1].lower()}{lead[1:]}", weight
    return stated


def _weight(original: str, text: str, title: str, least: int) -> int:
    """How much of a rule a title carries: its grammar; its scope, alternative or reason."""
    head = title[: next((m.start() for m in _CLAUSE.finditer(title)), len(title))]
    grammar = 3 if _DIRECTIVE.search(head) else 2 if _DEFINITION.search(head) else 1
    weight = max(grammar if least else grammar - 1, least)
    bonus = bool(_SCOPE.search(original)) + bool(_CONTRAST.search(text))
    weight += min(2, bonus + bool(_REASON.search(text)))
    hedged = _HEDGE.search(title) or re.match(r"(?:maybe|perhaps|possibly)\b", original, _I)
    deictic = re.search(r"\b(?:that|this)$", title, _I)  # "write a commit message for that"
    return weight - bool(hedged) - bool(deictic) - 2 * bool(_EXAMPLE.match(title))


def _statement(original: str, text: str) -> tuple[str, int] | None:
    """The statement a clause makes once its mood and person are read, and its least weight."""
    stated = untagged(text) if original.endswith("?") else None
    if stated is not None:
        return _framed_rule(stated)
    if ASKS.search(text) or original.endswith("?"):
        asked = question_rule(text, scoped=bool(_SCOPE.search(text) or _CONTRAST.search(text)))
        return None if asked is None else (asked, 1)
    return _framed_rule(text)


def _unnamed(text: str) -> bool:
    """A noun phrase with nothing said of it, or a heading in title case ("Compare Files")."""
    words = text.split()
    capitals = sum(word[:1].isupper() for word in words)
    heading = len(words) >= 3 and capitals * 5 >= len(words) * 3
    return heading or bool(_NAMED.match(text) and not _FINITE.search(text))


def _read(original: str, *, whole: bool) -> _Reading | None:
    """One tidied clause read as a rule, or None when it states none.

    A clause after the first of its sentence counts only when it directs or has its own
    subject to read ("..., you need to read them"): otherwise it is a fragment.
    """
    text = strip_discourse(original)
    if not text or _PASTED.search(original):
        return None
    if original.endswith(":") and len(original.split()) <= 6:
        return None  # a lead-in: "It should explain the following:"
    if not whole and not (_LEADS_RULE.match(text) or _SUBJECT_RULE.match(text)):
        return None
    stated = _statement(original, text)
    if stated is None:
        return None
    text, least = stated
    if _NOT_A_RULE.search(text) and not (_DIRECTIVE.search(text) and text[:1] in "Yy"):
        return None
    if _TASK_BOUND.search(text) or _unnamed(text):
        return None
    title = _finish(text)
    named = " ".join(word for word in title.split() if "/" not in word)
    if len([w for w in content_words(named) if w not in NEGATIONS and not w.isdigit()]) < 2:
        return None
    weight = _weight(original, text, title, least)
    return _Reading(title, weight) if weight >= 1 else None


_ASIDE = re.compile(r"\s*\([^()]*\)")
_CLAUSE = re.compile(rf"[,;:]\s|{_DASH}\s|\s(?=(?:because|since|so that|otherwise)\s)", _I)


_UNFINISHED = word_set("a an the and or but nor of by with from than via per our your my their its")
"""Words no title ends on, cut or not: "... represented in the checkbox by"."""


_EMOTICON = re.compile(r"\s+[:;]-?[/\\|()]$")
"""A face typed after the rule ("no need to make examples a package :/")."""
_CODE_FIRST = re.compile(r"^`|^[\w.-]*(?:[_/]|\.[a-z]|[a-z][A-Z])")


def _cut_where(text: str) -> tuple[str, bool]:
    """``text`` within :data:`MAX_RULE` characters: its last clause that fits, else words.

    A text too long loses its asides in parentheses first, then what does not fit. Code
    spans are never cut into; a leading condition ("If X, ...") is never all that is left.
    The flag is True when the text was cut between two words of a clause.
    """
    masked = CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), text)
    if len(text) > MAX_RULE:
        for aside in reversed(list(_ASIDE.finditer(masked))):
            text = text[: aside.start()] + text[aside.end() :]
            masked = masked[: aside.start()] + masked[aside.end() :]
    if len(text) <= MAX_RULE:
        return text, False
    bounds = [m.start() for m in _CLAUSE.finditer(masked) if 20 <= m.start() <= MAX_RULE]
    if CONDITION.match(text):
        bounds = bounds[1:]
    if bounds:
        return text[: bounds[-1]], False
    end = masked[: MAX_RULE + 1].rfind(" ")
    return text[: end if end > 0 else MAX_RULE], True


def _finish(text: str) -> str:
    """The title: cut, no code ticks, no dangling word or stop, a capital first.

    A title cut between two words of a clause ends with "…".
    """
    code_first = bool(_CODE_FIRST.match(text))
    cut, within = _cut_where(text)
    words = cut.replace("`", "").rstrip(" ,;:.!-(").split(" ")
    words = without_dangling(words, DANGLING if cut != text else _UNFINISHED)
    title = _EMOTICON.sub("", " ".join(words)).rstrip(" ,;:.!-(\u2014\u2013").lstrip(" ,;:.!-)")
    if title.count("(") > title.count(")"):
        title = title[: title.rfind("(")].rstrip(" ,;:")
    if title.count(")") > title.count("(") and title.endswith(")"):
        title = title[:-1]
    if within:
        title += " \u2026"
    return title if code_first else capital(title)


def _clauses(sentence: str) -> list[str]:
    """A tidied sentence, then its clauses after the first (one in parentheses ends there)."""
    tidy = tidy_sentence(sentence)
    masked = CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), tidy)
    asides = [(m.start(), m.end() - 1) for m in _ASIDE.finditer(masked)]
    clauses = [tidy[:MAX_READ]]
    for at in (m.end() for m in re.finditer(rf"[,;]\s+|{_DASH}\s+", masked)):
        end = next((close for open_, close in asides if open_ < at < close), len(tidy))
        clauses.append(tidy[at : min(end, at + MAX_READ)])
    return clauses


def _unread(text: str) -> bool:
    """True when ``text`` is not English: another script, or Latin words without English ones."""
    words = ascii_words(text)
    english = sum(word in FUNCTION_WORDS for word in words)
    other = sum(1 for ch in text if ch.isalpha() and ord(ch) > 0x24F)
    return (other >= 2 and not english) or (len(words) >= 5 and english * 10 < len(words))


_RUN_ON = re.compile(rf"\?[;:,]?\s+(?=\S)|{_DASH}\s+(?=\S)|\s+(?=let's\s)", _I)


def state_rule(text: str) -> str:
    """The rule a human's teaching input states, in a short sentence; "" when it states none.

    Each prose sentence (pasted code and output left out), and each of its clauses, is tidied
    and stripped of the discourse around its rule: apologies, greetings, "ok so", "I think",
    "please", a correction's leading "No,", thanks, emoji, a short lead-in before a colon. A
    clause that asks (unless it carries a rule: "why don't you use uv?"), reports what someone
    did or feels ("I disagree", "you said ..."), praises, is bound to this task ("now", "for
    now", "this one"), is pasted output, or names fewer than two content words is left out.
    "You should", "we don't", "I prefer", "let's" become an imperative; a leading condition
    stays ("If X, Y"), a leading reason goes. Each is cut at a clause or word within
    :data:`MAX_RULE` characters, without a dangling "and" or a final period, and the title
    that carries most of a rule wins (a directive or modal, then a definition, then a
    statement; more for a habit, an alternative or a reason), the first on a tie.

    A turn not in English (another script, or Latin-script words without English function
    words) is not judged: its first sentence comes back tidied and cut, as typed.

    >>> state_rule("Sorry for interrupting, but we never commit straight to main. Thanks!")
    'Never commit straight to main'
    >>> state_rule("I disagree.")
    ''
    """
    text = re.sub(r"\\[ \t]*(?=\n|$)", " ", text)
    sentences = [part for s in split_sentences(text) for part in _RUN_ON.split(s.text) if part]
    if not sentences:
        return ""
    if _unread(" ".join(sentences)):
        return _cut_where(TRAIL.sub("", tidy_sentence(sentences[0])))[0].rstrip(" ,;:")
    best: _Reading | None = None
    for sentence in sentences:
        for number, clause in enumerate(_clauses(sentence)):
            reading = _read(clause, whole=number == 0)
            if reading is not None and (best is None or reading.weight > best.weight):
                best = reading
    return best.title if best else ""
