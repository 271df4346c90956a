"""A rule's title and description, and the plain text and sentences they are read from.

A rule's title is its sentence, without the labels that only draw attention ("IMPORTANT:")
or the words that tie it to the text around ("Therefore, ", "Keep in mind that "), and
without its asides in parentheses, cut to at most :data:`TITLE_WORDS` words: a dash or
a reason clause goes first, then a second alternative set off by commas (", or an absolute
path outside the session,"), then relative clauses (", which is fine,"), then the sentence
is cut at a clause boundary, and only a sentence with none is cut mid-clause (with "…").
Its description is the whole sentence (up to :data:`DESCRIPTION_CHARS` characters).
:func:`plain` takes the markdown out of a block's text and :func:`sentences` cuts it into
sentences; :mod:`lorebook.bootstrap.distil` reads them.
"""

from __future__ import annotations

import re

from lorebook.bootstrap.blocks import ITEM
from lorebook.bootstrap.grammar import CONNECTIVE
from lorebook.bootstrap.statements import strip_markers, words
from lorebook.extractors.discourse import calm

TITLE_WORDS = 16
MIN_TITLE_WORDS = 3
DESCRIPTION_CHARS = 220
LABEL_WORDS = 6
_CODE = re.compile(r"`[^`\n]*`")
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]*_\u2019\u201d]*\s+(?=[A-Z0-9`\"'*_(\[\u201c])")
_ABBREV = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp|Mr|Mrs|Dr|St|No)|\b[A-Za-z])\.$"
)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|\[([^\]]+)\]\[[^\]]*\]")
_FOOTNOTE = re.compile(r"\[\^[^\]]+\]")
_ROLE = re.compile(r"(?<!`)\{[\w:-]+\}(?=`)")
_TITLED_ROLE = re.compile(r"(?<!`)\{[\w:-]+\}`(?P<text>[^`<\n]+?)\s*<[^`>\n]*>`")
"""A MyST role with a title and a target ("{ref}`Positional arguments <arguments>`"): its title."""
_SHORT_ROLE = re.compile(r"(?<!`)(\{[\w:-]+\})`~(?:[\w-]+\.)*(?P<last>[\w-]+)`")
"""A role whose target is shortened to its last name ("{class}`~click.CompletionItem`")."""
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_STRUCK = re.compile(r"~~.+?~~")
_EMPHASIS = re.compile(r"\*\*(.+?)\*\*|__(.+?)__|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_SYMBOLS = re.compile(r"^[^\w`\"'(\[\x00]+")
_DANGLING = re.compile(
    r"(?:\s+(?:when|if|for|to|with|and|or|the|a|an|because|as|by|in|on|of|before|after|unless"
    r"|while|via|from|into|like))+\s*$",
    re.IGNORECASE,
)
"""A word left hanging where the sentence went on into a list ("Always begin with X when")."""
_CLAUSE_JOIN = re.compile(
    r";\s|,\s+(?:but|so|while|which|whereas|then|since|because|unless|except)\s"
    r"|,\s+(?:and|or)\s+(?=(?:the|a|an|one|two|it|they|you|we|this|that|these|those|each|every"
    r"|its|their|your|our|no|any|all)\s)",
    re.IGNORECASE,
)
"""Where one clause ends and another begins (a list's commas are no such place)."""
_PAREN = re.compile(r"(?:^|\s+)\([^()]*\)(?!\w)")
"""An aside in parentheses, set off by a space: not "(de)serialize" or "call(x)"."""
_INNER_ALTERNATIVE = re.compile(
    r"^(?P<subject>[^,;:]+),\s+or\s+[^,;:]+,\s+(?=(?:must|shall|should|may|cannot|can't"
    r"|is|are|will)\b)",
    re.IGNORECASE,
)
"""A subject's second alternative set off by commas before the verb ("Any attempt to use a
relative path, or an absolute path outside the session, MUST be aborted"): a title too long
with it keeps the first and the sentence's verb, not a subject cut off before its verb."""
_ASIDE_CLAUSE = re.compile(r",\s+(?:which|who|whose|whereby)\b[^,;:]*", re.IGNORECASE)
"""A relative clause set off by a comma (", which is fine"): an aside ("that" is left alone:
after a comma it may open the main clause, "When X, that job must ...")."""
_TAIL = re.compile(
    r"\s+[\u2014\u2013]\s.*$|\s+-\s.*$|[,;]?\s+(?:because|since|so that|so|as this|which means)"
    r"\s.*$",
)


def plain(text: str) -> str:
    """``text`` without markdown: links become their text, emphasis and tags go, code stays."""
    spans: list[str] = []

    def keep(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    text = _SHORT_ROLE.sub(lambda m: f"`{m['last']}`", _TITLED_ROLE.sub(r"\g<text>", text))
    text = _ROLE.sub("", text)
    text = _CODE.sub(keep, text)
    text = _LINK.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = _FOOTNOTE.sub("", _STRUCK.sub("", _TAG.sub("", text)))
    for _ in range(2):
        text = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2) or m.group(3), text)
    text = _UNPAIRED.sub("", text)  # "**Append only. Never remove one.**" split in two
    text = _SYMBOLS.sub("", " ".join(text.split()))
    return re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], text)


_UNPAIRED = re.compile(
    r"(?<![\w*])(?:\*{1,3}|_{2,3})(?=\w)|(?<=[\w.!?:;,)])(?:\*{1,3}|_{2,3})(?![\w*])"
)
"""An emphasis marker left without its pair, at a word's edge: a sentence cut out of a bold
span that held two."""


def sentences(text: str) -> list[str]:
    """The sentences of a block's text, as written (lines joined; code spans never cut)."""
    flat = " ".join(text.split())
    masked = _CODE.sub(lambda m: "x" * len(m.group(0)), flat)
    masked = _LINK.sub(lambda m: "x" * len(m.group(0)), masked)
    found, start = [], 0
    for match in _SENTENCE_END.finditer(masked):
        head = masked[max(0, match.start() - 15) : match.start() + 1]
        if _ABBREV.search(head):
            continue
        found.append(flat[start : match.end()].strip())
        start = match.end()
    found.append(flat[start:].strip())
    return [s for s in found if s]


def title_of(statement: str) -> str:
    """The rule in at most :data:`TITLE_WORDS` words (see the module docstring)."""
    text = CONNECTIVE.sub("", strip_markers(statement), count=1).rstrip(" .!:")
    text = calm(text)  # "ALL TASK OPERATIONS MUST USE THE CLI" is said, not shouted
    if text.count('"') % 2:  # the sentence ended a quotation: its closing mark is no title's
        text = text.rstrip('"').rstrip(" .!:")
    without_asides = _without_asides(text)
    if len(words(without_asides)) >= MIN_TITLE_WORDS:
        text = without_asides  # "(e.g. ...)", "(no failures)": the description keeps them
    if len(words(text)) > TITLE_WORDS:
        shorter = _TAIL.sub("", text).rstrip(" ,;:.")
        if len(words(shorter)) >= MIN_TITLE_WORDS:
            text = shorter
    if len(words(text)) > TITLE_WORDS:
        first = _INNER_ALTERNATIVE.sub(lambda m: m.group("subject") + " ", text, count=1)
        if MIN_TITLE_WORDS <= len(words(first)) <= TITLE_WORDS:
            text = first
    if len(words(text)) > TITLE_WORDS:
        plain = _ASIDE_CLAUSE.sub("", text)
        if MIN_TITLE_WORDS <= len(words(plain)) <= TITLE_WORDS:
            text = plain
    if len(words(text)) > TITLE_WORDS:
        text = _at_clause(text) or _cut(text, TITLE_WORDS) + " …"
    if statement.rstrip().endswith(":") or not _same_words(text, statement):
        # Only a sentence that went on into a list, or one cut here, can end on a word left
        # hanging: "... what users opt into" ends on its particle, and keeps it.
        text = _DANGLING.sub("", text)
    return (text[:1].upper() + text[1:])[:200]


def _same_words(title: str, statement: str) -> bool:
    """Whether ``title`` ends with the statement's last word (nothing cut from its end)."""
    said, stated = words(title), words(statement)
    return bool(said) and bool(stated) and said[-1].lower() == stated[-1].lower()


def _without_asides(text: str) -> str:
    """``text`` without its asides in parentheses; a code span keeps its own."""
    spans: list[str] = []

    def keep(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    masked = _PAREN.sub("", _CODE.sub(keep, text)).rstrip(" ,;:.")
    return re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], masked)


def title_case_label(clause: str) -> bool:
    """A few words each capitalised ("Mandatory Pre-Edit Verification Message"): a label."""
    found = [w for w in words(clause) if len(w) > 3]
    return 0 < len(words(clause)) <= LABEL_WORDS and all(w[0].isupper() for w in found)


_CONDITION = re.compile(r"(?:if|when|whenever|unless|once|as long as)\b", re.IGNORECASE)


def _at_clause(text: str) -> str | None:
    """``text`` cut at its last clause boundary that leaves a title of 4 to 16 words."""
    for match in reversed(list(_CLAUSE_JOIN.finditer(text))):
        head = text[: match.start()].rstrip(" ,;")
        if match.group(0).strip(" ,").lower() == "then" and _CONDITION.match(head):
            continue  # "If you need X, then ...": the head is the condition alone
        if 4 <= len(words(head)) <= TITLE_WORDS:
            return head
    return None


def _cut(text: str, limit: int) -> str:
    """``text`` up to its ``limit``-th word outside code spans (a code span stays whole)."""
    count = 0
    for match in re.finditer(r"`[^`\n]*`|[A-Za-z][A-Za-z'\u2019-]*|\S", text):
        if match.group(0)[0].isalpha():
            count += 1
        if count > limit:
            return text[: match.start()].rstrip(" ,;:")
    return text


_BOLD_LABEL = re.compile(r"^\*\*(?P<label>[^*]+?)\*\*")
_OPEN_CLAUSE = re.compile(
    r",?\s+(?:that|which|who)\s+\w+$|,?\s+(?:containing|including|listing|covering|such as"
    r"|namely)$",
    re.IGNORECASE,
)
"""A clause whose verb waits for its object: "a pull request that includes", "an issue
containing"."""
_MAX_NAMED = 3


def completed(title: str, statement: str, context: str) -> str:
    """A title whose sentence introduces a list, completed by what the list's items name.

    "Before releasing a new version, create a pull request that includes:" says what the
    request includes in its items ("**An update to the changelog**", "**A version bump**"):
    the title names them when each is a short label (bold, or a whole item of at most
    :data:`LABEL_WORDS` words), there are at most three, and the title stays within
    :data:`TITLE_WORDS` words. Otherwise a clause left open at the title's end ("that
    includes", "containing") goes, so the title reads as a whole sentence; the description
    and the note's body keep the lead-in and its items.
    """
    if not statement.rstrip().endswith(":"):
        return title
    lines = context.splitlines()
    items = [(len(m["indent"]), m["text"]) for line in lines if (m := ITEM.match(line))]
    top = min((depth for depth, _ in items), default=0)
    labels = [_label(text) for depth, text in items if depth == top]
    if labels and len(labels) <= _MAX_NAMED and all(labels):
        named = [_lowered(label) for label in labels if label]
        listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        candidate = f"{title}: {listed}"
        if len(words(candidate)) <= TITLE_WORDS:
            return candidate
    open_clause = _OPEN_CLAUSE.search(title)
    if open_clause and len(words(title[: open_clause.start()])) >= MIN_TITLE_WORDS:
        return title[: open_clause.start()]
    return title


def _label(item: str) -> str | None:
    """An item's label: its bold opening, or the whole item when it is short; else None."""
    bold = _BOLD_LABEL.match(item)
    text = plain(bold["label"] if bold else item).rstrip(" .:;,")
    return text if text and len(words(text)) <= LABEL_WORDS else None


def _lowered(label: str) -> str:
    """``label`` with a capital that only opened it lowered ("An update" -> "an update")."""
    first = label.split(" ", 1)[0]
    if first == "A" or (first[:1].isupper() and first[1:].islower()):
        return label[:1].lower() + label[1:]
    return label


_CLAUSE_BREAK = re.compile(r";\s|:\s|\s[\u2014\u2013]\s|\s-\s")


def clauses_of(statement: str) -> list[str]:
    """The clauses of ``statement`` between semicolons, colons and dashes.

    A code span is never cut: "the `Content-Type: application/json` header" is one clause.
    """
    masked = _CODE.sub(lambda m: "x" * len(m.group(0)), statement)
    cuts = [0, *(i for m in _CLAUSE_BREAK.finditer(masked) for i in m.span()), len(statement)]
    return [c for a, b in zip(cuts[::2], cuts[1::2], strict=True) if (c := statement[a:b].strip())]


def description_of(statement: str) -> str:
    """The whole sentence on one line, cut at a word after :data:`DESCRIPTION_CHARS`."""
    text = strip_markers(statement)
    if len(text) <= DESCRIPTION_CHARS:
        return text
    return text[:DESCRIPTION_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + " …"


__all__ = [
    "DESCRIPTION_CHARS",
    "LABEL_WORDS",
    "TITLE_WORDS",
    "clauses_of",
    "completed",
    "description_of",
    "plain",
    "sentences",
    "title_case_label",
    "title_of",
]
