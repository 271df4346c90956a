"""YAML for files a pull request can change: no aliases, bounded size and depth.

A few hundred bytes of nested aliases (``a: &a [x, x]``, ``b: &b [*a, *a]``, ...) expand to
billions of nodes in whatever walks the result (validation, JSON, an error message), so a
committed note or ``config.yaml`` holding one would stall every session start. Aliases are
therefore refused outright (no tool we know writes them into frontmatter or config), and the
text is refused above a size before the parser sees it.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_DEPTH = 64
"""Deepest nesting of mappings and lists accepted."""


class UnsafeYAMLError(yaml.YAMLError):
    """The YAML holds an alias, nests too deep, or is too large (the message says which)."""


class SafeLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader, refusing aliases and nesting deeper than :data:`MAX_DEPTH`."""

    _lb_depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:  # noqa: D102 - PyYAML's hook
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            line = f"line {mark.line + 1}: " if mark is not None else ""
            raise UnsafeYAMLError(f"{line}YAML aliases (*name) are not accepted")
        if self._lb_depth >= MAX_DEPTH:
            raise UnsafeYAMLError(f"nested deeper than {MAX_DEPTH} levels")
        self._lb_depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._lb_depth -= 1


def load(text: str, *, max_bytes: int, loader: type[yaml.SafeLoader] = SafeLoader) -> Any:
    """Parse ``text`` with ``loader``; refuse it above ``max_bytes`` UTF-8 bytes.

    Raises:
        UnsafeYAMLError: too large, an alias, or too deep.
        yaml.YAMLError: any other invalid YAML.
    """
    size = len(text.encode("utf-8", "surrogatepass")) if len(text) * 4 > max_bytes else 0
    if size > max_bytes:
        raise UnsafeYAMLError(f"{size:,} bytes of YAML, more than the {max_bytes:,} accepted")
    return yaml.load(text, Loader=loader)
