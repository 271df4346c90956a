"""Render the host-plugin template into a ready plugin: a harness name in, a plugin out.

Usage::

    python templates/host-plugin/render.py NAME "TITLE" OUTDIR

``NAME`` is the harness name users type after ``lorebook init --harnesses`` (lower case
letters, digits and ``_``, starting with a letter); ``TITLE`` is the host's display name;
``OUTDIR`` is the plugin's folder, created (it must not exist or must be empty). Every
``__HOST__`` and ``__HOST_TITLE__`` in the template's file names and text is replaced, and
the result installs with ``pip install -e OUTDIR`` and passes its tests as it stands.

Standard library only, so it runs before anything is installed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parent
SKIPPED = ("render.py",)
"""Template files that are not part of the rendered plugin (this script)."""

NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
USAGE = 'usage: python render.py NAME "TITLE" OUTDIR'


class RenderError(ValueError):
    """A name, title or output folder the template cannot be rendered with."""


def placeholders(name: str, title: str) -> dict[str, str]:
    """The template's placeholders and their values (the longer placeholder first)."""
    if not NAME.fullmatch(name):
        raise RenderError(
            f"harness name {name!r}: use lower case letters, digits and _, starting with a "
            "letter (at most 40 characters), e.g. acmehost"
        )
    if not title.strip() or any(ch in title for ch in '\n\r"\\'):
        raise RenderError(f"title {title!r}: give the host's display name on one line, no quotes")
    return {"__HOST_TITLE__": title.strip(), "__HOST__": name}


def _sources() -> list[tuple[Path, str]]:
    """(file, path relative to the template) of every file the plugin is made of."""
    found = []
    for source in sorted(TEMPLATE.rglob("*")):
        rel = source.relative_to(TEMPLATE).as_posix()
        if source.is_dir() or "__pycache__" in rel or rel.endswith(".pyc") or rel in SKIPPED:
            continue
        found.append((source, rel))
    return found


def _replace(text: str, values: dict[str, str]) -> str:
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return text


def render(name: str, title: str, target: Path) -> list[Path]:
    """Write the plugin for ``name`` into ``target`` and return the files written.

    Raises:
        RenderError: a bad name or title, or ``target`` exists and is not an empty folder.
    """
    values = placeholders(name, title)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise RenderError(f"{target}: already exists and is not an empty folder")
    written = []
    for source, rel in _sources():
        out = target / _replace(rel, values)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(_replace(source.read_text(encoding="utf-8"), values), encoding="utf-8")
        written.append(out)
    return written


def main(argv: list[str]) -> int:
    """Command line: ``render.py NAME TITLE OUTDIR``; 0 on success, 2 on a bad argument."""
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if len(argv) != 3:
        print(USAGE, file=sys.stderr)
        return 2
    name, title, outdir = argv
    try:
        written = render(name, title, Path(outdir))
    except RenderError as error:
        print(f"render.py: {error}", file=sys.stderr)
        return 2
    print(f"wrote lorebook-{name} ({len(written)} files) in {outdir}")
    print(f"next: pip install -e {outdir} && (cd {outdir} && pytest)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
