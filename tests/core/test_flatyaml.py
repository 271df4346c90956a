"""The flat frontmatter reader gives exactly what the YAML loader gives, or declines."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from lorebook.kb import frontmatter, safeyaml
from lorebook.kb.flatyaml import read_flat
from lorebook.kb.notes import render_note
from lorebook.models.note import Note

# Characters YAML treats specially, and a few it refuses or reads as line breaks.
TRICKY = "-?:,[]{}#&*!|>'\"%@` \t~=<.+0123456789yYnNtTfFoO_\\/\x85\u2028\x7f\ufeff\u00a0é"
clean = st.text(alphabet="abcdefghij ", max_size=6)
tricky = st.sampled_from([*TRICKY, " #", ": ", "''", "' ", " '", "'", "'", ", ", "- ", "0"])
texts = st.builds(lambda a, t, b: a + t + b, clean, tricky, clean) | clean
"""Letters and spaces with one character or pair YAML may treat specially."""
scalars = st.one_of(
    texts,
    texts,
    texts,
    st.text(max_size=12),
    st.sampled_from(["yes", "No", "null", "~", "1", "01", "0x1F", "1_000", "1.5", "-3", "<<"]),
    st.integers(min_value=-5, max_value=10**20),
    st.booleans(),
    st.none(),
)
documents = st.dictionaries(
    st.from_regex(r"[a-z_]{1,8}", fullmatch=True) | st.sampled_from(["yes", "on", "null"]),
    st.one_of(scalars, st.lists(scalars, max_size=4), st.dictionaries(texts, texts, max_size=1)),
    max_size=4,
)
items = st.lists(texts, max_size=3).map(", ".join) | st.lists(
    texts.map(lambda t: "'" + t.replace("'", "''") + "'") | texts, max_size=3
).map(", ".join)
values = texts | items.map("[{}]".format) | texts.map("'{}'".format)
"""Values as written in a line: plain, a flow list, single-quoted (and near misses)."""


def strictly_equal(a: Any, b: Any) -> bool:
    """Equal values of the same types all the way down (True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(strictly_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(strictly_equal, a, b))
    return bool(a == b)


def loaded(raw: str) -> Any:
    """What the YAML loader makes of ``raw`` (its exception when it refuses it)."""
    try:
        return safeyaml.load(
            raw, max_bytes=frontmatter.MAX_FRONTMATTER_BYTES, loader=frontmatter._Loader
        )
    except Exception as exc:  # any refusal: the flat reader must decline it too
        return exc


def check(raw: str) -> bool:
    """Assert the flat reader declines ``raw`` or reads it as YAML does; True if it read it."""
    flat = read_flat(raw, frontmatter._RESOLVERS)
    if flat is None:
        return False
    assert strictly_equal(flat, loaded(raw)), raw
    return True


@settings(max_examples=400, deadline=None)
@given(documents)
def test_frontmatter_as_written_reads_as_yaml_reads_it(data: dict[str, Any]) -> None:
    check(frontmatter.dump(data) or "\n")


@settings(max_examples=2000, deadline=None)
@given(
    st.sampled_from(["tags", "lb_x", "k", "tags", "lb_x", "k", "yes", "a b", "on", "-k"]),
    st.sampled_from([": ", ": ", ": ", ": ", ":", ":  ", " : "]),
    values,
)
def test_any_line_reads_as_yaml_reads_it_or_is_declined(key: str, sep: str, value: str) -> None:
    check(f"head: x\n{key}{sep}{value}\n")


@pytest.mark.parametrize(
    ("raw", "read"),
    [
        ("title: Use uv, not pip\ntags: [a, b]\nlb_schema: 1\n", True),
        ("a: 'x: y'\nb: ['c:1:2', d, 'it''s']\n", True),
        ("lb_anchors:\n  files: [x]\n", False),  # a nested mapping
        ('a: "quoted"\n', False),
        ("a: b # comment\n", False),
        ("a: 1\na: 2\n", False),  # a repeated key: YAML keeps the last
        ("a: 017\n", False),  # YAML 1.1 octal
        ("a: |\n  block\n", False),
    ],
)
def test_the_flat_form_and_what_is_left_to_yaml(raw: str, read: bool) -> None:
    assert check(raw) is read


def test_every_note_lorebook_writes_is_read_flat() -> None:
    note = Note.model_validate(
        {
            "type": "practice",
            "title": "Run: the tests [fast] with -x, or not",
            "description": "'quoted' start, ends with a colon:",
            "tags": ["py", "c++"],
            "lb_id": "practice-run-tests",
            "lb_kind": "tooling",
            "lb_derived_from": ["claude:abc:3", "docs/x.md"],
            "lb_relates_to": ["practice-other"],
        }
    )
    text = render_note(note, None)
    raw = text[4 : text.index("\n---\n", 3) + 1]
    assert check(raw)
    assert frontmatter.split(text)[0] == loaded(raw)
