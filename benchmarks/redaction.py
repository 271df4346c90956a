"""Secret redaction: throughput, and false positives on the real recorded fixtures.

Runs lorebook's redaction over every recorded hook payload, transcript, model request and
run output in shared/fixtures/harnesses and the real transcripts in shared/eval/transcripts
(none of which holds a real secret), prints each line it changed (a false positive, unless
it is a dummy key a fixture holds on purpose), and the throughput in MB/s and lines/s. Then
plants known secrets in generated text and checks each is redacted.

    .venv/bin/python benchmarks/redaction.py
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from lorebook.capture.redact import redact_many

SHARED = Path(__file__).resolve().parents[2] / "shared"
PLANTED = [
    "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "git remote add origin https://deploy:hunter2hunter2@git.example.invalid/x.git",
    "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyzABCDEFGHIJ1234567890",
    'password = "correct horse battery staple"',
    "slack: xoxb-123456789012-abcdefghijklmnopqrstuvwx",
]


def fixture_texts() -> list[tuple[Path, str]]:
    """Every text file of the recorded fixtures and real transcripts."""
    roots = [SHARED / "fixtures" / "harnesses", SHARED / "eval" / "transcripts"]
    found = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in (
                ".jsonl",
                ".json",
                ".md",
                ".stdout",
                ".stderr",
                ".toml",
            ):
                try:
                    found.append((path, path.read_text(encoding="utf-8")))
                except UnicodeDecodeError:
                    continue
    return found


def main() -> None:
    """Measure and report."""
    texts = fixture_texts()
    if not texts:
        raise SystemExit(f"no fixtures under {SHARED}")
    size = sum(len(t.encode()) for _, t in texts)
    lines = sum(t.count("\n") + 1 for _, t in texts)
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        out = redact_many([t for _, t in texts])
        runs.append(time.perf_counter() - started)
    seconds = statistics.median(runs)
    changed = 0
    for (path, text), clean in zip(texts, out, strict=True):
        for before, after in zip(text.split("\n"), clean.split("\n"), strict=False):
            if before != after:
                changed += 1
                print(f"changed: {path.relative_to(SHARED)}: {before.strip()[:120]}")
    print(f"{len(texts)} files, {lines} lines, {size / 1e6:.2f} MB")
    print(f"lines changed (false positives unless a fixture's dummy key): {changed}")
    print(
        f"throughput (median of 3): {size / seconds / 1e6:.2f} MB/s, {lines / seconds:.0f} lines/s"
    )
    planted = redact_many(["\n".join(PLANTED)])[0].split("\n")
    missed = [p for p, r in zip(PLANTED, planted, strict=True) if "[REDACTED]" not in r]
    print(f"planted secrets redacted: {len(PLANTED) - len(missed)}/{len(PLANTED)}")
    for line in missed:
        print(f"  missed: {line}")


if __name__ == "__main__":
    main()
