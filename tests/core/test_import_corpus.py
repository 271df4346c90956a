"""The labelled extraction corpus reads as it was labelled.

Each folder of ``benchmarks/corpus`` holds real session exports and a ``labels.jsonl`` that
people wrote by reading them, one line per human input, placed by ``line`` (the line of a
console copy's ``> `` prompt) or ``turn`` (its 1-based number among the human inputs), with
the start of its ``text``, whitespace collapsed. ``benchmarks/corpus/turns.py`` shows a file
as ``lorebook import`` reads it; these tests check that the importer finds exactly the
labelled inputs, in order, at their lines, starting with their text.
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from lorebook.evaluation.extraction_labels import HUMAN_ROLES
from lorebook.importers.sources import read_source
from tests.conftest import REPO_ROOT

CORPUS = REPO_ROOT / "benchmarks/corpus"
TEXT_EXPORTS = (
    "saross-trap-extraction",  # Claude Code v2 /export copies
    "guitargnar-mirador",  # Claude Code v1 /export copies
    "7mpra-ytdlpspout",  # SpecStory, 2025
    "closup-process-xbrl",  # SpecStory, late 2024 ('## SpecStory')
    "ktsu-dev-blastmerge",
    "michaelpaulukonis-polychrome.p5",
    "simbolico-politipo",  # SpecStory, early 2025 (no timestamps on the turns)
    "ambidextrouscoatie-league_analyzer",  # SpecStory 2.1, Cursor, late 2025
    "robin-collins-next-ppdb",  # SpecStory, Cursor, late 2025 (Cursor's plan-mode prompts)
    "daviswhitehead-chef-chopsky",
    "thathunky-gryag",  # SpecStory, VS Code Copilot
    "twardoch-twat-search",  # SpecStory, Cursor, early 2025 (no timestamps on the turns)
    "rjpower-zopfli",  # Claude Code console copies, 2025, beginning mid-session (scroll-back)
    "org-etherealogic-themegpt-v2.0",  # Claude Code 2.0.76 to 2.1.1 console copies
    "robin-collins-aibundle",  # SpecStory, Cursor, April to June 2025 (no timestamps on the turns)
    "hornsyld-economic-bc-connector",  # SpecStory, VS Code Copilot agent, October 2025 (AL)
    "twardoch-nyord-vpn",  # SpecStory, Cursor, February 2025 (no timestamps on the turns)
    "idorgham-docgen",  # SpecStory, Cursor, September 2025 (three empty user turns)
    "specstoryai-keyframe-blogger",  # SpecStory, Claude Code and Cursor, July 2025
    "hpm27-agente-bsc-rag",  # SpecStory, Cursor, October 2025 (Portuguese)
    "destyler-destyler",  # SpecStory, VS Code Copilot agent, June to November 2025 (Chinese)
    "gyasis-promptchain",  # SpecStory, Claude Code, August to October 2025
)
"""The folders of text exports (not native transcripts) that import reads itself."""


def _labels(folder: str) -> dict[str, list[dict[str, object]]]:
    labels: dict[str, list[dict[str, object]]] = defaultdict(list)
    for line in (CORPUS / folder / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            label = json.loads(line)
            labels[str(label["file"])].append(label)
    return labels


def _files() -> list[tuple[str, str]]:
    return [(folder, name) for folder in TEXT_EXPORTS for name in sorted(_labels(folder))]


def _collapsed(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(("folder", "name"), _files(), ids=lambda value: value)
def test_every_labelled_input_is_read_where_and_as_labelled(folder: str, name: str) -> None:
    labels = _labels(folder)[name]
    by = "line" if "line" in labels[0] else "turn"
    labels.sort(key=lambda label: int(str(label[by])))
    log = read_source(CORPUS / folder / "sessions" / name, None, {}).log
    assert log is not None
    human = [turn for turn in log.turns if turn.role in HUMAN_ROLES]
    read = [
        (turn.index + 1 if by == "line" else number, _collapsed(turn.text))
        for number, turn in enumerate(human, start=1)
    ]
    expected = [(label[by], str(label.get("text", ""))) for label in labels]
    assert len(read) == len(expected), f"{len(read)} human inputs read, {len(expected)} labelled"
    for (place, text), (labelled_place, labelled_text) in zip(read, expected, strict=True):
        assert place == labelled_place
        assert text.startswith(labelled_text), (place, text[:100])


def test_the_corpus_folders_are_there() -> None:
    assert len(_files()) >= 37 + 6 + 8 + 5
    assert all((CORPUS / folder / "sessions").is_dir() for folder in TEXT_EXPORTS)
