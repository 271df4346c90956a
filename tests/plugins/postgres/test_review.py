"""Writes go through review: proposals are not served; approval records who and when."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lorebook.testing.store_contract import make_note
from lorebook_postgres.cache import refresh
from lorebook_postgres.store import PostgresStore, UpdateConflictError


@pytest.fixture
def store(pg_dsn: str, org: str, cache_dir: Path) -> Iterator[PostgresStore]:
    opened = PostgresStore(org, dsn=pg_dsn, cache=cache_dir)
    yield opened
    opened.close()


def _cached(store: PostgresStore) -> dict[str, str]:
    return {p.stem: p.read_text() for p in store.paths.nodes.rglob("*.md")}


def test_a_proposal_is_cached_only_once_approved_recording_who_and_when(
    store: PostgresStore,
) -> None:
    store.add(make_note("billing-gateway", body="Call billing through the gateway client."))
    assert [p.id for p in store.proposals()] == ["practice-billing-gateway"]
    refresh(store)
    assert _cached(store) == {}  # proposed: served nowhere
    who, when = store.approve("practice-billing-gateway")
    assert who == "lorebook"  # the database role that approved it
    assert when is not None
    assert store.proposals() == []
    done = refresh(store)
    assert (done.notes, done.written) == (1, 1)
    assert "gateway client" in _cached(store)["practice-billing-gateway"]


def test_a_change_to_an_approved_note_waits_while_the_approved_text_is_served(
    store: PostgresStore,
) -> None:
    store.add(make_note("deploys", body="Deploy on Tuesdays."))
    store.approve("practice-deploys")
    store.update(make_note("deploys", body="Deploy any weekday."))
    refresh(store)
    assert "Tuesdays" in _cached(store)["practice-deploys"]  # the approved text
    assert [p.replaces_approved for p in store.proposals()] == [True]
    store.reject("practice-deploys")
    assert store.get("practice-deploys").body == "Deploy on Tuesdays."
    store.update(make_note("deploys", body="Deploy any weekday."))
    store.approve("practice-deploys")
    refresh(store)
    assert "any weekday" in _cached(store)["practice-deploys"]
    store.remove("practice-deploys")
    assert refresh(store).removed == 1
    assert _cached(store) == {}


def test_an_update_made_since_a_writer_read_the_note_is_a_conflict(
    pg_dsn: str, org: str, cache_dir: Path
) -> None:
    alice = PostgresStore(org, dsn=pg_dsn, cache=cache_dir)
    bob = PostgresStore(org, dsn=pg_dsn, cache=cache_dir)
    try:
        alice.add(make_note("retries", body="Retry three times."))
        bob.get("practice-retries")
        alice.update(make_note("retries", body="Retry five times."))
        with pytest.raises(UpdateConflictError, match="changed since it was read"):
            bob.update(make_note("retries", body="Never retry."))
        assert alice.get("practice-retries").body == "Retry five times."  # not overwritten
        bob.get("practice-retries")
        bob.update(make_note("retries", body="Retry with backoff."))  # after a fresh read
        assert alice.get("practice-retries").body == "Retry with backoff."
    finally:
        alice.close()
        bob.close()


def test_approving_a_version_the_reviewer_did_not_see_is_refused(store: PostgresStore) -> None:
    store.add(make_note("flags"))
    shown = store.proposals()[0].version
    store.update(make_note("flags", body="changed after it was shown"))
    with pytest.raises(UpdateConflictError, match="changed since it was shown"):
        store.approve("practice-flags", version=shown)
    store.approve("practice-flags", version=shown + 1)
    with pytest.raises(UpdateConflictError, match="approved already"):
        store.approve("practice-flags")


def test_ranked_by_postgres_full_text_search_title_over_body(store: PostgresStore) -> None:
    store.add(make_note("a", title="Kafka consumers", body="Nothing else."))
    store.add(make_note("b", title="Other", body="Mentions kafka once."))
    store.add(make_note("c", title="Kafka proposal", body="Not approved."))
    store.approve("practice-a")
    store.approve("practice-b")
    assert [h.id for h in store.search("kafka")] == ["practice-a", "practice-b"]


def test_organisations_do_not_see_each_other(pg_dsn: str, cache_dir: Path, org: str) -> None:
    ours = PostgresStore(org, dsn=pg_dsn, cache=cache_dir / "ours")
    theirs = PostgresStore(org + "-other", dsn=pg_dsn, cache=cache_dir / "theirs")
    try:
        ours.add(make_note("shared-id", body="ours"))
        theirs.add(make_note("shared-id", body="theirs"))  # the same id in another scope
        ours.approve("practice-shared-id")
        refresh(theirs)
        assert theirs.ids() == ["practice-shared-id"]
        assert theirs.get("practice-shared-id").body == "theirs"
        assert list(theirs.paths.nodes.rglob("*.md")) == []
    finally:
        ours.close()
        theirs.close()


def test_an_import_stores_the_new_and_reports_the_existing(store: PostgresStore) -> None:
    store.add(make_note("kept", body="first"))
    refused = store.add_many([make_note("kept", body="second"), make_note("new")])
    assert refused == ["practice-kept"]
    assert store.get("practice-kept").body == "first"
    assert store.ids() == ["practice-kept", "practice-new"]
