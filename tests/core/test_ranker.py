"""The prompt ranker as a user meets it: what is served, in which order, and what is refused."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from lorebook.hookconfig import HookConfig
from lorebook.inject.choose import choose
from lorebook.inject.render import layout
from lorebook.recall import semantic
from lorebook.recall.index import IndexedNote, NoteIndex, index_path
from lorebook.recall.serve import build_index, rank_prompt
from tests.conftest import CliRunner
from tests.core.semantic_data import PASTED, needs_model


def note(note_id: str, title: str, description: str, body: str = "", **kw: object) -> IndexedNote:
    return IndexedNote(
        id=note_id, path=f"convention/{note_id}.md", mtime_ns=0, size=len(body),
        status=str(kw.get("status", "active")), kind="convention", enforce="warn",
        title=title, description=description, body=body,
        tags=tuple(kw.get("tags", ())),  # type: ignore[arg-type]
    )  # fmt: skip


TEAM = [
    note(
        "run-tests-with-uv",
        "Run the test suite with uv run pytest",
        "Bare pytest misses the workspace packages.",
        "Always run `uv run pytest`; plain `pytest` imports the installed copy instead.",
    ),
    note(
        "no-force-push",
        "Never force-push a shared branch",
        "History on main and release branches is shared with the team.",
        "Use `git push --force-with-lease` on your own branch only; never on main.",
    ),
    note(
        "money-in-cents",
        "Store money as integer cents",
        "Floating point amounts drift when summed.",
        "Amounts are `int` cents everywhere; format them only at the edge.",
    ),
    note(
        "changelog-every-pr",
        "Every pull request adds a changelog line",
        "Release notes are assembled from CHANGELOG.md.",
        "Add one line under Unreleased describing the user-visible change.",
    ),
]

FILLER = (
    "The component renders a list of items with pagination and a search box. State lives "
    "in a store; effects fetch data from the API and cache it. Errors are shown in a toast. "
)


def distractors(count: int) -> list[IndexedNote]:
    """Generic community-style rules about other stacks."""
    topics = ["react", "vue", "django", "rails", "flutter", "spring", "laravel", "svelte"]
    return [
        note(
            f"x-{i:03d}",
            f"{topics[i % len(topics)].title()} guideline {i}",
            f"How to structure {topics[i % len(topics)]} components and services.",
            FILLER * (1 + i % 4),
        )
        for i in range(count)
    ]


def index_of(tmp_path: Path, notes: list[IndexedNote], name: str = "index.sqlite") -> str:
    path = str(tmp_path / name)
    build_index(path, notes)
    return path


def served(path: str, prompt: str, config: HookConfig | None = None) -> list[str]:
    with NoteIndex(path) as index:
        return choose(index, prompt, config or HookConfig()).shown


def test_a_long_note_does_not_win_by_volume(tmp_path: Path) -> None:
    # A 30 KB note that mentions every generic word many times, and a focused note.
    sprawling = note(
        "everything",
        "Assorted project guidelines",
        "Everything we ever wrote down.",
        "\n\n".join(
            f"## Part {i}\n\nEvery test we run: a test per module, run in CI, test data kept small. "
            + FILLER * 3
            for i in range(60)
        ),
    )
    path = index_of(tmp_path, [sprawling, *TEAM])
    with NoteIndex(path) as index:
        ranked = [c.id for c in rank_prompt(index, "how do I run the test suite?", semantic=False)]
    assert len(sprawling.body) > 30_000
    assert ranked[0] == "run-tests-with-uv"


def test_title_words_weigh_more_than_body_words(tmp_path: Path) -> None:
    in_title = note("a-title", "Cents for money", "How amounts are stored.", "Store ints.")
    in_body = note("b-body", "Amounts", "How amounts are stored.", "Use cents for money.")
    path = index_of(tmp_path, [in_body, in_title])
    with NoteIndex(path) as index:
        ranked = [c.id for c in rank_prompt(index, "cents money", semantic=False)]
    assert ranked == ["a-title", "b-body"]


def test_the_budget_keeps_the_ranking_and_turns_the_rest_into_pointers() -> None:
    big = note("big", "Big first note", "It matters most.", "word " * 2000)
    small = [note(f"s{i}", f"Small note {i}", f"Short {i}.", "short body") for i in range(3)]
    laid = layout("header", [big, *small], 1500)
    text, ids = laid.text, laid.ids
    assert ids == ["big", "s0", "s1", "s2"]  # nothing dropped, nothing reordered
    assert laid.whole == [False, False, False, False]
    assert "### Small note 0" not in text  # after the first pointer, only pointers
    assert "- Big first note: It matters most. (read .lorebook/nodes/convention/big.md)" in text
    assert len(text) <= 1500


def test_lexical_mode_serves_a_matching_note_and_refuses_an_unrelated_prompt(
    tmp_path: Path,
) -> None:
    path = index_of(tmp_path, TEAM)
    config = HookConfig(semantic=False)
    assert served(path, "can I force-push main after the rebase?", config)[0] == "no-force-push"
    assert served(path, "what is the capital of Mongolia?", config) == []


@needs_model
def test_a_prompt_in_other_words_still_finds_its_note(tmp_path: Path) -> None:
    path = index_of(tmp_path, [*TEAM, *distractors(40)])
    # No word of the prompt is in the note: only the semantic signal can find it.
    prompt = "the invoice total is off by a fraction of a penny after adding prices"
    with NoteIndex(path) as index:
        lexical = [c.id for c in rank_prompt(index, prompt, semantic=False)]
        fused = [c.id for c in rank_prompt(index, prompt)]
    assert "money-in-cents" not in lexical
    assert fused[0] == "money-in-cents"


@needs_model
def test_the_serve_or_refuse_call_does_not_drift_with_the_size_of_the_store(
    tmp_path: Path,
) -> None:
    small = index_of(tmp_path, TEAM, "small.sqlite")
    large = index_of(tmp_path, [*TEAM, *distractors(250)], "large.sqlite")
    answered = "I'm about to git push --force to main, is that ok?"
    unrelated = "what's a good recipe for banana bread?"
    assert served(small, answered)[:1] == served(large, answered)[:1] == ["no-force-push"]
    assert served(small, unrelated) == served(large, unrelated) == []


@needs_model
def test_ranking_reaches_no_network(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("lorebook tried to open a network socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("LOREBOOK_CACHE_DIR", str(tmp_path / "cache"))  # a fresh piece table
    path = index_of(tmp_path, TEAM)
    assert served(path, "do prices go in floats or cents?")[0] == "money-in-cents"


@needs_model
def test_a_note_added_through_the_cli_is_embedded_and_served(kb_repo: Path, cli: CliRunner) -> None:
    added = cli(
        "note", "add", "--title", "Store money as integer cents", "--kind", "convention",
        "--description", "Floating point amounts drift when summed.",
        "--body", "Amounts are int cents everywhere; format them only at the edge.",
        cwd=kb_repo,
    )  # fmt: skip
    assert added.exit_code == 0, added.stderr
    path = index_path(str(kb_repo / ".lorebook"))
    with NoteIndex(path) as index:
        [(nums, inverse, ints)] = list(index.vector_chunks())
        assert (len(nums), len(inverse), len(ints)) == (4, 4, semantic.DIM)  # one note
        assert [len(v) for v in index.note_vectors([1]).values()] == [4 + semantic.DIM]
    assert len(served(path, "do prices go in floats or cents?")) == 1


@needs_model
def test_a_prompt_is_cut_into_the_same_pieces_with_and_without_the_hash_filter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = semantic.ensure_piece_table()
    assert table is not None
    monkeypatch.setattr(semantic, "open_piece_file", lambda table: None)  # read the table
    filtered, unfiltered, unlucky = (semantic.Embedder(table) for _ in range(3))
    unfiltered._hashes = lambda *table: None  # type: ignore[method-assign]  # an old table
    real_cut = unlucky._cut_by_hashes

    def chance_match(chunks: list[str]) -> dict[str, list[str]] | None:
        cuts = real_cut(chunks)
        assert cuts
        return {chunk: [chunk[:2], "\u2581zzqxj"] for chunk in cuts}  # no such piece

    unlucky._cut_by_hashes = chance_match  # type: ignore[method-assign]
    try:
        assert filtered.pieces(PASTED) == unfiltered.pieces(PASTED) == unlucky.pieces(PASTED)
        assert filtered.embed(PASTED) == unfiltered.embed(PASTED)
        assert filtered.hashes["prefix_hashes"]  # the cut came from the hashes
    finally:
        for embedder in (filtered, unfiltered, unlucky):
            embedder.close()


@needs_model
def test_a_text_embeds_to_the_same_bits_however_its_vectors_are_summed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """simsimd, plain Python and the index writers' numpy sum give one vector, bit for bit.

    A note embedded by a rebuild (numpy, every note at once) and by ``note add`` (one note,
    simsimd) gets the same vector; so does a prompt with or without simsimd installed.
    """
    table = semantic.ensure_piece_table()
    assert table is not None
    texts = [PASTED, "the the the session start hook fails when the repo path has spaces"]
    embedder, bulk = semantic.Embedder(table), semantic.Embedder(table, bulk=True)
    try:
        fast = [embedder.embed(text) for text in texts]
        summed_by_numpy = [bulk.embed(text) for text in texts]
        monkeypatch.setitem(sys.modules, "simsimd", None)  # `import simsimd` raises
        plain = [embedder.embed(text) for text in texts]
    finally:
        embedder.close()
        bulk.close()
    assert all(any(vector) for vector in fast)
    assert fast == plain == summed_by_numpy
