"""Reading a pack: a lorebook pack, a kenkeep pack, or any OKF bundle.

A **lorebook pack** (what ``lorebook pack export`` writes) is a folder holding
``lorebook-pack.yaml`` (``lb_schema``, ``name``, ``description``, ``notes``), a
``README.md`` and ``knowledge/``: an OKF bundle of lorebook notes, its ``.redirects.json``,
its ``FOLDER_SUMMARIES.md`` (folders relative to ``knowledge/``) and a root ``index.md``
declaring ``okf_version``. A **kenkeep pack** has ``kenkeep-pack.yaml`` and the same
``knowledge/`` layout with ``kk_`` fields. Any other folder is read as a bare OKF bundle
(``knowledge/`` if it has one, else the folder itself).

Leaves: a file with ``lb_id`` is a lorebook note, read strictly and later copied byte for
byte; a file with ``kk_id`` or OKF's ``type`` is converted (``kk_id`` or the file stem is the
id, ``kk_derived_from``, ``kk_relates_to``, ``kk_depends_on`` and ``kk_confidence`` map to
their ``lb_`` fields, the kind is ``convention`` for a practice and ``feature`` for a map,
and keys of other tools are kept). ``index.md`` files are never read: the rebuild
regenerates them. The scan never follows a symbolic link: one anywhere is an error.

Every file is read through :mod:`lorebook.datafile`, bounded before it is parsed: the
manifest (at most 64 KiB of YAML, no aliases), each leaf (a note's 512 KiB), the redirects
(the knowledge base's own bound, no nesting past 64 levels) and the summaries (1 MiB); a
file past its bound is refused in one line naming it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lorebook.bounds import MAX_NOTE_BYTES
from lorebook.datafile import read_data_text, read_yaml
from lorebook.errors import LorebookError
from lorebook.kb import frontmatter
from lorebook.kb.notes import parse_note, render_note
from lorebook.models.note import ID_RE, Note
from lorebook.slug import slugify

LOREBOOK_MANIFEST = "lorebook-pack.yaml"
KENKEEP_MANIFEST = "kenkeep-pack.yaml"
KNOWLEDGE = "knowledge"
SUMMARIES = "FOLDER_SUMMARIES.md"
REDIRECTS = ".redirects.json"
MAX_MANIFEST_BYTES = 64 * 1024
"""A pack manifest larger than this is refused before it is parsed."""
MAX_SUMMARIES_BYTES = 1024 * 1024
"""A pack's FOLDER_SUMMARIES.md larger than this is refused (one short line per folder)."""
_SKIPPED_FILES = frozenset({"index.md", SUMMARIES, "README.md"})
_KK_MAPPED = {"kk_derived_from", "kk_relates_to", "kk_depends_on", "kk_confidence"}


class PackError(LorebookError):
    """A pack cannot be exported or imported (the message names the file and the reason)."""


@dataclass(frozen=True, slots=True)
class Leaf:
    """One note of a pack: where it lands (relative to the pack folder) and its text."""

    rel: PurePosixPath
    note: Note
    text: str
    source: str


@dataclass(slots=True)
class Pack:
    """A pack as read, before anything is validated against a knowledge base."""

    name: str
    format: str
    description: str | None
    leaves: list[Leaf] = field(default_factory=list)
    redirects: dict[str, list[str]] = field(default_factory=dict)
    summaries: dict[str, str] = field(default_factory=dict)


def refuse_symlinks(root: Path) -> None:
    """Raise if ``root`` or anything under it is a symbolic link (links are never followed)."""
    if root.is_symlink():
        raise PackError(f"{root}: is a symbolic link; a pack must be a real folder")
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            if path.is_symlink():
                raise PackError(
                    f"{path}: is a symbolic link; a pack holds regular files only",
                    hint="replace the link with the file it points to, or remove it",
                )


def _manifest(path: Path) -> dict[str, Any]:
    data = read_yaml(path, max_bytes=MAX_MANIFEST_BYTES) or {}
    if not isinstance(data, dict):
        raise PackError(f"{path}: the manifest must be a mapping")
    return data


def _layout(folder: Path) -> tuple[str, dict[str, Any], Path]:
    for manifest, kind in ((LOREBOOK_MANIFEST, "lorebook"), (KENKEEP_MANIFEST, "kenkeep")):
        if (folder / manifest).is_file():
            return kind, _manifest(folder / manifest), folder / KNOWLEDGE
    root = folder / KNOWLEDGE if (folder / KNOWLEDGE).is_dir() else folder
    return "okf", {}, root


def _list(value: Any, key: str, source: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PackError(f"{source}: field {key!r} must be a list of strings")
    return list(value)


def convert_okf(data: dict[str, Any], body: str, stem: str, source: str) -> Note:
    """A kenkeep or plain OKF leaf as a lorebook note (see the module docstring)."""
    note_type = data.get("type")
    if note_type not in ("practice", "map"):
        raise PackError(f"{source}: field 'type' must be 'practice' or 'map' (got {note_type!r})")
    note_id = str(data.get("kk_id") or data.get("id") or stem)
    if not ID_RE.match(note_id) or not note_id.startswith(f"{note_type}-"):
        raise PackError(f"{source}: id {note_id!r} is not '{note_type}-<slug>'")
    confidence = data.get("kk_confidence")
    extra = {
        k: v
        for k, v in data.items()
        if k not in ("type", "title", "description", "tags", "id")
        and not k.startswith(("kk_", "lb_"))
    }
    fields = {
        "type": note_type,
        "title": data.get("title"),
        "description": data.get("description"),
        "tags": [slugify(str(t)) for t in _list(data.get("tags"), "tags", source) if slugify(t)],
        "lb_id": note_id,
        "lb_kind": "convention" if note_type == "practice" else "feature",
        "lb_confidence": confidence if confidence in ("low", "medium", "high") else "medium",
        "lb_derived_from": _list(data.get("kk_derived_from"), "kk_derived_from", source),
        "lb_relates_to": _list(data.get("kk_relates_to"), "kk_relates_to", source),
        "lb_depends_on": _list(data.get("kk_depends_on"), "kk_depends_on", source),
        "body": body.strip("\n"),
        "extra": extra,
    }
    from pydantic import ValidationError

    from lorebook.kb.notes import format_validation_error

    try:
        return Note.model_validate(fields)
    except ValidationError as exc:
        raise PackError(format_validation_error(exc, source=source)) from None


def _leaf(path: Path, rel: PurePosixPath, source: str) -> Leaf:
    text = read_data_text(path, max_bytes=MAX_NOTE_BYTES, source=source).replace("\r\n", "\n")
    try:
        data, body = frontmatter.split(text)
    except frontmatter.FrontmatterError as exc:
        raise PackError(f"{source}: {exc}") from None
    if "lb_id" in data:
        if data.get("lb_schema") == 1:  # a pack exported before format version 2
            from lorebook.migrate import upgrade_note_text

            text = upgrade_note_text(text, source=source)
        note = parse_note(text, source=source)[0]
        if rel.stem != note.id:
            raise PackError(f"{source}: file name must be {note.id}.md (its lb_id)")
        return Leaf(rel, note, text, source)
    note = convert_okf(data, body, rel.stem, source)
    return Leaf(rel.with_name(f"{note.id}.md"), note, render_note(note, None), source)


def _summaries(root: Path) -> dict[str, str]:
    from lorebook.kb.summaries import parse_summaries

    path = root / SUMMARIES
    if not path.is_file():
        return {}
    text = read_data_text(path, max_bytes=MAX_SUMMARIES_BYTES)
    try:
        return parse_summaries(text, source=str(path))
    except LorebookError as exc:
        raise PackError(f"{path}: {exc}") from None


def _redirects(root: Path) -> dict[str, list[str]]:
    from lorebook.kb.redirects import MAX_REDIRECTS_BYTES, parse_redirects

    path = root / REDIRECTS
    if not path.is_file():
        return {}
    return parse_redirects(read_data_text(path, max_bytes=MAX_REDIRECTS_BYTES), source=str(path))


def read_pack(folder: Path) -> Pack:
    """Read every leaf, the redirects and the summaries of the pack at ``folder``.

    Raises:
        PackError: a symlink, an unreadable or invalid leaf, two leaves with one id.
        NoteFormatError: a lorebook leaf, the redirects or the summaries are invalid.
    """
    if not folder.is_dir():
        raise PackError(f"{folder}: not a folder")
    refuse_symlinks(folder)
    kind, manifest, root = _layout(folder)
    name = slugify(str(manifest.get("name") or folder.resolve().name))
    if not name:
        raise PackError(f"{folder}: the pack has no usable name (set 'name' in its manifest)")
    description = manifest.get("description")
    pack = Pack(name, kind, str(description) if description else None)
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        here = Path(dirpath)
        for file in sorted(filenames):
            if file.startswith(".") or not file.endswith(".md") or file in _SKIPPED_FILES:
                continue
            rel = PurePosixPath((here / file).relative_to(root).as_posix())
            leaf = _leaf(here / file, rel, f"{folder.name}/{(here / file).relative_to(folder)}")
            if leaf.note.id in seen:
                raise PackError(f"{leaf.source}: id {leaf.note.id!r} is also {seen[leaf.note.id]}")
            seen[leaf.note.id] = leaf.source
            pack.leaves.append(leaf)
    pack.redirects, pack.summaries = _redirects(root), _summaries(root)
    return pack
