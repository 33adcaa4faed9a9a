"""RULES 3 / 1.7 over HTTP: a pass leaves no trace in anything another seat or a spectator reads.

Passes are visible to the passing seat only. Every number a viewer reads (versions in views and
summaries, event seqs, SSE ids) counts only the events it may see, so after seat 1 passes,
seat 2's and the spectators' reads are unchanged, numbers included; ``expected_version`` refuses
only what the sending seat can see; cursors resume in the viewer's own numbering.
"""

from __future__ import annotations

from typing import Any

import httpx

from service.tools.client import ApiError, PlaylogClient
from tests.e2e.conftest import Game
from tests.e2e.dealt import dealt_game, legal
from tests.e2e.sse import read_events

EK = "exploding_kittens"
ACTIONS = {"Skip", "Shuffle", "See the Future"}  # a card that opens a Nope window when played
WINDOW = 60.0  # long enough for the test; every eligible seat passes, which closes it at once


def _auth(game: Game, seat: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {game.seats[seat].token}"}


def _seat_0_holds_an_action_card(state: Any) -> bool:
    return any(c["type"] == "PlayCard" and c["card"] in ACTIONS for c in legal(EK, state, 0))


async def _window_open(api: PlaylogClient, moderator: dict[str, str]) -> Game:
    """A 3-player game whose seat 0 has just played an action card (seats 1 and 2 may answer),
    dealt through the committed seeds (tests/e2e/dealt.py)."""
    options = {"players": 3, "first_seat": 0, "reaction_window": WINDOW}
    game = await dealt_game(api, api.http, moderator, EK, options, _seat_0_holds_an_action_card)
    plays = [
        c for c in (await game.view(0)).legal_commands if c["type"] == "PlayCard" and c["card"] in ACTIONS
    ]
    await game.send(0, plays[0])
    return game


async def _readable(http: httpx.AsyncClient, game: Game, seat: int) -> dict[str, Any]:
    """Everything ``seat`` and a spectator can read now, numbers included."""
    view = (await http.get(f"/games/{game.id}/seats/{seat}/view", headers=_auth(game, seat))).json()
    events = (await http.get(f"/games/{game.id}/seats/{seat}/events", headers=_auth(game, seat))).json()
    summary = (await http.get(f"/games/{game.id}")).json()
    snapshot = (await http.get(f"/games/{game.id}/spectate")).json()
    snapshot.pop("as_of")  # the clock, not the log
    version = view["version"]
    stream = await read_events(
        http, f"/games/{game.id}/seats/{seat}/stream", until=version, headers=_auth(game, seat)
    )
    public = await read_events(http, f"/games/{game.id}/spectate/stream", until=summary["version"])
    return {
        "view": view,
        "events": events,
        "summary": summary,
        "snapshot": snapshot,
        "stream": [(m.id, m.event, m.data) for m in stream],
        "public_stream": [(m.id, m.event, m.data) for m in public],
    }


async def test_a_pass_changes_nothing_another_seat_or_a_spectator_can_read(
    server_url: str, moderator: dict[str, str]
) -> None:
    async with httpx.AsyncClient(base_url=server_url) as http:
        game = await _window_open(PlaylogClient(server_url, http=http), moderator)
        before = await _readable(http, game, 2)
        passed = await game.send(1, {"type": "PassReaction"})
        assert [e.type for e in passed.events] == ["ReactionPassed"]
        assert passed.events[0].seq == passed.version == before["view"]["version"] + 1  # its own numbering
        after = await _readable(http, game, 2)
        assert after == before
        assert before["summary"]["version"] == before["snapshot"]["version"] == before["view"]["version"]


async def test_expected_version_refuses_only_what_the_seat_can_see(
    server_url: str, moderator: dict[str, str]
) -> None:
    async with httpx.AsyncClient(base_url=server_url) as http:
        game = await _window_open(PlaylogClient(server_url, http=http), moderator)
        seen = (await game.view(2)).version
        await game.send(1, {"type": "PassReaction"})
        # Seat 1's pass is not something seat 2 can see: its version still holds.
        closed = await game.send(2, {"type": "PassReaction"}, expected_version=seen)
        assert closed.version > seen
        assert [e.seq for e in closed.events] == list(range(seen + 1, closed.version + 1))
        assert "ReactionPassed" in [e.type for e in closed.events]  # its own pass
        try:
            await game.send(1, {"type": "DrawCard"}, expected_version=seen)
        except ApiError as exc:
            assert exc.code == "version_conflict"
            assert exc.body["current_version"] == (await game.view(1)).version
        else:
            raise AssertionError("a stale version was accepted")


async def test_after_passes_every_viewer_reads_gapless_numbers_and_resumes_in_them(
    server_url: str, moderator: dict[str, str]
) -> None:
    async with httpx.AsyncClient(base_url=server_url) as http:
        api = PlaylogClient(server_url, http=http)
        game = await _window_open(api, moderator)
        await game.send(1, {"type": "PassReaction"})
        await game.send(2, {"type": "PassReaction"})  # the window closes: both passed
        for seat in range(3):
            view = await game.view(seat)
            events = await api.events(game.id, seat, game.seats[seat].token)
            assert [e.seq for e in events] == list(range(1, view.version + 1))
            passes = [e.data["seat"] for e in events if e.type == "ReactionPassed"]
            assert passes == ([seat] if seat else [])
            k = view.version - 3
            assert [e.seq for e in await api.events(game.id, seat, game.seats[seat].token, after=k)] == list(
                range(k + 1, view.version + 1)
            )
            path = f"/games/{game.id}/seats/{seat}/stream"
            stream = await read_events(http, path, until=view.version, headers=_auth(game, seat))
            assert [m.id for m in stream] == list(range(1, view.version + 1))
            resumed = await read_events(
                http, path, until=view.version, headers={**_auth(game, seat), "Last-Event-ID": str(k)}
            )
            assert [(m.id, m.data) for m in resumed] == [(m.id, m.data) for m in stream if m.id > k]
        public_version = (await api.game(game.id)).version
        assert public_version == (await game.view(0)).version
        public = await read_events(http, f"/games/{game.id}/spectate/stream", until=public_version)
        assert [m.id for m in public] == list(range(1, public_version + 1))
        assert "ReactionPassed" not in [m.event for m in public]
