"""The tokenizer's runs: the possessive pattern finds exactly the runs of the plain one, a
contraction gives its head's tokens only, and words of every script count."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings, strategies as st

from lorebook.hookconfig import HookConfig
from lorebook.recall import tokenize
from tests.core.test_ranker import index_of, note, served

PLAIN = re.compile(r"\w+(?:[./\-]\w+)*")
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


def test_an_accented_word_is_one_token_with_its_accents_folded() -> None:
    # Only ASCII letters counted: "größe" gave "gr" and "préfère" gave "pr" and "re".
    assert tokenize.tokenize("call it `größe`; je préfère Café-au-lait") == [
        "call", "große", "je", "prefere", "cafe", "au", "lait", "cafe-au-lait"
    ]  # fmt: skip


def test_chinese_and_japanese_give_two_characters_side_by_side() -> None:
    assert tokenize.tokenize("不要修改 vue 的代码") == [
        "不要",
        "要修",
        "修改",
        "vue",
        "的代",
        "代码",
    ]
    assert tokenize.tokenize("テスト") == ["テス", "スト"]
    assert tokenize.tokenize("我") == ["我"]


def _teams_notes() -> list:  # type: ignore[type-arg]
    return [
        note(
            "vue-is-the-standard",
            "不要修改 Vue 的代码",
            "同步示例时以 Vue 为标准",
            "同步 React、Solid 和 Svelte 的示例时，Vue 是标准：不要修改 Vue 的代码。",
        ),
        note(
            "comments-in-english",
            "注释和提示文本都用英文",
            "脚本的注释不用中文，也不用 emoji",
            "脚本里的注释和提示文本都写英文，不要中文，不要 emoji。",
        ),
        note(
            "tests-in-french",
            "Les tests vérifient le comportement",
            "Préférer des tests de comportement aux tests d'implémentation",
            "On préfère tester le comportement visible plutôt que les détails internes.",
        ),
    ]


def test_a_chinese_note_is_served_for_a_chinese_prompt(tmp_path: Path) -> None:
    path = index_of(tmp_path, _teams_notes())
    lexical = HookConfig(semantic=False)
    assert served(path, "帮我给这个脚本的注释写成英文", lexical)[:1] == ["comments-in-english"]
    assert served(path, "我可以直接修改 vue 的代码吗？", lexical)[:1] == ["vue-is-the-standard"]


def test_a_prompt_typed_without_accents_finds_the_accented_note(tmp_path: Path) -> None:
    path = index_of(tmp_path, _teams_notes())
    lexical = HookConfig(semantic=False)
    assert served(path, "faut-il preferer l implementation ?", lexical)[:1] == ["tests-in-french"]


def test_a_mixed_case_name_of_short_parts_is_one_word() -> None:
    assert tokenize.tokenize("publish to PyPI from iOS") == ["publish", "pypi", "ios"]
    assert tokenize.tokenize("expect(x).toBe(y)") == ["expect", "to", "be", "tobe"]


def test_a_release_prompt_naming_pypi_is_not_served_python_file_notes(tmp_path: Path) -> None:
    # "PyPI" split at its case gave "py", the extension of every Python file a note names:
    # a prompt about publishing got every note that mentions setup.py or cleanup.py.
    notes = [
        note(
            "no-setup-py",
            "No setup.py, only pyproject.toml",
            "Packaging metadata lives in pyproject.toml",
            "I don't want setup.py, just pyproject.toml.",
        ),
        note(
            "cleanup-status",
            "Run python ./cleanup.py status before committing",
            "The cleanup script reports lint and test results",
            "Periodically run `python ./cleanup.py status` to see the results of lints and tests.",
        ),
    ]
    path = index_of(tmp_path, notes)
    lexical = HookConfig(semantic=False)
    assert served(path, "bump the version and publish a release to PyPI", lexical) == []
    assert served(path, "should I add a setup.py?", lexical)[:1] == ["no-setup-py"]
