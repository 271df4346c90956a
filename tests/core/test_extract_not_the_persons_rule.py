"""Sentences with a rule's words that are not a rule the person gives: a console's message
pasted with its source location or URL, and a *don't* that describes what something does.

Both were seen on a project nobody tuned the extractor on (a bowling-league web app's
Cursor sessions): a browser console's "Resources must be listed in the
web_accessible_resources manifest key ..." became a convention, three times, and "EXCEPT
THEY DONT" a prohibition. Every text here is made up in their shape.
"""

from __future__ import annotations

import pytest

from lorebook.extractors.rules import find_teaching_moments
from lorebook.models.session import LoggedTurn


def proposals(*texts: str) -> list[str]:
    """The quotes the extractor proposes from these user turns, each answered by the agent."""
    turns: list[LoggedTurn] = []
    for text in texts:
        turns.append(LoggedTurn(index=len(turns), role="user", text=text))
        turns.append(LoggedTurn(index=len(turns), role="assistant", text="I changed it."))
    return [c.quote for c in find_teaching_moments(turns)]


@pytest.mark.parametrize(
    "text",
    [
        "i get some warnings from the frontend.\n"
        "Grid.js:94  Grid Error - Parent column group must be frozen, not individual columns"
        "  check @ Grid.js:94  init @ Grid.js:74",
        "is this the issue?\n"
        "app:2 Denying load of chrome-extension://abc/static/js/content.js. Resources must be"
        " listed in the web_accessible_resources manifest key in order to be loaded.",
    ],
)
def test_a_console_message_pasted_with_its_location_is_not_a_rule(text: str) -> None:
    assert proposals(text) == []


def test_a_rule_typed_on_its_own_line_below_a_console_message_is_still_proposed() -> None:
    text = (
        "Grid.js:94  Grid Error - Parent column group must be frozen\n\n"
        "Never freeze single columns in our tables, freeze the whole group."
    )
    assert proposals(text) == ["Never freeze single columns in our tables, freeze the whole group."]


@pytest.mark.parametrize(
    "text",
    ["EXCEPT THEY DONT", "i tried the new layout but the header cells still dont line up"],
)
def test_a_dont_that_describes_what_something_does_is_not_a_prohibition(text: str) -> None:
    assert proposals(text) == []


def test_a_dont_after_so_says_what_must_not_happen() -> None:
    text = "please move the tests to a tests folder so they don't ship in the package"
    assert proposals(text) == [text]


def test_a_host_and_port_in_a_typed_rule_is_no_source_location() -> None:
    text = "Always run the API tests against staging.example.com:8443, never against production."
    assert proposals(text) == [text]


POLLING = "".join(
    "OpenVPN process 8503 is running\nChecking if IP belongs to the VPN\n"
    f"VPN protection status: False\nWaiting for connection... attempt {attempt}/12\n"
    for attempt in range(1, 6)
)


@pytest.mark.parametrize(
    "text",
    [
        # a CLI's spinner and status marks, pasted whole
        ">> acme-vpn connect --verbose de\n\nConnecting to de1094.example.net...\n"
        "\u280f Connecting to VPN in de...\n\u2717 Failed to connect\n"
        "Details: Failed to verify connection: Failed to get status: 403, \n"
        "message='Forbidden', url='https://api.example.net/v1/helpers/ip'",
        # a polling loop's messages, the same lines again and again
        f"python -m acme_vpn --verbose connect\n\nUsing legacy VPN API\n{POLLING}",
        # a logger prints its level on every line, and the advice a model logged is not a rule
        "still failing:\nINFO: Final context: 37 entities, 40 relations, 15 chunks\n"
        "INFO: chunks: E4/1 R1/1 E3/2\nWARNING: Rerank is enabled but no model is configured. "
        "You should never enable rerank without a model.",
        "it stops after printing its prompt, look:\n\n"
        "INFO -     Generated instructions:\n"
        "INFO -     - Never store credentials in the code\n"
        "INFO -     - Use safe file operations\n\nwhy does it stop there",
    ],
)
def test_what_a_command_line_program_printed_is_not_a_rule(text: str) -> None:
    assert proposals(text) == []


def test_a_rule_typed_under_a_programs_output_is_still_read() -> None:
    text = (
        ">> acme-vpn connect de\n\u280f Connecting to VPN in de...\n\u2717 Failed to connect\n\n"
        "You must never ask for the sudo password twice in one run."
    )
    assert proposals(text) == ["You must never ask for the sudo password twice in one run."]
