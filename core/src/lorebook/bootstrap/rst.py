"""reStructuredText documents read as the Markdown bootstrap distils.

Many projects write their documentation in reStructuredText for Sphinx (``CONTRIBUTING.rst``,
``docs/**/*.rst``). docutils parses it (its grammar of underlined headings, indented
literal blocks, directives and definition lists has many corners a regular expression
would miss), and :func:`as_markdown` writes the parts a rule can stand in back as Markdown:
headings by nesting, paragraphs, bullet and numbered lists, definition and field lists as
items, admonitions ("**Note:** ..."), code as fenced blocks; inline literals and the
interpreted text of Sphinx roles (``:func:`pkg.run```) as code spans, a link as its text.

What holds no rule for a reader of the project is left out: comments, link targets,
substitution definitions, tables, images, raw output, and any directive docutils does not
know (Sphinx's ``toctree``, ``autofunction``, ``versionadded`` ...). ``include`` and
``raw`` are disabled: a document in a cloned repository never makes bootstrap read another
file (``.. include:: ~/.ssh/config``).
"""

from __future__ import annotations

import re

from docutils import nodes
from docutils.core import publish_doctree
from docutils.utils import SystemMessage

SETTINGS = {
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "report_level": 5,
    "halt_level": 5,
    "warning_stream": False,
    "doctitle_xform": False,
    "sectsubtitle_xform": False,
    "syntax_highlight": "none",
    "input_encoding": "unicode",
    "_disable_config": True,
}
"""docutils settings: no file read through a directive or as docutils' own configuration
(a ``docutils.conf`` in the repository or the user's), no messages, sections kept whole."""

ROLE = re.compile(r"(?<![\w`]):(?:[\w-]+:)*[\w-]+:`(?P<body>[^`\n]+)`(?!`)")
"""A role's interpreted text (``:func:`~pkg.run```, ``:ref:`the guide <guide>```)."""
_TITLED = re.compile(r"^(?P<title>.+?)\s*<[^<>]+>$", re.DOTALL)
_PROSE_ROLES = frozenset({"ref", "doc", "term", "abbr", "guilabel", "menuselection", "pep", "rfc"})
_ADMONITIONS = (
    nodes.note, nodes.warning, nodes.important, nodes.tip, nodes.caution, nodes.attention,
    nodes.danger, nodes.error, nodes.hint,
)  # fmt: skip
_SKIPPED = (
    nodes.comment, nodes.target, nodes.substitution_definition, nodes.system_message,
    nodes.raw, nodes.image, nodes.figure, nodes.table, nodes.topic, nodes.transition,
    nodes.footnote, nodes.citation, nodes.pending,
)  # fmt: skip


class RstError(ValueError):
    """A document docutils cannot read as reStructuredText (the message says why)."""


def _role(match: re.Match[str]) -> str:
    """A role's text as docutils reads it without Sphinx: a literal, or prose for a link."""
    whole = match.group(0)
    name = whole[1 : whole.index(":`")].rsplit(":", 1)[-1]
    body = match["body"]
    titled = _TITLED.match(body)
    if titled:
        body = titled["title"]
    elif body.startswith("~"):
        body = body[1:].rsplit(".", 1)[-1]
    body = body.lstrip("!")
    return body if name in _PROSE_ROLES else f"``{body}``"


def as_markdown(text: str) -> str:
    """The document ``text`` (reStructuredText) as Markdown (see the module docstring).

    Raises:
        RstError: docutils could not parse it.
    """
    try:
        tree = publish_doctree(ROLE.sub(_role, text), settings_overrides=SETTINGS)
    except SystemMessage as exc:
        raise RstError(f"not readable as reStructuredText ({str(exc)[:120]})") from None
    except Exception as exc:  # docutils is a parser of text from anywhere: any failure in it
        name = type(exc).__name__  # skips this document, named, and never stops bootstrap
        raise RstError(f"not readable as reStructuredText ({name}: {str(exc)[:120]})") from None
    lines: list[str] = []
    _blocks(tree, lines, depth=0, indent="")
    return "\n".join(lines).strip() + "\n"


def _blocks(parent: nodes.Element, out: list[str], *, depth: int, indent: str) -> None:
    for child in _elements(parent):
        _block(child, out, depth=depth, indent=indent)


def _block(node: nodes.Element, out: list[str], *, depth: int, indent: str) -> None:
    if isinstance(node, (_SKIPPED, nodes.title)):
        return
    if isinstance(node, nodes.section):
        _section(node, out, depth=depth, indent=indent)
    elif isinstance(node, nodes.paragraph):
        out += [f"{indent}{_inline(node)}", ""]
    elif isinstance(node, (nodes.literal_block, nodes.doctest_block)):
        body = node.astext().splitlines()
        out += [f"{indent}```", *(f"{indent}{line}" for line in body), f"{indent}```", ""]
    elif isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
        marker = "1." if isinstance(node, nodes.enumerated_list) else "-"
        for item in _elements(node):
            _item(item, marker, out, depth=depth, indent=indent)
        out.append("")
    elif isinstance(node, (nodes.definition_list, nodes.field_list)):
        for item in _elements(node):
            _term(item, out, depth=depth, indent=indent)
        out.append("")
    elif isinstance(node, _ADMONITIONS):
        _admonition(node, out, depth=depth, indent=indent)
    elif isinstance(node, nodes.line_block):
        out += [f"{indent}{line}" for line in node.astext().splitlines()] + [""]
    else:  # block quote, container, compound, admonition with a title ...
        _blocks(node, out, depth=depth, indent=indent)


def _elements(node: nodes.Element) -> list[nodes.Element]:
    return [child for child in node.children if isinstance(child, nodes.Element)]


def _section(node: nodes.Element, out: list[str], *, depth: int, indent: str) -> None:
    """A heading as deep as the section is nested, then what the section holds."""
    title = node.next_node(nodes.title)
    out += [f"{'#' * min(depth + 1, 6)} {_inline(title) if title is not None else ''}", ""]
    for child in _elements(node):
        _block(child, out, depth=depth + 1, indent=indent)


def _admonition(node: nodes.Element, out: list[str], *, depth: int, indent: str) -> None:
    """A "**Note:** " label before the admonition's first paragraph, its other blocks after it."""
    label = type(node).__name__.capitalize()
    first = node.next_node(nodes.paragraph)
    if first is not None:
        out += [f"{indent}**{label}:** {_inline(first)}", ""]
    for child in _elements(node):
        if child is not first:
            _block(child, out, depth=depth, indent=indent)


def _item(item: nodes.Element, marker: str, out: list[str], *, depth: int, indent: str) -> None:
    """A list item: its first paragraph after the marker, the rest indented under it."""
    children = _elements(item)
    if children and isinstance(children[0], nodes.paragraph):
        out.append(f"{indent}{marker} {_inline(children[0])}")
        children = children[1:]
    else:
        out.append(f"{indent}{marker}")
    inner = indent + " " * (len(marker) + 1)
    for child in children:
        _block(child, out, depth=depth, indent=inner)
    while out and not out[-1].strip():
        out.pop()


def _term(item: nodes.Element, out: list[str], *, depth: int, indent: str) -> None:
    """A definition or field as an item: "* term: its first paragraph".

    Its "*" makes it a list of its own, apart from a "-" list just before it.
    """
    term = item.next_node((nodes.term, nodes.field_name))
    body = item.next_node((nodes.definition, nodes.field_body))
    label = _inline(term) if term is not None else ""
    first = body.next_node(nodes.paragraph) if body is not None else None
    out.append(
        f"{indent}* {label}: {_inline(first)}" if first is not None else f"{indent}* {label}"
    )
    if body is not None:
        for child in _elements(body):
            if child is not first:
                _block(child, out, depth=depth, indent=indent + "  ")
    while out and not out[-1].strip():
        out.pop()


def _inline(node: nodes.Node) -> str:
    """The inline text of ``node`` on one line, with Markdown's marks for code and emphasis."""
    parts: list[str] = []
    for child in node.children:
        if isinstance(child, nodes.Text):
            parts.append(child.astext())
        elif isinstance(child, (nodes.literal, nodes.title_reference)):
            parts.append(f"`{child.astext()}`")
        elif isinstance(child, nodes.strong):
            parts.append(f"**{_inline(child)}**")
        elif isinstance(child, nodes.emphasis):
            parts.append(f"*{_inline(child)}*")
        elif isinstance(child, (nodes.footnote_reference, nodes.citation_reference, nodes.target)):
            continue
        elif isinstance(child, nodes.Element):
            parts.append(_inline(child))
    return " ".join("".join(parts).split())


__all__ = ["RstError", "as_markdown"]
