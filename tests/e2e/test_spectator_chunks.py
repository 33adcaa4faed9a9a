"""The delayed public view as chunks and a head (service/views/chunks.py): full released chunks only,
immutable, chained from the game's genesis in the spectators' own numbering, the same events as
the spectators' stream; nothing of a private game or before release."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from projections.chunks import CHUNK_EVENTS, genesis, verify
from service.tools.bot import pick
from service.tools.client import CreatedGame, JoinedSeat, PlaylogClient
from tests.e2e.examples import recording_hooks
from tests.e2e.sse import read_events

EK = {"players": 2, "reaction_window": 0, "seed": 11}


@pytest.fixture
async def http(server_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A real HTTP client of a live server: the spectators' stream is read to compare."""
    hooks = {"response": recording_hooks()}  # make examples: the chunks' answers
    async with httpx.AsyncClient(base_url=server_url, timeout=30, event_hooks=hooks) as client:
        yield client


@pytest.fixture
def api(http: httpx.AsyncClient) -> PlaylogClient:
    return PlaylogClient(str(http.base_url), http=http)


async def _played(
    api: PlaylogClient, *, delay: float, public: bool = True, commands: int = 30, player: str | None = None
) -> tuple[CreatedGame, list[JoinedSeat]]:
    """A game of two bots, ``commands`` commands in (or to its end); with ``player``, a player
    token, seat 0 is that player's."""
    created = await api.create_game("exploding_kittens", EK, public=public, spectator_delay=delay)
    first = (
        await api.join(created.game_id, player_token=player)
        if player
        else await api.join(created.game_id, "p0")
    )
    seats = [first, await api.join(created.game_id, "p1")]
    await api.start(created.game_id, created.host_token)
    rng = random.Random(5)
    for _ in range(commands):
        views = [await api.view(created.game_id, s.seat, s.token) for s in seats]
        if views[0].status == "finished":
            break
        choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
        view, command = rng.choice(choices)
        await api.send(created.game_id, view.seat, seats[view.seat].token, command)
    return created, seats


async def _chain(http: httpx.AsyncClient, game_id: uuid.UUID) -> tuple[dict[str, Any], list[str]]:
    """The head and every released event's text, each chunk and the tail checked against the chain."""
    head = (await http.get(f"/games/{game_id}/spectate/head")).json()
    prev = genesis(game_id)
    texts: list[str] = []
    tail = head["tail"]
    assert tail["start"] == max(head["chunks"] - 1, 0) * CHUNK_EVENTS + 1  # the last full chunk's first
    for k in range(head["chunks"]):
        start, end = k * CHUNK_EVENTS + 1, (k + 1) * CHUNK_EVENTS
        response = await http.get(f"/games/{game_id}/spectate/chunks/{start}-{end}")
        assert response.status_code == 200
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
        chunk = response.json()
        assert (chunk["start"], chunk["end"], chunk["prev"]) == (start, end, prev.hex())
        if start == tail["start"]:  # the tail repeats the last full chunk, the same events
            assert (tail["prev"], tail["events"][:CHUNK_EVENTS]) == (prev.hex(), chunk["events"])
            assert verify(prev, tail["events"], tail["hashes"]).hex() == head["head"]
        prev = verify(prev, chunk["events"], chunk["hashes"])
        texts += chunk["events"]
    if head["chunks"] == 0:
        assert verify(prev, tail["events"], tail["hashes"]).hex() == head["head"]
    return head, texts + tail["events"][CHUNK_EVENTS if head["chunks"] else 0 :]


async def test_chunks_and_tail_chain_to_the_head_and_hold_the_spectators_stream(
    api: PlaylogClient, http: httpx.AsyncClient
) -> None:
    created, _ = await _played(api, delay=0)
    head, texts = await _chain(http, created.game_id)
    assert head["chunks"] >= 2 and head["released"] == len(texts) == head["summary"]["version"]
    events = [json.loads(text) for text in texts]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # spectators' numbering
    stream = await read_events(http, f"/games/{created.game_id}/spectate/stream", until=len(events))
    assert [(m.id, m.event, m.data) for m in stream] == [(e["seq"], e["type"], e) for e in events]
    dealt = [e["data"] for e in events if "hands" in e["data"]]
    assert dealt and all(hand == [] for data in dealt for hand in data["hands"])  # redacted


async def test_a_chunk_kept_from_before_an_erasure_chains_to_the_chunks_served_after_it(
    api: PlaylogClient, http: httpx.AsyncClient
) -> None:
    """A cache keeps the first chunk, with a player's name; the player is erased and the origin
    serves the pseudonym instead: the links cover the name sealed, so the kept chunk and the
    chunks and head served after the erasure verify as one chain."""
    player = await api.create_player("Ada Lovelace")
    created, _ = await _played(api, delay=0, player=player.token)
    first = (await http.get(f"/games/{created.game_id}/spectate/chunks/1-{CHUNK_EVENTS}")).json()
    assert any("Ada Lovelace" in text for text in first["events"])
    erased = await http.delete(
        "/players/me", params={"erase": "true"}, headers={"Authorization": f"Bearer {player.token}"}
    )
    assert erased.status_code == 200, erased.text
    span = f"{CHUNK_EVENTS + 1}-{2 * CHUNK_EVENTS}"
    second = (await http.get(f"/games/{created.game_id}/spectate/chunks/{span}")).json()
    kept = verify(genesis(created.game_id), first["events"], first["hashes"])
    assert second["prev"] == kept.hex()
    verify(kept, second["events"], second["hashes"])
    _, texts = await _chain(http, created.game_id)  # all of it as served now: the pseudonym
    assert not any("Ada Lovelace" in text for text in texts)
    assert any(erased.json()["pseudonym"] in text for text in texts[:CHUNK_EVENTS])
    again = (await http.get(f"/games/{created.game_id}/spectate/chunks/1-{CHUNK_EVENTS}")).json()
    assert again["hashes"] == first["hashes"] and again["events"] != first["events"]


async def test_the_head_is_short_lived_with_an_etag_and_answers_304_when_unchanged(
    api: PlaylogClient, http: httpx.AsyncClient
) -> None:
    created, _ = await _played(api, delay=0, commands=3)
    first = await http.get(f"/games/{created.game_id}/spectate/head")
    assert first.headers["cache-control"] == "public, max-age=1"
    etag = first.headers["etag"]
    again = await http.get(f"/games/{created.game_id}/spectate/head", headers={"If-None-Match": etag})
    assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", etag)
    stale = await http.get(f"/games/{created.game_id}/spectate/head", headers={"If-None-Match": '"x"'})
    assert stale.status_code == 200 and stale.content == first.content


async def test_nothing_within_the_delay_is_published_however_many_events_exist(
    api: PlaylogClient, http: httpx.AsyncClient
) -> None:
    created, seats = await _played(api, delay=600)
    own = await api.events(created.game_id, 0, seats[0].token)
    assert len(own) > 2 * CHUNK_EVENTS  # two full chunks exist in the log, none is released
    head = (await http.get(f"/games/{created.game_id}/spectate/head")).json()
    assert (head["released"], head["chunks"], head["tail"]["events"]) == (0, 0, [])
    assert head["head"] == genesis(created.game_id).hex()
    assert head["summary"]["status"] == "open"
    unknown = await http.get(f"/games/{uuid.uuid4()}/spectate/chunks/1-16")
    for span in ("1-16", "17-32"):
        early = await http.get(f"/games/{created.game_id}/spectate/chunks/{span}")
        assert (early.status_code, early.headers["cache-control"]) == (404, "public, max-age=1")
        assert early.json()["code"] == "not_published"
        assert early.json()["detail"] == unknown.json()["detail"]


async def test_a_private_game_publishes_nothing_and_answers_as_an_unknown_game(
    api: PlaylogClient, http: httpx.AsyncClient
) -> None:
    created, _ = await _played(api, delay=0, public=False)
    unknown = uuid.uuid4()
    for path in ("head", "chunks/1-16"):
        private = await http.get(f"/games/{created.game_id}/spectate/{path}")
        absent = await http.get(f"/games/{unknown}/spectate/{path}")
        assert (private.status_code, private.headers["cache-control"]) == (404, "public, max-age=1")
        assert private.json()["code"] == absent.json()["code"] == "not_published"
        assert private.json()["detail"] == absent.json()["detail"]


async def test_only_whole_chunk_ranges_exist(api: PlaylogClient, http: httpx.AsyncClient) -> None:
    created, _ = await _played(api, delay=0)
    assert (await http.get(f"/games/{created.game_id}/spectate/chunks/1-16")).status_code == 200
    for span in ("2-17", "1-15", "1-32", "0-15", "17-16"):
        response = await http.get(f"/games/{created.game_id}/spectate/chunks/{span}")
        assert (response.status_code, response.json()["code"]) == (404, "not_published")
