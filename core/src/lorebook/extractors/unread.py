"""Which human inputs the rules extractor cannot read: the language they are written in.

The rules extractor reads English, and French, Japanese and Chinese
(:mod:`lorebook.extractors.languages`); a session in another language gives it nothing to
find, and a run that proposes nothing should say why. A text's language is told the usual
cheap way: its script, when that is not Latin (Cyrillic, Hangul, Arabic ...); else the
language whose most common function words it holds most ("que", "para", "não": not
English). A short text, or one whose words say nothing either way, is not judged.
"""

from __future__ import annotations

import re

SCRIPTS = (
    ("Cyrillic (Russian, Ukrainian, ...)", 0x0400, 0x04FF),
    ("Korean", 0xAC00, 0xD7AF),
    ("Arabic", 0x0600, 0x06FF),
    ("Hebrew", 0x0590, 0x05FF),
    ("Greek", 0x0370, 0x03FF),
    ("Hindi (Devanagari)", 0x0900, 0x097F),
    ("Thai", 0x0E00, 0x0E7F),
)
"""Scripts of languages the rules extractor does not read, by their Unicode block."""

FUNCTION_WORDS = {
    "English": (
        "the of and to in is it you that was for on are with as be at have this from or by "
        "not but what we can all there when your which do if will would so them these more "
        "has no my than any only just also must should don't never always"
    ),
    "French": (
        "de la le et les des en un du une que est pour qui dans par plus pas au sur ne se ce "
        "il sont avec ou son elle nous vous leur mais aussi comme jamais toujours faut"
    ),
    "Spanish": (
        "de la que el en y los del se las por un para con no una su al lo como más pero sus "
        "le ya o este sí porque esta entre cuando muy sin sobre también me hasta hay donde "
        "todo nos nada eso esto está siempre nunca"
    ),
    "Portuguese": (
        "de o que e do da em um para é com não uma os no se na por mais as dos como mas ao "
        "ele das tem seu sua ou ser quando muito nos já está eu também só pelo pela até isso "
        "ela você sempre nunca"
    ),
    "German": (
        "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als "
        "auch es an werden aus er hat dass sie nach wird bei einer um am sind noch wie "
        "einem über einen so zum war haben nur oder aber immer nie bitte ich wir"
    ),
    "Italian": (
        "di che è e la il un per in una sono mi ho non lo ha le si con ma come io ci questo "
        "qui hai del al della anche sempre mai"
    ),
    "Dutch": (
        "de en van ik te dat die in een het niet zijn is was op aan met als voor er maar om "
        "dan zou of wat dit zo door over ze bij ook tot je uit naar hoe geen altijd nooit wij"
    ),
}
"""The most common function words of each language: what a text's words are counted against."""
READ = frozenset({"English", "French"})
_TABLES = {language: frozenset(words.split()) for language, words in FUNCTION_WORDS.items()}
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
MIN_LETTERS = 12


def unread_language(text: str) -> str | None:
    """The language of ``text`` when the rules extractor does not read it, else None."""
    letters = [c for c in text if c.isalpha()]
    if len(letters) < MIN_LETTERS:
        return None
    for name, low, high in SCRIPTS:
        if sum(low <= ord(c) <= high for c in letters) * 2 >= len(letters):
            return name
    words = _WORD.findall(text.lower())
    counts = {language: sum(w in table for w in words) for language, table in _TABLES.items()}
    best = max(counts, key=lambda language: counts[language])
    if best in READ or counts[best] < 2 or counts[best] <= 2 * counts["English"]:
        return None
    return best
