"""Erasure of a person over HTTP and from the command line (issue 41, docs/erasure.md): every
read shows the pseudonym and "(erased)", never the words; the log's proofs still hold."""

from __future__ import annotations

import json
import uuid

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from domain import personal
from projections import receipts as receipting
from projections.export import verify as export_verify
from projections.notes import Verifier
from service.config import Settings
from service.tools.client import ApiError, CreatedPlayer, JoinedSeat, PlaylogClient
from tests.e2e.commandline import playlog
from tests.e2e.test_listing import eventually

NAME = "Ann Erasable 7c1d"
OTHER = "Ben Stays 41aa"
GUEST = "Gus Guest 0e9b"
REASON = "REASON-3b7e the kitten moved"
QUESTION = "QUESTION-a1f0 where was it?"
REPLY = "REPLY-c44d on top, I saw it"
WORDS = (NAME, REASON, REPLY)
REASON_FOR_READING = {"reason": "incident"}  # a moderator's why, for a running game's face-up reads


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def read(http: AsyncTestClient[Litestar], url: str, headers: dict[str, str] | None = None) -> str:
    response = await http.get(url, headers=headers or {})
    assert response.status_code == 200, (url, response.text)
    return response.text


async def joined(
    api: PlaylogClient, players: list[CreatedPlayer | str], *, start: bool = True
) -> tuple[uuid.UUID, list[JoinedSeat]]:
    """A public game whose seats are taken by these players (or guests by these names)."""
    created = await api.create_game("exploding_kittens", {"players": len(players)}, spectator_delay=0)
    seats = [
        await api.join(created.game_id, who)
        if isinstance(who, str)
        else await api.join(created.game_id, player_token=who.token)
        for who in players
    ]
    if start:
        await api.start(created.game_id, created.host_token)
    return created.game_id, seats


async def disputed(
    http: AsyncTestClient[Litestar], game_id: uuid.UUID, seat: JoinedSeat, moderator: dict[str, str]
) -> str:
    """A dispute ``seat`` raised with a reason, and its reply to a moderator's question."""
    raised = await http.post(
        f"/games/{game_id}/disputes",
        json={"seqs": [2], "category": "rules", "reason": REASON},
        headers=bearer(seat.token),
    )
    assert raised.status_code == 201, raised.text
    dispute_id: str = raised.json()["dispute_id"]
    work = f"/moderation/disputes/{dispute_id}"
    assert (await http.post(f"{work}/claim", headers=moderator)).status_code == 200
    asked = await http.post(
        f"{work}/questions", json={"seat": seat.seat, "text": QUESTION}, headers=moderator
    )
    assert asked.status_code == 201, asked.text
    reply = await http.post(
        f"/games/{game_id}/disputes/{dispute_id}/replies", json={"text": REPLY}, headers=bearer(seat.token)
    )
    assert reply.status_code == 201, reply.text
    return dispute_id


async def export(http: AsyncTestClient[Litestar], game_id: uuid.UUID, moderator: dict[str, str]) -> list[str]:
    text = await read(http, f"/games/{game_id}/export?reason=incident", moderator)
    return text.splitlines(keepends=True)


def joined_seal(lines: list[str], seat: int) -> str:
    """The seal the export's log keeps for the name ``seat`` joined under."""
    for line in lines:
        record = json.loads(line)
        if (
            record["record"] == "event"
            and record["type"] == "lobby.joined"
            and record["data"]["seat"] == seat
        ):
            name: str = record["data"]["name"]
            assert personal.is_seal(name), record
            return name
    raise AssertionError(f"no lobby.joined of seat {seat}")


async def reads(
    http: AsyncTestClient[Litestar], game_id: uuid.UUID, seats: list[JoinedSeat], moderator: dict[str, str]
) -> dict[str, str]:
    """Everything that shows a game's names and texts, by where it was read."""
    base = f"/games/{game_id}"
    found = {
        "summary": await read(http, base),
        "spectators": await read(http, f"{base}/spectate"),
        "audit": await read(http, f"{base}/audit?reason=incident", moderator),
        "audit log": await read(http, f"{base}/audit/log?reason=incident", moderator),
        "audit transcript": await read(http, f"{base}/audit/transcript?reason=incident", moderator),
    }
    over = json.loads(found["summary"])["status"] == "finished"
    for seat in seats:
        holder = bearer(seat.token)
        found[f"seat {seat.seat} events"] = await read(http, f"{base}/seats/{seat.seat}/events", holder)
        found[f"seat {seat.seat} disputes"] = await read(http, f"{base}/disputes", holder)
        if over:  # transcripts are given once the game is over
            found[f"seat {seat.seat} transcript"] = await read(
                http, f"{base}/seats/{seat.seat}/transcript", holder
            )
    return found


def tombstones(events: str) -> int:
    return [e["type"] for e in json.loads(events)].count("lobby.erased")


async def listed(http: AsyncTestClient[Litestar], game_id: uuid.UUID) -> list[str | None]:
    games = (await http.get("/games", params={"limit": 200})).json()["games"]
    seats: list[str | None] = next((g["seats"] for g in games if g["game_id"] == str(game_id)), [])
    return seats


async def test_given_a_player_in_two_games_when_they_erase_themself_then_no_read_shows_their_words(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str], settings: Settings
) -> None:
    ann, ben = await api.create_player(NAME), await api.create_player(OTHER)
    finished, finished_seats = await joined(api, [ann, ben])
    await api.leave(finished, 0, finished_seats[0].token)  # Ann concedes: Ben wins
    running, running_seats = await joined(api, [ann, ben])
    dispute_id = await disputed(http, finished, finished_seats[0], moderator)
    seats = {finished: finished_seats, running: running_seats}

    # Before: Ben's seat holds a receipt of events naming Ann; an export holds Ann's words.
    await api.events(finished, 1, finished_seats[1].token)
    receipt_text = api.receipts[-1]
    before = await export(http, finished, moderator)
    assert export_verify.verify_lines(before).ok
    assert NAME in "".join(before) and REASON in "".join(before)

    async def counted() -> bool:
        return bool((await api.player(ann.player_id)).stats)

    await eventually(counted)
    stats = (await api.player(ann.player_id)).stats

    erased = await api.erase_player(ann.token)

    pseudonym = personal.pseudonym(f"player:{ann.player_id}")
    assert erased.pseudonym == pseudonym
    assert set(erased.games) == {finished, running} and erased.kept == []
    # A name in each game, the reason and the reply (an event and its command's record share a seal).
    assert erased.texts == 4
    for game_id, game_seats in seats.items():
        shown = await reads(http, game_id, game_seats, moderator)
        for where, text in shown.items():
            assert not any(word in text for word in WORDS), where
        for where in (
            "summary",
            "spectators",
            "audit log",
            "audit transcript",
            "seat 0 events",
            "seat 1 events",
        ):
            assert pseudonym in shown[where] and OTHER in shown[where], where
        assert tombstones(shown["seat 1 events"]) == 1

        async def pseudonymous(game_id: uuid.UUID = game_id) -> bool:
            return await listed(http, game_id) == [pseudonym, OTHER]

        await eventually(pseudonymous)
    record = await read(http, f"/moderation/disputes/{dispute_id}", moderator)
    assert personal.ERASED_TEXT in record and not any(word in record for word in WORDS)
    raisers = await read(http, f"/games/{finished}/disputes", bearer(finished_seats[0].token))
    assert personal.ERASED_TEXT in raisers
    player = await api.player(ann.player_id)
    assert (player.name, player.stats) == (pseudonym, stats)
    assert (await api.player(ben.player_id)).name == OTHER
    with pytest.raises(ApiError) as refused:
        await api.all_my_games(ann.token)
    assert (refused.value.status, refused.value.code) == (401, "token_revoked")

    # A receipt given before the erasure verifies against the events read after it.
    keys = [Verifier.parse(k) for k in (await http.get("/log/keys")).json()["log_keys"]]
    receipt = receipting.verify(receipt_text, keys).receipt
    after = json.loads(await read(http, f"/games/{finished}/seats/1/events", bearer(finished_seats[1].token)))
    receipted = [
        (e["seq"], e["type"], e["data"]) for e in after if receipt.before < e["seq"] <= receipt.after
    ]
    assert (
        receipting.contradiction(receipt, game_id=finished, seat=1, version=receipt.after, events=receipted)
        is None
    )

    # Both exports verify; the later one holds no word of Ann's, and her claim still proves her seat.
    later = await export(http, finished, moderator)
    assert export_verify.verify_lines(before).ok and export_verify.verify_lines(later).ok
    assert not any(word in "".join(later) for word in WORDS)
    claim = bytes.fromhex(finished_seats[0].claim or "")
    assert personal.claims(joined_seal(later, 0), claim, NAME)
    assert not personal.claims(joined_seal(later, 0), claim, OTHER)

    # Erasing again (the operator's command: the player's token is gone) changes nothing.
    code, out, err = await playlog(settings, "erase-player", str(ann.player_id))
    assert code == 0, err
    assert pseudonym in out and f"game {finished}: erased" in out
    for game_id, game_seats in seats.items():
        events = await read(http, f"/games/{game_id}/seats/1/events", bearer(game_seats[1].token))
        assert tombstones(events) == 1


async def test_given_a_guest_who_disputed_when_their_seat_token_erases_them_then_no_read_shows_their_words(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    ben = await api.create_player(OTHER)
    game_id, seats = await joined(api, [GUEST, ben])
    await api.leave(game_id, 0, seats[0].token)  # the guest concedes; the game is over
    dispute_id = await disputed(http, game_id, seats[0], moderator)

    erased = await api.erase_seat(game_id, 0, seats[0].token)

    assert erased.pseudonym.startswith("Player ") and erased.games == [game_id] and erased.texts == 3
    shown = await reads(http, game_id, seats, moderator)
    shown["dispute"] = await read(http, f"/moderation/disputes/{dispute_id}", moderator)
    words = (GUEST, REASON, REPLY)
    for where, text in shown.items():
        assert not any(word in text for word in words), where
    for where in ("summary", "spectators", "seat 0 events", "seat 1 events"):
        assert erased.pseudonym in shown[where] and OTHER in shown[where], where
    again = await api.erase_seat(game_id, 0, seats[0].token)
    assert again == erased
    assert tombstones(await read(http, f"/games/{game_id}/seats/1/events", bearer(seats[1].token))) == 1
    lines = await export(http, game_id, moderator)
    assert export_verify.verify_lines(lines).ok and not any(word in "".join(lines) for word in words)
    assert personal.claims(joined_seal(lines, 0), bytes.fromhex(seats[0].claim or ""), GUEST)


async def test_given_a_players_seat_when_its_token_asks_to_erase_then_it_is_sent_to_the_players_erasure(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    ann = await api.create_player(NAME)
    game_id, seats = await joined(api, [ann, GUEST], start=False)

    refused = await http.post(f"/games/{game_id}/seats/0/erase", headers=bearer(seats[0].token))
    other_seat = await http.post(f"/games/{game_id}/seats/0/erase", headers=bearer(seats[1].token))

    assert (refused.status_code, refused.json()["code"]) == (409, "erase_as_player")
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert "DELETE /players/me?erase=true" in refused.json()["detail"]
    assert (other_seat.status_code, other_seat.json()["code"]) == (403, "forbidden")
    assert NAME in (await http.get(f"/games/{game_id}")).text


async def test_given_no_such_player_when_the_operator_erases_them_then_the_command_says_so_and_fails(
    settings: Settings,
) -> None:
    code, out, err = await playlog(settings, "erase-player", str(uuid.uuid4()))

    assert code == 1 and out == ""
    assert "does not exist" in err


async def test_given_a_player_when_the_operator_erases_them_then_their_tokens_are_refused(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings
) -> None:
    ann = await api.create_player(NAME)
    game_id, _ = await joined(api, [ann, GUEST], start=False)

    code, out, err = await playlog(settings, "erase-player", str(ann.player_id))

    pseudonym = personal.pseudonym(f"player:{ann.player_id}")
    assert code == 0, err
    assert pseudonym in out and f"game {game_id}: erased" in out and "texts erased: 1" in out
    refused = await http.get("/players/me/games", headers=bearer(ann.token))
    assert (refused.status_code, refused.json()["code"]) == (401, "token_revoked")
    summary = await http.get(f"/games/{game_id}")
    assert pseudonym in summary.text and NAME not in summary.text
