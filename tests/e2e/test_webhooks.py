"""Webhooks (issue 54): registration with its target checks, and what a message may say.

The leak test plays games whose every seat is a player's with a receiver registered, looks at
every seat's view after every move, and holds every message to what that seat's view showed at
the message's version: its own game, seat and version (the seat's numbering), ``your_turn`` only
at a version whose view lists moves, ``game_over`` at the version that ended the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import uuid
from typing import Any

import pytest

from service.config import Settings
from service.store.events import EventStore
from service.tools.client import ApiError, PlaylogClient
from tests.webhook_receiver import Receiver


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return dataclasses.replace(
        settings, webhook_allow_private=True, webhook_interval=0.05, webhook_pause_after=0.5
    )


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_player_registers_lists_and_deletes_webhooks(api: PlaylogClient, store: EventStore) -> None:
    pat = await api.create_player("pat")
    made = await api.http.post(
        "/players/me/webhooks", json={"url": "http://127.0.0.1:9/hook"}, headers=_bearer(pat.token)
    )
    assert made.status_code == 201, made.text
    assert made.json()["secret"].startswith("whsec_")
    listed = await api.http.get("/players/me/webhooks", headers=_bearer(pat.token))
    assert [w["webhook_id"] for w in listed.json()["webhooks"]] == [made.json()["webhook_id"]]
    assert listed.json()["webhooks"][0]["state"] == "active"
    assert "secret" not in listed.json()["webhooks"][0]  # shown once
    other = await api.create_player("other")
    gone = await api.http.delete(
        f"/players/me/webhooks/{made.json()['webhook_id']}", headers=_bearer(other.token)
    )
    assert (gone.status_code, gone.json()["code"]) == (404, "not_found")  # not another player's
    gone = await api.http.delete(
        f"/players/me/webhooks/{made.json()['webhook_id']}", headers=_bearer(pat.token)
    )
    assert gone.status_code == 204
    assert (await api.http.get("/players/me/webhooks", headers=_bearer(pat.token))).json()["webhooks"] == []
    refused = await api.http.post(
        "/players/me/webhooks", json={"url": "ftp://example.com/"}, headers=_bearer(pat.token)
    )
    assert (refused.status_code, refused.json()["code"]) == (422, "webhook_scheme_refused")
    # A revoked player's webhooks go with their token: nobody could list or delete them.
    await api.http.post(
        "/players/me/webhooks", json={"url": "http://127.0.0.1:9/"}, headers=_bearer(pat.token)
    )
    await api.revoke_player_token(pat.token)
    assert await store.db.fetchval("SELECT count(*) FROM webhook_subscriptions") == 0


async def _play(
    api: PlaylogClient, kind: str, options: dict[str, Any], players: list[Any], seed: int
) -> dict[str, Any]:
    """A game of ``players`` played with random moves; every view each seat had, by version."""
    created = await api.create_game(kind, options, spectator_delay=0)
    seats = [await api.join(created.game_id, player_token=p.token) for p in players]
    await api.start(created.game_id, created.host_token)
    rng = random.Random(seed)
    seen: dict[int, dict[int, Any]] = {n: {} for n in range(len(seats))}
    for _ in range(3000):
        views = [await api.view(created.game_id, n, s.token) for n, s in enumerate(seats)]
        for n, view in enumerate(views):
            seen[n][view.version] = view
        if views[0].status == "finished":
            break
        movers = [n for n, view in enumerate(views) if view.moves]
        if not movers:
            await asyncio.sleep(0.02)  # a deadline the scheduler acts on
            continue
        n = rng.choice(movers)
        with contextlib.suppress(ApiError):  # another seat's move or a deadline came first
            await api.send(created.game_id, n, seats[n].token, rng.choice(views[n].moves))
    assert views[0].status == "finished"
    return {"game_id": created.game_id, "seats": seats, "seen": seen}


@pytest.mark.parametrize(
    ("kind", "options"),
    [("exploding_kittens", {"players": 3, "reaction_window": 0}), ("a_risk_cat", {"players": 3})],
)
async def test_a_message_says_nothing_its_seat_s_view_did_not(
    api: PlaylogClient, kind: str, options: dict[str, Any]
) -> None:
    with Receiver() as receiver:
        players, secrets = [], {}
        for n in range(options["players"]):
            player = await api.create_player(f"p{n}")
            made = await api.http.post(
                "/players/me/webhooks", json={"url": receiver.url(f"/p{n}")}, headers=_bearer(player.token)
            )
            players.append(player)
            secrets[f"/p{n}"] = made.json()["secret"]
        game = await _play(api, kind, options, players, seed=54)
        seen = game["seen"]
        finals = {n: max(versions) for n, versions in seen.items()}
        # Seat 0 disputes the game: it is told when its dispute changes, at a version it sees.
        raised = await api.http.post(
            f"/games/{game['game_id']}/disputes",
            json={"seqs": [1], "category": "rules", "reason": "a dispute for the webhook test"},
            headers=_bearer(game["seats"][0].token),
        )
        assert raised.status_code == 201, raised.text
        for n, seat_out in enumerate(game["seats"]):
            view = await api.view(game["game_id"], n, seat_out.token)
            seen[n][view.version] = view
        # Until every seat's game_over has come (the projector folds about once a second).
        for _ in range(400):
            events = {(m.json()["event"], m.json()["seat"]) for m in receiver.received}
            if events >= {("game_over", n) for n in seen} | {("dispute_changed", 0)}:
                break
            await asyncio.sleep(0.05)
        messages = list(receiver.received)
    assert messages
    ids = [m.headers["playlog-delivery"] for m in messages]
    assert len(set(ids)) == len(ids)
    told = set()
    for message in messages:
        body = message.json()
        assert message.signed_by(secrets[message.path])
        assert set(body) == {"delivery_id", "event", "game_id", "seat", "version"}
        assert body["delivery_id"] == message.headers["playlog-delivery"]
        assert uuid.UUID(body["game_id"]) == game["game_id"]
        seat, version = body["seat"], body["version"]
        assert message.path == f"/p{seat}"  # only the seat's own player is told
        assert version in seen[seat], (body, sorted(seen[seat]))  # a version the seat's view had
        view = seen[seat][version]
        if body["event"] == "your_turn":
            assert view.moves and view.status == "running"
        elif body["event"] == "game_over":
            assert view.status == "finished" and version >= finals[seat]  # the end, or the dispute after
        else:
            assert body["event"] == "dispute_changed" and seat == 0
        told.add((body["event"], seat, version))
    assert len(told) == len(messages)  # one message per seat and version
    assert {(e, s) for e, s, _ in told if e == "game_over"} == {("game_over", n) for n in seen}


async def test_a_receiver_failing_for_long_is_paused_with_its_reason(api: PlaylogClient) -> None:
    with Receiver(status=500) as receiver:
        pat = await api.create_player("pat")
        made = await api.http.post(
            "/players/me/webhooks", json={"url": receiver.url("/pat")}, headers=_bearer(pat.token)
        )
        created = await api.create_game("exploding_kittens", {"players": 2, "reaction_window": 0})
        await api.join(created.game_id, player_token=pat.token)
        guest = await api.join(created.game_id, "guest")
        await api.start(created.game_id, created.host_token)
        await api.leave(created.game_id, 1, guest.token)  # the game is over: pat is told
        async with asyncio.timeout(60):
            while True:
                listed = (await api.http.get("/players/me/webhooks", headers=_bearer(pat.token))).json()
                if listed["webhooks"][0]["state"] == "paused":
                    break
                await asyncio.sleep(0.1)
    hook = listed["webhooks"][0]
    assert hook["webhook_id"] == made.json()["webhook_id"]
    assert hook["paused_reason"].startswith("failing since ")
    assert hook["paused_reason"].endswith("the receiver answered 500")
    assert hook["failing_since"] is not None and hook["last_error"] == "the receiver answered 500"
