"""The clock as players and spectators see it (issue 52): the lobby says the clock's setting in a
player's words, the play and watch pages count the time down, and a seat that never shows is
played for, then removed, in words on the page of the player left at the table."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import expect

from service.tools.client import PlaylogClient
from tests.browser.conftest import assert_accessible
from tests.browser.pages import create_game

pytestmark = pytest.mark.integration


@pytest.fixture
async def remote(server_url: str) -> AsyncIterator[PlaylogClient]:
    async with PlaylogClient(server_url) as client:
        yield client


async def test_a_public_lobby_says_its_clock_in_words(server_url: str, new_page: Any) -> None:
    page = await new_page()
    await create_game(page, server_url, "exploding_kittens", "hana")
    clock = page.locator("#lobby-clock")
    await expect(clock).to_contain_text("Clock: 1 minute a move.")
    await expect(clock).to_contain_text("runs out 3 times in a row is removed, and the others play on.")
    await expect(clock).to_contain_text(re.compile(r"This lobby closes at \d"))
    await assert_accessible(page, "a lobby with its clock")


async def test_a_seat_that_never_shows_is_played_for_then_removed_and_the_page_says_so(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    created = await remote.create_game(
        "exploding_kittens",
        # seed 1: neither of the first two draws is a Kitten (tests/browser/pages.py's finished_game)
        {"players": 2, "reaction_window": 0, "decision_timeout": 8, "seed": 1, "first_seat": 1},
        public=True,
        spectator_delay=0,
        timeouts_to_remove=2,
    )
    alice = await remote.join(created.game_id, "alice")
    await remote.join(created.game_id, "bob")  # bob never opens his page
    await remote.start(created.game_id, created.host_token)

    seat = await new_page()
    await seat.goto(f"{server_url}/play/{created.game_id}/0#token={alice.token}")
    watcher = await new_page()
    await watcher.goto(f"{server_url}/watch/{created.game_id}")
    for page in (seat, watcher):  # bob's turn, counted down where players and spectators look
        await expect(page.locator("#window-what")).to_contain_text(re.compile(r"Time to decide: \d+ s left"))

    feed = seat.locator("#feed")
    clock = 30_000  # ms: room for the clock's 8 s and a slow machine, a guard, not a speed check
    await expect(feed).to_contain_text(
        "bob (seat 1) ran out of time: the server plays their move", timeout=clock
    )
    await seat.get_by_role("button", name=re.compile("^Draw a card")).click()  # alice plays on
    await expect(feed).to_contain_text(
        "bob (seat 1) ran out of time 2 times in a row and is removed from the game: the others play on",
        timeout=clock,
    )
    await expect(seat.locator("#status")).to_have_text("Game over. Winner: alice (seat 0).")
    await expect(watcher.locator("#result")).to_have_text("Game over. Winner: alice (seat 0).", timeout=clock)
    await assert_accessible(seat, "a game its clock finished")
