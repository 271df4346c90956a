"""Ten realistic notes, as `lorebook note add` arguments, shared by several tests."""

from __future__ import annotations

TEN_NOTES: list[list[str]] = [
    [
        "--title",
        "Run tests with uv run pytest",
        "--description",
        "Running the test suite",
        "--kind",
        "convention",
        "--tag",
        "testing",
        "--tag",
        "uv",
        "--body",
        "Always `uv run pytest`; bare `pytest` misses the workspace packages.",
        "--anchor-command",
        r"^pytest\b",
        "--enforce",
        "warn",
    ],
    [
        "--title",
        "Never push to main",
        "--description",
        "Publishing changes",
        "--kind",
        "prohibition",
        "--tag",
        "git",
        "--body",
        "Open a pull request instead.",
        "--anchor-command",
        r"git push .*main",
        "--enforce",
        "deny",
        "--relates-to",
        "convention-use-conventional-commits",
    ],
    [
        "--title",
        "Use conventional commits",
        "--description",
        "Writing commit messages",
        "--kind",
        "convention",
        "--tag",
        "git",
        "--body",
        "`feat:`, `fix:`, `docs:` prefixes.",
    ],
    [
        "--title",
        "The cache tags gotcha",
        "--description",
        "Invalidating the page cache",
        "--kind",
        "gotcha",
        "--folder",
        "backend/cache",
        "--tag",
        "cache",
        "--body",
        "Default cache tags are shared across tenants: always add the tenant tag.",
        "--anchor-file",
        "src/cache/**/*.py",
    ],
    [
        "--title",
        "Why we chose SQLite",
        "--description",
        "Choosing a database",
        "--kind",
        "decision",
        "--folder",
        "backend",
        "--tag",
        "database",
        "--body",
        "One file, no server, good enough for 10k notes.",
    ],
    [
        "--title",
        "ruff is the only linter",
        "--description",
        "Linting and formatting",
        "--kind",
        "tooling",
        "--tag",
        "lint",
        "--body",
        "Do not add flake8 or black.",
    ],
    [
        "--title",
        "Billing lives in src/pay",
        "--description",
        "Finding billing code",
        "--kind",
        "location",
        "--folder",
        "backend",
        "--tag",
        "billing",
        "--depends-on",
        "decision-why-we-chose-sqlite",
    ],
    [
        "--title",
        "A lore is a note",
        "--description",
        "What the word lore means here",
        "--kind",
        "vocabulary",
        "--tag",
        "glossary",
        "--body",
        "Lore = one curated note.",
    ],
    [
        "--title",
        "Invoices export to CSV",
        "--description",
        "The invoice export feature",
        "--kind",
        "feature",
        "--folder",
        "backend",
        "--tag",
        "billing",
        "--relates-to",
        "location-billing-lives-in-src-pay",
    ],
    [
        "--title",
        "Timeouts surface as HTTP 504",
        "--description",
        "Debugging gateway errors",
        "--kind",
        "gotcha",
        "--folder",
        "backend/cache",
        "--tag",
        "http",
        "--anchor-error",
        r"504 Gateway Time-?out",
        "--body",
        "The cache layer times out first.",
    ],
]

TEN_IDS = [
    "convention-run-tests-with-uv-run-pytest",
    "prohibition-never-push-to-main",
    "convention-use-conventional-commits",
    "gotcha-the-cache-tags-gotcha",
    "decision-why-we-chose-sqlite",
    "tooling-ruff-is-the-only-linter",
    "location-billing-lives-in-src-pay",
    "vocabulary-a-lore-is-a-note",
    "feature-invoices-export-to-csv",
    "gotcha-timeouts-surface-as-http-504",
]


def in_link_order(order: list[int]) -> list[int]:
    """``order`` with each note moved after the notes it links to (``note add`` refuses a
    link to a note that does not exist yet); otherwise as given."""
    links = {
        i: {
            TEN_IDS.index(args[k + 1])
            for k, arg in enumerate(args)
            if arg in ("--relates-to", "--depends-on")
        }
        for i, args in enumerate(TEN_NOTES)
    }
    done: list[int] = []
    while len(done) < len(order):
        done.append(next(i for i in order if i not in done and links[i] <= set(done)))
    return done
