"""A realistic knowledge base of any size, for the speed benchmarks.

Notes are cut from real text: the community rule files in
shared/eval/corpora/awesome-cursorrules and the minsky rules (English prose mixed with
identifiers, paths and code, so common programming words are frequent and the vocabulary
has a long tail). Each note takes 50 to 300 words from a random paragraph onwards (about
150 tokens on average), a title from its first words and a description from the next; the
notes spread over 400 folders. Seeded: the same arguments give the same files.

    .venv/bin/python benchmarks/kbgen.py REPO --notes 10000
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from lorebook.kb.notes import render_note
from lorebook.kb.paths import KBPaths
from lorebook.models.note import Note

SHARED = Path(__file__).resolve().parents[2] / "shared" / "eval"
SOURCES = (
    SHARED / "corpora" / "awesome-cursorrules" / "rules",
    SHARED / "transcripts" / "cursor-specstory" / "cursor-rules-at-commit",
)
KINDS = ("convention", "prohibition", "gotcha", "decision", "tooling", "vocabulary")
FOLDERS = 400


def corpus_words() -> list[str]:
    """Every word of the source files, in order (front matter left out)."""
    words: list[str] = []
    for folder in SOURCES:
        for path in sorted(folder.glob("*.md*")):
            text = path.read_text(encoding="utf-8", errors="replace")
            text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
            words += text.split()
    if not words:
        raise SystemExit(f"no source text under {SHARED}: the benchmarks need shared/eval")
    return words


def note_texts(count: int, seed: int = 7) -> list[tuple[str, str, str]]:
    """(title, description, body) of ``count`` notes."""
    rng = random.Random(seed)
    words = corpus_words()
    notes = []
    for _ in range(count):
        length = rng.randint(50, 300)
        start = rng.randrange(0, max(1, len(words) - length))
        chunk = words[start : start + length]
        title = " ".join(w.strip("#*`:-") for w in chunk[:7]).strip() or "Untitled note"
        description = " ".join(chunk[7:20]).strip("#*`- ") or title
        notes.append((title[:120], description[:300], " ".join(chunk[20:]) or description))
    return notes


def knowledge_bases(sizes: str, keep: Path | None) -> Iterator[tuple[int, Path, float | None]]:
    """(size, repository, seconds its index took to build) for each of ``sizes``.

    ``sizes`` is comma-separated. Repositories live under ``keep`` (reused when their index
    exists; the seconds are then None, and ``lorebook init`` runs again, so the hook
    launcher is this checkout's) or in a temporary folder removed afterwards.
    """
    from lorebook.initialize import init_repo

    with tempfile.TemporaryDirectory(prefix="lorebook-bench-") as tmp:
        root = keep or Path(tmp)
        for size in (int(s) for s in sizes.split(",")):
            repo = root / f"kb-{size}"
            built = None
            if not (repo / ".lorebook/.cache/index.sqlite").exists():
                built = write_kb(repo, size)
            else:
                init_repo(repo, ["claude"])
            yield size, repo, built


def peak_rss_mb(
    argv: list[str], cwd: Path, payload: bytes | None = None, env: dict[str, str] | None = None
) -> float:
    """Peak resident memory of one run of ``argv``, in MB, from /usr/bin/time."""
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *argv], input=payload, capture_output=True, env=env,
        cwd=cwd, check=True,
    )  # fmt: skip
    return int(proc.stderr.decode().strip().splitlines()[-1]) / 1024


def write_kb(repo: Path, count: int) -> float:
    """Create ``repo`` (git, lorebook init for Claude Code) with ``count`` notes.

    Returns the seconds ``index rebuild`` took from nothing (the notes written straight to
    disk and committed first, as a ``git pull`` or a clone would bring them: the rebuild
    then also finds them committed, so the hooks serve them as reviewed notes).
    """
    from lorebook.initialize import init_repo
    from lorebook.recall.sync import rebuild_index

    repo.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    init_repo(repo, ["claude"])
    paths = KBPaths(repo)
    for i, (title, description, body) in enumerate(note_texts(count)):
        note = Note.model_validate(
            {
                "type": "practice",
                "title": title,
                "description": description,
                "lb_id": f"practice-bench-{i:06d}",
                "lb_kind": KINDS[i % len(KINDS)],
                "body": body,
            }
        )
        folder = paths.nodes / f"area-{i % FOLDERS:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{note.id}.md").write_text(render_note(note, None), encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    identity = ["-c", "user.name=lorebook bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", *identity, "commit", "-qm", "notes"], cwd=repo, check=True)
    started = time.perf_counter()
    rebuild_index(paths)
    return time.perf_counter() - started


def main() -> None:
    """Write the knowledge base and say how long indexing it took."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--notes", type=int, default=10_000)
    args = parser.parse_args()
    seconds = write_kb(args.repo, args.notes)
    print(f"{args.notes} notes in {args.repo}; index built from nothing in {seconds:.1f} s")


if __name__ == "__main__":
    main()
