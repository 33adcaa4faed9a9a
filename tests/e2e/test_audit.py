"""Moderator replay and audit: state at every seq, diffs, transcript, chain and shuffle proofs."""

from __future__ import annotations

import random
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections import table as tables
from projections.replay import snapshot
from service.app.auth import Principal, issue
from service.config import Settings
from service.store.events import EventStore
from service.tools.bot import play_game
from service.tools.client import PlaylogClient
from tests.e2e.conftest import started_game
from tests.e2e.pages import follow


@pytest.fixture
def moderator(settings: Settings) -> dict[str, str]:
    return {
        "Authorization": f"Bearer {issue(settings.keyring(), Principal(role='moderator', name='mod'), 3600)}"
    }


async def _finished_game(api: PlaylogClient, players: int = 3) -> Any:
    report = await play_game(
        api, "exploding_kittens", {"players": players, "reaction_window": 0}, rng=random.Random(players)
    )
    assert report.finished
    return report.game_id


async def test_state_at_every_seq_equals_folding_the_log_to_that_seq(
    api: PlaylogClient, http: AsyncTestClient[Litestar], store: EventStore, moderator: dict[str, str]
) -> None:
    game_id = await _finished_game(api)
    log = await store.read(game_id)
    table = None
    for stored in log:
        table = tables.evolve(
            table,
            tables.decode(table.kind if table else None, stored.type, stored.data, stored.schema_version),
        )
        served = (
            await http.get(f"/games/{game_id}/audit/state", params={"at": stored.seq}, headers=moderator)
        ).json()
        assert served["seq"] == stored.seq
        assert served["state"] == msgspec.json.decode(msgspec.json.encode(snapshot(table)))
    last = (await http.get(f"/games/{game_id}/audit/state", headers=moderator)).json()
    assert last["seq"] == len(log)
    beyond = await http.get(f"/games/{game_id}/audit/state", params={"at": len(log) + 1}, headers=moderator)
    assert beyond.status_code == 404 and beyond.json()["code"] == "seq_out_of_range"


async def test_diffs_and_full_log_cover_every_event(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    game_id = await _finished_game(api, players=2)
    log = (await http.get(f"/games/{game_id}/audit/log", headers=moderator)).json()
    diffs = (await http.get(f"/games/{game_id}/audit/diffs", headers=moderator)).json()
    assert [e["seq"] for e in log] == [d["seq"] for d in diffs] == list(range(1, len(log) + 1))
    dealt = next(e for e in log if e["type"] == "DeckDealt")
    assert dealt["data"]["draw_pile"] and dealt["data"]["salt"]  # hidden cards face up
    assert all(d["changes"] for d in diffs if d["type"] != "ReactionPassed")


async def test_the_log_and_its_diffs_read_in_pages_are_the_whole_reads_cut(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str], pool: asyncpg.Pool
) -> None:
    game_id = await _finished_game(api, players=2)
    base = f"/games/{game_id}/audit"
    whole = {what: (await http.get(f"{base}/{what}", headers=moderator)).json() for what in ("log", "diffs")}
    count = len(whole["log"])
    before = await pool.fetchval("SELECT count(*) FROM access_records WHERE game_id = $1", game_id)
    for what in ("log", "diffs"):
        pages: list[Any] = []
        for after in range(0, count, 7):
            page = await http.get(f"{base}/{what}", params={"after": after, "limit": 7}, headers=moderator)
            assert page.status_code == 200, page.text
            pages.extend(page.json())
        assert pages == whole[what]
        beyond = await http.get(f"{base}/{what}", params={"after": count}, headers=moderator)
        assert beyond.json() == []
    ranges = await pool.fetch(
        "SELECT operation, seq_from, seq_to FROM access_records WHERE game_id = $1 AND n > $2 ORDER BY n",
        game_id,
        before,
    )
    pages_at = range(0, count, 7)
    # A page of the log shows its events; a page of changes, like a state, everything before it.
    assert [tuple(r) for r in ranges] == [
        *(("auditLog", after + 1, min(after + 7, count)) for after in pages_at),
        *(("auditDiffs", 1, min(after + 7, count)) for after in pages_at),
    ]
    for query, code in (({"limit": 0}, "invalid_limit"), ({"after": -1}, "invalid_after")):
        refused = await http.get(f"{base}/log", params=query, headers=moderator)
        assert (refused.status_code, refused.json()["code"]) == (400, code)


async def test_the_log_and_its_diffs_followed_by_their_links_give_every_event_once_as_the_game_goes_on(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    game = await started_game(api, reaction_window=0, seed=1, first_seat=0)
    moves = [(0, {"type": "DrawCard"}), (1, {"type": "DrawCard"})]

    async def play_one() -> None:  # the game goes on while the moderator pages
        if moves:
            await game.send(*moves.pop(0))

    for what in ("log", "diffs"):
        url = f"/games/{game.id}/audit/{what}?limit=3&reason=incident"
        pages = await follow(http, url, lambda body: body, headers=moderator, between=play_one)
        whole = (await http.get(url.replace("limit=3", "limit=1000"), headers=moderator)).json()
        assert [e for p in pages for e in p] == whole
        assert [e["seq"] for e in whole] == list(range(1, len(whole) + 1))
        assert all(len(p) == 3 for p in pages[:-1]) and len(pages) > 2


async def test_a_seats_events_read_in_pages_are_its_whole_read_cut(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    game = await started_game(api, reaction_window=0, seed=1, first_seat=0)
    await game.send(0, {"type": "DrawCard"})
    await game.send(1, {"type": "DrawCard"})
    headers = {"Authorization": f"Bearer {game.seats[1].token}"}
    url = f"/games/{game.id}/seats/1/events"
    whole = (await http.get(url, headers=headers)).json()
    pages: list[Any] = []
    for after in range(0, len(whole), 2):
        pages.extend((await http.get(url, params={"after": after, "limit": 2}, headers=headers)).json())
    assert pages == whole and len(whole) > 4
    # Followed by its Link headers while the game goes on: each of the seat's events once, in its
    # own numbering (a full page links on; the link's `after` is the seat's number, not the log's).
    moves = [(0, {"type": "DrawCard"}), (1, {"type": "DrawCard"})]

    async def play_one() -> None:
        if moves:
            await game.send(*moves.pop(0))

    followed = await follow(http, f"{url}?limit=2", lambda body: body, headers=headers, between=play_one)
    now = (await http.get(url, headers=headers)).json()
    assert [e for p in followed for e in p] == now and len(now) > len(whole)
    assert [e["seq"] for e in now] == list(range(1, len(now) + 1))
    refused = await http.get(url, params={"limit": 0}, headers=headers)
    assert (refused.status_code, refused.json()["code"]) == (400, "invalid_limit")


async def test_the_log_gives_each_seats_own_number_beside_its_seq(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    # A Skip, a Nope on it and each seat's pass (private to that seat): the numberings part.
    game = await started_game(api, reaction_window=600, seed=1, first_seat=0)
    await game.send(0, {"type": "PlayCard", "card": "Skip"})
    await game.send(1, {"type": "Nope", "chain_length": 0})
    for seat in (0, 1):
        view = await api.view(game.id, seat, game.seats[seat].token)
        if any(c["type"] == "PassReaction" for c in view.legal_commands):
            await game.send(seat, {"type": "PassReaction"})
    await game.send(0, {"type": "DrawCard"})
    log = (
        await http.get(f"/games/{game.id}/audit/log", params={"reason": "incident"}, headers=moderator)
    ).json()
    for seat in (0, 1):
        headers = {"Authorization": f"Bearer {game.seats[seat].token}"}
        own = (await http.get(f"/games/{game.id}/seats/{seat}/events", headers=headers)).json()
        numbered = [(e["seat_numbers"][seat], e["type"]) for e in log if e["seat_numbers"][seat] is not None]
        assert numbered == [(e["seq"], e["type"]) for e in own]
    assert any(None in e["seat_numbers"] for e in log)  # a pass only its seat numbers


async def test_transcript_names_every_card(
    api: PlaylogClient, http: AsyncTestClient[Litestar], store: EventStore, moderator: dict[str, str]
) -> None:
    game_id = await _finished_game(api)
    text = (await http.get(f"/games/{game_id}/audit/transcript", headers=moderator)).text
    log = await store.read(game_id)
    assert len([line for line in text.splitlines() if line.startswith("#") and line[1].isdigit()]) == len(log)
    dealt = msgspec.json.decode(next(e.data for e in log if e.type == "DeckDealt"))
    for card in {c for hand in dealt["hands"] for c in hand} | set(dealt["draw_pile"]):
        assert card in text
    assert "DeckDealt" in text and "ExplodingKittensWon" in text


async def test_players_get_their_own_redacted_transcript(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2, "reaction_window": 0, "seed": 4})
    seats = [await api.join(created.game_id, f"p{n}") for n in range(2)]
    await api.start(created.game_id, created.host_token)
    path = f"/games/{created.game_id}/seats/0/transcript"
    headers = {"Authorization": f"Bearer {seats[0].token}"}
    assert (await http.get(path, headers=headers)).json()["code"] == "game_not_finished"
    await api.leave(created.game_id, 1, seats[1].token)
    text = (await http.get(path, headers=headers)).text
    assert "DeckDealt" in text and "draw_pile=" not in text and "salt=" not in text


async def test_audit_needs_a_moderator_until_a_public_game_is_over(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2, "reaction_window": 0})
    assert (await http.get(f"/games/{created.game_id}/audit/log")).status_code == 401
    unexplained = await http.get(f"/games/{created.game_id}/audit/log", headers=moderator)
    assert unexplained.status_code == 403 and unexplained.json()["code"] == "access_reason_required"
    explained = await http.get(
        f"/games/{created.game_id}/audit/log", params={"reason": "incident"}, headers=moderator
    )
    assert explained.status_code == 200
    game_id = await _finished_game(api, players=2)  # public, spectator delay 0
    assert (await http.get(f"/games/{game_id}/audit/log")).status_code == 200


async def test_tampered_log_is_reported_at_the_first_bad_seq(
    api: PlaylogClient, http: AsyncTestClient[Litestar], pool: asyncpg.Pool, moderator: dict[str, str]
) -> None:
    game_id = await _finished_game(api, players=2)
    assert (await http.get(f"/games/{game_id}/audit/verify", headers=moderator)).json()["ok"]
    async with pool.acquire() as conn:  # a superuser bypassing the guard
        await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        await conn.execute(
            "UPDATE events SET metadata = jsonb_set(metadata, '{actor}', '\"seat:9\"')"
            " WHERE game_id = $1 AND seq = 7",
            game_id,
        )
        await conn.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
    report = (await http.get(f"/games/{game_id}/audit/verify", headers=moderator)).json()
    assert report["ok"] is False
    assert report["first_bad_seq"] == 7


async def test_shuffle_commitments_verify_and_an_altered_deck_fails(
    api: PlaylogClient, http: AsyncTestClient[Litestar], pool: asyncpg.Pool, moderator: dict[str, str]
) -> None:
    game_id = await _finished_game(api, players=4)
    audit = (await http.get(f"/games/{game_id}/audit", headers=moderator)).json()
    assert audit["chain"]["ok"] and audit["shuffles_valid"]
    assert audit["shuffles"][0]["type"] == "DeckDealt"
    async with pool.acquire() as conn:
        data = msgspec.json.decode(
            await conn.fetchval("SELECT data FROM events WHERE game_id = $1 AND type = 'DeckDealt'", game_id)
        )
        pile = data["draw_pile"]
        # Swap the top card with the first card below it that differs (two equal cards swapped
        # would change nothing, and the test would prove nothing).
        other = next(i for i, card in enumerate(pile) if card != pile[0])
        pile[0], pile[other] = pile[other], pile[0]
        await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        await conn.execute(
            "UPDATE events SET data = $2::jsonb WHERE game_id = $1 AND type = 'DeckDealt'",
            game_id,
            msgspec.json.encode(data).decode(),
        )
        await conn.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
    audit = (await http.get(f"/games/{game_id}/audit", headers=moderator)).json()
    dealt = audit["shuffles"][0]
    assert not dealt["valid"]
    assert not audit["shuffles_valid"]
    assert not audit["chain"]["ok"]
