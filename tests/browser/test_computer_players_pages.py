"""Computer players seated through the pages (issue 53): in the play page's lobby or when creating
a game on the home page; a human plays a whole game beside two of them, by clicking; the lobby,
the table and the home page's listing name them; a refusal is said in words."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from playwright.async_api import Page, expect

from service.tools.client import PlaylogClient
from tests.browser.conftest import DESKTOP, PHONE, assert_accessible, screenshot
from tests.browser.pages import create_game

pytestmark = pytest.mark.integration


async def add_computer(page: Page, level: str) -> None:
    """Choose the level in the lobby's form, in its words, and add the computer player."""
    form = page.locator("#computer-form")
    await form.get_by_label(level).check()
    await form.get_by_role("button", name="Add a computer player").click()
    await expect(page.locator("main[data-busy='1']")).to_have_count(0)


async def seat_two_computers_in_the_lobby(page: Page) -> None:
    """An easy and a normal computer player beside the human, added in the lobby (axe-core on the
    new controls at both widths)."""
    form = page.locator("#computer-form")
    await expect(form.get_by_role("group", name="Add a computer player")).to_be_visible()
    await add_computer(page, "Easy — plays at random")
    await expect(page.locator("#lobby-seats")).to_contain_text("Computer (easy) (seat 1)")
    await expect(page.locator("#computer-said")).to_have_text("Computer (easy) took seat 1.")
    await screenshot(page, "lobby-computer-players")  # axe-core at 1280 and 375 px, the form in view
    await add_computer(page, "Normal — plays carefully")
    await expect(page.locator("#lobby-seats")).to_contain_text("Computer (normal) (seat 2)")
    # Every seat taken: nothing more to add, and the keyboard is on the start button.
    await expect(form).to_be_hidden()
    await expect(page.get_by_role("button", name="Start the game")).to_be_focused()


async def the_lobby_names_them(
    page: Page, server_url: str, new_page: Any, game_id: str, levels: list[str]
) -> None:
    """The lobby and the home page's listing name each computer seat, and the human starts."""
    for seat, level in enumerate(levels, start=1):
        await expect(page.locator("#lobby-seats")).to_contain_text(f"Computer ({level}) (seat {seat})")
    await expect(page.locator("#computer-form")).to_be_hidden()
    home = await new_page()
    await home.goto(f"{server_url}/")
    row = home.locator(f"#games li[data-game-id='{game_id}']")
    # The listing is refreshed every 10 s: a read of it may precede the last computer player.
    await expect(row).to_contain_text(f"ann, Computer ({levels[0]}), Computer ({levels[1]})", timeout=20_000)

    await page.get_by_role("button", name="Start the game").click()
    await expect(page.locator("#table")).to_be_visible()
    for seat, level in enumerate(levels, start=1):
        await expect(page.locator("#table-view")).to_contain_text(f"Computer ({level}) (seat {seat})")


async def click(page: Page, selector: str) -> bool:
    control = page.locator(selector)
    if not await control.count() or not await control.first.is_visible():
        return False
    await control.first.click()
    await expect(page.locator("main[data-busy='1']")).to_have_count(0)
    return True


async def play_exploding_kittens(page: Page) -> None:
    """The human's moves: a drawn Kitten back on top, a card given when asked (a Defuse only when
    nothing else is left), a pass when a Nope could answer, else a draw."""
    for _ in range(2000):
        if await page.locator("#status").filter(has_text="Game over").count():
            return
        defuse = page.locator("#commands [data-type=Defuse] select")
        if await defuse.count():
            await defuse.select_option(label="On top: the next player draws it")
            await click(page, "#commands [data-type=Defuse] button")
            continue
        if (
            await click(page, "#commands .hand button[title^='Give']:not([data-card=Defuse])")
            or await click(page, "#commands button[data-type='confirm-give:yes']")
            or await click(page, "#commands .hand button[title^='Give']")
            or await click(page, "#commands button[data-type=PassReaction]")
            or await click(page, "#commands button[data-type=DrawCard]")
        ):
            continue
        await page.wait_for_timeout(50)  # the computer players' turns
    raise AssertionError("the game did not end")


ARC_ANSWERS = [
    "StealRuns",
    "TakeMusicianCats",
    "KeepMusicianCat",
    "ChooseRobinTellTarget",
    "DealRobinTellToken",
    "DismissLadies",
]


async def play_a_risk_cat(page: Page) -> None:
    """The human's moves: what the game asks first, else two tokens drawn a turn, then a stop."""
    drawn = 0
    for _ in range(2000):
        if await page.locator("#status").filter(has_text="Game over").count():
            return
        offered = await page.eval_on_selector_all(
            "#commands [data-type]", "els => els.map(e => e.dataset.type)"
        )
        offered = [t for t in offered if ":" not in t]  # a stop's up and down buttons are its own
        answers = [t for t in ARC_ANSWERS if t in offered]
        if answers:
            wanted = answers[0]
        elif drawn >= 2 and "StopAndStack" in offered:
            wanted = "StopAndStack"
        elif "DrawToken" in offered:
            wanted = "DrawToken"
        elif offered:
            wanted = offered[0]
        else:
            await page.wait_for_timeout(50)  # the computer players' turns
            continue
        if await click(page, f"#commands button[data-type={wanted}]"):
            drawn = drawn + 1 if wanted == "DrawToken" else 0
    raise AssertionError("the game did not end")


async def test_a_human_plays_exploding_kittens_beside_two_computer_players_added_in_the_lobby(
    server_url: str, new_page: Any
) -> None:
    page = await new_page()
    game_id = await create_game(
        page,
        server_url,
        "exploding_kittens",
        "ann",
        players=3,
        reaction_window=0,
        seed=5,
        first_seat=0,
        spectator_delay=0,
    )
    await seat_two_computers_in_the_lobby(page)
    await the_lobby_names_them(page, server_url, new_page, game_id, ["easy", "normal"])
    await play_exploding_kittens(page)
    await the_end_shows_the_result(page)


async def test_a_human_plays_a_risk_cat_beside_two_computer_players_chosen_when_creating(
    server_url: str, new_page: Any
) -> None:
    page = await new_page()
    await page.goto(f"{server_url}/")
    others = page.locator("#create-form").get_by_role("group", name="The other seats")
    await expect(others).to_be_visible()
    for viewport in (DESKTOP, PHONE):
        await page.set_viewport_size(viewport)
        await assert_accessible(page, "the create form's other seats")
    await page.set_viewport_size(DESKTOP)
    game_id = await create_game(
        page,
        server_url,
        "a_risk_cat",
        "ann",
        players=3,
        seed=3,
        first_seat=0,
        spectator_delay=0,
        others="Normal computer opponents — they play carefully",
    )
    await the_lobby_names_them(page, server_url, new_page, game_id, ["normal", "normal"])
    await play_a_risk_cat(page)
    await the_end_shows_the_result(page)


async def the_end_shows_the_result(page: Page) -> None:
    status = page.locator("#status")
    await expect(status).to_contain_text("Game over")
    await expect(status).to_contain_text(
        re.compile(r"Winner: (ann \(seat 0\)|Computer \((easy|normal)\) \(seat [12]\))")
    )
    await expect(page.locator("#feed")).to_contain_text("Computer (")
    await expect(page.locator("#replay-link")).to_be_visible()


async def lobby_page_left_behind(server_url: str, new_page: Any, players: int) -> tuple[Page, uuid.UUID, str]:
    """ann's play page in the lobby, its seat's stream held back: the page goes on offering a
    seat the others take meanwhile. The page, the game's id and the host token this tab keeps."""
    page = await new_page()
    await page.route("**/stream*", lambda route: None)
    game_id = await create_game(
        page, server_url, "exploding_kittens", "ann", players=players, spectator_delay=0
    )
    host = await page.evaluate(f"sessionStorage.getItem('playlog:host:{game_id}')")
    await expect(page.locator("#computer-form")).to_be_visible()
    return page, uuid.UUID(game_id), host


async def test_adding_a_computer_player_to_a_full_or_started_game_is_refused_in_words(
    server_url: str, new_page: Any
) -> None:
    problem_words = {
        "full": "Every seat is taken: there is no seat left for a computer player.",
        "started": "The game has already started: a computer player can only join before the start.",
    }
    async with PlaylogClient(server_url) as remote:
        page, game_id, _ = await lobby_page_left_behind(server_url, new_page, 3)
        await remote.join(game_id, "bob")
        await remote.join(game_id, "cy")
        await add_computer(page, "Normal — plays carefully")
        await expect(page.locator("#problem")).to_have_text(problem_words["full"])
        # The page reads the game again: every seat taken, nothing left to add.
        await expect(page.locator("#computer-form")).to_be_hidden()
        await expect(page.locator("#lobby-seats")).to_contain_text("cy (seat 2)")

        page, game_id, host = await lobby_page_left_behind(server_url, new_page, 2)
        await remote.join(game_id, "bob")
        await remote.start(game_id, host)
        await add_computer(page, "Easy — plays at random")
        await expect(page.locator("#problem")).to_have_text(problem_words["started"])
        await expect(page.locator("#table")).to_be_visible()
