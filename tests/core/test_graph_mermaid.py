"""GRAPH.md carries a Mermaid diagram of the edges, which git hosts draw."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lorebook.kb import graph as kb_graph
from tests.conftest import CliRunner

BASE = ["--description", "d", "--kind", "convention", "--body", "b"]


def _mermaid(graph: str) -> list[str]:
    block = re.search(r"```mermaid\n(.*?)\n```", graph, re.S)
    assert block, graph
    return block.group(1).splitlines()


def test_edges_are_drawn_between_numbered_nodes_labelled_by_id(
    kb_repo: Path, cli: CliRunner
) -> None:
    cli("note", "add", "--title", "Alpha", *BASE, cwd=kb_repo)
    cli("note", "add", "--title", "Beta", *BASE, "--depends-on", "convention-alpha", cwd=kb_repo)
    cli("note", "add", "--title", "Gamma", *BASE, "--relates-to", "convention-alpha",
        "--relates-to", "convention-beta", cwd=kb_repo)  # fmt: skip
    lines = _mermaid((kb_repo / ".lorebook/GRAPH.md").read_text())
    assert lines == [
        "graph LR",
        '  n1["convention-alpha"]',
        '  n2["convention-beta"]',
        '  n3["convention-gamma"]',
        "  n2 -->|depends on| n1",
        "  n3 -->|relates to| n1",
        "  n3 -->|relates to| n2",
    ]
    declared = {
        m.group(1) for line in lines if (m := re.match(r"  (n\d+)\[\"[a-z0-9-]+\"\]$", line))
    }
    for line in lines[4:]:
        source, _, target = re.fullmatch(r"  (n\d+) -->\|([a-z ]+)\| (n\d+)", line).groups()  # type: ignore[union-attr]
        assert {source, target} <= declared


def test_no_edges_no_diagram_and_too_many_are_not_drawn(
    kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("note", "add", "--title", "Alpha", *BASE, cwd=kb_repo)
    graph = (kb_repo / ".lorebook/GRAPH.md").read_text()
    assert "```mermaid" not in graph
    assert "No edges yet." in graph
    monkeypatch.setattr(kb_graph, "MAX_DRAWN_EDGES", 1)
    cli("note", "add", "--title", "Beta", *BASE, "--relates-to", "convention-alpha",
        "--depends-on", "convention-alpha", cwd=kb_repo)  # fmt: skip
    graph = (kb_repo / ".lorebook/GRAPH.md").read_text()
    assert "```mermaid" not in graph
    assert "2 edges are too many to draw; the lists below hold them all." in graph
