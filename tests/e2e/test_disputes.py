"""Disputes over HTTP (issue 14): raise, the queue, the moderators' work, the ruling as the outcome
every reader shows, and who reads what (reasons and notes never leave the raiser and moderators)."""

from __future__ import annotations

import dataclasses
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import asyncpg
import httpx
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app.auth import Principal, issue
from service.config import Settings
from service.http.api.lobby import ListingKey
from service.http.app import create_app
from service.http.paging import encode
from service.readmodels.rebuild import rebuild
from service.store.events import EventStore
from service.tools.client import JoinedSeat, PlaylogClient
from tests.e2e.pages import follow, refused
from tests.e2e.sse import read_events
from tests.e2e.test_listing import eventually
from tests.e2e.test_numbering_leaks import _auth, _window_open

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
        return bool(count == 4)

    more = [await raise_dispute(http, game, seat=1, category="other")]
    await eventually(queued)

    async def raise_one() -> None:  # raised while the moderator pages (a seat has 3 open at most)
        if len(more) < 3:
            more.append(await raise_dispute(http, game, seat=1, category="other"))

    pages = await follow(
        http,
        "/moderation/disputes?status=open&kind=exploding_kittens&limit=2",
        lambda body: body["items"],
        headers=mod,
        between=raise_one,
    )
    seen = [d["dispute_id"] for p in pages for d in p if d["game_id"] == str(game.game_id)]
    assert len(seen) == len(set(seen)), "a dispute shown twice"
    assert seen[:4] == [*ids, more[0]["dispute_id"]]  # none skipped, the newer ones after them
    timeout = (await http.get("/moderation/disputes", params={"category": "timeout"}, headers=mod)).json()
    assert [d["dispute_id"] for d in timeout["items"] if d["game_id"] == str(game.game_id)] == [ids[1]]
    await refusal(await http.get("/moderation/disputes", headers=game.seat(0)), 403, "moderator_only")
    for made_up in ("AAAA", "not base64!"):  # base64url as the document says, or not
        queue = await http.get("/moderation/disputes", params={"cursor": made_up}, headers=mod)
        await refusal(queue, 400, "invalid_cursor")
    listed = encode(ListingKey("games", datetime.now(UTC), game.game_id))  # another list's cursor
    await refused(http, f"/moderation/disputes?cursor={listed}", "invalid_cursor", headers=mod)
    for limit in ("0", "201"):
        await refused(http, f"/moderation/disputes?limit={limit}", "invalid_limit", headers=mod)


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


async def test_a_review_can_change_the_ruling_and_disputes_are_counted(
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
    metrics = (await http.get("/metrics")).text
    assert 'playlog_disputes_raised_total{category="rules"}' in metrics
    assert 'playlog_disputes_resolved_total{category="rules",verdict="upheld"}' in metrics
    assert "playlog_dispute_resolution_seconds_count" in metrics


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


# -- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["NUL\x00here", "\x1b[31mred", "DEL\x7f", "C1\x9b"])
async def test_a_control_character_in_any_text_is_refused_by_its_rule_never_by_the_database(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str], bad: str
) -> None:
    game = await finished_game(api)
    url = f"/games/{game.game_id}/disputes"
    body = {"seqs": [2], "category": "rules", "reason": bad}
    await refusal(await http.post(url, json=body, headers=game.seat(0)), 422, "invalid_text")
    dispute_id = (await raise_dispute(http, game, reason="line one\r\n\tline two"))["dispute_id"]
    await claim(http, dispute_id, mod)
    work = f"/moderation/disputes/{dispute_id}"
    asked = await http.post(f"{work}/questions", json={"seat": 0, "text": QUESTION}, headers=mod)
    assert asked.status_code == 201, asked.text  # so that a reply reaches its text's rule
    lobby = await api.create_game("exploding_kittens", {"players": 2})
    refused = [
        (f"{url}/{dispute_id}/replies", {"text": bad}, game.seat(0), "invalid_text"),
        (f"{work}/notes", {"text": bad}, mod, "invalid_text"),
        (f"{work}/questions", {"seat": 0, "text": bad}, mod, "invalid_text"),
        (f"{work}/resolve", {"verdict": "dismissed", "explanation": bad}, mod, "invalid_text"),
        (f"/games/{lobby.game_id}/seats", {"name": bad}, {}, "invalid_name"),
        ("/players", {"name": bad}, {}, "invalid_name"),
    ]
    for path, payload, headers, code in refused:
        await refusal(await http.post(path, json=payload, headers=headers), 422, code)
    ruled = await resolve(http, dispute_id, mod, verdict="dismissed")
    assert ruled.status_code == 200, ruled.text  # so that a review reaches its reason's rule
    await refusal(await http.post(f"{work}/reviews", json={"reason": bad}, headers=mod), 422, "invalid_text")
    history = (await http.get(url, headers=mod)).json()["items"][0]["history"]
    assert [h["type"] for h in history] == ["raised", "claimed", "asked", "resolved"]


async def test_every_refusal_of_a_seat_has_its_code(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]
) -> None:
    game = await finished_game(api)
    url = f"/games/{game.game_id}/disputes"
    body = {"seqs": [2], "category": "rules", "reason": REASON}
    other = await finished_game(api)
    await refusal(await http.post(url, json=body, headers=other.seat(0)), 403, "not_seated")
    await refusal(await http.post(url, json=body, headers=mod), 403, "not_seated")
    await refusal(await http.post(url, json=body), 401, "unauthorized")
    await refusal(
        await http.post(url, json={**body, "seqs": [999]}, headers=game.seat(0)), 422, "seq_out_of_range"
    )
    await refusal(await http.post(url, json={**body, "seqs": [0]}, headers=game.seat(0)), 400, "invalid_body")
    await refusal(
        await http.post(url, json={**body, "reason": "x" * 1001}, headers=game.seat(0)), 400, "invalid_body"
    )
    await refusal(
        await http.post(url, json={**body, "category": "mood"}, headers=game.seat(0)), 400, "invalid_body"
    )
    for _ in range(3):
        await raise_dispute(http, game, seat=1)
    await refusal(await http.post(url, json=body, headers=game.seat(1)), 409, "too_many_open_disputes")
    await raise_dispute(http, game, seat=0)  # the limit is per seat

    lobby = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    seat = await api.join(lobby.game_id, "cy")
    await refusal(
        await http.post(f"/games/{lobby.game_id}/disputes", json=body, headers=bearer(seat.token)),
        409,
        "game_not_started",
    )
    private = await finished_game(api, public=False)
    await refusal(await http.get(f"/games/{private.game_id}/disputes"), 403, "private_game")
    await refusal(await http.get(f"/games/{uuid.uuid4()}/disputes"), 404, "not_found")


async def test_a_dispute_window_closes_after_the_game(settings: Settings) -> None:
    closed = dataclasses.replace(settings, dispute_window=0.0)
    async with AsyncTestClient(create_app(closed)) as http:
        api = PlaylogClient(str(http.base_url), http=http)
        game = await finished_game(api)
        response = await http.post(
            f"/games/{game.game_id}/disputes",
            json={"seqs": [2], "category": "timeout", "reason": REASON},
            headers=game.seat(0),
        )
        await refusal(response, 409, "dispute_window_closed")


async def test_every_refusal_of_a_moderator_has_its_code(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str], settings: Settings
) -> None:
    game = await finished_game(api)
    dispute_id = (await raise_dispute(http, game))["dispute_id"]
    work = f"/moderation/disputes/{dispute_id}"
    await refusal(await http.post(f"{work}/claim", headers=game.seat(0)), 403, "moderator_only")
    await refusal(await http.post(f"{work}/claim"), 401, "unauthorized")
    await refusal(
        await http.post(f"/moderation/disputes/{uuid.uuid4()}/claim", headers=mod), 404, "not_found"
    )
    await refusal(await http.get(f"/moderation/disputes/{uuid.uuid4()}", headers=mod), 404, "not_found")
    seated = moderator_headers(settings, "ann")  # ann held seat 0
    await refusal(await http.post(f"{work}/claim", headers=seated), 409, "moderator_was_seated")
    await refusal(await resolve(http, dispute_id, mod, verdict="dismissed"), 409, "dispute_not_claimed")
    await refusal(
        await http.post(f"{work}/questions", json={"seat": 0, "text": "?"}, headers=mod),
        409,
        "dispute_not_claimed",
    )
    await refusal(
        await http.post(f"{work}/reviews", json={"reason": "r"}, headers=mod), 409, "dispute_not_resolved"
    )
    await claim(http, dispute_id, mod)
    await refusal(
        await http.post(f"{work}/claim", headers=moderator_headers(settings, "max")), 409, "dispute_claimed"
    )
    await refusal(
        await http.post(f"{work}/release", headers=moderator_headers(settings, "max")),
        409,
        "dispute_not_claimed",
    )
    await refusal(
        await http.post(f"{work}/questions", json={"seat": 7, "text": "?"}, headers=mod), 422, "invalid_seat"
    )
    await refusal(
        await resolve(http, dispute_id, mod, verdict="dismissed", action="void"), 422, "invalid_ruling"
    )
    await refusal(await resolve(http, dispute_id, mod, verdict="upheld"), 422, "invalid_ruling")
    await refusal(
        await resolve(http, dispute_id, mod, verdict="upheld", action="award"), 422, "invalid_ruling"
    )
    await refusal(
        await http.post(
            f"/games/{game.game_id}/disputes/{dispute_id}/replies", json={"text": "hi"}, headers=game.seat(1)
        ),
        409,
        "not_asked",
    )


async def test_an_outcome_is_not_ruled_before_the_game_is_over(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    seats = [await api.join(created.game_id, name) for name in ("ann", "ben")]
    await api.start(created.game_id, created.host_token)
    response = await http.post(
        f"/games/{created.game_id}/disputes",
        json={"seqs": [3], "category": "misconduct", "reason": REASON},
        headers=bearer(seats[1].token),
    )
    assert response.status_code == 201, response.text
    dispute_id = response.json()["dispute_id"]
    await claim(http, dispute_id, mod)
    await refusal(
        await resolve(http, dispute_id, mod, verdict="upheld", action="void"), 409, "game_not_finished"
    )
    penalized = await resolve(http, dispute_id, mod, verdict="upheld", action="penalize", seats=[0])
    assert penalized.status_code == 200, penalized.text


# -- who reads what -----------------------------------------------------------------------------

SECRETS = ("REASON-7f3a", "NOTE-91be", "QUESTION-5c2d", "REPLY-e8a0")


async def _everything(http: httpx.AsyncClient, game: Finished, seat: int | None) -> str:
    """All a seat (or, None, a spectator without a token) can read of the game, as one text."""
    gid = game.game_id
    headers = game.seat(seat) if seat is not None else {}
    reads: list[Any] = [
        (await http.get(f"/games/{gid}")).json(),
        (await http.get(f"/games/{gid}/spectate")).json(),
        (await http.get(f"/games/{gid}/disputes", headers=headers)).json(),
        (await http.get("/games", params={"status": "finished"})).json(),
        (await http.get(f"/games/{gid}/audit/log")).json(),  # a finished public game: anyone's
        (await http.get(f"/games/{gid}/audit/diffs")).json(),
        (await http.get(f"/games/{gid}/audit/state")).json(),
        (await http.get(f"/games/{gid}/audit/transcript")).text,
    ]
    version = (await http.get(f"/games/{gid}")).json()["version"]
    public = await read_events(http, f"/games/{gid}/spectate/stream", until=version)
    reads.append([(m.id, m.event, m.data) for m in public])
    if seat is not None:
        base = f"/games/{gid}/seats/{seat}"
        view = (await http.get(f"{base}/view", headers=headers)).json()
        reads += [
            view,
            (await http.get(f"{base}/events", headers=headers)).json(),
            (await http.get(f"{base}/transcript", headers=headers)).text,
        ]
        stream = await read_events(http, f"{base}/stream", until=view["version"], headers=headers)
        reads.append([(m.id, m.event, m.data) for m in stream])
    export = await http.get(f"/games/{gid}/export")
    reads.append((export.status_code, export.text))
    return json.dumps(reads)


async def test_reasons_notes_and_questions_never_reach_another_seat_or_a_spectator(
    server_url: str, settings: Settings
) -> None:
    mod = moderator_headers(settings)
    async with httpx.AsyncClient(base_url=server_url) as http:
        game = await finished_game(PlaylogClient(server_url, http=http))
        dispute = (
            await http.post(
                f"/games/{game.game_id}/disputes",
                json={"seqs": [2], "category": "misconduct", "reason": REASON},
                headers=game.seat(0),
            )
        ).json()
        work = f"/moderation/disputes/{dispute['dispute_id']}"
        assert (await http.post(f"{work}/claim", headers=mod)).status_code == 200
        assert (await http.post(f"{work}/notes", json={"text": NOTE}, headers=mod)).status_code == 201
        asked = await http.post(f"{work}/questions", json={"seat": 0, "text": QUESTION}, headers=mod)
        assert asked.status_code == 201
        replied = await http.post(
            f"/games/{game.game_id}/disputes/{dispute['dispute_id']}/replies",
            json={"text": REPLY},
            headers=game.seat(0),
        )
        assert replied.status_code == 201
        assert (await http.get(f"/games/{game.game_id}/export")).status_code == 403

        for reader in (1, None):
            read = await _everything(http, game, reader)
            assert "dispute." in read  # the dispute is there, without its texts
            assert not [s for s in SECRETS if s in read], reader
        raiser = await _everything(http, game, 0)
        assert "REASON-7f3a" in raiser and "QUESTION-5c2d" in raiser and "REPLY-e8a0" in raiser
        assert "NOTE-91be" not in raiser
        log = (await http.get(f"/games/{game.game_id}/audit/log", headers=mod)).text
        assert all(s in log for s in SECRETS)  # moderators read everything


async def test_seqs_are_in_the_seats_numbering_when_events_are_hidden_from_it(
    server_url: str, settings: Settings
) -> None:
    """A seat names the events it disputes by its own numbers; the log holds the log's seqs."""
    mod = moderator_headers(settings)
    async with httpx.AsyncClient(base_url=server_url) as http:
        game = await _window_open(PlaylogClient(server_url, http=http), mod)
        await game.send(1, {"type": "PassReaction"})  # hidden from seat 2
        await game.send(2, {"type": "PassReaction"})  # the window closes: a public event follows
        own = (await http.get(f"/games/{game.id}/seats/2/events", headers=_auth(game, 2))).json()
        last = own[-1]
        raised = await http.post(
            f"/games/{game.id}/disputes",
            json={"seqs": [last["seq"]], "category": "rules", "reason": REASON},
            headers=_auth(game, 2),
        )
        assert raised.status_code == 201, raised.text
        mine = raised.json()
        assert mine["seqs"] == [last["seq"]]
        assert mine["raised_seq"] == (await game.view(2)).version
        logged = (await http.get(f"/moderation/disputes/{mine['dispute_id']}", headers=mod)).json()
        [seq] = logged["dispute"]["seqs"]
        assert logged["dispute"]["seat_seqs"] == [last["seq"]]  # the seat's own words, for the moderator
        assert "seat_seqs" not in mine  # a seat reads its own numbers only
        why = {"dispute": mine["dispute_id"]}  # the game runs: the read names the dispute
        log = (await http.get(f"/games/{game.id}/audit/log", params=why, headers=mod)).json()
        assert log[seq - 1]["type"] == last["type"]
        assert seq > last["seq"]  # seat 1's pass came before it in the log


async def test_the_rebuild_gives_the_same_queue(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    mod: dict[str, str],
    pool: asyncpg.Pool,
    store: EventStore,
    database_url: str,
) -> None:
    games = [await finished_game(api) for _ in range(2)]
    first = await raise_dispute(http, games[0])
    await raise_dispute(http, games[1], seat=1, category="technical")
    await claim(http, first["dispute_id"], mod)
    assert (
        await resolve(http, first["dispute_id"], mod, verdict="upheld", action="penalize", seats=[1])
    ).status_code == 200

    async def rows() -> tuple[list[Any], ...]:
        queue = await pool.fetch("SELECT * FROM disputes ORDER BY dispute_id")
        stats = await pool.fetch("SELECT * FROM player_games ORDER BY player_id, game_id")
        lobby = await pool.fetch("SELECT * FROM lobby_games ORDER BY game_id")
        return [tuple(r) for r in queue], [tuple(r) for r in stats], [tuple(r) for r in lobby]

    async def caught_up() -> bool:
        resolved = await pool.fetchval("SELECT count(*) FROM disputes WHERE status = 'resolved'")
        return bool(resolved == 1)

    await eventually(caught_up)
    live = await rows()
    assert len(live[0]) == 2
    await rebuild(store, database_url, batch_size=5)
    assert await rows() == live


async def test_the_raiser_is_named_only_to_moderators_and_to_itself(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]
) -> None:
    # Given a finished 3-seat public game whose last seat raised a dispute
    created = await api.create_game("exploding_kittens", {"players": 3}, spectator_delay=0)
    seats = [await api.join(created.game_id, name) for name in ("ann", "ben", "cat")]
    await api.start(created.game_id, created.host_token)
    await api.leave(created.game_id, 0, seats[0].token)
    assert (await api.leave(created.game_id, 1, seats[1].token)).winners == [2]
    gid = created.game_id
    raised = await http.post(
        f"/games/{gid}/disputes",
        json={"seqs": [3], "category": "misconduct", "reason": REASON},
        headers={**bearer(seats[2].token), "Idempotency-Key": "raise-1"},
    )
    assert raised.status_code == 201, raised.text

    # When another seat and anyone without a token read everything the audit and transcripts give
    other = (await http.get(f"/games/{gid}/seats/0/transcript", headers=bearer(seats[0].token))).text
    log = (await http.get(f"/games/{gid}/audit/log")).json()
    state = (await http.get(f"/games/{gid}/audit/state")).json()["state"]
    diffs = (await http.get(f"/games/{gid}/audit/diffs")).json()
    public = (await http.get(f"/games/{gid}/audit/transcript")).text

    # Then none of them names the raising seat, in an actor, a command id or the table's disputes
    dispute_lines = [line for line in (other + public).splitlines() if "dispute." in line]
    assert dispute_lines and not [line for line in dispute_lines if "seat:2" in line]
    assert [e["metadata"] for e in log if e["type"].startswith("dispute.")] == [{}]
    assert [set(d) & {"seat", "seqs"} for d in state["disputes"]] == [set()]
    changed = [c["path"] for d in diffs for c in d["changes"] if c["path"].startswith("/disputes")]
    assert changed and not [p for p in changed if p.endswith(("/seat", "/seqs"))]
    # And the raiser itself and moderators still read who raised it
    own = (await http.get(f"/games/{gid}/seats/2/transcript", headers=bearer(seats[2].token))).text
    assert any("seat:2" in line and "dispute.raised" in line for line in own.splitlines())
    moderated = (await http.get(f"/games/{gid}/audit/log", headers=mod)).json()
    assert [e["metadata"]["actor"] for e in moderated if e["type"] == "dispute.raised"] == ["seat:2"]
    assert (await http.get(f"/games/{gid}/audit/state", headers=mod)).json()["state"]["disputes"][0][
        "seat"
    ] == 2


async def test_a_moderator_who_held_a_seat_reads_the_dispute_only_as_that_seat(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str], settings: Settings
) -> None:
    # Given a dispute raised by seat 0 (ann) against seat 1 (ben), with a moderator's note
    game = await finished_game(api)
    dispute_id = (await raise_dispute(http, game))["dispute_id"]
    await claim(http, dispute_id, mod)
    noted = await http.post(f"/moderation/disputes/{dispute_id}/notes", json={"text": NOTE}, headers=mod)
    assert noted.status_code == 201, noted.text
    ben = moderator_headers(settings, "Ben ")  # a moderator named as seat 1 (names compare loosely)

    # When that moderator reads the dispute as a moderator, and the game's disputes
    detail = await http.get(f"/moderation/disputes/{dispute_id}", headers=ben)
    listed = (await http.get(f"/games/{game.game_id}/disputes", headers=ben)).json()

    # Then the detail is refused and the list is what seat 1 reads: no reason, no note, no raiser
    await refusal(detail, 403, "moderator_was_seated")
    as_seat = (await http.get(f"/games/{game.game_id}/disputes", headers=game.seat(1))).json()
    assert listed == as_seat
    assert REASON not in json.dumps(listed) and NOTE not in json.dumps(listed)
    assert "seat" not in listed["items"][0]
    # And another moderator still reads everything
    assert REASON in (await http.get(f"/moderation/disputes/{dispute_id}", headers=mod)).text
