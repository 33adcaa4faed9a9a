"""A seat's command computes each thing once on its path (docs/architecture.md, "The flow of a
command"): one table taken from the cache (the guard's, which the handler, the loop and the
``?view=true`` answer share), one decode of the body by the game's own decoder, one evolve per new
event, one check of the seat's holder, one look-up of the game's kind.

Counted over the real app with a profiler hook around one request: no function is replaced.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from types import CodeType, FrameType
from typing import Any

from litestar import Litestar
from litestar.testing import AsyncTestClient

from domain import registry
from domain.exploding_kittens import fold as exploding_kittens_fold
from domain.exploding_kittens import legal as exploding_kittens_legal
from domain.table import rules
from service.app.tables import Tables
from service.http.fast.lanes import Lane
from tests.e2e.conftest import Game


@contextmanager
def counting(
    http: AsyncTestClient[Litestar], codes: dict[CodeType, str], decoder: Any
) -> Iterator[Counter[str]]:
    """How many times each function of ``codes`` starts (a coroutine's resumptions are not new
    calls: counted once per frame), and ``decoder.decode`` is called, in the task that serves the
    request (the one its route's lane starts in), not in the app's background tasks. The app runs
    in the test client's portal thread: the hook is set there."""
    counts: Counter[str] = Counter()
    frames: set[int] = set()
    seen: list[FrameType] = []  # kept alive, so that no frame's id is reused meanwhile
    serving: list[asyncio.Task[Any] | None] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if not serving:
            if event != "call" or frame.f_code is not Lane.__call__.__code__:
                return
            serving.append(asyncio.current_task())
        if asyncio.current_task() is not serving[0]:
            return
        if event == "call" and (name := codes.get(frame.f_code)) is not None and id(frame) not in frames:
            frames.add(id(frame))
            seen.append(frame)
            counts[name] += 1
        elif event == "c_call" and getattr(arg, "__self__", None) is decoder and arg.__name__ == "decode":
            counts["decode"] += 1

    portal = http.blocking_portal
    portal.call(sys.setprofile, profile)
    try:
        yield counts
    finally:
        portal.call(sys.setprofile, None)


async def draw_with_view(http: AsyncTestClient[Litestar], game: Game, seat: int) -> Any:
    """The seat draws, asking for its view with the answer."""
    return await http.post(
        f"/games/{game.id}/seats/{seat}/commands?view=true",
        json={"type": "DrawCard"},
        headers={"Authorization": f"Bearer {game.seats[seat].token}"},
    )


async def test_a_seat_s_command_computes_each_thing_once(http: AsyncTestClient[Litestar], game: Game) -> None:
    seat = await game.active()
    await game.view(seat)  # the table is in the cache, as it is for a game being played
    games = http.app.state.games
    before = games.tables.latest(game.id).version
    codes = {
        Tables.latest.__code__: "table load",
        Tables.fold.__code__: "table load",
        exploding_kittens_fold.evolve.__code__: "evolve",
        rules.check_holder.__code__: "holder check",
        registry.of.__code__: "registry lookup",
    }
    with counting(http, codes, registry.of("exploding_kittens").commands.decoder) as counts:
        response = await draw_with_view(http, game, seat)
    assert response.status_code == 200, response.text
    assert response.json()["view"] is not None
    appended = games.tables.latest(game.id).version - before
    assert appended >= 1
    assert dict(counts) == {
        "table load": 1,
        "decode": 1,
        "evolve": appended,
        "holder check": 1,
        "registry lookup": 1,
    }


async def test_a_seat_s_answer_with_its_view_builds_its_legal_commands_once(
    http: AsyncTestClient[Litestar], game: Game
) -> None:
    """The view lists the seat's legal commands and the answer its moves: one list, built once."""
    seat = await game.active()
    await game.view(seat)
    codes = {exploding_kittens_legal.legal_commands.__code__: "legal commands"}
    with counting(http, codes, registry.of("exploding_kittens").commands.decoder) as counts:
        response = await draw_with_view(http, game, seat)
    assert response.status_code == 200, response.text
    assert counts["legal commands"] == 1
