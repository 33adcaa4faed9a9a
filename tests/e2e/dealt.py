"""A game dealt as a test needs it, chosen through the committed randomness, not a magic seed.

A test that needs a particular deal does not pin a ``seed`` option (a hand-picked number breaks
whenever the shuffle changes although no rule did). It creates an ordinary game, reads the server's
seed ``S`` as a moderator may (``GET /games/{id}/audit/verify``), and tries candidate seeds for the
last seat with the functions the server itself deals with (docs/export-format.md#randomness): the
key, the stream of the start's version, the game's own ``start``. The first candidate whose deal
the test wants is committed when that seat joins (``seed_commitment``) and revealed before the
start (``POST /games/{id}/seats/{seat}/seed``), so the server deals exactly that. A change to the
shuffle re-derives the seed instead of breaking the test.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import httpx
import msgspec

from domain import randomness, registry
from domain.decider import Context
from domain.randomness import Draws
from service.tools.client import JoinedSeat, PlaylogClient

from .conftest import Game

CANDIDATES = 500  # a deal a test needs comes up within a few dozen tries; this bounds a bad wish


def legal(kind: str, state: Any, seat: int) -> list[dict[str, Any]]:
    """The commands the rules offer ``seat`` in ``state``, as JSON (as a seat's view lists them)."""
    listed: list[dict[str, Any]] = msgspec.to_builtins(registry.get(kind).legal_commands(state, seat))
    return listed


def then(kind: str, state: Any, seat: int, command: dict[str, Any]) -> Any:
    """``state`` after ``seat``'s ``command``, decided by the game's rules. Nothing may be drawn
    (a later draw's stream is not the start's): such a step raises, and the candidate is passed."""
    game = registry.get(kind)
    decided = game.decide(
        state, msgspec.convert(command, game.types.command), Context(Draws(None, 0), 0.0, seat)
    )
    return game.fold(state, decided)


def _dealt(kind: str, options: dict[str, Any], key: bytes, version: int) -> Any:
    """The game's state right after its start, drawn from the stream the server draws from."""
    game = registry.get(kind)
    ctx = Context(Draws(key, version), 0.0, None, rules_version=game.versions.rules)
    state = game.initial_state(game.parse_options(options))
    return game.fold(state, game.start(state, ctx))


def _wanted(wish: Callable[[Any], bool], state: Any) -> bool:
    try:
        return wish(state)
    except Exception:  # a step the rules refuse or that would draw: not this deal
        return False


async def dealt_game(
    api: PlaylogClient,
    http: httpx.AsyncClient,
    moderator: dict[str, str],
    kind: str,
    options: dict[str, Any],
    wish: Callable[[Any], bool],
) -> Game:
    """A started game of ``kind`` whose state after the start satisfies ``wish`` (given the
    game's state; ``legal`` and ``then`` look ahead in it)."""
    created = await api.create_game(kind, options, spectator_delay=0)
    audit = f"/games/{created.game_id}/audit/verify"
    seats = [await api.join(created.game_id, f"p{n}") for n in range(created.seats - 1)]
    report = (await http.get(audit, params={"reason": "incident"}, headers=moderator)).json()
    server_seed = bytes.fromhex(report["server_seed"])
    # The last seat's join and its reveal are the two events before the start is decided.
    version = report["events"] + 2
    last = created.seats - 1
    for n in range(CANDIDATES):
        seed = hashlib.sha256(f"playlog/tests/dealt/{n}".encode()).digest()
        key = randomness.key(server_seed, created.game_id, [None] * last + [seed])
        if _wanted(wish, _dealt(kind, options, key, version)):
            break
    else:
        raise AssertionError(f"no seat seed of {CANDIDATES} deals what the test needs")
    joined = await http.post(
        f"/games/{created.game_id}/seats",
        json={"name": f"p{last}", "seed_commitment": randomness.seat_commitment(seed)},
    )
    assert joined.status_code == 201, joined.text
    seat = msgspec.json.decode(joined.content, type=JoinedSeat)
    revealed = await http.post(
        f"/games/{created.game_id}/seats/{last}/seed",
        json={"seed": seed.hex()},
        headers={"Authorization": f"Bearer {seat.token}"},
    )
    assert revealed.status_code == 200, revealed.text
    await api.start(created.game_id, created.host_token)
    return Game(api, created, [*seats, seat])
