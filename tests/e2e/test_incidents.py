"""Acknowledged but missing is an incident (issue 32): the log loses a command the service had
acknowledged, as a Citus move with asynchronous commits did; the game stops, is counted, shows in
the moderators' incidents and goes on only once a moderator clears it, from the log as it stands.

The loss is forged on the real PostgreSQL as superuser (the log's append-only triggers off for
that session only): the command's events, its idempotency row and the head go back.
"""

from __future__ import annotations

import random
import re
import uuid
from typing import Any

import asyncpg
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app.auth import Principal, issue
from service.config import Settings
from service.tools.bot import pick
from service.tools.client import ApiError
from tests.e2e.conftest import Game


def moderator_token(settings: Settings) -> str:
    return issue(settings.keyring(), Principal(role="moderator", name="mia"), 3600)


def moderator(settings: Settings) -> dict[str, str]:
    return {"Authorization": f"Bearer {moderator_token(settings)}"}


async def move(game: Game) -> tuple[int, dict[str, Any], int]:
    """A legal move of a seat that may act, as its view shows it: (seat, command, version after)."""
    for seat in range(len(game.seats)):
        command = pick(random.Random(seat), (await game.view(seat)).legal_commands)
        if command is not None:
            done = await game.send(seat, command, idempotency_key=uuid.uuid4().hex)
            return seat, command, done.version
    raise AssertionError("no seat may act")


async def next_command(game: Game) -> tuple[int, dict[str, Any]]:
    for seat in range(len(game.seats)):
        command = pick(random.Random(seat), (await game.view(seat)).legal_commands)
        if command is not None:
            return seat, command
    raise AssertionError("no seat may act")


async def lose_the_tail(url: str, game_id: uuid.UUID, keep: int, *, head: bool) -> None:
    """The log ends at ``keep`` again; the head too unless ``head`` is False (a torn head: the
    ``streams`` row still names the lost commit, as on the node a move left behind)."""
    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            await conn.execute("SET LOCAL session_replication_role = replica")  # no append-only guard
            await conn.execute("DELETE FROM events WHERE game_id = $1 AND seq > $2", game_id, keep)
            await conn.execute("DELETE FROM commands WHERE game_id = $1 AND last_seq > $2", game_id, keep)
            if head:
                await conn.execute(
                    "UPDATE streams s SET seq = e.seq, last_hash = e.hash FROM events e"
                    " WHERE s.game_id = $1 AND e.game_id = s.game_id AND e.seq = $2",
                    game_id,
                    keep,
                )
    finally:
        await conn.close()


async def log_seqs(url: str, game_id: uuid.UUID) -> list[int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT seq FROM events WHERE game_id = $1 ORDER BY seq", game_id)
        return [row["seq"] for row in rows]
    finally:
        await conn.close()


def missing_counted(metrics: str) -> float:
    found = re.search(r"^playlog_acknowledged_missing_total (\S+)$", metrics, re.M)
    assert found is not None, "playlog_acknowledged_missing_total is not on /metrics"
    return float(found.group(1))


@pytest.mark.parametrize("head", [True, False], ids=["cache_ahead_of_log", "head_not_in_log"])
async def test_an_acknowledged_command_missing_from_the_log_stops_the_game_until_a_moderator_clears_it(
    game: Game, http: AsyncTestClient[Litestar], settings: Settings, database_url: str, head: bool
) -> None:
    counted = missing_counted((await http.get("/metrics")).text)
    await move(game)
    before = len(await log_seqs(database_url, game.id))
    await move(game)  # acknowledged, then lost
    await lose_the_tail(database_url, game.id, before, head=head)

    seat, command = await next_command(game)  # as the service's cache still shows the game
    with pytest.raises(ApiError) as caught:
        await game.send(seat, command, idempotency_key=uuid.uuid4().hex)
    assert (caught.value.status, caught.value.code) == (409, "game_under_incident")
    assert await log_seqs(database_url, game.id) == list(range(1, before + 1))  # nothing decided again
    assert missing_counted((await http.get("/metrics")).text) == counted + 1

    listed = (await http.get("/moderation/incidents", headers=moderator(settings))).json()["items"]
    assert [(i["game_id"], i["reason"], i["log_seq"]) for i in listed] == [
        (str(game.id), "cache_ahead_of_log" if head else "head_not_in_log", before)
    ]
    assert listed[0]["acknowledged_seq"] > before

    # Every command is refused, fresh from the log too, until a moderator acts.
    seat, command = await next_command(game)
    with pytest.raises(ApiError) as again:
        await game.send(seat, command, idempotency_key=uuid.uuid4().hex)
    assert again.value.code == "game_under_incident"
    refused = await http.post(f"/moderation/incidents/{game.id}/clear", json={"note": "x"})
    assert refused.status_code == 401

    cleared = await http.post(
        f"/moderation/incidents/{game.id}/clear",
        json={"note": "lost in a shard move; players told"},
        headers=moderator(settings),
    )
    assert cleared.status_code == 200, cleared.text
    assert cleared.json()["cleared_by"] == "mia"
    assert (await http.get("/moderation/incidents", headers=moderator(settings))).json()["items"] == []
    twice = await http.post(
        f"/moderation/incidents/{game.id}/clear", json={"note": "again"}, headers=moderator(settings)
    )
    assert (twice.status_code, twice.json()["code"]) == (404, "no_open_incident")

    await move(game)  # the game goes on from the log as it stands
    seqs = await log_seqs(database_url, game.id)
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > before
    assert (await game.api.verify(game.id, moderator_token(settings), reason="incident")).ok
