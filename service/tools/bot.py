"""Bots that play through the HTTP API, seeing only what their seat may see.

One ``play_game`` drives every seat of one game: it asks each seat for its view, picks a seat
that has legal commands and one of them, and sends it with an idempotency key and the expected
version. By default a move is picked at random; with ``levels`` each seat is a computer player
of that level (``bots``), deciding from its own view alone, and each decision is kept in the
report (the view it was made on and the move) so that it can be made again and compared. A
refusal caused by a race (another seat moved first) is simply retried.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import bots
from domain import registry
from domain.decider import Concede
from service.http.api.problems import RACES
from service.tools.client import ApiError, JoinedSeat, PlaylogClient, SeatView

# Commands a bot never chooses: leaving a game would only shorten it.
AVOIDED = frozenset({registry.tag_of(Concede)})


@dataclass
class GameReport:
    game_id: uuid.UUID
    finished: bool = False
    commands: int = 0
    errors: list[str] = field(default_factory=list)
    winners: list[int] | None = None
    verified: bool | None = None
    # Every command the server acknowledged: (seat, Idempotency-Key, version after it).
    acknowledged: list[tuple[int, str, int]] = field(default_factory=list)
    # Each computer player's decision that the server acknowledged.
    decisions: list[Decision] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)  # each seat's token, by seat


@dataclass(frozen=True)
class Decision:
    """A computer player's move and everything it was decided on: the seat's view at ``version``."""

    seat: int
    level: bots.Level
    version: int
    view: dict[str, Any]
    moves: list[dict[str, Any]]
    move: dict[str, Any]


def pick(rng: random.Random, commands: list[dict[str, Any]]) -> dict[str, Any] | None:
    playable = [c for c in commands if c.get("type") not in AVOIDED]
    return rng.choice(playable) if playable else None


def decide(game_id: uuid.UUID, level: bots.Level, view: SeatView) -> dict[str, Any] | None:
    """A computer player's move on ``view``: the level's choice, with a stream seeded by the game,
    the seat and the seat's version, so the same view always gives the same move."""
    rng = bots.seeded(str(game_id), view.seat, view.version)
    return bots.choose(view.kind, level, view.view or {}, view.moves, rng)


async def play_game(
    api: PlaylogClient,
    kind: str,
    options: dict[str, Any],
    *,
    rng: random.Random | None = None,
    max_commands: int = 5000,
    timeout: float = 300.0,
    verify: bool = True,
    player_tokens: Sequence[str] = (),
    levels: Sequence[bots.Level] = (),
) -> GameReport:
    """One game of bots; seat n joins with ``player_tokens[n]`` when given, else as a guest, and
    plays at ``levels[n]`` when given, else at random."""
    rng = rng or random.Random()
    created = await api.create_game(kind, options, public=True, spectator_delay=0)
    report = GameReport(game_id=created.game_id)
    tokens = [player_tokens[n] if n < len(player_tokens) else None for n in range(created.seats)]
    seats: list[JoinedSeat] = [
        await api.join(created.game_id, f"bot-{n}", player_token=token) for n, token in enumerate(tokens)
    ]
    report.tokens = [s.token for s in seats]
    await api.start(created.game_id, created.host_token)
    deadline = time.monotonic() + timeout
    while report.commands < max_commands and time.monotonic() < deadline:
        views = await asyncio.gather(*(api.view(created.game_id, s.seat, s.token) for s in seats))
        if views[0].status == "finished":
            report.finished = True
            report.winners = views[0].winners
            break
        if levels:
            choices = [(v, c) for v in views if (c := decide(created.game_id, levels[v.seat], v)) is not None]
        else:
            choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
        if not choices:
            await asyncio.sleep(0.02)  # waiting for a deadline the server resolves itself
            continue
        view, command = choices[0] if levels else rng.choice(choices)
        seat = seats[view.seat]
        key = uuid.uuid4().hex
        try:
            result = await api.send(
                created.game_id,
                seat.seat,
                seat.token,
                command,
                idempotency_key=key,
                expected_version=view.version,
            )
            report.commands += 1
            report.acknowledged.append((seat.seat, key, result.version))
            if levels:
                level = levels[seat.seat]
                report.decisions.append(
                    Decision(seat.seat, level, view.version, view.view, view.moves, command)
                )
        except ApiError as exc:
            if exc.code not in RACES:
                report.errors.append(f"{command.get('type')}: {exc}")
                if len(report.errors) > 20:
                    break
    if verify and report.finished:
        report.verified = (await api.verify(created.game_id)).ok
    return report
