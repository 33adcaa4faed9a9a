"""The move log's words as the pages say them (PL.describeMove, each game's page.js): plain words
for the seeds' events, what another seat's look at the future tells, "your" for the reader's own
tokens, A Risk Cat's powers explained where they are chosen (issue 52)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import expect

from service.tools.client import PlaylogClient

pytestmark = pytest.mark.integration

SAY = "([kind, event, me]) => PL.describeMove(kind, event, ['alice', 'bob', 'cy'], me)"


async def test_the_log_says_each_event_in_plain_words(server_url: str, new_page: Any) -> None:
    page = await new_page()
    await page.goto(f"{server_url}/")

    async def said(kind: str, type_: str, data: dict[str, Any], me: int | None = 0) -> str:
        text: str = await page.evaluate(SAY, [kind, {"type": type_, "data": data}, me])
        return text

    disclosed = await said("exploding_kittens", "lobby.seed_disclosed", {"seed": "ab" * 32})
    assert disclosed == "The server's seed is disclosed: anyone can now check every shuffle of this game"
    revealed = await said("exploding_kittens", "lobby.seed_revealed", {"seat": 1, "seed": "ab" * 32})
    assert revealed == "bob (seat 1)'s seed for the shuffles is revealed"
    # Another seat's look at the future: what the reader may know, never "saw the future:" alone.
    assert await said("exploding_kittens", "FutureSeen", {"seat": 1, "cards": []}) == (
        "bob looked at the top cards of the draw pile (up to three)"
    )
    assert await said("exploding_kittens", "FutureSeen", {"seat": 0, "cards": ["Skip", "Nope"]}) == (
        "You saw the future: Skip, Nope (top first)"
    )
    assert await said("a_risk_cat", "BankerReturned", {"seat": 0, "count": 3, "blocked": False}) == (
        "The Banker sends 3 of your tokens back into the bag"
    )
    assert await said("a_risk_cat", "BankerReturned", {"seat": 2, "count": 1, "blocked": False}) == (
        "The Banker sends 1 of cy's tokens back into the bag"
    )


async def test_a_risk_cats_powers_are_explained_where_they_are_chosen(server_url: str, new_page: Any) -> None:
    # Seed 4, full game, five players: ann's second token (a Fortune Teller) does nothing yet, so
    # play until some seat is offered a choice a power (or a steal) asks for.
    async with PlaylogClient(server_url) as remote:
        created = await remote.create_game(
            "a_risk_cat", {"players": 3, "first_seat": 0, "seed": 4, "mode": "full"}, public=False
        )
        tokens = [(await remote.join(created.game_id, name)).token for name in ("ann", "ben", "cy")]
        await remote.start(created.game_id, created.host_token)
        chooser = None
        for _ in range(300):
            views = [await remote.view(created.game_id, s, tokens[s]) for s in range(3)]
            seat, legal = next((s, v.legal_commands) for s, v in enumerate(views) if v.legal_commands)
            types = {c["type"] for c in legal}
            if types - {"DrawToken", "StopAndStack", "Concede"}:
                chooser = seat
                break
            wanted = (
                "StopAndStack"
                if "StopAndStack" in types and len(views[seat].view["turn_tokens"]) >= 2
                else "DrawToken"
            )
            await remote.send(
                created.game_id, seat, tokens[seat], next(c for c in legal if c["type"] == wanted)
            )
    assert chooser is not None, "no power nor steal came up"
    page = await new_page()
    await page.goto(f"{server_url}/play/{created.game_id}/{chooser}#token={tokens[chooser]}")
    help_ = page.locator("#commands .power-help")
    await expect(help_.first).to_be_visible()
    assert await help_.count() == len(set(await help_.all_text_contents()))  # each help said once
