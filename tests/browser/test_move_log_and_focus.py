"""The play page's move log always shows the newest move, and keyboard play keeps its focus: after
an action and after an incoming event, the focus is never lost to the page's body."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Page, expect

from service.tools.client import PlaylogClient
from tests.browser.pages import two_seat_game

pytestmark = pytest.mark.integration

FOCUSED = (
    "document.activeElement === document.body ? 'body' : (document.activeElement.textContent || '').trim()"
)
# How far the move log is from showing its last entry (0: it shows it), and whether it scrolls.
LOG_END = (
    "(f => [f.scrollHeight - f.scrollTop - f.clientHeight, f.scrollHeight > f.clientHeight])"
    "(document.getElementById('feed'))"
)


@pytest.fixture
async def remote(server_url: str) -> AsyncIterator[PlaylogClient]:
    async with PlaylogClient(server_url) as client:
        yield client


async def play_some(remote: PlaylogClient, game_id: Any, tokens: list[str], moves: int) -> int:
    """Up to ``moves`` moves through the API (draw, or put a drawn Kitten at the bottom); the
    number of the last event seat 0 may see."""
    for _ in range(moves):
        for seat in (0, 1):
            view = await remote.view(game_id, seat, tokens[seat])
            if view.status != "running":
                return (await remote.view(game_id, 0, tokens[0])).version
            legal = view.view["legal_commands"]
            chosen = [c for c in legal if c["type"] == "DrawCard"] or [
                c for c in legal if c["type"] == "Defuse"
            ]
            if chosen:
                await remote.send(game_id, seat, tokens[seat], chosen[-1])
    return (await remote.view(game_id, 0, tokens[0])).version


async def test_the_move_log_scrolls_to_the_newest_move(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    game_id, tokens = await two_seat_game(remote)
    alice = await new_page()
    await alice.goto(f"{server_url}/play/{game_id}/0#token={tokens[0]}")
    await expect(alice.locator("#feed li").last).to_have_attribute("data-seq", "5")
    last = await play_some(remote, game_id, tokens, 10)
    await expect(alice.locator("#feed li").last).to_have_attribute("data-seq", str(last))
    distance, scrolls = await alice.evaluate(LOG_END)
    assert scrolls and distance < 2, (distance, scrolls)
    feed = alice.locator("#feed")  # a scrolling region the keyboard reaches, named by its heading
    assert await feed.get_attribute("tabindex") == "0"
    await expect(feed).to_have_accessible_name("What happened")


async def focused(page: Page) -> str:
    text: str = await page.evaluate(FOCUSED)
    return text


async def test_keyboard_play_keeps_the_focus_after_an_action_and_an_incoming_event(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    game_id, tokens = await two_seat_game(remote)
    alice = await new_page()
    await alice.goto(f"{server_url}/play/{game_id}/0#token={tokens[0]}")
    await expect(alice.locator("#status")).to_have_text("● Your turn")
    await alice.get_by_role("button", name="Draw a card").focus()
    await alice.keyboard.press("Enter")
    await expect(alice.locator("#status")).to_have_text("Waiting for bob")  # bob's turn now
    await expect(alice.locator("main[data-busy='1']")).to_have_count(0)
    # The button is gone with the turn: the focus waits on the moves' heading, not the body.
    assert await focused(alice) == "Your hand and moves"

    await remote.send(game_id, 1, tokens[1], {"type": "DrawCard"})  # an incoming event
    await expect(alice.locator("#status")).to_have_text("● Your turn")
    assert await focused(alice) != "body"
    # The focus went back to the control it was on, and Enter plays it again.
    await expect(alice.get_by_role("button", name="Draw a card")).to_be_focused()
    await alice.keyboard.press("Enter")
    await expect(alice.locator("#status")).to_have_text("Waiting for bob")
    await expect(alice.locator("main[data-busy='1']")).to_have_count(0)
    assert await focused(alice) == "Your hand and moves"
    await alice.keyboard.press("Tab")  # on to the first control of the new set
    assert await focused(alice) not in ("body", "Your hand and moves")
