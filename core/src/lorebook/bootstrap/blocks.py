"""Markdown read as a reader sees it: paragraphs and list items, under their headings.

Bootstrap judges sentences, and a sentence means what its place in the document makes it
mean: an item of a numbered list may be a step of a procedure, an item under "Never:" is
a prohibition even when it reads "commit secrets". So a section's text is cut into
:class:`Block` s, each knowing the headings above it, whether it is a list item (of an
ordered list or not, how deep), and what introduced it (the parent item, or the paragraph
that ends with a colon right before its list).

Left out: code (fenced, or indented after a blank line outside a list) and the numbered
notes right after a code block that marks its lines for them (``# (1)!``), tables, HTML
comments and tags on their own lines, and thematic breaks. A paragraph that is only bold
text is read as a heading below the others. Block quotes and admonitions
(``> [!NOTE]``, ``!!! note``) are read as paragraphs: documentation writes rules in them. A
block quote right after a code block is what the command printed ("> I'm doing great ...",
a model's reply shown under ``llm -t roast ...``) and is left out too, unless it opens with
a label ("> **Note:** ...").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
ITEM = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>[-*+]|\d{1,3}[.)])[ \t]+(?P<text>\S.*)$")
"""A list item's line: its indent, its marker (a bullet, or a number and its delimiter)."""
_QUOTE = re.compile(r"^\s*>\s?")
_LABELLED = re.compile(
    r"^\s*(?:\[!\w+\]|\**(?:note|warning|caution|important|tip|rule|never|always)\b)", re.IGNORECASE
)
"""A block quote that opens with a label (``[!NOTE]``, "**Note:**", "Warning"): the writer's
aside, even right after a code block."""
_ADMONITION = re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s*\w+|^\s*\[!\w+\]\s*$")
_ANNOTATION = re.compile(r"(?:#|//|--|/\*)\s*\(\d{1,2}\)!?\s*(?:\*/)?\s*$")
"""A code line's annotation marker (``return messages[-5:]  # (1)!``): the numbered list
after the code block explains the code, line by line; it states no rule (left out)."""
_BREAK = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,}|={3,})\s*$")
_TAG_LINE = re.compile(r"^\s*</?[A-Za-z][^>]*>\s*$|^\s*<(?:img|br|hr|details|summary|div|p)\b")
_TABLE = re.compile(r"^\s*\|")
_PSEUDO_HEADING = re.compile(r"^\*\*([^*\n]{1,80})\*\*:?$|^__([^_\n]{1,80})__:?$")
"""A paragraph that is only bold text ("**Testing**") is a heading in all but markup."""
PSEUDO_LEVEL = 7
LEAD_WORDS = 4
"""A bold paragraph of this many words or more, ending in a colon right before code, is the
sentence that introduces the code; a shorter one ("**Correct usage:**") labels it."""
TAB = 4


@dataclass(frozen=True, slots=True)
class Block:
    """A paragraph or a list item of a document's section.

    Attributes:
        text: The block's text as written (list marker and quote markers removed; lines
            joined with newlines).
        headings: The titles of the headings above it, outermost first.
        item: True for a list item.
        ordered: True for an item of a numbered list.
        depth: How deep the item is nested (0 for a top-level item or a paragraph).
        lead: What introduces it: a nested item's parent item, or the paragraph right
            before its list (empty when nothing does).
        list_id: The list it belongs to (0 for a paragraph): items of one list share it.
    """

    text: str
    headings: tuple[str, ...]
    item: bool = False
    ordered: bool = False
    depth: int = 0
    lead: str = ""
    list_id: int = 0


@dataclass(slots=True)
class _Open:
    lines: list[str]
    item: bool
    ordered: bool
    depth: int
    indent: int
    lead: str
    list_id: int
    marker: str = "-"
    """The item's bullet (``-``, ``*``, ``+``) or an ordered item's delimiter (``.``, ``)``)."""


@dataclass(slots=True)
class _Reader:
    headings: list[tuple[int, str]] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    current: _Open | None = None
    items: list[_Open] = field(default_factory=list)
    """The list items open above the current line (the nesting), outermost first."""
    lists: int = 0
    last_paragraph: str = ""
    blank: bool = True
    bold_lead: str = ""
    """The last heading, when it was a bold paragraph ending in a colon: before code, the
    sentence that introduces it ("**ALL queries MUST be scoped to the account:**")."""

    def flush(self) -> None:
        block = self.current
        self.current = None
        if block is None:
            return
        text = "\n".join(line.strip() for line in block.lines).strip()
        if not text:
            return
        if not block.item and (pseudo := _PSEUDO_HEADING.match(text)):
            self.heading(PSEUDO_LEVEL, (pseudo.group(1) or pseudo.group(2)).strip())
            self.bold_lead = text.rstrip("*_").rstrip() if text.rstrip("*_").endswith(":") else ""
            return
        self.bold_lead = ""
        heads = tuple(title for _, title in self.headings)
        self.blocks.append(
            Block(text, heads, block.item, block.ordered, block.depth, block.lead, block.list_id)
        )
        if not block.item:
            self.last_paragraph = text

    def code(self) -> None:
        """A code block opens: a bold lead-in right before it is a sentence, not a heading."""
        self.flush()
        lead, self.bold_lead = self.bold_lead, ""
        sentence = len(lead.split()) >= LEAD_WORDS  # "**Example:**" stays a label
        if sentence and self.headings and self.headings[-1][0] == PSEUDO_LEVEL:
            self.headings.pop()
            text = lead.strip("*_ ").rstrip(":*_ ")
            heads = tuple(title for _, title in self.headings)
            self.blocks.append(Block(text, heads, False, False, 0, "", 0))

    def heading(self, level: int, title: str) -> None:
        self.flush()
        self.bold_lead = ""
        self.items.clear()
        self.last_paragraph = ""
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, title))

    def item(self, indent: int, marker: str, text: str) -> None:
        self.flush()
        while self.items and self.items[-1].indent > indent:
            self.items.pop()
        kind = marker[-1]
        if self.items and self.items[-1].indent == indent and self.items[-1].marker != kind:
            self.items.pop()  # another bullet starts another list, as in CommonMark
        if self.items and self.items[-1].indent == indent:
            sibling = self.items.pop()
            list_id, lead, depth = sibling.list_id, sibling.lead, sibling.depth
        elif self.items:
            parent = self.items[-1]
            self.lists += 1
            list_id, lead, depth = self.lists, "\n".join(parent.lines), parent.depth + 1
        else:
            self.lists += 1
            lead = self.last_paragraph if self.last_paragraph.endswith(":") else ""
            list_id, depth = self.lists, 0
        ordered = marker[0].isdigit()
        opened = _Open([text], True, ordered, depth, indent, lead, list_id, kind)
        self.items.append(opened)
        self.current = opened

    def paragraph_line(self, line: str) -> None:
        if self.current is None:
            if not (self.items and _indent(line) > 0):
                self.items.clear()
                self.last_paragraph = ""
            self.current = _Open([], False, False, 0, 0, "", 0)
        self.current.lines.append(line)


def _indent(line: str) -> int:
    expanded = line.expandtabs(TAB)
    return len(expanded) - len(expanded.lstrip(" "))


def _skipped(line: str, reader: _Reader) -> bool:
    """Tables, HTML tags, breaks and indented code: nothing a sentence is read from."""
    if _TABLE.match(line) or _TAG_LINE.match(line) or _BREAK.match(line):
        return True
    code = reader.blank and _indent(line) >= TAB and not reader.items
    return code and reader.current is None


def read_blocks(text: str) -> list[Block]:
    """The paragraphs and list items of ``text`` in order (see the module docstring)."""
    reader = _Reader()
    fenced = comment = shown = marked = notes = False
    for raw in text.splitlines():
        quoted = bool(_QUOTE.match(raw))
        line = _QUOTE.sub("", raw, count=1) if quoted else raw
        if notes:  # the numbered notes on the code above ("1. Keep only the last five")
            numbered = ITEM.match(line)
            if (
                not line.strip()
                or line[:1] in " \t"
                or (numbered and numbered["marker"][0].isdigit())
            ):
                continue
            notes = False
        if shown:  # right after a code block: a block quote is what it printed
            if quoted and not _LABELLED.match(line):
                continue
            shown = not line.strip() and not quoted
        if comment or line.lstrip().startswith("<!--"):
            comment = "-->" not in line
            reader.flush()
            continue
        if _FENCE.match(line):
            fenced = not fenced
            shown = not fenced
            notes, marked = marked and not fenced, False
            if fenced:
                reader.code()
            else:
                reader.flush()
            continue
        if fenced:
            marked = marked or bool(_ANNOTATION.search(line))
            continue
        _read_line(reader, line)
    reader.flush()
    return reader.blocks


def _read_line(reader: _Reader, line: str) -> None:
    if not line.strip() or _ADMONITION.match(line):
        reader.flush()
        reader.blank = True
        return
    if _skipped(line, reader):
        reader.flush()
        return
    heading = _HEADING.match(line)
    if heading:
        reader.heading(len(heading.group(1)), heading.group(2).strip())
    elif item := ITEM.match(line):
        reader.item(_indent(item.group("indent")), item.group("marker"), item.group("text"))
    elif reader.current is not None and reader.current.item and not reader.blank:
        reader.current.lines.append(line)  # a wrapped line of the item
    else:
        reader.paragraph_line(line)
    reader.blank = False


__all__ = ["ITEM", "Block", "read_blocks"]
