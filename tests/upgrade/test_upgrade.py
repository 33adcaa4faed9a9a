"""In-place upgrades from older releases (issue 34): a release's database, restored and migrated
with today's migrations, served by today's app with the release's signing secret.

Each fixture (tests/upgrade/fixtures/RELEASE, written by tests/upgrade/record.py) holds a
release's dump, every token it issued and what it answered about each game. ``2355c24`` is the
last commit before occupancy-bound tokens (another claim shape, service/app/legacy_tokens.py);
``v0.1.0`` (the first release's tag) has player tokens and disputes. After the upgrade: every
chain, complete state, seat view, outcome and the listing read as the release left them, and
the release's tokens act: a running game finishes, a lobby is joined and started by its host
token, finished games are read and disputed, a player's token joins, lists its games and reads
its statistics; a seat's earlier holder's token, an expired token and an unnamed moderator token
are refused.
"""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from litestar import Litestar
from litestar.security.jwt import Token
from litestar.testing import AsyncTestClient

from domain import registry
from service.app.auth import Principal, issue
from service.config import Settings
from service.http.app import create_app
from service.store import database
from service.tools.bot import pick

FIXTURES = Path(__file__).parent / "fixtures"
RELEASES = ("2355c24", "v0.1.0")  # a commit before any release, then every tagged release
RECORDED: dict[str, dict[str, Any]] = {
    name: json.loads((FIXTURES / name / "recorded.json").read_text()) for name in RELEASES
}
OLD, V0_1 = RECORDED["2355c24"], RECORDED["v0.1.0"]
GAMES: dict[str, Any] = OLD["games"]
YEARS = 50 * 365 * 86400.0


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def release() -> str:
    """The release a test upgrades from (tests parametrized by ``release`` name theirs)."""
    return "2355c24"


@pytest.fixture
async def upgraded(empty_database_url: str, release: str) -> str:
    """The release's database restored, then migrated to today's head by today's code."""
    connection = await asyncpg.connect(empty_database_url)
    try:
        await connection.execute((FIXTURES / release / "dump.sql").read_text())
    finally:
        await connection.close()
    await asyncio.to_thread(database.upgrade, empty_database_url)
    return empty_database_url


@pytest.fixture
def settings(upgraded: str, release: str, tmp_path: Path) -> Settings:
    # The games ended when the fixture was recorded: a seat token's lapse after its game's end, and
    # the dispute window, are today's rules (tests/e2e/test_token_lifetimes.py), set wide here.
    return Settings(
        database_url=upgraded,
        data_dir=tmp_path,
        jwt_secret=RECORDED[release]["secret"],
        scheduler_interval=0.02,
        log_format="json",
        seat_token_after_game=YEARS,
        dispute_window=YEARS,
    )


@pytest.fixture
async def http(settings: Settings) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(create_app(settings)) as client:
        yield client


@pytest.fixture
def moderator(settings: Settings) -> dict[str, str]:
    return bearer(issue(settings.keyring(), Principal(role="moderator", name="upgrade"), 3600))


async def play_to_the_end(
    http: AsyncTestClient[Litestar], game_id: str, tokens: dict[int, str]
) -> dict[str, Any]:
    """Legal moves, chosen at random, from each seat's view until the game ends; its summary."""
    rng = random.Random(34)
    for _ in range(5000):
        views = []
        for seat, token in tokens.items():
            response = await http.get(f"/games/{game_id}/seats/{seat}/view", headers=bearer(token))
            assert response.status_code == 200, response.text
            views.append(response.json())
        if views[0]["status"] == "finished":
            summary: dict[str, Any] = (await http.get(f"/games/{game_id}", headers=bearer(tokens[0]))).json()
            return summary
        choices = [(v, c) for v in views if (c := pick(rng, v["view"]["legal_commands"])) is not None]
        if not choices:
            await asyncio.sleep(0.02)  # a reaction window the server closes itself
            continue
        view, command = rng.choice(choices)
        response = await http.post(
            f"/games/{game_id}/seats/{view['seat']}/commands",
            json=command,
            params={"expected_version": view["version"]},
            headers={**bearer(tokens[view["seat"]]), "Idempotency-Key": uuid.uuid4().hex},
        )
        assert response.status_code in (200, 409), response.text
    raise AssertionError("the game did not end")


# What today reads differently, on purpose, in the release's games: the tag naming a view's type
# (renamed), and what a seat knows of the draw pile, the future it saw and where it put a Kitten
# back (RULES.md 1.9: shown as it stands now, no longer as it was learnt).
RENAMED_OR_RERULED = frozenset({"view", "seen_future", "placed_kitten"})
# A command the release named otherwise (issue 39: ``Leave`` is the kernel's ``Concede``): a view's
# legal commands name it by today's tag.
RENAMED_COMMANDS = {
    old: new for game in registry.games().values() for old, new in game.versions.renamed_commands.items()
}


def as_then(today: Any, then: Any) -> bool:
    """Whether ``today`` holds everything ``then`` held, equal (today's may hold more fields)."""
    if isinstance(then, dict):
        if (tag := then.get("type")) in RENAMED_COMMANDS:
            then = {**then, "type": RENAMED_COMMANDS[tag]}
        return isinstance(today, dict) and all(
            k in RENAMED_OR_RERULED or (k in today and as_then(today[k], v)) for k, v in then.items()
        )
    if isinstance(then, list):
        return isinstance(today, list) and len(today) == len(then) and all(map(as_then, today, then))
    return bool(today == then)


# A moderator's face-up read of a game that may still run gives why (docs/access-records.md).
WHY = {"reason": "incident", "note": "upgrade check"}


@pytest.mark.parametrize("release", RELEASES)
async def test_chains_states_outcomes_and_the_listing_read_as_the_release_left_them(
    http: AsyncTestClient[Litestar], moderator: dict[str, str], release: str
) -> None:
    for game in RECORDED[release]["games"].values():
        gid = game["game_id"]
        chain = (await http.get(f"/games/{gid}/audit/verify", params=WHY, headers=moderator)).json()
        assert {k: chain[k] for k in ("ok", "events", "last_hash")} == {
            k: game["chain"][k] for k in ("ok", "events", "last_hash")
        }
        summary = (await http.get(f"/games/{gid}")).json()
        for field in ("kind", "seats", "status", "version", "winners", "public"):
            assert summary[field] == game["summary"][field], (gid, field)
        for seat, token in game["seats"].items():
            response = await http.get(f"/games/{gid}/seats/{seat}/view", headers=bearer(token))
            assert response.status_code == 200, response.text
            assert as_then(response.json()["view"], game["views"][seat]["view"]), (gid, seat)
        if "state" in game:
            state = await http.get(f"/games/{gid}/audit/state", params=WHY, headers=moderator)
            assert as_then(state.json()["state"], game["state"]), gid
    expected = {g["game_id"]: g for g in RECORDED[release]["listing"]["games"]}
    listed: dict[str, Any] = {}
    for _ in range(1500):  # migration 0005 starts the read models over: the projector refills them
        listed = {g["game_id"]: g for g in (await http.get("/games", params={"limit": 100})).json()["games"]}
        if listed.keys() == expected.keys() and as_then(listed, expected):
            break
        await asyncio.sleep(0.02)
    assert listed.keys() == expected.keys()
    assert as_then(listed, expected)


async def test_an_old_running_game_finishes_with_its_old_seat_tokens(
    http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    game = GAMES["running"]
    tokens = {int(seat): token for seat, token in game["seats"].items()}
    summary = await play_to_the_end(http, game["game_id"], tokens)
    assert summary["status"] == "finished" and summary["version"] > game["summary"]["version"]
    assert (await http.get(f"/games/{game['game_id']}/audit/verify", headers=moderator)).json()["ok"]


async def test_an_old_lobby_is_joined_then_started_by_its_old_host_token(
    http: AsyncTestClient[Litestar],
) -> None:
    game = GAMES["lobby"]
    gid = game["game_id"]
    joined = await http.post(f"/games/{gid}/seats", json={"name": "newcomer"})
    assert joined.status_code == 201, joined.text
    assert joined.json()["seat"] == 1
    started = await http.post(f"/games/{gid}/start", headers=bearer(game["host"]))
    assert started.status_code == 200, started.text
    summary = await play_to_the_end(http, gid, {0: game["seats"]["0"], 1: joined.json()["token"]})
    assert summary["status"] == "finished"


async def test_an_old_seat_token_acts_only_for_the_holder_it_was_issued_to(
    http: AsyncTestClient[Litestar],
) -> None:
    game = GAMES["lobby"]
    gid = game["game_id"]
    earlier = await http.get(f"/games/{gid}/seats/0/view", headers=bearer(game["left"]["0"]))
    assert (earlier.status_code, earlier.json()["code"]) == (403, "seat_token_revoked")
    left = await http.delete(f"/games/{gid}/seats/0", headers=bearer(game["left"]["0"]))
    assert (left.status_code, left.json()["code"]) == (403, "seat_token_revoked")
    assert (
        await http.get(f"/games/{gid}/seats/0/view", headers=bearer(game["seats"]["0"]))
    ).status_code == 200
    # Its holder leaves; whoever takes the seat next is not the token's holder.
    assert (await http.delete(f"/games/{gid}/seats/0", headers=bearer(game["seats"]["0"]))).status_code == 200
    assert (await http.post(f"/games/{gid}/seats", json={"name": "next"})).json()["seat"] == 0
    after = await http.get(f"/games/{gid}/seats/0/view", headers=bearer(game["seats"]["0"]))
    assert (after.status_code, after.json()["code"]) == (403, "seat_token_revoked")
    # Nor does the old shape, signed even after that join, act for a holder with an occupancy id.
    extras = {"role": "seat", "game_id": gid, "seat": 0}
    later = Token(exp=datetime.now(UTC) + timedelta(days=1), sub=f"seat:{gid}", extras=extras)
    signed_later = later.encode(OLD["secret"], "HS256")
    refused = await http.get(f"/games/{gid}/seats/0/view", headers=bearer(signed_later))
    assert (refused.status_code, refused.json()["code"]) == (403, "seat_token_revoked")


async def test_old_tokens_end_with_their_own_expiry_and_old_moderator_tokens_are_refused(
    http: AsyncTestClient[Litestar],
) -> None:
    running = GAMES["running"]["game_id"]
    expired = await http.get(f"/games/{running}/seats/0/view", headers=bearer(GAMES["running"]["expired"]))
    assert (expired.status_code, expired.json()["code"]) == (401, "token_expired")
    unnamed = await http.get("/moderation/disputes", headers=bearer(OLD["moderator"]))
    assert unnamed.status_code == 401


async def test_a_finished_old_game_is_read_and_disputed_with_its_old_seat_tokens(
    http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    for name in ("finished_ek", "finished_arc"):
        game = GAMES[name]
        gid, token = game["game_id"], game["seats"]["1"]
        transcript = await http.get(f"/games/{gid}/seats/1/transcript", headers=bearer(token))
        assert transcript.status_code == 200, transcript.text
        raised = await http.post(
            f"/games/{gid}/disputes",
            json={"seqs": [3], "category": "rules", "reason": f"upgrade check {name}"},
            headers=bearer(token),
        )
        assert raised.status_code == 201, raised.text
        dispute = await http.get(f"/moderation/disputes/{raised.json()['dispute_id']}", headers=moderator)
        assert dispute.json()["dispute"]["seat"] == 1, dispute.text


async def eventually(read: Callable[[], Awaitable[Any]], expected: Any) -> None:
    """``read`` answers as ``expected`` (a read model, rebuilt after the upgrade, catching up)."""
    answer = None
    for _ in range(1500):
        answer = await read()
        if as_then(answer, expected):
            return
        await asyncio.sleep(0.02)
    assert answer == expected


@pytest.mark.parametrize("release", ["v0.1.0"])
async def test_v0_1_player_tokens_read_their_games_and_join_an_old_lobby_started_by_its_host(
    http: AsyncTestClient[Litestar], release: str
) -> None:
    games = V0_1["games"]
    for player in V0_1["players"].values():
        token = bearer(player["token"])

        async def held(token: dict[str, str] = token) -> Any:
            return (await http.get("/players/me/games", headers=token)).json()

        await eventually(held, player["games"])
        stats = await http.get(f"/players/{player['player_id']}")
        assert as_then(stats.json(), player["stats"])
    ben = V0_1["players"]["ben"]
    lobby = games["lobby"]["game_id"]
    joined = await http.post(f"/games/{lobby}/seats", json={}, headers=bearer(ben["token"]))
    assert joined.status_code == 201, joined.text
    assert (joined.json()["seat"], joined.json()["player_id"]) == (1, ben["player_id"])
    started = await http.post(f"/games/{lobby}/start", headers=bearer(games["lobby"]["host"]))
    assert started.status_code == 200, started.text
    await play_to_the_end(http, lobby, {0: games["lobby"]["seats"]["0"], 1: joined.json()["token"]})
    running = games["running"]
    await play_to_the_end(http, running["game_id"], {int(s): t for s, t in running["seats"].items()})

    async def bens_games() -> Any:
        listed = (await http.get("/players/me/games", headers=bearer(ben["token"]))).json()["games"]
        return sorted(g["status"] for g in listed)

    await eventually(bens_games, ["finished"] * 4)


@pytest.mark.parametrize("release", ["v0.1.0"])
async def test_v0_1_a_dispute_reads_as_recorded_and_its_old_seat_token_reads_it(
    http: AsyncTestClient[Litestar], moderator: dict[str, str], release: str
) -> None:
    recorded = V0_1["games"]["disputed"]
    dispute = recorded["dispute"]["dispute"]
    detail = await http.get(f"/moderation/disputes/{dispute['dispute_id']}", headers=moderator)
    assert as_then(detail.json(), recorded["dispute"]), detail.text
    seat = await http.get(f"/games/{recorded['game_id']}/disputes", headers=bearer(recorded["seats"]["0"]))
    assert seat.status_code == 200, seat.text
    assert [d["status"] for d in seat.json()["items"]] == ["claimed"], seat.text
