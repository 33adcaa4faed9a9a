"""A decision's table is the table its events fold to (domain/table/decision.py): the table the
service appends and caches is made in the pass that made the events, so it must be the very table
any reader folds from the log. Random games of every registered game through the composed
decider, with the server's seed (disclosed at the end), timeouts, removals and concessions."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest

from domain import registry
from domain.decider import Concede, Context
from domain.errors import RuleViolation
from domain.randomness import Draws, server_commitment
from domain.table import seeds
from domain.table.clock import deadline, with_defaults
from domain.table.commands import ActOnDeadline, CreateGame, JoinSeat, LeaveSeat, Play, StartGame
from domain.table.state import Table
from tests.games import GAMES

SERVER_SEED = bytes(range(32))


def _context(table: Table, game_id: uuid.UUID, now: float) -> Context:
    draws = seeds.draws(table, game_id, SERVER_SEED)
    assert draws is not None
    return seeds.context(table, draws, now, SERVER_SEED)


def _next(table: Table, rng: random.Random) -> tuple[Any, float]:
    """A command the game could be sent now, and when: mostly a seat's move, sometimes the
    server's at a deadline, sometimes a seat leaving."""
    now = table.started_at or 0.0
    due = deadline(table)
    if due is not None and rng.random() < 0.3:
        return ActOnDeadline(), due
    if rng.random() < 0.03:
        seat = rng.choice([s for s in range(len(table.seats)) if s not in table.conceded])
        return LeaveSeat(seat=seat, holder=table.occupancies[seat]), now
    moves = [
        (seat, move)
        for seat in range(len(table.seats))
        if seat not in table.conceded
        for move in table.decider.legal_commands(table.state, seat)
        if type(move) is not Concede
    ]
    if not moves:
        return ActOnDeadline(), due if due is not None else now
    seat, move = rng.choice(moves)
    return Play(seat=seat, command=move, holder=table.occupancies[seat]), now


@pytest.mark.parametrize("seed", range(6))
def test_each_decision_s_table_is_the_fold_of_its_events(seed: int) -> None:
    with registry.serving(*GAMES):
        for kind in sorted(registry.KINDS):
            rules = registry.for_kind(kind)
            rng = random.Random(f"{kind}:{seed}")
            game_id = uuid.UUID(int=seed)
            game = rules.game
            players = min(game.seats.max, game.seats.min + 1)
            create = with_defaults(game, CreateGame(kind=kind, options={"players": players}, public=True))
            ctx = Context(Draws(None, 0), 1.0, None, seed_commitment=server_commitment(SERVER_SEED))
            decision = rules.decide(None, create, ctx)
            table = decision.table
            assert table == rules.fold(None, decision.events)
            lobby = [*(JoinSeat(name=f"p{n}", occupancy=f"o{n}") for n in range(players)), StartGame()]
            for command in lobby:
                decision = rules.decide(table, command, _context(table, game_id, 2.0))
                assert decision.table == rules.fold(table, decision.events)
                table = decision.table
            for _ in range(400):
                if table.status != "running":
                    break
                command, now = _next(table, rng)
                try:
                    decision = rules.decide(table, command, _context(table, game_id, now))
                except RuleViolation:  # a move another seat's made stale, say
                    continue
                assert decision.table == rules.fold(table, decision.events), (kind, command)
                table = decision.table
            assert table.status == "finished", (kind, table.version)
            assert table.server_seed == SERVER_SEED.hex()  # disclosed in the decision that ended it
