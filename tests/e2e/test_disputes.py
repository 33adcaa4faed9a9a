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


# -- from raise to verdict ----------------------------------------------------------------------


async def claim(http: AsyncTestClient[Litestar], dispute_id: str, headers: dict[str, str]) -> dict[str, Any]:
    response = await http.post(f"/moderation/disputes/{dispute_id}/claim", headers=headers)
    assert response.status_code == 200, response.text
    claimed: dict[str, Any] = response.json()
    return claimed


async def resolve(
    http: AsyncTestClient[Litestar], dispute_id: str, headers: dict[str, str], **body: Any
) -> Any:
    payload = {"explanation": "Checked against the log.", **body}
    return await http.post(f"/moderation/disputes/{dispute_id}/resolve", json=payload, headers=headers)


async def stats(http: AsyncTestClient[Litestar], player: uuid.UUID) -> dict[str, int]:
    found = (await http.get(f"/players/{player}")).json()["stats"]
    return {k: found[0][k] for k in ("played", "won", "penalties")} if found else {}


# The ruling, and what every reader shows after it: (ruled winners | None, penalties of seat 0).
RULINGS = [
    ({"verdict": "dismissed"}, None, 0),
    ({"verdict": "upheld", "action": "none"}, None, 0),
    ({"verdict": "upheld", "action": "void"}, [], 0),
    ({"verdict": "upheld", "action": "award", "seats": [0]}, [0], 0),
    ({"verdict": "upheld", "action": "penalize", "seats": [0]}, None, 1),
]


@pytest.mark.parametrize(("ruling", "ruled", "penalties"), RULINGS)
async def test_a_dispute_goes_from_raise_to_verdict_and_every_reader_follows_the_ruling(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    mod: dict[str, str],
    pool: asyncpg.Pool,
    ruling: dict[str, Any],
    ruled: list[int] | None,
    penalties: int,
) -> None:
    game = await finished_game(api)
    dispute = await raise_dispute(http, game, seat=0)
    dispute_id = dispute["dispute_id"]
    claimed = await claim(http, dispute_id, mod)
    assert (claimed["status"], claimed["claimed_by"]) == ("claimed", "mia")

    detail = (await http.get(f"/moderation/disputes/{dispute_id}", headers=mod)).json()
    assert detail["dispute"]["reason"] == REASON
    assert detail["game"]["kind"] == "exploding_kittens" and detail["game"]["outcome"] == {"winners": [1]}
    assert [s["name"] for s in detail["game"]["seats"]] == ["ann", "ben"]
    [disputed] = detail["disputed"]
    assert disputed["seq"] == 2 and disputed["type"] == "lobby.joined"
    assert disputed["state_before"]["seats"] == [None, None] and disputed["state_after"]["seats"][0] == "ann"
    assert detail["chain"]["ok"]

    response = await resolve(http, dispute_id, mod, **ruling)
    assert response.status_code == 200, response.text
    resolved = response.json()
    assert resolved["status"] == "resolved" and resolved["verdict"]["verdict"] == ruling["verdict"]
    assert resolved["verdict"]["action"] == ruling.get("action", "none")
    assert resolved["verdict"]["moderator"] == "mia"
    assert [h["type"] for h in resolved["history"]] == ["raised", "claimed", "resolved"]
    ruled_seq = resolved["history"][-1]["seq"]

    shown = None if ruled is None else {"winners": ruled}
    summary = (await http.get(f"/games/{game.game_id}")).json()
    assert summary["winners"] == [1] and summary.get("ruled_outcome") == shown
    view = (await http.get(f"/games/{game.game_id}/seats/1/view", headers=game.seat(1))).json()
    assert view["winners"] == [1] and view.get("ruled_outcome") == shown
    spectators = (await http.get(f"/games/{game.game_id}/spectate")).json()
    assert spectators.get("ruled_outcome") == shown
    everyone = (await http.get(f"/games/{game.game_id}/disputes")).json()["items"]
    assert everyone[0]["status"] == "resolved" and everyone[0]["verdict"] == resolved["verdict"]

    # The audit: the state after the ruling shows it, the state before it does not.
    audit = f"/games/{game.game_id}/audit/state"
    now = (await http.get(audit, headers=mod)).json()["state"]
    assert now["winners"] == [1] and now["ruled_winners"] == ruled
    before = (await http.get(audit, params={"at": ruled_seq - 1}, headers=mod)).json()["state"]
    assert before["winners"] == [1] and before.get("ruled_winners") is None
    assert before["disputes"][0]["status"] == "claimed"
    verify = (await http.get(f"/games/{game.game_id}/audit/verify", headers=mod)).json()
    assert verify["ok"] and verify["events"] == ruled_seq

    # The read models: the listing and the statistics follow the ruling.
    won = [1] if ruled is None else ruled

    async def projected() -> bool:
        row = await pool.fetchrow("SELECT version FROM lobby_games WHERE game_id = $1", game.game_id)
        return row is not None and row["version"] >= ruled_seq

    await eventually(projected)
    listed = (await http.get("/games", params={"status": "finished"})).json()["games"]
    [row] = [g for g in listed if g["game_id"] == str(game.game_id)]
    assert row["winners"] == [1] and row.get("ruled_outcome") == shown
    assert await stats(http, game.players[0]) == {"played": 1, "won": int(0 in won), "penalties": penalties}
    assert await stats(http, game.players[1]) == {"played": 1, "won": int(1 in won), "penalties": 0}

    # A resolved dispute is never ruled again; a review is a new dispute citing it.
    await refusal(await resolve(http, dispute_id, mod, verdict="dismissed"), 409, "dispute_resolved")
    review = await http.post(
        f"/moderation/disputes/{dispute_id}/reviews", json={"reason": "second look"}, headers=mod
    )
    assert review.status_code == 201, review.text
    assert review.json()["review_of"] == dispute_id and review.json()["status"] == "open"


async def test_a_review_can_change_the_ruling_and_the_statistics_follow(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str], settings: Settings
) -> None:
    game = await finished_game(api)
    dispute_id = (await raise_dispute(http, game))["dispute_id"]
    await claim(http, dispute_id, mod)
    assert (await resolve(http, dispute_id, mod, verdict="upheld", action="void")).status_code == 200
    max_ = moderator_headers(settings, "max")
    review = await http.post(
        f"/moderation/disputes/{dispute_id}/reviews", json={"reason": "again"}, headers=max_
    )
    review_id = review.json()["dispute_id"]
    await claim(http, review_id, max_)
    response = await resolve(http, review_id, max_, verdict="upheld", action="award", seats=[0, 1])
    assert response.status_code == 200, response.text
    summary = (await http.get(f"/games/{game.game_id}")).json()
    assert summary["ruled_outcome"] == {"winners": [0, 1]}


async def test_a_moderator_asks_a_seat_which_reads_the_question_and_replies(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]
) -> None:
    game = await finished_game(api)
    dispute_id = (await raise_dispute(http, game, seat=0))["dispute_id"]
    await claim(http, dispute_id, mod)
    note = await http.post(f"/moderation/disputes/{dispute_id}/notes", json={"text": NOTE}, headers=mod)
    assert note.status_code == 201, note.text
    asked = await http.post(
        f"/moderation/disputes/{dispute_id}/questions", json={"seat": 1, "text": QUESTION}, headers=mod
    )
    assert asked.status_code == 201, asked.text
    # Seat 1 reads the question in its events (and so on its stream) and replies.
    events = (await http.get(f"/games/{game.game_id}/seats/1/events", headers=game.seat(1))).json()
    assert events[-1]["type"] == "dispute.asked" and events[-1]["data"]["text"] == QUESTION
    reply = await http.post(
        f"/games/{game.game_id}/disputes/{dispute_id}/replies", json={"text": REPLY}, headers=game.seat(1)
    )
    assert reply.status_code == 201, reply.text
    await refusal(
        await http.post(
            f"/games/{game.game_id}/disputes/{dispute_id}/replies", json={"text": REPLY}, headers=game.seat(1)
        ),
        409,
        "not_asked",
    )
    detail = (await http.get(f"/moderation/disputes/{dispute_id}", headers=mod)).json()["dispute"]
    assert [(h["type"], h.get("text")) for h in detail["history"]] == [
        ("raised", REASON),
        ("claimed", None),
        ("noted", NOTE),
        ("asked", QUESTION),
        ("answered", REPLY),
    ]
    # The raiser reads neither the note nor what was asked of another seat.
    mine = (await http.get(f"/games/{game.game_id}/disputes", headers=game.seat(0))).json()["items"][0]
    assert [h["type"] for h in mine["history"]] == ["raised", "claimed"]
    released = await http.post(f"/moderation/disputes/{dispute_id}/release", headers=mod)
    assert released.status_code == 200 and released.json()["status"] == "open"
