"""A seat comes back: a closed tab through the seat's private rejoin link, a player through its
games page; and once a moderator's ruling changes the outcome, every page says the same."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Page, expect

from service.config import Settings
from service.tools.client import PlaylogClient
from tests.browser.conftest import screenshot
from tests.browser.pages import finished_game, moderator_token, two_seat_game

pytestmark = pytest.mark.integration


@pytest.fixture
async def remote(server_url: str) -> AsyncIterator[PlaylogClient]:
    async with PlaylogClient(server_url) as client:
        yield client


async def draw(page: Page) -> None:
    await page.get_by_role("button", name="Draw a card").click()
    await expect(page.locator("main[data-busy='1']")).to_have_count(0)


async def test_a_closed_tab_gets_its_seat_back_through_the_rejoin_link(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    game_id, tokens = await two_seat_game(remote)  # alice (seat 0) plays first
    alice, bob = await new_page(), await new_page()
    await alice.goto(f"{server_url}/play/{game_id}/0#token={tokens[0]}")
    await bob.goto(f"{server_url}/play/{game_id}/1#token={tokens[1]}")
    await bob.context.grant_permissions(["clipboard-read", "clipboard-write"])
    link = bob.get_by_label("Rejoin link")
    await expect(link).to_have_value(f"{server_url}/play/{game_id}/1#token={tokens[1]}")
    await bob.get_by_role("button", name="Copy the link").click()
    await expect(bob.locator("#rejoin-said")).to_have_text("Copied.")
    copied = await bob.evaluate("navigator.clipboard.readText()")
    assert copied == await link.input_value()
    await screenshot(bob, "play-rejoin")
    await bob.context.close()  # the tab, and with it the seat token it held, is gone

    # The seat's address alone no longer plays it...
    lost = await new_page()
    await lost.goto(f"{server_url}/play/{game_id}/1")
    await expect(lost.locator("#problem")).to_contain_text("rejoin link")
    # ...the rejoin link does, and the game goes on from this new tab.
    back = await new_page()
    await back.goto(copied)
    assert "token" not in back.url  # the token left the address bar at once
    await expect(back.locator("#commands .hand")).to_contain_text("Defuse")
    await draw(alice)
    await expect(back.locator("#status")).to_have_text("● Your turn")
    await draw(back)
    await expect(alice.locator("#status")).to_have_text("● Your turn")
    await expect(alice.locator("#feed")).to_contain_text("bob drew a card")


async def test_a_player_gets_its_seats_back_from_its_games_page(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    pat = await remote.create_player("pat")
    created = await remote.create_game(
        "exploding_kittens", {"players": 2, "reaction_window": 0, "seed": 1, "first_seat": 0}
    )
    await remote.join(created.game_id, player_token=pat.token)
    guest = await remote.join(created.game_id, "guest")
    await remote.start(created.game_id, created.host_token)

    page = await new_page()
    await page.goto(f"{server_url}/me")
    await page.locator("#player-form").get_by_label("Player token").fill(pat.token)
    await page.get_by_role("button", name="Open my games").click()
    row = page.locator(f'#my-games-list li[data-game-id="{created.game_id}"]')
    # The list is a read model a moment behind the log: reopen the page until the game shows.
    for _ in range(50):
        if await row.count():
            break
        await page.wait_for_timeout(200)
        await page.reload()
    await expect(row).to_contain_text("being played")
    await screenshot(page, "me")
    await row.get_by_role("button", name="Back to your seat (seat 0)").click()
    await expect(page).to_have_url(f"{server_url}/play/{created.game_id}/0")
    await expect(page.locator("#status")).to_have_text("● Your turn")
    await draw(page)
    view = await remote.view(created.game_id, 1, guest.token)
    assert view.view["public"]["active_seat"] == 1  # the move was the player's, through its seat

    # Another player's token gets no seat of this game.
    sam = await remote.create_player("sam")
    refused = await remote.http.post(
        f"/players/me/games/{created.game_id}/seats/0/token", headers={"Authorization": f"Bearer {sam.token}"}
    )
    assert refused.json()["code"] == "seat_not_held"


async def test_every_page_agrees_on_a_ruled_outcome(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, tokens = await finished_game(remote)  # alice wins; public, no spectator delay
    raised = await remote.http.post(
        f"/games/{game_id}/disputes",
        json={"seqs": [6], "category": "rules", "reason": "I never meant to leave."},
        headers={"Authorization": f"Bearer {tokens[1]}"},
    )
    mod = {"Authorization": f"Bearer {moderator_token(settings)}"}
    base = f"/moderation/disputes/{raised.json()['dispute_id']}"
    assert (await remote.http.post(f"{base}/claim", headers=mod)).status_code == 200
    ruling = {"verdict": "upheld", "action": "award", "seats": [1], "explanation": "A slip of the hand."}
    assert (await remote.http.post(f"{base}/resolve", json=ruling, headers=mod)).status_code == 200

    ruled = "Winner as ruled by a moderator: bob (seat 1) (originally: alice (seat 0))."
    pages: dict[str, Page] = {}
    for seat in (0, 1):
        pages[f"play {seat}"] = page = await new_page()
        await page.goto(f"{server_url}/play/{game_id}/{seat}#token={tokens[seat]}")
        await expect(page.locator("#status")).to_contain_text(ruled)
        await expect(page.locator("#table-view .result")).to_have_text(ruled)
    pages["watch"] = page = await new_page()
    await page.goto(f"{server_url}/watch/{game_id}")
    await expect(page.locator("#result")).to_contain_text(ruled)
    await expect(page.locator("#table-view .result")).to_have_text(ruled)
    pages["replay"] = page = await new_page()
    await page.goto(f"{server_url}/replay/{game_id}")
    await expect(page.locator("#event")).to_contain_text("ruled on a dispute")  # the final state
    await expect(page.locator("#state .result")).to_have_text(ruled)
    pages["moderate"] = page = await new_page()
    await page.goto(f"{server_url}/moderate/{game_id}#token={moderator_token(settings)}")
    await expect(page.locator("#state .result")).to_have_text(ruled)
    for name, page in pages.items():
        text = await page.locator("main").inner_text()
        assert "Winner: alice" not in text, name  # the original, only ever as "(originally …)"
    await screenshot(pages["play 1"], "play-ruled")


async def test_a_players_games_page_shows_more_by_its_next_page(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    pat = await remote.create_player("pat")
    made = []
    for _ in range(21):
        created = await remote.create_game("exploding_kittens", {"players": 2})
        await remote.join(created.game_id, player_token=pat.token)
        made.append(created.game_id)
    # The list is a read model a moment behind the log: wait until the oldest game shows.
    for _ in range(100):
        if len(await remote.all_my_games(pat.token)) == len(made):
            break
        await asyncio.sleep(0.1)
    page = await new_page()
    await page.goto(f"{server_url}/me")
    await page.locator("#player-form").get_by_label("Player token").fill(pat.token)
    await page.get_by_role("button", name="Open my games").click()
    rows = page.locator("#my-games-list li")
    await expect(rows).to_have_count(20)
    await expect(rows.first).to_have_attribute("data-game-id", str(made[-1]))
    await page.get_by_role("button", name="Show more of your games").click()
    await expect(rows).to_have_count(21)
    await expect(rows.last).to_have_attribute("data-game-id", str(made[0]))
    await expect(page.get_by_role("button", name="Show more of your games")).to_be_hidden()


async def test_a_player_erases_themself_from_their_games_page(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    """docs/erasure.md: the page says what erasing does in a player's words, asks first, and says
    how the games show the player afterwards; the game's pages then show that name."""
    kit = await remote.create_player("Kit Erasable")
    created = await remote.create_game("exploding_kittens", {"players": 2, "reaction_window": 0})
    await remote.join(created.game_id, player_token=kit.token)
    await remote.join(created.game_id, "guest")

    page = await new_page()
    await page.goto(f"{server_url}/me#token={kit.token}")
    erase = page.locator("#erase")
    await expect(erase).to_contain_text("This cannot be undone")
    await erase.get_by_role("button", name="Erase my name and words").click()
    await expect(page.locator("#erase-done")).to_be_hidden()  # not without saying it is understood
    await erase.get_by_label("I understand that this cannot be undone").check()
    await erase.get_by_role("button", name="Erase my name and words").click()
    done = page.locator("#erase-done")
    await expect(done).to_contain_text("Done: you are shown as Player ")
    await expect(done).to_contain_text("in 1 game.")
    await screenshot(page, "me-erased")
    pseudonym = (await done.inner_text()).removeprefix("Done: you are shown as ").split(" in ")[0]
    summary = (await remote.http.get(f"/games/{created.game_id}")).json()
    assert summary["seats"] == [pseudonym, "guest"]
    refused = await remote.http.get("/players/me/games", headers={"Authorization": f"Bearer {kit.token}"})
    assert refused.status_code == 401  # the token went with the name
