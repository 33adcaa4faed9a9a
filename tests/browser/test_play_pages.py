"""Two players finish games only through the play pages, each in a browser context of its own."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page, expect

from service.tools.client import PlaylogClient
from tests.browser.conftest import assert_accessible, screenshot
from tests.browser.pages import (
    assert_only_own_secrets,
    create_game,
    join_game,
    record_json,
    seat_stream_events,
    start,
)

pytestmark = pytest.mark.integration

# Seed 1 with seat 0 first: seat 0 holds a Skip and seat 1 a Nope (the deal depends only on the
# seed and the lobby's four events).
EK_SEED = 1


async def act_once(pages: list[Page], prefer: list[str]) -> bool:
    """Click the first preferred control any page shows; False when none shows one."""
    for wanted in prefer:
        for page in pages:
            control = page.locator(f"#commands button[data-type={wanted}]")
            if await control.count() and await control.first.is_visible():
                await control.first.click()
                await expect(page.locator("main[data-busy='1']")).to_have_count(0)
                return True
    return False


async def test_two_players_finish_exploding_kittens_with_a_nope_and_a_defuse_through_the_play_pages(
    server_url: str, new_page: Any
) -> None:
    alice, bob = await new_page(), await new_page()
    seen: dict[int, list[Any]] = {0: [], 1: []}
    record_json(alice, seen[0])
    record_json(bob, seen[1])
    game_id = await create_game(
        alice,
        server_url,
        "exploding_kittens",
        "alice",
        reaction_window=30,
        seed=EK_SEED,
        first_seat=0,
        spectator_delay=0,
    )
    assert await join_game(bob, server_url, game_id, "bob") == 1
    await start(alice)
    # Each seat's page names its player, marks it at the table and says whose turn it is.
    await expect(alice.locator("#who")).to_have_text("alice · seat 0")
    await expect(alice.locator("#table-view")).to_contain_text("alice (seat 0) — you")
    await expect(alice.locator("#status")).to_have_text("● Your turn")
    await expect(alice).to_have_title("● Your turn — playlog")
    await expect(bob.locator("#status")).to_have_text("Waiting for alice")
    await expect(bob).to_have_title("playlog")
    await screenshot(alice, "play", full_page=False)  # the first screen: the table on it

    # A Nope inside the window, through the cards: alice clicks her Skip, bob his Nope while the
    # countdown bar runs.
    await alice.locator("#commands .hand button[data-card=Skip]").first.click()
    await expect(bob.locator("#window")).to_contain_text("s left")
    await expect(bob.locator("#window-said")).to_contain_text("seconds left")  # said once, not each second
    await screenshot(bob, "play-nope-window")  # the README's is test_one_screen's
    await bob.locator("#commands .hand button[data-card=Nope]").first.click()
    await expect(alice.locator("#feed")).to_contain_text("bob's Nope cancelled your Skip")
    # Whoever may still answer lets the chain stand (bob's pass is his alone), and the Skip is noped.
    for _ in range(100):
        acted = await act_once([alice, bob], ["PassReaction"])
        if not acted and not await alice.locator("#window", has_text="Nope window").is_visible():
            break
        await alice.wait_for_timeout(50)
    # The Nope window's countdown is gone (the clock's "Time to decide" may count on: issue 52).
    await expect(alice.locator("#window", has_text="Nope window")).to_be_hidden()
    await expect(alice.locator("#feed")).to_contain_text("Your Skip did nothing: Noped")

    # A combo by picking cards: alice ends her turn at the draw pile; bob picks his two Beard
    # Cats, then his target, and takes a card of alice's at random.
    await alice.locator("#commands .hand button[data-type=DrawCard]").click()
    await expect(bob.locator("#status")).to_have_text("● Your turn")
    cats = bob.locator("#commands .hand button[data-card='Beard Cat']")
    await cats.nth(0).click()
    await expect(cats.nth(0)).to_have_attribute("aria-pressed", "true")
    await expect(bob.locator("#commands .aim")).to_contain_text("Pick the matching cards")
    await cats.nth(1).click()
    await expect(bob.locator("#commands .aim")).to_contain_text("now choose the player")
    await assert_accessible(bob, "a combo picked, its target to choose")
    await bob.get_by_role("button", name="On alice").click()
    await expect(alice.locator("#feed")).to_contain_text("bob played Beard Cat + Beard Cat against you")
    for _ in range(100):
        if (
            not await act_once([alice, bob], ["PassReaction"])
            and not await bob.locator("#window", has_text="Nope window").is_visible()
        ):
            break
        await alice.wait_for_timeout(50)
    await expect(bob.locator("#feed")).to_contain_text("You took a")

    # Draw until a Kitten comes; each Defuse puts it back on top, so the game ends soon after.
    defused = 0
    for _ in range(400):
        for page in (alice, bob):
            select = page.locator("#commands [data-type=Defuse] select")
            if await select.count():
                await expect(page.locator("#commands .alarm")).to_contain_text(
                    "You drew an Exploding Kitten!"
                )
                assert await select.input_value() == ""  # no place is chosen for the player
                if not defused:
                    await assert_accessible(page, "a Kitten to put back")
                await select.select_option(label="On top: the next player draws it")
                await page.locator("#commands [data-type=Defuse] button").click()
                await expect(page.locator("main[data-busy='1']")).to_have_count(0)
                defused += 1
        if await alice.locator("#status").filter(has_text="Game over").count():
            break
        if not await act_once([alice, bob], ["DrawCard"]):
            await alice.wait_for_timeout(50)  # the other page is still catching up with its stream
        for me, page in enumerate((alice, bob)):  # the DOM shows this seat's own hand only
            assert await page.get_by_text("Hand (face up)").count() == 0
            assert_only_own_secrets(seen[me], me)
    await expect(alice.locator("#status")).to_contain_text("Game over")
    await expect(bob.locator("#status")).to_contain_text("Game over")
    assert defused >= 1
    for me, page in enumerate((alice, bob)):
        assert_only_own_secrets(seen[me], me)
        assert seen[me], "the page read the API"
        streamed = await seat_stream_events(page, server_url, game_id, me)
        assert len(streamed) == await page.locator("#feed li").count()
        assert_only_own_secrets(streamed, me)
    await expect(alice.locator("#feed")).to_contain_text("defused it and put the Kitten back")
    await screenshot(bob, "play-finished")


ARC_ANSWERS = [
    "StealRuns",
    "TakeMusicianCats",
    "KeepMusicianCat",
    "ChooseRobinTellTarget",
    "DealRobinTellToken",
    "DismissLadies",
]


async def test_three_players_finish_a_risk_cat_through_the_play_pages(server_url: str, new_page: Any) -> None:
    pages = [await new_page(), await new_page(), await new_page()]
    game_id = await create_game(
        pages[0], server_url, "a_risk_cat", "ann", players=3, seed=3, first_seat=0, spectator_delay=0
    )
    assert await join_game(pages[1], server_url, game_id, "ben") == 1
    assert await join_game(pages[2], server_url, game_id, "cy") == 2
    await start(pages[0])
    drawn = [0, 0, 0]  # tokens drawn this turn, per seat: up to two, then stop
    reordered = False
    for _ in range(1500):
        if await pages[0].locator("#status").filter(has_text="Game over").count():
            break
        choice = None
        for seat, page in enumerate(pages):
            offered = await page.eval_on_selector_all(
                "#commands [data-type]", "els => els.map(e => e.dataset.type)"
            )
            offered = [t for t in offered if ":" not in t]  # a stop's up and down buttons are its own
            answers = [t for t in ARC_ANSWERS if t in offered]
            if answers:
                choice = (seat, answers[0])
            elif (drawn[seat] >= 2 or (drawn[seat] >= 1 and reordered)) and "StopAndStack" in offered:
                choice = (seat, "StopAndStack")
            elif "DrawToken" in offered:
                choice = (seat, "DrawToken")
            elif offered:  # anything else the game asks: its first option
                choice = (seat, offered[0])
            if choice:
                break
        if choice is None:
            await pages[0].wait_for_timeout(50)  # the pages are catching up with their streams
            continue
        seat, wanted = choice
        stacking = pages[seat].locator("#commands .stacking-list li")
        if wanted == "StopAndStack" and not reordered and await stacking.count() >= 2:
            # A free order: the bottom token is moved up to the top, and the stack's top is it.
            bottom = (await stacking.last.locator(".token").text_content() or "").strip()
            for _ in range(await stacking.count() - 1):
                await stacking.filter(has_text=bottom).get_by_role("button", name="up").click()
            await expect(stacking.first).to_contain_text(bottom)
            await pages[seat].locator("#commands button[data-type=StopAndStack]").click()
            await expect(pages[seat].locator("main[data-busy='1']")).to_have_count(0)
            await expect(pages[seat].locator("#feed")).to_contain_text(f"{bottom} on top")
            reordered = True
            drawn[seat] = 0
            continue
        await pages[seat].locator(f"#commands button[data-type={wanted}]").first.click()
        await expect(pages[seat].locator("main[data-busy='1']")).to_have_count(0)
        drawn[seat] = drawn[seat] + 1 if wanted == "DrawToken" else 0
    for page in pages:
        await expect(page.locator("#status")).to_contain_text("Game over")
    assert reordered
    table = pages[1].locator("#table-view")
    await expect(table).to_contain_text("paintings won")  # the score, broken down
    await expect(table).to_contain_text("Tokens held, by painting")
    await expect(table).to_contain_text("ben (seat 1) — you")
    feed = pages[1].locator("#feed")
    await expect(feed).to_contain_text("The paintings are in the bag")
    await expect(feed).not_to_contain_text("arisk")
    assert not await feed.get_by_text(re.compile(r"\bp\d+-\d+\b")).count()  # tokens by name, not id
    await screenshot(pages[1], "play-a-risk-cat")


async def test_a_favor_and_a_triple_are_played_by_clicking_a_card_then_its_target(
    server_url: str, new_page: Any
) -> None:
    # Seed 7, seat 0 first: alice holds a Favor and three Hairy Potato Cats.
    async with PlaylogClient(server_url) as remote:
        created = await remote.create_game(
            "exploding_kittens",
            {"players": 2, "reaction_window": 0, "seed": 7, "first_seat": 0},
            spectator_delay=0,
        )
        tokens = [(await remote.join(created.game_id, name)).token for name in ("alice", "bob")]
        await remote.start(created.game_id, created.host_token)
    alice, bob = await new_page(), await new_page()
    await alice.goto(f"{server_url}/play/{created.game_id}/0#token={tokens[0]}")
    await bob.goto(f"{server_url}/play/{created.game_id}/1#token={tokens[1]}")
    await expect(alice.locator("#status")).to_have_text("● Your turn")
    await expect(
        alice.get_by_label("Play a sound when it is my turn")
    ).not_to_be_checked()  # off unless asked

    await alice.locator("#commands .hand button[data-card=Favor]").click()
    await expect(alice.locator("#commands .aim")).to_contain_text("Favor: now choose the player.")
    await alice.get_by_role("button", name="On bob").click()
    # Bob answers the Favor by clicking the card he gives.
    await expect(bob.locator("#status")).to_have_text("● Your move: the game waits for you")
    # (A Defuse would be asked about first: tests/browser/test_one_screen.py.)
    given = bob.locator("#commands .hand button[title^='Give']:not([data-card=Defuse])").first
    card = await given.get_attribute("data-card")
    await given.click()
    await expect(alice.locator("#feed")).to_contain_text(f"bob gave you a {card}")
    await expect(alice.locator("#commands .hand")).to_contain_text(card or "")

    cats = alice.locator("#commands .hand button[data-card='Hairy Potato Cat']")
    for i in range(3):
        await cats.nth(i).click()
    await expect(alice.locator("#commands .aim")).to_contain_text("now choose the player")
    await alice.get_by_label("Name the card you ask for").select_option("Defuse")
    await alice.get_by_role("button", name="On bob").click()
    await expect(alice.locator("#feed")).to_contain_text(
        "You played Hairy Potato Cat + Hairy Potato Cat + Hairy Potato Cat against bob, asking for Defuse"
    )
    await expect(alice.locator("#feed")).to_contain_text(re.compile(r"bob (had to hand over|has no) Defuse"))
