"""Slugs for note ids: lowercase ASCII words joined by single hyphens."""

from __future__ import annotations

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
