"""rebalance.planner: a curator proposes the rebalance plan, checked like the deterministic one.

The LLM curator is plumbing here, with a scripted mock model on 127.0.0.1: what it is sent,
that a valid proposal is applied as proposed, and that a wrong one is set aside with one
warning while the deterministic plan is applied. Its judgment is not measured.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from pydantic import ValidationError

from lorebook.config import load_config, write_config
from lorebook.curate.placement import KIND_SUMMARIES
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import Snapshot, StoredNote, load_snapshot
from lorebook.models.note import Note
from lorebook.models.rebalance import PlanProposal
from lorebook.rebalance.plan import Limits, RebalanceError
from lorebook.rebalance.proposal import plan_of
from tests.conftest import CliRunner
from tests.core.test_curate_llm import ChatMock, _Lazy, _point_at
from tests.core.test_rebalance import (
    KINDS,
    NODES,
    SPLIT,
    TOPICS,
    _files,
    _indexes,
    _note,
    _two_concept_kb,
    topical,
)

__all__ = ["topical"]  # the fixture, imported for the tests below


def _plan_with(repo: Path, url: str, planner: str = "http") -> None:
    _point_at(repo, url)
    paths = KBPaths(repo)
    config = load_config(paths)
    rebalance = config.rebalance.model_copy(update={"planner": planner})
    write_config(paths, config.model_copy(update={"rebalance": rebalance}))


def _answer(mock: ChatMock, change: Any) -> None:
    """Script the model to answer its request's draft, changed by ``change``."""

    def answer() -> str:
        request = json.loads(mock.requests[-1]["body"]["messages"][1]["content"])
        return json.dumps(change(request["draft"]))

    mock.answers = _Lazy(answer)


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("lorebook: warning:")]


def test_the_curator_s_plan_is_sent_the_metrics_and_applied_as_proposed(
    topical: tuple[Path, dict[str, tuple[str, str]]], cli: CliRunner
) -> None:
    repo, made = topical

    def rename_testing(draft: dict[str, Any]) -> dict[str, Any]:
        moves = [
            {**m, "to": m["to"].replace("/testing", "/tests-and-fixtures")} for m in draft["moves"]
        ]
        folders = {f.replace("/testing", "/tests-and-fixtures"): s
                   for f, s in draft["folders"].items()}  # fmt: skip
        folders["convention/tests-and-fixtures"] = "How the suite is written and run."
        return {"moves": moves, "splits": [], "folders": folders, "reasons": ["named by use"]}

    with ChatMock([]) as mock:
        _plan_with(repo, mock.url)
        _answer(mock, rename_testing)
        done = cli("rebalance", "--json", cwd=repo)
        assert done.exit_code == 0, done.stderr
        assert _warnings(done.stderr) == []
        (request,) = mock.requests
        system, user = request["body"]["messages"]
        assert '"moves"' in system["content"]
        assert "pinned" in system["content"]
        sent = json.loads(user["content"])
        assert sent["limits"]["max_notes"] == 40
        folders = {f["folder"]: f for f in sent["folders"]}
        assert folders["convention"]["notes"] == 150
        assert folders["convention"]["over"] == "150 notes directly (max_notes 40)"
        assert len(sent["notes"]) == 300
        assert len(sent["draft"]["moves"]) == 300
        assert "convention/testing" in sent["draft"]["folders"]

        report = done.json()
        assert report["reasons"][:2] == [
            "the plan proposed by the http curator (rebalance.planner)", "named by use",
        ]  # fmt: skip
        snap = load_snapshot(KBPaths(repo))
        for note_id, (kind, topic) in made.items():
            named = "tests-and-fixtures" if topic == "testing" else topic
            assert snap.notes[note_id].folder == f"{kind}/{named}"
        summaries = (repo / ".lorebook/FOLDER_SUMMARIES.md").read_text(encoding="utf-8")
        assert "- `convention/tests-and-fixtures`: How the suite is written and run." in summaries
        assert all(size <= 12_000 for size in _indexes(repo).values())
        assert cli("lint", cwd=repo).exit_code == 0

        files = _files(repo)
        again = cli("rebalance", cwd=repo)
        assert "nothing to rebalance" in again.stdout
        assert len(mock.requests) == 1  # the trigger found nothing: the model is not asked
        assert _files(repo) == files


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ('{"moves": [], "splits": []}', "does not settle"),
        ("I would rather not.", "answered without a JSON object holding 'moves'"),
        ('{"moves": [{"id": 3}]}', "moves.0.id is wrong"),
    ],
)
def test_a_wrong_plan_is_set_aside_with_one_warning_and_the_deterministic_one_applied(
    topical: tuple[Path, dict[str, tuple[str, str]]], cli: CliRunner, answer: str, said: str
) -> None:
    repo, made = topical
    with ChatMock([answer]) as mock:
        _plan_with(repo, mock.url)
        done = cli("rebalance", cwd=repo)
    assert done.exit_code == 0, done.stderr
    (warning,) = _warnings(done.stderr)
    assert warning.startswith("lorebook: warning: rebalance.planner: the curator's plan was")
    assert said in warning
    assert warning.endswith("the deterministic plan was")
    snap = load_snapshot(KBPaths(repo))
    assert all(snap.notes[i].folder == f"{k}/{t}" for i, (k, t) in made.items())
    assert sorted(KINDS) == sorted(p.name for p in (repo / NODES).iterdir() if p.is_dir())
    assert all((repo / NODES / k / t).is_dir() for k in KINDS for t in TOPICS)


def test_a_curator_that_cannot_plan_or_an_unknown_one_is_one_warning(
    kb_repo: Path, cli: CliRunner
) -> None:
    _two_concept_kb(kb_repo)
    for planner, said in [("rules", "the rules curator proposes no plan"),
                          ("nosuch", "nosuch")]:  # fmt: skip
        dry = cli("rebalance", "--dry-run", "--planner", planner, cwd=kb_repo)
        assert dry.exit_code == 0, dry.stderr
        (warning,) = _warnings(dry.stderr)
        assert said in warning
        assert f"would split {SPLIT[0]}" in dry.stdout


def test_the_curator_may_split_a_note_by_other_sections(kb_repo: Path, cli: CliRunner) -> None:
    _two_concept_kb(kb_repo)
    sections = ["Fixtures and mocks", "Coverage of the suite", "Cutting a release",
                "The changelog and versions"]  # fmt: skip

    def regroup(draft: dict[str, Any]) -> dict[str, Any]:
        (split,) = draft["splits"]
        assert [p["sections"] for p in split["parts"]] == [sections[:2], sections[2:]]
        parts = [{"sections": sections[:3]}, {"sections": sections[3:], "folder": "convention"}]
        return {**draft, "splits": [{"id": split["id"], "parts": parts}]}

    with ChatMock([]) as mock:
        _plan_with(kb_repo, mock.url)
        _answer(mock, regroup)
        done = cli("rebalance", "--json", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    assert _warnings(done.stderr) == []
    new = [f"{SPLIT[0]}-fixtures-and-mocks", f"{SPLIT[0]}-the-changelog-and-versions"]
    assert [p["id"] for p in done.json()["splits"][0]["into"]] == new
    ledger = json.loads((kb_repo / NODES / ".redirects.json").read_text(encoding="utf-8"))
    assert ledger == {SPLIT[0]: sorted(new)}
    first = load_snapshot(KBPaths(kb_repo)).notes[new[0]].note
    assert "## Cutting a release" in first.body
    assert "## The changelog and versions" not in first.body
    assert cli("lint", cwd=kb_repo).exit_code == 0


def _snap(*placed: tuple[str, Note]) -> Snapshot:
    notes = {n.id: StoredNote(n, PurePosixPath(f"{f}/{n.id}.md" if f else f"{n.id}.md"), None)
             for f, n in placed}  # fmt: skip
    return Snapshot(notes=notes)


LONG = Note.model_validate({
    "type": "practice", "title": "Long", "description": "d", "lb_id": "practice-long",
    "lb_kind": "convention", "body": "## A\n\n" + "a " * 4000 + "\n\n## B\n\nb b b b",
})  # fmt: skip
SHORT = _note("practice-short", "convention", "Short", "s", [])


@pytest.mark.parametrize(
    ("proposal", "said"),
    [
        ({"moves": [{"id": "practice-gone", "to": "convention/x"}]}, "move practice-gone: no "),
        ({"moves": [{"id": "practice-short", "to": "gotcha/x"}], "folders": {"gotcha/x": "X"}},
         "leaves convention/"),
        ({"moves": [{"id": "practice-short", "to": "convention/../x"}]}, "move practice-short: "),
        ({"moves": [{"id": "practice-short", "to": "convention/new"}]},
         "folder convention/new/: the plan creates it, so it needs a one-line summary"),
        ({"splits": [{"id": "practice-short", "parts": [{"sections": ["A"]},
                                                        {"sections": ["B"]}]}]},
         "only an active note longer than split_note_chars"),
        ({"splits": [{"id": "practice-long", "parts": [{"sections": ["A"]},
                                                       {"sections": ["A"]}]}]},
         "section 'A' is taken twice"),
        ({"splits": [{"id": "practice-long", "parts": [{"sections": ["A"]},
                                                       {"sections": ["C"]}]}]},
         "section 'C' is no ## heading of the note"),
        ({"splits": [{"id": "practice-long", "parts": [{"sections": ["A"]},
                                                       {"sections": ["A", "B"]}]}]},
         "taken twice"),
        ({"splits": [{"id": "practice-long", "parts": [{"sections": ["A"]}]}]},
         "splits.0.parts"),
        ({"splits": [{"id": "practice-long", "parts": [{"sections": ["A"]}, {"sections": ["B"]}]},
                     {"id": "practice-long", "parts": [{"sections": ["B"]}, {"sections": ["A"]}]}]},
         "split practice-long: named twice"),
        ({"moves": [{"id": "practice-short", "to": "convention/x"},
                    {"id": "practice-short", "to": "convention/y"}],
          "folders": {"convention/x": "X", "convention/y": "Y"}}, "named twice"),
    ],
)  # fmt: skip
def test_a_proposal_is_refused_naming_what_the_deterministic_plan_could_never_do(
    proposal: dict[str, Any], said: str
) -> None:
    snap = _snap(("convention", LONG), ("convention", SHORT))
    with pytest.raises((RebalanceError, ValidationError)) as caught:
        plan_of(PlanProposal.model_validate(proposal), snap, {}, Limits(), {},
                curator="http", held=[])  # fmt: skip
    assert said in str(caught.value)


def test_a_valid_proposal_becomes_the_plan_with_its_summaries() -> None:
    snap = _snap(("convention", LONG), ("convention", SHORT), ("", _note(
        "practice-top", "gotcha", "Top", "t", [])))  # fmt: skip
    proposal = PlanProposal.model_validate({
        "moves": [{"id": "practice-short", "to": "convention/misc"},
                  {"id": "practice-top", "to": "gotcha"}],
        "splits": [{"id": "practice-long", "parts": [{"sections": ["A"]},
                                                     {"sections": ["B"], "folder": "convention/misc"}]}],
        "folders": {"convention/misc": "  Odds and\nends.  ", "elsewhere": "ignored"},
    })  # fmt: skip
    plan = plan_of(proposal, snap, {}, Limits(), {}, curator="http", held=[],
                   kind_summaries=KIND_SUMMARIES)  # fmt: skip
    assert [(m.note_id, m.target) for m in plan.moves] == [
        ("practice-short", "convention/misc/practice-short.md"),
        ("practice-top", "gotcha/practice-top.md"),
    ]
    assert plan.written == {
        "practice-long-a": "convention/practice-long-a.md",
        "practice-long-b": "convention/misc/practice-long-b.md",
    }
    assert plan.created == {"convention/misc": "Odds and ends.", "gotcha": KIND_SUMMARIES["gotcha"]}


HEADLESS_PLANNER = """\
import sys
prompt = sys.stdin.read()
open(sys.argv[1], "w", encoding="utf-8").write(prompt)
print('Here is the plan: {"moves": [{"id": "practice-short", "to": "convention/misc"}], '
      '"folders": {"convention/misc": "Odds and ends."}}')
"""


def test_the_headless_curator_proposes_a_plan_through_the_wired_harness(
    kb_repo: Path, tmp_path: Path
) -> None:
    from lorebook.curators.llm import HeadlessCurator
    from lorebook.curators.llmplan import PLAN_PROMPT
    from lorebook.models.config import Config
    from lorebook.models.rebalance import RebalanceRequest
    from lorebook.providers import HarnessSpec

    script, seen = tmp_path / "planner.py", tmp_path / "prompt.txt"
    script.write_text(HEADLESS_PLANNER, encoding="utf-8")

    class Host:
        name = "fakehost"

        def headless(self, prompt: str, model: str | None) -> tuple[list[str], bytes]:
            return [sys.executable, str(script), str(seen)], prompt.encode("utf-8")

    spec = HarnessSpec(name="fakehost", factory=Host)  # type: ignore[arg-type]
    curator = HeadlessCurator(Config(harnesses=["fakehost"]), harnesses={"fakehost": spec},
                              paths=KBPaths(kb_repo))  # fmt: skip
    request = RebalanceRequest.model_validate({
        "limits": {"max_notes": 40}, "notes": [], "draft": {},
        "folders": [{"folder": "convention", "notes": 41, "index_chars": 9000, "over": "41"}],
    })  # fmt: skip
    proposal = curator.propose_rebalance(request)
    assert proposal.moves[0].to == "convention/misc"
    assert proposal.folders == {"convention/misc": "Odds and ends."}
    prompt = seen.read_text(encoding="utf-8")
    assert prompt.startswith(PLAN_PROMPT)
    assert '"over": "41"' in prompt
    trace = json.loads((kb_repo / ".lorebook/_logs/llm/curate-1.json").read_text())
    assert (trace["rebalance"], trace["moves"], trace["error"]) == (0, 1, None)
