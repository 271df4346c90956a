"""``lorebook eval extraction --corpus``: figures per project, pooled, tuned projects apart."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.conftest import REPO_ROOT, CliRunner

SESSION = [
    ("user", "Always run the tests with `uv run pytest`, never bare pytest."),
    ("assistant", "Understood, I will use uv run pytest."),
    ("user", "thanks, looks good"),
    ("assistant", "Glad to help."),
    ("user", "what does the build step do?"),
    ("assistant", "It compiles the assets."),
]


def make_project(
    root: Path,
    name: str,
    *,
    teaching: tuple[bool, ...],
    tuned: bool = False,
    shaped: str = "",
    rule: str | None = None,
) -> None:
    folder = root / name
    (folder / "sessions").mkdir(parents=True)
    lines = [json.dumps({"role": role, "text": text}) for role, text in SESSION]
    (folder / "sessions" / "s1.jsonl").write_text("\n".join(lines) + "\n")
    labels = [
        {
            "file": "s1.jsonl",
            "turn": n,
            "teaching": t,
            "kind": "convention" if t else None,
            **({"rule": rule} if t and rule else {}),
        }
        for n, t in enumerate(teaching, 1)
    ]
    (folder / "labels.jsonl").write_text("".join(json.dumps(label) + "\n" for label in labels))
    source = {
        "repo": f"someone/{name}",
        "tuned_on": tuned,
        **({"shaped_on": shaped} if shaped else {}),
    }
    (folder / "SOURCE.json").write_text(json.dumps(source))


def test_each_project_gets_its_row_and_the_untuned_ones_are_pooled_apart(
    tmp_path: Path, cli: CliRunner
) -> None:
    make_project(tmp_path, "alpha", teaching=(True, False, False))
    make_project(tmp_path, "beta", teaching=(False, False, False))  # a labeller who disagrees
    make_project(tmp_path, "gamma", teaching=(True, False, False), tuned=True)
    make_project(tmp_path, "delta", teaching=(True, False, False), shaped="read its errors")
    result = cli("eval", "extraction", "--corpus", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    rules, _, loo = result.stdout.partition("\n\n")
    rows = {line.split()[0]: line.split() for line in rules.splitlines()[3:]}
    assert rows["alpha"][1:7] == ["3", "1", "1", "1.00", "1.00", "1.00"]
    assert rows["beta"][1:6] == ["3", "0", "1", "0.00", "-"]
    assert rows["gamma"][1] == "(tuned"
    assert rows["delta"][1] == "(shaped"
    # only alpha and beta were neither tuned nor shaped on: 6 inputs, 1 flagged
    assert rows["pooled,"][1:5] == ["held", "out", "6", "1"]
    assert "leave-one-project-out" in loo
    gated = {line.split()[0]: line.split() for line in loo.splitlines()[3:]}
    assert set(gated) == {"alpha", "beta", "gamma", "delta", "pooled"}
    assert gated["delta"][1] == "(shaped"
    assert gated["alpha"][1:3] == ["3", "1"]

    doc = cli("eval", "extraction", "--corpus", str(tmp_path), "--json").json()
    by_name = {p["project"]: p for p in doc["projects"]}
    assert by_name["gamma"]["tuned_on"] is True
    assert (by_name["delta"]["shaped_on"], by_name["alpha"]["shaped_on"]) == (True, False)
    assert (by_name["alpha"]["precision"], by_name["beta"]["precision"]) == (1.0, 0.0)
    assert doc["pooled"]["inputs"] == 12
    assert doc["pooled"]["flagged"] == 4
    loo = doc["leave_one_out"]
    assert [p["project"] for p in loo["projects"]] == ["alpha", "beta", "delta", "gamma"]
    assert all("gate_threshold" in p for p in loo["projects"])
    assert loo["pooled"]["inputs"] == 12


def test_the_title_column_says_how_much_of_the_labelled_rule_a_title_holds(
    tmp_path: Path, cli: CliRunner
) -> None:
    # the proposal's title is "Always run the tests with uv run pytest, never bare pytest"
    make_project(tmp_path, "named", teaching=(True, False, False), rule="Tests run with uv.")
    make_project(tmp_path, "missed", teaching=(True, False, False), rule="Deploy on Fridays.")
    make_project(tmp_path, "unstated", teaching=(True, False, False))
    result = cli("eval", "extraction", "--corpus", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    rules = result.stdout.partition("\n\n")[0].splitlines()
    assert rules[3].split()[-1] == "title"
    rows = {line.split()[0]: line.split() for line in rules[4:]}
    assert rows["named"][-1] == "1.00"  # tests, run, uv: all three in the title
    assert rows["missed"][-1] == "0.00"
    assert rows["unstated"][-1] == "-"  # no rule labelled: nothing to compare
    assert rows["pooled"][-1] == "0.50"
    as_json = json.loads(cli("eval", "extraction", "--corpus", str(tmp_path), "--json").stdout)
    assert [p["title_words"] for p in as_json["projects"]] == [0.0, 1.0, None]


def test_labels_that_do_not_fit_their_session_name_the_project_and_file(
    tmp_path: Path, cli: CliRunner
) -> None:
    make_project(tmp_path, "alpha", teaching=(True, False))  # three human inputs, two labels
    result = cli("eval", "extraction", "--corpus", str(tmp_path))
    assert result.exit_code != 0
    assert "alpha/s1.jsonl: 3 human inputs read, but 2 labels" in result.stderr


def test_the_committed_corpus_has_provenance_for_every_session() -> None:
    corpus = REPO_ROOT / "benchmarks/corpus"
    projects = [p for p in corpus.iterdir() if (p / "labels.jsonl").is_file()]
    assert len(projects) >= 6
    for project in projects:
        source = json.loads((project / "SOURCE.json").read_text())
        assert source["repo"], project.name
        assert len(source["commit"]) == 40, project.name
        assert source["licence"], project.name
        named = {entry["name"]: entry["sha256"] for entry in source["files"]}
        on_disk = {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in (project / "sessions").iterdir()
        }
        assert named == on_disk, project.name
