"""The play page keeps the seat's receipts in the tab and offers them with its transcript."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from projections import receipts
from projections.export.receipted import read_receipts
from projections.notes import Verifier
from tests.browser.pages import create_game, join_game, start
from tests.browser.test_play_pages import act_once

pytestmark = pytest.mark.integration


async def test_the_play_page_keeps_the_seat_s_receipts_and_offers_them_with_its_transcript(
    server_url: str, new_page: Any, tmp_path: Path
) -> None:
    alice, bob = await new_page(), await new_page()
    game_id = await create_game(
        alice,
        server_url,
        "exploding_kittens",
        "alice",
        reaction_window=0,
        seed=1,
        first_seat=0,
        spectator_delay=0,
    )
    assert await join_game(bob, server_url, game_id, "bob") == 1
    await start(alice)
    await expect(alice.locator("#receipts")).to_be_hidden()  # nothing sent, nothing kept
    assert await act_once([alice], ["DrawCard"])
    await expect(alice.locator("#receipts-count")).to_have_text("1 receipt kept")
    assert await act_once([bob], ["DrawCard"])
    await bob.get_by_role("button", name="Concede and leave…").click()
    await bob.get_by_role("button", name="Yes, concede and leave").click()
    await expect(alice.locator("#status")).to_contain_text("Game over")

    async with alice.expect_download() as downloading:
        await alice.get_by_role("button", name="Download my receipts").click()
    file = tmp_path / "receipts.json"
    await (await downloading.value).save_as(file)
    kept = json.loads(file.read_text())
    assert (kept["game_id"], kept["seat"]) == (game_id, 0)
    assert "alice" in kept["transcript"]  # the seat's own transcript of the finished game
    async with httpx.AsyncClient(base_url=server_url) as client:
        keys = [Verifier.parse(k) for k in (await client.get("/log/keys")).json()["log_keys"]]
    [only] = read_receipts(file.read_text())  # as `playlog verify --receipts` reads it
    receipt = receipts.verify(only, keys).receipt
    assert (
        (str(receipt.game_id), receipt.seat) == (game_id, 0)
        and receipt.key
        and receipt.before < receipt.after
    )
