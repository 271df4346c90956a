"""Notes on disk: markdown with frontmatter, plus a generated link section at the end."""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from pydantic import ValidationError

from lorebook.bounds import MAX_NOTE_BYTES, TooLargeError, clip, read_text_bounded
from lorebook.constants import SCHEMA_VERSION
from lorebook.errors import NoteFormatError
from lorebook.kb import frontmatter
from lorebook.mergemarks import conflict_lines
from lorebook.models.note import NOTE_FIELD_ORDER, Note

LINKS_MARKER = (
    "<!-- lorebook:links: generated from the lb_ fields by `lorebook index rebuild`; "
    "edit those fields, not this section -->"
)


def content_hash(text: str) -> str:
    """Hash a note's text without its generated link section, line endings normalised."""
    text = text.replace("\r\n", "\n")
    at = text.find(LINKS_MARKER)
    if at != -1:
        text = text[:at].rstrip("\n") + "\n"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_EDGE_TITLES = (
    ("lb_relates_to", "Relates to"),
    ("lb_depends_on", "Depends on"),
    ("lb_supersedes", "Supersedes"),
    ("lb_superseded_by", "Superseded by"),
)
_ALWAYS_WRITTEN = frozenset(
    {
        "type",
        "title",
        "description",
        "tags",
        "lb_schema",
        "lb_id",
        "lb_kind",
        "lb_status",
        "lb_confidence",
        "lb_derived_from",
        "lb_relates_to",
        "lb_depends_on",
        "lb_enforce",
    }
)
_OKF_KEYS = frozenset({"type", "title", "description", "tags"})


def format_validation_error(exc: ValidationError, *, source: str) -> str:
    """Return a pydantic error as ``<source>: field 'x': message (got value)`` lines."""
    from lorebook.models.messages import explain

    lines = []
    for err in exc.errors():
        loc = ".".join(str(part) for part in err["loc"]) or "(note)"
        got = err.get("input")
        shown = "" if isinstance(got, dict) else f" (got {clip(got)})"
        lines.append(f"{source}: field '{loc}': {explain(err)}{shown}")
    return "\n".join(lines)


def frontmatter_to_note(data: Mapping[str, Any], body: str, *, source: str) -> Note:
    """Validate frontmatter and body into a :class:`Note`.

    Raises:
        NoteFormatError: an unknown ``lb_`` key or an invalid value, naming ``source``.
    """
    known = set(NOTE_FIELD_ORDER)
    fields: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in data.items():
        key = str(key)
        if key in known:
            fields[key] = value
        elif key.startswith("lb_"):
            raise NoteFormatError(
                f"{source}: unknown key {clip(key)} (lorebook keys are: "
                f"{', '.join(k for k in NOTE_FIELD_ORDER if k.startswith('lb_'))})"
            )
        else:
            extra[key] = value
    if "lb_schema" not in fields:
        raise NoteFormatError(f"{source}: field 'lb_schema' is missing")
    if fields["lb_schema"] != SCHEMA_VERSION:
        old = isinstance(fields["lb_schema"], int) and fields["lb_schema"] < SCHEMA_VERSION
        raise NoteFormatError(
            f"{source}: field 'lb_schema' is {clip(fields['lb_schema'])}; this lorebook "
            f"reads version {SCHEMA_VERSION}: "
            + ("run `lorebook migrate run`" if old else "upgrade lorebook")
        )
    try:
        return Note.model_validate({**fields, "body": body, "extra": extra})
    except ValidationError as exc:
        raise NoteFormatError(format_validation_error(exc, source=source)) from None


def note_to_frontmatter(note: Note) -> dict[str, Any]:
    """Return the note's frontmatter in the canonical key order, empty optionals left out."""
    dumped = note.model_dump(by_alias=True, mode="json", exclude={"body", "extra"})
    out: dict[str, Any] = {}
    for key in NOTE_FIELD_ORDER:
        value = dumped.get(key)
        if key == "lb_anchors":
            value = {k: v for k, v in (value or {}).items() if v}
        if key in _ALWAYS_WRITTEN or value:
            out[key] = value
    out.update(note.extra)
    return out


def split_links(body: str) -> tuple[str, str | None]:
    """Split a body into the knowledge part and the generated link section (if any)."""
    at = body.find(LINKS_MARKER)
    if at == -1:
        return body.strip("\n"), None
    return body[:at].strip("\n"), body[at:].strip("\n")


def parse_note(text: str, *, source: str) -> tuple[Note, str | None]:
    """Parse a note file's text into the note and its current link section.

    Raises:
        NoteFormatError: the frontmatter or a field is invalid, or the text holds an
            unresolved merge conflict (git's marker lines), naming ``source``.
    """
    if "\n=======" in text and (conflict := conflict_lines(text)) is not None:
        raise NoteFormatError(
            f"{source}: an unresolved merge conflict (git's <<<<<<< / ======= / >>>>>>> "
            f"lines, lines {conflict[0]}-{conflict[1]})",
            hint="keep the text you mean, delete the three marker lines, then `git add` the file",
        )
    try:
        data, body = frontmatter.split(text)
    except frontmatter.FrontmatterError as exc:
        raise NoteFormatError(f"{source}: {exc}") from None
    knowledge, links = split_links(body)
    return frontmatter_to_note(data, knowledge, source=source), links


def read_note_text(path: Path | str, *, source: str | None = None) -> str:
    """Read a note file's text: a regular file of at most :data:`MAX_NOTE_BYTES`, UTF-8.

    Raises:
        NoteFormatError: too large, not a regular file, unreadable or not UTF-8, naming it.
    """
    label = source or str(path)
    try:
        return read_text_bounded(path, MAX_NOTE_BYTES)
    except UnicodeDecodeError as exc:
        raise NoteFormatError(
            f"{label}: the file is not valid UTF-8 (byte {exc.start})",
            hint="save it as UTF-8, or delete it",
        ) from None
    except TooLargeError:
        raise NoteFormatError(
            f"{label}: the file is larger than {MAX_NOTE_BYTES:,} bytes; a note holds short "
            "knowledge",
            hint="split it into several notes",
        ) from None
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise NoteFormatError(f"{label}: cannot be read: {exc.strerror or exc}") from None


def read_note(path: Path, *, source: str | None = None) -> Note:
    """Read and validate one note file."""
    label = source or str(path)
    return parse_note(read_note_text(path, source=label), source=label)[0]


Locator = Callable[[str], PurePosixPath | None]


class HasEdges(Protocol):
    """A note, or what the index keeps of one (:class:`lorebook.kb.catalog.Facts`)."""

    def edges(self) -> dict[str, list[str]]: ...  # noqa: D102


def render_links(
    note: HasEdges,
    where: PurePosixPath,
    locate: Locator,
    retired: Callable[[str], list[str]] | None = None,
) -> str | None:
    """Render the link section for ``note`` stored at ``where`` (relative to ``nodes/``).

    Links are relative to the note's own folder, so they work in any markdown viewer and
    on any clone. A target that cannot be found is named, not linked; one the redirects
    ledger retired (``retired`` gives its live successors) is named with links to them.
    """
    edges = note.edges()
    if not edges:
        return None
    lines = [LINKS_MARKER, "## Links", ""]
    for key, title in _EDGE_TITLES:
        ids = edges.get(key)
        if not ids:
            continue
        rendered = []
        for target in ids:
            found = locate(target)
            now = [] if found is not None or retired is None else retired(target)
            if now:
                shown = []
                for successor in now:
                    there = locate(successor)
                    if there is None:
                        shown.append(f"`{successor}`")
                        continue
                    rel = posixpath.relpath(there.as_posix(), where.parent.as_posix() or ".")
                    shown.append(f"[{successor}]({rel})")
                rendered.append(f"`{target}` (retired: now {', '.join(shown)})")
            elif found is None:
                rendered.append(f"`{target}` (not found)")
            else:
                rel = posixpath.relpath(found.as_posix(), where.parent.as_posix() or ".")
                rendered.append(f"[{target}]({rel})")
        lines.append(f"- {title}: {', '.join(rendered)}")
    return "\n".join(lines)


def render_note(note: Note, links: str | None) -> str:
    """Return the whole file text for ``note`` with its link section."""
    body = note.body.strip("\n")
    if links:
        body = f"{body}\n\n{links}" if body else links
    return frontmatter.render(note_to_frontmatter(note), body)
