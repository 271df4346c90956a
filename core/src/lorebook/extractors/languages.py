"""The teaching moments of a turn written in French, Japanese or Chinese.

The phrase rules of :mod:`lorebook.extractors.signals` read English. A turn they find nothing
in may be in another language; each reader here finds its rule by that language's grammar of
obligation, prohibition, preference and correction, and leaves its questions out. The rules
extractor (:mod:`lorebook.extractors.rules`) tries them in turn.
"""

from __future__ import annotations

import re

from lorebook.extractors.moments import Moment
from lorebook.extractors.refusal import FRENCH_PUSHES_BACK
from lorebook.extractors.sentences import split_sentences
from lorebook.extractors.terms import merge_keys
from lorebook.models.note import NoteKind

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


CHINESE_NOW = re.compile(
    r"(?:^|[^首优事原])先(?:不|别)|暂时|暂且|暂定|这次|本次|这一次|目前|当前|现在先"
    r"|(?:修改|改动|改|动|做|添加|加|增加|写)[^，,。]{0,3}(?:其他|其它|别的)|新的|重复"
)
"""What scopes a Chinese rule to the task at hand, as *here* does in English: *先不要* (not
yet, for now), *暂时* / *暂且* (for the time being), *这次* / *本次* (this time), *目前* /
*当前* (at present), and words relative to the change being made: changing or adding
*其他* / *别的* (anything else: "不要做其他样式的修改", make no other style change; not
"不要使用其他依赖", use no other dependency), *新的* (new, beside what is there), *重复*
(again, twice). Not *首先* / *优先* / *事先* / *原先*."""


CHINESE_ASKS = re.compile(r"[?？]$|[吗呢么]$|^(?:为什么|为何|是否|能不能|可不可以)|如何|怎么")
"""A question in Chinese: a question mark, a closing particle (*吗*, *呢*), an opening
question word (*为什么*, *是否*, *能不能*) or *如何* / *怎么* (how) anywhere."""


_CHINESE_ALWAYS = re.compile(r"以后|今后|永远|总是|始终|所有|任何|每次")
"""What makes a rule a habit whatever it is said of: from now on, always, every, any."""
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_CLAUSE_END = re.compile(r"(?<=[。！？!?；;])")
_CLAUSE_MARKS = " 。！!；;*"
"""What a clause's ends lose: spaces, the marks that end it, and bold's asterisks."""


FRENCH_ASKS = re.compile(
    r"\b(?:(?:voudrais|veux|aimerais|souhaite|souhaiterais) savoir|dis[- ]moi"
    r"|(?:re)?cherche[rsz]? si|v[ée]rifie[rsz]? si|regarde[rsz]? si"
    r"|c['\u2019]est quoi|est-ce que)\b",
    re.IGNORECASE,
)
"""A French sentence that asks: a wish to know, a look-up, "est-ce que"."""


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
        cue = prohibits or FRENCH_DIRECTS.search(body) or FRENCH_PREFERS.search(body)
        if cue is None:
            continue
        kind: NoteKind = "prohibition" if prohibits else "convention"
        quote = text[sentence.start : sentence.end]
        main = _clause(body, cue)
        return [Moment(position, "practice", kind, quote, main, [quote], merge_keys(quote))]
    return []


def _clause(sentence: str, cue: re.Match[str]) -> str:
    """The clause of ``sentence`` holding ``cue``: the rule without what leads up to it.

    "Pareil pour le CR quotidien, les blocs ... ne doivent pas être affichés" states
    "les blocs ... ne doivent pas être affichés".
    """
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
    characters is not read here, a question (:data:`CHINESE_ASKS`) never, nor a rule that
    says it holds for this task only (:data:`CHINESE_NOW`) unless it also says always. The
    first sentence (up to ``。``, ``！``, ``？`` or ``；``) holding a cue is the moment.
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
            cue = prohibits or CHINESE_DIRECTS.search(body) or CHINESE_CORRECTS.search(body)
            if cue is None:
                continue
            kind: NoteKind = "prohibition" if prohibits else "convention"
            quote = text[start : start + len(body)]
            main = _chinese_clause(body, cue)
            if CHINESE_NOW.search(main) and not _CHINESE_ALWAYS.search(main):
                continue  # a constraint of this task ("先不要…", "不要做其他样式的修改")
            return [Moment(position, "practice", kind, quote, main, [quote], merge_keys(quote))]
    return []


def _chinese_clause(sentence: str, cue: re.Match[str]) -> str:
    """The clause of ``sentence`` (between commas) holding ``cue``.

    That is the rule without the task it was said with ("帮我…同步，请不要修改我 vue 的代码"
    gives the second clause). A clause that opens with *而不是* (rather than) takes the
    clause it contrasts with ("修改成英文，而不是中文"); one that says little beyond its cue
    ("请注意一点", "不是的") gives way to the clause after it.
    """
    at, stop = cue.start(), cue.end()
    start = max(sentence.rfind(mark, 0, at) for mark in "，,") + 1
    if cue.group(0) == "而不是" and start > 0:
        start = max(sentence.rfind(mark, 0, start - 1) for mark in "，,") + 1
    end = _comma_after(sentence, at)
    said = sentence[start:at] + sentence[stop:end]
    if len(said.strip(_CLAUSE_MARKS)) < 4 and end < len(sentence):
        start, end = end + 1, _comma_after(sentence, end + 1)
    return sentence[start:end].strip(_CLAUSE_MARKS) or sentence


def _comma_after(sentence: str, at: int) -> int:
    """Where the clause going on at ``at`` ends: the next comma, or the sentence's end."""
    ends = [i for i in (sentence.find(mark, at) for mark in "，,") if i >= 0]
    return min(ends, default=len(sentence))
