"""The watch page's delay, the moderator's replay viewer, the players' replay, and inert names."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from service.config import Settings
from service.tools.client import PlaylogClient
from tests.browser.conftest import assert_accessible, screenshot
from tests.browser.pages import finished_game, moderator_token, two_seat_game

pytestmark = pytest.mark.integration

EVIL = "<img src=x onerror=alert(1)>"


@pytest.fixture
async def remote(server_url: str) -> AsyncIterator[PlaylogClient]:
    async with PlaylogClient(server_url) as client:
        yield client


async def test_the_watch_page_shows_a_move_only_after_the_spectator_delay(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    delay = 4.0
    game_id, tokens = await two_seat_game(remote, delay=delay)
    page = await new_page()
    await page.goto(f"{server_url}/watch/{game_id}")
    await expect(page.locator("#delay")).to_contain_text("You are watching 4 s behind the players")
    result = await remote.send(game_id, 0, tokens[0], {"type": "DrawCard"})
    drawn = next(e for e in result.events if e.type == "CardDrawn")
    await expect(page.locator("#feed")).not_to_contain_text("drew a card")  # still held back
    await expect(page.locator("#feed")).to_contain_text("alice drew a card", timeout=30_000)
    assert time.time() >= drawn.recorded_at + delay
    await expect(page.locator("#table-view")).to_contain_text("alice (seat 0)")
    await screenshot(page, "watch")
    await page.goto(f"{server_url}/")
    await expect(page.locator("body")).to_contain_text("alice")
    await screenshot(page, "home")


async def test_the_watch_page_shows_the_seats_before_the_first_move_reaches_it(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    game_id, _ = await two_seat_game(remote, delay=600)  # started: spectators see it in 10 min
    page = await new_page()
    await page.goto(f"{server_url}/watch/{game_id}")
    await expect(page.locator("#delay")).to_have_text(
        "You are watching 600 s behind the players: each move shows here 600 seconds after it is"
        " played, so that nobody at the table can learn from this page what the others do."
    )
    table = page.locator("#table-view")
    await expect(table).to_have_text(
        re.compile(
            r"^Waiting for the start \(as the table stood 600 s ago\): 0 of 2 seats taken\."
            r" The game shows here 600 s after the players start it\."
        )
    )
    await expect(table.get_by_role("row", name="Seat 1 free")).to_be_visible()
    assert await page.get_by_text("Not started yet").count() == 0
    await expect(page.locator("#replay-link")).to_be_hidden()
    await assert_accessible(page, "the watch page before the start")

    lobby = await remote.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    await remote.join(lobby.game_id, "dora")
    await page.goto(f"{server_url}/watch/{lobby.game_id}")
    await expect(table).to_contain_text(
        "Waiting for the start: 1 of 2 seats taken. The game shows here as soon as the players start it."
    )
    await expect(table.get_by_role("row", name="Seat 0 dora")).to_be_visible()


async def test_the_watch_page_links_to_the_replay_once_the_game_is_over(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    game_id, _ = await finished_game(remote)  # no spectator delay
    page = await new_page()
    await page.goto(f"{server_url}/watch/{game_id}")
    await expect(page.locator("#delay")).to_have_text(
        "You are watching live: each move shows here as it is played."
    )
    await expect(page.locator("#result")).to_have_text("Game over. Winner: alice (seat 0).")
    await page.get_by_role("link", name="Replay this game, move by move").click()
    await expect(page.locator("#perspective")).to_contain_text("Face up")


async def test_the_moderator_steps_back_and_forth_and_sees_every_hidden_card_at_each_seq(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, _ = await finished_game(remote, public=False)
    token = moderator_token(settings)
    page = await new_page()
    await page.goto(f"{server_url}/moderate/{game_id}")
    await expect(page.locator("#token-form")).to_be_visible()
    assert "alice" not in await page.content()  # no token: nothing of the game
    await page.get_by_label("Moderator token").fill(token)
    await page.get_by_role("button", name="Open").click()
    at = page.locator("#at")
    await expect(at).to_contain_text("of ")
    total = int((await at.text_content() or "").split(" of ")[1].split(" ")[0])
    assert token not in page.url
    await expect(page.locator("#chain")).to_contain_text("Hash chain verified")
    await expect(page.locator("#shuffles")).to_contain_text("matches its revealed order")

    async with httpx.AsyncClient(base_url=server_url, headers={"Authorization": f"Bearer {token}"}) as mod:

        async def check(seq: int) -> None:
            await expect(at).to_contain_text(f"Event {seq} of {total}")
            state = (await mod.get(f"/games/{game_id}/audit/state", params={"at": seq})).json()["state"]
            game = state["game"]
            if game is None:
                await expect(page.locator("#state")).to_contain_text("Not started yet")
                return
            for hand in game["hands"]:
                await expect(page.locator("#state")).to_contain_text(", ".join(hand) if hand else "none")
            pile = ", ".join(game["draw_pile"]) or "none"
            await expect(page.locator("#state")).to_contain_text(f"Draw pile, top first: {pile}")

        await check(total)
        await page.locator("body").focus()
        for seq in range(total - 1, 0, -1):  # back to the first event with the keyboard
            await page.keyboard.press("ArrowLeft")
            await check(seq)
        for seq in range(2, total + 1):  # and forward with the step button
            await page.get_by_role("button", name="Next event").click()
            await check(seq)
        await page.keyboard.press("Home")
        await check(1)
        await page.locator("#seq").fill(str(total - 2))
        await check(total - 2)
    await expect(page.locator("#transcript")).to_be_visible()
    await screenshot(page, "moderate")


async def test_players_replay_a_public_game_face_up_and_a_private_one_from_their_seat(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    public_id, _ = await finished_game(remote)
    page = await new_page()
    await page.goto(f"{server_url}/replay/{public_id}")
    await expect(page.locator("#perspective")).to_contain_text("Face up")
    await expect(page.locator("#state")).to_contain_text("Hand (face up)")
    await screenshot(page, "replay")

    private_id, tokens = await finished_game(remote, public=False)
    page = await new_page()
    events_read: list[str] = []
    page.on("request", lambda r: events_read.append(r.url.split("?", 1)[1]) if "/events?" in r.url else None)
    # The seat's token arrives once in the fragment (never sent to a server) and leaves the URL.
    await page.goto(f"{server_url}/play/{private_id}/1#token={tokens[1]}")
    await expect(page.locator("#status")).to_contain_text("Game over")
    assert "token" not in page.url
    await page.get_by_role("link", name="Replay this game").click()
    await expect(page.locator("#perspective")).to_contain_text("As bob (seat 1) saw it")
    await page.keyboard.press("End")
    await expect(page.get_by_role("list", name="Your hand")).to_be_attached()  # its own view, not face up
    assert events_read == ["after=0&limit=100"]  # the seat's events, a page at a time
    assert await page.get_by_text("Hand (face up)").count() == 0


async def test_a_display_name_with_markup_stays_inert_on_every_page(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, tokens = await finished_game(remote, names=(EVIL, "bob"))
    open_game = await remote.create_game("exploding_kittens", {"players": 2})
    await remote.join(open_game.game_id, EVIL)
    page = await new_page()
    visits = [
        "/",
        f"/play/{game_id}/0#token={tokens[0]}",
        f"/watch/{game_id}",
        f"/replay/{game_id}",
        f"/moderate/{game_id}#token={moderator_token(settings)}",
    ]
    for path in visits:
        await page.goto(f"{server_url}{path}")
        if path == "/":  # the listing's read model is eventually consistent
            for _ in range(50):
                if await page.get_by_text(EVIL).count() >= 2:
                    break
                await page.wait_for_timeout(200)
                await page.reload()
        await expect(page.get_by_text(EVIL).first).to_be_visible()
        assert await page.locator("img").count() == 0, path
    # new_page's fixture fails the test on any dialog (alert) or script error.


async def test_the_replay_viewer_reads_a_long_game_a_page_at_a_time(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, tokens = await finished_game(remote, public=False)
    token = moderator_token(settings)
    async with httpx.AsyncClient(base_url=server_url) as http:
        raised = await http.post(
            f"/games/{game_id}/disputes",
            json={"seqs": [5], "category": "rules", "reason": "a long look"},
            headers={"Authorization": f"Bearer {tokens[1]}"},
        )
        dispute = f"/moderation/disputes/{raised.json()['dispute_id']}"
        mod = {"Authorization": f"Bearer {token}"}
        assert (await http.post(f"{dispute}/claim", headers=mod)).status_code == 200
        for n in range(110):  # each note is an event of the game's log
            noted = await http.post(f"{dispute}/notes", json={"text": f"note {n}"}, headers=mod)
            assert noted.status_code == 201, noted.text
        total = len((await http.get(f"/games/{game_id}/audit/log", headers=mod)).json())
    assert total > 100  # more than one page of 100
    page = await new_page()
    pages_read: list[str] = []
    page.on("request", lambda r: pages_read.append(r.url.split("?", 1)[1]) if "/audit/log" in r.url else None)
    await page.goto(f"{server_url}/moderate/{game_id}#token={token}")
    at = page.locator("#at")
    await expect(at).to_contain_text(f"Event {total} of {total}")  # opens at the last event
    assert pages_read == ["after=100&limit=100"]
    await page.locator("body").focus()
    await page.keyboard.press("Home")
    await expect(at).to_contain_text(f"Event 1 of {total} (seq 1): game created")
    await page.keyboard.press("ArrowRight")
    await expect(at).to_contain_text(f"Event 2 of {total} (seq 2)")
    assert pages_read == ["after=100&limit=100", "after=0&limit=100"]  # each page once
    await page.keyboard.press("End")
    await expect(page.locator("#event")).to_contain_text("By moderator mod")
