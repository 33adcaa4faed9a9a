"""A whole turn of each game with the keyboard alone, through the table: Tab to a card or a
control, Enter or Space to play it; the focus is never lost to the page's body, and each state
passes the accessibility check."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Page, expect

from service.tools.client import PlaylogClient
from tests.browser.conftest import assert_accessible, screenshot
from tests.browser.pages import two_seat_game

pytestmark = pytest.mark.integration

# What the focus is on: a hand's card by its card, else the element's words.
FOCUSED = (
    "(a => a === document.body ? 'body'"
    " : (a.dataset.card ? `card:${a.dataset.card}` : (a.textContent || '').trim()))(document.activeElement)"
)


@pytest.fixture
async def remote(server_url: str) -> AsyncIterator[PlaylogClient]:
    async with PlaylogClient(server_url) as client:
        yield client


async def tab_to(page: Page, wanted: str, most: int = 60) -> None:
    """Press Tab until the focus is on ``wanted`` (see FOCUSED), round the page if need be."""
    seen = []
    for _ in range(most):
        await page.keyboard.press("Tab")
        now: str = await page.evaluate(FOCUSED)
        if now.startswith(wanted):
            return
        seen.append(now)
    raise AssertionError(f"Tab never reached {wanted!r}: {seen}")


async def settled(page: Page) -> None:
    await expect(page.locator("main[data-busy='1']")).to_have_count(0)


async def test_a_turn_of_exploding_kittens_with_the_keyboard_alone(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    game_id, tokens = await two_seat_game(remote)  # seed 1: alice holds two Skips
    alice = await new_page()
    await alice.goto(f"{server_url}/play/{game_id}/0#token={tokens[0]}")
    await expect(alice.locator("#status")).to_have_text("● Your turn")
    await tab_to(alice, "card:Skip")
    await alice.keyboard.press("Enter")  # the card is the control
    await settled(alice)
    await expect(alice.locator("#feed")).to_contain_text("You played Skip")
    await expect(alice.locator("#status")).to_have_text("Waiting for bob")
    assert await alice.evaluate(FOCUSED) != "body"

    await remote.send(game_id, 1, tokens[1], {"type": "DrawCard"})
    await expect(alice.locator("#status")).to_have_text("● Your turn")
    assert await alice.evaluate(FOCUSED) != "body"
    await assert_accessible(alice, "a hand of cards to play")
    await tab_to(alice, "Draw a card")
    await alice.keyboard.press("Space")
    await settled(alice)
    await expect(alice.locator("#feed")).to_contain_text("You drew a")
    await expect(alice.locator("#status")).to_have_text("Waiting for bob")
    assert await alice.evaluate(FOCUSED) != "body"

    # Conceding asks first, and "No, stay" leaves the game as it was.
    await tab_to(alice, "Concede and leave")
    await alice.keyboard.press("Enter")
    await expect(alice.get_by_text("Really leave? You lose this game.")).to_be_visible()
    assert await alice.evaluate(FOCUSED) == "Yes, concede and leave"
    await assert_accessible(alice, "the confirmation before conceding")
    await alice.keyboard.press("Tab")
    await alice.keyboard.press("Enter")  # "No, stay"
    await expect(alice.get_by_role("button", name="Concede and leave…")).to_be_focused()
    await expect(alice.locator("#status")).to_have_text("Waiting for bob")


async def test_a_turn_of_a_risk_cat_with_the_keyboard_alone_stacking_in_an_order_of_its_own(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    created = await remote.create_game(
        "a_risk_cat", {"players": 3, "seed": 2, "first_seat": 0}, public=False, spectator_delay=0
    )
    tokens = [(await remote.join(created.game_id, name)).token for name in ("ann", "ben", "cy")]
    await remote.start(created.game_id, created.host_token)
    ann = await new_page()
    await ann.goto(f"{server_url}/play/{created.game_id}/0#token={tokens[0]}")
    await expect(ann.locator("#status")).to_have_text("● Your turn")
    for _ in range(2):  # two draws: seed 2's first two tokens are of two paintings
        await tab_to(ann, "Draw a token")
        await ann.keyboard.press("Enter")
        await settled(ann)
    rows = ann.locator("#commands .stacking-list li")
    await expect(rows).to_have_count(2)
    await screenshot(ann, "play-a-risk-cat-stop-keyboard")  # checked by axe too
    top_before = (await rows.first.locator(".token").text_content() or "").strip()
    bottom = (await rows.last.locator(".token").text_content() or "").strip()
    await tab_to(ann, "up")  # the bottom token's "up": the only one enabled
    await ann.keyboard.press("Enter")
    await expect(rows.first).to_contain_text(bottom)
    assert await ann.evaluate(FOCUSED) != "body"
    # A mouse may drag a token instead: there and back again.
    await rows.last.drag_to(rows.first)
    await expect(rows.first).to_contain_text(top_before)
    await rows.last.drag_to(rows.first)
    await expect(rows.first).to_contain_text(bottom)
    await tab_to(ann, "Stop and stack")
    await ann.keyboard.press("Enter")
    await settled(ann)
    await expect(ann.locator("#feed")).to_contain_text(f"You stopped and stacked 2 tokens: {bottom} on top")
    await expect(ann.locator("#table-view")).to_contain_text(bottom)
    assert bottom != top_before
    assert await ann.evaluate(FOCUSED) != "body"


async def test_a_nope_with_the_keyboard_alone_while_its_countdown_is_announced(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    # Seed 1, seat 0 first: alice holds a Skip, bob a Nope; a window long enough to read.
    created = await remote.create_game(
        "exploding_kittens",
        {"players": 2, "reaction_window": 60, "seed": 1, "first_seat": 0},
        spectator_delay=0,
    )
    tokens = [(await remote.join(created.game_id, name)).token for name in ("alice", "bob")]
    await remote.start(created.game_id, created.host_token)
    bob = await new_page()
    await bob.goto(f"{server_url}/play/{created.game_id}/1#token={tokens[1]}")
    await expect(bob.locator("#status")).to_have_text("Waiting for alice")
    await remote.send(created.game_id, 0, tokens[0], {"type": "PlayCard", "card": "Skip"})
    said = bob.locator("#window-said")
    await expect(said).to_have_attribute("aria-live", "polite")
    await expect(said).to_have_text(re.compile(r"^A Nope window is open: \d+ seconds left\.$"))
    await assert_accessible(bob, "a Nope window, announced")
    await tab_to(bob, "card:Nope")
    await bob.keyboard.press("Enter")
    await settled(bob)
    await expect(bob.locator("#feed")).to_contain_text("Your Nope cancelled alice's Skip")
    assert await bob.evaluate(FOCUSED) != "body"
