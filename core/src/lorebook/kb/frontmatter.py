"""YAML frontmatter: split a markdown file, and write frontmatter deterministically.

Reading uses a safe loader that keeps dates as strings (a note never changes type because
a value looked like a timestamp), refuses YAML aliases and deep nesting, and refuses
frontmatter larger than :data:`MAX_FRONTMATTER_BYTES` (see :mod:`lorebook.kb.safeyaml`).
Writing puts lists of plain values in flow style
(``tags: [a, b]``, as OKF tools write them), mappings in block style, multi-line strings as
literal blocks, and never wraps lines, so the same data always gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from lorebook.kb import safeyaml
from lorebook.kb.flatyaml import by_first_character, read_flat

FENCE = "---"
MAX_FRONTMATTER_BYTES = 64 * 1024
"""Frontmatter larger than this is refused before it is parsed."""


class _Loader(safeyaml.SafeLoader):
    """The alias-refusing SafeLoader without the timestamp resolver."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_RESOLVERS = by_first_character(_Loader.yaml_implicit_resolvers)


class _Dumper(yaml.SafeDumper):
    """SafeDumper with flow-style scalar lists and literal multi-line strings."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    flow = all(isinstance(item, str | int | float | bool) or item is None for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(str, _represent_str)


class FrontmatterError(ValueError):
    """The text has no frontmatter, or its YAML is invalid (message says where)."""


def split(text: str) -> tuple[dict[str, Any], str]:
    """Split a markdown document into its frontmatter mapping and its body.

    Raises:
        FrontmatterError: no opening or closing ``---``, invalid YAML, or not a mapping.
    """
    text = text.replace("\r\n", "\n").lstrip("\ufeff")
    if not text.startswith(FENCE + "\n"):
        raise FrontmatterError("the file does not start with a '---' frontmatter line")
    end = text.find("\n" + FENCE + "\n", len(FENCE))
    if end == -1:
        if text.endswith("\n" + FENCE):
            end = len(text) - len(FENCE) - 1
        else:
            raise FrontmatterError("the frontmatter has no closing '---' line")
    raw = text[len(FENCE) + 1 : end + 1]
    body = text[end + len(FENCE) + 2 :]
    if len(raw) * 4 <= MAX_FRONTMATTER_BYTES:  # within the limit however it is encoded
        flat = read_flat(raw, _RESOLVERS)
        if flat is not None:
            return flat, body
    try:
        data = safeyaml.load(raw, max_bytes=MAX_FRONTMATTER_BYTES, loader=_Loader)
    except safeyaml.UnsafeYAMLError as exc:
        raise FrontmatterError(f"unsafe YAML in the frontmatter: {exc}") from None
    except yaml.YAMLError as exc:
        # Where the broken construct started is more useful than where the parser gave up.
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)[:200]
        raise FrontmatterError(f"invalid YAML in the frontmatter{where}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("the frontmatter is not a mapping of keys to values")
    return data, body


def dump(data: Mapping[str, Any]) -> str:
    """Return ``data`` as YAML frontmatter lines (no fences), in the mapping's key order."""
    if not data:
        return ""
    out = yaml.dump(
        dict(data),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1_000_000,
    )
    return str(out)


def render(data: Mapping[str, Any], body: str) -> str:
    """Return a whole markdown document: fenced frontmatter, a blank line, the body."""
    head = f"{FENCE}\n{dump(data)}{FENCE}\n"
    body = body.strip("\n")
    return head + (f"\n{body}\n" if body else "")
