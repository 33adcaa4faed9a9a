"""Access records in the pages: the moderator's replay of a running game asks for a why, which
goes on the record, and the seat's play page then shows who looked."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from service.config import Settings
from service.tools.client import PlaylogClient
from tests.browser.pages import moderator_token, two_seat_game

pytestmark = pytest.mark.integration


@pytest.fixture
async def remote(server_url: str) -> AsyncIterator[PlaylogClient]:
    async with PlaylogClient(server_url) as client:
        yield client


async def test_the_moderator_gives_a_reason_and_the_seat_sees_who_looked(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, tokens = await two_seat_game(remote)
    token = moderator_token(settings)
    moderator = await new_page()
    await moderator.goto(f"{server_url}/moderate/{game_id}#token={token}")
    why = moderator.locator("#reason-form")
    await expect(why).to_be_visible()  # the game runs: no face-up read without a why
    await expect(moderator.locator("#problem")).to_contain_text("access_reason_required")
    assert "Draw pile" not in await moderator.content()
    await why.get_by_label("or a reason").select_option("incident")
    await why.get_by_label("Note").fill("a stuck turn")
    await why.get_by_role("button", name="Read face up").click()
    await expect(moderator.locator("#chain")).to_contain_text("Hash chain verified")
    await expect(why).to_be_hidden()

    async with httpx.AsyncClient(base_url=server_url) as http:
        auth = {"Authorization": f"Bearer {token}"}
        records = (await http.get(f"/games/{game_id}/access", headers=auth)).json()["items"]
    assert records and {r["reason"] for r in records} == {"incident"}
    assert {r["note"] for r in records} == {"a stuck turn"} and {r["moderator"] for r in records} == {"mod"}

    await remote.leave(game_id, 1, tokens[1])  # the game is over: its seats see who looked
    seat = await new_page()
    await seat.goto(f"{server_url}/play/{game_id}/0#token={tokens[0]}")
    looked = seat.locator("#who-looked")
    await expect(looked).to_be_visible()
    await expect(looked).to_contain_text("mod read the full log")
    await expect(looked).to_contain_text("incident")
    await expect(looked).to_contain_text("a stuck turn")
    await expect(looked.locator("li")).to_have_count(len(records))
