"""``lorebook eval retrieval``'s serving table: both installs as served, and plain BM25."""

from __future__ import annotations

from pathlib import Path

from lorebook.evaluation.queries import Query
from lorebook.evaluation.serving import Served, measure, served_metrics, without_semantic
from lorebook.hookconfig import HookConfig


def _q(expected: tuple[str, ...]) -> Query:
    return Query("prompt", expected, "answerable" if expected else "refusal", "q")


def test_whole_precision_counts_a_whole_note_served_to_a_refusal_as_wrong() -> None:
    rows = [
        Served(_q(("a",)), ["a", "b"], ["a"]),  # the expected note, whole
        Served(_q(("c",)), ["d", "c"], ["d"]),  # a whole note nobody asked for
        Served(_q(()), ["e"], ["e"]),  # a refusal given a whole note
        Served(_q(()), ["f"], []),  # a refusal given a pointer only
        Served(_q(()), [], []),  # a refusal given nothing
    ]
    m = measure(rows)
    assert m["served_any@3"] == 1.0  # pointers count: c was served as one
    assert (m["whole"], m["whole_precision"]) == (3, 1 / 3)
    assert (m["refusals_no_whole"], m["refusals_nothing"], m["refusals"]) == (2, 1, 3)


def test_the_default_install_is_the_same_settings_without_the_semantic_signal() -> None:
    config = HookConfig(max_notes=2, prompt_chars=900)
    lexical = without_semantic(config)
    assert (lexical.semantic, lexical.max_notes, lexical.prompt_chars) == (False, 2, 900)
    assert config.semantic is True


def test_served_metrics_ranks_a_project_with_its_distractors(tmp_path: Path) -> None:
    notes, others = tmp_path / "notes", tmp_path / "others"
    for folder, name, text in (
        (notes, "uv.md", "Run the tests with uv run pytest, never bare pytest."),
        (others, "yarn.md", "Run the tests with yarn test in the web app."),
    ):
        folder.mkdir()
        (folder / name).write_text(f"---\ndescription: {text}\n---\n{text}\n", encoding="utf-8")
    asked = [Query("how do I run the tests with pytest?", ("uv.md",), "answerable", "q1")]
    alone = served_metrics(notes, asked)
    assert alone["default served_any@3"] == 1.0
    assert alone["default whole precision"] is None  # BM25 alone serves no whole note
    beside = served_metrics(notes, asked, distractors=[others])
    assert beside["default served_any@3"] == 1.0
    assert set(beside) == set(alone)  # plain BM25's figure too (two notes give it no idf)
