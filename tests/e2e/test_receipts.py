"""Signed receipts (docs/receipts.md) on a seat's commands, over the real app: the client checks
and keeps them, a retry gets the same one, and they speak in the seat's own numbering."""

from __future__ import annotations

import base64
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections import receipts
from projections.notes import Verifier
from service.app.idempotency import fingerprint
from service.tools.client import PlaylogClient, ReceiptRefused
from tests.e2e.conftest import Game
from tests.e2e.dealt import dealt_game, legal, then

EK = "exploding_kittens"


def _action(state: Any, seat: int) -> dict[str, Any]:
    """The first action card ``seat`` may play without a target (one that opens a Nope window)."""
    return next(c for c in legal(EK, state, seat) if c["type"] == "PlayCard" and c.get("target") is None)


def _the_actor_plays_is_passed_and_draws_within_three_turns(state: Any) -> bool:
    actor = state.active_seat
    state = then(EK, state, actor, _action(state, actor))
    state = then(EK, state, 1 - actor, {"type": "PassReaction"})
    for _ in range(3):
        seat = state.active_seat
        state = then(EK, state, seat, {"type": "DrawCard"})
        if seat == actor:
            return True
    return False


def _the_active_seat_holds_an_action_card(state: Any) -> bool:
    return bool(_action(state, state.active_seat))


async def log_keys(http: AsyncTestClient[Litestar]) -> list[Verifier]:
    return [Verifier.parse(k) for k in (await http.get("/log/keys")).json()["log_keys"]]


async def test_a_command_s_answer_carries_a_receipt_the_client_checks_and_keeps(
    api: PlaylogClient, http: AsyncTestClient[Litestar], game: Game
) -> None:
    seat = await game.active()
    result = await game.send(seat, {"type": "DrawCard"}, idempotency_key="draw-1")
    assert result.receipt is not None and api.receipts == [result.receipt]
    receipt = receipts.verify(result.receipt, await log_keys(http)).receipt
    body = msgspec.json.encode({"type": "DrawCard"})
    assert (receipt.game_id, receipt.seat, receipt.after) == (game.id, seat, (await game.view(seat)).version)
    assert receipt.before == result.events[0].seq - 1
    assert (receipt.key, receipt.fingerprint) == ("draw-1", fingerprint("sendCommand", (game.id, seat), body))
    assert receipt.events == receipts.events_digest([(e.seq, e.type, e.data) for e in result.events])

    # A retry is answered as the first request was, receipt included, byte for byte.
    again = await game.send(seat, {"type": "DrawCard"}, idempotency_key="draw-1")
    assert again.receipt == result.receipt

    # A receipt altered by one character no longer verifies; one of another answer is refused.
    altered = result.receipt.replace(f"seat {seat}\n", f"seat {1 - seat}\n")
    with pytest.raises(receipts.ReceiptError):
        receipts.verify(altered, await log_keys(http))
    with pytest.raises(ReceiptRefused, match="another command"):
        await api.check_receipt(
            result.receipt,
            game_id=game.id,
            seat=seat,
            version=result.version,
            events=result.events,
            fingerprint=fingerprint("sendCommand", (game.id, seat), b"{}"),
            key="draw-1",
        )


async def test_a_receipt_speaks_in_the_seat_s_own_numbering(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str], database_url: str
) -> None:
    """A pass is known to its seat alone (RULES 1.7): the other seat's receipts count without it,
    never in the log's seqs."""
    options = {"players": 2, "reaction_window": 30}
    wish = _the_actor_plays_is_passed_and_draws_within_three_turns
    game = await dealt_game(api, http, moderator, EK, options, wish)
    actor = await game.active()
    view = await game.view(actor)
    assert view.view is not None
    play = next(c for c in view.view["legal_commands"] if c["type"] == "PlayCard" and c.get("target") is None)
    await game.send(actor, play, idempotency_key="play")
    passed = await game.send(1 - actor, {"type": "PassReaction"}, idempotency_key="pass")
    keys = await log_keys(http)
    assert passed.receipt is not None
    assert receipts.verify(passed.receipt, keys).receipt.after == (await game.view(1 - actor)).version
    drawn = None
    for turn in range(3):  # until the actor draws
        seat = await game.active()
        drawn = await game.send(seat, {"type": "DrawCard"}, idempotency_key=f"draw-{turn}")
        if seat == actor:
            break
    assert drawn is not None and drawn.receipt is not None
    receipt = receipts.verify(drawn.receipt, keys).receipt
    conn = await asyncpg.connect(database_url)
    try:
        seq = await conn.fetchval("SELECT seq FROM streams WHERE game_id = $1", game.id)
    finally:
        await conn.close()
    assert receipt.seat == actor and receipt.after == (await game.view(actor)).version
    assert receipt.after == seq - 1  # the pass is not in the actor's numbering


async def test_the_event_list_carries_a_receipt_that_no_hidden_event_changes(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    """RULES 3: a pass is known to its seat alone, so the other seats' receipts of their event
    list are the same before and after it; the receipt commits to the head at the last event the
    seat may know of."""
    options = {"players": 3, "reaction_window": 30}
    game = await dealt_game(api, http, moderator, EK, options, _the_active_seat_holds_an_action_card)
    actor = await game.active()
    view = await game.view(actor)
    assert view.view is not None
    play = next(c for c in view.view["legal_commands"] if c["type"] == "PlayCard" and c.get("target") is None)
    await game.send(actor, play, idempotency_key="play")
    watcher, passer = [s for s in range(3) if s != actor]
    token = game.seats[watcher].token
    events = await api.events(game.id, watcher, token)
    before = api.receipts[-1]
    assert receipts.verify(before, await log_keys(http)).receipt.after == events[-1].seq
    await game.send(passer, {"type": "PassReaction"}, idempotency_key="pass")
    assert await api.events(game.id, watcher, token) == events
    assert api.receipts[-1] == before  # the pass left no trace in the watcher's receipt
    tail = await api.events(game.id, watcher, token, after=events[-1].seq)
    assert (
        tail == []
        and receipts.verify(api.receipts[-1], await log_keys(http)).receipt.before == events[-1].seq
    )
    response = await http.get(
        f"/games/{game.id}/seats/{watcher}/events", headers={"Authorization": f"Bearer {token}"}
    )
    assert base64.b64decode(response.headers["playlog-receipt"]).decode() == before
