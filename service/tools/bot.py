"""Bots that play random legal moves through the HTTP API, seeing only what their seat may see.

One ``play_game`` drives every seat of one game: it asks each seat for its view, picks a seat
that has legal commands and one of them at random, and sends it with an idempotency key and the
expected version. A refusal caused by a race (another seat moved first) is simply retried.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from domain import registry
from domain.decider import Concede
from service.http.api.problems import RACES
from service.tools.client import ApiError, JoinedSeat, PlaylogClient

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


def pick(rng: random.Random, commands: list[dict[str, Any]]) -> dict[str, Any] | None:
    playable = [c for c in commands if c.get("type") not in AVOIDED]
    return rng.choice(playable) if playable else None


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
) -> GameReport:
    """One game of bots; seat n joins with ``player_tokens[n]`` when given, else as a guest."""
    rng = rng or random.Random()
    created = await api.create_game(kind, options, public=True, spectator_delay=0)
    report = GameReport(game_id=created.game_id)
    tokens = [player_tokens[n] if n < len(player_tokens) else None for n in range(created.seats)]
    seats: list[JoinedSeat] = [
        await api.join(created.game_id, f"bot-{n}", player_token=token) for n, token in enumerate(tokens)
    ]
    await api.start(created.game_id, created.host_token)
    deadline = time.monotonic() + timeout
    while report.commands < max_commands and time.monotonic() < deadline:
        views = await asyncio.gather(*(api.view(created.game_id, s.seat, s.token) for s in seats))
        if views[0].status == "finished":
            report.finished = True
            report.winners = views[0].winners
            break
        choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
        if not choices:
            await asyncio.sleep(0.02)  # waiting for a deadline the server resolves itself
            continue
        view, command = rng.choice(choices)
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
        except ApiError as exc:
            if exc.code not in RACES:
                report.errors.append(f"{command.get('type')}: {exc}")
                if len(report.errors) > 20:
                    break
    if verify and report.finished:
        report.verified = (await api.verify(created.game_id)).ok
    return report
