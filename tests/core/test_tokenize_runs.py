"""The tokenizer's possessive run pattern finds exactly the runs of the plain one."""

from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from lorebook.recall import tokenize

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
