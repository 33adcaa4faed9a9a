"""The watch page follows the published head and reads chunks, checking the spectators' chain:
it shows every released event, and refuses a chunk that a cache altered."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Route, expect

from projections.chunks import CHUNK_EVENTS
from service.tools.bot import pick
from service.tools.client import PlaylogClient
from tests.browser.pages import two_seat_game

pytestmark = pytest.mark.integration


@pytest.fixture
async def remote(server_url: str) -> AsyncIterator[PlaylogClient]:
    async with PlaylogClient(server_url) as client:
        yield client


async def _game_past_a_chunk(remote: PlaylogClient) -> tuple[Any, int]:
    """A public game without delay whose spectators' view holds two full chunks (the head's tail
    repeats the last one: the first is read as a chunk)."""
    game_id, tokens = await two_seat_game(remote)
    return game_id, await _past_a_chunk(remote, game_id, tokens)


async def _past_a_chunk(remote: PlaylogClient, game_id: Any, tokens: list[str]) -> int:
    """Moves until the spectators' view holds two full chunks; the last released number."""
    rng = random.Random(4)
    head: dict[str, Any] = {"released": 0}
    while head["released"] <= 2 * CHUNK_EVENTS:
        views = [await remote.view(game_id, seat, tokens[seat]) for seat in (0, 1)]
        if views[0].status == "finished":
            break
        choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
        view, command = rng.choice(choices)
        await remote.send(game_id, view.seat, tokens[view.seat], command)
        head = (await remote.http.get(f"/games/{game_id}/spectate/head")).json()
    assert head["chunks"] >= 2
    released: int = head["released"]
    return released


async def test_the_watch_page_shows_the_chained_events_and_refuses_an_altered_chunk(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    game_id, released = await _game_past_a_chunk(remote)
    page = await new_page()
    await page.goto(f"{server_url}/watch/{game_id}")
    await expect(page.locator(f'#feed li[data-seq="{released}"]')).to_have_count(1)
    seqs = [
        int(s)
        for s in await page.locator("#feed li").evaluate_all("(items) => items.map((i) => i.dataset.seq)")
    ]
    assert seqs == sorted(set(seqs)) and seqs[-1] == released  # each move once, in order (bookkeeping unsaid)
    await expect(page.locator("#problem")).to_be_hidden()

    async def altered(route: Route) -> None:  # a cache that rewrites one event of the chunk
        response = await route.fetch()
        chunk = await response.json()
        chunk["events"][2] = chunk["events"][2].replace('"type":', '"type" :')
        await route.fulfill(response=response, body=json.dumps(chunk))

    tampered = await new_page()
    await tampered.route("**/spectate/chunks/**", altered)
    await tampered.goto(f"{server_url}/watch/{game_id}")
    await expect(tampered.locator("#problem")).to_contain_text("does not match the game's published chain")
    await expect(tampered.locator("#feed li")).to_have_count(2)  # what chained, before the altered one


async def test_a_chunk_cached_before_an_erasure_still_chains_on_the_watch_page(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    """A cache serves the first chunk as it was before a player's erasure (their name); the head
    and the tail come from the origin after it (the pseudonym): the page follows, nothing refused."""
    player = await remote.create_player("Ada Lovelace")
    created = await remote.create_game(
        "exploding_kittens",
        {"players": 2, "reaction_window": 0, "seed": 1, "first_seat": 0},
        public=True,
        spectator_delay=0,
    )
    tokens = [
        (await remote.join(created.game_id, player_token=player.token)).token,
        (await remote.join(created.game_id, "bob")).token,
    ]
    await remote.start(created.game_id, created.host_token)
    await _past_a_chunk(remote, created.game_id, tokens)
    cached = (await remote.http.get(f"/games/{created.game_id}/spectate/chunks/1-{CHUNK_EVENTS}")).text
    assert "Ada Lovelace" in cached
    erased = await remote.http.delete(
        "/players/me", params={"erase": "true"}, headers={"Authorization": f"Bearer {player.token}"}
    )
    assert erased.status_code == 200, erased.text
    released = (await remote.http.get(f"/games/{created.game_id}/spectate/head")).json()["released"]

    served: list[str] = []

    async def stale(route: Route) -> None:  # the cache's copy, kept for a year
        served.append(route.request.url)
        await route.fulfill(status=200, content_type="application/json", body=cached)

    page = await new_page()
    await page.route(f"**/spectate/chunks/1-{CHUNK_EVENTS}", stale)
    await page.goto(f"{server_url}/watch/{created.game_id}")
    await expect(page.locator(f'#feed li[data-seq="{released}"]')).to_have_count(1)
    await expect(page.locator("#problem")).to_be_hidden()
    assert served
