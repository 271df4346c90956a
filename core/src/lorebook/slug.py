"""Slugs for note ids: lowercase ASCII words joined by single hyphens."""

from __future__ import annotations

import hashlib
import re
import unicodedata

MAX_SLUG = 80


def slugify(text: str, *, limit: int = MAX_SLUG) -> str:
    """Return a slug of ``text`` (accents folded, words cut at a hyphen within ``limit``)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    if len(slug) > limit:
        slug = slug[:limit].rsplit("-", 1)[0] if "-" in slug[:limit] else slug[:limit]
    return slug


def title_slug(title: str, *, limit: int = MAX_SLUG) -> str:
    """The slug a note id takes from its title, never empty, the same on every machine.

    A title in letters ASCII cannot spell ("不要添加其他组件") keeps what it can and gains 8 hex
    digits of its sha256: two such notes get two ids without counting ``-2``, ``-3`` in the
    order they were written, which two branches would each count on their own.
    """
    slug = slugify(title, limit=limit - 9)
    lost = any(
        ch.isalpha() and not unicodedata.normalize("NFKD", ch).encode("ascii", "ignore")
        for ch in title
    )
    if not lost and slug:
        return slugify(title, limit=limit)
    digest = hashlib.sha256(title.strip().encode("utf-8")).hexdigest()[:8]
    return f"{slug}-{digest}" if slug else f"note-{digest}"
