"""The table's rules (RULES.md's lobby): create, join, leave or concede, start, the deadline
(domain/table/clock.py: the clock's own rules).

``decide(game, table, command, ctx)`` is the composed decide: lobby commands are decided here,
a seat's ``Play`` and the server's ``ActOnDeadline`` are routed to ``game`` once it has started.
It gives back a ``Decision``: the events and the table after them (domain/table/decision.py).
Dispute commands (a seat's raise and reply, a moderator's work) are decided beside it, by
domain/disputes (composed in domain/table/decider.py).
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain import randomness
from domain.decider import Concede, Context, Decider
from domain.table import clock
from domain.table.commands import (
    DEFAULT_SPECTATOR_DELAY,
    HELD,
    MAX_SPECTATOR_DELAY,
    NAME_LENGTH,
    ActOnDeadline,
    CreateGame,
    EraseSeats,
    JoinSeat,
    LeaveSeat,
    Play,
    RevealSeed,
    StartGame,
    TableCommand,
)
from domain.table.decision import Decision, by_game, folded, then
from domain.table.events import (
    GameCreated,
    GameStarted,
    SeatJoined,
    SeatLeft,
    SeatsErased,
    SeedDisclosed,
    SeedRevealed,
)
from domain.table.refusals import TableRefusal, already_started, lobby_closed
from domain.table.state import Table
from domain.text import is_name


def check_holder(table: Table, seat: int, holder: str | None) -> None:
    """Refuse (``seat_token_revoked``) unless occupancy ``holder`` holds ``seat`` (None: no check)."""
    if holder is None:
        return
    if not 0 <= seat < len(table.seats) or table.occupancies[seat] != holder:
        raise TableRefusal(
            "forbidden", "seat_token_revoked", "This seat token's holder no longer holds this seat."
        )


def admit(table: Table, command: TableCommand) -> None:
    """Refuse a seat's command whose token's holder no longer holds the seat, as ``decide``
    does: for whoever must answer before deciding (a version conflict tells the seat's version,
    in its own numbering, only to its holder)."""
    if isinstance(command, HELD):
        check_holder(table, command.seat, command.holder)


def create(game: Decider, command: CreateGame, ctx: Context) -> list[Any]:
    delay = DEFAULT_SPECTATOR_DELAY if command.spectator_delay is None else command.spectator_delay
    if not 0 <= delay <= MAX_SPECTATOR_DELAY:
        raise TableRefusal(
            "invalid", "invalid_spectator_delay", f"spectator_delay must be 0..{MAX_SPECTATOR_DELAY:g} s."
        )
    options = game.parse_options(command.options)
    timeouts_to_remove, lobby_timeout = clock.recorded(command)
    return [
        GameCreated(
            kind=game.kind,
            options=msgspec.to_builtins(options),
            public=command.public,
            spectator_delay=delay,
            created_at=ctx.now,
            rules_version=game.versions.rules,
            seed_commitment=ctx.seed_commitment,
            timeouts_to_remove=timeouts_to_remove,
            lobby_timeout=lobby_timeout,
            rated=command.rated,
        )
    ]


def join(table: Table, command: JoinSeat) -> list[Any]:
    name = command.name.strip()
    low, high = NAME_LENGTH
    if not low <= len(name) <= high or not is_name(name):
        raise TableRefusal(
            "invalid", "invalid_name", f"A display name has {low} to {high} characters, no control character."
        )
    if table.status != "open":
        raise lobby_closed() if table.closed else already_started()
    free = table.free_seats()
    if not free:
        raise TableRefusal("conflict", "game_full", "Every seat of this game is taken.")
    committed = command.seed_commitment
    if committed is not None and randomness.parse_seed(committed) is None:
        raise TableRefusal(
            "invalid", "invalid_seed_commitment", "A seed commitment is 64 lower-case hex digits."
        )
    return [
        SeatJoined(
            seat=free[0],
            name=name,
            occupancy=command.occupancy,
            player=command.player,
            seed_commitment=committed,
        )
    ]


def reveal(table: Table, command: RevealSeed) -> list[Any]:
    """A seat's seed, once every seat is taken (so every seed was committed before any is
    known) and before the start; it must match the commitment the seat joined with."""
    check_holder(table, command.seat, command.holder)
    if table.status != "open":
        raise already_started()
    if table.free_seats():
        raise TableRefusal("conflict", "seats_not_filled", "Seeds are revealed once every seat is taken.")
    if table.seat_seeds and table.seat_seeds[command.seat] is not None:
        raise TableRefusal("conflict", "seed_already_revealed", "This seat has revealed its seed already.")
    committed = table.seat_commitments[command.seat] if table.seat_commitments else None
    if committed is None:
        raise TableRefusal("conflict", "no_seed_commitment", "This seat joined without a seed commitment.")
    seed = randomness.parse_seed(command.seed)
    if seed is None or randomness.seat_commitment(seed) != committed:
        raise TableRefusal("invalid", "seed_mismatch", "This seed does not match the seat's commitment.")
    return [SeedRevealed(seat=command.seat, seed=command.seed)]


def start(game: Decider, table: Table, ctx: Context) -> list[Any]:
    if table.status != "open":
        raise lobby_closed() if table.closed else already_started()
    if free := table.free_seats():
        raise TableRefusal("conflict", "seats_not_filled", f"{len(free)} seat(s) are still free.")
    return [GameStarted(started_at=ctx.now), *game.start(table.state, ctx)]


def leave(game: Decider, table: Table, command: LeaveSeat, ctx: Context) -> Decision:
    check_holder(table, command.seat, command.holder)
    if table.status == "open":
        if any(seed is not None for seed in table.seat_seeds):
            # A newcomer who saw the revealed seeds could pick its own to steer the deal.
            raise TableRefusal("conflict", "seeds_revealed", "Seeds were revealed: the lobby cannot be left.")
        return folded(game, table, [SeatLeft(seat=command.seat)])
    if table.status == "finished":
        raise TableRefusal("conflict", "cannot_leave", "This game cannot be left now.")
    return by_game(game, table, Concede(), ctx.acting(command.seat))


def play(game: Decider, table: Table, command: Play, ctx: Context) -> Decision:
    check_holder(table, command.seat, command.holder)
    if table.status == "open":
        raise TableRefusal("conflict", "game_not_started", "The game has not started yet.")
    moves = by_game(game, table, command.command, ctx.acting(command.seat))
    return clock.back(table, command.seat, moves)


def disclosed(table: Table, decision: Decision, ctx: Context) -> Decision:
    """``decision``, followed by the server's seed when it ends the game running at ``table`` (a
    game with a committed seed: a seeded game has none to disclose)."""
    if ctx.server_seed is None or not decision.events or table.status != "running":
        return decision
    if decision.table.outcome is None:
        return decision
    return then(decision, SeedDisclosed(seed=ctx.server_seed))


def erase(table: Table, command: EraseSeats) -> list[Any]:
    """A person's erasure recorded in the game, whatever its status (docs/erasure.md)."""
    low, high = NAME_LENGTH
    if any(not 0 <= seat < len(table.seats) for seat in command.seats):
        raise TableRefusal("invalid", "invalid_seat", "There is no such seat in this game.")
    if not low <= len(command.pseudonym) <= high or not is_name(command.pseudonym):
        raise TableRefusal(
            "invalid", "invalid_name", f"A pseudonym is a display name of {low} to {high} characters."
        )
    return [SeatsErased(seats=sorted(set(command.seats)), pseudonym=command.pseudonym)]


def decide(game: Decider, table: Table | None, command: TableCommand, ctx: Context) -> Decision:
    """The events ``command`` makes happen at ``table`` (None: no game yet) and the table after
    them; raises a refusal."""
    if table is None:
        if not isinstance(command, CreateGame):
            raise TableRefusal("conflict", "no_game", "There is no game here yet.")
        return folded(game, None, create(game, command, ctx))
    match command:
        case Play():
            return disclosed(table, play(game, table, command, ctx), ctx)
        case JoinSeat():
            return folded(game, table, join(table, command))
        case RevealSeed():
            return folded(game, table, reveal(table, command))
        case StartGame():
            return folded(game, table, start(game, table, ctx))
        case LeaveSeat():
            return disclosed(table, leave(game, table, command, ctx), ctx)
        case ActOnDeadline():
            return disclosed(table, clock.on_deadline(game, table, ctx), ctx)
        case EraseSeats():
            return folded(game, table, erase(table, command))
        case CreateGame():
            raise TableRefusal("conflict", "game_exists", "This game already exists.")
    raise TableRefusal("invalid", "unknown_command", f"Unknown table command {type(command).__name__}.")
