"""The tokenizer's runs: the possessive pattern finds exactly the runs of the plain one, and
a contraction gives its head's tokens only."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings, strategies as st

from lorebook.hookconfig import HookConfig
from lorebook.recall import tokenize
from tests.core.test_ranker import index_of, note, served

PLAIN = re.compile(r"[A-Za-z0-9_]+(?:[./\-][A-Za-z0-9_]+)*")
code_like = st.text(alphabet=st.sampled_from("aZ09_./-- \n:é(getUserName)"), max_size=40)


@settings(max_examples=500, deadline=None)
@given(code_like)
def test_runs_are_those_of_the_plain_pattern(text: str) -> None:
    assert tokenize._RUN_RE.findall(text) == PLAIN.findall(text)


def test_a_path_and_a_trailing_separator() -> None:
    assert tokenize._RUN_RE.findall("see src/pay/billing.py. and a.b- c--d") == [
        "see", "src/pay/billing.py", "and", "a.b", "c", "d"
    ]  # fmt: skip


def test_a_contraction_gives_its_head_and_never_a_piece_of_its_tail() -> None:
    text = "we're done, isn't it? I'll check the user's CLI\u2019s config; DON'T"
    assert tokenize.tokenize(text) == ["check", "user", "cli", "config"]


def test_a_note_is_not_served_for_a_contraction_the_prompt_and_the_note_share(
    tmp_path: Path,
) -> None:
    # Split at the apostrophe, "we're" gave "re" and "isn't" gave "isn": a prompt saying
    # "we're" was served the note that says "you're" and nothing else the prompt says.
    notes = [
        note(
            "tone",
            "Personality",
            "How to answer when the user pushes back",
            "When the user challenges your output, you're not to agree by default and it "
            "isn't enough to apologise: focus on correctness.",
        ),
        note(
            "csv-export",
            "CSV export",
            "The report export writes CSV through the streaming writer",
            "Use the streaming writer for every CSV export; never build the file in memory.",
        ),
    ]
    path = index_of(tmp_path, notes)
    lexical = HookConfig(semantic=False)  # the default install: words alone decide
    assert served(path, "the CSV export isn't streaming yet, we're on it", lexical) == [
        "csv-export"
    ]
    assert served(path, "we're waiting and it isn't clear why", lexical) == []
