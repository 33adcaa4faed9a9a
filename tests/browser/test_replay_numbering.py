"""One numbering: a replay opened from a seat's page numbers and words every event exactly as that
seat's move log did (the seat's own numbers, RULES 3), even once the public game is over and a
face-up replay exists; no event type or raw JSON on it (issue 52)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import expect

from service.config import Settings
from service.tools.client import PlaylogClient
from tests.browser.conftest import assert_accessible
from tests.browser.pages import moderator_token

pytestmark = pytest.mark.integration

# Each move of the log: its number and its words.
LOG = "[...document.querySelectorAll('#feed li')].map(li => [li.value, li.textContent])"
RAW = re.compile(r"lobby\.|dispute\.|[{}\[\]]|\b[A-Z][a-z]+[A-Z][A-Za-z]+\b")  # a type or JSON


async def test_a_seats_replay_shows_its_logs_numbers_and_words_for_every_event(
    server_url: str, settings: Settings, new_page: Any
) -> None:
    async with PlaylogClient(server_url) as remote:
        # Seed 1, seat 0 first: alice's Skip, bob's Nope on it, each pass (private to its seat,
        # so the seats' numbers part from the log's), some draws, then bob leaves.
        created = await remote.create_game(
            "exploding_kittens",
            {"players": 2, "reaction_window": 600, "seed": 1, "first_seat": 0},
            public=True,
            spectator_delay=0,
        )
        tokens = [(await remote.join(created.game_id, name)).token for name in ("alice", "bob")]
        await remote.start(created.game_id, created.host_token)
        game_id = created.game_id
        await remote.send(game_id, 0, tokens[0], {"type": "PlayCard", "card": "Skip"})
        await remote.send(game_id, 1, tokens[1], {"type": "Nope", "chain_length": 0})
        for seat in (0, 1):
            view = await remote.view(game_id, seat, tokens[seat])
            if any(c["type"] == "PassReaction" for c in view.legal_commands):
                await remote.send(game_id, seat, tokens[seat], {"type": "PassReaction"})
        for seat in (0, 1):
            await remote.send(game_id, seat, tokens[seat], {"type": "DrawCard"})
        await remote.leave(game_id, 1, tokens[1])
        count = (await remote.view(game_id, 1, tokens[1])).version

    bob = await new_page()
    await bob.goto(f"{server_url}/play/{game_id}/1#token={tokens[1]}")
    await expect(bob.locator("#feed")).to_contain_text("alice is the last one standing and wins!")
    await expect(bob.locator("#feed")).to_contain_text("Your Nope cancelled alice's Skip")
    log = {number: words for number, words in await bob.evaluate(LOG)}
    assert max(log) <= count
    assert not RAW.search(" ".join(log.values()))

    await bob.get_by_role("link", name="Replay this game").click()
    await expect(bob.locator("#perspective")).to_contain_text("As bob (seat 1) saw it")
    at, said = bob.locator("#at"), bob.locator("#event p").first
    await bob.keyboard.press("Home")
    for number in range(1, count + 1):
        if number > 1:
            await bob.keyboard.press("ArrowRight")
        await expect(at).to_have_text(f"Move {number} of {count}")
        words = (await said.text_content()) or ""
        if number in log:
            assert words == log[number], (number, words, log[number])
        else:  # bookkeeping the log does not show
            assert words.startswith("Bookkeeping"), (number, words)
        assert not RAW.search(f"{words} · {await at.text_content()}"), (number, words)
    assert not RAW.search(await bob.locator("#replayer").inner_text())
    await assert_accessible(bob, "a seat's replay")

    # The moderator's replay keeps the log's seqs and shows bob's own number beside each: they
    # run 1..count in order, with a gap where the log holds what bob may not see (alice's pass).
    mod = await new_page()
    await mod.goto(f"{server_url}/moderate/{game_id}#token={moderator_token(settings)}")
    at = mod.locator("#at")
    await expect(at).to_contain_text("seats' numbers")
    total = int(await mod.locator("#seq").get_attribute("max") or "0")
    assert total > count
    await mod.keyboard.press("Home")
    numbers = []
    for seq in range(1, total + 1):
        if seq > 1:
            await mod.keyboard.press("ArrowRight")
        await expect(at).to_contain_text(f"(seq {seq})")
        found = re.search(r"bob \(seat 1\) (\d+|—)", await at.text_content() or "")
        assert found, await at.text_content()
        if found.group(1) != "—":
            numbers.append(int(found.group(1)))
    assert numbers == list(range(1, count + 1))
