"""A note states the rule: a short title in the person's meaning, an id without typos or filler.

People teach an agent in passing: "Sorry for interrupting, but we never commit straight to
main." The quote keeps those words as evidence; the title is the rule ("Never commit straight
to main"). Three functions, each a pure function of its text, explain what they do by grammar
rather than by topic words:

- :func:`fix_typos` corrects a word only when the correction is certain: the word is not in
  the vocabulary the caller passes (the words of the session's agent text and the project),
  it is neither code nor a name, and exactly one vocabulary word seen at least twice is one
  slip of the fingers away.
- :func:`state_rule` drops the discourse around a rule (apologies, "ok so", "I think",
  "please", thanks, emoji), picks the sentence that carries it, turns "you should"/"we
  don't"/"I prefer" into an imperative, and cuts it at a clause. It returns "" when no
  sentence states a rule ("I disagree.", "Stop there.") so the caller can refuse the note.
- :func:`rule_slug_words` keeps the content words of a title for an id or file name.

The extractor composes them: ``title = state_rule(fix_typos(quote, vocabulary))`` and
``slugify(rule_slug_words(title))``. They read English; a turn in another language is not
judged (see :func:`state_rule`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lorebook.extract.sentences import split_sentences

MAX_RULE = 80
"""A stated rule is cut at a word boundary to at most this many characters."""
MAX_READ = 400
"""A clause is read from at most this many characters: its title is far shorter."""
MAX_SLUG_WORDS = 6
MIN_TYPO = 5
"""Shorter words are corrected only by swapping two adjacent letters ("teh", "liek"): a short
word is one slip from many words ("them", "then"; "fine", "find")."""
MIN_SEEN = 2
"""A correction must be a vocabulary word seen at least this many times."""

_I = re.IGNORECASE
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_KEY_ROWS = (("qwertyuiop", 0.0), ("asdfghjkl", 0.25), ("zxcvbnm", 0.75))
"""QWERTY rows and their stagger, for the keys a slipped finger hits."""

# --- words -------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_FUNCTION = _words(
    """a an the this that these those some any each every all both either neither other
    another such same own i me my mine myself we us our ours ourselves you your yours yourself
    yourselves he him his she her hers it its itself they them their theirs themselves what
    which who whom whose am is are was were be been being have has had having do does did
    doing will would shall should can could may might must ought need needs im ive id youre
    youve youd weve wed theyre thats theres lets let to of in on at by for with from into onto
    over under about above below between through during before after against within across
    along around up down out off via per than as and or but nor so if then else when while
    because since though although unless whether also just only very really too quite always
    ever still even already yet now here there please thanks thank ok okay yes yeah yep actually
    basically simply etc eg ie vs how why where like sure"""
)
"""Function words: articles, pronouns, auxiliaries, prepositions, conjunctions, fillers.
Negations are not among them: "dont-use-mocks" and "use-mocks" say opposite things."""
_NEGATIONS = _words("no not never dont doesnt didnt cant cannot wont shouldnt mustnt isnt arent")
_STATIVE = _words(
    """want need like love hate think know see agree disagree believe feel hope guess wonder
    understand mean suppose remember forget care mind prefer"""
)
"""Verbs of mind: "we think", "you know" report a state, they direct nobody."""
_IRREGULAR_PAST = _words(
    """was were had did said ran saw found made got went took thought told gave came kept left
    brought bought wrote broke chose began knew meant sent spent understood"""
)

# --- fix_typos ---------------------------------------------------------------------------

_PROTECTED = re.compile(
    r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`"  # code
    r"|\b[a-z][a-z0-9+.-]*://\S+|\S*[/\\]\S*|\S+@\S+"  # URLs, paths, addresses
    r"|(?<!\w)'[^'\n]{1,60}'(?!\w)|\"[^\"\n]{1,60}\"|\u201c[^\u201d\n]{1,60}\u201d"
    r"|\u2018[^\u2019\n]{1,60}\u2019",  # quoted names and terms
    re.DOTALL | _I,
)
_TOKEN = re.compile(r"\S+")
_EDGE = "\"'()[]{}<>*_~.,;:!?\u201c\u201d\u2018\u2019"
_PLAIN = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_LINE_START = re.compile(r"(?:^|\n)[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])?[ \t]*$")


def _free_spans(text: str) -> list[tuple[int, int]]:
    """The stretches of ``text`` outside code, URLs, paths and quoted terms."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for match in _PROTECTED.finditer(text):
        spans.append((cursor, match.start()))
        cursor = match.end()
    spans.append((cursor, len(text)))
    return spans


def _sentence_start(text: str, start: int) -> bool:
    """True when the word at ``start`` opens a sentence, a line or a list item."""
    window = text[max(0, start - 40) : start]  # a bounded look back keeps long texts linear
    before = window.rstrip(" \t\"'(\u201c\u2018[")
    if not before:
        return True
    return before[-1] in ".!?:" or bool(_LINE_START.search(before))


def _neighbour_keys() -> dict[str, str]:
    """Each letter's neighbouring keys on a QWERTY keyboard."""
    place = {
        k: (row, i + shift)
        for row, (keys, shift) in enumerate(_KEY_ROWS)
        for i, k in enumerate(keys)
    }
    return {
        key: "".join(
            other
            for other, (row2, x2) in place.items()
            if other != key and abs(row2 - row) <= 1 and abs(x2 - x) < (1.5 if row2 == row else 1)
        )
        for key, (row, x) in place.items()
    }


_NEIGHBOURS = _neighbour_keys()


def _inflection(word: str, other: str) -> bool:
    """True when the two are forms of one word: "test"/"tests", "use"/"used", "uses"/"used"."""
    short, long = sorted((word, other), key=len)
    if len(long) == len(short) and long[:-1] == short[:-1]:
        return long[-1] in "sdry" and short[-1] in "sdry"
    if len(long) != len(short) + 1 or not long.startswith(short):
        return False
    tail = long[-1]
    return tail in "sy" or (tail in "dr" and short.endswith("e"))


def _edits(word: str) -> set[str]:
    """The words ``word`` may be a slip of the fingers for.

    Two adjacent letters swapped; for words of :data:`MIN_TYPO` letters or more also a letter
    left out, a letter typed twice, or a key's neighbour hit instead of it (QWERTY). A word
    with an extra letter of another kind ("hard", "them") is taken as a word, not a slip.
    """
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    if len(word) < MIN_TYPO:
        return swaps
    doubled = {a + b[1:] for a, b in splits if len(b) > 1 and b[0] == b[1]}
    slipped = {a + c + b[1:] for a, b in splits if b for c in _NEIGHBOURS.get(b[0], "")}
    omitted = {a + c + b for a, b in splits for c in _LETTERS}
    return swaps | doubled | slipped | omitted


def _correction(word: str, counts: Mapping[str, int]) -> str | None:
    """The one vocabulary word ``word`` (lower case) is a typo of, or None."""
    if len(word) < 3 or counts.get(word, 0) > 0 or word in _CONTRACTIONS or word in _FUNCTION:
        return None  # function words are known words, whatever the vocabulary holds
    found = [
        other
        for other in _edits(word)
        if other != word
        and other[:1] == word[:1]
        and counts.get(other, 0) >= MIN_SEEN
        and not _inflection(word, other)
    ]
    return found[0] if len(found) == 1 else None


def _fix_part(part: str, correct: Callable[[str], str | None], *, opens: bool) -> str:
    """One run of letters, corrected when certain, its case pattern kept."""
    if part.islower():
        return correct(part) or part
    if opens and part[:1].isupper() and part[1:].islower():
        fixed = correct(part.lower())
        return fixed.capitalize() if fixed else part
    return part  # capitals mid-sentence or throughout: a name or an acronym


def _fix_token(token: str, correct: Callable[[str], str | None], *, opens: bool) -> str:
    """A whitespace token with its plain word (letters and hyphens) corrected."""
    core = token.strip(_EDGE)
    if not core or not _PLAIN.fullmatch(core):
        return token  # code, numbers, contractions, identifiers
    start = token.index(core)
    parts = core.split("-")
    fixed = [_fix_part(p, correct, opens=opens and i == 0) for i, p in enumerate(parts)]
    return token[:start] + "-".join(fixed) + token[start + len(core) :]


def fix_typos(text: str, vocabulary: Mapping[str, int]) -> str:
    """Correct the words of ``text`` whose correction is certain; leave everything else.

    A word is corrected when it is not in ``vocabulary`` (word counts, folded to lower case),
    is not code (inside backticks, a path, a URL, an identifier with ``_``, digits or inner
    capitals) nor a quoted or capitalised name, and exactly one vocabulary word seen at least
    :data:`MIN_SEEN` times, with the same first letter, is one slip of the fingers away: two
    adjacent letters swapped (words of three letters or more), or, for words of
    :data:`MIN_TYPO` letters or more, a letter left out, a letter typed twice, or a
    neighbouring key hit (:func:`_edits`). Two forms of one word ("tests", "test") are not a
    typo, and English function words ("there", "though") are known words. Case is kept:
    lower case, or a capital at the start of a sentence.

    >>> fix_typos("Add doctrings, teh rule.", {"docstrings": 3, "the": 10})
    'Add docstrings, the rule.'
    """
    counts: dict[str, int] = {}
    for word, count in vocabulary.items():
        counts[word.lower()] = counts.get(word.lower(), 0) + count
    if not counts:
        return text
    correct = functools.lru_cache(maxsize=None)(lambda word: _correction(word, counts))
    pieces: list[str] = []
    cursor = 0
    for begin, end in _free_spans(text):
        for match in _TOKEN.finditer(text, begin, end):
            token = match.group(0)
            opens = _sentence_start(text, match.start())
            pieces.append(text[cursor : match.start()])
            pieces.append(_fix_token(token, correct, opens=opens))
            cursor = match.end()
    pieces.append(text[cursor:])
    return "".join(pieces)


# --- rule_slug_words ---------------------------------------------------------------------


def _ascii_words(text: str) -> list[str]:
    """Lower-case ASCII words of ``text``: accents folded, "'s" dropped, apostrophes closed."""
    folded = unicodedata.normalize("NFKD", text.replace("\u2019", "'"))
    folded = folded.encode("ascii", "ignore").decode("ascii").lower()
    words: list[str] = []
    for token in re.findall(r"[a-z0-9]+(?:'[a-z]+)?", folded):
        token = token.removesuffix("'s").replace("'", "")
        if len(token) > 1 or token.isdigit():
            words.append(token)
    return words


def content_words(text: str) -> list[str]:
    """The words of ``text`` that carry meaning: function words out, negations kept.

    >>> content_words("You should never use the mocks for a DB!")
    ['never', 'use', 'mocks', 'db']
    """
    return [word for word in _ascii_words(text) if word not in _FUNCTION]


def rule_slug_words(title: str) -> str:
    """The words of a title for an id or file name: content words, at most six, hyphenated.

    Lower case and ASCII, without function words or repeats; a title of function words only
    keeps them. :func:`lorebook.slug.slugify` leaves the result unchanged.

    >>> rule_slug_words("Don't use mocks for the DB")
    'dont-use-mocks-db'
    """
    words = list(dict.fromkeys(content_words(title))) or list(dict.fromkeys(_ascii_words(title)))
    return "-".join(words[:MAX_SLUG_WORDS])


# --- state_rule: tidying -----------------------------------------------------------------

_AUXILIARIES = "do does did is are was were should could would must have has had"
_CONTRACTIONS = {
    **{f"{aux}nt": f"{aux}n't" for aux in _AUXILIARIES.split()},
    **{"im": "I'm", "ive": "I've", "youre": "you're", "theyre": "they're"},
    **{"thats": "that's", "theres": "there's"},
}
"""Contractions typed without their apostrophe; none of them is also an English word."""
_CONTRACTION = re.compile(r"\b(?:" + "|".join(_CONTRACTIONS) + r")\b", _I)
_LONE_I = re.compile(r"(?<![\w'`./-])i(?=(?:'(?:m|d|ve|ll))?(?![\w`./-]))")
_MENTION = re.compile(r"(?<![\w`])@(?=[\w-]+\.\w)")
_EMPHASIS = re.compile(r"(?<![\w*])(\*{1,2}|_{1,2})(?=\w)([^*_`\n]+?)(?<=\w)\1(?![\w*])")
_CODE_SPAN = re.compile(r"(`[^`\n]*`)")
_DASH = r"\s(?:--|[\u2014\u2013-])"
_ASIDE_WORD = re.compile(r",\s+however,?(?=\s)|\s+however,\s+", _I)
_APOLOGY = re.compile(
    r"^(?:(?:i(?:'m| am) )?(?:so |very |really )?sorry|(?:my )?apologies|my bad|excuse me"
    r"|pardon(?: me)?)\b.*?(?:[,;:.!?]+\s*(?:but\s+)?|\s+but\s+|$)",
    _I,
)
_LEAD = re.compile(
    r"^(?:(?:ok(?:ay)?|so(?! long| that| far| much| many)|hey|hi|hello|hmm+|ah+|oh+|um+|uh+"
    r"|yes|yeah|yep|actually|btw|by the way|also|and|but|anyway|alright|fyi|tbh|honestly"
    r"|basically|just|please|kindly|well|like|maybe|perhaps|possibly|overall|the (?:thing|point) is"
    r"|i(?:'d| would)? (?:think|believe|guess|suppose|feel like|reckon|say)(?: that)?"
    r"|it seems(?: like| that)?|(?:note|keep in mind)(?: that)?|remember that"
    r"|as (?:i said|mentioned)|in (?:the )?future|going forward|from now on)\b[\s,.;:!\u2026]*"
    r"|(?:no|not|nope|nah|right|sure|wait|ouch|oops|now|then|first|finally|next|thanks"
    r"|thank you|(?:great|good|nice|perfect|awesome|excellent|amazing|fantastic|brilliant|cool"
    r"|wonderful|lovely)(?: (?:work|job|stuff|catch|idea|point|question|progress|find))?"
    r"|one (?:more|other|last|final|minor|small) (?:thing|note|clarification|correction))"
    r"\b(?:\s*[,.;:!\u2026-]+\s*|\s*$)"
    r"|[A-Z][\w]{1,15},\s+(?=(?:you|please|can|could|we|I|let's|always|never|don't)\b))",
    _I,
)
_TRAIL = re.compile(
    r"(?:[\s,.;:!-]*\b(?:thanks|thank you|thx|please|pls|cheers|my apologies|sorry|tho|though"
    r"|for example|e\.g|etc)\b\.?)+[\s.!]*$|[\s.!,;:-]+$",
    _I,
)


def _outside_code(text: str, change: re.Pattern[str], to: str) -> str:
    """``text`` with ``change`` replaced by ``to`` everywhere but in code spans."""
    parts = _CODE_SPAN.split(text)
    return "".join(p if p.startswith("`") else change.sub(to, p) for p in parts)


def _tidy(text: str) -> str:
    """One sentence, its spacing, apostrophes and "I" restored; emoji, emphasis, "@" gone."""
    text = text.replace("\u2019", "'")
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("So", "Cf", "Mn"))
    text = re.sub(r"\s+", " ", text).strip()
    text = _CONTRACTION.sub(_apostrophe, text)
    text = _outside_code(_outside_code(text, _LONE_I, "I"), _EMPHASIS, r"\2")
    return re.sub(r"\s+", " ", _ASIDE_WORD.sub(" ", _MENTION.sub("", text)))


def _apostrophe(match: re.Match[str]) -> str:
    """A contraction typed without its apostrophe, restored ("dont" -> "don't")."""
    word = match.group(0)
    restored = _CONTRACTIONS[word.lower()]
    return restored[:1].upper() + restored[1:] if word[:1].isupper() else restored


def _strip_discourse(text: str) -> str:
    """The sentence without the words around its rule: greetings, apologies, hedges, thanks."""
    previous = None
    while previous != text:
        previous = text
        text = _APOLOGY.sub("", text, count=1)
        text = _LEAD.sub("", text, count=1)
        text = re.sub(r"^\(?\d{1,2}[.)]\s+", "", text)
        text = _TRAIL.sub("", text).strip(" -(")
        head, colon, tail = text.partition(": ")
        if colon and len(head.split()) <= 5 and len(tail.split()) >= 3:
            text = tail
    return re.sub(r"\bplease\b,?\s*", "", text, flags=_I).strip()


# --- state_rule: reading one clause ------------------------------------------------------

_PERSONS = _words("i we you i'm we're you're i've we've you've i'd we'd you'd i'll we'll you'll")
_MODAL_SUBJECT = re.compile(
    r"^(?:you|we)(?:'ll\s+|'ve\s+|\s+will\s+|\s+)(?:should|must|need to|have to|ought to"
    r"|got to|are (?:supposed|expected|required) to)(?P<neg>n't|\s+not)?"
    r"\s+(?P<rest>(?!have\s|be (?:able|\w+ing)\b)\S.*)$",
    _I,
)
_USING = re.compile(r"^we(?:'re| are) using\s+(?P<rest>.+)$", _I)
_PLAIN_SUBJECT = re.compile(
    r"^(?:you|we)\s+(?P<adv>(?:always|never|usually|generally|only|normally)\s+)?"
    r"(?P<neg>(?:don't|do not)\s+)?(?P<verb>[a-z]+)\b(?P<rest>.*)$",
    _I,
)
_PREFERENCE = (
    (re.compile(r"^(?:I|we)(?:'d| would) rather (?:you )?not (?P<rest>.+)$", _I), "Don't "),
    (re.compile(r"^(?:I|we)(?:'d| would) rather (?:you )?(?P<rest>.+)$", _I), ""),
    (re.compile(r"^(?:I|we)(?:'d| would)? prefer (?:to |that you |you )(?P<rest>.+)$", _I), ""),
    (re.compile(r"^(?:I|we) prefer (?P<rest>.+)$", _I), "Prefer "),
    (re.compile(r"^(?:I|we) (?:don't|do not) want (?:you )?to (?P<rest>.+)$", _I), "Don't "),
    (re.compile(r"^I(?: want| need|'d like| would like) you to (?P<rest>.+)$", _I), ""),
    (re.compile(r"^I(?:'d| would)? lean (?:more )?towards? (?P<rest>.+)$", _I), "Prefer "),
    (re.compile(r"^I (?:don't|do not) like (?P<rest>(?!to |it\b|that\b|this\b).+)$", _I), "Avoid "),
)
_LETS = re.compile(r"^let(?:'s| us) (?P<rest>.+)$", _I)
_WANTS = re.compile(r"^(?:I|we)(?: (?:don't |do not )?(?:want|like)|'d like| would like)\b", _I)
_REQUEST = re.compile(r"^(?:I|we)(?:'d| would)? (?:like|want|need) to\b|^I(?:'m| am) using\b", _I)
_MODALS = _words("should must shall can cannot")
_QUESTION_RULE = (
    re.compile(r"^why (?:not|don't|didn't|aren't|won't|can't)(?: you| we)? (?P<rest>.+)$", _I),
    re.compile(r"^(?:shouldn't|should not) (?:we|you) (?P<rest>.+)$", _I),
)
_POLITE = re.compile(r"^(?:can|could|would|will) (?:you|we) (?P<rest>.+)$", _I)
_ASKS = re.compile(
    r"^(?:why|how)\b|\?$|^(?:can|could|would|will) (?:you|we)\b"
    r"|^(?:should|shall|do|does|did|is|are|was|were|must|have|has)"
    r" (?:we|you|I|it|this|that|they)\b",
    _I,
)
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
    r"^(?:always|never|don't|do not|avoid|prefer|make sure|ensure)\s+(?!\w+ed\b)", _I
)
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
_CONDITION = re.compile(
    r"^(?:if|when|whenever|unless|once|before|after|until|where|(?:as|so) long as)\b", _I
)
_FINITE_LEAD = re.compile(
    r"\b(?:should|must|is|are|was|were|has|have|had|will|would|can|could|does|do|did)\b", _I
)
_GIVEN = re.compile(
    r"^(?:since|because|as|given that|although|though|while|whereas|considering)\b", _I
)
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


def _question_rule(text: str) -> str | None:
    """The rule a question carries ("why don't you use uv?" -> "use uv"), or None."""
    body = text.rstrip("?!. ")
    for pattern in _QUESTION_RULE:
        match = pattern.match(body)
        if match:
            return match.group("rest")
    polite = _POLITE.match(body)
    if polite and (_SCOPE.search(body) or _CONTRAST.search(body) or not text.endswith("?")):
        return polite.group("rest")
    return None


def _past(word: str) -> bool:
    """True for a past-tense or participle form: "tried", "ran", "was"."""
    return word.endswith("ed") or word in _IRREGULAR_PAST


def _plain_person(text: str) -> tuple[str, int] | None:
    """An imperative of "we don't use X", "you always run Y"; None for a report."""
    plain = _PLAIN_SUBJECT.match(text)
    if plain is None:
        return None  # "we're done", "you've broken it"
    verb, rest = plain.group("verb").lower(), plain.group("rest")
    if rest.startswith("'"):
        return (text, 3) if _DIRECTIVE.search(text) else None  # "we won't", "you can't"
    if verb in _MODALS or (plain.group("neg") and verb in _STATIVE):
        if _DIRECTIVE.search(text):
            return text, 3  # "you can't", "we don't need to"
        return (text, 1) if re.match(r"you can \w", text, _I) else None  # a permission
    if verb in _FUNCTION or verb in _STATIVE or _past(verb) or verb.endswith("ing"):
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
    for pattern, lead in _PREFERENCE:
        match = pattern.match(text)
        if match:
            return lead + match.group("rest"), 3
    match = _MODAL_SUBJECT.match(text)
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
    framed = _CONDITION.match(lead) or _GIVEN.match(lead) or setting
    if comma < 0 or len(lead.split()) > 12 or not framed:
        return _person_rule(text)
    stated = _framed_rule(main)
    if stated is None:
        return None
    rule, weight = stated
    if _CONDITION.match(lead):
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
    if _ASKS.search(text) or original.endswith("?"):
        asked = _question_rule(text)
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
    text = _strip_discourse(original)
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
    if len([w for w in content_words(named) if w not in _NEGATIONS and not w.isdigit()]) < 2:
        return None
    weight = _weight(original, text, title, least)
    return _Reading(title, weight) if weight >= 1 else None


# --- state_rule: the title ---------------------------------------------------------------

_ASIDE = re.compile(r"\s*\((?:e\.?g|i\.?e|for example|see|like)\b[^()]*\)", _I)
_CLAUSE = re.compile(rf"[,;:]\s|{_DASH}\s|\s(?=(?:because|since|so that|otherwise)\s)", _I)
_DANGLING = (_FUNCTION | _words("rather not e.g e.g. i.e etc")) - _words("it them this that here")
"""Words a cut title does not end on."""
_UNFINISHED = _words("a an the and or but nor of by with from than via per our your my their its")
"""Words no title ends on, cut or not: "... represented in the checkbox by"."""
_CODE_FIRST = re.compile(r"^`|^[\w.-]*(?:[_/]|\.[a-z]|[a-z][A-Z])")


def _cut(text: str) -> str:
    """``text`` within :data:`MAX_RULE` characters: its last clause that fits, else words.

    Code spans are never cut into; a leading condition ("If X, ...") is never all that is left.
    """
    masked = _CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), text)
    if len(text) > MAX_RULE:
        for aside in reversed(list(_ASIDE.finditer(masked))):
            text = text[: aside.start()] + text[aside.end() :]
            masked = masked[: aside.start()] + masked[aside.end() :]
    if len(text) <= MAX_RULE:
        return text
    bounds = [m.start() for m in _CLAUSE.finditer(masked) if 20 <= m.start() <= MAX_RULE]
    if _CONDITION.match(text):
        bounds = bounds[1:]
    if bounds:
        return text[: bounds[-1]]
    end = masked[: MAX_RULE + 1].rfind(" ")
    return text[: end if end > 0 else MAX_RULE]


def _finish(text: str) -> str:
    """The title: cut, no code ticks, no dangling word or stop, a capital first."""
    code_first = bool(_CODE_FIRST.match(text))
    cut = _cut(text)
    words = cut.replace("`", "").rstrip(" ,;:.!-(").split(" ")
    dangling = _DANGLING if cut != text else _UNFINISHED
    while len(words) > 1 and words[-1].lower().strip(",;:") in dangling:
        words.pop()
    title = " ".join(words).rstrip(" ,;:.!-(\u2014\u2013").lstrip(" ,;:.!-)")
    if title.count("(") > title.count(")"):
        title = title[: title.rfind("(")].rstrip(" ,;:")
    if title.count(")") > title.count("(") and title.endswith(")"):
        title = title[:-1]
    return title if code_first else title[:1].upper() + title[1:]


def _clauses(sentence: str) -> list[str]:
    """A tidied sentence, then each of its clauses after the first, as candidate rules."""
    tidy = _tidy(sentence)
    masked = _CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), tidy)
    starts = [m.end() for m in re.finditer(rf"[,;]\s+|{_DASH}\s+", masked)]
    return [tidy[:MAX_READ]] + [tidy[start : start + MAX_READ] for start in starts]


def _unread(text: str) -> bool:
    """True when ``text`` is not English: another script, or Latin words without English ones."""
    words = _ascii_words(text)
    english = sum(word in _FUNCTION for word in words)
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
        return _cut(_TRAIL.sub("", _tidy(sentences[0]))).rstrip(" ,;:")
    best: _Reading | None = None
    for sentence in sentences:
        for number, clause in enumerate(_clauses(sentence)):
            reading = _read(clause, whole=number == 0)
            if reading is not None and (best is None or reading.weight > best.weight):
                best = reading
    return best.title if best else ""
