"""The guessing game served by the real app over HTTP, registered for this test only.

The game is registered by one line, ``registry.serving(DECIDER)``, for the test's length. A private
note (``Mark``) is numbered for its seat alone (RULES 3): the other seat's numbers show no gap.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from domain import registry
from service.tools.client import PlaylogClient
from tests.games.guessing import DECIDER


@pytest.fixture
def registered() -> Iterator[None]:
    with registry.serving(DECIDER):
        yield


@pytest.fixture
async def served(registered: None, api: PlaylogClient) -> AsyncIterator[PlaylogClient]:
    yield api


async def test_the_app_serves_a_game_it_learns_by_one_line_and_numbers_a_private_note_for_its_seat_alone(
    served: PlaylogClient,
) -> None:
    api = served
    created = await api.create_game(DECIDER.kind, {"players": 2, "first_seat": 0}, spectator_delay=0)
    seats = [await api.join(created.game_id, f"p{n}") for n in range(created.seats)]
    await api.start(created.game_id, created.host_token)
    mine = await api.view(created.game_id, 0, seats[0].token)
    assert mine.view is not None and mine.view["card"] is not None
    assert {"type": "Swap"} in mine.view["legal_commands"]

    before = [e.seq for e in await api.events(created.game_id, 1, seats[1].token)]
    await api.send(created.game_id, 0, seats[0].token, {"type": "Mark", "value": 3})
    await api.send(created.game_id, 0, seats[0].token, {"type": "Swap"})

    theirs = await api.events(created.game_id, 1, seats[1].token)
    assert [e.seq for e in theirs] == list(range(1, len(theirs) + 1))  # no gap where the note was
    assert "Marked" not in [e.type for e in theirs]
    swapped = next(e for e in theirs if e.type == "Swapped")
    assert swapped.data["given"] is None and swapped.data["taken"] is None  # redacted for seat 1
    assert len(theirs) == len(before) + 2  # the swap and the turn passing: not the note

    own = await api.events(created.game_id, 0, seats[0].token)
    assert [e.type for e in own][-3:] == ["Marked", "Swapped", "TurnPassed"]
    assert [e.seq for e in own] == list(range(1, len(own) + 1))


async def test_the_app_s_openapi_document_types_the_game_it_learns(served: PlaylogClient) -> None:
    document = (await served.http.get("/schema/openapi.json")).json()
    schemas = document["components"]["schemas"]
    assert DECIDER.kind in schemas["GameKind"]["enum"]
    assert {"GuessingCommand", "GuessingEvent", "GuessingView"} <= set(schemas)
