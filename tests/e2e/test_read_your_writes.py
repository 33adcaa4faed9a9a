"""Read your writes on every instance: a seat's command acknowledged by one instance is in the
seat's view, events and stream at once on another, when the seat names the version it was given
(``min_version``, docs/api.md "Read your writes"). The other instance hears of the command by a
notification tens of milliseconds later: every read here comes before it could have."""

from __future__ import annotations

import random
import uuid

import httpx

from service.config import Settings
from service.http.api.problems import RACES
from service.tools.bot import pick
from service.tools.client import ApiError, PlaylogClient
from tests.conftest import two_instances
from tests.e2e.conftest import Game, started_game

PAIRS = 1000
STREAM_EVERY = 50  # a stream costs a connection: one pair in so many also opens one


async def _first_event_id(http: httpx.AsyncClient, game: Game, seat: int, version: int) -> int:
    """The id of the first event the seat's stream sends, opened after ``version - 1``."""
    async with http.stream(
        "GET",
        f"/games/{game.id}/seats/{seat}/stream",
        params={"after": version - 1, "min_version": version},
        headers={"Authorization": f"Bearer {game.seats[seat].token}"},
        timeout=30,
    ) as answer:
        assert answer.status_code == 200
        async for line in answer.aiter_lines():
            if line.startswith("id: "):
                return int(line.removeprefix("id: "))
    raise AssertionError("the stream ended before any event")


async def test_a_seat_reads_its_own_command_on_the_other_instance_every_time(settings: Settings) -> None:
    async with two_instances(settings) as (http_a, http_b):
        instances = [(PlaylogClient(str(h.base_url), http=h), h) for h in (http_a, http_b)]
        seen: dict[tuple[uuid.UUID, int], int] = {}
        for api, _ in instances:
            api.seen = seen  # one client of two instances: what it was given, it sends back
        rng = random.Random(50)
        pairs = stale = streams = 0
        while pairs < PAIRS:
            game = await started_game(instances[0][0], seed=rng.randrange(10**6), reaction_window=0)
            while pairs < PAIRS:
                (writer, _), (reader, reader_http) = rng.sample(instances, 2)
                views = [await writer.view(game.id, s, game.seats[s].token) for s in range(len(game.seats))]
                if views[0].status == "finished":
                    break
                choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
                if not choices:
                    continue
                view, command = rng.choice(choices)
                seat, token = view.seat, game.seats[view.seat].token
                try:
                    result = await writer.send(
                        game.id, seat, token, command, expected_version=view.version, idempotency_key=None
                    )
                except ApiError as exc:
                    assert exc.code in RACES, exc
                    continue
                pairs += 1
                # At once, on the other instance: its view, its events, now and then its stream.
                read = await reader.view(game.id, seat, token)
                events = await reader.events(game.id, seat, token, after=result.version - 1)
                if read.version < result.version or [e.seq for e in events][:1] != [result.version]:
                    stale += 1
                if pairs % STREAM_EVERY == 0:
                    assert await _first_event_id(reader_http, game, seat, result.version) == result.version
                    streams += 1
        assert pairs >= PAIRS
        assert streams >= PAIRS // STREAM_EVERY
        assert stale == 0


async def test_a_min_version_outside_its_schema_is_refused_on_every_seat_read(game: Game) -> None:
    http = game.api.http
    headers = {"Authorization": f"Bearer {game.seats[0].token}"}
    for read in ("view", "events", "stream"):
        for value in ("-1", "x", "2147483648"):
            answer = await http.get(
                f"/games/{game.id}/seats/0/{read}", params={"min_version": value}, headers=headers
            )
            assert answer.status_code == 400, (read, value, answer.text)
            assert answer.headers["content-type"].startswith("application/problem+json")
            assert answer.json()["code"] == "invalid_min_version", (read, value)


async def test_a_min_version_beyond_the_seat_s_version_answers_the_game_as_it_stands(game: Game) -> None:
    view = await game.view(0)
    http = game.api.http
    headers = {"Authorization": f"Bearer {game.seats[0].token}"}
    answer = await http.get(
        f"/games/{game.id}/seats/0/view", params={"min_version": view.version + 100}, headers=headers
    )
    assert answer.status_code == 200
    assert answer.json()["version"] == view.version
