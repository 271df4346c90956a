"""Tool-input strings are redacted only as far as the logged prefix needs, with the result
a full redaction gives: the same characters kept, the same secrets gone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from lorebook.secrets.redact import redact_many
from lorebook.secrets.toolinput import ARG_CHARS, PRECUT_MARGIN, redact_strings
from tests.core.secrets_corpus import AWS_SECRET, FORMS, GH

PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join("MIIEowIBAAKCAQEA7bq98" + "x" * 40 for _ in range(30))
    + "\n-----END RSA PRIVATE KEY-----"
)


def _logged(text: str) -> str:
    """What the log keeps of a tool-input string (the cut ``_rebuilt`` makes)."""
    return text if len(text) <= ARG_CHARS else text[:ARG_CHARS] + "…"


def _both(text: str) -> tuple[str, str]:
    precut = text[: ARG_CHARS + PRECUT_MARGIN]
    return _logged(redact_strings([precut])[0]), _logged(redact_many([precut])[0])


LINES = st.sampled_from(
    [form for _, form, _ in FORMS]
    + ["def main():", "    return run(args)", "", "x" * 700, f"token {GH}", PEM,
       "<private>a note\nover lines</private>", "<private>never closed", "a" * 120,
       f"{AWS_SECRET * 20}"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(LINES, max_size=40))
def test_the_prefix_redaction_equals_a_full_one_once_cut(lines: list[str]) -> None:
    lazy, full = _both("\n".join(lines))
    assert lazy == full


def test_a_secret_straddling_the_cut_and_a_long_token_before_it() -> None:
    straddling = "x" * (ARG_CHARS - 10) + f" {GH} tail"
    value = "s3cr3tValue9" * 60  # a 720-character line that redaction shrinks to a few
    shrinking = f"DB_PASSWORD={value}\n" + "\n".join(f"line {i} of code" for i in range(200))
    for text in (straddling, shrinking, PEM + "\nafter the key", "short"):
        lazy, full = _both(text)
        assert lazy == full
        assert GH[:8] not in lazy
        assert value[:20] not in lazy


def test_a_repeated_string_is_answered_from_memory_with_the_same_redaction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lorebook.secrets import redact, toolinput

    monkeypatch.setattr(redact, "_MEMO", [])  # not inside another test's open block
    command = f"export GITHUB_TOKEN={GH} && git push"
    redacted: list[str] = []
    real = toolinput._redacted_prefix

    def counted(text: str) -> str:
        redacted.append(text)
        return real(text)

    monkeypatch.setattr(toolinput, "_redacted_prefix", counted)
    with redact.scan_settings():
        first, again = redact_strings([command, command])
        assert redact_strings([command]) == [first]
    assert first == again
    assert GH not in first
    assert redacted == [command]  # one redaction: the repeats came from the block's memory
    monkeypatch.setattr(redact, "MEMO_CHARS", 0)  # no memory: every string redacted, the same
    assert redact_strings([command, command]) == [first, first]
    assert len(redacted) == 3
