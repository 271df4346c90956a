"""The deterministic extractor: signals, rejections, retraction, merging, quotes, proposals."""

from __future__ import annotations

import asyncio

import pytest

from lorebook.extract.base import ExtractionRequest, Extractor, quote_in_session
from lorebook.extractors.llm import preselect
from lorebook.extractors.rules import Candidate, RulesExtractor, find_teaching_moments
from lorebook.extractors.sentences import split_sentences
from lorebook.extractors.signals import judge, strip_markers
from lorebook.extractors.terms import as_tag, code_identifiers, file_anchor, proper_names
from lorebook.extractors.titles import make_description, make_title
from lorebook.models.note import TAG_RE
from lorebook.models.session import LoggedTurn, Proposal, SessionLog


def turns_of(*texts: str, first: str = "user") -> list[LoggedTurn]:
    """Alternate user and assistant turns (``first`` says who starts)."""
    roles = ("user", "assistant") if first == "user" else ("assistant", "user")
    return [LoggedTurn(index=i, role=roles[i % 2], text=text) for i, text in enumerate(texts)]


def log_of(turns: list[LoggedTurn], proposals: list[Proposal] | None = None) -> SessionLog:
    return SessionLog(
        harness="claude",
        session_id="s1",
        origin="claude:s1",
        transcript_hash="0" * 64,
        transcript_length=0,
        turns=turns,
        proposals=proposals or [],
    )


def extract(turns: list[LoggedTurn], log: SessionLog | None = None) -> list[Proposal]:
    request = ExtractionRequest(log=log or log_of(turns), turns=turns)
    return asyncio.run(RulesExtractor().extract(request))


# -- one sentence ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("Never call the payment gateway from a unit test.", "prohibition"),
        ("Don't edit generated files under `dist/`.", "prohibition"),
        ("Avoid raw SQL in controllers.", "prohibition"),
        ("Emit a `billing.updated` event instead.", "prohibition"),
        ("Every migration ships with a rollback script.", "convention"),
        ("API handlers must validate the tenant id first.", "convention"),
        ("Treat `user_ref` as opaque, not as a number.", "convention"),
        ("Fixtures belong in `tests/fixtures`, one per scenario.", "convention"),
        ("Always run `hatch run lint:fix` before committing.", "tooling"),
        ("Run the contract suite after changing a serializer.", "convention"),
        ("Careful: the staging proxy lowercases header names.", "gotcha"),
        ("Sorting by key will fail again after a config export.", "gotcha"),
        ("The cron runner silently drops jobs longer than an hour.", "gotcha"),
        ("We deliberately keep prices in integer cents.", "decision"),
        ("Use `decimal_money` because floats lose cents on refunds.", "decision"),
        ("Queue the refresh rather than invalidating the whole cache.", "decision"),
        ("Right, use `money_cents` because floats drift.", "decision"),
        ("Tests run through `ddev exec vendor/bin/phpunit` on every machine.", "tooling"),
        ("Use `uv run pytest` for the suite.", "tooling"),
        ("The payment adapters live in `src/billing/adapters`.", "location"),
        ("Partner bridges are under `modules/partner/src/Bridge`.", "location"),
        ("We are introducing Ledger Lens, the reporting feature that totals refunds.", "feature"),
        ("Ledger Lens is the named system for refund reports.", "vocabulary"),
        ('In this codebase a "lane" refers to one review pipeline.', "vocabulary"),
        ("Northwind Sync is our name for the nightly partner import.", "vocabulary"),
        ("Northwind Sync is our nightly partner import job.", "vocabulary"),
        ('"Lane" = one review pipeline.', "vocabulary"),
        ("When I say Ledger Lens I mean the refund report.", "vocabulary"),
        ("Lint with `phpcs --standard=Drupal` before pushing.", "tooling"),
    ],
)
def test_each_signal_kind(sentence: str, kind: str) -> None:
    verdict = judge(sentence)
    assert verdict.status == "teach"
    assert verdict.kinds[0] == kind


@pytest.mark.parametrize(
    ("sentence", "status"),
    [
        ("Should we always cache the feed?", "question"),
        ("Shouldn't we never retry here", "question"),
        ("How do we avoid double billing", "question"),
        ("Maybe we should always retry twice.", "tentative"),
        ("Try never caching the feed.", "tentative"),
        ("I think refunds must go through the queue.", "tentative"),
        ("I do not think caching belongs in the controller.", "tentative"),
        ("For now, always skip the slow tests.", "tentative"),
        ("Do not merge it yet.", "tentative"),
        ("Always add a description to every note.", "meta"),
        ("Never put the proposal text in the knowledge base.", "meta"),
        ("`/kk-add` must always ask first.", "meta"),
        ("Ticket PAY-812 must never be reopened.", "ephemeral"),
        ("After the outage we always page twice.", "ephemeral"),
        ("Always use the key AWS_SECRET_ACCESS_KEY=[REDACTED] here.", "ephemeral"),
        ("Never mind, leave it as it is.", "retract"),
        ("That rule came from an unapproved draft.", "retract"),
        ("Let us come back to the transport question.", "retract"),
        ("Scrap that, revert the changes.", "retract"),
    ],
)
def test_each_rejection(sentence: str, status: str) -> None:
    assert judge(sentence).status == status


@pytest.mark.parametrize(
    "sentence",
    [
        "Fix the typo.",
        "Run the focused test.",
        "Don't forget to run the linter.",
        "These don't seem useful to me.",
        "I don't see the change.",
        "Now add a `git branch` command that creates a branch using the session name.",
        "Please re-do the task so that I can see the diff.",
        "Run every test file again.",
        "run `bun verify` to check if main is passing",  # a step of this task, not a tool rule
        "please run `hatch run lint:fix`",
        "This means the build is green.",
        "The cache is stale after an import.",
    ],
)
def test_plain_sentences_teach_nothing(sentence: str) -> None:
    assert judge(sentence).status == "neutral"


def test_strip_markers() -> None:
    assert strip_markers("No. Never do that.") == "Never do that."
    assert strip_markers("Correct, exactly: keep it.") == "keep it."
    assert strip_markers("Here is the gotcha: keys are strings.") == "keys are strings."
    assert strip_markers("The durable rule is that ids never change.") == "ids never change."
    assert strip_markers("Note that as a rule, we pin versions.") == "we pin versions."


def test_sentences_keep_offsets_and_skip_pasted_text() -> None:
    text = (
        "Never edit `a.b.c` by hand. See e.g. the docs!\n\n"
        "```\nnever run this\n```\n"
        "\u276f make test\nFAILED: always\n\n"
        "> quoted never\n"
        "- always pin versions\n"
    )
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == [
        "Never edit `a.b.c` by hand.",
        "See e.g. the docs!",
        "always pin versions",
    ]
    assert all(text[s.start : s.end] == s.text for s in sentences)
    assert sentences[0].paragraph == sentences[1].paragraph != sentences[2].paragraph


def test_a_number_ends_a_sentence_unless_it_numbers_an_item() -> None:
    bumped = split_sentences("bump the replicas from 4 to 6. do it in the manifests repo")
    assert [s.text for s in bumped] == [
        "bump the replicas from 4 to 6.",
        "do it in the manifests repo",
    ]
    listed = split_sentences("Two things: 1. keep the cache warm 2. never push to main")
    assert [s.text for s in listed] == ["Two things: 1. keep the cache warm 2. never push to main"]
    first = split_sentences("1. keep the cache warm")
    assert [s.text for s in first] == ["keep the cache warm"]


def test_a_section_number_before_a_lower_case_word_does_not_end_the_sentence() -> None:
    read = split_sentences("Read @TODO.md from 2.1. onwards. Rewrite that section, then stop")
    assert [s.text for s in read] == [
        "Read @TODO.md from 2.1. onwards.",
        "Rewrite that section, then stop",
    ]
    released = split_sentences("we released 2.1. Next comes 2.2.")
    assert [s.text for s in released] == ["we released 2.1.", "Next comes 2.2."]


def test_a_rule_opening_on_an_identifier_keeps_its_case() -> None:
    (proposal,) = extract(
        turns_of(
            "test_sql_cache and test_redis_cache must go: we removed those engines on purpose.",
            "Removing them now.",
        )
    )
    assert proposal.body.startswith("test_sql_cache and test_redis_cache must go")
    said = f"{proposal.title} {proposal.description} {proposal.body}"
    assert "Test_sql_cache" not in said


def test_a_sentence_goes_on_over_one_blank_line_when_it_is_plainly_not_over() -> None:
    # "I WANT" ends on a verb of mind; "the zip at <url>" is followed by its lower-case verb.
    wants = split_sentences("I WANT \n\nNORD_USER and NORD_PASSWORD !!!")
    assert [s.text for s in wants] == ["I WANT \n\nNORD_USER and NORD_PASSWORD !!!"]
    zip_file = split_sentences(
        "Use the archive at https://example.org/ovpn.zip\n\n"
        "is a ZIP that has two folders.\n\nRead it once."
    )
    assert zip_file[0].text.startswith("Use the archive at")
    assert zip_file[0].text.endswith("two folders.")


def test_paragraphs_stay_apart_for_lists_and_lower_case_typists() -> None:
    # Someone who types all in lower case opens a new sentence in lower case.
    lower = split_sentences("keep the cache warm\n\nthe tests run against it")
    assert [s.text for s in lower] == ["keep the cache warm", "the tests run against it"]
    items = split_sentences("Rules for the repo\n\n- always pin versions\n- never push to main")
    assert [s.text for s in items] == [
        "Rules for the repo",
        "always pin versions",
        "never push to main",
    ]
    two = split_sentences("Keep the cache warm\n\nThe tests run against it")
    assert [s.text for s in two] == ["Keep the cache warm", "The tests run against it"]


def test_a_typed_break_before_a_rule_is_not_part_of_it() -> None:
    assert strip_markers("\u2014\u2014 It should read the config once.") == (
        "It should read the config once."
    )
    assert strip_markers("\\ Never commit the lock file.") == "Never commit the lock file."
    assert strip_markers("-- keep it short") == "keep it short"


def test_terms() -> None:
    text = "Keep `modules/custom/harbor_exchange` and resolveRepoPath; Beacon Review Lane owns it."
    assert code_identifiers(text) == [
        "modules/custom/harbor_exchange",
        "harbor_exchange",
        "resolveRepoPath",
    ]
    assert proper_names("When I say Rivermark Discover I mean it.") == ["Rivermark Discover"]
    assert as_tag("Beacon Review Lane") == "beacon-review-lane"
    assert as_tag("`/kk-add`") == "kk-add"
    assert as_tag("!!!") is None
    assert as_tag("a_very_long_identifier_" * 4) is None  # never cut in the middle of a word
    assert file_anchor("modules/custom/harbor_exchange") == "modules/custom/harbor_exchange/**"
    assert file_anchor("src/Bridge") == "**/src/Bridge/**"
    assert file_anchor("docs/setup.md") == "docs/setup.md"
    for not_a_file in ("/etc/hosts", "~/x/y", "@clack/prompts", "../up/x", "a b/c", "plain"):
        assert file_anchor(not_a_file) is None


# -- a session --------------------------------------------------------------------------------


def test_a_command_in_backticks_gives_its_identifiers_as_tags_not_itself() -> None:
    (proposal,) = extract(
        turns_of(
            "Always run `python ./cleanup.py status` before a commit, and use `uv pip` not pip.",
            "Will do.",
        )
    )
    assert "python-./cleanup.py-status" not in proposal.tags
    assert "uv-pip" in proposal.tags  # two words: a name


def test_a_correction_becomes_one_proposal_with_a_verbatim_quote() -> None:
    turns = turns_of(
        "Add a refund endpoint to the billing module.",
        "I'll add `refund()` and invalidate `billing_all`.",
        "No. Never invalidate `billing_all` from refunds. It fans out to every invoice. "
        "Queue a `billing_refresh` message instead.\nAlso fix the typo in the README.",
        "Understood.",
    )
    [proposal] = extract(turns)
    text = turns[2].text
    assert proposal.quote in text
    assert proposal.quote.startswith("No. Never invalidate")
    assert proposal.quote.endswith("message instead.")
    assert proposal.type == "practice"
    assert proposal.kind == "prohibition"
    assert proposal.title == "Never invalidate billing_all from refunds"
    assert proposal.origin == "claude:s1:2"
    assert proposal.id == "s1:1"
    assert proposal.extractor == "rules"
    assert proposal.tags == ["billing_all", "billing_refresh"]
    assert "typo" not in proposal.body
    assert Proposal.model_validate(proposal.model_dump()) == proposal


def test_confirming_turn_merges_into_the_earlier_candidate() -> None:
    turns = turns_of(
        "Every export file includes a `schema_rev` header, even for partial exports.",
        "Added.",
        "Correct. Treat `schema_rev` as mandatory export metadata.",
        "Done.",
        "Yes. The `schema_rev` header stays first in the file.",
    )
    [candidate] = find_teaching_moments(turns)
    assert candidate.turns == (0, 2, 4)
    assert candidate.turn == 0
    assert candidate.body[1] == "Treat `schema_rev` as mandatory export metadata."
    assert candidate.body[2] == "The `schema_rev` header stays first in the file."


def test_merge_on_a_shared_proper_name() -> None:
    turns = turns_of(
        "Never call Ledger Lens from a request handler.",
        "ok",
        "The prohibition applies to every Ledger Lens consumer.",
    )
    [candidate] = find_teaching_moments(turns)
    assert candidate.turns == (0, 2)


def test_follow_up_naming_nothing_joins_the_latest_group() -> None:
    turns = turns_of(
        "Never run `db:reset` against staging.",
        "ok",
        "Right. That always applies, on every shared environment.",
    )
    [candidate] = find_teaching_moments(turns)
    assert candidate.turns == (0, 2)


def test_unrelated_moments_stay_apart() -> None:
    turns = turns_of(
        "Never call `charge()` twice for one order.",
        "ok",
        "A test that builds the cart by hand will hide the rounding problem.",
    )
    assert [c.turns for c in find_teaching_moments(turns)] == [(0,), (2,)]


def test_map_and_practice_of_one_subject_are_two_candidates() -> None:
    turns = turns_of(
        "The ledger system lives in `modules/custom/ledger`. Adapters are under `src/Adapter`.",
        "ok",
        "Exactly. `ledger` is the boundary. Do not put adapters in the API module.",
        "ok",
    )
    found = find_teaching_moments(turns)
    assert [(c.type, c.kind, c.turns) for c in found] == [
        ("map", "location", (0,)),
        ("practice", "prohibition", (2,)),
    ]
    assert found[0].files == ("modules/custom/ledger/**", "**/src/Adapter/**")


def test_retraction_drops_what_came_before() -> None:
    turns = turns_of(
        "Ledger migrations never use direct updates. They always use a queue.",
        "Noted.",
        "No. That came from an unapproved outline, only to see the fields.",
        "ok",
        "Separately: invoices must always carry a `tenant_id`.",
    )
    [candidate] = find_teaching_moments(turns)
    assert candidate.turns == (4,)


def test_retraction_inside_a_turn_keeps_what_follows() -> None:
    turns = turns_of("Never mind the old plan. Invoices must always carry a `tenant_id`.")
    [candidate] = find_teaching_moments(turns)
    assert candidate.quote == "Invoices must always carry a `tenant_id`."


def test_envelopes_skills_and_pasted_documents_are_skipped() -> None:
    turns = turns_of(
        "<command-message>deploy</command-message>\n<command-name>/deploy</command-name>",
        "ok",
        "Base directory for this skill: /x\n\n# deploy\n\nAlways deploy on Fridays.",
        "ok",
        "# Notes\n\nNever do this.\n\n## More\n\nAlways that.\n\n## Even more\n",
        "ok",
        "Always tag releases with `vX.Y.Z`.",
    )
    assert [c.turns for c in find_teaching_moments(turns)] == [(6,)]


def test_what_a_shell_command_printed_in_claude_codes_bash_mode_is_not_the_persons_rule() -> None:
    # A SpecStory export of a Claude Code session keeps the output of a `!` command as the
    # person's turn; the Claude plugin reads the same record as a tool turn
    printed = (
        "<bash-stdout></bash-stdout><bash-stderr>ffmpeg version 7.1.1\n"
        "  configuration: --prefix=/opt/ffmpeg --enable-shared\n"
        "usage: ffmpeg [options] [[infile options] -i infile]... {[outfile options] outfile}...\n"
        "\nUse -h to get full help or, even better, run 'man ffmpeg'\n</bash-stderr>"
    )
    turns = turns_of(printed, "ok", "Always run ffmpeg with `-nostdin` in scripts.")
    assert [c.turns for c in find_teaching_moments(turns)] == [(2,)]


def test_a_terminal_pasted_below_a_typed_line_is_not_the_persons_rule() -> None:
    # a zsh prompt (user@host dir %) on the third line: what follows the command is its output
    pasted = (
        "I just ran the api client generation and the warnings are still there.\n\n"
        "michael@laptop cipher-box % pnpm api:generate\n\n"
        "> orval && node scripts/fix-orval-imports.mjs\n"
        '\u25b2 [WARNING] "import.meta" is not available with the "cjs" output format\n\n'
        '  You need to set the output format to "esm" for "import.meta" to work correctly.\n'
    )
    assert find_teaching_moments(turns_of(pasted, "Looking into it.")) == []


CURSOR_BUILD = (
    "Implement the plan as specified, it is attached for your reference. Do NOT edit the plan "
    "file itself.\n\nTo-do's from the plan have already been created. Do not create them "
    "again. Mark them as in_progress as you work, starting with the first one. Don't stop "
    "until you have completed all the to-dos."
)


def test_what_cursor_sends_when_a_plan_is_built_is_not_the_persons_rule() -> None:
    # Cursor sends this text as the user's turn when the person clicks Build on a plan
    turns = turns_of(
        CURSOR_BUILD,
        "Implementing the plan.",
        f"Migration Plan\n\n{CURSOR_BUILD}",
        "Done.",
        f"Never touch the legacy PHP folder.\n\n{CURSOR_BUILD}",
    )
    (candidate,) = find_teaching_moments(turns)
    assert candidate.turns == (4,)
    assert candidate.quote == "Never touch the legacy PHP folder."
    assert 0 not in [t.index for t in preselect(turns).turns]  # nothing the person wrote


def test_a_table_copied_with_its_tabs_is_a_pasted_document() -> None:
    # a chat box takes no tab typed by hand: rows of tab-separated cells were copied
    rows = "\n".join(f"M{n}\tSet output {n}\tAlways restore it after the print" for n in range(4))
    turns = turns_of(
        f"Here is the list every slicer must support:\n{rows}\nThis must never be skipped.",
        "ok",
        "Always name hooks in snake_case.\tSee the list above.",
    )
    assert [c.turns for c in find_teaching_moments(turns)] == [(2,)]


def test_nothing_after_a_knowledge_skill_is_invoked() -> None:
    turns = turns_of(
        "Always tag releases with `vX.Y.Z`.",
        "ok",
        "<command-message>kk-add</command-message>\n<command-name>/kk-add</command-name>",
        "What should I record?",
        "Add this: ledger migrations never use direct updates.",
    )
    assert [c.turns for c in find_teaching_moments(turns)] == [(0,)]


def test_tentative_exploratory_and_routine_sessions_yield_nothing() -> None:
    turns = turns_of(
        "I am trying to understand how we might expose the ledger to partners.",
        "Here are three options.",
        "What about versioning?",
        "It depends.",
        "Useful. Do not pick one yet; I will ask the team.",
        "ok",
        "Fix the typo and run the focused test.",
    )
    assert find_teaching_moments(turns) == []


def test_ticket_narrative_never_reaches_a_proposal() -> None:
    turns = turns_of(
        "This is for PAY-812, after the partner outage.",
        "ok",
        "Leave the ticket out when documenting this. The durable rule is that every retry "
        "keeps the same `delivery_key`. Partners deduplicate on it.",
        "ok",
        "Do not mention PAY-812 in any description.",
    )
    [proposal] = extract(turns)
    blob = " ".join([proposal.title, proposal.description, proposal.body, proposal.quote]).lower()
    assert "pay-812" not in blob
    assert "outage" not in blob
    assert proposal.title == "Every retry keeps the same delivery_key"


def test_quotes_are_verbatim_even_across_lines() -> None:
    text = "Keep   the spacing.\nNever run  `make clean` on CI;\tit wipes the cache.  Fine?"
    turns = turns_of(text)
    [candidate] = find_teaching_moments(turns)
    assert candidate.quote in text
    assert candidate.quote == "Never run  `make clean` on CI;\tit wipes the cache."


def test_every_proposal_validates_and_quotes_the_log() -> None:
    turns = turns_of(
        "We are introducing Ledger Lens, the reporting feature that totals refunds.",
        "ok",
        "`ledger_lens` owns the report entity, and Orchard Search only receives final totals.",
        "ok",
        "Careful: the export will silently drop rows over 10k. Use `make export-all` instead.",
        "ok",
    )
    log = log_of(turns)
    proposals = extract(turns, log)
    assert len(proposals) == 3
    for proposal in proposals:
        assert Proposal.model_validate(proposal.model_dump()) == proposal
        assert quote_in_session(proposal.quote, log)
        assert all(TAG_RE.match(tag) for tag in proposal.tags)
        assert len(proposal.title.split()) <= 12
        assert "\n" not in proposal.description


def test_ids_continue_after_the_logs_proposals() -> None:
    turns = turns_of("Never call `charge()` twice.", "ok", "Always log `order_id`.")
    first = extract(turns)
    again = extract(turns, log_of(turns, first))
    assert [p.id for p in first] == ["s1:1", "s1:2"]
    assert [p.id for p in again] == ["s1:3", "s1:4"]


def test_proposals_whose_quote_is_not_in_the_log_are_dropped() -> None:
    turns = turns_of("Never call `charge()` twice.")
    other = log_of(turns_of("something else"))
    assert extract(turns, other) == []


def test_origin_uses_the_turn_index_not_the_position() -> None:
    turns = [
        LoggedTurn(index=40, role="assistant", text="ok"),
        LoggedTurn(index=41, role="user", text="Never call `charge()` twice."),
    ]
    [proposal] = extract(turns)
    assert proposal.origin == "claude:s1:41"


def test_titles_and_descriptions() -> None:
    long = (
        "Harbor resource ordering must sort the `weight` value inside each entry, "
        "never the YAML key."
    )
    assert (
        make_title(long) == "Harbor resource ordering must sort the weight value inside each entry"
    )
    assert make_title("No. never do that.") == "Never do that"
    assert make_title("The seams are deliberate: `ledger` owns the entity, and more.") == (
        "ledger owns the entity, and more"
    )
    assert make_title(" ".join(["word"] * 30)) == " ".join(["Word"] + ["word"] * 11) + " \u2026"
    # cut after twelve words: no dangling function word, and marked cut
    split = "I think we may need to split 'Petra' into two rows and keep the old name too"
    assert make_title(split) == "I think we may need to split 'Petra' into two rows \u2026"
    # a sentence that opens on its condition is not cut to the condition alone
    conditioned = (
        "When you add a migration to the schema, run the full suite and the seed script "
        "before you commit."
    )
    assert make_title(conditioned) == (
        "When you add a migration to the schema, run the full suite …"
    )
    assert make_description("Here is the gotcha:  keys\nare strings.") == "Keys are strings."
    assert make_description("x " * 300).endswith(" …")


def test_each_teaching_moment_becomes_its_proposal_and_the_protocol_holds() -> None:
    turns = turns_of("Never call `charge()` twice.", "ok", "Always log `order_id`.")
    proposals = extract(turns)
    assert [(p.id, p.origin, p.kind, p.title, p.quote, p.tags) for p in proposals] == [
        ("s1:1", "claude:s1:0", "prohibition", "Never call charge() twice",
         "Never call `charge()` twice.", ["charge"]),
        ("s1:2", "claude:s1:2", "convention", "Always log order_id",
         "Always log `order_id`.", ["order_id"]),
    ]  # fmt: skip
    assert all(p.extractor == "rules" and p.type == "practice" for p in proposals)
    assert isinstance(RulesExtractor(), Extractor)
    assert RulesExtractor.name == "rules"
    assert all(isinstance(c, Candidate) for c in find_teaching_moments(turns))


# -- sessions shaped like each labelled category (our own wording, not the eval files) ------

SESSIONS: dict[str, tuple[list[str], int]] = {
    "convention": (
        [
            "Add the author to the episode API response.",
            "Added `author_name`.",
            "One thing you could not know: every Harbor Media response exposes "
            "`owner_uuid`, never the numeric owner id. Partner caches key on the UUID.",
            "Switched to `owner_uuid`.",
            "Right. Treat `owner_uuid` as the only owner identifier partners see.",
            "Done.",
            "Run the kernel tests.",
        ],
        1,
    ),
    "prohibition": (
        [
            "The nightly export times out.",
            "I'll raise the memory limit in `settings.php`.",
            "Do not raise the memory limit in `settings.php`. Stream rows through "
            "`export_batch` instead.",
            "Streaming now.",
            "That applies to every export job.",
            "ok",
        ],
        1,
    ),
    "gotcha": (
        [
            "The new logo does not show on staging.",
            "Uploaded again; still missing.",
            "Watch out: the staging CDN caches 404 responses for an hour, so a missing asset "
            "keeps failing after you upload it.",
            "Purged.",
        ],
        1,
    ),
    "salvage": (
        [
            "Context: JIRA-77 double-counted partners during the March incident.",
            "Looking.",
            "Leave the incident story out. What should survive is that partner imports always "
            "upsert on `partner_key`.",
            "Done.",
            "Yes. A re-run may touch the same rows, but `partner_key` keeps them unique.",
        ],
        1,
    ),
    "tooling": (
        [
            "Run static analysis.",
            "Running phpstan on the host.",
            "No. Static analysis runs through `ddev phpstan`, never the host binary, because the "
            "container pins the extension set.",
            "ok",
        ],
        1,
    ),
    "vocabulary": (
        [
            "Wire the search page to Lantern.",
            "What is Lantern?",
            'In this project, "Lantern" means the editorial search index built by `lantern_index`.',
            "ok",
        ],
        1,
    ),
    "abandoned": (
        [
            "Let's try a GraphQL endpoint for teasers.",
            "Prototype added.",
            "Add a resolver; it must return plain text.",
            "Added.",
            "Actually, let's not do this. Revert the branch and we will pick an API next sprint.",
            "Reverted.",
        ],
        0,
    ),
    "exploratory": (
        [
            "Could you compare caching strategies for the partner feed?",
            "Three options: ...",
            "Which one would you pick?",
            "The second.",
            "Interesting. Do not change anything yet, I will ask the platform team.",
            "ok",
        ],
        0,
    ),
    "noise": (
        [
            "Rename `durationSecs` to `durationSeconds`.",
            "Done.",
            "Run the focused test, and don't forget the linter.",
            "Both pass.",
            "Fix the typo in the fixture too.",
            "Fixed.",
        ],
        0,
    ),
    "meta": (
        [
            "<command-message>kk-curate</command-message>\n<command-name>/kk-curate</command-name>",
            "One pending proposal: dashboards must always check access.",
            "Show me why that proposal was extracted.",
            "It came from a planning session.",
            "Drop it. Never keep unapproved planning candidates.",
            "Dropped.",
        ],
        0,
    ),
    "unrelated": (
        [
            "Explain the difference between a mutex and a semaphore.",
            "A mutex ...",
            "Thanks. What is a good book on operating systems?",
            "Try ...",
            "Great, that is all for today.",
            "Bye.",
        ],
        0,
    ),
}


@pytest.mark.parametrize("category", sorted(SESSIONS))
def test_sessions_shaped_like_each_category(category: str) -> None:
    texts, expected = SESSIONS[category]
    turns = turns_of(*texts)
    found = find_teaching_moments(turns)
    assert len(found) == expected, [c.quote for c in found]
    for proposal in extract(turns):
        assert proposal.quote in "\n".join(texts)
        assert "incident" not in proposal.body.lower()
        assert "jira-77" not in proposal.body.lower()


HASH_SEED_SCRIPT = """
import asyncio, json, sys
from lorebook.extract.base import ExtractionRequest
from lorebook.extractors.rules import RulesExtractor
from lorebook.models.session import LoggedTurn, SessionLog
texts = json.loads(sys.argv[1])
turns = [LoggedTurn(index=i, role=("user", "assistant")[i % 2], text=t) for i, t in enumerate(texts)]
log = SessionLog(harness="claude", session_id="s1", origin="claude:s1", transcript_hash="0" * 64,
                 transcript_length=0, turns=turns, proposals=[])
found = asyncio.run(RulesExtractor().extract(ExtractionRequest(log=log, turns=turns)))
print(json.dumps([p.model_dump(mode="json") for p in found]))
"""


def test_the_same_session_gives_the_same_proposals_in_every_process() -> None:
    """Extraction is deterministic across processes, whatever order Python hashes sets in
    (two curators running it on the same session must propose the same notes)."""
    import json
    import os
    import subprocess
    import sys

    texts = [
        "Never call `charge()` from `BillingClient` or `InvoiceQueue` in `tests/unit/`, "
        "and never touch `LEDGER_URL`, `ledger_pool`, `StripeMock` or `RetryBudget` there.",
        "ok",
        "Always run `uv run pytest` in `core/`; `make lint` uses `ruff` and `mypy`.",
    ]
    outputs = set()
    for seed in ("1", "2", "3"):
        proc = subprocess.run(
            [sys.executable, "-c", HASH_SEED_SCRIPT, json.dumps(texts)],
            env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, text=True,
            check=False, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        outputs.add(proc.stdout)
    assert len(outputs) == 1
    (output,) = outputs
    here = [p.model_dump(mode="json") for p in extract(turns_of(*texts))]
    assert json.loads(output) == here
    assert len(here) == 2
    assert len(here[0]["tags"]) > 2
