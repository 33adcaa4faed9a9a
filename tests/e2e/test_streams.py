"""Live player streams, delayed spectator streams, fan-out across instances."""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import httpx
import msgspec

from projections.envelopes import EventOut
from projections.export import format as export_format
from projections.export.receipted import check_receipts
from projections.notes import Verifier
from service.app.auth import Principal, issue
from service.config import Settings
from service.tools.bot import play_game
from service.tools.client import PlaylogClient
from tests.conftest import two_instances
from tests.e2e.conftest import Game, started_game
from tests.e2e.sse import read_events


def _auth(game: Game, seat: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {game.seats[seat].token}"}


async def _play_some(game: Game, moves: int, rng: random.Random) -> None:
    for _ in range(moves):
        views = [await game.view(s) for s in range(len(game.seats))]
        if views[0].status == "finished":
            return
        options = [(v.seat, c) for v in views for c in v.legal_commands if c["type"] != "Concede"]
        seat, command = rng.choice(options)
        await game.send(seat, command)


async def test_player_stream_is_live_redacted_and_resumable(server_url: str) -> None:
    async with httpx.AsyncClient(base_url=server_url) as http:
        api = PlaylogClient(server_url, http=http)
        game = await started_game(api, seed=11, reaction_window=0)
        version = (await game.view(0)).version
        path = f"/games/{game.id}/seats/0/stream"

        # Live: a stream opened now receives what is played after.
        reader = asyncio.create_task(read_events(http, path, until=version + 1, headers=_auth(game, 0)))
        await asyncio.sleep(0.3)
        await _play_some(game, 6, random.Random(1))
        live = await reader
        assert [m.id for m in live][:1] == [1]
        assert live[-1].id >= version + 1

        expected = await api.events(game.id, 0, game.seats[0].token)
        everything = await read_events(http, path, until=expected[-1].seq, headers=_auth(game, 0))
        assert [m.id for m in everything] == [e.seq for e in expected]
        assert [m.data["data"] for m in everything] == [e.data for e in expected]

        # Resume: after id k, exactly the events after k, none repeated.
        k = everything[len(everything) // 2].id
        resumed = await read_events(
            http, path, until=expected[-1].seq, headers={**_auth(game, 0), "Last-Event-ID": str(k)}
        )
        assert [m.id for m in resumed] == [e.seq for e in expected if e.seq > k]


async def test_player_stream_needs_the_seats_token(server_url: str) -> None:
    async with httpx.AsyncClient(base_url=server_url) as http:
        api = PlaylogClient(server_url, http=http)
        game = await started_game(api, seed=1, reaction_window=0)
        response = await http.get(f"/games/{game.id}/seats/0/stream")
        assert response.status_code == 401
        response = await http.get(f"/games/{game.id}/seats/0/stream", headers=_auth(game, 1))
        assert response.status_code == 403


def _hidden_fields(node: Any) -> list[str]:
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in {"draw_pile", "hands", "salt", "order", "bag"} and value not in (None, [], ()):
                if key == "hands" and all(h == [] for h in value):
                    continue
                found.append(key)
            found += _hidden_fields(value)
    elif isinstance(node, list):
        for value in node:
            found += _hidden_fields(value)
    return found


async def test_spectator_stream_holds_events_back_by_the_delay(server_url: str) -> None:
    delay = 2.0
    async with httpx.AsyncClient(base_url=server_url) as http:
        api = PlaylogClient(server_url, http=http)
        created = await api.create_game(
            "exploding_kittens", {"players": 2, "reaction_window": 0, "seed": 5}, spectator_delay=delay
        )
        seats = [await api.join(created.game_id, f"p{n}") for n in range(2)]
        await api.start(created.game_id, created.host_token)
        game = Game(api, created, seats)
        await _play_some(game, 5, random.Random(2))
        last = (await game.view(0)).version
        played_at = time.time()
        path = f"/games/{game.id}/spectate/stream"

        early = await read_events(http, path, until=last, timeout=delay / 4)
        assert early == [] or all(m.data["recorded_at"] + delay <= time.time() for m in early)

        messages = await read_events(http, path, until=last, timeout=delay + 10)
        assert [m.id for m in messages] == sorted({m.id for m in messages})
        assert messages[-1].id == last
        for message in messages:
            assert message.data["recorded_at"] + delay <= played_at + delay + 10
            assert _hidden_fields(message.data["data"]) == []
        lobby = [m.event for m in messages if m.event.startswith("lobby.")]
        assert lobby[:1] == ["lobby.created"]

        k = messages[len(messages) // 2].id
        resumed = await read_events(http, path, until=last, headers={"Last-Event-ID": str(k)})
        assert [m.id for m in resumed] == [m.id for m in messages if m.id > k]


async def test_spectator_id_from_the_future_gets_nothing_early(server_url: str) -> None:
    async with httpx.AsyncClient(base_url=server_url) as http:
        api = PlaylogClient(server_url, http=http)
        created = await api.create_game(
            "exploding_kittens", {"players": 2, "reaction_window": 0}, spectator_delay=60
        )
        path = f"/games/{created.game_id}/spectate/stream"
        messages = await read_events(http, path, count=1, timeout=1.0, headers={"Last-Event-ID": "999"})
        assert messages == []
        messages = await read_events(http, path, count=1, timeout=1.0)
        assert messages == []  # created a moment ago, shown only after 60 s


async def test_spectator_snapshot_is_the_state_of_delay_ago(server_url: str) -> None:
    async with httpx.AsyncClient(base_url=server_url) as http:
        api = PlaylogClient(server_url, http=http)
        created = await api.create_game(
            "exploding_kittens", {"players": 2, "reaction_window": 0}, spectator_delay=3600
        )
        for n in range(2):
            await api.join(created.game_id, f"p{n}")
        await api.start(created.game_id, created.host_token)
        snapshot = (await http.get(f"/games/{created.game_id}/spectate")).json()
        assert snapshot["version"] == 1
        assert snapshot["status"] == "open"
        assert snapshot["view"] is None
        assert snapshot["seats"] == [None, None]


async def test_private_games_have_no_spectators(server_url: str) -> None:
    async with httpx.AsyncClient(base_url=server_url) as http:
        api = PlaylogClient(server_url, http=http)
        created = await api.create_game("exploding_kittens", {"players": 2}, public=False)
        response = await http.get(f"/games/{created.game_id}/spectate")
        assert response.status_code == 403
        assert response.json()["code"] == "private_game"


async def test_a_command_through_one_instance_reaches_a_stream_on_another(settings: Settings) -> None:
    async with two_instances(settings) as (http_a, http_b):
        api_a = PlaylogClient(str(http_a.base_url), http=http_a)
        game = await started_game(api_a, seed=3, reaction_window=0)
        version = (await game.view(0)).version
        path = f"/games/{game.id}/seats/0/stream"
        reader = asyncio.create_task(
            read_events(http_b, path, until=version + 1, headers=_auth(game, 0), timeout=10)
        )
        await asyncio.sleep(0.5)
        active = await game.active()
        await game.send(active, {"type": "DrawCard"})
        messages = await reader
        assert messages and messages[-1].id >= version + 1


async def test_bot_game_streams_to_the_end(server_url: str) -> None:
    async with httpx.AsyncClient(base_url=server_url) as http:
        api = PlaylogClient(server_url, http=http)
        report = await play_game(api, "exploding_kittens", {"players": 3, "reaction_window": 0})
        assert report.finished
        summary = await api.game(report.game_id)
        # The spectator stream of a finished game ends by itself.
        messages = await read_events(http, f"/games/{report.game_id}/spectate/stream", timeout=20)
        assert messages[-1].id == summary.version


async def test_a_finished_games_stream_opened_again_gets_what_was_appended_since(server_url: str) -> None:
    async with httpx.AsyncClient(base_url=server_url) as http:
        api = PlaylogClient(server_url, http=http)
        game = await started_game(api, reaction_window=0)
        await api.leave(game.id, 1, game.seats[1].token)  # the game is over
        path = f"/games/{game.id}/spectate/stream"
        ended = await read_events(http, path)  # to its end; the instance keeps the feed a while
        dispute = {"seqs": [1], "category": "rules", "reason": "too fast"}
        raised = await http.post(f"/games/{game.id}/disputes", json=dispute, headers=_auth(game, 1))
        assert raised.status_code == 201, raised.text
        again = await read_events(http, path, headers={"Last-Event-ID": str(ended[-1].id)})
        assert [m.event for m in again] == ["dispute.raised"]


async def _stream_with_receipts(
    http: httpx.AsyncClient, path: str, headers: dict[str, str], until: int
) -> list[tuple[list[EventOut], str]]:
    """Each receipt of a seat's stream with the events written since the one before, up to the
    receipt that follows the event numbered ``until``."""
    batches: list[tuple[list[EventOut], str]] = []
    events: list[EventOut] = []

    async def consume() -> None:
        async with http.stream("GET", path, headers=headers, timeout=None) as response:
            assert response.status_code == 200
            fields: dict[str, str] = {}
            async for line in response.aiter_lines():
                if line.startswith(":"):
                    continue
                if line:
                    key, _, value = line.partition(":")
                    fields[key] = value.removeprefix(" ")
                    continue
                if fields.get("event") == "receipt":
                    assert "id" not in fields  # resuming is not moved by a receipt
                    batches.append((events.copy(), json.loads(fields["data"])["receipt"]))
                    events.clear()
                    if batches[-1][0] and batches[-1][0][-1].seq >= until:
                        return
                elif "data" in fields:
                    events.append(msgspec.json.decode(fields["data"], type=EventOut))
                fields = {}

    await asyncio.wait_for(consume(), 20)
    return batches


async def test_a_seat_s_stream_carries_receipts_of_what_it_wrote(server_url: str, settings: Settings) -> None:
    """docs/receipts.md: after each batch of events, a ``receipt`` message signs them in the
    seat's own numbering; the Python client checks each against the events streamed, and the
    game's export holds every one."""
    async with httpx.AsyncClient(base_url=server_url) as http:
        api = PlaylogClient(server_url, http=http)
        game = await started_game(api, seed=11, reaction_window=0)
        path = f"/games/{game.id}/seats/0/stream"
        version = (await game.view(0)).version
        opened = asyncio.create_task(_stream_with_receipts(http, path, _auth(game, 0), version + 1))
        await asyncio.sleep(0.3)
        await _play_some(game, 6, random.Random(1))
        mine = await api.events(game.id, 0, game.seats[0].token)
        batches = await opened
        assert len(batches) >= 2  # the catch-up, then each command's batch
        kept = []
        for events, text in batches:
            receipt = await api.check_receipt(
                text,
                game_id=game.id,
                seat=0,
                version=events[-1].seq,
                events=events,
                fingerprint=None,
                key=None,
            )
            assert receipt.fingerprint is None and receipt.before < events[0].seq
            kept.append(text)
        streamed = [e for events, _ in batches for e in events]
        assert [e.seq for e in streamed] == [e.seq for e in mine][: len(streamed)]  # the seat's numbers
        moderator = {
            "Authorization": f"Bearer {issue(settings.keyring(), Principal(role='moderator', name='m'), 60)}"
        }
        asked = await http.get(f"/games/{game.id}/export", params={"reason": "incident"}, headers=moderator)
        assert asked.status_code == 200, asked.text
        keys = [Verifier.parse(k) for k in (await http.get("/log/keys")).json()["log_keys"]]
        checked = check_receipts(export_format.read(asked.text.splitlines()), kept, keys)
        assert (checked.checked, checked.failure) == (len(kept), None)
