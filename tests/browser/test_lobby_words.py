"""The lobby speaks a player's language: refusals in words (never a pattern), no game created for
a name that could not join it, and an invite link that leaves only a name to type."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from service.tools.client import PlaylogClient
from tests.browser.conftest import assert_accessible, screenshot
from tests.browser.pages import NAME, create_game, finished_game, join_game, start, two_seat_game

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
    await expect(notice).to_have_text(
        "Your name cannot hold a control character (such as a tab or a line break)."
    )
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


async def test_a_name_the_server_would_refuse_creates_no_game(server_url: str, new_page: Any) -> None:
    page = await new_page()
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    await page.goto(f"{server_url}/")
    form = page.locator("#create-form")
    await form.get_by_label("Your name").fill("ann\u0007bell")  # the server's rule refuses it
    await form.get_by_role("button", name="Create and take a seat").click()
    await expect(page.locator("#notice")).to_have_text(
        "Your name cannot hold a control character (such as a tab or a line break)."
    )
    await expect(form.get_by_label("Your name")).to_be_focused()
    assert posts == []


async def test_a_create_whose_join_was_cut_off_finds_its_game_when_sent_again(
    server_url: str, new_page: Any
) -> None:
    page = await new_page()
    await page.goto(f"{server_url}/")
    await page.route("**/games/*/seats", lambda route: route.abort("connectionrefused"))
    form = page.locator("#create-form")
    await form.get_by_label("Spectator delay").fill("0")
    await form.get_by_label("Your name").fill("carol")
    await form.get_by_role("button", name="Create and take a seat").click()
    await expect(page.locator("#notice")).to_contain_text("The server cannot be reached")
    await page.unroute("**/games/*/seats")
    await form.get_by_role("button", name="Create and take a seat").click()
    await page.wait_for_url(NAME)
    match = NAME.search(page.url)
    assert match and match.group(2) == "0"
    async with httpx.AsyncClient(base_url=server_url) as http:
        # The same keys were sent again: one game, carol at its first seat, not two.
        created = (await http.get(f"/games/{match.group(1)}")).json()
        assert created["seats"] == ["carol", None]
        for _ in range(100):
            listed = (await http.get("/games", params={"limit": 50})).json()["games"]
            if listed:
                break
            await asyncio.sleep(0.1)  # the listing is a read model a moment behind the log
        assert [g["game_id"] for g in listed] == [match.group(1)]


async def test_public_games_come_first_refresh_by_themselves_and_are_dated(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    page = await new_page()
    await page.goto(f"{server_url}/")
    order = await page.evaluate(
        "document.getElementById('games-title').compareDocumentPosition(document.getElementById('create-title'))"
    )
    assert order & 4  # the create form follows the public games
    await expect(page.locator("#games")).to_contain_text("None.")
    finished, _ = await finished_game(remote)
    created = await remote.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    await remote.join(created.game_id, "dora")
    full = await remote.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    for name in ("eve", "finn"):
        await remote.join(full.game_id, name)
    games = page.locator("#games")  # no reload: the list refreshes itself
    await expect(games.locator(f'li[data-game-id="{created.game_id}"]')).to_contain_text(
        "dora", timeout=30_000
    )
    waiting = games.locator(f'li[data-game-id="{full.game_id}"]')  # nothing left to join
    await expect(waiting).to_contain_text("every seat taken", timeout=30_000)
    await expect(waiting.get_by_role("button")).to_have_count(0)
    row = games.locator(f'li[data-game-id="{finished}"]')
    await expect(row).to_contain_text(
        re.compile(r"finished \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"), timeout=30_000
    )
    await expect(row).to_contain_text("Winner: alice (seat 0).")
    await expect(row.get_by_role("link", name="Replay")).to_be_visible()
    await assert_accessible(page, "the public games")
    await games.get_by_role("button", name="Join Exploding Kittens with dora").focus()
    await page.keyboard.press("Enter")
    join = page.locator("#join-form")
    await expect(join.get_by_label("Game id")).to_have_value(str(created.game_id))
    await expect(join.get_by_label("Your name")).to_be_focused()


async def test_a_seated_player_starts_the_game_when_the_host_left(server_url: str, new_page: Any) -> None:
    alice = await new_page()
    game_id = await create_game(alice, server_url, "exploding_kittens", "alice", spectator_delay=0)
    await expect(alice.locator("#lobby-waiting")).to_contain_text("once every seat is taken")
    await alice.context.close()  # the host's tab is gone, and its host token with it
    bob = await new_page()
    await join_game(bob, server_url, game_id, "bob")
    await expect(bob.locator("#lobby-waiting")).to_have_text(
        "Every seat is taken: anyone at the table can start the game."
    )
    await start(bob)
    # The first seat is drawn at random: either way the game runs.
    await expect(bob.locator("#status")).to_have_text(re.compile(r"^(● Your turn|Waiting for alice)$"))


async def test_each_group_of_public_games_shows_more_by_its_next_page(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    made = [await remote.create_game("a_risk_cat", {"players": 3}, spectator_delay=0) for _ in range(22)]
    page = await new_page()
    await page.goto(f"{server_url}/")
    rows = page.locator('#games ul[data-status="open"] li')
    await expect(rows).to_have_count(20, timeout=30_000)  # the first page, newest first
    await expect(rows.first).to_have_attribute("data-game-id", str(made[-1].game_id))
    more = page.get_by_role("button", name="Show more open games")
    await more.focus()
    await page.keyboard.press("Enter")
    await expect(rows).to_have_count(22)
    await expect(rows.last).to_have_attribute("data-game-id", str(made[0].game_id))
    await expect(more).to_have_count(0)  # the group is all read: no more to show
    await expect(rows.last.get_by_role("button")).to_be_focused()
