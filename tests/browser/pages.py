"""Steps the browser tests share: games set up over the API, create, join and start a game through
the pages, and the checks that a seat's page never receives another seat's hidden cards."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import httpx
from playwright.async_api import Page, expect

from service.app.auth import Principal, issue
from service.config import Settings
from service.tools.client import PlaylogClient

NAME = re.compile(r"/play/([0-9a-f-]{36})/(\d+)$")


def moderator_token(settings: Settings) -> str:
    return issue(settings.keyring(), Principal(role="moderator", name="mod"), 3600)


async def two_seat_game(
    api: PlaylogClient, names: tuple[str, str] = ("alice", "bob"), *, delay: float = 0, public: bool = True
) -> tuple[uuid.UUID, list[str]]:
    created = await api.create_game(
        "exploding_kittens",
        # No clock (a public game's default, issue 52): the tests play at their own pace, outages included.
        {"players": 2, "reaction_window": 0, "seed": 1, "first_seat": 0, "decision_timeout": None},
        public=public,
        spectator_delay=delay,
    )
    tokens = [(await api.join(created.game_id, name)).token for name in names]
    await api.start(created.game_id, created.host_token)
    return created.game_id, tokens


async def finished_game(api: PlaylogClient, **kwargs: Any) -> tuple[uuid.UUID, list[str]]:
    """Two draws, then bob concedes."""
    game_id, tokens = await two_seat_game(api, **kwargs)
    await api.send(game_id, 0, tokens[0], {"type": "DrawCard"})
    await api.send(game_id, 1, tokens[1], {"type": "DrawCard"})
    await api.leave(game_id, 1, tokens[1])
    return game_id, tokens


async def create_game(page: Page, base: str, kind: str, name: str, **options: Any) -> str:
    """Create a game on the home page and take its first seat; returns the game id."""
    await page.goto(f"{base}/")
    await page.locator("#create-kind").select_option(kind)
    form = page.locator("#create-form")
    await form.get_by_label("Players").fill(str(options.pop("players", 2)))
    for field, label in (
        ("reaction_window", "Reaction window"),
        ("seed", "Seed"),
        ("first_seat", "First seat"),
        ("spectator_delay", "Spectator delay"),
    ):
        if field in options:
            if field in ("seed", "first_seat") and not await form.get_by_label("Seed").is_visible():
                await form.locator("summary").click()  # "More options"
            await form.get_by_label(label).fill(str(options[field]))
    await form.get_by_label("Your name").fill(name)
    await form.get_by_role("button", name="Create and take a seat").click()
    await page.wait_for_url(NAME)
    match = NAME.search(page.url)
    assert match
    return match.group(1)


async def join_game(page: Page, base: str, game_id: str, name: str) -> int:
    await page.goto(f"{base}/")
    form = page.locator("#join-form")
    await form.get_by_label("Game id").fill(game_id)
    await form.get_by_label("Your name").fill(name)
    await form.get_by_role("button", name="Join").click()
    await page.wait_for_url(NAME)
    match = NAME.search(page.url)
    assert match
    return int(match.group(2))


async def start(host_page: Page) -> None:
    await host_page.get_by_role("button", name="Start the game").click()
    await expect(host_page.locator("#table")).to_be_visible()


def record_json(page: Page, into: list[Any]) -> None:
    """Keep every JSON body the page receives (its SSE stream excepted: it never ends while the
    page lives; what the stream brings shows in the page's move feed, checked in the DOM)."""

    async def keep(response: Any) -> None:
        if "json" not in (response.headers.get("content-type") or "") or response.url.endswith("/stream"):
            return
        try:
            into.append(await response.json())
        except Exception:  # a body the page navigated away from
            return

    page.on("response", keep)


def assert_only_own_secrets(body: Any, me: int) -> None:
    """Exploding Kittens: nothing in ``body`` reveals a hidden card that is not seat ``me``'s."""
    if isinstance(body, list):
        for item in body:
            assert_only_own_secrets(item, me)
        return
    if not isinstance(body, dict):
        return
    assert body.get("salt") is None, body
    if isinstance(body.get("hands"), list):
        assert all(not hand for seat, hand in enumerate(body["hands"]) if seat != me), body
    if isinstance(body.get("draw_pile"), list):
        assert body["draw_pile"] == [], body
    if body.get("view") == "seat" or "hand" in body:
        assert body.get("seat") == me, body
    other = body.get("seat") is not None and body.get("seat") != me
    match body.get("type"):
        case "CardDrawn" if other:
            assert body["card"] is None, body
        case "KittenDefused" if other:
            assert body["position"] is None, body
        case "FutureSeen" if other:
            assert body["cards"] == [], body
        case "DeckShuffled":
            assert body["order"] == [], body
    for value in body.values():
        assert_only_own_secrets(value, me)


async def seat_stream_events(page: Page, base: str, game_id: str, seat: int) -> list[Any]:
    """The events of the stream this seat's page follows, read again from its start with the very
    token the tab holds, as many as the page's move feed shows (the stream itself never ends)."""
    token = await page.evaluate(f"sessionStorage.getItem('playlog:seat:{game_id}:{seat}')")
    wanted = await page.locator("#feed li").count()
    events: list[Any] = []
    headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
    url = f"{base}/games/{game_id}/seats/{seat}/stream"
    async with httpx.AsyncClient(timeout=30) as http, http.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200
        async for line in response.aiter_lines():
            message = json.loads(line[5:]) if line.startswith("data:") else {}
            if "type" in message:  # an event (the stream's receipts are not)
                events.append(message)
                if len(events) >= wanted:
                    break
    return events
