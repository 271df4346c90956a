"""`lorebook eval retrieval`: measures checked against values computed by hand, the hook and
`eval` serving the same notes, and the LoCoMo baseline reproducing its reference numbers.

The fixture (four notes, six queries, k = 1) is small enough to rank by hand. Its note texts
(title, description, tags, body, as both baselines read them), lower-cased:

    A practice-uv       run tests with uv | pytest goes through uv | testing | never call bare pytest.
    B practice-push     never push to main | open a pull request | git | a push to main skips review.
    C practice-release  release checklist | changelog then tag | git | write the changelog, then push the tag.
    D practice-db       database migrations | alembic needs review | database | ask before alembic upgrade.

grep counts the distinct query words of 3+ letters found as substrings; BM25Okapi (k1 1.5,
b 0.75) over 4 documents gives a word found in 1 note idf ln(3.5/1.5) and a word found in 2
notes idf exactly 0, so a note matching only such words scores 0 and is left out.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from lorebook.evaluation.baselines import Grep, PlainBm25
from lorebook.evaluation.corpus import load_collection
from lorebook.evaluation.metrics import collapse, ndcg, reciprocal_rank
from lorebook.evaluation.retrieval import hook_config, load_evalset, run_retrieval
from tests.conftest import SHARED, CliRunner

NOTES = {
    "practice-uv": ("Run tests with uv", "pytest goes through uv", ["testing"],
                    "Never call bare pytest."),
    "practice-push": ("Never push to main", "open a pull request", ["git"],
                      "A push to main skips review."),
    "practice-release": ("Release checklist", "changelog then tag", ["git"],
                         "Write the changelog, then push the tag."),
    "practice-db": ("Database migrations", "alembic needs review", ["database"],
                    "Ask before alembic upgrade."),
}  # fmt: skip
QUERIES = [
    ("run pytest", ["practice-uv"]),
    ("review before push to main", ["practice-push", "practice-db"]),
    ("who reviews the database change", ["practice-db"]),
    ("uv ci", ["practice-uv"]),
    ("tag the release after review", ["practice-release", "practice-push"]),
    ("bake sourdough", []),
]
# Rankings derived by hand (see the module docstring).
GREP = [
    ["practice-uv"],  # run, pytest: A has both, no other note either
    ["practice-push", "practice-db", "practice-release"],  # B 3 words, D 2, C 1 (push)
    ["practice-release", "practice-db"],  # C: the (then), change (changelog); D: database
    [],  # uv, ci: no word of 3 letters
    ["practice-release", "practice-db", "practice-push"],  # C 3; D and B 1 (review), by id
    [],
]
BM25 = [
    ["practice-uv"],
    ["practice-push", "practice-db"],  # B: to, main twice (15 words); D: before once; C: 0
    ["practice-db", "practice-release"],  # both tf 2 of a unique word; D is shorter
    ["practice-uv"],
    ["practice-release"],  # review is in 2 notes: idf 0, so B and D score 0
    [],
]
Q6_GREP_NDCG = (1 + 1 / math.log2(3)) / 2  # expected at ranks 1 and 3, two expected


def write_okf(root: Path, notes: dict[str, tuple[str, str, list[str], str]]) -> Path:
    """An OKF bundle (kenkeep's shape) of ``notes``, one folder per note type."""
    for note_id, (title, description, tags, body) in notes.items():
        folder = root / "practice"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{note_id}.md").write_text(
            f"---\ntype: practice\ntitle: {title}\ndescription: {description}\n"
            f"tags: [{', '.join(tags)}]\nkk_id: {note_id}\n---\n{body}\n",
            encoding="utf-8",
        )
    return root


def write_queries(path: Path, queries: list[tuple[str, list[str]]]) -> Path:
    lines = [json.dumps({"query": q, "expected": e}) for q, e in queries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def fixture(tmp_path: Path) -> tuple[Path, Path]:
    return write_okf(tmp_path / "notes", NOTES), write_queries(tmp_path / "q.jsonl", QUERIES)


def test_baselines_rank_as_derived_by_hand(fixture: tuple[Path, Path]) -> None:
    notes = load_collection(fixture[0]).notes
    grep, bm25 = Grep(notes), PlainBm25(notes)
    assert [grep.rank(q) for q, _ in QUERIES] == GREP
    assert [bm25.rank(q) for q, _ in QUERIES] == BM25


def test_each_measure_matches_the_hand_computed_value(
    cli: CliRunner, fixture: tuple[Path, Path]
) -> None:
    notes, queries = fixture
    result = cli("eval", "retrieval", "--notes", str(notes), "--queries", str(queries),
                 "--k", "1", "--json", "--verbose")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    assert (doc["format"], doc["notes"], doc["k"]) == ("okf", 4, 1)
    assert doc["queries"] == {"answerable": 5, "refusal": 1, "multi-hop": 0}
    grep, bm25 = doc["measures"]["note"]["grep"], doc["measures"]["note"]["bm25"]
    # Per answerable query (recall_any@3, recall_any@1, recall_all@1, RR, nDCG@10):
    # grep:  (1,1,1,1,1) (1,1,0,1,1) (1,0,0,1/2,1) (0,0,0,0,0) (1,1,0,1,Q6_GREP_NDCG)
    # BM25:  (1,1,1,1,1) (1,1,0,1,1) (1,1,1,1,1)   (1,1,1,1,1) (1,1,0,1,1/2)
    assert grep == pytest.approx({
        "answerable": 5, "recall_any@3": 4 / 5, "recall_any@1": 3 / 5, "recall_all@1": 1 / 5,
        "mrr": 3.5 / 5, "ndcg@10": round((3 + Q6_GREP_NDCG) / 5, 4), "false_refusals": 1,
        "refusals": 1, "refusals_kept": 1, "multi_hop": 0, "multi_hop_recall_all@1": None,
    }, abs=1e-4)  # fmt: skip
    assert bm25 == pytest.approx({
        "answerable": 5, "recall_any@3": 1.0, "recall_any@1": 1.0, "recall_all@1": 3 / 5,
        "mrr": 1.0, "ndcg@10": 4.5 / 5, "false_refusals": 0, "refusals": 1,
        "refusals_kept": 1, "multi_hop": 0, "multi_hop_recall_all@1": None,
    }, abs=1e-4)  # fmt: skip
    rows = doc["rows"]
    assert [r["served"]["grep"] for r in rows] == [g[:1] for g in GREP]
    assert [r["served"]["bm25"] for r in rows] == [b[:1] for b in BM25]
    assert [r["expected"] for r in rows] == [e for _, e in QUERIES]


def test_our_ranker_where_its_result_is_certain(fixture: tuple[Path, Path]) -> None:
    """Words found in one note only rank it first; words found in none inject nothing."""
    evalset = load_evalset(*fixture, [])
    report = run_retrieval(evalset, hook_config(None), 5)
    first, *_, refusal = report.results
    assert first.served["raw"][:1] == ["practice-uv"]
    assert set(first.served["injected"]) <= {"practice-uv"}
    assert refusal.served["injected"] == []
    ours = report.measures["note"]["injected"]
    assert (ours["refusals"], ours["refusals_kept"]) == (1, 1)


def test_the_table_lists_every_system_and_measure(
    cli: CliRunner, fixture: tuple[Path, Path]
) -> None:
    notes, queries = fixture
    result = cli("eval", "retrieval", "--notes", str(notes), "--queries", str(queries),
                 "--verbose")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("system"))
    assert lines[head].split("  ")[0] == "system"
    for measure in ("R_any@3", "R_any@5", "R_all@5", "MRR", "nDCG@10", "false refusals",
                    "refusals kept"):  # fmt: skip
        assert measure in lines[head]
    end = lines.index("", head)
    systems = [line[:15].strip() for line in lines[head + 1 : end]]
    assert systems == ["ours (injected)", "ours (raw)", "grep", "plain BM25"]
    served = lines[end + 1 :]  # both installs as served, then plain BM25's first three
    assert served[0].startswith("served")
    assert "whole precision" in served[0]
    assert [line.split("  ")[0] for line in served[1:]] == [
        "ours, lorebook[semantic]",
        "ours, default install (no extra)",
        "plain BM25 (first 3)",
    ]
    grep_row = lines[head + 3].split()
    assert grep_row[1:6] == ["0.800", "0.800", "0.800", "0.700", "0.763"]  # at k = 5
    assert grep_row[6:] == ["1/5", "1/1"]
    assert "[refusal] " in result.stdout
    assert "  expected:         (nothing)" in result.stdout
    assert "  grep:             practice-release*, practice-db, practice-push*\n" in result.stdout


def test_metric_definitions() -> None:
    assert ndcg(["x", "a"], ["a"]) == 1.0  # LongMemEval: positions 1 and 2 weigh the same
    assert ndcg(["x", "y", "a"], ["a", "b"]) == pytest.approx((1 / math.log2(3)) / 2)
    assert ndcg([], ["a"]) == 0.0
    assert reciprocal_rank(["x", "y", "a"], ["a", "y"]) == 0.5
    assert collapse(["D2:1", "D1:4", "D2:7", "D3:1"], lambda i: i.split(":")[0]) == [
        "D2", "D1", "D3",
    ]  # fmt: skip


# -- the hook and eval serve the same notes -------------------------------------------------

HOOK_NOTES = [
    ("use-uv", "Run tests with uv run pytest", "Running the test suite", ["testing"],
     "Never bare pytest: it misses the workspace packages."),
    ("no-push-main", "Never push to the main branch", "Publishing changes", ["git"],
     "Open a pull request; a push to main skips review."),
    ("alembic-review", "Alembic migrations need a review", "Changing the database schema",
     ["database"], "Ask before running alembic upgrade on a shared database."),
    ("release-tags", "Tag releases after the changelog", "Cutting a release", ["release"],
     "Write the changelog entry first, then push the annotated tag."),
]  # fmt: skip
HOOK_PROMPTS = [
    "how do I run pytest in this repo?",
    "can I push my fix straight to main?",
    "run alembic upgrade on the shared database",
    "what goes into the changelog before I push the release tag",
    "bake a sourdough loaf",
]


def _claude_prompt(repo: Path, prompt: str, session: str) -> str:
    """Fire the installed UserPromptSubmit hook as Claude Code does; return what it injects."""
    from lorebook.testing import FakeHost
    from lorebook_claude.harness import ClaudeHarness

    host = FakeHost(repo, ClaudeHarness())
    payload = {"session_id": session, "cwd": str(repo), "hook_event_name": "UserPromptSubmit",
               "transcript_path": "/dev/null", "prompt": prompt}  # fmt: skip
    run = host.fire("UserPromptSubmit", payload)
    assert run.exit_code == 0, run.stderr
    return str(run.json()["hookSpecificOutput"]["additionalContext"]) if run.stdout else ""


def test_the_hook_and_eval_serve_the_same_notes(
    kb_repo: Path, cli: CliRunner, tmp_path: Path
) -> None:
    from lorebook.initialize import init_repo
    from lorebook.kb.store import MarkdownStore
    from lorebook.testing import make_note

    init_repo(kb_repo, ["claude"])
    store = MarkdownStore(kb_repo)
    titles = {}
    for slug, title, description, tags, body in HOOK_NOTES:
        store.add(make_note(slug, title=title, description=description, tags=tags, body=body))
        titles[f"practice-{slug}"] = title
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    queries = write_queries(tmp_path / "hook.jsonl", [(p, []) for p in HOOK_PROMPTS])
    result = cli("eval", "retrieval", "--notes", str(kb_repo / ".lorebook/nodes"),
                 "--queries", str(queries), "--config", str(kb_repo / ".lorebook/config.yaml"),
                 "--json", "--verbose", "--k", "50")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    doc: dict[str, Any] = result.json()
    assert doc["format"] == "lorebook"
    served_any = 0
    for at, row in enumerate(doc["rows"]):
        context = _claude_prompt(kb_repo, row["query"], f"fresh-{at}")
        shown = row["served"]["injected"]
        in_context = sorted((context.find(t), i) for i, t in titles.items() if t in context)
        assert [i for _, i in in_context] == shown, row["query"]
        assert (context == "") == (shown == [])
        served_any += bool(shown)
    assert served_any >= 1  # the comparison is not between two empty answers


# -- the shared evaluation data ---------------------------------------------------------------

LOCOMO = SHARED / "eval/retrieval/locomo-conv26"


@pytest.mark.skipif(
    not LOCOMO.is_dir(), reason="shared/eval (LoCoMo conv-26) is not beside the repository"
)
def test_locomo_plain_bm25_reproduces_the_reference_numbers() -> None:
    reference = json.loads((LOCOMO / "reference-bm25.json").read_text())["contract"]
    evalset = load_evalset(LOCOMO / "locomo-conv26.json", None, [])
    report = run_retrieval(evalset, hook_config(None), 5)
    assert len(report.results) == reference["questions_scored"] == 150
    for key, value in reference["lower_word"].items():
        level, measure = key.split(".")
        ours = measure.replace("ndcg_any", "ndcg")
        assert report.measures[level]["bm25"][ours] == pytest.approx(value, abs=0.01), key


def test_verbose_marks_the_notes_the_hook_served_whole() -> None:
    """--verbose says which of the hook's notes went whole; the rest were pointers."""
    from lorebook.evaluation.queries import Query
    from lorebook.evaluation.report import verbose_lines
    from lorebook.evaluation.retrieval import EvalSet, QueryResult, RetrievalReport

    query = Query("run pytest", ("practice-uv",), "answerable", "q.jsonl:1")
    served = {
        "injected": ["practice-uv", "practice-db"],
        "raw": ["practice-uv", "practice-db"],
        "grep": ["practice-uv"],
        "bm25": ["practice-db", "practice-uv"],
    }
    result = QueryResult(query, served, whole=["practice-uv"])
    report = RetrievalReport(EvalSet([], "okf"), 5, {}, [result])
    lines = verbose_lines(report)
    assert "  ours (injected):  practice-uv* (whole), practice-db" in lines
    assert "  ours (raw):       practice-uv*, practice-db" in lines
