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

    With libyaml present (PyYAML's C extension, in its wheels), the text is parsed and
    composed in C and the node graph checked here (an alias is a node reached twice), which
    is some fifty times faster than the pure-Python composer: a 10,000-note rebuild parses
    10,000 frontmatters. The rules and the errors are the same either way.

    Raises:
        UnsafeYAMLError: too large, an alias, or too deep.
        yaml.YAMLError: any other invalid YAML.
    """
    size = len(text.encode("utf-8", "surrogatepass")) if len(text) * 4 > max_bytes else 0
    if size > max_bytes:
        raise UnsafeYAMLError(f"{size:,} bytes of YAML, more than the {max_bytes:,} accepted")
    fast = _c_twin(loader)
    if fast is None:
        return yaml.load(text, Loader=loader)
    parser = fast(text)
    try:
        try:
            node = parser.get_single_node()
        except yaml.YAMLError as exc:
            if "maximum nesting depth" in str(exc):  # libyaml's own, higher, limit
                raise UnsafeYAMLError(f"nested deeper than {MAX_DEPTH} levels") from None
            raise
        if node is None:
            return None
        try:
            return _Builder(parser).build(node, 1)
        except _Unusual:
            _check_graph(node)
            return parser.construct_document(node)
    finally:
        parser.dispose()


_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_SPECIAL_KEYS = frozenset({"tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"})


class _Unusual(Exception):
    """A construct the builder leaves to PyYAML's constructor (merge keys, complex keys)."""


class _Builder:
    """Builds plain data from a node graph in one pass, checking it as it goes.

    What frontmatter holds (mappings with scalar keys, lists, strings) is built here;
    other scalars (numbers, booleans, null) by PyYAML's safe constructor, node by node, so
    the values are exactly PyYAML's. A node reached twice (an alias) or nesting past
    :data:`MAX_DEPTH` is refused as :func:`_check_graph` refuses it; anything unusual
    raises :class:`_Unusual` and the document is checked and built the general way.
    """

    def __init__(self, parser: Any) -> None:
        self.parser = parser
        self.seen: set[int] = set()

    def build(self, node: yaml.Node, depth: int) -> Any:
        if id(node) in self.seen:
            mark = node.start_mark
            line = f"line {mark.line + 1}: " if mark is not None else ""
            raise UnsafeYAMLError(f"{line}YAML aliases (*name) are not accepted")
        self.seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _STR:
                return node.value
            return self.parser.construct_object(node, deep=True)
        if depth > MAX_DEPTH:
            raise UnsafeYAMLError(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, yaml.SequenceNode) and node.tag == _SEQ:
            return [self.build(child, depth + 1) for child in node.value]
        if isinstance(node, yaml.MappingNode) and node.tag == _MAP:
            built: dict[Any, Any] = {}
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag in _SPECIAL_KEYS:
                    raise _Unusual
                built[self.build(key, depth + 1)] = self.build(value, depth + 1)
            return built
        raise _Unusual


_TWINS: dict[type[Any], type[Any]] = {}


def _c_twin(loader: type[yaml.SafeLoader]) -> type[Any] | None:
    """The libyaml safe loader with ``loader``'s resolvers, or None without libyaml."""
    if not getattr(yaml, "__with_libyaml__", False):
        return None
    twin = _TWINS.get(loader)
    if twin is None:
        twin = type(
            f"C{loader.__name__}",
            (yaml.CSafeLoader,),
            {"yaml_implicit_resolvers": loader.yaml_implicit_resolvers},
        )
        _TWINS[loader] = twin
    return twin


def _check_graph(root: yaml.Node) -> None:
    """Refuse a node graph that reuses a node (an alias) or nests past :data:`MAX_DEPTH`."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            mark = node.start_mark
            line = f"line {mark.line + 1}: " if mark is not None else ""
            raise UnsafeYAMLError(f"{line}YAML aliases (*name) are not accepted")
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode | yaml.MappingNode):
            if depth > MAX_DEPTH:
                raise UnsafeYAMLError(f"nested deeper than {MAX_DEPTH} levels")
            children = (
                node.value
                if isinstance(node, yaml.SequenceNode)
                else [item for pair in node.value for item in pair]
            )
            stack.extend((child, depth + 1) for child in children)
