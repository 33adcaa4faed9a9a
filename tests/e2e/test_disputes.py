"""Disputes over HTTP (issue 14): raise, the queue, the moderators' work, the ruling as the outcome
every reader shows, and who reads what (reasons and notes never leave the raiser and moderators)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import asyncpg
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.auth import Principal, issue
from service.client import JoinedSeat, PlaylogClient
from service.config import Settings
from tests.e2e.test_listing import eventually

REASON = "REASON-7f3a the kitten was placed twice"
NOTE = "NOTE-91be moderators only"
QUESTION = "QUESTION-5c2d did you see it?"
REPLY = "REPLY-e8a0 yes I did"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def moderator_headers(settings: Settings, name: str = "mia") -> dict[str, str]:
    return bearer(issue(settings.keyring(), Principal(role="moderator", name=name), 3600))


@dataclass
class Finished:
    """A finished 2-seat game: seat 0 conceded, seat 1 won."""

    game_id: uuid.UUID
    seats: list[JoinedSeat]
    version: int
    players: list[uuid.UUID]

    def seat(self, n: int) -> dict[str, str]:
        return bearer(self.seats[n].token)


async def finished_game(api: PlaylogClient, *, delay: float = 0, public: bool = True) -> Finished:
    players = [await api.create_player(name) for name in ("ann", "ben")]
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=delay, public=public)
    seats = [await api.join(created.game_id, player_token=p.token) for p in players]
    await api.start(created.game_id, created.host_token)
    summary = await api.leave(created.game_id, 0, seats[0].token)
    assert summary.winners == [1]
    return Finished(created.game_id, seats, summary.version, [p.player_id for p in players])


async def raise_dispute(
    http: AsyncTestClient[Litestar], game: Finished, seat: int = 0, **body: Any
) -> dict[str, Any]:
    payload = {"seqs": [2], "category": "rules", "reason": REASON, **body}
    response = await http.post(f"/games/{game.game_id}/disputes", json=payload, headers=game.seat(seat))
    assert response.status_code == 201, response.text
    dispute: dict[str, Any] = response.json()
    return dispute


async def refusal(response: Any, status: int, code: str) -> None:
    assert (response.status_code, response.json()["code"]) == (status, code), response.text


@pytest.fixture
def mod(settings: Settings) -> dict[str, str]:
    return moderator_headers(settings)


# -- raising and listing ------------------------------------------------------------------------


async def test_a_seat_raises_a_dispute_and_each_reader_sees_its_part(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]
) -> None:
    game = await finished_game(api)
    dispute = await raise_dispute(http, game, seqs=[3, 2])
    assert dispute["status"] == "open" and dispute["seat"] == 0 and dispute["seqs"] == [2, 3]
    assert dispute["reason"] == REASON and dispute["category"] == "rules"
    assert dispute["raised_seq"] == game.version + 1
    assert [h["type"] for h in dispute["history"]] == ["raised"]

    url = f"/games/{game.game_id}/disputes"
    mine = (await http.get(url, headers=game.seat(0))).json()["items"]
    assert mine == [dispute]
    other = (await http.get(url, headers=game.seat(1))).json()["items"]
    assert other == [
        {
            "dispute_id": dispute["dispute_id"],
            "game_id": str(game.game_id),
            "status": "open",
            "category": "rules",
            "raised_at": dispute["raised_at"],
        }
    ]
    spectators = (await http.get(url)).json()["items"]
    assert spectators == [
        {"dispute_id": dispute["dispute_id"], "game_id": str(game.game_id), "status": "under_review"}
    ]
    moderators = (await http.get(url, headers=mod)).json()["items"]
    assert moderators[0]["reason"] == REASON and moderators[0]["seqs"] == [2, 3]


async def test_a_raise_is_idempotent_with_its_key(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    game = await finished_game(api)
    body = {"seqs": [2], "category": "other", "reason": REASON}
    headers = {**game.seat(0), "Idempotency-Key": "k1"}
    url = f"/games/{game.game_id}/disputes"
    first = await http.post(url, json=body, headers=headers)
    again = await http.post(url, json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert len((await http.get(url, headers=game.seat(0))).json()["items"]) == 1
    await refusal(
        await http.post(url, json={**body, "reason": "another"}, headers=headers),
        422,
        "idempotency_key_reused",
    )


async def test_the_queue_lists_disputes_oldest_first_by_page(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str], pool: asyncpg.Pool
) -> None:
    game = await finished_game(api)
    raised = [await raise_dispute(http, game, category=c) for c in ("rules", "timeout", "misconduct")]
    ids = [d["dispute_id"] for d in raised]

    async def queued() -> bool:
        count = await pool.fetchval("SELECT count(*) FROM disputes WHERE game_id = $1", game.game_id)
        return bool(count == 3)

    await eventually(queued)
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"status": "open", "kind": "exploding_kittens", "limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = (await http.get("/moderation/disputes", params=params, headers=mod)).json()
        seen += [d["dispute_id"] for d in page["items"] if d["game_id"] == str(game.game_id)]
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == ids
    timeout = (await http.get("/moderation/disputes", params={"category": "timeout"}, headers=mod)).json()
    assert [d["dispute_id"] for d in timeout["items"] if d["game_id"] == str(game.game_id)] == [ids[1]]
    await refusal(await http.get("/moderation/disputes", headers=game.seat(0)), 403, "moderator_only")
