"""The README's demo runs the whole loop and shows what a newcomer is promised."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT


def test_the_demo_runs_the_whole_loop() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "demo.py")],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    # Two notes: "the billing code lives in src/pay. The old src/billing ... do not add code
    # there" is one rule said two ways (where it lives, where it does not), one location note.
    assert "curator rules: 2 added, 0 merged, 0 conflicts" in out
    assert "location-the-billing-code-lives-in-src-pay.md" in out
    # before the commit the note is a pointer labelled unreviewed; once committed it goes whole
    unreviewed = out.index("notes no person has reviewed yet")
    committed = out.index("$ git add -A && git commit")
    whole = out.index("### Always run the tests with uv run pytest here")
    assert unreviewed < committed < whole
    assert "### Always run" not in out[:committed]
    assert "(nothing injected)" in out  # the unrelated prompt
    assert "1 conflicts" in out
    assert ": accepted" in out
    assert "We always run them with `hatch test` now." in out  # the decided rule is served
    assert "0 errors" in out
