"""Premises with proofs: the negative controls of the ken report, done on plain files.

Each control asserts an exclusion on a populated store beside a positive control in the same
test: a replaced rule makes the old conclusion unknown and the new one supported; a fact in
one context is unknown in another; retracting one of two supports keeps a conclusion and
retracting both removes it; cycles terminate. Then the commands, the log, the MCP functions,
bad input, and curation turning two notes whose premises contradict into a conflict file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lorebook.errors import LorebookError
from lorebook.kb.paths import KBPaths
from lorebook.premises.kernel import ask
from lorebook.premises.model import PremiseSyntaxError, parse_atom, parse_rule
from lorebook.premises.store import bundles, make_source, record, retract
from tests.conftest import CliRunner
from tests.core.test_curate import add_note


def _verdict(paths: KBPaths, goal: str, context: str = "main") -> str:
    return ask(bundles(paths, context), parse_atom(goal)).verdict


def _record(
    paths: KBPaths,
    source: str,
    facts: tuple[str, ...] = (),
    rules: tuple[str, ...] = (),
    cites: tuple[str, ...] = (),
    context: str = "main",
) -> None:
    record(paths, make_source(source, list(facts), list(rules), list(cites)), context)


def test_replacing_a_sources_rule_makes_the_old_conclusion_unknown_and_the_new_one_supported(
    kb_repo: Path,
) -> None:
    paths = KBPaths(kb_repo)
    _record(paths, "facts", facts=("p(a, b)",))
    _record(paths, "rules", rules=("q(?x, ?y) :- p(?x, ?y)",))
    assert _verdict(paths, "q(a, b)") == "supported"
    assert _verdict(paths, "z(a, b)") == "unknown"
    _record(paths, "rules", rules=("z(?x, ?y) :- p(?x, ?y)",))
    assert _verdict(paths, "q(a, b)") == "unknown"
    assert _verdict(paths, "z(a, b)") == "supported"


def test_a_fact_in_one_context_is_unknown_in_another_and_scopes_never_match(
    kb_repo: Path,
) -> None:
    paths = KBPaths(kb_repo)
    _record(paths, "s", facts=("p(a, b)",), context="one")
    assert _verdict(paths, "p(a, b)", "one") == "supported"
    assert _verdict(paths, "p(a, b)", "two") == "unknown"
    assert _verdict(paths, "p(a, b)@past", "one") == "unknown"
    _record(paths, "t", facts=("p(a, b)@past",), context="one")
    assert _verdict(paths, "p(a, b)@past", "one") == "supported"


def test_retracting_one_of_two_supports_keeps_the_conclusion_and_both_remove_it(
    kb_repo: Path,
) -> None:
    paths = KBPaths(kb_repo)
    _record(paths, "rule", rules=("q(?x, ?y) :- p(?x, ?y)",))
    _record(paths, "first", facts=("p(a, b)",))
    _record(paths, "second", facts=("p(a, b)",))
    assert _verdict(paths, "q(a, b)") == "supported"
    retract(paths, "first")
    assert _verdict(paths, "q(a, b)") == "supported"
    retract(paths, "second")
    assert _verdict(paths, "q(a, b)") == "unknown"
    assert not (kb_repo / ".lorebook/premises/main/second.yaml").exists()


def test_cycles_terminate_and_chains_of_three_premises_derive(kb_repo: Path) -> None:
    paths = KBPaths(kb_repo)
    _record(
        paths, "graph",
        facts=("edge(a, b)", "edge(b, c)", "edge(c, a)"),
        rules=("path(?x, ?y) :- edge(?x, ?y)", "path(?x, ?z) :- path(?x, ?y), path(?y, ?z)",
               "loop(?x, ?x) :- path(?x, ?y), path(?y, ?z), path(?z, ?x)"),
    )  # fmt: skip
    assert _verdict(paths, "path(a, a)") == "supported"
    assert _verdict(paths, "loop(b, b)") == "supported"
    assert _verdict(paths, "path(a, d)") == "unknown"


def test_a_negation_refutes_and_both_ways_is_a_conflict_with_both_proofs(
    kb_repo: Path,
) -> None:
    paths = KBPaths(kb_repo)
    _record(paths, "ban", rules=("not uses(?s, ?l) :- deprecated(?l, yes), service(?s, yes)",))
    _record(paths, "lib", facts=("deprecated(paypal, yes)", "service(billing, yes)"))
    assert _verdict(paths, "uses(billing, paypal)") == "refuted"
    assert _verdict(paths, "not uses(billing, paypal)") == "supported"
    _record(paths, "billing", facts=("uses(billing, paypal)",))
    answer = ask(bundles(paths, "main"), parse_atom("uses(billing, paypal)"))
    assert answer.verdict == "conflict"
    assert answer.sources() == ["ban", "billing", "lib"]
    assert answer.counter is not None
    assert answer.counter.rule is not None


def test_every_change_is_logged_with_its_payload(kb_repo: Path) -> None:
    paths = KBPaths(kb_repo)
    _record(paths, "s", facts=("p(a, b)",), cites=("docs/adr.md",))
    _record(paths, "s", facts=("p(a, c)",))
    retract(paths, "s")
    lines = (kb_repo / ".lorebook/premises/main/events.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["action"] for e in events] == ["insert", "replace", "retract"]
    assert events[0]["payload"] == {"cites": ["docs/adr.md"], "facts": ["p(a, b)"], "rules": []}
    assert events[2]["payload"]["facts"] == ["p(a, c)"]  # what the retraction removed


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("p(a)", "is not an atom"),
        ("p(?x, b)", "holds a variable"),
    ],
)
def test_a_bad_fact_is_named(text: str, says: str) -> None:
    with pytest.raises(PremiseSyntaxError, match=says):
        parse_atom(text)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("q(?x, ?y)", "no ':-'"),
        ("q(?x, ?z) :- p(?x, ?y)", r"\?z in its head appears in no premise"),
        ("q(?x, ?y) :- p(?x, ?y), p(?x, ?y), p(?x, ?y), p(?x, ?y)", "has 4 premises"),
    ],
)
def test_a_bad_rule_is_named(text: str, says: str) -> None:
    with pytest.raises(PremiseSyntaxError, match=says):
        parse_rule(text)


def test_a_bad_source_file_is_named_and_nothing_is_recorded_from_bad_input(
    kb_repo: Path, cli: CliRunner
) -> None:
    result = cli("premise", "record", "s", "--fact", "p(a)", cwd=kb_repo)
    assert result.exit_code == 1
    assert "'p(a)' is not an atom" in result.stderr
    assert not (kb_repo / ".lorebook/premises").exists()
    secret = "token(ci, ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8)"
    result = cli("premise", "record", "s", "--fact", secret, cwd=kb_repo)
    assert result.exit_code == 1, result.stderr
    assert "looks like a secret" in result.stderr
    assert "ghp_" not in result.stderr
    assert not (kb_repo / ".lorebook/premises").exists()
    folder = kb_repo / ".lorebook/premises/main"
    folder.mkdir(parents=True)
    (folder / "broken.yaml").write_text("source: broken\nfacts: [p(a]\n")
    result = cli("premise", "ask", "p(a, b)", cwd=kb_repo)
    assert result.exit_code == 1
    assert ".lorebook/premises/main/broken.yaml" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_commands_record_ask_with_the_proof_list_and_retract(
    kb_repo: Path, cli: CliRunner
) -> None:
    recorded = cli(
        "premise", "record", "deploys", "--fact", "deploys(api, friday)",
        "--rule", "not allowed(?s, ?d) :- deploys(?s, ?d), freeze(?d, yes)",
        "--cite", "docs/release.md", cwd=kb_repo,
    )  # fmt: skip
    assert recorded.exit_code == 0, recorded.stderr
    assert cli("premise", "record", "calendar", "--fact", "freeze(friday, yes)",
               cwd=kb_repo).exit_code == 0  # fmt: skip
    text = (kb_repo / ".lorebook/premises/main/deploys.yaml").read_text()
    assert "deploys(api, friday)" in text
    assert "docs/release.md" in text
    asked = cli("premise", "ask", "allowed(api, friday)", cwd=kb_repo)
    assert asked.exit_code == 0
    assert asked.stdout.splitlines()[0] == "allowed(api, friday): refuted"
    assert "freeze(friday, yes)   (fact; source calendar)" in asked.stdout
    doc = cli("premise", "ask", "allowed(api, friday)", "--json", cwd=kb_repo).json()
    assert doc["verdict"] == "refuted"
    assert doc["sources"] == ["calendar", "deploys"]
    listed = cli("premise", "list", cwd=kb_repo)
    assert "deploys: 1 fact, 1 rule; cites docs/release.md" in listed.stdout
    assert cli("premise", "retract", "calendar", cwd=kb_repo).exit_code == 0
    again = cli("premise", "ask", "allowed(api, friday)", cwd=kb_repo)
    assert again.stdout.splitlines()[0] == "allowed(api, friday): unknown"
    missing = cli("premise", "retract", "calendar", cwd=kb_repo)
    assert missing.exit_code == 1
    assert "no premise source 'calendar'" in missing.stderr


def test_the_mcp_functions_answer_as_the_command_does(kb_repo: Path) -> None:
    from lorebook.mcp_server import premise_answer, premise_change

    paths = KBPaths(kb_repo)
    done = premise_change(paths, "s", ["p(a, b)"], ["q(?x, ?y) :- p(?x, ?y)"], [], "main",
                          retract=False)  # fmt: skip
    assert done["action"] == "insert"
    assert premise_answer(paths, "q(a, b)", "main")["verdict"] == "supported"
    premise_change(paths, "s", [], [], [], "main", retract=True)
    assert premise_answer(paths, "q(a, b)", "main")["verdict"] == "unknown"
    with pytest.raises(LorebookError, match="is not an atom"):
        premise_answer(paths, "q(a)", "main")


def test_curation_turns_two_notes_whose_premises_conflict_into_one_conflict_file(
    kb_repo: Path, cli: CliRunner
) -> None:
    friday = add_note(kb_repo, "Deploy the API on Fridays", "Weekly release of the API",
                      body="The API ships every Friday afternoon.", tags=("release",))  # fmt: skip
    freeze = add_note(kb_repo, "No deploys during the Friday freeze", "Release freeze",
                      body="Nothing is deployed on Fridays.", tags=("release",))  # fmt: skip
    unrelated = add_note(kb_repo, "Use uv for Python environments", "Python tooling",
                         body="uv, not pip.", tags=("python",))  # fmt: skip
    paths = KBPaths(kb_repo)
    _record(paths, "release", facts=("deploys(api, friday)",), cites=(friday,))
    _record(paths, "freeze", facts=("not deploys(api, friday)",), cites=(freeze,))
    _record(paths, "tooling", facts=("uses(python, uv)",), cites=(unrelated,))
    before = {p: p.read_bytes() for p in (kb_repo / ".lorebook/nodes").rglob("*.md")}
    result = cli("curate", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    (path,) = result.json()["conflicts"]
    assert path.startswith(".lorebook/conflicts/premises-")
    listed = cli("conflict", "list", "--json", cwd=kb_repo).json()["conflicts"]
    (entry,) = listed
    assert entry["target_id"] == friday
    assert entry["proposal"]["title"] == "No deploys during the Friday freeze"
    assert "deploys(api, friday)" in entry["rationale"]
    assert "not deploys" in entry["rationale"]
    assert {p: p.read_bytes() for p in (kb_repo / ".lorebook/nodes").rglob("*.md")} == before
    again = cli("curate", "--json", cwd=kb_repo).json()
    assert again["conflicts"] == []  # the same contradiction is not raised twice
    retract(paths, "freeze")
    _record(paths, "freeze", facts=("not deploys(api, monday)",), cites=(freeze,))
    assert cli("curate", "--json", cwd=kb_repo).json()["conflicts"] == []


def test_a_source_citing_a_retired_note_id_rests_on_the_note_it_leads_to(
    kb_repo: Path, cli: CliRunner
) -> None:
    """A note renamed after a source cited it: the contradiction still becomes a conflict."""
    friday = add_note(kb_repo, "Deploy the API on Fridays", "Weekly release of the API",
                      body="The API ships every Friday afternoon.", tags=("release",))  # fmt: skip
    freeze = add_note(kb_repo, "No deploys during the Friday freeze", "Release freeze",
                      body="Nothing is deployed on Fridays.", tags=("release",))  # fmt: skip
    paths = KBPaths(kb_repo)
    retired = "practice-friday-freeze"  # the id the source was recorded with, since renamed
    paths.redirects.write_text(json.dumps({retired: [freeze]}) + "\n", encoding="utf-8")
    _record(paths, "release", facts=("deploys(api, friday)",), cites=(friday,))
    _record(paths, "freeze", facts=("not deploys(api, friday)",), cites=(retired,))
    result = cli("curate", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert len(result.json()["conflicts"]) == 1  # before: none (the old id named no note)
    (entry,) = cli("conflict", "list", "--json", cwd=kb_repo).json()["conflicts"]
    assert entry["target_id"] == friday
    assert entry["proposal"]["title"] == "No deploys during the Friday freeze"
    assert f"citing {freeze}" in entry["rationale"]
