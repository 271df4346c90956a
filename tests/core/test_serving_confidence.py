"""Serving by confidence: whole only when the ranker is sure, a pointer otherwise.

And the text a model reads: a whole note is one heading with its body, nothing said twice;
``lorebook recall`` says what the hook serves, whole or pointer, and what the budget left out.
"""

from __future__ import annotations

from pathlib import Path

from lorebook.hookconfig import HookConfig
from lorebook.inject.choose import PROMPT_HEADER, choose
from lorebook.inject.render import POINTER_HEADER, whole
from lorebook.recall.index import NoteIndex
from lorebook.recall.serve import Candidate, confidence, is_confident
from tests.conftest import CliRunner
from tests.core.semantic_data import needs_model
from tests.core.test_ranker import TEAM, distractors, index_of, note

ANSWERED = "I'm about to git push --force to main after the rebase, is that ok?"
"""A prompt the force-push note answers: words and meaning agree on it."""
ON_TOPIC = "what does git rebase --onto do, conceptually?"
"""On topic (git) but no note answers it: at most pointers."""


def _choose(
    path: str, prompt: str, config: HookConfig | None = None
) -> tuple[str, list[str], list[str]]:
    with NoteIndex(path) as index:
        served = choose(index, prompt, config or HookConfig())
    return served.text, served.shown, served.whole


@needs_model
def test_a_confident_note_goes_whole_and_an_unanswered_prompt_gets_pointers_only(
    tmp_path: Path,
) -> None:
    path = index_of(tmp_path, [*TEAM, *distractors(40)])
    text, shown, wholes = _choose(path, ANSWERED)
    assert wholes == ["no-force-push"] == shown[:1]
    assert text.startswith(PROMPT_HEADER)
    assert "### Never force-push a shared branch" in text
    text, shown, wholes = _choose(path, ON_TOPIC)
    assert wholes == []  # nothing answers it: never a whole note, never "Follow them"
    assert PROMPT_HEADER not in text
    assert "###" not in text
    assert all(line.startswith("- ") for line in text.splitlines()[1:])
    assert text.startswith(POINTER_HEADER) or text == ""


@needs_model
def test_whole_or_pointer_does_not_drift_with_the_size_of_the_store(tmp_path: Path) -> None:
    small = index_of(tmp_path, TEAM, "small.sqlite")
    large = index_of(tmp_path, [*TEAM, *distractors(250)], "large.sqlite")
    for prompt in (ANSWERED, ON_TOPIC, "how do I run the test suite with uv?"):
        assert _choose(small, prompt)[2] == _choose(large, prompt)[2], prompt


def test_the_default_install_serves_pointers_only(tmp_path: Path) -> None:
    """BM25 alone (no ``lorebook[semantic]``) is never confident: the note is a pointer."""
    path = index_of(tmp_path, TEAM)
    text, shown, wholes = _choose(path, ANSWERED, HookConfig(semantic=False))
    assert shown[:1] == ["no-force-push"]
    assert wholes == []
    assert text.startswith(POINTER_HEADER)
    assert "- Never force-push a shared branch: History on main" in text
    assert "Use `git push --force-with-lease`" not in text  # the body is not served


def test_confidence_explains_every_test_and_agrees_with_the_decision() -> None:
    cand = Candidate("n", lexical=9.0, coverage=0.6, similarity=0.55)
    cand.relevance, cand.lexical_rank, cand.semantic_rank, cand.words = 0.85, 1, 2, 5
    tests = confidence(cand)
    assert all(ok for _, ok in tests)
    assert is_confident(cand)
    cand.similarity = 0.45
    failed = [text for text, ok in confidence(cand) if not ok]
    assert failed == ["meaning 0.45 (needs >= 0.50)"]
    assert not is_confident(cand)
    cand.similarity, cand.semantic_rank = 0.0, 0  # BM25 alone
    failed = [text for text, ok in confidence(cand) if not ok]
    assert failed[0] == "no meaning signal (BM25 alone)"
    assert not is_confident(cand)
    cand.relevance = 13.17  # BM25's own score: no cosine threshold compared with it
    failed = [text for text, ok in confidence(cand) if not ok]
    assert not any("relevance 13.17 (needs >= 0.70)" in text for text in failed)
    assert "meaning not measured (needs >= 0.50)" in failed


def test_a_whole_note_is_one_heading_and_says_nothing_twice() -> None:
    body = (
        "## Never force-push a shared branch\n\n"
        "History on main and release branches is shared with the team.\n\n"
        "Use `git push --force-with-lease` on your own branch only.\n\n"
        "## Why\n\nOthers have pulled it.\n\n"
        "```sh\n## not a heading: a comment in code\n```"
    )
    shared = note(
        "no-force-push", "Never force-push a shared branch",
        "History on main and release branches is shared with the team.", body,
    )  # fmt: skip
    text = whole(shared)
    lines = text.splitlines()
    headings = [line for line in lines if line.startswith("#")]
    assert headings == [
        "### Never force-push a shared branch (convention; .lorebook/nodes/convention/"
        "no-force-push.md)",
        "## not a heading: a comment in code",  # inside the code fence, kept as it is
    ]
    said = [line for line in lines if line.strip()]
    assert len(said) == len(set(said))  # no line repeated
    assert "**Why**" in lines
    assert "Use `git push --force-with-lease` on your own branch only." in lines


def _kb_with_notes(kb_repo: Path, cli: CliRunner, count: int, body: str) -> None:
    for i in range(count):
        done = cli(
            "note", "add", "--title", f"Force-push rule {i}",
            "--description", "Never force-push main; use --force-with-lease on your branch.",
            "--body", body, "--kind", "prohibition", cwd=kb_repo,
        )  # fmt: skip
        assert done.exit_code == 0, done.stderr


def test_recall_says_whole_pointer_or_left_out_as_the_hook_serves(
    kb_repo: Path, cli: CliRunner
) -> None:
    config = kb_repo / ".lorebook/config.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "budgets:\n  prompt_chars: 500\n", encoding="utf-8"
    )
    _kb_with_notes(kb_repo, cli, 12, "Use `git push --force-with-lease`. " * 3)
    doc = cli("recall", "can I force-push main?", "--json", cwd=kb_repo).json()
    served = [n["served"] for n in doc["notes"]]
    assert "left out" in served  # the budget did not hold every note the ranker kept
    assert served.index("left out") == sum(1 for s in served if s != "left out")  # a suffix
    for n in doc["notes"]:
        pointer, heading = f"- {n['title']}: ", f"### {n['title']} ("
        assert (pointer in doc["context"]) == (n["served"] == "pointer")
        assert (heading in doc["context"]) == (n["served"] == "whole")
    shown = cli("recall", "can I force-push main?", cwd=kb_repo)
    assert shown.exit_code == 0, shown.stderr
    assert "left out: the prompt budget (budgets.prompt_chars) was full" in shown.stdout
    assert "left out by the budget" in shown.stdout.splitlines()[0]


def test_recall_explain_lists_the_ranking_with_each_test(kb_repo: Path, cli: CliRunner) -> None:
    _kb_with_notes(kb_repo, cli, 2, "Use `git push --force-with-lease` on your own branch.")
    shown = cli("recall", ANSWERED, "--explain", cwd=kb_repo)
    assert shown.exit_code == 0, shown.stderr
    assert "raw ranking (served or not), each test of confidence" in shown.stdout
    assert "word rank 1" in shown.stdout
    doc = cli("recall", ANSWERED, "--explain", "--json", cwd=kb_repo).json()
    first = doc["ranking"][0]
    assert {"id", "score", "lexical", "coverage", "similarity", "confidence"} <= set(first)
    assert first["confidence"]["confident"] == all(ok for _, ok in first["confidence"]["tests"])


def test_words_get_the_third_place_when_meaning_ranks_the_first_two() -> None:
    from lorebook.recall.serve import words_get_a_place

    def cand(note_id: str, lexical: float) -> Candidate:
        made = Candidate(note_id, lexical=lexical, coverage=0.1, similarity=0.4)
        made.semantic_rank = 1
        return made

    fused = [cand("m1", 1.0), cand("m2", 0.0), cand("m3", 2.0), cand("w", 9.0), cand("m4", 3.0)]
    kept = [(None, c) for c in fused]
    order = [c.id for _, c in words_get_a_place(kept)]  # type: ignore[arg-type]
    assert order == ["m1", "m2", "w", "m3", "m4"]  # BM25's best of the rest, third
    lexical_only = [(None, Candidate(c.id, c.lexical, 0.1, 0.0)) for c in fused]
    same = [c.id for _, c in words_get_a_place(lexical_only)]  # type: ignore[arg-type]
    assert same == ["m1", "m2", "m3", "w", "m4"]  # without the semantic signal: unchanged


def test_a_description_cut_from_the_bodys_first_sentence_is_not_said_again() -> None:
    """An extracted note's description is its quote's sentence, cut with "…" when long;
    served whole, the sentence is said once, in full."""
    sentence = (
        "One thing: in all cases, when updating to-do lists please *never* delete tasks, "
        "instead mark them as done but leave them as a record - if you've deleted to-do "
        "tasks or checklists in any document, please restore them and then instead mark "
        "them as done."
    )
    cut = sentence[:200].rsplit(" ", 1)[0] + " \u2026"
    todo = note("todo-lists", "Never delete tasks from to-do lists", cut, sentence)
    text = whole(todo)
    assert text.count("One thing: in all cases") == 1
    assert sentence in text


def test_a_documents_rule_and_a_sessions_rule_say_their_sentence_once() -> None:
    """Bootstrap's note: title, description and quote are the same sentence; an extracted
    note's description is its sentence, which the body says among the words around it."""
    sentence = "The source IAM user/role must have sts:AssumeRole permission for the target role"
    documented = note(
        "assume-role", sentence, sentence,
        f"> {sentence}\n\nFrom `docs/s3.md`, under Cross-Account Access with IAM Role.",
    )  # fmt: skip
    text = whole(documented)
    assert text.count("sts:AssumeRole permission") == 1, text
    assert "From `docs/s3.md`, under Cross-Account Access with IAM Role." in text
    rule = "Please dont just push through the migrations by executing them on the server."
    said = note(
        "migrations", "Don't just push the migrations through on the server", rule,
        f"You can check the logs on GitHub. {rule} Fix the CD pipeline instead.",
    )  # fmt: skip
    assert whole(said).count("push through the migrations") == 1


def test_a_pointer_whose_description_opens_with_the_title_says_it_once() -> None:
    from lorebook.inject.render import pointer

    extracted = note(
        "update-actions", "Update all actions in that document to 'done' without deleting …",
        "Update all actions in that document to 'done' without deleting them, so we have a "
        "clear record.", "Update all actions ...",
    )  # fmt: skip
    line = pointer(extracted)
    assert line.count("Update all actions") == 1
    assert line.startswith("- Update all actions in that document to 'done' without deleting them")
    written = note("force", "Never force-push", "History on main is shared.", "body")
    assert pointer(written).startswith("- Never force-push: History on main is shared.")
    # the rule stated from the quote: every word of the title is in the description
    stated = note(
        "uv", "Always run the tests with uv run pytest here",
        "We always run the tests with `uv run pytest` here: bare pytest misses the packages.",
        "body",
    )  # fmt: skip
    assert pointer(stated).startswith("- We always run the tests with `uv run pytest` here: bare")
    # a title that corrects the quote's typo still says something: it stays
    typo = note("doc", "Add docstrings to spec files", "add doctrings to spec files", "body")
    assert pointer(typo).startswith("- Add docstrings to spec files: add doctrings")


def test_a_failed_test_never_reads_as_its_threshold() -> None:
    from lorebook.recall.serve import _vs

    # "meaning 0.50 (needs >= 0.50)" beside a failed test: 0.4987 rounded up
    assert _vs(0.4987, 0.5) == "0.499"
    assert _vs(0.49999, 0.5) == "0.49999"
    assert (_vs(0.5, 0.5), _vs(0.61, 0.5), _vs(0.45, 0.5)) == ("0.50", "0.61", "0.45")


def test_a_pointer_does_not_end_on_the_colon_of_a_lead_in() -> None:
    from lorebook.inject.render import pointer

    lead = note(
        "test-path", "Always use a dedicated test path",
        "Always use a dedicated test path to avoid conflicts:", "```go\npath := t.TempDir()\n```",
    )  # fmt: skip
    line = pointer(lead)
    assert "to avoid conflicts (read " in line, line


def test_a_pointer_whose_title_says_all_its_description_does_says_it_once() -> None:
    from lorebook.inject.render import pointer

    # seen on a real project: "X trigger: Do not add a `paths:` filter to its trigger."
    named = note(
        "paths", "Do not add a `paths:` filter to the Protect .github workflow trigger",
        "Do not add a `paths:` filter to its trigger.", "body",
    )  # fmt: skip
    line = pointer(named)
    assert line.count("filter") == 1, line
    # a negation is a word of its own: the description still says what the title does not
    turned = note("filter", "Add a `paths:` filter to the trigger", "Do not add a filter.", "b")
    assert "Do not add a filter" in pointer(turned)
    # nor is a word that limits the rule: "only", "before"
    only = note(
        "ci", "Run the integration tests in CI", "Only run the integration tests in CI.", "b"
    )
    assert "Only run the integration tests in CI" in pointer(only)
    before = note("mig", "Run migrations on deploy", "Run migrations before the deploy.", "b")
    assert "before the deploy" in pointer(before)


def test_two_notes_of_one_paragraph_are_not_both_given_whole() -> None:
    from lorebook.inject.render import layout

    paragraph = "> Never add yourself (Claude) as a co-author on commits. Commits are the user's."
    first = note("no-coauthor", "Never add yourself as a co-author on commits", "d1", paragraph)
    second = note("user-only", "Commits should be authored as the user only", "d2", paragraph)
    other = note("uv", "Run the tests with uv", "d3", "> Always `uv run pytest`.")
    done = layout(PROMPT_HEADER, [first, second, other], 3000)
    assert done.whole == [True, False, True]
    assert done.text.count("Commits are the user's") == 1, done.text
