"""What `lorebook eval retrieval` reads: note folders of every format, query sets, and the
one-line errors a bad input gets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lorebook.evaluation.corpus import add_distractors, load_collection
from lorebook.evaluation.lenient import split_lenient
from lorebook.evaluation.queries import load_queries, resolve_expected
from lorebook.evaluation.retrieval import load_evalset
from tests.conftest import SHARED, CliRunner

RULE_GLOBS = """---
description: Use this when a command prints JSON, or before reaching for grep/awk/sed
globs: **/*.ts, src/**/*.json
alwaysApply: false
---
Intro line.

```sh
# not a heading: inside a code fence
```

## JSON Parsing Best Practices

Never grep JSON: use jq.
"""
RULE_TWO_BLOCKS = """---
name: Ensure ASCII Code Symbols
---
---
description: "REQUIRED: code symbols use ASCII only"
globs: ["**/*.ts"]
alwaysApply: true
---
# Rule: Ensure ASCII Code Symbols

---
Body after a horizontal rule.
"""


def test_cursor_rules_are_read_leniently(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "json-parsing.mdc").write_text(RULE_GLOBS)
    (rules / "ensure-ascii.mdc").write_text(RULE_TWO_BLOCKS)
    (rules / "README.md").write_text("No front matter and no heading here.\n")
    got = load_collection(rules)
    assert got.format == "cursor-rules"
    notes = {n.id: n for n in got.notes}
    assert sorted(notes) == ["README.md", "ensure-ascii.mdc", "json-parsing.mdc"]
    parsing = notes["json-parsing.mdc"]
    assert parsing.title == "JSON Parsing Best Practices"
    assert parsing.description.startswith("Use this when a command prints JSON")
    assert parsing.body.startswith("Intro line.")
    ascii_rule = notes["ensure-ascii.mdc"]
    assert (ascii_rule.title, ascii_rule.description) == (
        "Rule: Ensure ASCII Code Symbols", "REQUIRED: code symbols use ASCII only",
    )  # fmt: skip
    assert "Body after a horizontal rule." in ascii_rule.body  # a later --- is body, not meta
    assert (notes["README.md"].title, notes["README.md"].description) == ("README.md", "")


def test_lenient_front_matter_keeps_what_strict_yaml_accepts() -> None:
    meta, body = split_lenient("---\ntags: [a, b]\nalwaysApply: true\n---\nbody\n")
    assert (meta, body) == ({"tags": ["a", "b"], "alwaysApply": True}, "body\n")
    meta, _ = split_lenient("---\nglobs: **/*.test.ts\ndescription: 'quoted: yes'\n---\n")
    assert meta == {"globs": "**/*.test.ts", "description": "quoted: yes"}


def _okf(root: Path, note_id: str, title: str, folder: str = "practice") -> None:
    (root / folder).mkdir(parents=True, exist_ok=True)
    (root / folder / f"{note_id}.md").write_text(
        f"---\ntype: practice\ntitle: {title}\ndescription: About {title}\ntags: [quasar]\n"
        f"kk_id: {note_id}\nkk_relates_to: []\n---\nBody of {title}.\n"
    )


def test_an_okf_bundle_maps_retired_expected_ids_through_its_redirects(tmp_path: Path) -> None:
    nodes = tmp_path / "nodes"
    _okf(nodes, "practice-live-hub", "Live hub", "redirects")
    _okf(nodes, "practice-peer", "Peer")
    (nodes / ".redirects.json").write_text('{"practice-retired-hub": ["practice-live-hub"]}\n')
    got = load_collection(nodes)
    assert got.format == "okf"
    assert sorted(n.id for n in got.notes) == ["practice-live-hub", "practice-peer"]
    hub = next(n for n in got.notes if n.id == "practice-live-hub")
    assert (hub.title, hub.description, hub.tags, hub.body) == (
        "Live hub", "About Live hub", ("quasar",), "Body of Live hub.",
    )  # fmt: skip
    assert hub.path == "redirects/practice-live-hub.md"
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"query": "hub", "expected": ["practice-retired-hub"]}) + "\n")
    resolved = resolve_expected(load_queries(queries), {n.id for n in got.notes}, got.redirects)
    assert resolved[0].expected == ("practice-live-hub",)


def test_a_lorebook_knowledge_base_is_read_as_the_hook_index_reads_it(kb_repo: Path) -> None:
    from lorebook.kb.paths import KBPaths
    from lorebook.kb.store import MarkdownStore
    from lorebook.recall.index import NoteIndex, index_path
    from lorebook.recall.sync import reconcile
    from lorebook.testing import make_note

    store = MarkdownStore(kb_repo)
    store.add(make_note("use-uv", title="Run tests with uv", tags=["testing"]))
    store.add(make_note("no-push", title="Never push to main"), folder="git")
    reconcile(KBPaths(kb_repo))
    for where in (kb_repo, kb_repo / ".lorebook", kb_repo / ".lorebook/nodes"):
        got = load_collection(where)
        assert got.format == "lorebook"
        assert sorted(n.id for n in got.notes) == ["practice-no-push", "practice-use-uv"]
    with NoteIndex(index_path(str(kb_repo / ".lorebook"))) as index:
        hooked = index.get(["practice-no-push", "practice-use-uv"])
    for note in got.notes:
        same = hooked[note.id]
        fields = ("path", "title", "description", "body", "tags", "kind", "status", "enforce")
        assert [getattr(note, f) for f in fields] == [getattr(same, f) for f in fields]


def test_distractor_ids_that_collide_are_prefixed(tmp_path: Path) -> None:
    for name in ("rules", "extra"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.mdc").write_text(f"# {name} index\n")
    base = load_collection(tmp_path / "rules").notes
    merged = add_distractors(base, load_collection(tmp_path / "extra"), "extra")
    assert [n.id for n in merged] == ["index.mdc", "extra/index.mdc"]


def test_golden_queries_fall_in_three_groups(tmp_path: Path) -> None:
    golden = tmp_path / "golden-queries.yaml"
    golden.write_text(
        "cases:\n"
        "  - {id: a, category: retrieval, prompt: quasar, expect_ids_in_top_k: [practice-x]}\n"
        "  - {id: b, category: refusal, prompt: nautical sextant, expect_empty: true}\n"
        "  - {id: c, category: multi-hop, prompt: cobalt,"
        " expect_id_present_only_via_boost: practice-y}\n"
        "  - {id: d, category: multi-hop, prompt: quasar, expect_ids_in_top_k: [practice-x]}\n"
    )
    got = load_queries(golden)
    assert [(q.group, q.expected) for q in got] == [
        ("answerable", ("practice-x",)), ("refusal", ()), ("multi-hop", ("practice-y",)),
        ("multi-hop", ("practice-x",)),
    ]  # fmt: skip
    assert got[1].label == f"{golden}:3 b"


# -- bad inputs: one line naming file, line and field; exit 1; no traceback ------------------


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "json-parsing.mdc").write_text(RULE_GLOBS)
    return folder


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("q.jsonl", '{"query": "a", "expected": []}\n{"expected": []}\n',
         "q.jsonl:2: field 'query': must be a non-empty string"),
        ("q.jsonl", '{"query": "a", "expected": "json-parsing.mdc"}\n',
         "q.jsonl:1: field 'expected': must be a list of note ids"),
        ("q.jsonl", '{"query": "a", "expected": []}\n{"query": \n',
         "q.jsonl:2: not valid JSON"),
        ("q.jsonl", '\n{"query": "a", "expected": ["jsonparsing.mdc"]}\n',
         "q.jsonl:2: field 'expected': 'jsonparsing.mdc' names no note"),
        ("g.yaml", "cases:\n  - id: a\n    prompt: x\n    expect_ids_in_top_k: [json-parsing.mdc]\n"
         "  - id: b\n    expect_empty: true\n",
         "g.yaml:5 b: field 'prompt': must be a non-empty string"),
        ("g.yaml", "cases:\n  - {id: a, prompt: x}\n",
         "g.yaml:2 a: field 'expect_ids_in_top_k': must be a non-empty list"),
    ],
)  # fmt: skip
def test_a_bad_query_file_is_one_line_naming_file_line_and_field(
    cli: CliRunner, rules: Path, tmp_path: Path, name: str, text: str, message: str
) -> None:
    queries = tmp_path / name
    queries.write_text(text)
    result = cli("eval", "retrieval", "--notes", str(rules), "--queries", str(queries))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"lorebook: error: {tmp_path}/{message}")
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_bad_command_lines_are_one_line_errors(cli: CliRunner, rules: Path, tmp_path: Path) -> None:
    missing = cli("eval", "retrieval", "--notes", str(tmp_path / "nowhere"), "--queries", "q")
    assert "nowhere: not a folder of notes" in missing.stderr
    no_queries = cli("eval", "retrieval", "--notes", str(rules))
    assert "--queries FILE is needed" in no_queries.stderr
    config = tmp_path / "config.yaml"
    config.write_text("recall:\n  max_notez: 2\n")
    bad_config = cli("eval", "retrieval", "--notes", str(rules), "--queries", "q", "--config",
                     str(config))  # fmt: skip
    assert f"{config}: unknown key 'recall.max_notez'" in bad_config.stderr
    for result in (missing, no_queries, bad_config):
        assert result.exit_code == 1
        assert result.stderr.startswith("lorebook: error: ")
        assert "Traceback" not in result.stderr


def test_without_rank_bm25_eval_says_what_to_install(
    cli: CliRunner, rules: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "rank_bm25", None)  # import fails as if not installed
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query": "grep json", "expected": ["json-parsing.mdc"]}\n')
    result = cli("eval", "retrieval", "--notes", str(rules), "--queries", str(queries))
    assert result.exit_code == 1
    assert "needs rank-bm25" in result.stderr
    assert "lorebook[eval]" in result.stderr


def test_a_config_file_sets_what_the_hook_would_use(tmp_path: Path) -> None:
    from lorebook.evaluation.retrieval import hook_config, settings_values
    from lorebook.hookconfig import HookConfig

    config = tmp_path / "config.yaml"
    config.write_text("recall:\n  max_notes: 1\nbudgets:\n  prompt_chars: 900\n")
    settings = hook_config(config)
    assert (settings.max_notes, settings.prompt_chars) == (1, 900)
    assert settings_values(hook_config(None)) == settings_values(HookConfig())  # the defaults


# -- the shared evaluation data ---------------------------------------------------------------

EVAL = SHARED / "eval"


@pytest.mark.skipif(not EVAL.is_dir(), reason="shared/eval is not beside the repository")
def test_every_shared_collection_loads() -> None:
    minsky = load_collection(EVAL / "transcripts/cursor-specstory/cursor-rules-at-commit")
    assert (minsky.format, len(minsky.notes)) == ("cursor-rules", 50)
    by_id = {n.id: n for n in minsky.notes}
    assert by_id["ensure-ascii-code-symbols.mdc"].description.startswith("REQUIRED:")
    assert by_id["bun-test-patterns.mdc"].description.startswith("REQUIRED: Use when")
    assert by_id["json-parsing.mdc"].title == "JSON Parsing Best Practices"
    awesome = load_collection(EVAL / "corpora/awesome-cursorrules/rules")
    assert (awesome.format, len(awesome.notes)) == ("cursor-rules", 257)
    kenkeep = EVAL / "retrieval/kenkeep-synthetic"
    evalset = load_evalset(kenkeep / "nodes", kenkeep / "golden-queries.yaml", [])
    assert (evalset.format, len(evalset.parts[0].notes)) == ("okf", 33)
    groups = [q.group for q in evalset.parts[0].queries]
    assert (groups.count("answerable"), groups.count("refusal"), groups.count("multi-hop")) == (
        8, 2, 2,
    )  # fmt: skip
