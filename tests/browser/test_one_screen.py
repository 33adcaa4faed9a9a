"""One screen: in each decision state of both games, at 1280 x 800 and at 375 x 812, the player's
hand, the controls the state asks for and the newest move are inside the viewport as the page
opens, without scrolling (issue 52). Each state is reached deterministically from a seeded game
over the API; the seat's page is then opened at both sizes."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Page, expect

from service.config import Settings
from service.tools.client import PlaylogClient
from tests.browser.conftest import assert_accessible, screenshot
from tests.browser.pages import moderator_token

pytestmark = pytest.mark.integration

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 812}

# Where a box lies against the viewport, and how far the page was scrolled.
PLACED = """el => { const r = el.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width,
           height: r.height, vw: innerWidth, vh: innerHeight, scrolled: scrollY,
           wide: document.documentElement.scrollWidth }; }"""


@pytest.fixture
async def remote(server_url: str) -> AsyncIterator[PlaylogClient]:
    async with PlaylogClient(server_url) as client:
        yield client


async def assert_on_screen(page: Page, selector: str, what: str) -> None:
    """Every element ``selector`` finds is shown and wholly inside the viewport, the page unscrolled."""
    found = page.locator(selector)
    await expect(found.first).to_be_visible()
    # Every box measured in one script, at one instant: the page redraws its controls whenever a
    # view arrives, and an element measured after a redraw replaced it is detached (all zeros).
    boxes = await found.evaluate_all(f"els => els.map({PLACED})")
    assert boxes, f"{what} is not on the page"
    for box in boxes:
        size = f"{box['vw']} x {box['vh']}"
        assert box["scrolled"] == 0, f"{what}: the page was scrolled at {size}"
        assert box["width"] > 0 and box["height"] > 0, f"{what} is not shown at {size}: {box}"
        assert box["top"] >= 0 and box["left"] >= 0, f"{what} starts outside the viewport at {size}: {box}"
        assert box["bottom"] <= box["vh"] and box["right"] <= box["vw"], (
            f"{what} ends below or beside the viewport at {size}: {box}"
        )
        assert box["wide"] <= box["vw"], f"the page scrolls sideways at {size}: {box}"


async def assert_one_screen(
    new_page: Any, url: str, controls: str, newest: str, shot: str | None = None
) -> list[Page]:
    """The seat's page at both sizes: its hand, ``controls`` and the newest move (which says
    ``newest``) on the first screen."""
    pages = []
    for viewport in (DESKTOP, PHONE):
        page = await new_page(viewport)
        await page.goto(url)
        await expect(page.locator("#feed li").last).to_contain_text(newest)
        await expect(page.locator("main[data-busy='1']")).to_have_count(0)
        await assert_on_screen(page, "#commands .hand, #commands .stacking-list", "the hand")
        await assert_on_screen(page, controls, "the controls the state asks for")
        if viewport is DESKTOP:
            await assert_on_screen(page, "#feed li:last-child", "the newest move")
        else:
            await expect(page.locator("#latest")).to_contain_text(newest)
            await assert_on_screen(page, "#latest", "the newest move")
        await assert_accessible(page, controls)
        pages.append(page)
    if shot:
        await screenshot(pages[0], shot, full_page=False)
    return pages


async def seated(
    remote: PlaylogClient, kind: str, names: list[str], options: dict[str, Any]
) -> tuple[uuid.UUID, list[str]]:
    created = await remote.create_game(
        kind, {"players": len(names), "first_seat": 0, **options}, public=False, spectator_delay=0
    )
    tokens = [(await remote.join(created.game_id, name)).token for name in names]
    await remote.start(created.game_id, created.host_token)
    return created.game_id, tokens


async def test_a_nope_window_fits_one_screen(server_url: str, remote: PlaylogClient, new_page: Any) -> None:
    # Seed 1, seat 0 first: alice holds a Skip, bob a Nope; the window stays open 10 minutes.
    game_id, tokens = await seated(
        remote, "exploding_kittens", ["alice", "bob"], {"seed": 1, "reaction_window": 600}
    )
    await remote.send(game_id, 0, tokens[0], {"type": "PlayCard", "card": "Skip"})
    bob = await assert_one_screen(
        new_page,
        f"{server_url}/play/{game_id}/1#token={tokens[1]}",
        "#commands .hand button[data-card=Nope], #commands button[data-type=PassReaction], #window",
        "alice played Skip",
        shot="play-nope",
    )
    await expect(bob[0].locator("#commands .prompt")).to_have_text(
        "alice played Skip: Nope it, or let it happen."
    )
    # On the phone the whole log is a drawer over the page, and closes again (Escape, or Close).
    phone = bob[1]
    await expect(phone.locator("#feed")).to_be_hidden()
    await phone.get_by_role("button", name="All moves").click()
    await expect(phone.get_by_role("button", name="All moves")).to_have_attribute("aria-expanded", "true")
    await assert_on_screen(phone, "#feed li:last-child", "the log's newest move in the drawer")
    await assert_accessible(phone, "the move log's drawer open")
    await phone.keyboard.press("Escape")
    await expect(phone.locator("#feed")).to_be_hidden()
    await expect(phone.get_by_role("button", name="All moves")).to_be_focused()


async def test_a_favor_fits_one_screen_and_asks_before_a_defuse_is_given(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    # Seed 7, seat 0 first: alice holds a Favor; bob, like everyone, a Defuse.
    game_id, tokens = await seated(
        remote, "exploding_kittens", ["alice", "bob"], {"seed": 7, "reaction_window": 0}
    )
    await remote.send(game_id, 0, tokens[0], {"type": "PlayCard", "card": "Favor", "target": 1})
    desktop, phone = await assert_one_screen(
        new_page,
        f"{server_url}/play/{game_id}/1#token={tokens[1]}",
        "#commands .prompt, #commands .hand button[title^='Give']",
        "You must give alice a card",
        shot="play-favor",
    )
    for page in (desktop, phone):
        await expect(page.locator("#commands .prompt")).to_have_text("Give alice a card — choose one.")
    # A Defuse is asked about before it goes: "No" keeps it, and the question sits by the hand.
    await phone.locator("#commands .hand button[data-card=Defuse]").click()
    await expect(phone.locator("#commands .confirm")).to_contain_text("Give alice your Defuse?")
    await assert_on_screen(phone, "#commands .confirm button", "the Defuse's question")
    await assert_accessible(phone, "a Defuse asked about before it is given")
    await phone.get_by_role("button", name="No, choose another card").click()
    await expect(phone.locator("#commands .confirm")).to_have_count(0)
    await expect(phone.locator("#commands .hand button[data-card=Defuse]")).to_have_count(1)
    await phone.locator("#commands .hand button[data-card=Defuse]").click()
    await phone.get_by_role("button", name="Yes, give the Defuse").click()
    await expect(desktop.locator("#feed")).to_contain_text("You gave alice a Defuse")


async def test_a_defuse_placement_fits_one_screen(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    # Five players (the tallest table): each draws in turn until one draws a Kitten.
    names = ["alice", "bob", "cy", "dee", "eve"]
    game_id, tokens = await seated(remote, "exploding_kittens", names, {"seed": 5, "reaction_window": 0})
    placing = None
    for _ in range(60):
        views = [await remote.view(game_id, s, tokens[s]) for s in range(len(names))]
        placing = next(
            (s for s, v in enumerate(views) if any(c["type"] == "Defuse" for c in v.legal_commands)), None
        )
        if placing is not None:
            break
        seat = next(s for s, v in enumerate(views) if any(c["type"] == "DrawCard" for c in v.legal_commands))
        await remote.send(game_id, seat, tokens[seat], {"type": "DrawCard"})
    assert placing is not None, "nobody drew a Kitten"
    await assert_one_screen(
        new_page,
        f"{server_url}/play/{game_id}/{placing}#token={tokens[placing]}",
        "#commands .alarm, #commands [data-type=Defuse] select, #commands [data-type=Defuse] button",
        "You drew an Exploding Kitten!",
        shot="play-defuse",
    )


async def test_a_risk_cat_stop_fits_one_screen(server_url: str, remote: PlaylogClient, new_page: Any) -> None:
    # Five players, the full game: ann draws two tokens (seed 4: no bust), then may stop.
    names = ["ann", "ben", "cy", "dot", "eli"]
    game_id, tokens = await seated(remote, "a_risk_cat", names, {"seed": 4, "mode": "full"})
    for _ in range(2):
        await remote.send(game_id, 0, tokens[0], {"type": "DrawToken"})
    view = await remote.view(game_id, 0, tokens[0])
    assert any(c["type"] == "StopAndStack" for c in view.legal_commands), view.legal_commands
    await assert_one_screen(
        new_page,
        f"{server_url}/play/{game_id}/0#token={tokens[0]}",
        "#commands [data-type=StopAndStack] button[type=submit], #commands button[data-type=DrawToken]",
        "You drew",
        shot="play-a-risk-cat-stop",
    )


async def test_the_end_of_a_risk_cat_fits_a_phone_and_its_log_numbers_past_99(
    server_url: str, remote: PlaylogClient, new_page: Any
) -> None:
    # Five players, the full game, played to its end over the API: two draws then a stop, the
    # first choice offered for anything else.
    names = ["ann", "ben", "cy", "dot", "eli"]
    game_id, tokens = await seated(remote, "a_risk_cat", names, {"seed": 4, "mode": "full"})
    drawn = 0
    for _ in range(2000):
        views = [await remote.view(game_id, s, tokens[s]) for s in range(len(names))]
        if views[0].status == "finished":
            break
        seat, legal = next((s, v.legal_commands) for s, v in enumerate(views) if v.legal_commands)
        types = [c["type"] for c in legal if c["type"] != "Concede"]
        if "DrawToken" in types and (drawn < 2 or "StopAndStack" not in types):
            choice = next(c for c in legal if c["type"] == "DrawToken")
            drawn += 1
        elif "StopAndStack" in types and drawn >= 2:
            choice = next(c for c in legal if c["type"] == "StopAndStack")
            drawn = 0
        else:
            choice = next(c for c in legal if c["type"] != "Concede")
        await remote.send(game_id, seat, tokens[seat], choice)
    assert views[0].status == "finished"
    page = await new_page(PHONE)
    await page.goto(f"{server_url}/play/{game_id}/0#token={tokens[0]}")
    await expect(page.locator("#table-view")).to_contain_text("Tokens held, by painting")
    wide = await page.evaluate("document.documentElement.scrollWidth")
    assert wide <= PHONE["width"], f"the end tables are {wide} px wide on a phone"
    # The log's numbers past 99 have room before each move.
    await expect(page.locator("#feed li[value='100']")).to_have_count(1)
    room = await page.locator("#feed").evaluate(
        """feed => { const probe = document.createElement('span'); probe.textContent = '100. ';
        feed.append(probe); const need = probe.getBoundingClientRect().width; probe.remove();
        return parseFloat(getComputedStyle(feed).paddingLeft) - need; }"""
    )
    assert room >= 0, f"the numbers past 99 are clipped by {-room} px"
    await assert_accessible(page, "A Risk Cat's end on a phone")


async def test_a_moderators_question_shows_in_the_banner(
    server_url: str, remote: PlaylogClient, settings: Settings, new_page: Any
) -> None:
    game_id, tokens = await seated(
        remote, "exploding_kittens", ["alice", "bob"], {"seed": 1, "reaction_window": 0}
    )
    raised = await remote.http.post(
        f"/games/{game_id}/disputes",
        json={"seqs": [5], "category": "rules", "reason": "Was that right?"},
        headers={"Authorization": f"Bearer {tokens[1]}"},
    )
    assert raised.status_code == 201, raised.text
    work = f"/moderation/disputes/{raised.json()['dispute_id']}"
    mod = {"Authorization": f"Bearer {moderator_token(settings)}"}
    assert (await remote.http.post(f"{work}/claim", headers=mod)).status_code == 200
    asked = await remote.http.post(f"{work}/questions", json={"seat": 1, "text": "Which card?"}, headers=mod)
    assert asked.status_code in (200, 201), asked.text
    for viewport in (DESKTOP, PHONE):
        bob = await new_page(viewport)
        await bob.goto(f"{server_url}/play/{game_id}/1#token={tokens[1]}")
        await expect(bob.locator("#asked")).to_contain_text("A moderator asks you: “Which card?”")
        await assert_on_screen(bob, "#asked", "the moderator's question")
    await bob.get_by_role("link", name="Answer the moderator").click()
    await bob.get_by_label("Your answer to the moderator").fill("The Skip.")
    await bob.get_by_role("button", name="Send the answer").click()
    await expect(bob.locator("#asked")).to_be_hidden()
