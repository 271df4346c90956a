"""The teaching moments of one human turn, for :mod:`lorebook.extractors.rules`.

A moment is the teaching of one note type in one turn. The phrase rules of
:mod:`lorebook.extractors.signals` find most (:func:`sentence_moments`); a turn with none may
still teach as a whole (:func:`turn_moment`), by a modal addressed to the agent, a tool named
for a kind of work, or the grammar of obligation of a French or Japanese turn. Which turns a
human typed, as opposed to envelopes, templates and pasted documents, is
:func:`human_turns`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lorebook.extractors.cues import HEDGE, ONE_OFF, PROHIBITIVE, read_turn
from lorebook.extractors.refusal import FRENCH_PUSHES_BACK
from lorebook.extractors.sentences import (
    Sentence,
    command_name,
    is_envelope,
    is_pasted_document,
    split_sentences,
    without_host_prompts,
)
from lorebook.extractors.signals import PRECEDENCE, Verdict, is_confirmation
from lorebook.extractors.teaching import main_sentence, teaches, turn_kind
from lorebook.extractors.terms import code_identifiers, merge_keys, paths, proper_names
from lorebook.models.note import KIND_TYPES, NoteKind, NoteType
from lorebook.models.session import LoggedTurn

KNOWLEDGE_SKILL = re.compile(
    r"(?:^|[-_:/])(?:kk|lb|lorebook|kenkeep|memory|memories|remember|notes?|knowledge|kb"
    r"|curate|curation|extract|capture|learn)(?:$|[-_:])",
    re.IGNORECASE,
)
"""A slash command whose name says it records or curates project knowledge."""


ADDRESSED_MODAL = re.compile(
    r"\byou(?:['\u2019]ll| will)? (?:should(?:n['\u2019]?t| not)?|must(?:n['\u2019]?t| not)?"
    r"|need to|have to|ought to)\b",
    re.IGNORECASE,
)
"""A modal of obligation with the agent as its subject: "you should", "you'll need to"."""
RELATIVE_HEAD = re.compile(
    r"\b(?:all|any|every|each|the|some|what|whatever|everything|anything|something|those"
    r"|these)(?:\s+[\w-]+)?\s+$",
    re.IGNORECASE,
)
"""A noun phrase just before *you* ("all the data you need to create a plan", "any
questions you need to"): *you need to* is then a relative clause describing that thing,
not an obligation put to the agent."""


TOOL_FOR = re.compile(
    r"^(?:(?:please|also|and|then|so|but)[\s,]+)*use\s+"
    r"(?!(?:it|that|this|these|those|them|the same|your|my)\b)\S+"
    r".*?\b(?:for|to|when|whenever|if needed|as needed|instead of|rather than)\b",
    re.IGNORECASE,
)
"""An imperative *use* naming a tool and what it is for or when."""


KEEPS_THEM = re.compile(r"\bwithout (?:\w+ing) (?:them|it)\b", re.IGNORECASE)
"""An order saying what must be kept while it is done: "update them to 'done' without
deleting them" forbids the deleting, every time."""


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


JAPANESE_RULE = re.compile(
    r"(?<!正)常に|必ず|絶対|やめて|べき|留意|しろよ|なんで[^。\uff1f?]*ない|違うって"
    r"|(?:方|ほう)がいい(?:よ|のでは)"
)
"""Japanese obligation and correction: always, without fail, ought to, had better, stop,
keep in mind, a blunt imperative, "why don't you", "that's wrong"."""


CHINESE_PROHIBITS = re.compile(
    r"不要|请勿|禁止|不许|不准|千万别|永远不|(?:你|我们|请)(?:不能|别)|不应该?|我(?:现在)?不需要"
)
"""A prohibition in Chinese: *不要* (don't), *请勿* / *禁止* / *不许* (do not, forbidden),
*永远不* (never), *你不能* (you may not), *不应该* (ought not), *我不需要* (I don't want
it). A bare *不能* is left out: "还是不能显示" reports what does not work."""


CHINESE_DIRECTS = re.compile(
    r"必须|一定要|务必|总是|始终|永远|(?:^|[，,]\s*)(?:以后|今后)|记住"
    r"|(?:请|需要|要)注意|(?<![我这那])(?:是|为)标准|而不是|我更?(?:喜欢|倾向于?)"
)
"""Obligation, habit and preference in Chinese: *必须* / *一定要* / *务必* (must),
*总是* / *始终* / *永远* (always), *以后* opening a clause (from now on), *记住*
(remember), *请注意* (mind that), *是标准* (is the standard), *而不是* (rather than),
*我更喜欢* (I prefer)."""


CHINESE_CORRECTS = re.compile(r"^(?:不是的|不对|不是这样|错了)|我的意思是")
"""A correction in Chinese: *不是的* / *不对* (no, that's not it) opening the sentence,
*我的意思是* (what I mean is)."""


CHINESE_ASKS = re.compile(r"[?？]$|[吗呢么]$|^(?:为什么|为何|是否|能不能|可不可以)|如何|怎么")
"""A question in Chinese: a question mark, a closing particle (*吗*, *呢*), an opening
question word (*为什么*, *是否*, *能不能*) or *如何* / *怎么* (how) anywhere."""


_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_CLAUSE_END = re.compile(r"(?<=[。！？!?；;])")


FRENCH_ASKS = re.compile(
    r"\b(?:(?:voudrais|veux|aimerais|souhaite|souhaiterais) savoir|dis[- ]moi"
    r"|(?:re)?cherche[rsz]? si|v[ée]rifie[rsz]? si|regarde[rsz]? si"
    r"|c['\u2019]est quoi|est-ce que)\b",
    re.IGNORECASE,
)
"""A French sentence that asks: a wish to know, a look-up, "est-ce que"."""


FILE_MENTION = re.compile(r"(?<![\w/`])@([\w-]+(?:\.[\w-]+)*\.[A-Za-z0-9]{1,8})\b")
"""A file named with ``@`` in an editor's chat: ``@routes.py``, ``@base_page.html``."""


SLASH_COMMAND = re.compile(r"^\s*/[A-Za-z][\w:-]*(?=\s|$)")
"""A turn typed as a slash command: what follows the command is its argument (a compaction
summary the agent wrote, a path), not the person teaching."""


PROMPT_TEMPLATE = re.compile(
    r"^\s*<[A-Za-z][\w-]*\s+[\w-]+=[\"']|^\s*You are (?:a|an) \w+",
    re.MULTILINE,
)
"""A prompt someone pasted to set the agent up: a tagged activation block
(``<agent-activation CRITICAL="TRUE">``) or a role assigned ("You are a concerned parent")."""


@dataclass(slots=True)
class Moment:
    """The teaching of one note type in one turn."""

    turn: int
    type: NoteType
    kind: NoteKind
    quote: str
    main: str
    spans: list[str]
    keys: set[str]


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


def sentence_moments(
    turn: int, text: str, sentences: Sequence[Sentence], verdicts: Sequence[Verdict]
) -> list[Moment]:
    """The moments of one turn: one per note type it teaches."""
    moments: list[Moment] = []
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
        keys = _keys([sentences[i].text for i in teaching]) or _keys(spans)
        kind = _kind({k for i in teaching for k in verdicts[i].kinds}, kind_type)
        moments.append(Moment(turn, kind_type, kind, quote, sentences[main].text, spans, keys))
    return moments


def _keys(parts: Sequence[str]) -> set[str]:
    """What ``parts`` name: the keys moments are merged by.

    A moment is keyed by its teaching sentences, or by the context around them too when they
    name nothing: "also every default value is defined in src/defaults.rs" is about
    src/defaults.rs, not about the share/man the sentence before it names (an earlier rule's).
    """
    keys: set[str] = set()
    for part in parts:
        keys |= merge_keys(part)
    return keys


def _kind(kinds: set[NoteKind], kind_type: NoteType) -> NoteKind:
    """The moment's kind: the first, by precedence, of its sentences' kinds of its type."""
    return next(k for k in PRECEDENCE if k in kinds and KIND_TYPES[k] == kind_type)


def confirmation_text(
    text: str, sentences: Sequence[Sentence], verdicts: Sequence[Verdict]
) -> str | None:
    """The plain text of a confirming turn ("Yes. X stays Y."), or None if it is not one."""
    if not is_confirmation(text) or not sentences:
        return None
    if any(verdict.status != "neutral" for verdict in verdicts):
        return None
    return text[sentences[0].start : sentences[-1].end]


def human_turns(turns: Sequence[LoggedTurn]) -> list[tuple[int, str]]:
    """Positions and texts of the turns a human typed, until a knowledge skill is invoked.

    A text is the turn's with what the host wrote in the person's name blanked
    (:func:`~lorebook.extractors.sentences.without_host_prompts`).
    """
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
        text = without_host_prompts(turn.text)
        if text.strip() and not is_pasted_document(text):
            typed.append((position, text))
    return typed


def turn_moment(turns: Sequence[LoggedTurn], position: int, text: str) -> list[Moment]:
    """The moment of a turn that teaches as a whole (:mod:`lorebook.extractors.teaching`).

    Its quote is the sentence that carries the rule
    (:func:`lorebook.extractors.teaching.main_sentence`).
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
    return [Moment(position, note_type, kind, quote, sentence.text, [quote], keys)]


def _addressed(body: str) -> bool:
    """A modal of obligation whose *you* is a clause's subject, not in a relative clause."""
    return any(
        not RELATIVE_HEAD.search(body[: match.start()]) for match in ADDRESSED_MODAL.finditer(body)
    )


def addressed_moment(position: int, text: str) -> list[Moment]:
    """A modal of obligation addressed to the agent: the person says what it must do.

    So does an order saying what must be kept while it is done (:data:`KEEPS_THEM`).

    "you should be using the English diary as primary", "you need to read them manually":
    the person tells the agent what it must do, in the second person; a question, a
    sentence bound to this moment ("you should now have ...") or one thinking aloud is
    left out, and so is a *you* that opens a relative clause after a noun phrase ("gather
    all the data you need to create a plan": :data:`RELATIVE_HEAD`). The first such
    sentence is the moment.
    """
    for sentence in split_sentences(text):
        body = sentence.text
        if body.rstrip().endswith("?") or not (_addressed(body) or KEEPS_THEM.search(body)):
            continue
        if ONE_OFF.search(body) or HEDGE.search(body):
            continue
        kind: NoteKind = "prohibition" if PROHIBITIVE.search(body) else "convention"
        quote = text[sentence.start : sentence.end]
        return [Moment(position, "practice", kind, quote, body, [quote], merge_keys(quote))]
    return []


def tool_moment(position: int, text: str) -> list[Moment]:
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
        return [Moment(position, "practice", "tooling", quote, body, [quote], merge_keys(quote))]
    return []


def french_moment(position: int, text: str) -> list[Moment]:
    """A French turn's rule, read from the grammar of obligation and preference.

    The phrase rules of :mod:`lorebook.extractors.signals` read English. A French sentence
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
                Moment(position, "practice", "convention", quote, body, [quote], merge_keys(quote))
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
        return [Moment(position, "practice", kind, quote, main, [quote], merge_keys(quote))]
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


def japanese_moment(position: int, text: str) -> list[Moment]:
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
        return [Moment(position, "practice", kind, quote, body, [quote], merge_keys(quote))]
    return []


def chinese_moment(position: int, text: str) -> list[Moment]:
    """A Chinese turn's rule, read from the grammar of prohibition, obligation and correction.

    A Chinese request (*帮我…*, *请…*) is shaped the same whether it asks for this task or
    for always, so only what says more is read: a prohibition (:data:`CHINESE_PROHIBITS`),
    an obligation, habit or preference (:data:`CHINESE_DIRECTS`) or a correction
    (:data:`CHINESE_CORRECTS`). A turn written in Japanese (it has kana) or holding no Han
    characters is not read here, and a question (:data:`CHINESE_ASKS`) never. The first
    sentence (up to ``。``, ``！``, ``？`` or ``；``) holding a cue is the moment.
    """
    if _KANA.search(text) or not _HAN.search(text):
        return []
    for line in split_sentences(text):
        offset = line.start
        for piece in _CLAUSE_END.split(line.text):
            body = piece.strip()
            start = offset + len(piece) - len(piece.lstrip())
            offset += len(piece)
            if not body or CHINESE_ASKS.search(body.rstrip("。！!；;，, ")):
                continue
            prohibits = CHINESE_PROHIBITS.search(body)
            if not (prohibits or CHINESE_DIRECTS.search(body) or CHINESE_CORRECTS.search(body)):
                continue
            kind: NoteKind = "prohibition" if prohibits else "convention"
            quote = text[start : start + len(body)]
            cue = prohibits or CHINESE_DIRECTS.search(body) or CHINESE_CORRECTS.search(body)
            main = _chinese_clause(body, cue)
            return [Moment(position, "practice", kind, quote, main, [quote], merge_keys(quote))]
    return []


def _chinese_clause(sentence: str, cue: re.Match[str] | None) -> str:
    """The clause of ``sentence`` (between commas) holding ``cue``.

    That is the rule without the task it was said with ("帮我…同步，请不要修改我 vue 的代码"
    gives the second clause).
    A clause that opens with *而不是* (rather than) takes the clause it contrasts with
    ("修改成英文，而不是中文"); one that says little beyond its cue ("请注意一点", "不是的")
    takes the clause after it.
    """
    at, stop = (cue.start(), cue.end()) if cue else (0, 0)
    start = max(sentence.rfind(mark, 0, at) for mark in "，,") + 1
    if cue is not None and cue.group(0) == "而不是" and start > 0:
        start = max(sentence.rfind(mark, 0, start - 1) for mark in "，,") + 1
    end = _comma_after(sentence, at)
    said = sentence[start:at] + sentence[stop:end]
    if len(said.strip(" 。！!；;*")) < 4 and end < len(sentence):
        end = _comma_after(sentence, end + 1)
    return sentence[start:end].strip(" 。！!；;*") or sentence


def _comma_after(sentence: str, at: int) -> int:
    """Where the clause going on at ``at`` ends: the next comma, or the sentence's end."""
    ends = [i for i in (sentence.find(mark, at) for mark in "，,") if i >= 0]
    return min(ends, default=len(sentence))


def mentions_as_code(sentence: str) -> str:
    """``sentence`` with each file named with ``@`` (``@routes.py``) as a code span.

    An editor's chat names a file so; a sentence placing something in it then names what
    it places, as one naming a path does.
    """
    return FILE_MENTION.sub(lambda match: f"`{match.group(1)}`", sentence)
