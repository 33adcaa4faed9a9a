"""The play page tells a player whose tab is hidden that it is their turn, with a system
notification (issue 54, item 3): the Notifications API, no push service. The page's
``Notification`` and ``document.hidden`` are the browser's own, replaced before the page loads by
ones the test reads and sets (a headless browser shows no notification and is never hidden)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import expect

from service.tools.client import PlaylogClient

pytestmark = pytest.mark.integration

RECORDING_NOTIFICATIONS = """
window.__hidden = false;
window.__notes = [];
Object.defineProperty(Document.prototype, "hidden", { get: () => window.__hidden, configurable: true });
window.Notification = class {
  static permission = "granted";
  static requestPermission() { return Promise.resolve("granted"); }
  constructor(title, options) { window.__notes.push({ title, ...options }); }
  close() {}
};
"""


async def test_a_hidden_tab_is_notified_when_it_becomes_the_seat_s_turn(
    server_url: str, new_page: Any
) -> None:
    async with PlaylogClient(server_url) as remote:
        created = await remote.create_game(
            "exploding_kittens",
            {"players": 2, "reaction_window": 0, "seed": 7, "first_seat": 1},
            spectator_delay=0,
        )
        seats = [await remote.join(created.game_id, name) for name in ("alice", "bob")]
        await remote.start(created.game_id, created.host_token)
        alice = await new_page()
        await alice.add_init_script(RECORDING_NOTIFICATIONS)
        await alice.goto(f"{server_url}/play/{created.game_id}/0#token={seats[0].token}")
        await expect(alice.locator("#status")).to_have_text("Waiting for bob")
        await alice.evaluate("window.__hidden = true")  # alice looks at another tab

        bob = await remote.view(created.game_id, 1, seats[1].token)
        draw = next(move for move in bob.moves if move["type"] == "DrawCard")
        await remote.send(created.game_id, 1, seats[1].token, draw)
        await expect(alice.locator("#status")).to_have_text("● Your turn")
        notes = await alice.evaluate("window.__notes")
        assert notes == [
            {
                "title": "Your turn — playlog",
                "body": "Exploding Kittens: the game waits for your move.",
                "tag": f"playlog-turn-{created.game_id}-0",
            }
        ]

        # Shown, the page says it itself: no notification.
        await alice.evaluate("window.__hidden = false")
        view = await remote.view(created.game_id, 0, seats[0].token)
        await remote.send(
            created.game_id, 0, seats[0].token, next(m for m in view.moves if m["type"] == "DrawCard")
        )
        await expect(alice.locator("#status")).to_have_text("Waiting for bob")
        bob = await remote.view(created.game_id, 1, seats[1].token)
        await remote.send(
            created.game_id, 1, seats[1].token, next(m for m in bob.moves if m["type"] == "DrawCard")
        )
        await expect(alice.locator("#status")).to_have_text("● Your turn")
        assert len(await alice.evaluate("window.__notes")) == 1


async def test_the_page_asks_for_permission_at_the_player_s_first_click(
    server_url: str, new_page: Any
) -> None:
    async with PlaylogClient(server_url) as remote:
        created = await remote.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
        seat = await remote.join(created.game_id, "alice")
    page = await new_page()
    await page.add_init_script(
        RECORDING_NOTIFICATIONS.replace('permission = "granted"', 'permission = "default"').replace(
            'return Promise.resolve("granted");',
            'window.__asked = (window.__asked || 0) + 1; return Promise.resolve("denied");',
        )
    )
    await page.goto(f"{server_url}/play/{created.game_id}/0#token={seat.token}")
    await expect(page.locator("#lobby")).to_be_visible()
    assert await page.evaluate("window.__asked || 0") == 0  # not before the player does anything
    await page.locator("h1").first.click()
    await page.keyboard.press("Shift")
    assert await page.evaluate("window.__asked") == 1  # once
