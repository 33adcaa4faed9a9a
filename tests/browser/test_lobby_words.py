"""The lobby speaks a player's language: refusals in words (never a pattern), no game created for
a name that could not join it, and an invite link that leaves only a name to type."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import expect

from service.tools.client import PlaylogClient
from tests.browser.conftest import assert_accessible, screenshot
from tests.browser.pages import NAME, create_game, two_seat_game

pytestmark = pytest.mark.integration


@pytest.fixture
async def remote(server_url: str) -> AsyncIterator[PlaylogClient]:
    async with PlaylogClient(server_url) as client:
        yield client


async def test_lobby_refusals_are_in_words_and_a_blank_name_creates_nothing(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    page = await new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text) if message.type == "error" else None)
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    await page.goto(f"{server_url}/")
    form = page.locator("#create-form")
    await form.get_by_label("Your name").fill("   ")
    await form.get_by_role("button", name="Create and take a seat").click()
    notice = page.locator("#notice")
    await expect(notice).to_have_text("Your name cannot be empty or only spaces.")
    assert posts == []  # nothing was created: the name is checked before the game is

    join = page.locator("#join-form")
    await join.get_by_label("Game id").fill(str(uuid.uuid4()))
    await join.get_by_label("Your name").fill("ann")
    await join.get_by_role("button", name="Join").click()
    await expect(notice).to_have_text("No game has this id: check the id or the invite link.")
    await assert_accessible(page, "a refused join")

    started, _ = await two_seat_game(remote)
    await join.get_by_label("Game id").fill(str(started))
    await join.get_by_label("Your name").fill("late\u0007bell")  # a control character
    await join.get_by_role("button", name="Join").click()
    await expect(notice).to_contain_text("Not accepted: a name has 1 to 40 characters")
    await join.get_by_label("Your name").fill("late")
    await join.get_by_role("button", name="Join").click()
    await expect(notice).to_contain_text("This game has already started")
    assert not re.search(r"regex|Expected `|\\x", await notice.inner_text())
    assert not [text for text in console if "pattern" in text], console  # the id's pattern is valid


async def test_an_invite_link_leaves_only_a_name_to_type(server_url: str, new_page: Any) -> None:
    alice = await new_page()
    game_id = await create_game(alice, server_url, "exploding_kittens", "alice", spectator_delay=0)
    await alice.context.grant_permissions(["clipboard-read", "clipboard-write"])
    invite = alice.get_by_label("Invite link")
    await expect(invite).to_have_value(f"{server_url}/?join={game_id}")
    await alice.get_by_role("button", name="Copy the invite link").click()
    await expect(alice.locator("#invite-said")).to_have_text("Copied.")
    link = await alice.evaluate("navigator.clipboard.readText()")
    await screenshot(alice, "play-lobby")

    bob = await new_page()
    await bob.goto(link)
    join = bob.locator("#join-form")
    await expect(join.get_by_label("Game id")).to_have_value(game_id)
    await expect(join.get_by_label("Your name")).to_be_focused()
    await bob.keyboard.type("bob")
    await bob.keyboard.press("Enter")
    await bob.wait_for_url(NAME)
    assert bob.url.endswith(f"/play/{game_id}/1")
    await expect(alice.locator("#lobby-seats")).to_contain_text("bob (seat 1)")
