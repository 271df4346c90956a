"""The organisation store's table: one row per note and organisation, with its review state.

A row holds the note as markdown (``content``: front matter and body, exactly what a
markdown store writes) and, once a person approved it, the approved text beside it
(``approved_content``): a later change is a new proposal, and the approved text is served
until that one is approved too. ``search`` is PostgreSQL's full-text vector over the
fields the local ranker weighs (title A, description B, tags C, body D), with a GIN index.
"""

from __future__ import annotations

TABLE = "lorebook_notes"
SCHEMA_LOCK = 0x6C6F7265  # an advisory lock key ("lore"): one schema creation at a time

CREATE = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    org text NOT NULL,
    id text NOT NULL,
    folder text NOT NULL,
    content text NOT NULL,
    title text NOT NULL,
    description text NOT NULL,
    tags text NOT NULL,
    body text NOT NULL,
    kind text NOT NULL,
    status text NOT NULL,
    version integer NOT NULL DEFAULT 1,
    review text NOT NULL DEFAULT 'proposed' CHECK (review IN ('proposed', 'approved')),
    proposed_by text NOT NULL DEFAULT current_user,
    proposed_at timestamptz NOT NULL DEFAULT now(),
    approved_content text,
    approved_version integer,
    approved_by text,
    approved_at timestamptz,
    search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, title), 'A')
        || setweight(to_tsvector('english'::regconfig, description), 'B')
        || setweight(to_tsvector('english'::regconfig, tags), 'C')
        || setweight(to_tsvector('english'::regconfig, body), 'D')
    ) STORED,
    PRIMARY KEY (org, id)
);
CREATE INDEX IF NOT EXISTS {TABLE}_search ON {TABLE} USING gin (search);
CREATE INDEX IF NOT EXISTS {TABLE}_review ON {TABLE} (org, review);
"""
