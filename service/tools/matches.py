"""Computer players against each other, in process: the game's own rules, no server, no database.

Each decision is made by ``bots.choose`` from exactly what the service would show the seat (the
game's ``view`` for that seat and its moves, encoded to JSON and back), so a level plays here as
it plays over HTTP. The clock only jumps to a deadline when no seat has a move (a reaction
window every seat let pass, say), as the server would act then. Used by the strength bench
(bench/computer_players.py) and the tests of the levels.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

import bots
from domain import registry
from domain.decider import Concede, Context
from domain.randomness import Draws
from domain.viewers import Seat


@dataclass
class Match:
    kind: str
    levels: tuple[bots.Level, ...]
    winners: tuple[int, ...] = ()
    decisions: int = 0
    timings: list[tuple[bots.Level, float]] = field(default_factory=list)  # each decision's level and seconds


def play_match(
    kind: str, levels: Sequence[bots.Level], options: Mapping[str, Any], seed: int, max_commands: int = 3000
) -> Match:
    """One seeded game with ``levels[n]`` at seat n; ``options`` as a client sends them."""
    decider = registry.get(kind)
    rng = random.Random(seed)
    key = rng.randbytes(32)
    state = decider.initial_state(decider.parse_options({**options, "players": len(levels)}))
    events: list[Any] = []
    now = 0.0

    def apply(command: Any, seat: int | None) -> None:
        nonlocal state
        for event in decider.decide(state, command, Context(Draws(key, len(events)), now, seat)):
            state = decider.evolve(state, event)
            events.append(event)

    for event in decider.start(state, Context(Draws(key, 0), now, None)):
        state = decider.evolve(state, event)
        events.append(event)
    match = Match(kind, tuple(levels))
    command_type = decider.types.command
    while decider.outcome(state) is None and match.decisions < max_commands:
        seats = [(seat, moves) for seat in range(len(levels)) if (moves := _moves(decider, state, seat))]
        if not seats:
            due = decider.clock.deadline(state)
            if due is None:
                break
            now = max(now, due)
            apply(decider.clock.on_deadline(state), None)
            continue
        seat, moves = seats[0]
        view = msgspec.to_builtins(decider.view(state, Seat(seat)))
        started = time.perf_counter()
        chosen = bots.choose(kind, levels[seat], view, msgspec.to_builtins(moves), rng)
        match.timings.append((levels[seat], time.perf_counter() - started))
        assert chosen is not None
        apply(msgspec.convert(chosen, command_type), seat)
        match.decisions += 1
    outcome = decider.outcome(state)
    match.winners = tuple(outcome.winners) if outcome is not None else ()
    return match


def _moves(decider: Any, state: Any, seat: int) -> list[Any]:
    return [c for c in decider.legal_commands(state, seat) if type(c) is not Concede]
